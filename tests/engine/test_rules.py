"""Rule tests for photocore: small tests, at least one per rule of docs/rules.md, then
hand-built scenarios that play a few moves from a position and check what follows.

Every expected number below is worked out by hand from docs/rules.md (and the numbering and
notations of docs/engine.md); where the arithmetic is not obvious a comment shows it.
Positions are written in the position notation of docs/engine.md and built with
``photocore.Game.from_position``; the engine is observed only through its public API.

Geometry reminders (docs/rules.md §1, §2): a cell name is a letter for r (a..g = -3..3) and a
digit for q (1..7 = -3..3); d4 = (0, 0).  Directions E(+1,0) SE(0,+1) SW(-1,+1) W(-1,0)
NW(0,-1) NE(+1,-1).  Sun 0 casts shadows toward W, 1 -> NW, 2 -> NE, 3 -> E, 4 -> SE,
5 -> SW.  Round k has sun (k-1) % 6 and first player (k-1) % players.
"""
import pathlib
import re

import pytest

import photocore
from support import axial, distance

# ---------------------------------------------------------------------------
# helpers (test-side only: they compose position strings and read the public API)

CELL_ORDER = [
    "a4", "a5", "a6", "a7",
    "b3", "b4", "b5", "b6", "b7",
    "c2", "c3", "c4", "c5", "c6", "c7",
    "d1", "d2", "d3", "d4", "d5", "d6", "d7",
    "e1", "e2", "e3", "e4", "e5", "e6",
    "f1", "f2", "f3", "f4", "f5",
    "g1", "g2", "g3", "g4",
]
IDX = {c: i for i, c in enumerate(CELL_ORDER)}
OUTER_RING = ["a4", "a5", "a6", "a7", "b3", "b7", "c2", "c7", "d1", "d7", "e1", "e6", "f1", "f5",
              "g1", "g2", "g3", "g4"]

# docs/rules.md §6, top of stack first: 4-, 3-, 2-, 1-leaf stacks.
STACK_TOKENS = (
    (22, 21, 20),
    (19, 18, 18, 17, 17),
    (17, 16, 16, 14, 14, 13, 13),
    (14, 14, 13, 13, 13, 12, 12, 12, 12),
)


def player(light=0, avail="2210", pboard="4432", tokens="-"):
    """One player field: light/available/playerboard/tokens."""
    return f"{light}/{avail}/{pboard}/{tokens}"


def taken_tokens(stacks, n):
    """The tokens taken so far (tops of the stacks), '.'-joined, for a stacks field."""
    full = (0 if n == 2 else 3, 5, 7, 9)
    out = []
    for k in range(4):
        out += STACK_TOKENS[k][: full[k] - int(stacks[k])]
    return ".".join(map(str, out)) or "-"


def position(board=(), players=None, *, options="-", rnd=1, to_move=None, activated=(),
             stacks=None):
    """Compose a position text; sun and first player follow from the round."""
    if players is None:
        players = [player(), player()]
    n = len(players)
    sun = (rnd - 1) % 6 if rnd else 0
    first = (rnd - 1) % n if rnd else 0
    if to_move is None:
        to_move = first
    if stacks is None:
        stacks = "0579" if n == 2 else "3579"
    board = sorted(board, key=lambda item: IDX[item.split(":")[0]])
    activated = sorted(activated, key=IDX.__getitem__)
    return " ".join([str(n), options, str(rnd), str(sun), str(first), str(to_move),
                     ",".join(activated) or "-", ",".join(board) or "-", *players, stacks])


def large_col(*sizes):
    """Large-tree column count that keeps 2 large trees in the game (a large tree can
    never leave it: 2 owned, 2 slots) when `sizes` are on the main board."""
    return str(2 - list(sizes).count(3))


def game(board=(), players=None, **kw):
    return photocore.Game.from_position(position(board, players, **kw))


def legal(g):
    return {str(m) for m in g.legal_moves()}


def plants_from(g, src):
    return {m for m in legal(g) if m.startswith(f"plant {src} ")}


def pieces(g, p):
    """(seeds, small, medium, large) of player p still in the game, wherever they are."""
    counts = [a + b for a, b in zip(g.available(p), g.player_board(p))]
    for owner, size in g.board().values():
        if owner == p:
            counts[size] += 1
    return tuple(counts)


def play_setup(g, cells=None):
    cells = cells or OUTER_RING[: 2 * g.players]
    for c in cells:
        g.play(f"place {c}")


def last_player(rnd, n):
    """The player who ends round rnd (the one before its first player)."""
    return (rnd - 1 + n - 1) % n


# ---------------------------------------------------------------------------
# §1 board, cell names, §9 move notation and action ids

def test_board_has_37_cells_in_documented_index_order():
    assert list(photocore.CELLS) == CELL_ORDER
    assert len(photocore.CELLS) == 37
    assert photocore.CELLS[18] == "d4"  # the centre


def test_every_cell_name_is_an_on_board_axial_coordinate():
    coords = {axial(c) for c in photocore.CELLS}
    expected = {(q, r) for q in range(-3, 4) for r in range(-3, 4)
                if max(abs(q), abs(r), abs(q + r)) <= 3}
    assert coords == expected


@pytest.mark.parametrize("text", [
    "place a1", "place h3", "grow d8", "collect a3", "grow e7", "place g5", "place b2",
    "grow d0", "plant d4 a1", "plant h3 d4",
])
def test_off_board_cell_names_are_invalid(text):
    with pytest.raises(photocore.InvalidMoveError):
        photocore.Move.parse(text)


@pytest.mark.parametrize("text,action", [
    ("place a4", 0), ("place d4", 18), ("place g4", 36),
    ("buy seed", 37), ("buy small", 38), ("buy medium", 39), ("buy large", 40),
    ("plant a4 a5", 41),   # first pair: a4 (0) -> a5 (1)
    ("plant a4 a6", 42),
    ("plant g4 g3", 814),  # last pair: g4 (36) -> g3 (35) = 41 + 774 - 1
    ("grow a4", 815), ("grow d4", 833),  # 815 + 18
    ("collect a4", 852), ("collect d4", 870), ("collect g4", 888),
    ("end", 889),
])
def test_action_ids(text, action):
    m = photocore.Move.parse(text)
    assert int(m) == action
    assert str(photocore.Move(action)) == text


def test_plant_ids_are_pairs_within_distance_3_ordered_by_source_then_target():
    pairs = [(s, t) for s in CELL_ORDER for t in CELL_ORDER if 1 <= distance(s, t) <= 3]
    assert len(pairs) == 774
    got = []
    for action in range(41, 815):
        words = str(photocore.Move(action)).split()
        assert words[0] == "plant"
        got.append((words[1], words[2]))
    assert got == pairs
    assert photocore.NUM_ACTIONS == 890


def test_move_notation_round_trips_for_every_action():
    for action in range(photocore.NUM_ACTIONS):
        text = str(photocore.Move(action))
        assert text == text.lower() and text == " ".join(text.split())
        assert int(photocore.Move.parse(text)) == action
        assert int(photocore.Move.parse(text.upper())) == action


@pytest.mark.parametrize("text,canonical", [
    ("  PLANT   D4  e5 ", "plant d4 e5"),
    ("End", "end"),
    ("   end", "end"),
    ("Buy   MEDIUM  ", "buy medium"),
    ("gRoW c3", "grow c3"),
    (" COLLECT  g1", "collect g1"),
    ("Place   A7", "place a7"),
])
def test_move_parse_ignores_case_and_extra_white_space(text, canonical):
    assert str(photocore.Move.parse(text)) == canonical


@pytest.mark.parametrize("text", [
    "buy seeds", "plant d4", "grow", "end now", "", "   ", "place", "buy", "collect",
    "grow d4 d5", "plant d4 e5 f6", "buy seed seed", "seed buy", "growd4", "end end",
    "buy tree",
])
def test_malformed_move_texts_are_rejected(text):
    with pytest.raises(photocore.InvalidMoveError):
        photocore.Move.parse(text)


def test_move_from_id_outside_range_is_rejected():
    with pytest.raises(ValueError):
        photocore.Move(photocore.NUM_ACTIONS)
    with pytest.raises(ValueError):
        photocore.Move(-1)


@pytest.mark.parametrize("action,kind", [
    (0, "place"), (36, "place"), (37, "buy"), (40, "buy"), (41, "plant"), (814, "plant"),
    (815, "grow"), (851, "grow"), (852, "collect"), (888, "collect"), (889, "end"),
])
def test_move_kind(action, kind):
    assert photocore.Move(action).kind == kind


def test_error_classes_are_value_errors():
    for cls in (photocore.IllegalMoveError, photocore.InvalidMoveError,
                photocore.InvalidPositionError):
        assert issubclass(cls, ValueError)


# ---------------------------------------------------------------------------
# §3 start of game, §4 setup, §5.4 setup fine points

def test_start_position_matches_documentation():
    g = photocore.Game(players=2)
    assert g.position() == "2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579"
    assert (g.phase, g.round, g.sun, g.first_player, g.current_player) == ("setup", 0, 0, 0, 0)
    assert tuple(g.light) == (0, 0)
    for p in range(2):
        assert tuple(g.available(p)) == (2, 4, 1, 0)
        assert tuple(g.player_board(p)) == (4, 4, 3, 2)
        assert tuple(g.tokens(p)) == ()
    assert g.board() == {}
    assert tuple(g.stacks) == (0, 5, 7, 9)  # 2 players: no 4-leaf stack


@pytest.mark.parametrize("n", [3, 4])
def test_start_stacks_with_3_and_4_players(n):
    g = photocore.Game(players=n)
    assert tuple(g.stacks) == (3, 5, 7, 9)
    assert tuple(g.light) == (0,) * n


def test_setup_only_place_moves_on_empty_outer_ring_cells():
    g = photocore.Game(players=2)
    assert legal(g) == {f"place {c}" for c in OUTER_RING}
    assert list(g.legal_moves().ids()) == sorted(IDX[c] for c in OUTER_RING)
    assert all(m.kind == "place" for m in g.legal_moves())
    g.play("place a4")
    assert legal(g) == {f"place {c}" for c in OUTER_RING if c != "a4"}
    assert len(g.legal_moves()) == 17


@pytest.mark.parametrize("text", ["end", "buy seed", "buy small", "place d4", "place b4",
                                  "place c3", "place e5"])
def test_setup_has_no_end_no_buy_and_no_inner_placement(text):
    g = photocore.Game(players=2)
    with pytest.raises(photocore.IllegalMoveError):
        g.play(text)


