"""Budgets and seeds (docs/hardening.md, "Budgets and seeds"): every budget of the API and
of every command is refused in one line (or clamped, as documented) when out of range, never
an overflow, a hang or memory spent before any game; a run's memory does not grow with its
games; one rule of seeds everywhere; a bool is never an action id."""

import os
import signal
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import pytest
from click.testing import CliRunner

import photocore
from photocore import Agent, Game, Move, VecGame, analysis
from photocore.cli import main
from photocore.cli.options import SeedType
from photocore.env._vec import draw_below, stream_seed
from photocore.facts import MAX_GAME_MOVES, SEEDS, check_seed
from photocore.play import hints
from photocore.play._solver import MACHINE_MEMORY, MAX_NODES, proven_move
from photocore.play.player import Forfeit, as_move
from photocore.play.search import SearchAgent

HUGE = "99999999999999999999999"
ENGINE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "engines", "simple_engine.py")
# a 2-player position whose last move is to be chosen (round 18)
END_WINS = "2 - 18 5 1 0 - a4:1:1,a5:1:1,b4:0:1 3/1110/2220/- 0/2200/4432/- 0579"


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_usage_error(result, option):
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert lines[-1].startswith(f"Error: Invalid value for {option}"), result.output
    assert "Traceback" not in result.output
    return lines[-1]


def uniform(obs, mask):
    return np.zeros(mask.shape, np.float32), np.zeros((len(obs), 2), np.float32)


# ---- seeds ---------------------------------------------------------------------------------

def test_a_seed_is_any_integer_taken_modulo_2_to_the_64():
    assert SEEDS == 2**64
    assert check_seed(7) == 7 and check_seed(np.int64(7)) == 7 and check_seed(np.uint64(7)) == 7
    assert check_seed(-1) == 2**64 - 1 and check_seed(2**64 + 3) == 3 and check_seed(-2**70) == 0
    for bad in (True, np.bool_(True), 1.5, "3", None, [1]):
        with pytest.raises(TypeError, match="seed must be an integer"):
            check_seed(bad)


def _vec_actions(seed):
    vec = VecGame(4)
    vec.reset(seed=seed)
    return vec.random_actions().tolist()


def _vec_seeds(seed):
    vec = VecGame(3, opponents="random")
    vec.reset(seeds=[seed, None, seed])
    return vec.random_actions().tolist()


def _match_lines(seed):
    from photocore.run.match import Match
    return Match(["random", "greedy"], 2, seed=seed).batch(0, 2).lines


def _selfplay_lines(seed):
    from photocore.run.selfplay import Series
    return Series(2, agents=["random", "mcts:5"], seed=seed).batch(0, 2).lines


def _play_games(seed):
    from photocore.play import play_games
    moves, offsets = play_games([("random", 1), ("greedy", 1)], 2, None, seed, 0, 2)
    return moves.tolist(), offsets.tolist()


def _analysis(seed):
    game = Game.from_position(END_WINS)
    return analysis.evaluate_position(game, "mcts:20", seed=seed, exact=False), \
        analysis.analyze(Game(), "mcts:5", seed=seed, exact=False).seed


def _gym(seed):
    gymnasium = pytest.importorskip("gymnasium")
    from photocore.env.gym import PhotosynthesisEnv
    del gymnasium
    env = PhotosynthesisEnv(opponents="mcts:5", seat="random")
    obs, info = env.reset(seed=seed)
    return obs.tolist(), info["seat"], env.step(env.game.legal_moves()[0].id)[0].tolist()


SEEDED = {
    "random_playouts": lambda seed: photocore.random_playouts(5, seed=seed),
    "Agent": lambda seed: [Agent("mcts", seed=seed, simulations=30).select(Game())
                           for _ in range(3)],
    "Agent.reset": lambda seed: (lambda a: (a.reset(seed), a.select(Game())))(Agent("random"))[1],
    "VecGame.reset(seed)": _vec_actions,
    "VecGame.reset(seeds)": _vec_seeds,
    "Search": lambda seed: photocore.Search([Game()], 8, seed=seed, dirichlet_fraction=0.5)
    .run(uniform).tolist(),
    "SearchAgent": lambda seed: SearchAgent(uniform, simulations=8, seed=seed,
                                            temperature=1.0).select(Game()),
    "hint": lambda seed: hints.hint(Game(), limit=photocore.Limit(simulations=40), seed=seed),
    "stream_seed": lambda seed: stream_seed(seed, 3),
    "draw_below": lambda seed: draw_below(seed, 4),
    "play_games": _play_games,
    "Series": _selfplay_lines,
    "Match": _match_lines,
    "analysis": _analysis,
    "gym": _gym,
}


