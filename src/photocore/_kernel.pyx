# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The rules of Photosynthesis over a fixed-size C state (see _kernel.pxd).

Each rule of docs/rules.md is one function here, named after it and cited by section; the move
lists, the random draw, the legality check and the playouts are all built on those
functions (docs/kernel.md maps rule to function). Nothing here touches a Python object
except the table builder, the argument checks and the choice of code path at import;
everything else runs without the GIL.
"""

from libc.stdint cimport int8_t, int16_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy, memset

import os
import sys
from operator import index

cdef extern from *:
    """
    /* The k-th (from 0) set bit of x, which has more than k set bits, without a branch or a
       loop. With BMI2, PDEP puts bit k on it in one instruction, except on AMD CPUs before
       Zen 3, which run PDEP in slow microcode: there, as without BMI2, a broadword select
       (the bytes' running bit counts locate the byte, a table the bit within it). */
    static unsigned char pc_select_in_byte[8][256];
    #if defined(__BMI2__)
    #include <cpuid.h>
    #include <immintrin.h>
    static int pc_pdep_is_fast = 0;
    #endif
    static void pc_build_select(void) {
        for (int byte = 0; byte < 256; byte++)
            for (int bit = 0, seen = 0; bit < 8; bit++)
                if (byte >> bit & 1)
                    pc_select_in_byte[seen++][byte] = (unsigned char)bit;
    #if defined(__BMI2__)
        unsigned a, b, c, d, family;
        if (__get_cpuid(0, &a, &b, &c, &d)) {
            int amd = (b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163)   /* AuthenticAMD */
                   || (b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975); /* HygonGenuine */
            __get_cpuid(1, &a, &b, &c, &d);
            family = (a >> 8 & 0xF) == 0xF ? 0xF + (a >> 20 & 0xFF) : a >> 8 & 0xF;
            pc_pdep_is_fast = !amd || family >= 0x19;
        }
    #endif
    }
    /* pc_select with the method given: `pdep` is pc_pdep_fast(), or a constant where a
       caller compiles a copy of its loop per method (play_random_game) */
    static inline int pc_select_by(unsigned long long x, int k, int pdep) {
    #if defined(__BMI2__)
        if (pdep)
            return pc_lowest(_pdep_u64(1ULL << k, x));
    #else
        (void)pdep;
    #endif
        const unsigned long long ones = 0x0101010101010101ULL, tops = 0x8080808080808080ULL;
        unsigned long long c = x - ((x >> 1) & 0x5555555555555555ULL);
        c = (c & 0x3333333333333333ULL) + ((c >> 2) & 0x3333333333333333ULL);
        c = (c + (c >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        unsigned long long upto = c * ones;          /* byte i: the set bits of bytes 0..i */
        /* top bit of byte i set when bytes 0..i hold k set bits or fewer: they lie below */
        unsigned long long below = (((unsigned long long)k * ones | tops) - upto) & tops;
        int byte = (int)(((below >> 7) * ones) >> 56);
        int before = (int)(((upto << 8) >> (8 * byte)) & 0xFF);
        return 8 * byte + pc_select_in_byte[k - before][(x >> (8 * byte)) & 0xFF];
    }
    #if defined(__BMI2__)
    #define pc_pdep_fast() pc_pdep_is_fast
    #else
    #define pc_pdep_fast() 0
    #endif
    #define pc_select(x, k) pc_select_by(x, k, pc_pdep_fast())
    static const char* pc_select_kind(void) {
        return pc_pdep_fast() ? "pdep" : "broadword";
    }

    /* Whether this CPU runs x86-64-v2 code (POPCNT, SSE4.2, SSSE3, ...; Nehalem, Bulldozer
       and later) and x86-64-v3 code (AVX2, BMI1/2, FMA, ...; Haswell, Zen and later). */
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
    static int pc_cpu_x86_64_v2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v2");
    }
    static int pc_cpu_x86_64_v3(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("x86-64-v3");
    }
    #elif defined(__x86_64__) && defined(__GNUC__)
    /* older gcc and clang name no levels; every CPU with these has the rest of the level */
    static int pc_cpu_x86_64_v2(void) {
        __builtin_cpu_init();
        return __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("sse4.2")
            && __builtin_cpu_supports("ssse3");
    }
    static int pc_cpu_x86_64_v3(void) {
        __builtin_cpu_init();
        return pc_cpu_x86_64_v2() && __builtin_cpu_supports("avx2")
            && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")
            && __builtin_cpu_supports("fma");
    }
    #else
    static int pc_cpu_x86_64_v2(void) { return 0; }
    static int pc_cpu_x86_64_v3(void) { return 0; }
    #endif
    /* the x86-64 level this copy of the kernel is compiled for: _kernel_x86_64_v2.c and
       _kernel_x86_64_v3.c define it before including this file */
    #ifndef PHOTOCORE_CODE_PATH
    #define PHOTOCORE_CODE_PATH "baseline"
    #endif
    /* How many of the n counts c[0..n-1] (n < 16; c is 16 long, and what lies past n is
       read and left out) are at most k, where they rise (Tally.before): the run of them at
       most k, from every count's compare at once, with no loop whose length the data
       decides. */
    #if defined(__AVX2__)
    #include <immintrin.h>
    static inline int pc_count_upto(const unsigned short* c, int n, int k) {
        __m256i upto = _mm256_cmpgt_epi16(_mm256_set1_epi16((short)(k + 1)),
                                          _mm256_loadu_si256((const __m256i*)c));
        unsigned bits = (unsigned)_mm256_movemask_epi8(upto) & ((1u << 2 * n) - 1);
        return pc_lowest(~(unsigned long long)bits) >> 1;
    }
    #elif defined(__SSE2__) || defined(_M_X64)
    #include <emmintrin.h>
    static inline int pc_count_upto(const unsigned short* c, int n, int k) {
        __m128i bound = _mm_set1_epi16((short)(k + 1));
        unsigned low = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi16(
                           bound, _mm_loadu_si128((const __m128i*)c)));
        unsigned high = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi16(
                            bound, _mm_loadu_si128((const __m128i*)(c + 8))));
        unsigned bits = (low | high << 16) & ((1u << 2 * n) - 1);
        return pc_lowest(~(unsigned long long)bits) >> 1;
    }
    #else
    static inline int pc_count_upto(const unsigned short* c, int n, int k) {
        int upto = 0;
        for (int i = 0; i < 16; i++)
            upto += (i < n) & (c[i] <= k);
        return upto;
    }
    #endif
    #define PC_BYTE_TOPS 0x80808080u   /* the top bit of each byte of a word */
    #define PC_GOLDEN_GAMMA 0x9E3779B97F4A7C15ULL   /* SplitMix64's step (rng_next) */
    #define PC_GOLDEN_GAMMA_INVERSE 0xF1DE83E19937733DULL   /* its inverse, mod 2**64 */
    """
    void pc_build_select() nogil
    uint8_t pc_select_in_byte[8][256]   # [k][byte]: the k-th set bit of the byte
    const char* pc_select_kind()
    int pc_select(uint64_t x, int k) nogil
    int pc_select_by(uint64_t x, int k, bint pdep) nogil
    bint pc_pdep_fast() nogil
    int pc_cpu_x86_64_v2() nogil
    int pc_cpu_x86_64_v3() nogil
    int pc_count_upto(const uint16_t* c, int n, int k) nogil
    const uint32_t BYTE_TOPS "PC_BYTE_TOPS"
    const uint64_t GOLDEN_GAMMA "PC_GOLDEN_GAMMA"
    const uint64_t GOLDEN_GAMMA_INVERSE "PC_GOLDEN_GAMMA_INVERSE"
    int PHOTOCORE_NATIVE       # setup.py's macro: 1 for a -march=native build
    const char* PHOTOCORE_CODE_PATH

# Random playouts of eight games at once (_lanes.h; docs/kernel.md, "Many games at once")
cdef extern from "_lanes.h":
    enum: PCL_WIDTH, PCL_PURSE_BOARD
    ctypedef struct pc_lane_tables:
        uint64_t board, outer
        uint64_t richer[3]
        uint64_t reach_high[4]
        uint64_t reach_low[4]
        uint64_t columns_near[8]
        uint64_t light_row[16]
        uint64_t price_nibbles, grow_costs, slots, stack_size, shadow_turn
        uint8_t tokens[64]
        uint8_t nibble_select[64]
        int light_cap, plant_cost, collect_cost, sun_positions, setup_trees
    ctypedef struct pc_lane_game:
        uint64_t seeds, smalls, mediums, larges, active
        uint64_t own[4]
        uint64_t purse[4]
        uint64_t light[4]
        uint64_t points[4]
        uint64_t stacks, round, first, current, phase, sun, last_round, shade, rng, word
    ctypedef void (*pc_lane_start)(void* context, long long index,
                                   pc_lane_game* game) noexcept nogil
    ctypedef void (*pc_lane_finish)(void* context, long long index, long long moves,
                                    const pc_lane_game* game) noexcept nogil
    int pc_lanes_best()
    void pc_lanes_play(int copy, const pc_lane_tables* t, int players, int shade,
                       long long games, void* context, pc_lane_start start,
                       pc_lane_finish finish) nogil

cdef pc_lane_tables LANE_TABLES     # the kernel's tables as the lanes read them (_build_lane_tables)
cdef int lane_copy = 0              # the lanes' copy playouts run (pc_lanes_best), 0 for none

# what `photocore bench` reports: figures of a native build do not transfer to other CPUs
BUILD = "native" if PHOTOCORE_NATIVE else "portable"
# the code running: in the default build, the copy for the highest x86-64 level the CPU
# runs (end of file), "baseline" on other CPUs; "native" in a PHOTOCORE_NATIVE=1 build
CODE_PATH = "native" if PHOTOCORE_NATIVE else PHOTOCORE_CODE_PATH.decode()

cdef enum:
    BOARD_RADIUS = 3
    MAX_SLOTS = 4                   # the slots of the longest player-board column
    SOLD_OUT = LIGHT_CAP + 1        # an empty column's price: more light than anyone holds

cdef uint64_t BOARD = 0
cdef uint64_t OUTER = 0
cdef uint8_t CELL_BIT[NCELLS]
cdef int8_t BIT_CELL[NBITS]
cdef int8_t CELL_Q[NCELLS]
cdef int8_t CELL_R[NCELLS]
cdef uint8_t RICHNESS[NCELLS]
cdef uint64_t REACH[NSIZES][NBITS]       # [size][bit]: the cells at distance 1..size
cdef int16_t PLANT_ID[NBITS][NBITS]      # [src bit][tgt bit]: rank among plant pairs, -1 if none
cdef uint8_t PLANT_SRC[NPLANTS]
cdef uint8_t PLANT_TGT[NPLANTS]
cdef uint8_t PRICE[NSIZES][MAX_SLOTS + 1]    # [column][pieces in it]: the next purchase's price
# [light] (any uint8_t): byte c is the fewest pieces column c must hold for its next piece
# to cost at most `light` (MAX_SLOTS + 1 when none does), and GROW_AFFORDED byte k + 1 has
# its top bit set when growing a piece of size k costs at most `light`: read a byte per
# column or size at once (buyable, growable)
cdef uint32_t BUY_FROM[256]
cdef uint32_t GROW_AFFORDED[256]
cdef uint8_t SLOTS[NSIZES]
cdef uint8_t START_AVAIL[NSIZES]
cdef uint8_t OWNED[NSIZES]
cdef uint8_t TOKEN_VALUE[NSTACKS][MAX_STACK]   # [leaves - 1][tokens already taken from it]
cdef uint8_t STACK_SIZE[NSTACKS]
# A shadow step under sun position k is (bb << SHADOW_LEFT[k]) >> SHADOW_RIGHT[k]:
# the sun at E, SE, SW, W, NW, NE casts toward W (-1), NW (-8), NE (-7), E, SE, SW.
cdef uint8_t SUN_IN_ROUND[ROUNDS_FOURTH_REVOLUTION + 1]  # §2: (round - 1) mod 6, 0 in setup
cdef uint8_t SHADOW_LEFT[SUN_POSITIONS]
cdef uint8_t SHADOW_RIGHT[SUN_POSITIONS]

# The position key's words (docs/engine.md, "Position keys"): random 64-bit words drawn by
# SplitMix64 from KEY_SEED in the order of _build_keys. Table sizes are powers of two, so
# that state_key can mask any byte into range.
cdef enum:
    KEY_TOKENS = MAX_PLAYERS << TOKEN_SHIFT     # tokens as the log holds them: player, value
    KEY_ROUNDS = 32         # rounds 0 .. ROUNDS_FOURTH_REVOLUTION
    KEY_MOVERS = 8          # current & 7: players 0 .. 3, and 7 for NO_PLAYER
    KEY_PLAYERS = 8         # player counts 2 .. 4
    KEY_OPTIONS = 256       # option flags (a byte)
    PURSE_LIGHT = 59        # where a purse word (purse_key) holds the light
cdef uint64_t KEY_SEED = 0x70686F746F6B6579       # "photokey"
cdef uint64_t Z_PIECES                              # the salt of the piece words
cdef uint64_t Z_ACTIVE[NBITS]                       # [bit]: a cell activated this turn
cdef uint64_t Z_TOKEN[KEY_TOKENS]                  # [player << TOKEN_SHIFT | value]
cdef uint64_t Z_CLOCK[KEY_ROUNDS][KEY_MOVERS]       # [round][current & 7]
cdef uint64_t Z_PLAYERS[KEY_PLAYERS]                # [players]
cdef uint64_t Z_OPTIONS[KEY_OPTIONS]                # [options]
cdef uint64_t Z_PURSE[MAX_PLAYERS]                  # [player]: salts of the purse words
cdef uint64_t Z_STACKS                              # the salt of the stacks' word
cdef uint64_t START_KEY[MAX_PLAYERS + 1]            # [players]: state_init's key but Z_OPTIONS

# The game's numbers (docs/rules.md §3, §6), written once: the C tables below are built from
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
    cdef int i = 0, j, q, r, d, k, n, c, light, rank = 0
    for k in range(NBITS):
        BIT_CELL[k] = -1
        for c in range(NSIZES):
            REACH[c][k] = 0
    for r in range(-BOARD_RADIUS, BOARD_RADIUS + 1):
        for q in range(-BOARD_RADIUS, BOARD_RADIUS + 1):
            if _hex_distance(q, r, 0, 0) <= BOARD_RADIUS:
                CELL_Q[i] = q
                CELL_R[i] = r
                CELL_BIT[i] = (r + BOARD_RADIUS) * 8 + (q + BOARD_RADIUS)
                BIT_CELL[CELL_BIT[i]] = i
                RICHNESS[i] = BOARD_RADIUS + 1 - _hex_distance(q, r, 0, 0)
                BOARD |= (<uint64_t>1) << CELL_BIT[i]
                if RICHNESS[i] == 1:
                    OUTER |= (<uint64_t>1) << CELL_BIT[i]
                i += 1
    for i in range(NBITS):
        for j in range(NBITS):
            PLANT_ID[i][j] = -1
    for i in range(NCELLS):
        for j in range(NCELLS):
            d = _hex_distance(CELL_Q[i], CELL_R[i], CELL_Q[j], CELL_R[j])
            if 1 <= d <= LARGE:
                if rank == NPLANTS:
                    raise ValueError("more plants in reach than NPLANTS (_kernel.pxd)")
                PLANT_ID[CELL_BIT[i]][CELL_BIT[j]] = rank
                PLANT_SRC[rank] = i
                PLANT_TGT[rank] = j
                rank += 1
                for k in range(d, NSIZES):
                    REACH[k][CELL_BIT[i]] |= (<uint64_t>1) << CELL_BIT[j]
    if rank != NPLANTS:
        raise ValueError(f"{rank} plants in reach, NPLANTS (_kernel.pxd) says {NPLANTS}")
    for c in range(NSIZES):
        OWNED[c] = _OWNED[c]
        START_AVAIL[c] = _START_AVAILABLE[c]
        SLOTS[c] = len(_PRICES[c])
        PRICE[c][0] = SOLD_OUT
        for n in range(1, SLOTS[c] + 1):
            PRICE[c][n] = _PRICES[c][SLOTS[c] - n]
            if n > 1 and PRICE[c][n] > PRICE[c][n - 1]:
                raise ValueError("buyable() needs each column's prices cheapest first")
    for light in range(256):
        BUY_FROM[light] = GROW_AFFORDED[light] = 0
        for c in range(NSIZES):
            n = 1
            while n <= SLOTS[c] and PRICE[c][n] > light:
                n += 1
            BUY_FROM[light] |= <uint32_t>(n if n <= SLOTS[c] else MAX_SLOTS + 1) << (8 * c)
            if c < LARGE and light >= grow_cost(c):
                GROW_AFFORDED[light] |= <uint32_t>0x80 << (8 * (c + 1))
    for k in range(NSTACKS):
        STACK_SIZE[k] = len(_TOKENS[k])
        for n in range(MAX_STACK):
            TOKEN_VALUE[k][n] = _TOKENS[k][n] if n < STACK_SIZE[k] else 0
    for k in range(ROUNDS_FOURTH_REVOLUTION + 1):
        SUN_IN_ROUND[k] = (k - 1) % SUN_POSITIONS if k else 0
    for k, (left, right) in enumerate(((0, 1), (0, 8), (0, 7), (1, 0), (8, 0), (7, 0))):
        SHADOW_LEFT[k] = left
        SHADOW_RIGHT[k] = right
    pc_build_select()
    _build_keys()

cdef void _build_keys():
    """Draws the key words from KEY_SEED, table by table in declaration order, each in index
    order (last index fastest): the same words on every machine and build."""
    global Z_STACKS, Z_PIECES
    cdef uint64_t rng = KEY_SEED
    cdef int p, k, n
    cdef State start
    Z_PIECES = rng_next(&rng)
    for n in range(NBITS):
        Z_ACTIVE[n] = rng_next(&rng)
    for n in range(KEY_TOKENS):
        Z_TOKEN[n] = rng_next(&rng)
    for k in range(KEY_ROUNDS):
        for n in range(KEY_MOVERS):
            Z_CLOCK[k][n] = rng_next(&rng)
    for n in range(KEY_PLAYERS):
        Z_PLAYERS[n] = rng_next(&rng)
    for n in range(KEY_OPTIONS):
        Z_OPTIONS[n] = rng_next(&rng)
    for p in range(MAX_PLAYERS):
        Z_PURSE[p] = rng_next(&rng)
    Z_STACKS = rng_next(&rng)
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        state_init(&start, n, 0)
        START_KEY[n] = state_key(&start) ^ Z_OPTIONS[0]

_build_tables()
# how pc_select finds the k-th set bit here: "pdep" (BMI2, fast) or "broadword"
SELECT = pc_select_kind().decode()

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
    cdef int rank = PLANT_ID[CELL_BIT[src]][CELL_BIT[tgt]]
    return -1 if rank < 0 else PLANT_BASE + rank

cdef int plant_source(int action) noexcept nogil:
    return PLANT_SRC[action - PLANT_BASE]

cdef int plant_target(int action) noexcept nogil:
    return PLANT_TGT[action - PLANT_BASE]

cdef inline uint64_t bit_mask(int bit) noexcept nogil:
    return (<uint64_t>1) << bit

# A player's four columns, or four sizes, read as the bytes of one word (byte c is entry c
# on any CPU: the compiler makes it one load on little-endian ones), compared bytewise.
cdef inline uint32_t byte_word(const uint8_t* b) noexcept nogil:
    return b[0] | <uint32_t>b[1] << 8 | <uint32_t>b[2] << 16 | <uint32_t>b[3] << 24

cdef inline void put_byte_word(uint8_t* b, uint32_t x) noexcept nogil:
    """byte_word's inverse: byte c of x into b[c] (one store on little-endian CPUs)."""
    b[0] = <uint8_t>x
    b[1] = <uint8_t>(x >> 8)
    b[2] = <uint8_t>(x >> 16)
    b[3] = <uint8_t>(x >> 24)

