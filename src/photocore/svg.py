"""A Game drawn as SVG: the board, the sun and a panel of the players; and the board itself,
its cells and the sun's corners, as the rules describe them (docs/rules.md §1, §2).

>>> g = Game(players=2)
>>> for move in ("place a4", "place g1", "place d1", "place d7", "plant a4 b4"):
...     g.play(move)
>>> picture = board(g, names=True)
>>> picture.startswith('<svg xmlns="http://www.w3.org/2000/svg"'), 'data-cell="b4"' in picture
(True, True)
>>> cells().count('class="cell"'), suns().count('class="sun"')
(37, 6)

In a notebook (IPython, Jupyter) the picture shows itself: board() returns an SVG, a str
that notebooks display as a picture, and importing this module in IPython makes every Game
display as its board.
"""

import math
import sys
from collections.abc import Sequence
from xml.sax.saxutils import escape

from photocore._game import Game, Move
from photocore.facts import (
    AXIAL,
    CELL_INDEX,
    CELLS,
    DIRECTIONS,
    LIGHT_CAP,
    RICHNESS,
    SIZES,
    STACK_LEAVES,
    SUN_POSITIONS,
    VECTORS,
    shadow_direction,
)
from photocore.render import winners_text

__all__ = [
    "R", "SUN", "HEADER", "BOARD_H", "BOARD_W", "LEGEND_H", "PANEL_W", "PLAYER_H", "FONT", "SOIL",
    "PLAYER_COLOURS", "HIGHLIGHT", "INK", "SVG", "board", "cells", "suns"
]

R = 27
"""A hex's radius, centre to corner, in viewBox units."""
SUN = 7.1 * R
"""The sun's distance from the board's centre, in viewBox units: just off the board."""
HEADER = 50
"""The height above everything, in viewBox units: two status lines."""
BOARD_W, BOARD_H = round(2 * SUN + 44), round(2 * SUN * math.sqrt(3) / 2 + 44)
"""The board's width and height, in viewBox units: the sun's circle and a margin of 22 each
side."""
LEGEND_H = 44
"""The legend's height under the board, in viewBox units."""
PANEL_W = 230
"""The width of the players' panel right of the board, in viewBox units."""
PLAYER_H = 108
"""The height of a player's block in the panel, in viewBox units."""
FONT = 'font-family="DejaVu Sans, Verdana, Arial, sans-serif"'
"""The font attribute of every text, a list of fonts most systems have one of."""

SOIL = {1: "#f6efd9", 2: "#ecdcae", 3: "#dfc47f", 4: "#cfa85a"}
"""The fill of a cell by its leaves (richness)."""
PLAYER_COLOURS = ("#d62728", "#1f5fd6", "#e8b400", "#2ca02c")
"""The colour of each player, in seat order: red, blue, yellow, green, as in render.py."""
HIGHLIGHT = "#e6007e"
"""The colour that marks the last move."""
INK = "#222"
"""The colour of text and of the lines drawn over the pieces."""


class SVG(str):
    """An SVG document: a str that notebooks display as a picture."""

    __slots__ = ()

    def _repr_svg_(self) -> str:
        return str(self)


def board(game: Game, size: int = 400, names: bool = False, last_move: bool = True,
          panel: bool = True) -> SVG:
    """`game` as an SVG document `size` px wide: board, sun, shade and the players' panel.

    names=True writes each cell's name in it; last_move=True outlines the cells of the last
    move (source and target of a plant, joined by an arrow); panel=False leaves the
    players' panel out. Returns an SVG (a str).
    """
    height = HEADER + max(BOARD_H + LEGEND_H, game.players * PLAYER_H + 10 if panel else 0)
    return _document(size, BOARD_W + PANEL_W * panel, height, [
        *_header(game),
        *_board(game, names, last_move),
        *_legend(game),
        *(_panel(game) if panel else []),
    ])


def cells(size: int = 400) -> SVG:
    """The empty board as a map, `size` px wide: each cell's name and the leaves of its
    soil, which its ring gives (docs/rules.md §1), with a key of the rings."""
    parts = [_text(10, 20, f"The board: {len(CELLS)} cells, rows a-g, columns 1-7", 17,
                   weight="bold"),
             _text(10, 42, "each cell: its name and its soil's leaves", 16)]
    for name in CELLS:
        x, y = _centre(name)
        parts += [_cell(name),
                  _text(x, y - 3, name, 13, anchor="middle", cls="name", fill="#4a3b22"),
                  _text(x, y + 15, str(_leaves(name)), 14, anchor="middle", weight="bold",
                        cls="leaves", fill="#4a3b22")]
    for ring, leaves in enumerate(sorted(set(RICHNESS), reverse=True)):     # two by two
        x, y = 10 + ring // 2 * BOARD_W / 2, HEADER + BOARD_H + 8 + ring % 2 * 20
        label = "the centre" if ring == 0 else f"ring {ring}"
        parts += [f'<polygon points="{_hexagon(x + 8, y - 5, 9)}" fill="{SOIL[leaves]}" '
                  'stroke="#8a7550"/>',
                  _text(x + 22, y, f"{label}: {leaves} leaf" if leaves == 1
                        else f"{label}: {leaves} leaves", 13, fill="#444", cls="ring")]
    return _document(size, BOARD_W, HEADER + BOARD_H + LEGEND_H, parts)


