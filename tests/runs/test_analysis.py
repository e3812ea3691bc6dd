"""Analysis (photocore.analysis, `photocore analyze`): known answers, the record field, the
judges, determinism, the command with --resume, and the JSON-lines server of --serve."""

import copy
import io
import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner

import photocore
from photocore import analysis, records
from photocore._kernel import stream_seed
from photocore.cli import main
from photocore.cli.analyze import analyze
from photocore.serve.queries import query_lines, serve_queries
from photocore.play import specs
from photocore.play._agents import Agent, search_root
from photocore.play.search import SearchAgent
from photocore.run.selfplay import Series

# the last round, player 0 to move with light for one collect: collecting a4 wins the game,
# anything else loses it (every random continuation ends so: found by a scan of games of
# greedy against mcts:1000)
ONE_WINNING_COLLECT = (
    "2 - 18 5 1 0 d6,e5,f5 a4:0:3,a5:1:1,a7:0:0,b4:1:1,b6:0:1,b7:0:0,c3:1:1,c4:1:0,c5:1:1,"
    "c6:0:1,d3:1:1,d5:1:0,d6:0:1,e2:1:0,e3:1:1,e5:0:0,f3:0:1,f4:0:1,g4:0:0 6/0000/0031/"
    "14.14.13 3/0000/1132/13.13.19 0474")


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """A file of three games of greedy against random."""
    path = tmp_path_factory.mktemp("analysis") / "games.jsonl"
    lines, _ = Series(3, agents=["greedy", "random"], seed=3).batch(0, 3)
    path.write_bytes(b"".join(lines))
    return path


def first_game(path):
    return next(iter(records.read_games(path)))


# ---- the search's root statistics --------------------------------------------------------

def test_search_root_is_the_agents_search():
    game = photocore.Game()
    greedy = Agent("greedy", seed=2)
    for _ in range(40):
        game.play(greedy.select(game))
    stats = search_root(game, simulations=300, seed=9)
    assert stats.actions == game.legal_moves().ids()
    assert sum(stats.visits) == stats.root_visits - 1 == 299
    best = max(range(len(stats.actions)), key=lambda i: (stats.visits[i], -i))
    assert stats.actions[best] == int(Agent("mcts", 9, 300).select(game))
    assert stats.principal[0] == stats.actions[best]
    assert all(math.isclose(sum(v), 0, abs_tol=1e-9) for v in stats.values if v[0] == v[0])
    with pytest.raises(ValueError, match="simulations"):
        search_root(game, simulations=0)


# ---- known answers ---------------------------------------------------------------------

def test_the_one_winning_collect_is_best_and_the_rest_are_mistakes():
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    evaluation = analysis.evaluate_position(game, "mcts:2000", seed=1, exact=False)
    assert evaluation.best == "collect a4" and evaluation.player == 0
    assert evaluation.moves["collect a4"] > 0.9 and evaluation.values[0] > 0
    for move in game.legal_moves():
        played = game.copy()
        played.play(move)
        (ply,) = analysis.analyze(played, "mcts:2000", seed=1, exact=False).plies
        assert ply.best == "collect a4"
        if str(move) == "collect a4":
            assert ply.loss == 0 and ply.label is None
        else:
            assert ply.loss > 1.5 and ply.win_loss > 0.75 and ply.label == "blunder"


def test_a_forced_move_loses_nothing(games):
    rec = first_game(games)
    game = records.from_record(rec, ply=6)
    assert len(records.from_record(rec, ply=5).legal_moves()) == 1      # move 6 is forced
    result = analysis.analyze(game, "mcts:50", seed=0)
    forced = result.plies[5]
    assert forced.forced and forced.loss == 0 and forced.label is None
    assert forced.best == forced.move == rec["moves"][5]
    assert result.values[5] == result.values[6]          # worth what the next position is
    assert len(result.values) == len(result.plies) + 1 == 7


