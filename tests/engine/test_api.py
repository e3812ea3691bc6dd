"""Concrete behaviour of the Python API (docs/engine.md): moves, move lists, errors, playouts,
the layering of the package."""

import copy
import importlib
import pathlib
import pickle
import pkgutil
import re
import subprocess
import sys

import numpy as np
import pytest

import photocore
import photocore.render
from photocore import (
    CELLS,
    NUM_ACTIONS,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    LegalMoves,
    Move,
    Options,
)
from installed import missing_framework
from support import axial, distance

SRC = pathlib.Path(photocore.__file__).parent

ALL = range(NUM_ACTIONS)

# a 2-player position in round 1 with player 0 to move: a seed on a4, a small tree on d4,
# a medium tree on g1 and a large tree on d1 (player 0), a small tree on a7 (player 1)
PLAY = "2 - 1 0 0 0 - a4:0:0,a7:1:1,d1:0:3,d4:0:1,g1:0:2 5/1210/4421/- 0/2310/4432/- 0579"


def finished(players=2, **options):
    """A game played to its end by ending every turn."""
    game = Game(players=players, **options)
    while game.phase == "setup":
        game.play(game.legal_moves()[-1])
    while not game.is_over:
        game.play("end")
    return game


# ---- constants -------------------------------------------------------------------------

def test_constants():
    assert NUM_ACTIONS == 890
    assert isinstance(photocore.RULES_VERSION, str) and photocore.RULES_VERSION.strip()
    assert len(CELLS) == 37 and len(set(CELLS)) == 37
    assert CELLS[:4] == ("a4", "a5", "a6", "a7") and CELLS[18] == "d4"
    assert CELLS[-4:] == ("g1", "g2", "g3", "g4")
    assert all(max(abs(q), abs(r), abs(q + r)) <= 3 for q, r in map(axial, CELLS))
    for name in ("Game", "Move", "LegalMoves", "IllegalMoveError", "InvalidMoveError",
                 "InvalidPositionError", "random_playouts", "NUM_ACTIONS", "RULES_VERSION"):
        assert name in photocore.__all__


def test_errors_are_value_errors():
    for error in (IllegalMoveError, InvalidMoveError, InvalidPositionError):
        assert issubclass(error, ValueError)
    assert not issubclass(IllegalMoveError, InvalidMoveError)
    assert not issubclass(InvalidMoveError, IllegalMoveError)


# ---- Move ------------------------------------------------------------------------------

def test_move_text_round_trip_for_every_id():
    texts = set()
    for a in ALL:
        m = Move(a)
        text = str(m)
        assert int(m) == a and m.id == a
        assert text == text.lower() and text == " ".join(text.split())
        assert Move.parse(text) == m
        assert Move.parse("  " + text.upper().replace(" ", " \t  ") + "\n") == m
        assert int(Move.parse(text)) == a
        texts.add(text)
    assert len(texts) == NUM_ACTIONS


def test_action_id_layout():
    kinds = [Move(a).kind for a in ALL]
    assert kinds == (["place"] * 37 + ["buy"] * 4 + ["plant"] * 774 + ["grow"] * 37
                     + ["collect"] * 37 + ["end"])
    for i, cell in enumerate(CELLS):
        assert str(Move(i)) == f"place {cell}"
        assert str(Move(815 + i)) == f"grow {cell}"
        assert str(Move(852 + i)) == f"collect {cell}"
    assert [str(Move(a)) for a in range(37, 41)] == [
        "buy seed", "buy small", "buy medium", "buy large"]
    assert str(Move(889)) == "end"
    # plants: every (src, tgt) pair at distance 1..3, ordered by src then tgt index
    pairs = [(s, t) for s in CELLS for t in CELLS if 1 <= distance(s, t) <= 3]
    assert len(pairs) == 774
    assert [str(Move(41 + k)) for k in range(774)] == [f"plant {s} {t}" for s, t in pairs]
    assert int(Move.parse("plant d4 e5")) == 435


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10**30, -10**30])
def test_move_out_of_range(action):
    with pytest.raises(ValueError):
        Move(action)


