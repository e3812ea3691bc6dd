"""Every line from outside has a cap (docs/hardening.md): the class test finds every place in
src/photocore that reads from a file, a stream, a pipe, a socket or the terminal, and
checks that each is named in READERS with its cap (photocore.limits) and the test that
feeds it a line past the cap, or in BOUNDED with the reason it needs none. A new reading
site fails test_every_reader_is_named until it is added to one of them, with its test."""

import ast
import gzip
import io
import os
import pathlib
import resource
import subprocess
import sys
import time
import tracemalloc
import zlib

import click
import pytest
from click.testing import CliRunner

import photocore.limits as limits
from photocore import records
from photocore._game import Game
from photocore.cli import main as cli_main
from photocore.errors import RecordError
from photocore.limits import RECORD_LINE_CAP

SRC = pathlib.Path(__file__).resolve().parents[2] / "src" / "photocore"
TESTS = pathlib.Path(__file__).resolve().parents[1]

# (module, function, what it calls) -> (its cap in photocore.limits, the test feeding it
# a line past the cap: "file::test", "::test" for this file's)
READERS = {
    ("records/read.py", "_lines", "open"): ("RECORD_LINE_CAP", "::test_records_refuse_a_long_line"),
    ("records/read.py", "capped_lines", "readline"):
        ("RECORD_LINE_CAP", "::test_records_refuse_a_long_line"),
    ("records/read.py", "read_past", "readline"):
        ("RECORD_READ_PAST", "::test_dev_zero_is_refused_quickly"),
    ("records/writer.py", "_prepare_append", "open"):
        ("RECORD_LINE_CAP", "::test_append_refuses_a_long_last_line"),
    ("records/writer.py", "_prepare_append", "read"):
        ("RECORD_LINE_CAP", "::test_append_refuses_a_long_last_line"),
    ("records/writer.py", "_unfinished_member", "open"):
        ("RECORD_LINE_CAP", "::test_gzip_resume_scan_refuses_a_long_line"),
    ("records/writer.py", "_unfinished_member", "read"):
        ("RECORD_LINE_CAP", "::test_gzip_resume_scan_refuses_a_long_line"),
    ("run/analysis.py", "AnalysisRun._read", "open"):
        ("RECORD_LINE_CAP", "::test_analysis_offsets_refuse_a_long_line"),
    ("run/analysis.py", "AnalysisRun._read", "readline"):
        ("RECORD_LINE_CAP", "::test_analysis_offsets_refuse_a_long_line"),
    ("run/analysis.py", "_line_starts", "open"):
        ("RECORD_LINE_CAP", "::test_analysis_offsets_refuse_a_long_line"),
    ("play/ground_truth.py", "read", "open"):
        ("SOLVED_LINE_CAP", "::test_solved_set_refuses_a_long_line"),
    ("serve/queries.py", "query_lines", "readline"):
        ("QUERY_LINE_CAP", "::test_query_lines_read_past_a_long_line"),
    ("cli/analyze.py", "analyze", "sys.stdin"):
        ("QUERY_LINE_CAP", "test_analysis.py::test_serve_reads_past_a_query_line_too_long_to_keep"),
    ("play/protocol.py", "Engine._fill", "read"):
        ("ENGINE_LINE_CAP",
         "test_protocol.py::test_each_fault_loses_the_game_and_the_engine_restarts"),
    ("serve/app.py", "_Body.json", "body"): ("HTTP_BODY_CAP", "test_serve.py::test_bad_bodies"),
    ("cli/play.py", "read_command", "readline"):
        ("TERMINAL_LINE_CAP", "::test_play_input_refuses_a_long_line"),
    ("cli/play.py", "read_command", "sys.stdin"):
        ("TERMINAL_LINE_CAP", "::test_play_input_refuses_a_long_line"),
    ("cli/play.py", "read_command", "input"):
        ("TERMINAL_LINE_CAP", "::test_play_input_refuses_a_long_line"),
    ("cli/play.py", "Terminal.run", "read"):
        ("TERMINAL_LINE_CAP", "::test_play_input_refuses_a_long_line"),
}

