# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The position keys' collision census (tests/engine/test_keys.py, docs/engine.md "Position keys"):
test support, compiled against the package's _kernel.pxd when a test asks for it
(tests/support.py, compiled), so the kernel that users load does not carry it."""

from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcmp, memcpy

from photocore._kernel cimport (PHASE_OVER, State, apply_action, canonical_state, game_seed,
                                random_action, state_init, state_key)

from operator import index

from photocore._kernel import OPTION_TABLE, check_count, check_players, check_seed

cdef struct Census:             # the keys of every position of some random games
    uint64_t* keys
    size_t count, capacity
    long long mismatches        # positions whose kept key is not state_key()

cdef int census_add(Census* c, uint64_t key) noexcept nogil:
    cdef uint64_t* grown
    if c.count == c.capacity:
        grown = <uint64_t*>realloc(c.keys, (2 * c.capacity + 4096) * sizeof(uint64_t))
        if grown == NULL:
            return -1
        c.keys = grown
        c.capacity = 2 * c.capacity + 4096
    c.keys[c.count] = key
    c.count += 1
    return 0

cdef int census_games(Census* c, int players, int options, long long games,
                      uint64_t seed) noexcept nogil:
    """Plays `games` random games (random_action, apply_action), adding the key of every
    position, from the start to the end, and counting kept keys that state_key() denies."""
    cdef State s
    cdef uint64_t rng
    cdef long long g
    for g in range(games):
        rng = game_seed(seed, <uint64_t>g)
        state_init(&s, players, options)
        while True:
            c.mismatches += s.key != state_key(&s)
            if census_add(c, s.key) < 0:
                return -1
            if s.phase == PHASE_OVER:
                break
            apply_action(&s, random_action(&s, &rng))
    return 0

cdef long long find_key(const uint64_t* sorted_keys, long long n, uint64_t key) noexcept nogil:
    """The index of key in sorted_keys (ascending), -1 if absent."""
    cdef long long lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if sorted_keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < n and sorted_keys[lo] == key else -1

def key_census(runs, check=True):
    """The collision census of the position keys over random games: no two different
    positions may share a key.

    `runs` lists (players, option flags, games, seed): that many games of uniformly random
    legal moves (random_action and apply_action, game k seeded as random_playouts seeds it).
    Every position of every game, from the start to the end, is counted. The keys of all of
    them are sorted; the positions whose key occurs more than once are found again by
    replaying the same games and compared with the first position of their key, as whole
    canonical states (canonical_state: every field, the tokens in a fixed order). With
    `check`, every kept key is also compared with state_key() (from scratch).

    Returns a dict: positions, distinct (different positions; the keys if no collision),
    repeated (keys met more than once: the same position reached again), collisions
    (positions whose key an earlier different position has), examples (up to 10 such
    collisions as (run, game, ply) of the two positions), mismatches (kept keys != state_key)
    and seconds.
    """
    import time

    import numpy as np
    started = time.perf_counter()
    every = 0
    for row in OPTION_TABLE:
        every |= row[2]
    plan = []
    for players, options, games, seed in runs:
        if not 0 <= index(options) <= every or index(options) & ~every:
            raise ValueError(f"options must be option flags (Options.flags), got {options!r}")
        plan.append((check_players(players), index(options), check_count(games, "games"),
                     check_seed(seed)))
    cdef Census c
    cdef int nplayers, flags, failed = 0
    cdef long long ngames
    cdef uint64_t base
    c.keys = NULL
    c.count = c.capacity = 0
    c.mismatches = 0
    try:
        for players, options, games, seed in plan:
            nplayers, flags, ngames, base = players, options, games, seed
            with nogil:
                failed = census_games(&c, nplayers, flags, ngames, base)
            if failed:
                raise MemoryError("key_census: no memory for the keys")
        keys = np.empty(c.count, np.uint64)
        if c.count:
            memcpy(<void*><size_t>keys.ctypes.data, c.keys, c.count * sizeof(uint64_t))
    finally:
        free(c.keys)
    positions = len(keys)
    keys.sort()
    if positions:
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:positions - 1])))
        counts = np.diff(np.append(starts, positions))
        repeated = np.ascontiguousarray(keys[starts[counts > 1]])
    else:
        starts = repeated = np.empty(0, np.uint64)
    del keys
    collisions, examples = _census_confirm(plan, repeated)
    return {"positions": positions, "distinct": len(starts) + collisions,
            "repeated": len(repeated), "collisions": collisions, "examples": examples,
            "mismatches": c.mismatches if check else 0,
            "seconds": time.perf_counter() - started}

def _census_confirm(plan, repeated):
    """Replays the census' games: each position whose key is in `repeated` (sorted) is
    compared with the first position met with that key. Returns (collisions, examples)."""
    cdef long long n = len(repeated), i, g, ply, games
    cdef const uint64_t[::1] keys = repeated if n else None
    cdef State* first = <State*>calloc(n if n else 1, sizeof(State))
    cdef uint8_t* seen = <uint8_t*>calloc(n if n else 1, 1)
    cdef long long* where = <long long*>calloc(3 * (n if n else 1), sizeof(long long))
    cdef State s, canon
    cdef uint64_t rng, seed
    cdef int players, options, run
    cdef long long collisions = 0
    examples = []
    if first == NULL or seen == NULL or where == NULL:
        free(first)
        free(seen)
        free(where)
        raise MemoryError("key_census: no memory for the repeated positions")
    try:
        for run, (players, options, games, seed) in enumerate(plan):
            for g in range(games):
                rng = game_seed(seed, <uint64_t>g)
                state_init(&s, players, options)
                ply = 0
                while True:
                    i = find_key(&keys[0], n, s.key) if n else -1
                    if i >= 0:
                        canonical_state(&s, &canon)
                        if not seen[i]:
                            seen[i] = 1
                            first[i] = canon
                            where[3 * i] = run
                            where[3 * i + 1] = g
                            where[3 * i + 2] = ply
                        elif memcmp(&first[i], &canon, sizeof(State)):
                            collisions += 1
                            if len(examples) < 10:
                                examples.append(((where[3 * i], where[3 * i + 1],
                                                  where[3 * i + 2]), (run, g, ply)))
                    if s.phase == PHASE_OVER:
                        break
                    apply_action(&s, random_action(&s, &rng))
                    ply += 1
    finally:
        free(first)
        free(seen)
        free(where)
    return collisions, examples
