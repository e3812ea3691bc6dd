"""`photocore play`, driven through a pseudo-terminal (pexpect) as a person would: typed
moves, tab completion, the history of lines, the commands, Ctrl-C and Ctrl-D."""

import os
import re
import sys
import textwrap

import pytest
from click.testing import CliRunner

import photocore
from photocore import records
from photocore.cli.play import play

pexpect = pytest.importorskip("pexpect")

PROMPT = re.compile(r"(player \d|game over)> ")
UP = "\x1b[A"


def spawn(*args, timeout=30, color=False):
    code = "from photocore.cli.play import play; play()"
    colors = [] if color else ["--no-color"]
    child = pexpect.spawn(sys.executable, ["-c", code, *colors, *args], encoding="utf-8",
                          timeout=timeout, dimensions=(60, 200),
                          env={**os.environ, "TERM": "xterm", "INPUTRC": os.devnull})
    return child


def prompt(child):
    """Waits for the next prompt; the text printed before it."""
    child.expect(PROMPT)
    return child.before


def say(child, line):
    """Types `line` and Enter; what the program printed before its next prompt."""
    child.sendline(line)
    return prompt(child)


@pytest.mark.slow
def test_moves_commands_completion_and_history(tmp_path):
    child = spawn("--agents", "random", "--seed", "1")
    text = prompt(child)
    assert "photocore play: player 0 (you), player 1 (random)" in text
    assert "setup: player 0 places a small tree" in text
    assert "place a4" in say(child, "moves")
    child.send("pla\t")                         # completes the common prefix (and rings)
    child.expect(r"pla\x07?ce ")
    text = say(child, "a4")
    assert re.search(r"player 1 \(random\): place \w\d", text)
    assert "a4           0S" in text             # the board, drawn after the reply
    child.send("posi\t")                        # a whole command
    child.expect(r"posi\x07?tion")
    text = say(child, "")
    game = photocore.Game.from_position(text.strip().splitlines()[-1].strip())
    assert game.board()["a4"] == (0, 1) and len(game.board()) == 2
    assert say(child, UP).strip().splitlines()[-1].strip() == game.position()   # history
    text = say(child, "collect d4")
    assert "illegal move collect d4" in text
    assert "not a move or a command" in say(child, "fly away")
    assert "help" in say(child, "help") and "save FILE" in child.before
    hints = say(child, "hint")
    assert len(re.findall(r"place \w\d +value [+-]\d\.\d\d \(\d+ playouts\)", hints)) == 3
    say(child, "place g1")
    text = say(child, "undo")
    assert re.search(r"taken back: place g1, place \w\d", text)
    path = tmp_path / "game.jsonl"
    assert f"saved 2 moves to {path}" in say(child, f"save {path}")
    assert "cannot write" in say(child, f"save {tmp_path}/no/such/folder.jsonl")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    rec = records.read_game(path, 1)
    assert rec["moves"][0] == "place a4" and rec["metadata"]["agents"] == ["person", "random"]
    assert records.from_record(rec).position() == game.position()


