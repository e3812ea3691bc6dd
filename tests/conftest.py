import pathlib
import sys

import pytest
import support

# the plain-Python reference implementation lives outside the package, in python/
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

# test support in Cython, compiled where a test asks for it (support.compiled): no module
# for pytest-cython to import and search for doctests
collect_ignore = ["key_census.pyx"]


def pytest_configure(config):
    support.NoProcessLeft.install(config)


@pytest.fixture(scope="session")
def ray_instance():
    """A local Ray instance of 2 CPUs, as CI has, shared by the tests that need one."""
    ray = pytest.importorskip("ray")
    before = support.descendants()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    # its processes (and the workers they start) live as long as the session
    ray_processes = {pid for pid, _ in support.descendants().keys() - before.keys()}
    support.KEPT.update(ray_processes)
    yield ray
    ray.shutdown()
    support.KEPT.difference_update(ray_processes)   # ended, as the session's end checks

