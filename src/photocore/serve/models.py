"""The shapes of the API's requests and answers (pydantic), which also make its OpenAPI
schema. Requests are checked here (types, ranges, no unknown field); what needs the game
(legal moves, served agents, positions) is checked by serve/store.py and serve/table.py;
serve/view.py builds GameState, the one definition of a game as the API shows it."""

from typing import Annotated, Any

from photocore.errors import missing_extra

try:
    from pydantic import (
        AfterValidator,
        BaseModel,
        BeforeValidator,
        ConfigDict,
        Field,
        StrictInt,
        StrictStr,
    )
except ImportError as e:     # the `serve` extra
    raise missing_extra(__name__, "serve", e) from None

from photocore.facts import MAX_PLAYERS, MIN_PLAYERS, OPTIONS, check_seed
from photocore.serve.table import MAX_TOP

__all__ = [
    "OPTION_TEXTS", "Request", "NewGame", "PlayMove", "AskHint", "Resign", "Error", "MoveInfo",
    "HistoryItem", "Forfeit", "GameState", "Invite", "NewGameState", "HintMove", "Hints", "Info"
]

OPTION_TEXTS = tuple(map(str, OPTIONS))


def _move_or_id(value: object) -> object:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError("must be the move in notation (text) or its action id (an integer)")
    return value


class Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(Request):
    """A game to create; every field may be left out."""

    players: Annotated[StrictInt | None, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)] = Field(
        None, description=f"{MIN_PLAYERS} to {MAX_PLAYERS} (default: the position's, else 2)")
    options: Annotated[StrictStr | None, Field(max_length=8)] = Field(
        None, description=f"the advanced rules: one of {', '.join(OPTION_TEXTS)}")
    seats: Annotated[list[Annotated[StrictStr, Field(max_length=200)]] | None,
                     Field(max_length=MAX_PLAYERS)] = Field(
        None, description="per seat, 'person' or one of the served agents (GET /api/info); "
                          "default: a person in seat 0, the first served agent elsewhere")
    position: Annotated[StrictStr | None, Field(max_length=2000)] = Field(
        None, description="a position to start from (docs/engine.md, position notation)")
    moves: Annotated[list[Annotated[StrictStr | StrictInt, BeforeValidator(_move_or_id)]]
                     | None, Field(max_length=2000)] = Field(
        None, description="moves played first, from the start or the position (a "
                          "record's moves, to continue it)")
    seed: Annotated[StrictInt, AfterValidator(check_seed)] | None = Field(
        None, description="seeds the agents: any integer, taken modulo 2**64 (default: a "
                          "random one)")


class PlayMove(Request):
    """A person's move."""

    move: Annotated[StrictStr | StrictInt, BeforeValidator(_move_or_id)] = Field(
        description="the move in notation ('plant d4 e5') or its action id")
    ply: StrictInt | None = Field(
        None, description="the number of moves the client saw: a move sent for an older "
                          "position is refused (409) rather than played")


class AskHint(Request):
    top: Annotated[StrictInt, Field(ge=1, le=MAX_TOP)] = Field(
        3, description="how many moves to suggest")


class Resign(Request):
    player: Annotated[StrictInt | None, Field(ge=0, lt=MAX_PLAYERS)] = Field(
        None, description="the seat that resigns: the token's (any other is refused)")


class Error(BaseModel):
    error: str = Field(description="what is wrong, in one line")


class MoveInfo(BaseModel):
    move: str
    id: int


class HistoryItem(BaseModel):
    move: str
    player: int
    by: str = Field(description="person, agent, or given (played before the game began here)")


class Forfeit(BaseModel):
    seat: int
    reason: str


class GameState(BaseModel):
    """A game as the API shows it."""

    id: str
    version: int = Field(description="grows with every change")
    players: int
    options: str
    seats: list[str] = Field(description="'person' or the agent's label, per seat")
    names: list[str] = Field(description="'person' or the name the agent announced (its "
                             "label if none), per seat: what the page shows and the record "
                             "keeps")
    position: str = Field(description="the position notation")
    phase: str
    round: int
    last_round: int
    sun: int
    first_player: int
    current_player: int | None
    to_move: str | None = Field(description="person, agent, or null once the game is over")
    thinking: bool = Field(description="an agent is choosing its move")
    thinking_seconds: float | int = Field(description="how long the agent to move has been "
                                          "thinking, to the tenth (0 when none is)")
    stopped: bool = Field(description="the agents were stopped (POST .../resume goes on)")
    over: bool
    winners: list[int] | None
    forfeit: Forfeit | None = Field(description="a seat that resigned or forfeited")
    status: str = Field(description="the state of the game in words")
    unsaved: str | None = Field(description=(
        "why the agent's last move could not be saved (a full disk): it thinks again at the "
        "next request for the game, or POST .../resume; null once a change is saved"))
    light: list[int]
    scores: list[int]
    available: list[list[int]]
    player_board: list[list[int]]
    tokens: list[list[int]]
    stacks: list[int]
    board: list[dict[str, Any]] = Field(description="cell, owner, size of each piece")
    activated: list[str]
    shaded: list[str]
    shadows: dict[str, list[str]]
    legal_moves: list[MoveInfo]
    history: list[HistoryItem]
    reply: list[int] = Field(description="indices in history of the agents' moves since "
                                         "a person's last move")
    can_undo: bool
    recordable: bool = Field(description="the game began at the start (a record can hold it)")
    svg: str | None = Field(None, description="the board as SVG, when asked for (svg=true)")


class Invite(BaseModel):
    seat: int
    token: str = Field(description="the seat's secret: send it as Authorization: Bearer TOKEN")
    link: str = Field(description="the page's address for this seat (the token in its "
                                  "fragment, which browsers send to no server)")


class NewGameState(GameState):
    """A game just created: its state, and its seats' tokens, shown this once."""

    invites: list[Invite] = Field(description="per person's seat, its token and link")
    watch: str = Field(description="the page's address to watch the game, read-only")


class HintMove(BaseModel):
    move: str
    id: int
    value: float = Field(description="mean return for the player to move, -1 to +1")
    playouts: int


class Hints(BaseModel):
    ply: int
    budget: int
    by: str
    moves: list[HintMove]


class Info(BaseModel):
    version: str
    rules_version: str
    agents: list[str] = Field(description="the agents a game can seat, default first")
    players: list[int]
    columns: list[str] = Field(description="the player board's columns, as buy moves name them")
    options: dict[str, str] = Field(description="each options text and its rules in words")
    games: int
    max_games: int
    max_games_per_client: int = Field(description="unfinished games one client may hold")
    expire_seconds: float = Field(description="an unfinished game is dropped this long "
                                          "after its last request")
    keep_seconds: float = Field(description="a finished game stays readable this long")
    saved: bool = Field(description="the games are kept on disk: they outlive a restart")
