"""Every long call stops at Ctrl-C (docs/hardening.md, "Every long call stops at Ctrl-C").

The compiled loops run without the GIL, where Python's own SIGINT handler cannot run: each
long one plays in chunks and looks for a signal between two. The surfaces are found in the
code: every `with nogil:` block of src/**/*.pyx is named in NOGIL below, by the function
that holds it, with the public call that reaches it (a case run here) or the reason it is
bounded; a block that is not named fails test_every_nogil_block_is_listed, so the next one
is covered or said to be bounded. Each case runs in its own process with a budget of hours,
gets SIGINT once it is working, and must end with KeyboardInterrupt (a command: exit 130)
within LIMIT seconds (1 s asked, slack for a loaded machine), leaving no process behind.
"""
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support import alive, started

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
LIMIT = 2.0          # seconds from SIGINT to the process's end (1 s asked, slack for load)
WORKING = 0.5        # seconds the call runs before SIGINT

# the calls, each with an hours-long budget: code run after `from photocore import *` etc.
CASES = {
    "random_playouts": "photocore.random_playouts(10**12)",
    "Game.playouts": "Game().playouts(photocore._game.MAX_PLAYOUTS)",
    "playouts": "photocore.playouts([Game()] * 4, n=photocore._game.MAX_PLAYOUTS // 4, "
                "threads=2)",
    "playouts-one-thread": "photocore.playouts([Game()], n=photocore._game.MAX_PLAYOUTS, "
                           "threads=1)",
    "Game.perft": "Game().perft(12)",
    "Agent.select": "Agent('mcts', 0, 10**7).select(Game())",
    "Agent.select-graph": "Agent('mcts', 0, 10**7, graph=True).select(Game())",
    "search_root": "search_root(Game(), 10**7)",
    "play_games": "play_games([('mcts', 10**7), ('random', 0)], 2, None, 0, 0, 1)",
    "play_games-random": "play_games([('random', 0), ('random', 0)], 2, None, 0, 0, 10**6)",
    "solve": "photocore.solve(Game(), photocore.Limit(seconds=10**6))",
    "proven_move": "proven_move(Game(), 10**15)",
    "VecGame-opponents": "VecGame(2, opponents='mcts:10000000', seat=1).reset()",
    "Search.run": "Search([Game()], 10**6, settings=SearchSettings(max_nodes=1 << 26))"
                  ".run(uniform)",
}

PRELUDE = """
import sys
import numpy as np
import photocore, photocore._game
from photocore import Agent, Game, VecGame
from photocore.play import play_games, proven_move, search_root
from photocore.play._search import Search
from photocore.play.settings import SearchSettings

def uniform(obs, mask):
    return (np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32))
"""

# every `with nogil:` block, by the function that holds it: the CASES that reach it, or
# "bounded: why" for a block that cannot run long
NOGIL = {
    "_game.pyx:random_playouts": ["random_playouts"],
    "_game.pyx:run_part": ["playouts", "playouts-one-thread"],
    "_game.pyx:_playout": "bounded: one game, at most MAX_GAME_MOVES moves",
    "_game.pyx:_playouts_from": ["Game.playouts"],
    "_game.pyx:_perft": ["Game.perft"],
    "env/_vec.pyx:_run_part": ["VecGame-opponents"],
    "env/_vec.pyx:_run_all": ["VecGame-opponents"],
    "env/_vec.pyx:random_actions": "bounded: one draw per game of the VecGame",
    "env/_vec.pyx:sample_actions": "bounded: one draw per game of the VecGame",
    "env/_vec.pyx:scores": "bounded: one score per game and seat",
    "env/_vec.pyx:_checked_actions": "bounded: one legality check per game",
    "play/_search.pyx:ask": "bounded: one batch (in_flight walks a game); Search.run "
                                 "looks between batches",
    "play/_search.pyx:_tell": "bounded: one batch's rows (two blocks)",
    "play/_solver.pyx:solve": ["solve"],
    "play/_solver.pyx:proven_move": ["proven_move"],
    "play/_agents.pyx:select": ["Agent.select", "Agent.select-graph"],
    "play/_agents.pyx:search_root": ["search_root"],
    "play/_agents.pyx:play_games": ["play_games", "play_games-random"],
}

