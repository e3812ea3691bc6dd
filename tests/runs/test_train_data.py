"""Self-play training data (photocore.run.train_data) and the searched agent
(photocore.play.search.SearchAgent)."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE
from photocore._kernel import stream_seed
from photocore.cli import main
from photocore.play.search import SearchAgent
from photocore.play.settings import SearchSettings
from photocore.run import train_data
from photocore.run.train_data import (FIELDS, DataSeries, Uniform, load_shards, play_block,
                                      value_targets, write_data)


def series(**kwargs):
    settings = dict(evaluate=Uniform(2), games=6, simulations=12, per_search=3, seed=4,
                    explore_plies=10)
    settings.update(kwargs)
    return DataSeries(**settings)


def test_a_block_holds_every_move_of_its_games():
    shard, lines, tally = play_block(series(records=True), 3, 3)
    n = len(shard["obs"])
    assert set(shard) == set(FIELDS) and tally.games == 3 and tally.moves == n
    assert shard["obs"].shape == (n, OBSERVATION_SIZE) and shard["obs"].dtype == np.float32
    assert shard["mask"].shape == (n, NUM_ACTIONS) and shard["mask"].dtype == np.bool_
    assert shard["policy"].shape == (n, NUM_ACTIONS) and shard["policy"].dtype == np.float32
    assert shard["returns"].shape == shard["value"].shape == (n, 2)
    assert shard["game"].tolist() == sorted(shard["game"].tolist())
    assert set(shard["game"].tolist()) == {3, 4, 5}
    assert np.allclose(shard["policy"].sum(axis=1), 1.0)
    assert not (shard["policy"] * ~shard["mask"]).any()
    assert (shard["searched"] == (shard["mask"].sum(axis=1) > 1)).all()
    for k, line in enumerate(lines):
        rec = json.loads(line)
        rows = shard["game"] == 3 + k
        assert shard["ply"][rows].tolist() == list(range(len(rec["moves"])))
        game = photocore.Game()
        for i, text in zip(np.flatnonzero(rows), rec["moves"]):
            assert np.array_equal(shard["obs"][i], game.observation())
            assert np.array_equal(shard["mask"][i], game.legal_moves().mask())
            assert shard["to_move"][i] == game.current_player
            assert shard["policy"][i, int(photocore.Move.parse(text))] > 0
            game.play(text)
        assert (shard["returns"][rows] == np.array(game.returns(), np.float32)).all()
        assert (shard["scores"][rows] == np.array(game.scores())).all()
        assert rec["metadata"]["game"] == 3 + k and rec["metadata"]["simulations"] == 12
        visits = rec["metadata"]["visits"]
        assert len(visits) == len(rec["moves"])
        for i, counts in zip(np.flatnonzero(rows), visits):
            if shard["searched"][i]:
                assert sum(counts.values()) == 11
                total = np.array([counts.get(str(photocore.Move(a)), 0) for a in range(NUM_ACTIONS)])
                assert np.allclose(shard["policy"][i], total / total.sum())
            else:
                assert counts == {}
    assert np.array_equal(shard["value"], value_targets(shard["returns"], shard["to_move"]))


def test_value_targets_turn_seats_to_the_player_to_move():
    returns = np.array([[1.0, -0.5, -0.5]] * 3, np.float32)
    assert value_targets(returns, np.array([0, 1, 2])).tolist() == [
        [1.0, -0.5, -0.5], [-0.5, -0.5, 1.0], [-0.5, 1.0, -0.5]]


def read_folder(folder):
    return {p.name: dict(np.load(p)) for p in sorted(folder.glob("shard-*.npz"))}


@pytest.mark.slow
def test_shards_and_records_are_the_same_whatever_the_workers(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    s = series(records=True, players=3, evaluate=Uniform(3), games=5)
    summary = write_data(s, one, records=tmp_path / "one.jsonl", workers=1)
    write_data(s, two, records=tmp_path / "two.jsonl", workers=2)
    write_data(s, tmp_path / "here", workers=0)          # in this process
    assert read_folder(tmp_path / "here").keys() == read_folder(one).keys()
    assert all(np.array_equal(read_folder(tmp_path / "here")[name]["policy"],
                              read_folder(one)[name]["policy"]) for name in read_folder(one))
    assert summary["games"] == 5 and summary["rows"] == sum(
        len(shard["obs"]) for shard in read_folder(one).values())
    first, second = read_folder(one), read_folder(two)
    assert list(first) == ["shard-000000000.npz", "shard-000000003.npz"]
    assert first.keys() == second.keys()
    for name in first:
        assert all(np.array_equal(first[name][f], second[name][f]) for f in FIELDS)
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    data = load_shards(one)
    assert data["game"].tolist() == sorted(data["game"].tolist())
    assert set(data["game"].tolist()) == set(range(5))
    # the records are ordinary records: verify and replay work on them
    result = CliRunner().invoke(main, ["verify", str(tmp_path / "one.jsonl")])
    assert result.exit_code == 0 and "0 problems" in result.output
    page = tmp_path / "game.html"
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "one.jsonl"), "--html", str(page)])
    assert result.exit_code == 0, result.output
    assert page.exists()


def test_the_seed_decides_the_games(tmp_path):
    a, _, _ = play_block(series(seed=1), 0, 3)
    b, _, _ = play_block(series(seed=1), 0, 3)
    c, _, _ = play_block(series(seed=2), 0, 3)
    assert all(np.array_equal(a[f], b[f]) for f in FIELDS)
    assert not np.array_equal(a["policy"], c["policy"]) or len(a["obs"]) != len(c["obs"])


def test_a_blocks_search_is_seeded_by_the_kernels_stream_of_its_first_game(monkeypatch):
    # one derivation, the kernel's (game_seed), as C self-play seeds game `start`
    seeds = []

    class Recording(train_data.Search):
        def __init__(self, games, simulations, seed, **settings):
            seeds.append(seed)
            super().__init__(games, simulations, seed, **settings)

    s = series(seed=4)
    monkeypatch.setattr(train_data, "Search", Recording)
    play_block(s, 3, 1)
    play_block(s, 9, 1)
    assert seeds == [stream_seed(4, 3), stream_seed(4, 9)]


def test_the_search_settings_are_searchs_unless_told():
    assert series().settings == SearchSettings()
    assert series(c_puct=2.0, in_flight=4).settings == SearchSettings(c_puct=2.0, in_flight=4)


def test_without_reuse_every_search_starts_afresh():
    shard, _, _ = play_block(series(reuse=False, dirichlet_fraction=0.0), 0, 2)
    searched = shard["policy"][shard["searched"]]
    assert np.allclose(searched * 11, np.round(searched * 11), atol=1e-4)   # 11 visits each


def test_records_need_the_visits(tmp_path):
    with pytest.raises(ValueError, match="records=True"):
        write_data(series(), tmp_path, records=tmp_path / "g.jsonl")
    with pytest.raises(ValueError, match="per_search"):
        series(per_search=0)
    with pytest.raises(ValueError, match="simulations"):
        series(simulations=0)


def test_a_data_series_is_a_plan_of_the_driver_with_options(tmp_path):
    from photocore.run.driver import default_batch
    s = series(records=True, options="f", games=3, per_search=3)
    assert default_batch(s, 100, 2) == 4                  # it searches: small batches
    write_data(s, tmp_path / "f", records=tmp_path / "f.jsonl", workers=0)
    recs = list(photocore.read_games(tmp_path / "f.jsonl", verify=True))
    assert [r["options"] for r in recs] == [photocore.Options.parse("f")._asdict()] * 3
    with pytest.raises(ValueError, match="options"):
        series(options="x")


@pytest.mark.slow
def test_shards_on_the_ray_backend_equal_the_local_ones(tmp_path, ray_instance):
    s = series(games=4, per_search=2)
    write_data(s, tmp_path / "local", workers=1)
    write_data(s, tmp_path / "ray", backend="ray")
    local, remote = read_folder(tmp_path / "local"), read_folder(tmp_path / "ray")
    assert local.keys() == remote.keys() and len(local) == 2
    for name in local:
        assert all(np.array_equal(local[name][f], remote[name][f]) for f in FIELDS)


# ---- the searched agent ----------------------------------------------------------------

def play(seats, players=2, seed=0):
    game = photocore.Game(players)
    while not game.is_over:
        game.play(seats[game.current_player].select(game))
    return game


@pytest.mark.parametrize("opponent", [photocore.Agent("greedy", seed=1),
                                      photocore.Agent("mcts", seed=1, simulations=100)])
def test_a_search_agent_plays_the_built_in_agents(opponent):
    agent = SearchAgent(Uniform(2), simulations=16, seed=3)
    assert agent.name == "search:16"
    game = play([agent, opponent])
    assert game.is_over and len(game.history) > 50
    agent.reset()
    assert play([opponent, agent]).is_over


def test_a_search_agent_reuses_its_tree_and_repeats_for_a_seed():
    game = photocore.Game(3)
    agent = SearchAgent(Uniform(3), simulations=24, seed=5)
    other = photocore.Agent("random", seed=2)
    moves = []
    while len(game.history) < 40:
        if game.current_player == 0:
            before = agent._search
            move = agent.select(game)
            if before is not None:
                assert agent._search is before      # the kept tree, moved on
            moves.append(int(move))
            game.play(move)
        else:
            game.play(other.select(game))
    again = SearchAgent(Uniform(3), simulations=24, seed=5)
    replay = photocore.Game(3)
    mine = []
    for move in game.history:
        if replay.current_player == 0:
            mine.append(int(again.select(replay)))
        replay.play(move)
    assert mine == moves
    # a position the tree does not lead to: a fresh search, still a legal move
    elsewhere = photocore.Game(3)
    assert agent.select(elsewhere) in elsewhere.legal_moves()


def test_a_search_needs_two_simulations_to_choose_a_move():
    # one simulation only evaluates the position: no move would have a visit to choose by
    with pytest.raises(ValueError, match="at least 2 to choose a move.*got 1"):
        SearchAgent(Uniform(2), simulations=1)
    with pytest.raises(ValueError, match="at least 2 to choose a move.*got 1"):
        DataSeries(Uniform(2), games=2, simulations=1)
    # two: the one visit goes to the move of the highest prior
    game = photocore.Game()
    favourite = int(game.legal_moves()[5])

    def prefers(obs, mask):
        logits = np.zeros((len(obs), NUM_ACTIONS), np.float32)
        logits[:, favourite] = 3.0
        return logits, np.zeros((len(obs), 2), np.float32)

    assert int(SearchAgent(prefers, simulations=2).select(game)) == favourite


def test_a_search_agent_refuses_bad_input():
    with pytest.raises(ValueError, match="simulations"):
        SearchAgent(Uniform(2), simulations=0)
    agent = SearchAgent(Uniform(2), simulations=4)
    with pytest.raises(TypeError, match="photocore.Game"):
        agent.select("d4")
    over = photocore.Game.from_position(
        "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 0/0000/4432/- 0/2200/4432/- 0579")
    over.play("end")
    with pytest.raises(ValueError, match="over"):
        agent.select(over)
