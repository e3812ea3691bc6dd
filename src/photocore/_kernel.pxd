# The rules of Photosynthesis over a fixed-size C state: what other Cython code cimports.
#
#     from photocore._kernel cimport State, state_init, legal_actions, apply_action
#
# A cell is a bit of a uint64 bitboard: bit (r + 3) * 8 + (q + 3). Column 7 of each row is
# padding, so one shift in a direction then `& BOARD` never wraps. Bit order is cell-index
# order (docs/engine.md). Every function here assumes its input is valid: checking is the
# Python layer's job, once, at the boundary. docs/kernel.md says where each rule lives.

from libc.stdint cimport uint8_t, uint16_t, uint64_t

cdef extern from *:
    """
    /* The compiler builtins the kernels use, here only: gcc's and clang's, MSVC's intrinsics
       under _MSC_VER (clang-cl, which defines both, takes the gcc branch). */
    #if defined(_MSC_VER) && !defined(__clang__)
    #include <intrin.h>
    #define PC_INLINE static __forceinline
    #if defined(__AVX__)        /* /arch:AVX and above: every such CPU has POPCNT */
    #define PC_HARDWARE_POPCOUNT 1
    #endif
    PC_INLINE int pc_lowest(unsigned long long x) {
        unsigned long bit;
        _BitScanForward64(&bit, x);
        return (int)bit;
    }
    #define pc_hardware_popcount(x) ((int)__popcnt64(x))
    #define pc_prefetch(p) _mm_prefetch((const char*)(p), _MM_HINT_T0)
    #else
    #if defined(__POPCNT__) || defined(__ARM_NEON) || defined(__aarch64__)
    #define PC_HARDWARE_POPCOUNT 1
    #endif
    /* unused: each module that cimports this block has them, and not every one calls them */
    #define PC_INLINE static inline __attribute__((unused))
    PC_INLINE int pc_lowest(unsigned long long x) { return __builtin_ctzll(x); }
    #define pc_hardware_popcount(x) __builtin_popcountll(x)
    #define pc_prefetch(p) __builtin_prefetch(p)
    #endif
    /* Hardware popcount where the build targets it (the x86-64-v3 kernel that the portable
       build loads on CPUs that have it, native builds, arm64); elsewhere the compiler would
       call a library routine, so the SWAR count inlines instead. */
    #ifdef PC_HARDWARE_POPCOUNT
    PC_INLINE int pc_popcount(unsigned long long x) { return pc_hardware_popcount(x); }
    #else
    PC_INLINE int pc_popcount(unsigned long long x) {
        x = x - ((x >> 1) & 0x5555555555555555ULL);
        x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
        x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
        return (int)((x * 0x0101010101010101ULL) >> 56);
    }
    #endif
    """
    int pc_popcount(uint64_t x) nogil
    int pc_lowest(uint64_t x) nogil
    void pc_prefetch(const void* p) nogil