@pytest.mark.slow
def test_a_whole_game_then_continue_its_record(tmp_path):
    child = spawn("--agents", "greedy", "--seat", "1", "--seed", "2")
    text = prompt(child)
    assert "player 0 (greedy): place" in text
    moves = 0
    while True:
        if "game over" in child.after:
            break
        phase = say(child, "moves")
        line = next(m for m in phase.strip().splitlines() if m.startswith(("place", "end")))
        text = say(child, line.split(",")[0].strip())   # a placement, else end the turn
        moves += 1
        assert moves < 100 and "illegal" not in text
    assert re.search(r"game over: players? [01].* wins? \(player 0 \(greedy\) \d+", text)
    assert "none: the game is over" in say(child, "moves")
    path = tmp_path / "whole.jsonl"
    say(child, f"save {path}")
    child.sendeof()                              # Ctrl-D leaves
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    result = CliRunner().invoke(photocore.cli.main, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    # continue the record from a ply where player 0 (the person by default) is to move
    rec = records.read_game(path, 1)
    ply = next(k for k in range(12, len(rec["moves"]))
               if records.from_record(rec, ply=k).current_player == 0)
    cut = dict(rec, moves=rec["moves"][:ply], result=None)
    records.write_games(tmp_path / "cut.jsonl", [cut])
    child = spawn("--record", str(tmp_path / "cut.jsonl"), "--agents", "random")
    prompt(child)
    text = say(child, "position")
    assert text.strip().splitlines()[-1].strip() == records.from_record(cut).position()
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_ctrl_c_leaves_cleanly():
    child = spawn("--agents", "random")
    prompt(child)
    child.sendintr()
    child.expect("interrupted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "Traceback" not in child.before


@pytest.mark.slow
def test_from_a_position():
    game = photocore.Game()
    for text in ("place a4", "place g1", "place d1", "place d7"):
        game.play(text)
    child = spawn("--position", game.position(), "--agents", "random", color=True)
    text = prompt(child)
    assert "round 1 of 18" in text and "\x1b[31m" in text      # on a terminal, in colour
    assert "cannot save" in say(child, "save x.jsonl")
    child.sendline("quit")
    child.expect(pexpect.EOF)


@pytest.mark.slow
def test_a_failing_agent_forfeits(tmp_path):
    path = tmp_path / "crash.py"
    path.write_text(textwrap.dedent("""
        class Crash:
            def select(self, game):
                raise RuntimeError("out of cheese")
    """))
    child = spawn("--agents", f"py:{path}:Crash")
    prompt(child)
    text = say(child, "place a4")
    assert "forfeits (select() raised RuntimeError: out of cheese): player 0 wins" in text
    assert child.after == "game over> "
    assert "the game is over" in say(child, "place g1")
    assert "the game is over" in say(child, "undo")
    assert "saved 1 moves" in say(child, f"save {tmp_path / 'lost.jsonl'}")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    rec = records.read_game(tmp_path / "lost.jsonl", 1)
    assert rec["metadata"]["forfeit"] == {
        "seat": 1, "reason": "select() raised RuntimeError: out of cheese", "ply": 1}
    assert records.from_record(rec).history == [photocore.Move.parse("place a4")]


def test_an_agent_is_called_by_the_name_it_declares(tmp_path):
    path = tmp_path / "named.py"
    path.write_text("class Named:\n    name = 'Ada'\n"
                    "    def select(self, game):\n        return game.legal_moves()[0]\n")
    child = spawn("--agents", f"py:{path}:Named")
    prompt(child)
    assert "player 1 (Ada)" in say(child, "place a4")
    assert "saved 2 moves" in say(child, f"save {tmp_path / 'named.jsonl'}")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert records.read_game(tmp_path / "named.jsonl", 1)["metadata"]["agents"] == ["person",
                                                                                   "Ada"]


def test_an_agent_that_cannot_play_the_game_is_refused_before_it(tmp_path):
    path = tmp_path / "two.py"
    path.write_text(textwrap.dedent("""
        class TwoPlayers:
            def check(self, game):
                if game.players != 2:
                    raise ValueError(f"plays 2 players, the game has {game.players}")
            def select(self, game):
                return game.legal_moves()[0]
    """))
    result = CliRunner().invoke(play, ["--players", "3", "--agents", f"py:{path}:TwoPlayers"])
    assert result.exit_code == 2, result.output
    assert "--agents" in result.output and "plays 2 players, the game has 3" in result.output


@pytest.mark.parametrize("args, words", [
    (["--seat", "2"], ["--seat", "seats 0 to 1"]),
    (["--players", "3", "--agents", "random,greedy,random"], ["3 agents for 2 other seats"]),
    (["--agents", "alphago"], ["unknown agent 'alphago'"]),
    (["--options", "x"], ["--options"]),
    (["--position", "nonsense"], ["--position"]),
    (["--position", "2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579", "--players", "3"],
     ["the game has 2 players"]),
])
def test_bad_options(args, words):
    result = CliRunner().invoke(play, args)
    assert result.exit_code == 2, result.output
    for word in words:
        assert word in result.output


def test_the_rule_flags_of_every_command_choose_the_rules_here_too():
    def position(*args):
        result = CliRunner().invoke(play, ["--agents", "random", "--seed", "1", "--no-color",
                                           *args], input="position\nquit\n")
        assert result.exit_code == 0, result.output
        printed = result.output.splitlines()[-2].removeprefix("player 0> ")   # `position`
        return photocore.Game.from_position(printed).options
    assert position("--fourth-revolution", "--shade-blocks") == position("--options", "fs") \
        == photocore.Options.parse("fs")
    assert position("--shade-blocks") == photocore.Options.parse("s") != position()
    # a flag that disagrees with the position it starts from is refused, naming both
    game = photocore.Game(options="f")
    result = CliRunner().invoke(play, ["--position", game.position(), "--shade-blocks"])
    assert result.exit_code == 2 and "--options" in result.output, result.output


def test_help_lists_the_cells_a_bad_cell_is_pointed_to():
    result = CliRunner().invoke(play, ["--agents", "random", "--seed", "1"],
                                input="grow z9\nhelp\nquit\n")
    assert result.exit_code == 0, result.output
    assert "'z9' is not a cell of the board (help lists them)" in result.output
    cells = re.search(r"^Cells, row by row: (.+)$", result.output, re.M)[1].split(", ")
    assert cells == ["a4-a7", "b3-b7", "c2-c7", "d1-d7", "e1-e6", "f1-f5", "g1-g4"]
    named = {f"{span[0]}{n}" for span in cells
             for n in range(int(span[1:span.index("-")]), int(span.split("-")[1][1:]) + 1)}
    assert named == set(photocore.facts.CELLS)
