# The Game class's C layout, so that other Cython code can reach the state of a Python Game:
#
#     from photocore._game cimport Game
#     cdef State s = (<Game>game).st       # a struct copy: search on it freely
#
# Read `st`; change a game only through its Python methods, which keep the history.

from libc.stdint cimport uint16_t

from photocore._kernel cimport State

cdef class Game:
    cdef State st             # the current position
    cdef State origin         # the position the history starts from (Game.root())
    cdef State* saved         # the state before each move of the history
    cdef uint16_t* played
    cdef Py_ssize_t n, cap

    cdef int _push(self, int a) except -1
    cdef _broken(self, int a)
    cdef int _grow(self, Py_ssize_t cap) except -1
