import pathlib
import sys

# the plain-Python reference implementation lives outside the package, in python/
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "python"))
