# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Agents in C: each picks a legal action of a State with its own seeded random stream."""

from libc.math cimport INFINITY, NAN, log, sqrt
from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memset
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from photocore._interrupt cimport pc_note_main_thread, pc_raise_interrupt, pc_signalled
from photocore._kernel cimport *
from photocore.play._solver cimport proven_action
from photocore.play._table cimport (Table, table_find, table_free, table_insert, table_memory,
                                    table_put, table_reserve)

cpdef enum:
    SOLVE_NODES = 200_000   # ?prove=1: a last-round proof's budget, in positions (no clock)

cdef enum:
    INTERRUPTED = -2        # what a search, an agent's action and a match return at Ctrl-C
    SIGNAL_EVERY = 1023     # a search looks for Ctrl-C every 1024 simulations (some ms)
    TIMED_AFTER = 2         # a timed search runs this many simulations first: the root's
                            # moves exist and one has a visit, so a move can be chosen

cdef extern from *:
    """
    /* set by interrupt_searches(): every search of this process stops at its next look */
    static volatile int pc_abandon = 0;
    """
    int pc_abandon

cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9

cdef inline bint past(double deadline, int sim) noexcept nogil:
    """Whether a search with a deadline (CLOCK_MONOTONIC seconds; INFINITY: none) stops
    before simulation `sim`: one playout is some microseconds, a look at the clock some
    tens of nanoseconds, so it looks before each."""
    return deadline != INFINITY and sim >= TIMED_AFTER and now() > deadline

cdef inline bint stop_asked() noexcept nogil:
    """Whether a search stops now: another thread asked every search to (interrupt_searches),
    or a Ctrl-C reached the main thread (docs/hardening.md, "Every long call stops at
    Ctrl-C")."""
    return pc_abandon != 0 or pc_signalled()

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
                     double exploration, double deadline) noexcept nogil:
    """UCT with uniformly random playouts in C, into tree `t` (its node 0 the root, its
    children expanded), until `simulations` or the `deadline` (past()); -1 when memory
    runs out before the root could be expanded."""
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
        if (sim & SIGNAL_EVERY) == SIGNAL_EVERY and stop_asked():
            return INTERRUPTED
        if past(deadline, sim):
            break
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
        playout(&s, rng, result)
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

# ---- UCT over positions (docs/searching.md, "The C agent over positions") ------------------

ctypedef struct Edge:
    # 12 bytes: the network search's edge (_search.pyx) also holds a prior, a value and
    # walks in flight, and with its 24 bytes this search took 5.6% longer
    int child                # the node it leads to; -1 until its first visit
    int visits               # N(e): the visits that went through this edge
    uint16_t action

ctypedef struct Position:
    State state
    int first_edge           # edges are contiguous; -1 until expanded
    int edges
    int visits               # N(n) = 1 + the visits of its edges once it has been played out
    double own[MAX_PLAYERS]  # the returns of its one playout (of the game, once over)
    double value[MAX_PLAYERS]    # Q(n) by seat: (own + sum N(e) Q(child)) / N(n)

ctypedef struct Graph:
    Position* nodes
    Edge* edges
    Table table              # every node, by position
    int size
    int capacity
    int nedges
    int edge_capacity

cdef void graph_free(Graph* g) noexcept nogil:
    free(g.nodes)
    free(g.edges)
    table_free(&g.table)
    g.nodes = NULL
    g.edges = NULL

cdef int graph_rehash(Graph* g) noexcept nogil:
    """Room in the table for one node more (every node inserted again if it grew)."""
    cdef int node, grown = table_reserve(&g.table, g.size + 1)
    if grown == 1:
        for node in range(g.size):
            table_insert(&g.table, g.nodes[node].state.key, node)
    return grown

