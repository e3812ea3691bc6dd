"""Every output path: what stands there is respected (a link is followed, a file keeps its
mode, a device or a FIFO stays what it is) and no command writes over one of its inputs
(docs/hardening.md, *Outputs*)."""

import errno
import os
import socket
import stat
import threading
import time

import pytest
from click.testing import CliRunner

import photocore
from photocore import files
from photocore.cli import main

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "..", "seeds", "golden.jsonl")


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture
def games(tmp_path):
    """Three golden games in a file of the test's own."""
    path = tmp_path / "r.jsonl"
    with open(GOLDEN, "rb") as f:
        path.write_bytes(b"".join(f.readline() for _ in range(3)))
    return path


@pytest.fixture
def device(tmp_path):
    """A copy of /dev/null made by mknod (root only), as the issue's attacker made one."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root")
    path = tmp_path / "null"
    os.mknod(path, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    return path


def read_fifo(path, into):
    """Reads the FIFO `path` to its end in a thread, into the list `into`."""
    def read():
        with open(path, "rb") as f:
            into.append(f.read())
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def end_fifo(path):
    """Opens the FIFO `path` for writing and closes it, so that its reader (read_fifo) reads
    its end: again while the reader's thread has not opened it yet (ENXIO, a loaded
    machine's race)."""
    deadline = time.monotonic() + 30
    while True:
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            return
        except OSError as e:
            if e.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


# ---- files.atomic -------------------------------------------------------------------------

def test_atomic_follows_a_link_and_keeps_the_mode(tmp_path):
    target = tmp_path / "target.txt"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with files.atomic(link) as f:
        f.write(b"new")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == b"new" and stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "target.txt"]


def test_atomic_through_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "link.txt"
    link.symlink_to(tmp_path / "made.txt")
    with files.atomic(link) as f:
        f.write(b"made")
    assert link.is_symlink() and (tmp_path / "made.txt").read_bytes() == b"made"


def test_atomic_writes_through_a_device_and_leaves_it_a_device(device):
    with files.atomic(device) as f:
        f.write(b"gone")
    assert stat.S_ISCHR(device.stat().st_mode)


def test_atomic_writes_through_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    reader = read_fifo(fifo, got)
    with files.atomic(fifo) as f:
        f.write(b"through the pipe")
    reader.join(10)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_atomic_refuses_a_socket_before_writing(tmp_path):
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(OSError, match="not a regular file, a character device or a pipe"), \
                files.atomic(path) as f:
            f.write(b"x")
        assert stat.S_ISSOCK(path.stat().st_mode)


def test_same_file_sees_links_and_hard_links(tmp_path, games):
    (tmp_path / "soft").symlink_to(games)
    os.link(games, tmp_path / "hard")
    assert files.same_file(games, tmp_path / "soft") and files.same_file(games, tmp_path / "hard")
    assert files.same_file(games, tmp_path / "." / "r.jsonl")
    assert not files.same_file(games, tmp_path / "other.jsonl")
    assert files.input_among(tmp_path / "hard", ["x", str(games)]) == str(games)


# ---- the commands -------------------------------------------------------------------------

def test_replay_and_export_write_through_a_device_and_a_fifo(device, games, tmp_path):
    result = cli("replay", games, "--html", device)
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(device.stat().st_mode)
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    got = []
    reader = read_fifo(fifo, got)
    result = cli("export", games, "--npz", fifo)
    reader.join(10)
    assert result.exit_code == 0, result.output
    assert stat.S_ISFIFO(fifo.stat().st_mode) and got[0].startswith(b"PK")   # an .npz


