"""Runs of games: self-play, matches and training data are plans (selfplay, match,
train_data) that one driver (driver) plays in worker processes or on a Ray cluster."""

__all__ = []
