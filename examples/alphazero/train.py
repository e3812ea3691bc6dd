"""AlphaZero for Photosynthesis on a CPU: self-play with photocore.Search -> train -> evaluate.

    python examples/alphazero/train.py --minutes 60 --out runs/az

1. Bootstrap (--bootstrap-games, 0 to skip): the network first learns from games of the
   built-in `greedy` agent against itself, played in C in seconds: its moves as policy
   targets, the results as value targets. A start that costs minutes instead of hours of
   self-play from a random network (README.md says what it buys).
2. Then, until --minutes of training have passed: self-play games searched with the
   current network (photocore.run.train_data, in --workers processes), their visit counts
   and results into a replay buffer, and gradient steps on samples of it.
3. Every --eval-every seconds of training: matches against --opponents
   (examples/alphazero/arena.py) on the same seed each time, so that two points of the
   curve differ by the network only, logged to OUT/log.jsonl with the training time and
   95% intervals; the checkpoint goes to OUT/latest.pt (OUT/final.pt at the end) and the
   curve to OUT/curve.png.

The learning rate falls from --lr to --lr * --lr-final along a cosine over the training
time, so the last network is the settled one: the run ends on final.pt, not on the best of
a noisy sample of evaluations. Training time counts bootstrap, self-play and gradient
steps, not the evaluations.

No subnormal floats: AdamW's decoupled weight decay (new_optimiser()) and denormals flushed
while it trains (net.denormals_flushed), as net.py says why.
"""

import argparse
import json
import math
import os
import resource
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from arena import play_matches  # noqa: E402
from evaluate import wilson  # noqa: E402
from net import Evaluator, Net, denormals_flushed, save  # noqa: E402
from options import HelpFormatter, builtin_agent, listing, number, share, whole  # noqa: E402

import photocore  # noqa: E402
from photocore.play import play_games  # noqa: E402
from photocore.play.search import MIN_SIMULATIONS  # noqa: E402
from photocore.run.local_backend import worker_pool  # noqa: E402
from photocore.run.train_data import DataSeries, play_block, value_targets  # noqa: E402

# the fixed opponents of the curve, per number of players: beaten by a margin at first,
# then the one that is not (mcts:1000 with 2 players; mcts:100 fills the other seats of 3-
# and 4-player games, where the fair share is 1/3 or 1/4)
OPPONENTS = {2: "random,greedy,mcts:100,mcts:1000", 3: "random,greedy,mcts:100",
             4: "random,greedy,mcts:100"}
WEIGHT_DECAY = 1e-4


