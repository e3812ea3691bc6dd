"""The release configuration (docs/packaging.md): the wheels cibuildwheel is set to build,
the release workflow against GitHub's schema, the Python versions the metadata claims
against those CI tests. .ci/wheel and .ci/pythons build and test the artifacts themselves."""

import os
import re
import subprocess
import sys
import tomllib

import pytest
from installed import ROOT

WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"
PYTHONS = range(11, 15)        # CPython 3.11 to 3.14
# each platform's wheels: 64-bit only; Linux's for glibc (manylinux) and musl (musllinux)
PLATFORMS = {
    "linux": ["manylinux_x86_64", "manylinux_aarch64", "musllinux_x86_64", "musllinux_aarch64"],
    "macos": ["macosx_x86_64", "macosx_arm64"],
    "windows": ["win_amd64"],
}


def project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def in_checkout(path):
    if not path.exists():       # cibuildwheel's test copy has the tests, not the CI files
        pytest.skip(f"{path.relative_to(ROOT)} is not here: not a checkout")
    return path


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
@pytest.mark.slow
def test_cibuildwheel_builds_each_python_on_each_platform(platform):
    pytest.importorskip("cibuildwheel")
    environment = {name: value for name, value in os.environ.items()
                   if not name.startswith("CIBW_")}     # the configuration alone
    listed = subprocess.run(
        [sys.executable, "-m", "cibuildwheel", "--print-build-identifiers",
         "--platform", platform], cwd=ROOT, env=environment, capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert sorted(listed.stdout.split()) == sorted(
        f"cp3{minor}-{tag}" for minor in PYTHONS for tag in PLATFORMS[platform])


def test_the_oldest_python_built_is_the_oldest_supported():
    assert project()["requires-python"] == f">=3.{PYTHONS[0]}"


def test_the_classifiers_name_the_pythons_ci_tests():
    # .ci/run tests the oldest (the whole suite), .ci/pythons the others it names
    loop = re.search(r"^for version in ([\d. ]+); do$",
                     in_checkout(ROOT / ".ci" / "pythons").read_text(encoding="utf-8"), re.M)
    tested = [f"3.{PYTHONS[0]}", *loop.group(1).split()]
    claimed = [c.rpartition(" :: ")[2] for c in project()["classifiers"]
               if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert claimed == tested


def test_the_release_workflow_matches_githubs_schema():
    pytest.importorskip("check_jsonschema")
    checked = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema",
         "vendor.github-workflows", str(in_checkout(WORKFLOW))], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
