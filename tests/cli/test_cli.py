"""What every command shares: one vocabulary, read from the commands themselves (the same
option names for the same ideas, no spelling that was never released); a file it
cannot write is told in one line and nothing is left behind; counts with thousands
separators; zero games refused; the option flags and help texts generated from the option
table and the agent registry; the files the README's commands write are ignored by git."""

import importlib
import os
import pathlib
import re
import shutil
import subprocess

import click
import pytest
from click.testing import CliRunner

from photocore import random_playouts
from photocore.cli import main
from photocore.cli.options import SEED, parse_agents
from photocore.facts import OPTION_RULES
from photocore.play._agents import BUILTIN_AGENTS
from photocore.run.driver import drive

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "seeds" / "golden.jsonl"
RUN = ["--agents", "greedy,random", "--seed", "1", "--no-progress"]


def cli(*args, **kwargs):
    return CliRunner().invoke(main, [str(a) for a in args], **kwargs)


def one_line_error(output):
    """The output is one line, `Error: ...` (no traceback, no usage); returns it."""
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), output
    return lines[0]


# ---- files that cannot be written --------------------------------------------------------

WRITERS = {
    "selfplay --out": lambda out: ["selfplay", "--games", 2, "--no-progress", "--out", out],
    "export --npz": lambda out: ["export", GOLDEN, "--npz", out],
    "replay --html": lambda out: ["replay", GOLDEN, "--html", out],
    "stats --plot": lambda out: ["stats", GOLDEN, "--plot", out],
    "repair --out": lambda out: ["repair", GOLDEN, "--out", out],
    "match --out": lambda out: ["match", "--agents", "greedy,random", "--games", 2,
                                "--no-progress", "--out", out],
    "tournament --out": lambda out: ["tournament", "--agents", "greedy,random,mcts:2",
                                     "--games-per-group", 2, "--no-progress", "--out", out],
}
# the commands that write game records: OUT must be named .jsonl or .jsonl.gz
RECORD_WRITERS = {"selfplay --out", "match --out", "tournament --out"}
# the others whose file must be named by what it holds
SUFFIXES = {"export --npz": ".npz", "stats --plot": ".png", "replay --html": ".html"}


def named(command):
    """A name the file `command` writes may have."""
    return "out" + (".jsonl" if command in RECORD_WRITERS else SUFFIXES.get(command, ""))


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_command_that_writes_says_in_one_line_why_it_cannot(tmp_path, command):
    if command == "stats --plot":
        pytest.importorskip("matplotlib")
    (tmp_path / "file").write_text("a file")
    name = named(command)
    for out, why in [(tmp_path / "missing" / name, f"the folder {tmp_path / 'missing'} "
                                                   "does not exist"),
                     (tmp_path / "file" / name, f"{tmp_path / 'file'} is not a folder")]:
        result = cli(*WRITERS[command](out))
        assert result.exit_code == 1, result.output
        assert one_line_error(result.output) == f"Error: cannot write {out}: {why}"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("command", sorted(set(WRITERS) - RECORD_WRITERS))
@pytest.mark.slow
def test_a_write_that_fails_is_one_line_and_leaves_nothing(tmp_path, command, monkeypatch):
    if command == "stats --plot":
        pytest.importorskip("matplotlib")

    def refused(source, target):
        raise PermissionError(13, "Permission denied", source)   # the hidden temporary file

    monkeypatch.setattr(os, "replace", refused)
    out = tmp_path / named(command)
    result = cli(*WRITERS[command](out))
    assert result.exit_code == 1, result.output
    error = f"Error: cannot write {out}: Permission denied"
    if command == "stats --plot":      # the summary is printed first, then the chart fails
        assert result.output.endswith(f"\n{error}\n") and "Traceback" not in result.output
    else:
        assert one_line_error(result.output) == error
    assert list(tmp_path.iterdir()) == []                     # its temporary file removed


