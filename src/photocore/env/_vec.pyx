# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""VecGame: n games in one C array, stepped together for batched neural-network training."""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.math cimport exp, log
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint64_t

from operator import index

import numpy as np

from photocore._interrupt cimport pc_raise_interrupt
from photocore._kernel cimport *
from photocore._game cimport Game

from photocore._game import game_list
from photocore.play._agents cimport AgentSpec, agent_action, agent_spec

from photocore._kernel import check_bool, check_count, check_players, check_seed, check_threads
from photocore._kernel import stream_seed as stream_seed   # a game's random streams' seeds

MAX_GAMES = 1 << 24     # the most games a VecGame holds
from photocore.env.contract import FORFEIT_REWARD, check_seat
from photocore.facts import Options
from photocore.notation import MOVE_TEXTS
from photocore.play.specs import BUILTIN_FORMS, per_seat
from photocore.play.specs import parse as parse_spec

cdef double FORFEIT = FORFEIT_REWARD    # the forfeit's reward, read without the GIL

ctypedef struct Batch:
    # what one pass over games lo .. hi - 1 reads and writes (NULL: not asked for)
    const int64_t* actions    # the moves to play; NULL for a fresh start of every game
    float* obs
    uint8_t* mask
    int64_t* player
    float* rewards
    uint8_t* done
    float* final
    uint8_t* forfeited
    bint relative
    bint forfeit
    bint keep                 # with actions NULL: observe the games as they are, not afresh

cdef enum:
    # random streams of a game with opponents: stream 0 draws the learner's seat, stream
    # k + 1 is opponent k's (the k-th player after the learner)
    SEAT_STREAM = 0
    STREAMS = MAX_PLAYERS


