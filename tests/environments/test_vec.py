"""VecGame against single Games, and its input checks."""

import numpy as np
import pytest

import photocore
import photocore.play.specs
from photocore import NUM_ACTIONS, OBSERVATION_SIZE, VecGame
from photocore.facts import OBSERVATION, PLAYER_SLOT


@pytest.mark.parametrize("players,options", [(2, "-"), (3, "fs"), (4, "s")])
def test_vecgame_follows_single_games(players, options):
    env = VecGame(5, players=players, options=options)
    obs, mask = env.reset(seed=1)
    games = [photocore.Game(players, options=options) for _ in range(5)]
    finished = 0
    for _ in range(3000):
        for i, game in enumerate(games):
            assert np.array_equal(obs[i], game.observation())
            assert np.array_equal(mask[i], game.legal_moves().mask())
        actions = env.random_actions()
        obs, mask, rewards, done = env.step(actions)
        for i, game in enumerate(games):
            game.play(int(actions[i]))
            assert done[i] == game.is_over
            if game.is_over:
                assert tuple(rewards[i]) == pytest.approx(game.returns())
                assert rewards[i].sum() == pytest.approx(0, abs=1e-6)
                games[i] = photocore.Game(players, options=options)
                finished += 1
            else:
                assert not rewards[i].any()
    assert finished >= 5 and env.episodes == finished


def test_observation_layout():
    game = photocore.Game(players=2)
    for move in ["place a4", "place g1", "place d1", "place d7"]:
        game.play(move)
    obs = game.observation()             # player 0 to move, round 1, sun 0
    pieces = obs[:592].reshape(16, 37)
    cell = photocore.CELLS.index
    assert pieces[1, cell("a4")] == 1 and pieces[1, cell("d1")] == 1      # slot 0, small
    assert pieces[5, cell("g1")] == 1 and pieces[5, cell("d7")] == 1      # slot 1, small
    # a player's values (facts.PLAYER_SLOT) in the players part, as docs/engine.md has them
    assert OBSERVATION["players"] == 740 and PLAYER_SLOT == {
        "light": 0, "available": 1, "board": 5, "points": 9, "size": 10}
    own_light = OBSERVATION["players"] + PLAYER_SLOT["light"]             # slot 0's light
    assert obs[own_light] == pytest.approx(2 / 20)                        # own light
    assert obs[785] == 1 and obs[791 + 1] == 1 and obs[794] == 1          # sun 0, play, slot 0
    shadows = obs[592:703].reshape(3, 37)
    assert shadows[0, cell("d6")] == 1                                    # d7 casts west
    seen_by_1 = game.observation(1)
    assert np.array_equal(seen_by_1[:148], obs[148:296]) and seen_by_1[795] == 1


