"""Speed figures that check themselves: the workloads of `photocore bench` and of the
benchmarks/ suite, their timing, and the report.

Every workload checks its result, so a fast wrong answer fails. Where the plain-Python
reference (python/photoref.py in the source tree) can do the same work, it is timed on it in
the same run and checked against the kernels: a ratio measured side by side holds on a noisy
machine where an absolute figure does not.
"""

import dataclasses
import importlib.metadata
import importlib.util
import json
import os
import platform
import random
import shutil
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

import photocore
from photocore.play._agents import play_games
from photocore._kernel import BUILD
from photocore.notation import MOVE_TEXTS
from photocore.run.selfplay import Series, run_local


class CheckFailed(Exception):
    """A workload's result is wrong."""


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


# ---- inputs ---------------------------------------------------------------------------

def option_flags(options):
    """(fourth_revolution, shade_blocks) of an options field: -, f, s or fs."""
    return "f" in options, "s" in options


def option_words(options):
    words = [w for letter, w in (("f", "fourth revolution"), ("s", "shade blocks"))
             if letter in options]
    return " + ".join(words) or "no options"


def random_game(rng):
    """A new game of 2-4 players with random options."""
    return photocore.Game(rng.choice((2, 3, 4)), rng.random() < 0.5, rng.random() < 0.5)


