import os
import pathlib
import shutil
import sys
import tempfile

import pytest
import support

# the plain-Python reference implementation lives outside the package, in python/
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))

# test support in Cython, compiled where a test asks for it (support.compiled): no module
# for pytest-cython to import and search for doctests
collect_ignore = ["key_census.pyx"]


def pytest_configure(config):
    support.NoTempLeft.install(config)
    support.NoProcessLeft.install(config)


@pytest.fixture(scope="session", autouse=True)
def scratch_of_other_libraries(tmp_path_factory):
    """What libraries the tests drive keep on purpose, in the session's tmp_path rather
    than the temporary folder NoTempLeft checks: Stable-Baselines3's learn() makes a log
    folder even when it logs nothing, PyTorch keeps its compiled kernels' cache."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("torchinductor"))


@pytest.fixture(scope="session")
def ray_instance():
    """A local Ray instance of 2 CPUs, as CI has, shared by the tests that need one."""
    ray = pytest.importorskip("ray")
    before = support.descendants()
    # its session folder (logs, sockets: short paths, under 107 bytes) removed after it
    temp = tempfile.mkdtemp(prefix="ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _temp_dir=temp)
    # its processes (and the workers they start) live as long as the session
    ray_processes = {pid for pid, _ in support.descendants().keys() - before.keys()}
    support.KEPT.update(ray_processes)
    yield ray
    ray.shutdown()
    support.KEPT.difference_update(ray_processes)   # ended, as the session's end checks
    shutil.rmtree(temp, ignore_errors=True)