cdef int graph_add(Graph* g, const State* s) noexcept nogil:
    """The node of position s, made unvisited if the graph has none; -1 out of memory."""
    cdef int found = table_find(&g.table, s, &g.nodes[0].state, sizeof(Position)), node
    cdef int capacity
    cdef Position* grown
    cdef Position* n
    if found >= 0:
        return found
    if g.size == g.capacity:
        capacity = 2 * g.capacity
        grown = <Position*>realloc(g.nodes, capacity * sizeof(Position))
        if grown == NULL:
            return -1
        g.nodes = grown
        g.capacity = capacity
    node = g.size
    n = &g.nodes[node]
    n.state = s[0]
    n.first_edge = -1
    n.edges = 0
    n.visits = 0
    memset(n.own, 0, sizeof(n.own))
    memset(n.value, 0, sizeof(n.value))
    g.size += 1
    table_put(&g.table, found, node)
    if graph_rehash(g) < 0:
        return -1
    return node

cdef int graph_expand(Graph* g, int node) noexcept nogil:
    cdef uint16_t actions[MAX_LEGAL]
    cdef int i, n = legal_actions(&g.nodes[node].state, actions), capacity
    cdef Edge* grown
    if g.nedges + n > g.edge_capacity:
        capacity = max(2 * g.edge_capacity, g.nedges + n)
        grown = <Edge*>realloc(g.edges, capacity * sizeof(Edge))
        if grown == NULL:
            return -1
        g.edges = grown
        g.edge_capacity = capacity
    for i in range(n):
        g.edges[g.nedges + i].child = -1
        g.edges[g.nedges + i].visits = 0
        g.edges[g.nedges + i].action = actions[i]
    g.nodes[node].first_edge = g.nedges
    g.nodes[node].edges = n
    g.nedges += n
    return 0

cdef int graph_select(const Graph* g, int node, int previous, double exploration,
                      uint64_t* rng) noexcept nogil:
    """The edge with the best UCT value for the player to move, over the child's value
    (whatever path visited it) and the edge's own visits; untried edges first. An edge
    whose action commutes with the one just played and comes before it in id order is
    skipped: that order of the turn is searched from the other one (docs/searching.md)."""
    cdef const Position* n = &g.nodes[node]
    cdef const Edge* e
    cdef int i, k, best = -1, mover = n.state.current, options = n.state.options
    cdef int start = rng_below(rng, n.edges)
    cdef double score, top = -1e300, log_n = log(n.visits + 1.0)
    for i in range(n.edges):
        k = n.first_edge + (start + i) % n.edges
        e = &g.edges[k]
        if previous >= 0 and e.action < previous and actions_commute(previous, e.action, options):
            continue
        if e.visits == 0:
            return k
        score = (g.nodes[e.child].value[mover]
                 + exploration * sqrt(log_n / e.visits))
        if score > top:
            top = score
            best = k
    return best

cdef void graph_update(Graph* g, int node) noexcept nogil:
    """Q(n) again from its own playout and its children's values, weighted by the visits
    of the edges that lead there (KataGo's rule: right however many paths reach a child)."""
    cdef Position* n = &g.nodes[node]
    cdef const Edge* e
    cdef int i, p, visits = 1
    cdef double total[MAX_PLAYERS]
    for p in range(MAX_PLAYERS):
        total[p] = n.own[p]
    for i in range(n.edges):
        e = &g.edges[n.first_edge + i]
        if e.visits:
            visits += e.visits
            for p in range(MAX_PLAYERS):
                total[p] += e.visits * g.nodes[e.child].value[p]
    n.visits = visits
    for p in range(MAX_PLAYERS):
        n.value[p] = total[p] / visits