def test_repair_keeps_a_link_and_the_mode_of_its_target(games, tmp_path):
    data = games.read_bytes()
    games.write_bytes(data + data[:100])                # a cut last line to drop
    os.chmod(games, 0o600)
    link = tmp_path / "link.jsonl"
    link.symlink_to(games)
    result = cli("repair", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and games.read_bytes() == data
    assert stat.S_IMODE(games.stat().st_mode) == 0o600


@pytest.mark.parametrize("command", [
    ["export", "{in}", "--npz", "{out}"],
    ["replay", "{in}", "--html", "{out}"],
    ["stats", "{in}", "--plot", "{out}"],
    ["analyze", "{in}", "--agent", "mcts:2", "--out", "{out}", "--resume"],
])
@pytest.mark.parametrize("how", ["itself", "a link", "a hard link"])
def test_no_command_writes_over_its_input(games, tmp_path, command, how):
    suffix = suffix_of(f"{command[0]} {command[-3 if command[-1] == '--resume' else -2]}")
    out = {"itself": games, "a link": tmp_path / f"soft{suffix}",
           "a hard link": tmp_path / f"hard{suffix}"}[how]
    if how == "a link":
        out.symlink_to(games)
    elif how == "a hard link":
        os.link(games, out)
    before = games.read_bytes()
    result = cli(*[str(a).format(**{"in": games, "out": out}) for a in command])
    if how == "itself" and suffix != ".jsonl":      # refused by its name first
        assert result.exit_code == 2 and f"{out}: the " in result.output, result.output
        assert games.read_bytes() == before
        return
    assert result.exit_code == 1, result.output
    assert "one of the files this command reads: choose another" in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
    assert games.read_bytes() == before


def test_match_and_tournament_write_over_no_agent_file_and_not_one_file_twice(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text("class First:\n    def select(self, game):\n"
                     "        return game.legal_moves()[0]\n")
    source = agent.read_bytes()
    result = cli("tournament", "--agents", f"py:{agent}:First,random,greedy",
                 "--games-per-group", 2, "--summary", agent, "--no-progress")
    assert result.exit_code == 1 and "one of the files this command reads" in result.output
    assert agent.read_bytes() == source
    out = tmp_path / "t.jsonl"
    result = cli("tournament", "--agents", "random,greedy,mcts:2", "--games-per-group", 2,
                 "--out", out, "--summary", out, "--no-progress")
    assert result.exit_code == 1 and "one of the files this command reads" in result.output
    assert not out.exists()


def test_the_bench_summary_is_written_whole_through_a_link(tmp_path, monkeypatch):
    from photocore.run import speed
    pytest.importorskip("pyperf")
    monkeypatch.setattr(speed, "workloads", lambda quick: [])     # the writing, not the timing
    target = tmp_path / "report.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    result = cli("bench", "--summary", link)
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and target.read_text().startswith('{\n "format": "photocore-bench"')


def test_a_terminal_game_is_not_saved_over_its_record(games):
    from photocore.cli.play import Terminal
    from photocore.play.session import Session
    said = []
    game = photocore.records.from_record(photocore.records.read_game(games, 1))
    table = Terminal(Session(game, [None, None], "test"), {}, None, 100, False,
                     echo=said.append, inputs=[str(games)])
    before = games.read_bytes()
    table._save(str(games))
    assert "one of the files this command reads" in said[-1]
    assert games.read_bytes() == before
    table._save(str(games.parent / "saved.jsonl"))
    assert len(list(photocore.read_games(games.parent / "saved.jsonl"))) == 1


# ---- every output option, found in the commands themselves --------------------------------

def suffix_of(option):
    """What the file of "COMMAND --option" must be named (its OutputFile callback's first
    suffix), or .jsonl where any name will do."""
    from photocore.cli import main
    from photocore.cli.output import OutputFile
    command, flag = option.split()
    param = next(p for p in main.commands[command].params if flag in p.opts)
    return param.callback.suffixes[0] if isinstance(param.callback, OutputFile) else ".jsonl"


def output_options():
    """Every option or argument of photocore's commands that names a file to write, read
    from the click commands: a click.Path that need not exist (exists=False) and may be a
    file (file_okay): a file read is declared exists=True. "COMMAND --option" each."""
    import click
    found = []

    def walk(command, names):
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, [*names, name])
            return
        for param in command.params:
            kind = param.type
            if isinstance(kind, click.Path) and not kind.exists and kind.file_okay:
                found.append(" ".join([*names, param.opts[0]]))
    walk(main, [])
    return sorted(found)


RUN = ["--no-progress", "--workers", 1]
# how to run each command onto OUT ({in}: three golden games); a new output option must be
# added here (the guard below): the output rules then hold for it too
OUTPUTS = {
    "selfplay --out": ["selfplay", "--games", 1, "--agents", "random,random", *RUN,
                       "--out", "{out}"],
    "match --out": ["match", "--agents", "random,greedy", "--games", 2, *RUN, "--out", "{out}"],
    "tournament --out": ["tournament", "--agents", "random,greedy,random",
                         "--games-per-group", 2, *RUN, "--out", "{out}"],
    "tournament --summary": ["tournament", "--agents", "random,greedy,random",
                             "--games-per-group", 2, *RUN, "--summary", "{out}"],
    "match --summary": ["match", "--agents", "random,greedy", "--games", 2, *RUN,
                        "--summary", "{out}"],
    "solve --summary": ["solve", "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
                        "0/2200/4432/- 0579", "--summary", "{out}"],
    "bench --summary": ["bench", "--summary", "{out}"],
    "stats --plot": ["stats", "{in}", "--plot", "{out}"],
    "export --npz": ["export", "{in}", "--npz", "{out}"],
    "replay --html": ["replay", "{in}", "--html", "{out}"],
    "repair --out": ["repair", "{in}", "--out", "{out}"],
    "analyze --out": ["analyze", "{in}", "--agent", "mcts:2", "--out", "{out}"],
    "serve --backup": ["serve", "--db", "{db}", "--backup", "{out}"],
    # a database, not an output: its rules are tests/server/test_serve_online.py's (a link is the
    # same database, a device, a FIFO or a folder refused)
    "serve --db": None,
}


# record files (RecordWriter): one that exists is refused without --resume, even a device
# or a FIFO (found by the test below; docs/hardening.md)
RECORDS = {"selfplay --out", "match --out", "tournament --out", "analyze --out"}


def test_every_output_option_is_known():
    found = output_options()
    print("outputs:", found)
    assert found == sorted(OUTPUTS), "an output option this file does not run: add it to OUTPUTS"


@pytest.fixture
def runnable(monkeypatch, tmp_path, games):
    """Runs OUTPUTS' command onto `out`: its result."""
    from photocore.run import speed
    from photocore.serve.database import Database
    monkeypatch.setattr(speed, "workloads", lambda quick: [])     # the writing, not the timing
    db = tmp_path / "db.sqlite3"
    Database(db).close()

    def run(option, out):
        words = OUTPUTS[option]
        if words[0] == "bench":
            pytest.importorskip("pyperf")
        if option == "stats --plot":
            pytest.importorskip("matplotlib")
        result = cli(*[str(w).format(**{"in": games, "out": out, "db": db}) for w in words])
        if result.exit_code != 0 and "pip install 'photocore[" in result.output:
            if stat.S_ISFIFO(os.lstat(out).st_mode):
                end_fifo(out)       # the reader waits no more
            pytest.skip(f"{option} needs an extra not installed here: {result.output.strip()}")
        return result
    return run


@pytest.mark.parametrize("option", [o for o, words in OUTPUTS.items() if words])
@pytest.mark.parametrize("what", ["a link", "a 0600 file", "a character device", "a FIFO"])
@pytest.mark.slow
def test_every_output_respects_what_stands_at_its_path(option, what, runnable, tmp_path):
    out = tmp_path / f"out{suffix_of(option)}"
    target = tmp_path / "target.jsonl"
    got = []
    if what == "a link":
        target.write_bytes(b"old")
        out.symlink_to(target)
    elif what == "a 0600 file":
        out.write_bytes(b"old")
        os.chmod(out, 0o600)
    elif what == "a character device":
        if os.geteuid() != 0:
            pytest.skip("mknod needs root")
        os.mknod(out, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
    else:
        os.mkfifo(out)
        reader = read_fifo(out, got)
    result = runnable(option, out)
    if option in RECORDS:       # a record file that exists is resumed or refused, by design
        if what == "a FIFO":
            end_fifo(out)
            reader.join(30)
        assert result.exit_code == 2 and "exists: choose another --out" in result.output
        assert what not in ("a link", "a 0600 file") or (target if what == "a link"
                                                          else out).read_bytes() == b"old"
        return
    if what == "a FIFO":
        if result.exit_code != 0:
            end_fifo(out)       # the reader waits no more
        reader.join(30)
    assert result.exit_code == 0, result.output
    if what == "a link":
        assert out.is_symlink() and target.read_bytes() not in (b"old", b"")
    elif what == "a 0600 file":
        assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_bytes() != b"old"
    elif what == "a character device":
        assert stat.S_ISCHR(out.stat().st_mode)
    else:
        assert stat.S_ISFIFO(out.stat().st_mode) and got and got[0]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")], "left behind"
