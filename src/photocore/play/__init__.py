"""Who chooses moves: the Player protocol that every kind of player satisfies (player.py),
the built-in agents in C and their registry (_agents: BUILTIN_AGENTS), agent specs and the
players they load into (specs.py), engine programs (protocol.py), searched networks
(search.py), and the harness that plays a game between players (harness.py)."""

from photocore.play.player import Player

__all__ = ["Player"]
