"""Plain-Python reference implementation of Photosynthesis.

Written straight from docs/rules.md (sections cited as §n) and the "Where docs/rules.md is silent" of
docs/engine.md, for clarity rather than speed. It is the oracle that tests hold the fast
engine in src/photocore against, and deliberately shares no code with it.

Cells are axial coordinates (q, r) inside; names such as "d4" only at the API boundary.
"""

# ---------------------------------------------------------------------------
# §1 Board and coordinates

def _on_board(q, r):
    return max(abs(q), abs(r), abs(q + r)) <= 3


# Index order (docs/engine.md): rows r = -3..3, then q ascending.
COORDS = tuple((q, r) for r in range(-3, 4) for q in range(-3, 4) if _on_board(q, r))
# Name = row letter for r (a..g) + digit for q (1..7).
CELLS = tuple("abcdefg"[r + 3] + str(q + 4) for (q, r) in COORDS)
_COORD_OF = dict(zip(CELLS, COORDS))
_INDEX_OF = {c: i for i, c in enumerate(COORDS)}


def _name(cell):
    return CELLS[_INDEX_OF[cell]]


def distance(a, b):
    """§1 hex distance between two (q, r) cells."""
    (q1, r1), (q2, r2) = a, b
    return max(abs(q1 - q2), abs(r1 - r2), abs((q1 + r1) - (q2 + r2)))


def ring(cell):
    return distance(cell, (0, 0))


def richness(cell):
    """§1 soil richness (leaves): ring 0 -> 4, 1 -> 3, 2 -> 2, 3 -> 1."""
    return 4 - ring(cell)


# ---------------------------------------------------------------------------
# §2 The sun.  Directions in clockwise order E, SE, SW, W, NW, NE; the sun at position
# k stands in direction DIRECTIONS[k] and shadows run the opposite way.

DIRECTIONS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


def shadow_direction(sun):
    dq, dr = DIRECTIONS[sun]
    return (-dq, -dr)


def shadow_cover(board, sun):
    """§5.1: {cell: size of the largest tree casting shadow on it} under this sun.

    A tree of size t >= 1 at x shades x + i*D for i = 1..t (on the board); seeds cast none.
    """
    dq, dr = shadow_direction(sun)
    cover = {}
    for (q, r), (_owner, t) in board.items():
        for i in range(1, t + 1):          # empty range for seeds (t = 0)
            c = (q + i * dq, r + i * dr)
            if _on_board(*c):
                cover[c] = max(cover.get(c, 0), t)
    return cover


def is_shaded(cover, cell, size):
    """§5.1 / §8: a tree of size s is shaded by a shadow of a tree of size >= s; a seed
    (size 0) or an empty cell (pass size 0) by any shadow at all."""
    return cell in cover and cover[cell] >= size


# ---------------------------------------------------------------------------
# §3 Pieces and player boards.  Index 0..3 = seed, small, medium, large (= piece size).

KINDS = ("seed", "small", "medium", "large")
TOTAL = (6, 8, 4, 2)                 # pieces each player owns, per size
PRICES = ((1, 1, 2, 2), (2, 2, 3, 3), (3, 3, 4), (4, 5))   # cheapest -> dearest
START_PLAYER_BOARD = (4, 4, 3, 2)    # every column full
START_AVAILABLE = (2, 4, 1, 0)

PLANT_COST = 1                       # §5.2
GROW_COST = {0: 1, 1: 2, 2: 3}       # cost to grow FROM this size
COLLECT_COST = 4
LIGHT_CAP = 20                       # §5.1

# §6 Scoring tokens by leaves, top of stack (taken first) first.
START_STACKS = {
    4: (22, 21, 20),
    3: (19, 18, 18, 17, 17),
    2: (17, 16, 16, 14, 14, 13, 13),
    1: (14, 14, 13, 13, 13, 12, 12, 12, 12),
}


def price(column, n):
    """§3: with n pieces in a column of k slots the next purchase costs p[k - n]."""
    p = PRICES[column]
    return p[len(p) - n]


# ---------------------------------------------------------------------------
# §9 Move notation

