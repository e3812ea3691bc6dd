"""Solved positions (photocore.play.ground_truth, seeds/solved.jsonl): the committed ground truth
checked against the solver, players scored on it, bad sets refused."""

import json
import pathlib
import random

import pytest
from click.testing import CliRunner

import photocore
from photocore import Game, Move
from photocore.cli import main
from photocore.errors import RecordError
from photocore.play import ground_truth
from support import COLLECT_THEN_END, END_WINS

SET = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "solved.jsonl"


class Perfect:
    """Plays a best move of the solver's: keeps every result and margin."""

    def select(self, game):
        return photocore.solve(game).best[0]


class Worst:
    """Plays a move of the worst result the solver finds."""

    def select(self, game):
        moves = photocore.solve(game).moves
        return min(moves, key=lambda m: (moves[m], int(m)))


def entry(text, source="test"):
    solution = photocore.solve(Game.from_position(text))
    optimal = tuple(m for m in solution.best if solution.moves[m][1] == solution.margin)
    return ground_truth.SolvedPosition(text, solution.result, solution.margin, tuple(solution.best),
                                 optimal, len(solution.moves), source)


@pytest.mark.slow
def test_the_committed_set_is_what_the_solver_says():
    positions = ground_truth.read(SET)
    assert len(positions) >= 2000
    assert all(Game.from_position(p.position).players == 2 for p in positions)
    # every position has something to get wrong, and many a result to lose
    assert all(len(p.optimal) < p.legal for p in positions)
    assert sum(len(p.best) < p.legal for p in positions) >= 200
    for p in random.Random(7).sample(positions, 30):
        again = entry(p.position, p.source)
        assert again == p, p.source


def test_a_perfect_player_keeps_everything_and_the_worst_nothing(tmp_path):
    positions = [entry(COLLECT_THEN_END), entry(END_WINS)]
    perfect = ground_truth.score("py:test_ground_truth:Perfect", positions)
    assert (perfect.positions, perfect.contested, perfect.kept, perfect.optimal) == (2, 2, 2, 2)
    assert perfect.accuracy()[0] == 1.0 and perfect.accuracy()[1] < 1.0     # Wilson's low end
    worst = ground_truth.score("py:test_ground_truth:Worst", positions)
    assert (worst.contested, worst.kept, worst.optimal) == (2, 0, 0)
    # collect d4 is COLLECT_THEN_END's one best move of 45: greedy takes it
    greedy = ground_truth.score("greedy", positions[:1])
    assert (greedy.kept, greedy.optimal) == (1, 1)
    assert positions[0].best == (Move.parse("collect d4"),) and positions[0].legal == 45
    # written and read back the same
    ground_truth.write(tmp_path / "set.jsonl", positions)
    assert ground_truth.read(tmp_path / "set.jsonl") == positions


def test_the_command_scores_an_agent(tmp_path):
    path = tmp_path / "set.jsonl"
    ground_truth.write(path, [entry(COLLECT_THEN_END), entry(END_WINS)])
    run = CliRunner().invoke
    done = run(main, ["solve", str(path), "--agent", "py:test_ground_truth:Perfect",
                      "--summary", tmp_path / "score.json"])
    assert done.exit_code == 0, done.output
    answer = json.loads((tmp_path / "score.json").read_text())
    assert (answer["positions"], answer["contested"], answer["kept"], answer["accuracy"]) == \
        (2, 2, 2, 1.0)
    done = run(main, ["solve", str(path), "--agent", "py:test_ground_truth:Worst",
                      "--positions", "1"])
    assert done.exit_code == 0, done.output
    assert "kept the result in 0 of 1 positions where a move loses it, 0.0%" in done.output
    # bad input: one clear message each
    done = run(main, ["solve", str(path), "--agent", "mcts:x"])
    assert done.exit_code == 1 and "mcts:x" in done.output
    golden = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "golden.jsonl"
    done = run(main, ["solve", str(golden), "--agent", "greedy"])
    assert done.exit_code == 1 and "golden.jsonl, line 1: a solved position is an object " \
        "with exactly the fields" in done.output


@pytest.mark.parametrize("change, reason", [
    ({"result": 2}, "result must be -1, 0 or 1"),
    ({"legal": 44}, "legal must be 45, the number of legal moves"),
    ({"best": ["collect a4"]}, "a best move is not legal"),
    ({"optimal": ["end"]}, "optimal must be some of the best moves"),
    ({"best": ["collect x9"]}, "collect x9"),
    ({"position": "2 - 18"}, "has 11 fields, got 3"),
])
def test_a_corrupt_set_is_refused_naming_the_line(tmp_path, change, reason):
    good = entry(COLLECT_THEN_END).to_json()
    path = tmp_path / "set.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(good | change) + "\n")
    with pytest.raises(RecordError, match=f"set.jsonl, line 2: .*{reason}"):
        ground_truth.read(path)
