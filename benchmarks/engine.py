"""The engine's workloads of the registry (benchmarks/bench.py), each beside the plain-Python
reference (python/photoref.py) on the same work: photocore.run.speed's workloads (those of
`photocore bench`) with their reference side, and those of single calls from Python
(legal_moves, copy, play + undo, light, the Python move loop, perft visiting every leaf).
The reference runs once (it is slow; timed by pyperf too) and is checked against photocore.
The perft workloads count the positions of seeds/perft.txt and must give its counts.
"""

import json
import pathlib
import random
import sys
from collections.abc import Callable
from typing import Any

import photocore
from photocore.facts import Options
from photocore.notation import MOVE_TEXTS
from photocore.run import speed
from photocore.run.speed import CheckFailed, expect

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "python" / "photoref.py"
PERFT_SEEDS = ROOT / "seeds" / "perft.txt"

sys.path.insert(0, str(REFERENCE.parent))
import photoref  # noqa: E402  (python/photoref.py, found through the path above)


def once(call: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, value) of one call, timed by pyperf: a reference side runs once, being slow."""
    seconds, _, value = speed.pyperf_timer(values=1, loops=1)("photoref", call)
    return seconds, value


def best(call: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, value) of a baseline's call timed as a workload's own, by pyperf (its
    fastest of 3 values): a baseline quick enough to time that way."""
    seconds, _, value = speed.pyperf_timer(values=3, min_time=0.05)("baseline", call)
    return seconds, value


# ---- the reference's side of each workload ---------------------------------------------

def reference_game(game):
    """The photoref game of the same players, options and moves as `game`."""
    out = photoref.ReferenceGame(game.players, **game.options._asdict())
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


class Playouts(speed.Playouts):
    def __init__(self, players, options, games, reference_games):
        super().__init__(players, options, games)
        self.reference_games = reference_games

    def reference(self):
        sample = self.replayed(0, self.reference_games)

        def play():
            for k, game in enumerate(sample):
                mirror = photoref.ReferenceGame(self.players, **self.options._asdict())
                for ply, move in enumerate(map(str, game.history)):
                    if move not in mirror.legal_moves():
                        raise CheckFailed(f"game {k} ply {ply}: photoref does not list {move}")
                    mirror.play(move)
                expect(mirror.is_over and mirror.scores() == game.scores(),
                       f"game {k}: photoref ends with {mirror.scores()}, not {game.scores()}")

        seconds, _ = once(play)
        return ({"moves": sum(len(g.history) for g in sample), "games": len(sample)}, seconds,
                f"photoref plays the first {len(sample)} of these games: legal_moves() "
                "and play() each move, same moves and scores")


class PythonLoop(speed.Workload):
    def __init__(self, players, moves, reference_moves, seed=2):
        self.players, self.moves, self.seed = players, moves, seed
        self.reference_moves = reference_moves
        self.name = f"python_loop/{players}p"
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

    def check(self, value):
        expect(len(value) == self.moves, f"{len(value)} moves played, not {self.moves}")
        self.played = [str(m) for m in value[:self.reference_moves]]
        return ({"moves": len(value)},
                f"{self.moves:,} moves played; the same seed plays the same moves every run")

    def reference(self):
        # legal moves are listed in action-id order in both, so one seed picks the same games
        def play():
            rng = random.Random(self.seed)
            played = []
            game = photoref.ReferenceGame(self.players)
            for _ in range(self.reference_moves):
                moves = game.legal_moves()
                if not moves:
                    game = photoref.ReferenceGame(self.players)
                    moves = game.legal_moves()
                move = rng.choice(moves)
                game.play(move)
                played.append(move)
            return played

        seconds, played = once(play)
        if played != self.played:
            first = next(i for i, (a, b) in enumerate(zip(played, self.played)) if a != b)
            raise CheckFailed(f"photoref's loop played other moves from move {first} on")
        return ({"moves": len(played)}, seconds,
                f"the same loop over photoref for the first {len(played):,} moves, "
                "the same moves")


class AtPositions(speed.Workload):
    """A call at each of `count` random mid-game positions (2-4 players, random options)."""

    def __init__(self, count, seed):
        self.count, self.seed = count, seed

    def prepare(self):
        self.games = speed.positions(self.count, self.seed)


