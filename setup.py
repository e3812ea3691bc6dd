"""Builds the compiled kernels.

PHOTOCORE_NATIVE=1 compiles for the building machine's CPU (-march=native: hardware popcount,
BMI2, ...). The default build runs on any x86-64 or arm64 the interpreter runs on; on x86-64
it also compiles the kernel for x86-64-v2 (hardware popcount; Nehalem, Bulldozer and later)
and x86-64-v3 (also BMI1/2; Haswell, Zen and later), and the default kernel loads the
highest the CPU runs in its own place at import (src/photocore/_kernel.pyx, end).
PHOTOCORE_DEBUG=1 turns bounds checks back on and disables optimisation, for debugging.
PHOTOCORE_SANITIZE=1 builds with AddressSanitizer and UndefinedBehaviorSanitizer at -O1 (see
docs/hardening.md for running Python under them). The build is at -O3 unless CFLAGS names a
level (CFLAGS=-O1: a quicker build, a slower kernel).

The flags above are gcc's and clang's; MSVC (Windows) gets /O2 (/Od /Zi for PHOTOCORE_DEBUG=1)
and has no native or sanitized build.

Cython translates every module at once and the C compiler compiles every extension at once
(pip install included: it passes no -j); PHOTOCORE_BUILD_JOBS=N runs N at a time instead.
PHOTOCORE_MODULES=_kernel,_game builds those modules alone (fuzz/kernel's harness needs no
more: the others would double its build).
"""
import os
import platform
import sys
import tempfile

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError

native = os.environ.get("PHOTOCORE_NATIVE") == "1"
debug = os.environ.get("PHOTOCORE_DEBUG") == "1"
sanitize = os.environ.get("PHOTOCORE_SANITIZE") == "1"
# None: one job per module. A pool of one job per core left the last extensions compiling one
# after another on 2 cores, the slowest last; all at once, the OS shares the cores among them
jobs = int(os.environ.get("PHOTOCORE_BUILD_JOBS") or 0) or None
# the lanes' C, which the kernel includes (a change rebuilds it)
LANES = ["src/photocore/_lanes.h", "src/photocore/_lanes_loop.h"]
MODULES = ("_kernel", "_game", "play._agents", "play._search", "play._solver", "env._vec")
if os.environ.get("PHOTOCORE_MODULES"):
    chosen = [name.strip() for name in os.environ["PHOTOCORE_MODULES"].split(",")]
    unknown = sorted(set(chosen) - set(MODULES))
    if unknown:
        raise SystemExit(f"PHOTOCORE_MODULES: no module {', '.join(unknown)} here; the "
                         f"modules are {', '.join(MODULES)}")
    MODULES = tuple(name for name in MODULES if name in chosen)
# Cython's own processes are forked: where they would be spawned (macOS, Windows) they would
# run this file again, so Cython runs in this process there
cython_jobs = (jobs or len(MODULES)) if sys.platform.startswith("linux") else 0

# -O3, but a sanitized build at -O1 (as AddressSanitizer advises: half the compile time) and
# a level CFLAGS names, the builder's as in any C build (CI's checks on other Pythons: -O1)
chosen_level = any(flag.startswith("-O") for flag in os.environ.get("CFLAGS", "").split())
compile_args = (["-O0", "-g"] if debug else ["-O1"] if sanitize else []
                if chosen_level else ["-O3"])
# the lanes' portable copy (_lanes.h) passes AVX-512-sized vectors between its own inlined
# functions, whose ABI without AVX-512 -Wpsabi warns of: no call crosses it
compile_args.append("-Wno-psabi")
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
        [f"src/photocore/{name.replace('.', '/')}.pyx"],
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("PHOTOCORE_NATIVE", "1" if native else "0")],
        depends=LANES if name == "_kernel" else [],
    )
    for name in MODULES
]

extensions = cythonize(extensions, compiler_directives=directives,
                       compile_time_env={"PHOTOCORE_NATIVE": native}, nthreads=cython_jobs)
if ("_kernel" in MODULES and not (native or debug) and os.name == "posix"
        and platform.machine().lower() in ("x86_64", "amd64")):
    # the same C (_kernel_x86_64_vN.c includes _kernel.c, naming its level): the module
    # photocore._kernel, which loads the copy the CPU runs best in its own place
    for level in ("x86-64-v2", "x86-64-v3"):
        name = "_kernel_" + level.replace("-", "_")
        extensions.append(Extension(
            f"photocore.{name}",
            [f"src/photocore/{name}.c"],
            depends=["src/photocore/_kernel.c", *LANES],
            extra_compile_args=compile_args + [f"-march={level}"],
            extra_link_args=link_args,
            define_macros=[("PHOTOCORE_NATIVE", "0")],
        ))


class BuildExt(build_ext):
    """MSVC's flags in place of gcc's and clang's, and gcc's own, once the compiler is known."""

    def build_extensions(self):
        if self.compiler.compiler_type == "msvc":
            if native or sanitize:
                raise SystemExit("PHOTOCORE_NATIVE=1 and PHOTOCORE_SANITIZE=1 need gcc or clang")
            for extension in self.extensions:
                extension.extra_compile_args = ["/Od", "/Zi"] if debug else ["/O2"]
        elif self.accepts("-fno-ipa-icf"):
            # gcc folds functions of the same code into one: the kernel's random_turn, whose
            # copies for odd and even turns are the same code, would then be called twice and
            # not written out where it is called (_kernel.pyx, random_moves). Clang has no
            # such flag, and does not fold
            for extension in self.extensions:
                if extension.name.startswith("photocore._kernel"):
                    extension.extra_compile_args = [*extension.extra_compile_args,
                                                    "-fno-ipa-icf"]
        super().build_extensions()

    def accepts(self, flag):
        """Whether the C compiler compiles with `flag`."""
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "flag.c")
            with open(source, "w") as f:
                f.write("int photocore_flag;\n")
            try:
                self.compiler.compile([source], output_dir=folder, extra_postargs=[flag])
            except CompileError:
                return False
        return True


setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt},
      options={"build_ext": {"parallel": jobs or len(extensions)}})