def mid_game_positions(count, seed, min_moves=1):
    """Games 10-120 uniformly random moves in, not over, with at least min_moves legal."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = random_game(rng)
        for _ in range(rng.randrange(10, 120)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) >= min_moves:
            positions.append(game)
    return positions


def closes_round(game):
    """True when `end` now closes a round that is not the last: it runs photosynthesis."""
    return (game.phase == "play" and game.round < game.last_round
            and (game.current_player + 1) % game.players == game.first_player)


def round_end_positions(count, seed):
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = random_game(rng)
        plies = rng.randrange(10, 100)
        while not game.is_over and (len(game.history) < plies or not closes_round(game)):
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            positions.append(game)
    return positions


def reference_game(ref, game):
    """The photoref game of the same players, options and moves as `game`."""
    out = ref.ReferenceGame(game.players, game.fourth_revolution, game.shade_blocks)
    for move in game.history:
        out.play(str(move))
    return out


def same_state(game, ref_game):
    """True when a Game and a photoref game show the same position."""
    return (game.phase == ref_game.phase and game.round == ref_game.round
            and game.sun == ref_game.sun and game.current_player == ref_game.current_player
            and game.light == ref_game.light and game.stacks == ref_game.stacks
            and game.board() == ref_game.board() and game.activated() == ref_game.activated()
            and all(game.available(p) == ref_game.available(p)
                    and game.player_board(p) == ref_game.player_board(p)
                    and game.tokens(p) == ref_game.tokens(p) for p in range(game.players)))


def parse_perft_line(line):
    """(name, players, options, moves) and the counts by depth of a seeds/perft.txt line."""
    name, config, moves, counts = (part.strip() for part in line.split("|"))
    players, options = config.split()
    return (name, int(players), options, [m for m in moves.split(", ") if m],
            [int(c) for c in counts.split()])


# Lines of seeds/perft.txt (tests/test_bench.py keeps them equal to it): the bench must run
# from an installed package, without the source tree.
PERFT_LINES = (
    "mid-2p---40 | 2 - | place g2, place d1, place e6, place d7, grow g2, end, plant d1 c2, "
    "plant d7 c7, end, grow c2, grow c7, end, plant g2 g3, plant e6 f5, buy seed, end, plant e6 "
    "e5, grow g3, grow f5, end, grow c2, end, buy seed, plant d7 d6, buy seed, buy small, end, "
    "buy large, end, buy seed, buy small, grow e5, plant g2 e2, end, plant c7 c6, grow d6, buy "
    "seed, plant c2 d3, end, buy medium | 1 5 30 155 1075 8894 56969",
    "mid-3p---40 | 3 - | place c2, place a4, place e1, place g1, place a5, place b3, plant c2 "
    "d1, buy seed, end, plant a4 b4, end, plant e1 d2, buy seed, end, plant a5 b5, grow b4, end, "
    "grow d2, plant e1 e2, end, plant g1 f1, buy seed, end, plant d2 c3, end, grow c2, end, buy "
    "seed, end, plant g1 g2, plant c2 d3, grow d1, end, plant b4 c4, end, grow d2, grow e2, end, "
    "grow a5, end | 2 9 45 177 657 3018 14394",
    "mid-4p-s-70 | 4 s | place a5, place b3, place e1, place b7, place d7, place d1, place g1, "
    "place c7, plant a5 a6, plant d7 e6, end, plant b3 c3, plant d1 c2, end, plant e1 f1, buy "
    "seed, end, plant b7 a7, buy seed, end, buy seed, end, buy small, end, end, grow e6, buy "
    "seed, end, plant g1 g2, buy seed, end, grow a7, plant c7 c6, end, grow e6, end, grow c3, "
    "buy seed, end, plant a7 b6, grow c7, end, plant e6 f5, buy seed, plant a5 b5, end, buy "
    "medium, end, grow g1, end, buy seed, plant e6 e5, grow f5, end, plant d1 d2, plant c3 b4, "
    "end, grow g2, plant g1 e3, end, buy medium, end, grow c3, buy seed, end, buy large, end, "
    "buy seed, plant c7 c5, grow b7 | 1 5 29 203 1264 5742 21453",
)


def perft_cases(depth, lines=PERFT_LINES):
    """(name, players, options, moves, depth, expected count) of each line at `depth`."""
    cases = []
    for line in lines:
        name, players, options, moves, counts = parse_perft_line(line)
        cases.append((name, players, options, moves, depth, counts[depth - 1]))
    return cases


def perft_full_python(game, depth):
    """Leaves of the legal-move tree, visiting every one: recursion over copy + play.

    Game.perft counts the last ply in bulk (the length of the move list) and has no C path
    that visits the leaves, so this is Python.
    """
    if depth == 0 or game.is_over:
        return 1
    total = 0
    for move in game.legal_moves():
        child = game.copy(history=False)
        child.play(move)
        total += perft_full_python(child, depth - 1)
    return total


# ---- workloads --------------------------------------------------------------------------

class Workload:
    """One measured piece of work.

    Subclasses set `name`, `group`, `workload` (what is measured, as data) and `describe`
    (the same in words), and define run() (the timed call: every call returns the same
    value), check(value) (raises CheckFailed unless the value is right; returns what was
    checked) and amounts(value) ({unit: count} done by one call, the headline unit first).
    reference(ref) runs the same work in photoref, checks it agrees and returns
    (amounts, seconds, what it ran), or None where photoref has no such work.
    """

    warmup = True   # an untimed first call (self-play's process start is part of its cost)

    def prepare(self, ref):
        """Builds the inputs, outside the timing (ref: the photoref module or None)."""

    def reference(self, ref):
        return None

    def close(self):
        """Removes what prepare() left on disk."""


class Playouts(Workload):
    group = "playouts"

    def __init__(self, players, options, games, reference_games, seed=1):
        self.players, self.options, self.games = players, options, games
        self.reference_games, self.seed = reference_games, seed
        self.name = f"playouts/{players}p" + ("" if options == "-" else f"-{options}")
        self.workload = {"players": players, "options": options, "games": games,
                         "policy": "uniform random legal moves, end included", "seed": seed,
                         "threads": 1}
        self.describe = (f"random_playouts: {games:,} games, {players} players, "
                         f"{option_words(options)}, uniform random policy, 1 thread")

    def run(self):
        result = photocore.random_playouts(self.games, self.players, self.seed,
                                           *option_flags(self.options))
        return result["moves"], result["score_sums"], result["wins"]

    def amounts(self, value):
        return {"moves": value[0], "games": self.games}

    def check(self, value):
        # play_games draws the same seeded games move by move; replayed through Game.play
        # (which checks every move) they must give the same totals
        fourth, shade = option_flags(self.options)
        moves, scores, wins = 0, [0] * self.players, [0] * self.players
        self.sample = []
        for start in range(0, self.games, 1000):
            count = min(1000, self.games - start)
            ids, offsets = play_games([("random", 1)] * self.players, self.players,
                                      fourth | shade << 1, self.seed, start, count)
            for k in range(count):
                game = photocore.Game(self.players, fourth, shade)
                for action in ids[offsets[k]:offsets[k + 1]].tolist():
                    game.play(action)
                expect(game.is_over, f"game {start + k} is not over after its moves")
                moves += len(game.history)
                for p, score in enumerate(game.scores()):
                    scores[p] += score
                for p in game.winners():
                    wins[p] += 1
                if len(self.sample) < self.reference_games:
                    self.sample.append(game)
        expect(value == (moves, tuple(scores), tuple(wins)),
               f"random_playouts gave {value}, the replayed games {moves, scores, wins}")
        return (f"moves, scores and wins of all {self.games:,} games equal those of the same "
                "games replayed move by move through Game.play")

    def reference(self, ref):
        fourth, shade = option_flags(self.options)
        moves = 0
        start = time.perf_counter()
        for k, game in enumerate(self.sample):
            mirror = ref.ReferenceGame(self.players, fourth, shade)
            for ply, move in enumerate(map(str, game.history)):
                if move not in mirror.legal_moves():
                    raise CheckFailed(f"game {k} ply {ply}: photoref does not list {move}")
                mirror.play(move)
            expect(mirror.is_over and mirror.scores() == game.scores(),
                   f"game {k}: photoref ends with {mirror.scores()}, not {game.scores()}")
            moves += len(game.history)
        seconds = time.perf_counter() - start
        return ({"moves": moves, "games": len(self.sample)}, seconds,
                f"photoref plays the first {len(self.sample)} of these games: legal_moves() "
                "and play() each move, same moves and scores")


class PythonLoop(Workload):
    group = "python loop"

    def __init__(self, players, moves, reference_moves, seed=2):
        self.players, self.moves, self.reference_moves, self.seed = (
            players, moves, reference_moves, seed)
        self.name = f"python_loop/{players}p"
        self.workload = {"players": players, "options": "-", "moves": moves, "threads": 1,
                         "policy": f"random.choice(legal_moves()), seed {seed}"}
        self.describe = (f"Python: legal_moves() + random.choice + play(), {moves:,} moves of "
                         f"{players}-player games, new game at each end")

    def run(self):
        rng = random.Random(self.seed)
        played = []
        game = photocore.Game(self.players)
        for _ in range(self.moves):
            if game.is_over:
                played += game.history
                game = photocore.Game(self.players)
            game.play(rng.choice(game.legal_moves()))
        return played + game.history

    def amounts(self, value):
        return {"moves": len(value)}

    def check(self, value):
        expect(len(value) == self.moves, f"{len(value)} moves played, not {self.moves}")
        self.played = [str(m) for m in value[:self.reference_moves]]
        return f"{self.moves:,} moves played; the same seed plays the same moves every run"

    def reference(self, ref):
        # legal moves are listed in action-id order in both, so one seed picks the same games
        rng = random.Random(self.seed)
        played = []
        game = ref.ReferenceGame(self.players)
        start = time.perf_counter()
        for _ in range(self.reference_moves):
            moves = game.legal_moves()
            if not moves:
                game = ref.ReferenceGame(self.players)
                moves = game.legal_moves()
            move = rng.choice(moves)
            game.play(move)
            played.append(move)
        seconds = time.perf_counter() - start
        if played != self.played:
            first = next(i for i, (a, b) in enumerate(zip(played, self.played)) if a != b)
            raise CheckFailed(f"photoref's loop played other moves from move {first} on")
        return ({"moves": len(played)}, seconds,
                f"the same loop over photoref for the first {len(played):,} moves, "
                "the same moves")


class LegalMoves(Workload):
    name = "legal_moves"
    group = "move generation"

    def __init__(self, positions, seed=11):
        self.positions, self.seed = positions, seed
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "threads": 1}
        self.describe = (f"Game.legal_moves() at {positions} random mid-game positions "
                         "(2-4 players, random options)")

    def prepare(self, ref):
        self.games = mid_game_positions(self.positions, self.seed)
        self.mirrors = [reference_game(ref, g) for g in self.games] if ref else None

    def run(self):
        listed = 0
        for game in self.games:
            listed += len(game.legal_moves())
        return listed

    def amounts(self, value):
        return {"calls": len(self.games)}

    def check(self, value):
        for k, game in enumerate(self.games):
            ids = game.legal_actions()
            expect(ids == [a for a in range(photocore.NUM_ACTIONS) if game.is_legal(a)],
                   f"position {k}: legal_moves() and is_legal() disagree")
        expect(value == sum(len(g.legal_moves()) for g in self.games), "wrong move count")
        return ("at every position legal_moves() lists exactly the ids is_legal() accepts "
                f"(a separate kernel path) among all {photocore.NUM_ACTIONS}")

    def reference(self, ref):
        start = time.perf_counter()
        listed = [mirror.legal_moves() for mirror in self.mirrors]
        seconds = time.perf_counter() - start
        for k, (game, moves) in enumerate(zip(self.games, listed)):
            expect([str(m) for m in game.legal_moves()] == moves,
                   f"position {k}: photoref lists other moves")
        return ({"calls": len(listed)}, seconds,
                "photoref legal_moves() at the same positions, the same moves")


class Copy(Workload):
    group = "copy"

    def __init__(self, positions, history=True, seed=12):
        self.positions, self.history, self.seed = positions, history, seed
        self.name = "copy" if history else "copy_no_history"
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "history": history, "threads": 1}
        self.describe = (f"Game.copy({'' if history else 'history=False'}) at {positions} "
                         "random mid-game positions")

    def prepare(self, ref):
        self.games = mid_game_positions(self.positions, self.seed)
        self.mirrors = [reference_game(ref, g) for g in self.games] if ref else None

    def run(self):
        return [game.copy(history=self.history) for game in self.games]

    def amounts(self, value):
        return {"calls": len(value)}

    def check(self, copies):
        for k, (game, twin) in enumerate(zip(self.games, copies, strict=True)):
            expect(twin is not game and twin == game, f"position {k}: the copy differs")
            expect(twin.history == (game.history if self.history else []),
                   f"position {k}: the copy's history is wrong")
            before = game.position()
            twin.play(twin.legal_moves()[0])
            expect(game.position() == before, f"position {k}: playing on the copy changed "
                   "the original")
        return "every copy equals its original, history as asked, and is independent of it"

    def reference(self, ref):
        if not self.history:
            return None   # photoref copies always carry the history
        start = time.perf_counter()
        copies = [mirror.copy() for mirror in self.mirrors]
        seconds = time.perf_counter() - start
        expect(all(same_state(g, c) for g, c in zip(self.games, copies)),
               "a photoref copy differs")
        return {"calls": len(copies)}, seconds, "photoref copy() at the same positions"


class PlayUndo(Workload):
    """play(move) + undo(); photoref has no undo, so its figure is copy() + play(move)."""

    group = "play+undo"

    def __init__(self, positions, seed=13, light=False):
        self.positions, self.seed, self.light = positions, seed, light
        if light:
            self.name, self.group = "light", "light"
            self.describe = (f"play(end) + undo() at {positions} random positions where the "
                             "end closes a round, so photosynthesis runs")
        else:
            self.name = "play_undo"
            self.describe = (f"play(move) + undo() of a random legal move at {positions} "
                             "random mid-game positions")
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "threads": 1}

    def prepare(self, ref):
        rng = random.Random(self.seed)
        if self.light:
            games = round_end_positions(self.positions, self.seed)
            self.pairs = [(game, photocore.Move.parse("end")) for game in games]
        else:
            games = mid_game_positions(self.positions, self.seed)
            self.pairs = [(game, rng.choice(game.legal_moves())) for game in games]
        self.mirrors = [reference_game(ref, g) for g in games] if ref else None

    def run(self):
        for game, move in self.pairs:
            game.play(move)
            game.undo()
        return len(self.pairs)

    def amounts(self, value):
        return {"pairs": value}

    def check(self, value):
        gained = 0
        for k, (game, move) in enumerate(self.pairs):
            before, plies, light, rnd = game.position(), len(game.history), game.light, game.round
            game.play(move)
            expect(game.position() != before, f"position {k}: {move} changed nothing")
            if self.light:
                expect(game.round == rnd + 1, f"position {k}: end did not start a round")
                gained += sum(game.light) - sum(light)
                expect(all(a >= b for a, b in zip(game.light, light)),
                       f"position {k}: photosynthesis took light away")
            if self.mirrors:
                mirror = self.mirrors[k].copy()
                mirror.play(str(move))
                expect(same_state(game, mirror), f"position {k}: after {move} photoref "
                       "shows another position")
            game.undo()
            expect(game.position() == before and len(game.history) == plies,
                   f"position {k}: undo did not restore the position")
        if self.light:
            expect(gained > 0, "no position gained light: photosynthesis never ran")
        checked = "undo restores every position exactly"
        if self.light:
            checked += "; each end starts the next round and photosynthesis gives light"
        if self.mirrors:
            checked += "; every position played equals photoref's"
        return checked

    def reference(self, ref):
        moves = [str(move) for _, move in self.pairs]
        start = time.perf_counter()
        for mirror, move in zip(self.mirrors, moves):
            mirror.copy().play(move)
        seconds = time.perf_counter() - start
        return ({"pairs": len(moves)}, seconds,
                "photoref copy() + play(move) at the same positions (it has no undo)")


class ReferencePerft:
    """photoref's perft over a set of cases, run once for both perft workloads."""

    def __init__(self, cases):
        self.cases = cases
        self.measured = None

    def measure(self, ref):
        if self.measured is None:
            leaves = 0
            seconds = 0.0
            for name, players, options, moves, depth, expected in self.cases:
                game = ref.ReferenceGame(players, *option_flags(options))
                for move in moves:
                    game.play(move)
                start = time.perf_counter()
                count = ref.perft(game, depth)
                seconds += time.perf_counter() - start
                expect(count == expected, f"photoref perft({depth}) of {name} = {count}, "
                       f"seeds/perft.txt has {expected}")
                leaves += count
            self.measured = ({"leaves": leaves}, seconds,
                             "photoref perft (copy + play to every leaf) of the same "
                             "positions and depths, the same counts")
        return self.measured