def test_step_refuses_bad_actions_and_changes_nothing():
    env = VecGame(3)
    obs, mask = env.reset()
    before = [env.game(i).position() for i in range(3)]
    good = env.random_actions()
    bad = good.copy()
    bad[1] = photocore.Move.parse("end").id          # not legal during setup
    with pytest.raises(ValueError, match="game 1: end is not legal"):
        env.step(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(good[:2])
    with pytest.raises(ValueError, match="integer"):
        env.step(good.astype(np.float64))
    with pytest.raises(ValueError, match="game 0: action id -1"):
        env.step(np.array([-1, 0, 0]))
    with pytest.raises(ValueError, match="float32"):
        env.step(good, obs=np.zeros((3, OBSERVATION_SIZE)))
    with pytest.raises(ValueError, match="shape"):
        env.step(good, mask=np.zeros((3, NUM_ACTIONS - 1), bool))
    assert [env.game(i).position() for i in range(3)] == before
    out = np.empty((3, OBSERVATION_SIZE), np.float32)
    got, _, _, _ = env.step(good, obs=out)
    assert got is out


def test_constructor_checks():
    with pytest.raises(ValueError):
        VecGame(0)
    with pytest.raises(ValueError):
        VecGame(4, players=5)
    with pytest.raises(TypeError):
        VecGame(2.5)


# ---- for learners: array-likes in, torch tensors filled in place, opponents in C --------

def outputs(n, players):
    return dict(obs=np.empty((n, OBSERVATION_SIZE), np.float32),
                mask=np.empty((n, NUM_ACTIONS), bool),
                rewards=np.empty((n, players), np.float32), done=np.empty(n, bool))


@pytest.mark.parametrize("shape", ["flat", "column", "list", "int32"])
def test_actions_take_integer_array_likes(shape):
    env, same = VecGame(4), VecGame(4)
    env.reset(seed=2)
    same.reset(seed=2)
    for _ in range(200):
        actions = same.random_actions()
        given = {"flat": actions, "column": actions.reshape(4, 1), "list": actions.tolist(),
                 "int32": actions.astype(np.int32)}[shape]
        assert env.random_actions().tolist() == actions.tolist()
        for a, b in zip(env.step(given), same.step(actions)):
            assert np.array_equal(a, b)


def test_final_observation_player_and_relative_rewards():
    # each step mirrored in Games: the final position is seen by the player who ended it,
    # `player` is the player to move, relative rewards start with the mover's
    players = 3
    env = VecGame(4, players=players)
    final = np.full((4, OBSERVATION_SIZE), -1, np.float32)
    player = np.empty(4, np.int64)
    env.reset(seed=5, player=player)
    games = [photocore.Game(players) for _ in range(4)]
    ended = 0
    for _ in range(2500):
        assert player.tolist() == [g.current_player for g in games]
        actions = env.random_actions()
        before = final.copy()
        obs, mask, rewards, done = env.step(actions, final_obs=final, player=player,
                                            relative=True)
        for i, game in enumerate(games):
            mover = game.current_player
            game.play(int(actions[i]))
            if done[i]:
                assert np.array_equal(final[i], game.observation(mover))
                expected = [game.returns()[(mover + k) % players] for k in range(players)]
                assert rewards[i].tolist() == pytest.approx(expected)
                games[i] = photocore.Game(players)
                ended += 1
            else:
                assert np.array_equal(final[i], before[i]) and not rewards[i].any()
    assert ended >= 4


def test_forfeit_ends_the_game_of_an_illegal_action():
    env = VecGame(3)
    env.reset(seed=0)
    actions = env.random_actions()
    actions[1] = photocore.Move.parse("end").id       # not legal during setup
    final = np.zeros((3, OBSERVATION_SIZE), np.float32)
    forfeited = np.ones(3, bool)
    start = env.game(1).observation(0)
    obs, mask, rewards, done = env.step(actions, final_obs=final, forfeit=True,
                                        forfeited=forfeited)
    assert done.tolist() == [False, True, False] and forfeited.tolist() == done.tolist()
    assert rewards[1].tolist() == [-1.0, 0.0] and not rewards[[0, 2]].any()
    assert np.array_equal(final[1], start) and env.episodes == 1
    assert env.game(1).position() == photocore.Game().position()
    with pytest.raises(ValueError, match="game 0: action id 890"):
        env.step(np.array([890, 0, 0]), forfeit=True)


def test_scores_are_the_games():
    env = VecGame(3, players=4)
    env.reset(seed=8)
    for _ in range(700):
        env.step(env.random_actions())
        assert env.scores().tolist() == [list(env.game(i).scores()) for i in range(3)]


def test_reset_seeds_go_on_unless_given():
    env, straight = VecGame(2), VecGame(2)
    env.reset(seed=3)
    straight.reset(seed=3)
    first = [env.random_actions().tolist() for _ in range(3)]
    env.reset()                                     # no seed: the stream goes on
    assert [straight.random_actions().tolist() for _ in range(4)] == first + [
        env.random_actions().tolist()]
    env.reset(seed=3)
    assert [env.random_actions().tolist() for _ in range(3)] == first
    with pytest.raises(ValueError, match="seeds must list 2"):
        env.reset(seeds=[1])


def test_sample_actions_follow_the_softmax_of_the_legal_logits():
    n = 4000
    env = VecGame(n)
    obs, mask = env.reset(seed=1)
    legal = np.flatnonzero(mask[0])                   # the 18 outer cells, in every game
    logits = np.full((n, NUM_ACTIONS), 50.0, np.float32)   # illegal ids: never read
    weights = np.linspace(-2, 1, len(legal)).astype(np.float32)
    logits[:, legal] = weights
    logits[:, legal[0]] = -np.inf                     # a legal action of probability 0
    log_prob = np.empty(n, np.float32)
    counts = np.zeros(NUM_ACTIONS)
    for _ in range(5):
        actions = env.sample_actions(logits, log_prob=log_prob)
        np.add.at(counts, actions, 1)
    p = np.exp(weights[1:] - weights[1:].max())
    p /= p.sum()
    assert counts[legal[0]] == 0 and counts.sum() == counts[legal].sum() == 5 * n
    sigma = np.sqrt(5 * n * p * (1 - p))
    assert np.all(np.abs(counts[legal[1:]] - 5 * n * p) < 5 * sigma)
    chosen = np.searchsorted(legal, actions) - 1
    assert np.allclose(log_prob, np.log(p)[chosen], atol=1e-5)


def test_sample_actions_refuse_logits_that_are_not_numbers():
    env = VecGame(3)
    obs, mask = env.reset(seed=4)
    logits = np.zeros((3, NUM_ACTIONS), np.float32)
    logits[2, np.flatnonzero(mask[2])[0]] = np.nan
    with pytest.raises(ValueError, match="logits of game 2"):
        env.sample_actions(logits)
    again = VecGame(3)
    again.reset(seed=4)                               # the refused call drew nothing
    assert env.random_actions().tolist() == again.random_actions().tolist()
    with pytest.raises(ValueError, match="shape"):
        env.sample_actions(logits[:2])
    with pytest.raises(ValueError, match="float"):
        env.sample_actions(np.zeros((3, NUM_ACTIONS), np.int64))


def test_threads_give_the_results_of_one():
    results = []
    for threads in (1, 3):
        env = VecGame(50, players=3, opponents=["greedy", "random"], seat="random",
                      threads=threads)
        obs, mask = env.reset(seed=6)
        total, final = np.zeros(3), np.zeros((50, OBSERVATION_SIZE), np.float32)
        for _ in range(150):
            obs, mask, rewards, done = env.step(env.random_actions(), final_obs=final)
            total += [obs.sum(), rewards.sum(), final.sum()]
        results.append((total.tolist(), env.episodes, [env.game(i).position() for i in range(50)]))
    assert results[0] == results[1]


@pytest.mark.parametrize("players,opponents,seat", [
    (2, "random", 0), (2, "greedy", "random"), (3, ["mcts:6", "greedy"], "random"),
    (4, "random", 3)])
def test_opponents_play_as_the_agents_select(players, opponents, seat):
    # the learner's moves are random; each opponent move must be what photocore.Agent
    # chooses when seeded as docs/rl.md says: opponent k of game i, reset with seed s,
    # is Agent(kind, seed=stream_seed(s + i, k + 1)), the seat drawn from stream 0
    from photocore.env._vec import draw_below, stream_seed
    n, seed = 3, 11
    specs = [opponents] * (players - 1) if isinstance(opponents, str) else opponents
    env = VecGame(n, players=players, opponents=opponents, seat=seat)
    assert env.opponents == tuple(specs)
    obs, mask = env.reset(seed=seed)
    agents, streams, seats, games = [], [], [], []

    def start(i):
        game = photocore.Game(players)
        if seat == "random":
            seats[i], streams[i] = draw_below(streams[i], players)
        while game.current_player != seats[i]:
            k = (game.current_player - seats[i] - 1) % players
            game.play(agents[i][k].select(game))
        games[i] = game

    for i in range(n):
        kinds = [(p.kind, p.simulations or photocore.play.specs.DEFAULT_SIMULATIONS)
                 for p in map(photocore.play.specs.parse, specs)]
        agents.append([photocore.Agent(kind, seed=stream_seed(seed + i, k + 1),
                                       simulations=sims) for k, (kind, sims) in enumerate(kinds)])
        streams.append(stream_seed(seed + i, 0))
        seats.append(seat if seat != "random" else None)
        games.append(None)
        start(i)
    ended = 0
    for _ in range(150):
        for i in range(n):
            assert np.array_equal(obs[i], games[i].observation(seats[i]))
            assert env.game(i).position() == games[i].position()
        actions = env.random_actions()
        obs, mask, rewards, done = env.step(actions)
        for i in range(n):
            game = games[i]
            game.play(int(actions[i]))
            while not game.is_over and game.current_player != seats[i]:
                k = (game.current_player - seats[i] - 1) % players
                game.play(agents[i][k].select(game))
            assert done[i] == game.is_over
            if game.is_over:
                assert rewards[i].tolist() == pytest.approx(game.returns())
                start(i)
                ended += 1
    assert ended >= 1 or players == 3


def test_opponent_specs_are_checked():
    with pytest.raises(ValueError, match="unknown agent"):
        VecGame(2, opponents="grumpy")
    with pytest.raises(ValueError, match="list of 2"):
        VecGame(2, players=3, opponents=["random"])
    with pytest.raises(ValueError, match="built-in agents"):
        VecGame(2, opponents=[photocore.Agent("random")])
    with pytest.raises(ValueError, match="seat"):
        VecGame(2, opponents="random", seat=2)
    with pytest.raises(ValueError, match="threads"):
        VecGame(2, threads=0)


# ---- torch ------------------------------------------------------------------------------

def test_torch_tensors_in_and_filled_in_place():
    torch = pytest.importorskip("torch")
    n, players = 6, 2
    env, same = VecGame(n, players), VecGame(n, players)
    given = dict(obs=torch.empty(n, OBSERVATION_SIZE),
                 mask=torch.empty(n, NUM_ACTIONS, dtype=torch.bool),
                 rewards=torch.empty(n, players), done=torch.empty(n, dtype=torch.bool))
    final, player = torch.zeros(n, OBSERVATION_SIZE), torch.empty(n, dtype=torch.int64)
    pointers = {name: t.data_ptr() for name, t in given.items()}
    obs, mask = env.reset(seed=9, obs=given["obs"], mask=given["mask"], player=player)
    assert obs is given["obs"] and mask is given["mask"]
    same_obs, same_mask = same.reset(seed=9)
    assert np.array_equal(obs.numpy(), same_obs) and np.array_equal(mask.numpy(), same_mask)
    final_np = np.zeros((n, OBSERVATION_SIZE), np.float32)
    for step in range(400):
        actions = torch.from_numpy(same.random_actions())
        if step % 2:
            actions = actions.reshape(n, 1).to(torch.int32)
        got = env.step(actions, **given, final_obs=final, player=player, relative=True)
        expected = same.step(actions.numpy().reshape(n), final_obs=final_np, relative=True)
        assert [t is given[k] for k, t in zip(given, got)] == [True] * 4
        for tensor, array in zip(got, expected):
            assert np.array_equal(tensor.numpy(), array)
        assert np.array_equal(final.numpy(), final_np)
        assert player.tolist() == same.current_player.tolist()
    assert {name: t.data_ptr() for name, t in given.items()} == pointers
    logits = torch.randn(n, NUM_ACTIONS)
    assert mask.numpy()[np.arange(n), env.sample_actions(logits)].all()


def test_torch_tensors_of_the_wrong_kind_are_refused():
    torch = pytest.importorskip("torch")
    env = VecGame(3)
    env.reset()
    before = [env.game(i).position() for i in range(3)]
    good = torch.from_numpy(env.random_actions())
    for bad, name, why in [
            (dict(obs=torch.empty(3, OBSERVATION_SIZE, dtype=torch.float64)), "obs", "float32"),
            (dict(mask=torch.empty(3, NUM_ACTIONS, dtype=torch.uint8)), "mask", "bool"),
            (dict(obs=torch.empty(OBSERVATION_SIZE, 3).T), "obs", "C-contiguous"),
            (dict(done=torch.empty(3, dtype=torch.bool).expand(3)[:2]), "done", "shape"),
            (dict(rewards=[[0.0, 0.0]] * 3), "rewards", "float32")]:
        with pytest.raises(ValueError, match=f"{name} must be .*{why}"):
            env.step(good, **bad)
    with pytest.raises(ValueError, match="actions must be an integer array"):
        env.step(good.to(torch.float32))
    with pytest.raises(ValueError, match="actions must have shape"):
        env.step(good.reshape(1, 3))
    with pytest.raises(ValueError, match="logits cannot be read"):
        env.sample_actions(torch.zeros(3, NUM_ACTIONS, requires_grad=True))
    assert [env.game(i).position() for i in range(3)] == before


def test_bad_learner_outputs_are_refused_before_anything_is_played():
    env = VecGame(3, opponents="greedy", seat="random")
    env.reset(seed=1)
    before = [env.game(i).position() for i in range(3)]
    good = env.random_actions()
    wide, short = np.zeros((3, OBSERVATION_SIZE)), np.zeros((2, OBSERVATION_SIZE), np.float32)
    for bad, message in [
            (dict(final_obs=wide), "final_obs must be an array of float32"),
            (dict(final_obs=short), "final_obs must be .*shape"),
            (dict(player=np.zeros(3, np.int8)), "player must be an array of int64"),
            (dict(player=[0, 0, 0]), "player must be an array of int64 .numpy"),
            (dict(relative="yes"), "relative"), (dict(forfeit=2), "forfeit")]:
        with pytest.raises((ValueError, TypeError), match=message):
            env.step(good, **bad)
    with pytest.raises(ValueError, match="log_prob must be an array of float32"):
        env.sample_actions(np.zeros((3, NUM_ACTIONS), np.float32), log_prob=np.zeros(3))
    assert [env.game(i).position() for i in range(3)] == before


def test_options_are_one_value():
    env = VecGame(2, players=3, options="fs")
    assert env.game(0).options == photocore.Options.parse("fs") and env.game(1).last_round == 24
    with pytest.raises(TypeError, match="shade_blocks"):
        VecGame(2, 3, shade_blocks=True)            # a flag per rule: never released
    with pytest.raises(ValueError, match="options"):
        VecGame(2, options="x")


# ---- given positions: from_games, set_game, observe ------------------------------------

def positions(count, players, options, seed):
    """Games 5 to 150 random moves in (setup, mid-turn, late), none over."""
    rng = np.random.default_rng(seed)
    games = []
    while len(games) < count:
        game = photocore.Game(players, options=options)
        for _ in range(int(rng.integers(0, 150))):
            if not game.is_over:
                moves = game.legal_moves()
                game.play(moves[int(rng.integers(len(moves)))])
        if not game.is_over:
            games.append(game)
    return games


@pytest.mark.parametrize("players,options", [(2, "-"), (3, "fs"), (4, "s")])
def test_from_games_holds_each_games_position(players, options):
    games = positions(9, players, options, seed=players)
    env = VecGame.from_games(games, threads=2)
    player = np.empty(9, np.int64)
    obs, mask = env.observe(player=player)
    assert (env.num_games, env.players, env.episodes) == (9, players, 0)
    for i, game in enumerate(games):
        assert np.array_equal(obs[i], game.observation())
        assert np.array_equal(mask[i], game.legal_moves().mask())
        assert env.key[i] == game.key and player[i] == game.current_player
        assert env.game(i) == game
    # observing again changes nothing; stepping plays on from the positions given
    again = env.observe()
    assert np.array_equal(again[0], obs) and np.array_equal(again[1], mask)
    actions = env.random_actions()
    obs, mask, rewards, done = env.step(actions)
    for i, game in enumerate(games):
        game.play(int(actions[i]))
        if not done[i]:
            assert np.array_equal(obs[i], game.observation())
            assert env.key[i] == game.key


def test_set_game_replaces_one_game_and_it_starts_afresh_once_over():
    env = VecGame(3, players=2)
    env.reset(seed=0)
    keys = env.key
    game = positions(1, 2, "-", seed=5)[0]
    while not game.is_over:                 # one move from its end
        last = game.copy()
        game.play(game.legal_moves()[-1])
    env.set_game(1, last)
    assert env.key[1] == last.key and env.key[0] == keys[0] and env.key[2] == keys[2]
    actions = env.random_actions()
    actions[1] = last.legal_moves()[-1].id
    obs, mask, rewards, done = env.step(actions)
    assert done[1] and tuple(rewards[1]) == pytest.approx(game.returns())
    assert env.game(1) == photocore.Game(2) and env.key[1] == photocore.Game(2).key


def test_set_game_with_opponents_gives_the_learner_the_seat_to_move():
    env = VecGame(2, players=3, opponents="random", seat=0)
    env.reset(seed=1)
    game = photocore.Game(3)
    while game.current_player != 2 or game.round < 3:
        game.play(game.legal_moves()[0])
    env.set_game(0, game)
    player = np.empty(2, np.int64)
    for _ in range(5):     # the opponents (seats 0 and 1) play until seat 2 is to move
        env.step(env.random_actions(), player=player)
        assert env.game(0).round < game.last_round and player[0] == 2


def test_given_positions_are_checked():
    env = VecGame(2, players=2)
    keys = env.key
    over = photocore.Game(2)
    while not over.is_over:
        over.play(over.legal_moves()[-1])
    for call, kind, words in [
        (lambda: env.set_game(2, photocore.Game()), IndexError, "out of range"),
        (lambda: env.set_game(0, photocore.Game(3)), ValueError, "3 players"),
        (lambda: env.set_game(0, photocore.Game(2, options="s")), ValueError, "shade blocks"),
        (lambda: env.set_game(0, over), ValueError, "the game is over"),
        (lambda: env.set_game(0, "place a4"), TypeError, "Game"),
        (lambda: VecGame.from_games([]), ValueError, "games is empty"),
        (lambda: VecGame.from_games(photocore.Game()), TypeError, "one Game"),
        (lambda: VecGame.from_games([photocore.Game(), 3]), TypeError, r"games\[1\]"),
        (lambda: VecGame.from_games([photocore.Game(), photocore.Game(4)]), ValueError,
         r"games\[1\]: the game has 4 players"),
        (lambda: VecGame.from_games([photocore.Game(), over]), ValueError,
         r"games\[1\]: the game is over"),
    ]:
        with pytest.raises(kind, match=words) as error:
            call()
        assert "\n" not in str(error.value)
    assert np.array_equal(env.key, keys)