class LegalMoves(AtPositions):
    name = "legal_moves"

    def __init__(self, positions, seed=11):
        super().__init__(positions, seed)
        self.describe = (f"Game.legal_moves() at {positions} random mid-game positions (2-4 "
                         "players, random options)")

    def run(self):
        return sum(len(game.legal_moves()) for game in self.games)

    def check(self, value):
        for k, game in enumerate(self.games):
            expect(game.legal_moves().ids() == [a for a in range(photocore.NUM_ACTIONS)
                                                if game.is_legal(a)],
                   f"position {k}: legal_moves() and is_legal() disagree")
        expect(value == sum(len(g.legal_moves()) for g in self.games), "wrong move count")
        return {"calls": len(self.games)}, (
            "at every position legal_moves() lists exactly the ids is_legal() accepts (a "
            f"separate kernel path) among all {photocore.NUM_ACTIONS}")

    def reference(self):
        mirrors = [reference_game(g) for g in self.games]
        seconds, listed = once(lambda: [mirror.legal_moves() for mirror in mirrors])
        for k, (game, moves) in enumerate(zip(self.games, listed)):
            expect([str(m) for m in game.legal_moves()] == moves,
                   f"position {k}: photoref lists other moves")
        return ({"calls": len(listed)}, seconds,
                "photoref legal_moves() at the same positions, the same moves")


class Copy(AtPositions):
    def __init__(self, positions, history=True, seed=12):
        super().__init__(positions, seed)
        self.history = history
        self.name = "copy" if history else "copy_no_history"
        self.describe = (f"Game.copy({'' if history else 'history=False'}) at {positions} "
                         "random mid-game positions")

    def run(self):
        return [game.copy(history=self.history) for game in self.games]

    def check(self, copies):
        for k, (game, twin) in enumerate(zip(self.games, copies, strict=True)):
            expect(twin is not game and twin == game, f"position {k}: the copy differs")
            expect(twin.history == (game.history if self.history else []),
                   f"position {k}: the copy's history is wrong")
            before = game.position()
            twin.play(twin.legal_moves()[0])
            expect(game.position() == before, f"position {k}: playing on the copy changed "
                   "the original")
        return ({"calls": len(copies)},
                "every copy equals its original, history as asked, and is independent of it")

    def reference(self):
        if not self.history:
            return None   # photoref copies always carry the history
        mirrors = [reference_game(g) for g in self.games]
        seconds, copies = once(lambda: [mirror.copy() for mirror in mirrors])
        expect(all(same_state(g, c) for g, c in zip(self.games, copies)),
               "a photoref copy differs")
        return {"calls": len(copies)}, seconds, "photoref copy() at the same positions"


def closes_round(game):
    """True when `end` now closes a round that is not the last: it runs photosynthesis."""
    return (game.phase == "play" and game.round < game.last_round
            and (game.current_player + 1) % game.players == game.first_player)


