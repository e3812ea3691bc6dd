"""The returns the framework adapters give at the end of a game (docs/engine.md, OpenSpiel)."""


def win_share(players, winners):
    """Every player stakes 1 / (players - 1) and the winners share the pot equally: a sole
    winner gets +1, the sum is 0, and 2 players get +1 / -1 (0 / 0 for a tie).

    >>> win_share(2, (0,)), win_share(3, (0, 2))
    ([1.0, -1.0], [0.25, -0.5, 0.25])
    """
    stake = 1.0 / (players - 1)
    share = stake * players / len(winners)
    return [share - stake if p in winners else -stake for p in range(players)]


def game_returns(game):
    """win_share of a finished photocore.Game; zeros while it is being played."""
    if not game.is_over:
        return [0.0] * game.players
    return win_share(game.players, game.winners())
