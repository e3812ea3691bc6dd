"""The C agent's search over positions (`mcts:N?graph=1`, docs/searching.md "The C agent over
positions"): the orders of a turn it plays once (photocore._kernel.commutes), one node per
position, values by seat, determinism, and the `?graph=` switch of the agent specs."""

import random

import pytest

import photocore
from photocore import Game, Move
from photocore._kernel import commutes
from photocore.env._vec import VecGame
from photocore.facts import OPTIONS
from photocore.play import AgentParams, play_games, search_root, specs
from photocore.play._agents import Agent
from support import COLLECT_THEN_END, END_WINS, TURN, TURN_MOVES, legal_orders, random_game


def canonical(order, options=0):
    """Whether no move of `order` follows one it commutes with and that has a larger id:
    the orders the graph search plays (every position of the turn has one)."""
    ids = [int(Move.parse(m)) if isinstance(m, str) else m for m in order]
    return not any(y < x and commutes(x, y, options) for x, y in zip(ids, ids[1:]))


def busy_positions():
    """TURN under every option (many moves commute there: trees, light, pieces), the
    positions one move after it, and positions of random games of 2-4 players."""
    rng = random.Random(5)
    for options in OPTIONS:
        turn = Game.from_position(TURN.replace("2 - 5", f"2 {options} 5", 1))
        yield turn
        for move in turn.legal_moves()[::7]:
            after = turn.copy()
            after.play(move)
            yield after
    for _ in range(150):
        game = random_game(rng, moves=rng.randrange(8, 300))
        if not game.is_over:
            yield game


def test_commuting_moves_reach_one_position_in_either_order():
    pairs = 0
    for game in busy_positions():
        flags = game.options.flags
        for x in game.legal_moves():
            after_x = game.copy()
            after_x.play(x)
            for y in after_x.legal_moves():
                if not commutes(int(x), int(y), flags):
                    continue
                pairs += 1
                assert game.is_legal(y), (game.position(), str(x), str(y))
                after_y = game.copy()
                after_y.play(y)
                assert after_y.is_legal(x), (game.position(), str(x), str(y))
                after_y.play(x)
                both = after_x.copy()
                both.play(y)
                assert after_y == both and after_y.key == both.key
    assert pairs > 20_000          # the positions above hold that many commuting pairs


def test_which_moves_commute():
    c = lambda x, y, options=0: commutes(Move.parse(x), Move.parse(y), options)  # noqa: E731
    assert c("plant c4 c5", "collect a4") and c("collect a4", "collect d4")
    assert c("grow f2", "grow a4") and c("plant a4 a5", "plant d4 d5")
    assert not c("grow f2", "buy medium") and not c("end", "grow f2")
    assert not c("plant c4 c5", "grow c4") and not c("plant c4 c5", "grow c5")   # a cell
    shade = 2                       # shade blocks growth: a grow or collect moves shadows
    assert c("plant a4 a5", "plant d4 d5", shade) and c("collect a4", "collect d4", shade)
    assert not c("grow f2", "grow a4", shade) and not c("collect a4", "plant c4 c5", shade)
    with pytest.raises(ValueError, match="action ids"):
        commutes(890, 1)


def test_the_graph_search_plays_one_order_of_a_turn():
    # TURN_MOVES: two collects, a plant and a grow commute with each other; the buy with
    # none, and the grow needs it first. Of the 60 legal orders, those with the commuting
    # moves in id order on each side of the buy: one per choice of which of the plant and
    # the collects go before it, 2**3
    legal = legal_orders(Game.from_position(TURN), TURN_MOVES)
    assert len(legal) == 60
    kept = [(order, game) for order, game in legal if canonical(order)]
    assert len(kept) == 8
    assert {game.key for _, game in kept} == {legal[0][1].key}
    assert all(order.index("buy medium") < order.index("grow f2") for order, _ in kept)


def reachable(game, depth, ordered):
    """The positions `depth` moves or fewer of one turn reach (by key), all orders or only
    the canonical ones."""
    seen = set()
    frontier = [(game, None)]
    for _ in range(depth):
        following = []
        for position, last in frontier:
            for move in position.legal_moves():
                if move == Move.parse("end"):
                    continue
                if ordered and last is not None and not canonical([last, int(move)],
                                                                  game.options.flags):
                    continue
                after = position.copy()
                after.play(move)
                seen.add(after.key)
                following.append((after, int(move)))
        frontier = following
    return seen, len(frontier)


@pytest.mark.parametrize("options", OPTIONS)
def test_the_canonical_orders_reach_every_position_of_the_turn(options):
    rng = random.Random(options.flags)
    checked = 0
    while checked < 3:
        game = random_game(rng, players=2, options=options, moves=rng.randrange(12, 80))
        if game.is_over or len(game.legal_moves()) < 4 or len(game.legal_moves()) > 40:
            continue
        everything, all_orders = reachable(game, 3, ordered=False)
        ordered, fewer = reachable(game, 3, ordered=True)
        assert ordered == everything, game.position()
        assert fewer <= all_orders
        checked += 1


def test_the_graph_search_finds_the_win_and_counts_its_visits():
    game = Game.from_position(END_WINS)
    stats = search_root(game, simulations=300, seed=3, graph=True)
    assert stats.actions == game.legal_moves().ids()
    assert sum(stats.visits) == stats.root_visits - 1 == 299
    assert stats.actions[stats.visits.index(max(stats.visits))] == int(Move.parse("end"))
    assert stats.root_values[0] > 0.8
    # collect d4 keeps the turn; only its `end` then wins: two nodes of player 0
    game = Game.from_position(COLLECT_THEN_END)
    stats = search_root(game, simulations=2000, seed=3, graph=True)
    assert stats.principal[:2] == [int(Move.parse("collect d4")), int(Move.parse("end"))]
    assert Agent("mcts", 3, 2000, graph=True).select(game) == Move.parse("collect d4")


