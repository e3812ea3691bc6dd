"""photocore.svg: a valid SVG document whose elements say what is on the board."""

import math
import pathlib
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import photocore
import photocore.svg
from photocore import records
from photocore.svg import PLAYER_COLOURS, SOIL

NS = {"s": "http://www.w3.org/2000/svg"}
GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "golden.jsonl"
SETUP = ("place a4", "place g1", "place d1", "place d7")


def parse(game, **kwargs):
    return ET.fromstring(photocore.svg.board(game, **kwargs))


def cells_of(root, cls):
    return {e.get("data-cell") for e in root.iterfind(f".//*[@class='{cls}']", NS)}


def played(*moves, players=2):
    game = photocore.Game(players=players)
    for move in moves:
        game.play(move)
    return game


def test_one_hexagon_per_cell_shaded_by_soil_richness():
    root = parse(photocore.Game())
    hexes = root.findall(".//s:polygon[@class='cell']", NS)
    assert [h.get("data-cell") for h in hexes] == list(photocore.CELLS)
    for h in hexes:
        assert len(h.get("points").split()) == 6
        assert h.get("fill") == SOIL[int(h.get("data-leaves"))]
    leaves = {h.get("data-cell"): int(h.get("data-leaves")) for h in hexes}
    assert leaves["d4"] == 4 and leaves["c4"] == 3 and leaves["b4"] == 2 and leaves["a4"] == 1
    assert len(set(SOIL.values())) == 4


def test_pointy_top_axial_layout():
    root = parse(photocore.Game())
    centre = {}
    for h in root.findall(".//s:polygon[@class='cell']", NS):
        points = [tuple(map(float, p.split(","))) for p in h.get("points").split()]
        centre[h.get("data-cell")] = (sum(x for x, _ in points) / 6, sum(y for _, y in points) / 6)
        assert max(y for _, y in points) - min(y for _, y in points) > \
            max(x for x, _ in points) - min(x for x, _ in points)      # pointy top
    assert centre["d7"][0] > centre["d4"][0] > centre["d1"][0]          # q grows eastwards
    assert centre["g1"][1] > centre["d4"][1] > centre["a4"][1]          # r grows downwards
    assert centre["a4"][1] == pytest.approx(centre["a7"][1])


def test_a_piece_per_occupied_cell_in_its_owners_colour():
    rec = records.read_game(GOLDEN, 25)
    game = records.from_record(rec, ply=150)
    root = parse(game)
    pieces = root.findall(".//s:g[@data-owner]", NS)
    board = {e.get("data-cell"): (int(e.get("data-owner")), int(e.get("data-size")))
             for e in pieces}
    assert board == game.board() and len(pieces) == len(board)
    for e in pieces:
        assert e.get("fill") == PLAYER_COLOURS[int(e.get("data-owner"))]
    sizes = {int(e.get("data-size")) for e in pieces}
    assert sizes == {0, 1, 2, 3}
    # sizes look different: a seed is a dot, a tree of size s has s tiers
    for e in pieces:
        size = int(e.get("data-size"))
        assert len(e.findall("s:circle", NS)) == (size == 0)
        assert len(e.findall("s:polygon", NS)) == size
    shaded = {e.get("data-cell") for e in pieces if "shaded" in e.get("class").split()}
    assert shaded == set(game.shaded()) & set(game.board()) and shaded


def test_plant_highlights_source_and_target_and_activates_them():
    game = played(*SETUP, "plant a4 b4")
    root = parse(game)
    (last,) = root.findall(".//s:g[@class='last-move']", NS)
    assert {p.get("data-cell") for p in last.iterfind("s:polygon", NS)} == {"a4", "b4"}
    assert last.find("s:g/s:line", NS) is not None              # the arrow
    assert cells_of(root, "activated") == set(game.activated()) == {"a4", "b4"}
    assert not parse(game, last_move=False).findall(".//s:g[@class='last-move']", NS)