def test_a_finished_game_ends_on_its_returns(games):
    rec = first_game(games)
    result = analysis.analyze(rec, "mcts:20", seed=0)
    final = records.from_record(rec)
    assert result.values[-1] == final.returns()
    assert all(0 <= a <= 100 for a in result.accuracy)
    assert [p.ply for p in result.plies] == list(range(1, len(rec["moves"]) + 1))


def test_the_same_seed_gives_the_same_analysis(games):
    rec = first_game(games)
    rec = dict(rec, moves=rec["moves"][:30], result=None)
    one = analysis.analyze(rec, "mcts:60", seed=5)
    assert one == analysis.analyze(rec, "mcts:60", seed=5)
    assert one != analysis.analyze(rec, "mcts:60", seed=6)


def test_a_positions_search_is_seeded_by_the_kernels_streams():
    # one derivation, the kernel's (game_seed): stream `ply` of stream `game` of the seed
    for seed, game, ply in ((5, 0, 0), (5, 1, 30), (-3, 7, 2)):
        expected = stream_seed(stream_seed(seed, game), ply)
        assert analysis.position_seed(seed, game, ply) == expected


def test_thresholds_and_accuracy():
    assert [analysis.THRESHOLDS.label(x) for x in (0, 0.099, 0.1, 0.15, 0.2, 1)] == [
        None, None, "inaccuracy", "mistake", "blunder", "blunder"]
    assert analysis.move_accuracy(0) == pytest.approx(100, abs=0.01)
    assert analysis.move_accuracy(1) == 0
    assert analysis.win_chance(1, 4) == 1 and analysis.win_chance(-1 / 3, 4) == 0


# ---- judges ---------------------------------------------------------------------------

class Collector:
    """A user's judge: values collects, the rest nothing."""

    def analyze(self, game):
        return {move: (1.0 if move.kind == "collect" else 0.0) for move in game.legal_moves()}


def test_an_agent_with_analyze_is_an_engine():
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    evaluation = analysis.evaluate_position(game, Collector(), exact=False)
    assert evaluation.best == "collect a4" and evaluation.values == (1.0, -1.0)
    assert evaluation.visits == {}

    class Bad:
        def __init__(self, answer):
            self.answer = answer

        def analyze(self, game):
            return self.answer

    for answer, reason in (({}, "non-empty"), ({"collect a4": math.nan}, "finite"),
                           ({"collect g4": 1.0}, "not a legal move"),
                           ({"grow nowhere": 1.0}, "malformed")):
        with pytest.raises(ValueError, match=reason):
            analysis.evaluate_position(game, Bad(answer), exact=False)
    with pytest.raises(ValueError, match="cannot evaluate"):
        analysis.judge("greedy")
    with pytest.raises(ValueError, match="cannot evaluate"):
        analysis.judge(object())


def uniform(obs, mask):
    return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)


def test_a_search_agent_is_an_engine():
    judge = analysis.judge(SearchAgent(uniform, simulations=40, name="uniform"))
    assert judge.name == "uniform:40" and judge.evaluate is uniform     # the network
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    evaluation = judge.evaluation(game, seed=0)
    assert set(evaluation.moves) == {str(m) for m in game.legal_moves()}
    # the positions after each move searched: a uniform network finds the win and losses
    assert max(evaluation.moves, key=evaluation.moves.get) == "collect a4"
    assert evaluation.moves["collect a4"] > 0.5 and evaluation.moves["end"] == -1
    assert sum(evaluation.visits.values()) == 39
    assert evaluation == judge.evaluation(game, seed=0)


def test_the_alphazero_checkpoint_is_an_engine():
    pytest.importorskip("torch")
    spec = "py:examples/alphazero/agent.py:AlphaZeroAgent?simulations=24"
    judge = analysis.judge(spec)
    assert judge.name == "alphazero:24"
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    assert judge.evaluation(game, seed=0).best in {str(m) for m in game.legal_moves()}


# ---- records ---------------------------------------------------------------------------

