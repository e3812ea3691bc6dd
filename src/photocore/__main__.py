"""`python -m photocore`: the photocore command."""

from photocore.cli import main

main(prog_name="photocore")
