"""Writes seeds/golden.jsonl: games played with fixed seeds, which the tests replay.

For 2, 3 and 4 players and each of the four option combinations, GAMES_PER_CONFIG games in
which a seeded random.Random picks among the legal moves, half the time leaving `end` out
when there is anything else, so the games reach crowded boards, bought-out columns and
collected trees. Each record's metadata holds the seed, the agents ("random") and
`checksums`: checksums[k] = zlib.crc32 of Game.position() in UTF-8 after move k + 1.

tests/engine/test_golden.py replays every game, checking each checksum and the result, and plays
it again in python/photoref.py comparing the legal moves. Rerun only when the rules change,
and then bump photocore.RULES_VERSION:  python seeds/make_golden.py
"""

import itertools
import pathlib
import random
import zlib

import photocore
from photocore import records

GAMES_PER_CONFIG = 3
OUT = pathlib.Path(__file__).resolve().parent / "golden.jsonl"


def configs():
    for players in (2, 3, 4):
        for fourth, shade in itertools.product((False, True), repeat=2):
            yield players, fourth, shade


def choose(rng, moves):
    # `end` is the highest action id, so it is last whenever it is legal
    if len(moves) > 1 and moves[-1].kind == "end" and rng.random() < 0.5:
        return rng.choice(moves[:-1])
    return rng.choice(moves)


def play(seed, players, fourth, shade):
    """The record of the game of `seed`, with its checksums."""
    rng = random.Random(seed)
    game = photocore.Game(players, fourth, shade)
    checksums = []
    while not game.is_over:
        game.play(choose(rng, game.legal_moves()))
        checksums.append(zlib.crc32(game.position().encode()))
    metadata = {"agents": ["random"] * players, "seed": seed,
                "policy": "random.Random(seed) over legal moves, half the time without end",
                "checksums": checksums}
    return records.to_record(game, metadata)


def main():
    games = (play(seed, *config) for seed, config in enumerate(
        config for config in configs() for _ in range(GAMES_PER_CONFIG)))
    print(f"{OUT}: {photocore.write_games(OUT, games)} games")


if __name__ == "__main__":
    main()
