"""Perft counts of seeds/perft.txt: the kernels must give every one; the reference
(python/photoref.py), the judge, recounts every count of at most REFERENCE_LIMIT leaves."""

import pathlib

import photoref
import pytest

import photocore

SEEDS = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "perft.txt"
# The reference is slow: it recounts each position at every depth whose count is at most
# this (start positions to depth 3, mid-game ones to depth 3-7), about 15 s in all on 2
# cores; the deeper counts were recounted by it once, by hand (python seeds/make_perft.py).
REFERENCE_LIMIT = 20_000


def load():
    for line in SEEDS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, config, moves, counts = (part.strip() for part in line.split("|"))
        players, options = config.split()
        yield pytest.param(int(players), options, [m for m in moves.split(", ") if m],
                           [int(c) for c in counts.split()], id=name)


def replay(engine, players, options, moves):
    if engine is photocore.Game:
        game = engine(players=players, options=options)
    else:                                   # the reference takes a flag per rule
        game = engine(players=players, **photocore.Options.parse(options)._asdict())
    for move in moves:
        game.play(move)
    return game


def reference_perft(game, depth):
    """photoref.perft with the last ply counted in bulk (the length of the move list, as
    Game.perft counts it): the same count, several times faster."""
    if game.phase == "over":
        return 1
    moves = game.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = game.copy()
        child.play(move)
        total += reference_perft(child, depth - 1)
    return total


def reference_divide(game, depth):
    out = {}
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        out[move] = reference_perft(child, depth - 1) if depth > 1 else 1
    return out


def breakdown(expected, got):
    """The moves whose subtree counts differ, for the failure message."""
    lines = [f"{move}: expected {expected.get(move)}, got {got.get(move)}"
             for move in sorted(set(expected) | set(got)) if expected.get(move) != got.get(move)]
    return "\n".join(lines)


@pytest.mark.parametrize("players,options,moves,counts", list(load()))
def test_kernel_perft(players, options, moves, counts):
    game = replay(photocore.Game, players, options, moves)
    for depth, expected in enumerate(counts, start=1):
        got = game.perft(depth)
        if got != expected:
            ref = replay(photoref.ReferenceGame, players, options, moves)
            by_move = breakdown(reference_divide(ref, depth), game.perft_divide(depth))
            pytest.fail(f"perft({depth}) = {got}, expected {expected}; by move, against the "
                        f"reference:\n{by_move}")


@pytest.mark.parametrize("players,options,moves,counts", list(load()))
@pytest.mark.slow
def test_reference_perft(players, options, moves, counts):
    ref = replay(photoref.ReferenceGame, players, options, moves)
    checked = 0
    for depth, expected in enumerate(counts, start=1):
        if expected > REFERENCE_LIMIT:
            break
        got = reference_perft(ref, depth)
        if got != expected:
            game = replay(photocore.Game, players, options, moves)
            pytest.fail(f"reference perft({depth}) = {got}, expected {expected}; by move:\n"
                        f"{breakdown(game.perft_divide(depth), reference_divide(ref, depth))}")
        checked += 1
    assert checked >= 2


def test_divide_sums_to_perft():
    game = replay(photocore.Game, 3, "s", [])
    assert sum(game.perft_divide(3).values()) == game.perft(3) == 4896


def test_bulk_reference_perft_is_photorefs():
    ref = replay(photoref.ReferenceGame, 3, "s", [])
    assert [reference_perft(ref, d) for d in (1, 2, 3)] == [photoref.perft(ref, d)
                                                             for d in (1, 2, 3)]
