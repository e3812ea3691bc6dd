"""The `photocore` command: one module per command, gathered here."""

import click

from photocore.cli.analyze import analyze
from photocore.cli.bench import bench
from photocore.cli.match import match, tournament
from photocore.cli.play import play
from photocore.cli.playouts import playouts
from photocore.cli.records import export, show, stats, verify
from photocore.cli.repair import repair
from photocore.cli.replay import replay
from photocore.cli.selfplay import selfplay
from photocore.cli.serve import serve
from photocore.cli.solve import solve
from photocore.facts import RULES_VERSION

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="photocore", prog_name="photocore",
                      message=f"%(prog)s %(version)s, rules version {RULES_VERSION}")
def main() -> None:
    """A fast, exact engine for the board game Photosynthesis.

    selfplay plays many games with the agents (built-in random, greedy, mcts; Python
    classes; engines speaking docs/protocol.md) on all cores and writes them as records;
    match plays agents against each other and rates them (Elo with its error, SPRT),
    tournament plays a round robin; playouts measures raw random games in the kernels; bench
    measures the engine's speed, each figure checked.
    Game records are JSON Lines files, one game per line (docs/records.md): verify replays
    and checks them, show draws a position, stats summarises them, export writes numpy
    arrays for training, replay writes a game as an HTML page to step through, repair
    keeps the whole games of a damaged file. analyze evaluates every move of recorded games
    with an agent and marks the mistakes (docs/analysis.md); solve gives a position's
    exact result under best play. play and serve let a person play against the agents,
    in the terminal and in the browser (docs/play.md). Run `photocore COMMAND --help` for
    each command's options.
    """


for command in (selfplay, match, tournament, playouts, bench, verify, show, stats, export,
                replay, repair, analyze, solve, play, serve):
    main.add_command(command)
