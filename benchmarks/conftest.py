import bench  # benchmarks/bench.py: the workloads with their reference side
import pytest

from photocore.run import speed

REPORT = []
TIMED_ONCE = []   # calls that pytest-benchmark did not time (--benchmark-disable)


@pytest.fixture
def report():
    """Adds a line to the summary printed after the benchmarks."""
    return REPORT.append


@pytest.fixture
def timed(benchmark):
    """benchmark.pedantic: (seconds of the fastest round, first value, last value). Under
    --benchmark-disable pytest-benchmark makes the one call untimed: pyperf times it then.
    """

    def run(call, rounds=3, warmup=False):
        if benchmark.disabled:
            TIMED_ONCE.append(True)
            return benchmark.pedantic(speed.pyperf_timer(values=1, loops=1), ("call", call))
        values = []

        def kept():
            values[1:] = [call()]   # keeps the first and the last

        benchmark.pedantic(kept, rounds=rounds, iterations=1, warmup_rounds=int(warmup))
        return benchmark.stats.stats.min, values[0], values[-1]

    return run


@pytest.fixture
def measure(benchmark, timed, report):
    """Times a workload of benchmarks/bench.py, fails unless its result is right, and
    reports its figures with the speed-up over photoref on the same work."""

    def run(workload, rounds=5):
        result = bench.measure(workload, lambda name, call: timed(call, rounds, warmup=True))
        assert result["check"]["passed"], f"{workload.name}: {result['check']['detail']}"
        benchmark.extra_info.update(result["figures"])
        line = f"{workload.name}: {bench.figure_text(result['figures'])}"
        if result["reference"]:
            benchmark.extra_info.update(speedup=result["ratio"])
            line += (f" = {result['ratio']:,.0f} x photoref "
                     f"({bench.figure_text(result['reference']['figures'], both=False)})")
        report(f"{line}\n    {workload.describe}")
        return result

    return run


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        once = bool(TIMED_ONCE)
        terminalreporter.section("photocore figures (same process, one thread unless said"
                                 + ("; one call each, timed by pyperf, not by "
                                    "pytest-benchmark: --benchmark-enable for its figures)"
                                    if once else ")"))
        for line in REPORT:
            terminalreporter.write_line(line)