cdef int graph_search(Graph* g, const State* root, uint64_t* rng, int simulations,
                      double exploration, double deadline) noexcept nogil:
    """UCT over positions with uniformly random playouts: one node per position (found by
    its key, confirmed by the whole state), edges that keep their own visits, until
    `simulations` or the `deadline` (past()). Node 0 is the root, expanded; -1 when
    memory runs out before that."""
    cdef State s
    cdef int nodes[MAX_GAME_MOVES + 1]
    cdef int edges[MAX_GAME_MOVES + 1]
    cdef int sim, depth, node, e, child, previous, i
    g.size = 0
    g.capacity = 64
    g.nedges = 0
    g.edge_capacity = 0
    g.edges = NULL
    g.table.slots = NULL
    g.nodes = <Position*>malloc(g.capacity * sizeof(Position))
    if (g.nodes == NULL or table_reserve(&g.table, g.capacity) < 0
            or graph_add(g, root) < 0):
        return -1
    for sim in range(simulations):
        if (sim & SIGNAL_EVERY) == SIGNAL_EVERY and stop_asked():
            return INTERRUPTED
        if past(deadline, sim):
            break
        node = 0
        depth = 0
        previous = -1
        # down while the position has been played out: every node on the way is a position
        # met before, by this path or another
        while g.nodes[node].visits > 0 and g.nodes[node].state.phase != PHASE_OVER:
            if g.nodes[node].first_edge < 0 and graph_expand(g, node) < 0:
                break
            e = graph_select(g, node, previous, exploration, rng)
            if g.edges[e].child < 0:
                s = g.nodes[node].state
                apply_action(&s, g.edges[e].action)
                child = graph_add(g, &s)
                if child < 0:
                    break
                g.edges[e].child = child
            nodes[depth] = node
            edges[depth] = e
            depth += 1
            previous = g.edges[e].action
            node = g.edges[e].child
        else:
            if g.nodes[node].visits == 0:
                playout(&g.nodes[node].state, rng, g.nodes[node].own)
            graph_update(g, node)
            for i in range(depth - 1, -1, -1):
                g.edges[edges[i]].visits += 1
                graph_update(g, nodes[i])
            continue
        break                                   # out of memory: the search so far stands
    if g.nodes[0].first_edge < 0 and root.phase != PHASE_OVER:
        if graph_expand(g, 0) < 0:
            return -1
    return 0

cdef int most_visited_edge(const Graph* g, int node) noexcept nogil:
    """The most visited edge of `node` (the first of equals); -1 if none."""
    cdef int i, best = -1, most = -1
    for i in range(g.nodes[node].edges):
        if g.edges[g.nodes[node].first_edge + i].visits > most:
            most = g.edges[g.nodes[node].first_edge + i].visits
            best = g.nodes[node].first_edge + i
    return best

cdef int mcts_action(const State* root, uint64_t* rng, int simulations,
                     double exploration, bint graph, double deadline) noexcept nogil:
    """UCT with uniformly random playouts in C, over positions (graph) or over orders of
    moves (a tree), until `simulations` or the `deadline`; the most visited root move
    (INTERRUPTED at Ctrl-C)."""
    cdef Tree t
    cdef Graph g
    cdef int best, failed
    cdef uint16_t only[MAX_LEGAL]
    if legal_actions(root, only) == 1:
        return only[0]
    if graph:
        best = END_ACTION
        failed = graph_search(&g, root, rng, simulations, exploration, deadline)
        if failed == 0:
            best = g.edges[most_visited_edge(&g, 0)].action
        elif failed == INTERRUPTED:
            best = INTERRUPTED
        graph_free(&g)
        return best
    failed = mcts_search(&t, root, rng, simulations, exploration, deadline)
    if failed < 0:
        free(t.nodes)
        return INTERRUPTED if failed == INTERRUPTED else END_ACTION
    best = most_visited(&t, 0)
    best = t.nodes[best].action if best >= 0 else END_ACTION
    free(t.nodes)
    return best

# ---- what search_root hands back ---------------------------------------------------------

ctypedef struct Summary:
    int moves                # the root's legal moves, in the search's (ascending id) order
    uint16_t actions[MAX_LEGAL]
    int visits[MAX_LEGAL]
    double values[MAX_LEGAL][MAX_PLAYERS]    # a move's mean returns by seat; NaN unvisited
    int root_visits
    double root_values[MAX_PLAYERS]          # NaN before any visit
    int depth                # the principal line: the most visited move, again and again
    uint16_t principal[MAX_GAME_MOVES]
    int nodes
    size_t memory            # the bytes the search's arrays took

