"""Coverage-guided fuzzing of the compiled kernel itself, under libFuzzer and sanitizers.

    python fuzz/kernel/run.py --seconds 20                    # what CI runs (.ci/fuzz)
    python fuzz/kernel/run.py --runs 10000000 --corpus fuzz/corpus/kernel --reference 2000
    python fuzz/kernel/run.py --replay fuzz/artifacts/kernel-crash-...   # one input again

Builds, in a scratch copy, the extensions with clang and -fsanitize=fuzzer-no-link,address,
undefined (so libFuzzer sees the kernel's own branches, and AddressSanitizer and
UndefinedBehaviorSanitizer watch it), the target target.pyx, and main.c (libFuzzer's main,
embedding Python), then fuzzes: games of action ids and position texts, checked after every
move (target.pyx says what must hold). Both code paths of the default build run, side by
side: the x86-64-v3 one where the CPU has it, and the baseline one. A failing input is
kept as fuzz/artifacts/kernel-crash-* and fails the run.

--reference N replays up to N inputs of the corpus afterwards and compares, at every
position they reach, the legal moves of photocore (the normal build) with those of the
plain-Python reference python/photoref.py. Needs clang (Debian: apt-get install clang).
"""

import argparse
import concurrent.futures
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# pointer-overflow left out: Cython's argument parsing adds 0 to a NULL argument array
# (`args + nargs` in __Pyx_KwValues_FASTCALL), which clang reports and which is harmless
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize=pointer-overflow",
            "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer", "-g"]
SANITIZER_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    "OPENBLAS_NUM_THREADS": "1",
}


def build(scratch):
    """The harness executable and the environment to run it in, built under `scratch`."""
    for name in ("setup.py", "pyproject.toml", "README.md", "src"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, scratch / name)
    for so in (scratch / "src" / "photocore").glob("*.so"):
        so.unlink()
    # edge coverage for the fuzzer; not its comparison tracing, which would take a third
    # of the time and finds little in bit masks
    flags = " ".join(["-fsanitize=fuzzer-no-link", "-fno-sanitize-coverage=trace-cmp",
                      *SANITIZE])
    # the kernel and Game alone: the target imports no more (photocore imports the rest
    # on first use)
    env = dict(os.environ, CC="clang", LDSHARED="clang -shared", CFLAGS=flags, LDFLAGS=flags,
               PHOTOCORE_MODULES="_kernel,_game")
    env.pop("PHOTOCORE_SANITIZE", None)
    env.pop("PHOTOCORE_NATIVE", None)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=scratch,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    target = scratch / "target"
    target.mkdir()
    shutil.copy(HERE / "target.pyx", target / "photocore_kernel_target.pyx")
    setup = ("from Cython.Build import cythonize; from setuptools import setup; "
             "setup(ext_modules=cythonize('photocore_kernel_target.pyx', "
             f"include_path=[{str(scratch / 'src')!r}]))")
    subprocess.run([sys.executable, "-c", setup, "-q", "build_ext", "--inplace"], cwd=target,
                   env=env, check=True, stdout=subprocess.DEVNULL)
    paths = sysconfig.get_paths()
    libdir = sysconfig.get_config_var("LIBDIR")
    harness = scratch / "fuzz_kernel"
    subprocess.run(["clang", "-fsanitize=fuzzer", *SANITIZE, "-O1", str(HERE / "main.c"),
                    f"-I{paths['include']}", f"-L{libdir}", f"-Wl,-rpath,{libdir}",
                    f"-lpython{sysconfig.get_config_var('LDVERSION')}", "-o", str(harness)],
                   check=True)
    return harness, environment(scratch)


def environment(scratch):
    """The harness's environment: the scratch build first on the path, then this Python's
    packages (numpy), the sanitizers' options."""
    paths = sysconfig.get_paths()
    env = dict(os.environ, **SANITIZER_ENV)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(scratch / "src"), str(scratch / "target"), paths["purelib"], paths["platlib"]])
    env.pop("PYTHONHOME", None)
    return env


