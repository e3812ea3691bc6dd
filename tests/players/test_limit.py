"""One budget value (photocore.Limit): checked where it is made, and taken by every kind of
player's select(game, limit) (built-in agents, SearchAgent, a py: agent whose select takes
it, a cmd: engine), by the solver, the analysis, the hints and `photocore match`."""

import json
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import photocore
from photocore import Agent, Game, Limit, analysis
from photocore.cli import main
from photocore.play import specs
from photocore.play._agents import MAX_SIMULATIONS
from photocore.play.protocol import Engine
from photocore.play.search import SearchAgent
from photocore.run.match import Match

ENGINE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "simple_engine.py"
# an agent that plays its first legal move and fails (a forfeit) unless each move comes
# with the limit `photocore match --seconds 0.02` gives
LIMITED = """
import photocore

class Limited:
    name = "limited"

    def select(self, game, limit=None):
        if limit != photocore.Limit(seconds=0.02):
            raise ValueError(f"got {limit!r}")
        return game.legal_moves()[0]
"""


def positions(count=4, seed=1):
    """Positions of a game between greedy agents, a few moves apart, with choices."""
    game, agent, found = Game(), Agent("greedy", seed=seed), []
    while len(found) < count:
        for _ in range(7):
            game.play(agent.select(game))
        if len(game.legal_moves()) > 3:
            found.append(game.copy())
    return found


# ---- the value ---------------------------------------------------------------------------

@pytest.mark.parametrize("field", ["simulations", "nodes", "seconds", "memory"])
@pytest.mark.parametrize("value", [-1, 0, float("nan"), True, "5", float("inf")])
def test_a_bad_field_is_a_value_error_naming_it(field, value):
    if field != "seconds" and value == float("inf"):
        value = 2.5                    # counts are whole numbers
    with pytest.raises(ValueError, match=f"^Limit {field} must be "):
        Limit(**{field: value})


def test_a_limit_is_a_small_frozen_value_with_a_readable_repr():
    limit = Limit(simulations=np.int64(200), seconds=1)
    assert repr(limit) == "Limit(simulations=200, seconds=1.0)" and repr(Limit()) == "Limit()"
    assert type(limit.simulations) is int and limit.nodes is None and limit.memory is None
    assert limit == Limit(200, seconds=1.0) and hash(limit) == hash(Limit(200, seconds=1.0))
    with pytest.raises(AttributeError):
        limit.seconds = 2          # type: ignore[misc]
    assert photocore.Limit is Limit and "Limit" in photocore.__all__
    with pytest.raises(TypeError, match="limit must be a photocore.Limit"):
        Agent("mcts").select(Game(), 100)      # type: ignore[arg-type]


# ---- every kind of player ------------------------------------------------------------------

@pytest.mark.parametrize("graph", [False, True])
def test_mcts_searches_the_limits_simulations_instead_of_its_own(graph):
    """A search is seeded: its move with Limit(simulations=N) is mcts:N's, move for move."""
    differs = False
    for k, game in enumerate(positions()):
        limited = Agent("mcts", k, 7, graph=graph).select(game, Limit(simulations=60))
        assert limited == Agent("mcts", k, 60, graph=graph).select(game)
        differs |= limited != Agent("mcts", k, 7, graph=graph).select(game)
    assert differs, "7 and 60 simulations chose alike everywhere: the test shows nothing"


@pytest.mark.parametrize("graph", [False, True])
def test_mcts_stops_at_the_limits_seconds(graph):
    agent = Agent("mcts", 1, MAX_SIMULATIONS, graph=graph)  # minutes a move without a clock
    game = positions(1)[0]
    start = time.monotonic()
    move = agent.select(game, Limit(seconds=0.05))
    assert time.monotonic() - start < 5 and move in game.legal_moves()
    with pytest.raises(ValueError, match="limit simulations must be from 1 to"):
        agent.select(game, Limit(simulations=MAX_SIMULATIONS + 1))


def test_agents_without_a_budget_take_a_limit_and_play_as_without():
    for kind in ("random", "greedy"):
        for game in positions(2):
            assert (Agent(kind, 3).select(game, Limit(simulations=5, seconds=1e-9))
                    == Agent(kind, 3).select(game))


def counting(calls):
    def uniform(obs, mask):
        calls.append(len(obs))
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)
    return uniform


def test_a_search_agent_searches_the_limits_simulations_and_stops_at_its_seconds():
    rows: list[int] = []
    agent = SearchAgent(counting(rows), simulations=500, seed=1)
    game = positions(1)[0]
    agent.select(game, Limit(simulations=20))
    assert 10 <= sum(rows) <= 20, rows          # a leaf evaluated per simulation, at most
    rows.clear()
    agent.reset()
    agent.select(game)
    assert sum(rows) > 100, rows                # its own 500 again

    def slow(obs, mask):
        time.sleep(0.01)
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)
    agent = SearchAgent(slow, simulations=60_000, seed=1)    # a minute at least unbounded
    start = time.monotonic()
    assert agent.select(game, Limit(seconds=0.05)) in game.legal_moves()
    assert time.monotonic() - start < 5


