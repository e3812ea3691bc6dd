"""Record files' workloads of the registry (benchmarks/bench.py): writing, verifying, and
verifying's two parts alone (JSON parsing, the engine's replay), to show which one limits
it. The `verify` workload of bench.py's engine set times read_games(verify=True) of
self-play games beside photoref; these time a corpus played in Python.

The corpus is `games` games (2, 3 and 4 players in turn, no options) played by a seeded
random policy that avoids `end` half the time, as seeds/make_golden.py does; it is made
once, for every workload here.
"""

import gzip
import json
import os
import random
import tempfile

import photocore
from photocore import npz, records
from photocore.notation import ACTION_OF_TEXT
from photocore.run import speed
from photocore.run.speed import expect

VERIFY_TARGET = 500_000   # moves per second (issue 3's target)
SUFFIXES = (".jsonl", ".jsonl.gz", ".npz")


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


class Corpus:
    """The games, their records and their files (.jsonl, .jsonl.gz, .npz), made at the first
    prepare() of a workload that shares it."""

    def __init__(self, games):
        self.count = games
        self.folder = None

    def make(self):
        if self.folder is None:
            self.folder = tempfile.TemporaryDirectory(prefix="photocore-bench-")
            self.games = play_games(self.count)
            self.records = [records.to_record(g, {"agents": ["random"] * g.players, "seed": 0})
                            for g in self.games]
            self.paths = {suffix: os.path.join(self.folder.name, f"games{suffix}")
                          for suffix in SUFFIXES}
            photocore.write_games(self.paths[".jsonl"], self.records)
            photocore.write_games(self.paths[".jsonl.gz"], self.records)
            npz.write(self.paths[".npz"], self.records)
            self.moves = sum(len(r["moves"]) for r in self.records)
        return self

    def describe(self):
        return (f"{self.count:,} games played in Python (2, 3, 4 players in turn, a random "
                "policy that avoids `end` half the time)")


class Write(speed.Workload):
    def __init__(self, corpus, suffix):
        self.corpus, self.suffix = corpus, suffix
        self.name = f"write/{suffix[1:]}"
        self.describe = (f"write_games({suffix}) of Game objects (to_record + JSON + write + "
                         f"rename): {corpus.describe()}")

    def prepare(self):
        self.corpus.make()
        self.out = tempfile.TemporaryDirectory(prefix="photocore-bench-")
        self.path = os.path.join(self.out.name, f"out{self.suffix}")

    def close(self):
        self.out.cleanup()

    def run(self):
        return photocore.write_games(self.path, self.corpus.games)

    def check(self, value):
        corpus = self.corpus
        expect(value == corpus.count, f"wrote {value} games, not {corpus.count}")
        expect([r["moves"] for r in photocore.read_games(self.path)]
               == [r["moves"] for r in corpus.records], "the file holds other moves")
        with gzip.open(corpus.paths[".jsonl.gz"], "rb") as packed, \
                open(corpus.paths[".jsonl"], "rb") as plain:
            expect(packed.read() == plain.read(), ".jsonl.gz unpacks to other bytes than .jsonl")
        expect(len(npz.load(corpus.paths[".npz"])["moves"]) == corpus.moves,
               ".npz holds another count of moves")
        sizes = ", ".join(f"{suffix} {os.path.getsize(path) / corpus.moves:.2f}"
                          for suffix, path in corpus.paths.items())
        return {"games": value, "moves": corpus.moves}, (
            f"the file read back holds every game's moves; bytes per move: {sizes}")


class Verify(speed.Workload):
    def __init__(self, corpus, suffix):
        self.corpus, self.suffix = corpus, suffix
        self.name = f"verify/{suffix[1:]}"
        self.describe = f"read_games({suffix}, verify=True): {corpus.describe()}"

    def prepare(self):
        self.corpus.make()

    def run(self):
        reader = photocore.read_games(self.corpus.paths[self.suffix], verify=True)
        for _ in reader:
            pass
        return reader.games, reader.moves

    def check(self, value):
        expect(value == (self.corpus.count, self.corpus.moves),
               f"verified {value}, wrote {self.corpus.count} games, {self.corpus.moves} moves")
        return {"moves": value[1], "games": value[0]}, (
            f"every game written verified (target {VERIFY_TARGET / 1e6:.1f} M moves/s)")


class Parse(speed.Workload):
    name = "verify_parts/json"

    def __init__(self, corpus):
        self.corpus = corpus
        self.describe = f"json.loads of each line of the .jsonl alone: {corpus.describe()}"

    def prepare(self):
        with open(self.corpus.make().paths[".jsonl"], "rb") as f:
            self.lines = f.read().splitlines()

    def run(self):
        return sum(len(json.loads(line)["moves"]) for line in self.lines)

    def check(self, value):
        expect(value == self.corpus.moves, f"parsed {value} moves of {self.corpus.moves}")
        return {"moves": value}, "every move of the file parsed"


class Replay(speed.Workload):
    name = "verify_parts/replay"

    def __init__(self, corpus):
        self.corpus = corpus
        self.describe = f"Game.play of the action ids alone, in Python: {corpus.describe()}"

    def prepare(self):
        corpus = self.corpus.make()
        self.games = [(r["players"], [ACTION_OF_TEXT[m] for m in r["moves"]])
                      for r in corpus.records]

    def run(self):
        scores = []
        for players, ids in self.games:
            game = photocore.Game(players)
            play = game.play
            for a in ids:
                play(a)
            scores.append(list(game.scores()))
        return scores

    def check(self, value):
        expect(value == [r["result"]["scores"] for r in self.corpus.records],
               "a replay ends with other scores than its record's")
        return {"moves": self.corpus.moves}, "every replay ends with its record's scores"


def workloads(quick):
    corpus = Corpus(500 if quick else 10_000)
    return [Write(corpus, ".jsonl"), Write(corpus, ".jsonl.gz"), Verify(corpus, ".jsonl"),
            Verify(corpus, ".jsonl.gz"), Parse(corpus), Replay(corpus)]
