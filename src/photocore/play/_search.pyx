# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Search: batched PUCT over many games at once, asking a network for priors and values.

Selection, expansion and backup run in C without the GIL; the leaves of all games go to the
network together, as the observations and masks VecGame gives (docs/searching.md).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.math cimport INFINITY, cos, exp, isfinite, log, pow, sqrt
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy, memset

from photocore._kernel cimport *
from photocore._game cimport Game
from photocore.play._table cimport (Table, table_clear, table_find, table_free, table_insert,
                                    table_memory, table_put, table_reserve)

from numbers import Real
from operator import index

import numpy as np

from photocore._kernel import check_bool, check_seed
from photocore.notation import MOVE_TEXTS
from photocore.play.settings import SearchSettings

# ---- the tree -----------------------------------------------------------------------------

cdef enum:
    UNEVALUATED = 0     # a root not yet shown to the network (or a leaf whose batch was cancelled)
    PENDING = 1         # handed out by ask(), waiting for tell()
    EXPANDED = 2        # evaluated: its edges hold the legal moves and their priors
    TERMINAL = 3        # the game is over here: valued by its own returns
    PATH = MAX_GAME_MOVES + 1   # room for a walk's edges (graph): a walk plays one game at most

ctypedef struct Edge:
    # a move's statistics live in its edge, so choosing among a node's moves reads one
    # contiguous array and not every child node (24 bytes)
    double value        # summed values, for the player who chooses this move
    float prior
    int child           # node index, -1 until the move is first tried
    int visits
    uint16_t inflight   # walks waiting below (at most in_flight <= 256 a batch)
    uint16_t action

ctypedef struct Node:
    # what a walk reads first (one cache line), then the position
    double value[MAX_PLAYERS]   # summed values of the simulations through it, by seat
    int parent          # -1 at the root
    int parent_edge     # the edge leading here, -1 at the root
    int first_edge
    int edges           # legal moves (once EXPANDED)
    int visits          # finished simulations through this node
    int inflight        # simulations through it waiting for the network (virtual losses)
    uint8_t status
    uint8_t player      # the player to move here
    uint8_t mover       # the player who chose the move leading here (its edge's value)
    float net[MAX_PLAYERS]      # the network's value of the position by seat (once EXPANDED)
    State state

ctypedef struct Tree:
    Node* nodes         # the root is node 0
    Node* spare         # where advance() copies the subtree it keeps
    int size
    int capacity
    int spare_capacity
    Edge* edges
    Edge* spare_edges
    int nedges
    int edge_capacity
    int spare_edge_capacity
    Table table         # the EXPANDED nodes by position (in a graph: every node)
    int64_t saved       # network evaluations transpositions spared this game's searches
    uint64_t rng
    bint graph          # one node per position (Search(graph=True)): the table holds them all


cdef inline void node_init(Node* n, const State* s, int parent, int parent_edge,
                           int mover) noexcept nogil:
    n.state = s[0]
    memset(n.value, 0, sizeof(n.value))
    n.parent = parent
    n.parent_edge = parent_edge
    n.player = s.current
    n.mover = mover
    n.first_edge = 0
    n.edges = 0
    n.visits = 0
    n.inflight = 0
    n.status = TERMINAL if s.phase == PHASE_OVER else UNEVALUATED


cdef inline void edge_init(Edge* e, int action, float prior) noexcept nogil:
    """A move not tried yet."""
    e.value = 0.0
    e.prior = prior
    e.child = -1
    e.visits = 0
    e.inflight = 0
    e.action = action


cdef int select_edge(const Tree* t, int x, double c_puct, double worst) noexcept nogil:
    """The edge of expanded node x with the best PUCT score for the player to move there.

    Unvisited moves are valued at the node's own mean value for that player; a simulation
    in flight counts as a visit that lost (`worst`, the lowest return). In a graph a
    visited move is valued at its child's Q, however many paths made it, weighted by the
    edge's own visits.
    """
    cdef const Node* node = &t.nodes[x]
    cdef const Edge* e
    cdef int p = node.player, i, best = 0, n
    cdef double total = node.visits + node.inflight
    cdef double scale = c_puct * sqrt(total if total > 1.0 else 1.0)
    cdef double fpu = node.value[p] / node.visits if node.visits > 0 else 0.0
    cdef double score, top = -INFINITY, summed
    cdef const Node* child
    for i in range(node.edges):
        e = &t.edges[node.first_edge + i]
        n = e.visits + e.inflight
        if n == 0:
            score = fpu + scale * e.prior
        else:
            summed = e.value
            if t.graph and e.visits:
                child = &t.nodes[e.child]
                summed = e.visits * (child.value[p] / child.visits)
            score = (summed + e.inflight * worst) / n + scale * e.prior / (1 + n)
        if score > top:
            top = score
            best = i
    return node.first_edge + best


cdef void backup(Tree* t, int x, const double* value, int players, int inflight) noexcept nogil:
    """Adds one finished simulation with `value` (by seat) to x and its ancestors."""
    cdef Node* node
    cdef Edge* e
    cdef int p
    while x >= 0:
        node = &t.nodes[x]
        node.inflight -= inflight
        node.visits += 1
        for p in range(players):
            node.value[p] += value[p]
        if node.parent_edge >= 0:
            e = &t.edges[node.parent_edge]
            e.inflight -= inflight
            e.visits += 1
            e.value += value[node.mover]
        x = node.parent


cdef void add_inflight(Tree* t, int x, int delta) noexcept nogil:
    while x >= 0:
        t.nodes[x].inflight += delta
        if t.nodes[x].parent_edge >= 0:
            t.edges[t.nodes[x].parent_edge].inflight += delta
        x = t.nodes[x].parent


# ---- the graph: one node per position, several parents (docs/searching.md, "The graph in Search")
# A walk records its edges (the path); the nodes on it are the root and the edges' children.

