"""Analyses at volume: every move of the games of a record file judged (photocore.analysis),
a Plan for photocore.run.driver, which plays its batches in worker processes or Ray tasks
and writes the analysed records in game order (`photocore analyze`).

Game i's analysis depends only on the game, the judge, the solver's budget and (seed, i),
so a run gives the same file whatever the workers, the batch size or the backend.
"""

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from photocore import analysis
from photocore.budget import Limit
from photocore.errors import RecordError
from photocore.limits import RECORD_LINE_CAP
from photocore.records import (
    Record,
    capped_lines,
    check_record,
    is_compressed,
    read_games,
    record_line,
    too_long,
)
from photocore.run.driver import ResumeError
from photocore.strictjson import loads

__all__ = ["AnalysisBatch", "AnalysisRun"]


class AnalysisBatch(NamedTuple):
    """A batch of analysed games."""

    lines: list[bytes]
    positions: int


AnalysisBatch.lines.__doc__ = "The analysed games' record lines, in order."
AnalysisBatch.positions.__doc__ = "The positions valued."


class AnalysisRun:
    """The games of the record file `path` analysed by `judge` (a spec, see
    photocore.analysis.judge) within `limit` (a photocore.Limit: the judge's simulations
    and the solver's nodes in a position, analysis.solver_nodes; `exact` False: no solver),
    seeded `seed`: a Plan of photocore.run.driver.
    Game i's analysis depends only on the game, the judge, the solver's budget and
    (seed, i). The file is read first as `photocore verify` reads it, every game replayed:
    a bad game stops the run before it starts (RecordError naming its line and ply)."""

    def __init__(self, path: str, judge: str, limit: Limit | None = None, seed: int = 0,
                 thresholds: analysis.Thresholds = analysis.THRESHOLDS,
                 exact: bool = True) -> None:
        self.path, self.spec, self.limit, self.seed = path, judge, limit, seed
        self.thresholds, self.exact = thresholds, exact
        # as the analyses hold it (their field solve_nodes), for resuming
        self.solve_nodes = analysis.solver_nodes(limit, exact)
        self.judge_name = analysis.judge(judge, limit).name     # fails early
        self._defining: list[dict[str, object]] = []
        lines = []
        # replayed here, not first in a worker, whose failure would only repeat on --resume
        reader = read_games(path, verify=True)
        for rec in reader:
            lines.append(reader.line)
            self._defining.append({
                "rules_version": rec["rules_version"], "players": rec["players"],
                "options": rec["options"], "agents": rec["metadata"]["agents"]})
        self.games = len(self._defining)
        # where each game's line starts, for the batches to read it (a .gz: read through)
        starts = None if is_compressed(path) else _line_starts(path)
        self.offsets = None if starts is None else [starts[line - 1] for line in lines]

    @property
    def searches(self) -> bool:
        """True: every position is searched."""
        return True

    def __getstate__(self) -> dict[str, object]:
        # the batches need not the identities of every game, which only resuming reads
        return dict(self.__dict__, _defining=[])

    def batch(self, start: int, count: int) -> AnalysisBatch:
        """Games start .. start + count - 1 of the file as record lines with their
        analysis (the metadata's "analysis"), and the number of positions analysed."""
        judge = analysis.judge(self.spec, self.limit)
        lines, positions = [], 0
        for index, rec in enumerate(self._read(start, count), start):
            result = analysis.analyze(rec, judge, self.limit, self.seed, self.thresholds,
                                      index, self.exact)
            positions += len(result.plies)
            lines.append(record_line(analysis.with_analysis(rec, result)))
        return AnalysisBatch(lines, positions)

    def defining(self, index: int) -> dict[str, object]:
        """What game `index` of the output is defined by (the input's game): the fields
        a resumed run checks (the moves, judge, seed and solver: `check_resumed`)."""
        return self._defining[index]

    def check_resumed(self, index: int, rec: Record,
                      set_by: Mapping[str, str] | None = None) -> None:
        """ResumeError unless the output's game `index` is the analysis this run makes;
        `set_by` names the option that sets each field of the analysis (judge, seed,
        solve_nodes), for the message."""
        data = rec["metadata"].get("analysis") or {}
        expected = {"judge": self.judge_name, "seed": self.seed, "solve_nodes": self.solve_nodes}
        for name, value in expected.items():
            if data.get(name) != value:
                raise ResumeError(f"cannot resume: game {index + 1:,} of the output was "
                                  f"analysed with {name} {data.get(name)!r}, this run's is "
                                  f"{value!r} (set by {(set_by or {}).get(name, name)})")

    def _read(self, start: int, count: int) -> Iterator[Record]:
        if self.offsets is not None:
            with open(self.path, "rb") as f:
                for index in range(start, start + count):
                    f.seek(self.offsets[index])
                    line = f.readline(RECORD_LINE_CAP + 1)
                    if len(line) > RECORD_LINE_CAP:     # the file changed since it was read
                        raise RecordError(too_long(RECORD_LINE_CAP, "record line"), self.path)
                    rec = loads(line)
                    check_record(rec)       # read as every reader reads it (2.0 -> 2)
                    yield rec
            return
        for index, rec in enumerate(read_games(self.path)):
            if index >= start + count:
                return
            if index >= start:
                yield rec


def _line_starts(path: str) -> list[int]:
    """The byte offset of each line of a file (line n at index n - 1), as read_games
    numbers them."""
    starts: list[int] = []
    offset = 0
    with open(path, "rb") as f:
        for data in capped_lines(f):
            if data is None:    # read_games refused it first, unless the file just changed
                raise RecordError(too_long(RECORD_LINE_CAP, "record line"), path, len(starts) + 1)
            starts.append(offset)
            offset += len(data)
    return starts
