"""Training data from self-play: games played by photocore.Search with a network, written
as .npz shards (and, if asked, as game records with the visits of every move)::

    from photocore.run.train_data import DataSeries, write_data
    series = DataSeries(evaluate, games=1000, simulations=64, seed=0)
    summary = write_data(series, "data/", records="games.jsonl.gz", workers=2)

`evaluate(obs, mask) -> (logits, values)` is the network (docs/searching.md); it must pickle
to run in worker processes or Ray tasks. Games are played in blocks of `per_search` games
searched together, block k holding games k * per_search ... (k + 1) * per_search - 1 and
written as shard k: a block depends only on (seed, its first game, the weights), so the
same seed and per_search give the same shards and records whatever the workers or backend
(a network gives the same answers for the same batch: PyTorch on CPU with a fixed number
of threads does).

A shard `shard-<first game>.npz` holds one row per move of its games, in game then ply order::

    obs         float32 (n, OBSERVATION_SIZE)  the position as the player to move sees it
    mask        bool    (n, NUM_ACTIONS)       its legal moves
    policy      float32 (n, NUM_ACTIONS)       root visits / their sum (one-hot on a forced move)
    returns     float32 (n, players)           the game's final returns, by seat
    scores      int16   (n, players)           the game's final scores, by seat
    value       float32 (n, players)           the same from the player to move: value[:, k]
                                               is the return of the player k seats after it
                                               (what the network's values are trained on)
    to_move     int8    (n,)                   the player to move
    game        int64   (n,)                   the game's index in the run
    ply         int16   (n,)                   the move's number in its game, from 0
    searched    bool    (n,)                   False for a forced move (one legal move)
"""

import dataclasses
import os
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple, TypeAlias

import numpy as np
import numpy.typing as npt

from photocore._game import Game
from photocore._kernel import stream_seed
from photocore.facts import NUM_ACTIONS, OBSERVATION_SIZE, Options, check_count, check_seed
from photocore.files import atomic
from photocore.play._search import Search
from photocore.play.search import choosing
from photocore.play.settings import Network, SearchSettings
from photocore.records import RecordWriter, record_line
from photocore.run.driver import MAX_BATCH, drive
from photocore.run.selfplay import Summary, Tally

__all__ = [
    "FIELDS", "Shard", "value_targets", "Uniform", "TrainingBatch", "DataSeries", "play_block",
    "shard_name", "write_shard", "load_shards", "write_data"
]

FIELDS = ("obs", "mask", "policy", "returns", "scores", "value", "to_move", "game", "ply",
          "searched")
"""The arrays of a shard, one row per move, as the module's text describes them."""

Shard: TypeAlias = dict[str, npt.NDArray[np.generic]]
"""A shard of training data: FIELDS' arrays by name."""


