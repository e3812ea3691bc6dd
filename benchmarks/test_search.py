"""photocore.Search: its own cost, the same search in OpenSpiel's Python MCTSBot, and the
example's network.

    pytest benchmarks/test_search.py -s --benchmark-enable

Positions: 2-player games 10-120 uniformly random moves in, not over, with at least 2 legal
moves (photocore.bench.mid_game_positions' recipe, two players so that one Search holds them
all). The constant evaluator is numpy: uniform logits and zero values for every row, arrays
made once. Simulation counts are root visits; one thread.
"""

import pathlib
import random
import sys
import time

import numpy as np
import pytest

import photocore

ROOT = pathlib.Path(__file__).resolve().parent.parent


def positions(count, seed=3):
    rng = random.Random(seed)
    games = []
    while len(games) < count:
        game = photocore.Game(players=2)
        for _ in range(rng.randrange(10, 120)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if not game.is_over and len(game.legal_moves()) >= 2:
            games.append(game)
    return games


class Constant:
    """evaluate(obs, mask) -> uniform logits and zero values, from arrays made once."""

    def __init__(self, rows, players=2):
        self.logits = np.zeros((rows, photocore.NUM_ACTIONS), np.float32)
        self.values = np.zeros((rows, players), np.float32)

    def __call__(self, obs, mask):
        return self.logits[:len(obs)], self.values[:len(obs)]


def cpu_best(call, rounds):
    """(the least CPU time of `rounds` calls, the value of the first)."""
    best, first = float("inf"), None
    for k in range(rounds):
        start = time.process_time()
        value = call()
        best = min(best, time.process_time() - start)
        first = value if k == 0 else first
    return best, first


def search_visits(games, simulations, in_flight=1, evaluate=None):
    search = photocore.Search(games, simulations=simulations, seed=0, in_flight=in_flight)
    return search.run(evaluate or Constant(len(games) * in_flight))


def check_visits(games, visits, simulations):
    assert visits.sum(axis=1).tolist() == [simulations - 1] * len(games)
    for game, row in zip(games, visits):
        assert set(np.flatnonzero(row)) <= set(game.legal_moves().ids())


@pytest.mark.benchmark(group="search")
@pytest.mark.parametrize("in_flight", [1, 4])
def test_search_simulations(timed, report, in_flight):
    games = positions(256)
    seconds, first, last = timed(lambda: search_visits(games, 100, in_flight), rounds=5)
    check_visits(games, first, 100)
    assert np.array_equal(first, last)           # the same seed, the same search
    cpu, _ = cpu_best(lambda: search_visits(games, 100, in_flight), 5)
    report(f"search/256 games x 100 simulations, in_flight={in_flight}: "
           f"{256 * 100 / seconds:,.0f} simulations/s ({256 * 100 / cpu:,.0f} per CPU second)\n"
           "    photocore.Search.run, observations and masks included, constant numpy "
           "evaluator, 2 players, one thread")


class SpielEvaluator:
    """OpenSpiel's Evaluator around the same numpy evaluator: one state a call, its
    observation and mask built as photocore.Search builds them for a batch. MCTSBot asks
    for a leaf's value and, when it expands it later, for its priors: one evaluation
    serves both (a cache by observation, as OpenSpiel's AlphaZero evaluator keeps one)."""

    def __init__(self, evaluate):
        self.evaluate_batch = evaluate
        self.cache = {}

    def _ask(self, state):
        obs = np.asarray(state.observation_tensor(), np.float32)[None]
        key = obs.tobytes()
        if key not in self.cache:
            mask = np.zeros((1, photocore.NUM_ACTIONS), np.bool_)
            mask[0, state.legal_actions()] = True
            self.cache[key] = self.evaluate_batch(obs, mask)
        return self.cache[key]

    def evaluate(self, state):
        return np.asarray(self._ask(state)[1][0], np.float64)

    def prior(self, state):
        logits = self._ask(state)[0][0]
        legal = state.legal_actions()
        p = np.exp(logits[legal] - logits[legal].max())
        p /= p.sum()
        return list(zip(legal, p.tolist()))


@pytest.mark.benchmark(group="search")
def test_search_against_openspiel_mctsbot(timed, report):
    pyspiel = pytest.importorskip("pyspiel")
    mcts = pytest.importorskip("open_spiel.python.algorithms.mcts")
    import photocore.env.openspiel  # noqa: F401  (registers python_photosynthesis)

    games = positions(256)
    spiel_game = pyspiel.load_game("python_photosynthesis")
    spiel_positions = games[:32]          # OpenSpiel takes ~0.1 ms a simulation
    states = []
    for game in spiel_positions:
        state = spiel_game.new_initial_state()
        for move in game.history:
            state.apply_action(int(move))
        states.append(state)
    evaluator = SpielEvaluator(Constant(1))
    bot = mcts.MCTSBot(spiel_game, uct_c=1.25, max_simulations=100, evaluator=evaluator,
                       solve=False, random_state=np.random.RandomState(0),
                       child_selection_fn=mcts.SearchNode.puct_value)

    def spiel():
        evaluator.cache.clear()
        roots = [bot.mcts_search(state) for state in states]
        return [{c.action: c.explore_count for c in root.children} for root in roots]

    # CPU time, the best of a few runs each: on a busy machine the two wait differently
    spiel_seconds, spiel_visits = cpu_best(spiel, 3)
    ours_seconds, visits = cpu_best(lambda: search_visits(games, 100), 5)
    timed(lambda: search_visits(games, 100), rounds=1)       # for pytest-benchmark's table
    check_visits(games, visits, 100)
    for game, root in zip(spiel_positions, spiel_visits):
        assert sum(root.values()) == 99 and set(root) <= set(game.legal_moves().ids())
    spiel_rate = len(states) * 100 / spiel_seconds
    ours_rate = 256 * 100 / ours_seconds
    report(f"search vs OpenSpiel MCTSBot: {ours_rate / spiel_rate:,.0f} x faster per simulation "
           f"({ours_rate:,.0f} vs {spiel_rate:,.0f} simulations per CPU second)\n"
           "    100 simulations a position, PUCT (c 1.25), the same constant numpy evaluator;"
           f" photocore.Search over 256 positions at once, MCTSBot (open_spiel.python."
           f"algorithms.mcts, python_photosynthesis) over {len(states)} of them, one at a time")
    assert ours_rate > spiel_rate


@pytest.mark.benchmark(group="search")
def test_search_with_the_example_network(timed, report):
    pytest.importorskip("torch")
    import torch
    sys.path.insert(0, str(ROOT / "examples" / "alphazero"))
    from net import Evaluator, Net

    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        games = positions(256)
        evaluator = Evaluator(Net(players=2, hidden=256).eval())

        def run():
            evaluator.seconds = 0.0
            start = time.perf_counter()
            visits = search_visits(games, 64, evaluate=evaluator)
            return visits, evaluator.seconds / (time.perf_counter() - start)

        seconds, (visits, share), _ = timed(run, rounds=3)
        check_visits(games, visits, 64)
    finally:
        torch.set_num_threads(threads)
    report(f"search with the example's network: {256 * 64 / seconds:,.0f} simulations/s, "
           f"{share:.0%} of the time in the network\n"
           "    256 positions x 64 simulations, examples/alphazero/net.py (MLP 798-256-256, "
           "heads 890 + 2), PyTorch on one thread, batches of up to 256 rows")
