"""Training data from a checkpoint: self-play games searched with its network, written as
.npz shards (and records with the visits of every move) by photocore.run.train_data.

    python examples/alphazero/selfplay_data.py --games 256 --out data/ --records games.jsonl.gz
    python examples/alphazero/selfplay_data.py --games 256 --out data/ --backend ray

The same --seed, --per-search and checkpoint give the same files whatever --workers or
--backend (docs/searching.md, "Training data").
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent import CHECKPOINT  # noqa: E402
from net import CheckpointError, Evaluator, load  # noqa: E402
from options import HelpFormatter, whole  # noqa: E402

from photocore.play.search import MIN_SIMULATIONS  # noqa: E402
from photocore.run.train_data import DataSeries, write_data  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--checkpoint", default=CHECKPOINT, help="the network that searches")
    parser.add_argument("--games", type=whole(1), default=256, help="self-play games")
    parser.add_argument("--out", required=True, help="folder for the shards")
    parser.add_argument("--records", default=None, help="also the games as records (.jsonl[.gz])")
    parser.add_argument("--simulations", type=whole(MIN_SIMULATIONS), default=64,
                        help="per move")
    parser.add_argument("--per-search", type=whole(1), default=64, help="games searched together")
    parser.add_argument("--explore-plies", type=whole(0), default=30,
                        help="first moves of a game drawn in proportion to visits")
    parser.add_argument("--seed", type=int, default=0, help="of the games")
    parser.add_argument("--workers", type=whole(0), default=None,
                        help="processes (default: the cores; 0: this process)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local",
                        help="where the games are played")
    parser.add_argument("--address", default=None, help="Ray cluster address")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    try:
        net, _ = load(args.checkpoint)
    except CheckpointError as e:
        parser.error(str(e))
    series = DataSeries(Evaluator(net), games=args.games, players=net.players, seed=args.seed,
                        simulations=args.simulations, per_search=args.per_search,
                        explore_plies=args.explore_plies, records=args.records is not None,
                        name=f"alphazero:{args.simulations}")
    summary = write_data(series, args.out, records=args.records, workers=args.workers,
                         backend=args.backend, address=args.address,
                         progress=lambda games, rows: print(f"{games} games, {rows} rows",
                                                            flush=True))
    print(f"{summary['games']} games, {summary['rows']} rows in {summary['seconds']:.1f} s "
          f"-> {args.out}" + (f", records -> {args.records}" if args.records else ""))


if __name__ == "__main__":
    main()
