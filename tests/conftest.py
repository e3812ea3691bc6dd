import pathlib
import sys

import pytest

# the plain-Python reference implementation lives outside the package, in python/
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

# test support in Cython, compiled where a test asks for it (support.compiled): no module
# for pytest-cython to import and search for doctests
collect_ignore = ["key_census.pyx"]


@pytest.fixture(scope="session")
def ray_instance():
    """A local Ray instance of 2 CPUs, as CI has, shared by the tests that need one."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()

