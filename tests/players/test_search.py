"""photocore.Search: batched PUCT pinned down on positions whose answer is known, its batches,
its errors, tree reuse, noise and determinism."""

import inspect
import pathlib
import re

import numpy as np
import pytest

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE, Game, Move
from photocore.play.search import SearchAgent
from photocore.play.settings import SearchSettings
from installed import of_the_source
from support import (COLLECT_THEN_END, END_WINS, ONLY_END, TURN, hashed, midgame, uniform,
                     visits_by_move)


# ---- known answers --------------------------------------------------------------------

def test_a_move_that_wins_on_the_spot_gets_almost_all_visits():
    game = Game.from_position(END_WINS)
    search = photocore.Search([game], simulations=200, dirichlet_fraction=0)
    visits = search.run(uniform(2))[0]
    assert visits.sum() == 199 and len(game.legal_moves()) == 9
    assert visits[int(Move.parse("end"))] >= 0.95 * 199, visits_by_move(visits)
    assert search.root_values()[0, 0] > 0.9


def test_values_back_up_across_a_multi_action_turn():
    # collect d4 leaves player 0 to move again; its `end` wins: the +1 must reach the root
    # as player 0's value through two player-0 nodes (no sign flip between them)
    game = Game.from_position(COLLECT_THEN_END)
    search = photocore.Search([game], simulations=400, dirichlet_fraction=0)
    visits = search.run(uniform(2))[0]
    collect = int(Move.parse("collect d4"))
    assert visits.argmax() == collect and visits[collect] > 0.6 * visits.sum()
    search.advance(np.array([collect]))
    assert search.visits()[0, int(Move.parse("end"))] == visits[collect] - 1
    # its own evaluation said 0; every simulation below it won
    won = (visits[collect] - 1) / visits[collect]
    assert search.root_values()[0].tolist() == pytest.approx([won, -won])


def test_network_values_are_mapped_from_the_player_to_move_to_seats():
    # three players; the network says "the player to move gets 1, the next 0, the one after
    # -1" everywhere. Player 0 keeps the turn with anything but `end`, which hands it on
    # (then worth -1 or 0 to player 0): player 0's search avoids ending its turn.
    game = midgame(players=3, plies=40)
    while game.current_player != 0:
        game.play(photocore.Agent("greedy").select(game))
    assert len(game.legal_moves()) > 2
    opinion = np.array([1.0, 0.0, -1.0], np.float32)

    def evaluate(obs, mask):
        return np.zeros(mask.shape, np.float32), np.tile(opinion, (len(obs), 1))

    search = photocore.Search([game], simulations=300, dirichlet_fraction=0)
    visits = search.run(evaluate)[0]
    end = int(Move.parse("end"))
    assert visits.argmax() != end and visits[end] < 0.05 * visits.sum()
    assert search.root_values()[0, 0] > 0.8
    search.advance(np.array([end]))
    mover = search.game(0).current_player
    assert mover != 0
    # the kept `end` subtree saw the network from the next player's side: seat `mover`
    # gets 1, the seat after it 0, the one after that -1
    assert np.allclose(search.root_values()[0], np.roll(opinion, mover))