def value_targets(returns: npt.ArrayLike, to_move: npt.ArrayLike) -> npt.NDArray[Any]:
    """Returns by seat (n, players) turned to the player-to-move order of the network.

    >>> value_targets(np.array([[1.0, -1.0], [1.0, -1.0]]), np.array([0, 1])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    by_seat = np.asarray(returns)
    players = by_seat.shape[1]
    seats = (np.asarray(to_move)[:, None] + np.arange(players)) % players
    return np.take_along_axis(by_seat, seats, axis=1)


class Uniform:
    """An evaluator with no network: uniform priors and zero values (picklable). The search
    then plays by its finished games alone: a baseline, and a way to try the pipeline.

    >>> logits, values = Uniform(3)(np.zeros((2, OBSERVATION_SIZE), np.float32), None)
    >>> logits.shape, values.shape
    ((2, 890), (2, 3))
    """

    def __init__(self, players: int = 2) -> None:
        self.players = players

    def __call__(self, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_] | None
                 ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        return (np.zeros((len(obs), NUM_ACTIONS), np.float32),
                np.zeros((len(obs), self.players), np.float32))


class TrainingBatch(NamedTuple):
    """A batch of training data: the games of a block, searched together."""

    shard: Shard
    lines: list[bytes]
    tally: Tally


TrainingBatch.shard.__doc__ = "Their shard of training data."
TrainingBatch.lines.__doc__ = "Their record lines: none unless the series' `records` is on."
TrainingBatch.tally.__doc__ = "Their Tally."


@dataclasses.dataclass(init=False)
class DataSeries:
    """A self-play run of games searched with a network, for training data: a Plan of
    photocore.run.driver. Its fields are its arguments, checked; `settings` may be given
    whole (None: the defaults, root noise included), and `keywords` (SearchSettings's
    fields: `c_puct`, `rollout_weight`, `graph`, `max_nodes`, ...) change some of its fields.

    Raises:
        ValueError: an argument out of its range (the message names it).
    """

    evaluate: Network
    """The evaluator: (observations, masks) -> (logits, values), a network or Uniform."""
    games: int
    """The number of games, 0 to 2**63 - 1."""
    players: int
    """Players in each game, 2 to 4."""
    seed: int
    """The run's seed: game i depends only on it and i (any integer, taken modulo 2**64)."""
    simulations: int
    """Simulations a move, at least 2 (play.search.MIN_SIMULATIONS); with `reuse` the
    visits kept count toward them."""
    per_search: int
    """Games searched together, one evaluator call for all their leaves (1 to MAX_BATCH)."""
    explore_plies: int
    """The first moves of each game drawn in proportion to their visits (temperature 1);
    the later ones are the most visited."""
    settings: SearchSettings
    """How the search searches (play.settings.SearchSettings)."""
    reuse: bool
    """Whether the subtree of the move played is kept for the next search."""
    records: bool
    """Whether the batches also give the games' record lines."""
    name: str
    """The agent's label in the records."""
    options: Options
    """The advanced rules, an Options (or its text, as an argument)."""

    def __init__(self, evaluate: Network, games: int, players: int = 2, seed: int = 0,
                 simulations: int = 64, per_search: int = 64, explore_plies: int = 30,
                 settings: SearchSettings | None = None, reuse: bool = True,
                 records: bool = False, name: str = "search",
                 options: Options | str | None = None, **keywords: Any) -> None:
        self.evaluate, self.players, self.simulations = evaluate, players, simulations
        self.per_search, self.explore_plies = per_search, explore_plies
        self.reuse, self.records, self.name = reuse, records, name
        self.settings = SearchSettings.of(settings, keywords, "DataSeries")
        self.options = Options.coerce(options)
        self.games = check_count(games, "games")
        self.seed = check_seed(seed)
        if not 1 <= self.per_search <= MAX_BATCH:
            raise ValueError(f"per_search must be from 1 to {MAX_BATCH:,}, got "
                             f"{self.per_search}")
        if self.explore_plies < 0:
            raise ValueError(f"explore_plies must be >= 0, got {self.explore_plies}")
        Game(self.players)        # checks players
        choosing(self.simulations)
        # checks the search's settings at once, not in a worker
        Search([Game(self.players)], self.simulations, 0, settings=self.settings)

    searches = True       # for the driver: it searches every move
    """True: it searches every move (for the driver's batch sizes)."""

    def batch(self, start: int, count: int) -> TrainingBatch:
        """Games start .. start + count - 1 played together (play_block): the driver runs
        blocks of `per_search` games (write_data)."""
        return play_block(self, start, count)

    def metadata(self, index: int, visits: list[dict[str, int]]) -> dict[str, Any]:
        """The metadata of game `index`'s record (docs/records.md): the agent's name in
        every seat, the run's seed, the index, the simulations a move and each move's
        `visits` (the root's visits by move, {} for a forced move)."""
        return {"agents": [self.name] * self.players, "seed": self.seed, "game": index,
                "simulations": self.simulations, "visits": visits}


