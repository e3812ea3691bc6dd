# The one position table of the C searches (docs/searching.md, "One position table"):
# a node found by its position's key. mcts:N?graph=1 (_agents.pyx) and Search
# (_search.pyx) keep nodes and edges of their own, each node with its State; the table
# holds node indices and reads their positions where the caller says they lie.

from libc.stdint cimport uint64_t
from libc.stdlib cimport free, realloc
from libc.string cimport memset

from photocore._kernel cimport State, same_position

ctypedef struct Table:
    # open addressing on the position key, at most half full: node + 1, 0 for an empty slot
    int* slots
    int mask            # slots - 1 (a power of two); 0 while there are none


cdef inline int table_find(const Table* t, const State* s, const State* states,
                           size_t stride) noexcept nogil:
    """The node whose position is s (keys first, then the whole position: same_position),
    or -(the free slot it would take) - 1, for table_put. Node x's position is at
    `states` + x * `stride` bytes: &nodes[0].state and sizeof(nodes[0])."""
    cdef int slot = <int>(s.key & <uint64_t>t.mask), x
    cdef const State* at
    while t.slots[slot]:
        x = t.slots[slot] - 1
        at = <const State*>(<const char*>states + <size_t>x * stride)
        if at.key == s.key and same_position(at, s):
            return x
        slot = (slot + 1) & t.mask
    return -slot - 1


cdef inline void table_put(Table* t, int missing, int x) noexcept nogil:
    """Node x into the free slot table_find answered (`missing`, negative) for its position."""
    t.slots[-missing - 1] = x + 1


cdef inline void table_insert(Table* t, uint64_t key, int x) noexcept nogil:
    """Node x of a position with this key, in the first free slot from it (after any
    node of the same position the table holds: table_find finds that one first)."""
    cdef int slot = <int>(key & <uint64_t>t.mask)
    while t.slots[slot]:
        slot = (slot + 1) & t.mask
    t.slots[slot] = x + 1


cdef inline void table_clear(Table* t) noexcept nogil:
    memset(t.slots, 0, (t.mask + 1) * sizeof(int))


cdef inline int table_reserve(Table* t, int nodes) noexcept nogil:
    """Room for `nodes` nodes (64 slots at least, at least twice the nodes): 0 when the
    table has it, 1 when its slots were made anew, empty (the caller inserts its nodes
    again), -1 out of memory (the table as it was)."""
    cdef int slots = 64
    cdef int* grown
    if t.slots != NULL and 2 * nodes <= t.mask + 1:
        return 0
    while slots < 2 * nodes:
        slots *= 2
    grown = <int*>realloc(t.slots, slots * sizeof(int))
    if grown == NULL:
        return -1
    t.slots = grown
    t.mask = slots - 1
    table_clear(t)
    return 1


cdef inline size_t table_memory(const Table* t) noexcept nogil:
    """The bytes its slots take."""
    return (t.mask + 1) * sizeof(int) if t.slots != NULL else 0


cdef inline void table_free(Table* t) noexcept nogil:
    free(t.slots)
    t.slots = NULL
    t.mask = 0