cdef class VecGame:
    # the docstring up to "--" is the signature Python gives the class (inspect.signature,
    # help(), the site's reference), as for a built-in type
    """VecGame(n, players=2, *, options=None, opponents=None, seat=0, threads=1)
--

    `n` games stepped at once; finished games start again automatically.

    >>> env = VecGame(4, players=2)
    >>> obs, mask = env.reset(seed=0)
    >>> obs.shape, mask.shape, int(mask[0].sum())
    ((4, 798), (4, 890), 18)
    >>> actions = mask.argmax(axis=1)          # the first legal action of each game
    >>> obs, mask, rewards, done = env.step(actions)
    >>> rewards.shape, bool(done.any())
    ((4, 2), False)

    Observations (float32, photocore.OBSERVATION_SIZE per game) are those of the player to
    move (docs/engine.md); masks are bool, NUM_ACTIONS per game; rewards (float32,
    n x players) are Game.returns() of a game that ended on this step, else 0; done marks
    those games, whose observation and mask are already of the next game.

    With `opponents` (a built-in agent spec: `random`, `greedy`, `mcts:N`, or a list of
    players - 1 of them, the k-th for the k-th player after the learner) the learner plays
    one seat (`seat`: a player, or "random" for a seat drawn as each game starts) and
    the opponents' moves are played in C inside reset and step, so the player to move is
    always the learner (docs/rl.md).

    >>> env = VecGame(3, players=2, opponents="greedy", seat="random")
    >>> obs, mask = env.reset(seed=0)
    >>> obs, mask, rewards, done = env.step(env.random_actions())
    """
    cdef State* states
    cdef uint64_t* streams             # STREAMS per game, with opponents (else NULL)
    cdef uint8_t* seats                # the learner's seat per game, with opponents
    cdef State start
    cdef AgentSpec agents[MAX_PLAYERS - 1]
    cdef int seat_choice               # the learner's seat, -1 for drawn per game
    cdef bint interrupted              # an opponent's search stopped at Ctrl-C this pass
    cdef bint learning                 # opponents play the seats but the learner's
    cdef readonly int num_games
    """The number of games, n."""
    cdef readonly int players
    """Players in each game, 2 to 4."""
    cdef readonly long long episodes   # games finished since reset
    """Games finished since the last reset, in all games."""
    cdef readonly tuple opponents      # the opponents' specs, () without opponents
    """The opponents' specs, by seat after the learner's; () without opponents."""
    cdef uint64_t rng                  # for random_actions and sample_actions
    cdef readonly int threads
    """Threads stepping the games, this one included."""
    cdef object pool                   # threads - 1 helpers, made on first use
    cdef Batch batch                   # the pass under way

    def __cinit__(self, n, players=2, *, options=None, opponents=None, seat=0, threads=1):
        players = check_players(players)
        options = Options.coerce(options)
        n = check_count(n, "n")     # an int from here: numpy ints and __index__ objects too
        if not 1 <= n <= MAX_GAMES:
            raise ValueError(f"n must be from 1 to {MAX_GAMES}, got {n}")
        self.threads = check_threads(threads)
        self.players = players
        self.opponents = _set_opponents(self.agents, opponents, players)
        self.learning = opponents is not None
        seat = check_seat(seat, players)
        self.seat_choice = -1 if seat == "random" else seat
        self.states = <State*>PyMem_Malloc(n * sizeof(State))
        if self.states == NULL:
            raise MemoryError()
        if self.learning:
            self.streams = <uint64_t*>PyMem_Malloc(n * STREAMS * sizeof(uint64_t))
            self.seats = <uint8_t*>PyMem_Malloc(n * sizeof(uint8_t))
            if self.streams == NULL or self.seats == NULL:
                raise MemoryError()
        self.num_games = n
        state_init(&self.start, players, options.flags)
        if self.learning:
            _seed_streams(self.streams, np.arange(n, dtype=np.uint64), None)
        self._run_all()             # self.batch is all zeros: start every game, observing none

    def __dealloc__(self):
        PyMem_Free(self.states)
        PyMem_Free(self.streams)
        PyMem_Free(self.seats)

    cdef void _opponents_play(self, int i) noexcept nogil:
        """Plays the opponents' moves until the learner is to move or the game is over."""
        cdef State* s = &self.states[i]
        cdef int seat = self.seats[i], k
        cdef int a
        while s.phase != PHASE_OVER and s.current != seat and not self.interrupted:
            k = (s.current - seat - 1 + self.players) % self.players
            a = agent_action(&self.agents[k], s, &self.streams[i * STREAMS + 1 + k])
            if a < 0:               # INTERRUPTED: an mcts opponent's search at Ctrl-C
                self.interrupted = True
                return
            apply_action(s, a)

    cdef void _start(self, int i) noexcept nogil:
        self.states[i] = self.start
        if self.learning:
            self.seats[i] = (self.seat_choice if self.seat_choice >= 0 else
                             rng_below(&self.streams[i * STREAMS + SEAT_STREAM], self.players))
            self._opponents_play(i)

    cdef long long _run(self, int lo, int hi) noexcept nogil:
        """Games lo .. hi - 1 through self.batch: each plays its move (or starts afresh),
        then is observed. Returns how many games ended."""
        cdef const Batch* b = &self.batch
        cdef State* s
        cdef int i, mover, lost, players = self.players
        cdef long long finished = 0
        for i in range(lo, hi):
            if self.interrupted:
                break
            s = &self.states[i]
            if b.actions == NULL:
                if not b.keep:
                    self._start(i)
            else:
                mover = s.current
                lost = b.forfeit and check_action(s, <int>b.actions[i]) != LEGAL
                if not lost:
                    apply_action(s, <int>b.actions[i])
                    if self.learning:
                        self._opponents_play(i)
                b.done[i] = lost or s.phase == PHASE_OVER
                if b.forfeited != NULL:
                    b.forfeited[i] = lost
                _rewards(s, mover, lost, b.done[i], b.relative, &b.rewards[i * players])
                if b.done[i]:
                    if b.final != NULL:
                        encode_observation(s, mover, &b.final[i * OBS_SIZE])
                    self._start(i)
                    finished += 1
            if b.obs != NULL:
                encode_observation(s, s.current % players, &b.obs[i * OBS_SIZE])
                legal_mask(s, &b.mask[i * NUM_ACTIONS])
            if b.player != NULL:
                b.player[i] = s.current
        return finished

    def _run_part(self, int part):
        """Part `part` of `threads` of the pass under way (what a helper thread runs)."""
        cdef int lo = <long long>self.num_games * part // self.threads
        cdef int hi = <long long>self.num_games * (part + 1) // self.threads
        cdef long long finished
        with nogil:
            finished = self._run(lo, hi)
        if self.interrupted:
            pc_raise_interrupt()
        return finished

    cdef long long _run_all(self) except -1:
        """Runs self.batch over every game, in `threads` parts side by side; at Ctrl-C in an
        opponent's search, KeyboardInterrupt (the pass left part done: reset() to go on)."""
        self.interrupted = False
        cdef long long finished
        if self.threads == 1 or self.num_games < 2 * self.threads:
            with nogil:
                finished = self._run(0, self.num_games)
            if self.interrupted:
                pc_raise_interrupt()
            return finished
        return _run_threads(self)

    cdef void _point(self, obs, mask, player) except *:
        """Points self.batch's observation outputs at these numpy arrays."""
        self.batch.obs = _floats(obs)
        self.batch.mask = _bytes(mask)
        self.batch.player = _int64s(player)

    def reset(self, seed=None, obs=None, mask=None, *, seeds=None, player=None):
        """Starts every game afresh; returns (obs, mask).

        The rules have no chance: the seeds are those of the random streams, of
        random_actions and sample_actions (from `seed`) and, with opponents, of each game's
        seat draws and opponents (game i's from seeds[i], else from seed + i). A game not
        seeded goes on with its streams (a new VecGame's start from seed 0). A seed is
        any integer, taken modulo 2**64 (photocore.facts.check_seed).
        `player` (int64 (n,)), if given, is filled with the player to move in each game.
        """
        if seed is not None:
            seed = check_seed(seed)
        per_game, which = _game_seeds(seed, seeds, self.num_games)
        obs_v, obs, mask_v, mask = self._outputs(obs, mask)
        player_v, player = _output(player, (self.num_games,), np.int64, "player", True)
        if seed is not None:
            self.rng = <uint64_t>seed
        if per_game is not None and self.learning:
            _seed_streams(self.streams, per_game, which)
        self._point(obs_v, mask_v, player_v)
        self.batch.actions = NULL
        self.batch.keep = False
        self._run_all()
        self.episodes = 0
        return obs, mask

    def observe(self, obs=None, mask=None, *, player=None):
        """The observations and masks of the games as they stand, as reset and step return
        them, without playing a move or starting a game: (obs, mask), in one call (after
        set_game or from_games, say). The outputs may be given as for step.

        >>> from photocore import Game
        >>> game = Game(players=2); game.play("place a4")
        >>> obs, mask = VecGame.from_games([Game(players=2), game]).observe()
        >>> bool((obs[1] == game.observation()).all()), int(mask[1].sum())
        (True, 17)
        """
        obs_v, obs, mask_v, mask = self._outputs(obs, mask)
        player_v, player = _output(player, (self.num_games,), np.int64, "player", True)
        self._point(obs_v, mask_v, player_v)
        self.batch.actions = NULL
        self.batch.keep = True
        self._run_all()
        return obs, mask

    @classmethod
    def from_games(cls, games, *, threads=1):
        """A VecGame of copies of the positions of `games` (Games of one player count and
        options, none of them over; their histories are not kept), to observe them and
        step them together: the leaves a search reached, say. Game i is set as
        set_game(i, games[i]) sets it; `threads` as for VecGame.

        >>> from photocore import Game
        >>> env = VecGame.from_games([Game(players=3), Game(players=3)])
        >>> env.num_games, env.players
        (2, 3)
        """
        listed = game_list(games, "a VecGame holds at least one game")
        cdef Game first = listed[0]
        env = cls(len(listed), first.st.players, options=first.options, threads=threads)
        for i, game in enumerate(listed):
            try:
                env.set_game(i, game)
            except ValueError as e:
                raise ValueError(f"games[{i}]: {e}") from None
        return env

    def set_game(self, i, Game game not None):
        """Replaces game i with a copy of `game`'s position (its history is not kept), as
        Search.set_game does: a game of this VecGame's players and options, not over. Its
        random streams go on; with opponents, the learner takes the seat of the player to
        move (the learner is always to move). Once it ends, step starts it afresh as it
        starts every game."""
        cdef int k = _game_index(i, self.num_games)
        if game.st.players != self.players or game.st.options != self.start.options:
            raise ValueError(f"the game has {game.st.players} players and options "
                             f"{game.options.name!r}, this VecGame's games {self.players} "
                             f"and {Options.from_flags(self.start.options).name!r}")
        if game.st.phase == PHASE_OVER:
            raise ValueError("the game is over: a VecGame holds games in play")
        self.states[k] = game.st
        if self.learning:
            self.seats[k] = game.st.current

    def step(self, actions, obs=None, mask=None, rewards=None, done=None, *, final_obs=None,
             player=None, relative=False, forfeit=False, forfeited=None):
        """Plays actions[i] in game i; returns (obs, mask, rewards, done).

        `actions` holds a legal action id per game: any integer array of shape (n,) or
        (n, 1) (numpy, a CPU torch tensor, a list ...). If any is illegal nothing is played
        and ValueError names the game; with `forfeit=True` an illegal action (in
        range(NUM_ACTIONS)) instead ends its game as lost by its player: -1 to it, 0 to the
        others, and `forfeited` (bool (n,)), if given, marks those games. With opponents,
        the opponents then play until the learner is to move.

        The outputs may be given as arrays to fill, numpy or any object with the array
        interface or DLPack (torch tensors are filled in place): float32 (n,
        OBSERVATION_SIZE), bool (n, NUM_ACTIONS), float32 (n, players), bool (n,), and
        `final_obs` float32 (n, OBSERVATION_SIZE): the last position of each game that
        ended, seen by the player who ended it (other rows are left as they were);
        `player` int64 (n,): the player to move, whose view obs[i] is.
        `relative=True` arranges rewards by the mover: rewards[i, k] is the return of the
        k-th player after the one who played actions[i] (the observation's slots), so
        rewards[:, 0] is the mover's.
        """
        relative = check_bool(relative, "relative")
        forfeit = check_bool(forfeit, "forfeit")
        cdef int64_t[::1] acts = _checked_actions(self.states, self.num_games, actions, forfeit)
        obs_v, obs, mask_v, mask = self._outputs(obs, mask)
        rew_v, rewards = _output(rewards, (self.num_games, self.players), np.float32, "rewards")
        done_v, done = _output(done, (self.num_games,), np.bool_, "done")
        final_v, final_obs = _output(final_obs, (self.num_games, OBS_SIZE), np.float32,
                                     "final_obs", True)
        player_v, player = _output(player, (self.num_games,), np.int64, "player", True)
        lost_v, forfeited = _output(forfeited, (self.num_games,), np.bool_, "forfeited", True)
        self._point(obs_v, mask_v, player_v)
        self.batch.final = _floats(final_v)
        self.batch.forfeited = _bytes(lost_v)
        self.batch.rewards = _floats(rew_v)
        self.batch.done = _bytes(done_v)
        self.batch.relative = relative
        self.batch.forfeit = forfeit
        self.batch.keep = False
        self.batch.actions = &acts[0]
        self.episodes += self._run_all()
        return obs, mask, rewards, done

    def random_actions(self, out=None):
        """A uniformly random legal action id per game (int64 (n,)), from the reset seed."""
        view, out = _output(out, (self.num_games,), np.int64, "out")
        cdef int64_t[::1] acts = view
        cdef int i
        with nogil:
            for i in range(self.num_games):
                acts[i] = random_action(&self.states[i], &self.rng)
        return out

    def sample_actions(self, logits, out=None, *, log_prob=None):
        """An action id per game (int64 (n,)) drawn from the softmax of `logits` over that
        game's legal actions, from the reset seed: a masked categorical sample in C.

        `logits` is a float array (n, NUM_ACTIONS), numpy or a CPU torch tensor (without
        grad: `.detach()`); the entries of illegal actions are not read. `log_prob`
        (float32 (n,)), if given, gets the log-probability of each chosen action.
        ValueError if a game's legal logits are not finite numbers (-inf for some is fine).
        """
        array = _input_array(logits, "logits")
        if array.shape != (self.num_games, NUM_ACTIONS):
            raise ValueError(f"logits must have shape ({self.num_games}, {NUM_ACTIONS}), "
                             f"got {array.shape}")
        if array.dtype.kind != "f":
            raise ValueError(f"logits must be a float array, got dtype {array.dtype}")
        array = np.ascontiguousarray(array, dtype=np.float32)
        view, out = _output(out, (self.num_games,), np.int64, "out")
        logp_v, log_prob = _output(log_prob, (self.num_games,), np.float32, "log_prob", True)
        cdef const float[:, ::1] L = array
        cdef int64_t* acts = _int64s(view)
        cdef float* lp = _floats(logp_v)
        cdef uint64_t saved = self.rng
        cdef int i, bad = -1
        with nogil:
            for i in range(self.num_games):
                if _sample(&self.states[i], &L[i, 0], &self.rng, &acts[i],
                           NULL if lp == NULL else &lp[i]) < 0:
                    bad = i
                    break
        if bad >= 0:
            self.rng = saved
            raise ValueError(f"logits of game {bad} are not finite numbers over its legal "
                             "actions")
        return out

    def scores(self, out=None):
        """Each game's scores now (int64 (n, players)), as Game.scores()."""
        view, out = _output(out, (self.num_games, self.players), np.int64, "out")
        cdef int64_t[:, ::1] v = view
        cdef int i, p
        with nogil:
            for i in range(self.num_games):
                for p in range(self.players):
                    v[i, p] = score(&self.states[i], p)
        return out

    def game(self, i):
        """A Game holding a copy of game i's current state (no history)."""
        cdef Game g = Game.__new__(Game)
        g.st = self.states[_game_index(i, self.num_games)]
        g.origin = g.st
        return g

    @property
    def current_player(self):
        """The player to move in each game, int8 array."""
        out = np.empty(self.num_games, np.int8)
        cdef signed char[::1] view = out
        for i in range(self.num_games):
            view[i] = self.states[i].current
        return out

    @property
    def key(self):
        """Each game's position key (Game.key), uint64 array."""
        out = np.empty(self.num_games, np.uint64)
        cdef uint64_t[::1] view = out
        cdef int i
        for i in range(self.num_games):
            view[i] = self.states[i].key
        return out

    cdef tuple _outputs(self, obs, mask):
        obs_v, obs = _output(obs, (self.num_games, OBS_SIZE), np.float32, "obs")
        mask_v, mask = _output(mask, (self.num_games, NUM_ACTIONS), np.bool_, "mask")
        return obs_v, obs, mask_v, mask


