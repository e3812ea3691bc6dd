"""Doctest collection over src/photocore and docs/: the modules and pages of an extra that is
not installed are left out, as their tests skip; and all of src/ when the photocore
installed is not the one built there (a wheel's: src/ has no compiled modules to import,
.ci/wheel)."""

import importlib.util
import pathlib

_EXTRAS = {"gymnasium": ["src/photocore/env/gym.py", "docs/rl.md"],
           "pettingzoo": ["src/photocore/env/pettingzoo.py"],
           "pyspiel": ["src/photocore/env/openspiel.py"],
           "ray": ["src/photocore/run/ray_backend.py"],
           "stable_baselines3": ["src/photocore/env/sb3.py", "docs/rl.md"],
           "matplotlib": ["src/photocore/plots.py"],
           "scipy": ["src/photocore/stats.py"],
           "fastapi": ["src/photocore/serve/app.py", "src/photocore/serve/models.py",
                       "src/photocore/serve/view.py"],
           "sse_starlette": ["src/photocore/serve/app.py", "src/photocore/serve/events.py"],
           "uvicorn": ["src/photocore/serve/http.py"]}

collect_ignore = [path for module, paths in _EXTRAS.items()
                  if importlib.util.find_spec(module) is None for path in paths]
# the documentation site's Sphinx configuration, its extension, its build and the files that
# extension writes (.ci/docs): no examples there
collect_ignore += ["docs/conf.py", "docs/_ext", "docs/_build", "docs/_generated"]

_SOURCE = pathlib.Path(__file__).resolve().parent / "src" / "photocore"
_installed = importlib.util.find_spec("photocore")
if _installed is None or not pathlib.Path(_installed.origin).resolve().is_relative_to(_SOURCE):
    # (a glob: collect_ignore leaves a directory given as a path to collect, testpaths' own)
    collect_ignore_glob = ["src/photocore/*"]
