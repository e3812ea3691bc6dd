"""The solver in an analysis (photocore.analysis.exact_evaluation, a Limit's nodes, `--nodes`):
exact moves with exact losses where it finishes, the judge elsewhere; the record field (version 2,
version 1 still read), the viewer's mark and the exact answers of `photocore analyze
--serve`."""

import copy
import io
import json
import math
import re

import pytest
from click.testing import CliRunner

import photocore
from photocore import analysis, records, viewer
from photocore.cli.analyze import analyze
from photocore.serve.queries import serve_queries
from photocore.run.selfplay import Series
from support import exhaustive, seat_values

# the last round, player 0 to move with light for one collect: collecting a4 wins the game,
# anything else loses it (tests/runs/test_analysis.py)
ONE_WINNING_COLLECT = (
    "2 - 18 5 1 0 d6,e5,f5 a4:0:3,a5:1:1,a7:0:0,b4:1:1,b6:0:1,b7:0:0,c3:1:1,c4:1:0,c5:1:1,"
    "c6:0:1,d3:1:1,d5:1:0,d6:0:1,e2:1:0,e3:1:1,e5:0:0,f3:0:1,f4:0:1,g4:0:0 6/0000/0031/"
    "14.14.13 3/0000/1132/13.13.19 0474")


@pytest.fixture(scope="module")
def game_record():
    """A finished game of greedy against random, its last rounds solvable."""
    (line,), _ = Series(1, agents=["greedy", "random"], seed=3).batch(0, 1)
    return json.loads(line)


@pytest.fixture(scope="module")
def exact_analysis(game_record):
    return analysis.analyze(game_record, "mcts:20", seed=0)


# ---- known answers ---------------------------------------------------------------------

def test_a_losing_move_of_the_last_round_is_an_exact_blunder():
    start = photocore.Game.from_position(ONE_WINNING_COLLECT)
    expected = {}
    for move in start.legal_moves():        # player 0 moves: their (result, margin) after it
        child = start.copy()
        child.play(move)
        expected[str(move)] = (seat_values(child) if child.is_over
                               else exhaustive(child, {}, [10 ** 6]))[0]
    assert expected == {"buy medium": (-1.0, -4), "buy large": (-1.0, -5),
                        "collect a4": (1.0, 7), "end": (-1.0, -3)}
    game = start.copy()
    game.play("end")                        # a loss by 3 where collect a4 wins by 7
    (ply,) = analysis.analyze(game, "mcts:20", seed=0).plies
    assert ply.exact and not ply.forced
    assert (ply.best, ply.best_value, ply.best_margin) == ("collect a4", 1.0, 7)
    assert (ply.played_value, ply.played_margin) == (-1.0, -3)
    assert ply.loss == 2.0 and ply.win_loss == 1.0 and ply.label == "blunder"
    assert ply.values == (1.0, -1.0)        # the position's exact values, by seat
    # the best move played: no loss, exact
    best = start.copy()
    best.play("collect a4")
    (ply,) = analysis.analyze(best, "mcts:20", seed=0).plies
    assert ply.exact and ply.loss == 0 and ply.label is None and ply.played_margin == 7
    # without the solver the same ply is the judge's, not exact
    (ply,) = analysis.analyze(game, "mcts:20", seed=0, exact=False).plies
    assert not ply.exact and ply.best_margin is None and ply.played_margin is None


def test_exact_evaluation_gives_the_solvers_values_or_nothing():
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    exact = analysis.exact_evaluation(game)
    solution = photocore.solve(game)
    assert exact.exact and exact.visits == {} and exact.player == solution.player == 0
    assert exact.moves == {str(m): float(r) for m, (r, _) in solution.moves.items()}
    assert exact.margins == {str(m): d for m, (_, d) in solution.moves.items()}
    assert exact.best == "collect a4" and exact.values == solution.returns == (1.0, -1.0)
    assert analysis.exact_evaluation(game, None) is None            # asked for no solver
    assert analysis.exact_evaluation(game, 1) is None               # not finished in 1 position
    assert analysis.exact_evaluation(photocore.Game()) is None      # the setup: not tried
    assert analysis.solvable(game) and analysis.solvable(photocore.Game(3))
    over = game.copy()
    while not over.is_over:
        over.play(over.legal_moves()[0])
    assert not analysis.solvable(over) and analysis.exact_evaluation(over) is None


