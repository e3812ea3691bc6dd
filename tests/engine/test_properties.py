"""Hypothesis properties of the Game API over reachable positions.

Positions are reached from a drawn configuration by a drawn list of choices: each choice
either ends the turn (when `end` is legal, with a drawn per-game bias, so that games reach
late rounds and their end) or picks a legal move by index. Rule details of concrete
positions are in test_rules.py; this file checks the invariants every position keeps.
"""

import copy
import os
import pickle
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from observe import observe as engine_fields

import photocore
from photocore import IllegalMoveError, InvalidMoveError, InvalidPositionError
from photocore.facts import OPTIONS, PLAYERS

END = photocore.NUM_ACTIONS - 1
OWNED = (6, 8, 4, 2)
SLOTS = (4, 4, 3, 2)
CELL_NAMES = set(photocore.CELLS)

# PHOTOCORE_EXAMPLES=10 runs ten times the examples (a deeper search than the quick default)
SCALE = float(os.environ.get("PHOTOCORE_EXAMPLES", "1"))
SETTINGS = settings(max_examples=max(1, int(60 * SCALE)), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(SETTINGS, max_examples=max(1, int(30 * SCALE)))

configs = st.fixed_dictionaries({
    "players": st.sampled_from(PLAYERS),
    "options": st.sampled_from(OPTIONS),
})
# a choice: `c % 10 < end_bias` ends the turn (when `end` is legal), else `c // 10` indexes
# the legal moves. The length is drawn first: plain lists would stay a few moves long.
# Each choice is two bytes of one drawn binary string (one draw, cheap to generate).
choices = st.sampled_from(range(321)).flatmap(
    lambda n: st.binary(min_size=2 * n, max_size=2 * n)).map(
    lambda b: [int.from_bytes(b[i:i + 2], "little") for i in range(0, len(b), 2)])
end_biases = st.integers(0, 9)


class Plan:
    """A configuration, choices, an end bias and the round to stop after."""

    def __init__(self, config, picks, end_bias, stop):
        self.config, self.picks, self.end_bias, self.stop = config, picks, end_bias, stop

    def __repr__(self):
        return (f"Plan({self.config!r}, picks={self.picks!r}, end_bias={self.end_bias}, "
                f"stop={self.stop})")


# the stop round spreads positions over setup, early, middle and late rounds and the end
plans = st.builds(Plan, configs, choices, end_biases, st.sampled_from(range(26)))


def pick(game, choice, end_bias):
    """The move a choice picks in `game` (which must not be over)."""
    moves = game.legal_moves()
    assert len(moves) > 0
    if choice % 10 < end_bias and moves[-1].id == END:
        return moves[-1]
    return moves[(choice // 10) % len(moves)]


def walk(plan):
    """Plays a plan from a new game; yields (game, move) before each move played."""
    game = photocore.Game(**plan.config)
    for choice in plan.picks:
        if game.is_over or game.round > plan.stop:
            break
        move = pick(game, choice, plan.end_bias)
        yield game, move
        game.play(move)


def reach(plan):
    """The game after playing a plan (stopping at the end of the game or after plan.stop)."""
    game = photocore.Game(**plan.config)
    for _, move in walk(plan):
        game.play(move)
    return game


def extend(game, more, end_bias, limit):
    """Plays up to `limit` further choices on `game`; returns the moves played."""
    played = []
    for choice in more[:limit]:
        if game.is_over:
            break
        move = pick(game, choice, end_bias)
        game.play(move)
        played.append(move)
    return played


def observe(game):
    """Every observable field of a game, as plain values: the fields both engines share,
    and what only photocore has."""
    return {
        **engine_fields(game),
        "position": game.position(),
        "legal": game.legal_moves().ids(),
        "mask": np.flatnonzero(game.legal_moves().mask()).tolist(),
        "legal_moves": [str(m) for m in game.legal_moves()],
        "history": [int(m) for m in game.history],
        "is_over": game.is_over,
        "players": game.players,
        "options": game.options,
        "last_round": game.last_round,
    }


def state(game):
    """observe() without the history (for games rebuilt from a position)."""
    seen = observe(game)
    del seen["history"]
    return seen


def check_invariants(game):
    """The invariants every position (reached or parsed) keeps."""
    players = game.players
    assert players in PLAYERS
    assert game.last_round == game.options.rounds == (24 if game.options.fourth_revolution
                                                      else 18)
    board = game.board()
    for cell, (owner, size) in board.items():
        assert cell in CELL_NAMES
        assert 0 <= owner < players and 0 <= size <= 3
    for p in range(players):
        avail, pboard = game.available(p), game.player_board(p)
        assert len(avail) == len(pboard) == 4
        for size in range(4):
            placed = sum(1 for owner, s in board.values() if owner == p and s == size)
            assert avail[size] >= 0 and pboard[size] >= 0
            assert pboard[size] <= SLOTS[size], (p, size, pboard)
            assert avail[size] + pboard[size] + placed <= OWNED[size], (p, size, game.position())
        assert all(12 <= t <= 22 for t in game.tokens(p))
    assert len(game.light) == players
    assert all(0 <= lp <= 20 for lp in game.light)
    stacks = game.stacks
    assert len(stacks) == 4 and all(h >= 0 for h in stacks)
    assert stacks[0] <= 3 and stacks[1] <= 5 and stacks[2] <= 7 and stacks[3] <= 9
    if players == 2:
        assert stacks[0] == 0
    assert set(game.activated()) <= CELL_NAMES
    assert set(game.shaded()) <= set(board)
    check_shadows(game, board)
    assert str(game) == game.position()

    moves = game.legal_moves()
    ids = moves.ids()
    assert ids == [int(m) for m in moves] == [m.id for m in moves]
    assert ids == np.flatnonzero(moves.mask()).tolist()
    assert all(a < b for a, b in zip(ids, ids[1:])), ids
    assert all(0 <= a < photocore.NUM_ACTIONS for a in ids)
    for move in moves:
        check_move_fields(move)
    phase = game.phase
    assert phase in ("setup", "play", "over")
    assert game.is_over == (phase == "over")
    if phase == "over":
        assert ids == []
        assert game.current_player is None
        assert game.round == game.last_round
        assert game.activated() == ()
    else:
        assert isinstance(game.current_player, int) and 0 <= game.current_player < players
        assert ids, "a decision always has a legal move"
    if phase == "setup":
        assert game.round == 0 and game.sun == 0 and game.first_player == 0
        assert all(m.kind == "place" for m in moves)
        assert game.activated() == ()
    if phase == "play":
        assert 1 <= game.round <= game.last_round
        assert ids[-1] == END and moves[-1].kind == "end"
        assert all(m.kind != "place" for m in moves)
        assert game.sun == (game.round - 1) % 6
        assert game.first_player == (game.round - 1) % players
    scores = game.scores()
    assert len(scores) == players and all(isinstance(s, int) and s >= 0 for s in scores)
    winners = game.winners()
    assert winners and all(0 <= w < players for w in winners)
    assert all(scores[w] == max(scores) for w in winners)


SHADOW_PLANES = photocore.facts.OBSERVATION["shadows"]


def check_shadows(game, board):
    """shadows() holds what the observation's shadow planes hold (plane j: where a piece of
    size j + 1 would be shaded), and the shaded pieces are those on a cell of their size."""
    shadows = game.shadows()
    assert sorted(shadows) == [1, 2, 3]
    planes = game.observation()[SHADOW_PLANES:SHADOW_PLANES + 3 * 37].reshape(3, 37)
    for size in (1, 2, 3):
        assert shadows[size] == tuple(photocore.CELLS[c] for c in np.flatnonzero(planes[size - 1]))
    assert set(shadows[3]) <= set(shadows[2]) <= set(shadows[1])
    assert set(game.shaded()) == {cell for cell, (_, size) in board.items()
                                  if cell in shadows[max(size, 1)]}


def check_move_fields(move):
    """A Move's accessors say what its notation says."""
    verb, *words = str(move).split()
    assert move.kind == verb
    fields = (move.cell, move.source, move.target, move.column)
    if verb == "plant":
        assert fields == (words[0], words[0], words[1], None)
    elif verb == "buy":
        assert fields == (None, None, None, words[0])
    elif verb == "end":
        assert fields == (None, None, None, None)
    else:
        assert fields == (words[0], None, None, None)


def in_play(game):
    return sum(game.available(p)[k] + game.player_board(p)[k] for p in range(game.players)
               for k in range(4)) + len(game.board())


# ---- undo ------------------------------------------------------------------------------

# ---- undo ------------------------------------------------------------------------------

@SETTINGS
@given(plans)
@pytest.mark.slow
def test_undo_restores_everything_after_every_move(plan):
    game = photocore.Game(**plan.config)
    start = observe(game)
    played = []
    for _, move in walk(plan):
        before = observe(game)
        game.play(move)
        after = observe(game)
        assert after["history"] == before["history"] + [move.id]
        assert game.undo() == move
        assert observe(game) == before
        game.play(move)
        assert observe(game) == after
        played.append(move)
    assert game.history == played
    for move in reversed(played):
        assert game.undo() == move
    assert observe(game) == start
    with pytest.raises(IndexError):
        game.undo()


@SETTINGS
@given(plans, st.data())
@pytest.mark.slow
def test_chain_of_undos_passes_back_through_every_position(plan, data):
    game = photocore.Game(**plan.config)
    seen = [observe(game)]
    for _, move in walk(plan):
        game.play(move)
        seen.append(observe(game))
    # take back a drawn number of moves, play them again, then take back all of them
    k = data.draw(st.integers(0, len(seen) - 1))
    redo = [game.undo() for _ in range(k)][::-1]
    assert observe(game) == seen[len(seen) - 1 - k]
    for move in redo:
        game.play(move)
    assert observe(game) == seen[-1]
    while game.history:
        game.undo()
        seen.pop()
        assert observe(game) == seen[-1]
    assert len(seen) == 1


# ---- copies ----------------------------------------------------------------------------

@SETTINGS
@given(plans, choices)
@pytest.mark.slow
def test_copies_are_independent(plan, more):
    game = reach(plan)
    original = observe(game)
    for dup in (game.copy(), copy.copy(game), copy.deepcopy(game)):
        assert type(dup) is photocore.Game and dup is not game
        assert observe(dup) == original
        assert dup == game
        extend(dup, more, plan.end_bias, 40)
        if dup.history:
            dup.undo()
        assert observe(game) == original
    # the other way round: play on the original, the copy stays
    dup = game.copy()
    moved = extend(game, more, plan.end_bias, 40)
    assert observe(dup) == original
    if moved:
        assert game.history == dup.history + moved
    # undos on the copy walk back through the same positions as on the original
    for _ in moved:
        game.undo()
    while dup.history:
        assert dup.undo() == game.undo()
        assert observe(dup) == observe(game)


@SETTINGS
@given(plans, choices)
@pytest.mark.slow
def test_copy_without_history(plan, more):
    game = reach(plan)
    original = observe(game)
    dup = game.copy(history=False)
    assert dup.history == []
    assert state(dup) == state(game)
    with pytest.raises(IndexError):
        dup.undo()
    played = 0
    for choice in more[:40]:
        if dup.is_over:
            break
        before = observe(dup)
        move = pick(dup, choice, plan.end_bias)
        dup.play(move)
        played += 1
        assert observe(game) == original
        # undo on the history-less copy works for the moves played on it
        assert dup.undo() == move
        assert observe(dup) == before
        dup.play(move)
    for _ in range(played):
        dup.undo()
    assert state(dup) == state(game)
    with pytest.raises(IndexError):
        dup.undo()
    assert observe(game) == original
    # pickling a history-less copy keeps its own start position
    again = pickle.loads(pickle.dumps(dup))
    assert observe(again) == observe(dup)


@SETTINGS
@given(plans, st.integers(0, pickle.HIGHEST_PROTOCOL))
@pytest.mark.slow
def test_deepcopy_and_pickle_keep_position_and_history(plan, protocol):
    game = reach(plan)
    for dup in (copy.deepcopy(game), pickle.loads(pickle.dumps(game, protocol))):
        assert type(dup) is photocore.Game
        assert dup is not game
        assert dup == game
        assert observe(dup) == observe(game)
        assert dup.history == game.history
        # undo works on the copy and walks back through the same positions
        ref = game.copy()
        while ref.history:
            assert dup.undo() == ref.undo()
            assert observe(dup) == observe(ref)
        with pytest.raises(IndexError):
            dup.undo()
        assert observe(dup) == observe(photocore.Game(**plan.config))


def loaded(plan, more):
    """A reached position, and a game loaded from its text that played on from there."""
    start = reach(plan)
    game = photocore.Game.from_position(start.position())
    extend(game, more, plan.end_bias, 30)
    return start, game


@SETTINGS
@given(plans, choices)
def test_root_and_history_give_the_game(plan, more):
    start, later = loaded(plan, more)
    for game, root in ((start, photocore.Game(**plan.config)), (later, start)):
        again = game.root()
        assert again == root and again.history == [] and again.root() == again
        assert again.from_start == game.from_start
        for move in game.history:
            again.play(move)
        assert observe(again) == observe(game)


@SETTINGS
@given(plans, choices)
def test_pickle_of_a_game_built_from_a_position(plan, more):
    start, game = loaded(plan, more)
    dup = pickle.loads(pickle.dumps(game))
    assert observe(dup) == observe(game)
    while dup.history:
        dup.undo()
    assert state(dup) == state(start)


# ---- legal moves play in every form ----------------------------------------------------

@SETTINGS
@given(plans)
def test_every_listed_move_plays_in_every_form(plan):
    game = reach(plan)
    moves = game.legal_moves()
    listed = set(moves.ids())
    position, history = game.position(), game.history
    for m in moves:
        assert isinstance(m, photocore.Move)
        text = str(m)
        for form in (m, m.id, text, text.upper(), "  " + text.replace(" ", "\t ") + " \n"):
            assert form in moves
            assert game.is_legal(form)
        results = set()
        for form in (m, m.id, text, text.upper()):
            dup = game.copy()
            assert dup.play(form) is None
            assert dup.history == history + [m]
            results.add(dup.position())
            assert game.position() == position
        assert len(results) == 1
    # and nothing else is legal: every other id is refused by is_legal and `in`
    for a in range(photocore.NUM_ACTIONS):
        if a in listed:
            continue
        assert a not in moves and photocore.Move(a) not in moves
        assert not game.is_legal(a)
    assert game.position() == position and game.history == history


@FEW
@given(plans)
def test_exactly_the_listed_moves_play(plan):
    game = reach(plan)
    listed = set(game.legal_moves().ids())
    playable = set()
    dup = game.copy(history=False)
    for a in range(photocore.NUM_ACTIONS):
        try:
            dup.play(a)
        except IllegalMoveError:
            continue
        playable.add(a)
        dup.undo()
    assert playable == listed
    assert state(dup) == state(game)


# ---- illegal and malformed input -------------------------------------------------------

def mangle(text, data):
    """Text in another case and with extra white space, still the same move."""
    words = text.split()
    seps = [data.draw(st.sampled_from([" ", "  ", "\t", " \t "])) for _ in words]
    out = "".join(w + s for w, s in zip(words, seps))
    if data.draw(st.booleans()):
        out = out.upper()
    return " " + out


@SETTINGS
@given(plans, st.data())
@pytest.mark.slow
def test_illegal_ids_and_texts_are_refused_without_change(plan, data):
    game = reach(plan)
    listed = set(game.legal_moves().ids())
    before = observe(game)
    illegal = st.sampled_from([a for a in range(photocore.NUM_ACTIONS) if a not in listed])
    for _ in range(5):
        a = data.draw(illegal)
        text = str(photocore.Move(a))
        for form in (a, photocore.Move(a), text, mangle(text, data)):
            with pytest.raises(IllegalMoveError) as info:
                game.play(form)
            assert isinstance(info.value, ValueError)
            assert not isinstance(info.value, InvalidMoveError)
            assert text in str(info.value)
            assert not game.is_legal(form)
            assert form not in game.legal_moves()
            assert observe(game) == before


@SETTINGS
@given(plans, st.sampled_from([-1, photocore.NUM_ACTIONS, -890, 10**4]))
def test_out_of_range_small_ids_are_invalid(plan, action):
    game = reach(plan)
    before = observe(game)
    with pytest.raises(InvalidMoveError):
        game.play(action)
    assert not game.is_legal(action)
    assert action not in game.legal_moves()
    with pytest.raises(ValueError):
        photocore.Move(action)
    assert observe(game) == before


MIDGAME = Plan({"players": 3, "options": "s"},
               [3, 77, 1234, 5, 999] * 10, 2, 25)


@pytest.mark.parametrize("action", [10**30, -10**30, 2**63, 2**64])
def test_huge_ids_are_invalid_not_overflow(action):
    game = reach(MIDGAME)
    assert game.phase == "play"
    before = observe(game)
    with pytest.raises(ValueError):
        game.play(action)
    assert observe(game) == before
    with pytest.raises(ValueError):
        photocore.Move(action)
    assert game.is_legal(action) is False
    assert (action in game.legal_moves()) is False


@pytest.mark.parametrize("thing", [None, 1.5, 0.0, [], {}, (), b"end", object(), 3j])
def test_non_moves_raise_type_or_value_error(thing):
    game = reach(MIDGAME)
    before = observe(game)
    with pytest.raises((TypeError, ValueError)):
        game.play(thing)
    assert observe(game) == before
    assert game.is_legal(thing) is False
    assert (thing in game.legal_moves()) is False
    with pytest.raises((TypeError, ValueError)):
        photocore.Move(thing)


@SETTINGS
@given(plans, st.text())
@example(plan=MIDGAME, text="0" * 41)     # quoted cut short
def test_arbitrary_text_parses_or_raises_move_errors(plan, text):
    game = reach(plan)
    before = observe(game)
    try:
        move = photocore.Move.parse(text)
    except InvalidMoveError as err:
        move = None
        # the text quoted, cut after its first notation._ECHOED characters
        assert repr(text[:photocore.notation._ECHOED]) in str(err)
    else:
        assert isinstance(move, photocore.Move)
        assert str(move) == " ".join(text.lower().split())
    try:
        game.play(text)
    except InvalidMoveError:
        assert move is None
        assert observe(game) == before
        assert not game.is_legal(text) and text not in game.legal_moves()
    except IllegalMoveError:
        assert move is not None and move.id not in before["legal"]
        assert observe(game) == before
    else:
        assert move is not None and move.id in before["legal"]
        assert [m.id for m in game.history] == before["history"] + [move.id]


ALL_TEXTS = {str(photocore.Move(a)) for a in range(photocore.NUM_ACTIONS)}


@SETTINGS
@given(st.from_regex(r"\A\s*(place|buy|plant|grow|collect|end|PLANT|Grow)"
                     r"(\s+[a-hA-H][0-9]|\s+(seed|small|medium|large|seeds)){0,3}\s*\Z"))
@pytest.mark.slow
def test_near_miss_texts_parse_or_raise_invalid(text):
    normal = " ".join(text.lower().split())
    try:
        move = photocore.Move.parse(text)
    except InvalidMoveError:
        assert normal not in ALL_TEXTS
    else:
        assert str(move) == normal


# ---- pieces, light, legal-move lists ---------------------------------------------------

@SETTINGS
@given(plans)
@pytest.mark.slow
def test_invariants_hold_along_every_game(plan):
    game = photocore.Game(**plan.config)
    check_invariants(game)
    pieces = in_play(game)
    for _, move in walk(plan):
        game.play(move)
        check_invariants(game)
        # a piece that left the game never comes back
        now = in_play(game)
        assert now <= pieces
        pieces = now
    event(f"{game.phase}, rounds {game.round // 6 * 6}+")


@SETTINGS
@given(configs, st.integers(3, 9), st.integers(0, 2**16))
def test_played_to_the_end(config, end_bias, salt):
    """Whole games: the end has no moves, no player to move and keeps the invariants."""
    game = photocore.Game(**config)
    k = 0
    while not game.is_over:
        k += 1
        game.play(pick(game, salt * 7919 + k * 104729, end_bias))
        assert k < 5000
    check_invariants(game)
    assert game.legal_moves().ids() == [] and len(game.legal_moves()) == 0
    assert list(game.legal_moves()) == []
    assert game.phase == "over" and game.current_player is None
    assert game.round == game.last_round
    with pytest.raises(IllegalMoveError):
        game.play("end")
    # setup: every player placed two small trees, then the rounds: one `end` per turn
    n = config["players"]
    assert all(m.kind == "place" for m in game.history[:2 * n])
    assert all(m.kind != "place" for m in game.history[2 * n:])
    assert sum(1 for m in game.history if m.kind == "end") == game.last_round * n
    assert game.history[-1].kind == "end"


# ---- position notation -----------------------------------------------------------------

@SETTINGS
@given(plans, choices)
def test_position_round_trip(plan, more):
    game = reach(plan)
    text = game.position()
    rebuilt = photocore.Game.from_position(text)
    assert rebuilt.position() == text
    assert rebuilt == game
    assert state(rebuilt) == state(game)
    assert rebuilt.history == []
    # extra white space is accepted
    assert photocore.Game.from_position("  " + text.replace(" ", " \t ") + "\n").position() == text
    for choice in more[:60]:
        if game.is_over:
            break
        move = pick(game, choice, plan.end_bias)
        game.play(move)
        rebuilt.play(move)
        assert rebuilt.position() == game.position()
        assert rebuilt.legal_moves() == game.legal_moves()
    assert state(rebuilt) == state(game)


def check_parsed(game):
    """A game from_position accepted: consistent, round-trips, and playable."""
    assert isinstance(game, photocore.Game)
    check_invariants(game)
    text = game.position()
    assert photocore.Game.from_position(text).position() == text
    # a few moves play from it and keep the invariants
    for k in range(6):
        if game.is_over:
            break
        moves = game.legal_moves()
        game.play(moves[(k * 7) % len(moves)])
        check_invariants(game)


def try_position(text):
    try:
        game = photocore.Game.from_position(text)
    except InvalidPositionError as err:
        assert isinstance(err, ValueError)
        assert str(err)
        return None
    check_parsed(game)
    return game


@SETTINGS
@given(st.text())
@example("\u00b2")                       # '²'.isdigit() but int('²') fails
@example("2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 057\u00b2")
def test_from_position_on_arbitrary_text(text):
    try_position(text)


@SETTINGS
@given(st.sampled_from(["2", "3", "4"]),
       st.text(alphabet="0123456789-/:,.fs abcdefg\t", max_size=80))
def test_from_position_on_position_like_text(players, rest):
    try_position(players + " " + rest)


@st.composite
def mutated_positions(draw):
    fields = reach(draw(plans)).position().split(" ")
    kind = draw(st.sampled_from(["replace", "delete", "duplicate", "digit", "swap", "subfield"]))
    i = draw(st.integers(0, len(fields) - 1))
    if kind == "replace":
        fields[i] = draw(st.one_of(
            st.sampled_from(fields),
            st.sampled_from(["-", "0", "99", "d4:0:3", "a4:0:1,a4:0:1", "20/2410/4432/-",
                             "21/0000/0000/-", "0/9999/9999/-", "0/0000/4432/22.22", "fs", "x",
                             "d4", "d4,d4", "h3:0:1", "a4:5:1", "0999", "3579", "0000"]),
            st.text(alphabet="0123456789-/:,.fsabcdg", min_size=1, max_size=12)))
    elif kind == "delete":
        del fields[i]
    elif kind == "duplicate":
        fields.insert(i, fields[i])
    elif kind == "swap":
        j = draw(st.integers(0, len(fields) - 1))
        fields[i], fields[j] = fields[j], fields[i]
    elif kind == "subfield":
        # edit inside a comma, slash, colon or dot separated field
        parts = re.split(r"([,/:.])", fields[i])
        k = draw(st.integers(0, len(parts) - 1))
        parts[k] = draw(st.sampled_from(["", "0", "3", "9", "20", "21", "d4", "a1", "-", "22"]))
        fields[i] = "".join(parts)
    else:
        text = " ".join(fields)
        digits = [k for k, c in enumerate(text) if c.isdigit()]
        k = draw(st.sampled_from(digits))
        # (other digits, and characters that str.isdigit() takes for digits)
        new = draw(st.sampled_from([d for d in "0123456789\u00b2\uff13\u0663" if d != text[k]]))
        return text[:k] + new + text[k + 1:]
    return " ".join(fields)


@SETTINGS
@given(mutated_positions())
def test_from_position_on_mutated_positions(text):
    try_position(text)


@FEW
@given(plans, st.data())
@pytest.mark.slow
def test_every_single_digit_change_is_checked(plan, data):
    """Every one-digit change of a reached position is rejected or gives a consistent game."""
    text = reach(plan).position()
    for k, c in enumerate(text):
        if c.isdigit():
            new = data.draw(st.sampled_from([d for d in "0123456789" if d != c]))
            try_position(text[:k] + new + text[k + 1:])
