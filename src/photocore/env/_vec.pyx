# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""VecGame: n games in one C array, stepped together for batched neural-network self-play."""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int64_t, uint8_t, uint64_t

from operator import index

import numpy as np

from photocore._kernel cimport *
from photocore._game cimport Game

from photocore._kernel import check_count, check_option, check_players
from photocore.notation import MOVE_TEXTS


cdef class VecGame:
    """`n` games stepped at once; finished games start again automatically.

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
    """
    cdef State* states
    cdef State start
    cdef readonly int num_games
    cdef readonly int players
    cdef readonly long long episodes   # games finished since reset
    cdef uint64_t rng                  # for random_actions, seeded by reset

    def __cinit__(self, n, players=2, fourth_revolution=False, shade_blocks=False):
        players = check_players(players)
        fourth_revolution = check_option(fourth_revolution, "fourth_revolution")
        shade_blocks = check_option(shade_blocks, "shade_blocks")
        n = check_count(n, "n")     # an int from here: numpy ints and __index__ objects too
        if not 1 <= n <= 1 << 24:
            raise ValueError(f"n must be from 1 to {1 << 24}, got {n}")
        self.states = <State*>PyMem_Malloc(n * sizeof(State))
        if self.states == NULL:
            raise MemoryError()
        self.num_games = n
        self.players = players
        state_init(&self.start, players, (OPT_FOURTH_REVOLUTION if fourth_revolution else 0)
                   | (OPT_SHADE_BLOCKS if shade_blocks else 0))
        self._reset_all()

    def __dealloc__(self):
        PyMem_Free(self.states)

    cdef void _reset_all(self) noexcept:
        cdef int i
        for i in range(self.num_games):
            self.states[i] = self.start
        self.episodes = 0

    def reset(self, seed=None, obs=None, mask=None):
        """Starts every game afresh; returns (obs, mask).

        The rules have no chance: `seed` only seeds random_actions().
        """
        self._reset_all()
        self.rng = 0 if seed is None else index(seed) & 0xFFFFFFFFFFFFFFFF
        obs, mask = self._outputs(obs, mask)
        self._observe(obs, mask)
        return obs, mask

    def step(self, actions, obs=None, mask=None, rewards=None, done=None):
        """Plays actions[i] in game i; returns (obs, mask, rewards, done).

        `actions` is an integer array of shape (n,) with a legal action id per game; if any
        is illegal nothing is played and ValueError names the game. The outputs may be
        given as arrays to fill (float32 (n, OBSERVATION_SIZE), bool (n, NUM_ACTIONS),
        float32 (n, players), bool (n,)).
        """
        cdef int64_t[::1] acts = self._actions(actions)
        obs, mask = self._outputs(obs, mask)
        rewards = _checked(rewards, (self.num_games, self.players), np.float32, "rewards")
        done = _checked(done, (self.num_games,), np.bool_, "done")
        cdef float[:, ::1] rew = rewards
        cdef uint8_t[::1] fin = done.view(np.uint8)
        cdef double result[4]
        cdef int i, p, finished = 0
        with nogil:
            for i in range(self.num_games):
                apply_action(&self.states[i], <int>acts[i])
                fin[i] = self.states[i].phase == PHASE_OVER
                for p in range(self.players):
                    rew[i, p] = 0.0
                if fin[i]:
                    returns(&self.states[i], result)
                    for p in range(self.players):
                        rew[i, p] = <float>result[p]
                    self.states[i] = self.start
                    finished += 1
        self.episodes += finished
        self._observe(obs, mask)
        return obs, mask, rewards, done

    def random_actions(self, out=None):
        """A uniformly random legal action id per game (int64 (n,)), from the reset seed."""
        out = _checked(out, (self.num_games,), np.int64, "out")
        cdef int64_t[::1] view = out
        cdef int i
        with nogil:
            for i in range(self.num_games):
                view[i] = random_action(&self.states[i], &self.rng)
        return out

    def game(self, i):
        """A Game holding a copy of game i's current state (no history)."""
        i = index(i)
        if not 0 <= i < self.num_games:
            raise IndexError(f"game index {i} out of range for {self.num_games} games")
        cdef Game g = Game.__new__(Game)
        g.st = self.states[<int>i]
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

    cdef int64_t[::1] _actions(self, actions) except *:
        array = np.asarray(actions)
        if array.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {array.shape}")
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions must be an integer array, got dtype {array.dtype}")
        array = np.ascontiguousarray(array, dtype=np.int64)
        cdef int64_t[::1] acts = array
        cdef int i, bad = -1
        with nogil:
            for i in range(self.num_games):
                if not 0 <= acts[i] < NUM_ACTIONS or check_action(&self.states[i], <int>acts[i]) != LEGAL:
                    bad = i
                    break
        if bad >= 0:
            a = acts[bad]
            text = MOVE_TEXTS[a] if 0 <= a < NUM_ACTIONS else f"action id {a}"
            raise ValueError(f"game {bad}: {text} is not legal there (nothing was played)")
        return acts

    cdef tuple _outputs(self, obs, mask):
        obs = _checked(obs, (self.num_games, OBS_SIZE), np.float32, "obs")
        mask = _checked(mask, (self.num_games, NUM_ACTIONS), np.bool_, "mask")
        return obs, mask

    cdef void _observe(self, obs, mask) except *:
        cdef float[:, ::1] o = obs
        cdef uint8_t[:, ::1] m = mask.view(np.uint8)
        cdef int i
        with nogil:
            for i in range(self.num_games):
                encode_observation(&self.states[i], self.states[i].current % self.players, &o[i, 0])
                legal_mask(&self.states[i], &m[i, 0])


cdef _checked(array, tuple shape, dtype, str name):
    """A new array, or the caller's after checking its shape, dtype and layout."""
    if array is None:
        return np.empty(shape, dtype)
    if not isinstance(array, np.ndarray) or array.dtype != dtype:
        raise ValueError(f"{name} must be a numpy {np.dtype(dtype).name} array, got "
                         f"{getattr(array, 'dtype', type(array).__name__)}")
    if array.shape != shape or not array.flags.c_contiguous or not array.flags.writeable:
        raise ValueError(f"{name} must be a writeable C-contiguous array of shape {shape}, "
                         f"got shape {array.shape}")
    return array