def test_setup_placement_on_occupied_cell_is_illegal():
    g = photocore.Game(players=2)
    g.play("place a4")
    with pytest.raises(photocore.IllegalMoveError):
        g.play("place a4")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_order_is_0_to_n_minus_1_twice(n):
    g = photocore.Game(players=n)
    order = []
    for c in OUTER_RING[: 2 * n]:
        assert g.phase == "setup" and g.round == 0 and g.sun == 0 and g.first_player == 0
        order.append(g.current_player)
        g.play(f"place {c}")
    assert order == list(range(n)) * 2
    assert (g.phase, g.round, g.sun, g.first_player, g.current_player) == ("play", 1, 0, 0, 0)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_setup_is_free_and_leaves_2_seeds_2_small_1_medium(n):
    g = photocore.Game(players=n)
    cells = OUTER_RING[: 2 * n]
    for c in cells[:-1]:
        g.play(f"place {c}")
        assert tuple(g.light) == (0,) * n  # placing costs and earns nothing
        assert tuple(g.activated()) == ()
    g.play(f"place {cells[-1]}")
    for p in range(n):
        assert tuple(g.available(p)) == (2, 2, 1, 0)
        assert tuple(g.player_board(p)) == (4, 4, 3, 2)
        assert sorted(cell for cell, (o, s) in g.board().items() if o == p) == \
            sorted(cells[p::n])
    assert all(size == 1 for (_, size) in g.board().values())


def test_round_1_photosynthesis_happens_inside_the_last_placement():
    g = photocore.Game(players=2)
    for c in ("a7", "a6", "g4"):
        g.play(f"place {c}")
    assert g.phase == "setup" and tuple(g.light) == (0, 0)
    g.play("place d1")
    assert (g.phase, g.round, g.sun, g.current_player) == ("play", 1, 0, 0)
    # sun 0, shadows W: a7 (3,-3) shades a6 (2,-3); g4 -> g3 empty; d1 -> off board.
    assert tuple(g.shaded()) == ("a6",)
    # P0: a7 1 + g4 1 = 2; P1: a6 shaded 0 + d1 1 = 1.
    assert tuple(g.light) == (2, 1)


def test_place_is_not_legal_after_setup():
    g = photocore.Game(players=2)
    play_setup(g)
    assert not any(m.kind == "place" for m in g.legal_moves())
    with pytest.raises(photocore.IllegalMoveError):
        g.play("place g2")


# ---------------------------------------------------------------------------
# §2 sun, §5.3 rounds and turn order, §5.4 end

@pytest.mark.parametrize("n", [2, 3, 4])
def test_round_k_sun_and_first_player_and_turn_order(n):
    g = photocore.Game(players=n)
    play_setup(g)
    for k in range(1, 19):
        assert g.round == k
        assert g.sun == (k - 1) % 6
        assert g.first_player == (k - 1) % n
        for j in range(n):
            assert g.phase == "play"
            assert g.current_player == (g.first_player + j) % n
            g.play("end")
    assert g.phase == "over"


def test_standard_game_is_over_after_18_rounds():
    g = photocore.Game(players=2)
    assert g.last_round == 18
    play_setup(g)
    for _ in range(2 * 18 - 1):
        g.play("end")
    assert (g.round, g.current_player, g.phase) == (18, 0, "play")  # round 18 first: 17 % 2 = 1
    g.play("end")
    assert g.phase == "over" and g.is_over
    assert g.round == 18 and g.sun == 5  # (18 - 1) % 6
    assert g.current_player is None
    assert len(g.legal_moves()) == 0
    assert list(g.legal_moves().ids()) == []
    with pytest.raises(photocore.IllegalMoveError):
        g.play("end")


@pytest.mark.parametrize("n", [2, 3])
def test_fourth_revolution_lasts_24_rounds(n):
    g = photocore.Game(players=n, options="f")
    assert g.last_round == 24 and g.options.fourth_revolution
    play_setup(g)
    for _ in range(18 * n):
        g.play("end")
    assert (g.phase, g.round, g.sun, g.first_player) == ("play", 19, 0, 18 % n)
    for _ in range(6 * n - 1):
        g.play("end")
    assert g.round == 24 and g.phase == "play"
    g.play("end")
    assert g.phase == "over" and g.round == 24 and g.sun == 5 and g.current_player is None


def test_end_as_first_action_passes_the_turn_without_photosynthesis():
    g = game(["d4:0:1", "a4:1:1"], [player(5), player(7)])
    g.play("end")
    assert (g.round, g.current_player) == (1, 1)
    assert tuple(g.light) == (5, 7)


def test_end_is_the_only_legal_move_with_no_light():
    # P0 has seeds and trees but 0 LP: every action costs >= 1.
    g = game(["d4:0:1", "a4:1:1"], [player(0), player(7)])
    assert list(g.legal_moves().ids()) == [889]
    g.play("end")
    assert g.current_player == 1


def test_end_is_legal_at_every_decision_of_the_play_phase():
    g = photocore.Game(players=2)
    play_setup(g)
    for _ in range(60):
        if g.is_over:
            break
        actions = list(g.legal_moves().ids())
        assert actions == sorted(actions) and actions[-1] == 889
        assert [int(m) for m in g.legal_moves()] == actions
        g.play(actions[0])  # always the lowest id: buys, plants, grows ... then end


def test_last_end_of_round_moves_sun_passes_first_player_and_photosynthesises():
    # 3 players, round 4 (sun 3, first 0); player 2 ends it.
    board = ["d4:0:1", "d5:1:1", "d6:2:1"]
    g = game(board, [player(1), player(2), player(3)], rnd=4, to_move=2)
    g.play("end")
    assert (g.round, g.sun, g.first_player, g.current_player) == (5, 4, 1, 1)
    # sun 4, shadows SE: d4 -> e4, d5 -> e5, d6 -> e6; nothing shaded, each small earns 1.
    assert tuple(g.light) == (2, 3, 4)


def test_no_photosynthesis_after_the_last_round():
    # Round 18: sun 5, first 1; player 0 ends the last round.
    g = game(["d4:0:1", "a4:1:1"], [player(5), player(7)], rnd=18, to_move=0)
    g.play("end")
    assert g.phase == "over" and g.current_player is None
    assert (g.round, g.sun) == (18, 5)
    assert tuple(g.light) == (5, 7)
    assert len(g.legal_moves()) == 0


def test_round_19_has_photosynthesis_with_fourth_revolution():
    g = game(["d4:0:1", "a4:1:1"], [player(5), player(7)], options="f", rnd=18, to_move=0)
    g.play("end")
    assert (g.phase, g.round, g.sun, g.first_player, g.current_player) == ("play", 19, 0, 0, 0)
    # sun 0, shadows W: d4 -> d3 (empty), a4 -> off board; both small trees earn 1.
    assert tuple(g.light) == (6, 8)


def test_round_past_18_needs_fourth_revolution():
    text = "2 - 19 0 0 0 - a4:1:1,d4:0:1 0/2210/4432/- 0/2210/4432/- 0579"
    with pytest.raises(photocore.InvalidPositionError):
        photocore.Game.from_position(text)
    g = photocore.Game.from_position(text.replace(" - 19", " f 19"))
    assert g.round == 19 and g.last_round == 24


# ---------------------------------------------------------------------------
# §5.1 photosynthesis and shadows

# sun, shadow direction D from d4 at distance 1, 2, 3, and the cells at d4 - D, d4 - 2D
SUN_CASES = [
    (0, "d3", "d2", "d1", "d5", "d6"),   # W  (-1, 0)
    (1, "c4", "b4", "a4", "e4", "f4"),   # NW (0, -1)
    (2, "c5", "b6", "a7", "e3", "f2"),   # NE (+1, -1)
    (3, "d5", "d6", "d7", "d3", "d2"),   # E  (+1, 0)
    (4, "e4", "f4", "g4", "c4", "b4"),   # SE (0, +1)
    (5, "e3", "f2", "g1", "c5", "b6"),   # SW (-1, +1)
]


def sun_board(dw1, dw3, uw1, uw2):
    # P0 large at d4 and small at d4-2D; P1 small at d4+D, large at d4+3D, medium at d4-D.
    return ["d4:0:3", f"{uw2}:0:1", f"{dw1}:1:1", f"{dw3}:1:3", f"{uw1}:1:2"]


SUN_PLAYERS = (
    ("2210", "4431"),   # P0: small 2+4+1 = 7, medium 1+3 = 4, large 0+1+1 = 2
    ("2200", "4421"),   # P1: small 2+4+1 = 7, medium 0+2+1 = 3, large 0+1+1 = 2
)


@pytest.mark.parametrize("sun,dw1,dw2,dw3,uw1,uw2", SUN_CASES)
def test_shadow_direction_for_each_sun_position(sun, dw1, dw2, dw3, uw1, uw2):
    players = [player(0, *SUN_PLAYERS[0]), player(0, *SUN_PLAYERS[1])]
    g = game(sun_board(dw1, dw3, uw1, uw2), players, rnd=sun + 1)
    assert g.sun == sun
    # d4's large shades the small at distance 1 and the (equal) large at distance 3;
    # the medium and small upwind of d4 are lit, and the medium does not shade the large.
    assert tuple(g.shaded()) == tuple(sorted((dw1, dw3), key=IDX.__getitem__))


@pytest.mark.parametrize("sun,dw1,dw2,dw3,uw1,uw2", SUN_CASES)
def test_photosynthesis_at_round_start_for_each_sun_position(sun, dw1, dw2, dw3, uw1, uw2):
    rnd = sun if sun else 6           # round rnd + 1 has sun `sun`
    players = [player(0, *SUN_PLAYERS[0]), player(0, *SUN_PLAYERS[1])]
    g = game(sun_board(dw1, dw3, uw1, uw2), players, rnd=rnd, to_move=rnd % 2)
    g.play("end")                     # the last player of round rnd ends it
    assert (g.round, g.sun, g.first_player, g.current_player) == (rnd + 1, sun, rnd % 2, rnd % 2)
    # P0: large 3 + small 1 = 4; P1: small shaded 0 + large shaded 0 + medium 2 = 2.
    assert tuple(g.light) == (4, 2)
    assert tuple(g.shaded()) == tuple(sorted((dw1, dw3), key=IDX.__getitem__))


@pytest.mark.parametrize("before,after", [
    ((0, 0), (4, 2)),
    ((15, 17), (19, 19)),
    ((16, 18), (20, 20)),   # exactly 20
    ((17, 19), (20, 20)),   # 21 and 21 capped to 20
    ((20, 20), (20, 20)),
])
def test_light_is_capped_at_20_after_the_gain(before, after):
    # Sun-0 case of SUN_CASES: P0 gains 4, P1 gains 2 when round 7 starts.
    board = sun_board("d3", "d1", "d5", "d6")
    players = [player(before[0], *SUN_PLAYERS[0]), player(before[1], *SUN_PLAYERS[1])]
    g = game(board, players, rnd=6, to_move=0)
    g.play("end")
    assert g.sun == 0
    assert tuple(g.light) == after


@pytest.mark.parametrize("caster,victim,shaded", [
    (1, 1, True), (2, 2, True), (3, 3, True),      # equal sizes shade
    (2, 1, True), (3, 1, True), (3, 2, True),      # taller casts on smaller
    (1, 2, False), (1, 3, False), (2, 3, False),   # a taller tree stays lit
])
def test_shade_needs_a_caster_at_least_as_tall(caster, victim, shaded):
    # Sun 0 (round 1): caster at d4 casts W onto d3.
    board = [f"d4:0:{caster}", f"d3:1:{victim}"]
    players = [player(0, "0000", "432" + large_col(caster)),
               player(0, "0000", "432" + large_col(victim))]
    g = game(board, players)
    assert tuple(g.shaded()) == (("d3",) if shaded else ())


