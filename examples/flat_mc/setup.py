"""Builds flat_mc against the installed photocore: python setup.py build_ext --inplace"""
import os

import photocore
from Cython.Build import cythonize
from setuptools import Extension, setup

# `cimport photocore._kernel` finds photocore/_kernel.pxd (shipped with the package) on
# Cython's include path: the directory that holds the installed photocore package.
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(photocore.__file__)))

setup(
    name="flat_mc",
    ext_modules=cythonize(
        [Extension("flat_mc", ["flat_mc.pyx"], extra_compile_args=["-O3"])],
        include_path=[PACKAGE_PARENT],
    ),
)