def test_the_solver_values_the_last_rounds_from_the_end_back(game_record, exact_analysis):
    """Each exact ply's numbers are the solver's own for its position; the exact plies run
    from the end back to the first unforced position it does not finish within the budget
    (or to the last two rounds' start), and every ply before is the judge's."""
    games = list(records.positions(game_record))
    plies = exact_analysis.plies
    exact = [p for p in plies if p.exact]
    assert len(exact) >= 5 and exact_analysis.solve_nodes == analysis.DEFAULT_SOLVE_NODES
    first = exact[0].ply
    assert all(p.exact or p.forced for p in plies[first - 1:])
    assert not any(p.exact for p in plies[:first - 1])
    before = next(p for p in reversed(plies[:first - 1]) if not p.forced)
    game = games[before.ply - 1]
    assert (game.last_round - game.round >= analysis.SOLVE_ROUNDS
            or not photocore.solve(game, photocore.Limit(nodes=analysis.DEFAULT_SOLVE_NODES)).solved)
    for ply in exact:
        solution = photocore.solve(games[ply.ply - 1])
        result, margin = solution.moves[photocore.Move.parse(ply.move)]
        assert (ply.played_value, ply.played_margin) == (result, margin)
        assert (ply.best_value, ply.best_margin) == (solution.result, solution.margin)
        assert ply.best == str(solution.best[0]) and ply.values == solution.returns
        assert ply.loss == solution.result - result
    # the analysis ends on the game's result, exact, as before
    assert exact_analysis.values[-1] == games[-1].returns()


def test_a_budget_too_small_leaves_every_ply_to_the_engine(game_record, exact_analysis):
    tiny = analysis.analyze(game_record, "mcts:20", photocore.Limit(nodes=1), seed=0)
    judge_only = analysis.analyze(game_record, "mcts:20", seed=0, exact=False)
    assert not any(p.exact for p in tiny.plies)
    assert tiny.plies == judge_only.plies and tiny.values == judge_only.values
    assert tiny.solve_nodes == 1 and judge_only.solve_nodes is None
    # before the exact plies, the judge's numbers are the same with the solver or without
    first = next(p.ply for p in exact_analysis.plies if p.exact)
    assert exact_analysis.plies[:first - 1] == judge_only.plies[:first - 1]


def test_three_players_are_solved_at_the_end():
    # max^n: every seat's return, the mover's move values theirs
    (line,), _ = Series(1, players=3, agents=["greedy", "random", "random"],
                        seed=1).batch(0, 1)
    record = json.loads(line)
    result = analysis.analyze(record, "mcts:10", seed=0)
    exact = [p for p in result.plies if p.exact]
    assert exact and all(p.ply > len(record["moves"]) - 40 for p in exact)
    last = exact[-1]
    solution = photocore.solve(photocore.records.from_record(record, last.ply - 1))
    assert last.values == solution.returns and len(solution.returns) == 3


@pytest.mark.parametrize("budget", [0, -5, math.nan, 1.5, True, "1000"])
def test_a_bad_budget_is_one_error_naming_the_option(budget):
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    with pytest.raises(ValueError, match=r"^Limit nodes must be a whole number >= 1"):
        photocore.Limit(nodes=budget)
    with pytest.raises(ValueError, match=r"^nodes: the positions the solver may visit must "
                                         r"be a whole number from 1 to 2\*\*63 - 1"):
        analysis.exact_evaluation(game, budget)
    # past the solver's most, which a Limit does not know
    for call in (lambda: analysis.analyze(game, "mcts:10", photocore.Limit(nodes=2**63)),
                 lambda: analysis.evaluate_position(game, "mcts:10",
                                                    photocore.Limit(nodes=2**63))):
        with pytest.raises(ValueError, match=r"^nodes: the positions the solver may visit"):
            call()


# ---- the record ------------------------------------------------------------------------

def test_the_record_keeps_exact_and_the_margins(game_record, exact_analysis):
    rec = analysis.with_analysis(game_record, exact_analysis)
    data = rec["metadata"]["analysis"]
    assert data["version"] == analysis.ANALYSIS_VERSION == 2
    assert data["solve_nodes"] == analysis.DEFAULT_SOLVE_NODES
    assert data["exact"] == [p.exact for p in exact_analysis.plies]
    back = analysis.of_record(json.loads(records.record_line(rec)))
    assert back.to_json() == data and back.solve_nodes == exact_analysis.solve_nodes
    assert [(p.exact, p.best_margin, p.played_margin) for p in back.plies] == [
        (p.exact, p.best_margin, p.played_margin) for p in exact_analysis.plies]
    assert sum(p.exact for p in back.plies) >= 5


