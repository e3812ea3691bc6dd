# The Game class as Cython sees it: `game.st` is the kernel State (see _kernel.pxd).

from libc.stdint cimport uint16_t

from photocore._kernel cimport State

cdef class Game:
    cdef State st
    cdef State root           # the start (or loaded) position, for pickling
    cdef State* saved         # the state before each move of the history
    cdef uint16_t* played
    cdef Py_ssize_t n, cap

    cdef int _push(self, int a) except -1
    cdef _broken(self, int a)
    cdef int _grow(self, Py_ssize_t cap) except -1
    cdef int _viewer(self, player) except -1
    cdef int _player(self, p) except -1
    cdef _load(self, dict f)
