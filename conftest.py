"""Doctest collection over src/photocore: the modules of an extra that is not installed are
left out, as their tests skip."""

import importlib.util

_EXTRAS = {"gymnasium": ["src/photocore/env/gym.py"],
           "pettingzoo": ["src/photocore/env/pettingzoo.py"],
           "pyspiel": ["src/photocore/env/openspiel.py"],
           "ray": ["src/photocore/run/ray_backend.py"],
           "stable_baselines3": ["src/photocore/env/sb3.py"],
           "matplotlib": ["src/photocore/plots.py"],
           "scipy": ["src/photocore/run/ratings.py"]}

collect_ignore = [path for module, paths in _EXTRAS.items()
                  if importlib.util.find_spec(module) is None for path in paths]
