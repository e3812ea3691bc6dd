"""What every command shares: a file it cannot write is told in one line and nothing is
left behind; counts with thousands separators; zero games refused; the option flags and
help texts generated from the option table and the agent registry; the files the README's
commands write are ignored by git."""

import os
import pathlib
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from photocore.cli import main
from photocore.facts import OPTION_RULES
from photocore.play._agents import BUILTIN_AGENTS

ROOT = pathlib.Path(__file__).resolve().parent.parent
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
    "match --out": lambda out: ["match", "greedy", "random", "--games", 2, "--no-progress",
                                "--out", out],
    "tournament --out": lambda out: ["tournament", "greedy", "random", "mcts:2", "--games", 2,
                                     "--no-progress", "--out", out],
}
# the commands that write game records: OUT must be named .jsonl or .jsonl.gz
RECORD_WRITERS = {"selfplay --out", "match --out", "tournament --out"}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_every_command_that_writes_says_in_one_line_why_it_cannot(tmp_path, command):
    if command == "stats --plot":
        pytest.importorskip("matplotlib")
    (tmp_path / "file").write_text("a file")
    name = "out.jsonl" if command in RECORD_WRITERS else "out"
    for out, why in [(tmp_path / "missing" / name, f"the folder {tmp_path / 'missing'} "
                                                   "does not exist"),
                     (tmp_path / "file" / name, f"{tmp_path / 'file'} is not a folder")]:
        result = cli(*WRITERS[command](out))
        assert result.exit_code == 1, result.output
        assert one_line_error(result.output) == f"Error: cannot write {out}: {why}"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("command", sorted(set(WRITERS) - RECORD_WRITERS))
def test_a_write_that_fails_is_one_line_and_leaves_nothing(tmp_path, command, monkeypatch):
    if command == "stats --plot":
        pytest.importorskip("matplotlib")

    def refused(source, target):
        raise PermissionError(13, "Permission denied", source)   # the hidden temporary file

    monkeypatch.setattr(os, "replace", refused)
    out = tmp_path / "out"
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


# ---- the smaller things --------------------------------------------------------------------

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
    assert ("Invalid value for '--games': 0 is not in the range "
            "1<=x<=9223372036854775807.") in result.output
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
    assert re.search(r"`pip install \.` takes about \d+ (seconds|minutes)", install), \
        "install time"
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
