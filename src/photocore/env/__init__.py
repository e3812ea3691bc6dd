"""Environments for learners: VecGame (n games in one C array), the Gymnasium environments
(gym.py) and the adapters for OpenSpiel and PettingZoo."""