@pytest.mark.parametrize("name", sorted(SEEDED))
def test_every_seed_of_the_api_follows_the_one_rule(name):
    """Every function and class that takes a seed takes any integer, modulo 2**64 (what it
    stores, records and derives from is the reduced seed), and refuses anything else with
    a TypeError naming it."""
    seeded = SEEDED[name]
    assert seeded(-1) == seeded(2**64 - 1)
    assert seeded(5) == seeded(5 + 2**64) == seeded(np.int64(5))
    for bad in (True, 2.0, "5"):
        with pytest.raises(TypeError, match="must be an integer"):
            seeded(bad)


def test_what_a_run_records_is_the_reduced_seed(tmp_path):
    from photocore.run.match import Match
    from photocore.run.selfplay import Series
    assert Series(1, seed=-1).seed == Match(["random", "greedy"], seed=-1).seed == 2**64 - 1
    assert SearchAgent(uniform, simulations=4, seed=-2).seed == 2**64 - 2


def test_every_command_takes_its_seed_by_the_one_rule():
    """One parameter type for every --seed: a command with another would parse seeds its own
    way."""
    seeds = {f"{name} {param.name}": param.type for name, command in main.commands.items()
             for param in command.params if param.name == "seed"}
    assert {"selfplay seed", "match seed", "tournament seed", "analyze seed", "playouts seed",
            "play seed", "solve seed"} <= set(seeds)
    assert all(isinstance(kind, SeedType) for kind in seeds.values()), seeds
    for name in seeds:
        help_text = " ".join(cli(name.split()[0], "--help").output.split())
        assert "any integer, taken modulo 2**64" in help_text, name


@pytest.mark.parametrize("command", ["selfplay", "match"])
@pytest.mark.slow
def test_a_negative_or_huge_seed_is_the_seed_modulo_2_to_the_64(tmp_path, command):
    def run(seed, name):
        out = tmp_path / name
        args = (["selfplay", "--games", 3, "--agents", "greedy,random"] if command == "selfplay"
                else ["match", "--agents", "greedy,random", "--games", 2])
        result = cli(*args, "--seed", seed, "--workers", 1, "--no-progress", "--out", out)
        assert result.exit_code == 0, result.output
        return out.read_bytes()
    minus_one = run(-1, "a.jsonl")
    assert minus_one == run(2**64 - 1, "b.jsonl") != run(0, "c.jsonl")
    assert b'"seed":18446744073709551615' in minus_one
    assert run(2**64 + 7, "d.jsonl") == run(7, "e.jsonl")
    for bad in ("1.5", "x", "1e3"):
        error = one_line_usage_error(cli(command, "--seed", bad), "'--seed'")
        assert "is not a valid seed" in error


def test_playouts_and_the_server_take_seeds_by_the_same_rule():
    said = cli("playouts", "--games", 5, "--seed", -1).output
    assert said.startswith(f"5 random games, 2 players, seed {2**64 - 1}: ")
    assert said.split(" in ")[0] == cli("playouts", "--games", 5, "--seed", 2**64 - 1
                                        ).output.split(" in ")[0]
    pytest.importorskip("pydantic")
    from photocore.serve.models import NewGame
    assert NewGame.model_validate({"seed": -1}).seed == 2**64 - 1
    assert NewGame.model_validate({"seed": 2**64 + 1}).seed == 1
    assert NewGame.model_validate({}).seed is None
    with pytest.raises(ValueError):
        NewGame.model_validate({"seed": True})


# ---- budgets -------------------------------------------------------------------------------

def _more_than_this_machine():
    return str((MACHINE_MEMORY >> 20) + 1) if MACHINE_MEMORY else "8796093022208"