def suns(size: int = 400) -> SVG:
    """The board and the sun's six corners around it, `size` px wide, numbered in the order
    the sun takes them, one a round, clockwise from E (docs/rules.md §2), each with its arrow
    along the shadows it casts."""
    order = " \u2192 ".join(f"{k} {DIRECTIONS[k]}" for k in range(SUN_POSITIONS))
    parts = [_text(10, 20, "The sun's corners, one a round, clockwise:", 17, weight="bold"),
             _text(10, 42, order + " \u2192 0 ...", 16, cls="order")]
    parts += [_cell(name) for name in CELLS]
    for position in range(SUN_POSITIONS):
        x, y = _sun_centre(position)
        parts += _sun(position)
        parts.append(_text(x, y + 5, str(position), 14, anchor="middle", weight="bold"))
    parts.append(_text(10, HEADER + BOARD_H + 14, "arrows: the way each corner's shadows "
                       "fall", 13, fill="#444"))
    return _document(size, BOARD_W, HEADER + BOARD_H + LEGEND_H, parts)


def _document(size: int, width: float, height: float, parts: list[str]) -> SVG:
    """An SVG document `size` px wide of the parts, on the board's background."""
    return SVG("\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" '
        f'height="{round(size * height / width)}" viewBox="0 0 {width} {height}" {FONT}>',
        f'<rect width="{width}" height="{height}" fill="#fbfaf5"/>',
        *parts,
        "</svg>",
    ]))


# ---- geometry --------------------------------------------------------------------------

def _centre(name: str) -> tuple[float, float]:
    """Screen centre of a cell: pointy-top axial, y pointing down (docs/rules.md §1)."""
    return _screen(*AXIAL[CELL_INDEX[name]])


def _screen(q: int, r: int) -> tuple[float, float]:
    return BOARD_W / 2 + R * math.sqrt(3) * (q + r / 2), HEADER + BOARD_H / 2 + R * 1.5 * r


def _hexagon(x: float, y: float, radius: float) -> str:
    return " ".join(f"{x + radius * math.cos(math.radians(60 * k - 30)):.1f},"
                    f"{y + radius * math.sin(math.radians(60 * k - 30)):.1f}" for k in range(6))


def _leaves(name: str) -> int:
    return RICHNESS[CELL_INDEX[name]]


# ---- the parts -------------------------------------------------------------------------

def _header(game: Game) -> list[str]:
    if game.phase == "setup":
        first = "Setup: each player places two small trees on the outer ring"
    else:
        first = (f"Round {game.round} of {game.last_round} \u00b7 sun {DIRECTIONS[game.sun]}, "
                 f"shadows fall {DIRECTIONS[shadow_direction(game.sun)]}")
    if game.is_over:
        second = f"Game over: {winners_text(game.winners())}"
    else:
        second = f"Player {game.current_player} to move"
    history = game.history
    if history:
        second += f" \u00b7 last move: {history[-1]}"
    if game.options.flags:
        first += f" ({game.options.name})"
    return [_text(10, 20, first, 17, weight="bold", cls="status"),
            _text(10, 42, second, 16, cls="status")]


def _board(game: Game, names: bool, last_move: bool) -> list[str]:
    board, shaded, active = game.board(), set(game.shaded()), set(game.activated())
    dark = set(game.shadows()[1])       # every cell a shadow covers
    out = []
    for name in CELLS:
        x, y = _centre(name)
        out.append(_cell(name))
        if name in dark:
            out.append(f'<polygon class="shadow" data-cell="{name}" points="{_hexagon(x, y, R)}"'
                       ' fill="#2b3a55" fill-opacity="0.33"/>')
        if name in active:
            out.append(f'<polygon class="activated" data-cell="{name}" '
                       f'points="{_hexagon(x, y, R * 0.8)}" fill="none" stroke="{INK}" '
                       'stroke-width="2" stroke-dasharray="4 3"/>')
    if last_move and game.history:
        out += _last_move(game.history[-1])
    for name, (owner, size) in board.items():
        x, y = _centre(name)
        kind = 'class="piece shaded" opacity="0.45"' if name in shaded else 'class="piece"'
        out.append(f'<g {kind} data-cell="{name}" data-owner="{owner}" '
                   f'data-size="{size}" fill="{PLAYER_COLOURS[owner]}">'
                   f'{_piece(x, y + (3 if names else 0), size, R)}</g>')
    if names:
        for name in CELLS:
            x, y = _centre(name)
            out.append(_text(x, y - R * 0.5, name, 11, anchor="middle", cls="name",
                             fill="#4a3b22"))
    return out + _sun(game.sun)


