# Policies over legal moves, in C: random, greedy (one-ply heuristic) and UCT search.

from libc.stdint cimport uint16_t, uint64_t

from photocore._kernel cimport State

cdef enum:
    AGENT_RANDOM = 0
    AGENT_GREEDY = 1
    AGENT_MCTS = 2

ctypedef struct AgentSpec:
    int kind
    int simulations          # MCTS: playouts per decision
    double exploration       # MCTS: the UCT constant
    bint graph               # MCTS: over positions (1) or over orders of moves (0)
    bint prove               # MCTS: in the last round, a move the solver proves keeps a win

cdef int greedy_action(const State* s, uint64_t* rng) noexcept nogil
cdef int mcts_action(const State* s, uint64_t* rng, int simulations, double exploration,
                     bint graph, double deadline) noexcept nogil
cdef AgentSpec agent_spec(params) except *     # an AgentParams's C agent, checked
cdef int agent_action(const AgentSpec* agent, const State* s, uint64_t* rng) noexcept nogil
cdef int play_match(State* s, const AgentSpec* seats, uint64_t* rng, uint16_t* moves) noexcept nogil
