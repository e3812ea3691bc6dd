"""The engine protocol (docs/protocol.md): the example engines in C and Python play legal
games, and every kind of misbehaviour loses the game with its reason, after which the
engine is started again and plays on."""

import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from support import alive

import photocore
from photocore import records
from photocore.play import harness, specs
from photocore.play.player import Forfeit
from photocore.play.protocol import MAX_LINE, Engine

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINES = ROOT / "examples" / "engines"

# An engine that misbehaves once, in the way its first argument names, at its Nth move;
# the marker file (third argument) makes the engine started after it behave.
BAD = textwrap.dedent('''
    import os, sys, time
    mode, at, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    once = not os.path.exists(marker)
    moves, legal = 0, []

    def say(text):
        sys.stdout.write(text + "\\n")
        sys.stdout.flush()

    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "photocore":
            if once and mode == "silent":
                open(marker, "w").close()
                time.sleep(60)
            if once and mode == "chatty":
                open(marker, "w").close()
                say("hello")
            if once and mode == "babble":           # info forever, never ready
                open(marker, "w").close()
                while True:
                    say(("info " + "x" * 1000 + "\\n") * 100)
            say("info loading")
            say("ready name=bad-" + mode)
        elif command == "legal":
            legal = rest.split(",")
        elif command == "go":
            moves += 1
            if once and moves == at:
                open(marker, "w").close()
                if mode == "crash":
                    sys.stderr.write("boom: out of cheese\\n")
                    sys.stderr.flush()
                    os._exit(3)
                if mode == "segfault":
                    os.kill(os.getpid(), 11)
                if mode == "hang":
                    time.sleep(60)
                if mode == "garbage":
                    say("bestmove e2e4")
                if mode == "overlong":
                    say("info " + "x" * 20000)
                if mode == "endless":
                    sys.stdout.write("x" * 100000)
                    sys.stdout.flush()
                    time.sleep(60)
                if mode == "illegal":
                    say("move grow d4")
                if mode == "malformed":
                    say("move fly to the moon")
                if mode == "binary":
                    sys.stdout.buffer.write(bytes(range(256)) + b"\\n")
                    sys.stdout.flush()
                if mode == "twice":           # in one write: found before the next go
                    say("move " + legal[0] + "\\nmove " + legal[0])
                    continue
                if mode == "exit":
                    sys.exit(0)
                if mode in ("overtime", "flood"):     # info for 3 s (or forever), no pause
                    end = time.monotonic() + (3 if mode == "overtime" else 1e9)
                    while time.monotonic() < end:
                        say(("info " + "x" * 1000 + "\\n") * 100)
                if mode == "flood-after":             # its move, then info forever
                    say("move " + legal[0])
                    while True:
                        say(("info " + "x" * 1000 + "\\n") * 100)
                if mode in ("garbage", "overlong", "illegal", "malformed", "binary"):
                    continue          # it answered (wrongly): no second answer
            say("info depth 1")
            say("move " + legal[0])
        elif command == "quit":
            break
''')


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory):
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("c_engine") / "random_engine"
    subprocess.run([compiler, "-O2", "-Wall", "-Werror", "-o", str(out),
                    str(ENGINES / "random_engine.c")], check=True, capture_output=True)
    return out


def bad_engine(tmp_path, mode, at=3, **settings):
    script = tmp_path / "bad_engine.py"
    script.write_text(BAD)
    return Engine([sys.executable, script, mode, str(at), tmp_path / f"{mode}.done"],
                  **{"grace": 300, "startup": 2, **settings})


def play(engine, other="greedy", seed=1):
    """A game of `engine` against `other`, the engine given 100 ms a move."""
    game = photocore.Game()
    played = harness.play_game(game, [engine, specs.load(other)], seeds=[seed, seed + 1],
                               limit=photocore.Limit(seconds=0.1))
    return game, played


def test_the_c_example_engine_plays_legal_games_and_sends_info(c_engine):
    engine = specs.load(f"cmd:{c_engine}")
    try:
        for seed in range(3):
            game, played = play(engine, seed=seed)
            assert game.is_over and played.forfeit is None
            assert engine.name == "random-c"
            # one info line per move of seat 0, numbered by the ply it came with
            assert played.info and all(lines[0].endswith("legal moves")
                                       for lines in played.info.values())
        assert engine.restarts == 0
    finally:
        engine.close()


def test_the_python_example_engine_plays_legal_games():
    engine = specs.load(f'cmd:"{shlex.join([sys.executable, str(ENGINES / "simple_engine.py")])}"')
    try:
        game, played = play(engine, other="random")
        assert game.is_over and played.forfeit is None and engine.name == "simple-python"
    finally:
        engine.close()


