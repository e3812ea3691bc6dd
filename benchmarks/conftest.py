import time

import bench   # benchmarks/bench.py: the workloads with their reference side
import pytest

from photocore import speed

REPORT = []


@pytest.fixture
def report():
    """Adds a line to the summary printed after the benchmarks."""
    return REPORT.append


@pytest.fixture
def timed(benchmark):
    """benchmark.pedantic that also times under --benchmark-disable (one call, where
    pytest-benchmark keeps no stats): (seconds of the fastest call, first value, last value).
    """

    def run(call, rounds=3, warmup=False):
        times, values = [], []

        def timed_call():
            start = time.perf_counter()
            value = call()
            times.append(time.perf_counter() - start)
            values[1:] = [value]   # keeps the first and the last
            return value

        benchmark.pedantic(timed_call, rounds=rounds, iterations=1, warmup_rounds=int(warmup))
        return min(times), values[0], values[-1]

    return run


@pytest.fixture
def measure(benchmark, timed, report):
    """Times a workload of benchmarks/bench.py, fails unless its result is right, and
    reports its figures with the speed-up over photoref on the same work."""

    def run(workload, rounds=5):
        result = speed.measure(workload, lambda call, warmup: timed(call, rounds, warmup),
                               bench.with_reference)
        assert result["check"]["passed"], f"{workload.name}: {result['check']['detail']}"
        benchmark.extra_info.update(result["figures"])
        line = f"{workload.name}: {speed.figure_text(result['figures'])}"
        if result["reference"]:
            benchmark.extra_info.update(speedup=result["ratio"])
            line += (f" = {result['ratio']:,.0f} x photoref "
                     f"({speed.figure_text(result['reference']['figures'], both=False)})")
        report(f"{line}\n    {workload.describe}")
        return result

    return run


def pytest_terminal_summary(terminalreporter):
    if REPORT:
        once = terminalreporter.config.getoption("benchmark_disable")
        terminalreporter.section("photocore figures (same process, one thread unless said"
                                 + ("; one call each, untimed by pytest-benchmark: "
                                    "--benchmark-enable for real figures)" if once else ")"))
        for line in REPORT:
            terminalreporter.write_line(line)