# sites that read nothing unbounded from outside, with the reason
BOUNDED = {
    ("records/read.py", "is_compressed", "open"): "reads 2 bytes",
    ("records/read.py", "is_compressed", "read"): "reads 2 bytes",
    ("records/writer.py", "RecordWriter.__init__", "open"): "opens the file to write it",
    ("records/writer.py", "_prepare_gzip_append", "open"): "truncates and writes, reads nothing",
    ("records/format.py", "schema", "read_text"): "the package's own record.schema.json",
    ("viewer.py", "<module>", "read_text"): "the package's own page templates",
    ("run/driver.py", "_only_a_cut_last_line", "open"): "reads 1 byte",
    ("run/driver.py", "_only_a_cut_last_line", "read"): "reads 1 byte",
    ("run/speed.py", "Verify.prepare", "open"): "writes the benchmark's own file",
    ("run/speed.py", "machine", "open"): "/proc/cpuinfo, the kernel's",
    ("files.py", "atomic", "open"): "opens to write",
    ("serve/database.py", "_lock_beside", "open"): "a lock file, opened to append, never read",
    ("serve/database.py", "_lock_out_others", "open"): "os.open of the database file for its flock",
    ("serve/database.py", "_lock_out_others", "fdopen"): "the database file, held for its flock, never read",
    ("serve/database.py", "Database.backup", "open"): "our own backup copy, copied in chunks, not lines",
    ("play/_reaper.py", "_children", "open"): "/proc/PID/stat, the kernel's",
    ("play/_reaper.py", "_children", "read"): "/proc/PID/stat, the kernel's",
    ("play/_reaper.py", "_pass_log", "read"): "os.read of 64 KiB, passed on, not kept",
    ("play/_reaper.py", "main", "fdopen"): "our own forked child's exec error, written before exec",
    ("play/_reaper.py", "main", "read"): "our own forked child's exec error, written before exec",
    ("play/_reaper.py", "main", "open"): "os.open of /dev/null",
    ("play/protocol.py", "_report", "recv"):
        "the reaper's first line, 4 KiB at most (len(data) < 4096)",
    ("cli/solve.py", "_score", "read"): "ground_truth.read, capped there",
    # not lines: numpy arrays and agents by name
    ("npz.py", "load", "load"): "np.load of an npz export (binary arrays, allow_pickle=False): "
                                "not lines; its arrays are as large as the file declares",
    ("run/train_data.py", "load_shards", "load"): "np.load of our own training shards",
    ("cli/play.py", "play", "load"): "Spec.load: an agent, not a file",
    ("env/evaluation.py", "_in_python", "load"): "specs.load: an agent",
    ("env/gym.py", "_agent", "load"): "specs.load: an agent",
    ("play/ground_truth.py", "score", "load"): "specs.load: an agent",
    ("play/harness.py", "player", "load"): "Spec.load: an agent",
    ("play/specs.py", "load", "load"): "Spec.load: an agent",
    ("serve/store.py", "Store._restore", "load"):
        "the server's own database, written from capped bodies",
    ("serve/store.py", "Store.get", "load"):
        "the server's own database, written from capped bodies",
    ("serve/worker.py", "Worker._player", "load"): "Spec.load: an agent",
}

_NAMES = {"open", "input", "fdopen"}
_ATTRS = {"readline", "readlines", "read", "read_text", "read_bytes", "readuntil", "readexactly",
          "body", "stream", "load", "open", "fdopen", "recv", "recv_into", "receive", "getline",
          "buffer"}


def reading_sites(root: pathlib.Path = SRC) -> set[tuple[str, str, str]]:
    """(module, enclosing function, call) of every call that may read from outside: open,
    input, fdopen, np/json load, .read/.readline/.readlines/.read_text/.recv/.body/
    .stream/..., and every use of sys.stdin."""
    found = set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()

        def called(f: ast.expr) -> list[str]:
            if isinstance(f, ast.IfExp):   # (gzip.open if compressed else open)(...)
                return called(f.body) + called(f.orelse)
            if isinstance(f, ast.Name) and f.id in _NAMES:
                return [f.id]
            if isinstance(f, ast.Attribute) and f.attr in _ATTRS:
                return [f.attr]
            return []

        def visit(node: ast.AST, scope: str, rel: str = rel) -> None:
            for child in ast.iter_child_nodes(node):
                inner = scope
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = f"{scope}.{child.name}" if scope else child.name
                if isinstance(child, ast.Call):
                    for name in called(child.func):
                        found.add((rel, scope or "<module>", name))
                if (isinstance(child, ast.Attribute) and child.attr == "stdin"
                        and isinstance(child.value, ast.Name) and child.value.id == "sys"):
                    found.add((rel, scope or "<module>", "sys.stdin"))
                visit(child, inner, rel)

        visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


@pytest.mark.slow
def test_every_reader_is_named():
    found = reading_sites()
    new = sorted(found - READERS.keys() - BOUNDED.keys())
    assert not new, f"reading sites with no cap named in READERS or BOUNDED: {new}"
    gone = sorted((READERS.keys() | BOUNDED.keys()) - found)
    assert not gone, f"READERS/BOUNDED name sites no longer in the code: {gone}"
    assert not READERS.keys() & BOUNDED.keys()


