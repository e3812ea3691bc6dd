"""A checkpoint re-saved with its subnormal weights set to zero, once it is shown to play the
same: the same policy and values within --tolerance and the same searched moves on positions
of a few games.

    python examples/alphazero/flush.py examples/alphazero/checkpoint.pt     # in place
    python examples/alphazero/flush.py runs/az/final.pt --out runs/az/final-flushed.pt

A checkpoint trained before train.py used AdamW can have a quarter of its weights subnormal
(net.py says why that is slow). Loading one already flushes it (net.load); this writes the
file so that it is fast anywhere it is read. The old network is run as it used to run, with
denormals not flushed, against the flushed one as the agent runs it (net.Evaluator).
"""

import argparse
import os
import sys

import numpy as np
import numpy.typing as npt
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from net import CheckpointError, Evaluator, Net, flush_subnormals, load  # noqa: E402
from options import HelpFormatter, number, whole  # noqa: E402

import photocore  # noqa: E402
from photocore import Agent, Search  # noqa: E402
from photocore.play.search import MIN_SIMULATIONS  # noqa: E402
from photocore.play.settings import Network  # noqa: E402

Outputs = tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]     # (logits, values)


def positions(players: int, games: int, seed: int) -> list[photocore.Game]:
    """The positions of `games` games of `greedy` against `random` where the player to move
    has a choice."""
    boards = []
    for i in range(games):
        game = photocore.Game(players)
        agents = [Agent("greedy" if (i + p) % 2 else "random", seed=seed + i)
                  for p in range(players)]
        while not game.is_over:
            if len(game.legal_moves()) > 1:
                boards.append(game.copy())
            mover = game.current_player
            assert mover is not None                 # the game is not over
            game.play(agents[mover].select(game))
    return boards


def unflushed(net: Net) -> Network:
    """The network as the search ran it before: subnormals as they are."""
    def evaluate(obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> Outputs:
        with torch.inference_mode():
            logits, values = net(torch.from_numpy(obs))
        return logits.numpy(), values.numpy()
    return evaluate


def searched_moves(evaluate: Network, boards: list[photocore.Game], simulations: int,
                   seed: int) -> npt.NDArray[np.int64]:
    search = Search([board.copy() for board in boards], simulations, seed=seed,
                    dirichlet_fraction=0.0)
    search.run(evaluate)
    return search.choose(temperature=0)


def compare(old: Net, new: Net, boards: list[photocore.Game], simulations: int,
            seed: int) -> tuple[float, int]:
    """(largest difference of a logit or value, moves searched differently) between the
    networks `old` (run unflushed) and `new` (run as the agent does)."""
    obs = np.stack([board.observation() for board in boards])
    mask = np.stack([board.legal_moves().mask() for board in boards])
    before, after = unflushed(old)(obs, mask), Evaluator(new)(obs, mask)
    difference = max(float(np.abs(a - b).max()) for a, b in zip(before, after))
    moved = searched_moves(unflushed(old), boards, simulations, seed)
    differently = int((moved != searched_moves(Evaluator(new), boards, simulations, seed)).sum())
    return difference, differently


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("checkpoint", help="the checkpoint to re-save")
    parser.add_argument("--out", default=None, help="where to write it (default: in place)")
    parser.add_argument("--games", type=whole(1), default=8,
                        help="games whose positions are compared")
    parser.add_argument("--simulations", type=whole(MIN_SIMULATIONS), default=64,
                        help="of the searches whose moves are compared")
    parser.add_argument("--tolerance", type=number(), default=1e-6,
                        help="largest change of a logit or value allowed (below 0: none is)")
    parser.add_argument("--seed", type=int, default=0, help="of the games and searches")
    args = parser.parse_args(argv)

    torch.set_num_threads(1)
    try:
        old, checkpoint = load(args.checkpoint, flush=False)
    except CheckpointError as e:
        parser.error(str(e))
    new, _ = load(args.checkpoint, flush=False)
    total = sum(p.numel() for p in new.state_dict().values())
    flushed = flush_subnormals(new)
    boards = positions(new.players, args.games, args.seed)
    difference, differently = compare(old, new, boards, args.simulations, args.seed)
    print(f"{args.checkpoint}: {flushed:,} of {total:,} weights subnormal; on {len(boards)} "
          f"positions the largest change of a logit or value is {difference:.1e}, "
          f"{differently} searched moves ({args.simulations} simulations) differ")
    if difference > args.tolerance or differently:
        raise SystemExit(f"{args.checkpoint}: not written, the flushed network plays "
                         "differently")
    out = args.out or args.checkpoint
    torch.save({**checkpoint, "state": new.state_dict()}, out)
    print(f"written to {out}")


if __name__ == "__main__":
    main()