DEFINITION = re.compile(r"^\s*(?:async\s+)?(?:cpdef|cdef|def)\s+(?:[\w\[\]:, *]+\s+)?(\w+)\(")


def nogil_blocks():
    """Each `with nogil:` block of src/**/*.pyx as "path:function" (path from
    src/photocore), the function being the definition above it."""
    found = []
    for path in sorted((SRC / "photocore").rglob("*.pyx")):
        function = None
        for line in path.read_text().splitlines():
            match = DEFINITION.match(line)
            if match:
                function = match.group(1)
            if re.match(r"^\s*with nogil\s*:", line):
                found.append(f"{path.relative_to(SRC / 'photocore').as_posix()}:{function}")
    return found


def test_every_nogil_block_is_listed():
    found = set(nogil_blocks())
    assert found, "no `with nogil:` block found: the scan is broken"
    unlisted = sorted(found - set(NOGIL))
    assert not unlisted, (f"`with nogil:` blocks not in NOGIL: {unlisted}; name the public "
                          "call that reaches each (a case of CASES that is interrupted) or "
                          "why it is bounded")
    stale = sorted(set(NOGIL) - found)
    assert not stale, f"NOGIL names blocks that are gone: {stale}"
    for where, reached in NOGIL.items():
        if isinstance(reached, str):
            assert reached.startswith("bounded: "), where
        else:
            assert reached and set(reached) <= set(CASES), where


def test_every_case_reaches_a_block():
    reached = {case for cases in NOGIL.values() if not isinstance(cases, str)
               for case in cases}
    assert set(CASES) - reached <= {"Search.run"}     # Search.run: Python between batches


def run_interrupted(command, started, stdin=None):
    """Starts `command`, waits for `started` on its output (a line), lets it work WORKING
    seconds, sends SIGINT; returns (return code, seconds from SIGINT to the end, output)."""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    process = subprocess.Popen(command, stdin=subprocess.PIPE if stdin else None,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    try:
        if stdin:
            process.stdin.write(stdin)
            process.stdin.flush()
        if started is not None:
            line = process.stdout.readline()
            assert started in line, line
        time.sleep(WORKING)
        assert process.poll() is None, "finished before the signal: give it a larger budget"
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{command}: still running 30 s after SIGINT")
        taken = time.monotonic() - sent
        output = process.stdout.read().decode(errors="replace")
        return process.returncode, taken, output
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if stdin:
            process.stdin.close()
        process.stdout.close()


TIMES = {}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.slow
def test_long_call_stops_at_ctrl_c(case):
    code = PRELUDE + textwrap.dedent(f"""
        print("started", flush=True)
        try:
            {CASES[case]}
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """)
    status, taken, output = run_interrupted([sys.executable, "-c", code], b"started")
    TIMES[case] = taken
    print(f"{case}: {taken:.3f} s")
    assert status == 3 and "KeyboardInterrupt" in output, output[-2000:]
    assert taken < LIMIT, f"{case}: {taken:.2f} s from SIGINT to the end"


CLI = {
    "playouts": (["playouts", "--games", "10000000000000"], None),
    "solve": (["solve", "2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579", "--seconds",
               "1000000"], None),
    "selfplay": (["selfplay", "--agents", "mcts:10000000,random", "--games", "1",
                  "--workers", "1", "--out", "{tmp}/games.jsonl"], None),
    "analyze-serve": (["analyze", "--serve", "--workers", "2", "--agent", "mcts:200",
                       "--max-visits", "10000000", "--no-solve"],
                      b'{"id": 1, "visits": 10000000}\n{"id": 2, "visits": 10000000, '
                      b'"moves": ["place a1"]}\n'),
}


@pytest.mark.parametrize("name", sorted(CLI))
@pytest.mark.slow
def test_long_command_exits_130_at_ctrl_c(name, tmp_path):
    arguments, stdin = CLI[name]
    arguments = [a.format(tmp=tmp_path) for a in arguments]
    command = [sys.executable, "-m", "photocore", *arguments]
    status, taken, output = run_interrupted_after(command, stdin, 1.5)
    print(f"photocore {name}: {taken:.3f} s")
    assert status == 130, output[-2000:]
    assert taken < LIMIT, f"photocore {name}: {taken:.2f} s from SIGINT to the end"


def run_interrupted_after(command, stdin, delay):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, env=env)
    try:
        if stdin:
            process.stdin.write(stdin)
            process.stdin.flush()       # left open: a server reads on
        time.sleep(delay)
        started(process)
        assert process.poll() is None, process.stdout.read().decode(errors="replace")
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{command}: still running 60 s after SIGINT")
        taken = time.monotonic() - sent
        assert not alive(process.pid)
        return process.returncode, taken, process.stdout.read().decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()