def test_the_record_field_round_trips(games, tmp_path):
    rec = first_game(games)
    assert analysis.of_record(rec) is None                  # records without one still read
    result = analysis.analyze(rec, "mcts:20", seed=2)
    analysed = analysis.with_analysis(rec, result)
    path = tmp_path / "a.jsonl"
    records.write_games(path, [analysed])
    (back,) = records.read_games(path, verify=True)
    assert back == analysed
    again = analysis.of_record(back)
    assert again.to_json() == result.to_json()
    assert again.plies[10].move == rec["moves"][10]
    assert [p.player for p in again.plies] == [p.player for p in result.plies]


def test_the_record_field_is_checked_and_versioned(games):
    rec = analysis.with_analysis(first_game(games),
                                 analysis.analyze(first_game(games), "mcts:10", seed=0))
    data = rec["metadata"]["analysis"]
    for change, field in (({"loss": [-1.0] + data["loss"][1:]}, "loss[0]"),
                          ({"labels": ["dubious"] + data["labels"][1:]}, "labels[0]"),
                          ({"extra": 1}, "extra")):
        bad = dict(rec, metadata=dict(rec["metadata"], analysis=dict(data, **change)))
        with pytest.raises(photocore.RecordError, match=field.split("[")[0]):
            records.check_record(bad)
    later = dict(rec, metadata=dict(rec["metadata"], analysis={"version": 3, "new": []}))
    records.check_record(later)                 # a later version reads as a record...
    with pytest.raises(photocore.RecordError, match="version 3"):
        analysis.of_record(later)               # ...whose analysis this one cannot read
    short = dict(rec, moves=rec["moves"][:-1], result=None)
    with pytest.raises(photocore.RecordError, match="covers"):
        analysis.of_record(short)


@pytest.fixture(scope="module")
def analysed(games):
    """The first game of `games` with its analysis, as a JSON line's record."""
    rec = first_game(games)
    return json.loads(records.record_line(
        analysis.with_analysis(rec, analysis.analyze(rec, "mcts:10", seed=0))))


def changed_analysis(rec, change):
    rec = copy.deepcopy(rec)
    change(rec["metadata"]["analysis"])
    return rec


def _set(array, k, value):
    def change(data):
        data[array][k] = value
    return change


# an analysis (version 2) that is not of its record: (the change, whether only a replay
# finds it, the error after "FILE:1: ")
NOT_OF_ITS_RECORD = {
    "a move short": (lambda data: data["player"].pop(), False,
                     r"field 'metadata.analysis.player' covers \d+ moves, the game has \d+"),
    "a position short": (lambda data: data["values"].pop(), False,
                         r"field 'metadata.analysis.values' must hold \d+ values, one per "
                         r"position \(the moves \+ 1\), got \d+"),
    "a position of one player": (_set("values", 2, [0.5]), False,
                                 r"field 'metadata.analysis.values\[2\]' must hold 2 values, "
                                 r"one per player, got 1"),
    "an accuracy too many": (lambda data: data["accuracy"].append(50.0), False,
                             r"field 'metadata.analysis.accuracy' must hold 2 values, one per "
                             r"player, got 3"),
    "player 3 of 2": (_set("player", 3, 3), False,
                      r"ply 4: field 'metadata.analysis.player\[3\]' must be at most 1, got 3"),
    "a malformed best move": (_set("best", 3, "grow z9"), False,
                              r"ply 4: field 'metadata.analysis.best\[3\]': malformed move "
                              r"'grow z9'"),
    "another mover": (_set("player", 0, 1), True,
                      r"ply 1: field 'metadata.analysis.player\[0\]' says player 1 made this "
                      r"move, the replay says player 0"),
    "an illegal best move": (_set("best", 0, "grow a4"), True,
                             r"ply 1: field 'metadata.analysis.best\[0\]': grow a4 is not a "
                             r"legal move there"),
}