def test_one_hot_priors_give_their_move_the_visits():
    game = midgame()
    target = game.legal_moves().ids()[len(game.legal_moves().ids()) // 2]

    def one_hot(obs, mask):
        logits = np.full(mask.shape, -30.0, np.float32)
        logits[:, target] = 0.0
        return logits, np.zeros((len(obs), 2), np.float32)

    search = photocore.Search([game], simulations=64, dirichlet_fraction=0)
    visits = search.run(one_hot)[0]
    assert visits[target] == 63 and visits.sum() == 63


def test_finished_games_are_valued_by_their_returns_without_the_network():
    # nothing but `end` is left to player 0 and it ends the game, lost on the tie-break:
    # one network row (the root, valued 0), every other simulation reaches the end
    game = Game.from_position(ONLY_END)
    assert [str(m) for m in game.legal_moves()] == ["end"]
    evaluate = uniform(2)
    search = photocore.Search([game], simulations=50)
    visits = search.run(evaluate)
    assert evaluate.rows == 1 and visits[0, int(Move.parse("end"))] == 49
    assert search.root_values()[0].tolist() == pytest.approx([-49 / 50, 49 / 50])


# ---- batches --------------------------------------------------------------------------

def test_ask_gives_vecgame_observations_and_masks():
    games = [Game(players=3), midgame(players=3, plies=30)]
    search = photocore.Search(games, simulations=4)
    obs, mask = search.ask()
    assert obs.dtype == np.float32 and obs.shape == (2, OBSERVATION_SIZE)
    assert mask.dtype == np.bool_ and mask.shape == (2, NUM_ACTIONS)
    for i, game in enumerate(games):
        assert np.array_equal(obs[i], game.observation())
        assert np.array_equal(mask[i], game.legal_moves().mask())
    assert search.batch_games.tolist() == [0, 1]
    env = photocore.VecGame(1, players=3)
    env_obs, env_mask = env.reset()
    assert np.array_equal(env_obs[0], obs[0]) and np.array_equal(env_mask[0], mask[0])


def test_visits_shape_dtype_and_totals():
    games = [midgame(plies=p) for p in (10, 50, 90)]
    evaluate = uniform(2)
    visits = photocore.Search(games, simulations=30).run(evaluate)
    assert visits.dtype == np.int32 and visits.shape == (3, NUM_ACTIONS)
    assert visits.sum(axis=1).tolist() == [29, 29, 29]
    for game, row in zip(games, visits):
        assert set(np.flatnonzero(row)) <= set(game.legal_moves().ids())


def test_in_flight_leaves_fill_the_batch_with_distinct_positions():
    games = [midgame(plies=20 + 7 * i) for i in range(4)]
    search = photocore.Search(games, simulations=40, in_flight=8)
    obs, mask = search.ask()
    assert len(obs) == 4       # fresh roots: one evaluation each, nothing below them yet
    search.tell(np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32))
    obs, mask = search.ask()
    for g, game in enumerate(games):
        # virtual loss spreads a game's leaves over its moves, all different positions;
        # once every move waits for the network, the next walk collides and stops
        rows = obs[search.batch_games == g]
        assert len(rows) == min(8, len(game.legal_moves()))
        assert len({row.tobytes() for row in rows}) == len(rows)
    assert len(obs) > 4
    search.tell(np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32))
    visits = search.run(uniform(2))
    assert visits.sum(axis=1).tolist() == [39] * 4


def test_the_step_by_step_protocol_gives_what_run_gives():
    games = [midgame(plies=p, seed=p) for p in (12, 33, 71)]
    rng = np.random.default_rng(5)
    table = rng.normal(size=(4096, NUM_ACTIONS)).astype(np.float32)

    def hashed(obs, mask):     # a deterministic "network": logits picked by the position
        keys = np.array([hash(row.tobytes()) % 4096 for row in obs])
        return table[keys], np.tanh(table[keys, :2])

    by_run = photocore.Search(games, simulations=60, seed=3, in_flight=2).run(hashed)
    search = photocore.Search(games, simulations=60, seed=3, in_flight=2)
    while (batch := search.ask()) is not None:
        search.tell(*hashed(*batch))
    assert np.array_equal(search.visits(), by_run)


# ---- errors -----------------------------------------------------------------------------

@pytest.mark.parametrize("logits, values, message", [
    (np.zeros((2, NUM_ACTIONS), np.float32), np.zeros((2, 3), np.float32),
     r"values must have shape \(2, 2\)"),
    (np.zeros((1, NUM_ACTIONS), np.float32), np.zeros((2, 2), np.float32),
     r"logits must have shape \(2, 890\)"),
    (np.zeros((2, NUM_ACTIONS), np.int32), np.zeros((2, 2), np.float32), "logits must be float32"),
    (np.zeros((2, NUM_ACTIONS), np.float32), np.zeros((2, 2), np.float16),
     "values must be float32"),
    (np.full((2, NUM_ACTIONS), np.nan, np.float32), np.zeros((2, 2), np.float32), "row 0 .*NaN"),
    (np.full((2, NUM_ACTIONS), -np.inf, np.float32), np.zeros((2, 2), np.float32), "row 0 .*-inf"),
    (np.zeros((2, NUM_ACTIONS), np.float32), np.array([[0, 0], [0, np.nan]], np.float32),
     "row 1 .*value"),
    ("nonsense", np.zeros((2, 2), np.float32), "logits must be float32"),
])
def test_bad_logits_or_values_raise_and_a_good_tell_continues(logits, values, message):
    games = [Game(), midgame()]
    search = photocore.Search(games, simulations=10)
    obs, mask = search.ask()
    with pytest.raises(ValueError, match=message):
        search.tell(logits, values)
    search.tell(np.zeros(mask.shape, np.float64), np.zeros((2, 2), np.float64))
    assert search.run(uniform(2)).sum(axis=1).tolist() == [9, 9]
    assert np.array_equal(search.visits(),
                          photocore.Search(games, simulations=10).run(uniform(2)))


