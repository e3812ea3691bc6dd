"""The hand-built scenarios of seeds/scenarios.txt (its header describes the format)."""

import pathlib
import re
from dataclasses import dataclass, field

import pytest

import photocore

SCENARIOS = pathlib.Path(__file__).resolve().parent.parent / "seeds" / "scenarios.txt"
KEYWORDS = ("rule", "position", "play", "expect")


@dataclass
class Scenario:
    name: str
    line: int
    steps: list = field(default_factory=list)   # (line number, keyword, the rest)


def parse(text, source):
    """The scenarios of `text`; ValueError names source:line for a line that does not fit."""
    scenarios = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        keyword, _, rest = line.partition(" ")
        rest = rest.strip()
        if keyword == "scenario" and rest:
            scenarios.append(Scenario(rest, number))
        elif keyword not in KEYWORDS or not rest:
            raise ValueError(f"{source}:{number}: expected `scenario NAME` or one of "
                             f"{', '.join(KEYWORDS)} followed by text, got {raw!r}")
        elif not scenarios:
            raise ValueError(f"{source}:{number}: {keyword} before the first scenario")
        else:
            scenarios[-1].steps.append((number, keyword, rest))
    for s in scenarios:
        keywords = [keyword for _, keyword, _ in s.steps]
        if "rule" not in keywords or "expect" not in keywords:
            raise ValueError(f"{source}:{s.line}: scenario {s.name} needs a rule and an expect")
        if [k for k in keywords if k != "rule"][0] != "position" or keywords.count("position") != 1:
            raise ValueError(f"{source}:{s.line}: scenario {s.name} needs one position, "
                             "before its plays and expects")
    return scenarios


def move_status(game, text):
    """'legal', 'illegal (why)' or 'malformed (why)'."""
    try:
        photocore.Move.parse(text)
    except photocore.InvalidMoveError as e:
        return f"malformed ({e})"
    try:
        game.copy().play(text)
    except photocore.IllegalMoveError as e:
        return f"illegal ({e})"
    return "legal"


def cells(args):
    return set() if args == ["-"] else set(args)


def digits(values):
    return "".join(map(str, values))


def pieces(game, p):
    counts = [a + b for a, b in zip(game.available(p), game.player_board(p))]
    for owner, size in game.board().values():
        counts[size] += owner == p
    return digits(counts)


# expect WHAT ARGS -> (expected, what the game shows), compared with ==
CHECKS = {
    "light": lambda g, a: (a[0], "/".join(map(str, g.light))),
    "legal": lambda g, a: ("legal", move_status(g, " ".join(a)).split(" ")[0]),
    "illegal": lambda g, a: ("illegal", move_status(g, " ".join(a)).split(" ")[0]),
    "malformed": lambda g, a: ("malformed", move_status(g, " ".join(a)).split(" ")[0]),
    "moves": lambda g, a: (int(a[0]), len(g.legal_moves())),
    "shaded": lambda g, a: (cells(a), set(g.shaded())),
    "activated": lambda g, a: (cells(a), set(g.activated())),
    "piece": lambda g, a: ((int(a[1]), int(a[2])), g.board().get(a[0])),
    "empty": lambda g, a: (None, g.board().get(a[0])),
    "available": lambda g, a: (a[1], digits(g.available(int(a[0])))),
    "playerboard": lambda g, a: (a[1], digits(g.player_board(int(a[0])))),
    "pieces": lambda g, a: (a[1], pieces(g, int(a[0]))),
    "tokens": lambda g, a: ([] if a[1:] == ["-"] else [int(v) for v in a[1:]],
                            list(g.tokens(int(a[0])))),
    "stacks": lambda g, a: (a[0], digits(g.stacks)),
    "scores": lambda g, a: ([int(v) for v in a], list(g.scores())),
    "winners": lambda g, a: ([int(v) for v in a], list(g.winners())),
    "round": lambda g, a: (int(a[0]), g.round),
    "sun": lambda g, a: (int(a[0]), g.sun),
    "first": lambda g, a: (int(a[0]), g.first_player),
    "to-move": lambda g, a: (a[0], "-" if g.current_player is None else str(g.current_player)),
    "phase": lambda g, a: (a[0], g.phase),
    "position": lambda g, a: (" ".join(a), g.position()),
}


