"""photocore.env.sb3 (Stable-Baselines3's VecEnv on VecGame, the Deadline callback) and
photocore.env.evaluate_policy."""

import importlib.util
import pathlib
import time

import numpy as np
import pytest

import photocore
from photocore import NUM_ACTIONS, OBSERVATION_SIZE
from photocore.env import PolicyEvaluation, evaluate_policy
from photocore.env.evaluation import wilson
from photocore.play import specs

ROOT = pathlib.Path(__file__).resolve().parents[2]

sb3 = pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.evaluation import evaluate_policy as masked_evaluate  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.evaluation import evaluate_policy as sb3_evaluate  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecCheckNan, VecMonitor  # noqa: E402

from photocore.env.gym import PhotosynthesisEnv  # noqa: E402
from photocore.env.sb3 import Deadline, VecEnv  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def legal_random(masks, rng):
    """A random legal action per row of masks."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def check_vecenv(env, steps, rng):
    """SB3's VecEnv contract, step by step: what SB3's check_vecenv (stable-baselines3 after
    2.9) asserts, plus the values in the spaces and the final observations."""
    n = env.num_envs
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (n, *env.observation_space.shape)
    assert obs.dtype == env.observation_space.dtype
    ended = 0
    for t in range(steps):
        actions = legal_random(get_action_masks(env), rng)
        if t % 17 == 3:
            actions[0] = np.flatnonzero(~get_action_masks(env)[0])[0]     # forfeits
        obs, rewards, dones, infos = env.step(actions)
        assert obs.shape == (n, OBSERVATION_SIZE) and obs.dtype == np.float32
        assert rewards.shape == (n,) and rewards.dtype == np.float32
        assert dones.shape == (n,) and dones.dtype == bool
        assert isinstance(infos, list) and len(infos) == n
        assert all(isinstance(info, dict) for info in infos)
        assert all(env.observation_space.contains(o) for o in obs)
        for i in np.flatnonzero(dones):
            assert env.observation_space.contains(infos[i]["terminal_observation"])
            assert rewards[i] in (-1.0, 0.0, 1.0)
        assert not rewards[~dones].any()
        ended += dones.sum()
    assert ended > 0


def test_vecenv_passes_sb3_checks():
    env = VecEnv(8, opponents="random", options="fs")
    assert isinstance(env, sb3.common.vec_env.VecEnv)
    if importlib.util.find_spec("stable_baselines3.common.vec_env_checker"):
        from stable_baselines3.common.vec_env_checker import check_vecenv as sb3_check
        sb3_check(env)
    env.seed(0)
    # VecCheckNan raises on a NaN or inf anywhere; VecMonitor adds the episode statistics
    wrapped = VecMonitor(VecCheckNan(env, raise_exception=True))
    check_vecenv(wrapped, 200, np.random.default_rng(0))
    assert is_masking_supported(wrapped)


@pytest.mark.parametrize("players, opponents", [(2, "greedy"), (3, ["random", "greedy"])])
def test_vecenv_plays_as_dummyvecenv_of_single_envs(players, opponents):
    """Step for step what SB3's DummyVecEnv over PhotosynthesisEnv returns, seeded alike:
    observations, masks, rewards, dones, infos (terminal observations, forfeits, seats)."""
    ours = VecEnv(5, players=players, opponents=opponents, options="s")
    theirs = DummyVecEnv([lambda: PhotosynthesisEnv(players, opponents, options="s")
                          for _ in range(5)])
    assert ours.seed(7) == theirs.seed(7)
    assert np.array_equal(ours.reset(), theirs.reset())
    assert ours.reset_infos == [{"seat": info["seat"]} for info in theirs.reset_infos]
    rng = np.random.default_rng(1)
    ended = forfeits = 0
    for t in range(300):
        masks = np.stack(ours.env_method("action_masks"))
        assert np.array_equal(masks, get_action_masks(theirs))
        actions = legal_random(masks, rng)
        if t % 41 == 5:
            actions[1] = np.flatnonzero(~masks[1])[-1]
            forfeits += 1
        got, want = ours.step(actions), theirs.step(actions)
        for a, b in zip(got[:3], want[:3]):
            assert np.array_equal(a, b), t
        for a, b in zip(got[3], want[3]):
            b = {k: v for k, v in b.items() if k != "action_mask"}
            assert a.keys() == b.keys()
            assert all(np.array_equal(a[k], b[k]) for k in a)
        assert ours.reset_infos == [{"seat": info["seat"]} for info in theirs.reset_infos]
        ended += got[2].sum()
    assert ended > forfeits > 0


def test_reset_seeds_and_options():
    env = VecEnv(3, opponents="greedy", seat="random")
    env.seed(12)
    first = env.reset()
    vec = photocore.VecGame(3, 2, opponents="greedy", seat="random")
    assert np.array_equal(first, vec.reset(seed=12)[0])
    actions = env.action_masks().argmax(axis=1)
    env.step(actions)
    vec.step(actions)
    assert np.array_equal(env.reset(), vec.reset()[0])      # unseeded: the streams go on
    env.set_options({"fast": True})
    with pytest.raises(ValueError, match="reset takes no options"):
        env.reset()
    fresh = VecEnv(2, opponents="random")
    assert fresh.reset().shape == (2, OBSERVATION_SIZE)    # a first reset draws a seed


def test_per_game_attributes_and_methods():
    env = VecEnv(4, players=3, opponents="random", seat=2)
    env.reset()
    assert env.get_attr("seat") == [2] * 4
    assert env.get_attr("players", indices=[0, 3]) == [3, 3]
    assert env.get_attr("render_mode") == [None] * 4
    assert env.get_attr("game", 1)[0].current_player == 2
    masks = env.env_method("action_masks", indices=[3, 1])
    assert [m.shape for m in masks] == [(NUM_ACTIONS,)] * 2
    assert np.array_equal(masks[1], env.action_masks()[1])
    assert np.array_equal(env.get_attr("action_masks", [2])[0](), env.action_masks()[2])
    assert env.env_is_wrapped(VecMonitor) == [False] * 4
    env.set_attr("note", "x")
    assert env.get_attr("note") == ["x"] * 4
    with pytest.raises(AttributeError, match="nope"):
        env.get_attr("nope")
    with pytest.raises(AttributeError, match="render"):
        env.env_method("render")
    with pytest.raises(ValueError, match="all of them"):
        env.set_attr("note", "y", indices=[0])
    with pytest.raises(IndexError, match="out of range"):
        env.get_attr("seat", indices=[4])
    with pytest.raises(ValueError, match="opponents"):
        VecEnv(2, opponents="py:mine.py:Agent")
    with pytest.raises(ValueError, match="game 0"):
        env.step(np.full(4, NUM_ACTIONS))


@pytest.mark.slow
def test_maskable_ppo_trains_then_evaluates():
    """A few thousand MaskablePPO steps on the vector env, then SB3's evaluations and
    photocore's."""
    env = VecMonitor(VecEnv(64, opponents="random"))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [64]})
    model.learn(total_timesteps=4096, callback=Deadline(minutes=2))
    assert model.num_timesteps >= 4096
    evaluation = VecMonitor(VecEnv(4, opponents="random"))
    rewards, lengths = masked_evaluate(model, evaluation, n_eval_episodes=8,
                                       return_episode_rewards=True)
    assert len(rewards) == 8 and all(r in (-1.0, 0.0, 1.0) for r in rewards)
    # SB3's own evaluate_policy knows no masks: the model's illegal actions forfeit
    rewards, _ = sb3_evaluate(model, evaluation, n_eval_episodes=4,
                              return_episode_rewards=True)
    assert len(rewards) == 4
    result = evaluate_policy(model, "random", games=16)
    assert result.games == 16 and result.illegal == 0
    assert result.wins + result.ties + result.losses == 16


