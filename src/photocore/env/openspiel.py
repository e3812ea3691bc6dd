"""OpenSpiel adapter: importing this module registers the game "python_photosynthesis".

>>> import pyspiel, photocore.env.openspiel
>>> game = pyspiel.load_game("python_photosynthesis", {"players": 3})
>>> state = game.new_initial_state()
>>> state.action_to_string(state.legal_actions()[0])
'place a4'

The game's parameters are `players` and a bool per advanced rule (facts.OPTION_RULES):

>>> list(DEFAULT_PARAMS) == ["players", *Options._fields]
True

Returns, the length bound, serialisation and undo are explained in docs/rl.md, "OpenSpiel".
"""

from typing import Any

import numpy as np
import numpy.typing as npt

from photocore.errors import missing_extra

try:
    import pyspiel
    from open_spiel.python.observation import IIGObserverForPublicInfoGame
except ImportError as e:     # the `openspiel` extra
    raise missing_extra(__name__, "openspiel", e) from None


from photocore._game import Game
from photocore._kernel import check_players
from photocore.env.contract import returns
from photocore.facts import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ACTIONS,
    OBSERVATION_SIZE,
    OPTION_RULES,
    Options,
    max_game_moves,
)
from photocore.notation import MOVE_TEXTS

__all__ = [
    "SHORT_NAME", "DEFAULT_PARAMS", "GAME_TYPE", "PhotosynthesisGame", "PhotosynthesisState",
    "PhotosynthesisObserver"
]

SHORT_NAME = "python_photosynthesis"
"""The name the game is registered under with pyspiel (`pyspiel.load_game(SHORT_NAME)`); `python_`
as OpenSpiel names games written in Python."""
DEFAULT_PARAMS: dict[str, int | bool] = {
    "players": MIN_PLAYERS, **{rule.name: False for rule in OPTION_RULES}}
"""The game's parameters and their defaults: the player count (MIN_PLAYERS) and a bool per
advanced rule (all off): OpenSpiel's parameters are plain values, not an Options."""

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Photosynthesis (photocore)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)
"""The game's pyspiel.GameType: sequential, deterministic, perfect information, zero-sum, rewarded
at the end, 2 to 4 players, with DEFAULT_PARAMS."""


class PhotosynthesisGame(pyspiel.Game):  # type: ignore[misc]   # pyspiel has no types
    """The game for given parameters: players (2-4) and a bool per advanced rule."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        players = check_players(params["players"])
        self.options = Options(**{rule.name: bool(params[rule.name]) for rule in OPTION_RULES})
        super().__init__(GAME_TYPE, pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0 / (players - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_moves(players, self.options),
        ), params)

    def new_initial_state(self) -> "PhotosynthesisState":
        """The start of a game of the game's players and options."""
        return PhotosynthesisState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> Any:
        """OpenSpiel's observer: the whole position (PhotosynthesisObserver) for a public
        observation, the default; an information-state observer has no tensor (the game
        has perfect information: its set_from raises pyspiel.SpielError)."""
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PhotosynthesisObserver(params)
        return _InformationStateObserver(iig_obs_type, params)


class _InformationStateObserver(IIGObserverForPublicInfoGame):  # type: ignore[misc]
    """The information state: OpenSpiel's history string for public-information games, and
    no tensor (provides_information_state_tensor is False). OpenSpiel does not check that
    flag for Python games and would return [] (as for its own python_tic_tac_toe): this
    makes information_state_tensor() and its shape raise instead."""

    def set_from(self, state: "PhotosynthesisState", player: int) -> None:
        raise pyspiel.SpielError(
            f"{SHORT_NAME} has perfect information and no information state tensor: use "
            "observation_tensor() (the whole position)")


class _Position:
    """The photocore.Game inside a state. OpenSpiel clones a state by deep-copying its
    attributes: the copy keeps the game's moves (a memcpy), so that a clone can undo too."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: object) -> "_Position":
        return _Position(self.game.copy())

    def __reduce__(self) -> tuple[type["_Position"], tuple[Game]]:
        return (_Position, (self.game,))    # the Game pickles as its start and its moves


class PhotosynthesisState(pyspiel.State):  # type: ignore[misc]
    """A position; the game's moves are its actions (photocore action ids)."""

    def __init__(self, game: PhotosynthesisGame) -> None:
        super().__init__(game)
        self._pos = _Position(Game(game.num_players(), options=game.options))

    @property
    def photocore_game(self) -> Game:
        """The photocore.Game of this state (read it; play through apply_action)."""
        return self._pos.game

    def current_player(self) -> int:
        """The player to move, or pyspiel.PlayerId.TERMINAL once the game is over."""
        player = self._pos.game.current_player
        return int(pyspiel.PlayerId.TERMINAL) if player is None else player

    def _legal_actions(self, player: int) -> list[int]:
        return self._pos.game.legal_moves().ids()

    def _apply_action(self, action: int) -> None:
        self._pos.game.play(action)

    def undo_action(self, player: int, action: int) -> None:
        """Takes back `action`, the last action played, which `player` played (OpenSpiel's
        State.undo_action): the wrapped game is as it was before it.

        ValueError, and nothing changes, unless `action` is the last action and `player`
        played it. OpenSpiel keeps history() and move_number() in C++, where a game written
        in Python cannot shorten them: they still count the action taken back
        (docs/rl.md, OpenSpiel).
        """
        game = self._pos.game
        if not game.history or game.history[-1].id != action:
            last = f"the last action is {game.history[-1].id}" if game.history else "none is left"
            raise ValueError(f"undo_action({player}, {action}): {last}")
        move = game.undo()
        mover = game.current_player
        if mover != player:
            game.play(move)
            raise ValueError(f"undo_action({player}, {action}): player {mover} played it")

    def _action_to_string(self, player: int, action: int) -> str:
        return MOVE_TEXTS[action]

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._pos.game.is_over

    def returns(self) -> list[float]:
        """Each player's return: Game.returns() once over (zero-sum, from -1/(players - 1)
        to 1: docs/engine.md), zeros before (the environments' contract, env/contract.py)."""
        return returns(self._pos.game)

    def __str__(self) -> str:
        return self._pos.game.position()


class PhotosynthesisObserver:
    """Observation tensor: photocore's Game.observation(player), OBSERVATION_SIZE float32;
    the observation string is the position (the game has perfect information)."""

    def __init__(self, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.tensor: npt.NDArray[np.float32] = np.zeros(OBSERVATION_SIZE, np.float32)
        """The observation of the last set_from, float32 (OBSERVATION_SIZE,)."""
        self.dict = {"observation": self.tensor}

    def set_from(self, state: PhotosynthesisState, player: int) -> None:
        """Writes `player`'s observation of `state` into `tensor`."""
        state.photocore_game.observation(player, out=self.tensor)

    def string_from(self, state: PhotosynthesisState, player: int) -> str:
        """The state's position in photocore's position notation (every player's is the
        same)."""
        return state.photocore_game.position()


pyspiel.register_game(GAME_TYPE, PhotosynthesisGame)
