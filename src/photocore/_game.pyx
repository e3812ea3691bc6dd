# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Game, Move and LegalMoves: the Python face of the kernels."""

cimport cython
from cpython.exc cimport PyErr_CheckSignals
from cpython.mem cimport PyMem_Free, PyMem_Malloc, PyMem_Realloc
from libc.stdint cimport uint8_t, uint16_t, uint64_t
from libc.string cimport memcmp, memcpy, memset

import os
import threading as _threading
from operator import index

import numpy as np

from photocore._interrupt cimport pc_note_main_thread, pc_raise_interrupt, pc_signalled
from photocore._kernel cimport *

from photocore import notation
from photocore._kernel import check_count, check_players, check_seed, check_threads
from photocore.errors import (IllegalMoveError, InvalidMoveError, InvalidPositionError,
                              InvariantError)
from photocore.facts import (CELLS, MOVE_KINDS, OPTIONS, SIZE_NAMES, SIZES, STACK_LEAVES, Options,
                             win_share)
from photocore.notation import MOVE_TEXTS, parse_move_text

cdef tuple _PHASES = ("setup", "play", "over")
# what each broken invariant of the state (the kernel's Broken) means, by the field it names
cdef dict _BROKEN = {
    B_BITBOARDS: "board: pieces overlap, have no owner among the players or lie off the board",
    B_PIECES: "player: more pieces of a size than a player owns (available, on the player "
              "board and on the main board)",
    B_COLUMNS: "player board: a column holds more pieces than it has slots",
    B_LIGHT: f"light: over {LIGHT_CAP}",
    B_TOKENS: "stacks: a stack holds more tokens than it has, or the tokens taken from the "
              "stacks are not the tokens the players hold",
    B_CLOCK: "round, first, to-move: the first player of a round is (round - 1) mod players "
             "(0 in setup), and a game is over after its last round only",
    B_SETUP: "setup: not a position setup reaches (the players in turn place small trees on "
             "the outer ring, and nothing else happens)",
    B_ACTIVATED: "activated: cells are activated only during a turn, and hold no piece of "
                 "another player",
    B_KEY: "key: the position key kept move by move is not the key of the state",
}
cdef bint _checking = os.environ.get("PHOTOCORE_CHECK_INVARIANTS") == "1"


def check_invariants(bint on=True):
    """Checks the state's invariants after every move Game.play makes (slower; for debugging).

    Also on when the environment has PHOTOCORE_CHECK_INVARIANTS=1 at import. Returns the
    previous setting. A broken invariant raises InvariantError and the move is taken back.
    """
    global _checking
    previous = _checking
    _checking = on
    return previous


cdef dict _OPTIONS_OF_FLAGS = {options.flags: options for options in OPTIONS}

pc_note_main_thread(_threading.main_thread().ident)

cdef enum:
    # games one nogil stretch of random_playouts and Game.playouts plays before it looks for
    # a signal (pc_signalled): about 10 ms of play (2.4 us a two-player game, 4.5 us four)
    SIGNAL_CHUNK = 4096
    PERFT_SPLIT = 3            # perft: subtrees this deep are counted between two looks

# The most playouts Game.playouts and photocore.playouts return at once: their float32
# array (n x players x 4 bytes a game, 16 at most) stays within 2 GiB. More: call again
# with another seed, or random_playouts, which keeps no array.
MAX_PLAYOUTS = 1 << 27


@cython.final
def random_playouts(games, players=2, seed=0, *, options=None):
    """Plays `games` whole games (0 to 2**63 - 1) of uniformly random legal moves (`end`
    included) in C, without the GIL, with `options` (an Options or its text,
    docs/engine.md); `seed` is any integer, taken modulo 2**64 (facts.check_seed).

    Returns a dict: games, moves, score_sums (per seat), wins (per seat, the games it won or
    shared) and win_shares (per seat, its wins with a tie's shared, facts.win_share: the
    seats' shares add up to the games).

    >>> r = random_playouts(10, players=3, seed=1, options="s")
    >>> r["games"], len(r["wins"]), round(sum(r["win_shares"]), 9)
    (10, 3, 10.0)
    """
    games, players = check_count(games, "games"), check_players(players)
    cdef uint64_t base = check_seed(seed)
    cdef int flags_on = Options.coerce(options).flags
    cdef long long count = games, moves = 0
    cdef long long score_sums[MAX_PLAYERS]
    cdef long long wins[MAX_PLAYERS * MAX_PLAYERS]     # by seat, then by number of winners
    cdef int nplayers = players
    cdef long long first = 0, run
    memset(score_sums, 0, sizeof(score_sums))
    memset(wins, 0, sizeof(wins))
    cdef bint stopped = False
    with nogil:
        # in chunks, Ctrl-C looked for between two (off the per-game path)
        while first < count and not stopped:
            run = min(<long long>SIGNAL_CHUNK, count - first)
            playout_totals(first, run, nplayers, base, flags_on, &moves, score_sums, wins)
            first += run
            stopped = pc_signalled()
    if stopped:
        pc_raise_interrupt()
    # by_winners[p][n - 1]: the games seat p won with n winners in all
    by_winners = [[wins[p * MAX_PLAYERS + k] for k in range(MAX_PLAYERS)] for p in range(players)]
    return {
        "games": games,
        "moves": moves,
        "score_sums": tuple(score_sums[p] for p in range(players)),
        "wins": tuple([sum(counts) for counts in by_winners]),
        "win_shares": tuple([sum([n * win_share(k + 1) for k, n in enumerate(counts)])
                             for counts in by_winners]),
    }