cdef int descend(Tree* t, double c_puct, double worst, int* path, int* depth) noexcept nogil:
    """Walks from the root to a node to evaluate (new, or a finished game): its index, or
    -1 when the walk meets a leaf already waiting for the network (a collision).

    In a graph the walk records the edges it takes in `path` (their number in `depth`;
    the tree leaves both alone), finds the position an untried edge leads to among all
    the graph's nodes (so a position waiting for the network by another order is a
    collision too: it is not sent twice) and may end at an evaluated node whose Q it
    backs up: one with more visits than the edge taken to it (a new edge to a known
    position among them), whose Q already stands on those visits, so the edge can count
    one more without a search below (KataGo's docs/GraphSearch.md)."""
    cdef int x = 0, e, c, found
    cdef Node* node
    cdef State s
    if t.graph:
        depth[0] = 0
    while True:
        node = &t.nodes[x]
        if node.status == UNEVALUATED or node.status == TERMINAL:
            return x
        if node.status == PENDING:
            return -1
        e = select_edge(t, x, c_puct, worst)
        c = t.edges[e].child
        if not t.graph:
            if c < 0:
                c = t.size
                t.size += 1
                s = node.state
                apply_action(&s, t.edges[e].action)
                node_init(&t.nodes[c], &s, x, e, node.player)
                t.edges[e].child = c
                return c
            x = c
            continue
        path[depth[0]] = e
        depth[0] += 1
        if c < 0:
            s = node.state
            apply_action(&s, t.edges[e].action)
            found = find(t, &s)
            if found >= 0:
                c = found
            else:
                c = t.size
                t.size += 1
                node_init(&t.nodes[c], &s, -1, -1, node.player)
                table_put(&t.table, found, c)
            t.edges[e].child = c
        x = c
        if t.nodes[x].status == EXPANDED and t.edges[e].visits < t.nodes[x].visits:
            return x


cdef void graph_update(Tree* t, int x, int players) noexcept nogil:
    """Q(x) again from its own value U (`net`) and its children's Q weighted by the visits
    of the edges to them: Q = (U + sum N(e) Q(child)) / (1 + sum N(e)), kept as the sum
    `value` over `visits` = 1 + sum N(e) (KataGo's rule: right however many paths reach a
    child, since a child counts at its own value, not at the values this path brought)."""
    cdef Node* node = &t.nodes[x]
    cdef const Edge* e
    cdef const Node* child
    cdef int i, p, visits = 1
    for p in range(players):
        node.value[p] = node.net[p]
    for i in range(node.edges):
        e = &t.edges[node.first_edge + i]
        if e.visits:
            child = &t.nodes[e.child]
            visits += e.visits
            for p in range(players):
                node.value[p] += e.visits * (child.value[p] / child.visits)
    node.visits = visits


cdef void graph_inflight(Tree* t, const int* path, int depth, int delta) noexcept nogil:
    """Adds `delta` walks in flight to the nodes and edges of a recorded path."""
    cdef int i, x = 0
    for i in range(depth):
        t.nodes[x].inflight += delta
        t.edges[path[i]].inflight += delta
        x = t.edges[path[i]].child
    t.nodes[x].inflight += delta


cdef void graph_backup(Tree* t, const int* path, int depth, const double* value, int players,
                       int inflight) noexcept nogil:
    """One finished simulation down `path`: a finished game's leaf adds its returns
    (`value`), an evaluated one is Q = U; then, leaf to root, each edge counts the visit
    and each node's Q is recomputed from its children (the path, not parent links: a
    node may have several parents)."""
    cdef int nodes[MAX_GAME_MOVES + 1]
    cdef int i, p
    cdef Node* leaf
    nodes[0] = 0
    for i in range(depth):
        nodes[i + 1] = t.edges[path[i]].child
    leaf = &t.nodes[nodes[depth]]
    leaf.inflight -= inflight
    if leaf.status == TERMINAL:
        leaf.visits += 1
        for p in range(players):
            leaf.value[p] += value[p]
    else:
        graph_update(t, nodes[depth], players)
    for i in range(depth - 1, -1, -1):
        t.edges[path[i]].visits += 1
        t.edges[path[i]].inflight -= inflight
        t.nodes[nodes[i]].inflight -= inflight
        graph_update(t, nodes[i], players)


# ---- transpositions: a position evaluated once in a tree is not sent to the network again

cdef inline int find(const Tree* t, const State* s) noexcept nogil:
    """An EXPANDED node of position s (in a graph: any node of it), or a negative number
    (table_find's free slot)."""
    return table_find(&t.table, s, &t.nodes[0].state, sizeof(Node))


cdef void table_rebuild(Tree* t) noexcept nogil:
    cdef int x
    table_clear(&t.table)
    for x in range(t.size):
        if t.graph or t.nodes[x].status == EXPANDED:
            table_insert(&t.table, t.nodes[x].state.key, x)


cdef void expand_from(Tree* t, int x, int donor) noexcept nogil:
    """Expands x with the moves and priors of `donor`, the same position evaluated before
    (never the root, whose priors hold noise: no position is reached again below itself)."""
    cdef Node* node = &t.nodes[x]
    cdef const Node* source = &t.nodes[donor]
    cdef Edge* e
    cdef int k
    node.first_edge = t.nedges
    node.edges = source.edges
    t.nedges += source.edges
    for k in range(source.edges):
        e = &t.edges[source.first_edge + k]
        edge_init(&t.edges[node.first_edge + k], e.action, e.prior)
    memcpy(node.net, source.net, sizeof(node.net))
    node.status = EXPANDED


# ---- Dirichlet noise: Gamma samples by Marsaglia and Tsang, from the tree's own stream ----

cdef inline double uniform(uint64_t* rng) noexcept nogil:
    """Uniform on (0, 1]."""
    return ((rng_next(rng) >> 11) + 1) * (1.0 / 9007199254740992.0)


cdef inline double normal(uint64_t* rng) noexcept nogil:
    """Standard normal (Box-Muller)."""
    cdef double u = uniform(rng), v = uniform(rng)
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v)


cdef double gamma(double shape, uint64_t* rng) noexcept nogil:
    """Gamma(shape, 1). Below shape 1, Gamma(shape + 1) * U^(1 / shape) (Marsaglia-Tsang)."""
    cdef double boost = 1.0, d, c, x, v, u
    if shape < 1.0:
        boost = pow(uniform(rng), 1.0 / shape)
        shape += 1.0
    d = shape - 1.0 / 3.0
    c = 1.0 / sqrt(9.0 * d)
    while True:
        x = normal(rng)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = uniform(rng)
        if u < 1.0 - 0.0331 * x * x * x * x or log(u) < 0.5 * x * x + d * (1.0 - v + log(v)):
            return boost * d * v


