# cython: language_level=3, boundscheck=False, wraparound=False
"""Times the kernel's C functions themselves, through cimport, for compare_build.py.

compare_build.py compiles this file against each build's _kernel.pxd, so the same loop
calls each build's legal_actions through its own C API, with no Python in between.
"""

from libc.stdint cimport uint16_t
from libc.stdlib cimport free, malloc

from photocore._game cimport Game
from photocore._kernel cimport MAX_LEGAL, State, legal_actions

import time


def legal_actions_ns(games, int repeat):
    """ns per legal_actions call over the positions of `games`, each called `repeat` times;
    and the moves listed in all (to check both builds list the same)."""
    cdef int n = len(games), i, r
    cdef long long listed = 0
    cdef uint16_t out[MAX_LEGAL]
    cdef State* states = <State*>malloc(n * sizeof(State))
    for i in range(n):
        states[i] = (<Game>games[i]).st
    start = time.thread_time()
    with nogil:
        for r in range(repeat):
            for i in range(n):
                listed += legal_actions(&states[i], out)
    seconds = time.thread_time() - start
    free(states)
    return seconds / (n * repeat) * 1e9, listed // repeat
