"""Environments for learners: VecGame (n games in one C array) and the adapters for
OpenSpiel and PettingZoo."""
