"""Training data from self-play: games played by photocore.Search with a network, written
as .npz shards (and, if asked, as game records with the visits of every move).

    from photocore.run.train_data import DataSeries, write_data
    series = DataSeries(evaluate, games=1000, simulations=64, seed=0)
    summary = write_data(series, "data/", records="games.jsonl.gz", workers=2)

`evaluate(obs, mask) -> (logits, values)` is the network (docs/search.md); it must pickle
to run in worker processes or Ray tasks. Games are played in blocks of `per_search` games
searched together, block k holding games k * per_search ... (k + 1) * per_search - 1 and
written as shard k: a block depends only on (seed, its first game, the weights), so the
same seed and per_search give the same shards and records whatever the workers or backend
(a network gives the same answers for the same batch: PyTorch on CPU with a fixed number
of threads does).

A shard `shard-<first game>.npz` holds one row per move of its games, in game then ply order:

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
import tempfile
import time

import numpy as np

from photocore._game import Game
from photocore.facts import NUM_ACTIONS, OBSERVATION_SIZE, Options
from photocore.play._search import Search

FIELDS = ("obs", "mask", "policy", "returns", "scores", "value", "to_move", "game", "ply",
          "searched")


def value_targets(returns, to_move):
    """Returns by seat (n, players) turned to the player-to-move order of the network.

    >>> value_targets(np.array([[1.0, -1.0], [1.0, -1.0]]), np.array([0, 1])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    players = returns.shape[1]
    seats = (np.asarray(to_move)[:, None] + np.arange(players)) % players
    return np.take_along_axis(returns, seats, axis=1)


class Uniform:
    """An evaluator with no network: uniform priors and zero values (picklable). The search
    then plays by its finished games alone: a baseline, and a way to try the pipeline.

    >>> logits, values = Uniform(3)(np.zeros((2, OBSERVATION_SIZE), np.float32), None)
    >>> logits.shape, values.shape
    ((2, 890), (2, 3))
    """

    def __init__(self, players=2):
        self.players = players

    def __call__(self, obs, mask):
        return (np.zeros((len(obs), NUM_ACTIONS), np.float32),
                np.zeros((len(obs), self.players), np.float32))


@dataclasses.dataclass
class DataSeries:
    """A self-play run: `games` games of `players`, searched with `evaluate`.

    The first `explore_plies` moves of each game are drawn in proportion to their visits
    (temperature 1), the later ones are the most visited; `reuse` keeps the subtree of the
    move played (visits kept count toward `simulations`). Root noise as in Search.
    """

    evaluate: object
    games: int
    players: int = 2
    seed: int = 0
    simulations: int = 64
    per_search: int = 64
    explore_plies: int = 30
    c_puct: float = 1.25
    dirichlet_alpha: float = 0.3
    dirichlet_fraction: float = 0.25
    in_flight: int = 1
    reuse: bool = True
    records: bool = False
    name: str = "search"
    fourth_revolution: bool = False
    shade_blocks: bool = False

    def __post_init__(self):
        if self.games < 0:
            raise ValueError(f"games must be >= 0, got {self.games}")
        if self.per_search < 1:
            raise ValueError(f"per_search must be >= 1, got {self.per_search}")
        if self.explore_plies < 0:
            raise ValueError(f"explore_plies must be >= 0, got {self.explore_plies}")
        Game(self.players)        # checks players
        # checks the search's parameters at once, not in a worker
        Search([Game(self.players)], self.simulations, 0, self.c_puct, self.dirichlet_alpha,
               self.dirichlet_fraction, self.in_flight)

    @property
    def specs(self):     # what run.selfplay's default batch size looks at: a searching agent
        return [("mcts", self.simulations)]

    def batch(self, start, count):
        """Games start .. start + count - 1 as ((shard arrays, record lines), Tally): the
        pair run.selfplay's workers hand back."""
        shard, lines, tally = play_block(self, start, count)
        return (shard, lines), tally


def play_block(series, start, count):
    """Plays games start .. start + count - 1 together in one Search, to the end."""
    from photocore.records import record_line
    from photocore.run.selfplay import Tally

    options = Options(series.fourth_revolution, series.shade_blocks)
    games = [Game(series.players, *options) for _ in range(count)]
    # one stream per block, from (seed, first game): the block's games, whoever plays them
    search = Search(games, series.simulations, _block_seed(series.seed, start), series.c_puct,
                    series.dirichlet_alpha, series.dirichlet_fraction, series.in_flight)
    rows = {name: [] for name in ("obs", "mask", "policy", "to_move", "game", "ply", "searched")}
    first_row = [None] * count
    visits_log = [[] for _ in range(count)]
    finished = [g.is_over for g in games]

    def record(i, policy, searched):
        game = games[i]
        if first_row[i] is None:
            first_row[i] = len(rows["obs"])
        rows["obs"].append(game.observation())
        rows["mask"].append(game.legal_moves().mask())
        rows["policy"].append(policy)
        rows["to_move"].append(game.current_player)
        rows["game"].append(start + i)
        rows["ply"].append(len(game.history))
        rows["searched"].append(searched)

    def play(moves):
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
    shard = {
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
    lines = []
    tally = Tally(series.players)
    for i, game in enumerate(games):
        tally.add(len(game.history), game.scores(), game.winners(), names)
        if series.records:
            lines.append(record_line(game, {
                "agents": names, "seed": series.seed, "game": start + i,
                "simulations": series.simulations, "visits": visits_log[i]}))
    return shard, lines, tally


def _block_seed(seed, start):
    """A block's search seed from (seed, its first game): one SplitMix64 step."""
    z = (seed ^ (start * 0xD1B54A32D192ED03) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


_MASK = (1 << 64) - 1


def shard_name(start):
    return f"shard-{start:09d}.npz"


def write_shard(folder, start, shard):
    """Writes one shard atomically: a temporary file renamed into place once complete."""
    path = os.path.join(folder, shard_name(start))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".shard-", suffix=".npz")
    try:
        with os.fdopen(handle, "wb") as out:
            np.savez_compressed(out, **shard)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    return path


def load_shards(paths):
    """The rows of several shards (paths or a folder) concatenated, as one dict of arrays."""
    if isinstance(paths, (str, os.PathLike)) and os.path.isdir(paths):
        paths = sorted(os.path.join(paths, p) for p in os.listdir(paths)
                       if p.startswith("shard-") and p.endswith(".npz"))
    parts = []
    for path in paths:
        with np.load(path) as data:
            parts.append({name: data[name] for name in FIELDS})
    if not parts:
        raise ValueError("no shards to load")
    return {name: np.concatenate([p[name] for p in parts]) for name in FIELDS}


def write_data(series, folder, records=None, workers=None, backend="local", address=None,
               progress=None):
    """Plays `series` and writes its shards into `folder` (created if need be) and, if
    `records` names a .jsonl(.gz) file, its games as records (series.records must be on).

    Blocks are played in `workers` processes (default: the cores), in this process
    (workers=0: for a network that cannot pickle or lives on a GPU here), or as Ray tasks
    (backend="ray"), and written in game order as they come. Returns a summary dict.
    """
    from photocore.records import RecordWriter
    from photocore.run.selfplay import Tally, run_local

    if records is not None and not series.records:
        raise ValueError("records need a DataSeries with records=True (the visits per move)")
    os.makedirs(folder, exist_ok=True)
    if backend == "ray":
        from photocore.run.ray_backend import run_ray
        blocks = run_ray(series, address=address, batch=series.per_search)
    elif backend == "local" and workers == 0:
        blocks = (series.batch(start, min(series.per_search, series.games - start))
                  for start in range(0, series.games, series.per_search))
    elif backend == "local":
        blocks = run_local(series, workers=workers, batch=series.per_search)
    else:
        raise ValueError(f"backend must be local or ray, got {backend!r}")
    tally = Tally(series.players)
    rows = 0
    begin = time.perf_counter()
    writer = RecordWriter(records, append=False) if records is not None else None
    try:
        for start in range(0, series.games, series.per_search):
            (shard, lines), counts = next(blocks)
            write_shard(folder, start, shard)
            if writer is not None:
                writer.write_lines(lines)
            tally.merge(counts)
            rows += len(shard["obs"])
            if progress is not None:
                progress(tally.games, rows)
    finally:
        blocks.close()
        if writer is not None:
            writer.close()
    summary = tally.summary()
    summary.update(rows=rows, seconds=time.perf_counter() - begin)
    return summary
