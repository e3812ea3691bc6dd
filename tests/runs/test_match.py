"""Matches: paired seeded games, the same for any number of workers, written as records as
they finish, summarised as ratings; forfeits in the records; SPRT stops; Ctrl-C leaves no
process and no half line behind; --resume completes the very same file."""

import json
import os
import pathlib
import shlex
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from click.testing import CliRunner

import photocore
from photocore import records
from photocore.cli import main
from photocore.play import specs
from photocore.run.match import Match, Outcome, Standings

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


def games_of(path):
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def test_every_opening_is_played_from_every_seat():
    plan = Match(["greedy", "random"], games=6, seed=3)
    assert plan.games == 6 and plan.openings == 2
    assert [plan.seating(i) for i in range(4)] == [([0, 1], 0), ([1, 0], 0), ([0, 1], 1),
                                                  ([1, 0], 1)]
    lines, outcomes = plan.batch(0, 4)
    recs = [json.loads(line) for line in lines]
    assert recs[0]["moves"][:2] == recs[1]["moves"][:2] != recs[2]["moves"][:2]
    assert [r["metadata"]["agents"] for r in recs[:2]] == [["greedy", "random"],
                                                          ["random", "greedy"]]
    assert all(r["metadata"]["opening"] == 2 and r["metadata"]["seed"] == 3 for r in recs)
    assert [r["metadata"]["game"] for r in recs] == [0, 1, 2, 3]
    for rec in recs:
        records.from_record(rec)                      # legal, and the result is right


def test_games_round_up_to_whole_openings_and_seats_fill_evenly():
    assert Match(["greedy", "random", "mcts:5"], games=7).games == 9
    four = Match(["greedy", "random"], games=2, players=4)
    assert four.seating(0) == ([0, 1, 0, 1], 0) and four.seating(1) == ([1, 0, 1, 0], 0)
    assert four.openings == 4
    with pytest.raises(ValueError, match="evenly"):
        Match(["greedy", "random"], players=3)
    with pytest.raises(ValueError, match="2 to 4 agents"):
        Match(["greedy"])


def test_the_rules_are_one_options_value():
    plan = Match(["greedy", "random"], games=2, options="fs")
    recs = [json.loads(line) for line in plan.batch(0, 2).lines]
    assert all(photocore.Options(**r["options"]) == photocore.Options.parse("fs") for r in recs)
    with pytest.raises(TypeError, match="shade_blocks"):
        Match(["greedy", "random"], shade_blocks=True)      # a flag per rule: never released


def test_pairwise_results_and_forfeits():
    # 3 players: seat 2 wins, seat 0 outscores seat 1
    game = Outcome([0, 1, 2], (2,), (10, 8, 15))
    assert [game.result(a, b) for a, b in [(2, 0), (0, 2), (0, 1), (1, 0)]] == [1, 0, 1, 0]
    tied = Outcome([0, 1, 2], (0, 1), (12, 12, 3))
    assert tied.result(0, 1) == 0.5 and tied.result(2, 0) == 0
    # a forfeit loses to everyone; the others share the win
    lost = Outcome([0, 1, 2], (0, 2), None, forfeit=1, reason="crashed")
    assert lost.result(1, 0) == 0 and lost.result(2, 1) == 1 and lost.result(0, 2) == 0.5
    plan = Match(["a:b" if False else "greedy", "random", "mcts:3"], games=3)
    table = Standings(plan)
    table.add(0, lost)
    assert table.points == [0.5, 0.0, 0.5] and table.forfeits == [0, 1, 0]
    assert table.versus[0][1] == 1 and table.versus[1][0] == 0


def test_paired_scores_and_the_sprt_count_whole_openings():
    plan = Match(["greedy", "random"], games=100)
    table = Standings(plan, sprt=None)
    win, loss = Outcome([0, 1], (0,), (20, 10)), Outcome([1, 0], (0,), (20, 10))
    table.add(0, win)
    assert table.estimate().n == 0                      # half an opening
    table.add(1, loss)                                  # agent 0 (seat 1) lost the return game
    assert table.paired == {(0, 1): {0.5: 1}} and table.record[(0, 1)] == [1, 1, 0]


