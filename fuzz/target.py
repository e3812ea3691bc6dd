"""Runs one fuzz target under atheris (libFuzzer): `python fuzz/target.py NAME [LIBFUZZER ARGS]`.

The photocore package and the checks are imported under atheris's instrumentation, so
the Python code paths they take (notation, positions, records, the checks' own branches)
guide the fuzzer; the compiled kernels run as they are built (see fuzz/README.md for a
sanitizer build). Any libFuzzer flag works: -max_total_time=60, -runs=N, -timeout=S,
CORPUS_DIR, or a crash file to replay it.
"""

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

with atheris.instrument_imports(include=["photocore", "checks", "targets"]):
    import targets


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in targets.TARGETS:
        sys.exit(f"usage: {sys.argv[0]} TARGET [libFuzzer args]; targets: "
                 f"{', '.join(targets.TARGETS)}")
    name = sys.argv.pop(1)
    atheris.Setup(sys.argv, targets.TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
