# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exact endgames: the result of a two-player position under best play, by alpha-beta over
positions in C without the GIL (docs/search.md, "Exact endgames").

A position's value for the player to move is `result * RESULT + margin`: the result first
(+1 a win, 0 a shared win, -1 a loss: Game.returns() for two players), then the final score
margin (their score minus the opponent's), which both players also play for once the
result is settled. Values are exact: a search that runs out of its budget says so and
gives none.
"""

from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from photocore._kernel cimport *

cdef extern from *:
    """
    #include <signal.h>
    /* Ctrl-C while the search runs without the GIL (Python's own handler would only run
       once it returns): a flag the search reads as it reads the clock. */
    static volatile sig_atomic_t pc_interrupted = 0;
    static void pc_on_interrupt(int sig) { (void)sig; pc_interrupted = 1; }
    typedef void (*pc_handler)(int);
    static pc_handler pc_catch_interrupts(void) {
        pc_interrupted = 0;
        return signal(SIGINT, pc_on_interrupt);
    }
    static void pc_release_interrupts(pc_handler previous) { signal(SIGINT, previous); }
    """
    ctypedef void (*pc_handler)(int)
    int pc_interrupted
    pc_handler pc_catch_interrupts() nogil
    void pc_release_interrupts(pc_handler previous) nogil

cdef enum:
    RESULT = 4096            # a result's weight: above any score margin (|margin| < 2048)
    INFINITE = 1 << 20
    BOUND_EXACT = 1
    BOUND_LOWER = 2
    BOUND_UPPER = 3
    NO_MOVE = 0xFFFF
    MAX_DEPTH = MAX_GAME_MOVES
    CHECK_EVERY = 1023       # nodes between looks at the clock

ctypedef struct Entry:
    uint64_t key             # the position's key, mixed with the move just played (below)
    int32_t value
    uint16_t best
    uint8_t bound

ctypedef struct Solver:
    Entry* table
    uint64_t mask            # entries - 1 (a power of two)
    long long nodes
    long long node_limit
    long long probes
    long long hits
    double deadline          # CLOCK_MONOTONIC seconds
    bint aborted


cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef inline uint64_t context_key(const State* s, int previous) noexcept nogil:
    """The table's key of s reached by `previous` within the turn: the moves searched
    after `previous` depend on it (the orders of a turn that commute are searched once,
    docs/search.md), so the value found does too; -1 (a new turn) leaves the key alone."""
    cdef uint64_t z
    if previous < 0:
        return s.key
    z = <uint64_t>(previous + 1) * <uint64_t>0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return s.key ^ z ^ (z >> 31)


cdef int final_value(const State* s, int player) noexcept nogil:
    """The value of a finished game for `player` (two players)."""
    cdef int mask = winners_mask(s), other = 1 - player, result = 0
    if mask == 1 << player:
        result = 1
    elif mask == 1 << other:
        result = -1
    return result * RESULT + score(s, player) - score(s, other)


cdef bint last_round(const State* s) noexcept nogil:
    """Whether s is in the game's last round, where each player has one turn at most."""
    return s.round == s.last_round and s.phase == PHASE_PLAY


cdef int last_round_bound(const State* s) noexcept nogil:
    """No value of s, in the last round, beats this for its player to move (two players).
    Their score is final once this turn ends and grows only by collects: the richest soil
    first (a collect takes the best token its soil reaches, whatever the order), each for
    4 of the light left, which counts a point a third. The opponent's is at least what
    ending their turn at once gives them (final if they have played), so the mover's
    value is at most that margin, a tie on points counted as won."""
    cdef State t = s[0]
    cdef int p = s.current, best = score(s, p), bit, cell, richest, most, gained
    cdef int opponent = score(s, 1 - p)
    cdef uint64_t trees
    while t.light[p] >= COLLECT_COST:
        trees = t.owner_bb[p] & t.size_bb[LARGE] & ~t.active
        if not trees:
            break
        richest = -1
        most = 0
        while trees:
            bit = pc_lowest(trees)
            trees &= trees - 1
            cell = bit_cell(bit)
            if richness(cell) > most:
                most = richness(cell)
                richest = cell
        apply_action(&t, COLLECT_BASE + richest)
        gained = score(&t, p)
        if gained > best:
            best = gained
    return (RESULT if best >= opponent else -RESULT) + best - opponent


cdef int child_value(Solver* sv, const State* s, int action, int alpha, int beta,
                     int depth, bint ordered) noexcept nogil:
    """The value for the player to move in s of playing `action` there; `ordered`: with
    the moves after it that commute with it and come before it left out (the value of
    the turn's orders from s, not of the position after `action`)."""
    cdef State child = s[0]
    apply_action(&child, action)
    if child.phase == PHASE_OVER:
        return final_value(&child, s.current)
    if child.current == s.current:
        return search(sv, &child, alpha, beta, action if ordered else -1, depth + 1)
    return -search(sv, &child, -beta, -alpha, -1, depth + 1)


cdef int search(Solver* sv, const State* s, int alpha, int beta, int previous,
                int depth) noexcept nogil:
    """Alpha-beta (fail-soft) value of s for its player to move, `previous` the move of
    theirs that reached it in this turn (-1: the turn's first). 0 once aborted."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef int n, i, a, v, best = -INFINITE, best_move = NO_MOVE, alpha0 = alpha, first = -1
    cdef int cap = INFINITE         # a bound of the value (the last round's)
    cdef uint64_t key = context_key(s, previous)
    cdef Entry* entry = &sv.table[key & sv.mask]
    sv.nodes += 1
    if sv.nodes > sv.node_limit or ((sv.nodes & CHECK_EVERY) == 0
                                    and (now() > sv.deadline or pc_interrupted)):
        sv.aborted = True
    if sv.aborted or depth >= MAX_DEPTH:
        sv.aborted = True
        return 0
    sv.probes += 1
    if entry.bound and entry.key == key:
        sv.hits += 1
        if entry.bound == BOUND_EXACT:
            return entry.value
        if entry.bound == BOUND_LOWER and entry.value > alpha:
            alpha = entry.value
        elif entry.bound == BOUND_UPPER and entry.value < beta:
            beta = entry.value
        if alpha >= beta:
            return entry.value
        first = entry.best
    if last_round(s):
        # nothing beats the bound: below alpha, no need to look; reached, no need to go on
        cap = last_round_bound(s)
        if cap <= alpha:
            return cap
        if cap < beta:
            beta = cap
    n = legal_actions(s, actions)
    if first != NO_MOVE and first >= 0:
        v = child_value(sv, s, first, alpha, beta, depth, True)
        if sv.aborted:
            return 0
        best, best_move = v, first
        if v > alpha:
            alpha = v
    # the rest from the highest id down: end, collects, grows, plants, buys (the moves
    # that settle the most first)
    i = n - 1
    while i >= 0 and alpha < beta:
        a = actions[i]
        i -= 1
        if a == first or (previous >= 0 and a < previous
                          and actions_commute(previous, a, s.options)):
            continue
        v = child_value(sv, s, a, alpha, beta, depth, True)
        if sv.aborted:
            return 0
        if v > best:
            best, best_move = v, a
            if v > alpha:
                alpha = v
    entry.key = key
    entry.value = best
    entry.best = <uint16_t>best_move
    entry.bound = (BOUND_EXACT if best >= cap else BOUND_UPPER if best <= alpha0 else
                   BOUND_LOWER if best >= beta else BOUND_EXACT)
    return best


# ---- Python -----------------------------------------------------------------------------

from photocore._game cimport Game

from photocore._game import Move

from math import isfinite as _isfinite
from numbers import Real as _Real
from operator import index as _index
import threading as _threading
from typing import NamedTuple as _NamedTuple

DEFAULT_SECONDS = 10.0
DEFAULT_NODES = 10 ** 12
DEFAULT_MEMORY = 64 << 20          # bytes of the transposition table


class Solution(_NamedTuple):
    """What solve() found. `solved` False: the budget ran out first, and only `nodes` and
    `seconds` say how far it got. Otherwise, for the player to move, `result` (+1 win, 0
    shared win, -1 loss) and `margin` (final score minus the opponent's) under best play,
    `returns` by seat on Game.returns()'s scale, `moves` the (result, margin) of every
    legal move, `best` the moves that keep the best result (those with the best margin
    first), and `principal` a line of best play to the end (as far as the table kept it)."""

    solved: bool
    player: int
    result: int | None
    margin: int | None
    returns: tuple | None
    moves: dict
    best: list
    principal: list
    nodes: int
    seconds: float
    table_hit_rate: float


def _budget(value, name, low, integer):
    if isinstance(value, bool) or not isinstance(value, _Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if integer:
        value = _index(value)
    if not (value >= low and _isfinite(value)):
        raise ValueError(f"{name} must be a finite number >= {low}, got {value!r}")
    return value


cdef tuple _split(int value):
    """(result, margin) of a value."""
    cdef int result = (abs(value) + RESULT // 2) // RESULT * (1 if value >= 0 else -1)
    return result, value - result * RESULT


def solve(Game game not None, seconds=DEFAULT_SECONDS, nodes=DEFAULT_NODES,
          memory=DEFAULT_MEMORY):
    """The exact result of `game`'s position under best play for both players (two
    players), within the budgets: `seconds` of wall-clock time, `nodes` searched and
    `memory` bytes of transposition table. A Solution; `solved` False when a budget ran
    out first (never a guess).

    >>> from photocore import Game
    >>> game = Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
    ...                           "0/2200/4432/- 0579")
    >>> solution = solve(game)
    >>> solution.result, solution.margin, [str(m) for m in solution.best]
    (1, 1, ['end'])
    """
    if game.st.phase == PHASE_OVER:
        raise ValueError("the game is over: there is nothing to solve")
    if game.st.players != 2:
        raise ValueError(f"solve() solves two-player games; this one has {game.st.players} "
                         "players")
    cdef double limit = _budget(seconds, "seconds", 1e-9, False)
    cdef long long node_limit = _budget(nodes, "nodes", 1, True)
    memory = _budget(memory, "memory", sizeof(Entry), True)
    cdef uint64_t entries = 1
    while entries * 2 * sizeof(Entry) <= memory:
        entries *= 2
    cdef Solver sv
    sv.table = <Entry*>calloc(entries, sizeof(Entry))
    if sv.table == NULL:
        raise MemoryError(f"no memory for a table of {entries * sizeof(Entry):,} bytes")
    sv.mask = entries - 1
    sv.nodes = sv.probes = sv.hits = 0
    sv.node_limit = node_limit
    sv.aborted = False
    cdef State root = game.st
    cdef uint16_t actions[MAX_LEGAL]
    cdef int n = legal_actions(&root, actions), i, v, value = 0
    cdef int values[MAX_LEGAL]
    cdef double start = now()
    cdef pc_handler previous = NULL
    cdef bint catching = _threading.current_thread() is _threading.main_thread()
    sv.deadline = start + limit
    if catching:
        previous = pc_catch_interrupts()
    try:
        with nogil:
            value = search(&sv, &root, -INFINITE, INFINITE, -1, 0)
            # every root move exactly, for `moves` and `best` (the table makes most cheap)
            for i in range(n):
                if sv.aborted:
                    break
                values[i] = child_value(&sv, &root, actions[i], -INFINITE, INFINITE, 0, False)
        if catching:
            catching = False
            pc_release_interrupts(previous)
            if pc_interrupted:
                raise KeyboardInterrupt
        seconds_taken = now() - start
        rate = <double>sv.hits / sv.probes if sv.probes else 0.0
        player = root.current
        if sv.aborted:
            return Solution(False, player, None, None, None, {}, [], [], sv.nodes,
                            seconds_taken, rate)
        result, margin = _split(value)
        moves = {Move(actions[i]): _split(values[i]) for i in range(n)}
        best = sorted((m for m, (r, _) in moves.items() if r == result),
                      key=lambda m: (-moves[m][1], int(m)))
        returns = [0.0, 0.0]
        returns[player] = float(result)
        returns[1 - player] = float(-result)
        return Solution(True, player, result, margin, tuple(returns), moves, best,
                        _principal(&sv, &root), sv.nodes, seconds_taken, rate)
    finally:
        if catching:
            pc_release_interrupts(previous)
        free(sv.table)


cdef list _principal(Solver* sv, const State* root):
    """Best play from the root as the table holds it: each position's best move while
    its entry is exact."""
    cdef State s = root[0]
    cdef int previous = -1, mover
    cdef uint64_t key
    cdef Entry* entry
    line = []
    while s.phase != PHASE_OVER and len(line) < MAX_GAME_MOVES:
        key = context_key(&s, previous)
        entry = &sv.table[key & sv.mask]
        if not (entry.bound == BOUND_EXACT and entry.key == key and entry.best != NO_MOVE
                and check_action(&s, entry.best) == LEGAL):
            break
        line.append(Move(entry.best))
        mover = s.current
        apply_action(&s, entry.best)
        previous = entry.best if s.current == mover else -1
    return line
