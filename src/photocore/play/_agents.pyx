# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Agents in C: each picks a legal action of a State with its own seeded random stream."""

from libc.math cimport log, sqrt
from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memset

from photocore._kernel cimport *

# ---- greedy ---------------------------------------------------------------------------

cdef double greedy_score(const State* s, int a, const uint64_t* next_shade) noexcept nogil:
    """One-ply value of action a: collect late and on rich soil, grow pieces the next sun
    lights, plant on rich soil out of the next sun's shadows, buy only what is used at
    once, end when nothing is worth its light."""
    cdef int p = s.current, left = s.last_round - s.round, cell, bit, size, need, c
    cdef int kind = action_kind(a)
    cdef uint64_t own = s.owner_bb[p] & ~s.active
    if kind == KIND_END:
        return 0.0
    if kind == KIND_BUY:
        c = a - BUY_BASE
        if s.avail[p][c] or left < 2:
            return -1.0
        # worth it when a piece of the size below (a tree for seeds) can use it this turn
        need = 1 if c == 0 else c + 1
        if s.light[p] < action_cost(s, a) + need:
            return -1.0
        if c == 0:
            return 3.0 if own & ~s.size_bb[0] else -1.0
        return 3.0 if own & s.size_bb[c - 1] else -1.0
    if kind == KIND_PLANT:
        if left < 3:
            return -1.0
        cell = plant_target(a)
        bit = cell_bit(cell)
        return 8.0 + 2.0 * richness(cell) + (0.0 if next_shade[SEED] >> bit & 1 else 4.0)
    cell = acted_cell(a)
    if kind == KIND_GROW:
        bit = cell_bit(cell)
        size = size_at(s, bit) + 1
        if left < 1 and size < 3:
            return -1.0
        return 12.0 + 5.0 * size + (0.0 if next_shade[size] >> bit & 1 else 6.0)
    if left > 6:                                     # a collect (no place reaches here)
        return 5.0 + token_for(s, richness(cell)) / 2.0
    return 30.0 + token_for(s, richness(cell))

cdef int greedy_action(const State* s, uint64_t* rng) noexcept nogil:
    cdef uint16_t actions[MAX_LEGAL]
    cdef uint64_t next_shade[NSIZES]
    cdef int i, n = legal_actions(s, actions), best = 0, ties = 0
    cdef double score, top = -1e9
    if s.phase == PHASE_SETUP:
        return actions[rng_below(rng, n)]
    shadows_under(s, (sun_of(s) + 1) % SUN_POSITIONS, next_shade)
    for i in range(n):
        score = greedy_score(s, actions[i], next_shade)
        if score > top:
            top = score
            best = i
            ties = 1
        elif score == top:
            # reservoir choice among equal scores keeps the agent's play seeded but varied
            ties += 1
            if rng_below(rng, ties) == 0:
                best = i
    return actions[best]

# ---- UCT ------------------------------------------------------------------------------

ctypedef struct Node:
    int first_child          # children are contiguous; -1 until expanded
    int children
    int visits
    uint16_t action          # the action leading here
    uint8_t mover            # the player who chose it
    double value[MAX_PLAYERS]    # summed returns per player

ctypedef struct Tree:
    Node* nodes
    int size
    int capacity

cdef int tree_add(Tree* t, int count) noexcept nogil:
    """Reserves `count` nodes; returns the first index, or -1 when memory runs out."""
    cdef int first = t.size, capacity
    cdef Node* grown
    if t.size + count > t.capacity:
        capacity = max(2 * t.capacity, t.size + count)
        grown = <Node*>realloc(t.nodes, capacity * sizeof(Node))
        if grown == NULL:
            return -1
        t.nodes = grown
        t.capacity = capacity
    t.size += count
    return first

cdef int expand(Tree* t, int node, const State* s) noexcept nogil:
    cdef uint16_t actions[MAX_LEGAL]
    cdef int i, n = legal_actions(s, actions), first = tree_add(t, n)
    cdef Node* child
    if first < 0:
        return -1
    for i in range(n):
        child = &t.nodes[first + i]
        child.first_child = -1
        child.children = 0
        child.visits = 0
        child.action = actions[i]
        child.mover = s.current
        memset(child.value, 0, sizeof(child.value))
    t.nodes[node].first_child = first
    t.nodes[node].children = n
    return 0