@pytest.mark.slow
def test_match_summary_records_and_determinism_whatever_the_workers(tmp_path):
    outs = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}.jsonl"
        result = run("match", "--agents", "greedy,random", "--games", 12, "--seed", 4, "--workers",
                     workers, "--out", out, "--no-progress")
        assert result.exit_code == 0, result.output
        outs.append(out)
    assert outs[0].read_bytes() == outs[1].read_bytes()
    assert "greedy vs random: 12 games of 2 players, 6 openings of 2 random plies" in result.output
    assert "greedy" in result.output and " wins, " in result.output
    assert "Elo " in result.output and "95% CI" in result.output and "LOS " in result.output
    assert len(list(records.read_games(outs[0], verify=True))) == 12


@pytest.mark.slow
def test_the_sprt_stops_at_the_same_game_whatever_the_workers(tmp_path):
    counts = []
    for workers in (1, 2):
        out = tmp_path / f"s{workers}.jsonl"
        result = run("match", "--agents", "greedy,random", "--sprt", "elo0=0,elo1=150", "--seed", 1,
                     "--workers", workers, "--out", out, "--no-progress")
        assert result.exit_code == 0, result.output
        assert "H1 accepted after" in result.output, result.output
        counts.append(len(games_of(out)))
    assert counts[0] == counts[1] and counts[0] % 2 == 0 and counts[0] < 200
    assert f"after {counts[0]} games" in result.output