def round_end_positions(count, seed):
    """Random games 10-100 moves in, where `end` closes a round that is not the last."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        game = photocore.Game(rng.choice((2, 3, 4)),
                              options=Options(rng.random() < 0.5, rng.random() < 0.5))
        plies = rng.randrange(10, 100)
        while not game.is_over and (len(game.history) < plies or not closes_round(game)):
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over:
            positions.append(game)
    return positions


class PlayUndo(AtPositions):
    """play(move) + undo() of a random legal move, or (light=True) of an `end` that closes
    a round, so photosynthesis runs. photoref has no undo: its figure is copy() + play(move)."""

    def __init__(self, positions, seed=13, light=False):
        super().__init__(positions, seed)
        self.light = light
        if light:
            self.name = "light"
            self.describe = (f"play(end) + undo() at {positions} random positions where the "
                             "end closes a round, so photosynthesis runs")
        else:
            self.name = "play_undo"
            self.describe = (f"play(move) + undo() of a random legal move at {positions} "
                             "random mid-game positions")

    def prepare(self):
        rng = random.Random(self.seed)
        if self.light:
            games = round_end_positions(self.count, self.seed)
            self.pairs = [(game, photocore.Move.parse("end")) for game in games]
        else:
            games = speed.positions(self.count, self.seed)
            self.pairs = [(game, rng.choice(game.legal_moves())) for game in games]

    def run(self):
        for game, move in self.pairs:
            game.play(move)
            game.undo()
        return len(self.pairs)

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
            game.undo()
            expect(game.position() == before and len(game.history) == plies,
                   f"position {k}: undo did not restore the position")
        if self.light:
            expect(gained > 0, "no position gained light: photosynthesis never ran")
            return {"pairs": value}, ("undo restores every position exactly; each end starts "
                                      "the next round and photosynthesis gives light")
        return {"pairs": value}, "undo restores every position exactly"

    def reference(self):
        mirrors = [reference_game(game) for game, _ in self.pairs]
        for k, ((game, move), mirror) in enumerate(zip(self.pairs, mirrors)):
            twin = mirror.copy()
            twin.play(str(move))
            game.play(move)
            try:
                expect(same_state(game, twin), f"position {k}: after {move} photoref shows "
                       "another position")
            finally:
                game.undo()
        moves = [str(move) for _, move in self.pairs]

        def play():
            for mirror, move in zip(mirrors, moves):
                mirror.copy().play(move)

        seconds, _ = once(play)
        return ({"pairs": len(moves)}, seconds,
                "every position played equals photoref's; photoref copy() + play(move) at "
                "the same positions (it has no undo)")


def perft_lines(path=PERFT_SEEDS):
    """(name, players, options, moves, counts by depth) of each line of seeds/perft.txt."""
    lines = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, config, moves, counts = (part.strip() for part in line.split("|"))
            players, options = config.split()
            lines.append((name, int(players), Options.parse(options),
                          [m for m in moves.split(", ") if m], [int(c) for c in counts.split()]))
    return lines


# the positions timed against photoref: quick to count for it, far from the start
PERFT_POSITIONS = ("mid-2p---40", "mid-3p---40", "mid-4p-s-70")


def perft_cases(depth, names=PERFT_POSITIONS):
    """(name, game, depth, expected count) of the seeds/perft.txt lines `names` at `depth`
    (at its deepest count when depth is None)."""
    cases = []
    for name, players, options, moves, counts in perft_lines():
        if names is None or name in names:
            game = photocore.Game(players, options=options)
            for move in moves:
                game.play(move)
            at = len(counts) if depth is None else depth
            cases.append((name, game, at, counts[at - 1]))
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


class ReferencePerft:
    """photoref's perft over a set of cases, run once for both perft workloads."""

    def __init__(self, cases):
        self.cases = cases
        self.measured = None

    def measure(self):
        if self.measured is None:
            mirrors = [reference_game(game) for _, game, _, _ in self.cases]
            seconds, counts = once(lambda: [photoref.perft(mirror, depth) for mirror, (
                _, _, depth, _) in zip(mirrors, self.cases)])
            for (name, _, depth, expected), count in zip(self.cases, counts):
                expect(count == expected, f"photoref perft({depth}) of {name} = {count}, "
                       f"seeds/perft.txt has {expected}")
            self.measured = ({"leaves": sum(counts)}, seconds,
                             "photoref perft (copy + play to every leaf) of the same "
                             "positions and depths, the same counts")
        return self.measured


class Perft(speed.Perft):
    """The counts of seeds/perft.txt: cases are (name, game, depth, expected count); bulk:
    Game.perft (speed.Perft), else every leaf visited by Python recursion over copy + play."""

    def __init__(self, cases, bulk, reference_perft=None):
        """reference_perft: photoref's run of the same cases (shared by the bulk and full
        workloads), None where photoref would take too long."""
        super().__init__([case[:3] for case in cases])
        self.bulk = bulk
        self.expected = [case[3] for case in cases]
        self.reference_perft = reference_perft
        if not bulk:
            self.name = "perft_full_python"
            self.describe = ("every leaf visited: Python recursion over Game.copy + play "
                             "(there is no C path that visits leaves): " + ", ".join(
                                 f"{name} depth {depth}" for name, _, depth in self.cases))

    def run(self):
        if self.bulk:
            return super().run()
        return [perft_full_python(game, depth) for _, game, depth in self.cases]

    def check(self, value):
        expect(value == self.expected, f"leaf counts {value}, seeds/perft.txt has "
               f"{self.expected}")
        if self.bulk:
            amounts, checked = super().check(value)
        else:   # the other way: Game.perft's bulk count
            for (name, game, depth), count in zip(self.cases, value):
                expect(count == game.perft(depth), f"{name}: {count} leaves visited, "
                       f"Game.perft({depth}) counts {game.perft(depth)}")
            amounts, checked = {"leaves": sum(value)}, (f"{sum(value):,} leaves; each count "
                                                        "equals Game.perft's")
        return amounts, f"leaf counts equal seeds/perft.txt's; {checked}"

    def reference(self):
        return self.reference_perft.measure() if self.reference_perft else None