def play_block(series: DataSeries, start: int, count: int) -> TrainingBatch:
    """Plays games start .. start + count - 1 together in one Search, to the end."""
    games = [Game(series.players, options=series.options) for _ in range(count)]
    # one stream per block, from (seed, first game): the block's games, whoever plays them
    search = Search(games, series.simulations, stream_seed(series.seed, start),
                    settings=series.settings)
    rows: dict[str, list[object]] = {
        name: [] for name in ("obs", "mask", "policy", "to_move", "game", "ply", "searched")}
    visits_log: list[list[dict[str, int]]] = [[] for _ in range(count)]
    finished = [g.is_over for g in games]

    def record(i: int, policy: npt.NDArray[np.float32], searched: bool) -> None:
        game = games[i]
        rows["obs"].append(game.observation())
        rows["mask"].append(game.legal_moves().mask())
        rows["policy"].append(policy)
        rows["to_move"].append(game.current_player)
        rows["game"].append(start + i)
        rows["ply"].append(len(game.history))
        rows["searched"].append(searched)

    def play(moves: npt.NDArray[np.int64]) -> None:
        search.advance(moves)
        for i, move in enumerate(moves.tolist()):
            if move >= 0:
                games[i].play(move)
                finished[i] = games[i].is_over
        if not series.reuse:
            for i, move in enumerate(moves.tolist()):
                if move >= 0:
                    search.set_game(i, games[i])

    one_hot = np.eye(NUM_ACTIONS, dtype=np.float32)
    while not all(finished):
        # forced moves need no search: played at once, kept with a one-hot policy
        while True:
            forced = np.full(count, -1, np.int64)
            for i, game in enumerate(games):
                if not finished[i] and len(game.legal_moves()) == 1:
                    forced[i] = int(game.legal_moves()[0])
                    record(i, one_hot[forced[i]], False)
                    visits_log[i].append({})
            if (forced < 0).all():
                break
            play(forced)
        if all(finished):
            break
        visits = search.run(series.evaluate)
        greedy = search.choose(temperature=0)
        drawn = search.choose(temperature=1.0)
        moves = np.full(count, -1, np.int64)
        for i, game in enumerate(games):
            if finished[i]:
                continue
            row = visits[i]
            record(i, (row / row.sum()).astype(np.float32), True)
            if series.records:
                visits_log[i].append({str(game.legal_moves()[k]): int(row[a])
                                      for k, a in enumerate(game.legal_moves().ids()) if row[a]})
            moves[i] = drawn[i] if len(game.history) < series.explore_plies else greedy[i]
        play(moves)

    n = len(rows["obs"])
    shard: Shard = {
        "obs": np.array(rows["obs"], np.float32).reshape(n, OBSERVATION_SIZE),
        "mask": np.array(rows["mask"], np.bool_).reshape(n, NUM_ACTIONS),
        "policy": np.array(rows["policy"], np.float32).reshape(n, NUM_ACTIONS),
        "to_move": np.array(rows["to_move"], np.int8),
        "game": np.array(rows["game"], np.int64),
        "ply": np.array(rows["ply"], np.int16),
        "searched": np.array(rows["searched"], np.bool_),
    }
    # rows are in play order across the block's games: sort them by game, then ply
    order = np.lexsort((shard["ply"], shard["game"]))
    shard = {name: array[order] for name, array in shard.items()}
    final = np.array([g.returns() for g in games], np.float32).reshape(count, series.players)
    shard["returns"] = final[shard["game"] - start]
    scores = np.array([g.scores() for g in games], np.int16).reshape(count, series.players)
    shard["scores"] = scores[shard["game"] - start]
    shard["value"] = value_targets(shard["returns"], shard["to_move"]).astype(np.float32)

    names = [series.name] * series.players
    lines: list[bytes] = []
    tally = Tally(series.players)
    for i, game in enumerate(games):
        tally.add(len(game.history), game.scores(), game.winners(), names)
        if series.records:
            lines.append(record_line(game, series.metadata(start + i, visits_log[i])))
    return TrainingBatch(shard, lines, tally)


def shard_name(start: int) -> str:
    """The file name of the shard whose games start at game `start`.

    >>> shard_name(1024)
    'shard-000001024.npz'
    """
    return f"shard-{start:09d}.npz"


def write_shard(folder: str | os.PathLike[str], start: int, shard: Shard) -> str:
    """Writes one shard atomically (photocore.files.atomic)."""
    path = os.path.join(folder, shard_name(start))
    arrays: dict[str, Any] = shard      # numpy's stubs would take a key for allow_pickle
    with atomic(path) as out:
        np.savez_compressed(out, **arrays)
    return path


def load_shards(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> Shard:
    """The rows of several shards (paths, or a folder of them) concatenated, as one dict
    of arrays."""
    if isinstance(paths, (str, os.PathLike)):
        paths = (sorted(os.path.join(paths, p) for p in os.listdir(paths)
                        if p.startswith("shard-") and p.endswith(".npz"))
                 if os.path.isdir(paths) else [paths])
    parts = []
    for path in paths:
        with np.load(path) as data:
            parts.append({name: data[name] for name in FIELDS})
    if not parts:
        raise ValueError("no shards to load")
    return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}


def write_data(series: DataSeries, folder: str | os.PathLike[str],
               records: str | os.PathLike[str] | None = None, workers: int | None = None,
               backend: str = "local", address: str | None = None,
               progress: Callable[[int, int], object] | None = None) -> dict[str, object]:
    """Plays `series` and writes its shards into `folder` (created if need be) and, if
    `records` names a .jsonl(.gz) file, its games as records (series.records must be on).

    Blocks are played in `workers` processes (default: the cores), in this process
    (workers=0: for a network that cannot pickle or lives on a GPU here), or as Ray tasks
    (backend="ray"), and written in game order as they come (photocore.run.driver);
    `progress(games, rows)` is called after each. Returns a summary dict.
    """
    if records is not None and not series.records:
        raise ValueError("records need a DataSeries with records=True (the visits per move)")
    os.makedirs(folder, exist_ok=True)
    tally = Tally(series.players)
    rows = 0
    begin = time.perf_counter()

    def take(start: int, block: TrainingBatch) -> None:
        nonlocal rows
        write_shard(folder, start, block.shard)
        tally.merge(block.tally)
        rows += len(block.shard["obs"])
        if progress is not None:
            progress(tally.games, rows)

    writer = RecordWriter(records, append=False) if records is not None else None
    try:
        drive(series, take, writer, workers=workers, batch=series.per_search,
              backend=backend, address=address)
    finally:
        if writer is not None:
            writer.close()
    summary: Summary = tally.summary()
    return {**summary, "rows": rows, "seconds": time.perf_counter() - begin}