cdef enum:
    NCELLS = 37
    NBITS = 64               # bits of a bitboard: the cells' and the padding
    NSIZES = 4               # piece sizes, which are also the player-board columns
    SEED = 0
    SMALL = 1
    MEDIUM = 2
    LARGE = 3
    MIN_PLAYERS = 2
    MAX_PLAYERS = 4
    MAX_TREES = 14           # the small, medium and large trees a player owns: most plant sources
    SETUP_TREES = 2          # small trees each player places in setup (docs/rules.md §4)
    NSTACKS = 4              # scoring-token stacks, indexed by leaves - 1 (docs/rules.md §6)
    MAX_STACK = 9            # tokens on the tallest stack
    NTOKENS = 24
    TOKEN_SHIFT = 5          # a token taken is logged as player << TOKEN_SHIFT | value
    TOKEN_VALUE_MASK = 31
    LIGHT_CAP = 20           # the most light points a player can hold (docs/rules.md §5.1)
    PLANT_COST = 1           # LP (docs/rules.md §5.2); a grow costs the size it grows to
    COLLECT_COST = 4
    LIGHT_PER_POINT = 3      # the end score counts a point per 3 LP (docs/rules.md §7)
    SUN_POSITIONS = 6        # the sun's corners: one revolution is 6 rounds (docs/rules.md §2)
    ROUNDS = 18              # rounds of a standard game: 3 revolutions of the sun
    ROUNDS_FOURTH_REVOLUTION = 24
    # action ids (docs/engine.md): each kind's range starts where the one before ends
    PLACE_BASE = 0
    BUY_BASE = PLACE_BASE + NCELLS              # 37: a place on each cell
    PLANT_BASE = BUY_BASE + NSIZES              # 41: a buy from each column
    NPLANTS = 774                               # (source, target) pairs in reach (checked
                                                # against the reach table at import)
    GROW_BASE = PLANT_BASE + NPLANTS            # 815
    COLLECT_BASE = GROW_BASE + NCELLS           # 852
    END_ACTION = COLLECT_BASE + NCELLS          # 889
    NUM_ACTIONS = END_ACTION + 1                # 890
    # bound on the legal moves of any position: 4 buys + 14 trees * 36 targets + 20 grows
    # + 2 collects + end = 531
    MAX_LEGAL = 544
    # bound on the moves of any game: every action but end costs >= 1 LP and a turn starts
    # with <= 20, so a turn is <= 21 moves: 2 * 4 placements + 24 rounds * 4 turns * 21
    MAX_GAME_MOVES = 2024
    # phases
    PHASE_SETUP = 0
    PHASE_PLAY = 1
    PHASE_OVER = 2
    NPHASES = 3
    # observation layout (docs/engine.md): each block starts where the one before ends
    SLOT_AVAILABLE = 1          # a player's slot: light, available (4), player board (4), points
    SLOT_BOARD = SLOT_AVAILABLE + NSIZES
    SLOT_POINTS = SLOT_BOARD + NSIZES
    SLOT_SIZE = SLOT_POINTS + 1                 # 10
    CLOCK_SUN = 1               # the clock: round, sun (6), phase (3), mover (4)
    CLOCK_PHASE = CLOCK_SUN + SUN_POSITIONS
    CLOCK_MOVER = CLOCK_PHASE + NPHASES
    CLOCK_SIZE = CLOCK_MOVER + MAX_PLAYERS      # 14
    OBS_PIECES = 0                              # a plane of cells per player and size
    OBS_SHADOWS = OBS_PIECES + MAX_PLAYERS * NSIZES * NCELLS      # 592: by size, no seed's
    OBS_ACTIVATED = OBS_SHADOWS + (NSIZES - 1) * NCELLS           # 703
    OBS_PLAYERS = OBS_ACTIVATED + NCELLS                          # 740
    OBS_STACKS = OBS_PLAYERS + MAX_PLAYERS * SLOT_SIZE            # 780
    OBS_CLOCK = OBS_STACKS + NSTACKS                              # 784
    OBS_SIZE = OBS_CLOCK + CLOCK_SIZE                             # 798
    NO_PLAYER = 255
    # option bits: each has a row in _kernel.pyx's OPTION_TABLE (docs/engine.md)
    OPT_FOURTH_REVOLUTION = 1
    OPT_SHADE_BLOCKS = 2

# The kinds of move, in action-id order (docs/engine.md): what action_kind() returns.
cdef enum MoveKind:
    KIND_PLACE
    KIND_BUY
    KIND_PLANT
    KIND_GROW
    KIND_COLLECT
    KIND_END