def seed_inputs(folder, count=60, seed=1):
    """Games of legal moves (mode 0) and positions of random games (mode 1)."""
    sys.path.insert(0, str(ROOT / "src"))
    import photocore
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(count):
        config = rng.randrange(12)
        data = bytes([0, config]) + bytes(rng.randrange(128) if j % 2 else rng.randrange(256)
                                          for j in range(2 * rng.randrange(4, 200)))
        (folder / f"game-{k}").write_bytes(data)
        game = photocore.Game(2 + config % 3, options=photocore.Options(
            fourth_revolution=bool(config >> 2 & 1), shade_blocks=bool(config >> 3 & 1)))
        for _ in range(rng.randrange(0, 150)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        (folder / f"position-{k}").write_bytes(b"\x01" + game.position().encode("latin-1"))


def fuzz(harness, env, corpus, seeds, artifacts, seconds, runs, code_path, jobs_log):
    """One libFuzzer campaign; returns (ok, executions, coverage, log tail)."""
    env = dict(env)
    env["PHOTOCORE_CODE_PATH"] = code_path
    # the playouts' lanes (checked against the scalar kernel): beside x86-64-v3 the AVX-512
    # copy where the CPU has it (else the portable one), beside the baseline the portable one
    env["PHOTOCORE_LANES"] = "8" if code_path == "x86-64-v3" else "portable"
    args = [str(harness), str(corpus), str(seeds), f"-artifact_prefix={artifacts}/kernel-",
            "-max_len=256", "-timeout=30", "-print_final_stats=1", "-rss_limit_mb=4096"]
    args.append(f"-runs={runs}" if runs else f"-max_total_time={int(seconds)}")
    with open(jobs_log, "w") as log:
        proc = subprocess.run(args, env=env, stdout=log, stderr=subprocess.STDOUT)
    text = pathlib.Path(jobs_log).read_text(errors="replace")
    executions = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
    coverage = re.findall(r"cov: (\d+)", text)
    return (proc.returncode == 0, int(executions[-1]) if executions else 0,
            int(coverage[-1]) if coverage else 0, text[-3000:])


def reference(harness, env, corpus, limit):
    """Replays up to `limit` corpus inputs, recording their games, and compares every
    position's legal moves with photoref's. Returns (games, positions, mismatches)."""
    with tempfile.TemporaryDirectory() as tmp:
        files = sorted(p for p in pathlib.Path(corpus).iterdir() if p.is_file())
        random.Random(0).shuffle(files)
        listing = pathlib.Path(tmp) / "inputs"
        listing.mkdir()
        for p in files[:limit]:
            shutil.copy(p, listing / p.name)
        record = pathlib.Path(tmp) / "games.jsonl"
        subprocess.run([str(harness), str(listing), "-runs=0"], env=dict(
            env, PHOTOCORE_FUZZ_RECORD=str(record)), check=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        lines = record.read_text().splitlines() if record.exists() else []
    sys.path[:0] = [str(ROOT / "src"), str(ROOT / "python")]
    import photocore
    from photoref import ReferenceGame
    positions = mismatches = 0
    for line in lines:
        g = json.loads(line)
        if "position" in g:
            game = photocore.Game.from_position(g["position"])
            ref = reference_of(game, ReferenceGame)
        else:
            fourth, shade = bool(g["options"] & 1), bool(g["options"] & 2)
            game = photocore.Game(g["players"], options=photocore.Options(
                fourth_revolution=fourth, shade_blocks=shade))
            ref = ReferenceGame(g["players"], fourth, shade)
        for move in [None, *g["moves"]]:
            if move is not None:
                game.play(move)
                ref.play(str(photocore.Move(move)))
            positions += 1
            if sorted(str(m) for m in game.legal_moves()) != sorted(ref.legal_moves()):
                mismatches += 1
                print(f"legal moves differ from photoref at {game.position()}", file=sys.stderr)
    return len(lines), positions, mismatches


def reference_of(game, ReferenceGame):
    """A photoref game set to the position of a photocore Game (photoref has no position
    reader: its fields are set from what the Game shows)."""
    import photoref
    ref = ReferenceGame(game.players, game.options.fourth_revolution, game.options.shade_blocks)
    ref.phase, ref.round, ref.sun, ref.first_player = game.phase, game.round, game.sun, game.first_player
    ref.current_player = game.current_player
    ref._board = {photoref._COORD_OF[cell]: piece for cell, piece in game.board().items()}
    ref.placements = len(ref._board) if game.phase == "setup" else 2 * game.players
    ref._activated = {photoref._COORD_OF[cell] for cell in game.activated()}
    for p in range(game.players):
        ref._light[p] = game.light[p]
        ref._available[p] = list(game.available(p))
        ref._player_board[p] = list(game.player_board(p))
        ref._tokens[p] = list(game.tokens(p))
        on_board = [sum(1 for o, s in game.board().values() if o == p and s == size)
                    for size in range(4)]
        ref._out[p] = [photoref.TOTAL[k] - ref._available[p][k] - ref._player_board[p][k]
                       - on_board[k] for k in range(4)]
    for leaves, left in zip((4, 3, 2, 1), game.stacks):
        stack = photoref.START_STACKS[leaves]
        ref._stacks[leaves] = list(stack[len(stack) - left:]) if left else []
    return ref


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20,
                    help="each code path's, the paths side by side (default 20)")
    ap.add_argument("--runs", type=int, default=0, help="executions in all instead of --seconds")
    ap.add_argument("--corpus", type=pathlib.Path, default=None,
                    help="keep the corpus here (default: a fresh temporary one)")
    ap.add_argument("--artifacts", type=pathlib.Path, default=ROOT / "fuzz" / "artifacts")
    ap.add_argument("--reference", type=int, default=200, metavar="N",
                    help="compare the games of up to N corpus inputs with photoref (default 200)")
    ap.add_argument("--paths", default="x86-64-v3,baseline",
                    help="code paths to fuzz, comma-separated (default both)")
    ap.add_argument("--replay", type=pathlib.Path, help="run one saved input and show the result")
    ap.add_argument("--build", type=pathlib.Path,
                    help="build in this folder, and reuse the build found there")
    ap.add_argument("--json", type=pathlib.Path, help="also write the results here")
    args = ap.parse_args(argv)
    if not shutil.which("clang"):
        sys.exit("fuzz/kernel needs clang with libFuzzer (Debian: apt-get install clang)")
    args.artifacts.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = args.build or pathlib.Path(tmp)
        start = time.time()
        if args.build and (scratch / "fuzz_kernel").exists():
            harness, env = scratch / "fuzz_kernel", environment(scratch)
        else:
            scratch.mkdir(parents=True, exist_ok=True)
            harness, env = build(scratch)
            print(f"built the fuzz harness in {time.time() - start:.0f} s", flush=True)
        if args.replay:
            return subprocess.run([str(harness), str(args.replay)], env=env).returncode
        corpus = args.corpus or scratch / "corpus"
        corpus.mkdir(parents=True, exist_ok=True)
        seeds = scratch / "seeds"
        seed_inputs(seeds)
        paths = [p for p in args.paths.split(",") if p]
        results, ok = [], True
        # the code paths' campaigns side by side, one a core, on the one corpus (libFuzzer
        # reloads what the other adds)
        logs = [args.artifacts / f"kernel-{path}.log" for path in paths]
        with concurrent.futures.ThreadPoolExecutor(len(paths)) as pool:
            campaigns = [pool.submit(fuzz, harness, env, corpus, seeds, args.artifacts,
                                     args.seconds, args.runs // len(paths), path, log)
                         for path, log in zip(paths, logs)]
        for path, log, campaign in zip(paths, logs, campaigns):
            passed, executions, coverage, tail = campaign.result()
            print(f"kernel [{path}]: {'ok' if passed else 'FAILED'}, {executions:,} inputs, "
                  f"cov {coverage} (log: {log})", flush=True)
            if not passed:
                print(tail, file=sys.stderr)
            ok &= passed
            results.append({"code_path": path, "ok": passed, "executions": executions,
                            "coverage": coverage})
        summary = {"campaigns": results, "corpus_inputs": len(list(corpus.iterdir()))}
        if ok and args.reference:
            games, positions, mismatches = reference(harness, env, corpus, args.reference)
            print(f"photoref: {games} corpus games, {positions:,} positions, "
                  f"{mismatches} with different legal moves", flush=True)
            ok &= mismatches == 0
            if games == 0:
                print("photoref: no corpus game was recorded, so none was compared",
                      file=sys.stderr)
                ok = False
            summary["reference"] = {"games": games, "positions": positions,
                                    "mismatches": mismatches}
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(summary, indent=1))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