@pytest.mark.parametrize("size,victim,shaded", [
    (1, "d3", True), (1, "d2", False), (1, "d1", False),
    (2, "d3", True), (2, "d2", True), (2, "d1", False),   # medium: distance 2 yes, 3 no
    (3, "d3", True), (3, "d2", True), (3, "d1", True),
])
def test_shadow_length_equals_tree_size(size, victim, shaded):
    board = [f"d4:0:{size}", f"{victim}:1:1"]
    players = [player(0, "0000", "432" + large_col(size)), player(0, "2210", "4432")]
    g = game(board, players)  # sun 0: shadows W
    assert tuple(g.shaded()) == ((victim,) if shaded else ())


def test_own_trees_shade_each_other():
    g = game(["d4:0:2", "d3:0:1"], [player(0, "2200", "4322"), player()])
    assert tuple(g.shaded()) == ("d3",)


@pytest.mark.parametrize("sun,board,shaded", [
    (0, ["d1:0:3", "c7:1:1"], ()),                           # all of d1's shadow is off board
    (0, ["d2:0:3", "d1:1:1", "c7:1:1"], ("d1",)),  # d2 -> d1, then off; no wrap onto c7
    (3, ["d6:0:3", "d7:1:1", "e1:1:1"], ("d7",)),  # d6 -> d7, then off; no wrap onto e1
    (1, ["b4:0:3", "a4:1:1"], ("a4",)),                      # NW: b4 -> a4, then off
    (2, ["b6:0:3", "a7:1:1"], ("a7",)),                      # NE: b6 -> a7, then off
    (4, ["f4:0:3", "g4:1:1"], ("g4",)),                      # SE: f4 -> g4, then off
    (5, ["f2:0:3", "g1:1:1"], ("g1",)),                      # SW: f2 -> g1, then off
])
def test_shadows_running_off_the_board(sun, board, shaded):
    players = [player(0, "0000", "4321"), player(0, "2010", "4432")]
    g = game(board, players, rnd=sun + 1)
    assert tuple(g.shaded()) == shaded


def test_shadows_off_board_still_let_the_tree_earn():
    # Round 6 -> 7 (sun 0): P0 large at d1 casts only off the board, P1 small at c7 lit.
    players = [player(0, "0000", "4321"), player(0, "2010", "4432")]
    g = game(["d1:0:3", "c7:1:1"], players, rnd=6, to_move=0)
    g.play("end")
    assert tuple(g.light) == (3, 1)


def test_a_shaded_tree_still_casts_its_shadow():
    # Sun 0: d4 medium shades d3 medium (equal); d3's shadow (d2, d1) still shades the small
    # at d1, which d4's shadow (d3, d2) does not reach.
    board = ["d4:0:2", "d3:1:2", "d1:1:1"]
    players = [player(0, "2200", "4322"), player(0, "2200", "4322")]
    g = game(board, players)
    assert tuple(g.shaded()) == ("d1", "d3")
    g = game(board, players, rnd=6, to_move=0)
    g.play("end")
    assert tuple(g.light) == (2, 0)  # P0 medium 2; P1 both shaded


def test_seed_casts_no_shadow_and_earns_nothing():
    # Round 6 -> 7 (sun 0): P0 seed at d4, P1 small at d3 just west of it.
    g = game(["d4:0:0", "d3:1:1"], [player(0, "1210", "4432"), player()], rnd=6, to_move=0)
    assert tuple(g.shaded()) == ()
    g.play("end")
    assert tuple(g.shaded()) == ()
    assert tuple(g.light) == (0, 1)


def test_seed_casts_no_shadow_on_a_seed_or_an_empty_cell():
    # Sun 0: seeds at c5 and c4 (c4 just west of c5), medium at d4 (shadow d3, d2).
    # With shade_blocks, c3 (west of the seed at c4) is no shadowed target either.
    board = ["d4:0:2", "c4:0:0", "c5:0:0"]
    g = game(board, [player(20, "1210", "3422"), player()], options="s")
    assert tuple(g.shaded()) == ()
    assert "plant d4 c3" in legal(g)          # d4 (0,0) -> c3 (-1,-1): distance 2
    assert "plant d4 d2" not in legal(g)      # in the medium's own shadow


def test_seed_in_a_shadow_is_listed_as_shaded_and_earns_nothing():
    g = game(["d4:0:1", "d3:1:0"], [player(0), player(0, "1210", "4432")], rnd=6, to_move=0)
    g.play("end")  # sun 0: small at d4 casts on the seed at d3
    assert tuple(g.shaded()) == ("d3",)
    assert tuple(g.light) == (1, 0)


# ---------------------------------------------------------------------------
# §3 / §5.2 buy

@pytest.mark.parametrize("column,prices", [
    ("seed", (1, 1, 2, 2)),
    ("small", (2, 2, 3, 3)),
    ("medium", (3, 3, 4)),
    ("large", (4, 5)),
])
def test_buy_price_ladder_of_each_column(column, prices):
    k = ("seed", "small", "medium", "large").index(column)
    # Full columns, nothing available: seeds 4, small 4+1, medium 3, large 2 in the game.
    g = game(["a4:0:1", "g1:1:1"], [player(20, "0000", "4432"), player()])
    light = 20
    for bought, price in enumerate(prices, start=1):
        assert f"buy {column}" in legal(g)
        g.play(f"buy {column}")
        light -= price
        assert g.light[0] == light
        assert g.player_board(0)[k] == len(prices) - bought
        assert g.available(0)[k] == bought
    assert f"buy {column}" not in legal(g)   # the column is empty
    with pytest.raises(photocore.IllegalMoveError):
        g.play(f"buy {column}")


@pytest.mark.parametrize("pboard,move,price", [
    ("3432", "buy seed", 1),    # n = 3: p[4 - 3] = p[1] = 1
    ("2432", "buy seed", 2),    # p[2] = 2
    ("1432", "buy seed", 2),    # p[3] = 2
    ("4332", "buy small", 2),   # p[1] = 2
    ("4232", "buy small", 3),   # p[2] = 3
    ("4132", "buy small", 3),   # p[3] = 3
    ("4422", "buy medium", 3),  # p[3 - 2] = p[1] = 3
    ("4412", "buy medium", 4),  # p[2] = 4
    ("4431", "buy large", 5),   # p[2 - 1] = p[1] = 5
])
def test_buy_price_is_p_k_minus_n(pboard, move, price):
    avail = "000" + large_col(*[3] * int(pboard[3]))   # the other large tree is available
    g = game(["a4:0:1", "g1:1:1"], [player(20, avail, pboard), player()])
    g.play(move)
    assert g.light[0] == 20 - price


@pytest.mark.parametrize("pboard,light,move,ok", [
    ("2432", 1, "buy seed", False),   # price 2
    ("2432", 2, "buy seed", True),
    ("4432", 0, "buy seed", False),   # price 1
    ("4132", 2, "buy small", False),  # price 3
    ("4412", 3, "buy medium", False),  # price 4
    ("4431", 4, "buy large", False),  # price 5
    ("4431", 5, "buy large", True),
])
def test_buy_needs_enough_light(pboard, light, move, ok):
    avail = "000" + large_col(*[3] * int(pboard[3]))
    g = game(["a4:0:1", "g1:1:1"], [player(light, avail, pboard), player()])
    assert (move in legal(g)) == ok


def test_empty_column_is_not_buyable():
    g = game(["a4:0:1", "g1:1:1"], [player(20, "2002", "0000"), player()])
    assert not any(m.startswith("buy") for m in legal(g))


def test_bought_seed_can_be_planted_the_same_turn():
    g = game(["d4:0:1", "a4:1:1"], [player(2, "0210", "4432"), player()])
    assert not plants_from(g, "d4")          # no seed available
    g.play("buy seed")                       # 2 - 1 = 1
    assert "plant d4 d5" in legal(g)
    g.play("plant d4 d5")                    # 1 - 1 = 0
    assert g.light[0] == 0
    assert g.board()["d5"] == (0, 0)


def test_bought_large_tree_can_be_grown_into_the_same_turn():
    # P0: medium 0+3+1 = 4, large 0+1+1 (g1) = 2.
    g = game(["d4:0:2", "g1:0:3", "a4:1:1"], [player(8, "0000", "4431"), player()])
    assert "grow d4" not in legal(g)
    g.play("buy large")                      # p[2 - 1] = 5: 8 - 5 = 3
    g.play("grow d4")                        # 3 - 3 = 0
    assert g.board()["d4"] == (0, 3)
    assert g.light[0] == 0


def test_buying_activates_nothing_and_can_repeat():
    g = game(["d4:0:1", "a4:1:1"], [player(20, "0000", "4432"), player()])
    for move in ("buy seed", "buy seed", "buy medium", "buy small"):
        g.play(move)
        assert tuple(g.activated()) == ()
    assert g.light[0] == 20 - 1 - 1 - 3 - 2
    assert "grow d4" in legal(g) and "plant d4 d5" in legal(g)


@pytest.mark.parametrize("board,pboard,avail,column,grow_cost,price_before,price_after", [
    # small column n = 2: buy costs p[2] = 3; grow returns a small -> n = 3: p[1] = 2
    ("d4:0:1", "4232", "2210", "small", 2, 3, 2),
    # seed column n = 2: buy costs p[2] = 2; grow returns a seed -> n = 3: p[1] = 1
    ("d4:0:0", "2432", "1210", "seed", 1, 2, 1),
    # medium column n = 1: buy costs p[2] = 4; grow returns a medium -> n = 2: p[1] = 3
    ("d4:0:2", "4411", "0001", "medium", 3, 4, 3),
])
def test_returned_piece_refills_dearest_empty_slot(board, pboard, avail, column, grow_cost,
                                                    price_before, price_after):
    k = ("seed", "small", "medium", "large").index(column)
    players = [player(20, avail, pboard), player()]
    h = game([board, "a4:1:1"], players)
    h.play(f"buy {column}")
    assert h.light[0] == 20 - price_before
    g = game([board, "a4:1:1"], players)
    g.play("grow d4")
    assert g.player_board(0)[k] == int(pboard[k]) + 1
    g.play(f"buy {column}")
    assert g.light[0] == 20 - grow_cost - price_after


# ---------------------------------------------------------------------------
# §5.2 plant

def test_plant_costs_1_light_and_one_available_seed():
    g = game(["d4:0:1", "a4:1:1"], [player(20), player()])
    g.play("plant d4 d5")
    assert g.light[0] == 19
    assert tuple(g.available(0)) == (1, 2, 1, 0)
    assert tuple(g.player_board(0)) == (4, 4, 3, 2)
    assert g.board()["d5"] == (0, 0)
    assert tuple(g.activated()) == ("d4", "d5")


