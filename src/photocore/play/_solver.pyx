# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Exact endgames: a position's value under best play, by search over positions in C
without the GIL (docs/searching.md, "Exact endgames").

Two players: alpha-beta. A position's value for the player to move is
`result * RESULT + margin`: the result first (+1 a win, 0 a shared win, -1 a loss:
Game.returns() for two players), then the final score margin (their score minus the
opponent's), which both players also play for once the result is settled.

Three and four players: max^n. Every player has a value of the same form, their share of
the win first (SHARE / winners, 0 for a loss), then their score minus the best of the
others'; each maximises their own, and ties go against the others (`prefers`).

Values are exact: a search that runs out of its budget says so and gives none.
"""

from libc.stdint cimport int32_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from photocore._interrupt cimport pc_note_main_thread, pc_raise_interrupt, pc_signalled
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
    SIGNAL_EVERY = 16383     # nodes between proven_move's looks for a Ctrl-C (pc_signalled)
    SHARE = 12               # a win's share, 12 / winners: whole for 1 to 4 winners
    PROVEN_ENTRIES = 1 << 16     # an agent's table: 1 MiB (2 MiB for 3-4 players)

ctypedef struct Entry:
    uint64_t key             # the position's key, mixed with the move just played (below)
    int32_t value
    uint16_t best
    uint8_t bound

ctypedef struct Values:          # max^n (3-4 players): a value for every seat
    int32_t of[MAX_PLAYERS]

ctypedef struct ValuesEntry:
    uint64_t key             # as Entry's
    Values values
    uint16_t best
    bint filled              # max^n stores exact values only

ctypedef struct Solver:
    Entry* table             # two players
    ValuesEntry* values_table    # three and four
    uint64_t mask            # entries - 1 (a power of two)
    long long nodes
    long long node_limit
    long long probes
    long long hits
    double deadline          # CLOCK_MONOTONIC seconds
    bint interruptible       # Ctrl-C stops it (solve(); not an agent's, which must not
                             # hang on a flag an earlier solve left)
    bint signals             # Python's signal handlers run now and then (proven_move)
    bint signalled           # ... and one raised: stopped at Ctrl-C
    bint aborted


cdef double now() noexcept nogil:
    cdef timespec t
    clock_gettime(CLOCK_MONOTONIC, &t)
    return t.tv_sec + t.tv_nsec * 1e-9


cdef inline uint64_t context_key(const State* s, int previous) noexcept nogil:
    """The table's key of s reached by `previous` within the turn: the moves searched
    after `previous` depend on it (the orders of a turn that commute are searched once,
    docs/searching.md), so the value found does too; -1 (a new turn) leaves the key alone."""
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


cdef int best_final_score(const State* s) noexcept nogil:
    """The most the player to move in s, in the last round, can end the game with: their
    score is final once this turn ends and grows only by collects, the richest soil
    first (a collect takes the best token its soil reaches, whatever the order), each for
    4 of the light left, which counts a point a third."""
    cdef State t = s[0]
    cdef int p = s.current, best = score(s, p), bit, cell, richest, most, gained
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
    return best


cdef int last_round_bound(const State* s) noexcept nogil:
    """No value of s, in the last round, beats this for its player to move (two players):
    the opponent can always end their turn at once (final if they have played), so the
    mover's value is at most their best final score's margin over the opponent's score
    now, a tie on points counted as won."""
    cdef int best = best_final_score(s), opponent = score(s, 1 - s.current)
    return (RESULT if best >= opponent else -RESULT) + best - opponent


cdef bint out_of_budget(Solver* sv, int depth) noexcept nogil:
    """Counts a node; whether the search must stop (a budget spent, Ctrl-C, too deep)."""
    sv.nodes += 1
    if sv.nodes > sv.node_limit or ((sv.nodes & CHECK_EVERY) == 0 and (
            now() > sv.deadline or (sv.interruptible and pc_interrupted))):
        sv.aborted = True
    if sv.signals and (sv.nodes & SIGNAL_EVERY) == 0 and pc_signalled():
        sv.aborted = sv.signalled = True
    if depth >= MAX_DEPTH:
        sv.aborted = True
    return sv.aborted


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
    if out_of_budget(sv, depth):
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


# ---- three and four players: max^n --------------------------------------------------

cdef void final_values(const State* s, Values* out) noexcept nogil:
    """Every seat's value of a finished game: its share of the win, then its score minus
    the best of the others'."""
    cdef int p, q, n = s.players, mask = winners_mask(s), others
    cdef int share = SHARE // pc_popcount(mask) if mask else 0
    cdef int scores[MAX_PLAYERS]
    for p in range(n):
        scores[p] = score(s, p)
    for p in range(n):
        others = -INFINITE
        for q in range(n):
            if q != p and scores[q] > others:
                others = scores[q]
        out.of[p] = (share if mask >> p & 1 else 0) * RESULT + scores[p] - others


cdef bint prefers(const Values* a, const Values* b, int mover, int n) noexcept nogil:
    """Whether `mover` takes a over b: their own value first; between moves equal to them,
    the one that leaves the least to the next player in turn, then to the one after. A
    total order, so a position's value does not hang on the order its moves are searched."""
    cdef int k, p
    if a.of[mover] != b.of[mover]:
        return a.of[mover] > b.of[mover]
    for k in range(1, n):
        p = (mover + k) % n
        if a.of[p] != b.of[p]:
            return a.of[p] < b.of[p]
    return False


cdef void child_values(Solver* sv, const State* s, int action, int depth, bint ordered,
                       Values* out) noexcept nogil:
    """Every seat's value after `action` in s; `ordered` as child_value's."""
    cdef State child = s[0]
    apply_action(&child, action)
    if child.phase == PHASE_OVER:
        final_values(&child, out)
    else:
        search_values(sv, &child, action if ordered and child.current == s.current else -1,
                      depth + 1, out)


cdef int final_turn_bound(const State* s) noexcept nogil:
    """No value of s, in the game's final turn, beats this for its player to move: their
    best final score, against the others' scores, final already (a tie counted as won)."""
    cdef int best = best_final_score(s), others = -INFINITE, p
    for p in range(s.players):
        if p != s.current and score(s, p) > others:
            others = score(s, p)
    return (SHARE if best >= others else 0) * RESULT + best - others


cdef void search_values(Solver* sv, const State* s, int previous, int depth,
                        Values* out) noexcept nogil:
    """The max^n values of s (3-4 players) into out, `previous` as search()'s. No bound
    prunes max^n's moves in general (ties between them are decided by the others'
    values), but in the game's final turn the others' values follow from the mover's, so
    a move reaching the most the mover can get ends the search."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef Values v
    cdef int n, i, a, best_move = NO_MOVE, cap = INFINITE
    cdef uint64_t key = context_key(s, previous)
    cdef ValuesEntry* entry = &sv.values_table[key & sv.mask]
    if out_of_budget(sv, depth):
        return
    sv.probes += 1
    if entry.filled and entry.key == key:
        sv.hits += 1
        out[0] = entry.values
        return
    if last_round(s) and (s.current + 1) % s.players == s.first:
        cap = final_turn_bound(s)
    n = legal_actions(s, actions)
    i = n - 1
    while i >= 0 and not (best_move != NO_MOVE and out.of[s.current] >= cap):
        a = actions[i]
        i -= 1
        if previous >= 0 and a < previous and actions_commute(previous, a, s.options):
            continue
        child_values(sv, s, a, depth, True, &v)
        if sv.aborted:
            return
        if best_move == NO_MOVE or prefers(&v, out, s.current, s.players):
            out[0] = v
            best_move = a
    entry.key = key
    entry.values = out[0]
    entry.best = <uint16_t>best_move
    entry.filled = True


# ---- for the agents: a move proven best ---------------------------------------------

cdef int proven_action(const State* s, long long node_limit) noexcept nogil:
    return proven_search(s, node_limit, False)


cdef int proven_search(const State* s, long long node_limit, bint signals) noexcept nogil:
    """proven_action(s, node_limit); with `signals`, -2 at Ctrl-C (the exception set). A move of s proven to keep a win or a shared win (two players: the best result,
    then margin; more: max^n's choice, where the mover shares the win), by a search of at
    most `node_limit` positions (no clock: the same answer on any machine); -1 when the
    search did not finish or the position is lost: there every move loses against best
    play, and a search that counts on the opponent's mistakes does better than the
    margin (measured: docs/searching.md)."""
    cdef Solver sv
    cdef Values values
    cdef int best = -1, value
    sv.mask = PROVEN_ENTRIES - 1
    sv.table = NULL
    sv.values_table = NULL
    if s.players == 2:
        sv.table = <Entry*>calloc(PROVEN_ENTRIES, sizeof(Entry))
    else:
        sv.values_table = <ValuesEntry*>calloc(PROVEN_ENTRIES, sizeof(ValuesEntry))
    if sv.table == NULL and sv.values_table == NULL:
        return -1
    sv.nodes = sv.probes = sv.hits = 0
    sv.node_limit = node_limit
    sv.deadline = 1e300
    sv.interruptible = False
    sv.signals = signals
    sv.signalled = False
    sv.aborted = False
    # the root's entry is written last, after every entry below it: it holds its best move
    if s.players == 2:
        value = search(&sv, s, -INFINITE, INFINITE, -1, 0)
        if not sv.aborted and value > -RESULT // 2 and sv.table[s.key & sv.mask].key == s.key:
            best = sv.table[s.key & sv.mask].best
    else:
        search_values(&sv, s, -1, 0, &values)
        if not sv.aborted and values.of[s.current] >= RESULT // 2 \
                and sv.values_table[s.key & sv.mask].key == s.key:
            best = sv.values_table[s.key & sv.mask].best
    free(sv.table)
    free(sv.values_table)
    if sv.signalled:
        return -2
    return best if best != NO_MOVE else -1


# ---- Python -----------------------------------------------------------------------------

from photocore._game cimport Game

from photocore._game import Move
from photocore.budget import Limit, check_limit

from numbers import Real as _Real
from operator import index as _index
import os as _os
import threading as _threading
from photocore.play.results import Solution

pc_note_main_thread(_threading.main_thread().ident)

DEFAULT_SECONDS = 10.0
DEFAULT_NODES = 10 ** 12
DEFAULT_MEMORY = 64 << 20          # bytes of the transposition table
MAX_NODES = (1 << 63) - 1          # what the count of positions holds (a long long)


def _machine_memory():
    """This machine's physical memory in bytes (None where the system does not say)."""
    try:
        return _os.sysconf("SC_PHYS_PAGES") * _os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


# the most a table may take: more could only be had on credit from the system, and the
# search would be killed for it once it touched the table's pages
MACHINE_MEMORY = _machine_memory()


def _budget(value, name, low, high, high_is=""):
    """A budget checked: a whole number from `low` to `high`, TypeError or a one-line
    ValueError naming it otherwise."""
    if isinstance(value, bool) or not isinstance(value, _Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = _index(value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low:,} to {high:,}{high_is}, "
                         f"got {value:,}")
    return value


def _memory_budget(memory, entry_size):
    """`memory` checked: bytes, from one table entry to this machine's memory."""
    if MACHINE_MEMORY is None:
        return _budget(memory, "memory", entry_size, 1 << 62)
    return _budget(memory, "memory", entry_size, MACHINE_MEMORY, " (this machine's memory)")


cdef tuple _split(int value):
    """(result, margin) of a two-player value."""
    cdef int result = (abs(value) + RESULT // 2) // RESULT * (1 if value >= 0 else -1)
    return result, value - result * RESULT


cdef tuple _seat_value(const Values* v, int seat, int players):
    """(return, margin) of one seat's max^n value: the return as the kernel's returns()
    computes it, to the last bit."""
    cdef int share = (v.of[seat] + RESULT // 2) // RESULT     # >= 0: |margin| < RESULT / 2
    cdef double won = players / (<double>(SHARE // share) * (players - 1)) if share else 0.0
    return won - 1.0 / (players - 1), v.of[seat] - share * RESULT


def solve(Game game not None, limit=None):
    """The exact value of `game`'s position under best play, within the `limit`. Two
    players: alpha-beta, each playing to win and then for the margin; three and four:
    max^n, each maximising their own return, then margin (docs/searching.md). Ctrl-C stops
    the search at once (KeyboardInterrupt).

    Args:
        game: the position, a Game not over.
        limit: a photocore.Limit; of its fields (each unset one its default) the solver
            takes `seconds`, wall-clock time (DEFAULT_SECONDS); `nodes`, positions
            searched, up to MAX_NODES (2**63 - 1; DEFAULT_NODES); `memory`, bytes of
            transposition table, from one entry (16 or 32 bytes) to this machine's memory
            (MACHINE_MEMORY; DEFAULT_MEMORY): the table is the largest power of two of
            entries that fits.

    Returns:
        A photocore.play.Solution; `solved` False when a budget ran out first (never a
        guess).

    Raises:
        ValueError: a budget out of range (naming it), or a game that is over.
        MemoryError: a table the system will not give.

    >>> from photocore import Game
    >>> game = Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
    ...                           "0/2200/4432/- 0579")
    >>> solution = solve(game)
    >>> solution.result, solution.margin, [str(m) for m in solution.best]
    (1, 1, ['end'])
    """
    if game.st.phase == PHASE_OVER:
        raise ValueError("the game is over: there is nothing to solve")
    limit = check_limit(limit) or Limit()
    cdef int players = game.st.players
    cdef double seconds = DEFAULT_SECONDS if limit.seconds is None else limit.seconds
    cdef long long node_limit = _budget(DEFAULT_NODES if limit.nodes is None else limit.nodes,
                                        "nodes", 1, MAX_NODES)
    memory = DEFAULT_MEMORY if limit.memory is None else limit.memory
    cdef size_t entry_size = sizeof(Entry) if players == 2 else sizeof(ValuesEntry)
    memory = _memory_budget(memory, entry_size)
    # the largest power of two of entries within `memory` (in Python: no overflow)
    cdef uint64_t entries = 1 << ((memory // entry_size).bit_length() - 1)
    cdef Solver sv
    sv.table = NULL
    sv.values_table = NULL
    if players == 2:
        sv.table = <Entry*>calloc(entries, sizeof(Entry))
    else:
        sv.values_table = <ValuesEntry*>calloc(entries, sizeof(ValuesEntry))
    if sv.table == NULL and sv.values_table == NULL:
        raise MemoryError(f"no memory for a table of {entries * entry_size:,} bytes")
    sv.mask = entries - 1
    sv.nodes = sv.probes = sv.hits = 0
    sv.node_limit = node_limit
    sv.interruptible = True
    sv.signals = sv.signalled = False
    sv.aborted = False
    cdef State root = game.st
    cdef uint16_t actions[MAX_LEGAL]
    cdef int n = legal_actions(&root, actions), i, value = 0
    cdef int values[MAX_LEGAL]
    cdef Values root_values
    cdef Values* move_values = NULL
    cdef double start = now()
    cdef pc_handler previous = NULL
    cdef bint catching = _threading.current_thread() is _threading.main_thread()
    if players > 2:
        move_values = <Values*>calloc(n, sizeof(Values))
        if move_values == NULL:
            free(sv.values_table)
            raise MemoryError("no memory for the moves' values")
    sv.deadline = start + seconds
    if catching:
        previous = pc_catch_interrupts()
    try:
        with nogil:
            if players == 2:
                value = search(&sv, &root, -INFINITE, INFINITE, -1, 0)
            else:
                search_values(&sv, &root, -1, 0, &root_values)
            # every root move exactly, for `moves` and `best` (the table makes most cheap)
            for i in range(n):
                if sv.aborted:
                    break
                if players == 2:
                    values[i] = child_value(&sv, &root, actions[i], -INFINITE, INFINITE, 0,
                                            False)
                else:
                    child_values(&sv, &root, actions[i], 0, False, &move_values[i])
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
        if players == 2:
            result, margin = _split(value)
            moves = {Move(actions[i]): _split(values[i]) for i in range(n)}
            returns = [0.0, 0.0]
            returns[player] = float(result)
            returns[1 - player] = float(-result)
        else:
            result, margin = _seat_value(&root_values, player, players)
            moves = {Move(actions[i]): _seat_value(&move_values[i], player, players)
                     for i in range(n)}
            returns = [_seat_value(&root_values, p, players)[0] for p in range(players)]
        best = sorted((m for m, (r, _) in moves.items() if r == result),
                      key=lambda m: (-moves[m][1], int(m)))
        return Solution(True, player, result, margin, tuple(returns), moves, best,
                        _principal(&sv, &root), sv.nodes, seconds_taken, rate)
    finally:
        if catching:
            pc_release_interrupts(previous)
        free(sv.table)
        free(sv.values_table)
        free(move_values)


def proven_move(Game game not None, nodes):
    """The move of proven_action(): a move of `game` proven within `nodes` positions (1 to
    MAX_NODES) to keep a win or a shared win, or None (not finished, a lost position, the game over).
    What a search plays before searching (mcts:N?prove=1, SearchAgent(prove=True)).

    >>> from photocore import Game
    >>> str(proven_move(Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 "
    ...                                    "3/1110/2220/- 0/2200/4432/- 0579"), 1000))
    'end'
    """
    cdef long long limit = _budget(nodes, "nodes", 1, MAX_NODES)
    cdef int action
    if game.st.phase == PHASE_OVER:
        return None
    with nogil:
        action = proven_search(&game.st, limit, True)
    if action == -2:
        pc_raise_interrupt()
    return Move(action) if action >= 0 else None


cdef list _principal(Solver* sv, const State* root):
    """Best play from the root as the table holds it: each position's best move while
    its entry is exact."""
    cdef State s = root[0]
    cdef int previous = -1, mover
    cdef uint64_t key
    cdef int best
    cdef Entry* entry
    cdef ValuesEntry* values_entry
    line = []
    while s.phase != PHASE_OVER and len(line) < MAX_GAME_MOVES:
        key = context_key(&s, previous)
        best = NO_MOVE
        if sv.table != NULL:
            entry = &sv.table[key & sv.mask]
            if entry.bound == BOUND_EXACT and entry.key == key:
                best = entry.best
        else:
            values_entry = &sv.values_table[key & sv.mask]
            if values_entry.filled and values_entry.key == key:
                best = values_entry.best
        if best == NO_MOVE or check_action(&s, best) != LEGAL:
            break
        line.append(Move(best))
        mover = s.current
        apply_action(&s, best)
        previous = best if s.current == mover else -1
    return line