cdef void tree_summary(const Tree* t, Summary* out) noexcept nogil:
    cdef const Node* n
    cdef int i, p, node
    out.moves = t.nodes[0].children
    for i in range(out.moves):
        n = &t.nodes[t.nodes[0].first_child + i]
        out.actions[i] = n.action
        out.visits[i] = n.visits
        for p in range(MAX_PLAYERS):
            out.values[i][p] = n.value[p] / n.visits if n.visits else NAN
    out.root_visits = t.nodes[0].visits
    for p in range(MAX_PLAYERS):
        out.root_values[p] = t.nodes[0].value[p] / out.root_visits if out.root_visits else NAN
    out.depth = 0
    node = most_visited(t, 0)
    while node >= 0 and t.nodes[node].visits > 0:
        out.principal[out.depth] = t.nodes[node].action
        out.depth += 1
        node = most_visited(t, node)
    out.nodes = t.size
    out.memory = t.capacity * sizeof(Node)

cdef void graph_summary(const Graph* g, Summary* out) noexcept nogil:
    """Over positions a move's values are those of the position it reaches (every path's)."""
    cdef const Edge* e
    cdef int i, p, node = 0
    out.moves = g.nodes[0].edges
    for i in range(out.moves):
        e = &g.edges[g.nodes[0].first_edge + i]
        out.actions[i] = e.action
        out.visits[i] = e.visits
        for p in range(MAX_PLAYERS):
            out.values[i][p] = g.nodes[e.child].value[p] if e.visits else NAN
    out.root_visits = g.nodes[0].visits
    for p in range(MAX_PLAYERS):
        out.root_values[p] = g.nodes[0].value[p] if out.root_visits else NAN
    out.depth = 0
    while g.nodes[node].edges:
        e = &g.edges[most_visited_edge(g, node)]
        if e.visits == 0:
            break
        out.principal[out.depth] = e.action
        out.depth += 1
        node = e.child
    out.nodes = g.size
    out.memory = (g.capacity * sizeof(Position) + g.edge_capacity * sizeof(Edge)
                  + table_memory(&g.table))

# ---- matches --------------------------------------------------------------------------

cdef int agent_action(const AgentSpec* agent, const State* s, uint64_t* rng) noexcept nogil:
    return timed_action(agent, s, rng, INFINITY)

cdef int timed_action(const AgentSpec* agent, const State* s, uint64_t* rng,
                      double deadline) noexcept nogil:
    """agent_action() of a search that stops at the `deadline` (INFINITY: none)."""
    cdef int proven
    if agent.kind == AGENT_GREEDY:
        return greedy_action(s, rng)
    if agent.kind == AGENT_MCTS:
        if agent.prove and s.round == s.last_round and s.phase == PHASE_PLAY:
            proven = proven_action(s, SOLVE_NODES)
            if proven >= 0:
                return proven
        return mcts_action(s, rng, agent.simulations, agent.exploration, agent.graph,
                           deadline)
    return random_action(s, rng)

cdef int play_match(State* s, const AgentSpec* seats, uint64_t* rng, uint16_t* moves) noexcept nogil:
    """Plays to the end with seats[p] choosing for player p; writes the moves (at most
    MAX_GAME_MOVES) and returns how many (INTERRUPTED at Ctrl-C)."""
    cdef int n = 0, a
    while s.phase != PHASE_OVER:
        a = agent_action(&seats[s.current], s, rng)
        if a == INTERRUPTED:
            return INTERRUPTED
        moves[n] = a
        n += 1
        apply_action(s, a)
    return n

# ---- Python -----------------------------------------------------------------------------

from photocore._game cimport Game

from photocore._game import Move
from photocore._kernel import check_bool, check_count, check_players, check_seed
from photocore.budget import check_limit
from photocore.facts import Options

import dataclasses as _dataclasses
import threading as _threading
from math import isfinite as _isfinite
from numbers import Real as _Real
from operator import index as _index

from photocore.play.results import AgentKind, AgentParams, RootStats


pc_note_main_thread(_threading.main_thread().ident)


def interrupt_searches(bint on):
    """Asks every search of this process (an Agent's select, search_root, play_games) to
    stop at its next look (some ms) with KeyboardInterrupt (on=True), or lets them run
    again (False): what a Ctrl-C in the main thread does to searches on other threads
    (`photocore analyze --serve`). Returns the previous setting."""
    global pc_abandon
    previous = pc_abandon != 0
    pc_abandon = 1 if on else 0
    return previous