@pytest.mark.parametrize("command", sorted(RECORD_WRITERS))
def test_game_records_are_written_to_jsonl_or_jsonl_gz_only(tmp_path, command):
    for name in ["a.txt", "a.json", "a.gz", "a.JSONL", "a.jsonl.zip"]:
        out = tmp_path / name
        result = cli(*WRITERS[command](out))
        assert result.exit_code == 2, result.output
        assert (f"Invalid value for '--out': {out}: game records are written to a .jsonl "
                "file (or .jsonl.gz, compressed)") in result.output
        assert result.output.startswith("Usage: ") and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command, suffix, told", [
    ("export --npz", ".npz", "the arrays are written to a .npz file"),
    ("stats --plot", ".png", "the charts are drawn into a .png file"),
    ("replay --html", ".html", "the page is written to a .html file"),
])
def test_every_file_written_is_named_by_what_it_holds(tmp_path, command, suffix, told):
    # as game records are .jsonl: export --npz out.txt wrote a zip named .txt
    option = command.split()[1]
    for name in ["out.txt", f"out{suffix}.txt", "out"]:
        out = tmp_path / name
        result = cli(*WRITERS[command](out))
        assert result.exit_code == 2, result.output
        assert f"Invalid value for '{option}': {out}: {told}" in result.output
    assert list(tmp_path.iterdir()) == []
    if command == "stats --plot":
        pytest.importorskip("matplotlib")       # the plot extra draws it
    assert cli(*WRITERS[command](tmp_path / f"out{suffix}")).exit_code == 0
    assert [p.name for p in tmp_path.iterdir()] == [f"out{suffix}"]


@pytest.mark.parametrize("command", [
    ["verify"], ["stats"], ["stats", "--plot", "{tmp}/p.png"], ["export", "--npz", "{tmp}/e.npz"],
    ["analyze", "--out", "{tmp}/a.jsonl", "--no-progress"], ["repair"]])
def test_an_empty_file_is_0_games_to_every_command_reading_records(tmp_path, command):
    if "--plot" in command:
        pytest.importorskip("matplotlib")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    result = cli(command[0], empty, *[a.format(tmp=tmp_path) for a in command[1:]])
    assert result.exit_code == 0, result.output
    assert re.search(r"\b0 games\b", result.output), result.output
    assert empty.read_bytes() == b"" and not (tmp_path / "a.jsonl").exists()
    # a file of bad lines only is no record file at all: an error, as before
    (tmp_path / "bad.jsonl").write_text("not a record\n")
    if command[0] in ("stats", "repair"):
        assert cli(command[0], tmp_path / "bad.jsonl").exit_code == 1


def test_playouts_shares_a_ties_win_as_selfplay_and_stats_do():
    # 2,000 random 2-player games from seed 3 hold ties: each counted a whole win for each
    # winner, the seats' rates added up to more than 100%
    result = cli("playouts", "--games", 2000, "--seed", 3)
    assert result.exit_code == 0, result.output
    rates = [float(rate) for rate in re.findall(r"wins ([\d.]+)%", result.output)]
    assert len(rates) == 2 and sum(rates) == pytest.approx(100, abs=0.11)
    totals = random_playouts(2000, seed=3)
    assert sum(totals["wins"]) > 2000       # the ties are there


# ---- the smaller things --------------------------------------------------------------------

@pytest.mark.slow
def test_counts_have_thousands_separators(tmp_path):
    result = cli("selfplay", "--out", tmp_path / "g.jsonl", "--games", 12, *RUN)
    assert re.search(r"^12 games, \d,\d{3} moves in ", result.output, re.MULTILINE), result.output
    result = cli("playouts", "--games", 30)
    assert re.search(r"^30 random games, 2 players, seed 0: \d,\d{3} moves in", result.output)


@pytest.mark.parametrize("command", ["selfplay", "playouts"])
def test_zero_games_are_refused(tmp_path, command):
    out = tmp_path / "never.jsonl"
    result = cli(command, "--games", 0, *(["--out", out] if command == "selfplay" else []))
    assert result.exit_code == 2
    assert "Invalid value for '--games': 0 is not in the range x>=1." in result.output
    assert not out.exists()


def test_what_the_readme_writes_into_the_checkout_is_ignored_by_git():
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        pytest.skip("not a git checkout")
    # the README's commands, and those of the page its self-play section moved to
    readme = (ROOT / "README.md").read_text() + (ROOT / "docs" / "selfplay.md").read_text()
    written = set(re.findall(r"(?:--out|--npz|--html|--plot) ([\w.]+)", readme))
    written |= set(re.findall(r'(?:write_games|RecordWriter)\("([\w.]+)"', readme))
    assert {"games.jsonl.gz", "out.npz", "game25.html", "golden.png", "match.jsonl"} <= written
    for name in sorted(written):
        done = subprocess.run(["git", "check-ignore", "-q", name], cwd=ROOT)
        assert done.returncode == 0, f"{name} (written by the README's commands) is not ignored"