class Perft(Workload):
    group = "perft"

    def __init__(self, cases, bulk, reference_perft=None):
        """reference_perft: photoref's run of the same cases (shared by the bulk and full
        workloads), None where photoref would take too long."""
        self.cases, self.bulk, self.reference_perft = cases, bulk, reference_perft
        self.name = "perft_bulk" if bulk else "perft_full_python"
        how = ("Game.perft in C, the last ply counted in bulk (the length of its move list)"
               if bulk else "every leaf visited: Python recursion over Game.copy + play "
               "(there is no C path that visits leaves)")
        self.describe = how + ": " + ", ".join(f"{c[0]} depth {c[4]}" for c in cases)
        self.workload = {"positions": [c[0] for c in cases], "depths": [c[4] for c in cases],
                         "bulk": bulk, "threads": 1}

    def prepare(self, ref):
        self.games = []
        for name, players, options, moves, depth, expected in self.cases:
            game = photocore.Game(players, *option_flags(options))
            for move in moves:
                game.play(move)
            self.games.append((game, depth))

    def run(self):
        if self.bulk:
            return [game.perft(depth) for game, depth in self.games]
        return [perft_full_python(game, depth) for game, depth in self.games]

    def amounts(self, value):
        return {"leaves": sum(value)}

    def check(self, value):
        expected = [case[5] for case in self.cases]
        expect(value == expected, f"leaf counts {value}, seeds/perft.txt has {expected}")
        return f"leaf counts equal seeds/perft.txt ({sum(expected):,} leaves)"

    def reference(self, ref):
        return self.reference_perft.measure(ref) if self.reference_perft else None