def searches_interrupted():
    """Whether interrupt_searches(True) holds: Search.run looks between two batches."""
    return pc_abandon != 0


# the defaults are AgentParams's
DEFAULT_SIMULATIONS = AgentParams.simulations
DEFAULT_GRAPH = AgentParams.graph       # mcts: a tree of move orders (docs/searching.md)
DEFAULT_PROVE = AgentParams.prove       # mcts: the search alone, also in the last round
# The built-in agents, one row each: agent specs, VecGame's opponents, self-play's batch
# sizing and the command line's help read them here (docs/engine.md).
BUILTIN_AGENTS = {agent.name: agent for agent in (
    AgentKind("random", AGENT_RANDOM, False, False, "a uniformly random legal move"),
    AgentKind("greedy", AGENT_GREEDY, False, False, "the best move by a one-ply heuristic"),
    AgentKind("mcts", AGENT_MCTS, True, True,
                 "UCT search with N random playouts a move (?graph=1: over positions; "
                 "?prove=1: a move proven to win in the last round)",
                 (("graph", DEFAULT_GRAPH), ("prove", DEFAULT_PROVE))),
)}
MAX_SIMULATIONS = 10_000_000
def option_suffix(defaults, options):
    """`?key=value&...` of the options (a dict) that differ from their `defaults` ((key,
    default) pairs, as an AgentKind's `options`), in their order: how the names of
    agents (built-in or SearchAgent) and spec labels write them ('' when all are defaults)."""
    changed = [f"{key}={int(options[key]) if isinstance(default, bool) else options[key]}"
               for key, default in defaults if key in options and options[key] != default]
    return "?" + "&".join(changed) if changed else ""


cdef dict _KIND_OF_NAME = {agent.name: agent.kind for agent in BUILTIN_AGENTS.values()}
cdef dict _NAME_OF_KIND = {agent.kind: agent.name for agent in BUILTIN_AGENTS.values()}


cdef AgentSpec agent_spec(params) except *:
    """The C agent of an AgentParams, its fields checked: the one way from Python's value
    to the C struct (Agent, play_games and VecGame's opponents)."""
    if not isinstance(params, AgentParams):
        raise TypeError(f"an agent's parameters are a photocore.play.AgentParams, got "
                        f"{type(params).__name__}")
    kind, simulations, exploration = params.kind, params.simulations, params.exploration
    if not isinstance(kind, str) or kind not in _KIND_OF_NAME:
        raise ValueError(f"unknown agent {kind!r} (expected {', '.join(BUILTIN_AGENTS)})")
    if isinstance(simulations, bool):   # a count, never a flag
        raise TypeError(f"simulations must be an int, not a bool ({simulations!r})")
    if not BUILTIN_AGENTS[kind].budget and (simulations is None or _index(simulations) == 0):
        simulations = DEFAULT_SIMULATIONS   # 0 or None: no budget, which it takes none of
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
    cdef AgentSpec spec
    spec.kind = _KIND_OF_NAME[kind]
    spec.simulations = simulations
    spec.exploration = c
    spec.graph = check_bool(params.graph, "graph")
    spec.prove = check_bool(params.prove, "prove")
    return spec


