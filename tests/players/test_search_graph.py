"""photocore.Search(graph=True): one node per position, pinned down on positions whose
positions and orders can be counted, the seats values land on, batches in flight, reuse
and determinism (docs/searching.md, "The graph in Search")."""

import numpy as np
import pytest

import photocore
from photocore import Game, Move
from photocore.play.search import SearchAgent
from photocore.play.settings import SearchSettings
from support import COLLECT_THEN_END, TURN, hashed, midgame, uniform, visits_by_move

# Player 0 moves last in the last round with 4 light while player 1 holds 14 points: every
# line loses alike, so a search spreads over all of them and soon holds the whole rest of
# the game (74 orders of moves, 48 positions, 24 of them still to play).
ALL_LOST = "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 4/1110/2220/- 0/2200/4432/14 0578"


def orders_and_positions(game):
    """Every order of moves from `game` to the end (the root included) and the positions
    they reach: (orders, positions, positions where the game goes on)."""
    orders, positions, open_positions = 0, set(), set()
    stack = [game.copy(history=False)]
    while stack:
        g = stack.pop()
        orders += 1
        positions.add(g.position())
        if g.is_over:
            continue
        open_positions.add(g.position())
        for move in g.legal_moves():
            after = g.copy(history=False)
            after.play(move)
            stack.append(after)
    return orders, len(positions), len(open_positions)


def test_every_order_of_a_turn_reaches_one_node():
    game = Game.from_position(ALL_LOST)
    assert orders_and_positions(game) == (74, 48, 24)
    tree = photocore.Search([game], 300, dirichlet_fraction=0)
    graph = photocore.Search([game], 300, dirichlet_fraction=0, graph=True)
    tree.run(uniform(2))
    network = uniform(2)
    graph.run(network)
    # the tree holds every order, the graph every position, each open one evaluated once
    assert tree.nodes[0] == 74 and graph.nodes[0] == 48 and network.rows == 24
    # advance keeps what the move reaches, each position once: the 14 positions of the
    # rest of the game from there (no two orders meet after a buy), of the graph's 48
    buy = int(Move.parse("buy seed"))
    after = game.copy(history=False)
    after.play(buy)
    assert orders_and_positions(after) == (14, 14, 7)
    kept = graph.visits()[0, buy]
    tree.advance(np.array([buy]))
    graph.advance(np.array([buy]))
    assert tree.nodes[0] == 14 and graph.nodes[0] == 14
    assert graph.visits()[0].sum() == kept - 1           # the kept node's own visit is its own


def test_a_graph_search_goes_on_from_the_kept_graph():
    game = Game.from_position(ALL_LOST)
    search = photocore.Search([game], 300, dirichlet_fraction=0, graph=True)
    search.run(uniform(2))
    plant = int(Move.parse("plant b4 b3"))
    search.advance(np.array([plant]))
    assert search.nodes[0] == 8 and search.game(0).position() == (
        "2 - 18 5 1 0 b3,b4 a4:1:1,a5:1:1,b3:0:0,b4:0:1 3/0110/2220/- 0/2200/4432/14 0578")
    network = uniform(2)
    visits = search.run(network)[0]
    # nothing new to evaluate: the kept graph holds the rest of the game
    assert network.rows == 0 and visits.sum() == 299 and search.nodes[0] == 8
    assert search.root_values()[0].tolist() == pytest.approx([-1.0, 1.0], abs=0.02)


def test_values_land_on_the_seats_of_three_players():
    # the network says "the player to move gets 1, the next 0, the one after -1" everywhere;
    # player 0 keeps the turn with anything but `end`: the graph, choosing at each node for
    # the player to move there, keeps player 0 from ending and holds player 0's view
    game = midgame(players=3, plies=40)
    while game.current_player != 0:
        game.play(photocore.Agent("greedy").select(game))
    opinion = np.array([1.0, 0.0, -1.0], np.float32)

    def evaluate(obs, mask):
        return np.zeros(mask.shape, np.float32), np.tile(opinion, (len(obs), 1))

    search = photocore.Search([game], simulations=300, dirichlet_fraction=0, graph=True)
    visits = search.run(evaluate)[0]
    end = int(Move.parse("end"))
    assert visits.argmax() != end and visits[end] < 0.05 * visits.sum()
    # mostly player 0's nodes (1, 0, -1); a few past an `end` add the next players' views
    values = search.root_values()[0]
    assert values[0] > 0.7 and values[2] < values[1] < 0 and values.sum() == pytest.approx(0)
    search.advance(np.array([end]))
    mover = search.game(0).current_player
    assert mover != 0 and search.root_values()[0].argmax() == mover


def test_a_turn_of_several_moves_backs_up_to_its_player():
    # collect d4 leaves player 0 to move again; its `end` wins: the +1 reaches the root as
    # player 0's value through two player-0 nodes
    game = Game.from_position(COLLECT_THEN_END)
    search = photocore.Search([game], simulations=400, dirichlet_fraction=0, graph=True)
    visits = search.run(uniform(2))[0]
    collect = int(Move.parse("collect d4"))
    assert visits.argmax() == collect and visits[collect] == 312
    search.advance(np.array([collect]))
    assert visits_by_move(search.visits()[0]) == {"end": 311}
    # Q = (U + 311 * 1) / (1 + 311), the network's own U being 0
    assert search.root_values()[0].tolist() == pytest.approx([311 / 312, -311 / 312])