def draw_below(stream, n):
    """(a number below n, the stream's next state): a draw from a random stream as the C
    code draws one (the learner's seat, say)."""
    cdef uint64_t state = <uint64_t>check_seed(stream, "stream")
    cdef int value = rng_below(&state, index(n))
    return value, state


cdef long long _run_threads(VecGame env) except -1:
    """VecGame._run_all in `threads` parts side by side, on its pool of helper threads."""
    cdef long long finished
    if env.pool is None:
        from concurrent.futures import ThreadPoolExecutor
        env.pool = ThreadPoolExecutor(env.threads - 1, "photocore-vecgame")
    parts = [env.pool.submit(env._run_part, k) for k in range(1, env.threads)]
    try:
        finished = env._run_part(0)
        for part in parts:
            finished += part.result()
    except BaseException:
        env.interrupted = True         # the other parts stop at their next game
        from concurrent.futures import wait
        wait(parts)
        raise
    return finished


cdef void _seed_streams(uint64_t* streams, const uint64_t[::1] seeds,
                        const uint8_t[::1] which) noexcept:
    """Seeds the STREAMS streams of game i from seeds[i] (where which[i], if given)."""
    cdef int i, j
    for i in range(seeds.shape[0]):
        if which is None or which[i]:
            for j in range(STREAMS):
                streams[i * STREAMS + j] = game_seed(seeds[i], <uint64_t>j)


