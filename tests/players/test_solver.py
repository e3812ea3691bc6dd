"""photocore.solve: exact endgames (docs/searching.md, "Exact endgames"), held to a plain
exhaustive minimax (two players) and max^n (three and four) over the Game API on hundreds
of end positions of real games, with known answers, budgets that run out and bad input."""

import json
import pathlib
import random

import pytest

import photocore
from photocore import Game, Move
from support import COLLECT_THEN_END, END_WINS, ONLY_END, exhaustive, seat_values, started


def end_positions(count, seed, budget=4000, players=2):
    """`count` positions of the last round of games (greedy and random agents, every
    option), each small enough for the exhaustive search, with its answer."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        options = rng.choice(photocore.facts.OPTIONS)
        game = Game(players, options=options)
        agents = [photocore.Agent(rng.choice(["greedy", "random"]), seed=rng.randrange(1 << 30))
                  for _ in range(players)]
        while not game.is_over and game.round < game.last_round:
            game.play(agents[game.current_player].select(game))
        # a position somewhere in the last round: its turns or within one
        while not game.is_over and rng.random() < (0.6 if players == 2 else 0.9):
            game.play(agents[game.current_player].select(game))
        if game.is_over:
            continue
        answer = exhaustive(game.copy(), {}, [budget])
        if answer is not None:
            found.append((game, answer))
    return found


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.slow
def test_the_solver_agrees_with_exhaustive_minimax(seed):
    for game, answer in end_positions(50, seed):
        mover = game.current_player
        solution = photocore.solve(game)
        assert solution.solved
        assert (solution.result, solution.margin) == answer[mover], game.position()
        # every move's own value, and the best are those of the best result
        for move, value in solution.moves.items():
            after = game.copy()
            after.play(move)
            expected = seat_values(after) if after.is_over else exhaustive(after, {}, [10 ** 6])
            assert value == expected[mover], (game.position(), str(move))
        assert solution.best and all(solution.moves[m][0] == answer[mover][0]
                                     for m in solution.best)
        assert solution.moves[solution.best[0]] == answer[mover]
        assert solution.returns == tuple(r for r, _ in answer)


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.slow
def test_three_and_four_players_agree_with_exhaustive_maxn(players):
    for game, answer in end_positions(50, players, budget=3000, players=players):
        mover = game.current_player
        solution = photocore.solve(game)
        assert solution.solved
        assert solution.returns == tuple(r for r, _ in answer), game.position()
        assert (solution.result, solution.margin) == answer[mover]
        after_each = {}
        for move, value in solution.moves.items():
            after = game.copy()
            after.play(move)
            after_each[move] = seat_values(after) if after.is_over else \
                exhaustive(after, {}, [10 ** 6])
            assert value == after_each[move][mover], (game.position(), str(move))
        assert all(solution.moves[m][0] == solution.result for m in solution.best)
        assert solution.moves[solution.best[0]] == answer[mover]
        # the line of best play ends where the answer says
        line = game.copy()
        for move in solution.principal:
            line.play(move)
        assert line.is_over and seat_values(line) == answer


# Three players in their last round (18; player 2 has played, 0 then 1 to move), player 2
# far ahead. Player 0 collects a4 (1-leaf soil) or b4 (2-leaf): a 13 either way, but the
# 1-leaf stack's 13 is the one player 1's g1 would take next, leaving them a 12.
TIE_RULE = ("3 - 18 5 2 0 - a4:0:3,b4:0:3,g1:1:3 4/0000/0000/17.16.16 4/0000/0000/14.14.14.14.13.13 "
            "0/0000/0000/22.21.20.19.18.18.17.17 0025")
# Player 0 at 77 points, player 2 at 90 with a seed on the board, player 1 without light
SHARED = ("3 - 18 5 2 0 - a4:0:3,b4:0:3,g1:1:3,c2:2:0 {light}/1000/0000/17.16.16.14.14 "
          "0/0000/0000/19.18.18.14.13 0/0000/0000/22.21.20.14.13 0225")


def test_known_endings_of_three_players():
    # indifferent (a loss by 90 either way), player 0 leaves the least to player 1
    solution = photocore.solve(Game.from_position(TIE_RULE))
    assert solution.returns == (-0.5, -0.5, 1.0) and solution.margin == (49 + 13) - 152
    assert solution.moves[Move.parse("collect a4")] == solution.moves[Move.parse("collect b4")]
    assert solution.principal == [Move.parse(m) for m in
                                  ("collect a4", "end", "collect g1", "end")]
    # 4 light: a collect of 13 ties player 2 on points and on pieces (a tree left each), a
    # shared win: 3 / (2 * 2) - 1 / 2 = 0.25 each; ending at once loses by 12 (4 light, a point)
    solution = photocore.solve(Game.from_position(SHARED.format(light=4)))
    assert solution.returns == (0.25, -0.5, 0.25) and solution.margin == 0
    assert solution.best == [Move.parse("collect a4"), Move.parse("collect b4")]
    assert solution.moves[Move.parse("end")] == (-0.5, -12)
    # 5 light: a seed planted as well (1 light) wins the tie-break on pieces, 2 to 1
    solution = photocore.solve(Game.from_position(SHARED.format(light=5)))
    assert solution.returns == (1.0, -0.5, -0.5) and solution.margin == 0
    assert solution.moves[Move.parse("end")] == (-0.5, -12)
    line = Game.from_position(SHARED.format(light=5))
    for move in solution.principal:
        line.play(move)
    assert line.is_over and line.scores() == (90, 82, 90) and line.winners() == (0,)


def test_known_endings():
    solution = photocore.solve(Game.from_position(END_WINS))
    assert (solution.result, solution.margin, solution.best) == (1, 1, [Move.parse("end")])
    # 3 light, a point; player 1 has no point and a piece more. Planting a seed spends 1:
    # 0-0 on points, 2-2 on pieces, a shared win; growing b4 to medium spends 2: 0-0 on
    # points, 1-2 on pieces, lost on the tie-break
    assert solution.moves[Move.parse("plant b4 b3")] == (0, 0)
    assert solution.moves[Move.parse("grow b4")] == (-1, 0)
    # collect d4 (19 points, all 4 light) then end wins; ending at once loses, 1 point
    # (4 light) to player 1's 6 (20 light)
    solution = photocore.solve(Game.from_position(COLLECT_THEN_END))
    assert solution.result == 1 and solution.margin == 19 - 6
    assert solution.best == [Move.parse("collect d4")]
    assert solution.moves[Move.parse("end")] == (-1, 1 - 6)
    assert solution.principal == [Move.parse("collect d4"), Move.parse("end")]
    # one move left, and it loses on the tie-break
    solution = photocore.solve(Game.from_position(ONLY_END))
    assert (solution.result, solution.margin) == (-1, 0)
    assert solution.principal == [Move.parse("end")]


def test_a_budget_that_runs_out_gives_no_answer():
    game = Game(2)
    agent = photocore.Agent("greedy", seed=1)
    while game.round < game.last_round - 4:        # far from the end: more than 50 nodes
        game.play(agent.select(game))
    solution = photocore.solve(game, photocore.Limit(nodes=50))
    assert not solution.solved and solution.result is None and solution.best == []
    assert solution.nodes == 51          # the one past the budget stops it
    solution = photocore.solve(game, photocore.Limit(seconds=0.01))
    assert not solution.solved and 0.01 <= solution.seconds < 1


def test_bad_input():
    over = Game.from_position(ONLY_END)
    over.play("end")
    with pytest.raises(ValueError, match="the game is over"):
        photocore.solve(over)
    # the Limit refuses what no budget can be; the solver what it cannot take (one entry)
    for budget in ({"nodes": 0}, {"seconds": 0}, {"seconds": float("nan")}, {"memory": 4},
                   {"nodes": "5"}, {"seconds": True}):
        with pytest.raises(ValueError, match=next(iter(budget))):
            photocore.solve(Game.from_position(END_WINS), photocore.Limit(**budget))
    with pytest.raises(TypeError, match="limit must be a photocore.Limit"):
        photocore.solve(Game.from_position(END_WINS), 5)


# ---- photocore solve -----------------------------------------------------------------------

@pytest.mark.slow
def test_the_command_solves_a_position_or_a_records_position(tmp_path):
    from click.testing import CliRunner

    from photocore import records
    from photocore.cli import main

    run = CliRunner().invoke
    done = run(main, ["solve", COLLECT_THEN_END])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("player 0 to move: win by +13 points under best play")
    assert "best: collect d4\nline: [collect d4] [end]\n" in done.output
    summary = tmp_path / "solution.json"
    done = run(main, ["solve", COLLECT_THEN_END, "--summary", summary])
    assert done.output.startswith("player 0 to move: win by +13 points")  # the text too
    answer = json.loads(summary.read_text())
    assert answer["result"] == 1 and answer["margin"] == 13 and answer["best"] == ["collect d4"]
    assert answer["moves"]["end"] == [-1, -5] and answer["returns"] == [1.0, -1.0]
    # a record's position: a golden game's, a few moves before its end
    golden = pathlib.Path(__file__).resolve().parents[2] / "seeds" / "golden.jsonl"
    line = next(n for n in range(1, 50) if records.read_game(golden, n)["players"] == 2)
    ply = len(records.read_game(golden, line)["moves"]) - 4
    expected = photocore.solve(records.from_record(records.read_game(golden, line), ply))
    done = run(main, ["solve", str(golden), "--game", line, "--ply", ply, "--summary", summary])
    assert done.exit_code == 0, done.output
    assert json.loads(summary.read_text())["best"] == [str(m) for m in expected.best]
    # three players: every seat's return
    done = run(main, ["solve", SHARED.format(light=4)])
    assert done.exit_code == 0, done.output
    assert done.output.startswith("player 0 to move: return +0.25 (returns +0.25, -0.5, "
                                  "+0.25) by +0 points")
    run(main, ["solve", SHARED.format(light=4), "--summary", summary])
    answer = json.loads(summary.read_text())
    assert answer["returns"] == [0.25, -0.5, 0.25] and answer["moves"]["end"] == [-0.5, -12]
    # a budget that runs out: unsolved, exit status 3
    far = Game(2)
    far.play(far.legal_moves()[0])
    done = run(main, ["solve", far.position(), "--nodes", "100"])
    assert done.exit_code == 3 and done.output.startswith("unsolved: the budget ran out")
    # bad input: one clear message each
    done = run(main, ["solve", "2 - 18 5"])
    assert done.exit_code == 2 and "has 11 fields, got 4" in done.output
    done = run(main, ["solve", str(golden), "--game", line, "--ply", ply + 5])
    assert done.exit_code == 2 and f"has {ply + 4} moves" in done.output
    done = run(main, ["solve", COLLECT_THEN_END, "--seconds", "0"])
    assert done.exit_code == 2


@pytest.mark.slow
def test_ctrl_c_stops_the_search_at_once(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    # a position of round 13: far more than the seconds the test waits
    game = Game(2)
    agent = photocore.Agent("greedy", seed=1)
    while game.round < game.last_round - 5:
        game.play(agent.select(game))
    command = [sys.executable, "-m", "photocore", "solve", game.position(), "--seconds", "60"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    # 2 CPU-seconds: past the imports even under the sanitizers (.ci/sanitize) and a loaded
    # machine, where 2 s of wall time need not be
    started(process, 2.0)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - sent < 5
    assert process.returncode == 130 and "interrupted; no answer" in err and out == ""
    # and after a solve in this process Ctrl-C is Python's again (the solver puts back the
    # C handler it replaced; signal.getsignal would not see it); a background job that
    # ignores SIGINT has no Python handler to check
    photocore.solve(Game.from_position(END_WINS))
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)


# ---- mcts:N?prove=1 ------------------------------------------------------------------------

def test_an_agent_with_prove_plays_a_proven_move_in_the_last_round():
    from photocore.play import specs
    from photocore.play._agents import play_games

    game = Game.from_position(COLLECT_THEN_END)      # collect d4 the one best move of 45
    plain = {str(photocore.Agent("mcts", seed, 1).select(game)) for seed in range(20)}
    assert plain == {"buy seed"}            # one playout: the search alone takes the first
    for seed in range(20):
        assert photocore.Agent("mcts", seed, 1, prove=True).select(game) == Move.parse(
            "collect d4")
    # before the last round it is the search alone, move for move
    early = Game(2)
    agent = photocore.Agent("greedy", seed=3)
    while early.round < early.last_round - 3:
        early.play(agent.select(early))
    for seed in range(5):
        assert photocore.Agent("mcts", seed, 50, prove=True).select(early) == \
            photocore.Agent("mcts", seed, 50).select(early)
    # the spec, its label and play_games
    loaded = specs.load("mcts:50?prove=1")
    assert loaded.name == "mcts:50?prove=1" and loaded.prove and not loaded.graph
    assert specs.parse("mcts:50?prove=0").label == "mcts:50"
    with pytest.raises(ValueError, match="prove"):
        specs.parse("mcts:50?prove=maybe").load()
    once = play_games([("mcts", 20, False, True), ("greedy", 1)], 2, None, 7, 0, 4)
    again = play_games([("mcts", 20, False, True), ("greedy", 1)], 2, None, 7, 0, 4)
    assert all((a == b).all() for a, b in zip(once, again))
    assert not all((a.shape == b.shape and (a == b).all()) for a, b in zip(
        once, play_games([("mcts", 20), ("greedy", 1)], 2, None, 7, 0, 4)))


def test_a_search_agent_with_prove_plays_a_proven_win():
    import numpy as np

    from photocore.play._solver import proven_move
    from photocore.play.search import SearchAgent

    def uniform(obs, mask):
        return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)

    game = Game.from_position(COLLECT_THEN_END)
    assert SearchAgent(uniform, 16).select(game) != Move.parse("collect d4")
    agent = SearchAgent(uniform, 16, prove=True)
    assert agent.name == "search:16?prove=1" and agent.select(game) == Move.parse("collect d4")
    # a lost position is searched: every move loses against best play
    assert proven_move(Game.from_position(ONLY_END), 1000) is None
    assert photocore.solve(Game.from_position(ONLY_END)).result == -1
    # and the kept tree follows the proven moves the agent played without it
    game.play("collect d4")
    assert agent.select(game) == Move.parse("end")
    with pytest.raises(TypeError, match="prove must be True or False"):
        SearchAgent(uniform, 16, prove=1)
    with pytest.raises(ValueError, match="nodes"):
        proven_move(game, 0)


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.slow
def test_the_searches_proofs_agree_with_the_solver(players):
    """What ?prove=1 plays is one of solve()'s best moves, given exactly where the mover
    wins or shares the win under best play."""
    from photocore.play._solver import proven_move
    proven = 0
    for game, answer in end_positions(20, 10 + players, budget=2000, players=players):
        solution = photocore.solve(game)
        move = proven_move(game, 10 ** 6)
        # a loss is -1 / (players - 1); anything above it is a win, sole or shared
        assert (move is not None) == (solution.result > -1 / (players - 1)), game.position()
        if move is not None:
            proven += 1
            assert move in solution.best and solution.moves[move] == answer[
                game.current_player], (game.position(), str(move))
    assert 2 <= proven <= 18            # both kinds of position were met