@pytest.mark.parametrize("size,count", [(1, 6), (2, 18), (3, 35)])
def test_plant_range_equals_source_size(size, count):
    # From d4: ring 1 = 6 cells, rings 1-2 = 18, rings 1-3 = 36 less a4 (occupied) = 35.
    players = [player(20, "2000", "432" + large_col(size)), player()]
    g = game([f"d4:0:{size}", "a4:1:1"], players)
    targets = plants_from(g, "d4")
    assert len(targets) == count
    assert all(distance("d4", m.split()[2]) <= size for m in targets)


@pytest.mark.parametrize("size,target,ok", [
    (1, "d5", True), (1, "d6", False), (1, "b4", False),
    (2, "d6", True), (2, "b4", True), (2, "d7", False), (2, "g1", False),
    (3, "d7", True), (3, "g1", True), (3, "a7", True),
])
def test_plant_distance_limit(size, target, ok):
    players = [player(20, "2000", "432" + large_col(size)), player()]
    g = game([f"d4:0:{size}", "a4:1:1"], players)
    assert (f"plant d4 {target}" in legal(g)) == ok


def test_pieces_between_do_not_block_planting():
    # P0 large d4; P1 large d5 and medium d6 stand between d4 and d7.
    board = ["d4:0:3", "d5:1:3", "d6:1:2"]
    g = game(board, [player(20, "2200", "4431"), player(0, "2200", "4421")])
    assert "plant d4 d7" in legal(g)
    g.play("plant d4 d7")
    assert g.board()["d7"] == (0, 0)


def test_plant_needs_a_seed_in_the_available_area():
    # Seeds on the player board do not count.
    g = game(["d4:0:1", "a4:1:1"], [player(20, "0210", "4432"), player()])
    assert not any(m.startswith("plant") for m in legal(g))
    with pytest.raises(photocore.IllegalMoveError):
        g.play("plant d4 d5")


def test_plant_target_must_be_empty():
    # d4's neighbours: d5 e4 e3 d3 c4 c5; c4 (own seed), d5 (P1 small), e4 (P1 seed) taken.
    board = ["d4:0:1", "c4:0:0", "d5:1:1", "e4:1:0"]
    g = game(board, [player(20, "1210", "4432"), player(0, "1210", "4432")])
    assert plants_from(g, "d4") == {"plant d4 c5", "plant d4 d3", "plant d4 e3"}


def test_plant_source_must_be_a_tree_not_a_seed():
    g = game(["d4:0:0", "a4:0:1", "g1:1:1"], [player(20, "1210", "4432"), player()])
    assert not plants_from(g, "d4")
    assert plants_from(g, "a4") == {"plant a4 a5", "plant a4 b3", "plant a4 b4"}


def test_plant_source_must_be_own_tree():
    g = game(["d4:1:3", "g1:0:1"], [player(20), player(0, "2200", "4431")])
    assert {m.split()[1] for m in legal(g) if m.startswith("plant")} == {"g1"}


def test_activated_cells_from_the_position_cannot_be_used():
    # P0 has already acted on d4 this turn (activated field).
    g = game(["d4:0:1", "g1:0:1", "a4:1:1"], [player(20, "2210", "4432"), player()],
             activated=["d4"])
    assert tuple(g.activated()) == ("d4",)
    assert not plants_from(g, "d4")
    assert "grow d4" not in legal(g)
    assert plants_from(g, "g1") and "grow g1" in legal(g)


# ---------------------------------------------------------------------------
# §5.2 / §5.4 consequences of activation

def activation_game():
    # P0: smalls at d4 and g1, 2 seeds, 2 small, 1 medium available, 20 LP.
    return game(["d4:0:1", "g1:0:1", "a4:1:1"], [player(20), player()])


def test_cannot_plant_two_seeds_from_one_tree():
    g = activation_game()
    g.play("plant d4 d5")
    assert not plants_from(g, "d4")
    assert "plant g1 g2" in legal(g)  # another tree still can


def test_cannot_plant_from_a_tree_then_grow_it():
    g = activation_game()
    g.play("plant d4 d5")
    assert "grow d4" not in legal(g)
    assert "grow g1" in legal(g)


def test_seed_planted_this_turn_cannot_grow_this_turn():
    g = activation_game()
    g.play("plant d4 d5")
    assert g.available(0)[1] > 0 and g.light[0] >= 1
    assert "grow d5" not in legal(g)


def test_cannot_grow_a_tree_then_plant_from_it():
    g = activation_game()
    g.play("grow d4")                     # small -> medium, 20 - 2 = 18
    assert g.board()["d4"] == (0, 2)
    assert not plants_from(g, "d4")
    assert "plant g1 g2" in legal(g)


def test_cannot_grow_a_piece_twice_in_one_turn():
    g = game(["d4:0:0", "a4:1:1"], [player(20, "1210", "4432"), player()])
    g.play("grow d4")                     # seed -> small
    assert g.board()["d4"] == (0, 1) and g.available(0)[2] == 1 and g.light[0] == 19
    assert "grow d4" not in legal(g)


def test_tree_grown_to_large_cannot_be_collected_the_same_turn():
    # P0: medium 1+2+1 = 4, large 1+1 = 2.
    g = game(["d4:0:2", "a4:1:1"], [player(20, "2211", "4421"), player()])
    g.play("grow d4")                     # 20 - 3 = 17
    assert g.board()["d4"] == (0, 3)
    assert "collect d4" not in legal(g)


def test_collect_then_plant_on_its_cell_same_turn_is_illegal_but_others_may():
    # Round 1: P0 (first) then P1. P0 large d4, small d5; P1 small c4.
    board = ["d4:0:3", "d5:0:1", "c4:1:1"]
    g = game(board, [player(20, "2210", "4431"), player(5)])
    g.play("collect d4")
    assert "d4" not in g.board()
    assert "plant d5 d4" not in legal(g)
    assert "plant d5 d6" in legal(g)
    g.play("end")
    assert (g.round, g.current_player) == (1, 1)
    assert "plant c4 d4" in legal(g)
    g.play("plant c4 d4")
    assert g.board()["d4"] == (1, 0)


def test_activation_resets_at_end_of_turn():
    # Round 1, P1 ends the round and is first player of round 2 (1 % 2 = 1).
    g = game(["d4:1:0", "a4:0:1"], [player(0), player(20, "1210", "4432")], to_move=1)
    g.play("grow d4")
    assert tuple(g.activated()) == ("d4",)
    assert "grow d4" not in legal(g)
    g.play("end")
    assert (g.round, g.current_player) == (2, 1)
    assert tuple(g.activated()) == ()
    assert "grow d4" in legal(g)


# ---------------------------------------------------------------------------
# §5.2 grow

@pytest.mark.parametrize("size,cost,pboard_after", [
    (0, 1, (4, 3, 2, 1)),   # seed column full (4): the seed leaves the game
    (1, 2, (4, 4, 2, 1)),   # small column 3 -> 4
    (2, 3, (4, 3, 3, 1)),   # medium column 2 -> 3
])
def test_grow_costs_and_effect(size, cost, pboard_after):
    # P0 available 1 of each; player board 4 3 2 1 (totals fit for size <= 2).
    g = game([f"d4:0:{size}", "a4:1:1"], [player(20, "1111", "4321"), player()])
    g.play("grow d4")
    assert g.light[0] == 20 - cost
    assert g.board()["d4"] == (0, size + 1)
    avail = [1, 1, 1, 1]
    avail[size + 1] = 0
    assert tuple(g.available(0)) == tuple(avail)
    assert tuple(g.player_board(0)) == pboard_after


@pytest.mark.parametrize("size,light", [(0, 0), (1, 1), (2, 2)])
def test_grow_needs_enough_light(size, light):
    g = game([f"d4:0:{size}", "a4:1:1"], [player(light, "1111", "4321"), player()])
    assert "grow d4" not in legal(g)
    g = game([f"d4:0:{size}", "a4:1:1"], [player(light + 1, "1111", "4321"), player()])
    assert "grow d4" in legal(g)


def test_grow_needs_the_next_size_available_no_small_tree():
    # A seed on d4 but no small tree in the available area (4 on the player board).
    g = game(["d4:0:0", "a4:1:1"], [player(20, "1010", "4432"), player()])
    assert "grow d4" not in legal(g)
    with pytest.raises(photocore.IllegalMoveError):
        g.play("grow d4")
    g.play("buy small")                   # 20 - 2 = 18
    g.play("grow d4")                     # 18 - 1 = 17
    assert g.board()["d4"] == (0, 1) and g.light[0] == 17


def test_grow_needs_the_next_size_available_no_large_tree():
    g = game(["d4:0:2", "a4:1:1"], [player(20, "2200", "4422"), player()])
    assert "grow d4" not in legal(g)


def test_large_tree_cannot_grow():
    g = game(["d4:0:3", "a4:1:1"], [player(20, "2211", "4430"), player()])
    assert "grow d4" not in legal(g)


def test_cannot_grow_another_players_piece():
    g = game(["d4:1:1", "a4:0:1"], [player(20), player()])
    assert "grow d4" not in legal(g)
    assert "grow a4" in legal(g)


@pytest.mark.parametrize("board,avail,pboard,pboard_after,before,after", [
    # small returns to its column (2 -> 3); every piece accounted for
    ("d4:0:1", "2210", "4232", (4, 3, 3, 2), (6, 5, 4, 2), (6, 5, 4, 2)),
    # small column full: the small leaves the game (7 -> 6 small in the game)
    ("d4:0:1", "2210", "4432", (4, 4, 3, 2), (6, 7, 4, 2), (6, 6, 4, 2)),
    # seed returns (3 -> 4)
    ("d4:0:0", "1210", "3432", (4, 4, 3, 2), (5, 6, 4, 2), (5, 6, 4, 2)),
    # seed column full: the seed leaves the game
    ("d4:0:0", "1210", "4432", (4, 4, 3, 2), (6, 6, 4, 2), (5, 6, 4, 2)),
    # medium returns (2 -> 3)
    ("d4:0:2", "0001", "4421", (4, 4, 3, 1), (4, 4, 3, 2), (4, 4, 3, 2)),
    # medium column full: the medium leaves the game
    ("d4:0:2", "0001", "4431", (4, 4, 3, 1), (4, 4, 4, 2), (4, 4, 3, 2)),
])
def test_grown_over_piece_returns_to_column_or_leaves_the_game(board, avail, pboard,
                                                              pboard_after, before, after):
    g = game([board, "a4:1:1"], [player(20, avail, pboard), player()])
    assert pieces(g, 0) == before
    assert pieces(g, 1) == (6, 7, 4, 2)
    g.play("grow d4")
    assert tuple(g.player_board(0)) == pboard_after
    assert pieces(g, 0) == after
    assert pieces(g, 1) == (6, 7, 4, 2)


# ---------------------------------------------------------------------------
# §5.2 collect and §6 scoring tokens

def test_collect_costs_4_light():
    g = game(["d4:0:3", "a4:1:1"], [player(4, "0000", "4431"), player()])
    g.play("collect d4")
    assert g.light[0] == 0
    g = game(["d4:0:3", "a4:1:1"], [player(3, "0000", "4431"), player()])
    assert "collect d4" not in legal(g)