cdef int _game_index(i, int n) except -1:
    """`i` as the index of one of n games (TypeError for a bool, IndexError out of range)."""
    if isinstance(i, bool):     # an int to Python, never a game's index
        raise TypeError(f"a game index is an int, not a bool ({i!r})")
    i = index(i)
    if not 0 <= i < n:
        raise IndexError(f"game index {i} out of range for {n} games")
    return i


cdef tuple _set_opponents(AgentSpec* agents, opponents, int players):
    """Sets agents[k] to the C agent of opponent k (the k-th player after the learner);
    their labels, () without opponents."""
    if opponents is None:
        return ()
    labels = []
    for k, spec in enumerate(per_seat(opponents, players)):
        if not isinstance(spec, str):
            raise ValueError(f"opponents: VecGame plays the built-in agents in C and takes "
                             f"their specs ({', '.join(BUILTIN_FORMS)}), got {spec!r}")
        parsed = parse_spec(spec)
        if not parsed.builtin:
            raise ValueError(f"opponents: VecGame plays the built-in agents in C "
                             f"({', '.join(BUILTIN_FORMS)}), not {spec!r}")
        agents[k] = agent_spec(parsed.params)
        labels.append(parsed.label)
    return tuple(labels)


cdef inline void _rewards(const State* s, int mover, bint lost, bint done, bint relative,
                          float* rew) noexcept nogil:
    """A game's rewards for its step by `mover`: 0 before its end; at its end (`done`),
    Game.returns(), or FORFEIT to the mover who `lost` it by an illegal action and 0 to the
    others; by player, or by the mover (`relative`: rew[k] is the k-th player's after it)."""
    cdef double result[MAX_PLAYERS]
    cdef int p, players = s.players
    for p in range(players):
        rew[p] = 0.0
    if not done:
        return
    if lost:
        for p in range(players):
            result[p] = FORFEIT if p == mover else 0.0
    else:
        returns(s, result)
    for p in range(players):
        rew[p] = <float>result[(mover + p) % players if relative else p]


