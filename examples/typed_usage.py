"""A user's program typed against photocore's public API: `mypy --strict` passes on it.

    python -m mypy --strict examples/typed_usage.py
    python examples/typed_usage.py
"""

import copy
import pickle
import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

import photocore
import photocore.play
from photocore import Game, IllegalMoveError, LegalMoves, Move, Options
from photocore.play import Player, harness, specs
from photocore.play.search import SearchAgent


def random_move(game: Game, rng: random.Random) -> Move:
    moves: LegalMoves = game.legal_moves()
    return moves[rng.randrange(len(moves))]


def play_out(game: Game, rng: random.Random) -> tuple[int, ...]:
    """Random moves to the end; the winners."""
    while not game.is_over:
        game.play(random_move(game, rng))
    return game.winners()


class Collector:
    """A user's own player: it needs no base class to be a Player, only the four names."""

    name = "collector"

    def __init__(self) -> None:
        self.rng = random.Random()

    def reset(self, seed: int | None = None) -> None:
        self.rng.seed(seed)

    def select(self, game: Game, limit: photocore.Limit | None = None) -> Move:
        moves = game.legal_moves()
        collects = [move for move in moves if move.kind == "collect"]
        return self.rng.choice(collects or list(moves))

    def close(self) -> None:
        pass


def uniform(obs: npt.NDArray[np.float32],
            mask: npt.NDArray[np.bool_]) -> tuple[npt.ArrayLike, npt.ArrayLike]:
    """A network's stand-in for SearchAgent: no preference, every position a draw."""
    return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)


def tournament(players: Sequence[Player], options: Options, seed: int) -> tuple[int, ...]:
    """One seeded game between `players` (each a Player, whatever its kind): the winners."""
    game = Game(len(players), options=options)
    played = harness.play_game(game, players, seeds=[seed + p for p in range(len(players))])
    assert played.forfeit is None
    return played.winners(game)


def describe(game: Game) -> str:
    player = game.current_player
    to_move = "nobody" if player is None else f"player {player}"
    return (f"{game.phase} round {game.round}/{game.last_round}, sun {game.sun}, "
            f"{to_move} to move, light {game.light}, scores {game.scores()}")


def main() -> None:
    rng = random.Random(1)
    game = Game(players=3, options=Options(shade_blocks=True))
    options: Options = game.options
    assert game.perft(1) == len(game.legal_moves()) == len(game.legal_moves().ids())
    assert Game(3, options="s") == game and str(options) == "s" and options.shade_blocks
    assert Options.parse("fs").fourth_revolution and Options.coerce(None) == Options()

    first: Move = game.legal_moves()[0]
    kind: str = first.kind
    ids: list[int] = game.legal_moves().ids()
    assert int(first) == ids[0] and str(first) == "place a4" and kind == "place"
    cell: str | None = first.cell
    assert cell == "a4" and first.source is None and first.column is None
    game.play(first)
    game.play(Move.parse("place g1"))
    game.play(photocore.CELLS.index("d1"))
    assert game.undo() == Move.parse("place d1")

    try:
        game.play("end")
    except IllegalMoveError as error:
        print("refused:", error)

    for _ in range(40):
        if not game.is_over:
            game.play(random_move(game, rng))
    obs: npt.NDArray[np.float32] = game.observation()
    mask: npt.NDArray[np.bool_] = game.legal_moves().mask()
    shadows: dict[int, tuple[str, ...]] = game.shadows()
    buffer = np.empty(photocore.OBSERVATION_SIZE, np.float32)
    game.observation(0, out=buffer)
    assert obs.shape == (photocore.OBSERVATION_SIZE,) and mask.shape == (photocore.NUM_ACTIONS,)

    board: dict[str, tuple[int, int]] = game.board()
    seeds, small, medium, large = game.available(0)
    history: list[Move] = game.history
    print(describe(game), f"{len(board)} pieces, {seeds + small + medium + large} available,"
          f" {len(history)} moves, stacks {game.stacks}, shaded {game.shaded()},"
          f" in the shadow of large trees {shadows[3]}")

    text: str = game.position()
    again = Game.from_position(text)
    assert again == game and again.position() == text == str(game)
    start: Game = game.root()
    assert start.from_start and start.history == []
    assert pickle.loads(pickle.dumps(game)).history == history
    twin = copy.deepcopy(game)
    bare = game.copy(history=False)
    print("winners", play_out(twin, rng), play_out(bare, rng))

    mine: Player = Collector()
    players: list[Player] = [mine, specs.load("mcts:20"), SearchAgent(uniform, simulations=8)]
    assert all(isinstance(player, Player) for player in players)
    print(", ".join(player.name for player in players), "winners",
          tournament(players[:2], options, seed=1), tournament(players[1:], Options(), seed=2))
    for player in players:
        player.close()

    returns: tuple[float, ...] = game.playout(seed=3)     # from this position, game unchanged
    many: npt.NDArray[np.float32] = game.playouts(50, seed=3)
    batch = photocore.playouts([game, again], n=8, seed=3, threads=2)
    assert many.shape == (50, 3) and batch.shape == (2, 8, 3) and len(returns) == 3
    leaves = photocore.VecGame.from_games([game, again])
    leaf_obs, leaf_mask = leaves.observe()
    assert np.array_equal(leaf_obs[0], game.observation()) and leaf_mask.shape == (2, 890)
    solution: photocore.play.Solution = photocore.solve(game, photocore.Limit(seconds=0.01))
    stats: photocore.play.RootStats = photocore.play.search_root(game, simulations=20)
    print("solved" if solution.solved else "unsolved", "root visits", stats.root_visits)

    totals = photocore.random_playouts(100, players=2, seed=7)
    games: int = totals["games"]
    wins: tuple[int, ...] = totals["wins"]
    print(f"{games} random games, {totals['moves']} moves, wins {wins}, "
          f"rules version {photocore.RULES_VERSION}")


if __name__ == "__main__":
    main()