cdef inline int byte_tops(uint32_t x) noexcept nogil:
    """Bit c set when byte c of x (with only top bits set) has its top bit set."""
    return <int>(((x >> 7) * <uint32_t>0x01020408) >> 24)

# ---- state --------------------------------------------------------------------------

cdef void state_init(State* s, int players, int options) noexcept nogil:
    cdef int p, k
    memset(s, 0, sizeof(State))
    s.players = players
    s.options = options
    s.last_round = ROUNDS_FOURTH_REVOLUTION if options & OPT_FOURTH_REVOLUTION else ROUNDS
    for p in range(players):
        for k in range(NSIZES):
            s.avail[p][k] = START_AVAIL[k]
            s.pboard[p][k] = SLOTS[k]               # every column full
    for k in range(NSTACKS):
        s.stack[k] = STACK_SIZE[k]
    if players == 2:
        s.stack[NSTACKS - 1] = 0                # two players: the 4-leaf stack stays in the box
    s.key = START_KEY[players] ^ Z_OPTIONS[options]     # state_key(s), made in _build_keys

cdef int sun_of(const State* s) noexcept nogil:
    return SUN_IN_ROUND[s.round]

cdef inline uint64_t occupied(const State* s) noexcept nogil:
    return s.size_bb[SEED] | s.size_bb[SMALL] | s.size_bb[MEDIUM] | s.size_bb[LARGE]

cdef inline uint64_t shadow_step(uint64_t bb, int sun) noexcept nogil:
    return ((bb << SHADOW_LEFT[sun]) >> SHADOW_RIGHT[sun]) & BOARD

cdef void shadows(const State* s, uint64_t* by_size) noexcept nogil:
    """by_size[k]: the cells where a piece of size k would be shaded now."""
    shadows_under(s, sun_of(s), by_size)

cdef void shadows_under(const State* s, int sun, uint64_t* by_size) noexcept nogil:
    """As shadows(), with the sun at position `sun` over the current board."""
    shadows_of(s.size_bb[SMALL], s.size_bb[MEDIUM], s.size_bb[LARGE], sun, by_size)

cdef inline void shadows_of(uint64_t smalls, uint64_t mediums, uint64_t larges, int sun,
                            uint64_t* by_size) noexcept nogil:
    """§5.1: by_size[k], the cells where a piece of size k is shaded with the sun at `sun`
    over these trees: a tree casts as many cells as its size, and shades the pieces there
    no taller."""
    cdef uint64_t l1 = shadow_step(larges, sun)
    cdef uint64_t l2 = shadow_step(l1, sun)
    cdef uint64_t m1 = shadow_step(mediums, sun)
    cdef uint64_t large = l1 | l2 | shadow_step(l2, sun)
    cdef uint64_t medium = large | m1 | shadow_step(m1, sun)
    cdef uint64_t small = medium | shadow_step(smalls, sun)
    by_size[SEED] = small       # a seed is shaded by any shadow (docs/rules.md §8)
    by_size[SMALL] = small
    by_size[MEDIUM] = medium
    by_size[LARGE] = large