def test_version_1_still_reads(game_record, exact_analysis):
    old = dict(exact_analysis.to_json(), version=1)
    for name in ("solve_nodes", "exact", "best_margin", "played_margin"):
        del old[name]
    rec = dict(game_record, metadata=dict(game_record["metadata"], analysis=old))
    records.check_record(rec)
    list(records.positions(rec))                             # its moves checked on replay
    read = analysis.of_record(rec)
    assert read.solve_nodes is None and not any(p.exact for p in read.plies)
    assert all(p.best_margin is p.played_margin is None for p in read.plies)
    assert [p.loss for p in read.plies] == [round(p.loss, 4) for p in exact_analysis.plies]
    assert set(analysis.summarise([rec])) == {"greedy", "random"}
    # version 1 is what it was: no field of version 2 in it
    with pytest.raises(photocore.RecordError, match="unknown field 'metadata.analysis.exact'"):
        records.check_record(copy.deepcopy(dict(rec, metadata=dict(
            rec["metadata"], analysis=dict(old, exact=[False] * len(old["best"]))))))


def test_version_2_fields_are_checked(game_record, exact_analysis):
    data = exact_analysis.to_json()
    moves = len(game_record["moves"])
    for change, message in (({"exact": data["exact"][:-1]},
                             f"'metadata.analysis.exact' covers {moves - 1} moves"),
                            ({"played_margin": data["played_margin"][1:]},
                             f"'metadata.analysis.played_margin' covers {moves - 1} moves"),
                            ({"exact": ["yes"] + data["exact"][1:]},
                             "'metadata.analysis.exact[0]' must be true or false"),
                            ({"solve_nodes": 0},
                             "'metadata.analysis.solve_nodes' must be at least 1"),
                            ({"best_margin": None}, "'metadata.analysis.best_margin'")):
        bad = dict(game_record, metadata=dict(game_record["metadata"],
                                              analysis=dict(data, **change)))
        with pytest.raises(photocore.RecordError, match=re.escape(message)):
            records.check_record(copy.deepcopy(bad))
    # a margin written 3.0 reads as the integer
    floats = dict(data, best_margin=[None if m is None else float(m)
                                     for m in data["best_margin"]])
    rec = dict(game_record, metadata=dict(game_record["metadata"], analysis=floats))
    records.check_record(rec)
    assert all(type(m) is int for m in floats["best_margin"] if m is not None)


# ---- the viewer ------------------------------------------------------------------------

def test_the_viewer_marks_the_exact_moves(game_record, exact_analysis):
    page = viewer.page(analysis.with_analysis(game_record, exact_analysis))
    exact = [p for p in exact_analysis.plies if p.exact]
    assert page.count('<span class="exact"') == len(exact)
    assert page.count('<rect class="exact"') == len(exact)
    assert "exact: solved" in page                          # the chart's legend
    for ply in exact:
        item = page.split(f'<li data-ply="{ply.ply}" ')[1].split("</li>")[0]
        assert '<span class="exact" title="valued exactly by the solver">exact</span>' in item
        assert f"<title>{ply.ply}. {ply.move}: exact (solved)</title>" in page
    ply = exact[-1]
    winner = "wins" if ply.played_value == 1 else "loses"
    assert f'"note":"{ply.ply}. {ply.move}: good, exact: {winner} by ' in page
    inexact = next(p for p in exact_analysis.plies if not p.exact and not p.forced)
    item = page.split(f'<li data-ply="{inexact.ply}" ')[1].split("</li>")[0]
    assert "exact" not in item


def test_the_evaluation_chart_shades_the_exact_plies(game_record, exact_analysis, tmp_path):
    pytest.importorskip("matplotlib")
    from photocore import plots
    exact = [p.ply for p in exact_analysis.plies if p.exact]
    spans = plots.exact_spans(exact_analysis)
    assert exact and [k for first, last in spans for k in range(first, last + 1)] == exact
    figure = plots.evaluations(exact_analysis, tmp_path / "e.png")
    shaded = [patch.get_x() for patch in figure.axes[0].patches]
    assert shaded == [first - 0.5 for first, _ in spans]
    labels = figure.axes[0].get_legend_handles_labels()[1]
    assert f"exact ({len(exact)})" in labels
    judge_only = analysis.analyze(game_record, "mcts:20", seed=0, exact=False)
    assert not plots.evaluations(judge_only).axes[0].patches