def _cell(name: str) -> str:
    """The hexagon of a cell, in the colour of its soil."""
    x, y = _centre(name)
    return (f'<polygon class="cell" data-cell="{name}" data-leaves="{_leaves(name)}" '
            f'points="{_hexagon(x, y, R)}" fill="{SOIL[_leaves(name)]}" '
            f'stroke="#8a7550" stroke-width="1"/>')


def _last_move(move: Move) -> list[str]:
    """Thick outlines on the cells of the move; an arrow from the source to the target."""
    named = [move.source, move.target] if move.kind == "plant" else [move.cell]
    cells = [name for name in named if name is not None]    # a buy or end names no cell
    if not cells:
        return []
    out = ['<g class="last-move">']
    for name in cells:
        x, y = _centre(name)
        out.append(f'<polygon data-cell="{name}" points="{_hexagon(x, y, R * 0.9)}" fill="none"'
                   f' stroke="{HIGHLIGHT}" stroke-width="3.5"/>')
    if len(cells) == 2:
        (x1, y1), (x2, y2) = _centre(cells[0]), _centre(cells[1])
        out.append(_arrow(x1, y1, x2, y2, HIGHLIGHT, shorten=R * 0.35))
    out.append("</g>")
    return out


def _towards(position: int) -> tuple[float, float]:
    """The unit vector on screen from the centre towards the sun's corner `position`."""
    dq, dr = VECTORS[position]
    (cx, cy), (ex, ey) = _screen(0, 0), _screen(dq, dr)
    length = math.hypot(ex - cx, ey - cy)
    return (ex - cx) / length, (ey - cy) / length


def _sun_centre(position: int) -> tuple[float, float]:
    (cx, cy), (ux, uy) = _screen(0, 0), _towards(position)
    return cx + ux * SUN, cy + uy * SUN


def _sun(position: int) -> list[str]:
    """The sun beyond its corner, with an arrow along the shadows, towards the board."""
    (x, y), (ux, uy) = _sun_centre(position), _towards(position)
    rays = "".join(
        f'<line x1="{x + 14 * math.cos(a):.1f}" y1="{y + 14 * math.sin(a):.1f}" '
        f'x2="{x + 19 * math.cos(a):.1f}" y2="{y + 19 * math.sin(a):.1f}"/>'
        for a in (math.radians(45 * k) for k in range(8)))
    return [f'<g class="sun" data-sun="{position}" data-corner="{DIRECTIONS[position]}">',
            f'<g stroke="#e08a00" stroke-width="2.5">{rays}</g>',
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="11" fill="#ffcc1a" stroke="#e08a00"/>',
            _arrow(x - ux * 14, y - uy * 14, x - ux * 36, y - uy * 36, "#e08a00", cls="shadow-dir"),
            "</g>"]


def _arrow(x1: float, y1: float, x2: float, y2: float, colour: str, shorten: float = 0,
           cls: str | None = None) -> str:
    length = math.hypot(x2 - x1, y2 - y1)
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    x1, y1, x2, y2 = x1 + ux * shorten, y1 + uy * shorten, x2 - ux * shorten, y2 - uy * shorten
    head = 9
    bx, by = x2 - ux * head, y2 - uy * head
    tip = (f"{x2:.1f},{y2:.1f} {bx - uy * head * 0.55:.1f},{by + ux * head * 0.55:.1f} "
           f"{bx + uy * head * 0.55:.1f},{by - ux * head * 0.55:.1f}")
    attr = f' class="{cls}"' if cls else ""
    return (f'<g{attr} stroke="{colour}" fill="{colour}"><line x1="{x1:.1f}" y1="{y1:.1f}" '
            f'x2="{bx:.1f}" y2="{by:.1f}" stroke-width="3"/><polygon points="{tip}"/></g>')


