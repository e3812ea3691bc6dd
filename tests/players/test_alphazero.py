"""examples/alphazero: one short iteration of the loop (bootstrap, self-play, training,
evaluation, checkpoint, curve), then the checkpoint as an agent and in the scripts; no
subnormal weights (trained, shipped, loaded, flushed). Needs PyTorch
(pip install "photocore[alphazero]"); skipped without it."""

import json
import re
import pathlib
import pickle
import sys
import types

import numpy as np
import pytest

import photocore

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.slow     # the example trains a network: minutes in all

FOLDER = pathlib.Path(__file__).resolve().parents[2] / "examples" / "alphazero"


@pytest.fixture(scope="module")
def example():
    sys.path.insert(0, str(FOLDER))
    import agent
    import evaluate
    import flush
    import net
    import play
    import ratings
    import selfplay_data
    import train
    yield types.SimpleNamespace(train=train, agent=agent, evaluate=evaluate, flush=flush,
                                net=net, play=play, selfplay_data=selfplay_data,
                                ratings=ratings)
    sys.path.remove(str(FOLDER))


@pytest.fixture(scope="module")
def trained(example, tmp_path_factory):
    train = example.train
    out = tmp_path_factory.mktemp("az")
    threads = torch.get_num_threads()
    try:
        train.main(["--out", str(out), "--workers", "1", "--iterations", "1", "--hidden", "32",
                    "--minutes", "0.5",
                    "--bootstrap-games", "12", "--bootstrap-epochs", "1",
                    "--games-per-iteration", "2", "--per-search", "2", "--simulations", "8",
                    "--batch", "64", "--eval-games", "2", "--buffer", "5000"])
    finally:
        torch.set_num_threads(threads)
    return out


def test_one_short_iteration_logs_checkpoints_and_a_curve(trained):
    log = [json.loads(line) for line in (trained / "log.jsonl").read_text().splitlines()]
    assert [entry["phase"] for entry in log] == ["start", "bootstrap", "self-play"]
    assert all(set(entry["eval"]) == {"random", "greedy", "mcts:100", "mcts:1000"}
               for entry in log)
    for entry in log:
        for opponent, (low, high) in entry["interval"].items():
            assert 0 <= low <= entry["eval"][opponent] <= high <= 1
    assert log[-1]["games"] == 2 and log[-1]["rows"] > 100 and log[-1]["steps"] > 0
    assert log[0]["train_seconds"] == 0 and log[-1]["train_seconds"] > 0
    assert log[0]["lr"] == 1e-3 >= log[-1]["lr"]
    for name in ("bootstrap.pt", "latest.pt", "final.pt"):
        assert (trained / name).stat().st_size > 0
    pytest.importorskip("matplotlib")
    assert (trained / "curve.png").read_bytes()[:4] == b"\x89PNG"


def test_the_learning_rate_falls_along_a_cosine_to_its_final_share(example):
    rate = example.train.cosine_rate
    assert rate(1e-3, 0.05, 0.0) == 1e-3
    assert rate(1e-3, 0.05, 0.5) == pytest.approx(0.525e-3)
    assert rate(1e-3, 0.05, 1.0) == rate(1e-3, 0.05, 3.0) == pytest.approx(0.05e-3)
    shares = np.linspace(0, 1, 50)
    assert np.all(np.diff([rate(1e-3, 0.05, x) for x in shares]) < 0)


def test_the_checkpoint_is_an_agent(example, trained):
    agent_module = example.agent
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


def test_the_examples_in_the_scripts_docstrings_run_as_written(example):
    # pytest collects the package's doctests, not the example's: each file with some here
    import doctest
    import importlib

    files = [path for path in sorted(FOLDER.glob("*.py"))
             if re.search(r"^\s*>>> ", path.read_text(encoding="utf-8"), re.M)]
    assert {"options.py", "evaluate.py", "train.py"} <= {path.name for path in files}
    for path in files:
        result = doctest.testmod(importlib.import_module(path.stem))
        assert result.attempted > 0 and result.failed == 0, path.name