@pytest.mark.parametrize("thing", [None, "end", 1.5, [], b"\x00"])
def test_move_from_a_non_int(thing):
    with pytest.raises((TypeError, ValueError)):
        Move(thing)


def test_move_equality_hash_and_pickle():
    assert Move(435) == Move(435) == Move.parse("plant d4 e5")
    assert Move(435) != Move(436)
    assert (Move(435) == Move(436)) is False
    assert hash(Move(435)) == hash(Move.parse("PLANT D4 E5"))
    assert len({Move(a) for a in ALL} | {Move.parse(str(Move(a))) for a in ALL}) == NUM_ACTIONS
    assert {Move(1): "x"}[Move.parse("place a5")] == "x"
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        for a in (0, 40, 435, 851, 889):
            back = pickle.loads(pickle.dumps(Move(a), protocol))
            assert type(back) is Move and back == Move(a) and str(back) == str(Move(a))
    assert copy.copy(Move(7)) == Move(7) and copy.deepcopy(Move(7)) == Move(7)
    assert Move(3).__index__() == 3 and [10, 11, 12, 13][Move(3)] == 13
    assert repr(Move(889)) == "Move('end')"


def test_move_kind():
    assert Move.parse("place a4").kind == "place"
    assert Move.parse("buy large").kind == "buy"
    assert Move.parse("plant d4 e5").kind == "plant"
    assert Move.parse("grow d4").kind == "grow"
    assert Move.parse("collect g4").kind == "collect"
    assert Move.parse("end").kind == "end"


@pytest.mark.parametrize("text,cell,source,target,column", [
    ("place a4", "a4", None, None, None),
    ("buy seed", None, None, None, "seed"),
    ("buy large", None, None, None, "large"),
    ("plant d4 e5", "d4", "d4", "e5", None),
    ("plant g4 d4", "g4", "g4", "d4", None),
    ("grow d1", "d1", None, None, None),
    ("collect g4", "g4", None, None, None),
    ("end", None, None, None, None),
])
def test_move_fields(text, cell, source, target, column):
    move = Move.parse(text)
    assert (move.cell, move.source, move.target, move.column) == (cell, source, target, column)


@pytest.mark.parametrize("text", [
    "buy seeds", "buy", "buy seed seed", "plant d4", "plant d4 d4", "plant d4 a1",
    "plant d4 d8", "plant a4 g4", "a1", "d4", "place h3", "place a1", "place", "place d4 d5",
    "grow d8", "grow", "grow 4d", "collect", "collect z9", "end now", "end end", "", "   ",
    "\t\n", "pass", "plant-d4-e5", "plant d4,e5", "grow d4.", "Ende", "end\x00",
])
def test_malformed_texts(text):
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert repr(text) in str(info.value)
    game = Game.from_position(PLAY)
    with pytest.raises(InvalidMoveError):
        game.play(text)
    assert game.position() == PLAY and game.history == []
    assert not game.is_legal(text)
    assert text not in game.legal_moves()


@pytest.mark.parametrize("text,words", [
    ("buy seeds", "seeds"), ("plant d4", "2 arguments"), ("a1", "a1"), ("place h3", "h3"),
    ("grow d8", "d8"), ("end now", "0 arguments"), ("", "empty"), ("plant d4 a1", "a1"),
    ("plant a4 g4", "a4"),
])
def test_malformed_texts_say_why(text, words):
    with pytest.raises(InvalidMoveError) as info:
        Move.parse(text)
    assert words in str(info.value)


@pytest.mark.parametrize("thing", [None, 1.5, [], {}])
def test_parse_of_a_non_str(thing):
    with pytest.raises((InvalidMoveError, TypeError)):
        Move.parse(thing)


# ---- LegalMoves ------------------------------------------------------------------------