@pytest.mark.parametrize("case", list(NOT_OF_ITS_RECORD))
def test_an_analysis_not_of_its_record_is_refused_by_every_command(analysed, tmp_path, case):
    change, needs_replay, message = NOT_OF_ITS_RECORD[case]
    bad = changed_analysis(analysed, change)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(bad) + "\n")
    if needs_replay:       # sound in form: only a replay tells
        records.check_record(copy.deepcopy(bad))
        with pytest.raises(photocore.RecordError, match=message):
            list(records.positions(bad))
    else:
        with pytest.raises(photocore.RecordError, match=message):
            records.check_record(copy.deepcopy(bad))
    with pytest.raises(photocore.RecordError, match=f"^{re.escape(str(path))}:1: {message}"):
        list(records.read_games(path, verify=True))
    result = CliRunner().invoke(main, ["verify", str(path)])
    assert result.exit_code == 1 and re.match(f"{re.escape(str(path))}:1: {message}",
                                              result.output), result.output
    # refused in one line, each; stats (which replays nothing) passes the record over or,
    # sound in form, sums it up
    for command in (["replay", path, "--html", tmp_path / "g.html"], ["show", path],
                    ["export", path, "--npz", tmp_path / "g.npz"], ["stats", path]):
        result = CliRunner().invoke(main, [str(a) for a in command])
        assert isinstance(result.exception, SystemExit | None), result.exception
        if command[0] != "stats":
            assert result.exit_code == 1
            assert re.match(f"Error: {re.escape(str(path))}:1: {message}", result.output)
    assert not (tmp_path / "g.html").exists() and not (tmp_path / "g.npz").exists()


def test_from_json_refuses_what_check_record_refuses(analysed):
    """GameAnalysis.from_json, given an analysis on its own, checks it as a record's is
    checked: one clear RecordError naming the field, never a KeyError or a half-made
    analysis."""
    data, moves = analysed["metadata"]["analysis"], analysed["moves"]
    assert analysis.GameAnalysis.from_json(copy.deepcopy(data), 2, moves).to_json() == data
    for case, (change, needs_replay, message) in NOT_OF_ITS_RECORD.items():
        bad = changed_analysis(analysed, change)["metadata"]["analysis"]
        if needs_replay:
            continue
        with pytest.raises(photocore.RecordError, match=message.replace("ply 4: ", "")):
            analysis.GameAnalysis.from_json(bad, 2, moves)
    junk = [("not an analysis", r"field 'metadata.analysis' must be an object, not a string"),
            ({**data, "values": "x"}, r"field 'metadata.analysis.values' must be an array"),
            ({k: v for k, v in data.items() if k != "best"},
             r"missing field 'metadata.analysis.best'"),
            ({**data, "version": 7}, r"analysis version 7: this photocore reads versions 1 and 2")]
    for bad, message in junk:
        with pytest.raises(photocore.RecordError, match=message):
            analysis.GameAnalysis.from_json(bad, 2, moves)
    with pytest.raises(photocore.RecordError, match=r"'metadata.analysis.player' covers \d+ "
                                                    r"moves, the game has \d+"):
        analysis.GameAnalysis.from_json(data, 2, moves[:-1])
    with pytest.raises(photocore.RecordError, match=r"'metadata.analysis.values\[0\]' must "
                                                    r"hold 3 values"):
        analysis.GameAnalysis.from_json(data, 3, moves)