def test_the_scripts_play_and_evaluate(example, trained, tmp_path, capsys, monkeypatch):
    evaluate, play = example.evaluate, example.play
    evaluate.main(["--checkpoint", str(trained / "final.pt"), "--games", "4",
                   "--opponents", "random", "--simulations", "4", "--baseline", "mcts:50",
                   "--json", str(tmp_path / "e.json")])
    result = json.loads((tmp_path / "e.json").read_text())["results"]["random"]
    assert result["games"] == 4
    # the baseline in the same seats: mcts:50 beats random
    assert result["baseline"]["mcts:50"]["win_rate"] >= 0.75
    # --graph searches positions: the arena's Search is made with graph=True
    made, search = [], photocore.Search

    def recorded(*args, **settings):
        made.append(settings.get("graph"))
        return search(*args, **settings)

    monkeypatch.setattr(photocore, "Search", recorded)
    evaluate.main(["--checkpoint", str(trained / "final.pt"), "--games", "2", "--graph",
                   "--opponents", "random", "--simulations", "4",
                   "--json", str(tmp_path / "g.json")])
    searched = json.loads((tmp_path / "g.json").read_text())
    assert searched["graph"] is True and searched["results"]["random"]["games"] == 2
    assert made == [True]
    play.main(["--checkpoint", str(trained / "final.pt"), "--games", "1", "--simulations", "4",
               "--opponent", "mcts:5", "--out", str(tmp_path / "g.jsonl")])
    assert "alphazero:4 against mcts:5" in capsys.readouterr().out
    (record,) = photocore.read_games(tmp_path / "g.jsonl", verify=True)
    assert record["metadata"]["agents"][0] == "alphazero:4"


def test_a_small_rating_list_is_made_by_its_one_command(example, trained, tmp_path, capsys):
    # docs/ratings.md's command, small: 2 players, a tiny checkpoint, 2 games a pairing
    page = tmp_path / "ratings.md"
    command = ["--players", "2", "--mcts", "5", "--graph", "5", "--simulations", "2,6",
               "--graph-simulations", "4",
               "--checkpoint", str(trained / "final.pt"), "--games", "2", "--workers", "2",
               "--folder", str(tmp_path), "--out", str(page), "--solved-positions", "40"]
    example.ratings.main(command)
    summary = json.loads((tmp_path / "2p.json").read_text())
    assert summary["games"] == 2 * 21 and summary["anchor"] == "random"
    text = page.read_text()
    ratings, accuracy = text.split("## Accuracy on solved positions (2 players)")
    rows = [line for line in ratings.splitlines() if line.startswith("| ") and "rank" not in line]
    names = sorted(line.split("`")[1] for line in rows)
    assert names == ["alphazero:2", "alphazero:4?graph=1", "alphazero:6", "greedy", "mcts:5",
                     "mcts:5?graph=1", "random"]
    assert "| `random` | +0 | anchor |" in text
    # strongest first, each Elo inside its interval, a time per move for every agent
    elos = [int(line.split("|")[3]) for line in rows]
    assert elos == sorted(elos, reverse=True)
    for line in rows:
        cells = [c.strip() for c in line.split("|")]
        if cells[4] != "anchor":
            low, high = (int(x) for x in cells[4].split(" .. "))
            assert low <= int(cells[3]) <= high
        assert float(cells[7]) >= 0
    assert "python examples/alphazero/ratings.py --players 2" in text
    assert "photocore tournament --agents 'random,greedy,mcts:5,mcts:5?graph=1,py:" in text
    # every agent scored on the solved positions: shares inside their intervals
    scored = [line.split("|") for line in accuracy.splitlines()
              if line.startswith("| `")]
    assert sorted(cells[1].strip().strip("`") for cells in scored) == names
    for cells in scored:
        kept, (low, high) = float(cells[2].strip(" %")), cells[3].split(" .. ")
        assert float(low.strip(" %")) <= kept <= float(high.strip(" %"))
    assert "each of the 40 positions" in accuracy
    # --render writes the same page from the summaries, playing nothing
    (tmp_path / "2p.jsonl.gz").unlink()
    page.unlink()
    example.ratings.main(command + ["--render"])
    assert page.read_text() == text and not (tmp_path / "2p.jsonl.gz").exists()


def test_the_checkpoint_refuses_a_game_of_other_players(example, trained):
    agent = example.agent.AlphaZeroAgent(checkpoint=str(trained / "final.pt"), simulations=4)
    with pytest.raises(ValueError, match="final.pt plays 2 players, the game has 3"):
        agent.select(photocore.Game(3))


