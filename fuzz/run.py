"""Runs the fuzz targets, each in its own process, --jobs at once (default: one a core),
and reports.

    python fuzz/run.py --seconds 15                  # every target, 15 s each (CI)
    python fuzz/run.py --seconds 600 --corpus fuzz/corpus --targets record_file,pickled_state
    python fuzz/run.py --sanitize --seconds 60       # against an ASan/UBSan build
    python fuzz/run.py --replay fuzz/artifacts/record_file-crash-1234  # one input again

Each target runs under atheris (coverage-guided libFuzzer) when it is installed, else under
a plain random driver (random and mutated inputs, no coverage feedback). A target fails on
an input that raises anything but the documented exceptions, gives a wrong result, takes
longer than the per-input budget, or crashes the process; the input is kept under
--artifacts. Exit status 1 if any target failed. See fuzz/README.md.
"""

import argparse
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
NAMES = ["move_text", "action_id", "position_text", "record_file", "vecgame_inputs",
         "pickled_state", "constructors"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=15, help="per target (default 15)")
    parser.add_argument("--targets", default=",".join(NAMES),
                        help=f"comma-separated (default all: {','.join(NAMES)})")
    parser.add_argument("--engine", choices=["auto", "atheris", "random"], default="auto",
                        help="auto: atheris when it imports, else random")
    parser.add_argument("--corpus", type=pathlib.Path, default=None,
                        help="keep each target's corpus in CORPUS/TARGET (default: a fresh "
                             "temporary one, seeded)")
    parser.add_argument("--artifacts", type=pathlib.Path, default=HERE / "artifacts",
                        help="where failing inputs are written (default fuzz/artifacts)")
    parser.add_argument("--timeout", type=int, default=60,
                        help="seconds before one input counts as a hang and the target "
                             "process is stopped (default 60; targets.py also fails any "
                             "input over PHOTOCORE_FUZZ_BUDGET, default 10 s)")
    parser.add_argument("--sanitize", action="store_true",
                        help="build photocore with PHOTOCORE_SANITIZE=1 in a scratch copy "
                             "and fuzz that build with libasan and libubsan preloaded")
    parser.add_argument("--json", type=pathlib.Path, default=None,
                        help="also write the results as JSON here")
    parser.add_argument("--replay", type=pathlib.Path, default=None,
                        help="run one saved input (name TARGET-...) and show what happens")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="targets fuzzed at once (default: one a core)")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        return random_worker(args.worker, args.seconds, args.corpus, args.artifacts,
                             args.timeout)
    if args.replay:
        return replay(args.replay)
    names = [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = set(names) - set(NAMES)
    if unknown:
        parser.error(f"unknown targets {sorted(unknown)}; the targets are {', '.join(NAMES)}")
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    engine = args.engine
    if engine == "auto":
        engine = "atheris" if _imports("atheris") else "random"
        if engine == "random":
            print("atheris is not installed (pip install atheris): fuzzing with the random "
                  "driver, without coverage feedback", file=sys.stderr)
    env = dict(os.environ)
    scratch = None
    if args.sanitize:
        scratch, sanitize_env = sanitized_build()
        env.update(sanitize_env)
    args.artifacts.mkdir(parents=True, exist_ok=True)
    results = []
    try:
        # each target is a process of its own: threads only wait for them
        with ThreadPoolExecutor(args.jobs) as pool:
            done = pool.map(lambda name: run_target(name, engine, args, env), names)
            for r in done:
                results.append(r)
                coverage = "" if r["coverage"] is None else f"  cov {r['coverage']:>5}"
                verdict = "ok" if r["ok"] else "FAILED: " + r["failure"]
                print(f"{r['target']:15} {r['engine']:8} {r['seconds']:6.1f} s "
                      f"{r['runs']:>9,} inputs{coverage}  {verdict}", flush=True)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    total = sum(r["runs"] for r in results)
    failed = [r for r in results if not r["ok"]]
    print(f"{len(results)} targets, {total:,} inputs in {sum(r['seconds'] for r in results):.0f} s"
          f"{'' if not args.sanitize else ' (sanitized build)'}: "
          f"{'no failure' if not failed else f'{len(failed)} FAILED'}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 1 if failed else 0


def _imports(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"],
                          capture_output=True).returncode == 0


def run_target(name, engine, args, env):
    """Fuzzes one target in a child process for args.seconds; returns its result dict."""
    corpus_root = args.corpus or pathlib.Path(tempfile.mkdtemp(prefix="photocore-corpus-"))
    corpus = corpus_root / name
    corpus.mkdir(parents=True, exist_ok=True)
    if not any(corpus.iterdir()):
        _write_seeds(name, corpus, env)
    start = time.monotonic()
    if engine == "atheris":
        prefix = f"{args.artifacts}/{name}-"
        command = [sys.executable, str(HERE / "target.py"), name, str(corpus),
                   f"-max_total_time={max(1, round(args.seconds))}",
                   f"-timeout={args.timeout}", f"-artifact_prefix={prefix}",
                   "-print_final_stats=1", "-rss_limit_mb=4096"]
    else:
        command = [sys.executable, str(HERE / "run.py"), "--worker", name,
                   "--seconds", str(args.seconds), "--corpus", str(corpus),
                   "--artifacts", str(args.artifacts), "--timeout", str(args.timeout)]
    proc = subprocess.run(command, env=env, capture_output=True, text=True, errors="replace",
                          timeout=args.seconds + args.timeout + 120, cwd=ROOT)
    seconds = time.monotonic() - start
    out = proc.stdout + proc.stderr
    runs = [int(n) for n in re.findall(r"Done (\d+) runs", out)]
    if not runs:   # a crash stops libFuzzer before its summary: take its last status line
        runs = [int(n) for n in re.findall(r"^#(\d+)\s", out, re.M)][-1:]
    coverage = re.findall(r"cov: (\d+)", out)
    result = {"target": name, "engine": engine, "seconds": round(seconds, 1),
              "runs": runs[-1] if runs else 0,
              "coverage": int(coverage[-1]) if coverage else None,
              "ok": proc.returncode == 0, "failure": "", "artifact": None}
    if not args.corpus:
        shutil.rmtree(corpus_root, ignore_errors=True)
    if proc.returncode != 0:
        artifact = re.findall(r"Test unit written to (\S+)|failing input written to (\S+)", out)
        result["artifact"] = next((a or b for a, b in artifact[-1:]), None)
        current = args.artifacts / f"{name}-current"
        if result["artifact"] is None and current.exists():   # the random driver, killed
            kept = args.artifacts / (f"{name}-crash-signal-{-proc.returncode}"
                                     if proc.returncode < 0 else f"{name}-hang")
            current.replace(kept)
            result["artifact"] = str(kept)
        reason = re.findall(r"Uncaught Python exception: ===\n(.*)|^\w*Error: (.*)|"
                            r"(ERROR: \w+Sanitizer.*)|(runtime error: .*)|"
                            r"(deadly signal|timeout after \d+ seconds|out-of-memory.*|"
                            r"Timeout \(\d+:\d+:\d+\)!)", out, re.M)
        result["failure"] = (next((x for x in reason[0] if x), "") if reason
                             else f"exit status {proc.returncode}")
        if result["artifact"]:
            result["failure"] += f" (input: {result['artifact']})"
        log = args.artifacts / f"{name}.log"
        log.write_text(out)
        print(out[-4000:], file=sys.stderr)
        print(f"full log: {log}", file=sys.stderr)
    return result


def _write_seeds(name, corpus, env):
    code = ("import sys, pathlib; sys.path.insert(0, sys.argv[1]); import targets\n"
            "for i, data in enumerate(targets.seeds(sys.argv[2])):\n"
            "    (pathlib.Path(sys.argv[3]) / f'seed-{i}').write_bytes(data)\n")
    subprocess.run([sys.executable, "-c", code, str(HERE), name, str(corpus)], env=env,
                   check=True)


def random_worker(name, seconds, corpus, artifacts, timeout):
    """The fallback engine, in the child process: seeds, random bytes and mutations of
    both, until `seconds` pass. A failing input is written to ARTIFACTS/NAME-crash-N; the
    input being tried is always in ARTIFACTS/NAME-current, for a crash of the process."""
    import faulthandler

    sys.path.insert(0, str(HERE))
    import checks
    import targets

    target = targets.TARGETS[name]
    pool = [p.read_bytes() for p in sorted(pathlib.Path(corpus).iterdir())] if corpus else []
    pool = pool or targets.seeds(name)
    artifacts.mkdir(parents=True, exist_ok=True)
    current = artifacts / f"{name}-current"
    rng = random.Random(os.getpid() ^ time.time_ns())
    deadline = time.monotonic() + seconds
    runs = 0
    while time.monotonic() < deadline:
        if rng.random() < 0.3:
            data = bytes(rng.randrange(256) for _ in range(rng.choice([8, 32, 128, 512])))
        else:
            data = checks.mutate_bytes(rng.choice(pool), rng, rng.randint(1, 8))
        faulthandler.dump_traceback_later(timeout, exit=True)    # a hang, even in C
        current.write_bytes(data)
        try:
            target(data)
        except Exception as e:  # noqa: BLE001
            faulthandler.cancel_dump_traceback_later()
            path = artifacts / f"{name}-crash-{runs}"
            path.write_bytes(data)
            import traceback
            traceback.print_exc()
            print(f"{type(e).__name__}: {e}\nfailing input written to {path}")
            print(f"Done {runs + 1} runs")
            return 1
        runs += 1
        if runs % 16 == 0:
            pool.append(data)       # a little memory of what was tried
            if len(pool) > 512:
                pool.pop(rng.randrange(len(pool)))
    faulthandler.cancel_dump_traceback_later()
    current.unlink(missing_ok=True)
    print(f"Done {runs} runs in {seconds:.0f} second(s)")
    return 0


def replay(path):
    """Runs one saved input through its target (named by the file's prefix)."""
    sys.path.insert(0, str(HERE))
    import targets

    name = next((n for n in NAMES if path.name.startswith(n)), None)
    if name is None:
        sys.exit(f"{path}: the file name must start with a target name ({', '.join(NAMES)})")
    targets.TARGETS[name](path.read_bytes())
    print(f"{path}: {name} passes on this input")
    return 0


def sanitized_build():
    """Builds photocore with AddressSanitizer and UBSan in a scratch copy (as .ci/sanitize)
    and returns (the folder, the environment that runs Python against that build)."""
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="photocore-asan-"))
    for part in ("setup.py", "pyproject.toml", "README.md", "src", "seeds"):
        source = ROOT / part
        (shutil.copytree if source.is_dir() else shutil.copy)(source, scratch / part)
    print("building photocore with PHOTOCORE_SANITIZE=1 ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=scratch,
                   check=True, stdout=subprocess.DEVNULL,
                   env={**os.environ, "PHOTOCORE_SANITIZE": "1"})
    libs = [subprocess.run(["gcc", f"-print-file-name={lib}"], capture_output=True, text=True,
                           check=True).stdout.strip() for lib in ("libasan.so", "libubsan.so")]
    env = {
        "PYTHONPATH": str(scratch / "src"),
        "LD_PRELOAD": " ".join(libs),
        # Python itself is not instrumented: its allocator's leaks and its odd reads are not
        # ours; abort on the first report so it ends the target as a crash
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "PHOTOCORE_FUZZ_EXPECT_BUILD": str(scratch / "src"),
    }
    return scratch, env


if __name__ == "__main__":
    sys.exit(main())