cdef void add_noise(Tree* t, double alpha, double fraction) noexcept nogil:
    """Mixes Dirichlet(alpha) noise into the priors of the (expanded) root."""
    cdef Node* root = &t.nodes[0]
    cdef double noise[MAX_LEGAL]
    cdef double total = 0.0
    cdef int i, n = root.edges
    if root.status != EXPANDED or fraction <= 0.0 or n < 2:
        return
    for i in range(n):
        noise[i] = gamma(alpha, &t.rng)
        total += noise[i]
    if not total > 0.0:        # every sample underflowed (tiny alpha): all noise on one move
        for i in range(n):
            noise[i] = 0.0
        noise[rng_below(&t.rng, n)] = 1.0
        total = 1.0
    for i in range(n):
        t.edges[root.first_edge + i].prior = <float>(
            (1.0 - fraction) * t.edges[root.first_edge + i].prior + fraction * noise[i] / total)


# ---- the settings the walks read ----------------------------------------------------------

ctypedef struct Knobs:
    double c_puct, alpha, fraction, rollout
    double worst        # the lowest return (docs/engine.md): a walk in flight's virtual loss
    int players, in_flight, max_nodes
    int simulations     # visits each root gets from run()
    bint transpositions, graph


cdef double _parameter(value, str name, double low, double high, bint open_low=False) except? -1:
    if not isinstance(value, Real) or isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {value!r}")
    cdef double x = float(value)
    if not (isfinite(x) and (x > low if open_low else x >= low) and x <= high):
        raise ValueError(f"{name} must be a finite number {'>' if open_low else '>='} {low:g}"
                         f"{f' and <= {high:g}' if high < 1e300 else ''}, got {value!r}")
    return x


cdef int knobs_of(Knobs* k, settings, int players) except -1:
    """Checks the SearchSettings' fields (ValueError or TypeError naming the first bad
    one) into k; k.simulations is left to Search.simulations."""
    in_flight = index(settings.in_flight)
    if not 1 <= in_flight <= 256:
        raise ValueError(f"in_flight must be from 1 to 256, got {in_flight}")
    max_nodes = index(settings.max_nodes)
    if not 2 <= max_nodes <= 1 << 26:
        raise ValueError(f"max_nodes must be from 2 to {1 << 26}, got {max_nodes}")
    k.c_puct = _parameter(settings.c_puct, "c_puct", 0.0, 1e300)
    k.alpha = _parameter(settings.dirichlet_alpha, "dirichlet_alpha", 0.0, 1e300, open_low=True)
    k.fraction = _parameter(settings.dirichlet_fraction, "dirichlet_fraction", 0.0, 1.0)
    k.rollout = _parameter(settings.rollout_weight, "rollout_weight", 0.0, 1.0)
    k.transpositions = check_bool(settings.transpositions, "transpositions")
    k.graph = check_bool(settings.graph, "graph")
    k.players = players
    k.in_flight = in_flight
    k.max_nodes = max_nodes
    k.worst = -1.0 / (players - 1)
    return 0


# ---- storage: a tree's nodes, edges and table ---------------------------------------------

cdef str _describe(array):
    return f"{getattr(array, 'dtype', type(array).__name__)} of shape {getattr(array, 'shape', '?')}"


cdef int _reserve_nodes(Tree* t, int need, bint spare) except -1:
    """Grows the node array (or the spare one) to hold `need` nodes."""
    cdef int capacity = t.spare_capacity if spare else t.capacity
    cdef Node* grown
    if need <= capacity:
        return 0
    capacity = max(need, 2 * capacity)
    grown = <Node*>PyMem_Realloc(t.spare if spare else t.nodes, capacity * sizeof(Node))
    if grown == NULL:
        raise MemoryError(f"no memory for a search tree of {capacity} nodes")
    if spare:
        t.spare = grown
        t.spare_capacity = capacity
    else:
        t.nodes = grown
        t.capacity = capacity
    return 0


cdef int _reserve_edges(Tree* t, int need, bint spare) except -1:
    cdef int capacity = t.spare_edge_capacity if spare else t.edge_capacity
    cdef Edge* grown
    if need <= capacity:
        return 0
    capacity = max(need, 2 * capacity, 1024)
    grown = <Edge*>PyMem_Realloc(t.spare_edges if spare else t.edges, capacity * sizeof(Edge))
    if grown == NULL:
        raise MemoryError(f"no memory for a search tree of {capacity} moves")
    if spare:
        t.spare_edges = grown
        t.spare_edge_capacity = capacity
    else:
        t.edges = grown
        t.edge_capacity = capacity
    return 0


cdef int _reserve_table(Tree* t, int need) except -1:
    """A table for `need` nodes (at most half full)."""
    cdef int grown = table_reserve(&t.table, need)
    if grown < 0:
        raise MemoryError(f"no memory for a transposition table of {need} nodes")
    if grown:
        table_rebuild(t)
    return 0


cdef int set_root(Tree* t, const State* s) except -1:
    """A tree of the one position s, not evaluated yet."""
    _reserve_nodes(t, 1, False)
    t.size = 1
    t.nedges = 0
    node_init(&t.nodes[0], s, -1, -1, s.current)
    if t.table.slots != NULL:
        table_rebuild(t)
    return 0


cdef void tree_free(Tree* t) noexcept:
    PyMem_Free(t.nodes)
    PyMem_Free(t.spare)
    PyMem_Free(t.edges)
    PyMem_Free(t.spare_edges)
    table_free(&t.table)


cdef int reserve_walks(Tree* t, int g, const Knobs* k) except -1:
    """Room for the nodes (and table) game g's next batch may add, or RuntimeError."""
    cdef State root
    cdef int need = t.size + max(0, k.simulations - t.nodes[0].visits - t.nodes[0].inflight)
    if k.graph and need > k.max_nodes:
        # a kept graph can hold more positions than its root has visits (reached by
        # other orders, through parents advance() dropped): searched afresh instead
        # (no walk is in flight between batches), so max_nodes holds
        root = t.nodes[0].state
        set_root(t, &root)
        need = 1 + k.simulations
    if need > k.max_nodes:
        raise RuntimeError(
            f"game {g}: the search tree would need {need} nodes, more than "
            f"max_nodes={k.max_nodes}; nothing was searched (create the Search "
            "with a larger max_nodes)")
    _reserve_nodes(t, need, False)
    if k.graph:
        _reserve_table(t, need)
    elif k.transpositions:
        # the moves of the positions a collect values from a transposition
        _reserve_edges(t, t.nedges + k.in_flight * MAX_LEGAL, False)
        _reserve_table(t, need)
    return 0


