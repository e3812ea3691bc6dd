"""A photocore engine in plain Python (docs/protocol.md, version 1), importing nothing
from photocore: it reads the round from the position notation and chooses among the legal
moves the harness lists by a fixed preference: collect late, grow, plant early, end.

    photocore match --agents "cmd:python3 examples/engines/simple_engine.py,greedy" --games 20
"""
import random
import sys


def preference(move, rounds_left):
    kind = move.split()[0]
    if kind == "collect":
        return 5 if rounds_left < 6 else 0
    if kind == "plant":
        return 3 if rounds_left > 3 else -1
    return {"grow": 4, "end": 1, "buy": -1}.get(kind, 0)    # place: any will do


def main():
    rng, rounds_left, legal = random.Random(), 18, []
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "photocore":
            print("ready name=simple-python")
        elif command == "newgame" and rest.startswith("seed="):
            rng.seed(int(rest.split()[0][5:]))
        elif command == "position":
            fields = rest.split()      # players options round sun first to-move ...
            last_round = 24 if "f" in fields[1] else 18
            rounds_left = last_round - int(fields[2])
        elif command == "legal":
            legal = rest.split(",")
        elif command == "go":
            best = max(preference(m, rounds_left) for m in legal)
            print("move", rng.choice([m for m in legal if preference(m, rounds_left) == best]))
        elif command == "quit":
            break
        sys.stdout.flush()


if __name__ == "__main__":
    main()