def test_grow_highlights_its_cell_and_buy_or_end_nothing():
    last = parse(played(*SETUP, "grow a4")).find(".//s:g[@class='last-move']", NS)
    assert [p.get("data-cell") for p in last.iterfind("s:polygon", NS)] == ["a4"]
    for game in (played(*SETUP, "buy seed"), played(*SETUP, "end"), photocore.Game()):
        assert parse(game).find(".//s:g[@class='last-move']", NS) is None


def test_shadowed_cells_match_the_engine():
    game = played(*SETUP)                     # round 1, sun E: shadows fall W
    root = parse(game)
    assert cells_of(root, "shadow") == {"d6"}  # from the small tree on d7


@pytest.mark.parametrize("sun", range(6))
def test_the_sun_stands_at_its_corner(sun):
    r = sun + 1
    game = photocore.Game.from_position(
        f"2 - {r} {sun} {sun % 2} {sun % 2} - d4:0:3,a4:1:0 0/2410/4431/- 0/1410/4432/- 0579")
    root = parse(game)
    (group,) = root.findall(".//s:g[@class='sun']", NS)
    assert_at_its_corner(root, group, sun)
    assert ("a4" in game.shaded()) == (sun == 1)


def assert_at_its_corner(root, group, sun):
    """The sun `group` of the picture `root` stands beyond the board's corner `sun`, its
    arrow pointing towards the board."""
    assert int(group.get("data-sun")) == sun
    disc = group.find("s:circle", NS)
    hexes = {h.get("data-cell"): h for h in root.findall(".//s:polygon[@class='cell']", NS)}

    def centre(name):
        points = [tuple(map(float, p.split(","))) for p in hexes[name].get("points").split()]
        return sum(x for x, _ in points) / 6, sum(y for _, y in points) / 6

    corner = ("d7", "g4", "g1", "d1", "a4", "a7")[sun]      # E SE SW W NW NE (docs/rules.md §2)
    (cx, cy), (kx, ky) = centre("d4"), centre(corner)
    sx, sy = float(disc.get("cx")), float(disc.get("cy"))
    angle = math.degrees(math.atan2(sy - cy, sx - cx) - math.atan2(ky - cy, kx - cx))
    assert abs((angle + 180) % 360 - 180) < 1
    assert math.hypot(sx - cx, sy - cy) > math.hypot(kx - cx, ky - cy)
    # the shadow arrow points from the sun towards the board
    line = group.find("s:g[@class='shadow-dir']/s:line", NS)
    x1, y1, x2, y2 = (float(line.get(k)) for k in ("x1", "y1", "x2", "y2"))
    assert math.hypot(x2 - cx, y2 - cy) < math.hypot(x1 - cx, y1 - cy)


def test_the_map_of_the_board_names_each_cell_and_its_leaves():
    root = ET.fromstring(photocore.svg.cells(size=500))
    hexes = root.findall(".//s:polygon[@class='cell']", NS)
    assert [h.get("data-cell") for h in hexes] == list(photocore.CELLS)
    names = root.findall(".//s:text[@class='name']", NS)
    leaves = root.findall(".//s:text[@class='leaves']", NS)
    assert [t.text for t in names] == list(photocore.CELLS)
    assert [int(t.text) for t in leaves] == [int(h.get("data-leaves")) for h in hexes]
    assert {t.text: int(n.text) for t, n in zip(names, leaves)}["d4"] == 4
    for hexagon, name, count in zip(hexes, names, leaves):      # each inside its own cell
        xs = [float(point.split(",")[0]) for point in hexagon.get("points").split()]
        assert float(name.get("x")) == float(count.get("x")) == pytest.approx(sum(xs) / 6, abs=0.1)
    assert [t.text for t in root.findall(".//s:text[@class='ring']", NS)] == [
        "the centre: 4 leaves", "ring 1: 3 leaves", "ring 2: 2 leaves", "ring 3: 1 leaf"]
    assert root.get("width") == "500"