def test_legal_moves_sequence():
    game = Game.from_position(PLAY)
    moves = game.legal_moves()
    assert isinstance(moves, LegalMoves)
    ids = moves.ids()
    assert isinstance(ids, list) and all(type(a) is int for a in ids)
    assert len(moves) == len(ids) == 34
    mask = moves.mask()
    assert mask.dtype == np.bool_ and mask.shape == (NUM_ACTIONS,)
    assert np.flatnonzero(mask).tolist() == ids
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert [m.id for m in moves] == ids
    assert all(type(m) is Move for m in moves)
    assert moves[0] == Move.parse("buy seed")
    assert moves[-1] == Move.parse("end") and moves[len(moves) - 1] == moves[-1]
    assert moves[-len(moves)] == moves[0]
    assert moves[4] == Move.parse("plant d1 b3")
    for bad in (len(moves), len(moves) + 1, -len(moves) - 1, 10**6, -10**6):
        with pytest.raises(IndexError):
            moves[bad]
    assert moves[:] == list(moves)
    assert moves[1:4] == [Move(38), Move(39), Move(40)]
    assert moves[::-1] == list(moves)[::-1]
    assert moves[-2:] == [Move.parse("collect d1"), Move.parse("end")]
    assert moves[100:200] == []
    assert list(iter(moves)) == list(moves) and list(moves) == list(moves)  # re-iterable
    assert moves == game.legal_moves()


def test_legal_actions_is_openspiels_name_for_the_legal_ids_without_a_warning():
    # OpenSpiel users reach for state.legal_actions() first: it is a method of its own
    import warnings
    game = Game.from_position(PLAY)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ids = game.legal_actions()
    assert ids == game.legal_moves().ids() and len(ids) == 34
    game.play(ids[0])
    assert game.legal_actions() == game.legal_moves().ids() != ids


def test_legal_moves_membership():
    moves = Game.from_position(PLAY).legal_moves()
    for member in (Move.parse("grow d4"), 815 + 18, "grow d4", "  GROW   D4 ", "end", 889):
        assert member in moves
    for other in (Move.parse("grow g1"), 815 + CELLS.index("g1"), "grow g1", "collect d4",
                  "place a5", 0, -1, 890, 10**30, "nonsense", "", None, 1.5, []):
        assert other not in moves


def test_legal_moves_do_not_follow_the_game():
    game = Game.from_position(PLAY)
    moves = game.legal_moves()
    before = moves.ids()
    game.play("grow d4")
    assert moves.ids() == before          # a snapshot, not a view
    assert "grow d4" in moves and "grow d4" not in game.legal_moves()


def test_setup_moves():
    game = Game(players=3)
    moves = game.legal_moves()
    assert len(moves) == 18
    assert [str(m) for m in moves] == [f"place {c}" for c in CELLS if distance(c, "d4") == 3]
    assert "end" not in moves and "buy seed" not in moves


# ---- game state and phases -------------------------------------------------------------

def test_phases_and_current_player():
    game = Game(players=2)
    assert game.phase == "setup" and not game.is_over and game.current_player == 0
    assert (game.round, game.sun, game.first_player) == (0, 0, 0)
    for text, next_player in (("place a4", 1), ("place a5", 0), ("place a6", 1)):
        game.play(text)
        assert game.phase == "setup" and game.current_player == next_player
    game.play("place a7")
    assert game.phase == "play" and game.current_player == 0
    assert (game.round, game.sun, game.first_player) == (1, 0, 0)
    while not game.is_over:
        assert game.phase == "play" and game.current_player in (0, 1)
        game.play("end")
    assert game.phase == "over" and game.is_over and game.current_player is None
    assert game.round == game.last_round == 18
    assert game.legal_moves().ids() == [] and not game.legal_moves().mask().any()
    assert len(game.history) == 4 + 18 * 2


def test_options_and_last_round():
    assert Game().players == 2
    assert Game().last_round == 18 and Game().options == Options() and str(Game().options) == "-"
    game = Game(players=4, options="fs")
    assert game.players == 4 and game.options == Options(fourth_revolution=True,
                                                         shade_blocks=True)
    assert game.options.name == "fourth revolution + shade blocks"
    assert game.last_round == 24
    assert finished(players=3, options="f").round == 24


