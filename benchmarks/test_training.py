"""What self-play and training loops run: VecGame.step, MCTS search, self-play workers.

    pytest benchmarks/test_training.py --benchmark-enable

photoref has none of these, so there is no speed-up; each still checks its result.
"""

import bench
import pytest

from photocore.run import speed


@pytest.mark.benchmark(group="VecGame")
def test_vec_step(measure):
    measure(bench.VecStep(steps=500, games=1024))


@pytest.mark.benchmark(group="mcts")
def test_mcts_simulations(measure):
    measure(bench.Mcts(positions=50, simulations=1_000), rounds=3)


@pytest.mark.benchmark(group="self-play")
@pytest.mark.parametrize("workers", [1, 2])
def test_selfplay(measure, workers):
    measure(speed.SelfPlay(20_000, workers=workers), rounds=3)
