"""examples/alphazero: one short iteration of the loop (bootstrap, self-play, training,
evaluation, checkpoint, curve), then the checkpoint as an agent and in the scripts.
Needs PyTorch (pip install "photocore[alphazero]"); skipped without it."""

import json
import pathlib
import sys

import pytest

import photocore

torch = pytest.importorskip("torch")

FOLDER = pathlib.Path(__file__).resolve().parent.parent / "examples" / "alphazero"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(FOLDER))
    import agent
    import evaluate
    import play
    import selfplay_data
    import train
    yield train, agent, evaluate, play, selfplay_data
    sys.path.remove(str(FOLDER))


@pytest.fixture(scope="module")
def trained(example, tmp_path_factory):
    train = example[0]
    out = tmp_path_factory.mktemp("az")
    threads = torch.get_num_threads()
    try:
        train.main(["--out", str(out), "--workers", "1", "--iterations", "1", "--hidden", "32",
                    "--bootstrap-games", "12", "--bootstrap-epochs", "1",
                    "--games-per-iteration", "2", "--per-search", "2", "--simulations", "8",
                    "--batch", "64", "--eval-games", "2", "--buffer", "5000"])
    finally:
        torch.set_num_threads(threads)
    return out


def test_one_short_iteration_logs_checkpoints_and_a_curve(trained):
    log = [json.loads(line) for line in (trained / "log.jsonl").read_text().splitlines()]
    assert [entry["phase"] for entry in log] == ["start", "bootstrap", "self-play"]
    assert all(set(entry["eval"]) == {"random", "greedy", "mcts:100"} for entry in log)
    assert log[-1]["games"] == 2 and log[-1]["rows"] > 100 and log[-1]["steps"] > 0
    assert log[0]["train_seconds"] == 0 and log[-1]["train_seconds"] > 0
    for name in ("bootstrap.pt", "best.pt", "latest.pt", "final.pt"):
        assert (trained / name).stat().st_size > 0
    pytest.importorskip("matplotlib")
    assert (trained / "curve.png").read_bytes()[:4] == b"\x89PNG"


def test_the_checkpoint_is_an_agent(example, trained):
    agent_module = example[1]
    agent = agent_module.AlphaZeroAgent(checkpoint=str(trained / "final.pt"), simulations=8,
                                        seed=1)
    assert agent.name == "alphazero:8"
    game = photocore.Game()
    greedy = photocore.Agent("greedy", seed=2)
    while not game.is_over and len(game.history) < 60:
        mover = agent if game.current_player == 0 else greedy
        move = mover.select(game)
        assert move in game.legal_moves()
        game.play(move)
    agent.reset()


def test_the_scripts_play_and_evaluate(example, trained, tmp_path, capsys):
    _, _, evaluate, play, _ = example
    evaluate.main(["--checkpoint", str(trained / "final.pt"), "--games", "2",
                   "--opponents", "random", "--simulations", "4",
                   "--json", str(tmp_path / "e.json")])
    assert json.loads((tmp_path / "e.json").read_text())["results"]["random"]["games"] == 2
    play.main(["--checkpoint", str(trained / "final.pt"), "--games", "1", "--simulations", "4",
               "--opponent", "mcts:5", "--out", str(tmp_path / "g.jsonl")])
    assert "alphazero:4 against mcts:5" in capsys.readouterr().out
    (record,) = photocore.read_games(tmp_path / "g.jsonl", verify=True)
    assert record["metadata"]["agents"][0] == "alphazero:4"


def test_training_data_from_the_checkpoint(example, trained, tmp_path):
    selfplay_data = example[4]
    selfplay_data.main(["--checkpoint", str(trained / "final.pt"), "--games", "3",
                        "--per-search", "2", "--simulations", "6", "--workers", "0",
                        "--out", str(tmp_path / "data"), "--records", str(tmp_path / "g.jsonl")])
    from photocore.run.train_data import load_shards
    data = load_shards(tmp_path / "data")
    records = list(photocore.read_games(tmp_path / "g.jsonl", verify=True))
    assert len(records) == 3 and len(data["obs"]) == sum(len(r["moves"]) for r in records)
    assert records[0]["metadata"]["agents"] == ["alphazero:6"] * 2


def test_the_checkpoint_plays_in_photocore_match(trained, tmp_path):
    from click.testing import CliRunner

    from photocore.cli import main
    agent = (f"py:{FOLDER / 'agent.py'}:AlphaZeroAgent"
             f"?checkpoint='{trained / 'final.pt'}'&simulations=4")
    out = tmp_path / "match.jsonl"
    result = CliRunner().invoke(main, ["match", agent, "greedy", "--games", "2", "--workers",
                                       "1", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "2 games" in result.output and "no forfeits" in result.output
    records = list(photocore.read_games(out, verify=True))
    assert len(records) == 2
    assert sorted(r["metadata"]["agents"].index(agent) for r in records) == [0, 1]


@pytest.mark.parametrize("rate", [0.0, 0.5, 0.995, 1.0])
def test_the_win_rate_interval_holds_the_rate_and_stays_within_0_and_1(example, rate):
    low, high = example[2].wilson(rate, 400)
    assert 0.0 <= low <= rate <= high <= 1.0
    assert high - low < 0.1
    assert (low < rate < high) == (0.0 < rate < 1.0)


def test_the_shipped_checkpoint_is_the_agents_default_and_plays(example):
    agent = example[1].AlphaZeroAgent(simulations=8)      # examples/alphazero/checkpoint.pt
    assert (agent.players, agent.checkpoint["hidden"]) == (2, 256)
    game = photocore.Game()
    for _ in range(12):
        move = agent.select(game)
        assert move in game.legal_moves()
        game.play(move)


def test_a_missing_checkpoint_is_named(example, tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.pt"):
        example[1].AlphaZeroAgent(checkpoint=str(tmp_path / "nothing.pt"))
