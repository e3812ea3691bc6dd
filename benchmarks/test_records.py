"""Game records: writing and verifying speed, and file sizes.

    pytest benchmarks/test_records.py --benchmark-enable

The corpus is GAMES games (2, 3 and 4 players in turn, no options) played in Python by a
seeded random policy that avoids `end` half the time, as seeds/make_golden.py does.
Verifying replays every move through the engine and checks every result; its figure is
set beside JSON parsing alone and the engine replay alone, to show which one limits it,
and (test_verify_against_reference, on self-play games) beside photoref replaying records.
"""

import gzip
import json
import os
import random
import time

import bench
import pytest

import photocore
from photocore import npz, records
from photocore.notation import ACTION_OF_TEXT

GAMES = 10_000
VERIFY_TARGET = 500_000   # moves per second (the target)


def play_games(count, seed=0):
    rng = random.Random(seed)
    games = []
    for k in range(count):
        game = photocore.Game(players=2 + k % 3)
        while not game.is_over:
            legal = game.legal_moves()
            if len(legal) > 1 and rng.random() < 0.5:
                legal = legal[:-1]   # `end`, the highest id, is last
            game.play(rng.choice(legal))
        games.append(game)
    return games


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    folder = tmp_path_factory.mktemp("records")
    start = time.perf_counter()
    games = play_games(GAMES)
    seconds = time.perf_counter() - start
    recs = [records.to_record(g, {"agents": ["random"] * g.players, "seed": 0}) for g in games]
    paths = {suffix: folder / f"games{suffix}" for suffix in (".jsonl", ".jsonl.gz", ".npz")}
    photocore.write_games(paths[".jsonl"], recs)
    photocore.write_games(paths[".jsonl.gz"], recs)
    npz.write(paths[".npz"], recs)
    moves = sum(len(r["moves"]) for r in recs)
    return {"games": games, "records": recs, "paths": paths, "moves": moves,
            "generated": f"{GAMES:,} games, {moves:,} moves ({moves / GAMES:.0f} per game), "
                         f"played in Python in {seconds:.1f} s"}


@pytest.mark.benchmark(group="records")
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_write(timed, report, corpus, tmp_path, suffix):
    path = tmp_path / f"out{suffix}"
    seconds, _, written = timed(lambda: photocore.write_games(path, corpus["games"]))
    assert written == GAMES
    reader = photocore.read_games(path)
    assert [r["moves"] for r in reader] == [r["moves"] for r in corpus["records"]]
    report(f"write_games({suffix}) of {GAMES:,} Game objects (to_record + JSON + write + "
           f"rename): {GAMES / seconds:,.0f} games/s, {corpus['moves'] / seconds / 1e6:.2f} M "
           "moves/s")


@pytest.mark.benchmark(group="records")
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_verify(timed, report, corpus, suffix):
    path = corpus["paths"][suffix]

    def verify():
        reader = photocore.read_games(path, verify=True)
        for _ in reader:
            pass
        return reader.games, reader.moves

    seconds, _, counts = timed(verify)
    assert counts == (GAMES, corpus["moves"])
    rate = corpus["moves"] / seconds
    report(f"read_games({suffix}, verify=True), {GAMES:,} games: {rate / 1e6:.2f} M moves/s "
           f"({GAMES / seconds:,.0f} games/s; target "
           f"{VERIFY_TARGET / 1e6:.1f} M moves/s: {'met' if rate >= VERIFY_TARGET else 'MISSED'})")


@pytest.mark.benchmark(group="records")
def test_verify_against_reference(measure):
    measure(bench.Verify(games=2_000, reference_games=10), rounds=3)


@pytest.mark.benchmark(group="records")
def test_verify_split(timed, report, corpus):
    """JSON parsing alone and engine replay alone, on the same games."""
    lines = corpus["paths"][".jsonl"].read_bytes().splitlines()
    moves = [[ACTION_OF_TEXT[m] for m in r["moves"]] for r in corpus["records"]]
    players = [r["players"] for r in corpus["records"]]

    def parse():
        return sum(len(json.loads(line)["moves"]) for line in lines)

    def replay():
        scores = []
        for n, ids in zip(players, moves):
            game = photocore.Game(n)
            play = game.play
            for a in ids:
                play(a)
            scores.append(list(game.scores()))
        return scores

    seconds, _, parsed = timed(parse)
    assert parsed == corpus["moves"]
    parse_rate = corpus["moves"] / seconds
    replay_seconds = []
    for _ in range(3):
        start = time.perf_counter()
        scores = replay()
        replay_seconds.append(time.perf_counter() - start)
        assert scores == [r["result"]["scores"] for r in corpus["records"]]
    replay_rate = corpus["moves"] / min(replay_seconds)
    report(f"for comparison, on the same games: json.loads alone {parse_rate / 1e6:.2f} M "
           f"moves/s, replay alone (Game.play of action ids) {replay_rate / 1e6:.2f} M moves/s")


def test_sizes(report, corpus):
    moves = corpus["moves"]
    report(f"corpus: {corpus['generated']}")
    for suffix, path in corpus["paths"].items():
        size = os.path.getsize(path)
        report(f"file size {suffix:9}: {size:>12,} bytes = {size / moves:.2f} bytes per move")
    with gzip.open(corpus["paths"][".jsonl.gz"], "rb") as f:
        assert f.read() == corpus["paths"][".jsonl"].read_bytes()
    arrays = npz.load(corpus["paths"][".npz"])
    assert len(arrays["moves"]) == moves and len(arrays["players"]) == GAMES
