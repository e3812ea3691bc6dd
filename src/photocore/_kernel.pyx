# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules of Photosynthesis over a fixed-size C state (see _kernel.pxd).

Nothing here touches a Python object except the table builder and `random_playouts`'s
argument checks; everything else runs without the GIL.
"""

from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memset

from operator import index

cdef extern from *:
    int PHOTOCORE_NATIVE   # the macro setup.py defines: 1 for -march=native builds

# what `photocore bench` reports: figures of a native build do not transfer to other CPUs
BUILD = "native" if PHOTOCORE_NATIVE else "portable"

cdef uint64_t BOARD = 0
cdef uint64_t OUTER = 0
cdef uint8_t CELL_BIT[37]
cdef int8_t BIT_CELL[64]
cdef int8_t CELL_Q[37]
cdef int8_t CELL_R[37]
cdef uint8_t RICHNESS[37]
cdef uint64_t RANGE[37][4]       # cells at distance 1..radius of a cell
cdef int16_t PLANT_ID[37][37]    # rank of (src, tgt) among plant pairs, -1 if none
cdef uint8_t PLANT_SRC[774]
cdef uint8_t PLANT_TGT[774]
cdef uint8_t PRICE[4][5]         # [column][pieces left in it]: price of the next purchase
cdef uint8_t SLOTS[4]
cdef uint8_t START_AVAIL[4]
cdef uint8_t OWNED[4]
cdef uint8_t TOKEN_VALUE[4][9]   # [leaves - 1][tokens already taken from that stack]
cdef uint8_t STACK_SIZE[4]
# A shadow step under sun position k is (bb << SHADOW_LEFT[k]) >> SHADOW_RIGHT[k]:
# the sun at E, SE, SW, W, NW, NE casts toward W (-1), NW (-8), NE (-7), E, SE, SW.
cdef uint8_t SHADOW_LEFT[6]
cdef uint8_t SHADOW_RIGHT[6]

# The game's numbers (RULES.md §3, §6), written once: the C tables below are built from
# them and tables() hands them to Python (photocore.facts).
_OWNED = (6, 8, 4, 2)                                   # pieces a player owns, by size
_PRICES = ((1, 1, 2, 2), (2, 2, 3, 3), (3, 3, 4), (4, 5))   # column slot prices, cheapest first
_TOKENS = ((14, 14, 13, 13, 13, 12, 12, 12, 12), (17, 16, 16, 14, 14, 13, 13),
           (19, 18, 18, 17, 17), (22, 21, 20))          # stacks by leaves - 1, top first
_START_AVAILABLE = (2, 4, 1, 0)                         # the available area at the start

cdef int _hex_distance(int q1, int r1, int q2, int r2):
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 + r1 - q2 - r2))

cdef void _build_tables():
    global BOARD, OUTER
    cdef int i = 0, j, q, r, d, k, n, c, rank = 0
    for k in range(64):
        BIT_CELL[k] = -1
    for r in range(-3, 4):
        for q in range(-3, 4):
            if _hex_distance(q, r, 0, 0) <= 3:
                CELL_Q[i] = q
                CELL_R[i] = r
                CELL_BIT[i] = (r + 3) * 8 + (q + 3)
                BIT_CELL[CELL_BIT[i]] = i
                RICHNESS[i] = 4 - _hex_distance(q, r, 0, 0)
                BOARD |= (<uint64_t>1) << CELL_BIT[i]
                if RICHNESS[i] == 1:
                    OUTER |= (<uint64_t>1) << CELL_BIT[i]
                i += 1
    for i in range(37):
        for k in range(4):
            RANGE[i][k] = 0
        for j in range(37):
            PLANT_ID[i][j] = -1
            d = _hex_distance(CELL_Q[i], CELL_R[i], CELL_Q[j], CELL_R[j])
            if 1 <= d <= 3:
                PLANT_ID[i][j] = rank
                PLANT_SRC[rank] = i
                PLANT_TGT[rank] = j
                rank += 1
                for k in range(d, 4):
                    RANGE[i][k] |= (<uint64_t>1) << CELL_BIT[j]
    for c in range(4):
        OWNED[c] = _OWNED[c]
        START_AVAIL[c] = _START_AVAILABLE[c]
        SLOTS[c] = len(_PRICES[c])
        PRICE[c][0] = 0
        for n in range(1, SLOTS[c] + 1):
            PRICE[c][n] = _PRICES[c][SLOTS[c] - n]
    for k in range(4):
        STACK_SIZE[k] = len(_TOKENS[k])
        for n in range(9):
            TOKEN_VALUE[k][n] = _TOKENS[k][n] if n < STACK_SIZE[k] else 0
    for k, (left, right) in enumerate(((0, 1), (0, 8), (0, 7), (1, 0), (8, 0), (7, 0))):
        SHADOW_LEFT[k] = left
        SHADOW_RIGHT[k] = right

_build_tables()

# ---- geometry -----------------------------------------------------------------------

cdef int cell_bit(int cell) noexcept nogil:
    return CELL_BIT[cell]

cdef int bit_cell(int bit) noexcept nogil:
    return BIT_CELL[bit]

cdef int cell_distance(int a, int b) noexcept nogil:
    cdef int dq = CELL_Q[a] - CELL_Q[b], dr = CELL_R[a] - CELL_R[b], ds = dq + dr
    if dq < 0:
        dq = -dq
    if dr < 0:
        dr = -dr
    if ds < 0:
        ds = -ds
    return max(dq, max(dr, ds))

cdef int richness(int cell) noexcept nogil:
    return RICHNESS[cell]

cdef int plant_action(int src, int tgt) noexcept nogil:
    """The plant action id from cell src to cell tgt, -1 if no plant reaches that far."""
    cdef int rank = PLANT_ID[src][tgt]
    return -1 if rank < 0 else PLANT_BASE + rank

cdef int plant_source(int action) noexcept nogil:
    return PLANT_SRC[action - PLANT_BASE]

cdef int plant_target(int action) noexcept nogil:
    return PLANT_TGT[action - PLANT_BASE]

cdef inline uint64_t bit_mask(int bit) noexcept nogil:
    return (<uint64_t>1) << bit

cdef inline int nth_bit(uint64_t mask, int k) noexcept nogil:
    while k > 0:
        mask &= mask - 1
        k -= 1
    return pc_lowest(mask)

# ---- state --------------------------------------------------------------------------

cdef void state_init(State* s, int players, int options) noexcept nogil:
    cdef int p
    memset(s, 0, sizeof(State))
    s.players = players
    s.options = options
    s.last_round = ROUNDS_FOURTH_REVOLUTION if options & OPT_FOURTH_REVOLUTION else ROUNDS
    for p in range(players):
        for k in range(NSIZES):
            s.avail[p][k] = START_AVAIL[k]
            s.pboard[p][k] = SLOTS[k]               # every column full
    for k in range(NSIZES):
        s.stack[k] = STACK_SIZE[k]
    if players == 2:
        s.stack[3] = 0                          # two players: the 4-leaf stack stays in the box
    s.phase = PHASE_SETUP

cdef int sun_of(const State* s) noexcept nogil:
    return 0 if s.round == 0 else (s.round - 1) % 6

cdef inline uint64_t occupied(const State* s) noexcept nogil:
    return s.size_bb[0] | s.size_bb[1] | s.size_bb[2] | s.size_bb[3]

cdef inline uint64_t shadow_step(uint64_t bb, int sun) noexcept nogil:
    return ((bb << SHADOW_LEFT[sun]) >> SHADOW_RIGHT[sun]) & BOARD

cdef void shadows(const State* s, uint64_t* by_size) noexcept nogil:
    """by_size[k]: the cells where a piece of size k would be shaded now."""
    shadows_under(s, sun_of(s), by_size)

cdef void shadows_under(const State* s, int sun, uint64_t* by_size) noexcept nogil:
    """As shadows(), with the sun at position `sun` over the current board."""
    cdef uint64_t l1 = shadow_step(s.size_bb[3], sun)
    cdef uint64_t l2 = shadow_step(l1, sun)
    cdef uint64_t m1 = shadow_step(s.size_bb[2], sun)
    cdef uint64_t large = l1 | l2 | shadow_step(l2, sun)
    cdef uint64_t medium = large | m1 | shadow_step(m1, sun)
    cdef uint64_t small = medium | shadow_step(s.size_bb[1], sun)
    by_size[0] = small          # a seed is shaded by any shadow (RULES.md §8)
    by_size[1] = small
    by_size[2] = medium
    by_size[3] = large

cdef uint64_t shaded_cells(const State* s) noexcept nogil:
    cdef uint64_t sh[4]
    shadows(s, sh)
    return ((s.size_bb[0] & sh[0]) | (s.size_bb[1] & sh[1]) | (s.size_bb[2] & sh[2])
            | (s.size_bb[3] & sh[3]))

cdef inline int size_bits(const State* s, int bit) noexcept nogil:
    # 0 for a seed (or an empty cell): callers know the cell is occupied
    return (<int>((s.size_bb[1] >> bit) & 1) | <int>(((s.size_bb[2] >> bit) & 1) << 1)
            | <int>(((s.size_bb[3] >> bit) & 1) * 3))

cdef int size_at(const State* s, int bit) noexcept nogil:
    if not (occupied(s) >> bit) & 1:
        return -1
    return size_bits(s, bit)

cdef int owner_at(const State* s, int bit) noexcept nogil:
    cdef int p
    for p in range(s.players):
        if (s.owner_bb[p] >> bit) & 1:
            return p
    return -1

cdef void photosynthesis(State* s) noexcept nogil:
    cdef uint64_t sh[4]
    cdef uint64_t lit1, lit2, lit3, own
    cdef int p, total
    shadows(s, sh)
    lit1 = s.size_bb[1] & ~sh[1]
    lit2 = s.size_bb[2] & ~sh[2]
    lit3 = s.size_bb[3] & ~sh[3]
    for p in range(s.players):
        own = s.owner_bb[p]
        total = (s.light[p] + pc_popcount(lit1 & own) + 2 * pc_popcount(lit2 & own)
                 + 3 * pc_popcount(lit3 & own))
        s.light[p] = LIGHT_CAP if total > LIGHT_CAP else total

# ---- moves --------------------------------------------------------------------------

cdef inline uint64_t growable(const State* s, int p, uint64_t own) noexcept nogil:
    """Own, not-activated cells (given in `own`) whose piece may grow now."""
    cdef uint64_t mask = 0
    cdef int sz, light = s.light[p]
    cdef uint64_t sh[4]
    for sz in range(3):
        if s.avail[p][sz + 1] and light > sz:
            mask |= own & s.size_bb[sz]
    if mask and s.options & OPT_SHADE_BLOCKS:
        shadows(s, sh)
        mask &= ~((s.size_bb[0] & sh[0]) | (s.size_bb[1] & sh[1]) | (s.size_bb[2] & sh[2]))
    return mask

cdef inline uint64_t plant_targets(const State* s) noexcept nogil:
    """Cells a seed may go to now, before range; 0 when no plant is possible."""
    cdef uint64_t sh[4]
    cdef uint64_t targets
    cdef int p = s.current
    if s.avail[p][0] == 0 or s.light[p] < 1:
        return 0
    targets = BOARD & ~occupied(s) & ~s.active
    if s.options & OPT_SHADE_BLOCKS:
        shadows(s, sh)
        targets &= ~sh[0]
    return targets

cdef int legal_actions(const State* s, uint16_t* out) noexcept nogil:
    """Writes the legal action ids, ascending, to out (MAX_LEGAL long); returns how many."""
    cdef int n = 0, p = s.current, c, bit, tbit, src, light
    cdef uint64_t mask, own, targets, t
    if s.phase == PHASE_OVER:
        return 0
    if s.phase == PHASE_SETUP:
        mask = OUTER & ~occupied(s) if s.avail[p][1] else 0
        while mask:
            out[n] = PLACE_BASE + BIT_CELL[pc_lowest(mask)]
            n += 1
            mask &= mask - 1
        return n
    light = s.light[p]
    for c in range(4):
        if s.pboard[p][c] and light >= PRICE[c][s.pboard[p][c]]:
            out[n] = BUY_BASE + c
            n += 1
    own = s.owner_bb[p] & ~s.active
    targets = plant_targets(s)
    if targets:
        mask = own & ~s.size_bb[0]
        while mask:
            bit = pc_lowest(mask)
            mask &= mask - 1
            src = BIT_CELL[bit]
            t = RANGE[src][size_bits(s, bit)] & targets
            while t:
                tbit = pc_lowest(t)
                t &= t - 1
                out[n] = PLANT_BASE + PLANT_ID[src][BIT_CELL[tbit]]
                n += 1
    mask = growable(s, p, own)
    while mask:
        out[n] = GROW_BASE + BIT_CELL[pc_lowest(mask)]
        n += 1
        mask &= mask - 1
    if light >= 4:
        mask = own & s.size_bb[3]
        while mask:
            out[n] = COLLECT_BASE + BIT_CELL[pc_lowest(mask)]
            n += 1
            mask &= mask - 1
    out[n] = END_ACTION
    return n + 1

cdef int action_cost(const State* s, int action) noexcept nogil:
    """LP the action costs the player to move (its preconditions aside)."""
    cdef int bit
    if action < BUY_BASE or action == END_ACTION:
        return 0
    if action < PLANT_BASE:
        return PRICE[action - BUY_BASE][s.pboard[s.current][action - BUY_BASE]]
    if action < GROW_BASE:
        return 1
    if action < COLLECT_BASE:
        bit = CELL_BIT[action - GROW_BASE]
        return size_bits(s, bit) + 1
    return 4

cdef int check_action(const State* s, int action) noexcept nogil:
    """LEGAL, or the first reason the action is refused."""
    cdef int p = s.current, bit, tbit, sz, src, cost
    cdef uint64_t m, tm = 0      # tm: the plant target, set and read only for plants
    cdef uint64_t sh[4]
    if s.phase == PHASE_OVER:
        return R_OVER
    if action < BUY_BASE:
        if s.phase != PHASE_SETUP:
            return R_SETUP_ONLY
        m = bit_mask(CELL_BIT[action])
        if occupied(s) & m:
            return R_OCCUPIED
        if not OUTER & m:
            return R_NOT_OUTER
        return LEGAL if s.avail[p][1] else R_NO_PIECE
    if s.phase == PHASE_SETUP:
        return R_NOT_IN_SETUP
    if action == END_ACTION:
        return LEGAL
    cost = action_cost(s, action)
    if action < PLANT_BASE:
        if s.pboard[p][action - BUY_BASE] == 0:
            return R_COLUMN_EMPTY
        return LEGAL if s.light[p] >= cost else R_NO_LIGHT
    if action < GROW_BASE:
        src = PLANT_SRC[action - PLANT_BASE]
        bit = CELL_BIT[src]
        tbit = CELL_BIT[PLANT_TGT[action - PLANT_BASE]]
        tm = bit_mask(tbit)
    elif action < COLLECT_BASE:
        bit = CELL_BIT[action - GROW_BASE]
    else:
        bit = CELL_BIT[action - COLLECT_BASE]
    m = bit_mask(bit)
    if not s.owner_bb[p] & m:
        return R_NOT_OWN
    if s.active & m:
        return R_ACTIVATED
    sz = size_bits(s, bit)
    if action < GROW_BASE:
        if sz == 0:
            return R_SOURCE_SEED
        if cell_distance(src, BIT_CELL[tbit]) > sz:
            return R_OUT_OF_RANGE
        if occupied(s) & tm:
            return R_OCCUPIED
        if s.active & tm:
            return R_TARGET_ACTIVATED
        if s.avail[p][0] == 0:
            return R_NO_PIECE
        if s.light[p] < cost:
            return R_NO_LIGHT
        if s.options & OPT_SHADE_BLOCKS:
            shadows(s, sh)
            if sh[0] & tm:
                return R_SHADED
        return LEGAL
    if action < COLLECT_BASE:
        if sz == 3:
            return R_FULL_GROWN
        if s.avail[p][sz + 1] == 0:
            return R_NO_PIECE
        if s.light[p] < cost:
            return R_NO_LIGHT
        if s.options & OPT_SHADE_BLOCKS:
            shadows(s, sh)
            if sh[sz] & m:
                return R_SHADED
        return LEGAL
    if sz != 3:
        return R_NOT_LARGE
    return LEGAL if s.light[p] >= cost else R_NO_LIGHT

cdef inline void put_piece(State* s, int p, int sz, uint64_t m) noexcept nogil:
    s.size_bb[sz] |= m
    s.owner_bb[p] |= m

cdef inline void lift_piece(State* s, int p, int sz, uint64_t m) noexcept nogil:
    s.size_bb[sz] &= ~m
    s.owner_bb[p] &= ~m

cdef inline void return_piece(State* s, int p, int sz) noexcept nogil:
    # to the dearest empty slot of its column; out of the game when the column is full
    if s.pboard[p][sz] < SLOTS[sz]:
        s.pboard[p][sz] += 1

cdef int token_for(const State* s, int leaves) noexcept nogil:
    """The value a collect on soil of `leaves` would take now; 0 for no token."""
    cdef int k
    for k in range(leaves - 1, -1, -1):
        if s.stack[k]:
            return TOKEN_VALUE[k][STACK_SIZE[k] - s.stack[k]]
    return 0

cdef inline void take_token(State* s, int p, int leaves) noexcept nogil:
    cdef int k
    for k in range(leaves - 1, -1, -1):
        if s.stack[k]:
            s.toklog[s.ntok] = (p << 5) | TOKEN_VALUE[k][STACK_SIZE[k] - s.stack[k]]
            s.ntok += 1
            s.stack[k] -= 1
            return

cdef inline void end_turn(State* s) noexcept nogil:
    cdef int nxt = s.current + 1
    if nxt == s.players:
        nxt = 0
    s.active = 0
    if nxt != s.first:
        s.current = nxt
        return
    if s.round == s.last_round:
        s.phase = PHASE_OVER
        s.current = NO_PLAYER
        return
    s.round += 1
    s.first = s.first + 1 if s.first + 1 < s.players else 0
    s.current = s.first
    photosynthesis(s)

cdef inline void place(State* s, int bit) noexcept nogil:
    cdef int placed
    put_piece(s, s.current, 1, bit_mask(bit))
    s.avail[s.current][1] -= 1
    placed = pc_popcount(occupied(s))
    if placed == 2 * s.players:
        s.phase = PHASE_PLAY
        s.round = 1
        s.current = 0
        photosynthesis(s)
    else:
        s.current = placed % s.players

cdef void apply_action(State* s, int action) noexcept nogil:
    """Plays a legal action (check_action(s, action) == LEGAL) in place."""
    cdef int p = s.current, c, n, bit, sz
    cdef uint64_t m
    if action == END_ACTION:
        end_turn(s)
    elif action < BUY_BASE:
        place(s, CELL_BIT[action])
    elif action < PLANT_BASE:
        c = action - BUY_BASE
        n = s.pboard[p][c]
        s.light[p] -= PRICE[c][n]
        s.pboard[p][c] = n - 1
        s.avail[p][c] += 1
    elif action < GROW_BASE:
        action -= PLANT_BASE
        m = bit_mask(CELL_BIT[PLANT_TGT[action]])
        put_piece(s, p, 0, m)
        s.light[p] -= 1
        s.avail[p][0] -= 1
        s.active |= m | bit_mask(CELL_BIT[PLANT_SRC[action]])
    elif action < COLLECT_BASE:
        bit = CELL_BIT[action - GROW_BASE]
        m = bit_mask(bit)
        sz = size_bits(s, bit)
        lift_piece(s, p, sz, m)
        put_piece(s, p, sz + 1, m)
        s.light[p] -= sz + 1
        s.avail[p][sz + 1] -= 1
        return_piece(s, p, sz)
        s.active |= m
    else:
        c = action - COLLECT_BASE
        m = bit_mask(CELL_BIT[c])
        lift_piece(s, p, 3, m)
        s.light[p] -= 4
        return_piece(s, p, 3)
        take_token(s, p, RICHNESS[c])
        s.active |= m

# ---- observation ------------------------------------------------------------------

cdef inline void put_cells(float* out, uint64_t mask) noexcept nogil:
    while mask:
        out[BIT_CELL[pc_lowest(mask)]] = 1.0
        mask &= mask - 1

cdef void encode_observation(const State* s, int viewer, float* out) noexcept nogil:
    """Writes the OBS_SIZE floats seen by `viewer` (players in turn order from the viewer)."""
    cdef int k, p, size, points, j
    cdef uint64_t sh[4]
    memset(out, 0, OBS_SIZE * sizeof(float))
    shadows(s, sh)
    for k in range(s.players):
        p = (viewer + k) % s.players
        for size in range(4):
            put_cells(out + OBS_PIECES + (k * 4 + size) * NCELLS, s.owner_bb[p] & s.size_bb[size])
        out[OBS_PLAYERS + k * 10] = s.light[p] / <float>LIGHT_CAP
        for size in range(4):
            out[OBS_PLAYERS + k * 10 + 1 + size] = s.avail[p][size] / <float>OWNED[size]
            out[OBS_PLAYERS + k * 10 + 5 + size] = s.pboard[p][size] / <float>SLOTS[size]
        points = 0
        for j in range(s.ntok):
            if s.toklog[j] >> 5 == p:
                points += s.toklog[j] & 31
        out[OBS_PLAYERS + k * 10 + 9] = points / 100.0
    for size in range(3):
        put_cells(out + OBS_SHADOWS + size * NCELLS, sh[size + 1])
    put_cells(out + OBS_ACTIVATED, s.active)
    for k in range(4):
        out[OBS_STACKS + k] = s.stack[3 - k] / <float>STACK_SIZE[3 - k]
    out[OBS_CLOCK] = s.round / <float>s.last_round
    out[OBS_CLOCK + 1 + sun_of(s)] = 1.0
    out[OBS_CLOCK + 7 + s.phase] = 1.0
    if s.current != NO_PLAYER:
        out[OBS_CLOCK + 10 + (s.current - viewer + s.players) % s.players] = 1.0

cdef void legal_mask(const State* s, uint8_t* out) noexcept nogil:
    """out[a] = 1 for each legal action a, else 0 (NUM_ACTIONS bytes)."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef int i, n = legal_actions(s, actions)
    memset(out, 0, NUM_ACTIONS)
    for i in range(n):
        out[actions[i]] = 1

