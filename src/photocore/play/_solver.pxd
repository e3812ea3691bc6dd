# Exact endgames (docs/searching.md): what the agents cimport.

from photocore._kernel cimport State

cdef int proven_action(const State* s, long long node_limit) noexcept nogil