def test_logits_of_illegal_moves_are_ignored():
    game = midgame()
    legal = game.legal_moves().mask()

    def masked(obs, mask):
        logits = np.where(mask, 0.0, np.nan).astype(np.float32)
        logits[~mask] = np.inf
        return logits, np.zeros((len(obs), 2), np.float32)

    priors_search = photocore.Search([game], simulations=2, dirichlet_fraction=0)
    priors_search.run(masked)
    priors = priors_search.priors()[0]
    assert np.allclose(priors[legal], 1 / legal.sum()) and not priors[~legal].any()


def test_protocol_misuse_raises_clearly():
    search = photocore.Search([Game()], simulations=5)
    with pytest.raises(RuntimeError, match="tell.. without a batch"):
        search.tell(np.zeros((1, NUM_ACTIONS), np.float32), np.zeros((1, 2), np.float32))
    search.ask()
    with pytest.raises(RuntimeError, match="ask.. while a batch is waiting"):
        search.ask()
    with pytest.raises(RuntimeError, match="advance.. while a batch"):
        search.advance(np.array([0]))
    search.cancel()
    assert search.run(uniform(2)).sum() == 4


def test_an_evaluator_that_raises_leaves_the_search_usable():
    search = photocore.Search([Game(), Game()], simulations=8)

    def broken(obs, mask):
        raise KeyError("the network fell over")

    with pytest.raises(KeyError):
        search.run(broken)
    assert search.run(uniform(2)).sum(axis=1).tolist() == [7, 7]


@pytest.mark.parametrize("kwargs, error, message", [
    ({"simulations": 0}, ValueError, "simulations must be from 1"),
    ({"simulations": 100, "max_nodes": 100}, ValueError,
     "simulations must be from 1 to max_nodes - 1 = 99"),
    ({"max_nodes": 1}, ValueError, "max_nodes must be from 2"),
    ({"in_flight": 0}, ValueError, "in_flight must be from 1 to 256"),
    ({"c_puct": -1.0}, ValueError, "c_puct must be a finite number >= 0"),
    ({"c_puct": "1"}, TypeError, "c_puct must be a number"),
    ({"dirichlet_alpha": 0.0}, ValueError, "dirichlet_alpha must be a finite number > 0"),
    ({"dirichlet_fraction": 1.5}, ValueError, "dirichlet_fraction must be .* <= 1"),
    ({"rollout_weight": 1.5}, ValueError, "rollout_weight must be .* <= 1"),
    ({"rollout_weight": -0.1}, ValueError, "rollout_weight must be a finite number >= 0"),
    ({"transpositions": "yes"}, TypeError, "transpositions must be True or False"),
])
def test_bad_parameters(kwargs, error, message):
    with pytest.raises(error, match=message):
        photocore.Search([Game()], **kwargs)


def test_bad_games():
    with pytest.raises(ValueError, match="at least one Game"):
        photocore.Search([])
    with pytest.raises(TypeError, match=r"games\[1\] must be a photocore.Game"):
        photocore.Search([Game(), "d4"])
    with pytest.raises(ValueError, match=r"games\[1\] has other players or options"):
        photocore.Search([Game(), Game(options="s")])


