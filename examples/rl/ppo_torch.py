"""PPO in plain PyTorch on VecGame, in one file (CleanRL's layout), for learners who
outgrow Stable-Baselines3: the games write straight into the rollout's tensors, the
opponents play in C inside each step, and actions are drawn from the masked logits by
VecGame's sampler in C (docs/rl.md, "VecGame for training loops").

    pip install torch==2.13.0 "photocore[rl]"
    nice python examples/rl/ppo_torch.py --minutes 15 --opponents greedy --save ppo.pt

The learner plays a seat drawn per game against --opponents in --games games side by side;
training stops after --minutes of wall time, then `photocore.env.evaluate_policy` plays its
most likely legal action in seeded games against each --eval opponent. The network and the
hyperparameters are those of examples/rl/maskable_ppo.py (SB3's MlpPolicy: separate actor
and critic MLPs of 256 x 256, tanh, orthogonal initialisation; 4 epochs, clip 0.2, GAE),
so the two runs differ only in the machinery.
"""

import json
import os
import sys
import time

import torch
from torch import nn

import photocore
import photocore.env
from photocore import NUM_ACTIONS, OBSERVATION_SIZE

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ppo_command  # noqa: E402


def layer(inputs, outputs, gain=2 ** 0.5):
    linear = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


class Agent(nn.Module):
    """An actor (logits over the 890 actions) and a critic (the learner's return), as SB3's
    MlpPolicy with net_arch [256, 256] builds them."""

    def __init__(self, hidden=256):
        super().__init__()
        self.actor = nn.Sequential(layer(OBSERVATION_SIZE, hidden), nn.Tanh(),
                                   layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, NUM_ACTIONS, gain=0.01))
        self.critic = nn.Sequential(layer(OBSERVATION_SIZE, hidden), nn.Tanh(),
                                    layer(hidden, hidden), nn.Tanh(), layer(hidden, 1, gain=1.0))

    def value(self, obs):
        return self.critic(obs).squeeze(-1)

    def judge(self, obs, mask, actions):
        """(log-probabilities of `actions`, entropies, values) under the masked policy."""
        logits = self.actor(obs).masked_fill(~mask, -torch.inf)
        log_p = torch.log_softmax(logits, dim=-1)
        chosen = log_p.gather(1, actions.unsqueeze(1)).squeeze(1)
        entropy = -(log_p.exp() * log_p.masked_fill(~mask, 0.0)).sum(-1)
        return chosen, entropy, self.value(obs)

    def policy(self, obs, mask):
        """The most likely legal action per game (numpy in and out): for evaluate."""
        with torch.no_grad():
            logits = self.actor(torch.from_numpy(obs))
        return logits.masked_fill(~torch.from_numpy(mask), -torch.inf).argmax(-1).numpy()


def train(opponents="greedy", players=2, games=256, seconds=60.0, steps=10**9, seed=0,
          n_steps=16, batch_size=256, epochs=4, lr=3e-4, gamma=0.995, lam=0.95, clip=0.2,
          ent_coef=0.01, vf_coef=0.5, max_grad_norm=0.5, log=print):
    """An Agent trained by PPO until `seconds` or `steps` (learner steps) run out; returns
    (agent, learner steps)."""
    torch.manual_seed(seed)
    env = photocore.VecGame(games, players, opponents=opponents, seat="random")
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=lr, eps=1e-5)
    # the rollout's storage: VecGame writes row t + 1 of obs, mask and done in step t
    obs = torch.zeros(n_steps + 1, games, OBSERVATION_SIZE)
    mask = torch.zeros(n_steps + 1, games, NUM_ACTIONS, dtype=torch.bool)
    done = torch.zeros(n_steps + 1, games, dtype=torch.bool)
    actions = torch.zeros(n_steps, games, dtype=torch.int64)
    log_probs = torch.zeros(n_steps, games)
    values = torch.zeros(n_steps + 1, games)
    seat_rewards = torch.zeros(n_steps, games, players)   # by seat from the mover: [:, :, 0]
    env.reset(seed=seed, obs=obs[0], mask=mask[0])
    end = time.monotonic() + seconds
    done_steps, updates, ended, total = 0, 0, 0, 0.0
    start = time.monotonic()
    while done_steps < steps and time.monotonic() < end:
        with torch.no_grad():
            for t in range(n_steps):
                logits = agent.actor(obs[t])
                values[t] = agent.value(obs[t])
                env.sample_actions(logits, out=actions[t], log_prob=log_probs[t])
                env.step(actions[t], obs[t + 1], mask[t + 1], seat_rewards[t], done[t + 1],
                         relative=True)
            values[n_steps] = agent.value(obs[n_steps])
            rewards = seat_rewards[:, :, 0]          # the learner's
            finished = done[1:]
            ended += int(finished.sum())
            total += float(rewards[finished].sum())
            # generalised advantage estimation; a game that ended is not bootstrapped
            advantages = torch.zeros(n_steps, games)
            running = torch.zeros(games)
            for t in reversed(range(n_steps)):
                going = (~finished[t]).float()
                delta = rewards[t] + gamma * values[t + 1] * going - values[t]
                running = delta + gamma * lam * going * running
                advantages[t] = running
            targets = advantages + values[:n_steps]
        batch = (obs[:n_steps].reshape(-1, OBSERVATION_SIZE),
                 mask[:n_steps].reshape(-1, NUM_ACTIONS), actions.reshape(-1),
                 log_probs.reshape(-1), advantages.reshape(-1), targets.reshape(-1))
        size = n_steps * games
        for _ in range(epochs):
            for rows in torch.randperm(size).split(batch_size):
                b_obs, b_mask, b_act, b_logp, b_adv, b_target = (x[rows] for x in batch)
                new_logp, entropy, value = agent.judge(b_obs, b_mask, b_act)
                ratio = (new_logp - b_logp).exp()
                b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
                policy_loss = -torch.min(ratio * b_adv,
                                         ratio.clamp(1 - clip, 1 + clip) * b_adv).mean()
                loss = (policy_loss - ent_coef * entropy.mean()
                        + vf_coef * (value - b_target).pow(2).mean())
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
                optimizer.step()
        done_steps += size
        updates += 1
        # the last row starts the next rollout
        obs[0], mask[0] = obs[n_steps], mask[n_steps]
        if updates % 25 == 0:
            log(json.dumps({"learner_steps": done_steps, "games_ended": ended,
                            "mean_return": round(total / max(ended, 1), 3),
                            "steps_per_s": round(done_steps / (time.monotonic() - start))}))
            ended, total = 0, 0.0
    return agent, done_steps


def main():
    args = ppo_command.parser(__doc__.split("\n\n")[0], "--games", "network (.pt)").parse_args()
    torch.set_num_threads(args.threads)
    start = time.monotonic()
    agent, steps = train(args.opponents, args.players, args.games, args.minutes * 60,
                         seed=args.seed, n_steps=args.n_steps, batch_size=args.batch_size)
    trained = time.monotonic() - start
    if args.save:
        torch.save(agent.state_dict(), args.save)
    ppo_command.report(agent.policy, {"trained_against": args.opponents,
                                      "players": args.players,
                                      "minutes": round(trained / 60, 2), "learner_steps": steps,
                                      "steps_per_s": round(steps / trained)},
                       args.eval, args.players)


if __name__ == "__main__":
    main()
