"""Engine speed: random playouts, the Python move loop, legal_moves, copy, play+undo, light,
perft. The workloads are benchmarks/bench.py's: each checks its result and is set beside
the plain-Python reference (python/photoref.py) doing the same work.

    pytest benchmarks/ --benchmark-enable       # timed
    pytest benchmarks/ --benchmark-disable      # each once, checked
"""

import itertools

import bench
import pytest

from photocore.facts import Options

POSITIONS = 200


@pytest.mark.benchmark(group="playouts")
@pytest.mark.parametrize("players,options",
                         list(itertools.product((2, 3, 4), ("-", "f", "s", "fs"))))
def test_random_playouts(measure, players, options):
    measure(bench.Playouts(players, Options.parse(options), games=20_000, reference_games=10),
            rounds=3)


@pytest.mark.benchmark(group="python loop")
def test_python_move_loop(measure):
    measure(bench.PythonLoop(2, moves=100_000, reference_moves=5_000), rounds=3)


@pytest.mark.benchmark(group="move generation")
def test_legal_moves(measure):
    measure(bench.LegalMoves(POSITIONS), rounds=20)


@pytest.mark.benchmark(group="copy")
@pytest.mark.parametrize("history", [True, False], ids=["history", "no_history"])
def test_copy(measure, history):
    measure(bench.Copy(POSITIONS, history=history), rounds=20)


@pytest.mark.benchmark(group="play+undo")
def test_play_undo(measure):
    measure(bench.PlayUndo(POSITIONS), rounds=20)


@pytest.mark.benchmark(group="light")
def test_light(measure):
    """play(end) + undo() where the end closes a round and runs photosynthesis."""
    measure(bench.PlayUndo(POSITIONS, light=True), rounds=20)


@pytest.mark.benchmark(group="perft")
def test_perft_bulk_every_seed(measure):
    """Game.perft of every position of seeds/perft.txt at its deepest count (photoref would
    take hours: no speed-up here; the next test has one)."""
    measure(bench.Perft(bench.perft_cases(None, names=None), bulk=True), rounds=3)


@pytest.fixture(scope="module")
def reference_perft():
    return bench.ReferencePerft(bench.perft_cases(6))


@pytest.mark.benchmark(group="perft")
@pytest.mark.parametrize("bulk", [True, False], ids=["perft_bulk", "perft_full_python"])
def test_perft(measure, reference_perft, bulk):
    """Bulk leaf counting in C, and every leaf visited by Python recursion over copy + play,
    on the same positions and depths as photoref's perft."""
    measure(bench.Perft(reference_perft.cases, bulk=bulk, reference_perft=reference_perft),
            rounds=5)