cdef int _sample(const State* s, const float* logits, uint64_t* rng, int64_t* action,
                 float* log_prob) noexcept nogil:
    """Draws a legal action from the softmax of `logits` over the legal actions of `s`
    into `action` (its log-probability into `log_prob` unless NULL); -1, and nothing
    drawn, when those logits are not finite numbers (NaN, inf or all -inf)."""
    cdef uint16_t ids[MAX_LEGAL]
    cdef int j, chosen = 0, count = legal_actions(s, ids)
    cdef double top = logits[ids[0]], total = 0.0, u, x
    for j in range(1, count):
        if logits[ids[j]] > top:
            top = logits[ids[j]]
    for j in range(count):
        total += exp(logits[ids[j]] - top)
    if not (1.0 <= total <= count):
        return -1
    u = (rng_next(rng) >> 11) * (1.0 / 9007199254740992.0) * total
    for j in range(count):
        x = exp(logits[ids[j]] - top)
        if x > 0.0:
            chosen = j        # the last of positive weight, should u round past
            if u < x:
                break
            u -= x
    action[0] = ids[chosen]
    if log_prob != NULL:
        log_prob[0] = <float>(logits[ids[chosen]] - top - log(total))
    return 0


cdef object _checked_actions(const State* states, int n, actions, bint forfeit):
    """`actions` (n,) or (n, 1) as a contiguous int64 array, each an action id and, without
    `forfeit`, legal in its game (ValueError naming the first game where not)."""
    array = _input_array(actions, "actions")
    if array.shape == (n, 1):
        array = array.reshape(n)
    if array.shape != (n,):
        raise ValueError(f"actions must have shape ({n},) or ({n}, 1), got {array.shape}")
    if array.dtype.kind not in "iu":
        raise ValueError(f"actions must be an integer array, got dtype {array.dtype}")
    array = np.ascontiguousarray(array, dtype=np.int64)
    cdef const int64_t[::1] acts = array
    cdef int i, bad = -1
    with nogil:
        for i in range(n):
            if not 0 <= acts[i] < NUM_ACTIONS or (
                    not forfeit and check_action(&states[i], <int>acts[i]) != LEGAL):
                bad = i
                break
    if bad >= 0:
        a = acts[bad]
        text = MOVE_TEXTS[a] if 0 <= a < NUM_ACTIONS else f"action id {a}"
        raise ValueError(f"game {bad}: {text} is not legal there (nothing was played)")
    return array