@pytest.mark.slow
def test_deadline_stops_learning():
    env = VecEnv(16, opponents="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=128, n_epochs=1,
                        policy_kwargs={"net_arch": [32]})
    deadline = Deadline(minutes=1 / 60)
    start = time.monotonic()
    model.learn(total_timesteps=10**9, callback=deadline)
    assert deadline.stopped and time.monotonic() - start < 30
    assert 0 < model.num_timesteps < 10**9
    with pytest.raises(ValueError, match="minutes"):
        Deadline(0)


def hashed(obs, mask):
    """A deterministic policy that plays like a weak random one: a legal action picked by
    a hash of the observation."""
    keys = (obs.sum(axis=1) * 997).astype(np.int64)
    return np.array([np.flatnonzero(m)[k % m.sum()] for k, m in zip(keys, mask)])


def test_evaluate_against_random():
    result = evaluate_policy(hashed, "random", games=60)
    assert isinstance(result, PolicyEvaluation) and result.opponents == "random"
    assert result.wins + result.ties + result.losses == 60 and result.illegal == 0
    assert 0.2 < result.win_rate < 0.8
    assert result.low < result.win_rate < result.high
    assert (result.low, result.high) == wilson(result.wins, 60)
    assert result.to_dict()["win_rate"] == result.win_rate
    assert "in 60 games" in str(result)
    # the same games in Python, against players made from the same spec
    same = evaluate_policy(hashed, specs.load("random"), games=60)
    assert (same.wins, same.ties, same.losses) == (result.wins, result.ties, result.losses)
    three = evaluate_policy(hashed, ["random", "greedy"], games=12, players=3, batch=5)
    assert three.games == 12 and three.opponents == "random,greedy"
    assert evaluate_policy(hashed, "random", games=7, seat=1, options="f").games == 7