cdef uint64_t shaded_cells(const State* s) noexcept nogil:
    cdef uint64_t sh[NSIZES]
    shadows(s, sh)
    return ((s.size_bb[SEED] & sh[SEED]) | (s.size_bb[SMALL] & sh[SMALL])
            | (s.size_bb[MEDIUM] & sh[MEDIUM]) | (s.size_bb[LARGE] & sh[LARGE]))

cdef inline int size_bits(const State* s, int bit) noexcept nogil:
    # 0 for a seed (or an empty cell): callers know the cell is occupied
    return (<int>((s.size_bb[SMALL] >> bit) & 1) | <int>(((s.size_bb[MEDIUM] >> bit) & 1) << 1)
            | <int>(((s.size_bb[LARGE] >> bit) & 1) * LARGE))

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

# ---- a turn's state, as values --------------------------------------------------------
# The rules below are functions of a Turn: what a move reads and changes of the board and
# of the player to move, in values that a loop keeps in registers (play_random_game keeps
# one for a whole turn and writes it back to its State only when the turn ends). Functions
# of a State load one (load_turn) and, where a move changes it, store it back (store_turn).

cdef struct Turn:
    uint64_t seeds              # size_bb[SEED] .. size_bb[LARGE]: fields, not an array, so
    uint64_t smalls             # that a compiler keeps each in a register
    uint64_t mediums
    uint64_t larges
    uint64_t own                # owner_bb of the player to move
    uint64_t active
    uint64_t purse              # their available area (bytes 0-3) and player board (bytes 4-7)
    int light                   # their light
    int p                       # the player to move

cdef enum:
    BOARD_SHIFT = 32            # where a purse word's player board starts

cdef inline uint64_t purse_word(const State* s, int p) noexcept nogil:
    """Player p's available area and player board as a Turn's purse word."""
    return byte_word(s.avail[p]) | <uint64_t>byte_word(s.pboard[p]) << BOARD_SHIFT

cdef inline void load_turn(const State* s, Turn* u) noexcept nogil:
    cdef int p = s.current
    u.seeds = s.size_bb[SEED]
    u.smalls = s.size_bb[SMALL]
    u.mediums = s.size_bb[MEDIUM]
    u.larges = s.size_bb[LARGE]
    u.own = s.owner_bb[p]
    u.active = s.active
    u.purse = purse_word(s, p)
    u.light = s.light[p]
    u.p = p

cdef inline void store_turn(State* s, const Turn* u) noexcept nogil:
    cdef int p = u.p
    s.size_bb[SEED] = u.seeds
    s.size_bb[SMALL] = u.smalls
    s.size_bb[MEDIUM] = u.mediums
    s.size_bb[LARGE] = u.larges
    s.owner_bb[p] = u.own
    s.active = u.active
    put_byte_word(s.avail[p], <uint32_t>u.purse)
    put_byte_word(s.pboard[p], <uint32_t>(u.purse >> BOARD_SHIFT))
    s.light[p] = u.light

cdef inline int purse_count(uint64_t purse, int byte) noexcept nogil:
    """Byte `byte` of a purse word: available pieces of size byte (0-3), or the pieces in
    column byte - 4 of the player board (4-7)."""
    return <int>(purse >> (8 * byte)) & 0xFF

# ---- the rules: the legal moves of each kind, as a mask (docs/rules.md §3-§5, §8) ---------
# One function per kind of move, for the player to move. Everything that asks what is
# legal (legal_actions, count_legal, random_action, check_action, the playouts, and
# through them the agents and VecGame) asks these.

cdef inline uint64_t placeable(const State* s, int p) noexcept nogil:
    """§4: the empty outer-ring cells, where player p places a small tree in setup."""
    return OUTER & ~occupied(s) if s.avail[p][SMALL] else 0

cdef inline int buyable(const Turn* u) noexcept nogil:
    """§3, §5.2 Buy: the columns (bit c) whose next piece the player can pay for. A column's
    price rises as it empties, so it is affordable while it holds BUY_FROM[light] pieces
    or more: one byte comparison per column, all four at once."""
    cdef uint32_t holds = <uint32_t>(u.purse >> BOARD_SHIFT)
    return byte_tops(((holds | BYTE_TOPS) - BUY_FROM[u.light]) & BYTE_TOPS)

cdef inline bint can_plant(const Turn* u) noexcept nogil:
    """§5.2 Plant: the player has a seed in the available area and the light to plant it."""
    return (purse_count(u.purse, SEED) != 0) & (u.light >= PLANT_COST)

cdef struct Blocked:             # what the shade-blocks option forbids now (§8)
    uint64_t plant              # cells a seed may not go to: in a shadow
    uint64_t grow               # pieces that may not grow: shaded

cdef inline void shade_blocks(const Turn* u, int sun, bint shade, Blocked* b) noexcept nogil:
    """§8: with shade blocks (`shade`), a seed goes to no shadowed cell and no shaded piece
    grows; without the option nothing is blocked. Computed once for plant_targets and
    growable."""
    cdef uint64_t sh[NSIZES]
    b.plant = b.grow = 0
    if shade:
        shadows_of(u.smalls, u.mediums, u.larges, sun, sh)
        b.plant = sh[SEED]
        b.grow = (u.seeds & sh[SEED]) | (u.smalls & sh[SMALL]) | (u.mediums & sh[MEDIUM])

cdef inline uint64_t plant_targets(const Turn* u, const Blocked* b) noexcept nogil:
    """§5.2 Plant, §8: the cells a seed may go to from a source in reach: empty, not
    activated and not blocked."""
    return BOARD & ~(u.seeds | u.smalls | u.mediums | u.larges | u.active | b.plant)

cdef inline uint64_t plant_sources(const Turn* u) noexcept nogil:
    """§5.2 Plant: the player's trees (not seeds) on cells not activated this turn."""
    return u.own & ~(u.active | u.seeds)

cdef inline uint64_t plant_reach(const Turn* u, int bit, uint64_t targets) noexcept nogil:
    """§5.2 Plant: the targets the tree on `bit` (a plant source) reaches: hex distance up
    to its size, whatever stands between."""
    cdef int size = (SMALL + <int>((u.mediums | u.larges) >> bit & 1)
                     + <int>(u.larges >> bit & 1))
    return REACH[size][bit] & targets

cdef inline uint64_t bit_ones(uint32_t x, int bit) noexcept nogil:
    """All ones when bit `bit` of x is set, else 0: the bit shifted to the top and spread
    by an arithmetic shift, two instructions."""
    return <uint64_t>(<int64_t>(<uint64_t>x << (63 - bit)) >> 63)

cdef inline int grow_cost(int size) noexcept nogil:
    """§5.2 Grow: growing a piece of `size` costs the size it grows to."""
    return size + 1

cdef inline uint64_t growable(const Turn* u, const Blocked* b) noexcept nogil:
    """§5.2 Grow, §8: the player's pieces on cells not activated whose next size is in the
    available area, at a cost within their light, not blocked."""
    # byte k + 1's top bit: a piece of size k + 1 is available (+ 0x7F carries into the top
    # bit of a byte from 1 to OWNED) and growing one of size k is afforded
    cdef uint32_t grows = (<uint32_t>u.purse + ~BYTE_TOPS) & GROW_AFFORDED[u.light]
    cdef uint64_t cells = ((u.seeds & bit_ones(grows, 8 * SMALL + 7))
                            | (u.smalls & bit_ones(grows, 8 * MEDIUM + 7))
                            | (u.mediums & bit_ones(grows, 8 * LARGE + 7)))
    return cells & u.own & ~(u.active | b.grow)

cdef inline uint64_t collectable(const Turn* u) noexcept nogil:
    """§5.2 Collect: the player's large trees on cells not activated, if they have the light."""
    return u.own & ~u.active & u.larges & -<uint64_t>(u.light >= COLLECT_COST)

# ---- the rules: what each move does (docs/rules.md §4-§6) --------------------------------

cdef inline uint64_t return_piece(uint64_t purse, int size) noexcept nogil:
    """§5.2: a piece leaving the board goes to the dearest empty slot of its column, or out
    of the game when the column is full: the purse word after it."""
    cdef int shift = BOARD_SHIFT + 8 * size
    return purse + (<uint64_t>(purse_count(purse, NSIZES + size) < SLOTS[size]) << shift)

cdef inline int token_stack(const State* s, int leaves) noexcept nogil:
    """§6: the stack a collect on soil of `leaves` takes from: that one, or the next lower
    one with tokens left; -1 when none has."""
    cdef int k = leaves - 1
    while k >= 0 and not s.stack[k]:
        k -= 1
    return k

cdef int token_for(const State* s, int leaves) noexcept nogil:
    """§6: the value a collect on soil of `leaves` takes now; 0 for no token."""
    cdef int k = token_stack(s, leaves)
    return TOKEN_VALUE[k][STACK_SIZE[k] - s.stack[k]] if k >= 0 else 0

cdef inline void take_token(State* s, int p, int leaves) noexcept nogil:
    """§6: player p takes the token token_for() names, if any."""
    cdef int k = token_stack(s, leaves)
    if k >= 0:
        s.toklog[s.ntok] = (p << TOKEN_SHIFT) | TOKEN_VALUE[k][STACK_SIZE[k] - s.stack[k]]
        s.ntok += 1
        s.stack[k] -= 1

cdef inline void photosynthesis(State* s) noexcept nogil:
    """§5.1: every tree out of the shadows earns its owner its size in LP, up to the cap."""
    cdef uint64_t sh[NSIZES]
    cdef uint64_t lit1, lit2, lit3, own
    cdef int p, total
    shadows(s, sh)
    lit1 = s.size_bb[SMALL] & ~sh[SMALL]
    lit2 = s.size_bb[MEDIUM] & ~sh[MEDIUM]
    lit3 = s.size_bb[LARGE] & ~sh[LARGE]
    for p in range(s.players):
        own = s.owner_bb[p]
        total = (s.light[p] + pc_popcount(lit1 & own) + MEDIUM * pc_popcount(lit2 & own)
                 + LARGE * pc_popcount(lit3 & own))
        s.light[p] = LIGHT_CAP if total > LIGHT_CAP else total

cdef inline void place(State* s, int bit) noexcept nogil:
    """§4, §5.4: a small tree onto the cell; the turn passes, and the last placement
    starts round 1 with its photosynthesis."""
    cdef int p = s.current, placed
    s.size_bb[SMALL] |= bit_mask(bit)
    s.owner_bb[p] |= bit_mask(bit)
    s.avail[p][SMALL] -= 1
    placed = pc_popcount(occupied(s))
    if placed == SETUP_TREES * s.players:
        s.phase = PHASE_PLAY
        s.round = 1
        s.current = 0
        photosynthesis(s)
    else:
        s.current = placed % s.players

cdef inline void buy(Turn* u, int column) noexcept nogil:
    """§3, §5.2 Buy: the column's next piece to the available area, for its price."""
    u.light -= PRICE[column][purse_count(u.purse, NSIZES + column)]
    u.purse += (<uint64_t>1 << (8 * column)) - (<uint64_t>1 << (BOARD_SHIFT + 8 * column))

cdef inline void plant(Turn* u, int source, int target) noexcept nogil:
    """§5.2 Plant: a seed from the available area onto the target; both cells activated."""
    u.seeds |= bit_mask(target)
    u.own |= bit_mask(target)
    u.light -= PLANT_COST
    u.purse -= 1 << (8 * SEED)
    u.active |= bit_mask(target) | bit_mask(source)

cdef inline void grow(Turn* u, int bit) noexcept nogil:
    """§5.2 Grow: the next size from the available area replaces the piece, which returns."""
    cdef uint64_t seed = u.seeds & bit_mask(bit), small = u.smalls & bit_mask(bit)
    cdef uint64_t medium = u.mediums & bit_mask(bit)
    cdef int size = <int>(small >> bit) | <int>(medium >> bit) << 1
    # the piece moves up one bitboard, without a branch on its size
    u.seeds ^= seed
    u.smalls ^= seed | small
    u.mediums ^= small | medium
    u.larges |= medium
    u.light -= grow_cost(size)
    u.purse = return_piece(u.purse - (<uint64_t>1 << (8 * (size + 1))), size)
    u.active |= bit_mask(bit)