def test_a_python_agent_gets_the_limit_when_its_select_takes_one(tmp_path):
    path = tmp_path / "agents.py"
    path.write_text("class Taking:\n"
                    "    def __init__(self):\n        self.limits = []\n"
                    "    def select(self, game, limit=None):\n"
                    "        self.limits.append(limit)\n        return game.legal_moves()[0]\n"
                    "class Plain:\n"
                    "    def select(self, game):\n        return game.legal_moves()[-1]\n")
    taking, plain = specs.load(f"py:{path}:Taking"), specs.load(f"py:{path}:Plain")
    game = Game()
    assert taking.select(game, Limit(seconds=0.5)) == game.legal_moves()[0]
    taking.select(game)
    assert taking.agent.limits == [Limit(seconds=0.5), None]    # type: ignore[attr-defined]
    assert plain.select(game, Limit(seconds=0.5)) == game.legal_moves()[-1]


def test_an_engine_is_told_the_limits_seconds_as_its_move_time():
    said: list[str] = []
    engine = Engine([sys.executable, str(ENGINE)], transcript=said.append)
    try:
        game = Game()
        for limit, told in ((Limit(seconds=0.05), "> go movetime=50"),
                            (Limit(simulations=9), "> go movetime=1000"),
                            (None, "> go movetime=1000")):
            assert engine.select(game, limit) in game.legal_moves()
            assert [line for line in said if line.startswith("> go")][-1] == told
    finally:
        engine.close()


def test_the_solver_and_the_analysis_take_a_limit():
    game = positions(1)[0]
    solution = photocore.solve(game, Limit(nodes=50, simulations=3))
    assert not solution.solved and solution.nodes == 51
    assert analysis.judge("mcts:300", Limit(simulations=40)).name == "mcts:40"
    done = photocore.analyze(positions(1)[0], "mcts:300", Limit(simulations=30),
                             exact=False)
    assert done.judge == "mcts:30"
    found = photocore.play.hints.hint(Game(), top=1, limit=Limit(simulations=50))
    assert sum(h.playouts for h in found) <= 50


# ---- matches ----------------------------------------------------------------------------

def test_a_match_at_equal_time_between_a_python_agent_and_mcts(tmp_path):
    (tmp_path / "limited.py").write_text(LIMITED)
    plan = Match([f"py:{tmp_path / 'limited.py'}:Limited", f"mcts:{MAX_SIMULATIONS}"],
                 games=2, limit=Limit(seconds=0.02))
    batch = plan.batch(0, 2)
    for outcome in batch.outcomes:
        assert outcome.forfeit is None, outcome.reason   # the agent got its limit
        mcts = outcome.seats.index(1)
        # mcts:10,000,000 would take minutes a move: each took about 0.02 s
        assert outcome.seconds[mcts] / outcome.choices[mcts] < 1.0


def test_match_gives_python_agents_and_engines_its_seconds(tmp_path):
    (tmp_path / "limited.py").write_text(LIMITED)
    engine = f'cmd:"{sys.executable} {ENGINE}"'
    result = CliRunner().invoke(main, [
        "match", "--agents", f"py:{tmp_path / 'limited.py'}:Limited,{engine}",
        "--games", "2", "--workers", "1", "--seconds", "0.02", "--no-progress"])
    assert result.exit_code == 0 and "ties; no forfeits" in result.output, result.output
    result = CliRunner().invoke(main, ["match", "--agents", "random,greedy", "--seconds", "0"])
    assert result.exit_code == 2 and "Invalid value for '--seconds'" in result.output


def test_a_matchs_simulations_replace_every_agents_own():
    """Seeded searches: mcts:2 and mcts:3 given 30 simulations play mcts:30's games."""
    def moves(agents, limit=None):
        batch = Match(agents, games=2, seed=5, limit=limit).batch(0, 2)
        return [json.loads(line)["moves"] for line in batch.lines]
    limited = moves(["mcts:2", "mcts:3"], Limit(simulations=30))
    assert limited == moves(["mcts:30", "mcts:30?graph=0"])
    assert limited != moves(["mcts:2", "mcts:3"])


def test_the_own_search_example_keeps_to_a_limit():
    """examples/own_search/uct.py, a py: agent whose select takes a limit."""
    uct = ENGINE.parent.parent / "own_search" / "uct.py"
    game = positions(1)[0]
    many = specs.load(f"py:{uct}:UCT?simulations=10000000")     # hours a move unbounded
    start = time.monotonic()
    assert many.select(game, Limit(seconds=0.05)) in game.legal_moves()
    assert time.monotonic() - start < 5
    exact = specs.load(f"py:{uct}:UCT?simulations=30")
    for player in (many, exact):
        player.reset(seed=4)
    assert many.select(game, Limit(simulations=30)) == exact.select(game)


def test_a_matchs_records_hold_its_limit_and_resume_checks_it(tmp_path):
    out = tmp_path / "m.jsonl"
    run = CliRunner().invoke
    args = ["match", "--agents", "mcts:3,greedy", "--games", "2", "--workers", "1",
            "--out", str(out), "--no-progress"]
    assert run(main, [*args, "--simulations", "20"]).exit_code == 0
    with open(out) as lines:
        assert [json.loads(line)["metadata"]["limit"] for line in lines] == [
            {"simulations": 20}] * 2
    result = run(main, [*args, "--simulations", "20", "--seconds", "1", "--games", "4",
                        "--resume"])
    assert result.exit_code == 1 and "(set by --seconds and --simulations)" in result.output