def test_the_readme_says_how_long_the_set_up_takes_and_selfplay_how_to_stop_ray():
    readme = (ROOT / "README.md").read_text()
    setup = readme[readme.index("## Set-up"):readme.index("## A short tour")]
    install, tests = setup.split("Run the tests")
    # a measured time, with the machine it was measured on
    assert re.search(r"`pip install \.`.*? took (\d+ min )?\d+ s .*?on a [\w ,-]*2-core \w+",
                     " ".join(install.split())), "install time"
    assert re.search(r"about \d+(-\d+)? minutes on 2 cores", tests), "test time"
    assert "docs/selfplay.md" in readme
    selfplay = (ROOT / "docs" / "selfplay.md").read_text()
    ray = selfplay[selfplay.index("ray start --head"):]
    assert "ray stop" in ray and "every Ray process" in ray


# ---- options and help from the tables ------------------------------------------------------

@pytest.mark.parametrize("command", ["selfplay", "match", "tournament", "playouts"])
def test_every_rule_of_the_option_table_is_a_flag_with_its_help(command):
    text = " ".join(cli(command, "--help").output.split())
    for rule in OPTION_RULES:
        assert f"--{rule.name.replace('_', '-')} Advanced rule: {rule.help}." in text
    assert "--options TEXT" in text


@pytest.mark.parametrize("command", ["selfplay", "match"])
def test_the_help_lists_every_built_in_agent(command):
    text = " ".join(cli(command, "--help").output.split())
    for agent in BUILTIN_AGENTS.values():
        assert (f"{agent.name} or {agent.name}:SIMULATIONS" if agent.budget
                else f"{agent.name},") in text


def test_flags_and_the_text_form_give_the_same_rules():
    def playouts(*args):
        result = cli("playouts", "--games", 50, "--players", 3, *args)
        assert result.exit_code == 0, result.output
        return result.output.split(" in ")[0]
    flags = [f"--{rule.name.replace('_', '-')}" for rule in OPTION_RULES]
    every = "".join(rule.letter for rule in OPTION_RULES)
    assert playouts(*flags) == playouts("--options", every) == playouts(flags[0], "--options",
                                                                        every)
    assert playouts("--options", "-") == playouts() != playouts(*flags)
    result = cli("playouts", "--options", "x")
    assert result.exit_code == 2 and "Invalid value for '--options': options 'x'" in result.output


# ---- one vocabulary -----------------------------------------------------------------------

COMMANDS = sorted(main.commands)
# what no visible option may be called any more: agents are --agents or --agent, and a file
# of JSON a command writes is --summary FILE
OLD_WORDS = {"--opponents", "--engine", "--score", "--json"}
# what a command reads, as its usage line names it: a record file, or a position
ARGUMENTS = {"FILE", "FILES...", "POSITION|FILE"}
AGENT_OPTIONS = {"--agents": "SPEC,...", "--agent": "SPEC"}
# the one option that takes agents and is no command's agents: those an analysis query may
# choose besides --agent
AGENTS_A_QUERY_MAY_CHOOSE = ("analyze", "--allow")


def options_of(name):
    """The options of command `name` that --help shows."""
    return [p for p in main.commands[name].params
            if isinstance(p, click.Option) and not p.hidden]


def names(option):
    return [*option.opts, *option.secondary_opts]


def help_of(name):
    return " ".join(cli(name, "--help").output.split())


