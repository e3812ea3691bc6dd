"""The fields every engine here exposes (photocore and python/photoref.py alike)."""


def observe(game):
    """Everything both engines expose, as plain values."""
    players = range(game.players)
    return {
        "phase": game.phase,
        "round": game.round,
        "sun": game.sun,
        "first": game.first_player,
        "current": game.current_player,
        "light": tuple(game.light),
        "available": [tuple(game.available(p)) for p in players],
        "player_board": [tuple(game.player_board(p)) for p in players],
        "tokens": [tuple(game.tokens(p)) for p in players],
        "stacks": tuple(game.stacks),
        "board": dict(game.board()),
        "activated": tuple(game.activated()),
        "shaded": tuple(game.shaded()),
        "scores": tuple(game.scores()),
        "winners": tuple(game.winners()),
    }