@pytest.mark.parametrize("size", [0, 1, 2])
def test_collect_needs_a_large_tree(size):
    g = game([f"d4:0:{size}", "a4:1:1"], [player(20, "1000", "4322"), player()])
    assert "collect d4" not in legal(g)
    with pytest.raises(photocore.IllegalMoveError):
        g.play("collect d4")


def test_cannot_collect_another_players_tree():
    g = game(["d4:1:3", "a4:0:1"], [player(20), player(0, "2200", "4431")])
    assert "collect d4" not in legal(g)


@pytest.mark.parametrize("avail,pboard,after", [
    ("0001", "4430", (4, 4, 3, 1)),   # column 0 -> 1
    ("0000", "4431", (4, 4, 3, 2)),   # column 1 -> 2
])
def test_collected_tree_returns_to_the_large_column(avail, pboard, after):
    g = game(["d4:0:3", "a4:1:1"], [player(20, avail, pboard), player()])
    before = pieces(g, 0)
    g.play("collect d4")
    assert "d4" not in g.board()
    assert tuple(g.player_board(0)) == after
    assert pieces(g, 0) == before
    assert tuple(g.activated()) == ("d4",)


def test_large_column_cannot_be_full_while_a_large_tree_is_on_the_board():
    # 2 large trees owned, 2 slots: a full large column plus a large on the board is 3.
    text = position(["d4:0:3", "a4:1:1"], [player(20, "0000", "4432"), player()])
    with pytest.raises(photocore.InvalidPositionError):
        photocore.Game.from_position(text)


COLLECT_CASES = [
    # players, cell (ring), stacks before, token taken (None: none), stacks after
    (3, "d4", "3579", 22, "2579"),      # ring 0: 4 leaves
    (3, "d4", "2579", 21, "1579"),
    (3, "d4", "1579", 20, "0579"),
    (3, "d4", "0579", 19, "0479"),      # 4-leaf stack empty: falls to 3 leaves
    (4, "d4", "3579", 22, "2579"),
    (2, "d4", "0579", 19, "0479"),      # 2 players: centre takes from the 3-leaf stack
    (2, "d4", "0479", 18, "0379"),
    (2, "d4", "0079", 17, "0069"),      # ... and further down
    (3, "c5", "3579", 19, "3479"),      # ring 1: 3 leaves
    (2, "c5", "0579", 19, "0479"),
    (2, "c5", "0479", 18, "0379"),
    (2, "c5", "0379", 18, "0279"),
    (2, "c5", "0279", 17, "0179"),
    (2, "c5", "0179", 17, "0079"),
    (2, "c5", "0079", 17, "0069"),      # 3-leaf empty: 2-leaf top
    (2, "f3", "0579", 17, "0569"),      # ring 2: 2 leaves
    (2, "f3", "0569", 16, "0559"),
    (2, "f3", "0559", 16, "0549"),
    (2, "f3", "0549", 14, "0539"),
    (2, "f3", "0539", 14, "0529"),
    (2, "f3", "0529", 13, "0519"),
    (2, "f3", "0519", 13, "0509"),
    (2, "f3", "0509", 14, "0508"),      # 2-leaf empty: 1-leaf top
    (2, "e6", "0579", 14, "0578"),      # ring 3: 1 leaf
    (2, "e6", "0578", 14, "0577"),
    (2, "e6", "0577", 13, "0576"),
    (2, "e6", "0576", 13, "0575"),
    (2, "e6", "0575", 13, "0574"),
    (2, "e6", "0574", 12, "0573"),
    (2, "e6", "0573", 12, "0572"),
    (2, "e6", "0572", 12, "0571"),
    (2, "e6", "0571", 12, "0570"),
    (3, "a4", "3579", 14, "3578"),
    (2, "e6", "0570", None, "0570"),    # every stack at or below 1 leaf is empty
    (2, "f3", "0500", None, "0500"),    # 3-leaf tokens left, but ring 2 never goes up
    (3, "c5", "3000", None, "3000"),
]


@pytest.mark.parametrize("n,cell,stacks,token,stacks_after", COLLECT_CASES)
def test_collect_token_by_soil_richness_and_stack_order(n, cell, stacks, token, stacks_after):
    # P0 holds a large tree on `cell`; every token taken so far belongs to P1.
    players = [player(20, "0000", "4431"), player(0, tokens=taken_tokens(stacks, n))]
    players += [player()] * (n - 2)
    g = game([f"{cell}:0:3", "g4:1:1"], players, stacks=stacks)
    g.play(f"collect {cell}")
    assert tuple(g.tokens(0)) == (() if token is None else (token,))
    assert tuple(g.stacks) == tuple(int(x) for x in stacks_after)
    assert g.light[0] == 16                 # 4 LP, token or not
    assert cell not in g.board()


def test_tokens_are_kept_in_the_order_taken():
    # P0 already took 17 from the 2-leaf stack (stacks 0 5 6 9); collects on c5 (3 leaves).
    g = game(["c5:0:3", "a4:1:1"], [player(20, "0000", "4431", "17"), player()],
             stacks="0569")
    g.play("collect c5")
    assert tuple(g.tokens(0)) == (17, 19)
    assert tuple(g.stacks) == (0, 4, 6, 9)


# ---------------------------------------------------------------------------
# §7 scoring and winners

def test_score_is_tokens_plus_light_div_3():
    # Stacks 0 3 7 9: 19 and 18 taken.
    g = game(["a4:0:1", "g1:1:1"], [player(7, tokens="19"), player(20, tokens="18")],
             stacks="0379")
    assert tuple(g.scores()) == (19 + 2, 18 + 6)   # 7 // 3 = 2, 20 // 3 = 6
    assert tuple(g.winners()) == (1,)


@pytest.mark.parametrize("light,score", [(0, 0), (2, 0), (3, 1), (5, 1), (6, 2), (20, 6)])
def test_light_counts_floor_of_a_third(light, score):
    g = game(["a4:0:1", "g1:1:1"], [player(light), player(0)])
    assert g.scores()[0] == score


TIE_PLAYERS = [player(3, "0200", "4421", "14"),   # 14 + 3 // 3 = 15
               player(5, "0210", "3432", "14")]   # 14 + 5 // 3 = 15


@pytest.mark.parametrize("board,winners", [
    (["d4:0:3", "g1:0:1", "d1:1:1", "d7:1:0"], (0, 1)),            # 2 pieces each: all win
    (["d4:0:3", "g1:0:1", "d1:1:1", "d7:1:0", "g4:1:0"], (1,)),    # 2 vs 3
    (["d4:0:3", "c4:0:2", "d1:1:0", "d7:1:0", "g4:1:0"], (1,)),    # seeds count like trees
    (["d4:0:3", "c4:0:2", "a4:0:0", "d1:1:0", "d7:1:0"], (0,)),    # 3 vs 2
])
def test_tie_break_by_pieces_on_the_main_board(board, winners):
    g = game(board, TIE_PLAYERS, stacks="0577")    # 1-leaf stack: 14, 14 taken
    assert tuple(g.scores()) == (15, 15)
    assert tuple(g.winners()) == winners


def test_more_pieces_do_not_beat_a_higher_score():
    g = game(["a4:0:1", "d1:1:0", "d7:1:0", "g4:1:0"],
             [player(6, "0200", "4422"), player(5, "0210", "3432")])
    assert tuple(g.scores()) == (2, 1)
    assert tuple(g.winners()) == (0,)


@pytest.mark.parametrize("p0_board,winners", [
    (["a4:0:1"], (1,)),                 # P0 1 piece, P1 2: P1 wins; P2 is not tied
    (["a4:0:1", "a5:0:0"], (0, 1)),     # 2 and 2: both win
])
def test_tie_break_with_three_players(p0_board, winners):
    board = p0_board + ["d1:1:1", "d7:1:0", "g1:2:1", "g2:2:0", "g3:2:0"]
    players = [player(9, "0210", "3432"), player(10, "0210", "3432"),
               player(8, "0210", "3432")]
    g = game(board, players)
    assert tuple(g.scores()) == (3, 3, 2)
    assert tuple(g.winners()) == winners


def test_scores_and_winners_any_time():
    g = photocore.Game(players=3)
    assert tuple(g.scores()) == (0, 0, 0)
    assert tuple(g.winners()) == (0, 1, 2)


def test_scores_after_game_over():
    g = game(["a4:0:1", "g1:1:1"], [player(7, tokens="19"), player(20, tokens="18")],
             stacks="0379", rnd=18, to_move=0)
    g.play("end")
    assert g.is_over
    assert tuple(g.scores()) == (21, 24)
    assert tuple(g.winners()) == (1,)


# ---------------------------------------------------------------------------
# §8 options: shade blocks growth (round 1, sun 0, shadows W unless said)

@pytest.mark.parametrize("options", ["s", "-"])
def test_shade_blocks_planting_into_the_source_trees_own_shadow(options):
    g = game(["d4:0:3", "a4:1:1"], [player(20, "2200", "4431"), player()], options=options)
    assert g.options.shade_blocks == (options == "s")
    blocked = {"plant d4 d3", "plant d4 d2", "plant d4 d1"}   # d4's shadow at sun 0
    if options == "s":
        assert not blocked & legal(g)
        assert len(plants_from(g, "d4")) == 35 - 3
    else:
        assert blocked <= legal(g)
    assert "plant d4 d5" in legal(g)


def test_shade_blocks_planting_into_another_trees_shadow():
    # P1 small at c5 casts W onto c4.
    g = game(["d4:0:1", "c5:1:1"], [player(20), player()], options="s")
    assert plants_from(g, "d4") == {"plant d4 d5", "plant d4 e4", "plant d4 e3"}
    # d3 is in d4's own shadow, c4 in c5's, c5 occupied.


def test_shade_blocks_shaded_source_may_still_plant():
    # P1 large d6 shades d5, d4, d3; P0's small at d4 is shaded but still plants.
    g = game(["d4:0:1", "d6:1:3"], [player(20), player(0, "2200", "4431")], options="s")
    assert tuple(g.shaded()) == ("d4",)
    assert plants_from(g, "d4") == {"plant d4 c4", "plant d4 c5", "plant d4 e3", "plant d4 e4"}


@pytest.mark.parametrize("size,shader,ok", [
    (0, 1, False),   # a seed in any shadow
    (1, 1, False),   # judged at its size before growing (small under small)
    (2, 1, True),    # medium not shaded by a small
    (1, 2, False),
    (2, 2, False),
    (2, 3, False),
])
def test_shade_blocks_growing_a_shaded_piece(size, shader, ok):
    board = [f"d4:0:{size}", f"d5:1:{shader}"]   # d5 casts W onto d4
    players = [player(20, "1111", "4321"), player(0, "2100", "432" + large_col(shader))]
    assert ("grow d4" in legal(game(board, players, options="s"))) == ok
    assert "grow d4" in legal(game(board, players, options="-"))


def test_shade_blocks_uses_shadows_at_the_moment_after_a_collect():
    # P0 large d4 shades d3; P0 small e3 is next to d3.
    g = game(["d4:0:3", "e3:0:1"], [player(20, "2200", "4431"), player()], options="s")
    assert "plant e3 d3" not in legal(g)
    assert "collect d4" in legal(g)      # collecting is unaffected
    g.play("collect d4")
    assert "plant e3 d3" in legal(g)
    g.play("plant e3 d3")
    assert g.board()["d3"] == (0, 0)