cdef inline void collect(Turn* u, State* s, int bit) noexcept nogil:
    """§5.2 Collect, §6: the large tree returns and the player takes a token (from the
    stacks of s)."""
    u.larges ^= bit_mask(bit)
    u.own ^= bit_mask(bit)
    u.light -= COLLECT_COST
    u.purse = return_piece(u.purse, LARGE)
    take_token(s, u.p, RICHNESS[BIT_CELL[bit]])
    u.active |= bit_mask(bit)

cdef inline void end_turn(State* s) noexcept nogil:
    """§5.2, §5.3, §5.4: the next player's turn; after the round's last turn the
    first-player token passes, the sun moves and photosynthesis runs, or the game ends."""
    cdef int nxt = s.current + 1
    nxt = 0 if nxt == s.players else nxt
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

# ---- moves in kernel form ------------------------------------------------------------
# A move is its kind (KIND_PLACE .. KIND_END, _kernel.pxd) and where it acts: a column for
# a buy, a cell bit otherwise, and for a plant both cell bits (pair()). Action ids
# (docs/engine.md) are for the outside.

cdef inline int pair(int source, int target) noexcept nogil:
    return source << 8 | target

cdef inline int source_of(int where) noexcept nogil:
    return where >> 8

cdef inline int target_of(int where) noexcept nogil:
    return where & 0xFF

cdef inline int decode(int action, int* where) noexcept nogil:
    """The kind of an action id, and where it acts."""
    if action < BUY_BASE:
        where[0] = CELL_BIT[action - PLACE_BASE]
        return KIND_PLACE
    if action < PLANT_BASE:
        where[0] = action - BUY_BASE
        return KIND_BUY
    if action < GROW_BASE:
        action -= PLANT_BASE
        where[0] = pair(CELL_BIT[PLANT_SRC[action]], CELL_BIT[PLANT_TGT[action]])
        return KIND_PLANT
    if action < COLLECT_BASE:
        where[0] = CELL_BIT[action - GROW_BASE]
        return KIND_GROW
    if action < END_ACTION:
        where[0] = CELL_BIT[action - COLLECT_BASE]
        return KIND_COLLECT
    where[0] = 0
    return KIND_END

cdef inline int encode(int kind, int where) noexcept nogil:
    """The action id of a move."""
    if kind == KIND_PLACE:
        return PLACE_BASE + BIT_CELL[where]
    if kind == KIND_BUY:
        return BUY_BASE + where
    if kind == KIND_PLANT:
        return PLANT_BASE + PLANT_ID[source_of(where)][target_of(where)]
    if kind == KIND_GROW:
        return GROW_BASE + BIT_CELL[where]
    if kind == KIND_COLLECT:
        return COLLECT_BASE + BIT_CELL[where]
    return END_ACTION

cdef inline void play_in_turn(Turn* u, State* s, int kind, int where) noexcept nogil:
    """Plays a legal buy, plant, grow or collect of the player to move on their turn u (and
    on the stacks of s)."""
    if kind == KIND_BUY:
        buy(u, where)
    elif kind == KIND_PLANT:
        plant(u, source_of(where), target_of(where))
    elif kind == KIND_GROW:
        grow(u, where)
    else:
        collect(u, s, where)

cdef inline void play(State* s, int kind, int where) noexcept nogil:
    """Plays a legal move of the player to move, in place."""
    cdef Turn u
    if kind == KIND_END:
        end_turn(s)
    elif kind == KIND_PLACE:
        place(s, where)
    else:
        load_turn(s, &u)
        play_in_turn(&u, s, kind, where)
        store_turn(s, &u)

# ---- the legal moves, counted and listed --------------------------------------------

cdef enum:
    SOURCE_SLOTS = 16           # Tally.before's length: MAX_TREES, rounded up to a vector's

cdef struct Tally:              # the legal moves of a position in play, by kind
    int buy                     # buyable()
    uint64_t grow               # growable()
    uint64_t collect            # collectable()
    int sources                 # plant sources, ascending, with the targets each reaches
    uint8_t source[MAX_TREES]
    uint64_t reach[MAX_TREES]
    uint16_t before[SOURCE_SLOTS]   # and the legal moves before its first plant
    int plants                  # the place of each kind's first move in ascending id order:
    int grows                   # the legal moves before it
    int collects
    int end

cdef inline int tally(const Turn* u, int sun, bint shade, Tally* t) noexcept nogil:
    """Counts the legal moves of a turn in play by kind (the sun at `sun`, `shade` the
    shade-blocks option), in ascending id order (buys, plants, grows, collects, end);
    returns how many in all."""
    cdef uint64_t targets, sources
    cdef int n, bit, i = 0
    cdef Blocked b
    shade_blocks(u, sun, shade, &b)
    t.buy = buyable(u)
    n = pc_popcount(t.buy)
    t.plants = n
    if can_plant(u):
        targets = plant_targets(u, &b)
        sources = plant_sources(u)
        while sources:
            bit = pc_lowest(sources)
            sources &= sources - 1
            t.source[i] = bit
            t.reach[i] = plant_reach(u, bit, targets)
            t.before[i] = n
            n += pc_popcount(t.reach[i])
            i += 1
    t.sources = i
    t.grows = n
    t.grow = growable(u, &b)
    n += pc_popcount(t.grow)
    t.collects = n
    t.collect = collectable(u)
    n += pc_popcount(t.collect)
    t.end = n
    return n + 1

cdef inline int tally_state(const State* s, Tally* t) noexcept nogil:
    """tally() of the position in play s."""
    cdef Turn u
    load_turn(s, &u)
    return tally(&u, sun_of(s), s.options & OPT_SHADE_BLOCKS, t)

cdef inline int nth_move(const Tally* t, int k, int* where, bint pdep) noexcept nogil:
    """The k-th legal move of a tallied position (ascending ids): its kind, and where
    (`pdep`: pc_pdep_fast(), the select method)."""
    cdef int i
    if k >= t.end:
        return KIND_END
    if k < t.plants:
        where[0] = pc_select_in_byte[k][t.buy]
        return KIND_BUY
    if k < t.grows:
        # the last source with at most k moves before its first plant
        i = pc_count_upto(t.before, t.sources, k) - 1
        where[0] = pair(t.source[i], pc_select_by(t.reach[i], k - t.before[i], pdep))
        return KIND_PLANT
    if k < t.collects:
        where[0] = pc_select_by(t.grow, k - t.grows, pdep)
        return KIND_GROW
    where[0] = pc_select_by(t.collect, k - t.collects, pdep)
    return KIND_COLLECT

cdef inline int list_cells(uint16_t* out, int n, int base, uint64_t cells) noexcept nogil:
    while cells:
        out[n] = base + BIT_CELL[pc_lowest(cells)]
        n += 1
        cells &= cells - 1
    return n

cdef int legal_actions(const State* s, uint16_t* out) noexcept nogil:
    """Writes the legal action ids, ascending, to out (MAX_LEGAL long); returns how many."""
    cdef int n = 0, src, c, buy
    cdef uint64_t targets, sources, reach
    cdef Blocked b
    cdef Turn u
    if s.phase == PHASE_OVER:
        return 0
    if s.phase == PHASE_SETUP:
        return list_cells(out, 0, PLACE_BASE, placeable(s, s.current))
    load_turn(s, &u)
    shade_blocks(&u, sun_of(s), s.options & OPT_SHADE_BLOCKS, &b)
    buy = buyable(&u)
    for c in range(NSIZES):             # no branch: written, and counted when legal
        out[n] = BUY_BASE + c
        n += buy >> c & 1
    if can_plant(&u):
        targets = plant_targets(&u, &b)
        sources = plant_sources(&u)
        while sources:
            src = pc_lowest(sources)
            sources &= sources - 1
            reach = plant_reach(&u, src, targets)
            while reach:
                out[n] = PLANT_BASE + PLANT_ID[src][pc_lowest(reach)]
                n += 1
                reach &= reach - 1
    n = list_cells(out, n, GROW_BASE, growable(&u, &b))
    n = list_cells(out, n, COLLECT_BASE, collectable(&u))
    out[n] = END_ACTION
    return n + 1

cdef int count_legal(const State* s) noexcept nogil:
    """How many legal actions legal_actions() would list."""
    cdef Tally t
    if s.phase == PHASE_OVER:
        return 0
    if s.phase == PHASE_SETUP:
        return pc_popcount(placeable(s, s.current))
    return tally_state(s, &t)

cdef int action_cost(const State* s, int action) noexcept nogil:
    """LP the action costs the player to move (its preconditions aside)."""
    cdef int where, kind = decode(action, &where)
    if kind == KIND_BUY:
        return PRICE[where][s.pboard[s.current][where]]
    if kind == KIND_PLANT:
        return PLANT_COST
    if kind == KIND_GROW:
        return grow_cost(size_bits(s, where))
    if kind == KIND_COLLECT:
        return COLLECT_COST
    return 0

cdef int check_action(const State* s, int action) noexcept nogil:
    """LEGAL, or the first reason the action is refused. The rules' masks decide; refusal()
    only says why."""
    cdef int where, kind = decode(action, &where), legal
    cdef Blocked b
    cdef Turn u
    if s.phase == PHASE_OVER:
        return R_OVER
    if (kind == KIND_PLACE) != (s.phase == PHASE_SETUP):
        return R_SETUP_ONLY if kind == KIND_PLACE else R_NOT_IN_SETUP
    load_turn(s, &u)
    shade_blocks(&u, sun_of(s), s.options & OPT_SHADE_BLOCKS, &b)
    if kind == KIND_PLACE:
        legal = placeable(s, s.current) >> where & 1
    elif kind == KIND_BUY:
        legal = buyable(&u) >> where & 1
    elif kind == KIND_PLANT:
        legal = (can_plant(&u) and plant_sources(&u) >> source_of(where) & 1
                 and plant_reach(&u, source_of(where), plant_targets(&u, &b)) >> target_of(where) & 1)
    elif kind == KIND_GROW:
        legal = growable(&u, &b) >> where & 1
    elif kind == KIND_COLLECT:
        legal = collectable(&u) >> where & 1
    else:
        legal = 1
    return LEGAL if legal else refusal(s, kind, where)

cdef int refusal(const State* s, int kind, int where) noexcept nogil:
    """Why an illegal move (not `end`, in the right phase) is refused: the first condition
    of its rule that fails, in a fixed order."""
    cdef int p = s.current, bit, target, size
    if kind == KIND_PLACE:
        if occupied(s) & bit_mask(where):
            return R_OCCUPIED
        return R_NOT_OUTER if not OUTER & bit_mask(where) else R_NO_PIECE
    if kind == KIND_BUY:
        return R_COLUMN_EMPTY if s.pboard[p][where] == 0 else R_NO_LIGHT
    bit = source_of(where) if kind == KIND_PLANT else where
    if not s.owner_bb[p] & bit_mask(bit):
        return R_NOT_OWN
    if s.active & bit_mask(bit):
        return R_ACTIVATED
    size = size_bits(s, bit)
    if kind == KIND_PLANT:
        target = target_of(where)
        if size == SEED:
            return R_SOURCE_SEED
        if not REACH[size][bit] & bit_mask(target):
            return R_OUT_OF_RANGE
        if occupied(s) & bit_mask(target):
            return R_OCCUPIED
        if s.active & bit_mask(target):
            return R_TARGET_ACTIVATED
        if s.avail[p][SEED] == 0:
            return R_NO_PIECE
        return R_NO_LIGHT if s.light[p] < PLANT_COST else R_SHADED
    if kind == KIND_GROW:
        if size == LARGE:
            return R_FULL_GROWN
        if s.avail[p][size + 1] == 0:
            return R_NO_PIECE
        return R_NO_LIGHT if s.light[p] < grow_cost(size) else R_SHADED
    return R_NOT_LARGE if size != LARGE else R_NO_LIGHT