def test_the_same_seed_gives_the_c_engine_the_same_game(c_engine):
    engine = specs.load(f"cmd:{c_engine}")
    try:
        first, _ = play(engine, other="random", seed=5)
        again, _ = play(engine, other="random", seed=5)
        assert first.history == again.history
    finally:
        engine.close()


def test_a_transcript_shows_the_conversation(c_engine):
    lines = []
    engine = Engine([c_engine], transcript=lines.append)
    try:
        engine.reset(seed=3)
        engine.select(photocore.Game())
    finally:
        engine.close()
    assert lines[:3] == ["> photocore 1", "< ready name=random-c", "> newgame seed=3"]
    assert lines[3] == "> position 2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579"
    assert lines[4].startswith("> legal place a4,place a5,")
    assert lines[5:7] == ["> go movetime=1000", "< info 18 legal moves"]
    assert lines[7].startswith("< move place ")


@pytest.mark.parametrize("mode,reason", [
    ("crash", "exited with status 3 (boom: out of cheese)"),
    ("segfault", "crashed: killed by SIGSEGV"),
    ("exit", "exited with status 0"),
    ("hang", "no move within 100 ms + 300 ms of grace"),
    ("garbage", "protocol error: 'bestmove e2e4' instead of 'move' or 'info'"),
    ("binary", "protocol error: "),
    ("overlong", f"protocol error: a line longer than {MAX_LINE} bytes"),
    ("endless", f"protocol error: a line longer than {MAX_LINE} bytes"),
    ("illegal", "illegal move grow d4: "),
    ("malformed", "protocol error: malformed move: "),
    ("twice", "protocol error: 'move "),
])
def test_each_fault_loses_the_game_and_the_engine_restarts(tmp_path, mode, reason):
    engine = bad_engine(tmp_path, mode)
    try:
        game, played = play(engine)
        seat, said, detail = played.forfeit
        assert seat == 0 and said.startswith(reason), said
        assert not game.is_over
        # the fault came at the engine's third move (the extra move of 'twice' is found
        # when its fourth is asked for), after two moves of each side
        assert len(game.history) >= 4
        if mode == "crash":
            assert "boom: out of cheese" in detail
        again, played = play(engine)                 # a new game: started again, plays
        assert again.is_over and played.forfeit is None
        expected_restarts = 0 if mode in ("illegal",) else 1
        assert engine.restarts == expected_restarts
    finally:
        engine.close()


@pytest.mark.parametrize("mode, reason", [
    ("overtime", "no move within 100 ms + 300 ms of grace"),
    ("flood", "no move within 100 ms + 300 ms of grace"),
    ("flood-after", "no move within 100 ms + 300 ms of grace"),
    ("babble", "no 'ready' within 0.5 s of the greeting"),
])
def test_an_engine_that_writes_past_its_time_forfeits_at_its_deadline(tmp_path, mode, reason):
    # the time runs from `go` whatever the engine writes: lines past it are too late. The
    # harness takes 2 ms a line here (a busy machine), so there is always more to read
    engine = bad_engine(tmp_path, mode, startup=0.5, transcript=lambda line: time.sleep(0.002))
    done = []
    worker = threading.Thread(target=lambda: done.append(play(engine)), daemon=True)
    worker.start()
    worker.join(30)                 # a hang, else moments past the deadline
    try:
        assert done, f"the {mode} engine held the game for 30 s"
        game, played = done[0]
        assert played.forfeit[:2] == (0, reason)
        assert not game.is_over and engine.restarts == 0
    finally:
        engine.close()


@pytest.mark.slow
def test_a_match_against_an_engine_that_floods_info_ends_with_its_forfeits(tmp_path):
    script = tmp_path / "flood.py"
    script.write_text(textwrap.dedent('''
        import sys
        for line in sys.stdin:
            if line.startswith("photocore"):
                print("ready name=flood", flush=True)
            elif line.startswith("go"):
                while True:
                    sys.stdout.write("info x\\n" * 1000)
                    sys.stdout.flush()
    '''))
    spec = f'cmd:"{shlex.join([sys.executable, str(script)])}"'
    done = subprocess.run([sys.executable, "-m", "photocore", "match", "--agents",
                           f"{spec},random", "--games", "2", "--workers", "1", "--seconds",
                           "0.15", "--grace", "0"], capture_output=True, text=True, timeout=60)
    # it forfeits both its games: exit status 1, after the summary
    assert done.returncode == 1, done.stderr
    assert "Error: flood forfeited every game it played (2 games)" in done.stderr
    assert "forfeits: flood 2" in done.stdout
    assert done.stderr.count("forfeits: no move within 150 ms + 0 ms of grace") == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper keeps it")
