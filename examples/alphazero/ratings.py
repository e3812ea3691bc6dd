"""The rating list: a `photocore tournament` for each number of players between the
built-in agents and the shipped checkpoints, written as one Markdown page.

    python examples/alphazero/ratings.py                   # docs/ratings.md, as shipped

For each number of players P (--players), every group of P of the agents plays a match
(`photocore tournament --group P`): random, greedy, mcts:N for each N of --mcts,
mcts:N?graph=1 (UCT over positions, docs/searching.md) for each N of --graph, and the shipped
checkpoint for P players (agent.py) at each of --simulations, and searching positions
(?graph=true) at each of --graph-simulations. Ratings are
Bradley-Terry from every pairwise result, anchored at random = 0, with 95% intervals;
each agent's time per move is measured in the same games. The 2-player agents are also
scored on the solved positions of seeds/solved.jsonl (`photocore solve --agent`): how
often their move keeps the exact result. The tournaments' summaries, game records and
scores are kept in --folder; the page says how it was made.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from options import HelpFormatter, listing, whole  # noqa: E402

from photocore.play.search import MIN_SIMULATIONS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
AGENT = os.path.relpath(os.path.join(HERE, "agent.py"), ROOT)
SOLVED = os.path.join("seeds", "solved.jsonl")


def agents(players, mcts, simulations, checkpoint=None, graph=(), graph_simulations=()):
    """The specs of one tournament: random, greedy, mcts:N for each N, mcts:N?graph=1 for
    each N of `graph`, and the checkpoint (the shipped one for `players` unless given) at
    each number of `simulations`, then over positions at each of `graph_simulations`."""
    where = f"checkpoint={checkpoint}&" if checkpoint else ""
    return (["random", "greedy"] + [f"mcts:{n}" for n in mcts]
            + [f"mcts:{n}?graph=1" for n in graph]
            + [f"py:{AGENT}:AlphaZeroAgent?{where}simulations={n}" for n in simulations]
            + [f"py:{AGENT}:AlphaZeroAgent?{where}simulations={n}&graph=true"
               for n in graph_simulations])


def tournament(players, specs, games, seed, workers, folder, play=True):
    """Runs `photocore tournament` for `players` (as a user would, in a subprocess, in the
    repository's folder; `folder` relative to it) unless `play` is false, and returns (its
    command line, its summary)."""
    summary = os.path.join(folder, f"{players}p.json")
    command = (["photocore", "tournament", "--agents", ",".join(specs), "--group", str(players),
                "--games-per-group", str(games), "--seed", str(seed), "--anchor", "random",
                "--summary", summary, "--out", os.path.join(folder, f"{players}p.jsonl.gz"),
                "--no-progress"] + (["--workers", str(workers)] if workers else []))
    if play:
        print("$", shlex.join(command), flush=True)
        subprocess.run([sys.executable, "-m", "photocore", *command[1:]], check=True, cwd=ROOT)
    with open(os.path.join(ROOT, summary)) as f:
        return command, json.load(f)


def accuracy(specs, folder, play=True, positions=None):
    """Each agent scored on SOLVED (`photocore solve SOLVED --agent SPEC --summary FILE`, in a
    subprocess; the first `positions` only, if given) unless `play` is false, kept in
    `folder`/solved.json; the scores."""
    path = os.path.join(ROOT, folder, "solved.json")
    if play:
        scores = []
        for spec in specs:
            score = os.path.join(ROOT, folder, "score.json")
            command = (["photocore", "solve", SOLVED, "--agent", spec, "--summary", score]
                       + (["--positions", str(positions)] if positions else []))
            print("$", shlex.join(command), flush=True)
            subprocess.run([sys.executable, "-m", "photocore", *command[1:]], check=True,
                           cwd=ROOT, capture_output=True, text=True)
            with open(score) as f:
                scores.append({"spec": spec, **json.load(f)})
        with open(path + ".tmp", "w") as f:
            json.dump(scores, f, indent=1)
        os.replace(path + ".tmp", path)
    with open(path) as f:
        return json.load(f)


def accuracy_table(scores):
    """The scores on the solved positions as Markdown rows, most accurate first."""
    rows = ["| agent | result kept | 95% interval | result and margin kept | 95% interval | "
            "ms a move |", "|---|---:|---|---:|---|---:|"]
    for score in sorted(scores, key=lambda s: (-s["accuracy"], -s["optimal_accuracy"])):
        low, high = score["interval"]
        best_low, best_high = score["optimal_interval"]
        rows.append(f"| `{label({'spec': score['spec'], 'name': score['player']})}` | "
                    f"{score['accuracy']:.1%} | {low:.1%} .. {high:.1%} | "
                    f"{score['optimal_accuracy']:.1%} | {best_low:.1%} .. {best_high:.1%} | "
                    f"{score['ms_a_move']:.3g} |")
    return rows


def accuracy_section(scores):
    """The page's section on the solved positions."""
    first = scores[0]
    return ["## Accuracy on solved positions (2 players)", "",
            f"Each 2-player agent chose a move in each of the {first['positions']:,} positions "
            f"of `{SOLVED}` (positions of real games the solver settled exactly, "
            "docs/searching.md, *A ground truth*). *Result kept*: the share of the "
            f"{first['contested']} positions where some move loses the result (a win, a "
            "shared win) in which the agent's move kept it; *result and margin kept*: the "
            "share of all the positions where its move was one of the best in result and "
            "final score margin. Intervals are 95% Wilson intervals.", "",
            *accuracy_table(scores), "",
            "```", f"photocore solve {SOLVED} --agent SPEC --summary FILE", "```", ""]


