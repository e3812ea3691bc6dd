"""Test support in Cython, compiled when a test asks for it: a .pyx of tests/ built against
the photocore the tests import (cimporting its .pxd, as examples/flat_mc does), so that
what only the tests use is not compiled into the package (tests/key_census.pyx)."""

import importlib.util
import pathlib
import shutil
import subprocess
import sys

import photocore

HERE = pathlib.Path(__file__).resolve().parent
# `cimport photocore._kernel` finds photocore/_kernel.pxd in the folder above the package
PACKAGE_PARENT = pathlib.Path(photocore.__file__).resolve().parent.parent

SETUP = """
import sys
from Cython.Build import cythonize
from setuptools import Extension, setup
name, include = sys.argv[1:3]
setup(ext_modules=cythonize([Extension(name, [name + ".pyx"], extra_compile_args=["-O3"])],
                            include_path=[include], quiet=True),
      script_args=["-q", "build_ext", "--inplace"])
"""


def build(name, folder):
    """tests/NAME.pyx compiled in `folder` (an empty one) and imported: the module."""
    shutil.copy(HERE / f"{name}.pyx", folder)
    result = subprocess.run([sys.executable, "-c", SETUP, name, str(PACKAGE_PARENT)],
                            cwd=folder, capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError(f"tests/{name}.pyx did not build:\n{result.stdout}{result.stderr}")
    (library,) = list(folder.glob(f"{name}.*.so")) or list(folder.glob(f"{name}.*.pyd"))
    spec = importlib.util.spec_from_file_location(name, library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
