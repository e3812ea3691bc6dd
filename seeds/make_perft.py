"""Writes seeds/perft.txt: perft counts of start and mid-game positions.

The counts come from the kernels; tests/engine/test_perft.py checks every count against the kernels
and the shallow ones against python/photoref.py too. Rerun only when the rules change (and
bump photocore.RULES_VERSION): python seeds/make_perft.py > seeds/perft.txt
"""

import random

import photocore

LIMIT = 3_000_000  # deepest count kept per position


def cases():
    for players in (2, 3, 4):
        for options in ("-", "f", "s", "fs"):
            yield f"start-{players}p-{options}", players, options, 0
    for players in (2, 3, 4):
        for options, plies in (("-", 40), ("s", 70), ("fs", 110)):
            yield f"mid-{players}p-{options}-{plies}", players, options, plies


def game_after(players, options, plies, seed):
    game = photocore.Game(players=players, fourth_revolution="f" in options,
                          shade_blocks="s" in options)
    rng = random.Random(seed)
    while len(game.history) < plies and not game.is_over:
        moves = game.legal_moves()
        # avoid `end` when possible, so the position has pieces to act on
        game.play(rng.choice(moves[:-1] if len(moves) > 1 else moves))
    return game


def main():
    print("# name | players options | moves from the start | perft counts for depth 1, 2, ...")
    for seed, (name, players, options, plies) in enumerate(cases()):
        game = game_after(players, options, plies, seed)
        counts, depth = [], 1
        while depth < 8:
            count = game.perft(depth)
            if count > LIMIT:
                break
            counts.append(count)
            depth += 1
        moves = ", ".join(str(m) for m in game.history)
        print(f"{name} | {players} {options} | {moves} | {' '.join(map(str, counts))}")


if __name__ == "__main__":
    main()