# The seeds of seed=None (Game.playout, Game.playouts): one stream for the process, as
# Python's random module keeps one, seeded from the OS at import and again in a forked
# child (else every worker a process forks would play the same games).
cdef uint64_t _stream = 0


def _seed_stream():
    global _stream
    _stream = int.from_bytes(os.urandom(8), "little")


_seed_stream()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_seed_stream)


cdef uint64_t _playouts_seed(Game game, seed) except? 0:
    """The seed of playouts from `game`: `seed`'s, or the process stream's next for None;
    ValueError once the game is over (checked first: an error draws nothing)."""
    global _stream
    cdef uint64_t base = 0 if seed is None else check_seed(seed)
    if game.st.phase == PHASE_OVER:
        raise ValueError("the game is over: there is nothing to play out")
    return rng_next(&_stream) if seed is None else base


cdef enum:
    PLAYOUT_CHUNK = 64         # playouts a thread takes at a time (about 0.1 ms of play)


def playouts(games, n=1, seed=0, threads=None):
    """Plays out many positions at once: `n` games of uniformly random legal moves to the
    end from each of `games` (Game.playouts's), on several threads without the GIL. The
    games are left as they are.

    Args:
        games: a sequence of Game, all of one player count, none over.
        n: playouts from each game: len(games) * n at most MAX_PLAYOUTS (2**27, the array
            within 2 GiB), ValueError naming `n` past it.
        seed: any integer (modulo 2**64); playout j of games[i] is seeded from (seed, i, j)
            alone, so the result is the same whatever `threads`.
        threads: threads to play on (None: the cores this process may use; never more
            than one for each 64 playouts, the share a thread takes at a time).

    Returns:
        The returns by seat (Game.returns()'s scale), a float32 array of shape
        (len(games), n, players).

    >>> games = [Game(players=3), Game(players=3)]
    >>> returns = playouts(games, n=4, seed=1)
    >>> returns.shape, bool((playouts(games, n=4, seed=1, threads=1) == returns).all())
    ((2, 4, 3), True)
    """
    cdef long long count = check_playouts(n)
    cdef uint64_t base = check_seed(seed)
    if threads is not None:
        threads = check_threads(threads)
    listed = game_list(games, "there is no position to play out")
    cdef int players = 0, i
    for i, game in enumerate(listed):
        if (<Game>game).st.phase == PHASE_OVER:
            raise ValueError(f"games[{i}]: the game is over: there is nothing to play out")
        if i and (<Game>game).st.players != players:
            raise ValueError(f"games[{i}] has {(<Game>game).st.players} players, games[0] "
                             f"{players}: one array holds the returns of one player count")
        players = (<Game>game).st.players
    if len(listed) * count > MAX_PLAYOUTS:
        raise ValueError(f"n must be from 0 to {MAX_PLAYOUTS // len(listed):,} for "
                         f"{len(listed)} games (at most {MAX_PLAYOUTS:,} playouts in all), "
                         f"got {n!r}: play the rest in another call")
    out = np.empty((len(listed), count, players), np.float32)
    cdef _Playouts work = _Playouts(listed, count, base, out)
    total = len(listed) * count
    if threads is None:
        threads = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                   else os.cpu_count() or 1)
    work.parts = max(1, min(threads, (total + PLAYOUT_CHUNK - 1) // PLAYOUT_CHUNK))
    if work.parts == 1:
        work.run_part(0)
        return out
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(work.parts - 1, "photocore-playouts") as pool:
        parts = [pool.submit(work.run_part, k) for k in range(1, work.parts)]
        try:
            work.run_part(0)
            for part in parts:
                part.result()
        except BaseException:
            work.stop = True        # Ctrl-C: the other threads stop at their next chunk,
            raise                   # and the pool's exit joins them
    return out


def check_playouts(n):
    """`n` of Game.playouts and photocore.playouts: a count (check_count) up to
    MAX_PLAYOUTS, ValueError naming `n` past it (the array would be over 2 GiB)."""
    count = check_count(n, "n")
    if count > MAX_PLAYOUTS:
        raise ValueError(f"n must be from 0 to {MAX_PLAYOUTS:,} (2**27: the returns array "
                         f"stays within 2 GiB), got {n!r}: play the rest in another call")
    return count


def game_list(games, empty):
    """`games`, a sequence of Game, as a list (photocore.playouts, VecGame.from_games);
    TypeError for anything else, one Game included, and ValueError saying `empty` for none."""
    if isinstance(games, Game):
        raise TypeError("games must be a sequence of Game, got one Game")
    try:
        listed = list(games)
    except TypeError:
        raise TypeError(f"games must be a sequence of Game, got "
                        f"{type(games).__name__}") from None
    if not listed:
        raise ValueError(f"games is empty: {empty}")
    for i, game in enumerate(listed):
        if not isinstance(game, Game):
            raise TypeError(f"games[{i}] must be a Game, got {type(game).__name__}")
    return listed


@cython.final
@cython.auto_pickle(False)
cdef class _Playouts:
    """The playouts of photocore.playouts: (game, playout) pairs in row order, cut into
    chunks of PLAYOUT_CHUNK, dealt to `parts` threads in turn."""
    cdef State* states
    cdef uint64_t* seeds           # each game's: its playouts' streams are drawn from it
    cdef long long games, n
    cdef float* out
    cdef int players, parts
    cdef volatile bint stop        # set by the main thread at Ctrl-C: every part stops
    cdef object array              # holds `out`

    def __cinit__(self, list games, long long n, uint64_t base, array):
        cdef float[:, :, ::1] view = array
        cdef Py_ssize_t i
        self.states = <State*>PyMem_Malloc(len(games) * sizeof(State))
        self.seeds = <uint64_t*>PyMem_Malloc(len(games) * sizeof(uint64_t))
        if self.states == NULL or self.seeds == NULL:
            raise MemoryError()
        for i in range(len(games)):
            self.states[i] = (<Game>games[i]).st       # copies: no thread reads a Game
            self.seeds[i] = game_seed(base, <uint64_t>i)
        self.games, self.n = len(games), n
        self.players = array.shape[2]
        self.array = array
        self.out = &view[0, 0, 0] if array.size else NULL
        self.parts = 1
        self.stop = False

    def __dealloc__(self):
        PyMem_Free(self.states)
        PyMem_Free(self.seeds)

    def run_part(self, int part):
        cdef long long total = self.games * self.n, chunk, lo, hi
        cdef long long done = 0
        cdef bint signalled = False
        with nogil:
            # chunks dealt in turn, not halves: a position's playouts and the positions
            # with long games to go are shared out, so the threads finish together.
            # Between two chunks the stop flag, and every 64 (some ms) the main thread
            # looks for a signal, which stops every part
            chunk = part
            while chunk * PLAYOUT_CHUNK < total and not self.stop:
                done += 1
                if done % 64 == 0 and pc_signalled():
                    signalled = self.stop = True
                    break
                lo, hi = chunk * PLAYOUT_CHUNK, min((chunk + 1) * PLAYOUT_CHUNK, total)
                playout_returns(self.states, self.seeds, self.n, lo, hi - lo,
                                &self.out[lo * self.players])
                chunk += self.parts
        if signalled or self.stop:
            self.stop = True
            pc_raise_interrupt()


cdef class Move:
    # the docstring up to "--" is the signature Python gives the class (inspect.signature,
    # help(), the site's reference), as for a built-in type
    """Move(action)
--

    One move: an action id in range(NUM_ACTIONS) and its docs/rules.md §9 notation.

    >>> m = Move.parse("  Plant D4   e5 ")
    >>> str(m), int(m), m.kind, m.source, m.target
    ('plant d4 e5', 435, 'plant', 'd4', 'e5')
    >>> Move(int(m)) == m
    True
    >>> Move.parse("grow d4").cell, Move.parse("buy small").column, Move.parse("end").cell
    ('d4', 'small', None)
    """
    cdef readonly int id
    """The action id, in range(NUM_ACTIONS) (int(move) too)."""

    def __init__(self, action):
        if isinstance(action, bool):      # an int to Python, never an action id
            raise TypeError(f"an action id is an integer, not a bool ({action!r})")
        a = index(action)
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action id {action!r} is outside range({NUM_ACTIONS})")
        self.id = a

    @staticmethod
    def parse(text):
        """The move written `text` (case and extra white space ignored).

        Raises InvalidMoveError naming the text and what is wrong with it.
        """
        return _MOVES[parse_move_text(text)]

    @property
    def kind(self):
        """place, buy, plant, grow, collect or end."""
        return MOVE_KINDS[action_kind(self.id)]

    @property
    def cell(self):
        """The cell the move acts on: where a place puts its tree, the tree a grow or a
        collect acts on, the tree a plant plants from (its source); None for buy and end."""
        cdef int cell = acted_cell(self.id)
        return None if cell < 0 else CELLS[cell]

    @property
    def source(self):
        """The cell of the tree a plant plants from; None for the other kinds."""
        return CELLS[plant_source(self.id)] if action_kind(self.id) == KIND_PLANT else None

    @property
    def target(self):
        """The cell a plant puts its seed on; None for the other kinds."""
        return CELLS[plant_target(self.id)] if action_kind(self.id) == KIND_PLANT else None

    @property
    def column(self):
        """The player-board column a buy buys from (seed, small, medium, large); None for
        the other kinds."""
        return SIZES[self.id - BUY_BASE] if action_kind(self.id) == KIND_BUY else None

    def __int__(self):
        return self.id

    def __index__(self):
        return self.id

    def __str__(self):
        return MOVE_TEXTS[self.id]

    def __repr__(self):
        return f"Move({MOVE_TEXTS[self.id]!r})"

    def __eq__(self, other):
        if isinstance(other, Move):
            return self.id == (<Move>other).id
        return NotImplemented

    def __hash__(self):
        return hash(("photocore.Move", self.id))

    def __reduce__(self):
        return (Move, (self.id,))


cdef list _MOVES = [Move(a) for a in range(NUM_ACTIONS)]


@cython.final
@cython.freelist(8)
cdef class LegalMoves:
    """The legal moves of a position, ascending by id: a sequence of Move (len(), [i],
    iteration, `in`), and the same set as action ids (ids()) or as a mask (mask()).

    Membership accepts a Move, an action id or notation text. A snapshot: it does not follow
    the game once a move is played.

    >>> legal = Game(players=2).legal_moves()
    >>> len(legal), legal[0], legal.ids()[:3], int(legal.mask().sum()), "place a4" in legal
    (18, Move('place a4'), [0, 1, 2], 18, True)
    """
    cdef uint16_t buf[MAX_LEGAL]
    cdef int n

    def __len__(self):
        return self.n

    def __getitem__(self, item):
        if isinstance(item, slice):
            return [_MOVES[self.buf[i]] for i in range(*item.indices(self.n))]
        i = index(item)       # a Python int: no overflow on huge values
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(f"legal move index {item} out of range for {self.n} moves")
        return _MOVES[self.buf[<Py_ssize_t>i]]

    def __iter__(self):
        cdef int i
        for i in range(self.n):
            yield _MOVES[self.buf[i]]

    def __contains__(self, move):
        cdef int a
        try:
            a = _action_of(move)
        except (ValueError, TypeError):
            return False
        return self._index(a) >= 0

    cdef int _index(self, int a) noexcept:
        cdef int lo = 0, hi = self.n, mid
        while lo < hi:
            mid = (lo + hi) >> 1
            if self.buf[mid] < a:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < self.n and self.buf[lo] == a else -1

    def ids(self):
        """The action ids as a list of ints, ascending."""
        return [self.buf[i] for i in range(self.n)]

    def mask(self):
        """A bool array of NUM_ACTIONS, True at each legal action id."""
        mask = np.zeros(NUM_ACTIONS, np.bool_)
        cdef uint8_t[::1] view = mask.view(np.uint8)
        cdef int i
        for i in range(self.n):
            view[self.buf[i]] = 1
        return mask

    def __eq__(self, other):
        if isinstance(other, LegalMoves):
            return self.ids() == (<LegalMoves>other).ids()
        return NotImplemented

    def __repr__(self):
        return "LegalMoves([" + ", ".join(MOVE_TEXTS[self.buf[i]] for i in range(self.n)) + "])"

    def __reduce__(self):
        # as its ids, checked again when unpickled: never the raw C array and count
        return (_legal_moves, (self.ids(),))


def _legal_moves(ids):
    """Unpickles LegalMoves: ValueError unless `ids` ascend strictly within NUM_ACTIONS."""
    ids = [index(a) for a in ids]
    if len(ids) > MAX_LEGAL or any(not 0 <= a < NUM_ACTIONS for a in ids) or ids != sorted(set(ids)):
        raise ValueError(f"legal moves must be at most {MAX_LEGAL} distinct action ids in "
                         f"range({NUM_ACTIONS}), ascending")
    cdef LegalMoves moves = LegalMoves.__new__(LegalMoves)
    cdef int i
    for i in range(len(ids)):
        moves.buf[i] = <uint16_t>ids[i]
    moves.n = len(ids)
    return moves


cdef int _depth(depth, int low) except -1:
    """A perft depth: a whole number from `low`, past the longest game taken as its length
    (a Python int until then: no overflow)."""
    if isinstance(depth, bool):
        raise TypeError(f"depth must be an int, not a bool ({depth!r})")
    plies = index(depth)
    if plies < low:
        raise ValueError(f"depth must be >= {low}, got {depth!r}")
    return min(plies, MAX_GAME_MOVES)


cdef long long _perft(const State* s, int depth) except -1:
    """The kernel's perft(s, depth), its subtrees PERFT_SPLIT plies deep (milliseconds each)
    counted without the GIL one at a time, Ctrl-C looked for between two."""
    cdef uint16_t actions[MAX_LEGAL]
    cdef State child
    cdef int i, n
    cdef long long total = 0
    if depth <= PERFT_SPLIT or s.phase == PHASE_OVER:
        with nogil:
            total = perft(s, depth)
        PyErr_CheckSignals()
        return total
    n = legal_actions(s, actions)
    for i in range(n):
        child = s[0]
        apply_action(&child, actions[i])
        total += _perft(&child, depth - 1)
    return total


cdef int _action_of(move) except -1:
    """The action id of a Move, an int or a notation text."""
    if type(move) is Move:
        return (<Move>move).id
    if isinstance(move, str):
        return parse_move_text(move)
    try:
        if isinstance(move, bool):    # an int to Python, never an action id
            raise TypeError
        a = index(move)
    except TypeError:
        raise TypeError(f"a move is a Move, an action id or notation text, not {type(move).__name__}")
    if not 0 <= a < NUM_ACTIONS:  # a Python int here: no overflow on huge values
        raise InvalidMoveError(f"action id {a} is outside range({NUM_ACTIONS})")
    return <int>a


cdef class Game:
    # the docstring up to "--" is the signature Python gives the class (inspect.signature,
    # help(), the site's reference), as for a built-in type
    """Game(players=2, options=None)
--

    A game of Photosynthesis: its state, its history and the moves from it.

    >>> g = Game(players=2)
    >>> g.phase, len(g.legal_moves())
    ('setup', 18)
    >>> g.play("place a4"); g.current_player
    1
    >>> g.undo()
    Move('place a4')
    >>> str(g)                  # the position notation, as g.position()
    '2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579'

    The advanced rules are one Options value, or its text:

    >>> Game(players=3, options=Options.parse("fs")).options == Game(3, "fs").options
    True
    """
    # C attributes and cdef methods: declared in _game.pxd

    def __cinit__(self):
        # Game.__new__ alone still gives a playable game
        state_init(&self.st, 2, 0)
        self.origin = self.st

    def __init__(self, players=2, options=None):
        cdef int n = check_players(players)
        if type(options) is not Options:
            options = Options.coerce(options)
        state_init(&self.st, n, options.flags)
        self.origin = self.st
        self.n = 0          # a game initialised again starts without the old one's history

    def __dealloc__(self):
        PyMem_Free(self.saved)
        PyMem_Free(self.played)

    # ---- moves --------------------------------------------------------------------

    def legal_moves(self):
        """The legal moves, ascending by action id (empty once the game is over): a
        LegalMoves, whose ids() and mask() give the same set as action ids and as a mask."""
        cdef LegalMoves moves = LegalMoves.__new__(LegalMoves)
        moves.n = legal_actions(&self.st, moves.buf)
        return moves

    def legal_actions(self):
        """The legal moves as action ids, ascending: legal_moves().ids(), under OpenSpiel's
        name for them (`state.legal_actions()`).

        >>> Game().legal_actions()[:3] == Game().legal_moves().ids()[:3]
        True
        """
        return self.legal_moves().ids()

    def is_legal(self, move):
        """True when `move` (a Move, id or text) may be played now: play(move) would succeed.

        Asks the rules about that one move, without listing the others.
        """
        try:
            return check_action(&self.st, _action_of(move)) == LEGAL
        except (ValueError, TypeError):
            return False

    def play(self, move):
        """Plays a Move, an action id or notation text.

        Raises IllegalMoveError (naming the move and the reason) or InvalidMoveError and
        leaves the game unchanged.
        """
        cdef int a = _action_of(move)
        cdef int refusal = check_action(&self.st, a)
        if refusal != LEGAL:
            raise IllegalMoveError(f"{MOVE_TEXTS[a]}: {_refusal(&self.st, a, refusal)}")
        self._push(a)

    cdef int _push(self, int a) except -1:
        if self.n == self.cap:
            self._grow(self.cap * 2 if self.cap else 64)
        self.saved[self.n] = self.st
        self.played[self.n] = <uint16_t>a
        self.n += 1
        apply_action(&self.st, a)
        if _checking and broken_invariant(&self.st) != INTACT:
            self._broken(a)
        return 0

    cdef _broken(self, int a):
        cdef int code = broken_invariant(&self.st)
        position = self.position()
        self.undo()
        raise InvariantError(f"{MOVE_TEXTS[a]} broke an invariant of the state ({_BROKEN[code]}): "
                             f"{position}")

    cdef int _grow(self, Py_ssize_t cap) except -1:
        cdef State* saved = <State*>PyMem_Realloc(self.saved, cap * sizeof(State))
        if saved == NULL:
            raise MemoryError()
        self.saved = saved
        cdef uint16_t* played = <uint16_t*>PyMem_Realloc(self.played, cap * sizeof(uint16_t))
        if played == NULL:
            raise MemoryError()
        self.played = played
        self.cap = cap
        return 0

    def undo(self):
        """Takes the last move back exactly and returns it; IndexError when there is none."""
        if self.n == 0:
            raise IndexError("no move to take back")
        self.n -= 1
        self.st = self.saved[self.n]
        return _MOVES[self.played[self.n]]

    def perft(self, depth):
        """Leaves of the legal-move tree `depth` plies deep (a finished game counts 1; a
        depth past the longest game, MAX_GAME_MOVES, counts as that).

        >>> Game(players=2).perft(2)
        306
        """
        cdef int plies = _depth(depth, 0)
        return _perft(&self.st, plies)

    def perft_divide(self, depth):
        """{move text: perft(depth - 1) after it} for each legal move: to find a wrong count."""
        cdef int plies = _depth(depth, 1)
        cdef dict out = {}
        for move in self.legal_moves():
            self._push(move.id)
            out[str(move)] = self.perft(plies - 1)
            self.undo()
        return out

    def playout(self, seed=None):
        """The returns by seat (returns()'s scale) of one game played from this position to
        the end with uniformly random legal moves (`end` included: random_playouts' policy),
        in C without the GIL; the game is left as it is.

        `seed` (an int) repeats the game: playout(seed=s) is playouts(1, seed=s)[0], not
        rounded to float32. None draws the seed from photocore's own random stream (one
        for the process, seeded from the OS). ValueError once the game is over.

        >>> g = Game(players=3)
        >>> returns = g.playout(seed=1)
        >>> len(returns), g.playout(seed=1) == returns, g.history
        (3, True, [])
        """
        return _playout(self.st, _playouts_seed(self, seed))

    def playouts(self, n, seed=None):
        """The returns by seat of `n` games played out from this position as playout()
        plays one: a float32 array of shape (n, players), in C without the GIL; the game is
        left as it is. `n` is at most MAX_PLAYOUTS (2**27, the array within 2 GiB).
        Ctrl-C stops it within milliseconds (KeyboardInterrupt).

        Game j is seeded from (`seed`, j) alone, as random_playouts seeds its games; None
        draws `seed` from photocore's own stream. photocore.playouts plays out many
        positions at once, on several threads.

        >>> returns = Game(players=2).playouts(1000, seed=7)
        >>> returns.shape, returns.dtype.name, sorted(set(returns.sum(axis=1).tolist()))
        ((1000, 2), 'float32', [0.0])
        """
        cdef long long count = check_playouts(n)
        return _playouts_from(self.st, count, _playouts_seed(self, seed))

    def observation(self, player=None, out=None):
        """The float32 observation tensor, shape (OBSERVATION_SIZE,), seen by `player`.

        `player` defaults to the player to move; the layout is in docs/engine.md. `out` may
        be a caller's C-contiguous float32 array of that shape, filled and returned.
        """
        cdef int viewer = _viewer(&self.st, player)
        array = np.empty(OBS_SIZE, np.float32) if out is None else out
        cdef float[::1] view = _float_buffer(array, "out", OBS_SIZE)
        encode_observation(&self.st, viewer, &view[0])
        return array

    # ---- state --------------------------------------------------------------------
    # Properties: what the state holds, read as it is held, no argument (the settings, the
    # clock, the counters, the history). Methods: whatever takes an argument, whatever the
    # rules work out, and views decoded from the board (docs/engine.md, "API rule").

    @property
    def players(self):
        """The number of players, 2 to 4."""
        return self.st.players

    @property
    def options(self):
        """The advanced rules of this game, as an Options."""
        return _OPTIONS_OF_FLAGS[self.st.options]

    @property
    def last_round(self):
        """The round the game ends after: 18, or 24 with the fourth revolution."""
        return self.st.last_round

    @property
    def phase(self):
        """The phase: "setup" (placing the first trees), "play" or "over"."""
        return _PHASES[self.st.phase]

    @property
    def is_over(self):
        """Whether the game has ended (phase "over")."""
        return self.st.phase == PHASE_OVER

    @property
    def current_player(self):
        """The player to move, None once the game is over."""
        return None if self.st.current == NO_PLAYER else self.st.current

    @property
    def round(self):
        """The round, from 0 (setup) to last_round."""
        return self.st.round

    @property
    def sun(self):
        """The sun's position, 0 to 5 (docs/rules.md §2)."""
        return sun_of(&self.st)

    @property
    def first_player(self):
        """The first player of this round."""
        return self.st.first

    @property
    def light(self):
        """Each player's light points, a tuple by seat."""
        return _light(&self.st)

    @property
    def stacks(self):
        """Tokens left on the 4-, 3-, 2- and 1-leaf stacks (facts.STACK_LEAVES)."""
        return _stacks(&self.st)

    @property
    def key(self):
        """The position's key: a 64-bit int, equal for equal games (==) whatever the moves
        that reached them and, but for a chance of about 2**-64 a pair, different for
        different ones (a Zobrist-style key the kernel keeps up to date move by move;
        docs/engine.md, "Position keys")."""
        return self.st.key

    @property
    def history(self):
        """The moves played since the game (or its start position) began, in order."""
        return [_MOVES[self.played[i]] for i in range(self.n)]

    @property
    def from_start(self):
        """True when the history begins at the game's start position (not a loaded one)."""
        cdef State start
        state_init(&start, self.origin.players, self.origin.options)
        return memcmp(&start, &self.origin, sizeof(State)) == 0

    def available(self, p):
        """(seeds, small, medium, large) in player p's available area."""
        return _available(&self.st, _player(&self.st, p))

    def player_board(self, p):
        """(seeds, small, medium, large) still on player p's player board."""
        return _player_board(&self.st, _player(&self.st, p))

    def tokens(self, p):
        """Values of the scoring tokens player p took, in order."""
        return _tokens(&self.st, _player(&self.st, p))

    def board(self):
        """{cell name: (owner, size)} for every occupied cell, in index order."""
        return _board(&self.st)

    def activated(self):
        """Cells the player to move has activated this turn, in index order."""
        return _cells(self.st.active)

    def shaded(self):
        """Cells whose piece is shaded under the current sun and board, in index order."""
        return _cells(shaded_cells(&self.st))

    def shadows(self):
        """The cells in shadow under the current sun, by the size of the trees that cast
        the shadow: {1: cells any tree shades, 2: cells a medium or large tree shades, 3:
        cells a large tree shades}, each a tuple of cell names in index order.

        A tree of size s is shaded on a cell of shadows()[s], a seed on any cell of
        shadows()[1] (docs/rules.md §8); shaded() lists the pieces so shaded.

        >>> g = Game.from_position("2 - 1 0 0 0 - d4:0:2,d7:1:1 2/2300/4432/- 2/2310/4432/- 0579")
        >>> g.shadows()           # sun 0 stands E: shadows fall W
        {1: ('d2', 'd3', 'd6'), 2: ('d2', 'd3'), 3: ()}
        """
        return _shadows(&self.st)

    def scores(self):
        """Tokens + LP // 3 per player (the final scores once the game is over)."""
        return tuple(score(&self.st, p) for p in range(self.st.players))

    def winners(self):
        """The winning players after the tie-break (most pieces on the main board)."""
        cdef int mask = winners_mask(&self.st)
        return tuple(p for p in range(self.st.players) if mask >> p & 1)

    def returns(self):
        """Zero-sum returns per player: +1/-1 for two players; see docs/engine.md."""
        return _returns(&self.st)

    # ---- the position notation: the game's own text form --------------------------

    def position(self):
        """The position notation of the current state (docs/engine.md); str(game) too."""
        return notation.format_position(_fields(&self.st))

    @staticmethod
    def from_position(text):
        """The game at the position `text`; InvalidPositionError says what is wrong.

        The notation's parser reads the fields (each well-formed and in its range), the
        kernel's invariants decide whether they make a position the game can reach.

        >>> Game.from_position(Game(players=3).position()).players
        3
        """
        cdef Game game = Game.__new__(Game)
        _load(&game.st, text)
        game.origin = game.st
        return game

    def __str__(self):
        return self.position()

    def __repr__(self):
        return f"Game.from_position({self.position()!r})"

    def __eq__(self, other):
        """Games are equal when their positions are, history aside: the order in which a
        player took their tokens is history too (it changes no move, score or result), so
        it may differ between equal games (and between their position texts). Equal games
        have equal keys."""
        if isinstance(other, Game):
            return same_position(&self.st, &(<Game>other).st)
        return NotImplemented

    __hash__ = None

    # ---- copies -------------------------------------------------------------------

    def copy(self, bint history=True):
        """An independent copy; history=False drops the move stack (a struct copy only)."""
        cdef Game g = Game.__new__(Game)
        g.st = self.st
        if history:
            g.origin = self.origin
            if self.n:
                g._grow(self.n)
                memcpy(g.saved, self.saved, self.n * sizeof(State))
                memcpy(g.played, self.played, self.n * sizeof(uint16_t))
                g.n = self.n
        else:
            g.origin = self.st
        return g

    def root(self):
        """A new Game at the position this game's history starts from (its start position,
        or the position it was loaded from), without history.

        >>> g = Game(); g.play("place a4"); g.root() == Game(), g.root().history
        (True, [])
        """
        cdef Game g = Game.__new__(Game)
        g.st = self.origin
        g.origin = self.origin
        return g

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        return (_restore, (self.root().position(), [self.played[i] for i in range(self.n)]))


# ---- Game's work over its State: refusals in words, positions, seats, playouts ------------

cdef str _refusal(const State* s, int a, int refusal):
    """Why the rules refuse action a at s (check_action's `refusal`), for IllegalMoveError."""
    cdef int p = s.current, kind = action_kind(a), bit, size, target
    if refusal == R_OVER:
        return "the game is over"
    if refusal == R_SETUP_ONLY:
        return "placing is for setup only"
    if refusal == R_NOT_IN_SETUP:
        return "only place moves are legal during setup"
    if refusal == R_NOT_OUTER:
        return f"{CELLS[acted_cell(a)]} is not on the outer ring"
    if refusal == R_COLUMN_EMPTY:
        return f"the {SIZES[a - BUY_BASE]} column of the player board is empty"
    if refusal == R_NO_LIGHT:
        return f"needs {action_cost(s, a)} light, player {p} has {s.light[p]}"
    if refusal == R_TARGET_ACTIVATED:
        return f"{CELLS[plant_target(a)]} was already activated this turn"
    if refusal == R_OCCUPIED:
        return f"{CELLS[acted_cell(a) if kind == KIND_PLACE else plant_target(a)]} is occupied"
    cell = acted_cell(a)
    if refusal == R_NOT_OWN:
        return f"player {p} has no piece on {CELLS[cell]}"
    if refusal == R_ACTIVATED:
        return f"{CELLS[cell]} was already activated this turn"
    if refusal == R_SOURCE_SEED:
        return f"{CELLS[cell]} holds a seed, not a tree"
    if refusal == R_OUT_OF_RANGE:
        bit = cell_bit(cell)
        target = plant_target(a)
        return (f"{CELLS[target]} is {cell_distance(cell, target)} cells away, beyond the "
                f"reach {size_at(s, bit)} of the tree on {CELLS[cell]}")
    if refusal == R_NO_PIECE:
        if kind == KIND_PLACE:
            return "no small tree available"
        if kind == KIND_PLANT:
            return "no seed available"
        size = size_at(s, cell_bit(cell)) + 1
        return f"no {SIZE_NAMES[size]} available"
    if refusal == R_SHADED:
        if kind == KIND_PLANT:
            return f"{CELLS[plant_target(a)]} lies in a shadow (shade blocks growth)"
        return f"{CELLS[cell]} is shaded (shade blocks growth)"
    if refusal == R_FULL_GROWN:
        return f"the tree on {CELLS[cell]} is already large"
    if refusal == R_NOT_LARGE:
        return f"the piece on {CELLS[cell]} is not a large tree"
    return "not legal here"


cdef int _load(State* st, text) except -1:
    """Sets st to the position `text`, or InvalidPositionError: notation.parse_position
    reads the fields, broken_invariant() checks the state they make."""
    fields = notation.parse_position(text)
    cdef int p, k, cell, owner, size, players = fields.players
    held = sum(map(len, fields.tokens))
    if held > NTOKENS:      # more than the state's token log holds
        raise InvalidPositionError(f"tokens: the players hold {held}, the game has "
                                   f"{NTOKENS}")
    state_init(st, players, fields.options.flags)
    st.round = fields.round
    st.phase = PHASE_SETUP if st.round == 0 else PHASE_PLAY
    st.first = fields.first
    if fields.current is None:
        st.phase = PHASE_OVER
        st.current = NO_PLAYER
    else:
        st.current = fields.current
    for cell in fields.activated:
        st.active |= (<uint64_t>1) << cell_bit(cell)
    for cell, owner, size in fields.board:
        st.size_bb[size] |= (<uint64_t>1) << cell_bit(cell)
        st.owner_bb[owner] |= (<uint64_t>1) << cell_bit(cell)
    for p in range(players):
        st.light[p] = fields.light[p]
        for k in range(NSIZES):
            st.avail[p][k] = fields.available[p][k]
            st.pboard[p][k] = fields.player_board[p][k]
        for k in fields.tokens[p]:
            st.toklog[st.ntok] = (p << TOKEN_SHIFT) | k
            st.ntok += 1
    for k, leaves in enumerate(STACK_LEAVES):
        st.stack[leaves - 1] = fields.stacks[k]
    st.key = state_key(st)
    cdef int broken = broken_invariant(st)
    if broken != INTACT:
        raise InvalidPositionError(f"{text!r}: {_BROKEN[broken]}")
    if fields.sun != sun_of(st):      # the state has no sun: its round places it
        raise InvalidPositionError(f"{text!r}: sun {fields.sun}: round {fields.round} has "
                                   f"the sun at {sun_of(st)}")
    return 0


cdef _fields(const State* s):
    """The state's PositionFields, for notation.format_position."""
    cdef int p, cell, bit, size, players = s.players
    board = []
    for cell in range(NCELLS):
        bit = cell_bit(cell)
        size = size_at(s, bit)
        if size >= 0:
            board.append((cell, owner_at(s, bit), size))
    return notation.PositionFields(
        players, _OPTIONS_OF_FLAGS[s.options], s.round, sun_of(s), s.first,
        None if s.current == NO_PLAYER else s.current, _cell_indices(s.active), tuple(board),
        _light(s), tuple(_available(s, p) for p in range(players)),
        tuple(_player_board(s, p) for p in range(players)),
        tuple(_tokens(s, p) for p in range(players)), _stacks(s))


cdef int _player(const State* s, p) except -1:
    if not isinstance(p, int) or not 0 <= p < s.players:
        raise ValueError(f"player must be an int in range({s.players}), got {p!r}")
    return p


cdef int _viewer(const State* s, player) except -1:
    """The seat `player` names, the player to move for None (0 once the game is over)."""
    if player is None:
        return 0 if s.current == NO_PLAYER else s.current
    return _player(s, player)


cdef tuple _playout(State s, uint64_t seed):
    """Game.playout: the returns of one random game from s, in C without the GIL."""
    cdef uint64_t rng = game_seed(seed, 0)
    cdef double out[MAX_PLAYERS]
    with nogil:
        playout(&s, &rng, out)
    return tuple(out[p] for p in range(s.players))


cdef _playouts_from(State s, long long count, uint64_t base):
    """Game.playouts: `count` games from s, game j seeded from (base, j), in C without the
    GIL; Ctrl-C looked for between chunks."""
    out = np.empty((count, s.players), np.float32)
    cdef float[:, ::1] view = out
    cdef long long first = 0, run
    cdef bint stopped = False
    if count:
        with nogil:
            while first < count and not stopped:
                run = min(<long long>SIGNAL_CHUNK, count - first)
                playout_returns(&s, &base, count, first, run, &view[first, 0])
                first += run
                stopped = pc_signalled()
    if stopped:
        pc_raise_interrupt()
    return out


# ---- the views of a state that Game's methods and the position notation give ----------

cdef tuple _light(const State* s):
    return tuple(s.light[p] for p in range(s.players))


cdef tuple _stacks(const State* s):
    return tuple(s.stack[leaves - 1] for leaves in STACK_LEAVES)


cdef tuple _available(const State* s, int q):
    return tuple(s.avail[q][k] for k in range(NSIZES))


cdef tuple _player_board(const State* s, int q):
    return tuple(s.pboard[q][k] for k in range(NSIZES))


cdef tuple _tokens(const State* s, int q):
    return tuple(s.toklog[k] & TOKEN_VALUE_MASK for k in range(s.ntok)
                 if s.toklog[k] >> TOKEN_SHIFT == q)


cdef dict _shadows(const State* s):
    cdef uint64_t by_size[NSIZES]
    shadows(s, by_size)
    return {size: _cells(by_size[size]) for size in range(1, NSIZES)}


cdef tuple _returns(const State* s):
    cdef double out[MAX_PLAYERS]
    returns(s, out)
    return tuple(out[p] for p in range(s.players))


cdef dict _board(const State* s):
    cdef dict out = {}
    cdef int cell, bit, size
    for cell in range(NCELLS):
        bit = cell_bit(cell)
        size = size_at(s, bit)
        if size >= 0:
            out[CELLS[cell]] = (owner_at(s, bit), size)
    return out


cdef float[::1] _float_buffer(array, str name, Py_ssize_t size):
    """`array` as a float32 buffer of `size` floats, or ValueError naming what is wrong."""
    if not isinstance(array, np.ndarray) or array.dtype != np.float32:
        raise ValueError(f"{name} must be a numpy float32 array, got "
                         f"{getattr(array, 'dtype', type(array).__name__)}")
    if array.shape != (size,) or not array.flags.c_contiguous or not array.flags.writeable:
        raise ValueError(f"{name} must be a writeable C-contiguous array of shape ({size},), "
                         f"got shape {array.shape}")
    return array


cdef tuple _cell_indices(uint64_t mask):
    """The cells of a bitboard, ascending."""
    cdef list out = []
    while mask:
        out.append(bit_cell(pc_lowest(mask)))
        mask &= mask - 1
    return tuple(out)


cdef tuple _cells(uint64_t mask):
    """The names of the cells of a bitboard, in index order."""
    return tuple([CELLS[cell] for cell in _cell_indices(mask)])


def _restore(root, actions):
    """Unpickles a Game: its start position, then its moves replayed."""
    cdef Game g = Game.from_position(root)
    for a in actions:
        g.play(a)
    return g