def test_an_engine_that_floods_its_error_output_does_not_fill_the_disk(tmp_path):
    script = tmp_path / "loud.py"
    script.write_text(textwrap.dedent('''
        import sys
        moves, legal = 0, []
        for line in sys.stdin:
            word, _, rest = line.strip().partition(" ")
            if word == "photocore":
                print("ready", flush=True)
            elif word == "legal":
                legal = rest.split(",")
            elif word == "go":
                moves += 1
                if moves == 2:
                    sys.stderr.write("last words\\n")
                    sys.exit(3)
                for _ in range(300):
                    sys.stderr.write("x" * 99_999 + "\\n")
                print("move", legal[0], flush=True)
    '''))
    engine = Engine([sys.executable, script])
    try:
        game = photocore.Game()
        game.play(engine.select(game, photocore.Limit(seconds=10)))
        # 30 MB written: the file holds its last part only
        assert os.fstat(engine._stderr.fileno()).st_size < 2 * 1024 * 1024
        with pytest.raises(Forfeit, match=r"status 3 \(last words\)"):
            engine.select(game, photocore.Limit(seconds=10))
    finally:
        engine.close()


@pytest.mark.slow
def test_what_an_engine_says_reaches_the_terminal_escaped(tmp_path):
    # its name, its reason and its error output: no escape sequence, bell, bidirectional
    # override or undecodable byte of the engine's (or of its spec) is written raw
    script = tmp_path / "evil\x1b[2J.py"
    script.write_text(textwrap.dedent('''
        import sys
        for line in sys.stdin:
            if line.startswith("photocore"):
                sys.stdout.buffer.write(b"ready name=\\x1b[31mred\\x07\\xe2\\x80\\xaeevil\\n")
                sys.stdout.flush()
            elif line.startswith("go"):
                sys.stderr.buffer.write(b"dying \\x1b]0;title\\x07 \\x1b[2J\\n")
                sys.exit(3)
    '''))
    done = subprocess.run([sys.executable, "-m", "photocore", "match", "--agents",
                           f"cmd:{shlex.join([sys.executable, str(script)])},random",
                           "--games", "1", "--workers", "1", "--no-progress"],
                          capture_output=True, timeout=60)
    said = done.stdout + done.stderr
    assert done.returncode == 1 and b"forfeited every game it played" in said, said
    assert b"\x1b" not in said and b"\x07" not in said and "\u202e".encode() not in said
    assert b"\\x1b[31mred\\x07\\u202eevil (seat 0) forfeits: exited with status 3 (dying " \
        b"\\x1b]0;title\\x07 \\x1b[2J)" in said
    assert specs.parse(f"cmd:{script}").short == "evil\\x1b[2J.py"
    assert specs.parse(f"cmd:{script}\udcff").label == f"cmd:{tmp_path}/evil\\x1b[2J.py\\udcff"


@pytest.mark.parametrize("mode,reason", [
    ("silent", "no 'ready' within 0.5 s of the greeting"),
    ("chatty", "protocol error: 'hello' before 'ready'"),
])
def test_an_engine_that_does_not_greet_properly_forfeits_its_first_game(tmp_path, mode, reason):
    engine = bad_engine(tmp_path, mode, startup=0.5)
    try:
        game, played = play(engine)
        assert played.forfeit[:2] == (0, reason) and game.history == []
        again, played = play(engine)
        assert again.is_over and played.forfeit is None
    finally:
        engine.close()


def test_a_program_that_does_not_exist_forfeits(tmp_path):
    engine = Engine([tmp_path / "nothing-here"])
    game, played = play(engine)
    assert played.forfeit[0] == 0 and played.forfeit[1].startswith("cannot start ")
    assert "No such file" in played.forfeit[1]


def test_info_lines_are_kept_per_move(tmp_path):
    engine = bad_engine(tmp_path, "none")
    try:
        game, played = play(engine)
        assert game.is_over and played.forfeit is None
        seat0_plies = [ply for ply in range(1, len(game.history) + 1)
                       if ply in played.info]
        assert seat0_plies and all(played.info[p] == ["depth 1"] for p in seat0_plies)
        rec = records.to_record(game, {"agents": ["bad", "greedy"], **played.metadata()})
        assert rec["metadata"]["info"][str(seat0_plies[0])] == ["depth 1"]
    finally:
        engine.close()