# ---- the position key (docs/engine.md, "Position keys") -------------------------------
# A Zobrist-style key: the XOR of one 64-bit word per part of the position, each a function
# of that part alone: a table word (the settings, the clock, each activated cell) or a mix64
# of the part's bits with its own tag (each player's pieces of each size, each player's
# purse, the stacks, the sum of a table word per token held). state_key() computes it;
# apply_action() keeps s.key equal to it move by move, taking the words of what a move
# changes out and putting their new values in. The kernel's own loops that never hand a
# state out (play_random_game's moves, perft) play without the key: play(), not
# apply_action().

cdef inline uint64_t cells_key(const uint64_t* table, uint64_t cells) noexcept nogil:
    """The XOR of table[bit] over the cells' bits."""
    cdef uint64_t key = 0
    while cells:
        key ^= table[pc_lowest(cells)]
        cells &= cells - 1
    return key

cdef inline uint64_t clock_key(const State* s) noexcept nogil:
    """The round and the player to move (the phase, the first player, the sun and the last
    round follow from them, the player count and the options)."""
    return Z_CLOCK[s.round][s.current & (KEY_MOVERS - 1)]

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """SplitMix64's finalizer (rng_next's): a bijection of 64-bit words in which every
    input bit reaches every output bit."""
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)

cdef inline uint64_t purse_of(const State* s, int p, int light) noexcept nogil:
    """Player p's available area and player board with `light`, mixed as one word: the
    available counts in bytes 0-3, the player board's in bytes 4-7 (at most 4 each, and 2 in
    the large column: bits 56-57) and the light in the top 5 bits."""
    return mix64((byte_word(s.avail[p]) | <uint64_t>byte_word(s.pboard[p]) << 32
                  | <uint64_t>light << PURSE_LIGHT) ^ Z_PURSE[p])

cdef inline uint64_t purse_key(const State* s, int p) noexcept nogil:
    """Player p's purse: light, available area and player board (purse_of)."""
    return purse_of(s, p, s.light[p])

cdef inline uint64_t pieces_key(int p, int size, uint64_t cells) noexcept nogil:
    """Player p's pieces of a size on the board, mixed as one word: the cells (bits 0-54 of
    a bitboard) and p * NSIZES + size + 1 in the top byte, so that no two differ."""
    return mix64((cells | <uint64_t>(p * NSIZES + size + 1) << 56) ^ Z_PIECES)

cdef inline uint64_t stacks_key(const State* s) noexcept nogil:
    """The tokens left on the four stacks, mixed as one word (a byte each)."""
    return mix64(byte_word(s.stack) ^ Z_STACKS)

cdef inline uint64_t tokens_key(const State* s) noexcept nogil:
    """The tokens the players hold, as a multiset: the sum (mod 2**64) of the word of each
    (its byte in the log: player and value), mixed. A sum, where an XOR would cancel two
    tokens of one value; a multiset, whatever the order they were taken in."""
    cdef int k
    cdef uint64_t total = 0
    for k in range(s.ntok if s.ntok < NTOKENS else NTOKENS):
        total += Z_TOKEN[s.toklog[k] & (KEY_TOKENS - 1)]
    return mix64(total)

cdef uint64_t state_key(const State* s) noexcept nogil:
    """The position's key from scratch: the XOR of the words of the player count, the
    options, the clock (round, player to move), each activated cell, each player's pieces of
    each size, each player's purse (light, available area, player board), the stacks and
    the tokens held (a multiset: whatever the order they were taken in). Branch-free but for
    the loops over the players, activated cells and tokens. Every index is masked into its
    table: any state, even a broken one, reads inside them."""
    cdef int p, players = s.players if s.players < MAX_PLAYERS else MAX_PLAYERS
    cdef uint64_t key = (Z_PLAYERS[s.players & (KEY_PLAYERS - 1)] ^ Z_OPTIONS[s.options]
                         ^ Z_CLOCK[s.round & (KEY_ROUNDS - 1)][s.current & (KEY_MOVERS - 1)]
                         ^ cells_key(Z_ACTIVE, s.active) ^ stacks_key(s) ^ tokens_key(s))
    for p in range(players):
        key ^= (purse_key(s, p) ^ pieces_key(p, SEED, s.owner_bb[p] & s.size_bb[SEED])
                ^ pieces_key(p, SMALL, s.owner_bb[p] & s.size_bb[SMALL])
                ^ pieces_key(p, MEDIUM, s.owner_bb[p] & s.size_bb[MEDIUM])
                ^ pieces_key(p, LARGE, s.owner_bb[p] & s.size_bb[LARGE]))
    return key

cdef void canonical_state(const State* s, State* out) noexcept nogil:
    """s with its token log in ascending byte order (by player, then value): the order the
    tokens were taken in is history, not position. Two states are the same position exactly
    when their canonical states are equal byte for byte (State has no padding)."""
    cdef int i, j
    cdef uint8_t t
    out[0] = s[0]
    for i in range(1, out.ntok if out.ntok < NTOKENS else NTOKENS):
        t = out.toklog[i]
        j = i
        while j > 0 and out.toklog[j - 1] > t:
            out.toklog[j] = out.toklog[j - 1]
            j -= 1
        out.toklog[j] = t

cdef bint same_position(const State* a, const State* b) noexcept nogil:
    """Whether a and b are the same position (Game.__eq__): every field equal, each player's
    tokens as a multiset. One memcmp when their token logs agree (the usual case)."""
    cdef State ca, cb
    if memcmp(a, b, sizeof(State)) == 0:
        return True
    if a.key != b.key or a.ntok != b.ntok:
        return False
    canonical_state(a, &ca)
    canonical_state(b, &cb)
    return memcmp(&ca, &cb, sizeof(State)) == 0

cdef inline uint64_t moved_key(const State* s, int p, int size, int bit) noexcept nogil:
    """The change of player p's piece word of `size` when a piece of theirs of that size
    comes onto or leaves the cell `bit`: the old word and the new one."""
    cdef uint64_t cells = s.owner_bb[p] & s.size_bb[size]
    return pieces_key(p, size, cells) ^ pieces_key(p, size, cells ^ bit_mask(bit))

cdef void apply_action(State* s, int action) noexcept nogil:
    """Plays a legal action (check_action(s, action) == LEGAL) in place and brings the key up
    to date: the words the move changes go out of it before the move and in after it, or
    change in one step (moved_key) where the move itself says how they change."""
    cdef int where, kind = decode(action, &where), p = s.current, size, bit, q, rnd
    cdef uint64_t key = s.key
    cdef uint8_t light[MAX_PLAYERS]
    if kind == KIND_BUY:
        key ^= purse_key(s, p)
        play(s, kind, where)
        key ^= purse_key(s, p)
    elif kind == KIND_PLANT:
        bit = target_of(where)
        key ^= (purse_key(s, p) ^ moved_key(s, p, SEED, bit)
                ^ Z_ACTIVE[bit] ^ Z_ACTIVE[source_of(where)])
        play(s, kind, where)
        key ^= purse_key(s, p)
    elif kind == KIND_GROW:
        size = size_bits(s, where)
        key ^= (purse_key(s, p) ^ moved_key(s, p, size, where) ^ moved_key(s, p, size + 1, where)
                ^ Z_ACTIVE[where])
        play(s, kind, where)
        key ^= purse_key(s, p)
    elif kind == KIND_COLLECT:
        key ^= (purse_key(s, p) ^ stacks_key(s) ^ tokens_key(s) ^ moved_key(s, p, LARGE, where)
                ^ Z_ACTIVE[where])
        play(s, kind, where)
        key ^= purse_key(s, p) ^ stacks_key(s) ^ tokens_key(s)
    else:
        # place or end: the clock moves, and where a round begins, its photosynthesis
        # changes every player's light
        rnd = s.round
        memcpy(light, s.light, sizeof(light))
        key ^= clock_key(s)
        if kind == KIND_PLACE:
            key ^= purse_key(s, p) ^ moved_key(s, p, SMALL, where)
            play(s, kind, where)
            key ^= purse_of(s, p, light[p])     # the light before any photosynthesis
        else:
            key ^= cells_key(Z_ACTIVE, s.active)
            play(s, kind, where)
        key ^= clock_key(s)
        if s.round != rnd:
            for q in range(s.players):
                key ^= purse_of(s, q, light[q]) ^ purse_key(s, q)
    s.key = key

cdef int random_action(const State* s, uint64_t* rng) noexcept nogil:
    """A legal action drawn uniformly: k = rng_below(how many are legal), then the k-th in
    ascending id order, found from the counts of each kind (no move list)."""
    cdef Tally t
    cdef uint64_t cells
    cdef int where, kind
    if s.phase == PHASE_SETUP:
        cells = placeable(s, s.current)
        return encode(KIND_PLACE, pc_select(cells, rng_below(rng, pc_popcount(cells))))
    kind = nth_move(&t, rng_below(rng, tally_state(s, &t)), &where, pc_pdep_fast())
    return encode(kind, where)

# Types that only name a compiled copy of random_moves and random_turn (fused types,
# specialised at compile time): with or without the shade-blocks option, PDEP's select or
# the broadword one, and for random_turn, the game's odd or even turns.
cdef struct ShadeBlocks:
    char unused
cdef struct NoShadeBlocks:
    char unused
cdef struct PdepSelect:
    char unused
cdef struct BroadwordSelect:
    char unused
ctypedef fused ShadeOption:
    ShadeBlocks
    NoShadeBlocks
ctypedef fused SelectMethod:
    PdepSelect
    BroadwordSelect
cdef struct OddTurn:
    char unused
cdef struct EvenTurn:
    char unused
ctypedef fused TurnPlace:
    OddTurn
    EvenTurn

cdef inline void random_turn(State* g, uint64_t* r, Tally* t, ShadeOption* option,
                             SelectMethod* method, TurnPlace* place) noexcept nogil:
    """random_moves' moves of the turn in play, and its end (end_turn), with the caller's
    Tally for scratch. The turn's state stays in a Turn, in registers, from its first move
    to its end. A copy for each copy of random_moves and for its odd and even turns (the
    pointers are not read): each is called once, so the compiler writes it out where it is
    called."""
    cdef bint shade = ShadeOption is ShadeBlocks, pdep = SelectMethod is PdepSelect
    cdef Turn u
    cdef uint64_t word
    cdef int where, kind, k, sun = sun_of(g)
    load_turn(g, &u)
    while True:
        # the word first: it does not wait for the tally, so the CPU computes both at
        # once, and no register holds it from one move to the next
        word = rng_next(r)
        k = below(word, tally(&u, sun, shade, t))
        # nth_move's tests of the kind, then at once these, in its order: the
        # compiler jumps from each kind to its move. play_in_turn's dispatch in
        # their place, or the end tested first, keeps a chain of tests (2.9 more
        # branches and 0.1 more mispredicted a move, callgrind)
        kind = nth_move(t, k, &where, pdep)
        if kind == KIND_BUY:
            buy(&u, where)
        elif kind == KIND_PLANT:
            plant(&u, source_of(where), target_of(where))
        elif kind == KIND_GROW:
            grow(&u, where)
        elif kind == KIND_COLLECT:
            collect(&u, g, where)
        else:
            break
    store_turn(g, &u)
    end_turn(g)