# Which invariant of a State is broken; 0 means none (see broken_invariant, the one check of
# a state: of a position read from text, and of every move in debug mode).
cdef enum Broken:
    INTACT = 0
    B_BITBOARDS             # sizes or owners overlap, disagree or leave the board
    B_PIECES                # a player has more pieces of a size than they own
    B_COLUMNS               # a player-board column over its slots
    B_LIGHT                 # LP over 20
    B_TOKENS                # the tokens held are not the tokens taken from the stacks
    B_CLOCK                 # round, sun, first player, player to move or phase inconsistent
    B_SETUP                 # a setup position that setup's placements do not reach
    B_ACTIVATED             # activated cells outside a turn, or holding another player's piece
    B_KEY                   # the key is not state_key() of the state

# Why an action is not legal; 0 means legal.
cdef enum Refusal:
    LEGAL = 0
    R_OVER
    R_SETUP_ONLY            # place after setup
    R_NOT_IN_SETUP          # anything but place during setup
    R_NOT_OUTER
    R_OCCUPIED
    R_ACTIVATED
    R_NO_PIECE              # the piece needed is not in the available area
    R_NO_LIGHT
    R_COLUMN_EMPTY
    R_NOT_OWN
    R_SOURCE_SEED
    R_TARGET_ACTIVATED
    R_SHADED
    R_FULL_GROWN            # grow a large tree
    R_NOT_LARGE
    R_OUT_OF_RANGE

# The whole state of a game, without padding (152 bytes). `key` is the position's key
# (docs/engine.md, "Position keys"). Two states are the same position when same_position()
# says so: memcmp says more, since the token log keeps the order tokens were taken in, which
# is history; canonical_state() puts it in a fixed order, after which memcmp decides.
ctypedef struct State:
    uint64_t size_bb[NSIZES]          # cells holding a piece of each size
    uint64_t owner_bb[MAX_PLAYERS]    # cells holding a piece of each player
    uint64_t active                   # cells the player to move has activated this turn
    uint8_t light[MAX_PLAYERS]
    uint8_t avail[MAX_PLAYERS][NSIZES]    # [player][size] in the available area
    uint8_t pboard[MAX_PLAYERS][NSIZES]   # [player][size] on the player board
    uint8_t stack[NSTACKS]            # tokens left, indexed by leaves - 1
    uint8_t toklog[NTOKENS]           # tokens in the order taken: player << TOKEN_SHIFT | value
    uint8_t ntok
    uint8_t players
    uint8_t options
    uint8_t last_round
    uint8_t round             # 0 during setup
    uint8_t first
    uint8_t current           # NO_PLAYER once over
    uint8_t phase
    uint64_t key              # the position's key, state_key(): kept up to date by state_init,
                              # apply_action and play_random_game (docs/engine.md)


cdef int cell_bit(int cell) noexcept nogil
cdef int bit_cell(int bit) noexcept nogil
cdef int cell_distance(int a, int b) noexcept nogil
cdef int richness(int cell) noexcept nogil
cdef int plant_action(int src, int tgt) noexcept nogil
cdef int plant_source(int action) noexcept nogil
cdef int plant_target(int action) noexcept nogil
cdef void state_init(State* s, int players, int options) noexcept nogil
cdef int sun_of(const State* s) noexcept nogil
cdef void shadows(const State* s, uint64_t* by_size) noexcept nogil
cdef void shadows_under(const State* s, int sun, uint64_t* by_size) noexcept nogil
cdef int token_for(const State* s, int leaves) noexcept nogil
cdef uint64_t shaded_cells(const State* s) noexcept nogil
cdef int size_at(const State* s, int bit) noexcept nogil
cdef int owner_at(const State* s, int bit) noexcept nogil
cdef int legal_actions(const State* s, uint16_t* out) noexcept nogil
cdef int count_legal(const State* s) noexcept nogil
cdef int action_cost(const State* s, int action) noexcept nogil
cdef int check_action(const State* s, int action) noexcept nogil
cdef void apply_action(State* s, int action) noexcept nogil
cdef void encode_observation(const State* s, int viewer, float* out) noexcept nogil
cdef void legal_mask(const State* s, uint8_t* out) noexcept nogil
cdef long long perft(const State* s, int depth) noexcept nogil
cdef int score(const State* s, int player) noexcept nogil
cdef int broken_invariant(const State* s) noexcept nogil
cdef uint64_t state_key(const State* s) noexcept nogil
cdef bint same_position(const State* a, const State* b) noexcept nogil
cdef void canonical_state(const State* s, State* out) noexcept nogil
cdef int winners_mask(const State* s) noexcept nogil
cdef void returns(const State* s, double* out) noexcept nogil
cdef uint64_t rng_next(uint64_t* rng) noexcept nogil
cdef int rng_below(uint64_t* rng, int n) noexcept nogil
cdef uint64_t game_seed(uint64_t seed, uint64_t index) noexcept nogil
cdef int random_action(const State* s, uint64_t* rng) noexcept nogil
cdef int play_random_game(State* s, uint64_t* rng) noexcept nogil
cdef int playout(const State* s, uint64_t* rng, double* out) noexcept nogil
cdef void playout_returns(const State* states, const uint64_t* seeds, long long n,
                          long long first, long long count, float* out) noexcept nogil