def test_shade_blocks_uses_shadows_at_the_moment_after_a_grow():
    # P0 smalls at d4 and e2; d2 is free of shadow until d4 grows to medium.
    g = game(["d4:0:1", "e2:0:1"], [player(20), player()], options="s")
    assert "plant e2 d2" in legal(g)
    g.play("grow d4")
    assert "plant e2 d2" not in legal(g)


def test_shade_blocks_leaves_buying_and_collecting_a_shaded_tree_alone():
    # P0's large d4 is shaded by P1's large d5.
    g = game(["d4:0:3", "d5:1:3"], [player(20, "2200", "4431"), player(0, "2200", "4431")],
             options="s")
    assert "d4" in g.shaded()
    assert {"collect d4", "buy seed", "buy small", "buy medium", "buy large"} <= legal(g)


def test_shade_blocks_does_not_change_setup():
    g = photocore.Game(players=2, options="s")
    g.play("place a7")
    assert "place a6" in legal(g)        # in a7's shadow under sun 0
    g.play("place a6")
    assert g.board()["a6"] == (1, 1)


def test_shade_blocks_does_not_change_photosynthesis():
    board = sun_board("d3", "d1", "d5", "d6")
    players = [player(0, *SUN_PLAYERS[0]), player(0, *SUN_PLAYERS[1])]
    g = game(board, players, options="s", rnd=6, to_move=0)
    g.play("end")
    assert tuple(g.light) == (4, 2)


def test_options_are_read_from_the_position():
    g = game(["a4:0:1", "g1:1:1"], options="fs", rnd=20)
    assert g.options == photocore.Options.parse("fs") and g.last_round == 24
    assert (g.round, g.sun, g.first_player) == (20, 1, 1)


# ---------------------------------------------------------------------------
# errors and the position notation

def test_illegal_move_raises_naming_the_move_and_changes_nothing():
    g = game(["d4:0:1", "a4:1:1"], [player(0), player()])
    before = g.position()
    for move in ("grow d4", 833, photocore.Move.parse("grow d4")):
        with pytest.raises(photocore.IllegalMoveError) as err:
            g.play(move)
        assert "grow d4" in str(err.value)
        assert g.position() == before
    with pytest.raises(photocore.IllegalMoveError) as err:
        g.play("collect a4")
    assert "collect a4" in str(err.value)
    assert g.position() == before


def test_malformed_move_in_play_raises_value_error_and_changes_nothing():
    g = game(["d4:0:1", "a4:1:1"], [player(5), player()])
    before = g.position()
    with pytest.raises(ValueError):
        g.play("buy seeds")
    assert g.position() == before


def test_position_round_trip():
    text = ("2 s 3 2 0 1 c4,d5 c4:1:1,d4:0:3,d5:1:0 "
            "20/2200/4431/19 5/1210/4432/- 0479")
    g = photocore.Game.from_position(text)
    assert g.position() == text
    assert (g.round, g.sun, g.first_player, g.current_player) == (3, 2, 0, 1)
    assert tuple(g.activated()) == ("c4", "d5")
    assert g.board() == {"c4": (1, 1), "d4": (0, 3), "d5": (1, 0)}
    assert tuple(g.tokens(0)) == (19,) and tuple(g.stacks) == (0, 4, 7, 9)
    assert tuple(g.available(1)) == (1, 2, 1, 0)
    assert tuple(g.player_board(0)) == (4, 4, 3, 1)
    start = photocore.Game(players=3)
    assert photocore.Game.from_position(start.position()).position() == start.position()


BASE = "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579"


def test_base_position_is_accepted():
    g = photocore.Game.from_position(BASE)
    assert tuple(g.light) == (20, 0)


@pytest.mark.parametrize("text", [
    # light over 20
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 21/2210/4432/- 0/2210/4432/- 0579",
    # too many small trees: 4 + 4 + 1 = 9 > 8
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2410/4432/- 0/2210/4432/- 0579",
    # too many large trees: 0 + 2 + 1 = 3 > 2
    "2 - 1 0 0 0 - a4:1:1,d4:0:3 20/2210/4432/- 0/2210/4432/- 0579",
    # too many seeds: 2 + 4 + 1 = 7 > 6
    "2 - 1 0 0 0 - a4:1:1,d4:0:1,d5:0:0 20/2210/4432/- 0/2210/4432/- 0579",
    # seed column over its 4 slots (5 seeds in all is fine otherwise)
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/0210/5432/- 0/2210/4432/- 0579",
    # medium column over its 3 slots
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2200/4442/- 0/2210/4432/- 0579",
    # a cell named twice
    "2 - 1 0 0 0 - a4:1:1,d4:0:1,d4:1:1 20/2210/4432/- 0/2210/4432/- 0579",
    "2 - 1 0 0 0 - a4:1:1,d4:0:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    # off-board cells
    "2 - 1 0 0 0 - a1:0:1,a4:1:1 20/2210/4432/- 0/2210/4432/- 0579",
    "2 - 1 0 0 0 - a4:1:1,h3:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    "2 - 1 0 0 0 - a4:1:1,d8:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    # a token twice (only one 19 was taken)
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/19 0/2210/4432/19 0479",
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/19.19 0/2210/4432/- 0379",
    # a token nobody took from the stacks
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/19 0/2210/4432/- 0579",
    # a token that is not the top taken (19 was)
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/18 0/2210/4432/- 0479",
    # 2 players: the 4-leaf stack is always 0
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 3579",
    # a stack over its size
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0679",
    # sun and first player must follow the round (round 2: sun 1, first 1)
    "2 - 2 0 1 1 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    "2 - 2 1 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    # round 19 without the fourth revolution
    "2 - 19 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    # owner and size out of range
    "2 - 1 0 0 0 - a4:1:1,d4:2:1 20/2210/4432/- 0/2210/4432/- 0579",
    "2 - 1 0 0 0 - a4:1:1,d4:0:4 20/2210/4432/- 0/2210/4432/- 0579",
    # player to move out of range, a missing player field, bad options
    "2 - 1 0 0 2 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    "2 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0579",
    "2 x 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
    "5 - 1 0 0 0 - a4:1:1,d4:0:1 20/2210/4432/- 0/2210/4432/- 0579",
])
def test_from_position_rejects_inconsistent_text(text):
    with pytest.raises(photocore.InvalidPositionError):
        photocore.Game.from_position(text)


# ---------------------------------------------------------------------------
# Scenarios: a position, a few moves, and what must follow (each docstring names the rules
# it checks). A player field of a position is light/available/playerboard/tokens; sizes run
# seed 0 .. large 3; digits of available, player_board and pieces are seeds, small, medium,
# large; stacks are the 4-, 3-, 2- and 1-leaf stacks.

def status(g, text):
    """"legal", "illegal" or "malformed": whether `text` may be played now, is well formed
    but may not be, or is no move at all; the engine's reason is printed for a failure."""
    try:
        photocore.Move.parse(text)
    except photocore.InvalidMoveError as e:
        print(f"{text}: malformed ({e})")
        return "malformed"
    try:
        g.copy().play(text)
    except photocore.IllegalMoveError as e:
        print(f"{text}: illegal ({e})")
        return "illegal"
    return "legal"


# ---- §1, §9 cells and notation ---------------------------------------------------------
def test_cell_names_and_notation():
    """§1 cell names, §9 notation: case-insensitive input, off-board cells malformed"""
    g = photocore.Game.from_position("2 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0579")
    assert status(g, "place a1") == "malformed"  # row a holds a4..a7
    assert status(g, "place h3") == "malformed"  # no row h
    assert status(g, "grow d8") == "malformed"  # row d holds d1..d7
    assert status(g, "buy seeds") == "malformed"
    assert status(g, "plant d4") == "malformed"  # a plant names two cells
    assert status(g, "plant d1 d5") == "malformed"  # 4 cells apart: no plant reaches that far
    assert len(g.legal_moves()) == 18  # the 18 outer-ring cells
    g.play("PLACE    A4")
    assert g.board().get("a4") == (0, 1)


# ---- §4 setup ---------------------------------------------------------------------------


def test_setup_order_and_round_one_light():
    """§4 setup: outer ring, order 0..n-1 twice (not reversed), free; §5.4 round 1 photosynthesis"""
    g = photocore.Game.from_position(
        "3 - 0 0 0 0 - - 0/2410/4432/- 0/2410/4432/- 0/2410/4432/- 3579")
    assert g.phase == "setup"
    assert g.round == 0
    assert status(g, "buy seed") == "illegal"  # setup has only place moves
    assert status(g, "end") == "illegal"
    assert status(g, "place d4") == "illegal"  # not the outer ring
    g.play("place a4")
    assert g.current_player == 1
    assert set(g.activated()) == set()  # placing activates nothing
    assert g.light == (0, 0, 0)  # and costs nothing
    g.play("place a5")
    g.play("place a6")
    assert g.current_player == 0  # the second placements go 0, 1, 2 again
    assert status(g, "place a5") == "illegal"  # occupied
    g.play("place a7")
    g.play("place b3")
    g.play("place b7")
    assert g.phase == "play"
    assert g.round == 1
    assert g.sun == 0
    assert g.first_player == 0
    assert g.current_player == 0
    assert g.available(0) == (2, 2, 1, 0)
    assert g.available(2) == (2, 2, 1, 0)
    # sun 0, shadows W: a5 shades a4, a6 shades a5, a7 shades a6; a7, b3, b7 are lit
    assert set(g.shaded()) == {"a4", "a5", "a6"}
    assert g.light == (1, 1, 1)


# ---- §2, §5.1 shadows under each sun ------------------------------------------------------

# Each block ends a round with a large tree (player 0) on d4 and small trees (player 1) one
# and three steps down its shadow and one step towards the sun. The new round's
# photosynthesis: the large tree earns 3, the two small trees in its shadow 0, the sunny one 1.