cdef int select_child(const Tree* t, int node, double exploration, uint64_t* rng) noexcept nogil:
    """The child with the best UCT value for the player to move; unvisited ones first."""
    cdef const Node* parent = &t.nodes[node]
    cdef const Node* child
    cdef int i, best = -1, start = rng_below(rng, parent.children)
    cdef double score, top = -1e300, log_n = log(parent.visits + 1.0)
    for i in range(parent.children):
        child = &t.nodes[parent.first_child + (start + i) % parent.children]
        if child.visits == 0:
            return parent.first_child + (start + i) % parent.children
        score = (child.value[child.mover] / child.visits
                 + exploration * sqrt(log_n / child.visits))
        if score > top:
            top = score
            best = parent.first_child + (start + i) % parent.children
    return best

cdef int mcts_search(Tree* t, const State* root, uint64_t* rng, int simulations,
                     double exploration) noexcept nogil:
    """UCT with uniformly random playouts in C, into tree `t` (its node 0 the root, its
    children expanded); -1 when memory runs out before the root could be expanded."""
    cdef State s
    cdef int path[MAX_GAME_MOVES + 1]
    cdef double result[MAX_PLAYERS]
    cdef int sim, depth, node, i, p
    t.nodes = NULL
    t.size = 0
    t.capacity = 0
    if tree_add(t, 1) < 0:
        return -1
    t.nodes[0].first_child = -1
    t.nodes[0].children = 0
    t.nodes[0].visits = 0
    memset(t.nodes[0].value, 0, sizeof(t.nodes[0].value))
    for sim in range(simulations):
        s = root[0]
        node = 0
        depth = 0
        path[0] = 0
        while t.nodes[node].first_child >= 0 and s.phase != PHASE_OVER:
            node = select_child(t, node, exploration, rng)
            apply_action(&s, t.nodes[node].action)
            depth += 1
            path[depth] = node
            if t.nodes[node].visits == 0:
                break
        if t.nodes[node].visits > 0 and s.phase != PHASE_OVER:
            if expand(t, node, &s) < 0:
                break
            node = select_child(t, node, exploration, rng)
            apply_action(&s, t.nodes[node].action)
            depth += 1
            path[depth] = node
        play_random_game(&s, rng)
        returns(&s, result)
        for i in range(depth + 1):
            t.nodes[path[i]].visits += 1
            for p in range(s.players):
                t.nodes[path[i]].value[p] += result[p]
    if t.nodes[0].first_child < 0 and root.phase != PHASE_OVER:
        if expand(t, 0, root) < 0:
            return -1
    return 0

cdef int most_visited(const Tree* t, int node) noexcept nogil:
    """The index of the most visited child of `node` (the first of equals); -1 if none."""
    cdef int i, best = -1, most = -1
    for i in range(t.nodes[node].children):
        if t.nodes[t.nodes[node].first_child + i].visits > most:
            most = t.nodes[t.nodes[node].first_child + i].visits
            best = t.nodes[node].first_child + i
    return best

cdef int mcts_action(const State* root, uint64_t* rng, int simulations,
                     double exploration) noexcept nogil:
    """UCT with uniformly random playouts in C; the most visited root move."""
    cdef Tree t
    cdef int best
    cdef uint16_t only[MAX_LEGAL]
    if legal_actions(root, only) == 1:
        return only[0]
    if mcts_search(&t, root, rng, simulations, exploration) < 0:
        free(t.nodes)
        return END_ACTION
    best = most_visited(&t, 0)
    best = t.nodes[best].action if best >= 0 else END_ACTION
    free(t.nodes)
    return best

# ---- matches --------------------------------------------------------------------------

cdef int agent_action(const AgentSpec* agent, const State* s, uint64_t* rng) noexcept nogil:
    if agent.kind == AGENT_GREEDY:
        return greedy_action(s, rng)
    if agent.kind == AGENT_MCTS:
        return mcts_action(s, rng, agent.simulations, agent.exploration)
    return random_action(s, rng)