def test_a_position_two_orders_reach_is_evaluated_once_and_shared():
    # the network gives player 0 a win at the position after both collects (reached by
    # either order) and -0.2 elsewhere; its priors favour the collects and, more, a plant
    first, second, decoy = (int(Move.parse(m)) for m in ("collect a4", "collect d4",
                                                          "plant c4 c5"))
    game = Game.from_position(TURN)
    both = game.copy(history=False)
    both.play(first)
    both.play(second)
    target = both.observation()

    def scripted(obs, mask):
        logits = np.zeros(mask.shape, np.float32)
        logits[:, [first, second]] = 3.0
        logits[:, decoy] = 4.0
        values = np.tile(np.float32([-0.2, 0.2]), (len(obs), 1))
        hit = (obs == target).all(axis=1)
        values[hit] = [1.0, -1.0]
        scripted.hits += int(hit.sum())
        return logits, values

    found = {}
    for graph in (False, True):
        scripted.hits = 0
        search = photocore.Search([game], 30, dirichlet_fraction=0, transpositions=False,
                                  graph=graph)
        visits = search.run(scripted)[0]
        found[graph] = (scripted.hits, [int(visits[a]) for a in (first, second, decoy)],
                        int(search.nodes[0]), int(search.saved[0]))
        search.advance(np.array([second]))
        # from `collect d4`, `collect a4` leads to the won position: the graph's walk that
        # first took it stopped there and brought its value back, the tree's evaluated it
        assert search.visits()[0, first] > 0
    # the tree evaluates the won position once by each order, the graph once; the graph's
    # walks that meet a known position stop there (saved) instead of growing the tree
    assert found == {False: (2, [11, 8, 10], 30, 0), True: (1, [11, 6, 12], 13, 17)}


def test_walks_in_flight_never_send_a_position_twice():
    # eight walks a batch: two orders reaching one new position in the same batch meet at
    # its node (a collision), so each row is a position not sent before
    search = photocore.Search([Game.from_position(TURN)], 600, dirichlet_fraction=0,
                              in_flight=8, graph=True)
    network = hashed(2)
    seen = set()
    while (batch := search.ask()) is not None:
        obs, mask = batch
        for row in obs:
            assert row.tobytes() not in seen
            seen.add(row.tobytes())
        search.tell(*network(obs, mask))
    # one node a position, each evaluated once; every other simulation backed up a known Q
    assert network.rows == search.nodes[0] == len(seen) == 571
    assert network.rows + search.saved[0] == 600
    # the tree's transpositions, by contrast, send a position twice when both orders wait
    tree = photocore.Search([Game.from_position(TURN)], 600, dirichlet_fraction=0,
                            in_flight=8)
    sent = []
    while (batch := tree.ask()) is not None:
        sent += [row.tobytes() for row in batch[0]]
        tree.tell(*network(*batch))
    assert len(sent) - len(set(sent)) == 4


def test_a_cancelled_batch_is_walked_again_the_same_way():
    games = [midgame(seed=1), Game.from_position(TURN)]
    search = photocore.Search(games, 200, seed=3, in_flight=4, graph=True)
    search.run(hashed(2))
    search.advance(search.choose(temperature=0))
    search.simulations = 400
    again = photocore.Search(games, 200, seed=3, in_flight=4, graph=True)
    again.run(hashed(2))
    again.advance(again.choose(temperature=0))
    again.simulations = 400
    assert again.ask() is not None
    again.cancel()
    assert np.array_equal(search.run(hashed(2)), again.run(hashed(2)))
    assert np.array_equal(search.nodes, again.nodes)


def test_the_same_seed_gives_the_same_graph_search():
    games = [midgame(seed=2), midgame(seed=5)]

    def searched(seed):
        search = photocore.Search(games, 120, seed=seed, in_flight=3, graph=True)
        visits = [search.run(hashed(2))]
        for _ in range(3):
            search.advance(search.choose(temperature=1.0))
            visits.append(search.run(hashed(2)))
        return np.stack(visits), search.nodes.tolist(), search.root_values()

    first, again, other = searched(7), searched(7), searched(8)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    assert np.array_equal(first[2], again[2])
    assert not np.array_equal(first[0], other[0])       # root noise and draws from the seed


def test_the_graph_stays_within_max_nodes():
    # a kept graph can hold more positions than its root's visits: past max_nodes the game
    # is searched afresh, never beyond it
    search = photocore.Search([Game.from_position(TURN)], simulations=63, max_nodes=64,
                              graph=True)
    for _ in range(8):
        search.run(uniform(2))
        assert search.nodes[0] <= 64
        search.advance(search.choose(temperature=0))


def test_the_option_and_its_checks():
    assert SearchSettings().graph is False          # the tree, unless a match says otherwise
    assert photocore.Search([Game()]).graph is False
    assert photocore.Search([Game()], graph=True).graph is True
    with pytest.raises(TypeError, match="graph must be True or False"):
        photocore.Search([Game()], graph="yes")
    agent = SearchAgent(uniform(2), graph=True)
    assert agent.settings.graph is True and agent.name == "search:64?graph=1"
    assert SearchAgent(uniform(2), graph=True, prove=True).name == "search:64?graph=1&prove=1"
    assert SearchAgent(uniform(2)).name == "search:64"


def test_graph_false_is_the_tree():
    games = [midgame(seed=4), Game.from_position(TURN)]
    visits = photocore.Search(games, 150, seed=1, in_flight=2).run(hashed(2))
    tree = photocore.Search(games, 150, seed=1, in_flight=2, graph=False)
    assert np.array_equal(tree.run(hashed(2)), visits)
    graph = photocore.Search(games, 150, seed=1, in_flight=2, graph=True)
    assert not np.array_equal(graph.run(hashed(2)), visits)
