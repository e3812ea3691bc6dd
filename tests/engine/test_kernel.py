"""The kernel plays the same games for the same seed across versions and code paths.

A seeded playout, self-play game or agent game is reproducible from its seed: the random
draw (k = rng_below(number of legal moves), then the k-th legal move in ascending id order)
and the rules must not change, whatever is done to make them faster. The expected values
below are those of the kernel before it was rewritten for speed (commit 5ae7a7d); they
change only with RULES_VERSION.
"""

import hashlib
import json
import os
import subprocess
import sys

import pytest

import photocore
from photocore import Options, _kernel
from photocore.play._agents import play_games

# (players, options bits: 1 fourth revolution, 2 shade blocks, random_playouts(500) moves,
#  score sums, wins, sha256 of 200 random-agent games' moves)
SEEDED = [
    (2, 0, 62364, (11055, 11248), (254, 251), "20a0b580b44d3bf2"),
    (2, 1, 86482, (22683, 22646), (254, 246), "9e435521a9a9287b"),
    (2, 2, 61268, (10457, 10715), (241, 265), "3f7ea5fa5b97bcb0"),
    (2, 3, 85045, (21072, 21717), (245, 256), "2496cfd2086d6187"),
    (3, 0, 89480, (9318, 9954, 9085), (154, 195, 154), "8992aaa4b0c0f2d8"),
    (3, 1, 122730, (19601, 19834, 19379), (184, 167, 150), "f5385f55b7a459ec"),
    (3, 2, 87187, (9031, 8942, 8625), (183, 165, 159), "5f088436eed18416"),
    (3, 3, 119692, (17991, 18410, 17302), (162, 183, 158), "068d25eda452f8c8"),
    (4, 0, 112186, (7522, 7859, 8078, 7941), (116, 138, 125, 130), "1cd42760236dd2a5"),
    (4, 1, 151737, (16559, 16641, 16662, 16357), (125, 139, 120, 119), "23f2919baf76cfca"),
    (4, 2, 108106, (7261, 7290, 7083, 7440), (120, 127, 133, 127), "5959acae12f4b7fb"),
    (4, 3, 146466, (15831, 15438, 15470, 15005), (137, 137, 114, 114), "96c15f75cf660bcd"),
]


def seeded_games(players, options):
    """random_playouts (play_random_game) and random-agent games (random_action), seeded."""
    r = photocore.random_playouts(500, players=players, seed=players * 10 + options,
                                  options=Options.from_flags(options))
    moves, _ = play_games([("random", 1)] * players, players,
                          Options.from_flags(options), options, 0, 200)
    return r["moves"], r["score_sums"], r["wins"], hashlib.sha256(moves.tobytes()).hexdigest()[:16]


@pytest.mark.parametrize("players, options, moves, scores, wins, digest", SEEDED)
def test_seeded_games_are_those_of_every_version(players, options, moves, scores, wins, digest):
    assert seeded_games(players, options) == (moves, scores, wins, digest)


@pytest.mark.slow
def test_the_code_paths_play_the_same_games():
    """The baseline x86-64 code and the x86-64-v2/v3 copies chosen at import (where the CPU
    runs them) are the same C: they must play the same games."""
    # this file's folder and tests/ (the support module it imports) on the child's path
    script = ("import json, sys; sys.path[:0] = sys.argv[1:]; from test_kernel import *; "
              "from photocore import _kernel; "
              "print(json.dumps([_kernel.CODE_PATH, [seeded_games(p, o) for p in (2, 3, 4) "
              "for o in (0, 3)]]))")
    paths = {}
    for code_path in _kernel.CODE_PATHS:
        env = dict(os.environ, PHOTOCORE_CODE_PATH=code_path)
        here = os.path.dirname(os.path.abspath(__file__))
        out = subprocess.run([sys.executable, "-c", script, here, os.path.dirname(here)],
                             env=env, check=True, capture_output=True, text=True).stdout
        path, games = json.loads(out)
        paths[path] = games
    assert "baseline" in paths or _kernel.BUILD == "native"
    assert len(set(json.dumps(games) for games in paths.values())) == 1, paths.keys()


def test_the_code_path_is_the_one_the_cpu_runs():
    assert _kernel.CODE_PATH in _kernel.CODE_PATHS + ("native",)
    assert (_kernel.CODE_PATH == "native") == (_kernel.BUILD == "native")
    assert photocore._kernel is sys.modules["photocore._kernel"]
    assert _kernel.__name__ == "photocore._kernel"


def test_action_ids_decode_as_the_facts_say():
    # Move.kind and Move.cell read the kernel's action_kind and acted_cell (_kernel.pxd),
    # the C decode of the layout facts.ACTION_RANGES states
    from photocore.facts import ACTION_RANGES, CELLS, PLANT_PAIRS, action_kind
    for kind, ids in ACTION_RANGES.items():
        for a in ids:
            move = photocore.Move(a)
            assert move.kind == action_kind(a) == kind
            if kind in ("place", "grow", "collect"):
                assert move.cell == CELLS[a - ids.start]
            elif kind == "plant":
                source, target = PLANT_PAIRS[a - ids.start]
                assert (move.cell, move.target) == (CELLS[source], CELLS[target])
            else:
                assert move.cell is None


# (players, options bits, random_playouts(300) moves, score sums, wins) at seeds from
# 2**64 - 12345 up: seeds of 2**63 and over, which a signed 64-bit seed would get wrong.
# Those of the kernel before the turn's state went into registers (issue 46, commit 33f9290)
HIGH_SEEDS = [
    (2, 0, 37624, (7145, 6792), (162, 140)),
    (2, 1, 51809, (14044, 13281), (159, 141)),
    (2, 2, 36638, (6466, 6361), (164, 139)),
    (2, 3, 50598, (13234, 12899), (151, 150)),
    (3, 0, 53442, (5906, 5814, 5534), (110, 97, 98)),
    (3, 1, 73492, (11867, 11563, 11775), (97, 103, 101)),
    (3, 2, 51739, (5244, 4861, 5463), (104, 84, 115)),
    (3, 3, 71947, (11033, 10986, 10512), (103, 107, 90)),
    (4, 0, 67369, (4677, 4637, 4657, 4946), (74, 78, 63, 91)),
    (4, 1, 90914, (9699, 9338, 9905, 10110), (78, 57, 83, 83)),
    (4, 2, 64917, (4494, 4549, 4393, 4310), (82, 80, 73, 68)),
    (4, 3, 87824, (9667, 8969, 9076, 9259), (79, 68, 65, 89)),
]


@pytest.mark.parametrize("players, options, moves, scores, wins", HIGH_SEEDS)
def test_high_seeds_play_the_games_of_the_kernel_before(players, options, moves, scores, wins):
    r = photocore.random_playouts(300, players=players, seed=2**64 - 12345 + players * 7 + options,
                                  options=Options.from_flags(options))
    assert (r["moves"], tuple(r["score_sums"]), tuple(r["wins"])) == (moves, scores, wins)