def _piece(x: float, y: float, size: int, scale: float) -> str:
    """A seed is a dot; a tree of size s is a fir of s tiers (s = 1, 2, 3), taller by size."""
    if size == 0:
        return (f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{scale * 0.24:.1f}" stroke="{INK}" '
                'stroke-width="1.2"/>')
    height = scale * (0.55, 0.8, 1.05)[size - 1]
    width = height * 0.8
    bottom = y + height / 2
    trunk = (f'<rect x="{x - width * 0.08:.1f}" y="{bottom - height * 0.15:.1f}" '
             f'width="{width * 0.16:.1f}" height="{height * 0.15:.1f}" fill="#6b4a2b"/>')
    tiers = []
    tier = (height * 0.85) / (1 + 0.45 * (size - 1))     # tiers overlap by 55%
    for k in range(size):
        base = bottom - height * 0.12 - k * tier * 0.45
        half = width / 2 * (1 - 0.2 * k)
        tiers.append(f'<polygon points="{x - half:.1f},{base:.1f} {x + half:.1f},{base:.1f} '
                     f'{x:.1f},{base - tier:.1f}" stroke="{INK}" stroke-width="1.2"/>')
    return trunk + "".join(tiers)


def _legend(game: Game) -> list[str]:
    y = HEADER + BOARD_H + 14
    stacks = " ".join(map(str, game.stacks))
    leaves = ", ".join(map(str, STACK_LEAVES))
    return [_text(10, y, "faded: shaded \u00b7 grey: in shadow \u00b7 dashed: activated this "
                  "turn", 13, fill="#444"),
            _text(10, y + 18, f"pink: last move \u00b7 token stacks ({leaves} leaves): {stacks}",
                  13, fill="#444", cls="stacks")]


def _panel(game: Game) -> list[str]:
    scores, winners = game.scores(), game.winners() if game.is_over else ()
    out = []
    for p in range(game.players):
        x, y = BOARD_W + 4, HEADER + 6 + p * PLAYER_H
        colour = PLAYER_COLOURS[p]
        mark = "\u25b6 " if p == game.current_player else "\u2605 " if p in winners else ""
        tokens = " ".join(map(str, game.tokens(p))) or "none"
        light = game.light[p]
        out += [
            f'<g class="player" data-player="{p}" data-score="{scores[p]}" data-light="{light}">',
            f'<rect x="{x}" y="{y}" width="{PANEL_W - 10}" height="{PLAYER_H - 6}" rx="6" '
            f'fill="{colour}" fill-opacity="0.08" stroke="{colour}" stroke-width="1.5"/>',
            _text(x + 8, y + 20, f"{mark}Player {p}", 16, weight="bold", fill=colour),
            _text(x + PANEL_W - 18, y + 20, f"score {scores[p]}", 16, weight="bold",
                  anchor="end", cls="score"),
            _text(x + 8, y + 41, f"light {light}", 15, cls="light"),
            f'<rect x="{x + 78}" y="{y + 31}" width="{PANEL_W - 104}" height="12" fill="#fff" '
            'stroke="#999"/>',
            f'<rect x="{x + 78}" y="{y + 31}" width="{(PANEL_W - 104) * light / LIGHT_CAP:.1f}" '
            'height="12" fill="#f2b600"/>',
            *_pieces(x + 8, y + 62, "available", game.available(p), colour),
            *_pieces(x + 8, y + 80, "to buy", game.player_board(p), colour),
            _text(x + 8, y + 98, f"tokens {tokens}", 15, cls="tokens"),
            "</g>",
        ]
    return out


def _pieces(x: float, y: float, label: str, counts: Sequence[int], colour: str) -> list[str]:
    """A label, then each size's icon and count: seed, small, medium, large."""
    out = [_text(x, y, label, 15, fill="#444")]
    for size, n in enumerate(counts):
        left = x + 74 + size * 34
        out.append(f'<g fill="{colour}" class="{SIZES[size]}">'
                   f'{_piece(left + 6, y - 6, size, 18)}</g>')
        out.append(_text(left + 14, y, str(n), 15))
    return out


def _text(x: float, y: float, text: str, size: int, anchor: str | None = None,
          weight: str | None = None, fill: str = INK, cls: str | None = None) -> str:
    attrs = f'x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{fill}"'
    if anchor:
        attrs += f' text-anchor="{anchor}"'
    if weight:
        attrs += f' font-weight="{weight}"'
    if cls:
        attrs += f' class="{cls}"'
    return f"<text {attrs}>{escape(text)}</text>"


def _show_games_in_notebooks() -> None:
    """Inside IPython, a Game displays as its board."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        shell.display_formatter.formatters["image/svg+xml"].for_type(Game, board)


_show_games_in_notebooks()