cdef class Agent:
    # the docstring up to "--" is the signature Python gives the class (inspect.signature,
    # help(), the site's reference), as for a built-in type
    """Agent(kind="random", seed=0, simulations=DEFAULT_SIMULATIONS, exploration=1.0,
          graph=DEFAULT_GRAPH, prove=DEFAULT_PROVE)
--

    A seeded policy: `random`, `greedy` or `mcts` (UCT, `simulations` playouts per move,
    1 to MAX_SIMULATIONS: docs/searching.md, "The C agent"; the agents without a budget
    take any, 0 or None), the rows of
    photocore.play.BUILTIN_AGENTS (a photocore.play.AgentKind each). `seed` is any
    integer, taken modulo 2**64 (photocore.facts.check_seed). A photocore.play.Player:
    what agent specs load a built-in agent into.

    >>> from photocore import Game
    >>> agent = Agent("greedy", seed=1)
    >>> agent.select(Game()) in Game().legal_moves()
    True
    """
    cdef AgentSpec spec
    cdef uint64_t rng
    cdef uint64_t seed          # the one it was made with: reset() starts again from it
    cdef readonly str kind
    """The agent's kind: "random", "greedy" or "mcts" (a key of BUILTIN_AGENTS)."""

    def __init__(self, kind="random", seed=0, simulations=DEFAULT_SIMULATIONS, exploration=1.0,
                 graph=DEFAULT_GRAPH, prove=DEFAULT_PROVE):
        self.spec = agent_spec(AgentParams(kind, simulations, graph, prove, exploration))
        self.seed = self.rng = <uint64_t>check_seed(seed)
        self.kind = kind

    @property
    def params(self):
        """Its parameters, checked (a budget given as 0 or None read as the default), as
        an AgentParams: `Agent(**dataclasses.asdict(agent.params))` plays as it does."""
        return AgentParams(_NAME_OF_KIND[self.spec.kind], self.spec.simulations,
                           bool(self.spec.graph), bool(self.spec.prove), self.spec.exploration)

    @property
    def name(self):
        """The agent as `photocore selfplay --agents` spells it, e.g. mcts:200, with the
        options that are not their defaults: mcts:1000?graph=1."""
        row = BUILTIN_AGENTS[self.kind]
        if not row.budget:
            return self.kind
        return (f"{self.kind}:{self.spec.simulations}"
                + option_suffix(row.options, _dataclasses.asdict(self.params)))

    @property
    def graph(self):
        """Whether it searches over positions (mcts:N?graph=1) or over orders of moves."""
        return bool(self.spec.graph)

    @property
    def prove(self):
        """Whether, in the last round, it plays a move the solver proves keeps a win (or a
        shared win) within SOLVE_NODES positions (mcts:N?prove=1), searching where that
        runs out or the position is lost."""
        return bool(self.spec.prove)

    def select(self, Game game not None, limit=None):
        """The move this agent plays in `game` (which it does not change). A
        photocore.Limit bounds an mcts search: its `simulations` replace the agent's own for
        this move, and it stops at its `seconds` (having searched two simulations at least);
        random and greedy take no budget."""
        limit = check_limit(limit)
        if game.st.phase == PHASE_OVER:
            raise ValueError("the game is over: there is no move to select")
        cdef AgentSpec spec = self.spec
        cdef double deadline = INFINITY
        cdef int action
        if limit is not None and BUILTIN_AGENTS[self.kind].budget:
            if limit.simulations is not None:
                if limit.simulations > MAX_SIMULATIONS:
                    raise ValueError(f"limit simulations must be from 1 to "
                                     f"{MAX_SIMULATIONS:,}, got {limit.simulations:,}")
                spec.simulations = limit.simulations
            if limit.seconds is not None:
                deadline = now() + limit.seconds
        with nogil:
            action = timed_action(&spec, &game.st, &self.rng, deadline)
        if action == INTERRUPTED:
            pc_raise_interrupt()
        return Move(action)

    def reset(self, seed=None):
        """Readies it for a new game: its random stream starts again from `seed`, or from
        the seed it was made with (the same seed, the same moves in the same positions)."""
        self.rng = self.seed if seed is None else <uint64_t>check_seed(seed)

    def close(self):
        """Holds nothing to free (a Player's close())."""

    def __repr__(self):
        return f"Agent({self.name!r})"


