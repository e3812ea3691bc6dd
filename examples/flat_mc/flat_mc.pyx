# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Flat Monte Carlo over photocore's kernels: try every legal move, finish the game at
random many times from each, keep the move that wins most often. All of it runs in C
without the GIL, on copies of the game's state struct."""

from libc.stdint cimport uint16_t, uint64_t

from photocore._game cimport Game
from photocore._kernel cimport (MAX_LEGAL, State, apply_action, legal_actions, pc_popcount,
                                play_random_game, rng_next, winners_mask)

import photocore


def choose(Game game, int playouts=64, unsigned long long seed=0):
    """The legal move of `game` with the best win share over `playouts` random games after it.

    A tie counts 1 / (number of winners). Raises ValueError once the game is over.
    """
    if playouts < 1:
        raise ValueError(f"playouts must be >= 1, got {playouts}")
    cdef State root = game.st
    cdef uint16_t actions[MAX_LEGAL]
    cdef int n = legal_actions(&root, actions)
    if n == 0:
        raise ValueError("the game is over")
    cdef int best = 0
    if n > 1:
        with nogil:
            best = best_index(&root, actions, n, playouts, seed)
    return photocore.Move(actions[best])


cdef int best_index(const State* root, const uint16_t* actions, int n, int playouts,
                    uint64_t seed) noexcept nogil:
    cdef State s
    cdef int i, k, mask, me = root.current, best = 0
    cdef double share, best_share = -1.0
    cdef uint64_t rng = seed
    rng_next(&rng)
    for i in range(n):
        share = 0.0
        for k in range(playouts):
            s = root[0]                   # a struct copy is the whole "copy the game"
            apply_action(&s, actions[i])
            play_random_game(&s, &rng)
            mask = winners_mask(&s)
            if mask >> me & 1:
                share += 1.0 / pc_popcount(mask)
        if share > best_share:
            best_share = share
            best = i
    return best