def run(scenario, source):
    """Plays a scenario; AssertionError names source:line, the scenario and what differs."""
    game = None
    for number, keyword, rest in scenario.steps:
        where = f"{source}:{number}: scenario {scenario.name}: {keyword} {rest}"
        if keyword == "position":
            try:
                game = photocore.Game.from_position(rest)
            except photocore.InvalidPositionError as e:
                raise AssertionError(f"{where}\n  bad position: {e}") from None
        elif keyword == "play":
            try:
                game.play(rest)
            except ValueError as e:
                raise AssertionError(f"{where}\n  cannot play it: {e}") from None
        elif keyword == "expect":
            what, *args = rest.split()
            if what not in CHECKS or not args:
                raise AssertionError(f"{where}\n  unknown expectation (see the file's header)")
            expected, got = CHECKS[what](game, args)
            if expected != got:
                detail = move_status(game, " ".join(args)) if what in ("legal", "illegal",
                                                                        "malformed") else got
                raise AssertionError(f"{where}\n  expected {expected}, got {detail}\n  at "
                                     f"{game.position()}")


ALL = parse(SCENARIOS.read_text(encoding="utf-8"), SCENARIOS.name)


@pytest.mark.parametrize("scenario", ALL, ids=[s.name for s in ALL])
def test_scenario(scenario):
    run(scenario, SCENARIOS.name)


def test_scenarios_cover_every_section_of_the_rules():
    names = [s.name for s in ALL]
    assert len(set(names)) == len(names), "scenario names must be unique"
    assert len(ALL) >= 25
    rules = " ".join(rest for s in ALL for _, keyword, rest in s.steps if keyword == "rule")
    covered = set(re.findall(r"§(\d(?:\.\d)?)", rules))
    assert {"1", "2", "3", "4", "5.1", "5.2", "5.3", "5.4", "6", "7", "8", "9"} <= covered


def test_a_wrong_expectation_names_the_scenario_line_and_values():
    text = """
scenario demo
rule §5.1
position 2 - 1 0 0 0 - a4:0:1,g1:1:1 3/2210/4432/- 0/2210/4432/- 0579
expect light 3/0
expect light 4/0
"""
    [scenario] = parse(text, "demo.txt")
    with pytest.raises(AssertionError, match=r"demo.txt:6: scenario demo: expect light 4/0\n"
                                             r"  expected 4/0, got 3/0"):
        run(scenario, "demo.txt")


def test_a_wrong_legality_expectation_gives_the_engine_reason():
    text = "scenario demo\nrule §5.2\nposition 2 - 1 0 0 0 - - 0/2210/4432/- 0/2210/4432/- 0579\n" \
           "expect legal buy seed\n"
    with pytest.raises(AssertionError, match=r"demo.txt:4: .*\n  expected legal, got illegal "
                                             r"\(buy seed: needs 1 light"):
        run(parse(text, "demo.txt")[0], "demo.txt")


@pytest.mark.parametrize("text,message", [
    ("play end\n", r"x.txt:1: play before the first scenario"),
    ("scenario a\nrule r\nposition p\nexpct light 1/1\n", r"x.txt:4: expected `scenario NAME`"),
    ("scenario a\nrule r\nplay end\nposition p\nexpect x\n", r"x.txt:1: scenario a needs one "),
    ("scenario a\nposition p\nexpect x\n", r"x.txt:1: scenario a needs a rule"),
])
def test_the_parser_names_the_bad_line(text, message):
    with pytest.raises(ValueError, match=message):
        parse(text, "x.txt")