cdef int play_match(State* s, const AgentSpec* seats, uint64_t* rng, uint16_t* moves) noexcept nogil:
    """Plays to the end with seats[p] choosing for player p; writes the moves (at most
    MAX_GAME_MOVES) and returns how many."""
    cdef int n = 0, a
    while s.phase != PHASE_OVER:
        a = agent_action(&seats[s.current], s, rng)
        moves[n] = a
        n += 1
        apply_action(s, a)
    return n

# ---- Python -----------------------------------------------------------------------------

from photocore._game cimport Game

from photocore._game import Move

from math import isfinite as _isfinite
from numbers import Real as _Real
from operator import index as _index

from typing import NamedTuple as _NamedTuple


class BuiltinAgent(_NamedTuple):
    """A built-in agent: a row of BUILTIN_AGENTS."""

    name: str           # as agent specs spell it
    kind: int           # its C kind (AgentSpec.kind)
    budget: bool        # takes a budget of simulations: name:N
    searches: bool      # searches each move (milliseconds a move, not microseconds)
    help: str           # for the command line


# The built-in agents, one row each: agent specs, VecGame's opponents, self-play's batch
# sizing and the command line's help read them here (docs/engine.md).
BUILTIN_AGENTS = {agent.name: agent for agent in (
    BuiltinAgent("random", AGENT_RANDOM, False, False, "a uniformly random legal move"),
    BuiltinAgent("greedy", AGENT_GREEDY, False, False, "the best move by a one-ply heuristic"),
    BuiltinAgent("mcts", AGENT_MCTS, True, True, "UCT search with N random playouts a move"),
)}
DEFAULT_SIMULATIONS = 200
MAX_SIMULATIONS = 10_000_000
cdef dict _KIND_OF_NAME = {agent.name: agent.kind for agent in BUILTIN_AGENTS.values()}


cdef class Agent:
    """A seeded policy: `random`, `greedy` or `mcts` (UCT, `simulations` playouts per move).
    A photocore.play.Player: what agent specs load a built-in agent into.

    >>> from photocore import Game
    >>> agent = Agent("greedy", seed=1)
    >>> agent.select(Game()) in Game().legal_moves()
    True
    """
    cdef AgentSpec spec
    cdef uint64_t rng
    cdef uint64_t seed          # the one it was made with: reset() starts again from it
    cdef readonly str kind

    def __init__(self, kind="random", seed=0, simulations=DEFAULT_SIMULATIONS, exploration=1.0):
        if not isinstance(kind, str) or kind not in _KIND_OF_NAME:
            raise ValueError(f"unknown agent {kind!r} (expected {', '.join(BUILTIN_AGENTS)})")
        simulations = _index(simulations)
        if not 1 <= simulations <= MAX_SIMULATIONS:
            raise ValueError(f"simulations must be from 1 to {MAX_SIMULATIONS:,}, got "
                             f"{simulations}")
        if not isinstance(exploration, _Real) or isinstance(exploration, bool):
            raise TypeError(f"exploration must be a number, got {exploration!r}")
        try:
            c = float(exploration)
        except OverflowError:
            c = float("inf")
        if not (c >= 0 and _isfinite(c)):
            raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
        seed = _index(seed) & 0xFFFFFFFFFFFFFFFF
        self.kind = kind
        self.spec.kind = _KIND_OF_NAME[kind]
        self.spec.simulations = simulations
        self.spec.exploration = c
        self.seed = self.rng = <uint64_t>seed

    @property
    def name(self):
        """The agent as `photocore selfplay --agents` spells it, e.g. mcts:200."""
        if BUILTIN_AGENTS[self.kind].budget:
            return f"{self.kind}:{self.spec.simulations}"
        return self.kind

    def select(self, Game game not None):
        """The move this agent plays in `game` (which it does not change)."""
        if game.st.phase == PHASE_OVER:
            raise ValueError("the game is over: there is no move to select")
        cdef int action
        with nogil:
            action = agent_action(&self.spec, &game.st, &self.rng)
        return Move(action)

    def reset(self, seed=None):
        """Readies it for a new game: its random stream starts again from `seed`, or from
        the seed it was made with (the same seed, the same moves in the same positions)."""
        self.rng = self.seed if seed is None else <uint64_t>(_index(seed) & 0xFFFFFFFFFFFFFFFF)

    def close(self):
        """Holds nothing to free (a Player's close())."""

    def __repr__(self):
        return f"Agent({self.name!r})"


