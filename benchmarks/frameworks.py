"""The frameworks' workloads of the registry (benchmarks/bench.py), each beside a baseline
timed in the same run: the OpenSpiel and PettingZoo adapters against the native Game loop,
the Gymnasium environments against plain VecGame.step, masked action sampling against
torch's Categorical, photocore.Search against OpenSpiel's Python MCTSBot. A workload whose
framework is not installed is reported skipped (missing()).
"""

import importlib.util
import pathlib
import random
import sys
import time
import zlib

import numpy as np
from engine import best

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE
from photocore.run import speed
from photocore.run.speed import expect

ROOT = pathlib.Path(__file__).resolve().parent.parent


def missing(*modules):
    """'needs X' for the first of `modules` not installed, else None."""
    return next((f"needs {m}" for m in modules if importlib.util.find_spec(m) is None), None)


# ---- adapters: a move's cost through each, against the native loop ------------------------

def native_loop(games, seed=0, observed=False):
    """legal_moves() + random.choice + play() (observed: with observation() and the legal
    mask each move, as an RL agent sees it): the baseline every adapter adds to."""
    rng = random.Random(seed)
    moves = 0
    for _ in range(games):
        game = photocore.Game(players=2)
        while not game.is_over:
            if observed:
                game.observation()
                game.play(rng.choice(np.flatnonzero(game.legal_moves().mask())))
            else:
                game.play(rng.choice(game.legal_moves()))
            moves += 1
    return moves


class Adapter(speed.Workload):
    """Random 2-player games through an adapter, uniform over its legal actions with
    Python's random: the same seed plays the very games of the native loop."""

    def __init__(self, games):
        self.games = games

    def check(self, value):
        expect(value == native_loop(self.games), "other games than the native loop's")
        return {"moves": value}, f"the {self.games} games of the native loop, {value} moves"

    def reference(self):
        seconds, moves = best(lambda: native_loop(self.games))
        observed, _ = best(lambda: native_loop(self.games, observed=True))
        return ({"moves": moves}, seconds, "baseline: the native Game loop (legal_moves + "
                f"random.choice + play), {seconds / moves * 1e9:,.0f} ns/move; with "
                f"observation() + the mask each move {observed / moves * 1e9:,.0f} ns/move")


class NativeLoop(Adapter):
    name = "adapter/native"

    def __init__(self, games):
        super().__init__(games)
        self.describe = (f"the native Game loop, observation() and the legal mask each move: "
                         f"{games} random 2-player games")

    def run(self):
        return native_loop(self.games, observed=True)


class OpenSpiel(Adapter):
    name = "adapter/openspiel"

    def __init__(self, games):
        super().__init__(games)
        self.describe = (f"OpenSpiel state (legal_actions + random.choice + apply_action), "
                         f"{games} random 2-player games")

    def missing(self):
        return missing("pyspiel")

    def prepare(self):
        import pyspiel

        import photocore.env.openspiel  # noqa: F401  (registers the game)
        self.game = pyspiel.load_game("python_photosynthesis", {"players": 2})

    def run(self, seed=0):
        rng = random.Random(seed)
        moves = 0
        for _ in range(self.games):
            state = self.game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                moves += 1
        return moves


class PettingZoo(Adapter):
    def __init__(self, games, wrapped):
        super().__init__(games)
        self.wrapped = wrapped
        self.name = f"adapter/pettingzoo{'' if wrapped else '_raw'}"
        self.describe = (f"PettingZoo {'env() (standard wrappers)' if wrapped else 'raw_env'}"
                         f" (last + random.choice over the mask + step), {games} random "
                         "2-player games")

    def missing(self):
        return missing("pettingzoo")

    def prepare(self):
        from photocore.env.pettingzoo import env, raw_env
        self.env = env(players=2) if self.wrapped else raw_env(players=2)

    def run(self, seed=0):
        rng = random.Random(seed)
        moves = 0
        for _ in range(self.games):
            self.env.reset()
            for _agent in self.env.agent_iter():
                obs, _, terminated, _, _ = self.env.last()
                if terminated:
                    self.env.step(None)
                    continue
                self.env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
                moves += 1
        return moves


# ---- Gymnasium: learner steps against plain VecGame.step ----------------------------------