# ---- the batch handed to the network: selection, expansion and backup ---------------------

ctypedef struct Batch:
    # the leaves handed out by ask(), waiting for tell(): row r is node row_node[r] of game
    # row_game[r], its row_count[r] legal moves from row_actions[r * MAX_LEGAL]
    int rows
    int* row_game
    int* row_node
    int* row_count
    uint16_t* row_actions
    int* row_path          # graph: each row's walk, PATH edges a row
    int* row_depth


cdef int batch_alloc(Batch* b, int rows, bint graph) except -1:
    b.row_game = <int*>PyMem_Malloc(rows * sizeof(int))
    b.row_node = <int*>PyMem_Malloc(rows * sizeof(int))
    b.row_count = <int*>PyMem_Malloc(rows * sizeof(int))
    b.row_actions = <uint16_t*>PyMem_Malloc(rows * MAX_LEGAL * sizeof(uint16_t))
    if graph:
        b.row_path = <int*>PyMem_Malloc(rows * PATH * sizeof(int))
        b.row_depth = <int*>PyMem_Malloc(rows * sizeof(int))
        if b.row_path == NULL or b.row_depth == NULL:
            raise MemoryError()
    if b.row_game == NULL or b.row_node == NULL or b.row_count == NULL or b.row_actions == NULL:
        raise MemoryError()
    return 0


cdef void batch_free(Batch* b) noexcept:
    PyMem_Free(b.row_game)
    PyMem_Free(b.row_node)
    PyMem_Free(b.row_count)
    PyMem_Free(b.row_actions)
    PyMem_Free(b.row_path)
    PyMem_Free(b.row_depth)


cdef int collect(Tree* trees, int num_games, const Knobs* knobs, Batch* b, float* obs,
                 uint8_t* mask, int* games) noexcept nogil:
    """Walks each game's tree to at most in_flight leaves for the network: b's rows, their
    observations, masks and games written at their row. A walk that ends where no network
    is needed (the game over, a known position) is backed up at once. The rows taken."""
    cdef Knobs kn = knobs[0]     # a local copy: read from registers, whatever the walks write
    cdef int g, x, taken, shared, donor, row = 0, k, n
    cdef Tree* t
    cdef Node* root
    cdef Node* leaf
    cdef double result[MAX_PLAYERS]
    cdef uint16_t* actions
    cdef int* path = NULL       # graph: the walk's edges and their number, row's own
    cdef int* depth = NULL
    for g in range(num_games):
        t = &trees[g]
        root = &t.nodes[0]
        taken = 0
        shared = 0
        if g + 1 < num_games and trees[g + 1].edges != NULL:
            # the next game's root and its first moves, while this one is walked
            pc_prefetch(trees[g + 1].nodes)
            pc_prefetch(trees[g + 1].edges)
            pc_prefetch(<char*>trees[g + 1].edges + 64)
            pc_prefetch(<char*>trees[g + 1].edges + 128)
        while (taken < kn.in_flight and root.status != TERMINAL
               and root.visits + root.inflight < kn.simulations):
            if kn.graph:
                path = &b.row_path[row * PATH]
                depth = &b.row_depth[row]
            x = descend(t, kn.c_puct, kn.worst, path, depth)
            if x < 0:
                break                   # the rest of this game waits for the network
            leaf = &t.nodes[x]
            if leaf.status == EXPANDED:     # graph: a known position's Q, no network
                graph_backup(t, path, depth[0], result, kn.players, 0)
                t.saved += 1
                continue
            if leaf.status == TERMINAL:
                returns(&leaf.state, result)
                if kn.graph:
                    graph_backup(t, path, depth[0], result, kn.players, 0)
                else:
                    backup(t, x, result, kn.players, 0)
                continue
            if kn.graph:
                graph_inflight(t, path, depth[0], 1)
            elif kn.transpositions and shared < kn.in_flight:
                donor = find(t, &leaf.state)
                if donor >= 0:
                    # valued before by another path: its moves, priors and value
                    expand_from(t, x, donor)
                    value_leaf(t, x, &kn, result)
                    backup(t, x, result, kn.players, 0)
                    t.saved += 1
                    shared += 1
                    continue
            leaf.status = PENDING
            if not kn.graph:
                add_inflight(t, x, 1)
            actions = &b.row_actions[row * MAX_LEGAL]
            n = legal_actions(&leaf.state, actions)
            b.row_game[row] = g
            b.row_node[row] = x
            b.row_count[row] = n
            games[row] = g
            encode_observation(&leaf.state, leaf.state.current, &obs[row * OBS_SIZE])
            memset(&mask[row * NUM_ACTIONS], 0, NUM_ACTIONS)
            for k in range(n):
                mask[row * NUM_ACTIONS + actions[k]] = 1
            row += 1
            taken += 1
    b.rows = row
    return row


cdef _answer(array, str name, int rows, int width):
    """tell()'s logits or values as a C-contiguous float32 (rows, width) array, or ValueError."""
    try:
        a = np.asarray(array)
    except Exception as e:       # noqa: BLE001: whatever could not become an array
        raise ValueError(f"{name} must be an array, got {type(array).__name__} ({e}); "
                         "nothing was changed") from None
    if a.dtype != np.float32 and a.dtype != np.float64:
        raise ValueError(f"{name} must be float32 (or float64), got {_describe(a)}; nothing "
                         "was changed, the batch still waits for tell()")
    if a.shape != (rows, width):
        raise ValueError(f"{name} must have shape ({rows}, {width}), one row per "
                         f"observation of the batch, got {a.shape}; nothing was changed, "
                         "the batch still waits for tell()")
    return np.ascontiguousarray(a, dtype=np.float32)


cdef int bad_answer(const Batch* b, const float* logits, const float* values, int players,
                    int* why) noexcept nogil:
    """The first row whose logits or values tell() refuses (why: 1 a legal move's logit
    NaN or +inf, 2 every legal move's -inf, 3 a value not finite), or -1."""
    cdef int r, k
    cdef float x
    cdef bint finite
    for r in range(b.rows):
        finite = False
        for k in range(b.row_count[r]):
            x = logits[r * NUM_ACTIONS + b.row_actions[r * MAX_LEGAL + k]]
            if isfinite(x):
                finite = True
            elif x != -INFINITY:
                why[0] = 1
                return r
        if not finite:
            why[0] = 2
            return r
        for k in range(players):
            if not isfinite(values[r * players + k]):
                why[0] = 3
                return r
    return -1