@pytest.mark.slow
def test_three_agents_and_a_tournament(tmp_path):
    result = run("match", "--agents", "mcts:10,greedy,random", "--games", 6, "--workers", 2,
                 "--no-progress")
    assert result.exit_code == 0, result.output
    assert "Bradley-Terry Elo" in result.output and "win share" in result.output
    assert "mcts:10 vs greedy vs random: 6 games of 3 players" in result.output
    out = tmp_path / "t.jsonl"
    result = run("tournament", "--agents", "greedy,random,mcts:5", "--games-per-group", 4,
                 "--workers", 2,
                 "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    assert "round robin of 3 agents: 3 pairings of 4 games" in result.output
    assert "a cell is the row's score against the column" in result.output
    recs = games_of(out)
    assert len(recs) == 12
    assert {tuple(sorted(r["metadata"]["agents"])) for r in recs} == {
        ("greedy", "random"), ("greedy", "mcts:5"), ("mcts:5", "random")}
    # every pairing plays the same openings
    assert recs[0]["moves"][:2] == recs[4]["moves"][:2] == recs[8]["moves"][:2]


QUITTER = textwrap.dedent('''
    class Quitter:
        def select(self, game):
            raise RuntimeError("I give up")
''')


@pytest.mark.slow
def test_a_tournament_of_groups_anchored_with_times_in_its_summary(tmp_path):
    summary = tmp_path / "t.json"
    result = run("tournament", "--agents", "random,greedy,mcts:5,mcts:500", "--group", 3,
                 "--games-per-group", 3, "--anchor", "random", "--summary", summary, "--workers", 2,
                 "--out", tmp_path / "t.jsonl", "--no-progress")
    assert result.exit_code == 0, result.output
    assert "round robin of 4 agents: 4 groups of 3 of 3 games of 3 players" in result.output
    assert "ratings from random = 0" in result.output
    data = json.loads(summary.read_text())
    assert (data["players"], data["group"], data["games"], data["anchor"]) == (3, 3, 12, "random")
    agents = {a["name"]: a for a in data["agents"]}
    # each agent sits in 3 of the 4 groups, 3 games each; a win is a point, shared
    assert [a["games"] for a in data["agents"]] == [9] * 4
    assert sum(a["points"] for a in data["agents"]) == pytest.approx(12)
    assert agents["random"]["elo"] == agents["random"]["error"] == 0
    for a in data["agents"]:
        assert a["low"] <= a["elo"] <= a["high"]
        assert a["moves_timed"] > 0 and a["seconds_per_move"] > 0
    # mcts:500 searches a hundred times as many playouts a move as mcts:5: the times tell
    # them apart however loaded the machine (four times, mcts:20, did not always)
    assert agents["mcts:500"]["seconds_per_move"] > agents["mcts:5"]["seconds_per_move"]
    recs = games_of(tmp_path / "t.jsonl")
    assert len(recs) == 12 and all(r["players"] == 3 for r in recs)
    assert {len(set(r["metadata"]["agents"])) for r in recs} == {3}
    # a cell: the row's pairwise wins-losses-ties against the column, between their seats
    row = next(line for line in result.output.splitlines() if line.startswith("1 random"))
    assert row.count("-") >= 3


def test_a_match_of_two_writes_its_elo_as_its_summary_says(tmp_path):
    summary = tmp_path / "m.json"
    result = run("match", "--agents", "mcts:50,random", "--games", 8, "--workers", 1,
                 "--summary", summary, "--no-progress")
    assert result.exit_code == 0, result.output
    data = json.loads(summary.read_text())
    assert (data["format"], data["players"], data["games"]) == ("photocore-match", 2, 8)
    first, second = data["agents"]
    assert (first["name"], second["name"], first["games"]) == ("mcts:50", "random", 8)
    assert first["points"] + second["points"] == pytest.approx(8)
    # the first agent's Elo against the second, as the summary's line; the second's negated
    told = next(line for line in result.output.splitlines() if line.startswith("score "))
    if first["elo"] is not None:
        assert f"Elo {round(first['elo'], 1) + 0.0:+.1f}" in told
        assert (second["elo"], second["low"], second["high"]) == tuple(
            None if v is None else -v for v in (first["elo"], first["high"], first["low"]))
    else:          # every game won: the line gives a bound, the summary null
        assert "no losses or ties" in told and first["points"] == 8


def test_a_tournament_refuses_a_bad_group_or_anchor(tmp_path):
    three = ["--agents", "random,greedy,mcts:5"]
    assert "needs 4 agents" in run("tournament", *three, "--group", 3).output
    out = run("tournament", *three, "--anchor", "mcts:9").output
    assert "'mcts:9' is not one of --agents" in out
    out = run("tournament", *three, "--summary", tmp_path / "no" / "s.json")
    assert "the folder" in out.output and "does not exist" in out.output


@pytest.mark.slow
def test_a_match_without_wins_or_losses_gives_a_bound_not_infinity(tmp_path):
    (tmp_path / "quitter.py").write_text(QUITTER)
    quitter = f"py:{tmp_path / 'quitter.py'}:Quitter"
    for agents, told in [((quitter, "greedy"), "no wins or ties: Elo below -"),
                         (("greedy", quitter), "no losses or ties: Elo above +")]:
        result = run("match", "--agents", ",".join(agents), "--games", 12, "--workers", 1,
                     "--no-progress")
        # (the quitter forfeits every game: the summary, then exit status 1)
        assert result.exit_code == 1, result.output
        assert told in result.output and "(95% one-sided bound)" in result.output
        assert "inf" not in result.output.replace("info", ""), result.output


def test_usage_errors():
    assert "between 2 to 4 agents" in run("match", "--agents", "greedy").output
    assert "the SPRT needs two agents" in run("match", "--agents", "greedy,random,mcts",
                                              "--sprt", "elo0=0,elo1=5").output
    assert "elo1 is missing" in run("match", "--agents", "greedy,random", "--sprt",
                                    "elo0=0").output
    assert "unknown agent" in run("match", "--agents", "greedy,alphazero").output
    assert "needs 3 agents" in run("tournament", "--agents", "greedy,random").output
    assert "--resume needs --out" in run("match", "--agents", "greedy,random",
                                         "--resume").output
    for command in ("match", "tournament"):
        result = run(command, "--players", 2)
        assert result.exit_code == 2 and "Missing option '--agents'" in result.output


# ---- agents of every kind in a match -------------------------------------------------------

CRASHER = textwrap.dedent('''
    import sys
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "photocore":
            print("ready name=crasher", flush=True)
        elif command == "legal":
            legal = rest.split(",")
        elif command == "go":
            if len(legal) < 10:           # late in a turn: dies
                print("out of luck", file=sys.stderr, flush=True)
                sys.exit(2)
            print("info thinking", flush=True)
            print("move " + legal[0], flush=True)
''')

RAISER = textwrap.dedent('''
    class Raiser:
        def select(self, game):
            if game.round == 2:
                raise RuntimeError("no idea what to do in round 2")
            return game.legal_moves()[-1]
''')


@pytest.mark.slow
def test_forfeits_are_recorded_and_counted_and_the_match_goes_on(tmp_path):
    (tmp_path / "crasher.py").write_text(CRASHER)
    (tmp_path / "raiser.py").write_text(RAISER)
    crasher = f'cmd:"{shlex.join([sys.executable, str(tmp_path / "crasher.py")])}"'
    raiser = f"py:{tmp_path / 'raiser.py'}:Raiser"
    for agent, reason, log in [
            (crasher, "exited with status 2 (out of luck)", "out of luck"),
            (raiser, "select() raised RuntimeError: no idea what to do in round 2",
             "Traceback (most recent call last)")]:
        out = tmp_path / f"{agent[:3]}.jsonl"
        result = run("match", "--agents", f"{agent},greedy", "--games", 4, "--workers", 1,
                     "--seconds", 0.2, "--out", out, "--no-progress")
        # it forfeits every game: the summary, then exit status 1 saying so
        assert result.exit_code == 1, result.output
        label = "crasher" if agent == crasher else agent
        assert result.output.endswith(f"Error: {label} forfeited every game it played (4 "
                                      "games): the results measure nothing (its reasons are "
                                      "above)\n"), result.output
        recs = list(records.read_games(out, verify=True))
        assert len(recs) == 4
        for rec in recs:
            meta = rec["metadata"]
            assert rec["result"] is None
            assert meta["forfeit"] == {"seat": meta["agents"].index(label), "reason": reason}
            if agent == crasher:      # its info lines, by the ply of each of its moves
                seat = meta["agents"].index(label)
                assert meta["info"] and all(v == ["thinking"] for v in meta["info"].values())
                assert all(mover(rec, int(ply)) == seat for ply in meta["info"])
        # the log says who forfeited why, with the traceback or the engine's last words
        assert f"forfeits: {reason}" in result.output and log in result.output
        assert "; forfeits: " in result.output and "0 wins, 4 losses" in result.output


TWO_PLAYERS = textwrap.dedent('''
    class TwoPlayers:
        def check(self, game):
            if game.players != 2:
                raise ValueError(f"my network plays 2 players, the game has {game.players}")

        def select(self, game):
            return game.legal_moves()[0]
''')


@pytest.mark.parametrize("command", [["match", "greedy,random", "--players", "3"],
                                     ["tournament", "greedy,random,mcts:5", "--group", "3"],
                                     ["selfplay", "--players", "3", "--agents"]])
def test_an_agent_that_cannot_play_the_run_s_players_is_refused_before_the_first_game(
        tmp_path, command):
    (tmp_path / "two.py").write_text(TWO_PLAYERS)
    agent = f"py:{tmp_path / 'two.py'}:TwoPlayers"
    if command[0] == "selfplay":
        command = [*command, f"greedy,random,{agent}", "--games", "3"]
    else:
        command = [command[0], "--agents", f"{agent},{command[1]}", *command[2:]]
        command += ["--games" if command[0] == "match" else "--games-per-group", "3"]
    out = tmp_path / "games.jsonl"
    result = run(*command, "--workers", 1, "--out", out, "--no-progress")
    assert result.exit_code == 2, result.output
    assert (f"'{agent}': ValueError: my network plays 2 players, the game has 3"
            in result.output), result.output
    assert "Traceback" not in result.output and not out.exists()


@pytest.mark.slow
def test_an_engine_is_labelled_by_the_name_it_announces(tmp_path):
    # tables and records name an engine by its `ready name=...` (made unique), or by a short
    # form of its command when it announces none; the record keeps every seat's full spec
    (tmp_path / "crasher.py").write_text(CRASHER)
    (tmp_path / "nameless.py").write_text(CRASHER.replace("ready name=crasher", "ready"))
    crasher = f'cmd:"{shlex.join([sys.executable, str(tmp_path / "crasher.py")])}"'
    twin = f'cmd:"{shlex.join([sys.executable, str(tmp_path / "crasher.py"), "--twin"])}"'
    nameless = f'cmd:"{shlex.join([sys.executable, str(tmp_path / "nameless.py")])}"'
    python = os.path.basename(sys.executable)
    for agents, labels in [((crasher, "greedy"), ["crasher", "greedy"]),
                           ((crasher, twin), ["crasher", "crasher#2"]),
                           ((nameless, "greedy"), [f"{python} nameless.py", "greedy"])]:
        out = tmp_path / "m.jsonl"
        result = run("match", "--agents", ",".join(agents), "--games", 2, "--workers", 1,
                     "--seconds", 0.2, "--out", out, "--no-progress")
        # exit status 1 when one of them forfeited both its games
        lost = [r["metadata"]["agents"][r["metadata"]["forfeit"]["seat"]]
                for r in games_of(out) if "forfeit" in r["metadata"]]
        assert result.exit_code == (1 if 2 in map(lost.count, labels) else 0), result.output
        assert result.output.startswith(f"{labels[0]} vs {labels[1]}: 2 games"), result.output
        assert f"{labels[0]} vs {labels[1]}: 2 games, {labels[0]} " in result.output
        assert "cmd:" not in result.output and str(tmp_path) not in result.output.split(
            "forfeits:")[0]
        for rec in games_of(out):
            meta = rec["metadata"]
            assert sorted(meta["agents"]) == sorted(labels)
            assert [agents[labels.index(a)] for a in meta["agents"]] == meta["specs"]
        out.unlink()
    plan = Match([crasher, "greedy"])
    assert plan.labels == [f"{python} crasher.py", "greedy"]        # before check()
    plan.check()
    assert plan.labels == ["crasher", "greedy"]


def mover(rec, ply):
    """The seat that played move `ply` (1-based) of a record."""
    return records.from_record(rec, ply=ply - 1).current_player


@pytest.mark.slow
def test_selfplay_takes_every_kind_of_spec(tmp_path):
    (tmp_path / "raiser.py").write_text(RAISER)
    engine = f'cmd:"{shlex.join([sys.executable, str(ROOT / "examples" / "engines" / "simple_engine.py")])}"'
    agents = f"{engine},py:{tmp_path / 'raiser.py'}:Raiser,greedy"
    out = tmp_path / "s.jsonl"
    result = run("selfplay", "--games", 3, "--players", 3, "--agents", agents, "--workers", 1,
                 "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    recs = list(records.read_games(out, verify=True))
    # the engine by the name it announces, as in a match; a py agent without a name by its
    # spec
    assert [r["metadata"]["agents"][0] for r in recs] == ["simple-python", "greedy",
                                                           f"py:{tmp_path / 'raiser.py'}:Raiser"]
    assert all(r["metadata"]["forfeit"]["reason"].startswith("select() raised") for r in recs)


@pytest.mark.slow
def test_selfplay_of_builtin_agents_still_plays_in_c(tmp_path):
    from photocore.play._agents import play_games
    out = tmp_path / "c.jsonl"
    result = run("selfplay", "--games", 6, "--agents", "mcts:5,greedy", "--seed", 9,
                 "--workers", 2, "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    moves, offsets = play_games([("mcts", 5), ("greedy", 200)], 2, None, 9, 0, 6)
    expected = b""
    for i in range(6):
        game = photocore.Game()
        for action in moves[offsets[i]:offsets[i + 1]].tolist():
            game.play(action)
        seats = ["mcts:5", "greedy"] if i % 2 == 0 else ["greedy", "mcts:5"]
        expected += records.record_line(records.to_record(game, {"agents": seats, "seed": 9, "game": i}))
    assert out.read_bytes() == expected


@pytest.mark.slow
def test_resume_completes_the_same_file(tmp_path):
    whole = tmp_path / "whole.jsonl"
    args = ["match", "--agents", "mcts:5,greedy", "--games", 10, "--seed", 2, "--workers", 2,
            "--no-progress"]
    assert run(*args, "--out", whole).exit_code == 0
    lines = whole.read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:3]) + lines[3][:40])      # killed mid-line
    result = run(*args, "--out", cut, "--resume")
    assert result.exit_code == 0, result.output
    assert "photocore match: " in result.output and "truncated last line" in result.output
    assert cut.read_bytes() == whole.read_bytes()
    result = run(*args, "--out", cut, "--resume")
    assert "already holds the whole match" in result.output
    other = run("match", "--agents", "mcts:5,random", "--games", 10, "--seed", 2, "--out", cut,
                "--resume", "--no-progress")
    assert other.exit_code != 0 and "cannot resume" in other.output
    # games are numbered from 1, as the file's lines are
    assert ("its game on line 1 has agents mcts:5,greedy by seat, game 1 of this run has "
            "agents mcts:5,random by seat") in other.output
    assert "exists" in run(*args, "--out", whole).output


