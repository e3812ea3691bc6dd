"""Trains sb3-contrib's MaskablePPO on photocore/Photosynthesis-v0, then measures its win
rates against the built-in agents (docs/rl.md has a run's figures).

    pip install torch==2.13.0 "photocore[rl]"
    nice python examples/rl/maskable_ppo.py --minutes 15 --opponents greedy --save ppo.zip

The learner plays a seat drawn per game against the training opponents, in --envs
environments side by side; training stops after --minutes of wall time. Evaluation plays
the learner's most likely legal action (deterministic) in seeded games. Monitor logs the
mean episode reward (rollout/ep_rew_mean) as it trains.
"""

import argparse
import json
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

import photocore.env.gym  # noqa: F401  (registers photocore/Photosynthesis-v0)

ENV_ID = "photocore/Photosynthesis-v0"


class Deadline(BaseCallback):
    """Stops training once `seconds` of wall time have passed."""

    def __init__(self, seconds):
        super().__init__()
        self.end = time.monotonic() + seconds

    def _on_step(self):
        return time.monotonic() < self.end


def train(opponents="greedy", players=2, envs=8, seconds=60.0, steps=10**9, seed=0,
          n_steps=512, verbose=0):
    """A MaskablePPO learner trained until `seconds` or `steps` (learner steps) run out."""
    venv = DummyVecEnv([lambda: Monitor(gymnasium.make(ENV_ID, players=players, seat="random",
                                                       opponents=opponents))] * envs)
    venv.seed(seed)
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=256, n_epochs=4,
                        learning_rate=3e-4, gamma=0.995, gae_lambda=0.95, ent_coef=0.01,
                        policy_kwargs={"net_arch": [256, 256]}, seed=seed, verbose=verbose)
    model.learn(total_timesteps=steps, callback=Deadline(seconds))
    return model


def evaluate(model, opponents, games=100, players=2, seed=10_000):
    """(wins, ties, losses) of the learner's deterministic policy in `games` seeded games,
    each in a seat drawn per game."""
    env = gymnasium.make(ENV_ID, players=players, seat="random", opponents=opponents)
    tally = [0, 0, 0]
    obs, info = env.reset(seed=seed)
    for _ in range(games):
        terminated = False
        while not terminated:
            action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
            obs, reward, terminated, _, info = env.step(int(action))
        tally[0 if reward > 0 else 1 if reward == 0 else 2] += 1
        obs, info = env.reset()
    return tuple(tally)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--opponents", default="greedy", help="the training opponents' spec")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval", default="random:200,greedy:200,mcts:100:100",
                        help="opponent:games,... to evaluate against")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--save", help="where to save the trained model (.zip)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    start = time.monotonic()
    model = train(args.opponents, args.players, args.envs, args.minutes * 60, seed=args.seed,
                  verbose=1)
    trained = time.monotonic() - start
    if args.save:
        model.save(args.save)
    results = {"trained_against": args.opponents, "players": args.players,
               "minutes": round(trained / 60, 1), "learner_steps": model.num_timesteps}
    for item in args.eval.split(","):
        spec, _, games = item.rpartition(":")
        wins, ties, losses = evaluate(model, spec, int(games), args.players)
        results[spec] = {"games": int(games), "wins": wins, "ties": ties, "losses": losses,
                         "win_rate": round(wins / int(games), 3)}
        print(json.dumps({spec: results[spec]}), flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
