"""The `photocore` command: one module per command, gathered here."""

import click

import photocore
from photocore.cli.playouts import playouts


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="photocore", prog_name="photocore",
                      message=f"%(prog)s %(version)s, rules version {photocore.RULES_VERSION}")
def main():
    """A fast, exact engine for the board game Photosynthesis.

    Run `photocore COMMAND --help` for each command's options.
    """


main.add_command(playouts)