def test_the_node_pool_is_bounded():
    search = photocore.Search([midgame()], simulations=50, max_nodes=64)
    search.run(uniform(2))
    assert search.nodes[0] <= 51
    with pytest.raises(ValueError, match="max_nodes - 1 = 63"):
        search.simulations = 64
    assert search.simulations == 50
    search.simulations = 63
    assert search.run(uniform(2)).sum() == 62
    for _ in range(5):       # reuse keeps trees within the pool move after move
        search.advance(search.choose(temperature=0))
        search.run(uniform(2))
        assert search.nodes[0] <= 64


# ---- transpositions ------------------------------------------------------------------------

# TURN: player 0 to move in round 5 with 20 light, two collects, a plant and grows that
# commute, so the orders of a turn meet in the same positions again and again

def test_a_position_met_again_is_not_sent_to_the_network():
    game = Game.from_position(TURN)
    shared, fresh = hashed(2), hashed(2)
    search = photocore.Search([game], 600, dirichlet_fraction=0)
    tree = photocore.Search([game], 600, dirichlet_fraction=0, transpositions=False)
    visits = search.run(shared)
    # one leaf a simulation (none ends the game this early): the network's or a
    # transposition's, and the same network gives the same search either way
    assert search.saved[0] > 10 and shared.rows + search.saved[0] == 600
    assert np.array_equal(visits, tree.run(fresh))
    assert fresh.rows == 600 and tree.saved[0] == 0
    assert search.root_values() == pytest.approx(tree.root_values())
    # the tree kept by advance() is searched with its transpositions too
    move = search.choose(temperature=0)
    search.advance(move)
    tree.advance(move)
    before, saved = shared.rows, search.saved[0]
    kept = search.visits()[0].sum() + 1
    assert np.array_equal(search.run(shared), tree.run(fresh))
    assert (shared.rows - before) + (search.saved[0] - saved) == 600 - kept
    search.set_game(0, game)
    assert search.saved[0] == 0


def test_transpositions_are_shared_across_a_batch_of_games_in_flight():
    games = [Game.from_position(TURN), midgame(plies=50)]
    search = photocore.Search(games, 300, in_flight=4)
    evaluate = hashed(2)
    search.run(evaluate)
    assert search.saved.sum() > 0
    assert evaluate.rows + search.saved.sum() <= 600
    assert SearchAgent(uniform(2), transpositions=False).settings.transpositions is False


# ---- moving on: reuse, choice, noise, determinism -------------------------------------------

def test_advance_keeps_the_subtree_and_tops_it_up():
    game = midgame(plies=40)
    search = photocore.Search([game], simulations=100, dirichlet_fraction=0)
    before = search.run(uniform(2))[0]
    move = int(before.argmax())
    search.advance(np.array([move]))
    kept = search.visits()[0].sum()
    assert kept == before[move] - 1
    game.play(move)
    assert search.game(0).position() == game.position()
    evaluate = uniform(2)
    assert search.run(evaluate).sum() == 99
    assert evaluate.rows == 100 - before[move]       # only the new simulations ask the network


def test_advance_checks_every_move_before_playing_any():
    games = [midgame(plies=30), midgame(plies=31)]
    search = photocore.Search(games, simulations=20)
    search.run(uniform(2))
    positions = [search.game(i).position() for i in range(2)]
    legal = games[0].legal_moves().ids()[0]
    with pytest.raises(ValueError, match="game 1: place a4 is not legal"):
        search.advance(np.array([legal, 0]))
    with pytest.raises(ValueError, match="integer array of shape"):
        search.advance(np.array([0.0, 1.0]))
    assert [search.game(i).position() for i in range(2)] == positions
    search.advance(np.array([legal, -1]))          # -1: leave that game as it is
    assert search.game(1).position() == positions[1]


def test_finished_games_get_no_simulations_and_no_move():
    over = Game.from_position(ONLY_END)
    over.play("end")
    search = photocore.Search([over, Game()], simulations=10)
    visits = search.run(uniform(2))
    assert visits[0].sum() == 0 and visits[1].sum() == 9
    assert search.choose()[0] == -1
    assert search.root_values()[0].tolist() == list(over.returns()) == [-1.0, 1.0]
    with pytest.raises(ValueError, match="game 1 has no visits"):
        photocore.Search([over, Game()]).choose()