def test_the_rules_are_one_options_argument_only():
    # positional after players, as the signature Game(players=2, options=None) says
    assert Game(3, "s").options == Options.parse("s") == Game(3, Options.parse("s")).options
    with pytest.raises(TypeError):
        Game(3, False, True)                        # a flag per rule: no such argument
    with pytest.raises(TypeError, match="shade_blocks"):
        Game(2, shade_blocks=True)
    with pytest.raises(TypeError, match="shade_blocks"):
        photocore.random_playouts(5, 3, 1, shade_blocks=True)
    with pytest.raises(TypeError):
        photocore.random_playouts(5, 3, 1, "s")     # options= is keyword-only there
    assert not hasattr(Game(options="s"), "shade_blocks")
    assert photocore.random_playouts(5, 3, 1, options="s")["games"] == 5


def test_options_in_each_form():
    for text, flags, record in (("-", 0, (False, False)), ("f", 1, (True, False)),
                                ("s", 2, (False, True)), ("fs", 3, (True, True))):
        options = Options.parse(text)
        assert str(options) == text and options.flags == flags
        assert Options.from_flags(flags) == options == Options(*record)
        assert Options(**options._asdict()) == options
        for game in (Game(3, options=options), Game(3, options=text)):
            assert game.options == options and game.position().split()[1] == text
    with pytest.raises(ValueError, match="'x'"):
        Options.parse("x")
    for flags in (4, 5, -1):
        with pytest.raises(ValueError):
            Options.from_flags(flags)
    with pytest.raises(TypeError, match="options must be an Options or its text"):
        Game(2, True)                               # a rule's flag is no Options
    assert Game(2, options="sf").options == Options.parse("fs")     # any order, written "fs"
    for text in ("ss", "", "f-", "F"):
        with pytest.raises(ValueError, match="expected - or the letters"):
            Game(2, options=text)
    with pytest.raises(TypeError):
        Game(2, options=3)


@pytest.mark.parametrize("players", [0, 1, 5, -2])
def test_bad_player_count(players):
    with pytest.raises(ValueError):
        Game(players=players)


def test_history_is_a_list_of_moves():
    game = Game(players=2)
    assert game.history == []
    game.play("place a4")
    game.play(CELLS.index("g4"))
    game.play(Move.parse("place d1"))
    history = game.history
    assert type(history) is list and all(type(m) is Move for m in history)
    assert [str(m) for m in history] == ["place a4", "place g4", "place d1"]
    history.append(Move(0))                # a fresh list each time
    assert len(game.history) == 3
    assert game.undo() == Move.parse("place d1")
    assert [str(m) for m in game.history] == ["place a4", "place g4"]


def test_undo_without_history():
    with pytest.raises(IndexError):
        Game().undo()
    game = Game.from_position(PLAY)
    with pytest.raises(IndexError):
        game.undo()
    game.play("end")
    assert game.undo() == Move(889)
    with pytest.raises(IndexError):
        game.undo()
    assert game.position() == PLAY


def test_state_accessors_types():
    game = Game.from_position(PLAY)
    assert game.light == (5, 0) and type(game.light) is tuple
    assert game.available(0) == (1, 2, 1, 0) and game.player_board(0) == (4, 4, 2, 1)
    assert game.available(1) == (2, 3, 1, 0) and game.player_board(1) == (4, 4, 3, 2)
    assert game.tokens(0) == () and game.stacks == (0, 5, 7, 9)     # 4-leaf stack first
    assert game.board() == {"a4": (0, 0), "a7": (1, 1), "d1": (0, 3), "d4": (0, 1),
                            "g1": (0, 2)}
    assert list(game.board()) == ["a4", "a7", "d1", "d4", "g1"]     # index order
    assert game.activated() == ()
    assert type(game.board()) is dict and type(game.activated()) is tuple
    assert type(game.shaded()) is tuple and type(game.stacks) is tuple


def test_collect_after_plant_is_refused():
    game = Game.from_position(PLAY)
    game.play("plant d1 d3")
    assert game.activated() == ("d1", "d3")
    with pytest.raises(IllegalMoveError, match="activated"):
        game.play("collect d1")