def test_the_note_of_an_exact_blunder():
    game = photocore.Game.from_position(ONE_WINNING_COLLECT)
    game.play("end")
    (ply,) = analysis.analyze(game, "mcts:20", seed=0).plies
    assert viewer._note(ply, 2) == ("1. end: blunder, exact: loses by 3 points under best "
                                    "play; collect a4 wins by 7 points (loses 100% of a win)")


# ---- the command and --serve -------------------------------------------------------------

@pytest.mark.slow
def test_the_command_solves_unless_told_not_to(game_record, tmp_path):
    games = tmp_path / "games.jsonl"
    records.write_games(games, [game_record])
    exact_counts = {}
    for name, options in (("default", []), ("none", ["--no-solve"]),
                          ("tiny", ["--nodes", "1"])):
        out = tmp_path / f"{name}.jsonl"
        result = CliRunner().invoke(analyze, [str(games), "--agent", "mcts:20", "--workers",
                                              "1", "--out", str(out), *options])
        assert result.exit_code == 0, result.output
        (rec,) = records.read_games(out, verify=True)
        data = rec["metadata"]["analysis"]
        exact_counts[name] = (data["solve_nodes"], sum(data["exact"]))
    assert exact_counts["default"][0] == analysis.DEFAULT_SOLVE_NODES
    assert exact_counts["default"][1] >= 5
    assert exact_counts["none"] == (None, 0) and exact_counts["tiny"] == (1, 0)
    # the solver's budget is part of a run: --resume checks it
    result = CliRunner().invoke(analyze, [str(games), "--agent", "mcts:20", "--out",
                                          str(tmp_path / "none.jsonl"), "--resume"])
    assert result.exit_code == 1 and "solve" in result.output and "--nodes" in result.output


@pytest.mark.parametrize(("options", "message"), [
    (["--nodes", "-3"], "Invalid value for '--nodes': -3 is not in the range x>=1"),
    (["--nodes", "nan"], "Invalid value for '--nodes': 'nan' is not a valid integer"),
    (["--nodes", "10", "--no-solve"], "--nodes N or --no-solve: not both")])
def test_the_command_refuses_a_bad_budget(game_record, tmp_path, options, message):
    games = tmp_path / "games.jsonl"
    records.write_games(games, [game_record])
    result = CliRunner().invoke(analyze, [str(games), "--out", str(tmp_path / "o.jsonl"),
                                          *options])
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "o.jsonl").exists()


def serve(*queries, exact=True):
    source = io.StringIO("".join(json.dumps(q) + "\n" for q in queries))
    sink = io.StringIO()
    serve_queries(source, sink, "mcts:50", 1, seed=0, exact=exact)
    return {a["id"]: a for a in map(json.loads, sink.getvalue().splitlines())}


def test_serve_answers_exact_where_the_solver_finishes():
    answers = serve({"id": "end", "position": ONE_WINNING_COLLECT}, {"id": "start"})
    end = answers["end"]
    assert end["exact"] is True and end["visits"] == {} and end["judge"] == "mcts:50"
    assert end["moves"] == {"buy medium": -1.0, "buy large": -1.0, "collect a4": 1.0,
                            "end": -1.0}
    assert end["margins"] == {"buy medium": -4, "buy large": -5, "collect a4": 7, "end": -3}
    assert end["best"] == "collect a4" and end["values"] == [1.0, -1.0]
    start = answers["start"]
    assert start["exact"] is False and start["margins"] == {} and start["visits"]
    # --no-solve: the judge's answer
    (judge,) = serve({"id": 1, "position": ONE_WINNING_COLLECT}, exact=False).values()
    assert judge["exact"] is False and sum(judge["visits"].values()) == 49
    result = CliRunner().invoke(analyze, ["--serve", "--agent", "mcts:50", "--workers", "1",
                                          "--no-solve"], input=json.dumps(
                                              {"id": 1, "position": ONE_WINNING_COLLECT}) + "\n")
    assert json.loads(result.output)["exact"] is False
