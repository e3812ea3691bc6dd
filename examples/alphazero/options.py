"""The command-line options of the example's scripts: each value is checked as it is parsed
(argparse's `type=`), so a bad one is refused at once, naming its option, instead of
failing minutes into a run; `--help` shows every default.

>>> whole(2)("3"), share("0.5"), listing(whole(2, 4))("2,3")
(3, 0.5, [2, 3])
>>> number(above=0)("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a number > 0, got 0
"""

import argparse
import math


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """--help shows each option's default, but for those whose default is None: their help
    says what they default to."""

    def _get_help_string(self, action):
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def whole(least=0, most=None):
    """A `type=` for a whole number from `least` (to `most`)."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
        if value < least or (most is not None and value > most):
            bounds = f">= {least}" if most is None else f"from {least} to {most}"
            raise argparse.ArgumentTypeError(f"must be a whole number {bounds}, got {value}")
        return value
    return parse


def number(above=None, least=None, most=None):
    """A `type=` for a finite number > `above` (or >= `least`), at most `most`."""
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
        bounds = [f"> {above:g}" if above is not None else "",
                  f">= {least:g}" if least is not None else "",
                  f"<= {most:g}" if most is not None else ""]
        if (not math.isfinite(value) or (above is not None and value <= above)
                or (least is not None and value < least) or (most is not None and value > most)):
            raise argparse.ArgumentTypeError(
                f"must be a number {' and '.join(b for b in bounds if b)}, got {text}")
        return value
    return parse


share = number(least=0, most=1)       # a share of something, 0 to 1


def listing(item):
    """A `type=` for a comma-separated list of `item`s (another `type=`)."""
    def parse(text):
        return [item(part.strip()) for part in text.split(",")]
    return parse


def builtin_agent(text):
    """A `type=` for a built-in agent (random, greedy, mcts, mcts:N), as the arena plays."""
    from arena import parse_opponent
    try:
        parse_opponent(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text