cdef long long perft(const State* s, int depth) noexcept nogil:
    """Leaves of the legal-move tree `depth` plies deep; a finished game is one leaf."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef State child
    cdef int i, n
    cdef long long total = 0
    if depth == 0 or s.phase == PHASE_OVER:
        return 1
    n = legal_actions(s, actions)
    if depth == 1:
        return n
    for i in range(n):
        child = s[0]
        apply_action(&child, actions[i])
        total += perft(&child, depth - 1)
    return total

# ---- invariants ---------------------------------------------------------------------

cdef int broken_invariant(const State* s) noexcept nogil:
    """INTACT, or the first invariant the state breaks (a debugging aid, not a hot path)."""
    cdef uint64_t sizes = 0, owners = 0
    cdef int p, k, j, taken, held
    for k in range(4):
        if s.size_bb[k] & sizes or s.owner_bb[k] & owners or (k >= s.players and s.owner_bb[k]):
            return B_BITBOARDS
        sizes |= s.size_bb[k]
        owners |= s.owner_bb[k]
    if sizes != owners or sizes & ~BOARD or s.active & ~BOARD:
        return B_BITBOARDS
    for p in range(s.players):
        if s.light[p] > LIGHT_CAP:
            return B_LIGHT
        for k in range(4):
            if s.pboard[p][k] > SLOTS[k]:
                return B_COLUMNS
            if s.avail[p][k] + s.pboard[p][k] + pc_popcount(s.owner_bb[p] & s.size_bb[k]) > OWNED[k]:
                return B_PIECES
    # every value held must be one taken from a stack, as often as it was taken
    for j in range(12, 23):
        taken = 0
        held = 0
        for k in range(4):
            if s.stack[k] > STACK_SIZE[k] or (k == 3 and s.players == 2 and s.stack[k]):
                return B_TOKENS
            for p in range(STACK_SIZE[k] - s.stack[k] if (k < 3 or s.players > 2) else 0):
                taken += TOKEN_VALUE[k][p] == j
        for k in range(s.ntok):
            held += (s.toklog[k] & 31) == j
            if s.toklog[k] >> 5 >= s.players:
                return B_TOKENS
        if taken != held:
            return B_TOKENS
    if s.round > s.last_round or (s.phase == PHASE_OVER) != (s.current == NO_PLAYER):
        return B_CLOCK
    if s.phase != PHASE_OVER and s.current >= s.players:
        return B_CLOCK
    if (s.phase == PHASE_SETUP) != (s.round == 0) and s.phase != PHASE_OVER:
        return B_CLOCK
    if s.round and s.first != (s.round - 1) % s.players:
        return B_CLOCK
    return INTACT

# ---- result -------------------------------------------------------------------------

cdef int score(const State* s, int player) noexcept nogil:
    cdef int k, total = s.light[player] // 3
    for k in range(s.ntok):
        if s.toklog[k] >> 5 == player:
            total += s.toklog[k] & 31
    return total

cdef int winners_mask(const State* s) noexcept nogil:
    """Bit p set for each winner: best score, then most pieces on the main board."""
    cdef int p, best = -1, most = -1, sc, pieces, mask = 0
    for p in range(s.players):
        sc = score(s, p)
        pieces = pc_popcount(s.owner_bb[p])
        if sc > best or (sc == best and pieces > most):
            best = sc
            most = pieces
            mask = 1 << p
        elif sc == best and pieces == most:
            mask |= 1 << p
    return mask

cdef void returns(const State* s, double* out) noexcept nogil:
    """Zero-sum returns of the current result: the winners share n/(n-1), everyone pays 1/(n-1).

    Two players: +1 and -1, 0 each on a tie. A sole winner of n gets +1, each other -1/(n-1).
    """
    cdef int p, n = s.players, mask = winners_mask(s), w = pc_popcount(mask)
    for p in range(n):
        out[p] = ((n / (<double>w * (n - 1))) if mask >> p & 1 else 0.0) - 1.0 / (n - 1)

# ---- random playouts ----------------------------------------------------------------

cdef uint64_t rng_next(uint64_t* rng) noexcept nogil:
    """SplitMix64: one 64-bit output per call."""
    cdef uint64_t z
    rng[0] += <uint64_t>0x9E3779B97F4A7C15
    z = rng[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

cdef int rng_below(uint64_t* rng, int n) noexcept nogil:
    return <int>(((rng_next(rng) >> 32) * <uint64_t>n) >> 32)

cdef int random_action(const State* s, uint64_t* rng) noexcept nogil:
    """A legal action drawn uniformly, counting each kind with popcounts (no move list)."""
    cdef int p = s.current, c, k, nbuy = 0, nplant = 0, ngrow, ncollect = 0, nsrc = 0
    cdef int light, bit, src
    cdef uint8_t buys[4]
    cdef uint8_t srcs[14]
    cdef uint64_t reach[14]
    cdef uint64_t mask, own, targets, grow
    if s.phase == PHASE_SETUP:
        mask = OUTER & ~occupied(s)
        return PLACE_BASE + BIT_CELL[nth_bit(mask, rng_below(rng, pc_popcount(mask)))]
    light = s.light[p]
    for c in range(4):
        if s.pboard[p][c] and light >= PRICE[c][s.pboard[p][c]]:
            buys[nbuy] = c
            nbuy += 1
    own = s.owner_bb[p] & ~s.active
    targets = plant_targets(s)
    if targets:
        mask = own & ~s.size_bb[0]
        while mask:
            bit = pc_lowest(mask)
            mask &= mask - 1
            src = BIT_CELL[bit]
            reach[nsrc] = RANGE[src][size_bits(s, bit)] & targets
            if reach[nsrc]:
                srcs[nsrc] = src
                nplant += pc_popcount(reach[nsrc])
                nsrc += 1
    grow = growable(s, p, own)
    ngrow = pc_popcount(grow)
    if light >= 4:
        ncollect = pc_popcount(own & s.size_bb[3])
    k = rng_below(rng, nbuy + nplant + ngrow + ncollect + 1)
    if k < nbuy:
        return BUY_BASE + buys[k]
    k -= nbuy
    if k < nplant:
        c = 0
        while k >= pc_popcount(reach[c]):
            k -= pc_popcount(reach[c])
            c += 1
        return PLANT_BASE + PLANT_ID[srcs[c]][BIT_CELL[nth_bit(reach[c], k)]]
    k -= nplant
    if k < ngrow:
        return GROW_BASE + BIT_CELL[nth_bit(grow, k)]
    k -= ngrow
    if k < ncollect:
        return COLLECT_BASE + BIT_CELL[nth_bit(own & s.size_bb[3], k)]
    return END_ACTION

cdef int play_random_game(State* s, uint64_t* rng) noexcept nogil:
    """Plays uniformly random legal moves to the end; returns how many were played."""
    cdef int moves = 0
    while s.phase != PHASE_OVER:
        apply_action(s, random_action(s, rng))
        moves += 1
    return moves

cdef uint64_t game_seed(uint64_t seed, uint64_t index) noexcept nogil:
    # each game's stream depends only on (seed, index): the same games in any split
    cdef uint64_t rng = seed ^ (index * <uint64_t>0xD1B54A32D192ED03)
    return rng_next(&rng)

def check_players(players):
    """`players` as an int, or ValueError/TypeError unless it is 2, 3 or 4."""
    if index(players) not in (2, 3, 4):
        raise ValueError(f"players must be 2, 3 or 4, got {players!r}")
    return index(players)

def check_count(count, name):
    """`count` as an int, or ValueError/TypeError unless it is a whole number from 0 to
    2**63 - 1 (what a C long long holds)."""
    if not 0 <= index(count) < 1 << 63:
        raise ValueError(f"{name} must be from 0 to 2**63 - 1, got {count!r}")
    return index(count)

def check_option(value, name):
    """An advanced-rule option as a bool: True or False (numpy's too) or the ints 0 and 1.

    TypeError for any other type: a `bint` argument would take "no" as True.
    """
    if value is True or value is False:
        return value
    import numpy
    if isinstance(value, numpy.bool_):
        return bool(value)
    try:
        number = index(value)
    except TypeError:
        raise TypeError(f"{name} must be True or False, got {value!r}") from None
    if number not in (0, 1):
        raise ValueError(f"{name} must be True or False (or 0 or 1), got {value!r}")
    return number == 1

def random_playouts(games, players=2, seed=0, fourth_revolution=False, shade_blocks=False):
    """Plays `games` whole games of uniformly random legal moves (`end` included) in C.

    Returns a dict: games, moves, score_sums (per seat), wins (per seat; every co-winner of
    a tie counts a win).

    >>> r = random_playouts(10, players=3, seed=1)
    >>> r["games"], len(r["wins"])
    (10, 3)
    """
    games, players = check_count(games, "games"), check_players(players)
    seed = index(seed) & 0xFFFFFFFFFFFFFFFF
    cdef int options = ((OPT_FOURTH_REVOLUTION if check_option(fourth_revolution, "fourth_revolution") else 0)
                        | (OPT_SHADE_BLOCKS if check_option(shade_blocks, "shade_blocks") else 0))
    cdef State s
    cdef uint64_t rng
    cdef long long g, moves = 0, count = games
    cdef uint64_t base = seed
    cdef int nplayers = players
    cdef long long score_sums[4]
    cdef long long wins[4]
    cdef int p, winners
    for p in range(4):
        score_sums[p] = 0
        wins[p] = 0
    with nogil:
        for g in range(count):
            rng = game_seed(base, <uint64_t>g)
            state_init(&s, nplayers, options)
            moves += play_random_game(&s, &rng)
            winners = winners_mask(&s)
            for p in range(nplayers):
                score_sums[p] += score(&s, p)
                if winners >> p & 1:
                    wins[p] += 1
    return {
        "games": games,
        "moves": moves,
        "score_sums": tuple(score_sums[p] for p in range(players)),
        "wins": tuple(wins[p] for p in range(players)),
    }


def tables():
    """The game's facts as the kernel holds them, for photocore.facts (plain Python values).

    Cells are in index order; `plants` lists (source, target) cell pairs in action order.
    """
    cdef int i
    return {
        "axial": tuple((CELL_Q[i], CELL_R[i]) for i in range(NCELLS)),
        "richness": tuple(RICHNESS[i] for i in range(NCELLS)),
        "plants": tuple((PLANT_SRC[i], PLANT_TGT[i]) for i in range(NPLANTS)),
        "owned": _OWNED,
        "prices": _PRICES,
        "tokens": _TOKENS,
        "start_available": _START_AVAILABLE,
        "light_cap": LIGHT_CAP,
        "rounds": ROUNDS,
        "rounds_fourth_revolution": ROUNDS_FOURTH_REVOLUTION,
        "max_game_moves": MAX_GAME_MOVES,
        "max_legal": MAX_LEGAL,
        "actions": {"place": PLACE_BASE, "buy": BUY_BASE, "plant": PLANT_BASE,
                    "grow": GROW_BASE, "collect": COLLECT_BASE, "end": END_ACTION,
                    "count": NUM_ACTIONS},
        "options": {"fourth_revolution": OPT_FOURTH_REVOLUTION, "shade_blocks": OPT_SHADE_BLOCKS},
        "observation": {"pieces": OBS_PIECES, "shadows": OBS_SHADOWS, "activated": OBS_ACTIVATED,
                        "players": OBS_PLAYERS, "stacks": OBS_STACKS, "clock": OBS_CLOCK,
                        "size": OBS_SIZE},
    }
