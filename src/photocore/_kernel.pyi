# Types of the compiled module _kernel.pyx's Python names (the C API is _kernel.pxd).
from typing import Any, SupportsIndex, TypedDict

BUILD: str   # "native" (PHOTOCORE_NATIVE=1, -march=native) or "portable"
SELECT: str   # how the k-th set bit is found: "pdep" (BMI2 where it is fast) or "broadword"
CODE_PATHS: tuple[str, ...]   # the portable build's code paths, slowest first
CODE_PATH: str   # which runs: one of CODE_PATHS (the highest the CPU runs, chosen at import) or "native"

class PlayoutTotals(TypedDict):
    games: int
    moves: int
    score_sums: tuple[int, ...]
    wins: tuple[int, ...]

def check_players(players: SupportsIndex) -> int: ...
def check_count(count: SupportsIndex, name: str) -> int: ...
def check_option(value: object, name: str) -> bool: ...
def random_playouts(games: int, players: int = 2, seed: int = 0,
                    fourth_revolution: bool = False,
                    shade_blocks: bool = False) -> PlayoutTotals: ...
def tables() -> dict[str, Any]: ...