# The last round of a game to 24 rounds: player 1 (79 to 55 behind, 20 light) moves first, and
# player 0 (5 light, no large tree) can score nothing after. Player 1 wins only by collecting
# both large trees, a5 and g3, in either order, and ending at once: 79 all (12 light left
# make 4 points), won on pieces on the board. Any other move spends light that scores.
TWO_COLLECTS = ("2 f 24 5 1 1 - a4:1:2,a5:1:3,a7:1:0,b3:1:1,b4:1:1,b6:1:2,b7:1:1,c3:1:1,c4:1:1,"
                "c5:0:0,c6:0:1,c7:0:1,d4:1:1,d7:0:2,e2:1:0,f1:0:0,f3:1:1,g1:0:2,g2:0:0,g3:1:3 "
                "5/0000/1322/14.14.16.16.18 20/0010/2010/19.17.13 0346")


def test_the_winning_turn_is_found_when_its_orders_are_merged():
    game = Game.from_position(TWO_COLLECTS)
    solution = photocore.solve(game)
    assert (solution.result, solution.margin) == (1, 0)
    assert sorted(map(str, solution.best)) == ["collect a5", "collect g3"]
    assert list(map(str, solution.principal)) == ["collect a5", "collect g3", "end"]
    wins = {int(m) for m in solution.best}
    # the tree searches both orders of the two collects, each three moves deep among a
    # dozen: at 200 simulations every root move still looks lost to it. Over positions
    # the orders are one (g3 then a5 is not played), so the win is found from any seed.
    tree = search_root(game, simulations=200, seed=0, graph=False)
    graph = search_root(game, simulations=200, seed=0, graph=True)
    assert max(values[1] for values in tree.values) < -0.9
    a5 = graph.actions.index(int(Move.parse("collect a5")))
    assert graph.values[a5][1] > 0.5 and graph.visits[a5] == max(graph.visits)
    found = {graph: sum(int(Agent("mcts", seed, 200, graph=graph).select(game)) in wins
                        for seed in range(10))
             for graph in (False, True)}
    assert found[True] == 10 and found[False] <= 5


def test_graph_values_land_on_every_players_seat():
    rng = random.Random(8)
    game = random_game(rng, players=3, options="-", moves=150)
    stats = search_root(game, simulations=500, seed=1, graph=True)
    assert len(stats.root_values) == 3
    # a win is 1, a loss -1/2: the seats' values sum to 0 whatever the winner
    assert sum(stats.root_values) == pytest.approx(0, abs=1e-9)
    for values in stats.values:
        if values[0] == values[0]:
            assert sum(values) == pytest.approx(0, abs=1e-9)
    # a game decided whatever its last player does: every seat's value is its return
    done = Game.from_position(END_WINS)
    done.play("end")
    assert done.is_over
    last = Game.from_position(END_WINS)
    stats = search_root(last, simulations=50, seed=1, graph=True)
    i = stats.actions.index(int(Move.parse("end")))
    assert stats.values[i] == pytest.approx(done.returns())


def test_the_graph_holds_a_position_a_simulation_at_most():
    # the tree makes a node for every move of every node it expands; the graph a position
    # for each simulation that reaches a new one, and says what it took
    game = Game.from_position(TURN)
    tree = search_root(game, simulations=3000, seed=2, graph=False)
    graph = search_root(game, simulations=3000, seed=2, graph=True)
    assert graph.nodes <= 3001 < tree.nodes
    assert graph.memory > 0 and tree.memory > 0


def test_the_same_seed_gives_the_same_graph_search():
    game = random_game(random.Random(3), players=2, options="-", moves=70)
    one = search_root(game, simulations=400, seed=9, graph=True)
    assert one == search_root(game, simulations=400, seed=9, graph=True)
    assert one != search_root(game, simulations=400, seed=10, graph=True)
    first = play_games([("mcts", 30, True), ("greedy", 1)], 2, None, 5, 0, 2)
    again = play_games([("mcts", 30, True), ("greedy", 1)], 2, None, 5, 0, 2)
    assert (first[0] == again[0]).all() and (first[1] == again[1]).all()


def test_graph_is_an_option_of_the_mcts_spec():
    assert specs.parse("mcts:1000?graph=1").label == "mcts:1000?graph=1"
    assert specs.parse("mcts?graph=true").params == AgentParams("mcts", 200, True, False)
    assert specs.parse("mcts:50?graph=0").label == "mcts:50"     # the default: the tree
    assert specs.parse("mcts:50?graph=1").load().name == "mcts:50?graph=1"
    assert Agent("mcts", 0, 50, graph=True).graph and not Agent("mcts", 0, 50).graph
    for bad, why in (("mcts:5?graph=2", "graph is 0 or 1"), ("mcts:5?depth=3", "unknown option"),
                     ("greedy?graph=1", "greedy takes no options"),
                     ("mcts:5?graph", "not key=value")):
        with pytest.raises(ValueError, match=why):
            specs.parse(bad)
    with pytest.raises(TypeError, match="graph"):
        Agent("mcts", 0, 50, graph="yes")


def test_vecgame_opponents_search_over_positions_when_asked():
    over_positions = VecGame(2, players=2, opponents="mcts:20?graph=1", seat=0)
    assert over_positions.opponents == ("mcts:20?graph=1",)
    tree = VecGame(2, players=2, opponents="mcts:20", seat=0)
    assert tree.opponents == ("mcts:20",)