def test_shadows_sun_1_northwest():
    """§2 sun position 1 (SE corner) casts shadows NW; §5.1 shadow length = tree size"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 1 - a4:1:1,c4:1:1,d4:0:3,e4:1:1 0/2210/4431/- 0/2110/4432/- 0579")
    g.play("end")
    assert g.round == 2
    assert g.sun == 1
    assert g.first_player == 1
    assert g.current_player == 1
    assert set(g.shaded()) == {"a4", "c4"}
    assert g.light == (3, 1)


def test_shadows_sun_2_northeast():
    """§2 sun position 2 (SW corner) casts shadows NE"""
    g = photocore.Game.from_position(
        "2 - 2 1 1 0 - a7:1:1,c5:1:1,d4:0:3,e3:1:1 0/2210/4431/- 0/2110/4432/- 0579")
    g.play("end")
    assert g.round == 3
    assert g.sun == 2
    assert g.first_player == 0
    assert set(g.shaded()) == {"a7", "c5"}
    assert g.light == (3, 1)


def test_shadows_sun_3_east():
    """§2 sun position 3 (W corner) casts shadows E"""
    g = photocore.Game.from_position(
        "2 - 3 2 0 1 - d3:1:1,d4:0:3,d5:1:1,d7:1:1 0/2210/4431/- 0/2110/4432/- 0579")
    g.play("end")
    assert g.round == 4
    assert g.sun == 3
    assert g.first_player == 1
    assert set(g.shaded()) == {"d5", "d7"}
    assert g.light == (3, 1)


def test_shadows_sun_4_southeast():
    """§2 sun position 4 (NW corner) casts shadows SE"""
    g = photocore.Game.from_position(
        "2 - 4 3 1 0 - c4:1:1,d4:0:3,e4:1:1,g4:1:1 0/2210/4431/- 0/2110/4432/- 0579")
    g.play("end")
    assert g.round == 5
    assert g.sun == 4
    assert set(g.shaded()) == {"e4", "g4"}
    assert g.light == (3, 1)


def test_shadows_sun_5_southwest():
    """§2 sun position 5 (NE corner) casts shadows SW"""
    g = photocore.Game.from_position(
        "2 - 5 4 0 1 - c5:1:1,d4:0:3,e3:1:1,g1:1:1 0/2210/4431/- 0/2110/4432/- 0579")
    g.play("end")
    assert g.round == 6
    assert g.sun == 5
    assert set(g.shaded()) == {"e3", "g1"}
    assert g.light == (3, 1)


def test_shadows_sun_0_west_after_a_revolution():
    """§2 after round 6 the sun is back at position 0 (E corner), shadows W"""
    g = photocore.Game.from_position(
        "2 - 6 5 1 0 - d1:1:1,d3:1:1,d4:0:3,d5:1:1 0/2210/4431/- 0/2110/4432/- 0579")
    g.play("end")
    assert g.round == 7
    assert g.sun == 0
    assert g.first_player == 0
    assert set(g.shaded()) == {"d1", "d3"}
    assert g.light == (3, 1)


# ---- §5.1 photosynthesis ------------------------------------------------------------------


def test_shade_needs_an_equal_or_taller_tree():
    """§5.1 shaded only by a tree of size >= its own; a shaded tree still casts its shadow"""
    # round 7, shadows W: d6 (small) covers d5 (medium) - too short; d5 covers d4 (medium,
    # equal: shaded) and d3; d4, though shaded, covers d3 and d2 (small: shaded)
    g = photocore.Game.from_position(
        "2 - 6 5 1 0 - d2:0:1,d4:1:2,d5:0:2,d6:1:1 0/2200/4432/- 0/2200/4432/- 0579")
    g.play("end")
    assert set(g.shaded()) == {"d2", "d4"}
    assert g.light == (2, 1)  # d5 earns 2; d6 earns 1


def test_seeds_earn_nothing_and_cast_no_shadow():
    """§5.1 seeds earn no light and cast no shadow (a seed in a shadow counts as shaded)"""
    g = photocore.Game.from_position(
        "2 - 6 5 1 0 - d4:1:1,d5:0:0,d6:0:1 0/1210/4432/- 0/2210/4432/- 0579")
    g.play("end")
    assert set(g.shaded()) == {"d5"}  # d6 covers the seed; the seed covers nothing
    assert g.light == (1, 1)  # d6 earns 1, d4 earns 1 despite the seed beside it


def test_light_cap_20():
    """§5.1 LP never exceeds 20; §7 score counts floor(LP / 3)"""
    # round 7, shadows W: d4 large +3 and c7 medium +2 take 16 to 21; a5 small takes 20 to 21
    g = photocore.Game.from_position(
        "2 - 6 5 1 0 - a5:1:1,c7:0:2,d4:0:3 16/2200/4431/- 20/2210/4432/- 0579")
    g.play("end")
    assert g.light == (20, 20)
    assert g.scores() == (6, 6)


# ---- §3 player board, buying ---------------------------------------------------------------


def test_price_ladder_full_columns():
    """§3 prices per column, cheapest slot first; §5.2 buy needs the light; any number of buys"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - a4:0:1,g1:1:1 20/2210/4432/- 0/2210/4432/- 0579")
    g.play("buy large")  # 2 of 2 left: 4
    assert g.light == (16, 0)
    g.play("buy large")  # 1 left: 5
    assert g.light == (11, 0)
    assert status(g, "buy large") == "illegal"  # column empty
    g.play("buy medium")  # 3, 3, 4
    g.play("buy medium")
    g.play("buy medium")
    assert g.light == (1, 0)
    assert status(g, "buy small") == "illegal"  # 2 > 1
    g.play("buy seed")  # 1
    assert g.light == (0, 0)
    assert status(g, "buy seed") == "illegal"  # next seed costs 1, player 0 has 0
    assert g.player_board(0) == (3, 4, 0, 0)
    assert g.available(0) == (3, 2, 4, 2)


def test_price_ladder_part_bought_column():
    """§3 with n of k pieces left the next costs p[k - n]"""
    g = photocore.Game.from_position("2 - 1 0 0 0 - a4:0:1,g1:1:1 4/2210/2432/- 0/2210/4432/- 0579")
    g.play("buy seed")  # 2 of 4 left: p[2] = 2
    assert g.light == (2, 0)
    g.play("buy seed")  # 1 left: p[3] = 2
    assert g.light == (0, 0)
    assert g.player_board(0) == (0, 4, 3, 2)


def test_bought_piece_usable_same_turn():
    """§5.2 a bought piece is usable in the same turn"""
    g = photocore.Game.from_position("2 - 1 0 0 0 - d4:0:1,g1:1:1 2/0210/4432/- 0/2210/4432/- 0579")
    assert status(g, "plant d4 d5") == "illegal"  # no seed available
    g.play("buy seed")
    g.play("plant d4 d5")
    assert g.board().get("d5") == (0, 0)
    assert g.light == (0, 0)


# ---- §5.2 returning or discarding replaced pieces ------------------------------------------


def test_grow_returns_piece_and_refills_column():
    """§3, §5.2 a replaced piece returns to the dearest empty slot: the next buy is cheaper"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - a4:0:1,d5:0:0,g1:1:1 4/0110/2432/- 0/2210/4432/- 0579")
    g.play("grow d5")  # 1 light; the seed goes back: 2 -> 3 in its column
    assert g.light == (3, 0)
    assert g.board().get("d5") == (0, 1)
    assert g.player_board(0) == (3, 4, 3, 2)
    assert g.available(0) == (0, 0, 1, 0)
    g.play("buy seed")  # 3 of 4 left: p[1] = 1 (it was p[2] = 2 before)
    assert g.light == (2, 0)
    assert g.player_board(0) == (2, 4, 3, 2)


def test_grow_discards_piece_when_column_full():
    """§5.2 a replaced piece leaves the game when its column is full"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - a4:0:1,d4:0:1,g1:1:1 5/2210/4432/- 0/2210/4432/- 0579")
    assert pieces(g, 0) == (6, 8, 4, 2)
    g.play("grow d4")  # 2 light; the small column is full
    assert g.light == (3, 0)
    assert g.board().get("d4") == (0, 2)
    assert g.player_board(0) == (4, 4, 3, 2)
    assert g.available(0) == (2, 2, 0, 0)
    assert pieces(g, 0) == (6, 7, 4, 2)  # one small tree fewer in the game


# ---- §5.2 actions and their costs ---------------------------------------------------------


def test_action_costs():
    """§5.2 grow costs 1, 2, 3; collect 4; with no light only end is left"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - c3:0:0,c4:0:1,c5:0:2,d4:0:3,g1:1:1 10/1111/4420/- 0/2210/4432/- 0579")
    g.play("grow c3")
    assert g.light == (9, 0)
    g.play("grow c4")
    assert g.light == (7, 0)
    g.play("grow c5")
    assert g.light == (4, 0)
    # only the medium column had room for the returned piece
    assert g.player_board(0) == (4, 4, 3, 0)
    g.play("collect d4")
    assert g.light == (0, 0)
    assert g.player_board(0) == (4, 4, 3, 1)  # the large tree goes back to its column
    assert g.tokens(0) == (19,)
    assert len(g.legal_moves()) == 1
    assert status(g, "end") == "legal"


def test_plant_range_and_no_blocking():
    """§5.2 plant: own tree as source, empty target within its size; pieces between do not block"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - c5:0:1,d1:0:3,d2:1:1,d3:1:0,e4:0:0 5/1210/4431/- 0/1210/4432/- 0579")
    assert status(g, "plant d1 c4") == "legal"  # distance 3 from a large tree
    assert status(g, "plant d1 d2") == "illegal"  # occupied
    assert status(g, "plant c5 c6") == "legal"
    assert status(g, "plant c5 c7") == "illegal"  # distance 2 from a small tree
    assert status(g, "plant e4 e5") == "illegal"  # a seed is not a source
    assert status(g, "plant d2 e2") == "illegal"  # player 1's tree
    g.play("plant d1 d4")  # across d2 and d3
    assert g.board().get("d4") == (0, 0)
    assert g.light == (4, 0)
    assert g.available(0) == (0, 2, 1, 0)


# ---- §5.2 activation ---------------------------------------------------------------------------


def test_activation_after_planting():
    """§5.2 activation: no second plant from a tree, no growing the source or the new seed"""
    # a large tree is available, so only the activation stops growing d4
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - d4:0:2,g1:1:1 10/2201/4431/- 0/2210/4432/- 0579")
    g.play("plant d4 d6")
    assert set(g.activated()) == {"d4", "d6"}
    assert g.light == (9, 0)
    # the source is activated (a seed is still available)
    assert status(g, "plant d4 d5") == "illegal"
    assert status(g, "grow d4") == "illegal"
    assert status(g, "grow d6") == "illegal"  # planted this turn
    g.play("end")
    assert g.current_player == 1
    assert set(g.activated()) == set()  # activation ends with the turn