class PlainVecGame:
    """VecGame.step of n games, every seat random, outputs reused: the baseline."""

    def __init__(self, n, steps):
        self.n, self.steps = n, steps
        self.env = photocore.VecGame(n, 2)
        self.out = (np.empty((n, OBSERVATION_SIZE), np.float32), np.empty((n, NUM_ACTIONS), bool),
                    np.empty((n, 2), np.float32), np.empty(n, bool))
        self.actions = np.empty(n, np.int64)
        self.env.reset(seed=0, obs=self.out[0], mask=self.out[1])

    def __call__(self):
        for _ in range(self.steps):
            self.env.step(self.env.random_actions(out=self.actions), *self.out)
        return self.n * self.steps

    def reference(self):
        seconds, steps = best(self)
        return ({"steps": steps}, seconds, f"baseline: plain VecGame({self.n:,}).step, random "
                "actions for every seat, no opponents, one thread")


class VectorEnv(speed.Workload):
    """A learner step is one action of the learner, with the opponents' whole turns that
    follow it, and its observation and mask written."""

    def __init__(self, n, steps, threads=1, copy=False):
        self.n, self.steps, self.threads, self.copy = n, steps, threads, copy
        self.name = (f"gym_vector/{n}" + ("-copy" if copy else "")
                     + (f"-{threads}_threads" if threads > 1 else ""))
        self.describe = (f"PhotosynthesisVectorEnv({n:,}, opponents='random', threads="
                         f"{threads}, copy={copy}): {steps} steps of random legal actions")

    def missing(self):
        return missing("gymnasium")

    def prepare(self):
        from photocore.env import gym
        self.envs = gym.PhotosynthesisVectorEnv(self.n, opponents="random", copy=self.copy,
                                                threads=self.threads)
        self.actions = np.empty(self.n, np.int64)

    def run(self):
        self.envs.reset(seed=0)
        legal, ended = True, 0
        for _ in range(self.steps):
            self.envs.vec.random_actions(out=self.actions)
            legal &= bool(self.envs.action_masks()[np.arange(self.n), self.actions].all())
            ended += int(self.envs.step(self.actions)[2].sum())
        return legal, ended

    def check(self, value):
        expect(value[0], "an illegal action")
        return {"steps": self.n * self.steps}, (f"every action legal by its mask; {value[1]} "
                                                "games ended, as many every run")

    def reference(self):
        return PlainVecGame(self.n, self.steps).reference()


class SingleEnv(speed.Workload):
    def __init__(self, steps, opponents):
        self.steps, self.opponents = steps, opponents
        self.name = f"gym_single/{opponents}"
        self.describe = (f"PhotosynthesisEnv(opponents={opponents!r}), {steps:,} learner "
                         "steps: np.flatnonzero(mask) + a random choice")

    def missing(self):
        return missing("gymnasium")

    def prepare(self):
        from photocore.env import gym
        self.env = gym.PhotosynthesisEnv(opponents=self.opponents)

    def run(self):
        rng = np.random.default_rng(0)
        self.env.reset(seed=0)
        ended = 0
        for _ in range(self.steps):
            legal = np.flatnonzero(self.env.action_masks())
            if self.env.step(legal[rng.integers(len(legal))])[2]:
                ended += 1
                self.env.reset()
        return ended

    def check(self, value):
        expect(value > 0, "no game ended")
        return {"steps": self.steps}, f"{value} games ended; the same seed ends as many"

    def reference(self):
        return PlainVecGame(1024, 40).reference()


