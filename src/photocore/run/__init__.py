"""Games at volume: self-play in worker processes or on a Ray cluster."""