class RootStats(_NamedTuple):
    """What one UCT search found at its root (search_root): per legal move, in ascending
    id order, its visits and its mean return for every player (NaN before a visit); the
    root's visits and mean returns by player; and the principal line, the most visited
    move from the root down while its node was visited."""

    actions: list           # the legal action ids
    visits: list            # visits of each
    values: list            # tuple of mean returns by player, of each
    root_visits: int
    root_values: tuple      # mean return by player of the position
    principal: list         # action ids


def search_root(Game game not None, simulations=DEFAULT_SIMULATIONS, seed=0,
                exploration=1.0):
    """The root statistics of the search `Agent("mcts", seed, simulations, exploration)`
    makes in `game` (the same code; a position with one legal move is searched too, where
    the agent plays it at once), as RootStats. The root's first visit expands it, so its
    moves share one visit fewer than it has.

    >>> from photocore import Game
    >>> stats = search_root(Game(), simulations=50, seed=1)
    >>> sum(stats.visits), stats.root_visits, len(stats.actions)
    (49, 50, 18)
    """
    if game.st.phase == PHASE_OVER:
        raise ValueError("the game is over: there is no move to search")
    cdef Agent agent = Agent("mcts", seed, simulations, exploration)   # checks the settings
    cdef Tree t
    cdef int failed, i, k, node, players = game.st.players
    with nogil:
        failed = mcts_search(&t, &game.st, &agent.rng, agent.spec.simulations,
                             agent.spec.exploration)
    try:
        if failed < 0:
            raise MemoryError("search_root: out of memory for the search tree")
        actions, visits, values, principal = [], [], [], []
        nan = float("nan")
        for i in range(t.nodes[0].children):
            node = t.nodes[0].first_child + i
            actions.append(t.nodes[node].action)
            visits.append(t.nodes[node].visits)
            values.append(tuple(t.nodes[node].value[k] / t.nodes[node].visits
                                if t.nodes[node].visits else nan for k in range(players)))
        node = most_visited(&t, 0)
        while node >= 0 and t.nodes[node].visits > 0:
            principal.append(t.nodes[node].action)
            node = most_visited(&t, node)
        root_visits = t.nodes[0].visits
        root_values = tuple(t.nodes[0].value[k] / root_visits if root_visits else nan
                            for k in range(players))
    finally:
        free(t.nodes)
    return RootStats(actions, visits, values, root_visits, root_values, principal)


def play_games(agents, int players, int options, unsigned long long seed, long long start,
               long long count):
    """Plays games start .. start + count - 1 of a seeded series in C, without the GIL.

    `agents` lists (kind, simulations) per agent; in game i agent k sits in seat
    (k + i) % players, so every agent plays every seat. Game i depends only on (seed, i).
    Returns (moves uint16 array, offsets int64 array of count + 1).
    """
    import numpy as np
    if len(agents) != players:
        raise ValueError(f"{players} players need {players} agents, got {len(agents)}")
    cdef AgentSpec specs[MAX_PLAYERS]
    cdef AgentSpec seats[MAX_PLAYERS]
    cdef int k
    for k, (kind, simulations) in enumerate(agents):
        Agent(kind, 0, simulations)               # checks the spec
        specs[k].kind = _KIND_OF_NAME[kind]
        specs[k].simulations = simulations
        specs[k].exploration = 1.0
    moves = np.empty(count * MAX_GAME_MOVES, np.uint16)
    offsets = np.zeros(count + 1, np.int64)
    cdef uint16_t[::1] out = moves
    cdef long long[::1] ends = offsets
    cdef long long g, n = 0
    cdef uint64_t rng
    cdef State s
    with nogil:
        for g in range(count):
            for k in range(players):
                seats[(k + start + g) % players] = specs[k]
            rng = game_seed(seed, <uint64_t>(start + g))
            state_init(&s, players, options)
            n += play_match(&s, seats, &rng, &out[n])
            ends[g + 1] = n
    return moves[:n].copy(), offsets
