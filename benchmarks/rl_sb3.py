"""MaskablePPO's learner-steps per second, updates included: photocore's SB3 vector env
(photocore.env.sb3.VecEnv) against the DummyVecEnv recipe of single environments.

    nice python benchmarks/rl_sb3.py                  # 256 games against 8 environments
    nice python benchmarks/rl_sb3.py --rounds 5 --json out.json

Each side trains a fresh MaskablePPO (MLP 256 x 256, 4 epochs, torch on one thread, the
learner's seat drawn per game, `greedy` opponents) for `--rollouts` rollouts of 4,096
learner steps, and the figure is learner steps over the time of `learn()`: collecting the
rollouts and the gradient updates. The sides:

- `dummy`: DummyVecEnv over 8 `Monitor(gymnasium.make("photocore/Photosynthesis-v0"))`,
  n_steps 512, minibatches of 256 (what examples/rl/maskable_ppo.py did before);
- `vecenv`: `VecMonitor(photocore.env.sb3.VecEnv(256))`, n_steps 16, minibatches of 256:
  the same rollouts and updates, only the environment differs;
- `vecenv-1024`: the same environment with minibatches of 1,024 (fewer, larger gradient
  steps: what examples/rl/maskable_ppo.py now trains with).

`--env-only` times the environments alone as MaskablePPO drives them, without a network:
per step `get_action_masks(env)` (sb3-contrib's), a random legal action per game picked in
numpy from the masks, and `env.step`, for `--env-steps` learner steps.

The sides alternate within each round, so that a machine busy for a while slows them alike;
each figure is the median over rounds of wall-clock steps/s, with CPU-time steps/s beside it
(this process's CPU seconds: what other jobs take from a shared machine is not counted). The
ratios are taken round by round against `dummy`.

A study beside the registry of benchmarks/bench.py (docs/speed.md): MaskablePPO's training,
rollouts and updates, side by side: figures of its own, not one figure beside a baseline as
a workload of the registry gives.
"""

import argparse
import json
import os
import statistics
import time

import gymnasium
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

import photocore
import photocore.env.gym  # noqa: F401  (registers photocore/Photosynthesis-v0)
from photocore.env.sb3 import VecEnv

ROLLOUT = 4096          # learner steps per rollout, every side


def dummy(opponents, games):
    venv = DummyVecEnv([lambda: Monitor(gymnasium.make("photocore/Photosynthesis-v0",
                                                       opponents=opponents, seat="random"))
                        for _ in range(8)])
    return venv, {"n_steps": ROLLOUT // 8, "batch_size": 256}


def vecenv(opponents, games, batch_size=256):
    venv = VecMonitor(VecEnv(games, opponents=opponents, seat="random"))
    return venv, {"n_steps": ROLLOUT // games, "batch_size": batch_size}


SIDES = {"dummy": dummy, "vecenv": vecenv,
         "vecenv-1024": lambda opponents, games: vecenv(opponents, games, 1024)}


def timed(side, opponents, games, rollouts, seed):
    """(wall steps/s, CPU steps/s) of one fresh learner on `side`."""
    venv, sizes = SIDES[side](opponents, games)
    venv.seed(seed)
    model = MaskablePPO("MlpPolicy", venv, n_epochs=4, learning_rate=3e-4, gamma=0.995,
                        gae_lambda=0.95, ent_coef=0.01, policy_kwargs={"net_arch": [256, 256]},
                        seed=seed, **sizes)
    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=rollouts * ROLLOUT)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    venv.close()
    return model.num_timesteps / wall, model.num_timesteps / cpu


def stepped(side, opponents, games, steps, seed):
    """(wall steps/s, CPU steps/s) of `side`'s environment alone, driven as MaskablePPO
    drives it (masks, then a step), a random legal action per game."""
    venv, _ = SIDES[side](opponents, games)
    venv.seed(seed)
    venv.reset()
    noise = np.random.default_rng(seed).random((16, venv.num_envs, photocore.NUM_ACTIONS))
    wall, cpu = time.perf_counter(), time.process_time()
    for t in range(steps // venv.num_envs):
        masks = get_action_masks(venv)
        venv.step((noise[t % 16] * masks).argmax(axis=1))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    venv.close()
    done = steps // venv.num_envs * venv.num_envs
    return done / wall, done / cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rollouts", type=int, default=3, help="rollouts of 4,096 steps")
    parser.add_argument("--games", type=int, default=256, help="games of the vector env")
    parser.add_argument("--opponents", default="greedy")
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--env-only", action="store_true",
                        help="time the environments alone (no network)")
    parser.add_argument("--env-steps", type=int, default=40_960)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    if ROLLOUT % args.games:
        parser.error(f"--games must divide {ROLLOUT}")
    torch.set_num_threads(1)
    sides = args.sides.split(",")
    if args.env_only:
        sides = [side for side in sides if side != "vecenv-1024"]   # the same environment
    runs = {side: [] for side in sides}
    for r in range(args.rounds):
        for side in sides:
            runs[side].append(
                stepped(side, args.opponents, args.games, args.env_steps, seed=r)
                if args.env_only else timed(side, args.opponents, args.games, args.rollouts, r))
            wall, cpu = runs[side][-1]
            print(f"round {r + 1} {side:12} {wall:8.0f} steps/s  ({cpu:8.0f} per CPU second)",
                  flush=True)
    report = {"opponents": args.opponents, "games": args.games, "rounds": args.rounds,
              "env_only": args.env_only, "load_average": os.getloadavg(),
              "learner_steps": args.env_steps if args.env_only else args.rollouts * ROLLOUT,
              "sides": {}}
    for side in sides:
        wall = [w for w, _ in runs[side]]
        cpu = [c for _, c in runs[side]]
        figures = {"steps_per_s": statistics.median(wall),
                   "steps_per_cpu_s": statistics.median(cpu)}
        if side != "dummy" and "dummy" in runs:
            figures["ratio"] = statistics.median(
                w / d for w, (d, _) in zip(wall, runs["dummy"]))
            figures["cpu_ratio"] = statistics.median(
                c / d for c, (_, d) in zip(cpu, runs["dummy"]))
        report["sides"][side] = figures
        print(f"{side:12} " + "  ".join(f"{k} {v:,.2f}" for k, v in figures.items()))
    print(json.dumps(report))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    main()