def parse(text):
    """Normalise a move text; return its words as a tuple, or raise ValueError if malformed."""
    if not isinstance(text, str):
        raise ValueError("malformed move %r: not a string" % (text,))
    words = tuple(text.lower().split())
    shape = {"place": 1, "buy": 1, "plant": 2, "grow": 1, "collect": 1, "end": 0}
    if not words or words[0] not in shape:
        raise ValueError("malformed move %r: unknown action" % (text,))
    if len(words) != 1 + shape[words[0]]:
        raise ValueError("malformed move %r: wrong number of words" % (text,))
    if words[0] == "buy":
        if words[1] not in KINDS:
            raise ValueError("malformed move %r: no column %r" % (text, words[1]))
    else:
        for w in words[1:]:
            if w not in _COORD_OF:
                raise ValueError("malformed move %r: %r is not a cell" % (text, w))
    return words


# ---------------------------------------------------------------------------

class ReferenceGame:
    def __init__(self, players=2, fourth_revolution=False, shade_blocks=False):
        if players not in (2, 3, 4):
            raise ValueError("players must be 2, 3 or 4")
        self.players = players
        self.fourth_revolution = bool(fourth_revolution)
        self.shade_blocks = bool(shade_blocks)
        self.last_round = 24 if self.fourth_revolution else 18       # §2, §8
        self.phase = "setup"                                         # §5.4
        self.round = 0
        self.sun = 0
        self.first_player = 0
        self.current_player = 0                                      # §4: player 0 starts
        self.placements = 0                                          # setup places so far
        self._light = [0] * players                                  # §5.4: start at 0 LP
        self._available = [list(START_AVAILABLE) for _ in range(players)]
        self._player_board = [list(START_PLAYER_BOARD) for _ in range(players)]
        self._out = [[0, 0, 0, 0] for _ in range(players)]           # out of the game
        self._tokens = [[] for _ in range(players)]
        self._stacks = {leaves: list(vals) for leaves, vals in START_STACKS.items()}
        if players == 2:                                             # §6 + engine.md, rules silent
            self._stacks[4] = []
        self._board = {}                  # (q, r) -> (owner, size)
        self._activated = set()           # (q, r) cells activated this turn (§5.2)
        self.history = []

    # -- read-only views ---------------------------------------------------

    @property
    def light(self):
        return tuple(self._light)

    def available(self, p):
        return tuple(self._available[p])

    def player_board(self, p):
        return tuple(self._player_board[p])

    def out_of_game(self, p):
        return tuple(self._out[p])

    def tokens(self, p):
        return tuple(self._tokens[p])

    @property
    def stacks(self):
        return tuple(len(self._stacks[leaves]) for leaves in (4, 3, 2, 1))

    @property
    def is_over(self):
        return self.phase == "over"

    def board(self):
        return {_name(c): piece for c, piece in sorted(self._board.items(),
                                                       key=lambda kv: _INDEX_OF[kv[0]])}

    def activated(self):
        return tuple(_name(c) for c in COORDS if c in self._activated)

    def shaded(self):
        """engine.md, where the rules are silent: cells whose piece would be shaded now (§5.1 / §8)."""
        cover = shadow_cover(self._board, self.sun)
        return tuple(_name(c) for c in COORDS
                     if c in self._board and is_shaded(cover, c, self._board[c][1]))

    def scores(self):
        """§7: tokens + floor(LP / 3)."""
        return tuple(sum(self._tokens[p]) + self._light[p] // 3 for p in range(self.players))

    def winners(self):
        """§7: highest score; tie broken by most pieces (seeds and trees equally, §5.4) on
        the main board; still tied, all of them win."""
        scores = self.scores()
        best = max(scores)
        tied = [p for p in range(self.players) if scores[p] == best]
        pieces = {p: sum(1 for owner, _ in self._board.values() if owner == p) for p in tied}
        most = max(pieces.values())
        return tuple(p for p in tied if pieces[p] == most)

    def copy(self):
        g = ReferenceGame.__new__(ReferenceGame)
        g.__dict__.update(self.__dict__)
        g._light = list(self._light)
        g._available = [list(a) for a in self._available]
        g._player_board = [list(b) for b in self._player_board]
        g._out = [list(o) for o in self._out]
        g._tokens = [list(t) for t in self._tokens]
        g._stacks = {k: list(v) for k, v in self._stacks.items()}
        g._board = dict(self._board)
        g._activated = set(self._activated)
        g.history = list(self.history)
        return g

    # -- rules: why is a move illegal? ----------------------------------------

    def _illegal_reason(self, words):
        """Return None if the parsed move is legal now, else a reason (the single source
        of truth for legality: legal_moves() and play() both use it)."""
        if self.phase == "over":
            return "the game is over"
        p = self.current_player
        kind = words[0]
        if self.phase == "setup":
            if kind != "place":                                      # §5.4
                return "only 'place' moves are legal during setup"
            c = _COORD_OF[words[1]]
            if ring(c) != 3:                                         # §4
                return "setup trees go on the outer ring"
            if c in self._board:
                return "the cell is occupied"
            if self._available[p][1] < 1:
                return "no small tree in the available area"
            return None
        if kind == "place":
            return "'place' is a setup move"
        if kind == "end":                                            # §5.4: always legal
            return None
        if kind == "buy":                                            # §5.2 Buy
            col = KINDS.index(words[1])
            n = self._player_board[p][col]
            if n == 0:
                return "the %s column is empty" % words[1]
            if self._light[p] < price(col, n):
                return "needs %d LP, has %d" % (price(col, n), self._light[p])
            return None
        cells = [_COORD_OF[w] for w in words[1:]]
        for c in cells:                                              # §5.2 activation
            if c in self._activated:
                return "%s was already activated this turn" % _name(c)
        if kind == "plant":                                          # §5.2 Plant
            src, tgt = cells
            owner, size = self._board.get(src, (None, None))
            if owner != p or size < 1:
                return "no own tree on %s" % _name(src)
            if tgt in self._board:
                return "the target cell is occupied"
            if distance(src, tgt) > size:
                return "the target is out of range of the source tree"
            if self._available[p][0] < 1:
                return "no seed in the available area"
            if self._light[p] < PLANT_COST:
                return "needs %d LP, has %d" % (PLANT_COST, self._light[p])
            if self.shade_blocks and is_shaded(shadow_cover(self._board, self.sun), tgt, 0):
                return "the target cell is in a shadow (shade blocks growth)"    # §8
            return None
        c = cells[0]
        owner, size = self._board.get(c, (None, None))
        if owner != p:
            return "no own piece on %s" % _name(c)
        if kind == "grow":                                           # §5.2 Grow
            if size == 3:
                return "a large tree cannot grow"
            if self._available[p][size + 1] < 1:
                return "no %s tree in the available area" % KINDS[size + 1]
            if self._light[p] < GROW_COST[size]:
                return "needs %d LP, has %d" % (GROW_COST[size], self._light[p])
            if self.shade_blocks and is_shaded(shadow_cover(self._board, self.sun), c, size):
                return "the piece is shaded (shade blocks growth)"   # §8
            return None
        if kind == "collect":                                        # §5.2 Collect
            if size != 3:
                return "only a large tree can be collected"
            if self._light[p] < COLLECT_COST:
                return "needs %d LP, has %d" % (COLLECT_COST, self._light[p])
            return None
        raise AssertionError(kind)

    # -- legal moves -------------------------------------------------------------

    def _candidates(self):
        """Every well-formed move in action-id order (docs/engine.md); plants only from
        the current player's own trees to targets at distance 1..3 (all others fail the
        'own tree' test anyway)."""
        p = self.current_player
        for name in CELLS:
            yield ("place", name)
        for kind in KINDS:
            yield ("buy", kind)
        for src in COORDS:
            owner, size = self._board.get(src, (None, 0))
            if owner == p and size >= 1:
                for tgt in COORDS:
                    if 1 <= distance(src, tgt) <= 3:
                        yield ("plant", _name(src), _name(tgt))
        for name in CELLS:
            yield ("grow", name)
        for name in CELLS:
            yield ("collect", name)
        yield ("end",)

    def legal_moves(self):
        if self.phase == "over":
            return []
        return [" ".join(w) for w in self._candidates() if self._illegal_reason(w) is None]

    # -- playing a move -----------------------------------------------------------

    def play(self, text):
        words = parse(text)
        move = " ".join(words)
        reason = self._illegal_reason(words)
        if reason is not None:
            raise ValueError("illegal move %r: %s" % (move, reason))
        p = self.current_player
        kind = words[0]
        cells = [_COORD_OF[w] for w in words[1:]] if kind != "buy" else []
        if kind == "place":                           # §4: free, activates nothing
            self._available[p][1] -= 1
            self._board[cells[0]] = (p, 1)
            self.placements += 1
            if self.placements == 2 * self.players:   # §5.4: last place starts round 1
                self._start_round(1)
            else:
                self.current_player = self.placements % self.players
        elif kind == "buy":                           # §5.2 Buy
            col = KINDS.index(words[1])
            self._light[p] -= price(col, self._player_board[p][col])
            self._player_board[p][col] -= 1
            self._available[p][col] += 1
        elif kind == "plant":                         # §5.2 Plant
            src, tgt = cells
            self._light[p] -= PLANT_COST
            self._available[p][0] -= 1
            self._board[tgt] = (p, 0)
            self._activated.update((src, tgt))
        elif kind == "grow":                          # §5.2 Grow
            c = cells[0]
            size = self._board[c][1]
            self._light[p] -= GROW_COST[size]
            self._available[p][size + 1] -= 1
            self._board[c] = (p, size + 1)
            self._return_piece(p, size)
            self._activated.add(c)
        elif kind == "collect":                       # §5.2 Collect, §6
            c = cells[0]
            self._light[p] -= COLLECT_COST
            del self._board[c]
            self._return_piece(p, 3)
            self._take_token(p, richness(c))
            self._activated.add(c)
        else:                                         # end turn
            self._activated = set()
            nxt = (p + 1) % self.players
            if nxt != self.first_player:
                self.current_player = nxt
            elif self.round == self.last_round:       # §5.3: game ends, no photosynthesis
                self.phase = "over"
                self.current_player = None
            else:
                self._start_round(self.round + 1)
        self.history.append(move)

    def _return_piece(self, p, size):
        """§5.2: a replaced/collected piece goes to its player-board column if that has an
        empty slot, else it leaves the game."""
        if self._player_board[p][size] < len(PRICES[size]):
            self._player_board[p][size] += 1
        else:
            self._out[p][size] += 1

    def _take_token(self, p, leaves):
        """§6: top token of the stack for `leaves`, else of the next lower stack, ...;
        none at all if every stack at or below is empty."""
        for l in range(leaves, 0, -1):
            if self._stacks[l]:
                self._tokens[p].append(self._stacks[l].pop(0))
                return

    def _start_round(self, k):
        """§2, §5.3, §5.4: sun to (k-1) mod 6, first player (k-1) mod players, then
        photosynthesis (round 1 included)."""
        self.phase = "play"
        self.round = k
        self.sun = (k - 1) % 6
        self.first_player = (k - 1) % self.players
        self.current_player = self.first_player
        self._activated = set()
        self._photosynthesis()

    def _photosynthesis(self):
        """§5.1: every unshaded tree of size s >= 1 earns s LP; cap 20 after the gain."""
        cover = shadow_cover(self._board, self.sun)
        for c, (owner, size) in self._board.items():
            if size >= 1 and not is_shaded(cover, c, size):
                self._light[owner] += size
        self._light = [min(LIGHT_CAP, lp) for lp in self._light]


def win_share(players, winners):
    """The zero-sum returns of docs/engine.md: every player stakes 1 / (players - 1), the
    winners share the pot equally."""
    stake = 1.0 / (players - 1)
    return [stake * players / len(winners) - stake if p in winners else -stake
            for p in range(players)]


def perft(game, depth):
    """Leaf count of the legal-move tree; a finished game is a leaf at any depth."""
    if depth == 0 or game.phase == "over":
        return 1
    total = 0
    for move in game.legal_moves():
        child = game.copy()
        child.play(move)
        total += perft(child, depth - 1)
    return total