# An engine that starts a child in a session of its own and a daemon (a double fork: its
# parent gone, it is nobody's child), gives their pids as its name, and then leaves on
# quit, or with "stubborn" ignores quit, the end of its input and SIGTERM.
FAMILY = textwrap.dedent('''
    import os, signal, subprocess, sys, time
    stubborn = sys.argv[1:] == ["stubborn"]
    if stubborn:
        for signum in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             start_new_session=True)
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        daemon = os.fork()
        if daemon:
            os.write(w, b"%d" % daemon)
            os._exit(0)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        time.sleep(60)
        os._exit(0)
    os.wait()
    daemon = int(os.read(r, 20))
    print("ready name=%d,%d" % (child.pid, daemon), flush=True)
    for line in sys.stdin:
        if line.strip() == "quit" and not stubborn:
            sys.exit(0)
    while True:
        time.sleep(1)
''')


def family(tmp_path):
    script = tmp_path / "family_engine.py"
    script.write_text(FAMILY)
    return script


def all_gone(pids, seconds=5):
    deadline = time.monotonic() + seconds
    while any(map(alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(map(alive, pids))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", ["quits", "stubborn"])
def test_close_ends_the_engine_and_everything_it_started(tmp_path, how):
    # its child in a session of its own and its daemon too, whether it quits or not
    engine = Engine([sys.executable, family(tmp_path), how])
    engine.start()
    pids = [engine.pid, *map(int, engine.name.split(","))]
    assert all(map(alive, pids))
    start = time.monotonic()
    engine.close()
    assert time.monotonic() - start < 5
    assert all_gone(pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow
def test_an_engine_started_by_a_thread_lives_with_its_harness_and_dies_with_it(tmp_path):
    # a server starts engines from worker threads: the engine outlives the thread, and
    # dies with the harness, even by kill -9, with everything it started
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(f'''
        import sys, threading, time
        from photocore.play.protocol import Engine
        engine = Engine([sys.executable, {str(family(tmp_path))!r}, "stubborn"])
        thread = threading.Thread(target=engine.start)
        thread.start()
        thread.join()
        time.sleep(0.5)
        print(engine.pid, engine.name, flush=True)
        time.sleep(60)
    '''))
    process = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)
    try:
        engine, family_pids = process.stdout.readline().split()
        pids = [int(engine), *map(int, family_pids.split(","))]
        assert all(map(alive, pids))               # the thread that started it is gone
    finally:
        process.kill()
        process.wait(10)
    assert all_gone(pids)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow
def test_a_child_forked_by_the_harness_does_not_keep_its_engines_alive(tmp_path, c_engine):
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(f'''
        import os, time
        from photocore.play.protocol import Engine
        engine = Engine([{str(c_engine)!r}])
        engine.start()
        child = os.fork()
        if child == 0:
            time.sleep(60)
            os._exit(0)
        print(engine.pid, child, flush=True)
        time.sleep(60)
    '''))
    process = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)
    engine, child = map(int, process.stdout.readline().split())
    try:
        process.kill()
        process.wait(10)
        assert alive(child) and all_gone([engine])
    finally:
        os.kill(child, signal.SIGKILL)


def test_a_sigterm_to_the_harness_kills_its_engines(tmp_path, c_engine):
    # a process that started an engine, then gets SIGTERM (what a stopped pool's workers get)
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(f'''
        import time
        from photocore.play.protocol import Engine
        engine = Engine([{str(c_engine)!r}])
        engine.start()
        print(engine.pid, flush=True)
        time.sleep(60)
    '''))
    process = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE, text=True)
    engine_pid = int(process.stdout.readline())
    assert alive(engine_pid)
    process.send_signal(signal.SIGTERM)
    assert process.wait(10) == -signal.SIGTERM
    deadline = time.monotonic() + 5
    while alive(engine_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(engine_pid)


@pytest.mark.slow
def test_a_harness_that_exits_with_an_engine_running_says_nothing(tmp_path):
    # an engine still running at exit (a match's worker ends so) is killed quietly: no
    # "Exception ignored in Engine.__del__" on stderr after the summary
    script = tmp_path / "harness.py"
    script.write_text(textwrap.dedent(f'''
        import photocore
        from photocore.play import harness, specs
        spec = specs.parse("cmd:{shlex.join([sys.executable, str(ENGINES / "simple_engine.py")])}")
        engine = harness.player(spec)               # kept by the harness, as in a worker
        engine.select(photocore.Game())
        print(engine.pid, engine.name, engine.announced, flush=True)
    '''))
    done = subprocess.run([sys.executable, script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    pid, name, announced = done.stdout.split()
    assert name == announced == "simple-python"
    assert not alive(int(pid))


def test_select_before_reset_starts_the_engine(c_engine):
    engine = Engine([c_engine])
    try:
        assert engine.select(photocore.Game()) in photocore.Game().legal_moves()
    finally:
        engine.close()
