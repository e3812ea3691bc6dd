"""Conformance: the same seeded games played through the core (photocore.Game) and every
adapter - VecGame, the Gymnasium environments, PettingZoo, OpenSpiel - for 2, 3 and 4
players and every combination of the advanced rules, each adapter compared, ply by ply,
with what the core gives and with what docs/engine.md and docs/rl.md say the adapter shows
of it: observations (from the view the adapter documents), legal masks, rewards and
returns, the player to move, the end of the game.

The games are the core's: each ply's action is drawn by a seeded RNG from the core's legal
moves (against the built-in opponents of the Gymnasium environments, the learner's only),
then the same action ids are fed to every adapter. A framework that is not installed skips
its adapter."""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from photoref import win_share

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE, VecGame
from photocore.facts import CLOCK_SLOT, MAX_PLAYERS, OBSERVATION, OPTIONS, Options

GAMES = 3     # seeded games per configuration
# plus, for one configuration per player count, a game that ends in a shared win: its seed
TIED = {(2, "s"): 2066, (3, "-"): 3011, (4, "s"): 4020}

CONFIGS = [pytest.param(players, options, id=f"{players}p-{options}")
           for players in (2, 3, 4) for options in OPTIONS]

# docs/engine.md, Observation tensor: the phase's and the player to move's one-hots in the
# last part (after the round and the sun)
PHASE = OBSERVATION["clock"] + CLOCK_SLOT["phase"]
TO_MOVE = OBSERVATION["clock"] + CLOCK_SLOT["mover"]
# the parts that depend on the viewer, as (offset, size per slot): the pieces, the players'
# values, the player to move
SLOTTED = [(OBSERVATION[part], (OBSERVATION[after] - OBSERVATION[part]) // MAX_PLAYERS)
           for part, after in [("pieces", "shadows"), ("players", "stacks")]] + [(TO_MOVE, 1)]


@dataclass
class Trace:
    """A game as the core plays it. Ply i is the position before actions[i]; ply
    len(actions) is the end. views[i][p] is Game.observation(p) at ply i."""

    players: int
    options: Options
    seed: int
    actions: list[int]
    movers: list[int]                  # the player to move at each ply but the last
    views: list[np.ndarray]            # (players, OBSERVATION_SIZE) per ply
    masks: list[np.ndarray]            # legal_moves().mask() per ply
    returns: tuple[float, ...]
    winners: tuple[int, ...]

    def where(self, adapter: str, ply: int) -> str:
        return (f"{adapter}, {self.players} players, options {self.options}, seed "
                f"{self.seed}, ply {ply}/{len(self.actions)}")

    def next_ply_of(self, seat: int, ply: int) -> int:
        """The first ply from `ply` on where `seat` is to move (the end if none)."""
        while ply < len(self.movers) and self.movers[ply] != seat:
            ply += 1
        return ply


def play(players: int, options: Options, seed: int, choose: Any = None) -> Trace:
    """The core's game of `seed`: actions drawn uniformly from the legal moves, or given
    by choose(game, rng) (the built-in opponents' seats)."""
    rng = np.random.default_rng(seed)
    game = photocore.Game(players, options=options)
    trace = Trace(players, options, seed, [], [], [], [], (), ())
    while True:
        trace.views.append(np.stack([game.observation(p) for p in range(players)]))
        trace.masks.append(game.legal_moves().mask())
        if game.is_over:
            break
        trace.movers.append(game.current_player)
        action = choose(game, rng) if choose else None
        if action is None:
            ids = game.legal_moves().ids()
            action = ids[rng.integers(len(ids))]
        trace.actions.append(int(action))
        game.play(int(action))
    trace.returns, trace.winners = game.returns(), game.winners()
    return trace


def core_games(players: int, options: Options) -> list[Trace]:
    seeds = [1000 * players + 10 * options.flags + k for k in range(GAMES)]
    if (players, str(options)) in TIED:
        seeds.append(TIED[players, str(options)])
    return [play(players, options, seed) for seed in seeds]


def same(got: Any, want: Any, where: str, what: str) -> None:
    """Equal arrays (or values), or a failure naming the place, the field and the first
    entries that differ."""
    got_a, want_a = np.asarray(got), np.asarray(want)
    if got_a.shape != want_a.shape:
        pytest.fail(f"{where}: {what} has shape {got_a.shape}, the core's {want_a.shape}")
    if not np.array_equal(got_a, want_a):
        bad = np.flatnonzero(got_a.ravel() != want_a.ravel())[:8]
        pytest.fail(f"{where}: {what} differs from the core's at {bad.tolist()}: "
                    f"{got_a.ravel()[bad].tolist()} != {want_a.ravel()[bad].tolist()}")


def close(got: Any, want: Any, where: str, what: str) -> None:
    """Equal rewards, as float32 holds them."""
    if not np.allclose(np.asarray(got, np.float64), want, rtol=0, atol=1e-6):
        pytest.fail(f"{where}: {what} is {np.asarray(got).tolist()}, the core's {list(want)}")


def rotated(view: np.ndarray, k: int, players: int) -> np.ndarray:
    """A view moved k players on: slot j of the result is slot j + k of `view`."""
    out = view.copy()
    for offset, size in SLOTTED:
        slots = view[offset:offset + players * size].reshape(players, size)
        out[offset:offset + players * size] = np.roll(slots, -k, axis=0).ravel()
    return out


def empty_slots(view: np.ndarray, players: int) -> bool:
    """Whether the slots beyond the player count are zero."""
    return not any(view[offset + players * size:offset + MAX_PLAYERS * size].any()
                   for offset, size in SLOTTED)


# ---- the core: its own documented definitions -------------------------------------------

@pytest.mark.parametrize("players,options", CONFIGS)
def test_core(players, options):
    # the observation is the same position seen from each seat; the player to move is its
    # one-hot slot; the returns are the zero-sum win shares of the winners
    for trace in core_games(players, options):
        game = photocore.Game(players, options=options)
        for ply, views in enumerate(trace.views):
            where = trace.where("core", ply)
            over = ply == len(trace.actions)
            assert game.is_over == over, where
            for p in range(players):
                same(views[p], rotated(views[0], p, players), where, f"observation({p})")
                assert empty_slots(views[p], players), where
            phase = 2 if over else 0 if ply < 2 * players else 1    # setup: 2n placements
            same(views[:, PHASE:PHASE + 3], np.tile(np.eye(3)[phase], (players, 1)), where,
                 "phase")
            if over:
                assert game.current_player is None, where
                same(views[:, TO_MOVE:TO_MOVE + MAX_PLAYERS], np.zeros((players, MAX_PLAYERS)),
                     where, "player to move")
                assert not trace.masks[ply].any() and game.legal_moves().ids() == [], where
                break
            mover = trace.movers[ply]
            assert game.current_player == mover, where
            same(game.observation(), views[mover], where, "observation()")
            same(views[mover][TO_MOVE:TO_MOVE + MAX_PLAYERS], np.eye(MAX_PLAYERS)[0], where,
                 "player to move (slot 0 of the mover's view)")
            same(np.flatnonzero(trace.masks[ply]), game.legal_moves().ids(), where, "mask")
            game.play(trace.actions[ply])
        assert trace.returns == pytest.approx(win_share(players, trace.winners))
        if trace.seed == TIED.get((players, str(options))):
            assert len(trace.winners) > 1, f"seed {trace.seed} no longer ties: pick another"
        assert sum(trace.returns) == pytest.approx(0.0)


# ---- VecGame ----------------------------------------------------------------------------

@pytest.mark.parametrize("players,options", CONFIGS)
def test_vecgame(players, options):
    # the games side by side in a VecGame, and in another one stepped with relative=True
    # (rewards by the mover rather than by player); obs and mask are the player to move's,
    # `player` says who that is
    traces = core_games(players, options)
    n = len(traces)
    envs = [VecGame(n, players, options=options) for _ in range(2)]
    player = [np.empty(n, np.int64) for _ in envs]
    final = [np.full((n, OBSERVATION_SIZE), -1, np.float32) for _ in envs]
    out = [env.reset(seed=0, player=who) for env, who in zip(envs, player)]
    for ply in range(max(len(t.actions) for t in traces)):
        actions = np.empty(n, np.int64)
        for i, t in enumerate(traces):
            if ply >= len(t.actions):        # this game is over: any legal move of the next
                actions[i] = np.flatnonzero(out[0][1][i])[0]
                continue
            where, mover = t.where("VecGame", ply), t.movers[ply]
            for env, (obs, mask), who in zip(envs, out, player):
                assert obs.dtype == np.float32 and mask.dtype == bool, where
                same(obs[i], t.views[ply][mover], where, "obs (the mover's view)")
                same(mask[i], t.masks[ply], where, "mask")
                same(who[i], mover, where, "player")
                same(env.current_player[i], mover, where, "current_player")
            actions[i] = t.actions[ply]
        steps = [env.step(actions, final_obs=end, player=who, relative=relative)
                 for env, end, who, relative in zip(envs, final, player, (False, True))]
        out = [(obs, mask) for obs, mask, _, _ in steps]
        for i, t in enumerate(traces):
            if ply >= len(t.actions):
                continue
            where, mover, ended = t.where("VecGame", ply + 1), t.movers[ply], ply == len(
                t.actions) - 1
            for (obs, mask, rewards, done), end, relative in zip(steps, final, (False, True)):
                same(done[i], ended, where, "done")
                if not ended:
                    same(rewards[i], np.zeros(players), where, "rewards")
                    continue
                want = [t.returns[(mover + k) % players if relative else k]
                        for k in range(players)]
                close(rewards[i], want, where, f"rewards (relative={relative})")
                same(end[i], t.views[-1][mover], where, "final_obs (the ender's view)")
                # the game starts again in the same step
                same(obs[i], t.views[0][t.movers[0]], where, "obs of the next game")
                same(mask[i], t.masks[0], where, "mask of the next game")
    assert [env.episodes for env in envs] == [n, n]


# ---- Gymnasium --------------------------------------------------------------------------

class Script:
    """Plays the trace's moves in the seats the learner does not hold."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace

    def select(self, game: photocore.Game) -> int:
        ply = len(game.history)
        assert game.current_player == self.trace.movers[ply], self.trace.where("gym", ply)
        return self.trace.actions[ply]


def check_gym_episode(env: Any, trace: Trace, seat: int, first: tuple[Any, Any],
                      adapter: str) -> None:
    """PhotosynthesisEnv through one episode of `trace`, learner in `seat`: each step
    plays the learner's action of the trace, the opponents theirs; the observation is the
    learner's view, rewards 0 until the learner's return at the end."""
    obs, info = first
    ply = trace.next_ply_of(seat, 0)
    while True:
        where = trace.where(adapter, ply)
        assert obs.dtype == np.float32, where
        if ply == len(trace.actions):
            same(obs, trace.views[-1][seat], where, "final observation (the learner's view)")
            same(info["action_mask"], np.zeros(NUM_ACTIONS, bool), where, "action_mask")
            break
        same(obs, trace.views[ply][seat], where, "observation (the learner's view)")
        same(info["action_mask"], trace.masks[ply], where, "info action_mask")
        same(env.get_wrapper_attr("action_masks")(), trace.masks[ply], where, "action_masks()")
        same(info["seat"], seat, where, "info seat")
        obs, reward, terminated, truncated, info = env.step(trace.actions[ply])
        ply = trace.next_ply_of(seat, ply + 1)
        where = trace.where(adapter, ply)
        same(terminated, ply == len(trace.actions), where, "terminated")
        same(truncated, False, where, "truncated")
        same(reward, trace.returns[seat] if terminated else 0.0, where, "reward")
    same([m.id for m in env.unwrapped.game.history], trace.actions, where, "the game's moves")


@pytest.mark.parametrize("players,options", CONFIGS)
def test_gymnasium_env(players, options):
    # the learner in each seat in turn, the other seats playing the trace's moves
    gymnasium = pytest.importorskip("gymnasium", minversion="1.0")
    from photocore.env.gym import ENV_ID
    for trace in core_games(players, options):
        for seat in range(players):
            env = gymnasium.make(ENV_ID, players=players, opponents=Script(trace), seat=seat,
                                 options=options)
            check_gym_episode(env, trace, seat, env.reset(seed=trace.seed),
                              f"PhotosynthesisEnv seat {seat}")


@pytest.mark.parametrize("players,options", CONFIGS)
def test_gymnasium_env_against_builtin_agents(players, options):
    # the built-in opponents, seeded as docs/rl.md says, against the learner's moves drawn
    # from the core's legal moves: the single environment, then the vector environment
    # (VecGame with opponents in C), whose game i is the single one reset with seed + i
    gymnasium = pytest.importorskip("gymnasium", minversion="1.0")
    from photocore.env.gym import ENV_ID, PhotosynthesisVectorEnv, opponent_seed
    specs = ["greedy", "random", "greedy"][:players - 1]
    base = 7000 + 100 * players + 10 * options.flags
    traces, seats = [], []
    for seed in range(base, base + GAMES):
        env = gymnasium.make(ENV_ID, players=players, opponents=specs, seat="random",
                             options=options)
        first = env.reset(seed=seed)
        seat = first[1]["seat"]             # drawn as docs/rl.md says: tests/environments/test_gym.py
        agents = [photocore.Agent(spec, seed=opponent_seed(seed, k))
                  for k, spec in enumerate(specs)]

        def opponents(game, rng, seat=seat, agents=agents):
            mover = game.current_player
            return None if mover == seat else agents[(mover - seat - 1) % players].select(game)

        trace = play(players, options, seed, opponents)
        check_gym_episode(env, trace, seat, first, f"PhotosynthesisEnv seat {seat}")
        traces.append(trace)
        seats.append(seat)

    n = len(traces)
    vec = PhotosynthesisVectorEnv(n, players=players, opponents=specs, seat="random",
                                  options=options)
    obs, info = vec.reset(seed=base)
    same(info["seat"], seats, f"PhotosynthesisVectorEnv {players} players", "info seat")
    plies = [t.next_ply_of(s, 0) for t, s in zip(traces, seats)]
    while any(ply < len(t.actions) for t, ply in zip(traces, plies)):
        actions = np.empty(n, np.int64)
        for i, (t, seat, ply) in enumerate(zip(traces, seats, plies)):
            if ply > len(t.actions):           # over: any legal move of the next game
                actions[i] = np.flatnonzero(info["action_mask"][i])[0]
                continue
            where = t.where(f"PhotosynthesisVectorEnv game {i} seat {seat}", ply)
            same(obs[i], t.views[ply][seat], where, "observation (the learner's view)")
            same(info["action_mask"][i], t.masks[ply], where, "info action_mask")
            same(info["seat"][i], seat, where, "info seat")
            actions[i] = t.actions[ply]
        obs, rewards, terminated, truncated, info = vec.step(actions)
        for i, (t, seat, ply) in enumerate(zip(traces, seats, plies)):
            if ply > len(t.actions):
                continue
            ply = plies[i] = t.next_ply_of(seat, ply + 1)
            where = t.where(f"PhotosynthesisVectorEnv game {i} seat {seat}", ply)
            ended = ply == len(t.actions)
            same(terminated[i], ended, where, "terminated")
            same(truncated[i], False, where, "truncated")
            close(rewards[i], [t.returns[seat] if ended else 0.0], where, "reward")
            if ended:
                same(info["final_obs"][i], t.views[-1][seat], where, "final_obs")
                same(info["final_info"]["seat"][i], seat, where, "final_info seat")
                same(info["final_info"]["action_mask"][i], np.zeros(NUM_ACTIONS, bool), where,
                     "final_info action_mask")
                plies[i] += 1                  # past the end: this game is done


# ---- PettingZoo -------------------------------------------------------------------------

@pytest.mark.parametrize("players,options", CONFIGS)
def test_pettingzoo(players, options):
    # every agent's observation is its own view; the mask is the mover's legal moves and
    # all 0 for the others; rewards are 0 until the end, then every agent's return
    pytest.importorskip("pettingzoo")
    from photocore.env.pettingzoo import env as make_env
    no_moves = np.zeros(NUM_ACTIONS, np.int8)
    for trace in core_games(players, options):
        e = make_env(players=players, options=options)
        e.reset(seed=trace.seed)
        agents = [f"player_{p}" for p in range(players)]
        assert e.possible_agents == agents
        for ply, action in enumerate(trace.actions):
            where, mover = trace.where("PettingZoo", ply), trace.movers[ply]
            same(e.agent_selection, agents[mover], where, "agent_selection")
            obs, reward, terminated, truncated, info = e.last()
            same(obs["observation"], trace.views[ply][mover], where, "observation")
            same(obs["action_mask"], trace.masks[ply].astype(np.int8), where, "action_mask")
            assert obs["observation"].dtype == np.float32, where
            assert obs["action_mask"].dtype == np.int8, where
            same([reward, terminated, truncated], [0.0, False, False], where,
                 "last() reward, terminated, truncated")
            for p, agent in enumerate(agents):
                seen = e.observe(agent)
                same(seen["observation"], trace.views[ply][p], where, f"observe({agent})")
                if p != mover:
                    same(seen["action_mask"], no_moves, where, f"observe({agent}) mask")
            same([e.rewards[a] for a in agents], [0.0] * players, where, "rewards")
            same([e.terminations[a] for a in agents], [False] * players, where, "terminations")
            e.step(action)
        where = trace.where("PettingZoo", len(trace.actions))
        same([e.rewards[a] for a in agents], trace.returns, where, "rewards at the end")
        same([e.terminations[a] for a in agents], [True] * players, where, "terminations")
        same([e.truncations[a] for a in agents], [False] * players, where, "truncations")
        finished = []
        for agent in e.agent_iter():
            obs, reward, terminated, truncated, info = e.last()
            p = agents.index(agent)
            same([reward, terminated, truncated], [trace.returns[p], True, False], where,
                 f"{agent}: last() reward, terminated, truncated")
            same(obs["observation"], trace.views[-1][p], where, f"{agent}: final observation")
            same(obs["action_mask"], no_moves, where, f"{agent}: final action_mask")
            finished.append(agent)
            e.step(None)
        assert sorted(finished) == agents and e.agents == [], where


# ---- OpenSpiel --------------------------------------------------------------------------

@pytest.mark.parametrize("players,options", CONFIGS)
def test_openspiel(players, options):
    # observation_tensor(p) is each player's view; terminal rewards, returns at the end
    pyspiel = pytest.importorskip("pyspiel")
    import photocore.env.openspiel  # noqa: F401   # registers the game
    game = pyspiel.load_game("python_photosynthesis", {"players": players,
                                                        **options._asdict()})
    for trace in core_games(players, options):
        state = game.new_initial_state()
        for ply in range(len(trace.actions) + 1):
            where, over = trace.where("OpenSpiel", ply), ply == len(trace.actions)
            same(state.is_terminal(), over, where, "is_terminal")
            mover = int(pyspiel.PlayerId.TERMINAL) if over else trace.movers[ply]
            same(state.current_player(), mover, where, "current_player")
            for p in range(players):
                same(state.observation_tensor(p), trace.views[ply][p], where,
                     f"observation_tensor({p})")
            same(state.legal_actions_mask(), trace.masks[ply], where, "legal_actions_mask")
            same(state.legal_actions(), np.flatnonzero(trace.masks[ply]), where,
                 "legal_actions")
            want = trace.returns if over else (0.0,) * players
            same(state.returns(), want, where, "returns")
            same(state.rewards(), want, where, "rewards")
            if not over:
                state.apply_action(trace.actions[ply])
        same(state.history(), trace.actions, where, "history")
