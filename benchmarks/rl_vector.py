"""Learner-steps per second inside the vector env's step(): the default path of
`gymnasium.make_vec` against the fastest path, VecGame.random_actions without copies.

    nice python benchmarks/rl_vector.py                 # 1,024 games, 5 rounds
    nice python benchmarks/rl_vector.py --games 256 --steps 400 --json out.json

Every side plays `--games` games of two players against `random` opponents, the learner's
seat drawn per game, for `--steps` steps after a reset, and counts only the time inside
`step()` (the actions are picked between the steps, outside the timing). The sides:

- `default`: `gymnasium.make_vec("photocore/Photosynthesis-v0", num_envs=n,
  opponents="random")` with its defaults, the actions picked in numpy from the last
  `info["action_mask"]`: `(rng.random(mask.shape) * mask).argmax(1)`, what a newcomer
  writes;
- `default-random`: the same environment, the actions from `envs.vec.random_actions()`;
- `nocopy`: `copy=False`, the actions picked in numpy as in `default`;
- `random_actions`: `copy=False`, the actions from `envs.vec.random_actions(out=...)`
  (the fastest path: the issue's 1.97 M).

The sides alternate within each round, so that a machine busy for a while slows them alike;
each figure is the median over rounds of wall-clock steps/s, with CPU-time steps/s beside it
(this process's CPU seconds inside step(): what other jobs take from a shared machine is not
counted), and each side's ratio to `random_actions`, taken round by round.

A study beside the registry of benchmarks/bench.py (docs/speed.md): the time inside step()
alone, the actions picked outside it: figures of its own, not one figure beside a baseline
as a workload of the registry gives.
"""

import argparse
import json
import os
import statistics
import time

import gymnasium
import numpy as np

import photocore.env.gym
from photocore.env.gym import PhotosynthesisVectorEnv


def default(games):
    return gymnasium.make_vec(photocore.env.gym.ENV_ID, num_envs=games, opponents="random")


def nocopy(games):
    return PhotosynthesisVectorEnv(games, opponents="random", copy=False)


SIDES = {"default": (default, "numpy"), "default-random": (default, "random_actions"),
         "nocopy": (nocopy, "numpy"), "random_actions": (nocopy, "random_actions")}


def stepped(side, games, steps, seed):
    """(wall steps/s, CPU steps/s) inside step() of `side`'s environment."""
    make, pick = SIDES[side]
    envs = make(games)
    _, info = envs.reset(seed=seed)
    mask = info["action_mask"]
    rng = np.random.default_rng(seed)
    actions = np.empty(games, np.int64)
    wall = cpu = 0.0
    for _ in range(steps):
        if pick == "numpy":
            actions = (rng.random(mask.shape) * mask).argmax(1)
        else:
            envs.vec.random_actions(out=actions)
        w, c = time.perf_counter(), time.process_time()
        _, _, _, _, info = envs.step(actions)
        wall += time.perf_counter() - w
        cpu += time.process_time() - c
        mask = info["action_mask"]
    envs.close()
    return games * steps / wall, games * steps / cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=200, help="steps per side and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sides", default=",".join(SIDES))
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    sides = args.sides.split(",")
    runs = {side: [] for side in sides}
    for r in range(args.rounds):
        for side in sides:
            runs[side].append(stepped(side, args.games, args.steps, seed=r))
            wall, cpu = runs[side][-1]
            print(f"round {r + 1} {side:15} {wall / 1e6:6.2f} M steps/s  "
                  f"({cpu / 1e6:6.2f} M per CPU second)", flush=True)
    report = {"games": args.games, "steps": args.steps, "rounds": args.rounds,
              "load_average": os.getloadavg(), "sides": {}}
    for side in sides:
        wall = [w for w, _ in runs[side]]
        cpu = [c for _, c in runs[side]]
        figures = {"steps_per_s": statistics.median(wall),
                   "steps_per_cpu_s": statistics.median(cpu)}
        if side != "random_actions" and "random_actions" in runs:
            base = runs["random_actions"]
            figures["ratio"] = statistics.median(w / b for w, (b, _) in zip(wall, base))
            figures["cpu_ratio"] = statistics.median(c / b for c, (_, b) in zip(cpu, base))
        report["sides"][side] = figures
        print(f"{side:15} {figures['steps_per_s'] / 1e6:.2f} M learner-steps/s "
              f"({figures['steps_per_cpu_s'] / 1e6:.2f} M per CPU second)"
              + (f", {figures['ratio']:.2f} x random_actions ({figures['cpu_ratio']:.2f} x "
                 "in CPU time)" if "ratio" in figures else ""))
    print(json.dumps(report))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)


if __name__ == "__main__":
    main()