cdef int reserve_answers(Tree* trees, int num_games, const Batch* b) except -1:
    """Room for the edges tell() adds to each tree, before anything changes."""
    cdef int64_t[:] need = np.zeros(num_games, np.int64)
    cdef int r, g
    for r in range(b.rows):
        need[b.row_game[r]] += b.row_count[r]
    for g in range(num_games):
        if need[g]:
            if trees[g].nedges + need[g] > 1 << 30:
                raise MemoryError(f"game {g}: a search tree over 2**30 moves")
            _reserve_edges(&trees[g], trees[g].nedges + <int>need[g], False)
    return 0


cdef void expand(Tree* trees, const Knobs* kn, const Batch* b, int r, const float* logits,
                 const float* values) noexcept nogil:
    """Row r's node takes its moves, priors (softmax of the legal logits) and value from the
    network, and backs that value up."""
    cdef Tree* t = &trees[b.row_game[r]]
    cdef Node* node = &t.nodes[b.row_node[r]]
    cdef const uint16_t* actions = &b.row_actions[r * MAX_LEGAL]
    cdef int k, n = b.row_count[r], p = node.player
    cdef double top = -INFINITY, total = 0.0, e
    cdef double seat[MAX_PLAYERS]
    for k in range(n):
        if logits[actions[k]] > top:
            top = logits[actions[k]]
    node.first_edge = t.nedges
    node.edges = n
    t.nedges += n
    for k in range(n):
        e = exp(logits[actions[k]] - top)
        edge_init(&t.edges[node.first_edge + k], actions[k], <float>e)
        total += e
    for k in range(n):
        t.edges[node.first_edge + k].prior = <float>(t.edges[node.first_edge + k].prior / total)
    node.status = EXPANDED
    if b.row_node[r] == 0:
        add_noise(t, kn.alpha, kn.fraction)
    for k in range(kn.players):
        node.net[(p + k) % kn.players] = values[k]
    value_leaf(t, b.row_node[r], kn, seat)
    if kn.graph:
        # U(n), the value the node keeps for its Q (docs/searching.md)
        for k in range(kn.players):
            node.net[k] = <float>seat[k]
        graph_backup(t, &b.row_path[r * PATH], b.row_depth[r], seat, kn.players, 1)
        return
    if kn.transpositions:
        table_insert(&t.table, node.state.key, b.row_node[r])
    backup(t, b.row_node[r], seat, kn.players, 1)


cdef void value_leaf(Tree* t, int x, const Knobs* kn, double* seat) noexcept nogil:
    """The value by seat that node x, just expanded, backs up: the network's, with a
    random game's returns from it mixed in at rollout_weight."""
    cdef double played[MAX_PLAYERS]
    cdef int k
    for k in range(kn.players):
        seat[k] = t.nodes[x].net[k]
    if kn.rollout > 0.0:
        playout(&t.nodes[x].state, &t.rng, played)
        for k in range(kn.players):
            seat[k] = (1.0 - kn.rollout) * seat[k] + kn.rollout * played[k]


cdef void batch_cancel(Tree* trees, Batch* b, bint graph) noexcept nogil:
    """Takes back the batch's walks: its leaves are asked again later."""
    cdef int r
    cdef Tree* t
    for r in range(b.rows):
        t = &trees[b.row_game[r]]
        t.nodes[b.row_node[r]].status = UNEVALUATED
        if graph:
            graph_inflight(t, &b.row_path[r * PATH], b.row_depth[r], -1)
        else:
            add_inflight(t, b.row_node[r], -1)
    b.rows = 0


# ---- results ------------------------------------------------------------------------------

cdef roots_moves(const Tree* trees, int num_games, bint priors):
    """The roots' moves' visits, or priors, by action id (0 where none)."""
    out = np.zeros((num_games, NUM_ACTIONS), np.float32 if priors else np.int32)
    cdef float[:, ::1] prior = out if priors else None
    cdef int[:, ::1] visits = None if priors else out
    cdef int g, k
    cdef const Tree* t
    cdef const Edge* e
    for g in range(num_games):
        t = &trees[g]
        if t.nodes[0].status != EXPANDED:
            continue
        for k in range(t.nodes[0].edges):
            e = &t.edges[t.nodes[0].first_edge + k]
            if priors:
                prior[g, e.action] = e.prior
            else:
                visits[g, e.action] = e.visits
    return out


cdef roots_values(const Tree* trees, int num_games, int players):
    """The mean value of each root by seat (a finished game: its returns)."""
    out = np.zeros((num_games, players), np.float32)
    cdef float[:, ::1] view = out
    cdef int g, p
    cdef double result[MAX_PLAYERS]
    cdef const Node* root
    for g in range(num_games):
        root = &trees[g].nodes[0]
        if root.status == TERMINAL:
            returns(&root.state, result)
            for p in range(players):
                view[g, p] = <float>result[p]
        elif root.visits:
            for p in range(players):
                view[g, p] = <float>(root.value[p] / root.visits)
    return out


cdef int chosen_edge(Tree* t, double t_inv) noexcept nogil:
    """The root edge choose() draws (t_inv: 1 / temperature, 0 for the most visited, ties
    drawn at random), or -1 when no move has visits."""
    cdef const Node* root = &t.nodes[0]
    cdef int k, n = root.edges, best = -1, ties = 0, v, most = 0
    cdef double weights[MAX_LEGAL]
    cdef double total, draw
    for k in range(n):
        v = t.edges[root.first_edge + k].visits
        weights[k] = v
        if v > most:
            most, best, ties = v, k, 1
        elif v == most and v > 0:
            ties += 1
            if rng_below(&t.rng, ties) == 0:     # reservoir: a tie drawn uniformly
                best = k
    if t_inv != 0.0:
        # visits ** (1 / T), scaled by the most visits to stay finite for small T
        total = 0.0
        for k in range(n):
            weights[k] = exp(log(weights[k] / most) * t_inv) if weights[k] > 0 else 0.0
            total += weights[k]
        draw = uniform(&t.rng) * total
        for k in range(n):
            if weights[k] > 0.0:
                best = k
                draw -= weights[k]
                if draw <= 0.0:
                    break
    return best


