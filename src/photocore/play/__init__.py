"""Who chooses moves: the Player protocol that every kind of player satisfies (player.py),
the built-in agents in C and their registry (_agents: BUILTIN_AGENTS), agent specs and the
players they load into (specs.py), engine programs (protocol.py), searched networks
(search.py), and the harness that plays a game between players (harness.py).

The C agents' own functions are public here: `search_root` (the root statistics of the
search `Agent("mcts")` makes, docs/analysis.md) and `play_games` (a seeded series of games
between built-in agents, in C without the GIL).
"""

from photocore.play._agents import play_games, search_root
from photocore.play.player import Player

__all__ = ["Player", "play_games", "search_root"]
