"""OpenSpiel adapter: importing this module registers the game "python_photosynthesis".

>>> import pyspiel, photocore.env.openspiel
>>> game = pyspiel.load_game("python_photosynthesis", {"players": 3})
>>> state = game.new_initial_state()
>>> state.action_to_string(state.legal_actions()[0])
'place a4'

Returns, the length bound, serialisation and undo are explained in docs/engine.md, "OpenSpiel".
"""

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from photocore._game import OBSERVATION_SIZE, Game
from photocore.facts import LIGHT_CAP, Options
from photocore.notation import MOVE_TEXTS, NUM_ACTIONS

SHORT_NAME = "python_photosynthesis"
DEFAULT_PARAMS = {"players": 2, "fourth_revolution": False, "shade_blocks": False}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="Photosynthesis (photocore)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=DEFAULT_PARAMS,
)


def max_game_length(players, fourth_revolution=False):
    """A bound on the moves of any game: 2 placements per player, then per turn at most
    20 paid actions (each costs >= 1 LP, a turn starts with <= 20 LP and earns none) + end.

    >>> max_game_length(2), max_game_length(4, fourth_revolution=True)
    (760, 2024)
    """
    rounds = Options(fourth_revolution=fourth_revolution).rounds
    return 2 * players + rounds * players * (LIGHT_CAP + 1)


class PhotosynthesisGame(pyspiel.Game):
    """The game for given parameters: players (2-4), fourth_revolution, shade_blocks."""

    def __init__(self, params=None):
        params = {**DEFAULT_PARAMS, **(params or {})}
        players = params["players"]
        if players not in (2, 3, 4):
            raise ValueError(f"players must be 2, 3 or 4, got {players}")
        self.options = Options(bool(params["fourth_revolution"]), bool(params["shade_blocks"]))
        super().__init__(GAME_TYPE, pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0 / (players - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(players, self.options.fourth_revolution),
        ), params)

    def new_initial_state(self):
        return PhotosynthesisState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return PhotosynthesisObserver(params)
        return _InformationStateObserver(iig_obs_type, params)


class _InformationStateObserver(IIGObserverForPublicInfoGame):
    """The information state: OpenSpiel's history string for public-information games, and
    no tensor (provides_information_state_tensor is False). OpenSpiel does not check that
    flag for Python games and would return [] (as for its own python_tic_tac_toe): this
    makes information_state_tensor() and its shape raise instead."""

    def set_from(self, state, player):
        raise pyspiel.SpielError(
            f"{SHORT_NAME} has perfect information and no information state tensor: use "
            "observation_tensor() (the whole position)")


class _Position:
    """The photocore.Game inside a state. OpenSpiel clones a state by deep-copying its
    attributes: the copy keeps the game's moves (a memcpy), so that a clone can undo too."""

    __slots__ = ("game",)

    def __init__(self, game):
        self.game = game

    def __deepcopy__(self, memo):
        return _Position(self.game.copy())

    def __reduce__(self):
        return (_Position, (self.game,))    # the Game pickles as its start and its moves


class PhotosynthesisState(pyspiel.State):
    """A position; the game's moves are its actions (photocore action ids)."""

    def __init__(self, game):
        super().__init__(game)
        self._pos = _Position(Game(game.num_players(), options=game.options))

    @property
    def photocore_game(self):
        """The photocore.Game of this state (read it; play through apply_action)."""
        return self._pos.game

    def current_player(self):
        player = self._pos.game.current_player
        return pyspiel.PlayerId.TERMINAL if player is None else player

    def _legal_actions(self, player):
        return self._pos.game.legal_moves().ids()

    def _apply_action(self, action):
        self._pos.game.play(action)

    def undo_action(self, player, action):
        """Takes back `action`, the last action played, which `player` played (OpenSpiel's
        State.undo_action): the wrapped game is as it was before it.

        ValueError, and nothing changes, unless `action` is the last action and `player`
        played it. OpenSpiel keeps history() and move_number() in C++, where a game written
        in Python cannot shorten them: they still count the action taken back
        (docs/engine.md, OpenSpiel).
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

    def _action_to_string(self, player, action):
        return MOVE_TEXTS[action]

    def is_terminal(self):
        return self._pos.game.is_over

    def returns(self):
        game = self._pos.game
        return list(game.returns()) if game.is_over else [0.0] * game.players

    def __str__(self):
        return self._pos.game.position()


class PhotosynthesisObserver:
    """Observation tensor: photocore's Game.observation(player), OBSERVATION_SIZE float32;
    the observation string is the position (the game has perfect information)."""

    def __init__(self, params):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        state.photocore_game.observation(player, out=self.tensor)

    def string_from(self, state, player):
        return state.photocore_game.position()


pyspiel.register_game(GAME_TYPE, PhotosynthesisGame)
