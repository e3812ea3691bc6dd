"""The analysis's record format: a game analysed, `GameAnalysis`, as the `analysis` field of
its record (metadata.analysis, docs/records.md: `to_json`, `from_json`), version
ANALYSIS_VERSION; `with_analysis` and `of_record` put it into a record and read it back.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from photocore.analysis.judges import Evaluation, round_value, round_values
from photocore.analysis.scoring import LABELS, PlyAnalysis, Thresholds
from photocore.errors import RecordError
from photocore.records import ANALYSIS_VERSIONS, Record, check_analysis, check_record

__all__ = ["ANALYSIS_VERSION", "GameAnalysis", "with_analysis", "of_record"]

ANALYSIS_VERSION = ANALYSIS_VERSIONS[-1]
"""The version of the `analysis` field of a record (metadata.analysis) this module writes: the last
of records.ANALYSIS_VERSIONS, all of which are read."""


@dataclass(frozen=True)
class GameAnalysis:
    """A game analysed (its record's metadata.analysis: to_json, from_json)."""

    judge: str
    """The judge's name (Judge.name)."""
    seed: int
    """The run's seed: each position's search is seeded by position_seed."""
    thresholds: Thresholds
    """The thresholds the moves were classed by."""
    plies: tuple[PlyAnalysis, ...]
    """Each move, in order."""
    values: tuple[tuple[float, ...], ...]
    """The values by player of every position: before each move, then the end."""
    accuracy: tuple[float | None, ...]
    """Each player's accuracy, 0 to 100 (None for a player who made no unforced move)."""
    solve_nodes: int | None = None
    """The positions the solver might visit in a position (None: not used; the record's
    field `solve`)."""
    positions: tuple[Evaluation | None, ...] = field(default=(), compare=False, repr=False)
    """Each position's Evaluation (None for a forced move) when the analysis was made
    here; empty when read from a record."""

    @property
    def players(self) -> int:
        """The game's number of players."""
        return len(self.accuracy)

    def mistakes(self, at_least: str = "inaccuracy") -> list[PlyAnalysis]:
        """The moves classed `at_least` that bad (an inaccuracy, a mistake or a blunder)."""
        worse = LABELS[LABELS.index(at_least):]
        return [p for p in self.plies if p.label in worse]

    def to_json(self) -> dict[str, Any]:
        """The `analysis` field of a record (metadata.analysis; docs/records.md)."""
        return {
            "version": ANALYSIS_VERSION, "judge": self.judge, "seed": self.seed,
            "thresholds": {name: getattr(self.thresholds, name) for name in LABELS},
            "values": [round_values(v) for v in self.values],
            "player": [p.player for p in self.plies],
            "best": [p.best for p in self.plies],
            "best_value": [round_value(p.best_value) for p in self.plies],
            "played_value": [round_value(p.played_value) for p in self.plies],
            "loss": [round_value(p.loss) for p in self.plies],
            "labels": [p.label for p in self.plies],
            "forced": [p.forced for p in self.plies],
            "accuracy": [None if a is None else round(a, 2) for a in self.accuracy],
            "solve_nodes": self.solve_nodes,
            "exact": [p.exact for p in self.plies],
            "best_margin": [p.best_margin for p in self.plies],
            "played_margin": [p.played_margin for p in self.plies],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], players: int,
                  moves: Sequence[str] | None = None) -> "GameAnalysis":
        """The analysis a record holds (to_json's dict), for a game of `players` whose
        moves were `moves` (the record's; None: the best moves stand in for them). Version
        1, from before the solver, has no exact ply. RecordError (a ValueError) naming the
        field if `data` is not such an analysis (records.check_analysis)."""
        if not isinstance(data, Mapping):
            check_analysis(data, players)       # says what it is instead
        version = data.get("version")
        if version not in ANALYSIS_VERSIONS:
            raise RecordError(f"analysis version {version!r}: this photocore reads versions "
                              f"{_versions()}")
        check_analysis(data, players, None if moves is None else len(moves))
        values = tuple(tuple(float(x) for x in v) for v in data["values"])
        played = list(moves) if moves is not None else list(data["best"])
        count = len(data["best"])
        exact = data.get("exact", [False] * count)
        margins = [data.get(name, [None] * count) for name in ("best_margin", "played_margin")]
        plies = tuple(PlyAnalysis(
            ply=k + 1, player=data["player"][k], move=played[k], values=values[k],
            best=data["best"][k], best_value=data["best_value"][k],
            played_value=data["played_value"][k], loss=data["loss"][k],
            win_loss=data["loss"][k] * (players - 1) / players, label=data["labels"][k],
            forced=data["forced"][k], exact=exact[k], best_margin=margins[0][k],
            played_margin=margins[1][k]) for k in range(count))
        return cls(data["judge"], data["seed"], Thresholds(**data["thresholds"]), plies,
                   values, tuple(data["accuracy"]), data.get("solve_nodes"))


def with_analysis(rec: Record, analysis: GameAnalysis) -> Record:
    """A copy of record `rec` holding `analysis` (metadata.analysis), checked."""
    out = dict(rec, metadata={**rec["metadata"], "analysis": analysis.to_json()})
    check_record(out)
    return out


def of_record(rec: Record) -> GameAnalysis | None:
    """The analysis a record holds (None if it has none); RecordError if the record does
    not pass check_record (an analysis not of this game: another number of moves...) or
    its analysis is of an unknown version."""
    check_record(rec)
    data = rec["metadata"].get("analysis")
    if data is None:
        return None
    return GameAnalysis.from_json(data, rec["players"], rec["moves"])   # refuses other versions


def _versions() -> str:
    return " and ".join(map(str, ANALYSIS_VERSIONS))