def test_scores_and_winners_types():
    for game in (Game(players=3), Game.from_position(PLAY), finished(players=4)):
        scores, winners = game.scores(), game.winners()
        assert type(scores) is tuple and len(scores) == game.players
        assert all(type(s) is int for s in scores)
        assert type(winners) is tuple and winners
        assert all(type(w) is int and 0 <= w < game.players for w in winners)
        assert list(winners) == sorted(set(winners))
    # 5 LP -> 1 point; player 0 leads
    game = Game.from_position(PLAY)
    assert game.scores() == (1, 0) and game.winners() == (0,)
    # a fresh game: everyone 0, tie-break on pieces (none) -> everyone wins
    assert Game(players=3).scores() == (0, 0, 0) and Game(players=3).winners() == (0, 1, 2)


@pytest.mark.parametrize("player", [5, 2, -1, "0", 1.0, None])
def test_player_index_errors(player):
    game = Game(players=2)
    for accessor in (game.available, game.player_board, game.tokens):
        with pytest.raises(ValueError):
            accessor(player)


def test_player_index_in_range():
    game = Game(players=4)
    for p in range(4):
        assert game.available(p) == (2, 4, 1, 0)
        assert game.player_board(p) == (4, 4, 3, 2)
        assert game.tokens(p) == ()


def test_str_is_the_position_and_the_drawing_is_render():
    game = Game.from_position(PLAY)
    assert str(game) == game.position() == PLAY
    assert repr(game) == f"Game.from_position({PLAY!r})"
    assert photocore.render.text(game).startswith("round 1 of 18, sun 0")


def test_shadows_by_the_size_of_the_tree_casting_them():
    # sun 0 stands E, shadows fall W: the large d1 shades nothing on the board; the small
    # d4 shades d3; a7 (small) shades a6; g1 (medium) is on the W edge
    game = Game.from_position(PLAY)
    assert game.shadows() == {1: ("a6", "d3"), 2: (), 3: ()}
    tall = Game.from_position("2 - 1 0 0 0 - d7:1:3,d4:0:2 5/2300/4431/- 0/2400/4431/- 0579")
    assert tall.shadows() == {1: ("d2", "d3", "d4", "d5", "d6"), 2: ("d2", "d3", "d4", "d5", "d6"),
                              3: ("d4", "d5", "d6")}
    assert tall.shaded() == ("d4",)          # the medium on d4 under the large tree's shadow


def test_root_is_where_the_history_starts():
    game = Game.from_position(PLAY)
    game.play("grow d4")
    root = game.root()
    assert root == Game.from_position(PLAY) and root.history == [] and game.history
    assert not game.from_start and not root.from_start
    fresh = Game(players=3)
    fresh.play("place a4")
    assert fresh.root() == Game(players=3) and fresh.root().from_start


def test_game_equality_is_by_position():
    a, b = Game(players=2), Game(players=2)
    assert a == b
    a.play("place a4")
    assert a != b
    b.play("place a4")
    assert a == b
    assert Game(players=2) != Game(players=3)
    assert Game.from_position(PLAY) == Game.from_position(PLAY)
    with pytest.raises(TypeError):
        hash(Game())
    assert eval(repr(a), {"Game": Game}) == a


# ---- IllegalMoveError messages ---------------------------------------------------------

REASONS = [
    # (position, move, words the message must contain)
    (PLAY, "plant d1 d4", "d4 is occupied"),
    (PLAY, "plant d4 a4", "beyond the reach"),
    (PLAY, "plant a4 a5", "a4 holds a seed"),
    (PLAY, "grow g1", "no large tree available"),
    (PLAY, "collect d4", "not a large tree"),
    (PLAY, "grow a7", "no piece on a7"),
    (PLAY, "place a5", "setup only"),
    (Game().position(), "end", "only place moves"),
    (Game().position(), "buy seed", "only place moves"),
    (Game().position(), "place d4", "outer ring"),
    (PLAY.replace("5/1210/4421", "0/1210/4421"), "buy seed", "needs 1 light, player 0 has 0"),
    (PLAY.replace("5/1210/4421", "3/1210/4421"), "collect d1", "needs 4 light, player 0 has 3"),
    (PLAY.replace("5/1210/4421", "5/1210/4420"), "buy large", "large column"),
    (PLAY.replace("5/1210/4421", "5/0210/4421"), "plant d1 d3", "no seed available"),
    (PLAY.replace("5/1210/4421", "5/1200/4421"), "grow d4", "no medium tree available"),
    (finished().position(), "end", "over"),
]


