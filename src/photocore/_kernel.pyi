# Types of the compiled module _kernel.pyx's Python names (the C API is _kernel.pxd).
from collections.abc import Iterable
from typing import Any, SupportsIndex, TypedDict

BUILD: str   # "native" (PHOTOCORE_NATIVE=1, -march=native) or "portable"
SELECT: str   # how the k-th set bit is found: "pdep" (BMI2 where it is fast) or "broadword"
CODE_PATHS: tuple[str, ...]   # the portable build's code paths, slowest first
# which runs: one of CODE_PATHS (the highest the CPU runs, chosen at import) or "native"
CODE_PATH: str
# the advanced rules: (name, letter, kernel bit, words, help) each (photocore.facts.OPTION_RULES)
OPTION_TABLE: tuple[tuple[str, str, int, str, str], ...]

class KeyCensus(TypedDict):
    positions: int
    distinct: int
    repeated: int
    collisions: int
    examples: list[tuple[tuple[int, int, int], tuple[int, int, int]]]
    mismatches: int
    seconds: float

def check_players(players: SupportsIndex) -> int: ...
def check_count(count: SupportsIndex, name: str) -> int: ...
def check_bool(value: object, name: str) -> bool: ...
MAX_THREADS: int
def check_threads(threads: SupportsIndex) -> int: ...
SEEDS: int
def check_seed(seed: SupportsIndex, name: str = "seed") -> int: ...
def stream_seed(seed: SupportsIndex, k: SupportsIndex) -> int: ...
def tables() -> dict[str, Any]: ...
# (players, option flags, games, seed) per run
def commutes(x: SupportsIndex, y: SupportsIndex, options: SupportsIndex = 0) -> bool: ...
def key_census(runs: Iterable[tuple[SupportsIndex, SupportsIndex, SupportsIndex, SupportsIndex]],
               check: bool = True) -> KeyCensus: ...