def test_play_a_whole_batch_of_games_to_the_end():
    search = photocore.Search([Game(players=4) for _ in range(3)], simulations=8, seed=2)
    games = [Game(players=4) for _ in range(3)]
    for _ in range(3000):
        search.run(uniform(4))
        moves = search.choose(temperature=1.0)
        if (moves < 0).all():
            break
        search.advance(moves)
        for game, move in zip(games, moves):
            if move >= 0:
                game.play(int(move))
    assert all(g.is_over for g in games)
    assert [search.game(i).position() for i in range(3)] == [g.position() for g in games]
    search.set_game(1, Game(players=4))
    assert search.run(uniform(4))[1].sum() == 7


def test_temperature_zero_takes_the_most_visited_and_one_follows_the_visits():
    game = midgame()
    search = photocore.Search([game] * 400, simulations=40, seed=1, dirichlet_fraction=0)
    visits = search.run(uniform(2))
    assert (search.choose(temperature=0) == visits.argmax(axis=1)).all() or \
        (visits[np.arange(400), search.choose(temperature=0)] == visits.max(axis=1)).all()
    counts = np.bincount(search.choose(temperature=1.0), minlength=NUM_ACTIONS)
    expected = visits[0] / visits[0].sum() * 400
    assert np.abs(counts - expected).max() < 4 * np.sqrt(expected.max()) + 2
    assert set(np.flatnonzero(counts)) <= set(np.flatnonzero(visits[0]))
    with pytest.raises(ValueError, match="temperature"):
        search.choose(temperature=-1)


def test_dirichlet_noise_has_the_right_mean_and_spread():
    game = midgame()
    n = len(game.legal_moves())
    alpha = 0.3
    search = photocore.Search([game] * 2000, simulations=2, dirichlet_alpha=alpha,
                              dirichlet_fraction=1.0, seed=11)
    search.run(uniform(2))
    noise = search.priors()[:, game.legal_moves().mask()]
    assert np.allclose(noise.sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose(noise.mean(axis=0), 1 / n, atol=0.01)
    variance = (1 / n) * (1 - 1 / n) / (n * alpha + 1)     # Dirichlet's
    assert noise.var(axis=0).mean() == pytest.approx(variance, rel=0.1)


def test_the_same_seed_gives_the_same_search():
    games = [midgame(plies=p) for p in (15, 45)]

    def searched(seed):
        search = photocore.Search(games, simulations=80, seed=seed, in_flight=3)
        visits = [search.run(uniform(2))]
        moves = [search.choose(temperature=1.0)]
        search.advance(moves[-1])
        visits.append(search.run(uniform(2)))
        return np.stack(visits), np.stack(moves)

    first, again, other = searched(7), searched(7), searched(8)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], other[0])



def constant(value, players=2):
    """An evaluator with uniform priors and `value` for the player to move, the others
    sharing its opposite."""

    def evaluate(obs, mask):
        values = np.full((len(obs), players), -value / (players - 1), np.float32)
        values[:, 0] = value
        return np.zeros(mask.shape, np.float32), values

    return evaluate


def test_a_rollout_weight_mixes_one_random_games_returns_into_the_leaf_value():
    # one simulation: the root's own evaluation, (1 - w) * network + w * a random game's
    # returns, which are +1/-1 or 0/0 with two players
    for seed in range(6):
        search = photocore.Search([midgame(plies=30)], simulations=1, seed=seed,
                                  rollout_weight=0.25)
        search.run(constant(0.4))
        played = (search.root_values()[0] - 0.75 * np.array([0.4, -0.4])) / 0.25
        assert np.round(played, 5).tolist() in ([1, -1], [-1, 1], [0, 0])


def test_a_rollout_weight_of_one_ignores_the_networks_values():
    game = midgame(plies=42)           # 26 legal moves

    def searched(value, weight, seed=3):
        search = photocore.Search([game], simulations=200, seed=seed, rollout_weight=weight)
        return search.run(constant(value)), search.root_values()[0]

    (visits, values), (same, same_values) = searched(0.9, 1.0), searched(-0.9, 1.0)
    assert np.array_equal(visits, same) and np.array_equal(values, same_values)
    # the returns of random games are zero-sum, and the same seed plays the same ones
    assert values.sum() == pytest.approx(0, abs=1e-9)
    assert np.array_equal(searched(0.9, 1.0)[0], visits)
    assert not np.array_equal(searched(0.9, 1.0, seed=4)[0], visits)
    # without rollouts the network's +0.9 for every mover is what the root holds
    assert not np.array_equal(searched(0.9, 0.0)[0], visits)