@pytest.mark.parametrize("position,text,words", REASONS)
def test_illegal_move_messages(position, text, words):
    game = Game.from_position(position)
    with pytest.raises(IllegalMoveError) as info:
        game.play(text)
    message = str(info.value)
    assert text in message and words in message, message
    assert game.position() == position and game.history == []
    with pytest.raises(IllegalMoveError):
        game.play(int(Move.parse(text)))
    with pytest.raises(IllegalMoveError):
        game.play(Move.parse(text))
    assert not game.is_legal(text)


def test_illegal_after_activation():
    game = Game.from_position(PLAY)
    game.play("grow d4")
    for text, words in (("grow d4", "d4 was already activated"),
                        ("plant d4 d5", "d4 was already activated"),
                        ("plant d1 d4", "d4")):
        with pytest.raises(IllegalMoveError) as info:
            game.play(text)
        assert text in str(info.value) and words in str(info.value)
    # a planted target is activated too: the seed cannot be grown this turn
    game.play("plant d1 d3")
    with pytest.raises(IllegalMoveError, match="d3 was already activated"):
        game.play("grow d3")
    assert [str(m) for m in game.history] == ["grow d4", "plant d1 d3"]


def test_illegal_when_shaded():
    # shade blocks growth: sun at 0 (shadows point W); the large tree on d7 shades d6..d4
    position = "2 s 1 0 0 0 - d4:0:1,d6:0:1,d7:1:3 5/2210/4432/- 5/2400/4431/- 0579"
    game = Game.from_position(position)
    assert game.shaded() == ("d4", "d6")
    with pytest.raises(IllegalMoveError, match="shade"):
        game.play("grow d6")
    with pytest.raises(IllegalMoveError, match="shade"):
        game.play("plant d4 d5")
    assert game.is_legal("plant d4 c4")
    assert game.position() == position


# ---- random_playouts -------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("options", ["-", "fs", "s"])
def test_random_playouts_totals(players, options):
    games = 40
    result = photocore.random_playouts(games, players=players, seed=7, options=options)
    assert set(result) == {"games", "moves", "score_sums", "wins", "win_shares"}
    assert result["games"] == games
    rounds = Options.parse(options).rounds
    # every game has its 2 placements and one `end` per player per round, at least
    assert result["moves"] >= games * players * (2 + rounds)
    assert len(result["score_sums"]) == len(result["wins"]) == players
    assert all(type(s) is int and s >= 0 for s in result["score_sums"])
    assert all(type(w) is int and 0 <= w <= games for w in result["wins"])
    assert games <= sum(result["wins"]) <= games * players
    # a tie's winners share its win: the shares add up to the games
    assert sum(result["win_shares"]) == pytest.approx(games)
    assert all(s <= w for s, w in zip(result["win_shares"], result["wins"]))
    assert sum(result["score_sums"]) > 0


def test_random_playouts_deterministic():
    a = photocore.random_playouts(25, players=3, seed=12345)
    assert a == photocore.random_playouts(25, players=3, seed=12345)
    others = [photocore.random_playouts(25, players=3, seed=s) for s in (0, 1, 12346, 2**63)]
    assert all(o != a for o in others)
    assert others[0] != others[1]
    # the options change the games
    assert photocore.random_playouts(25, players=3, seed=12345, options="f") != a


def test_random_playouts_of_zero_games():
    result = photocore.random_playouts(0, players=4)
    assert result == {"games": 0, "moves": 0, "score_sums": (0, 0, 0, 0), "wins": (0, 0, 0, 0),
                      "win_shares": (0, 0, 0, 0)}


def test_random_playouts_of_one_game():
    one = photocore.random_playouts(1, players=2, seed=3)
    assert one["games"] == 1 and one["moves"] >= 2 * (2 + 18)
    assert 1 <= sum(one["wins"]) <= 2 and all(w in (0, 1) for w in one["wins"])
    # a co-win only on equal scores
    if sum(one["wins"]) == 2:
        assert one["score_sums"][0] == one["score_sums"][1]
    else:
        winner = one["wins"].index(1)
        assert one["score_sums"][winner] >= one["score_sums"][1 - winner]