# ---- what the chunks must not change, and the limits that came with them -----------------

def test_chunked_playouts_play_the_same_games():
    # the totals and arrays of the build before the chunks (over SIGNAL_CHUNK = 4096 games,
    # so cut in several), byte for byte
    import hashlib

    import photocore
    from photocore import Game, random_playouts
    assert random_playouts(10000, players=3, seed=5) == {
        "games": 10000, "moves": 1784431, "score_sums": (192818, 192480, 191814),
        "wins": (3342, 3359, 3405), "win_shares": (3303.5, 3325.0, 3371.5)}
    returns = Game(players=2).playouts(9000, seed=11)
    assert hashlib.sha256(returns.tobytes()).hexdigest() == (
        "f7ecc555db89b95d7b12f35104ab362fcc59e5cc0f4958e6d7cce06a0dcdc379")
    returns = photocore.playouts([Game(players=4)] * 3, n=5000, seed=2, threads=2)
    assert hashlib.sha256(returns.tobytes()).hexdigest() == (
        "509a8839a1583a9c3c06faf20bbeaf7332f2478073a09f8b6d8b3417e44e5377")
    assert Game().perft(4) == 73440         # past PERFT_SPLIT: counted by subtrees


def test_playouts_n_is_capped_before_any_memory_is_taken():
    import photocore
    from photocore import Game
    from photocore._game import MAX_PLAYOUTS
    for n in (2**31, 2**62, MAX_PLAYOUTS + 1):
        with pytest.raises(ValueError, match=r"^n must be from 0 to 134,217,728"):
            Game().playouts(n)
        with pytest.raises(ValueError, match=r"^n must be from 0 to"):
            photocore.playouts([Game()], n=n)
    with pytest.raises(ValueError, match=r"^n must be from 0 to 67,108,864 for 2 games"):
        photocore.playouts([Game(), Game()], n=MAX_PLAYOUTS // 2 + 1)


@pytest.mark.parametrize("call", [
    "Game().playouts(True)", "photocore.playouts([Game()], n=True)",
    "photocore.random_playouts(True)", "VecGame(2).set_game(True, Game())",
    "VecGame(2).game(False)", "VecGame(True)", "Game().perft(True)",
    "play_games([('random', 0)] * 2, 2, None, 0, True, 1)",
    "play_games([('random', 0)] * 2, 2, None, 0, 0, True)",
    "Agent('mcts', 0, True)", "proven_move(Game(), True)",
])
def test_a_bool_is_no_count_or_index(call):
    import photocore  # noqa: F401
    from photocore import Agent, Game, VecGame  # noqa: F401
    from photocore.play import play_games, proven_move  # noqa: F401
    with pytest.raises(TypeError, match="bool|True|False"):
        eval(call)