def label(agent):
    """A short name for the table: alphazero:64 for the checkpoint at 64 simulations,
    alphazero:64?graph=1 over positions."""
    spec = agent["spec"]
    if ":AlphaZeroAgent" in spec:
        simulations, graph = spec.rsplit("simulations=", 1)[1].partition("&graph=true")[:2]
        return f"alphazero:{simulations}" + ("?graph=1" if graph else "")
    return agent["name"]


def table(summary):
    """The rating list of one tournament as Markdown rows, strongest first."""
    rows = ["| rank | agent | Elo | 95% interval | games | win share | ms a move |",
            "|---:|---|---:|---|---:|---:|---:|"]
    ranked = sorted(summary["agents"], key=lambda a: -a["elo"])
    for rank, agent in enumerate(ranked, 1):
        interval = ("anchor" if agent["name"] == summary["anchor"]
                    else f"{agent['low']:+.0f} .. {agent['high']:+.0f}")
        seconds = agent["seconds_per_move"]
        rows.append(f"| {rank} | `{label(agent)}` | {agent['elo']:+.0f} | {interval} | "
                    f"{agent['games']} | {agent['points'] / agent['games']:.1%} | "
                    f"{'n/a' if seconds is None else f'{1000 * seconds:.3g}'} |")
    return rows


