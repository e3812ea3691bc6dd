"""A UCT search in plain Python over photocore's parts: the tree, selection and backup in
Python, each playout one call of `Game.playout` (a random game to the end, in C). It is
the search of the built-in `mcts:N` (docs/searching.md, "The C agent"), written again so that
you can change any part of it; `playout="python"` plays the playouts in Python instead,
as a search without `Game.playout` had to.

    photocore match --agents "py:examples/own_search/uct.py:UCT?simulations=200,mcts:200" --games 40

Its `select` takes the move's photocore.Limit, so `photocore match --seconds 0.1` plays it
against mcts:N at equal time.
"""

import math
import random
import time


class Node:
    __slots__ = ("move", "mover", "children", "visits", "value")

    def __init__(self, move, mover, players):
        self.move, self.mover = move, mover      # the move that leads here, who chose it
        self.children = None                     # a list once expanded
        self.visits = 0
        self.value = [0.0] * players             # summed returns by seat


def python_playout(game, rng):
    """A random game to the end in Python: what Game.playout does in C."""
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game.returns()


class UCT:
    """UCT with `simulations` random playouts a move, exploration `c` on the scale of
    Game.returns(); the most visited root move."""

    def __init__(self, simulations=200, exploration=1.0, playout="engine"):
        if simulations < 1 or exploration < 0 or playout not in ("engine", "python"):
            raise ValueError("simulations >= 1, exploration >= 0, playout engine or python")
        self.simulations, self.c, self.playout = simulations, exploration, playout
        self.name = f"uct:{simulations}" + ("" if playout == "engine" else "?playout=python")
        self.reset(seed=0)

    def reset(self, seed=None):
        self.rng = random.Random(seed)

    def select(self, game, limit=None):
        """The most visited move after `simulations` playouts, or the limit's `simulations`,
        stopping at its `seconds` (two playouts at least: the root's children visited)."""
        if len(game.legal_moves()) == 1:
            return game.legal_moves()[0]
        simulations = limit.simulations if limit and limit.simulations else self.simulations
        deadline = time.monotonic() + limit.seconds if limit and limit.seconds else math.inf
        root = Node(None, None, game.players)
        for k in range(simulations):
            if k >= 2 and time.monotonic() > deadline:
                break
            self.simulate(game, root)
        return max(root.children, key=lambda child: child.visits).move

    def simulate(self, start, root):
        game = start.copy(history=False)
        node, path = root, [root]
        while node.children is not None and not game.is_over:
            node = self.choose(node)
            game.play(node.move)
            path.append(node)
            if node.visits == 0:
                break
        if node.visits > 0 and not game.is_over:     # a leaf seen before: expand it
            node.children = [Node(move, game.current_player, game.players)
                             for move in game.legal_moves()]
            node = self.choose(node)
            game.play(node.move)
            path.append(node)
        if game.is_over:
            result = game.returns()
        elif self.playout == "engine":
            result = game.playout(seed=self.rng.getrandbits(64))
        else:
            result = python_playout(game, self.rng)
        for node in path:
            node.visits += 1
            for seat, value in enumerate(result):
                node.value[seat] += value

    def choose(self, node):
        """The child of best UCT value for its mover; untried ones first, from a random
        start."""
        children = node.children
        start = self.rng.randrange(len(children))
        log_n = math.log(node.visits + 1)
        best, top = None, -math.inf
        for child in children[start:] + children[:start]:
            if child.visits == 0:
                return child
            score = (child.value[child.mover] / child.visits
                     + self.c * math.sqrt(log_n / child.visits))
            if score > top:
                best, top = child, score
        return best