def test_evaluate_counts_illegal_actions_and_forfeits():
    def end_turn_only(obs, mask):
        return np.full(len(obs), NUM_ACTIONS - 1)
    result = evaluate_policy(end_turn_only, "greedy", games=6)
    assert result.losses == 6 and 0 < result.illegal <= 6

    class Broken:
        def select(self, game):
            raise RuntimeError("no move")
    result = evaluate_policy(hashed, Broken(), games=3)
    assert result.wins == result.forfeits == 3


def test_evaluate_refuses_bad_input():
    with pytest.raises(ValueError, match="games"):
        evaluate_policy(hashed, "random", games=0)
    with pytest.raises(ValueError, match="list of 2"):
        evaluate_policy(hashed, ["random"], players=3)
    with pytest.raises(ValueError, match="seat"):
        evaluate_policy(hashed, "random", seat=2)
    with pytest.raises(ValueError, match="integer action per game"):
        evaluate_policy(lambda obs, mask: mask.astype(float), "random", games=2)
    with pytest.raises(TypeError, match="policy"):
        evaluate_policy(42, "random")
    with pytest.raises(ValueError, match="neither an agent spec"):
        evaluate_policy(hashed, object(), games=1)


def test_step_before_reset_is_refused():
    with pytest.raises(ValueError, match="reset"):
        VecEnv(2, opponents="random").step(np.zeros(2, np.int64))


@pytest.mark.slow
def test_ppo_torch_example_short_run():
    path = ROOT / "examples" / "rl" / "ppo_torch.py"
    spec = importlib.util.spec_from_file_location("ppo_torch", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    logged = []
    agent, steps = example.train("random", games=16, n_steps=8, steps=3200, batch_size=64,
                                 log=logged.append)
    assert steps == 3200 and len(logged) == 1
    result = evaluate_policy(agent.policy, "greedy", games=4)
    assert result.games == 4 and result.illegal == 0


@pytest.mark.slow
def test_the_ppo_examples_refuse_bad_options_before_training(capsys):
    import doctest
    import subprocess
    import sys

    path = ROOT / "examples" / "rl" / "ppo_command.py"
    spec = importlib.util.spec_from_file_location("ppo_command", path)
    command = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(command)
    assert doctest.testmod(command).failed == 0
    parser = command.parser("", "--games", "network")
    args = parser.parse_args(["--eval", "mcts:50:4,greedy:2", "--minutes", "0.5",
                              "--players", "3"])
    assert args.eval == [("mcts:50", 4), ("greedy", 2)] and args.minutes == 0.5
    # each bad value is refused at once, naming its option
    for bad, why in ((["--minutes", "-1"], "--minutes: must be a number of minutes > 0"),
                     (["--eval", "greedy"], "--eval: 'greedy': an opponent and its games"),
                     (["--eval", "mcts:100:0"], "--eval: 'mcts:100:0'"),
                     (["--opponents", "bogus"], "--opponents: unknown agent 'bogus'"),
                     (["--players", "5"], "--players: invalid choice: 5"),
                     (["--batch-size", "0"], "--batch-size: must be a whole number >= 1")):
        with pytest.raises(SystemExit):
            parser.parse_args(bad)
        assert why in capsys.readouterr().err, bad
    # and the scripts are made of it: refused before torch trains anything
    for script in ("maskable_ppo.py", "ppo_torch.py"):
        done = subprocess.run([sys.executable, str(ROOT / "examples" / "rl" / script),
                               "--eval", "greedy"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and "an opponent and its games" in done.stderr
