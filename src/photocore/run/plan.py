"""What a run of games is, to whatever plays it: a Plan (its games, played in batches
anywhere), what a batch gives back (a Batch: SelfPlayBatch, MatchBatch, TrainingBatch,
AnalysisBatch), and how a run fails (RunError). The driver
(run/driver.py) and both backends, local worker processes (run/local_backend.py) and Ray
(run/ray_backend.py), import these; self-play, matches and training data are Plans.
"""

from collections.abc import Sequence
from typing import Protocol, TypeVar

__all__ = ["Batch", "P_co", "P", "Plan", "Resumable", "RunError"]


class Batch(Protocol):
    """What a plan's batch gives back: its games' record lines and whatever else its plan
    adds."""

    @property
    def lines(self) -> Sequence[bytes]:
        """The record lines of its games, in game order (none for a plan that writes no
        records)."""


#: What a plan's batches give back (a Plan's type parameter).
P_co = TypeVar("P_co", bound=Batch, covariant=True)
#: The same, invariant: where a batch is both taken and given back (the driver).
P = TypeVar("P", bound=Batch)


class Plan(Protocol[P_co]):
    """A seeded run of games, played in batches anywhere (in a worker process: a plan must
    pickle)."""

    @property
    def games(self) -> int:
        """The number of games of the run, 0 to 2**63 - 1."""

    @property
    def searches(self) -> bool:
        """Whether its games take milliseconds a move (a searching agent), which asks for
        small batches."""

    def batch(self, start: int, count: int) -> P_co:
        """Plays games start .. start + count - 1 and gives back their batch, whichever
        process plays it."""


class Resumable(Plan[P_co], Protocol[P_co]):
    """A plan whose records tell whose games they are, so that a run can resume a file."""

    def defining(self, index: int) -> dict[str, object]:
        """What game `index` is defined by, as its record holds it (rules_version, players
        and options at the record's top level, the rest in its metadata), in the order a
        mismatch is told."""


class RunError(RuntimeError):
    """A run could not go on (a worker died, a batch raised, a Ray task kept failing): the
    message says what happened. Every batch before the failed one was handed on."""