cdef int random_moves(State* g, uint64_t* rng, ShadeOption* option,
                      SelectMethod* method) noexcept nogil:
    """play_random_game's moves: a copy of the loop for each value of the shade-blocks option
    and of pc_pdep_fast(), which the copy's types name (the pointers are not read), so that
    no move tests them."""
    cdef bint pdep = SelectMethod is PdepSelect
    cdef uint64_t cells, r = rng[0]
    cdef Tally t
    while g.phase == PHASE_SETUP:
        cells = placeable(g, g.current)
        place(g, pc_select_by(cells, rng_below(&r, pc_popcount(cells)), pdep))
    # the turns in two copies, taken in turn: with 2 players one copy's turns all end a
    # round and the other's none, so that each end_turn's test of the round's end goes the
    # same way every time (where one copy's went either way, every other turn, and was
    # mispredicted half the time under callgrind; a CPU that predicts from the branches
    # before it mispredicted it little)
    while g.phase == PHASE_PLAY:
        random_turn(g, &r, &t, option, method, <OddTurn*>NULL)
        if g.phase != PHASE_PLAY:
            break
        random_turn(g, &r, &t, option, method, <EvenTurn*>NULL)
    # a move draws one word: the moves are the steps the stream took, which frees the
    # register a count would hold in the loop
    cdef int moves = <int>((r - rng[0]) * GOLDEN_GAMMA_INVERSE)
    rng[0] = r
    return moves

cdef inline int random_game(State* s, uint64_t* rng) noexcept nogil:
    """play_random_game without the key: s.key is left as it was, stale. For a game whose
    end is only scored (playout, playout_totals): the key was 1.3% of a playout's
    instructions (callgrind)."""
    cdef State g = s[0]                  # the game in this frame: its fields at fixed stack
    cdef int moves                       # offsets
    if pc_pdep_fast():
        if g.options & OPT_SHADE_BLOCKS:
            moves = random_moves(&g, rng, <ShadeBlocks*>NULL, <PdepSelect*>NULL)
        else:
            moves = random_moves(&g, rng, <NoShadeBlocks*>NULL, <PdepSelect*>NULL)
    elif g.options & OPT_SHADE_BLOCKS:
        moves = random_moves(&g, rng, <ShadeBlocks*>NULL, <BroadwordSelect*>NULL)
    else:
        moves = random_moves(&g, rng, <NoShadeBlocks*>NULL, <BroadwordSelect*>NULL)
    s[0] = g
    return moves

cdef int play_random_game(State* s, uint64_t* rng) noexcept nogil:
    """Plays uniformly random legal moves to the end, the moves random_action() would draw,
    in place; returns how many were played. The moves keep no key (a playout looks at no
    position's key): the end's is computed once, so it is apply_action's all the same."""
    cdef int moves = random_game(s, rng)
    s.key = state_key(s)
    return moves

# ---- observation ------------------------------------------------------------------

cdef enum:
    POINTS_SCALE = 100          # a player's token points in the observation, divided by this

cdef inline void put_cells(float* out, uint64_t mask) noexcept nogil:
    while mask:
        out[BIT_CELL[pc_lowest(mask)]] = 1.0
        mask &= mask - 1

cdef void encode_observation(const State* s, int viewer, float* out) noexcept nogil:
    """Writes the OBS_SIZE floats seen by `viewer` (players in turn order from the viewer)."""
    cdef int k, p, size, points, j
    cdef float* slot
    cdef uint64_t sh[NSIZES]
    memset(out, 0, OBS_SIZE * sizeof(float))
    shadows(s, sh)
    for k in range(s.players):
        p = (viewer + k) % s.players
        for size in range(NSIZES):
            put_cells(out + OBS_PIECES + (k * NSIZES + size) * NCELLS,
                      s.owner_bb[p] & s.size_bb[size])
        slot = out + OBS_PLAYERS + k * SLOT_SIZE
        slot[0] = s.light[p] / <float>LIGHT_CAP
        for size in range(NSIZES):
            slot[SLOT_AVAILABLE + size] = s.avail[p][size] / <float>OWNED[size]
            slot[SLOT_BOARD + size] = s.pboard[p][size] / <float>SLOTS[size]
        points = 0
        for j in range(s.ntok):
            if s.toklog[j] >> TOKEN_SHIFT == p:
                points += s.toklog[j] & TOKEN_VALUE_MASK
        slot[SLOT_POINTS] = points / <float>POINTS_SCALE
    for size in range(SMALL, NSIZES):           # a seed's plane would repeat the small one's
        put_cells(out + OBS_SHADOWS + (size - SMALL) * NCELLS, sh[size])
    put_cells(out + OBS_ACTIVATED, s.active)
    for k in range(NSTACKS):                    # the 4-leaf stack first
        out[OBS_STACKS + k] = s.stack[NSTACKS - 1 - k] / <float>STACK_SIZE[NSTACKS - 1 - k]
    out[OBS_CLOCK] = s.round / <float>s.last_round
    out[OBS_CLOCK + CLOCK_SUN + sun_of(s)] = 1.0
    out[OBS_CLOCK + CLOCK_PHASE + s.phase] = 1.0
    if s.current != NO_PLAYER:
        out[OBS_CLOCK + CLOCK_MOVER + (s.current - viewer + s.players) % s.players] = 1.0

cdef void legal_mask(const State* s, uint8_t* out) noexcept nogil:
    """out[a] = 1 for each legal action a, else 0 (NUM_ACTIONS bytes)."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef int i, n = legal_actions(s, actions)
    memset(out, 0, NUM_ACTIONS)
    for i in range(n):
        out[actions[i]] = 1

cdef long long perft(const State* s, int depth) noexcept nogil:
    """Leaves of the legal-move tree `depth` plies deep; a finished game is one leaf. The
    children are played without their keys (play(), not apply_action()): they are counted,
    never handed out, so no key of theirs is ever read."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef State child
    cdef int i, n, where, kind
    cdef long long total = 0
    if depth == 0 or s.phase == PHASE_OVER:
        return 1
    if depth == 1:
        return count_legal(s)
    n = legal_actions(s, actions)
    for i in range(n):
        child = s[0]
        kind = decode(actions[i], &where)
        play(&child, kind, where)
        total += perft(&child, depth - 1)
    return total

# ---- invariants ---------------------------------------------------------------------

cdef int broken_invariant(const State* s) noexcept nogil:
    """INTACT, or the first invariant the state breaks: the one check of a whole state, which
    Game.from_position asks of a position read from text and the debug mode of every move
    (not a hot path)."""
    cdef uint64_t sizes = 0, owners = 0
    cdef uint8_t taken[TOKEN_VALUE_MASK + 1]
    cdef uint8_t held[TOKEN_VALUE_MASK + 1]
    cdef int p, k, j, used
    if not MIN_PLAYERS <= s.players <= MAX_PLAYERS:     # the seats of the turn order
        return B_CLOCK
    for k in range(NSIZES):
        if s.size_bb[k] & sizes:
            return B_BITBOARDS
        sizes |= s.size_bb[k]
    for p in range(MAX_PLAYERS):
        if s.owner_bb[p] & owners or (p >= s.players and s.owner_bb[p]):
            return B_BITBOARDS
        owners |= s.owner_bb[p]
    if sizes != owners or sizes & ~BOARD or s.active & ~BOARD:
        return B_BITBOARDS
    for p in range(s.players):
        if s.light[p] > LIGHT_CAP:
            return B_LIGHT
        for k in range(NSIZES):
            if s.pboard[p][k] > SLOTS[k]:
                return B_COLUMNS
            if s.avail[p][k] + s.pboard[p][k] + pc_popcount(s.owner_bb[p] & s.size_bb[k]) > OWNED[k]:
                return B_PIECES
    # the values held are the values taken from the stacks, each as often
    memset(taken, 0, sizeof(taken))
    memset(held, 0, sizeof(held))
    for k in range(NSTACKS):
        used = k < NSTACKS - 1 or s.players > 2    # two players leave the 4-leaf stack out
        if s.stack[k] > STACK_SIZE[k] or (not used and s.stack[k]):
            return B_TOKENS
        for j in range(STACK_SIZE[k] - s.stack[k] if used else 0):
            taken[TOKEN_VALUE[k][j]] += 1
    if s.ntok > NTOKENS:
        return B_TOKENS
    for k in range(s.ntok):
        if s.toklog[k] >> TOKEN_SHIFT >= s.players:
            return B_TOKENS
        held[s.toklog[k] & TOKEN_VALUE_MASK] += 1
    if memcmp(taken, held, sizeof(taken)):
        return B_TOKENS
    if s.last_round != (ROUNDS_FOURTH_REVOLUTION if s.options & OPT_FOURTH_REVOLUTION
                        else ROUNDS) or s.round > s.last_round:
        return B_CLOCK
    if (s.phase == PHASE_OVER) != (s.current == NO_PLAYER):
        return B_CLOCK
    if s.phase == PHASE_OVER and s.round != s.last_round:     # over after the last round only
        return B_CLOCK
    if s.phase != PHASE_OVER and s.current >= s.players:
        return B_CLOCK
    if (s.phase == PHASE_SETUP) != (s.round == 0) and s.phase != PHASE_OVER:
        return B_CLOCK
    if s.first != ((s.round - 1) % s.players if s.round else 0):
        return B_CLOCK
    if s.phase == PHASE_SETUP and setup_broken(s):
        return B_SETUP
    # activated cells: only during a turn, and empty or the player to move's
    if s.active and (s.phase != PHASE_PLAY or s.active & occupied(s) & ~s.owner_bb[s.current]):
        return B_ACTIVATED
    if s.key != state_key(s):
        return B_KEY
    return INTACT

cdef bint setup_broken(const State* s) noexcept nogil:
    """§4: a setup position is not one that setup's placements reach: the players in turn
    have placed small trees on the outer ring, and nothing else has happened."""
    cdef int p, k, placed = pc_popcount(occupied(s)), due
    if placed >= SETUP_TREES * s.players or s.current != placed % s.players or s.ntok:
        return True
    if occupied(s) & ~(s.size_bb[SMALL] & OUTER):
        return True
    for p in range(s.players):
        due = placed // s.players + (p < placed % s.players)
        if pc_popcount(s.owner_bb[p]) != due or s.light[p]:
            return True
        for k in range(NSIZES):
            if s.pboard[p][k] != SLOTS[k]:
                return True
            if s.avail[p][k] != START_AVAIL[k] - (due if k == SMALL else 0):
                return True
    return False

# ---- result -------------------------------------------------------------------------

cdef inline int token_points(const State* s, int player) noexcept nogil:
    """§6: the values of the tokens the player holds."""
    cdef int k, total = 0
    for k in range(s.ntok):
        if s.toklog[k] >> TOKEN_SHIFT == player:
            total += s.toklog[k] & TOKEN_VALUE_MASK
    return total

cdef inline int final_score(int points, int light) noexcept nogil:
    """§7: a score from the token points held and the light: a point per LIGHT_PER_POINT LP."""
    return points + light // LIGHT_PER_POINT

cdef int score(const State* s, int player) noexcept nogil:
    """§7: the player's tokens and a point per LIGHT_PER_POINT LP."""
    return final_score(token_points(s, player), s.light[player])

cdef inline int winners_of(int players, const int* scores, const int* pieces) noexcept nogil:
    """§7: bit p set for each winner: best score, then most pieces on the main board."""
    cdef int p, best = -1, most = -1, mask = 0
    for p in range(players):
        if scores[p] > best or (scores[p] == best and pieces[p] > most):
            best = scores[p]
            most = pieces[p]
            mask = 1 << p
        elif scores[p] == best and pieces[p] == most:
            mask |= 1 << p
    return mask

