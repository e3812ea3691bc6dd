"""Builds the compiled kernels.

PHOTOCORE_NATIVE=1 compiles for the building machine's CPU (-march=native: hardware popcount,
BMI2, ...). The default build runs on any x86-64 or arm64 the interpreter runs on; on x86-64
it also builds the kernel a second time for x86-64-v3 (hardware popcount, BMI; Haswell, Zen
and later), which the default kernel loads in its own place at import on CPUs that have it
(src/photocore/_kernel.pyx, end).
PHOTOCORE_DEBUG=1 turns bounds checks back on and disables optimisation, for debugging.
PHOTOCORE_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer (see
docs/hardening.md for running Python under them).
"""
import os
import platform

from Cython.Build import cythonize
from setuptools import Extension, setup

native = os.environ.get("PHOTOCORE_NATIVE") == "1"
debug = os.environ.get("PHOTOCORE_DEBUG") == "1"
sanitize = os.environ.get("PHOTOCORE_SANITIZE") == "1"

compile_args = ["-O0", "-g"] if debug else ["-O3"]
link_args = []
if native and not debug:
    compile_args.append("-march=native")
if sanitize:
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
             "-fno-omit-frame-pointer", "-g"]
    compile_args += flags
    link_args += flags

directives = {
    "language_level": 3,
    "boundscheck": debug,
    "wraparound": debug,
    "cdivision": True,
    "initializedcheck": debug,
}

extensions = [
    Extension(
        f"photocore.{name}",
        [f"src/photocore/{name}.pyx"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("PHOTOCORE_NATIVE", "1" if native else "0"), ("PHOTOCORE_X86_64_V3", "0")],
    )
    for name in ("_kernel", "_game", "_agents", "_vec")
]

extensions = cythonize(extensions, compiler_directives=directives,
                       compile_time_env={"PHOTOCORE_NATIVE": native})
if (not (native or debug or sanitize) and os.name == "posix"
        and platform.machine().lower() in ("x86_64", "amd64")):
    # the same C (_kernel_x86_64_v3.c includes _kernel.c): the module photocore._kernel, which
    # loads this file in its own place
    extensions.append(Extension(
        "photocore._kernel_x86_64_v3",
        ["src/photocore/_kernel_x86_64_v3.c"],
        depends=["src/photocore/_kernel.c"],
        extra_compile_args=compile_args + ["-march=x86-64-v3"],
        define_macros=[("PHOTOCORE_NATIVE", "0"), ("PHOTOCORE_X86_64_V3", "1")],
    ))

setup(ext_modules=extensions)
