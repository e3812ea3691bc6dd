"""Who chooses moves: the agents in C (random, greedy, UCT search)."""