# ---- Ctrl-C --------------------------------------------------------------------------------

SLOW = textwrap.dedent('''
    import sys, time
    for line in sys.stdin:
        command, _, rest = line.strip().partition(" ")
        if command == "photocore":
            print("ready name=slow", flush=True)
        elif command == "legal":
            legal = rest.split(",")
        elif command == "go":
            time.sleep(0.05)
            print("move " + legal[-1], flush=True)
''')


def _processes_with(marker):
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{pid}/stat") as f:
                zombie = f.read().split(") ")[1][0] == "Z"
        except OSError:
            continue
        if marker.encode() in cmdline and not zombie:
            found.append(int(pid))
    return found


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow
def test_ctrl_c_leaves_no_process_and_whole_lines(tmp_path):
    engine = tmp_path / "slow_engine_marker_7f3a.py"
    engine.write_text(SLOW)
    out = tmp_path / "i.jsonl"
    photocore_cli = [sys.executable, "-m", "photocore"]
    process = subprocess.Popen(
        [*photocore_cli, "match", "--agents",
         f'cmd:"{shlex.join([sys.executable, str(engine)])}",greedy', "--games",
         "400", "--workers", "2", "--out", str(out), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    # both workers have their engine running, and some games are written
    while time.monotonic() < deadline and (len(_processes_with(engine.name)) < 2
                                           or not out.exists() or out.stat().st_size == 0):
        time.sleep(0.1)
    assert len(_processes_with(engine.name)) >= 2, process.stdout.read1().decode()
    os.killpg(process.pid, signal.SIGINT)        # the terminal's Ctrl-C: the whole group
    output = process.communicate(timeout=60)[0].decode()
    assert process.returncode == 130, output
    assert "interrupted" in output and "--resume" in output and "Traceback" not in output
    deadline = time.monotonic() + 10
    while _processes_with(engine.name) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(engine.name) == []
    # and none of the workers or the forkserver either
    assert _processes_with(str(out)) == []
    data = out.read_bytes()
    assert data.endswith(b"\n")
    kept = [json.loads(line) for line in data.splitlines()]
    assert [r["metadata"]["game"] for r in kept] == list(range(len(kept)))


@pytest.mark.slow
def test_no_engine_left_after_a_run_ends(tmp_path):
    engine = tmp_path / "slow_engine_marker_9c1b.py"
    engine.write_text(SLOW.replace("time.sleep(0.05)", "pass"))
    result = subprocess.run(
        [sys.executable, "-m", "photocore", "match", "--agents",
         f'cmd:"{shlex.join([sys.executable, str(engine)])}",random', "--games", "4",
         "--workers", "2", "--no-progress"],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    time.sleep(0.5)
    assert _processes_with(engine.name) == []


def test_openspiel_mcts_bot_as_a_python_agent():
    pytest.importorskip("pyspiel")
    player = specs.load(f"py:{ROOT / 'examples' / 'agents' / 'openspiel_mcts.py'}:OpenSpielMCTS"
                        "?simulations=4")
    player.reset(seed=3)
    game = photocore.Game()
    for _ in range(6):
        move = player.select(game)
        assert move in game.legal_moves()
        game.play(move)
    assert player.name == "openspiel-mcts"


@pytest.mark.slow
def test_the_python_agent_example_beats_random_the_same_whatever_the_workers(tmp_path):
    agent = f"py:{ROOT / 'examples' / 'agents' / 'noisy_greedy.py'}:NoisyGreedy?epsilon=0.2"
    outs = []
    for workers in (1, 2):
        outs.append(tmp_path / f"n{workers}.jsonl")
        result = run("match", "--agents", f"{agent},random", "--games", 12, "--workers",
                     workers, "--out", outs[-1], "--no-progress")
        assert result.exit_code == 0, result.output
    assert outs[0].read_bytes() == outs[1].read_bytes()      # seeded through reset(seed=)
    wins = sum(rec["metadata"]["agents"].index("noisy-greedy") in rec["result"]["winners"]
               for rec in games_of(outs[0]))
    assert wins >= 8, result.output


# ---- a small or broken match tells the truth ---------------------------------------------

def summary_of(plan, outcomes):
    """What the command prints for a match of two agents that played `outcomes`."""
    from photocore.cli.match import _summary
    standings = Standings(plan)
    for index, outcome in enumerate(outcomes):
        standings.add(index, outcome)
    return CliRunner().invoke(click_command(lambda: _summary(plan, standings))).output


def click_command(function):
    import click
    return click.command()(function)


def test_an_interval_without_width_is_told_as_too_few_games():
    plan = Match(["greedy", "random"], games=20)
    won, lost = Outcome([0, 1], (0,), (20, 10)), Outcome([1, 0], (0,), (20, 10))
    # one opening, one game won by each: a score of 1/2 and no spread to bound it
    text = summary_of(plan, [won, lost])
    assert "greedy vs random: 2 games, greedy 1 win, 1 loss, 0 ties; no forfeits" in text
    assert ("score 50.0% over 1 whole opening: Elo +0.0 (95% CI not bounded: one whole "
            "opening, too few games to tell), LOS n/a") in text
    assert "± 0.0" not in text and "+0.0 .. +0.0" not in text
    # every opening alike: no spread either
    text = summary_of(plan, [won, lost] * 10)
    assert ("Elo +0.0 (95% CI not bounded: every one of the 10 whole openings scored 50.0%, "
            "too few games to tell), LOS n/a") in text
    # a spread: the interval, as before
    text = summary_of(plan, [won, lost, won, Outcome([1, 0], (1,), (20, 10))])
    assert "Elo +190.8 (95% CI above -" in text
    assert "not bounded" not in text and "LOS n/a" not in text


@pytest.mark.slow
def test_one_opening_is_one_opening(tmp_path):
    result = run("match", "--agents", "greedy,random", "--games", 2, "--workers", 1,
                 "--no-progress")
    assert result.exit_code == 0, result.output
    assert "2 games of 2 players, 1 opening of 2 random plies each played" in result.output
    assert " over 1 whole opening: " in result.output
    result = run("match", "--agents", "greedy,random", "--games", 2, "--workers", 1,
                 "--openings", 1, "--no-progress")
    assert "1 opening of 1 random ply each played" in result.output


@pytest.mark.slow
def test_max_forfeits_stops_a_match_of_a_broken_agent(tmp_path):
    (tmp_path / "quitter.py").write_text(QUITTER)
    quitter = f"py:{tmp_path / 'quitter.py'}:Quitter"
    out = tmp_path / "q.jsonl"
    args = ["match", "--agents", f"greedy,{quitter}", "--games", 40, "--max-forfeits", 3,
            "--workers", 2, "--out", out, "--no-progress"]
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert [r["metadata"]["game"] for r in games_of(out)] == [0, 1, 2]
    assert result.output.endswith(
        f"Error: {quitter} forfeited 3 of its 3 games (--max-forfeits 3): the match stopped "
        "after 3 of 40 games\n"), result.output
    # the forfeits are numbered as the file's lines: game 1 is line 1
    assert [line.split(":")[0] for line in result.output.splitlines()
            if line.startswith("game ")] == ["game 1", "game 2", "game 3"]
    # resumed, it stops at once: the file holds the forfeits already
    result = run(*args, "--resume")
    assert result.exit_code == 1 and "--max-forfeits 3 in them" in result.output
    assert len(games_of(out)) == 3


# ---- on a Ray cluster ---------------------------------------------------------------------

@pytest.mark.slow
def test_match_and_tournament_on_ray_give_the_games_of_local_workers(ray_instance, tmp_path):
    for command in (["match", "--agents", "mcts:5,greedy", "--games", 6],
                    ["tournament", "--agents", "greedy,random,mcts:5", "--games-per-group", 2]):
        outs = {}
        for backend, extra in (("local", ["--workers", 2]), ("ray", [])):
            outs[backend] = tmp_path / f"{command[0]}-{backend}.jsonl"
            result = run(*command, "--seed", 7, "--backend", backend, *extra, "--out",
                         outs[backend], "--no-progress")
            assert result.exit_code == 0, result.output
        assert outs["ray"].read_bytes() == outs["local"].read_bytes()
        assert len(games_of(outs["ray"])) == 6
    result = run("match", "--agents", "greedy,random", "--backend", "ray", "--workers", 2)
    assert result.exit_code == 2 and "it is for --backend local, not ray" in result.output