cdef tuple _game_seeds(seed, seeds, int n):
    """(each game's seed uint64 (n,), which games to seed uint8 (n,) or None for all):
    `seeds` listed per game (None: not seeded), else seed + i; (None, None) for neither."""
    if seeds is not None:
        listed = list(seeds)
        if len(listed) != n:
            raise ValueError(f"seeds must list {n} seeds (or None), got {len(listed)}")
        which = np.array([s is not None for s in listed], np.uint8)
        return np.array([0 if s is None else check_seed(s, f"seeds[{i}]")
                         for i, s in enumerate(listed)], np.uint64), which
    if seed is not None:
        return np.uint64(seed) + np.arange(n, dtype=np.uint64), None
    return None, None


# The data of a C-contiguous output array (checked by _output), NULL for None.
cdef float* _floats(array) except? NULL:
    if array is None:
        return NULL
    cdef float[::1] flat = array.reshape(-1)
    return &flat[0]


cdef uint8_t* _bytes(array) except? NULL:
    if array is None:
        return NULL
    cdef uint8_t[::1] flat = array.reshape(-1).view(np.uint8)
    return &flat[0]


cdef int64_t* _int64s(array) except? NULL:
    if array is None:
        return NULL
    cdef int64_t[::1] flat = array.reshape(-1)
    return &flat[0]