def test_the_compiled_sources_read_nothing():
    for path in SRC.rglob("*.pyx"):
        text = path.read_text(encoding="utf-8")
        for word in ("open(", "readline", "sys.stdin", ".read("):
            assert word not in text, f"{path.name} reads ({word}): name it in READERS"


def test_each_reader_has_its_cap_and_its_test():
    for site, (cap, test) in READERS.items():
        assert isinstance(getattr(limits, cap), int), site
        file, _, name = test.partition("::")
        text = (next(TESTS.rglob(file or "test_limits.py"))).read_text(encoding="utf-8")
        assert f"def {name}(" in text, (site, test)


# ---- the record readers ---------------------------------------------------------------------

GOOD = records.record_line(Game(2))
LONG = 3 * RECORD_LINE_CAP      # the line past the cap, 48 MiB
BUDGET = 2 * RECORD_LINE_CAP + 50 * 2**20


def write_bomb(path: pathlib.Path) -> pathlib.Path:
    """A good game, a line of LONG bytes, a good game: a .gz one when `path` says so."""
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "wb") as f:
        f.write(GOOD)
        chunk = b"x" * 2**20
        f.write(b'{"x":"')
        for _ in range(LONG // len(chunk)):
            f.write(chunk)
        f.write(b'"}\n')
        f.write(GOOD)
    return path


def bounded(action):
    """Runs `action`, returning what it returns (or raises), and checks that it held at
    most BUDGET bytes of Python's memory at once and took under 20 s."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        return action()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        seconds = time.perf_counter() - start
        assert peak < BUDGET, f"{peak / 2**20:.0f} MiB held reading a line past the cap"
        assert seconds < 20


def cli(*args: str) -> str:
    result = CliRunner().invoke(cli_main, list(args), catch_exceptions=False)
    return result.output


CAP_WORDS = "a record line longer than 16 MiB"


@pytest.mark.parametrize("name", ["bomb.jsonl", "bomb.jsonl.gz"])
@pytest.mark.parametrize("surface", ["read_games", "read_games-raise", "read_game",
                                     "read_game-other", "verify", "stats", "repair",
                                     "export", "replay", "show", "analyze"])
@pytest.mark.slow
def test_records_refuse_a_long_line(tmp_path, name, surface):
    path = write_bomb(tmp_path / name)
    where = f"{path}:2: {CAP_WORDS}"
    if surface == "read_games":
        reader = records.read_games(path, on_error="skip", verify=True)
        assert len(bounded(lambda: list(reader))) == 2
        assert reader.skipped == 1 and str(reader.errors[0]).startswith(where)
    elif surface == "read_games-raise":
        with pytest.raises(RecordError) as e:
            bounded(lambda: list(records.read_games(path)))
        assert str(e.value).startswith(where) and e.value.line == 2
    elif surface == "read_game":
        with pytest.raises(RecordError) as e:
            bounded(lambda: records.read_game(path, 2))
        assert str(e.value).startswith(where)
    elif surface == "read_game-other":      # the long line is read past, not in the way
        assert bounded(lambda: records.read_game(path, 3))["moves"] == []
    elif surface == "verify":
        out = bounded(lambda: cli("verify", str(path)))
        assert where in out and "1 problem" in out
    elif surface == "stats":
        assert "1 bad line skipped" in bounded(lambda: cli("stats", str(path)))
    elif surface == "repair":
        out = bounded(lambda: cli("repair", str(path)))
        assert f"dropped {where}" in out and "kept 2 whole games" in out
        assert [r["moves"] for r in records.read_games(path)] == [[], []]
    elif surface == "export":
        out = bounded(lambda: cli("export", str(path), "--npz", str(tmp_path / "x.npz")))
        assert where in out
    elif surface in ("replay", "show"):
        extra = ["--html", str(tmp_path / "r.html")] if surface == "replay" else []
        out = bounded(lambda: CliRunner().invoke(
            cli_main, [surface, str(path), "--game", "2", *extra]).output)
        assert where in out
    elif surface == "analyze":
        out = bounded(lambda: CliRunner().invoke(
            cli_main, ["analyze", str(path), "--agent", "mcts:2", "--no-solve", "--workers",
                       "1", "--out", str(tmp_path / "a.jsonl")]).output)
        assert where in out


def limited(code: str, *args: str, seconds: float = 60) -> subprocess.CompletedProcess:
    """`code` run in a child process of at most 2 GiB of address space, for `seconds`."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          timeout=seconds, preexec_fn=limit, text=True,
                          env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.slow
def test_dev_zero_is_refused_quickly():
    code = """if 1:
        import resource, sys, time
        from click.testing import CliRunner
        from photocore import records
        from photocore.cli import main
        CliRunner().invoke(main, ["verify", "--help"])
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        reader = records.read_games("/dev/zero", on_error="skip")
        assert list(reader) == [] and reader.skipped == 1 and reader.damaged
        out = CliRunner().invoke(main, ["verify", "/dev/zero"]).output
        assert "/dev/zero:1: a record line longer than 16 MiB" in out, out
        assert "nothing after it is read" in out, out
        print(time.perf_counter() - start,
              resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
        """
    done = limited(code, seconds=60)
    assert done.returncode == 0, done.stderr[-2000:]
    seconds, kib = done.stdout.split()
    assert float(seconds) < 20
    # what the reading took, past the interpreter and the modules imported before it
    assert int(kib) * 1024 < BUDGET


def test_append_refuses_a_long_last_line(tmp_path):
    path = tmp_path / "games.jsonl"
    with open(path, "wb") as f:
        f.write(GOOD)
        f.write(b"x" * (RECORD_LINE_CAP + 2**20))        # no newline: not a cut record
    with pytest.raises(RecordError, match="last line is longer than 16 MiB"):
        bounded(lambda: records.RecordWriter(path).close())
    assert path.stat().st_size == len(GOOD) + RECORD_LINE_CAP + 2**20   # left as it was


def test_gzip_resume_scan_refuses_a_long_line(tmp_path):
    """An unfinished last gzip member (a killed writer's) is scanned inflating a chunk at
    a time: one that inflates to a line past the cap is refused, not held."""
    path = tmp_path / "games.jsonl.gz"
    member = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as f:
        f.write(gzip.compress(GOOD))
        f.write(member.compress(b"x" * LONG))
        f.write(member.flush(zlib.Z_SYNC_FLUSH))
    with pytest.raises(RecordError, match="longer than 16 MiB"):
        bounded(lambda: records.kept_lines(path))


def test_analysis_offsets_refuse_a_long_line(tmp_path):
    from photocore.run.analysis import AnalysisRun, _line_starts
    path = write_bomb(tmp_path / "bomb.jsonl")
    with pytest.raises(RecordError, match=CAP_WORDS):
        bounded(lambda: _line_starts(str(path)))
    good = tmp_path / "good.jsonl"
    good.write_bytes(GOOD)
    run = AnalysisRun(str(good), "mcts:2", exact=False)
    good.write_bytes(b"x" * LONG)            # changed since it was read
    with pytest.raises(RecordError, match=CAP_WORDS):
        bounded(lambda: list(run._read(0, 1)))


def test_record_line_refuses_a_record_past_the_cap():
    rec = records.to_record(Game(2), {"note": "x" * RECORD_LINE_CAP})
    with pytest.raises(RecordError, match="past the cap of 16 MiB"):
        records.record_line(rec)


# ---- the other readers ------------------------------------------------------------------------

def test_solved_set_refuses_a_long_line(tmp_path):
    from photocore.play import ground_truth
    path = tmp_path / "solved.jsonl"
    path.write_bytes(b"x" * (3 * limits.SOLVED_LINE_CAP))
    with pytest.raises(RecordError, match=r"solved.jsonl, line 1: a line longer than 1 MiB"):
        bounded(lambda: ground_truth.read(path))


def test_query_lines_read_past_a_long_line():
    from photocore.serve.queries import query_lines
    stream = io.BytesIO(b"x" * (5 * limits.QUERY_LINE_CAP) + b"\n{}\n")
    assert bounded(lambda: list(query_lines(stream))) == [None, b"{}\n"]


def test_play_input_refuses_a_long_line(monkeypatch):
    from photocore.cli.play import read_command

    class Piped(io.TextIOWrapper):
        def isatty(self) -> bool:
            return False

    for data, expected in ((b"grow d4\r\nend\n", "grow d4"), (b"", EOFError),
                           (b"x" * (limits.TERMINAL_LINE_CAP + 1), click.ClickException)):
        monkeypatch.setattr(sys, "stdin", Piped(io.BytesIO(data)))
        monkeypatch.setattr(sys, "stdout", io.StringIO())
        if isinstance(expected, str):
            assert read_command("> ") == expected
        else:
            with pytest.raises(expected):
                read_command("> ")
