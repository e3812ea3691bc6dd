"""Trains sb3-contrib's MaskablePPO on photocore's SB3 vector env, then measures its win
rates against the built-in agents (docs/rl.md has a run's figures).

    pip install torch==2.13.0 "photocore[rl]"
    nice python examples/rl/maskable_ppo.py --minutes 15 --opponents greedy --save ppo.zip

The learner plays a seat drawn per game against the training opponents in --envs games of
one `photocore.env.sb3.VecEnv` (the opponents play in C inside each step); `Deadline` stops
training after --minutes of wall time. `photocore.env.evaluate_policy` then plays the
learner's most likely legal action (deterministic) in seeded games against each --eval
opponent.
VecMonitor logs the mean episode reward (rollout/ep_rew_mean) as it trains.
"""

import os
import sys
import time

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.vec_env import VecMonitor

import photocore.env
from photocore.env.sb3 import Deadline, VecEnv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ppo_command  # noqa: E402


def train(opponents="greedy", players=2, envs=256, seconds=60.0, steps=10**9, seed=0,
          n_steps=16, batch_size=256, verbose=0):
    """A MaskablePPO learner trained until `seconds` or `steps` (learner steps) run out.
    Each rollout is envs x n_steps learner steps (4,096 by default)."""
    venv = VecMonitor(VecEnv(envs, players=players, opponents=opponents, seat="random"))
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=batch_size, n_epochs=4,
                        learning_rate=3e-4, gamma=0.995, gae_lambda=0.95, ent_coef=0.01,
                        policy_kwargs={"net_arch": [256, 256]}, seed=seed, verbose=verbose)
    model.learn(total_timesteps=steps, callback=Deadline(seconds / 60))
    return model


def evaluate(model, opponents, games=100, players=2, seed=10_000):
    """(wins, ties, losses) of the learner's deterministic policy in `games` seeded games,
    each in a seat drawn per game."""
    result = photocore.env.evaluate_policy(model, opponents, games, players=players, seed=seed)
    return result.wins, result.ties, result.losses


def main():
    args = ppo_command.parser(__doc__.split("\n\n")[0], "--envs", "model (.zip)").parse_args()
    torch.set_num_threads(args.threads)
    start = time.monotonic()
    model = train(args.opponents, args.players, args.envs, args.minutes * 60, seed=args.seed,
                  n_steps=args.n_steps, batch_size=args.batch_size, verbose=1)
    trained = time.monotonic() - start
    if args.save:
        model.save(args.save)
    ppo_command.report(model, {"trained_against": args.opponents, "players": args.players,
                               "minutes": round(trained / 60, 2),
                               "learner_steps": model.num_timesteps,
                               "steps_per_s": round(model.num_timesteps / trained)},
                       args.eval, args.players)


if __name__ == "__main__":
    main()