class Verify(Workload):
    name = "verify"
    group = "records"

    def __init__(self, games, reference_games, seed=3):
        self.games, self.reference_games, self.seed = games, reference_games, seed
        self.workload = {"players": [2, 3, 4], "options": "-", "games": 3 * games,
                         "policy": "random agents (photocore selfplay)", "threads": 1}
        self.describe = (f"read_games(verify=True) of a .jsonl of {3 * games:,} self-play "
                         f"games ({games:,} each of 2, 3 and 4 players, random agents): "
                         "parse, replay and check every move and result")

    def prepare(self, ref):
        self.folder = tempfile.mkdtemp(prefix="photocore-bench-")
        self.path = os.path.join(self.folder, "games.jsonl")
        self.moves = 0
        self.sample = []
        with open(self.path, "wb") as out:
            for players in (2, 3, 4):
                lines, tally = Series(self.games, players, ["random"], self.seed).batch(
                    0, self.games)
                out.writelines(lines)
                self.moves += tally.moves
                self.sample += lines[:self.reference_games]

    def close(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def run(self):
        reader = photocore.read_games(self.path, verify=True)
        for _ in reader:
            pass
        return reader.games, reader.moves

    def amounts(self, value):
        return {"moves": value[1], "games": value[0]}

    def check(self, value):
        expect(value == (3 * self.games, self.moves),
               f"verified {value[0]} games and {value[1]} moves, wrote {3 * self.games} "
               f"and {self.moves}")
        return f"every one of the {3 * self.games:,} games written ({self.moves:,} moves) verified"

    def reference(self, ref):
        moves = 0
        start = time.perf_counter()
        for line in self.sample:
            rec = json.loads(line)
            game = ref.ReferenceGame(rec["players"], **rec["options"])
            for move in rec["moves"]:
                game.play(move)   # raises on an illegal move
            result = rec["result"]
            expect(game.is_over and list(game.scores()) == result["scores"]
                   and list(game.winners()) == result["winners"]
                   and list(game.light) == result["light"]
                   and [list(game.tokens(p)) for p in range(game.players)] == result["tokens"],
                   "photoref replays a game to another result than its record's")
            moves += len(rec["moves"])
        seconds = time.perf_counter() - start
        return ({"moves": moves, "games": len(self.sample)}, seconds,
                f"photoref parses and replays {len(self.sample)} of these records (the first "
                f"{self.reference_games} of each player count), checking each result")


class VecStep(Workload):
    name = "vec_step"
    group = "VecGame"

    def __init__(self, steps, games=1024, players=2, seed=4, watched=8):
        self.steps, self.games, self.players, self.seed, self.watched = (
            steps, games, players, seed, watched)
        self.workload = {"players": players, "options": "-", "games": games, "steps": steps,
                         "policy": "VecGame.random_actions", "threads": 1}
        self.describe = (f"VecGame({games:,}).random_actions + step, {steps} steps, "
                         f"{players} players, observations and masks written each step")

    def prepare(self, ref):
        self.env = photocore.VecGame(self.games, self.players)
        self.obs = np.empty((self.games, photocore.OBSERVATION_SIZE), np.float32)
        self.mask = np.empty((self.games, photocore.NUM_ACTIONS), np.bool_)
        self.rewards = np.empty((self.games, self.players), np.float32)
        self.done = np.empty(self.games, np.bool_)
        self.actions = np.empty(self.games, np.int64)

    def run(self):
        env = self.env
        env.reset(seed=self.seed, obs=self.obs, mask=self.mask)
        for _ in range(self.steps):
            env.random_actions(out=self.actions)
            env.step(self.actions, self.obs, self.mask, self.rewards, self.done)
        return env.episodes, zlib.crc32(self.obs), zlib.crc32(self.mask)

    def amounts(self, value):
        return {"moves": self.steps * self.games, "steps": self.steps}

    def check(self, value):
        # the same seeded run again, checking each step; `watched` games replayed in Game
        env = photocore.VecGame(self.games, self.players)
        obs, mask = env.reset(seed=self.seed)
        rows = np.arange(self.games)
        mirrors = [photocore.Game(self.players) for _ in range(self.watched)]
        for step in range(self.steps):
            actions = env.random_actions()
            expect(mask[rows, actions].all(), f"step {step}: an action outside its mask")
            obs, mask, rewards, done = env.step(actions)
            for i, game in enumerate(mirrors):
                game.play(int(actions[i]))
                expect(done[i] == game.is_over, f"step {step}: game {i} done is wrong")
                if game.is_over:
                    expect(np.array_equal(rewards[i], np.float32(game.returns())),
                           f"step {step}: game {i} rewards are not its returns")
                    game = mirrors[i] = photocore.Game(self.players)
                expect(np.array_equal(obs[i], game.observation())
                       and np.array_equal(mask[i], game.legal_mask()),
                       f"step {step}: game {i} observation or mask differs from Game's")
        expect(value == (env.episodes, zlib.crc32(obs), zlib.crc32(mask)),
               "the timed run ended in another state than the checked one")
        return (f"every action legal by its mask; {self.watched} games replayed in Game have "
                f"the same observations, masks, ends and rewards; {env.episodes} games ended")

    def reference(self, ref):
        # what a step does, in plain Python: photoref plays each game's action and lists the
        # legal moves (its mask) for `watched` games, restarting the ones that end
        env = photocore.VecGame(self.watched, self.players)
        env.reset(seed=self.seed)
        steps = []
        for _ in range(self.steps):
            actions = env.random_actions()
            steps.append([MOVE_TEXTS[a] for a in actions.tolist()])
            env.step(actions)
        games = [ref.ReferenceGame(self.players) for _ in range(self.watched)]
        start = time.perf_counter()
        for texts in steps:
            for i, text in enumerate(texts):
                games[i].play(text)
                if games[i].phase == "over":
                    games[i] = ref.ReferenceGame(self.players)
                games[i].legal_moves()
        seconds = time.perf_counter() - start
        return ({"moves": self.steps * self.watched}, seconds,
                f"photoref playing the same kind of steps in {self.watched} games, listing "
                "the legal moves after each (no observation)")


class Mcts(Workload):
    name = "mcts"
    group = "mcts"

    def __init__(self, positions, simulations, seed=5):
        self.positions, self.simulations, self.seed = positions, simulations, seed
        self.workload = {"players": "2-4", "options": "random", "positions": positions,
                         "simulations": simulations, "policy": "UCT, random playouts",
                         "threads": 1}
        self.describe = (f"Agent('mcts', simulations={simulations}).select at {positions} "
                         "random mid-game positions with 2 or more legal moves")

    def prepare(self, ref):
        self.games = mid_game_positions(self.positions, self.seed, min_moves=2)

    def run(self):
        agent = photocore.Agent("mcts", seed=self.seed, simulations=self.simulations)
        return [agent.select(game).id for game in self.games]

    def amounts(self, value):
        return {"simulations": len(value) * self.simulations, "moves": len(value)}

    def check(self, value):
        for k, (game, action) in enumerate(zip(self.games, value, strict=True)):
            expect(game.is_legal(action), f"position {k}: mcts chose an illegal move")
        return "every move chosen is legal; the same seed chooses the same moves every run"

    def reference(self, ref):
        # a simulation is mostly a random playout: photoref plays them from the same
        # positions (a handful: each takes it milliseconds)
        rng = random.Random(self.seed)
        starts = []
        for game in self.games[:5]:
            mirror = ref.ReferenceGame(game.players, game.fourth_revolution, game.shade_blocks)
            for move in game.history:
                mirror.play(str(move))
            starts.append(mirror)
        playouts = 0
        start = time.perf_counter()
        for mirror in starts:
            for _ in range(2):
                game = mirror.copy()
                while game.phase != "over":
                    game.play(rng.choice(game.legal_moves()))
                playouts += 1
        seconds = time.perf_counter() - start
        return ({"simulations": playouts}, seconds,
                "photoref random playouts to the end from the same positions (a simulation "
                "without the tree)")


class SelfPlay(Workload):
    group = "self-play"
    warmup = False

    def __init__(self, games, workers, players=2, seed=6):
        self.games, self.workers, self.players, self.seed = games, workers, players, seed
        self.name = f"selfplay/{workers}_worker{'s' if workers > 1 else ''}"
        self.workload = {"players": players, "options": "-", "games": games,
                         "policy": "random agents", "workers": workers,
                         "threads": "1 per worker process"}
        self.describe = (f"selfplay.Series + run_local: {games:,} {players}-player games of "
                         f"random agents as record lines, {workers} worker "
                         f"process{'es' if workers > 1 else ''} (their start included)")

    def prepare(self, ref):
        lines, tally = Series(self.games, self.players, ["random"], self.seed).batch(
            0, self.games)
        self.expected = (len(lines), tally.moves, zlib.crc32(b"".join(lines)))

    def run(self):
        series = Series(self.games, self.players, ["random"], self.seed)
        games = moves = crc = 0
        for lines, tally in run_local(series, workers=self.workers):
            games += len(lines)
            moves += tally.moves
            crc = zlib.crc32(b"".join(lines), crc)
        return games, moves, crc

    def amounts(self, value):
        return {"games": value[0], "moves": value[1]}

    def check(self, value):
        expect(value == self.expected, "the workers' records differ from the same series "
               "played in this process")
        return "the records equal those of the same series played in this process"


# ---- what runs ------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Sizes:
    playout_games: int
    playout_reference_games: int
    loop_moves: int
    loop_reference_moves: int
    positions: int
    perft_depth: int
    verify_games: int         # per player count
    verify_reference_games: int
    vec_steps: int
    mcts_positions: int
    mcts_simulations: int
    selfplay_games: int
    rounds: int               # timed rounds, the best one kept
    min_round: float          # seconds: short calls repeat until a round lasts this long


FULL = Sizes(playout_games=20_000, playout_reference_games=10, loop_moves=200_000,
             loop_reference_moves=5_000, positions=200, perft_depth=6, verify_games=2_000,
             verify_reference_games=10, vec_steps=500, mcts_positions=50,
             mcts_simulations=1_000, selfplay_games=100_000, rounds=5, min_round=0.2)
QUICK = Sizes(playout_games=1_000, playout_reference_games=2, loop_moves=20_000,
              loop_reference_moves=500, positions=50, perft_depth=5, verify_games=100,
              verify_reference_games=2, vec_steps=50, mcts_positions=10,
              mcts_simulations=200, selfplay_games=2_000, rounds=3, min_round=0.02)

PLAYOUT_CONFIGS = ((2, "-"), (2, "f"), (2, "s"), (2, "fs"), (3, "-"), (4, "-"))


def workloads(sizes):
    """Every workload of `photocore bench`, at these sizes."""
    cases = perft_cases(sizes.perft_depth)
    shared = ReferencePerft(cases)
    return [
        *(Playouts(players, options, sizes.playout_games, sizes.playout_reference_games)
          for players, options in PLAYOUT_CONFIGS),
        PythonLoop(2, sizes.loop_moves, sizes.loop_reference_moves),
        LegalMoves(sizes.positions),
        Copy(sizes.positions),
        Copy(sizes.positions, history=False),
        PlayUndo(sizes.positions),
        PlayUndo(sizes.positions, light=True),
        Perft(cases, bulk=True, reference_perft=shared),
        Perft(cases, bulk=False, reference_perft=shared),
        Verify(sizes.verify_games, sizes.verify_reference_games),
        VecStep(sizes.vec_steps),
        Mcts(sizes.mcts_positions, sizes.mcts_simulations),
        SelfPlay(sizes.selfplay_games, workers=1),
        SelfPlay(sizes.selfplay_games, workers=2),
    ]


# ---- timing -----------------------------------------------------------------------------

def time_runs(run, rounds, min_round, warmup=True):
    """(seconds of one call in the fastest round, first value, last value).

    A round repeats the call, doubling the count until it lasts min_round; then `rounds`
    rounds of that count are timed.
    """
    first = run() if warmup else None
    number = 1
    while True:
        start = time.perf_counter()
        for _ in range(number):
            value = run()
        elapsed = time.perf_counter() - start
        if first is None:
            first = value
        if elapsed >= min_round:
            break
        number *= 2
    times = [elapsed]
    for _ in range(rounds - 1):
        start = time.perf_counter()
        for _ in range(number):
            value = run()
        times.append(time.perf_counter() - start)
    return min(times) / number, first, value


def measure(workload, ref, timer):
    """The result of one workload (a JSON-ready dict); a wrong result is reported in it, not
    raised. timer(run, warmup) -> (seconds per call, first value, last value)."""
    result = {"name": workload.name, "group": workload.group, "workload": workload.workload,
              "describe": workload.describe, "figures": {}, "seconds": None,
              "reference": None, "ratio": None}
    try:
        workload.prepare(ref)
        seconds, first, value = timer(workload.run, workload.warmup)
        expect(value == first, "two runs of the same work gave different results")
        checked = [workload.check(value)]
        result["seconds"] = seconds
        result["figures"] = {f"{unit}/s": count / seconds
                             for unit, count in workload.amounts(value).items()}
        measured = workload.reference(ref) if ref is not None else None
        if measured is not None:
            amounts, ref_seconds, describe = measured
            figures = {f"{unit}/s": count / ref_seconds for unit, count in amounts.items()}
            result["reference"] = {"figures": figures, "seconds": ref_seconds,
                                   "describe": describe}
            unit = next(iter(figures))
            result["ratio"] = result["figures"][unit] / figures[unit]
            checked.append(describe)
        result["check"] = {"passed": True, "detail": "; ".join(checked)}
    except CheckFailed as e:
        result["check"] = {"passed": False, "detail": str(e)}
    finally:
        workload.close()
    return result


# ---- machine and reference --------------------------------------------------------------

def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def source_tree():
    """The source checkout photocore runs from (an editable install), or None."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "python" / "photoref.py").is_file() else None


def git_commit(folder):
    try:
        out = subprocess.run(["git", "-C", str(folder), "describe", "--always", "--dirty",
                              "--abbrev=12"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None   # not a git checkout
    return out.stdout.strip()


def machine(folder=None):
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count()
    return {"cpu": cpu_model(), "cores": cores, "system": f"{platform.system()} "
            f"{platform.machine()}", "python": f"{platform.python_implementation()} "
            f"{platform.python_version()}", "photocore": importlib.metadata.version("photocore"),
            "build": BUILD, "commit": git_commit(folder) if folder else None}


def find_reference(folder=None):
    """The folder holding photoref.py: `folder`, else python/ of the source tree photocore
    runs from, else python/ under the working directory; None when there is none."""
    if folder is not None:
        return Path(folder) if (Path(folder) / "photoref.py").is_file() else None
    for root in (source_tree(), Path.cwd()):
        if root is not None and (root / "python" / "photoref.py").is_file():
            return root / "python"
    return None


def load_reference(folder):
    spec = importlib.util.spec_from_file_location("photoref", Path(folder) / "photoref.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(works, sizes, reference_folder=None, start=None, progress=None):
    """The report of `works` (JSON-ready). start(report) is called before the first
    workload (the machine and reference are known), progress(result) after each one."""
    ref = load_reference(reference_folder) if reference_folder else None
    tree = Path(reference_folder).resolve().parent if reference_folder else source_tree()
    report = {"format": "photocore-bench", "version": 1, "sizes": dataclasses.asdict(sizes),
              "machine": machine(tree),
              "reference": str(Path(reference_folder) / "photoref.py") if ref else None,
              "results": []}
    if start:
        start(report)

    def timer(call, warmup):
        return time_runs(call, sizes.rounds, sizes.min_round, warmup)

    for workload in works:
        result = measure(workload, ref, timer)
        report["results"].append(result)
        if progress:
            progress(result)
    report["passed"] = all(r["check"]["passed"] for r in report["results"])
    return report


# ---- the report -----------------------------------------------------------------------

def si(x):
    for factor, prefix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if x >= factor:
            return f"{x / factor:.3g}{prefix}"
    return f"{x:.3g}"


PER_CALL = {"calls/s": "call", "pairs/s": "pair"}   # figures shown as time per call


def figure_text(figures, both=True):
    """The headline figure (and, if `both`, the second one) as text."""
    texts = []
    for unit, rate in list(figures.items())[:2 if both else 1]:
        if unit in PER_CALL:
            texts.append(f"{1e9 / rate:,.0f} ns/{PER_CALL[unit]}")
        else:
            texts.append(f"{si(rate)} {unit}")
    return ", ".join(texts)


def header(report):
    m = report["machine"]
    lines = [f"photocore {m['photocore']} ({m['build']} build), commit {m['commit'] or 'unknown'}",
             f"machine: {m['cpu']}, {m['cores']} cores, {m['system']}, {m['python']}"]
    if report["reference"]:
        lines.append(f"reference: {report['reference']} (plain Python), timed on the same "
                     "work in this run; speed-up = photocore / reference")
    else:
        lines.append("reference: python/photoref.py not found (pass --reference): absolute "
                     "figures only, no speed-ups; checks against photoref skipped")
    lines.append("")
    lines.append(f"{'workload':<19} {'figure':<34} {'reference':<18} {'speed-up':>9}  check")
    return lines


def row(result):
    """Two lines of the table: the figures, then what was measured."""
    ref = result["reference"]
    ok = "ok" if result["check"]["passed"] else "FAILED: " + result["check"]["detail"]
    figure = figure_text(result["figures"]) if result["figures"] else "-"
    reference = figure_text(ref["figures"], both=False) if ref else "-"
    ratio = f"{result['ratio']:,.0f} x" if result["ratio"] else "-"
    return [f"{result['name']:<19} {figure:<34} {reference:<18} {ratio:>9}  {ok}",
            f"    {result['describe']}"]


def check_baseline(report, floors):
    """Failures (text) of the report against {workload name: the least speed-up}."""
    failures = []
    results = {r["name"]: r for r in report["results"]}
    for name, floor in floors.items():
        ratio = results[name]["ratio"] if name in results else None
        if ratio is None:
            failures.append(f"{name}: no speed-up measured (floor {floor:,})")
        elif ratio < floor:
            failures.append(f"{name}: speed-up {ratio:,.0f} x is under its floor {floor:,} x")
    return failures