@of_the_source
def test_the_searchs_defaults_are_written_once():
    # play.settings.SearchSettings holds them: Search, SearchAgent, the training data and
    # the AlphaZero example take them from there
    root = pathlib.Path(__file__).resolve().parents[2]
    files = [*(root / "src" / "photocore").rglob("*.py"), *(root / "src" / "photocore").rglob(
        "*.py[ix]"), *(root / "examples" / "alphazero").glob("*.py")]
    restated = re.compile(r"\b1\.25\b|\b0\.3, *0\.25\b|dirichlet_alpha\b[^,\n]*\b0\.3\b")
    assert sorted(path.relative_to(root).as_posix() for path in files
                  if restated.search(path.read_text(encoding="utf-8"))) == [
        "src/photocore/play/settings.py"]
    games = [midgame(seed=3)]
    visits = photocore.Search(games, 40, seed=2).run(uniform(2))
    again = photocore.Search(games, 40, 2, **SearchSettings().keywords()).run(uniform(2))
    assert (visits == again).all()


def test_a_search_agent_takes_the_searchs_settings_without_noise():
    assert SearchAgent(uniform(2)).settings == SearchSettings(dirichlet_fraction=0.0)
    agent = SearchAgent(uniform(2), c_puct=2.0, in_flight=4, rollout_weight=0.5)
    assert agent.settings == SearchSettings(c_puct=2.0, dirichlet_fraction=0.0, in_flight=4,
                                            rollout_weight=0.5)
    with pytest.raises(ValueError, match="c_puct"):
        SearchAgent(uniform(2), c_puct=-1.0)        # Search checks them, at once


def test_the_settings_are_one_value_passed_whole():
    # Search, SearchAgent and DataSeries take one SearchSettings and give it back as
    # .settings; their keywords of its fields' names change it, every field alike
    # (SearchAgent and DataSeries lacked max_nodes while each retyped the fields)
    from photocore.run.train_data import DataSeries
    settings = SearchSettings(c_puct=2.0, max_nodes=4096, graph=True)
    games = [midgame(seed=3)]
    made = {"Search": lambda **k: photocore.Search(games, 40, 2, **k),
            "SearchAgent": lambda **k: SearchAgent(uniform(2), **k),
            "DataSeries": lambda **k: DataSeries(uniform(2), games=2, **k)}
    for name, make in made.items():
        assert make(settings=settings).settings == settings, name
        changed = make(settings=settings, max_nodes=128, rollout_weight=0.5).settings
        assert changed == SearchSettings(c_puct=2.0, max_nodes=128, graph=True,
                                         rollout_weight=0.5), name
        with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword "
                                            "argument 'cpuct'"):
            make(cpuct=2.0)
        with pytest.raises(TypeError, match="settings must be a photocore.play.settings"):
            make(settings={"c_puct": 2.0})
    for cls in (photocore.Search, SearchAgent, DataSeries):      # no field typed again
        assert not set(inspect.signature(cls).parameters) & set(SearchSettings().keywords())
    whole = photocore.Search(games, 40, 2, settings).run(uniform(2))
    assert (whole == photocore.Search(games, 40, 2, c_puct=2.0, max_nodes=4096,
                                      graph=True).run(uniform(2))).all()
    assert SearchAgent(uniform(2), max_nodes=128).settings.dirichlet_fraction == 0.0
    with pytest.raises(ValueError, match="max_nodes must be from 2"):
        SearchAgent(uniform(2), max_nodes=1)                # checked at once, as the others


def test_importing_photocore_loads_no_search():
    import subprocess
    import sys
    code = ("import sys, photocore; assert 'photocore.play._search' not in sys.modules; "
            "photocore.Search; assert 'photocore.play._search' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
