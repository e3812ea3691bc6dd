"""Environments for learners: VecGame (n games in one C array), the Gymnasium environments
(gym.py), Stable-Baselines3's vector env (sb3.py), the adapters for OpenSpiel and
PettingZoo, and `evaluate_policy` (evaluation.py), which measures a policy against any
agents.

`evaluate_policy`, `PolicyEvaluation` and SB3's `Deadline` callback load their module on
first use, so importing this package needs none of the optional frameworks.
"""

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from photocore.env._vec import draw_below
    from photocore.env.evaluation import PolicyEvaluation, evaluate_policy
    from photocore.env.sb3 import Deadline

__all__ = ["Deadline", "PolicyEvaluation", "draw_below", "evaluate_policy"]

# public names, loaded with their module on first use (sb3 needs stable-baselines3)
_LAZY = {"evaluate_policy": "photocore.env.evaluation",
         "PolicyEvaluation": "photocore.env.evaluation",
         "Deadline": "photocore.env.sb3", "draw_below": "photocore.env._vec"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
