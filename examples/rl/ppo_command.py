"""The command line both PPO examples take, each value checked as it is parsed (argparse's
`type=`), so a bad one is refused at once, naming its option, instead of failing after
minutes of training; and the evaluation they end with.

>>> evaluations("random:200,mcts:100:50")
[('random', 200), ('mcts:100', 50)]
>>> evaluations("greedy")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: 'greedy': an opponent and its games, as SPEC:GAMES (mcts:100:200)
"""

import argparse
import json

import photocore.env
from photocore.play import specs


def whole(least):
    """A `type=` for a whole number >= `least`."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {least}, got {text!r}")
        return value
    return parse


def minutes(text):
    """A `type=` for a training time: a finite number of minutes > 0."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of minutes > 0, got {text!r}")
    return value


def opponents(text):
    """A `type=` for the training opponents: agent specs, comma separated."""
    try:
        for spec in specs.split(text):
            specs.parse(spec)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def evaluations(text):
    """A `type=` for --eval: SPEC:GAMES, comma separated, as [(spec, games)]."""
    parsed = []
    for item in text.split(","):
        spec, _, games = item.strip().rpartition(":")
        try:
            count = whole(1)(games)
            specs.parse(spec)
        except (argparse.ArgumentTypeError, ValueError):
            raise argparse.ArgumentTypeError(
                f"{item!r}: an opponent and its games, as SPEC:GAMES (mcts:100:200)") from None
        parsed.append((spec, count))
    return parsed


def parser(description, games, save):
    """The options of a run: --minutes, --opponents, --players, `games` (the flag for the
    games played side by side), --n-steps, --batch-size, --seed, --eval, --threads and
    --save (`save`: what is written)."""
    parser = argparse.ArgumentParser(description=description,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--minutes", type=minutes, default=15.0, help="of training")
    parser.add_argument("--opponents", type=opponents, default="greedy",
                        help="the training opponents' spec")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument(games, type=whole(1), default=256, help="games side by side")
    parser.add_argument("--n-steps", type=whole(1), default=16,
                        help="steps per game per rollout")
    parser.add_argument("--batch-size", type=whole(1), default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval", type=evaluations, default="random:200,greedy:200,mcts:100:200",
                        help="opponent:games,... to evaluate against")
    parser.add_argument("--threads", type=whole(1), default=1, help="torch threads")
    parser.add_argument("--save", help=f"where to save the trained {save}")
    return parser


def report(policy, results, evals, players):
    """Plays `policy` against each of `evals` ([(spec, games)]: photocore.env.evaluate_policy),
    printing each result, then `results` with them all as one JSON line."""
    for spec, games in evals:
        result = photocore.env.evaluate_policy(policy, spec, games, players=players)
        print(result, flush=True)
        results[spec] = result.to_dict()
    print(json.dumps(results))