class Verify(speed.Verify):
    def __init__(self, games, reference_games):
        super().__init__(games)
        self.reference_games = reference_games

    def reference(self):
        sample = [line for lines in self.lines.values() for line in lines[:self.reference_games]]

        def replay():
            for line in sample:
                rec = json.loads(line)
                game = photoref.ReferenceGame(rec["players"], **rec["options"])
                for move in rec["moves"]:
                    game.play(move)   # raises on an illegal move
                result = rec["result"]
                expect(game.is_over and list(game.scores()) == result["scores"]
                       and list(game.winners()) == result["winners"]
                       and list(game.light) == result["light"]
                       and [list(game.tokens(p)) for p in range(game.players)]
                       == result["tokens"],
                       "photoref replays a game to another result than its record's")

        seconds, _ = once(replay)
        moves = sum(len(json.loads(line)["moves"]) for line in sample)
        return ({"moves": moves, "games": len(sample)}, seconds,
                f"photoref parses and replays {len(sample)} of these records (the first "
                f"{self.reference_games} of each player count), checking each result")


class VecStep(speed.VecStep):
    def reference(self):
        # what a step does, in plain Python: photoref plays each game's action and lists the
        # legal moves (its mask) for `watched` games, restarting the ones that end
        env = photocore.VecGame(self.watched, self.players)
        env.reset(seed=self.seed)
        steps = []
        for _ in range(self.steps):
            actions = env.random_actions()
            steps.append([MOVE_TEXTS[a] for a in actions.tolist()])
            env.step(actions)

        def play():
            games = [photoref.ReferenceGame(self.players) for _ in range(self.watched)]
            for texts in steps:
                for i, text in enumerate(texts):
                    games[i].play(text)
                    if games[i].phase == "over":
                        games[i] = photoref.ReferenceGame(self.players)
                    games[i].legal_moves()

        seconds, _ = once(play)
        return ({"moves": self.steps * self.watched}, seconds,
                f"photoref playing the same kind of steps in {self.watched} games, listing "
                "the legal moves after each (no observation)")


class Mcts(speed.Mcts):
    def __init__(self, positions, simulations, seed=5):   # benchmarks/ name it positions
        super().__init__(positions, simulations, seed)

    def reference(self):
        # a simulation is mostly a random playout: photoref plays them from the same
        # positions (a handful: each takes it milliseconds)
        starts = [reference_game(game) for game in self.games[:5]]

        def play():
            rng = random.Random(self.seed)
            for mirror in starts:
                for _ in range(2):
                    game = mirror.copy()
                    while game.phase != "over":
                        game.play(rng.choice(game.legal_moves()))

        seconds, _ = once(play)
        return ({"simulations": 2 * len(starts)}, seconds,
                "photoref random playouts to the end from the same positions (a simulation "
                "without the tree)")


# CI's floors hold these; a full run adds the other player counts with options
PLAYOUT_OPTIONS = ((2, "-"), (2, "f"), (2, "s"), (2, "fs"), (3, "-"), (4, "-"))
MORE_PLAYOUT_OPTIONS = ((3, "f"), (3, "s"), (3, "fs"), (4, "f"), (4, "s"), (4, "fs"))


def workloads(sizes):
    """The engine's workloads at these sizes (benchmarks/bench.py's Sizes) but self-play,
    each with its reference but, in a full run, perft of every seed."""
    cases = perft_cases(sizes.perft_depth)
    shared = ReferencePerft(cases)
    options = PLAYOUT_OPTIONS + (() if sizes.quick else MORE_PLAYOUT_OPTIONS)
    every_seed = Perft(perft_cases(None, names=None), bulk=True)
    every_seed.name = "perft_bulk/seeds"
    every_seed.describe = "Game.perft of every position of seeds/perft.txt at its deepest count"
    return [
        *(Playouts(players, Options.parse(option), sizes.playout_games,
                   sizes.playout_reference_games) for players, option in options),
        PythonLoop(2, sizes.loop_moves, sizes.loop_reference_moves),
        LegalMoves(sizes.positions),
        Copy(sizes.positions),
        Copy(sizes.positions, history=False),
        PlayUndo(sizes.positions),
        PlayUndo(sizes.positions, light=True),
        Perft(cases, bulk=True, reference_perft=shared),
        Perft(cases, bulk=False, reference_perft=shared),
        *(() if sizes.quick else (every_seed,)),
        Verify(sizes.verify_games, sizes.verify_reference_games),
        VecStep(sizes.vec_steps),
        Mcts(sizes.mcts_positions, sizes.mcts_simulations),
    ]