BUDGETS = {
    "solve --nodes": (["solve", END_WINS, "--nodes", HUGE], "'--nodes'"),
    "solve --memory": (["solve", END_WINS, "--memory", "8796093022208"], "--memory"),
    "solve --memory past the machine": (["solve", END_WINS, "--memory", _more_than_this_machine()],
                                        "--memory"),
    "analyze --nodes": (["analyze", "GAMES", "--nodes", HUGE, "--out", "OUT"], "'--nodes'"),
    "analyze --workers": (["analyze", "GAMES", "--workers", HUGE, "--out", "OUT"],
                          "'--workers'"),
    "selfplay --games": (["selfplay", "--games", HUGE, "--out", "OUT"], "'--games'"),
    "selfplay --workers": (["selfplay", "--workers", HUGE, "--out", "OUT"], "'--workers'"),
    "selfplay --batch": (["selfplay", "--batch", HUGE, "--out", "OUT"], "'--batch'"),
    "match --games": (["match", "--agents", "random,greedy", "--games", HUGE], "'--games'"),
    "match --workers": (["match", "--agents", "random,greedy", "--workers", HUGE],
                        "'--workers'"),
    "match --seconds": (["match", "--agents", "random,greedy", "--seconds", "1e308"],
                        "'--seconds'"),
    "match --simulations": (["match", "--agents", "random,greedy", "--simulations", HUGE],
                            "'--simulations'"),
    "match --grace": (["match", "--agents", "random,greedy", "--grace", HUGE], "'--grace'"),
    "match --max-forfeits": (["match", "--agents", "random,greedy", "--max-forfeits", HUGE],
                             "'--max-forfeits'"),
    "tournament --games-per-group": (["tournament", "--agents", "random,greedy,mcts:2",
                                      "--games-per-group", 2**63 - 1], "--agents"),
    "playouts --games": (["playouts", "--games", HUGE], "'--games'"),
    "selfplay --connect-timeout": (["selfplay", "--backend", "ray", "--connect-timeout", "1e308",
                                    "--out", "OUT"], "'--connect-timeout'"),
    "serve --expire": (["serve", "--expire", "1e308"], "'--expire'"),
    "match cmd:?startup": (["match", "--agents",
                            f'random,cmd:"{sys.executable} {ENGINE}"?startup=1e308'],
                           "--agents"),
}


@pytest.mark.parametrize("name", sorted(BUDGETS))
@pytest.mark.slow
def test_every_budget_of_every_command_is_refused_in_one_line(tmp_path, name):
    """In a process of its own, with a hang guard: a budget that overflowed would hang (the
    solver's table sizing looped for ever) or fail inside a worker."""
    args, option = BUDGETS[name]
    golden = os.path.join(os.path.dirname(__file__), "..", "..", "seeds", "golden.jsonl")
    args = [golden if a == "GAMES" else str(tmp_path / "o.jsonl") if a == "OUT" else str(a)
            for a in args]
    try:
        done = subprocess.run([sys.executable, "-m", "photocore", *args], capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"photocore {' '.join(args)} did not answer within 60 s")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and lines[-1].startswith(f"Error: Invalid value for {option}"), \
        done.stderr
    assert "Traceback" not in done.stderr and not os.path.exists(tmp_path / "o.jsonl")


def test_the_budgets_are_said_in_the_help():
    assert "at most this machine's memory" in " ".join(cli("solve", "--help").output.split())
    for command, option in (("selfplay", "--batch"), ("selfplay", "--workers"),
                            ("match", "--simulations"), ("analyze", "--nodes")):
        text = cli(command, "--help").output
        said = text[text.index(f"  {option} "):]
        said = said[:said.index("\n  --")]
        # a count up to a long long's 2**63 - 1 says no upper bound, which no one reaches
        assert ("[x>=1]" if (command, option) == ("analyze", "--nodes") else "<=x<=") in said, \
            (command, option)
    huge = cli("analyze", "--nodes", 2**63, "--serve").output
    assert f"{2**63} is more than {2**63 - 1:,}" in huge


