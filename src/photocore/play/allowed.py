"""The agents a request from outside may choose: the operator's list, by label.

A served game's seats (serve/store.py) and an analysis query's judge (serve/queries.py,
`photocore analyze --serve`) name agents in a request; only those the operator named on the
command line are played, as written once here. py: and cmd: agents run code on this
machine, so a request can never name one of its own.
"""

from collections.abc import Iterable

from photocore.play._agents import BUILTIN_AGENTS
from photocore.play.specs import Spec, parse

__all__ = ["Allowed", "NotAllowed"]


class NotAllowed(ValueError):
    """A request named an agent its operator did not allow."""


class Allowed:
    """The agents an operator named (on the command line): the only ones a request from
    outside (a served game's seat, an analysis query's engine) may choose, by label. A
    built-in agent of a kind named with a budget may also be asked for at any budget up to
    `max_simulations`, when the operator sets one. Anything else is refused before it is
    parsed further, let alone loaded: py: and cmd: agents run code on this machine.

    >>> allowed = Allowed(["mcts:50", "greedy"])
    >>> allowed.labels, allowed.find("MCTS:50").label
    (('mcts:50', 'greedy'), 'mcts:50')
    >>> allowed.find("mcts:60")
    Traceback (most recent call last):
    ...
    photocore.play.allowed.NotAllowed: agent 'mcts:60' is not allowed here (allowed: mcts:50, ...
    >>> Allowed(["mcts:50"], max_simulations=5000).find("mcts:4000").label
    'mcts:4000'
    >>> Allowed(["mcts:50"]).find('py:subprocess:getoutput?cmd="id"')
    Traceback (most recent call last):
    ...
    photocore.play.allowed.NotAllowed: agent 'py:subprocess:getoutput?cmd="id"' is not allowed ...
    """

    def __init__(self, specs: Iterable[str | Spec], max_simulations: int | None = None) -> None:
        by_label: dict[str, Spec] = {}
        for text in specs:
            spec = text if isinstance(text, Spec) else parse(text)
            by_label.setdefault(spec.label, spec)
        self.by_label = by_label
        self.labels = tuple(by_label)
        self.max_simulations = max_simulations
        self.announced: dict[str, str] = {}
        """The names the agents announced (label -> name), once `check` has run."""
        self._budgeted = {spec.kind for spec in by_label.values()
                          if spec.agent_kind is not None and spec.agent_kind.budget}

    def find(self, text: str) -> Spec:
        """The allowed agent `text` names (NotAllowed, naming it and what is allowed, else)."""
        text = text.strip()
        found = self.by_label.get(text)
        kind = text.partition(":")[0].lower()
        if found is None and kind in BUILTIN_AGENTS:
            spec = parse(text)                  # built-in: nothing is imported or run
            found = self.by_label.get(spec.label)
            if (found is None and spec.kind in self._budgeted
                    and self.max_simulations is not None
                    and spec.simulations <= self.max_simulations):
                found = spec
        if found is not None:
            return found
        why = f"agent {text[:200]!r} is not allowed here (allowed: {self.describe()})"
        if kind in ("py", "cmd"):
            why += ("; py: and cmd: agents run code on this machine: only the operator's "
                    "command line can name them")
        raise NotAllowed(why)

    def check(self) -> None:
        """Each agent checked (Spec.check: ValueError on one that cannot play), and the
        name it announces kept in `announced`."""
        for label, spec in self.by_label.items():
            name = spec.check()
            if name is not None:
                self.announced[label] = name

    def describe(self) -> str:
        """What may be asked for, in words."""
        extra = [f"{kind}:N up to {self.max_simulations:,}" for kind in sorted(self._budgeted)
                 if self.max_simulations is not None]
        return ", ".join([*self.labels, *extra]) or "none"
