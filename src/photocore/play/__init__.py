"""Who chooses moves: the Player protocol that every kind of player satisfies (player.py),
the built-in agents in C and their registry (_agents: BUILTIN_AGENTS), agent specs and the
players they load into (specs.py), engine programs (protocol.py), searched networks
(search.py), and the harness that plays a game between players (harness.py).

The C players' own functions and what they hand back are public here: `search_root` (the
root statistics of the search `Agent("mcts")` makes, docs/analysis.md) and its
`RootStats`; `Solution`, what `photocore.solve` finds, and `proven_move` (a move the solver
proves keeps a win); `BUILTIN_AGENTS`, the built-in agents `photocore.Agent` plays,
an `AgentKind` each, and `AgentParams`, one agent's parameters; `commutes` (whether two
moves of a turn may be played in either order, docs/searching.md); `play_games` (a seeded
series of games between built-in agents, in C without the GIL); `interrupt_searches`
(Ctrl-C stops the searches under way); `MACHINE_MEMORY` (the physical memory, the
solver's largest table; None where unknown).
"""

from photocore._kernel import commutes
from photocore.play._agents import BUILTIN_AGENTS, interrupt_searches, play_games, search_root
from photocore.play._solver import MACHINE_MEMORY, proven_move
from photocore.play.player import Player
from photocore.play.results import AgentKind, AgentParams, RootStats, Solution

__all__ = ["BUILTIN_AGENTS", "MACHINE_MEMORY", "AgentKind", "AgentParams", "Player", "RootStats",
           "Solution", "commutes", "interrupt_searches", "play_games", "proven_move",
           "search_root"]