cdef void playout_totals(long long first, long long count, int players, uint64_t seed,
                         int flags, long long* moves, long long* score_sums,
                         long long* wins) noexcept nogil


# ---- action ids, decoded for the callers (the kernel's own moves use decode/encode) ----

cdef inline int action_kind(int action) noexcept nogil:
    """The kind of move (KIND_PLACE .. KIND_END) of an action id."""
    if action < BUY_BASE:
        return KIND_PLACE
    if action < PLANT_BASE:
        return KIND_BUY
    if action < GROW_BASE:
        return KIND_PLANT
    if action < COLLECT_BASE:
        return KIND_GROW
    if action < END_ACTION:
        return KIND_COLLECT
    return KIND_END

cdef inline int acted_cell(int action) noexcept nogil:
    """The cell a move acts on: where a place puts its tree, the tree a grow or a collect
    acts on, the tree a plant plants from (its source); -1 for buy and end."""
    cdef int kind = action_kind(action)
    if kind == KIND_PLACE:
        return action - PLACE_BASE
    if kind == KIND_PLANT:
        return plant_source(action)
    if kind == KIND_GROW:
        return action - GROW_BASE
    if kind == KIND_COLLECT:
        return action - COLLECT_BASE
    return -1

cdef inline uint64_t touched_cells(int action) noexcept nogil:
    """The cells a plant, grow or collect activates, as a bitboard (0 for the others)."""
    cdef int kind = action_kind(action)
    if kind == KIND_PLANT:
        return (<uint64_t>1 << cell_bit(plant_source(action))
                | <uint64_t>1 << cell_bit(plant_target(action)))
    if kind == KIND_GROW or kind == KIND_COLLECT:
        return <uint64_t>1 << cell_bit(acted_cell(action))
    return 0

cdef inline bint actions_commute(int x, int y, int options) noexcept nogil:
    """Whether playing x then y in a turn, wherever that is legal, could as well be y then
    x: y is legal before x, x after y, and both orders reach the same position. True for
    two plants, grows or collects on disjoint cells (their costs are fixed, neither gives
    back light or an available piece, and the cells each needs are the other's to leave
    alone), unless shade blocks growth and one changes the shadows (grow, collect) that
    the other is judged by (plant, grow). Buys (a column's price moves), end and place
    never commute. docs/searching.md, "Orders of a turn"."""
    cdef int kx = action_kind(x), ky = action_kind(y)
    if kx < KIND_PLANT or kx > KIND_COLLECT or ky < KIND_PLANT or ky > KIND_COLLECT:
        return False
    if touched_cells(x) & touched_cells(y):
        return False
    if options & OPT_SHADE_BLOCKS:
        if (kx != KIND_PLANT and ky != KIND_COLLECT) or (ky != KIND_PLANT and kx != KIND_COLLECT):
            return False
    return True