def test_the_suns_corners_in_the_order_it_takes_them():
    root = ET.fromstring(photocore.svg.suns())
    groups = root.findall(".//s:g[@class='sun']", NS)
    assert [g.get("data-corner") for g in groups] == ["E", "SE", "SW", "W", "NW", "NE"]
    for sun, group in enumerate(groups):
        assert_at_its_corner(root, group, sun)
    (order,) = root.findall(".//s:text[@class='order']", NS)
    assert order.text.startswith("0 E \u2192 1 SE \u2192 2 SW \u2192 3 W \u2192 4 NW \u2192 5 NE")
    assert len(root.findall(".//s:polygon[@class='cell']", NS)) == 37


def test_the_board_without_the_panel():
    game = played(*SETUP, "buy seed", "plant d1 d2")
    whole, board = parse(game), parse(game, panel=False)
    assert board.findall(".//s:g[@class='player']", NS) == []
    assert float(board.get("viewBox").split()[2]) < float(whole.get("viewBox").split()[2])
    for cls in ("cell", "shadow", "activated", "piece"):
        assert cells_of(board, cls) == cells_of(whole, cls)


def test_names_on_request():
    assert not parse(photocore.Game()).findall(".//s:text[@class='name']", NS)
    names = parse(photocore.Game(), names=True).findall(".//s:text[@class='name']", NS)
    assert [t.text for t in names] == list(photocore.CELLS)


def test_panel_of_the_players():
    rec = records.read_game(GOLDEN, 13)
    game = records.from_record(rec)
    root = parse(game)
    players = root.findall(".//s:g[@class='player']", NS)
    assert [int(p.get("data-player")) for p in players] == [0, 1, 2]
    for p, group in enumerate(players):
        assert int(group.get("data-score")) == game.scores()[p]
        assert int(group.get("data-light")) == game.light[p]
        texts = " | ".join(t.text for t in group.iterfind(".//s:text", NS))
        assert f"score {game.scores()[p]}" in texts and f"light {game.light[p]}" in texts
        assert f"tokens {' '.join(map(str, game.tokens(p)))}" in texts
        counts = [t.text for t in group.iterfind("s:text", NS) if t.text.isdigit()]
        assert counts == [str(n) for n in game.available(p) + game.player_board(p)]
    status = " ".join(t.text for t in root.findall("s:text[@class='status']", NS))
    assert "Round 18 of 18" in status and "player 0 wins" in status


def test_size():
    root = parse(played(*SETUP), size=800)
    _, _, width, height = map(float, root.get("viewBox").split())
    assert root.get("width") == "800"
    assert int(root.get("height")) == round(800 * height / width)


def test_notebooks_show_the_picture():
    game = played(*SETUP)
    picture = photocore.svg.board(game)
    assert isinstance(picture, str) and picture._repr_svg_() == picture
    assert "Round 1 of 18" in picture._repr_svg_()
    assert not hasattr(game, "_repr_svg_")      # the core draws nothing


# A stand-in for IPython: what photocore.svg registers with its display formatter.
FAKE_IPYTHON = """
import sys, types
registered = {}
class Formatter:
    def for_type(self, cls, function):
        registered[cls] = function
shell = types.SimpleNamespace(display_formatter=types.SimpleNamespace(
    formatters={"image/svg+xml": Formatter()}))
sys.modules["IPython"] = types.SimpleNamespace(get_ipython=lambda: SHELL)
"""


@pytest.mark.parametrize("inside", [True, False])
def test_importing_svg_in_ipython_shows_games_as_pictures(inside):
    script = FAKE_IPYTHON.replace("SHELL", "shell" if inside else "None") + (
        "import photocore, photocore.svg\n"
        "draw = registered.get(photocore.Game)\n"
        "print(draw is photocore.svg.board, len(registered))\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == (["True", "1"] if inside else ["False", "0"])
