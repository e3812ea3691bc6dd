"""How strong a learned policy is: seeded games against opponents, the win rate with its
confidence interval.

>>> import numpy as np
>>> from photocore.env import evaluate_policy
>>> def first_legal(obs, mask):            # a policy: the observations and the legal actions
...     return mask.argmax(axis=1)         # of n games in, one action per game out
>>> result = evaluate_policy(first_legal, "random", games=20)
>>> result.games, result.wins + result.ties + result.losses
(20, 20)
>>> str(result)                                              # doctest: +ELLIPSIS
'against random: ... wins, ... ties, ... losses in 20 games, win rate ...% (95% CI ...)'

The policy is a function (obs, mask) -> actions over a batch (numpy in, any integer array
out: numpy, a torch tensor), or a Stable-Baselines3 model (its `predict`, given the masks
when it takes them, as MaskablePPO does). docs/rl.md has the details.
"""

import dataclasses
import inspect
import math
from collections.abc import Callable, Sequence
from typing import Any, Literal, Protocol, cast

import numpy as np
import numpy.typing as npt

from photocore._game import Game
from photocore.env._vec import MAX_GAMES, VecGame, draw_below, stream_seed
from photocore.env.contract import step_learners
from photocore.errors import IllegalMoveError
from photocore.facts import Options, check_seed
from photocore.play import specs
from photocore.play.player import Forfeit, Player
from photocore.stats import wilson

__all__ = ["Model", "Policy", "PolicyEvaluation", "evaluate_policy"]

#: A policy: the learners' observations (float32 (n, 798)) and legal actions (bool (n, 890))
#: of n games, to one action id per game (any integer array: numpy, a CPU torch tensor).
Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], Any]


class Model(Protocol):
    """A Stable-Baselines3 model or policy: `predict(obs, ..., deterministic=...)`."""

    def predict(self, observation: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        """(the actions for a batch of observations, the recurrent state), as
        Stable-Baselines3's models give them; evaluate_policy passes the legal actions as
        `action_masks` to a model that takes them (MaskablePPO)."""


@dataclasses.dataclass(frozen=True)
class PolicyEvaluation:
    """The learner's results against its opponents (evaluate_policy)."""
    opponents: str
    """The opponents: their specs, or their names."""
    games: int
    """Games played."""
    wins: int
    """Games it won alone."""
    ties: int
    """Games whose win it shared."""
    losses: int
    """The other games."""
    illegal: int = 0
    """Of the losses, those lost by an illegal action."""
    forfeits: int = 0
    """Of the wins, those won by an opponent's forfeit (an agent or engine that failed)."""
    confidence: float = 0.95
    """The confidence of the interval low .. high, 0 to 1."""
    low: float = 0.0
    """The low end of the win rate's interval at `confidence` (Wilson's score interval)."""
    high: float = 1.0
    """The high end of that interval."""

    @property
    def win_rate(self) -> float:
        """The share of games won alone, 0 to 1 (NaN without games)."""
        return self.wins / self.games if self.games else math.nan

    @property
    def score(self) -> float:
        """The mean score: 1 a win, 1/2 a tie, 0 a loss."""
        return (self.wins + self.ties / 2) / self.games if self.games else math.nan

    def to_dict(self) -> dict[str, Any]:
        """The fields and the win rate, for JSON."""
        return dataclasses.asdict(self) | {"win_rate": self.win_rate}

    def __str__(self) -> str:
        extra = "".join(f", {n} {what}" for n, what in ((self.illegal, "illegal actions"),
                                                        (self.forfeits, "opponent forfeits"))
                        if n)
        return (f"against {self.opponents}: {self.wins} wins, {self.ties} ties, "
                f"{self.losses} losses in {self.games} games, win rate "
                f"{self.win_rate:.1%} ({self.confidence:.0%} CI {self.low:.1%} .. "
                f"{self.high:.1%}){extra}")


def evaluate_policy(policy: Policy | Model,
                    opponents: str | object | Sequence[str | object], games: int = 200, *,
                    players: int = 2, seat: int | Literal["random"] = "random",
                    options: Options | str | None = None, seed: int = 10_000,
                    deterministic: bool = True, batch: int = 256,
                    confidence: float = 0.95) -> PolicyEvaluation:
    """Plays `games` seeded games of the policy against `opponents`; returns the tally.

    opponents: an agent spec (`random`, `greedy`, `mcts:N`, `py:...`, `cmd:...`), an
    agent object (`select(game)`), or a list of players - 1 of these (the k-th plays the
    k-th player after the learner). seat: the learner's player, or "random" (drawn per
    game). deterministic: passed to an SB3 model's predict. An illegal action loses its
    game.

    Against the built-in agents the games run in C, `batch` at a time (game i of the
    first batch is `PhotosynthesisEnv.reset(seed=seed + i)`'s; with more games than
    `batch`, each of its games plays its share of them in turn). Against other agents
    they run one at a time in Python, game j seeded as `PhotosynthesisEnv.reset(seed=seed
    + j)` would seed it.
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a whole number above 0, got {games!r}")
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_GAMES:
        raise ValueError(f"batch must be a whole number from 1 to {MAX_GAMES:,} (a VecGame's "
                         f"games), got {batch!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    choose = _chooser(policy, deterministic)
    seed = check_seed(seed)
    rules = Options.coerce(options)
    players = Game(players, options=rules).players      # checks the player count
    if seat != "random" and (isinstance(seat, bool) or seat not in range(players)):
        raise ValueError(f"seat must be a player from 0 to {players - 1} or 'random', "
                         f"got {seat!r}")
    seats = specs.per_seat(opponents, players)
    built_in = all(isinstance(s, str) and specs.parse(s).builtin for s in seats)
    if built_in:
        tally, label = _in_c(choose, [str(s) for s in seats], games, players, seat, rules,
                             seed, batch)
    else:
        tally, label = _in_python(choose, seats, games, players, seat, rules, seed)
    low, high = wilson(tally["wins"], games, confidence)
    return PolicyEvaluation(label, games, confidence=confidence, low=low, high=high, **tally)


def _chooser(policy: Policy | Model, deterministic: bool) -> Policy:
    """The policy as a function (obs, mask) -> actions."""
    predict = getattr(policy, "predict", None)
    if callable(predict):
        try:
            masked = "action_masks" in inspect.signature(predict).parameters
        except (TypeError, ValueError):
            masked = False

        def choose(obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> Any:
            more = {"action_masks": mask} if masked else {}
            return predict(obs, deterministic=deterministic, **more)[0]
        return choose
    if callable(policy):
        return policy
    raise TypeError(f"policy must be a function (obs, mask) -> actions or a model with "
                    f"predict(), got {type(policy).__name__}")


def _outcome(value: float, players: int) -> str:
    """wins, ties or losses, from the learner's return (Game.returns)."""
    if value > 1 - 1e-6:
        return "wins"              # the sole winner's return
    if value < -1 / (players - 1) + 1e-6:
        return "losses"            # a loser's (or a forfeit's, -1)
    return "ties"


def _actions(choose: Policy, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_],
             ) -> npt.NDArray[np.int64]:
    actions = np.asarray(choose(obs, mask))
    if actions.shape not in ((len(obs),), (len(obs), 1)) or actions.dtype.kind not in "iu":
        raise ValueError(f"the policy must return an integer action per game, shape "
                         f"({len(obs)},), got {actions.dtype} {actions.shape}")
    return actions.reshape(len(obs)).astype(np.int64, copy=False)