cdef int winners_mask(const State* s) noexcept nogil:
    """§7: bit p set for each winner (winners_of) of the position as it stands."""
    cdef int scores[MAX_PLAYERS]
    cdef int pieces[MAX_PLAYERS]
    cdef int p
    for p in range(s.players):
        scores[p] = score(s, p)
        pieces[p] = pc_popcount(s.owner_bb[p])
    return winners_of(s.players, scores, pieces)

cdef inline void returns_of(int n, int winners, double* out) noexcept nogil:
    """returns() of n players with these winners (winners_of's mask)."""
    cdef int p, w = pc_popcount(<uint64_t>winners)
    for p in range(n):
        out[p] = ((n / (<double>w * (n - 1))) if winners >> p & 1 else 0.0) - 1.0 / (n - 1)

cdef void returns(const State* s, double* out) noexcept nogil:
    """Zero-sum returns of the current result: the winners share n/(n-1), everyone pays 1/(n-1).

    Two players: +1 and -1, 0 each on a tie. A sole winner of n gets +1, each other -1/(n-1).
    """
    returns_of(s.players, winners_mask(s), out)

# ---- random playouts ----------------------------------------------------------------

cdef uint64_t rng_next(uint64_t* rng) noexcept nogil:
    """SplitMix64: one 64-bit output per call (mix64 of the stream's next state)."""
    rng[0] += GOLDEN_GAMMA
    return mix64(rng[0])

cdef inline int below(uint64_t word, int n) noexcept nogil:
    """A number from 0 to n - 1 from a random word (its top 32 bits)."""
    return <int>(((word >> 32) * <uint64_t>n) >> 32)

cdef int rng_below(uint64_t* rng, int n) noexcept nogil:
    return below(rng_next(rng), n)

cdef uint64_t game_seed(uint64_t seed, uint64_t index) noexcept nogil:
    # each game's stream depends only on (seed, index): the same games in any split
    cdef uint64_t rng = seed ^ (index * <uint64_t>0xD1B54A32D192ED03)
    return rng_next(&rng)

SEEDS = 1 << 64     # a seed is any integer, taken modulo SEEDS (docs/engine.md, "Seeds")

def check_seed(seed, name="seed"):
    """`seed` as the kernel's seed, an int from 0 to 2**64 - 1: any integer (operator.index
    decides), taken modulo 2**64, so -1 is 2**64 - 1; TypeError naming `name` for anything
    else, a bool included (a flag passed where the seed goes). The one rule of seeds, in
    every function, class and command that takes one.

    >>> check_seed(7), check_seed(-1) == 2**64 - 1, check_seed(2**64 + 7)
    (7, True, 7)
    """
    if isinstance(seed, bool):      # numpy's bool has no __index__: refused below
        raise TypeError(f"{name} must be an integer, not a bool ({seed!r})")
    try:
        return index(seed) % SEEDS
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(seed).__name__}") from None

def stream_seed(seed, k):
    """The seed of stream `k` drawn from `seed` (both any integer, taken modulo 2**64:
    check_seed): game_seed, the one way every seed is derived, in C and in Python (game k
    of a seeded run, an agent's seed in a game, a position's search in an analysis).

    >>> stream_seed(7, 3) == stream_seed(7 + 2**64, 3) != stream_seed(7, 4)
    True
    """
    return game_seed(<uint64_t>check_seed(seed), <uint64_t>check_seed(k, "k"))

def check_players(players):
    """`players` as an int, or ValueError/TypeError unless it is 2, 3 or 4."""
    if not MIN_PLAYERS <= index(players) <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
    return index(players)

def check_count(count, name):
    """`count` as an int, or ValueError/TypeError unless it is a whole number from 0 to
    2**63 - 1 (what a C long long holds); TypeError for a bool (a flag passed where the
    count goes), as check_seed and check_threads refuse one. Every count and index a call
    takes goes through here or refuses a bool itself (tests/engine/test_api.py, the bool cases)."""
    if isinstance(count, bool):     # numpy's bool has no __index__: refused below
        raise TypeError(f"{name} must be an int, not a bool ({count!r})")
    try:
        number = index(count)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {count!r}") from None
    if not 0 <= number < 1 << 63:
        raise ValueError(f"{name} must be from 0 to 2**63 - 1, got {count!r}")
    return number

MAX_THREADS = 256       # the most threads a call that takes `threads` runs

def check_threads(threads):
    """`threads` as an int, or ValueError/TypeError unless it is a whole number from 1 to
    MAX_THREADS (a bool is not a number of threads)."""
    try:
        number = None if isinstance(threads, bool) else index(threads)
    except TypeError:
        raise TypeError(f"threads must be an int, got {threads!r}") from None
    if number is None or not 1 <= number <= MAX_THREADS:
        raise ValueError(f"threads must be from 1 to {MAX_THREADS}, got {threads!r}")
    return number