@pytest.mark.parametrize("kwargs", [
    {"games": 1, "players": 5}, {"games": 1, "players": 1}, {"games": -1},
    {"games": 1, "players": 0},
])
def test_random_playouts_argument_errors(kwargs):
    games = kwargs.pop("games")
    with pytest.raises(ValueError):
        photocore.random_playouts(games, **kwargs)


@pytest.mark.parametrize("args", [("3",), (None,), ([],)])
def test_random_playouts_type_errors(args):
    with pytest.raises((TypeError, ValueError)):
        photocore.random_playouts(*args)


@pytest.mark.parametrize("call", [
    lambda: photocore.random_playouts(1.5),
    lambda: photocore.random_playouts(2, players=2.5),
    lambda: photocore.random_playouts(2, seed=1.5),
    lambda: Game(players=2.5),
    lambda: Game(players=3.0),
], ids=["games=1.5", "players=2.5", "seed=1.5", "Game(players=2.5)", "Game(players=3.0)"])
def test_float_counts_are_refused(call):
    # a float is not silently truncated to an int (as Move(1.5) is refused)
    with pytest.raises((TypeError, ValueError)):
        call()


# ---- from_position input errors -------------------------------------------------------

START = "2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579"


@pytest.mark.parametrize("text", [None, 2, b"2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579"])
def test_from_position_of_a_non_str(text):
    with pytest.raises(InvalidPositionError):
        Game.from_position(text)


@pytest.mark.parametrize("text", [
    START.replace("0579", "057\u00b2"),                       # superscript two
    "\u00b2" + START[1:],
    START.replace("0/2410", "\u00b2/2410", 1),
    "\uff12" + START[1:],                                     # fullwidth two
    START.replace("0579", "057\u0669"),                       # arabic-indic nine
], ids=["stacks-superscript", "players-superscript", "light-superscript",
        "players-fullwidth", "stacks-arabic-indic"])
def test_from_position_takes_only_ascii_digits(text):
    with pytest.raises(InvalidPositionError):
        Game.from_position(text)


def test_from_position_messages_name_the_field():
    # the parser checks each field's form and range, the kernel whether they make a position
    for text, field in ((START.replace("0579", "0599"), "stacks"),
                        ("5" + START[1:], "players"),
                        (START.replace("2 - 0", "2 x 0"), "options"),
                        (START.replace("0/2410/4432/-", "21/2410/4432/-", 1), "light"),
                        (START.replace("2 - 0 0 0", "2 - 0 0 1"), "first"),
                        (START.replace("2 - 0 0", "2 - 0 1"), "sun 1: round 0 has the sun at 0"),
                        (START.replace("0 - - 0/", "0 a4 - 0/"), "activated"),
                        (PLAY.replace(" - a4:0:0", " a7 a4:0:0"), "activated"),
                        (PLAY.replace(" 0 0 0 ", " 0 0 - "), "to-move"),
                        (START.replace("0 - - 0/2410", "0 - a4:0:1 0/2310"), "setup"),
                        (START.replace("0 - - 0/2410", "1 - d4:0:1 0/2310"), "setup"),
                        (START.replace("0 - - 0/2410", "1 - a4:0:2 0/2400"), "setup"),
                        (START.replace("- 0/2410", "- 0/2510"), "player"),
                        (START.replace("- 0/2410/4432", "- 0/2410/4532"), "player board")):
        with pytest.raises(InvalidPositionError) as info:
            Game.from_position(text)
        assert field in str(info.value), (text, str(info.value))


# ---- the layers: the core imports nothing built on it ------------------------------------

CORE = ["photocore", "photocore._game", "photocore._kernel", "photocore.errors",
        "photocore.facts", "photocore.notation"]


def run_python(script):
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True).stdout


def test_import_photocore_loads_the_core_only():
    out = run_python("import photocore, sys; "
                     "print(sorted(m for m in sys.modules if m.startswith('photocore')))")
    assert eval(out) == CORE