# ---- rerooting: the chosen move's subtree kept as the new tree ----------------------------

cdef int advance_trees(Tree* trees, int num_games, const Knobs* kn, actions) except -1:
    """Search.advance(actions): every action checked before any tree changes."""
    a = np.asarray(actions)
    if a.shape != (num_games,) or a.dtype.kind not in "iu":
        raise ValueError(f"actions must be an integer array of shape ({num_games},), "
                         f"got {_describe(a)}")
    a = a.astype(np.int64)
    cdef int64_t[::1] acts = a
    cdef int g, most = 0
    cdef Tree* t
    cdef Node* root
    cdef int* remap
    for g in range(num_games):
        if acts[g] == -1:
            continue
        root = &trees[g].nodes[0]
        if not 0 <= acts[g] < NUM_ACTIONS or check_action(&root.state, <int>acts[g]) != LEGAL:
            text = MOVE_TEXTS[acts[g]] if 0 <= acts[g] < NUM_ACTIONS else f"action id {acts[g]}"
            raise ValueError(f"game {g}: {text} is not legal there (nothing was played)")
    for g in range(num_games):      # room to copy the kept subtrees into
        t = &trees[g]
        if acts[g] != -1:
            _reserve_nodes(t, t.size, True)
            _reserve_edges(t, t.nedges, True)
            most = max(most, t.size)
    # a graph's node is copied once whatever the paths to it: its new index by its old
    remap = <int*>PyMem_Malloc(most * sizeof(int)) if kn.graph else NULL
    if kn.graph and remap == NULL:
        raise MemoryError()
    try:
        for g in range(num_games):
            if acts[g] != -1:
                reroot(&trees[g], <int>acts[g], remap, kn.alpha, kn.fraction)
    finally:
        PyMem_Free(remap)
    return 0


cdef inline void swap_spare(Tree* t) noexcept nogil:
    """The spare arrays become the tree's, and its arrays the spare ones."""
    cdef Node* nodes = t.nodes
    cdef Edge* edges = t.edges
    cdef int capacity = t.capacity, edge_capacity = t.edge_capacity
    t.nodes = t.spare
    t.spare = nodes
    t.capacity = t.spare_capacity
    t.spare_capacity = capacity
    t.edges = t.spare_edges
    t.spare_edges = edges
    t.edge_capacity = t.spare_edge_capacity
    t.spare_edge_capacity = edge_capacity


cdef void reroot(Tree* t, int action, int* remap, double alpha, double fraction) noexcept nogil:
    """Plays `action` at the root and keeps what its child reaches (the spare arrays hold
    room for it), with fresh root noise; a fresh tree if the move was never tried."""
    cdef Node* root = &t.nodes[0]
    cdef Node* node
    cdef Edge* e
    cdef State s
    cdef int c = -1, k, size, nedges, i
    if root.status == EXPANDED:
        for k in range(root.edges):
            if t.edges[root.first_edge + k].action == action:
                c = t.edges[root.first_edge + k].child
                break
    if c < 0:
        s = root.state
        apply_action(&s, action)
        node_init(&t.nodes[0], &s, -1, -1, s.current)
        t.size = 1
        t.nedges = 0
        if t.table.slots != NULL:
            table_rebuild(t)
        return
    # breadth-first copy of what c reaches into the spare arrays, then swap them in
    if t.graph:
        for i in range(t.size):
            remap[i] = -1
        remap[c] = 0
    t.spare[0] = t.nodes[c]
    t.spare[0].parent = -1
    t.spare[0].parent_edge = -1
    size = 1
    nedges = 0
    i = 0
    while i < size:
        node = &t.spare[i]
        if node.status == EXPANDED:
            memcpy(&t.spare_edges[nedges], &t.edges[node.first_edge], node.edges * sizeof(Edge))
            node.first_edge = nedges
            for k in range(node.edges):
                e = &t.spare_edges[nedges + k]
                if e.child < 0:
                    continue
                if t.graph:
                    if remap[e.child] < 0:      # first met: copied; else linked to the copy
                        remap[e.child] = size
                        t.spare[size] = t.nodes[e.child]
                        size += 1
                    e.child = remap[e.child]
                else:
                    t.spare[size] = t.nodes[e.child]
                    t.spare[size].parent = i
                    t.spare[size].parent_edge = nedges + k
                    e.child = size
                    size += 1
            nedges += node.edges
        i += 1
    swap_spare(t)
    t.size = size
    t.nedges = nedges
    if t.table.slots != NULL:
        table_rebuild(t)
    add_noise(t, alpha, fraction)