@pytest.mark.slow
def test_an_analysis_read_with_whole_floats_or_of_a_later_version(analysed, tmp_path):
    """Its players written 1.0 read as ints; a later version's passes as data, left out of
    the sums of stats and refused by replay, in words."""
    floats = changed_analysis(analysed, lambda data: data.update(
        player=[float(p) for p in data["player"]], seed=0.0))
    later = changed_analysis(analysed, lambda data: data.update(version=3))
    for rec, name in ((analysed, "ints"), (floats, "floats"), (later, "later")):
        (tmp_path / f"{name}.jsonl").write_text(json.dumps(rec) + "\n")
    said = {}
    for name in ("ints", "floats", "later"):
        path = tmp_path / f"{name}.jsonl"
        for command in (["stats", path], ["replay", path, "--html", tmp_path / f"{name}.html"]):
            result = CliRunner().invoke(main, [str(a) for a in command])
            assert isinstance(result.exception, SystemExit | None), result.exception
            said[name, command[0]] = result.output.replace(str(tmp_path / name), "FILE")
    assert said["floats", "stats"] == said["ints", "stats"]
    assert said["floats", "replay"] == said["ints", "replay"]
    assert "analysis, greedy:" in said["ints", "stats"]
    assert said["later", "stats"] == said["ints", "stats"].split("\nanalysis, ")[0] + "\n"
    assert said["later", "replay"].startswith("Error: FILE.jsonl:1: analysis version 3")


def test_summarise_by_agent(games):
    recs = [analysis.with_analysis(r, analysis.analyze(r, "mcts:10", seed=0))
            for r in records.read_games(games)]
    rows = analysis.summarise(recs + [first_game(games)])     # the unanalysed one passes
    assert set(rows) == {"greedy", "random"}
    assert rows["greedy"]["games"] == 3
    assert rows["greedy"]["moves"] + rows["random"]["moves"] == sum(
        not p for r in recs for p in r["metadata"]["analysis"]["forced"])
    assert 0 <= rows["random"]["accuracy"] <= 100


@pytest.mark.slow
def test_the_evaluation_plot(games, tmp_path):
    pytest.importorskip("matplotlib")
    from photocore import plots
    result = analysis.analyze(first_game(games), "mcts:10", seed=0)
    figure = plots.evaluations(result, tmp_path / "e.png")
    assert (tmp_path / "e.png").stat().st_size > 10_000 and figure.axes


# ---- the command -----------------------------------------------------------------------

def run(*args):
    return CliRunner().invoke(analyze, [str(a) for a in args])


@pytest.mark.slow
def test_the_command_writes_records_with_their_analysis_and_resumes(games, tmp_path):
    out = tmp_path / "out.jsonl"
    result = run(games, "--agent", "mcts:30", "--workers", "1", "--seed", "4", "--out", out)
    assert result.exit_code == 0, result.output
    assert "3 games" in result.output and "greedy:" in result.output
    analysed = list(records.read_games(out, verify=True))
    assert [r["moves"] for r in analysed] == [r["moves"] for r in records.read_games(games)]
    second = list(records.read_games(games))[1]
    assert analysed[1]["metadata"]["analysis"] == analysis.analyze(
        second, "mcts:30", seed=4, index=1).to_json()
    # a run stopped after its first game, resumed: the same file
    part = tmp_path / "part.jsonl"
    part.write_bytes(out.read_bytes().split(b"\n", 1)[0] + b"\n")
    result = run(games, "--agent", "mcts:30", "--workers", "1", "--seed", "4", "--out", part,
                 "--resume")
    assert result.exit_code == 0, result.output
    assert part.read_bytes() == out.read_bytes()
    # another judge or seed is another run
    result = run(games, "--agent", "mcts:31", "--seed", "4", "--out", part, "--resume")
    assert result.exit_code == 1 and ("cannot resume: game 1 of the output was analysed with "
                                      "judge 'mcts:30', this run's is 'mcts:31' (set by "
                                      "--agent)") in result.output, result.output
    result = run(games, "--agent", "mcts:30", "--out", out)
    assert result.exit_code == 2 and "exists" in result.output
    result = run(games, "--agent", "greedy", "--out", tmp_path / "x.jsonl")
    assert result.exit_code == 2 and "cannot evaluate" in result.output