class Buffer:
    """The most recent `capacity` training rows: obs (float16), legal mask (bits), policy
    target (float16), value and margin targets (players, from the player to move on)."""

    def __init__(self, capacity, players):
        self.capacity = capacity
        self.obs = np.zeros((capacity, photocore.OBSERVATION_SIZE), np.float16)
        self.mask = np.zeros((capacity, (photocore.NUM_ACTIONS + 7) // 8), np.uint8)
        self.policy = np.zeros((capacity, photocore.NUM_ACTIONS), np.float16)
        self.value = np.zeros((capacity, players), np.float32)
        self.margin = np.zeros((capacity, players), np.float32)
        self.size = 0
        self.next = 0

    def add(self, obs, mask, policy, value, margin):
        for start in range(0, len(obs), self.capacity):
            self._add(*(a[start:start + self.capacity]
                        for a in (obs, mask, policy, value, margin)))

    def _add(self, obs, mask, policy, value, margin):
        at = (self.next + np.arange(len(obs))) % self.capacity
        self.obs[at] = obs
        self.mask[at] = np.packbits(mask, axis=1)
        self.policy[at] = policy
        self.value[at] = value
        self.margin[at] = margin
        self.next = (self.next + len(obs)) % self.capacity
        self.size = min(self.capacity, self.size + len(obs))

    def sample(self, n, rng):
        j = rng.integers(0, self.size, n)
        mask = np.unpackbits(self.mask[j], axis=1, count=photocore.NUM_ACTIONS).astype(bool)
        return (torch.from_numpy(self.obs[j].astype(np.float32)), torch.from_numpy(mask),
                torch.from_numpy(self.policy[j].astype(np.float32)),
                torch.from_numpy(self.value[j]), torch.from_numpy(self.margin[j]))


def margin_targets(scores, to_move, scale):
    """tanh((each player's final score - the mean of the others') / scale), from the player
    to move on (the order of the network's heads)."""
    scores = np.asarray(scores, np.float32)
    players = scores.shape[1]
    ahead = (players * scores - scores.sum(axis=1, keepdims=True)) / (players - 1)
    return value_targets(np.tanh(ahead / scale), to_move).astype(np.float32)


def greedy_rows(start, count, players, seed, scale):
    """Rows of `count` greedy-vs-greedy games: the greedy move one-hot, the game's returns
    and score margins from the player to move on. Forced moves are left out, as the search
    does."""
    moves, offsets = play_games([("greedy", 0)] * players, players, None, seed, start, count)
    obs, masks, actions, values, margins = [], [], [], [], []
    for k in range(count):
        game = photocore.Game(players)
        movers = []
        for action in moves[offsets[k]:offsets[k + 1]].tolist():
            if len(game.legal_moves()) > 1:
                obs.append(game.observation())
                masks.append(game.legal_moves().mask())
                actions.append(action)
                movers.append(game.current_player)
            game.play(action)
        movers = np.array(movers, np.int64)
        values.append(value_targets(np.tile(game.returns(), (len(movers), 1)), movers))
        margins.append(margin_targets(np.tile(game.scores(), (len(movers), 1)), movers, scale))
    policy = np.zeros((len(actions), photocore.NUM_ACTIONS), np.float16)
    policy[np.arange(len(actions)), actions] = 1
    return (np.array(obs, np.float16), np.array(masks), policy,
            np.concatenate(values).astype(np.float32), np.concatenate(margins))


def new_optimiser(net, lr, weight_decay):
    """AdamW: weight decay shrinks every weight by lr * weight_decay a step, apart from
    Adam's normalised step. Adam's own weight_decay adds the decay to the gradient instead,
    and a weight that gets no gradient (an input feature that never occurs, an action that
    is never legal) is then driven by its own decay, step-normalised, into subnormal floats
    that slow every forward pass (net.py)."""
    return torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)


def cosine_rate(lr, final, done):
    """The learning rate after the share `done` (0..1) of the training time: lr at 0,
    lr * final at 1, along half a cosine.

    >>> cosine_rate(1e-3, 0.05, 0.0), round(cosine_rate(1e-3, 0.05, 0.5), 6), cosine_rate(1e-3, 0.05, 2.0)
    (0.001, 0.000525, 5e-05)
    """
    done = min(max(done, 0.0), 1.0)
    return lr * (final + (1 - final) * (1 + math.cos(math.pi * done)) / 2)


def train_steps(net, optimiser, buffer, steps, batch, rng, lr=None):
    """`steps` gradient steps on samples of the buffer (at learning rate `lr` if given);
    mean (policy, value) losses."""
    if lr is not None:
        for group in optimiser.param_groups:
            group["lr"] = lr
    net.train()
    total_policy = total_value = 0.0
    for _ in range(steps):
        obs, mask, policy, value, margin = buffer.sample(batch, rng)
        logits, predicted, predicted_margin = net.heads(obs)
        logits = logits.masked_fill(~mask, -1e9)     # a distribution over the legal moves
        loss_policy = -(policy * F.log_softmax(logits, dim=1)).sum(dim=1).mean()
        loss_value = F.mse_loss(predicted, value)
        if predicted_margin is not None:
            loss_value = loss_value + F.mse_loss(predicted_margin, margin)
        optimiser.zero_grad()
        (loss_policy + loss_value).backward()
        optimiser.step()
        total_policy += loss_policy.item()
        total_value += loss_value.item()
    net.eval()
    return total_policy / max(steps, 1), total_value / max(steps, 1)


def selfplay_task(series, start, count):
    """play_block (in a worker), with the CPU time it took, for the report. The network
    runs on one thread, as in every worker: the same games wherever they are played."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    begin = time.process_time()
    try:
        shard, _, tally = play_block(series, start, count)
    finally:
        torch.set_num_threads(threads)
    return shard, tally.games, time.process_time() - begin


def evaluate(net, opponents, games, simulations, seed, rollout_weight=0.0):
    """{opponent: win share} and {opponent: its 95% interval} of `games` games against
    each opponent in the other seats, seats rotated."""
    evaluator = Evaluator(net)
    rates = {opponent: play_matches(evaluator, opponent, games=games, simulations=simulations,
                                    players=net.players, seed=seed,
                                    rollout_weight=rollout_weight)["win_rate"]
             for opponent in opponents}
    return rates, {opponent: [round(x, 3) for x in wilson(rate, games)]
                   for opponent, rate in rates.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--out", default="runs/az", help="folder for the log and checkpoints")
    parser.add_argument("--minutes", type=number(above=0), default=60.0,
                        help="training time (bootstrap, self-play and gradient steps)")
    parser.add_argument("--players", type=int, choices=sorted(OPPONENTS), default=2,
                        help="players of every game")
    parser.add_argument("--hidden", type=whole(1), default=256, help="width of the network")
    parser.add_argument("--simulations", type=whole(MIN_SIMULATIONS), default=64,
                        help="per move, self-play and evaluation")
    parser.add_argument("--bootstrap-games", type=whole(0), default=8000,
                        help="greedy games to learn from first (0: start from a random network)")
    parser.add_argument("--bootstrap-epochs", type=whole(1), default=2,
                        help="passes over the greedy games")
    parser.add_argument("--games-per-iteration", type=whole(1), default=128,
                        help="self-play games between rounds of gradient steps")
    parser.add_argument("--per-search", type=whole(1), default=64, help="games searched together")
    parser.add_argument("--explore-plies", type=whole(0), default=30,
                        help="first moves of a self-play game drawn in proportion to visits")
    parser.add_argument("--rollout-weight", type=share, default=0.0,
                        help="share of a random game's result in each leaf's value, in "
                             "self-play and evaluation (photocore.Search); kept in the "
                             "checkpoints, whose agent plays with it")
    parser.add_argument("--buffer", type=whole(1), default=250_000, help="rows kept for training")
    parser.add_argument("--batch", type=whole(1), default=512, help="rows a gradient step")
    parser.add_argument("--replay", type=number(above=0), default=4.0,
                        help="gradient-step samples per new self-play row")
    parser.add_argument("--lr", type=number(above=0), default=1e-3,
                        help="the learning rate at the start")
    parser.add_argument("--lr-final", type=number(above=0, most=1), default=0.05,
                        help="the learning rate at the end, a share of --lr (cosine decay)")
    parser.add_argument("--weight-decay", type=number(least=0), default=WEIGHT_DECAY,
                        help="AdamW's decoupled weight decay")
    parser.add_argument("--margin-weight", type=share, default=0.25,
                        help="share of the score-margin head in the values the search sees "
                             "(0: win/loss values only, no margin head)")
    parser.add_argument("--margin-scale", type=number(above=0), default=20.0,
                        help="score points that make a margin of tanh(1)")
    parser.add_argument("--eval-every", type=number(above=0), default=300.0,
                        help="seconds of training between evaluations")
    parser.add_argument("--eval-games", type=whole(1), default=100,
                        help="games against each opponent in an evaluation")
    parser.add_argument("--opponents", type=listing(builtin_agent), default=None,
                        help="built-in agents to evaluate against, comma separated "
                             f"(default: {OPPONENTS})")
    parser.add_argument("--eval-seed", type=int, default=999,
                        help="the seed of every evaluation (self-play never uses it)")
    parser.add_argument("--workers", type=whole(1), default=os.cpu_count() or 1,
                        help="processes for self-play (1: this one)")
    parser.add_argument("--threads", type=whole(1), default=1,
                        help="PyTorch threads in this process (gradient steps, evaluation); "
                             "on a busy machine more threads can be far slower")
    parser.add_argument("--seed", type=int, default=0, help="of the network and self-play")
    parser.add_argument("--iterations", type=whole(1), default=None,
                        help="stop after this many self-play iterations (smoke runs; "
                             "default: when --minutes have passed)")
    args = parser.parse_args(argv)
    args.opponents = args.opponents or OPPONENTS[args.players].split(",")
    try:
        os.makedirs(args.out, exist_ok=True)
        log = open(os.path.join(args.out, "log.jsonl"), "w")  # noqa: SIM115 (closed below)
    except OSError as e:
        parser.error(f"--out {args.out}: {e.strerror or e}")
    with denormals_flushed(), log:
        run(args, log)
    try:
        from plot import plot
        plot(os.path.join(args.out, "log.jsonl"), os.path.join(args.out, "curve.png"))
    except ImportError:      # matplotlib is optional
        pass


def run(args, log):
    """The loop of main(), on its parsed arguments, logging to the file `log`."""
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    net = Net(args.players, args.hidden, args.margin_weight)
    net.eval()
    optimiser = new_optimiser(net, args.lr, args.weight_decay)
    buffer = Buffer(args.buffer, args.players)
    clock = Clock()
    worker_cpu = 0.0
    totals = {"games": 0, "rows": 0, "steps": 0}

    def checkpoint(name, **extra):
        save(net, os.path.join(args.out, name), train_seconds=clock.seconds,
             rollout_weight=args.rollout_weight, **extra)

    def lr():
        return cosine_rate(args.lr, args.lr_final, clock.seconds / (args.minutes * 60))

    def assess():
        say(f"evaluating: {args.eval_games} games against each of {', '.join(args.opponents)}")
        return evaluate(net, args.opponents, args.eval_games, args.simulations, args.eval_seed,
                        args.rollout_weight)

    def report(phase, iteration, losses, evaluation=None):
        entry = {"phase": phase, "iteration": iteration, "players": args.players,
                 "train_seconds": round(clock.seconds, 1),
                 "wall_seconds": round(time.perf_counter() - clock.begin, 1),
                 "cpu_seconds": round(cpu_seconds() + worker_cpu, 1), **totals,
                 "lr": float(f"{lr():.3g}"),
                 "loss_policy": round(losses[0], 4), "loss_value": round(losses[1], 4)}
        if evaluation is not None:
            entry["eval"], entry["interval"] = evaluation
        log.write(json.dumps(entry) + "\n")
        log.flush()
        print(json.dumps(entry), flush=True)

    # 0. the untrained network, for the start of the curve
    report("start", 0, (0.0, 0.0), assess())

    # 1. bootstrap from greedy games, a chunk of games at a time (regenerated each epoch:
    # playing them is cheaper than keeping their observations)
    losses = (0.0, 0.0)
    with clock:
        chunk = 1000
        epochs = args.bootstrap_epochs if args.bootstrap_games else 0
        for epoch in range(epochs):
            for start in range(0, args.bootstrap_games, chunk):
                rows = greedy_rows(start, min(chunk, args.bootstrap_games - start),
                                   args.players, args.seed, args.margin_scale)
                buffer.add(*rows)
                steps = len(rows[0]) // args.batch
                losses = train_steps(net, optimiser, buffer, steps, args.batch, rng, lr())
                totals["steps"] += steps
                say(f"bootstrap: epoch {epoch + 1} of {epochs}, "
                    f"{min(start + chunk, args.bootstrap_games):,} of "
                    f"{args.bootstrap_games:,} greedy games learnt, {totals['steps']:,} "
                    f"steps, {clock.running():.0f} s")
    if args.bootstrap_games:
        report("bootstrap", 0, losses, assess())
        checkpoint("bootstrap.pt")
    last_eval = clock.seconds

    # 2. self-play -> train, evaluating now and then
    pool = None
    if args.workers > 1:
        # photocore's runs' pool: clean workers, which import net.py from this folder (on
        # sys.path), and end if this process is killed
        pool = worker_pool(args.workers)
    iteration = 0
    try:
        while clock.seconds < args.minutes * 60 and (args.iterations is None
                                                      or iteration < args.iterations):
            iteration += 1
            with clock:
                series = DataSeries(Evaluator(net), games=args.games_per_iteration,
                                    players=args.players, seed=args.seed * 100_003 + iteration,
                                    simulations=args.simulations, per_search=args.per_search,
                                    explore_plies=args.explore_plies,
                                    rollout_weight=args.rollout_weight)
                blocks = [(start, min(args.per_search, series.games - start))
                          for start in range(0, series.games, args.per_search)]
                if pool is None:      # in this process (its CPU time is counted already)
                    results = [selfplay_task(series, *block)[:2] + (0.0,) for block in blocks]
                else:
                    results = [f.result() for f in [pool.submit(selfplay_task, series, *block)
                                                    for block in blocks]]
                new_rows = 0
                for shard, games, cpu in results:
                    worker_cpu += cpu
                    totals["games"] += games
                    buffer.add(shard["obs"].astype(np.float16), shard["mask"],
                               shard["policy"].astype(np.float16), shard["value"],
                               margin_targets(shard["scores"], shard["to_move"],
                                              args.margin_scale))
                    new_rows += len(shard["obs"])
                totals["rows"] += new_rows
                steps = max(1, int(new_rows * args.replay / args.batch))
                losses = train_steps(net, optimiser, buffer, steps, args.batch, rng, lr())
                totals["steps"] += steps
            last = (clock.seconds >= args.minutes * 60
                    or (args.iterations is not None and iteration >= args.iterations))
            evaluation = None
            if last or clock.seconds - last_eval >= args.eval_every:
                evaluation = assess()
                last_eval = clock.seconds
            report("self-play", iteration, losses, evaluation)
            checkpoint("latest.pt", iteration=iteration)
    finally:
        if pool is not None:
            pool.shutdown(kill_workers=True)
    checkpoint("final.pt", iteration=iteration)


class Clock:
    """Seconds spent inside `with clock:` blocks (training, not evaluation)."""

    def __init__(self):
        self.seconds = 0.0
        self.begin = time.perf_counter()

    def running(self):
        """The seconds so far, with those of the block under way (inside one)."""
        return self.seconds + time.perf_counter() - self._start

    def __enter__(self):
        self._start = time.perf_counter()

    def __exit__(self, *exc):
        self.seconds += time.perf_counter() - self._start


def say(text):
    """A line of progress, on stderr (stdout has the log's lines)."""
    print(text, file=sys.stderr, flush=True)


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


if __name__ == "__main__":
    main()