def runs_a_plan(name):
    """Whether command `name` runs a plan through the driver (run/driver.py's drive)."""
    module = importlib.import_module(main.commands[name].callback.__module__)
    return vars(module).get("drive") is drive


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_speaks_the_one_vocabulary(name):
    command = main.commands[name]
    ctx = click.Context(command, info_name=name)
    shown = {flag: option for option in options_of(name) for flag in names(option)}
    assert not OLD_WORDS & set(shown), name
    # no agents as arguments: --agents
    assert not [p for p in command.params if isinstance(p, click.Argument)
                and "agents" in p.name]
    # what it reads is FILE (or FILES): --games is a count
    assert {piece for p in command.params if isinstance(p, click.Argument)
            for piece in p.get_usage_pieces(ctx)} <= ARGUMENTS, name
    for flag, option in shown.items():
        metavar = option.metavar or ""
        if flag in AGENT_OPTIONS:       # agents: --agents SPEC,... (one syntax) or --agent SPEC
            assert metavar == AGENT_OPTIONS[flag], (name, flag)
            assert flag == "--agent" or option.callback is parse_agents, (name, flag)
        elif "SPEC" in metavar:
            assert (name, flag) == AGENTS_A_QUERY_MAY_CHOOSE and metavar == "SPEC,...", flag
        if "seed" in option.name:       # every seed is the one SEED type
            assert option.type is SEED and flag == "--seed", (name, flag)
        if flag == "--summary":         # a file of JSON the command writes: one option
            assert isinstance(option.type, click.Path) and option.metavar == "FILE", name
            assert option.help.startswith("Also write ") and option.help.endswith(
                " as JSON to this file."), name
        if flag == "--game":            # a game as people number them: from 1, as lines
            assert option.type.min == 1, name
        if flag == "--games":           # a total, in every command
            assert not re.search(r"\b(per|each) (pairing|group)", option.help or ""), name
    # a search's budget is simulations in every help text
    assert not re.search(r"\bN playouts|playouts (a|per) (position|move)", help_of(name))
    # no range reads as a limit that is none: a long long's 9223372036854775807
    assert not re.search(r"\d{16}", help_of(name)), name
    # every command that runs a plan runs it on this machine or on a Ray cluster
    ray = {"--backend", "--address", "--connect-timeout"}
    assert (ray <= set(shown)) == runs_a_plan(name) == bool(ray & set(shown)), name
    # every command that starts games of a number of players takes the same rule options
    if "--players" in shown:
        rules = {f"--{rule.name.replace('_', '-')}" for rule in OPTION_RULES}
        assert {"--options", *rules} <= set(shown), name


def test_the_vocabulary_reaches_the_commands_it_names():
    # (the test above holds them to it: here, that it has something to hold)
    assert {name for name in COMMANDS if runs_a_plan(name)} == {
        "selfplay", "match", "tournament", "analyze"}
    assert {name for name in COMMANDS if "--agents" in names_of(name)} == {
        "selfplay", "match", "tournament", "play", "serve"}
    assert {name for name in COMMANDS if "--agent" in names_of(name)} == {"analyze", "solve"}
    assert {name for name in COMMANDS if "--summary" in names_of(name)} == {
        "match", "tournament", "bench", "solve"}
    assert {name for name in COMMANDS if "--players" in names_of(name)} >= {
        "selfplay", "match", "tournament", "playouts", "play"}
    assert "--group" not in help_of("match")
    assert "--games-per-group" in names_of("tournament") and "--games" not in names_of(
        "tournament")


def names_of(name):
    return {flag for option in options_of(name) for flag in names(option)}


# ---- no old spellings: nothing was released before 0.2.0 --------------------------------

@pytest.mark.parametrize("args, told", [
    (["match", "greedy", "random", "--games", 2], "Got unexpected extra arguments"),
    (["tournament", "--agents", "a,b,c", "--games", 2], "No such option '--games'"),
    (["play", "--opponents", "greedy"], "No such option '--opponents'"),
    (["analyze", "--serve", "--engine", "mcts:5"], "No such option '--engine'"),
    (["solve", "2", "--score", "greedy"], "No such option '--score'"),
    (["bench", "--json", "out.json"], "No such option '--json'"),
])
def test_a_spelling_never_released_is_a_usage_error(args, told):
    result = cli(*args)
    assert result.exit_code == 2 and told in result.output, result.output


def test_solve_seconds_below_the_solvers_range_is_a_usage_error():
    # the solver takes 1e-9 s at least: --help said x>0 and 1e-10 got "seconds must be ..."
    # and exit 1; the range is the option's own now
    result = cli("solve", "2", "--seconds", "1e-10")
    assert result.exit_code == 2, result.output
    assert "--seconds" in result.output and "1e-09" in result.output
    assert "x>=1e-09" in cli("solve", "--help").output