class Sampling(speed.Workload):
    """Masked action sampling, 256 x NUM_ACTIONS float32 logits, torch on one thread."""

    name = "sample_actions"
    rows, calls = 256, 20

    def __init__(self):
        self.describe = (f"VecGame.sample_actions, {self.rows} x {NUM_ACTIONS} float32 "
                         f"logits, {self.calls} calls, one thread")

    def missing(self):
        return missing("torch")

    def prepare(self):
        import torch
        torch.manual_seed(0)
        self.torch, self.threads = torch, torch.get_num_threads()
        torch.set_num_threads(1)                 # as VecGame.sample_actions: one thread
        self.env = photocore.VecGame(self.rows)
        self.env.reset(seed=1)
        for _ in range(30):                      # into the game: more legal moves than at setup
            self.env.step(self.env.random_actions())
        self.mask = torch.from_numpy(self.env.step(self.env.random_actions())[1].copy())
        self.logits = torch.randn(self.rows, NUM_ACTIONS)

    def close(self):
        self.torch.set_num_threads(self.threads)

    def run(self):
        # the samples are random: kept for check(), their count returned (the same each run)
        self.samples = [self.torch.from_numpy(self.env.sample_actions(self.logits))
                        for _ in range(self.calls)]
        return len(self.samples)

    def legal(self, samples):
        return all(bool(self.mask[self.torch.arange(self.rows), s].all()) for s in samples)

    def check(self, value):
        expect(value == self.calls and self.legal(self.samples),
               "an action sampled outside the mask")
        return {"calls": self.calls}, "every action sampled is legal by its mask"

    def reference(self):
        torch, masked = self.torch, self.logits.masked_fill(~self.mask, float("-inf"))

        def gumbel():
            return (masked - torch.empty_like(masked).exponential_().log()).argmax(dim=1)

        def categorical():
            return torch.distributions.Categorical(logits=masked).sample()

        gumbel_seconds, samples = best(lambda: [gumbel() for _ in range(self.calls)])
        seconds, other = best(lambda: [categorical() for _ in range(self.calls)])
        expect(self.legal(samples) and self.legal(other), "torch sampled outside the mask")
        return ({"calls": self.calls}, seconds, "baseline: torch Categorical(logits=masked)"
                f".sample(), {seconds / self.calls * 1e3:.3f} ms a call; torch Gumbel-max "
                f"{gumbel_seconds / self.calls * 1e3:.3f} ms")


# ---- photocore.Search --------------------------------------------------------------------

def positions(count, seed=3):
    """2-player games 10-120 random moves in, not over, with at least 2 legal moves."""
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        game = photocore.Game(players=2)
        for _ in range(rng.randrange(10, 120)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) >= 2:
            games.append(game)
    return games


class Constant:
    """evaluate(obs, mask) -> uniform logits and zero values, from arrays made once."""

    def __init__(self, rows, players=2):
        self.logits = np.zeros((rows, NUM_ACTIONS), np.float32)
        self.values = np.zeros((rows, players), np.float32)

    def __call__(self, obs, mask):
        return self.logits[:len(obs)], self.values[:len(obs)]


class SpielEvaluator:
    """OpenSpiel's Evaluator around the constant evaluator: one state a call, its
    observation and mask built as photocore.Search builds them for a batch. MCTSBot asks
    for a leaf's value and, when it expands it later, for its priors: one evaluation
    serves both (a cache by observation, as OpenSpiel's AlphaZero evaluator keeps one)."""

    def __init__(self, evaluate):
        self.evaluate_batch = evaluate
        self.cache = {}

    def _ask(self, state):
        obs = np.asarray(state.observation_tensor(), np.float32)[None]
        key = obs.tobytes()
        if key not in self.cache:
            mask = np.zeros((1, NUM_ACTIONS), np.bool_)
            mask[0, state.legal_actions()] = True
            self.cache[key] = self.evaluate_batch(obs, mask)
        return self.cache[key]

    def evaluate(self, state):
        return np.asarray(self._ask(state)[1][0], np.float64)

    def prior(self, state):
        logits = self._ask(state)[0][0]
        legal = state.legal_actions()
        p = np.exp(logits[legal] - logits[legal].max())
        p /= p.sum()
        return list(zip(legal, p.tolist()))


def mctsbot_search(games, simulations):
    """The baseline of search/openspiel: the same search in OpenSpiel's Python MCTSBot (PUCT,
    c 1.25, the same constant evaluator) of each of `games`, one at a time."""
    import pyspiel
    from open_spiel.python.algorithms import mcts

    import photocore.env.openspiel  # noqa: F401  (registers python_photosynthesis)
    spiel_game = pyspiel.load_game("python_photosynthesis")
    states = []
    for game in games:
        state = spiel_game.new_initial_state()
        for move in game.history:
            state.apply_action(int(move))
        states.append(state)
    evaluator = SpielEvaluator(Constant(1))
    bot = mcts.MCTSBot(spiel_game, uct_c=1.25, max_simulations=simulations, evaluator=evaluator,
                       solve=False, random_state=np.random.RandomState(0),
                       child_selection_fn=mcts.SearchNode.puct_value)

    def spiel():
        evaluator.cache.clear()
        roots = [bot.mcts_search(state) for state in states]
        return [{c.action: c.explore_count for c in root.children} for root in roots]

    seconds, visits = best(spiel)
    for game, root in zip(games, visits):
        expect(sum(root.values()) == simulations - 1 and set(root) <= set(
            game.legal_moves().ids()), "MCTSBot's visits do not add up, or are illegal")
    return ({"simulations": len(states) * simulations}, seconds,
            f"baseline: the same search in OpenSpiel's Python MCTSBot (PUCT, c 1.25, the "
            f"same evaluator) over {len(states)} of the positions, one at a time")


