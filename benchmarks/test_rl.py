"""Learner-steps per second of the Gymnasium environments, and masked action sampling.

    pytest benchmarks/test_rl.py --benchmark-enable -s

A learner step is one action of the learner, with the opponents' whole turns that follow
it, and its observation and mask written. Each environment's figure comes with its ratio to
plain VecGame.step (random actions for every seat, no opponents) timed in the same test.
The learner plays uniformly random legal actions (VecGame.random_actions), 2 players,
`random` opponents, seat drawn per game. The sampling figures are per 256 x 890 batch.
"""

import time

import numpy as np
import pytest

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE

gym = pytest.importorskip("photocore.env.gym")

STEPS = 200


def plain_vecgame(n, steps=STEPS):
    """The baseline: VecGame.step of n games, every seat random, outputs reused."""
    env = photocore.VecGame(n, 2)
    outputs = (np.empty((n, OBSERVATION_SIZE), np.float32), np.empty((n, NUM_ACTIONS), bool),
               np.empty((n, 2), np.float32), np.empty(n, bool))
    actions = np.empty(n, np.int64)
    env.reset(seed=0, obs=outputs[0], mask=outputs[1])

    def run():
        for _ in range(steps):
            env.step(env.random_actions(out=actions), *outputs)
        return n * steps
    return run


def vector_env(n, threads=1, copy=False, opponents="random"):
    envs = gym.PhotosynthesisVectorEnv(n, opponents=opponents, copy=copy, threads=threads)
    envs.reset(seed=0)
    actions = np.empty(n, np.int64)

    def run():
        ended = 0
        for _ in range(STEPS):
            envs.vec.random_actions(out=actions)
            assert envs.action_masks()[np.arange(n), actions].all()
            ended += envs.step(actions)[2].sum()
        assert ended > 0
        return n * STEPS
    return run


def single_env(steps=20_000, opponents="random"):
    env = gym.PhotosynthesisEnv(opponents=opponents)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def run():
        for _ in range(steps):
            legal = np.flatnonzero(env.action_masks())
            if env.step(legal[rng.integers(len(legal))])[2]:
                env.reset()
        return steps
    return run


def rate(timed, run, rounds=3):
    """Steps per second of the fastest round: through pytest-benchmark (`timed`, once per
    test) or, for a test's other figures, timed here."""
    if timed is not None:
        seconds, steps, _ = timed(run, rounds=rounds, warmup=True)
        return steps / seconds
    run()
    best = 0.0
    for _ in range(rounds):
        start = time.perf_counter()
        steps = run()
        best = max(best, steps / (time.perf_counter() - start))
    return best


@pytest.mark.benchmark(group="rl")
@pytest.mark.parametrize("n,threads,copy", [(256, 1, False), (1024, 1, False), (1024, 1, True),
                                           (1024, 2, False)])
def test_vector_env_learner_steps(timed, report, n, threads, copy):
    steps = rate(timed, vector_env(n, threads, copy))
    base = rate(None, plain_vecgame(n))
    report(f"PhotosynthesisVectorEnv({n:,}, opponents='random', threads={threads}, "
           f"copy={copy}): {steps / 1e6:.2f} M learner-steps/s = {steps / base:.2f} x plain "
           f"VecGame.step ({base / 1e6:.2f} M game-steps/s, same n, one thread)")


@pytest.mark.benchmark(group="rl")
@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_single_env_learner_steps(timed, report, opponents):
    steps = rate(timed, single_env(opponents=opponents))
    base = rate(None, plain_vecgame(1024, steps=40))
    report(f"PhotosynthesisEnv(opponents={opponents!r}), learner: np.flatnonzero(mask) + "
           f"a random choice: {steps / 1e3:.1f} k learner-steps/s = {steps / base:.4f} x "
           f"plain VecGame.step ({base / 1e6:.2f} M game-steps/s)")


@pytest.mark.benchmark(group="rl")
def test_masked_sampling(timed, report):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                 # as VecGame.sample_actions: one thread
    n = 256
    env = photocore.VecGame(n)
    env.reset(seed=1)
    for _ in range(30):                      # into the game: more legal moves than at setup
        env.step(env.random_actions())
    mask = torch.from_numpy(env.step(env.random_actions())[1].copy())
    logits = torch.randn(n, NUM_ACTIONS)
    rows = torch.arange(n)

    def categorical():
        masked = logits.masked_fill(~mask, float("-inf"))
        return torch.distributions.Categorical(logits=masked).sample()

    def gumbel():
        masked = logits.masked_fill(~mask, float("-inf"))
        return (masked - torch.empty_like(logits).exponential_().log()).argmax(dim=1)

    def vecgame():
        return torch.from_numpy(env.sample_actions(logits))

    times = {}
    for name, sample in [("VecGame.sample_actions", vecgame), ("torch Gumbel-max", gumbel),
                         ("torch Categorical(logits=masked).sample()", categorical)]:
        assert mask[rows, sample()].all()
        if not times:
            seconds, _, _ = timed(lambda: [sample() for _ in range(20)], rounds=5)
        else:
            seconds = 20 / rate(None, lambda: [sample() for _ in range(20)] and 20, rounds=5)
        times[name] = seconds / 20
    torch.set_num_threads(threads)
    base = times["torch Categorical(logits=masked).sample()"]
    report(f"masked sampling, {n} x {NUM_ACTIONS} float32 logits, one thread: " + ", ".join(
               f"{name} {t * 1e3:.3f} ms ({base / t:.1f} x)" for name, t in times.items()))