def test_the_command_tells_a_bad_game_before_it_starts(games, tmp_path):
    """Read as `photocore verify` reads them, every game replayed: a game with an illegal
    move (or a damaged file) stops the run before any worker starts, naming the file, the
    line and the ply, and says how to go on; not with --resume, which would fail alike."""
    good = games.read_text().splitlines()[0]
    bad = json.loads(good)
    bad["moves"][6] = "collect d4"
    illegal = tmp_path / "illegal.jsonl"
    illegal.write_text(f"{good}\n{json.dumps(bad)}\n")
    cut = tmp_path / "cut.jsonl.gz"
    records.write_games(cut, records.read_games(games))
    cut.write_bytes(cut.read_bytes()[:-40])
    for path, where, fix in (
            (illegal, ":2: ply 7: illegal move collect d4",
             f"`photocore verify {illegal}` lists every bad game; leave them out of {illegal} "
             "(or mend them)"),
            (cut, ":3: the compressed stream is damaged",
             f"`photocore repair {cut}` keeps its whole games and drops the rest")):
        out = tmp_path / "out.jsonl"
        result = run(path, "--agent", "mcts:5", "--workers", "1", "--out", out)
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
        (line,) = result.output.splitlines()
        assert line.startswith(f"Error: {path}{where}"), line
        assert line.endswith(f"No game was analysed: {fix}, and run again"), line
        assert "--resume" not in line and not out.exists()


# ---- --serve ---------------------------------------------------------------------------

def serve(*queries, workers=2, judge="mcts:50"):
    source = io.StringIO("".join((q if isinstance(q, str) else json.dumps(q)) + "\n"
                                 for q in queries))
    sink = io.StringIO()
    serve_queries(source, sink, judge, workers, seed=0)
    return [json.loads(line) for line in sink.getvalue().splitlines()]


def test_serve_answers_good_queries():
    game = photocore.Game()
    (answer,) = serve({"id": "a", "moves": ["place a4", "place g1"], "visits": 100})
    game.play("place a4")
    game.play("place g1")
    assert answer["id"] == "a" and answer["judge"] == "mcts:100"
    assert set(answer["moves"]) == {str(m) for m in game.legal_moves()}
    assert sum(answer["visits"].values()) == 99 and len(answer["values"]) == 2
    assert answer["best"] == answer["principal"][0]
    (collect,) = serve({"id": 7, "position": ONE_WINNING_COLLECT, "visits": 2000})
    assert collect["best"] == "collect a4" and collect["player"] == 0


def test_mcts_has_one_default_budget_and_a_query_gets_what_it_names():
    # one parser, one default: `mcts` is mcts:200 in an analysis as in play; the analysis's
    # default judge is written out (mcts:1000); a query gets the budget it names
    assert analysis.judge("mcts").name == specs.parse("mcts").label == "mcts:200"
    assert analysis.DEFAULT_JUDGE == "mcts:1000"
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    assert analysis.evaluate_position(game, exact=False).visits["collect a4"] > 200
    answers = serve({"id": 1, "judge": "mcts:300"}, {"id": 2}, {"id": 3, "judge": "mcts"},
                    judge="mcts:1000")
    by_id = {a["id"]: a for a in answers}
    assert [by_id[i]["judge"] for i in (1, 2, 3)] == ["mcts:300", "mcts:1000", "mcts:200"]
    assert sum(by_id[1]["visits"].values()) == 299


def test_serve_answers_bad_queries_with_an_error_and_goes_on():
    answers = serve('{"id": 1, "moves": [', [1, 2], {"id": 2, "moves": ["grow a4"]},
                    {"id": 3, "moves": ["place q9"]}, {"id": 4, "judge": "greedy"},
                    {"id": 5, "visits": 0}, {"id": 6, "colour": "red"},
                    {"id": 7, "position": "nonsense"}, {"id": 8, "visits": 20})
    by_id = {a["id"]: a for a in answers if a["id"] is not None}
    assert [a for a in answers if a["id"] is None][0]["error"].startswith("malformed JSON")
    assert sum(a["id"] is None for a in answers) == 2            # the bad line, the array
    for ident, reason in ((2, "move 1"), (3, "move 1"), (4, "not allowed"),
                          (5, "visits"), (6, "unknown field"), (7, "position")):
        assert reason in by_id[ident]["error"], by_id[ident]
    assert "error" not in by_id[8] and by_id[8]["judge"] == "mcts:20"