def test_the_solver_refuses_a_budget_out_of_range_at_once():
    """photocore.solve(game, memory=2**64) sized its table in a loop that overflowed and
    never ended, holding the GIL (no Ctrl-C): in a process of its own, with a hang guard."""
    script = ("import photocore\n"
              f"game = photocore.Game.from_position({END_WINS!r})\n"
              "for budget in ({'memory': 2**64}, {'memory': 2**63}, {'nodes': 10**30},"
              " {'nodes': 2**63}):\n"
              "    try:\n"
              "        photocore.solve(game, photocore.Limit(seconds=1, **budget))\n"
              "    except ValueError as e:\n"
              "        print(e)\n")
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("photocore.solve with a huge budget did not answer within 60 s")
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 4, done.stdout + done.stderr
    assert all(line.startswith("memory must be a whole number from ") for line in lines[:2])
    assert all(line.startswith("nodes must be a whole number from 1 to ") for line in lines[2:])
    game = Game.from_position(END_WINS)
    assert photocore.solve(game, photocore.Limit(nodes=MAX_NODES)).solved
    with pytest.raises(ValueError, match="nodes"):
        proven_move(game, MAX_NODES + 1)
    with pytest.raises(ValueError, match="nodes: the positions"):
        photocore.analyze(game, "mcts:5", photocore.Limit(nodes=MAX_NODES + 1))


def test_a_table_the_system_refuses_is_one_line(monkeypatch):
    def refuse(*args, **kwargs):
        raise MemoryError("no memory for a table of 1,073,741,824 bytes")
    monkeypatch.setattr(photocore.play._solver, "solve", refuse)
    result = cli("solve", END_WINS, "--memory", 1024)
    assert result.exit_code == 1 and result.output.strip().splitlines() == [
        "Error: no memory for a table of 1,073,741,824 bytes (--memory 1,024): ask for less"]