def _player(agent: object) -> Player:
    """An agent object as a Player: a Player as it is, else behind specs.PythonAgentPlayer."""
    if isinstance(agent, Player):
        return agent
    if not callable(getattr(agent, "select", None)):
        raise ValueError(f"opponents: {agent!r} is neither an agent spec nor an object with "
                         "select(game)")
    return specs.PythonAgentPlayer(cast(specs.PythonAgent, agent))


def _in_c(choose: Policy, opponents: list[str], games: int, players: int,
          seat: int | Literal["random"], rules: Options, seed: int, batch: int,
          ) -> tuple[dict[str, int], str]:
    n = min(games, batch)
    vec = VecGame(n, players, options=rules, opponents=opponents, seat=seat)
    obs, mask = vec.reset(seed=seed)
    rewards = np.zeros((n, players), np.float32)
    done = np.zeros(n, bool)
    forfeited = np.zeros(n, bool)
    target = np.array([(games + i) // n for i in range(n)][::-1])  # each game's share
    played = np.zeros(n, int)
    tally = dict.fromkeys(("wins", "ties", "losses", "illegal"), 0)
    while (played < target).any():
        actions = _actions(choose, obs, mask)
        step_learners(vec, actions, obs, mask, rewards, done, forfeited=forfeited)
        for i in np.flatnonzero(done & (played < target)).tolist():
            played[i] += 1
            tally[_outcome(float(rewards[i, 0]), players)] += 1
            tally["illegal"] += bool(forfeited[i])
    return tally, ",".join(vec.opponents) if len(set(vec.opponents)) > 1 else vec.opponents[0]


def _in_python(choose: Policy, opponents: list[object], games: int, players: int,
               seat: int | Literal["random"], rules: Options, seed: int,
               ) -> tuple[dict[str, int], str]:
    made = [specs.load(o) if isinstance(o, str) else None for o in opponents]
    seated = [m if m is not None else _player(o) for m, o in zip(made, opponents)]
    tally = dict.fromkeys(("wins", "ties", "losses", "illegal", "forfeits"), 0)
    try:
        for j in range(games):
            learner = (draw_below(stream_seed(seed + j, 0), players)[0] if seat == "random"
                       else seat)
            try:
                for k, player in enumerate(seated):
                    player.reset(stream_seed(seed + j, k + 1))
                value = _one_game(choose, seated, learner, Game(players, options=rules))
            except (Forfeit, IllegalMoveError):
                value = 1.0                 # an opponent failed or played an illegal move
                tally["forfeits"] += 1
            tally["illegal"] += value is None
            tally[_outcome(-1.0 if value is None else value, players)] += 1
    finally:
        for own in made:
            if own is not None:
                own.close()
    labels = [o if isinstance(o, str) else p.name for o, p in zip(opponents, seated)]
    return tally, ",".join(labels) if len(set(labels)) > 1 else labels[0]


def _one_game(choose: Policy, seated: list[Player], learner: int, game: Game) -> float | None:
    """The learner's return in `game` played out, None if it played an illegal action."""
    players = game.players
    while (mover := game.current_player) is not None:
        if mover != learner:
            game.play(seated[(mover - learner - 1) % players].select(game))
            continue
        mask = game.legal_moves().mask()
        action = int(_actions(choose, game.observation(learner)[None], mask[None])[0])
        if not 0 <= action < len(mask) or not mask[action]:
            return None
        game.play(action)
    return game.returns()[learner]

