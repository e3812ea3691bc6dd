"""The rules every environment for learners keeps, written once (as pgx's `Env.step` is the
one step its environments share): the agents' names and the learner's seat, the returns,
the illegal-action forfeit and the score-lead shaping. VecGame (in C), the Gymnasium
environments, Stable-Baselines3's VecEnv, PettingZoo's raw_env and the OpenSpiel game read
them here (docs/rl.md, "One contract").

>>> agent_names(3)
['player_0', 'player_1', 'player_2']
>>> check_seat("random", 2), check_seat(1, 2)
('random', 1)
>>> score_lead(np.array([[12, 9, 15], [4, 2, 3]]), np.array([0, 0]))
array([-3.,  1.])
"""

from operator import index
from typing import TYPE_CHECKING, Any, Literal, SupportsIndex

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from photocore._game import Game

__all__ = ["FORFEIT_REWARD", "LeadShaping", "agent_names", "check_seat", "returns",
           "score_lead", "step_learners"]

FORFEIT_REWARD = -1.0
"""The reward of an illegal action: the player who gives one loses the game at once, -1 to
it (worse than any loss, from -1/(players - 1) up) and 0 to the others. The environments
that take an action from a learner forfeit it (Gymnasium's, SB3's, VecGame's `forfeit=True`,
PettingZoo's `env()`); OpenSpiel's game, whose callers keep to the legal actions, raises."""


def agent_names(players: int) -> list[str]:
    """The agents' names, by player: `player_0` ... (PettingZoo's agents, by seat)."""
    return [f"player_{p}" for p in range(players)]


def check_seat(seat: SupportsIndex | str, players: int) -> int | Literal["random"]:
    """The learner's seat: a player from 0 to players - 1, or "random" for one drawn as
    each game starts (ValueError else; TypeError for a value that is no integer)."""
    if isinstance(seat, str) and seat == "random":
        return "random"
    if isinstance(seat, (bool, np.bool_)) or not 0 <= index(seat) < players:  # type: ignore[arg-type]
        raise ValueError(f"seat must be a player from 0 to {players - 1} or 'random', "
                         f"got {seat!r}")
    return index(seat)  # type: ignore[arg-type]


def returns(game: "Game") -> list[float]:
    """Each player's reward for a game: Game.returns() once it is over (zero-sum, from
    -1/(players - 1) to 1: docs/engine.md), zeros before; the only rewards there are
    but the shaping and the forfeit."""
    return list(game.returns()) if game.is_over else [0.0] * game.players


def score_lead(scores: npt.ArrayLike, seats: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Each game's learner's score lead: its score minus the best of the others' (scores
    (n, players), seats (n,)); what the shaping rewards the change of."""
    table = np.array(scores, np.int64, ndmin=2)
    rows, seat = np.arange(len(table)), np.asarray(seats, np.int64)
    own = table[rows, seat]
    table[rows, seat] = np.iinfo(np.int64).min
    lead: npt.NDArray[np.float64] = (own - table.max(axis=1)).astype(np.float64)
    return lead


class LeadShaping:
    """The score-lead shaping of n games: `weight` times the change of the learner's
    score lead (score_lead) since its last move, added to its reward; a game's lead is 0
    at its start and at its end, so over a game the shaping sums to 0 (potential-based)."""

    def __init__(self, weight: float, n: int = 1) -> None:
        self.weight = float(weight)
        self.lead = np.zeros(n)

    def reset(self) -> None:
        """Every game at its start: no lead."""
        self.lead[:] = 0.0

    def bonus(self, scores: npt.ArrayLike, seats: npt.ArrayLike,
              done: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Each game's shaping reward for the step that left it at `scores` with its
        learner in `seats` (`done`: it ended, lead 0)."""
        lead = np.where(done, 0.0, score_lead(scores, seats))
        bonus: npt.NDArray[np.float64] = self.weight * (lead - self.lead)
        self.lead = lead
        return bonus


def step_learners(vec: Any, actions: npt.ArrayLike, obs: Any, mask: Any, rewards: Any,
                  done: Any, **outputs: Any) -> None:
    """`vec.step` (a VecGame's) as the learners' environments step it: an illegal action
    forfeits its game (FORFEIT_REWARD to its player) and the rewards are arranged by the
    learner, who gave the action (rewards[:, 0] is its); `outputs` are step's other
    outputs."""
    vec.step(actions, obs, mask, rewards, done, relative=True, forfeit=True, **outputs)