def imports_of(source):
    """The photocore modules a source file imports or cimports."""
    found = set()
    for module, names in re.findall(r"^\s*from\s+(photocore[\w.]*)\s+c?import\s+\(?([\w, *]*)",
                                    source, re.M):
        found |= {f"{module}.{n.strip()}" for n in names.split(",")} if module == "photocore" \
            else {module}
    found |= set(re.findall(r"^\s*c?import\s+(photocore[\w.]*)", source, re.M))
    return found


def test_the_core_imports_only_the_core():
    assert imports_of("from photocore import notation\nimport photocore.svg\n"
                      "from photocore.records import (to_record,\n") == {
        "photocore.notation", "photocore.svg", "photocore.records"}
    # a .pxd without a .pyx (photocore._interrupt) is C declarations compiled in: no module
    declarations = {"photocore." + p.stem for p in SRC.glob("*.pxd")
                    if not p.with_suffix(".pyx").exists()}
    for name in ("_kernel.pyx", "_game.pyx", "facts.py", "notation.py", "errors.py"):
        imported = imports_of((SRC / name).read_text()) - declarations
        assert imported <= set(CORE[1:]), (name, imported - set(CORE[1:]))


def test_what_the_players_hand_back_are_public_types_with_real_field_types():
    import pydoc
    import typing

    import photocore.play
    from photocore.play import BUILTIN_AGENTS, AgentKind, RootStats, Solution
    game = Game.from_position("2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- "
                              "0/2200/4432/- 0579")
    assert type(photocore.solve(game)) is Solution
    assert type(photocore.play.search_root(game, simulations=20)) is RootStats
    assert all(type(row) is AgentKind for row in BUILTIN_AGENTS.values())
    assert {photocore.Agent(name).kind for name in BUILTIN_AGENTS} == set(BUILTIN_AGENTS)
    for cls in (Solution, RootStats, AgentKind):
        hints = typing.get_type_hints(cls)
        assert set(hints) == set(cls._fields)
        assert all(not isinstance(hint, (str, typing.ForwardRef)) for hint in hints.values())
        text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
        assert "ForwardRef" not in text and "Alias for field number" not in text, cls
    assert typing.get_type_hints(Solution)["solved"] is bool
    assert "solved: bool" in pydoc.render_doc(Solution, renderer=pydoc.plaintext)


# ---- no old names: nothing was released before 0.2.0 -------------------------------------

def test_importing_photocore_installs_no_hooks():
    out = run_python("import sys; before = list(sys.meta_path)\n"
                     "import photocore\n"
                     "print(sys.meta_path == before, 'compat' in dir(photocore))")
    assert out.split() == ["True", "False"]


def test_old_names_are_simply_gone():
    game = Game()
    for method in ("legal_mask", "to_record", "from_record"):
        assert not hasattr(game, method), method
    with pytest.raises(AttributeError, match="'photocore' has no attribute 'analyse'"):
        photocore.analyse                               # noqa: B018
    for module in ("photocore.compat", "photocore.position", "photocore._agents"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(module)
    with pytest.raises(TypeError, match="not callable"):
        photocore.svg(game)                             # the module, not a drawing


def named_tuples():
    """{qualified name: class} of every named tuple the package's public modules define
    (those of an extra that is not installed left out)."""
    found = {}
    for module in pkgutil.walk_packages(photocore.__path__, "photocore."):
        if (module.name.rpartition(".")[2].startswith("_")
                or missing_framework(module.name) is not None):
            continue
        for name, value in vars(importlib.import_module(module.name)).items():
            if (isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields")
                    and value.__module__ == module.name):
                found[f"{module.name}.{name}"] = value
    return found


def test_every_named_tuple_says_what_each_field_is():
    # help() and the API reference show a field's __doc__, which is "Alias for field number
    # k" unless the class sets it
    classes = named_tuples()
    assert {"photocore.play.hints.Hint", "photocore.notation.PositionFields",
            "photocore.run.driver.Span"} <= classes.keys()
    unsaid = [f"{name}.{field}" for name, cls in classes.items() for field in cls._fields
              if (getattr(cls, field).__doc__ or "Alias for").startswith("Alias for")]
    assert unsaid == []