@pytest.mark.slow
def test_ctrl_c_stops_a_solve_with_a_table_of_most_of_the_memory():
    if MACHINE_MEMORY is None:
        pytest.skip("the machine's memory is not known")
    game = Game(2)
    agent = Agent("greedy", seed=1)
    while game.round < game.last_round - 5:
        game.play(agent.select(game))
    mib = (MACHINE_MEMORY >> 20) * 3 // 4
    process = subprocess.Popen([sys.executable, "-m", "photocore", "solve", game.position(),
                                "--seconds", "60", "--memory", str(mib)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert time.monotonic() - sent < 5
    assert process.returncode == 130 and "interrupted; no answer" in err and out == ""


def test_the_api_budgets_are_checked_where_they_are_given():
    from photocore.env.evaluation import evaluate_policy
    from photocore.play import play_games
    from photocore.play.protocol import Engine
    from photocore.play.specs import parse
    from photocore.run.driver import MAX_BATCH, MAX_WORKERS, batches
    from photocore.run.match import Match
    from photocore.run.ray_backend import connect
    from photocore.run.selfplay import Series
    for make, words in (
            (lambda: Engine(["true"]).select(Game(), photocore.Limit(seconds=10**30)),
             "limit seconds must be at most 86,400"),
            (lambda: Engine(["true"], grace=-1), "grace must be from 0 to"),
            (lambda: Engine(["true"], startup=float("inf")), "startup must be"),
            (lambda: parse('cmd:"true"?startup=1e308'), "startup must be"),
            (lambda: Match(["random", "greedy"], limit=photocore.Limit(seconds=2**64)),
             "limit seconds"),
            (lambda: Match(["random", "greedy"], limit=photocore.Limit(simulations=2**64)),
             "limit simulations"),
            (lambda: Match(["random", "greedy"], games=2**63), "games"),
            (lambda: Series(2**63), "games must be from 0 to 2\\*\\*63 - 1"),
            (lambda: next(batches(Series(2), workers=MAX_WORKERS + 1)), "workers must be"),
            (lambda: next(batches(Series(2), batch=MAX_BATCH + 1)), "batch must be"),
            (lambda: play_games([("random", 1)] * 5, 5, None, 0, 0, 1), "players must be"),
            (lambda: play_games([("random", 1)] * 2, 2, "x", 0, 0, 1), "options 'x'"),
            (lambda: play_games([("random", 1)] * 2, 2, None, 0, 2**63 - 1, 1),
             "start \\+ count must be"),
            (lambda: play_games([("random", 1)] * 2, 2, None, 0, 0, -1), "count must be"),
            (lambda: Game().perft(-1), "depth must be >= 0"),
            (lambda: connect("127.0.0.1:1", 1e308), "timeout must be a number of seconds"),
            (lambda: evaluate_policy(lambda obs, mask: mask.argmax(axis=1), "random",
                                     batch=(1 << 24) + 1), "batch must be a whole number from")):
        with pytest.raises(ValueError, match=words):
            make()
    # a perft depth past the longest game counts to the end (no C int overflow)
    end = Game.from_position(END_WINS)
    assert end.perft(10**30) == end.perft(MAX_GAME_MOVES) == end.perft(40)


# ---- plans are lazy --------------------------------------------------------------------------

def test_a_plan_of_many_games_makes_its_batches_as_they_are_played():
    from photocore.run.driver import Schedule, batches
    from photocore.run.selfplay import Series
    schedule = Schedule(10**12, 512, skip=3)
    assert len(schedule) == -(-(10**12 - 3) // 512) and schedule[0] == (3, 512)
    assert schedule[-1] == (10**12 - 1 - (10**12 - 4) % 512, (10**12 - 4) % 512 + 1)
    tracemalloc.start()
    try:
        with tracemalloc_peak() as peak:
            played = batches(Series(2_000_000, agents=["random"]), workers=0, batch=1)
            first = next(played)
            played.close()
    finally:
        tracemalloc.stop()
    assert first.start == 0 and len(first.result.lines) == 1
    assert peak() < 4 << 20, f"{peak():,} bytes for the first batch of 2,000,000"


class tracemalloc_peak:
    def __enter__(self):
        tracemalloc.reset_peak()
        return lambda: self.peak

    def __exit__(self, *exc):
        self.peak = tracemalloc.get_traced_memory()[1]


def _rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) << 10 for line in f if line.startswith("VmRSS:"))


@pytest.mark.parametrize("command", ["selfplay", "match"])
@pytest.mark.slow
def test_a_huge_games_count_plays_at_once_in_flat_memory(tmp_path, command):
    """--games 10**12: the first games come out while the command's memory stays small
    (a list of every batch grew past 2 GB before any game). Stopped by Ctrl-C."""
    if not os.path.exists(f"/proc/{os.getpid()}/status"):
        pytest.skip("no /proc to read a process's memory")
    out = tmp_path / "g.jsonl"
    args = (["selfplay", "--games", 10**12, "--agents", "greedy"] if command == "selfplay"
            else ["match", "--agents", "random,greedy", "--games", 10**12])
    process = subprocess.Popen([sys.executable, "-m", "photocore", *map(str, args),
                                "--workers", "1", "--no-progress", "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    limit = 600 << 20
    try:
        start, most = time.monotonic(), 0
        while time.monotonic() - start < 60:
            most = max(most, _rss(process.pid))
            assert most < limit, f"{most:,} bytes before {out.name} held 4 games"
            if out.exists() and out.read_bytes().count(b"\n") >= 4:
                break
            assert process.poll() is None, process.communicate()
            time.sleep(0.1)
        else:
            pytest.fail(f"no 4 games in {out.name} within 60 s")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and "interrupted" in err, err


# ---- a bool is not an action id --------------------------------------------------------------

@pytest.mark.parametrize("flag", [True, False, np.bool_(True), np.bool_(False)])
def test_a_bool_is_never_an_action_id(flag):
    game = Game()
    with pytest.raises(TypeError):
        Move(flag)
    with pytest.raises(TypeError):
        game.play(flag)
    assert game.history == [] and not game.is_legal(flag) and flag not in game.legal_moves()
    with pytest.raises(Forfeit, match="not a Move, an action id"):
        as_move(flag)
    from photocore.play.session import BadRequest, start
    with pytest.raises(BadRequest, match="moves\\[0\\]"):
        start(moves=[flag])


@pytest.mark.parametrize("flag", [True, np.bool_(True)])
def test_the_environments_refuse_a_bool_action(flag):
    pytest.importorskip("gymnasium")
    from photocore.env.gym import PhotosynthesisEnv
    env = PhotosynthesisEnv(opponents="random")
    env.reset(seed=1)
    with pytest.raises(TypeError, match="not a bool"):
        env.step(flag)
    pytest.importorskip("pettingzoo")
    from photocore.env.pettingzoo import raw_env
    aec = raw_env()
    aec.reset(seed=1)
    with pytest.raises(TypeError, match="not a bool"):
        aec.step(flag)
    assert aec.game.history == []