cdef object _input_array(obj, str name):
    """`obj` as a numpy array: numpy's own, a view of a DLPack object (a CPU torch tensor),
    or what numpy.asarray makes of it (a list ...)."""
    if isinstance(obj, np.ndarray):
        return obj
    try:
        if hasattr(obj, "__dlpack__"):
            return np.from_dlpack(obj)
        return np.asarray(obj)
    except (TypeError, ValueError, BufferError, RuntimeError) as e:
        raise ValueError(f"{name} cannot be read as an array in memory: {e}") from None


cdef tuple _output(array, tuple shape, dtype, str name, bint optional=False):
    """(a numpy view to write, the object to return): a new array (None if optional), or
    the caller's after checking its dtype, shape and layout. An object with DLPack or the
    array interface (a torch tensor ...) is written in place through a numpy view."""
    if array is None:
        if optional:
            return None, None
        made = np.empty(shape, dtype)
        return made, made
    view = array
    if not isinstance(array, np.ndarray):
        if not (hasattr(array, "__dlpack__") or hasattr(array, "__array_interface__")
                or hasattr(array, "__array_struct__")):
            raise ValueError(f"{name} must be an array of {np.dtype(dtype).name} (numpy, or "
                             f"with DLPack or the array interface), got {type(array).__name__}")
        view = _input_array(array, name)
    if view.dtype != dtype:
        raise ValueError(f"{name} must be an array of {np.dtype(dtype).name}, got {view.dtype}")
    if view.shape != shape or not view.flags.c_contiguous or not view.flags.writeable:
        raise ValueError(f"{name} must be a writeable C-contiguous array of shape {shape}, "
                         f"got shape {view.shape}")
    return view, array