def test_training_data_from_the_checkpoint(example, trained, tmp_path):
    selfplay_data = example.selfplay_data
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
    result = CliRunner().invoke(main, ["match", "--agents", f"{agent},greedy", "--games", "2",
                                       "--workers", "1", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "2 games" in result.output and "no forfeits" in result.output
    records = list(photocore.read_games(out, verify=True))
    assert len(records) == 2
    # called by the name it declares (SearchAgent's: alphazero:4, with the options that are
    # not the defaults), not by its spec
    (name,) = {a for r in records for a in r["metadata"]["agents"]} - {"greedy"}
    assert name.startswith("alphazero:4")
    assert sorted(r["metadata"]["agents"].index(name) for r in records) == [0, 1]


@pytest.mark.parametrize("rate", [0.0, 0.5, 0.995, 1.0])
def test_the_win_rate_interval_holds_the_rate_and_stays_within_0_and_1(example, rate):
    low, high = example.evaluate.wilson(rate, 400)
    assert 0.0 <= low <= rate <= high <= 1.0
    assert high - low < 0.1
    assert (low < rate < high) == (0.0 < rate < 1.0)


def test_the_shipped_checkpoints_are_the_agents_default_for_each_number_of_players(example):
    agent = example.agent.AlphaZeroAgent(simulations=8)      # examples/alphazero/checkpoint.pt
    assert (agent.players, agent.checkpoint["hidden"]) == (2, 256)
    # the checkpoint of the game's players is loaded when the agent first sees one, and the
    # search mixes random games in as that checkpoint was trained
    for players in (2, 3, 4, 2):
        game = photocore.Game(players)
        for _ in range(12):
            move = agent.select(game)
            assert move in game.legal_moves()
            game.play(move)
        assert agent.players == agent.checkpoint["players"] == players
        assert agent.path == example.agent.CHECKPOINTS[players]
        assert agent.settings.rollout_weight == agent.checkpoint.get("rollout_weight", 0.0)


def test_the_agent_passes_graph_on_to_its_search(example):
    agent = example.agent.AlphaZeroAgent(simulations=8, graph=True)
    assert agent.settings.graph is True and agent.name == "alphazero:8?graph=1"
    game = photocore.Game(3)                 # another checkpoint: the settings stay
    game.play(agent.select(game))
    assert agent.settings.graph is True and agent._search.graph is True
    assert example.agent.AlphaZeroAgent(simulations=8).settings.graph is False


def test_a_missing_checkpoint_is_named(example, tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.pt"):
        example.agent.AlphaZeroAgent(checkpoint=str(tmp_path / "nothing.pt"))


def test_a_missing_cut_or_foreign_checkpoint_is_one_error_naming_it(example, trained,
                                                                     tmp_path, capsys):
    load, CheckpointError = example.net.load, example.net.CheckpointError
    cut = tmp_path / "cut.pt"
    cut.write_bytes((trained / "final.pt").read_bytes()[:5000])
    foreign = tmp_path / "notes.pt"
    foreign.write_text("not a network")
    for path, why in [(tmp_path / "nothing.pt", "no such file"),
                      (cut, "not a whole checkpoint"), (foreign, "not a whole checkpoint")]:
        with pytest.raises(CheckpointError, match=why) as refused:
            load(path)
        assert str(refused.value).startswith(f"checkpoint {path}: ")
        assert "\n" not in str(refused.value)
        # the scripts tell it in one line, with their usage, and no traceback
        with pytest.raises(SystemExit) as stopped:
            example.evaluate.main(["--checkpoint", str(path), "--games", "2"])
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and f"error: checkpoint {path}: {why}" in err
        assert "Traceback" not in err
    with pytest.raises(CheckpointError, match="final.pt plays 2 players, the game has 3"):
        load(trained / "final.pt", players=3)


def test_evaluate_plays_the_checkpoint_s_players_and_refuses_others(example, trained,
                                                                    tmp_path, capsys):
    checkpoint = str(trained / "final.pt")
    with pytest.raises(SystemExit) as stopped:
        example.evaluate.main(["--players", "3", "--checkpoint", checkpoint, "--games", "2"])
    assert stopped.value.code == 2
    assert f"{checkpoint} plays 2 players, the game has 3" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        example.play.main(["--players", "4", "--checkpoint", checkpoint, "--games", "1"])
    assert f"{checkpoint} plays 2 players, the game has 4" in capsys.readouterr().err
    example.evaluate.main(["--checkpoint", checkpoint, "--games", "2", "--simulations", "2",
                           "--opponents", "random", "--json", str(tmp_path / "e.json")])
    assert json.loads((tmp_path / "e.json").read_text())["players"] == 2


def test_a_checkpoint_that_cannot_play_the_match_is_refused_before_the_first_game(trained,
                                                                                   tmp_path):
    from click.testing import CliRunner

    from photocore.cli import main
    checkpoint = trained / "final.pt"
    out = tmp_path / "match.jsonl"
    for options, told in [
            (f"?checkpoint='{checkpoint}'",
             f"CheckpointError: the checkpoint {checkpoint} plays 2 players, the game has 3"),
            (f"?checkpoint='{tmp_path / 'no.pt'}'", f"checkpoint {tmp_path / 'no.pt'}: no such "
                                                     "file"),
            ("?simulations=1", "simulations must be at least 2")]:
        agent = f"py:{FOLDER / 'agent.py'}:AlphaZeroAgent{options}"
        result = CliRunner().invoke(main, ["match", "--agents", f"{agent},greedy,random",
                                           "--games", "3", "--workers", "1", "--out", str(out),
                                           "--no-progress"])
        assert result.exit_code == 2, result.output
        assert told in result.output and "Traceback" not in result.output, result.output
        assert not out.exists()


def test_the_scripts_refuse_bad_options_as_they_parse_them(example, tmp_path, capsys):
    out = tmp_path / "run"
    for script, argv, told in [
            (example.train, ["--minutes", "0"], "argument --minutes: must be a number > 0, got 0"),
            (example.train, ["--simulations", "1"], "must be a whole number >= 2, got 1"),
            (example.train, ["--opponents", "random,mcts:0"], "budget must be a whole number"),
            (example.train, ["--rollout-weight", "2"], "must be a number >= 0 and <= 1, got 2"),
            (example.evaluate, ["--games", "0"], "argument --games: must be a whole number"),
            (example.evaluate, ["--opponents", "alphazero"], "unknown agent 'alphazero'"),
            (example.play, ["--games", "x"], "must be a whole number, got 'x'"),
            (example.selfplay_data, ["--out", str(out), "--per-search", "0"], "--per-search"),
            (example.ratings, ["--players", "2,5"], "from 2 to 4, got 5")]:
        with pytest.raises(SystemExit) as stopped:
            script.main(["--out", str(out), *argv] if script is example.train else argv)
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and told in err, err
    assert not out.exists()          # no empty log of a run that could not start


def test_the_scripts_help_shows_the_defaults(example, capsys):
    for script, shown in [(example.train, "training time (bootstrap, self-play and gradient "
                                          "steps) (default: 60.0)"),
                          (example.evaluate, "(default: random,greedy,mcts:100)"),
                          (example.play, "(default: greedy)"),
                          (example.selfplay_data, "(default: 256)"),
                          (example.flush, "(default: 1e-06)"),
                          (example.ratings, "(default: 2,3,4)")]:
        with pytest.raises(SystemExit) as stopped:
            script.main(["--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert stopped.value.code == 0 and shown in text, text
        assert "(default: None)" not in text


def test_training_tells_its_progress(example, tmp_path, capsys):
    threads = torch.get_num_threads()
    try:
        example.train.main(["--out", str(tmp_path), "--workers", "1", "--iterations", "1",
                            "--hidden", "8", "--minutes", "0.5", "--bootstrap-games", "1500",
                            "--bootstrap-epochs", "1", "--games-per-iteration", "1",
                            "--per-search", "1", "--simulations", "2", "--batch", "64",
                            "--eval-games", "1", "--opponents", "random", "--buffer", "500"])
    finally:
        torch.set_num_threads(threads)
    err = capsys.readouterr().err
    assert "evaluating: 1 games against each of random" in err
    assert "bootstrap: epoch 1 of 1, 1,000 of 1,500 greedy games learnt" in err
    assert "bootstrap: epoch 1 of 1, 1,500 of 1,500 greedy games learnt" in err


# ---- no subnormal weights (net.py says why) --------------------------------------------

def flushing():
    """Whether this thread reads and writes subnormal floats as zero."""
    return sys.float_info.min / 2 == 0.0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_shipped_checkpoints_have_no_subnormal_weight(example, players):
    path = example.agent.CHECKPOINTS[players]
    net, checkpoint = example.net.load(path, flush=False)       # as the file has it
    assert example.net.subnormals(net) == 0 and net.players == players


def test_a_trained_checkpoint_has_no_subnormal_weight(example, trained):
    for name in ("bootstrap.pt", "final.pt"):
        net, _ = example.net.load(str(trained / name), flush=False)
        assert example.net.subnormals(net) == 0


def test_the_examples_optimiser_makes_no_subnormal_weight_where_coupled_decay_does(example):
    # weights that get no gradient (input features of 4 greedy games that never occur,
    # actions never legal there) decay into subnormals under Adam's coupled weight decay
    # in ~1,400 steps; AdamW's decoupled decay leaves them normal. Denormals not flushed
    # here, so that only the optimiser is tested.
    train, net_module = example.train, example.net
    assert not flushing()
    buffer = train.Buffer(1000, 2)
    buffer.add(*train.greedy_rows(0, 4, 2, 0, 20.0))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    counts = {}
    try:
        for name, optimiser in [
                ("coupled", lambda net: torch.optim.Adam(net.parameters(), lr=1e-3,
                                                         weight_decay=train.WEIGHT_DECAY)),
                ("example", lambda net: train.new_optimiser(net, 1e-3, train.WEIGHT_DECAY))]:
            torch.manual_seed(0)
            net = net_module.Net(2, hidden=4, margin_weight=0.25)
            train.train_steps(net, optimiser(net), buffer, 2000, 16, np.random.default_rng(0))
            counts[name] = net_module.subnormals(net)
    finally:
        torch.set_num_threads(threads)
    assert counts["coupled"] > 0 and counts["example"] == 0, counts


@pytest.fixture
def subnormal_checkpoint(example, tmp_path):
    """A small checkpoint with 20 subnormal weights, as Adam's coupled decay left them."""
    net_module = example.net
    torch.manual_seed(0)
    net = net_module.Net(2, hidden=8, margin_weight=0.25)
    with torch.no_grad():
        net.body[0].weight[0, :10] = 1e-40
        net.policy.weight[3:5, :5] = -3e-39
    path = tmp_path / "subnormal.pt"
    net_module.save(net, path, iteration=7)
    return path


def test_loading_a_checkpoint_flushes_its_subnormal_weights(example, subnormal_checkpoint):
    agent_module, net_module = example.agent, example.net
    kept, _ = net_module.load(subnormal_checkpoint, flush=False)
    assert net_module.subnormals(kept) == 20
    net, checkpoint = net_module.load(subnormal_checkpoint)
    assert net_module.subnormals(net) == 0 and checkpoint["iteration"] == 7
    agent = agent_module.AlphaZeroAgent(checkpoint=str(subnormal_checkpoint), simulations=4)
    assert net_module.subnormals(agent.evaluate.net) == 0
    unpickled = pickle.loads(pickle.dumps(net_module.Evaluator(kept)))    # as in a worker
    assert net_module.subnormals(unpickled.net) == 0


def test_the_network_runs_with_denormals_flushed_and_restores_the_setting(example):
    net_module = example.net
    assert not flushing()
    with net_module.denormals_flushed():
        assert flushing()
        with net_module.denormals_flushed():
            assert flushing()
        assert flushing()                  # a nested block keeps the outer one's setting
    assert not flushing()

    seen = []

    class Probe(torch.nn.Module):
        def forward(self, obs):
            seen.append(flushing())
            return torch.zeros(len(obs), 3), torch.zeros(len(obs), 2)

    evaluator = net_module.Evaluator(Probe())
    evaluator(np.zeros((2, photocore.OBSERVATION_SIZE), np.float32), None)
    assert seen == [True] and not flushing()


def test_flush_rewrites_a_checkpoint_that_plays_the_same(example, subnormal_checkpoint,
                                                         tmp_path, capsys):
    flush, net_module = example.flush, example.net
    out = tmp_path / "flushed.pt"
    flush.main([str(subnormal_checkpoint), "--out", str(out), "--games", "1",
                "--simulations", "8"])
    assert "20 of " in capsys.readouterr().out
    net, checkpoint = net_module.load(out, flush=False)
    assert net_module.subnormals(net) == 0 and checkpoint["iteration"] == 7
    with pytest.raises(SystemExit, match="plays differently"):     # nothing can pass this
        flush.main([str(subnormal_checkpoint), "--out", str(tmp_path / "no.pt"),
                    "--games", "1", "--simulations", "8", "--tolerance", "-1"])
    assert not (tmp_path / "no.pt").exists()


def test_the_forward_pass_workload_runs(monkeypatch):
    # the registry's alphazero/shipped (benchmarks/networks.py), tiny, beside its baseline
    monkeypatch.setattr(sys, "path", [str(FOLDER.parent.parent / "benchmarks"), *sys.path])
    import bench
    import networks

    from photocore.run import speed
    result = bench.measure(networks.Forward(8, passes=1), speed.pyperf_timer(values=1, loops=1))
    assert result["name"] == "alphazero/shipped" and result["check"]["passed"], result
    assert "; 0 subnormal weights" in result["check"]["detail"] and result["ratio"] > 0