def check_bool(value, name):
    """`value` as a bool: True or False (numpy's too) or the ints 0 and 1.

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

cdef int playout(const State* s, uint64_t* rng, double* out) noexcept nogil:
    """One game of uniformly random legal moves from s (left as it is) to the end, the moves
    play_random_game draws: its returns() by seat into out. Returns the moves played."""
    cdef State g = s[0]
    cdef int moves = random_game(&g, rng)
    returns(&g, out)
    return moves

ctypedef struct Returns:        # playout_returns' run, as the lanes' callbacks see it
    const State* states
    const uint64_t* seeds
    long long n, first
    float* out

cdef void returns_start(void* context, long long index, pc_lane_game* game) noexcept nogil:
    cdef Returns* run = <Returns*>context
    cdef long long m = run.first + index
    lane_game_of(&run.states[m // run.n], game_seed(run.seeds[m // run.n], <uint64_t>(m % run.n)),
                 game)

cdef void returns_finish(void* context, long long index, long long moves,
                         const pc_lane_game* game) noexcept nogil:
    cdef Returns* run = <Returns*>context
    cdef int players = run.states[0].players, p
    cdef int scores[MAX_PLAYERS]
    cdef double result[MAX_PLAYERS]
    returns_of(players, lane_result(game, players, scores), result)
    for p in range(players):
        run.out[index * players + p] = <float>result[p]

cdef void playout_returns(const State* states, const uint64_t* seeds, long long n,
                          long long first, long long count, float* out) noexcept nogil:
    """Playouts first .. first + count - 1 of n from each of the positions `states` (of one
    player count): playout m is playout() from states[m // n] with the stream
    game_seed(seeds[m // n], m % n). Their returns, players floats each, into out (playout
    first's first). In LANES lanes where they run, for PCL_WIDTH playouts or more (the same
    games: play_lanes)."""
    cdef double result[MAX_PLAYERS]
    cdef uint64_t rng
    cdef long long m, i
    cdef int p, players = states[0].players
    cdef bint shade = False
    cdef Returns run
    if lane_copy and count >= PCL_WIDTH:
        for i in range(first // n, (first + count - 1) // n + 1):
            shade = shade or states[i].options & OPT_SHADE_BLOCKS != 0
        run.states, run.seeds, run.n, run.first, run.out = states, seeds, n, first, out
        play_lanes(players, shade, count, &run, returns_start, returns_finish)
        return
    for m in range(first, first + count):
        rng = game_seed(seeds[m // n], <uint64_t>(m % n))
        playout(&states[m // n], &rng, result)
        for p in range(players):
            out[(m - first) * players + p] = <float>result[p]

ctypedef struct Totals:         # playout_totals' run, as the lanes' callbacks see it
    uint64_t seed
    long long first
    int players, options
    long long* moves
    long long* score_sums
    long long* wins

cdef inline void add_result(Totals* run, int* scores, int winners) noexcept nogil:
    """One game's scores and winners into a run's totals (playout_totals)."""
    cdef int p, n = pc_popcount(<uint64_t>winners)
    for p in range(run.players):
        run.score_sums[p] += scores[p]
        if winners >> p & 1:
            run.wins[p * MAX_PLAYERS + n - 1] += 1

cdef void totals_start(void* context, long long index, pc_lane_game* game) noexcept nogil:
    cdef Totals* run = <Totals*>context
    cdef State s
    state_init(&s, run.players, run.options)
    lane_game_of(&s, game_seed(run.seed, <uint64_t>(run.first + index)), game)

cdef void totals_finish(void* context, long long index, long long moves,
                        const pc_lane_game* game) noexcept nogil:
    cdef Totals* run = <Totals*>context
    cdef int scores[MAX_PLAYERS]
    run.moves[0] += moves
    add_result(run, scores, lane_result(game, run.players, scores))

cdef void playout_totals(long long first, long long count, int players, uint64_t seed,
                         int flags, long long* moves, long long* score_sums,
                         long long* wins) noexcept nogil:
    """Plays games first .. first + count - 1 of uniformly random legal moves, game g from
    game_seed(seed, g) (so a run cut in chunks plays the games of one call); adds up their
    moves and, per seat, scores and wins into the zeroed `moves`, `score_sums` and `wins`,
    MAX_PLAYERS x MAX_PLAYERS: wins[p * MAX_PLAYERS + n - 1]
    counts the games seat p won with n winners in all (what a win is worth to each of them
    is facts.win_share's to say, not the kernel's). In LANES lanes where they run (the same
    games: play_lanes)."""
    cdef State s
    cdef uint64_t rng
    cdef long long g
    cdef int p
    cdef int scores[MAX_PLAYERS]
    cdef Totals run
    run.seed, run.first, run.players, run.options = seed, first, players, flags
    run.moves, run.score_sums, run.wins = moves, score_sums, wins
    if lane_copy:
        play_lanes(players, flags & OPT_SHADE_BLOCKS != 0, count, &run, totals_start,
                   totals_finish)
        return
    for g in range(first, first + count):
        rng = game_seed(seed, <uint64_t>g)
        state_init(&s, players, flags)
        moves[0] += random_game(&s, &rng)
        for p in range(players):
            scores[p] = score(&s, p)
        add_result(&run, scores, winners_mask(&s))

def commutes(x, y, options=0):
    """Whether action ids x then y, played in one turn of a game with these option bits,
    could as well be played y then x: the same position either way, wherever x then y is
    legal (actions_commute; docs/searching.md, "Orders of a turn").

    >>> from photocore import Move
    >>> commutes(Move.parse("collect a4"), Move.parse("grow d4"))
    True
    >>> commutes(Move.parse("grow a4"), Move.parse("collect a4"))    # one cell
    False
    >>> commutes(Move.parse("buy seed"), Move.parse("plant a4 a5"))  # a buy never commutes
    False
    """
    x, y = index(x), index(y)
    for action in (x, y):
        if not 0 <= action < NUM_ACTIONS:
            raise ValueError(f"action ids are 0 to {NUM_ACTIONS - 1}, got {action}")
    return bool(actions_commute(x, y, index(options)))

# The advanced rules (docs/rules.md §8), one row each: name, letter (the text form), kernel
# bit, words (for people), help (for the command line). photocore.facts.Options, the command
# line, the record schema and the adapters' parameters are made from these rows.
OPTION_TABLE = (
    ("fourth_revolution", "f", OPT_FOURTH_REVOLUTION, "fourth revolution",
     "play a fourth revolution of the sun (24 rounds)"),
    ("shade_blocks", "s", OPT_SHADE_BLOCKS, "shade blocks",
     "no planting into or growing in shadow"),
)

def _observation_high():
    """The largest value of each observation entry: 1 but for a player's token points /
    POINTS_SCALE, which reach at most every token of the game."""
    high = [1.0] * OBS_SIZE
    for k in range(MAX_PLAYERS):
        high[OBS_PLAYERS + k * SLOT_SIZE + SLOT_POINTS] = sum(map(sum, _TOKENS)) / POINTS_SCALE
    return tuple(high)

def tables():
    """The game's facts as the kernel holds them, for photocore.facts (plain Python values).

    Cells are in index order; `plants` lists (source, target) cell pairs in action order.
    """
    cdef int i, j, k
    # how far a piece of each size plants: read back from its reach table, from the centre
    cdef int centre = 0
    for i in range(NCELLS):
        if CELL_Q[i] == 0 and CELL_R[i] == 0:
            centre = i
    reach = tuple(max([_hex_distance(0, 0, CELL_Q[j], CELL_R[j]) for j in range(NCELLS)
                       if REACH[k][CELL_BIT[centre]] >> CELL_BIT[j] & 1] or [0])
                  for k in range(NSIZES))
    return {
        "axial": tuple((CELL_Q[i], CELL_R[i]) for i in range(NCELLS)),
        "richness": tuple(RICHNESS[i] for i in range(NCELLS)),
        "plants": tuple((PLANT_SRC[i], PLANT_TGT[i]) for i in range(NPLANTS)),
        "owned": _OWNED,
        "prices": _PRICES,
        "tokens": _TOKENS,
        "start_available": _START_AVAILABLE,
        "light_cap": LIGHT_CAP,
        "grow_cost": tuple(grow_cost(k) for k in range(LARGE)),
        "plant_cost": PLANT_COST,
        "collect_cost": COLLECT_COST,
        "reach": reach,
        "light_per_point": LIGHT_PER_POINT,
        "rounds": ROUNDS,
        "rounds_fourth_revolution": ROUNDS_FOURTH_REVOLUTION,
        "max_game_moves": MAX_GAME_MOVES,
        "max_legal": MAX_LEGAL,
        "actions": {"place": PLACE_BASE, "buy": BUY_BASE, "plant": PLANT_BASE,
                    "grow": GROW_BASE, "collect": COLLECT_BASE, "end": END_ACTION,
                    "count": NUM_ACTIONS},
        "options": OPTION_TABLE,
        "players": tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
        "setup_trees": SETUP_TREES,
        "observation": {"pieces": OBS_PIECES, "shadows": OBS_SHADOWS, "activated": OBS_ACTIVATED,
                        "players": OBS_PLAYERS, "stacks": OBS_STACKS, "clock": OBS_CLOCK,
                        "size": OBS_SIZE},
        # each player's slot of the "players" part: its size and the place of each value
        "player_slot": {"light": 0, "available": SLOT_AVAILABLE, "board": SLOT_BOARD,
                        "points": SLOT_POINTS, "size": SLOT_SIZE},
        "clock": {"round": 0, "sun": CLOCK_SUN, "phase": CLOCK_PHASE, "mover": CLOCK_MOVER},
        "observation_high": _observation_high(),
    }


# ---- many games at once -------------------------------------------------------------
# The playouts' lanes (_lanes.h): eight games a step, each the game play_random_game plays
# with the same stream. What they read of the game comes from the tables above.

cdef void lane_game_of(const State* s, uint64_t rng, pc_lane_game* g) noexcept nogil:
    """The game s, its random stream at rng, as a lane takes it."""
    cdef int p
    g.seeds, g.smalls = s.size_bb[SEED], s.size_bb[SMALL]
    g.mediums, g.larges = s.size_bb[MEDIUM], s.size_bb[LARGE]
    g.active = s.active
    for p in range(MAX_PLAYERS):
        g.own[p] = s.owner_bb[p]
        g.purse[p] = purse_word(s, p)
        g.light[p] = s.light[p]
        g.points[p] = token_points(s, p)
    g.stacks = byte_word(s.stack)
    g.round, g.first, g.current, g.phase = s.round, s.first, s.current, s.phase
    g.sun = sun_of(s)
    g.last_round = s.last_round
    g.shade = -<uint64_t>(s.options & OPT_SHADE_BLOCKS != 0)
    g.word = rng_next(&rng)         # the first move's word, drawn as random_moves draws it
    g.rng = rng

cdef int lane_result(const pc_lane_game* game, int players, int* scores) noexcept nogil:
    """A game a lane ended: each player's score into scores, and winners_of's mask."""
    cdef int pieces[MAX_PLAYERS]
    cdef int p
    for p in range(players):
        scores[p] = final_score(<int>game.points[p], <int>game.light[p])
        pieces[p] = pc_popcount(game.own[p])
    return winners_of(players, scores, pieces)

cdef void play_lanes(int players, bint shade, long long games, void* context,
                     pc_lane_start start, pc_lane_finish finish) noexcept nogil:
    """Plays `games` games (start, finish) of `players` players in lanes (`shade`: whether
    any has the shade-blocks option)."""
    pc_lanes_play(lane_copy, &LANE_TABLES, players, shade, games, context, start, finish)

cdef void _build_lane_tables() except *:
    """LANE_TABLES from the kernel's tables, and a check of the forms they take there."""
    cdef pc_lane_tables* t = &LANE_TABLES
    cdef int i, k, c, n, centre = -1
    cdef uint64_t moved
    memset(t, 0, sizeof(pc_lane_tables))
    if PCL_PURSE_BOARD != BOARD_SHIFT:
        raise ValueError("_lanes.h's purse word is not Turn.purse")
    t.board, t.outer = BOARD, OUTER
    for i in range(NCELLS):
        for k in range(3):
            if RICHNESS[i] >= k + 2:
                t.richer[k] |= bit_mask(CELL_BIT[i])
        if CELL_Q[i] == 0 and CELL_R[i] == 0:
            centre = CELL_BIT[i]
    for k in range(NSIZES):             # REACH[k][centre] << (63 - centre), in 128 bits
        t.reach_low[k] = REACH[k][centre] << (63 - centre)
        t.reach_high[k] = REACH[k][centre] >> (centre + 1)
    for c in range(8):
        for n in range(8):
            if abs(c - n) <= LARGE:     # a plant reaches at most LARGE cells away
                t.columns_near[7 - c] |= <uint64_t>0x0101010101010101 << n
    for k in range(NSIZES):             # that word moved to each cell of the board
        for i in range(NCELLS):
            n = 63 - CELL_BIT[i]
            moved = (t.reach_low[k] >> n) | ((t.reach_high[k] << 1) << (63 - n))
            if moved & t.columns_near[n & 7] & BOARD != REACH[k][CELL_BIT[i]]:
                raise ValueError("the lanes' reach is not REACH")
    for i in range(256):                # a light row stays the same from 15 LP up
        if BUY_FROM[i] != BUY_FROM[min(i, 15)] or GROW_AFFORDED[i] != GROW_AFFORDED[min(i, 15)]:
            raise ValueError("the lanes need BUY_FROM and GROW_AFFORDED constant from 15 LP")
    for i in range(16):
        t.light_row[i] = BUY_FROM[i] | <uint64_t>GROW_AFFORDED[i] << 32
    for c in range(NSIZES):
        t.slots |= <uint64_t>SLOTS[c] << (8 * c)
        for n in range(1, SLOTS[c] + 1):
            t.price_nibbles |= <uint64_t>PRICE[c][n] << (4 * (4 * c + n - 1))
    for k in range(LARGE):
        t.grow_costs |= <uint64_t>grow_cost(k) << (8 * k)
    for k in range(NSTACKS):
        t.stack_size |= <uint64_t>STACK_SIZE[k] << (8 * k)
        for n in range(MAX_STACK):
            t.tokens[k * 16 + n] = TOKEN_VALUE[k][n]
    for k in range(SUN_POSITIONS):     # a shadow step as a rotation: what wraps is off the board
        n = (SHADOW_LEFT[k] - SHADOW_RIGHT[k]) & 63
        t.shadow_turn |= <uint64_t>n << (8 * k)
        for i in range(NCELLS):
            moved = bit_mask(CELL_BIT[i])
            if (((moved << n) | (moved >> ((64 - n) & 63))) & BOARD) != shadow_step(moved, k):
                raise ValueError("the lanes' shadow step is not shadow_step")
    for k in range(4):
        for i in range(16):
            t.nibble_select[k * 16 + i] = pc_select_in_byte[k][i]
    t.light_cap, t.plant_cost, t.collect_cost = LIGHT_CAP, PLANT_COST, COLLECT_COST
    t.sun_positions, t.setup_trees = SUN_POSITIONS, SETUP_TREES

_build_lane_tables()

# Which playouts run: the lanes' AVX-512 copy where the CPU has it, else the scalar kernel
# (the lanes' portable copy is slower than it). PHOTOCORE_LANES=1 picks the scalar kernel,
# 8 the lanes (the portable copy on CPUs without AVX-512), portable the portable copy.
LANE_COPIES = ("scalar", "portable", "avx512")

def _choose_lanes():
    global lane_copy
    cdef str wanted = os.environ.get("PHOTOCORE_LANES", "")      # empty: unset
    cdef int best = pc_lanes_best()
    if wanted not in ("", "1", "8", "portable"):
        raise ValueError(f"PHOTOCORE_LANES must be 1, 8 or portable, got {wanted!r}")
    if wanted not in ("", "1") and best == 0:
        raise ValueError(f"PHOTOCORE_LANES={wanted}: this build has no lanes (a compiler "
                         "without vector extensions)")
    lane_copy = (0 if wanted == "1" else 1 if wanted == "portable" else best if wanted
                 else (2 if best == 2 else 0))

_choose_lanes()
# what photocore.facts reports: games a playout step plays, and the copy that plays them
LANES = PCL_WIDTH if lane_copy else 1
LANE_COPY = LANE_COPIES[lane_copy]


# ---- the code path ------------------------------------------------------------------

# Hardware popcount (and BMI) without losing portability: on x86-64, setup.py compiles this
# same C twice more, for x86-64-v2 (hardware popcount) and x86-64-v3 (also BMI1/2), and the
# baseline kernel, which runs on any x86-64, gives way at import to the highest of them the
# CPU runs. PHOTOCORE_CODE_PATH=baseline or x86-64-v2 caps the level (docs/kernel.md).
CODE_PATHS = ("baseline", "x86-64-v2", "x86-64-v3")     # slowest first

def _runnable_code_paths():
    """The code paths this CPU runs, slowest first (the x86-64 levels whatever was built)."""
    return CODE_PATHS[:1 + (pc_cpu_x86_64_v2() != 0) + (pc_cpu_x86_64_v3() != 0)]

def _load(code_path):
    """Puts the build of this module for `code_path`, where setup.py made one
    (_kernel_x86_64_vN beside this file), in this module's place for every importer and
    cimporter."""
    folder, name = os.path.split(__file__)
    path = os.path.join(folder, name.replace("_kernel", "_kernel_" + code_path.replace("-", "_"), 1))
    if not os.path.exists(path):
        return False
    from importlib.util import module_from_spec, spec_from_file_location
    spec = spec_from_file_location(__name__, path)
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[__name__] = module
    return True

def _dispatch():
    """Loads the fastest copy this CPU runs, up to the level PHOTOCORE_CODE_PATH names."""
    wanted = os.environ.get("PHOTOCORE_CODE_PATH") or None    # empty: unset
    if wanted is not None and wanted not in CODE_PATHS:
        raise ValueError(f"PHOTOCORE_CODE_PATH must be one of {', '.join(CODE_PATHS)}, "
                         f"got {wanted!r}")
    highest = CODE_PATHS.index(wanted) if wanted else len(CODE_PATHS) - 1
    for path in reversed(_runnable_code_paths()[1:highest + 1]):
        if _load(path):
            return

if CODE_PATH == "baseline":
    _dispatch()
