"""Analyses summed up by agent across many games (summarise: `photocore stats`)."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from photocore.analysis.format import of_record
from photocore.analysis.scoring import LABELS, move_accuracy
from photocore.records import ANALYSIS_VERSIONS, Record

__all__ = ["AgentSummary", "summarise"]


@dataclass
class AgentSummary:
    """One agent's moves across analysed games, as running sums (summarise)."""

    games: int = 0
    """The analysed games it played in."""
    moves: int = 0
    """Its unforced moves."""
    loss: float = 0.0
    """The sum of their losses, in value units."""
    win_loss: float = 0.0
    """The sum of their losses as a win chance."""
    accuracy: float = 0.0
    """The sum of their accuracies (move_accuracy)."""
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LABELS, 0))
    """Its moves of each class: label -> count."""

    def as_row(self) -> dict[str, float | int]:
        """A row of the summary: games, moves, the means per move of loss, win_loss and
        accuracy, and the count of each class."""
        moves = max(self.moves, 1)
        return {"games": self.games, "moves": self.moves, "loss": self.loss / moves,
                "win_loss": self.win_loss / moves, "accuracy": self.accuracy / moves,
                **{name: self.counts[name] for name in LABELS}}


def summarise(records: Iterable[Record]) -> dict[str, dict[str, float | int]]:
    """Per agent (metadata.agents), over the analysed games of `records` (the others, and
    those analysed by a version this photocore does not read, are passed over): games,
    unforced moves, mean loss per move (value units and win chance), mean accuracy and the
    counts of inaccuracies, mistakes and blunders.

    >>> summarise([])
    {}
    """
    agents: dict[str, AgentSummary] = {}
    for rec in records:
        data = rec["metadata"].get("analysis")
        analysis = (of_record(rec) if data is not None and data["version"] in ANALYSIS_VERSIONS
                    else None)
        if analysis is None:
            continue
        names = rec["metadata"]["agents"]
        for name in set(names):
            agents.setdefault(name, AgentSummary()).games += 1
        for ply in analysis.plies:
            if ply.forced:
                continue
            summary = agents[names[ply.player]]
            summary.moves += 1
            summary.loss += ply.loss
            summary.win_loss += ply.win_loss
            summary.accuracy += move_accuracy(ply.win_loss)
            if ply.label is not None:
                summary.counts[ply.label] += 1
    return {name: s.as_row() for name, s in sorted(agents.items())}