def test_activation_after_growing():
    """§5.2 activation: no growing twice, no planting from a tree just grown, no collecting a
    tree just grown large"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - d4:0:1,d5:0:2,g1:1:1 20/2211/4421/- 0/2210/4432/- 0579")
    g.play("grow d4")
    assert g.light == (18, 0)
    assert status(g, "grow d4") == "illegal"
    assert status(g, "plant d4 d3") == "illegal"
    g.play("grow d5")
    assert g.light == (15, 0)
    assert g.board().get("d5") == (0, 3)
    assert status(g, "collect d5") == "illegal"


def test_activation_after_collecting():
    """§5.2 no planting on the cell just collected; another player may, in the same round"""
    g = photocore.Game.from_position(
        "2 - 1 0 0 0 - d3:1:1,d4:0:3,d5:0:1,g1:1:1 10/2210/4431/- 5/2210/4432/- 0579")
    g.play("collect d4")
    assert "d4" not in g.board()
    assert set(g.activated()) == {"d4"}
    assert status(g, "plant d5 d4") == "illegal"
    assert status(g, "plant d5 d6") == "legal"
    g.play("end")
    assert g.round == 1
    assert status(g, "plant d3 d4") == "legal"
    g.play("plant d3 d4")
    assert g.board().get("d4") == (1, 0)
    assert g.light == (6, 4)


def test_end_is_always_legal():
    """§5.4 end is legal at every decision, even as the only move"""
    g = photocore.Game.from_position("2 - 1 0 0 0 - a4:0:1,g1:1:1 0/0000/4432/- 0/2210/4432/- 0579")
    assert len(g.legal_moves()) == 1
    assert status(g, "end") == "legal"
    g.play("end")
    assert g.current_player == 1


# ---- §6 scoring tokens -----------------------------------------------------------------------


def test_collect_on_the_centre():
    """§6 collecting on a 4-leaf cell takes the top of the 4-leaf stack"""
    g = photocore.Game.from_position(
        "3 - 1 0 0 0 - d4:0:3 6/2210/4431/- 0/2210/4432/- 0/2210/4432/- 3579")
    g.play("collect d4")
    assert g.light == (2, 0, 0)
    assert g.tokens(0) == (22,)
    assert g.stacks == (2, 5, 7, 9)
    assert "d4" not in g.board()
    assert g.player_board(0) == (4, 4, 3, 2)
    assert g.scores() == (22, 0, 0)


def test_collect_on_ring_one_four_players():
    """§6 a 3-leaf cell takes the top of the 3-leaf stack"""
    g = photocore.Game.from_position(
        "4 - 1 0 0 0 - c4:0:3 4/2210/4431/- 0/2210/4432/- 0/2210/4432/- 0/2210/4432/- 3579")
    g.play("collect c4")
    assert g.tokens(0) == (19,)
    assert g.stacks == (3, 4, 7, 9)


def test_token_falls_to_the_next_stack():
    """§6 an empty stack gives the top of the next stack down"""
    g = photocore.Game.from_position(
        "3 - 1 0 0 0 - d4:0:3 4/2210/4431/- 0/2210/4432/22.21.20 0/2210/4432/- 0579")
    g.play("collect d4")
    assert g.tokens(0) == (19,)
    assert g.stacks == (0, 4, 7, 9)


def test_token_fallback_skips_empty_stacks():
    """§6 the fallback goes down past every empty stack"""
    # c3 is 2 cells from d4: 2 leaves; the 2-leaf stack is empty
    g = photocore.Game.from_position(
        "3 - 1 0 0 0 - c3:0:3 4/2210/4431/- 0/2210/4432/17.16.16.14.14.13.13 0/2210/4432/- 3509")
    g.play("collect c3")
    assert g.tokens(0) == (14,)
    assert g.stacks == (3, 5, 0, 8)


def test_no_token_left():
    """§6 no stack at or below the cell's leaves: no token, the collect still costs 4"""
    g = photocore.Game.from_position(
        "3 - 1 0 0 0 - a4:0:3 5/2210/4431/- 0/2210/4432/14.14.13.13.13.12.12.12.12 0/2210/4432/- "
        "3570")
    assert status(g, "collect a4") == "legal"
    g.play("collect a4")
    assert g.light == (1, 0, 0)
    assert g.tokens(0) == ()
    assert g.stacks == (3, 5, 7, 0)
    assert "a4" not in g.board()


def test_two_players_centre():
    """§6 with two players the 4-leaf stack is out: the centre takes from the 3-leaf stack"""
    g = photocore.Game.from_position("2 - 1 0 0 0 - d4:0:3,g1:1:1 4/2210/4431/- 0/2210/4432/- 0579")
    g.play("collect d4")
    assert g.tokens(0) == (19,)
    assert g.stacks == (0, 4, 7, 9)
    assert g.light == (0, 0)


# ---- §5.3 rounds, §7 end of game -----------------------------------------------------------


def test_rounds_pass_the_first_player():
    """§5.3 the first-player token passes on each round; §2 the sun moves one step"""
    g = photocore.Game.from_position(
        "3 - 1 0 0 0 - d7:2:1 0/2210/4432/- 0/2210/4432/- 0/2210/4432/- 3579")
    g.play("end")
    assert g.current_player == 1
    g.play("end")
    assert g.current_player == 2
    assert g.round == 1
    g.play("end")
    assert g.round == 2
    assert g.sun == 1
    assert g.first_player == 1
    assert g.current_player == 1
    assert g.light == (0, 0, 1)
    g.play("end")
    g.play("end")
    assert g.current_player == 0
    g.play("end")
    assert g.round == 3
    assert g.sun == 2
    assert g.first_player == 2
    assert g.current_player == 2
    assert g.light == (0, 0, 2)


def test_four_players_round_rotation():
    """§5.3 round k starts with player (k - 1) mod players"""
    g = photocore.Game.from_position(
        "4 - 4 3 3 2 - - 0/2210/4432/- 0/2210/4432/- 0/2210/4432/- 0/2210/4432/- 3579")
    g.play("end")
    assert g.round == 5
    assert g.sun == 4
    assert g.first_player == 0
    assert g.current_player == 0


def test_last_round_ends_the_game():
    """§5.3 after round 18 the game ends with no further photosynthesis; §7 score"""
    g = photocore.Game.from_position("2 - 18 5 1 0 - d4:0:3 7/2210/4431/19 5/2210/4432/- 0479")
    g.play("end")
    assert g.phase == "over"
    assert g.round == 18
    assert g.current_player is None
    assert g.light == (7, 5)
    assert len(g.legal_moves()) == 0
    assert g.scores() == (21, 1)  # 19 + 7 // 3 and 5 // 3
    assert g.winners() == (0,)


def test_tie_break_most_pieces():
    """§7 tied scores: most pieces (seeds count) on the main board wins"""
    g = photocore.Game.from_position(
        "2 - 18 5 1 - - d4:0:1,d5:1:0,d6:1:1 0/2210/4432/19 6/1210/4432/17 0469")
    assert g.scores() == (19, 19)
    assert g.winners() == (1,)


def test_tie_break_still_tied():
    """§7 tied scores and tied pieces: all of them win"""
    g = photocore.Game.from_position(
        "2 - 18 5 1 - - d4:0:1,d5:1:0,d6:1:1,e4:0:0 0/1210/4432/19 6/1210/4432/17 0469")
    assert g.winners() == (0, 1)


def test_higher_score_wins_before_pieces():
    """§7 the highest score wins, whatever the pieces"""
    g = photocore.Game.from_position(
        "2 - 18 5 1 - - d4:0:1,d5:1:0,d6:1:1 3/2210/4432/19 6/1210/4432/17 0469")
    assert g.scores() == (20, 19)
    assert g.winners() == (0,)


# ---- §8 options -------------------------------------------------------------------------------


def test_fourth_revolution_goes_on():
    """§8 fourth revolution: round 18 is followed by round 19 (sun 0)"""
    g = photocore.Game.from_position("2 f 18 5 1 0 - d4:0:3 7/2210/4431/- 5/2210/4432/- 0579")
    g.play("end")
    assert g.phase == "play"
    assert g.round == 19
    assert g.sun == 0
    assert g.first_player == 0
    assert g.light == (10, 5)


def test_fourth_revolution_ends_after_24():
    """§8 fourth revolution: the game ends after round 24"""
    g = photocore.Game.from_position("2 f 24 5 1 0 - d4:0:3 7/2210/4431/- 5/2210/4432/- 0579")
    g.play("end")
    assert g.phase == "over"
    assert g.round == 24
    assert g.light == (7, 5)


def test_shade_blocks_plant_and_grow():
    """§8 shade blocks: no planting into a shadow (the source's own included), no growing a
    shaded piece; a shaded source may plant"""
    # sun 0, shadows W: the medium d5 covers d4 (player 1's small: shaded) and d3
    g = photocore.Game.from_position("2 s 1 0 0 0 - d4:1:1,d5:0:2 5/2200/4432/- 5/2210/4432/- 0579")
    assert set(g.shaded()) == {"d4"}
    assert status(g, "plant d5 d3") == "illegal"
    assert status(g, "plant d5 d6") == "legal"
    assert status(g, "plant d5 c6") == "legal"
    g.play("end")
    assert status(g, "grow d4") == "illegal"
    assert status(g, "plant d4 c4") == "legal"
    assert status(g, "plant d4 d3") == "illegal"


def test_without_shade_blocks_the_same_moves_are_legal():
    """§8 the shade rule is off by default"""
    g = photocore.Game.from_position("2 - 1 0 0 0 - d4:1:1,d5:0:2 5/2200/4432/- 5/2210/4432/- 0579")
    assert status(g, "plant d5 d3") == "legal"
    g.play("end")
    assert status(g, "grow d4") == "legal"
    assert status(g, "plant d4 d3") == "legal"


def test_shade_blocks_uses_shadows_of_the_moment():
    """§8 shadows at the moment of the action: growing casts new shade, collecting lifts it"""
    # sun 0, shadows W: the large b6 shades the small b5; the small d6 covers d5 only
    g = photocore.Game.from_position(
        "2 s 1 0 0 0 - b5:0:1,b6:0:3,d4:0:0,d6:0:1 20/1220/4421/- 0/2210/4432/- 0579")
    assert set(g.shaded()) == {"b5"}
    assert status(g, "grow d4") == "legal"
    assert status(g, "grow b5") == "illegal"
    g.play("grow d6")  # now a medium: it covers d5 and d4
    assert set(g.shaded()) == {"b5", "d4"}
    assert status(g, "grow d4") == "illegal"
    g.play("collect b6")  # b6 is 2 cells from d4: the 2-leaf stack
    assert g.tokens(0) == (17,)
    assert set(g.shaded()) == {"d4"}
    assert status(g, "grow b5") == "legal"
    assert g.light == (14, 0)


def test_both_options():
    """§8 the options combine: round 19 is played with shade blocks on"""
    g = photocore.Game.from_position(
        "2 fs 18 5 1 0 - d3:1:1,d4:0:3 0/2210/4431/- 0/2210/4432/- 0579")
    g.play("end")
    assert g.round == 19
    assert set(g.shaded()) == {"d3"}
    assert g.light == (3, 0)
    assert status(g, "plant d4 d2") == "illegal"  # in the large tree's own shadow
    assert status(g, "plant d4 d6") == "legal"


def test_every_section_of_the_rules_is_tested():
    """Each numbered section of docs/rules.md is cited by a test's docstring here."""
    rules = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    sections = set(re.findall(r"^#+ (\d+(?:\.\d+)?)[ .]", rules, re.M))
    cited = set()
    for name, test in globals().items():
        if name.startswith("test_") and test.__doc__:
            cited |= set(re.findall(r"§(\d+(?:\.\d+)?)", test.__doc__))
    rules_to_test = {"1", "2", "3", "4", "5.1", "5.2", "5.3", "5.4", "6", "7", "8", "9"}
    assert rules_to_test <= sections   # §5 is its subsections; §10 lists what is left out
    assert rules_to_test <= cited, f"untested sections: {sorted(rules_to_test - cited)}"


def test_the_rules_history_ends_at_this_rules_version():
    rules = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text()
    history = rules[rules.index("\n## History\n"):]
    versions = re.findall(r"^- \*\*(\w+)\*\*:", history, re.M)
    assert versions and versions[-1] == photocore.RULES_VERSION
