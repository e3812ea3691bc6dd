"""The release configuration (docs/packaging.md, docs/releasing.md): the wheels
cibuildwheel is set to build, the release workflow against GitHub's schema, the Python
versions the metadata claims against those CI tests, the version against the release
notes, and the metadata of a built wheel (PHOTOCORE_WHEEL, which .ci/wheel sets). .ci/wheel
and .ci/pythons build and test the artifacts themselves."""

import configparser
import email.parser
import os
import pathlib
import re
import subprocess
import sys
import tomllib
import zipfile

import pytest
from installed import ROOT
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

WORKFLOW = ROOT / ".github" / "workflows" / "wheels.yml"
# the path of a built wheel whose metadata the last tests read: .ci/wheel sets it to the
# manylinux wheel it built; unset (a plain test run), those tests skip and build nothing
WHEEL = os.environ.get("PHOTOCORE_WHEEL")
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


def test_the_version_is_the_release_notes_top_release():
    # CHANGELOG.md's first section is this version's release (0.3.0 for 0.3.0.dev0):
    # dated for a release, "unreleased" for a development version (docs/releasing.md)
    notes = in_checkout(ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    release, date = re.search(r"^## (\S+) — (.+)$", notes, re.M).groups()
    version = Version(project()["version"])
    assert release == version.base_version
    if version.is_devrelease:
        assert date == "unreleased"
    else:
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", date), date


def test_the_license_file_is_the_licenses():
    text = in_checkout(ROOT / "LICENSE").read_text(encoding="utf-8")
    assert project()["license"] == "MIT" and text.startswith("MIT License\n")
    assert project()["license-files"] == ["LICENSE"]


@pytest.fixture(scope="module")
def wheel():
    """The built wheel's metadata files: {name within .dist-info: text}."""
    if not WHEEL:
        pytest.skip("no built wheel: PHOTOCORE_WHEEL names one (.ci/wheel sets it)")
    path = pathlib.Path(WHEEL)
    with zipfile.ZipFile(path) as archive:
        info = {name.partition("/")[2]: archive.read(name).decode()
                for name in archive.namelist() if name.split("/")[0].endswith(".dist-info")}
    return path, info


def test_the_wheel_is_photocore_at_this_version(wheel):
    path, info = wheel
    metadata = email.parser.Parser().parsestr(info["METADATA"])
    assert metadata["Name"] == "photocore"
    assert metadata["Version"] == project()["version"]
    assert path.name.startswith(f"photocore-{project()['version']}-cp3")
    assert metadata["Summary"] == project()["description"]


def test_the_wheel_declares_the_license_and_carries_it(wheel):
    _, info = wheel
    metadata = email.parser.Parser().parsestr(info["METADATA"])
    assert metadata["License-Expression"] == "MIT"
    assert metadata.get_all("License-File") == ["LICENSE"]
    assert info["licenses/LICENSE"] == (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_the_wheel_declares_the_pythons_and_the_extras(wheel):
    _, info = wheel
    metadata = email.parser.Parser().parsestr(info["METADATA"])
    assert metadata["Requires-Python"] == ">=3.11"
    assert metadata.get_all("Classifier") == project()["classifiers"]
    assert "Programming Language :: Python :: 3.11" in metadata.get_all("Classifier")
    extras = project()["optional-dependencies"]
    assert sorted(metadata.get_all("Provides-Extra")) == sorted(extras)
    assert {"test", "serve", "rl", "docs"} <= set(extras)
    requires = [Requirement(r) for r in metadata.get_all("Requires-Dist")]
    # the dependencies unconditioned, and each extra's under its marker
    assert [same(r) for r in requires if r.marker is None] == [
        same(Requirement(r)) for r in project()["dependencies"]]
    for name, packages in extras.items():
        marked = [same(r) for r in requires
                  if r.marker is not None and r.marker.evaluate({"extra": name})]
        assert marked == [same(Requirement(r)) for r in packages], name


def same(requirement):
    """A requirement as written in any of its spellings (extras in any order)."""
    return (canonicalize_name(requirement.name), sorted(requirement.extras),
            str(requirement.specifier))


def test_the_wheel_installs_the_photocore_command(wheel):
    _, info = wheel
    entry_points = configparser.ConfigParser()
    entry_points.read_string(info["entry_points.txt"])
    assert dict(entry_points["console_scripts"]) == {"photocore": "photocore.cli:main"}


def test_every_package_of_the_source_is_one_the_build_ships():
    # setuptools' package list is written out (src/ holds the .pyx beside the modules): a
    # subpackage missing from it would leave its modules out of every wheel
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"]["packages"]
    source = in_checkout(ROOT / "src" / "photocore")
    folders = [source, *(p for p in sorted(source.rglob("*"))
                         if p.is_dir() and p.name != "__pycache__")]
    assert sorted(listed) == sorted(".".join(("photocore", *f.relative_to(source).parts))
                                    for f in folders)