def test_serve_queries_choose_only_among_the_operators_engines(tmp_path, monkeypatch):
    # a query naming code to run is refused before anything is imported or run
    monkeypatch.chdir(tmp_path)
    payload = tmp_path / "payload.py"
    payload.write_text("open('imported.txt', 'w').close()\nclass X:\n    pass\n")
    queries = "".join(json.dumps(q) + "\n" for q in (
        {"id": 1, "judge": 'py:subprocess:getoutput?cmd="id > pwned.txt"'},
        {"id": 2, "judge": f"py:{payload}:X"},
        {"id": 3, "judge": "cmd:touch pwned.txt"},
        {"id": 4, "judge": "mcts:70", "visits": 50},
        {"id": 5, "judge": "mcts:2000"},
        {"id": 6, "visits": 2001}))
    result = CliRunner().invoke(analyze, ["--serve", "--agent", "mcts:50", "--workers", "1",
                                          "--max-visits", "2000"], input=queries)
    assert result.exit_code == 0, result.output
    by_id = {a["id"]: a for a in map(json.loads, result.output.splitlines())}
    for ident in (1, 2, 3):
        assert "not allowed here" in by_id[ident]["error"]
        assert "run code" in by_id[ident]["error"]
    assert not (tmp_path / "pwned.txt").exists() and not (tmp_path / "imported.txt").exists()
    assert by_id[4]["judge"] == "mcts:50" and sum(by_id[4]["visits"].values()) == 49
    assert by_id[5]["judge"] == "mcts:2000"
    assert "from 1 to 2,000" in by_id[6]["error"]
    # a judge the operator allows by name is there to choose; its label is the key
    result = CliRunner().invoke(analyze, ["--serve", "--agent", "mcts:50", "--max-visits", "60",
                                          "--allow", "mcts:100"], input=json.dumps(
                                              {"id": 1, "judge": "mcts:100"}) + "\n")
    assert json.loads(result.output)["judge"] == "mcts:100"
    result = CliRunner().invoke(analyze, ["--serve", "--allow", "py:nowhere:X"], input="")
    assert result.exit_code == 2 and "--allow" in result.output
    payload.write_text("")
    result = CliRunner().invoke(analyze, [str(payload), "--allow", "mcts:100"])
    assert result.exit_code == 2 and "only with --serve" in result.output


def test_serve_refuses_json_constants_and_answers_valid_json():
    (answer,) = serve('{"id": NaN, "visits": 10}')
    assert answer["id"] is None and "NaN is not JSON" in answer["error"]
    (answer,) = serve('{"id": 1, "visits": Infinity}')
    assert answer["error"] == "field 'visits': Infinity is not JSON"
    (answer,) = serve('{"id": 1, "id": 2}')             # read as records are: strictly
    assert answer["error"] == "field 'id' is written twice in one object"


def test_serve_answers_every_line_exactly_once_whatever_it_holds():
    # each line gets one answer, an error naming what is wrong, and the judge goes on:
    # a RecursionError ended the command, and 1e400 read as Infinity silenced it
    deep = ['{"id":' + "[" * n + "]" * n + ',"visits":5}' for n in range(980, 1010)]
    lines = ["[" * 100_000, '{"id": 1e400, "visits": 5}', '{"id": 1, "visits": -1e999}',
             '{"id": 2, "position": 1e400}', *deep, '{"id": "last", "visits": 5}']
    result = CliRunner().invoke(analyze, ["--serve", "--agent", "mcts:50", "--workers", "2"],
                                input=b"".join(line.encode() + b"\n" for line in lines)
                                + b'\xff{"id": 3}\n')
    assert result.exit_code == 0, result.output
    answers = [json.loads(line) for line in result.output.splitlines()]
    assert len(answers) == len(lines) + 1
    errors = [a["error"] for a in answers if "error" in a]
    assert "malformed JSON: nested too deeply" in errors
    assert "field 'id': 1e400 is not a finite number" in errors
    assert "field 'visits': -1e999 is not a finite number" in errors
    assert "field 'position': 1e400 is not a finite number" in errors
    assert "the line is not UTF-8 (invalid start byte at byte 0)" in errors
    assert any(a["id"] == "last" and "best" in a for a in answers)
    deep_answers = [a for a in answers if isinstance(a["id"], list) or
                    "nested too deeply" in a.get("error", "") or
                    "cannot be written" in a.get("error", "")]
    assert len(deep_answers) == len(deep) + 1


