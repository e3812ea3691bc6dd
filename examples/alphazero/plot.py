"""Strength over training time from a training log: win rates against each built-in agent.

    python examples/alphazero/plot.py runs/az/log.jsonl runs/az/curve.png

Needs matplotlib (pip install "photocore[plot]").
"""

import json
import sys

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure


def plot(log, out, title=None):
    """Draws the evaluations of `log` (train.py's log.jsonl) as win rate vs minutes."""
    with open(log) as lines:
        points = [json.loads(line) for line in lines]
    points = [p for p in points if "eval" in p]
    figure = Figure(figsize=(7, 4.2))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    minutes = [p["train_seconds"] / 60 for p in points]
    for opponent in points[0]["eval"] if points else []:
        axes.plot(minutes, [100 * p["eval"][opponent] for p in points], marker="o",
                  label=f"vs {opponent}")
    axes.axhline(50, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xlabel("training time (minutes: bootstrap, self-play, gradient steps)")
    axes.set_ylabel("win rate of the searched network (%)")
    axes.set_ylim(0, 100)
    axes.grid(alpha=0.3)
    axes.legend(loc="lower right")
    axes.set_title(title or "AlphaZero on photocore: strength over training time")
    figure.tight_layout()
    figure.savefig(out, dpi=110)


if __name__ == "__main__":
    plot(sys.argv[1], sys.argv[2], *sys.argv[3:4])