class Search(speed.Workload):
    """photocore.Search.run over `count` positions at once, observations and masks
    included, one thread; evaluate: the constant numpy evaluator unless a network."""

    def __init__(self, count, simulations, in_flight=1, spiel=0):
        self.count, self.simulations, self.in_flight = count, simulations, in_flight
        self.spiel = spiel   # positions OpenSpiel's MCTSBot searches beside it (its baseline)
        self.name = ("search/openspiel" if spiel else f"search/in_flight_{in_flight}")
        self.describe = (f"photocore.Search.run, {count} mid-game 2-player positions x "
                         f"{simulations} simulations, in_flight={in_flight}, constant numpy "
                         "evaluator, one thread" + (f"; OpenSpiel's MCTSBot over {spiel} of "
                                                    "them beside it" if spiel else ""))

    def missing(self):
        return missing("pyspiel", "open_spiel") if self.spiel else None

    def prepare(self):
        self.games = positions(self.count)
        self.evaluate = Constant(self.count * self.in_flight)

    def run(self):
        search = photocore.Search(self.games, simulations=self.simulations, seed=0,
                                  in_flight=self.in_flight)
        self.visits = search.run(self.evaluate)   # for check(); their digest compared
        return zlib.crc32(self.visits.tobytes())

    def check(self, value):
        visits = self.visits
        expect(visits.sum(axis=1).tolist() == [self.simulations - 1] * len(self.games),
               "a root's visits do not add up to the simulations")
        for game, row in zip(self.games, visits):
            expect(set(np.flatnonzero(row)) <= set(game.legal_moves().ids()),
                   "an illegal move visited")
        start = time.process_time()
        self.run()
        rate = self.count * self.simulations / (time.process_time() - start)
        return {"simulations": self.count * self.simulations}, (
            f"each root's visits add up, legal moves only; {rate:,.0f} simulations per CPU "
            "second")

    def reference(self):
        if not self.spiel:
            return None
        return mctsbot_search(self.games[:self.spiel], self.simulations)


class SearchNetwork(Search):
    def __init__(self, count, simulations):
        super().__init__(count, simulations)
        self.name = "search/network"
        self.describe = (f"photocore.Search.run with the example's network, {count} positions"
                         f" x {simulations} simulations: examples/alphazero/net.py (MLP "
                         "798-256-256, heads 890 + 2), PyTorch on one thread")

    def missing(self):
        return missing("torch")

    def prepare(self):
        import torch
        sys.path.insert(0, str(ROOT / "examples" / "alphazero"))
        from net import Evaluator, Net

        torch.manual_seed(0)
        self.torch, self.threads = torch, torch.get_num_threads()
        torch.set_num_threads(1)
        self.games = positions(self.count)
        self.evaluate = Evaluator(Net(players=2, hidden=256).eval())

    def close(self):
        self.torch.set_num_threads(self.threads)

    def check(self, value):
        self.evaluate.seconds = 0.0
        start = time.perf_counter()
        self.run()
        share = self.evaluate.seconds / (time.perf_counter() - start)
        amounts, checked = super().check(value)
        return amounts, f"{checked}; {share:.0%} of the time in the network"


def workloads(quick):
    games = 5 if quick else 20
    return [NativeLoop(games), OpenSpiel(games), PettingZoo(games, True),
            PettingZoo(games, False),
            *(VectorEnv(n, 20 if quick else 200, threads, copy) for n, threads, copy in (
                (256, 1, False), (1024, 1, False), (1024, 1, True), (1024, 2, False))),
            *(SingleEnv(2_000 if quick else 20_000, o) for o in ("random", "greedy")),
            Sampling(),
            *(Search(64 if quick else 256, 100, in_flight) for in_flight in (1, 4)),
            Search(64 if quick else 256, 100, spiel=8 if quick else 32),
            SearchNetwork(64 if quick else 256, 64)]