def page(results, argv, scores=None):
    """docs/ratings.md from [(players, command, summary)] and the agents' scores on the
    solved positions."""
    lines = ["# Rating list", "",
             "Every built-in agent and every shipped AlphaZero checkpoint "
             "(examples/alphazero) on one Bradley-Terry scale per number of players, "
             "anchored at `random` = 0 Elo. Made by one command:", "",
             "```", shlex.join(["python", "examples/alphazero/ratings.py", *argv]), "```", "",
             "which runs, for each number of players P, a `photocore tournament --group P`:"
             " every group of P agents plays the same random openings (one random ply per "
             "player) from every seat. A rating comes from every pairwise result in the "
             "games (a winner beats a non-winner, winners tie, two non-winners compare "
             "scores; docs/matches.md), and its interval is ±1.96 standard errors of its "
             "difference from `random`. *ms a move* is the mean wall-clock time an agent "
             "took to choose a move where it had a choice (forced moves left out), one "
             "thread in each of the tournament's worker processes. `alphazero:N` is the "
             "shipped checkpoint for that number of players with N simulations a move "
             "(`py:examples/alphazero/agent.py:AlphaZeroAgent?simulations=N`).", "",
             f"Measured on {machine()}, {datetime.date.today().isoformat()}, "
             f"photocore commit {commit()}.", ""]
    for players, command, summary in results:
        lines += [f"## {players} players", "",
                  f"{summary['games']} games: {summary['games_per_group']} for each group "
                  f"of {summary['group']}, seed {summary['seed']}, "
                  f"{summary['forfeits']} forfeits.", "", *table(summary), "",
                  "```", shlex.join(command), "```", ""]
    if scores:
        lines += accuracy_section(scores)
    return "\n".join(lines)


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{cpu} ({os.cpu_count()} cores), {platform.system()}, Python {platform.python_version()}"


def commit():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=HelpFormatter)
    parser.add_argument("--players", type=listing(whole(2, 4)), default="2,3,4",
                        help="numbers of players, one list each")
    parser.add_argument("--mcts", type=listing(whole(1)), default="100,1000,10000",
                        help="simulations of the mcts agents")
    parser.add_argument("--graph", type=listing(whole(1)), default="1000",
                        help="simulations of the mcts agents over positions (?graph=1)")
    parser.add_argument("--simulations", type=listing(whole(MIN_SIMULATIONS)), default="64,800",
                        help="simulations of the checkpoint, one entry each")
    parser.add_argument("--graph-simulations", type=listing(whole(MIN_SIMULATIONS)),
                        default="64",
                        help="simulations of the checkpoint over positions (?graph=true), one "
                             "entry each")
    parser.add_argument("--checkpoint", default=None,
                        help="a checkpoint instead of the shipped ones (one number of players: "
                             "its own)")
    parser.add_argument("--games", type=listing(whole(1)), default="40,12,12",
                        help="games for each group, per number of players")
    parser.add_argument("--seed", type=int, default=2026, help="of the tournaments")
    parser.add_argument("--workers", type=whole(1), default=None,
                        help="processes of each tournament (default: the cores)")
    parser.add_argument("--folder", default="runs/ratings",
                        help="the tournaments' summaries and games")
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "ratings.md"),
                        help="the page")
    parser.add_argument("--solved-positions", type=whole(1), default=None,
                        help=f"score the 2-player agents on the first N positions of {SOLVED} "
                             "(default: all)")
    parser.add_argument("--render", action="store_true",
                        help="write the page from the summaries already in --folder, "
                             "playing nothing")
    args = parser.parse_args(argv)
    folder = os.path.relpath(os.path.abspath(args.folder), ROOT)
    players, games = args.players, args.games
    if len(games) != len(players):
        parser.error(f"--games: one number per number of players ({len(players)}), "
                     f"got {len(games)}")
    if args.checkpoint is not None:
        from net import CheckpointError, check_players, load
        try:
            net, _ = load(args.checkpoint)
            for p in players:
                check_players(args.checkpoint, net.players, p)
        except CheckpointError as e:
            parser.error(str(e))
    os.makedirs(args.folder, exist_ok=True)
    results, scores = [], None
    for p, g in zip(players, games):
        specs = agents(p, args.mcts, args.simulations, args.checkpoint, args.graph,
                       args.graph_simulations)
        results.append((p, *tournament(p, specs, g, args.seed, args.workers, folder,
                                       play=not args.render)))
        if p == 2:
            scores = accuracy(specs, folder, not args.render, args.solved_positions)
    text = page(results, [a for a in argv if a != "--render"], scores)
    with open(args.out + ".tmp", "w") as f:
        f.write(text)
    os.replace(args.out + ".tmp", args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