def test_serve_reads_past_a_query_line_too_long_to_keep():
    stream = io.BytesIO(b'{"id": 1}\n' + b"x" * 100 + b"\n" + b"y" * 50 + b'\n{"id": 2}')
    assert list(query_lines(stream, limit=60)) == [b'{"id": 1}\n', None, b"y" * 50 + b"\n",
                                                   b'{"id": 2}']
    sink = io.StringIO()
    serve_queries([None, '{"id": 2, "visits": 5}'], sink, "mcts:50", 1, seed=0)
    first, second = map(json.loads, sink.getvalue().splitlines())
    assert first == {"id": None, "error": "a query line longer than 1024 KiB"}
    assert second["id"] == 2


@pytest.mark.slow
def test_serve_reads_no_further_than_4_queries_a_worker_ahead():
    # a client writing faster than the judge answers waits, rather than fill the memory
    sink, ahead = io.StringIO(), []

    def source():
        for i in range(30):
            ahead.append(i - sink.getvalue().count("\n"))
            yield json.dumps({"id": i, "visits": 3000}) + "\n"

    serve_queries(source(), sink, "mcts:50", 1, seed=0)
    assert sink.getvalue().count("\n") == 30
    assert max(ahead) == 4


def test_serve_on_ctrl_c_stops_at_once_and_answers_nothing_more():
    # the search under way stops where it is (it ran to its end, 53 s for two big queries)
    import time

    from photocore.play._agents import searches_interrupted

    def source():
        yield json.dumps({"id": "slow", "visits": 1_000_000}) + "\n"
        yield from (json.dumps({"id": i, "visits": 10}) + "\n" for i in range(3))
        time.sleep(0.3)             # the slow search under way
        raise KeyboardInterrupt

    sink = io.StringIO()
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        serve_queries(source(), sink, "mcts:50", 1, seed=0, exact=False)
    assert time.monotonic() - start < 3
    assert sink.getvalue() == ""
    assert not searches_interrupted()       # the next search runs
    assert serve({"id": "x", "visits": 10})[0]["id"] == "x"


@pytest.mark.slow
def test_serve_answers_out_of_order_as_queries_finish():
    answers = serve({"id": "slow", "visits": 400_000}, {"id": "quick", "visits": 10})
    assert [a["id"] for a in answers] == ["quick", "slow"]
    assert serve({"id": "x", "visits": 30, "seed": 3}) == serve({"id": "x", "visits": 30,
                                                                 "seed": 3})


@pytest.mark.slow
def test_analyze_on_ray_gives_the_analysis_of_local_workers(ray_instance, tmp_path):
    from photocore.run.selfplay import Series
    games = tmp_path / "g.jsonl"
    lines, _ = Series(4, agents=["greedy", "random"], seed=3).batch(0, 4)
    games.write_bytes(b"".join(lines))
    outs = {}
    for backend, extra in (("local", ["--workers", "2"]), ("ray", [])):
        out = tmp_path / f"{backend}.jsonl"
        result = CliRunner().invoke(analyze, [str(games), "--agent", "mcts:30", "--out",
                                              str(out), "--backend", backend, "--seed", "5",
                                              *extra])
        assert result.exit_code == 0, result.output
        outs[backend] = out.read_bytes()
    assert outs["ray"] == outs["local"] and outs["local"].count(b"\n") == 4