cdef class Search:
    # the docstring up to "--" is the signature Python gives the class (inspect.signature,
    # help(), the site's reference), as for a built-in type
    """Search(games, simulations=100, seed=0, settings=None, **keywords)
--

    PUCT search over a batch of games, asking a network for priors and values in batches.

    >>> import numpy as np, photocore
    >>> search = photocore.Search([photocore.Game(), photocore.Game()], simulations=50)
    >>> def uniform(obs, mask):      # priors from logits, values in the player-to-move order
    ...     return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)
    >>> visits = search.run(uniform)
    >>> visits.shape, visits.dtype.name, visits.sum(axis=1).tolist()
    ((2, 890), 'int32', [49, 49])
    >>> search.advance(search.choose(temperature=0))    # play the best move; keep its subtree

    `settings` is the search's photocore.play.settings.SearchSettings, passed whole (None:
    the defaults), and `keywords` change some of its fields (`c_puct=2.0`,
    `dirichlet_fraction=0.0`, ...): `.settings` gives the settings searched with.
    `games` are Games of the same players and options (their positions are copied; finished
    games get no simulations). Each run() gives every root `simulations` visits, counting
    visits kept by advance(); the first is the root's own evaluation. `in_flight` leaves per
    game go out in each batch, spread by virtual loss. With `rollout_weight` w > 0 a leaf's
    value is (1 - w) times the network's plus w times the returns of one uniformly random
    game played from it in C (AlphaGo's mixed evaluation). With `graph` a position reached
    by several orders of moves is one node, its value recomputed from its children (then
    `transpositions` has nothing left to do). `seed` is any integer, taken modulo 2**64
    (photocore.facts.check_seed). docs/searching.md has the details.
    """
    cdef Tree* trees
    cdef readonly int num_games
    """The number of games searched, one tree each."""
    cdef Knobs k
    cdef Batch batch    # handed out by ask(), waiting for tell()
    cdef int options
    cdef uint64_t seed
    cdef bint busy
    cdef readonly object settings
    """The SearchSettings searched with: the one given, with the keywords' fields changed."""
    cdef object obs_buffer, mask_buffer, game_buffer

    def __init__(self, games, simulations=100, seed=0, settings=None, **keywords):
        if self.trees != NULL:
            raise RuntimeError("Search.__init__ called twice")
        settings = SearchSettings.of(settings, keywords, "Search")
        games = list(games)
        if not games:
            raise ValueError("games must hold at least one Game")
        for i, g in enumerate(games):
            if not isinstance(g, Game):
                raise TypeError(f"games[{i}] must be a photocore.Game, got {type(g).__name__}")
        cdef Game first = games[0], game
        for i, game in enumerate(games):
            if game.st.players != first.st.players or game.st.options != first.st.options:
                raise ValueError(f"games[{i}] has other players or options than games[0]: a "
                                 "search's games share them")
        knobs_of(&self.k, settings, first.st.players)
        self.settings = settings
        self.seed = check_seed(seed)
        self.options = first.st.options
        self.simulations = simulations
        self.trees = <Tree*>PyMem_Malloc(len(games) * sizeof(Tree))
        if self.trees == NULL:
            raise MemoryError()
        memset(self.trees, 0, len(games) * sizeof(Tree))
        self.num_games = len(games)
        rows = self.num_games * self.k.in_flight
        batch_alloc(&self.batch, rows, self.k.graph)
        self.obs_buffer = np.zeros((rows, OBS_SIZE), np.float32)
        self.mask_buffer = np.zeros((rows, NUM_ACTIONS), np.bool_)
        self.game_buffer = np.zeros(rows, np.int32)
        for i, game in enumerate(games):
            self.trees[i].rng = game_seed(self.seed, <uint64_t>i)
            self.trees[i].graph = self.k.graph
            set_root(&self.trees[i], &game.st)

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.num_games):
                tree_free(&self.trees[i])
            PyMem_Free(self.trees)
        batch_free(&self.batch)

    @property
    def players(self):
        """The games' number of players, 2 to 4."""
        return self.k.players

    @property
    def in_flight(self):
        """Leaves per game a batch (SearchSettings.in_flight)."""
        return self.k.in_flight

    @property
    def max_nodes(self):
        """Nodes a tree holds at most (SearchSettings.max_nodes)."""
        return self.k.max_nodes

    @property
    def transpositions(self):
        """Whether a position evaluated by another path is valued from there
        (SearchSettings.transpositions)."""
        return self.k.transpositions

    @property
    def graph(self):
        """Whether the trees are over positions, not move orders (SearchSettings.graph)."""
        return self.k.graph

    @property
    def simulations(self):
        """Visits each root gets from run() (those kept by advance() count); settable."""
        return self.k.simulations

    @simulations.setter
    def simulations(self, value):
        if isinstance(value, bool):
            raise TypeError(f"simulations must be an int, not a bool ({value!r})")
        value = index(value)
        if not 1 <= value < self.k.max_nodes:
            raise ValueError(f"simulations must be from 1 to max_nodes - 1 = "
                             f"{self.k.max_nodes - 1} (a tree holds up to simulations + 1 "
                             f"nodes), got {value}")
        self.k.simulations = value

    # ---- the batched protocol --------------------------------------------------------

    def ask(self):
        """The next batch of leaves as (obs, mask), or None once every root has its visits.

        obs is float32 (k, OBSERVATION_SIZE) and mask bool (k, NUM_ACTIONS), each row seen
        by the player to move there, as VecGame gives them; k <= num_games * in_flight.
        Answer with tell(logits, values) before asking again. The arrays are the search's
        own buffers, overwritten by the next ask(): copy them to keep them.
        """
        self._enter()
        cdef int g, rows
        cdef float* obs = <float*><size_t>self.obs_buffer.ctypes.data
        cdef uint8_t* mask = <uint8_t*><size_t>self.mask_buffer.ctypes.data
        cdef int* games = <int*><size_t>self.game_buffer.ctypes.data
        try:
            if self.batch.rows:
                raise RuntimeError("ask() while a batch is waiting: tell() its logits and "
                                   "values first (or cancel() it)")
            for g in range(self.num_games):
                reserve_walks(&self.trees[g], g, &self.k)
            with nogil:
                rows = collect(self.trees, self.num_games, &self.k, &self.batch, obs, mask,
                               games)
        finally:
            self.busy = False
        if rows == 0:
            return None
        return self.obs_buffer[:rows], self.mask_buffer[:rows]

    @property
    def batch_games(self):
        """The game of each row of the batch waiting for tell() (int32; empty when none)."""
        return self.game_buffer[:self.batch.rows]

    def tell(self, logits, values):
        """Answers the last ask(): logits (k, NUM_ACTIONS) and values (k, players), float32
        (or float64), one row per observation.

        values[i, j] is the value for the player j seats after the player to move in row i
        (j = 0: the player to move), on the scale of Game.returns(). Logits of illegal moves
        are ignored; those of legal moves must be finite or -inf, not all -inf. Bad input
        raises ValueError and changes nothing: the batch still waits for a good tell().
        """
        self._enter()
        try:
            self._tell(logits, values)
        finally:
            self.busy = False

    cdef int _tell(self, logits, values) except -1:
        if not self.batch.rows:
            raise RuntimeError("tell() without a batch: call ask() first")
        cdef int r, bad, why = 0, rows = self.batch.rows
        cdef const float[:, ::1] lg = _answer(logits, "logits", rows, NUM_ACTIONS)
        cdef const float[:, ::1] vl = _answer(values, "values", rows, self.k.players)
        with nogil:
            bad = bad_answer(&self.batch, &lg[0, 0], &vl[0, 0], self.k.players, &why)
        if bad >= 0:
            raise ValueError(f"row {bad} (game {self.batch.row_game[bad]}): " + (
                "a legal move's logit is NaN or +inf", "every legal move's logit is -inf",
                "a value is not finite")[why - 1] + "; nothing was changed, the batch still "
                "waits for tell()")
        reserve_answers(self.trees, self.num_games, &self.batch)
        with nogil:
            for r in range(rows):
                expand(self.trees, &self.k, &self.batch, r, &lg[r, 0], &vl[r, 0])
        self.batch.rows = 0
        return 0

    def cancel(self):
        """Drops the batch waiting for tell(), if any: its leaves are asked again later."""
        self._enter()
        batch_cancel(self.trees, &self.batch, self.k.graph)
        self.busy = False

    def run(self, evaluate):
        """Searches until every root has its visits, calling evaluate(obs, mask) ->
        (logits, values) for each batch; returns visits(). If evaluate or tell() raises, the
        batch is cancelled and the error goes on (the search stays usable). Ctrl-C stops it
        between two batches (KeyboardInterrupt), in any thread once the main thread asks
        (photocore.play._agents.interrupt_searches)."""
        from photocore.play._agents import searches_interrupted
        while True:
            if searches_interrupted():
                raise KeyboardInterrupt
            batch = self.ask()
            if batch is None:
                return self.visits()
            try:
                logits, values = evaluate(*batch)
                self.tell(logits, values)
            except BaseException:
                self.cancel()
                raise

    # ---- results ----------------------------------------------------------------------

    def visits(self):
        """Visits of each root's moves: int32 (num_games, NUM_ACTIONS), by action id."""
        return roots_moves(self.trees, self.num_games, False)

    def priors(self):
        """The priors of each root's moves, noise included: float32 (num_games, NUM_ACTIONS),
        zero until the root is evaluated."""
        return roots_moves(self.trees, self.num_games, True)

    def root_values(self):
        """The mean value of each root by seat, float32 (num_games, players): what the
        search thinks each player will get (a finished game: its returns; 0 before any
        visit)."""
        return roots_values(self.trees, self.num_games, self.k.players)

    def choose(self, temperature=1.0):
        """A move per game drawn from its root visits: int64 (num_games,), -1 for a
        finished game.

        With temperature T > 0 the chance of a move is proportional to visits ** (1 / T);
        T = 0 takes the most visited move (ties drawn at random). Draws come from the
        search's seeded stream. ValueError if a game still to play has no visits yet.
        """
        cdef double t_inv = 0.0, temp = _parameter(temperature, "temperature", 0.0, 1e300)
        if temp > 0.0:
            t_inv = 1.0 / temp
        out = np.full(self.num_games, -1, np.int64)
        cdef int64_t[::1] view = out
        cdef int g, best
        cdef Tree* t
        for g in range(self.num_games):
            t = &self.trees[g]
            if t.nodes[0].status != TERMINAL and (t.nodes[0].status != EXPANDED
                                                  or t.nodes[0].visits < 2):
                raise ValueError(f"game {g} has no visits to choose from: run the search first")
        for g in range(self.num_games):
            t = &self.trees[g]
            if t.nodes[0].status == TERMINAL:
                continue
            best = chosen_edge(t, t_inv)
            if best < 0:       # cannot happen: a root's visits beyond its own are its moves'
                raise RuntimeError(f"game {g}: root visits without visited moves (a bug)")
            view[g] = t.edges[t.nodes[0].first_edge + best].action
        return out

    # ---- moving on ------------------------------------------------------------------------

    def advance(self, actions):
        """Plays actions[g] in game g (-1: leaves game g as it is) and keeps the subtree of
        that move as the new root, with fresh root noise. Every action must be legal in its
        game, else ValueError names the game and nothing changes."""
        self._enter()
        try:
            if self.batch.rows:
                raise RuntimeError("advance() while a batch waits for tell() (or cancel())")
            advance_trees(self.trees, self.num_games, &self.k, actions)
        finally:
            self.busy = False

    def set_game(self, i, Game game not None):
        """Replaces game i with a copy of `game`'s position and a fresh tree (e.g. a new game
        in a finished game's place); the same players and options."""
        self._enter()
        try:
            if self.batch.rows:
                raise RuntimeError("set_game() while a batch waits for tell() (or cancel())")
            i = self._game_index(i)
            if game.st.players != self.k.players or game.st.options != self.options:
                raise ValueError("the game has other players or options than this search's")
            set_root(&self.trees[<int>i], &game.st)
            self.trees[<int>i].saved = 0
        finally:
            self.busy = False

    def game(self, i):
        """A Game holding game i's root position (no history)."""
        i = self._game_index(i)
        cdef Game g = Game.__new__(Game)
        g.st = self.trees[<int>i].nodes[0].state
        g.origin = g.st
        return g

    @property
    def saved(self):
        """Network evaluations transpositions spared each game (int64 (num_games,)): leaves
        whose position the tree had evaluated by another path, valued from there, since
        the Search was made or the game set (0 with transpositions=False). With
        graph=True: walks that ended at a position already evaluated, backing up its Q."""
        out = np.zeros(self.num_games, np.int64)
        cdef int g
        for g in range(self.num_games):
            out[g] = self.trees[g].saved
        return out

    @property
    def nodes(self):
        """Nodes in each game's tree (int32 (num_games,)): with graph=True, the positions
        it holds; never more than max_nodes."""
        out = np.zeros(self.num_games, np.int32)
        cdef int g
        for g in range(self.num_games):
            out[g] = self.trees[g].size
        return out

    @property
    def memory(self):
        """Bytes each game's tree or graph uses (int64 (num_games,)): its nodes, their edges
        and its table; the arrays hold up to twice that while they grow, and advance()
        copies into spare arrays of the same sizes."""
        out = np.zeros(self.num_games, np.int64)
        cdef int g
        cdef Tree* t
        for g in range(self.num_games):
            t = &self.trees[g]
            out[g] = (<int64_t>t.size * sizeof(Node) + <int64_t>t.nedges * sizeof(Edge)
                      + <int64_t>table_memory(&t.table))
        return out

    cdef int _game_index(self, i) except -1:
        if isinstance(i, bool):     # an int to Python, never a game's index
            raise TypeError(f"a game index is an int, not a bool ({i!r})")
        i = index(i)
        if not 0 <= i < self.num_games:
            raise IndexError(f"game index {i} out of range for {self.num_games} games")
        return i

    cdef int _enter(self) except -1:
        # the loops run without the GIL: two threads must not walk the same trees at once
        if self.busy:
            raise RuntimeError("this Search is in use by another thread")
        self.busy = True
        return 0

    def __repr__(self):
        return (f"Search({self.num_games} games, players={self.k.players}, "
                f"simulations={self.k.simulations}, in_flight={self.k.in_flight})")