def search_root(Game game not None, simulations=DEFAULT_SIMULATIONS, seed=0,
                exploration=1.0, graph=DEFAULT_GRAPH):
    """The root statistics of the search `Agent("mcts", seed, simulations, exploration,
    graph)` makes in `game` (the same code; a position with one legal move is searched
    too, where the agent plays it at once), as a photocore.play.RootStats. The root's
    first visit expands it, so its moves share one visit fewer than it has. Over positions
    (graph), a move's visits are its edge's, its values those of the position it reaches
    (every path's).

    >>> from photocore import Game
    >>> stats = search_root(Game(), simulations=50, seed=1)
    >>> sum(stats.visits), stats.root_visits, len(stats.actions)
    (49, 50, 18)
    """
    if game.st.phase == PHASE_OVER:
        raise ValueError("the game is over: there is no move to search")
    cdef Agent agent = Agent("mcts", seed, simulations, exploration, graph)   # checks them
    cdef Summary r
    cdef Tree t
    cdef Graph g
    cdef int failed, i, k, players = game.st.players
    with nogil:
        if agent.spec.graph:
            failed = graph_search(&g, &game.st, &agent.rng, agent.spec.simulations,
                                  agent.spec.exploration, INFINITY)
            if failed == 0:
                graph_summary(&g, &r)
            graph_free(&g)
        else:
            failed = mcts_search(&t, &game.st, &agent.rng, agent.spec.simulations,
                                 agent.spec.exploration, INFINITY)
            if failed == 0:
                tree_summary(&t, &r)
            free(t.nodes)
    if failed == INTERRUPTED:
        pc_raise_interrupt()
    if failed == 0:
        return RootStats([r.actions[i] for i in range(r.moves)],
                         [r.visits[i] for i in range(r.moves)],
                         [tuple([r.values[i][k] for k in range(players)]) for i in range(r.moves)],
                         r.root_visits, tuple([r.root_values[k] for k in range(players)]),
                         [r.principal[i] for i in range(r.depth)], r.nodes, r.memory)
    raise MemoryError("search_root: out of memory for the search "
                      + ("graph" if agent.spec.graph else "tree"))


def play_games(agents, players, options, seed, start, count):
    """Plays games start .. start + count - 1 of a seeded series in C, without the GIL.

    `agents` lists an AgentParams per agent, or a tuple of its first fields: (kind,
    simulations), (kind, simulations, graph) ... (simulations 0 or None for an agent
    without a budget); in game i agent k sits in seat (k + i) % players, so every agent
    plays every seat. Game i
    depends only on (seed, i). `options` are the advanced rules, an Options or its text
    (None: none); `seed` any integer, taken modulo 2**64 (photocore.facts.check_seed);
    start + count at most 2**63 - 1. Returns (moves uint16 array, offsets int64 array of
    count + 1).

    >>> moves, offsets = play_games([("greedy", 0), ("mcts", 20)], 2, "s", 1, 0, 2)
    >>> len(offsets), int(offsets[-1]) == len(moves)
    (3, True)
    """
    import numpy as np
    players = check_players(players)
    cdef int rules = Options.coerce(options).flags
    cdef uint64_t base = check_seed(seed)
    start, count = check_count(start, "start"), check_count(count, "count")
    check_count(start + count, "start + count")     # game indices fit a long long
    cdef long long first = start, games = count
    if len(agents) != players:
        raise ValueError(f"{players} players need {players} agents, got {len(agents)}")
    cdef AgentSpec specs[MAX_PLAYERS]
    cdef AgentSpec seats[MAX_PLAYERS]
    cdef int k
    for k, agent in enumerate(agents):
        specs[k] = agent_spec(agent if isinstance(agent, AgentParams) else AgentParams(*agent))
    moves = np.empty(games * MAX_GAME_MOVES, np.uint16)
    offsets = np.zeros(games + 1, np.int64)
    cdef uint16_t[::1] out = moves
    cdef long long[::1] ends = offsets
    cdef long long g, n = 0
    cdef uint64_t rng
    cdef State s
    cdef int nplayers = players, played = 0
    with nogil:
        for g in range(games):
            for k in range(nplayers):
                seats[(k + first + g) % nplayers] = specs[k]
            rng = game_seed(base, <uint64_t>(first + g))
            state_init(&s, nplayers, rules)
            played = play_match(&s, seats, &rng, &out[n])
            # Ctrl-C: in a search (it says so), or between games (every 64, some ms)
            if played == INTERRUPTED or ((g & 63) == 63 and stop_asked()):
                played = INTERRUPTED
                break
            n += played
            ends[g + 1] = n
    if played == INTERRUPTED:
        pc_raise_interrupt()
    return moves[:n].copy(), offsets
