"""Strength over training time from a training log: win rates against each built-in agent.

    python examples/alphazero/plot.py runs/az/log.jsonl runs/az/curve.png

Needs matplotlib (pip install "photocore[plot]").
"""

import argparse
import json

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from options import HelpFormatter


def plot(log, out, title=None, players=None):
    """Draws the evaluations of `log` (train.py's log.jsonl) as win rate vs minutes, with
    each point's 95% interval where the log has one."""
    with open(log) as lines:
        points = [json.loads(line) for line in lines]
    points = [p for p in points if "eval" in p]
    figure = Figure(figsize=(7, 4.2))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    minutes = [p["train_seconds"] / 60 for p in points]
    for opponent in points[0]["eval"] if points else []:
        rates = [100 * p["eval"][opponent] for p in points]
        line, = axes.plot(minutes, rates, marker="o", label=f"vs {opponent}")
        if all("interval" in p for p in points):
            axes.fill_between(minutes, [100 * p["interval"][opponent][0] for p in points],
                              [100 * p["interval"][opponent][1] for p in points],
                              color=line.get_color(), alpha=0.15, linewidth=0)
    players = players or (points[0].get("players", 2) if points else 2)
    axes.axhline(100 / players, color="grey", linewidth=0.8, linestyle=":")    # a fair share
    axes.set_xlabel("training time (minutes: bootstrap, self-play, gradient steps)")
    axes.set_ylabel("win rate of the searched network (%)")
    axes.set_ylim(0, 100)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    axes.set_title(title or f"AlphaZero on photocore, {players} players: strength over "
                   "training time")
    figure.tight_layout()
    figure.savefig(out, dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("log", help="train.py's log.jsonl")
    parser.add_argument("out", help="the picture (.png, .svg, ...)")
    parser.add_argument("--title", default=None, help="above the curve (default: none)")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=None,
                        help="for the fair-share line (default: the log's, else 2)")
    args = parser.parse_args(argv)
    plot(args.log, args.out, args.title, args.players)


if __name__ == "__main__":
    main()
