"""The random playouts in lanes (docs/kernel.md, "Many games at once") play the scalar
kernel's games: the same totals for every seed, players and option set, and the same
returns from positions in setup, mid-turn and near the end, whichever copy of the lanes
runs. Each copy runs in a process of its own (PHOTOCORE_LANES is read at import):
the scalar kernel (1), the portable copy, which every machine runs, and the default, the
AVX-512 copy where the CPU has it."""

import json
import os
import subprocess
import sys

import pytest

from photocore import facts

# players, options, seed, games: every option set; seeds past 2**63; game counts under,
# at and past the 8 lanes and past random_playouts' chunk of 4,096 games
RUNS = [(players, options, seed, games)
        for players in (2, 3, 4)
        for options in ("-", "f", "s", "fs")
        for seed, games in ((0, 40), (2**63 + 11, 40), (2**64 - 1, 9))]
RUNS += [(2, "-", 5, 0), (3, "s", 5, 1), (4, "-", 5, 7), (2, "-", 5, 8), (2, "fs", 99, 4100)]

TOTALS = """
import json, random, sys, photocore
from photocore import Game, facts
runs = json.loads(sys.argv[1])
totals = [photocore.random_playouts(games, players=players, seed=seed, options=options)
          for players, options, seed, games in runs]
# positions: a random game's first 0 to 150 moves (setup, mid-turn, late rounds), not over
positions = {}
for k in range(48):
    rng = random.Random(k)
    game = Game(players=2 + k % 3, options=("-", "f", "s", "fs")[k // 3 % 4])
    for _ in range(rng.choice((0, 3, 9, 30, 70, 150))):
        if game.is_over:
            break
        game.play(rng.choice(list(game.legal_moves())))
    if not game.is_over:
        positions.setdefault(game.players, []).append(game)
returns = {
    "game": [g.playouts(n, seed=7).tolist() for g in positions[3][:6] for n in (1, 8, 37)],
    "many": [photocore.playouts(games, n, seed=2**63 + 1, threads=threads).tolist()
             for games in positions.values() for n in (1, 5) for threads in (1, 2)],
}
print(json.dumps({"lanes": facts.LANES, "copy": facts.LANE_COPY, "totals": totals,
                  "returns": returns}))
"""


def totals(lanes, code_path=None):
    env = dict(os.environ)
    env.pop("PHOTOCORE_LANES", None)
    if lanes is not None:
        env["PHOTOCORE_LANES"] = lanes
    if code_path is not None:
        env["PHOTOCORE_CODE_PATH"] = code_path
    done = subprocess.run([sys.executable, "-c", TOTALS, json.dumps(RUNS)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def scalar():
    run = totals("1")
    assert (run["lanes"], run["copy"]) == (1, "scalar")
    return run


def test_the_portable_lanes_play_the_scalar_kernels_games(scalar):
    run = totals("portable")
    assert (run["lanes"], run["copy"]) == (8, "portable")
    for case, lanes, alone in zip(RUNS, run["totals"], scalar["totals"]):
        assert lanes == alone, case
    assert run["returns"] == scalar["returns"]
    # the runs are games, not empty: the 4,100 games' moves and their wins' sum; returns
    # from 6 positions of 3 players and from 40 or more of 2-4
    assert scalar["totals"][-1]["moves"] > 4100 * 100
    assert sum(scalar["totals"][-1]["win_shares"]) == 4100
    assert len(scalar["returns"]["game"]) == 18 and len(scalar["returns"]["many"]) == 12
    assert sum(len(batch) for batch in scalar["returns"]["many"][::4]) >= 40


@pytest.mark.parametrize("code_path", ["baseline", "x86-64-v2"])
def test_the_portable_lanes_of_every_code_path_play_the_same_games(scalar, code_path):
    # the portable copy compiled for narrower vectors than x86-64-v3's (SSE2 on the
    # baseline), where the compiler lowers each vector operation differently
    if code_path not in facts.CODE_PATHS or facts.CODE_PATH == "native":
        pytest.skip(f"this build has no {code_path} copy")
    run = totals("portable", code_path)
    assert run["copy"] == "portable"
    assert run["totals"] == scalar["totals"] and run["returns"] == scalar["returns"]


def test_the_default_lanes_play_the_scalar_kernels_games(scalar):
    run = totals(None)
    best = "avx512" if facts.LANE_COPY == "avx512" else "scalar"
    assert run["copy"] == best, "the default is the AVX-512 copy where it runs, else scalar"
    if best == "scalar":
        pytest.skip("this CPU runs no AVX-512 lanes: the portable copy's test holds them")
    assert run["lanes"] == 8
    for case, lanes, alone in zip(RUNS, run["totals"], scalar["totals"]):
        assert lanes == alone, case
    assert run["returns"] == scalar["returns"]


def test_photocore_lanes_8_runs_lanes_on_every_machine():
    run = totals("8")
    assert run["lanes"] == 8 and run["copy"] in ("avx512", "portable")


@pytest.mark.parametrize("value", ["2", "four", "avx2", " 8"])
def test_a_wrong_photocore_lanes_is_refused_at_import_by_name(value):
    env = dict(os.environ, PHOTOCORE_LANES=value)
    done = subprocess.run([sys.executable, "-c", "import photocore"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"PHOTOCORE_LANES must be 1, 8 or portable, got {value!r}" in done.stderr


def test_facts_name_the_lanes_that_run():
    assert facts.LANE_COPIES == ("scalar", "portable", "avx512")
    assert (facts.LANES, facts.LANE_COPY) in ((1, "scalar"), (8, "portable"), (8, "avx512"))
