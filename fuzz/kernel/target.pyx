# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The kernel's libFuzzer target: what an input means and what must hold for it.

fuzz/kernel/run.py builds this module and the kernel with clang's coverage and sanitizers
and runs it under libFuzzer (main.c). An input is a mode byte and a payload:

- even mode byte, a game of action ids: the next byte sets the players (2 + b % 3) and the
  options (b >> 2 & 3); then each pair of bytes is a move: the (b1 % n)-th legal move when
  b0's top bit is clear, else the raw action id ((b0 & 0x7F) << 8 | b1) % NUM_ACTIONS,
  played when check_action says it is legal (its refusal must agree with the legal list);
- odd mode byte, a position: the rest, as text, through Game.from_position (the decoder of
  the Python layer), then a few random moves from it.

At every position reached the state must keep every invariant (broken_invariant) and the
kernel must agree with itself (legal_actions, count_legal, legal_mask, check_action,
action_cost); at the last one also on all 890 ids, with random_action and perft, and
play_random_game must play from it exactly the moves random_action draws, to an end that
passes the same checks, and the playouts' lanes must return what playout() returns.
Observations, shadows, scores and returns are computed there (the
sanitizers watch them). A disagreement prints
the position and aborts, and libFuzzer keeps the input. With PHOTOCORE_FUZZ_RECORD=FILE
each input's game is appended to FILE as a JSON line, for run.py --reference.
"""

from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.stdlib cimport abort
from libc.string cimport memcmp

from photocore._game cimport Game
from photocore._kernel cimport *

import json
import os
import sys
import traceback

import photocore
from photocore.errors import InvalidPositionError

cdef enum:
    RANDOM_MOVES_AFTER_POSITION = 8

_path = os.environ.get("PHOTOCORE_FUZZ_RECORD")
# a line at a time: libFuzzer ends the process without finalizing Python, so a buffer left
# unwritten would be lost (and run.py --reference would compare fewer games, or none)
cdef object record = open(_path, "a", buffering=1) if _path else None


cdef str position_of(const State* s):
    cdef Game g = Game.__new__(Game)
    g.st = s[0]
    g.origin = s[0]
    try:
        return g.position()
    except Exception as e:           # a state the notation cannot write is news too
        return f"(no position text: {e!r})"


cdef int fail(str what, const State* s) except -1:
    sys.stderr.write(f"kernel fuzz target: {what}\nposition: {position_of(s)}\n")
    sys.stderr.flush()
    abort()


cdef int check(const State* s, bint fully) except -1:
    """The kernel agrees with itself at s, which keeps every invariant; `fully` adds
    check_action on all 890 ids, random draws, perft, observations and results."""
    cdef uint16_t ids[MAX_LEGAL]
    cdef uint8_t mask[NUM_ACTIONS]
    cdef float obs[OBS_SIZE]
    cdef double result[MAX_PLAYERS]
    cdef double total = 0
    cdef uint64_t sh[NSIZES]
    cdef uint64_t rng = s.size_bb[SEED] ^ s.owner_bb[0] ^ s.active ^ s.light[0]
    cdef int n, i, a, listed = 0, winners, p
    cdef int broken = broken_invariant(s)
    if broken != INTACT:
        fail(f"the state breaks invariant {broken} (see Broken in _kernel.pxd)", s)
    n = legal_actions(s, ids)
    if n != count_legal(s):
        fail(f"legal_actions lists {n} moves, count_legal counts {count_legal(s)}", s)
    if (n == 0) != (s.phase == PHASE_OVER):
        fail(f"{n} legal moves in phase {s.phase}", s)
    legal_mask(s, mask)
    for i in range(n):
        if ids[i] >= NUM_ACTIONS or (i and ids[i] <= ids[i - 1]) or not mask[ids[i]]:
            fail(f"legal_actions lists {ids[i]} out of order or out of legal_mask", s)
        if check_action(s, ids[i]) != LEGAL:
            fail(f"check_action refuses the listed move {ids[i]}: {check_action(s, ids[i])}", s)
        if action_cost(s, ids[i]) > s.light[s.current]:
            fail(f"the listed move {ids[i]} costs {action_cost(s, ids[i])} LP, more than held", s)
    if not fully:
        return 0
    for a in range(NUM_ACTIONS):
        listed += mask[a]
        if (check_action(s, a) == LEGAL) != mask[a]:
            fail(f"check_action says {check_action(s, a)} for {a}, legal_mask {mask[a]}", s)
    if listed != n:
        fail(f"legal_mask marks {listed} moves, legal_actions lists {n}", s)
    if perft(s, 1) != (n if n else 1):
        fail(f"perft(1) is {perft(s, 1)} with {n} legal moves", s)
    for i in range(4 if n else 0):
        a = random_action(s, &rng)
        if not (0 <= a < NUM_ACTIONS and mask[a]):
            fail(f"random_action drew {a}, not a legal move", s)
    for p in range(s.players):
        encode_observation(s, p, obs)
        if score(s, p) < 0:
            fail(f"player {p} scores {score(s, p)}", s)
    shadows(s, sh)
    shaded_cells(s)
    winners = winners_mask(s)
    if winners == 0 or winners >> s.players:
        fail(f"winners_mask {winners:#x}", s)
    returns(s, result)
    for p in range(s.players):
        total += result[p]
    if not -1e-9 < total < 1e-9:
        fail(f"returns sum to {total}, not 0", s)
    return 0


cdef int check_playout(const State* s, uint64_t seed) except -1:
    """play_random_game plays, from s, the moves random_action draws, to a sound end."""
    cdef State fast = s[0], slow = s[0]
    cdef uint64_t fast_rng = seed, slow_rng = seed
    cdef int moves = play_random_game(&fast, &fast_rng), count = 0
    while slow.phase != PHASE_OVER:
        apply_action(&slow, random_action(&slow, &slow_rng))
        count += 1
    if moves != count or fast_rng != slow_rng or memcmp(&fast, &slow, sizeof(State)):
        fail(f"play_random_game played {moves} moves, random_action {count}, to different "
             f"ends ({position_of(&slow)})", &fast)
    check(&fast, True)
    check_lanes(s, seed)
    return 0


cdef enum:
    LANE_PLAYOUTS = 9               # past the 8 lanes: a lane takes a second game


cdef int check_lanes(const State* s, uint64_t seed) except -1:
    """playout_returns' lanes (PHOTOCORE_LANES, run.py) return from s, playout by playout,
    what playout() returns, over as well as in play."""
    cdef float lanes[LANE_PLAYOUTS * MAX_PLAYERS]
    cdef double alone[MAX_PLAYERS]
    cdef uint64_t rng
    cdef int j, p
    playout_returns(s, &seed, LANE_PLAYOUTS, 0, LANE_PLAYOUTS, lanes)
    for j in range(LANE_PLAYOUTS):
        rng = game_seed(seed, <uint64_t>j)
        playout(s, &rng, alone)
        for p in range(s.players):
            if lanes[j * s.players + p] != <float>alone[p]:
                fail(f"playout {j} in lanes returns {lanes[j * s.players + p]} to seat {p}, "
                     f"playout() {alone[p]}", s)
    return 0


cdef int play_ids(const uint8_t* data, size_t size) except -1:
    cdef State s
    cdef uint16_t ids[MAX_LEGAL]
    cdef uint8_t mask[NUM_ACTIONS]
    cdef size_t i = 2
    cdef int n, a, refusal
    if size < 2:
        return 0
    state_init(&s, 2 + data[1] % 3, data[1] >> 2 & 3)
    played = []
    while i + 1 < size and s.phase != PHASE_OVER:
        check(&s, False)
        n = legal_actions(&s, ids)
        if data[i] & 0x80:
            a = ((data[i] & 0x7F) << 8 | data[i + 1]) % NUM_ACTIONS
            legal_mask(&s, mask)
            refusal = check_action(&s, a)
            if (refusal == LEGAL) != mask[a]:
                fail(f"check_action says {refusal} for {a}, legal_mask {mask[a]}", &s)
        else:
            a = ids[data[i + 1] % n]
            refusal = LEGAL
        i += 2
        if refusal == LEGAL:
            apply_action(&s, a)
            played.append(a)
    check(&s, True)
    check_playout(&s, size)
    if record is not None:
        record.write(json.dumps({"players": s.players, "options": s.options, "moves": played})
                     + "\n")
    return 0


cdef int from_position(const uint8_t* data, size_t size) except -1:
    cdef State s
    cdef uint64_t rng
    cdef int k, a
    text = data[1:size].decode("latin-1")
    try:
        game = photocore.Game.from_position(text)
    except InvalidPositionError:
        return 0
    s = (<Game>game).st
    check(&s, True)
    again = photocore.Game.from_position(game.position())
    if memcmp(&(<Game>again).st, &s, sizeof(State)):
        fail("the position text does not decode back to the same state", &s)
    played = []
    rng = size
    for k in range(RANDOM_MOVES_AFTER_POSITION):
        if s.phase == PHASE_OVER:
            break
        a = random_action(&s, &rng)
        apply_action(&s, a)
        played.append(a)
        check(&s, False)
    check_playout(&s, rng)
    if record is not None:
        record.write(json.dumps({"position": game.position(), "moves": played}) + "\n")
    return 0


cdef int one_input(const uint8_t* data, size_t size) noexcept:
    try:
        if size and data[0] & 1:
            from_position(data, size)
        else:
            play_ids(data, size)
    except BaseException:
        traceback.print_exc()
        abort()
    return 0


ONE_INPUT = PyCapsule_New(<void*>one_input, "photocore_kernel_target.one_input", NULL)
