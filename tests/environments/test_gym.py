"""The Gymnasium environments: the checkers of Gymnasium and SB3, opponents that play as the
agents select, determinism, the vector environment against n single ones, and a short
MaskablePPO run."""

import importlib.util
import pathlib
import shlex
import sys

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", minversion="1.0")   # AutoresetMode, make_vec

import photocore  # noqa: E402
import photocore.play.specs  # noqa: E402
from photocore import NUM_ACTIONS, OBSERVATION_SIZE  # noqa: E402
from photocore.env._vec import draw_below, stream_seed  # noqa: E402
from photocore.env.gym import ENV_ID, PhotosynthesisEnv, PhotosynthesisVectorEnv, opponent_seed  # noqa: E402

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("kwargs", [dict(), dict(players=3, opponents="random", seat=2),
                                    dict(players=4, opponents=["random", "greedy", "mcts:4"],
                                         options="s", shaping=0.1)])
def test_gymnasium_check_env(kwargs):
    from gymnasium.utils.env_checker import check_env
    env = gymnasium.make(ENV_ID, **kwargs)
    assert isinstance(env.unwrapped, PhotosynthesisEnv)
    check_env(env.unwrapped, skip_render_check=True)


def test_sb3_check_env():
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env
    check_env(PhotosynthesisEnv(opponents="random"), warn=True)
    check_env(PhotosynthesisEnv(players=3, opponents="greedy", shaping=0.05), warn=True)


def test_make_and_make_vec():
    env = gymnasium.make("photocore.env.gym:" + ENV_ID, opponents="random", seat=1)
    obs, info = env.reset(seed=0)
    assert obs.shape == (OBSERVATION_SIZE,) and obs.dtype == np.float32
    assert info["seat"] == 1 and info["action_mask"].dtype == bool
    assert np.array_equal(env.get_wrapper_attr("action_masks")(), info["action_mask"])
    assert env.observation_space.contains(obs)
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, opponents="random")
    assert isinstance(envs, PhotosynthesisVectorEnv) and envs.num_envs == 3
    assert envs.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.SAME_STEP
    synced = gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync",
                                opponents=photocore.Agent("greedy"))
    assert synced.reset(seed=1)[0].shape == (2, OBSERVATION_SIZE)


def test_the_advanced_rules_are_options():
    env = gymnasium.make(ENV_ID, players=3, opponents="random", options="fs")
    assert env.unwrapped.options == photocore.Options.parse("fs")
    env.reset(seed=0)
    assert env.unwrapped.game.options == env.unwrapped.options
    assert env.unwrapped.game.last_round == 24
    envs = gymnasium.make_vec(ENV_ID, num_envs=2, opponents="random", options="s")
    assert envs.vec.game(0).options == photocore.Options.parse("s")
    assert np.array_equal(env.observation_space.high,
                          np.array(photocore.facts.OBSERVATION_HIGH, np.float32))
    with pytest.raises(TypeError, match="shade_blocks"):
        PhotosynthesisEnv(shade_blocks=True)        # the rules are options= alone
    with pytest.raises(TypeError, match="fourth_revolution"):
        PhotosynthesisVectorEnv(2, opponents="random", fourth_revolution=True)
    with pytest.raises(ValueError, match="options 'x'"):
        PhotosynthesisEnv(options="x")


def play_episode(env, rng, first=None):
    """Random legal learner moves to the end; the (obs, reward, info) of every step."""
    obs, info = first or env.reset()
    steps, terminated = [(obs, 0.0, info)], False
    while not terminated:
        action = rng.choice(np.flatnonzero(env.action_masks()))
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        steps.append((obs, reward, info))
    return steps


@pytest.mark.parametrize("players,opponents,seat", [
    (2, "greedy", "random"), (3, ["mcts:8", "greedy"], "random"), (4, "random", 1)])
def test_opponents_play_as_the_agents_select(players, opponents, seat):
    # the documented seeding: opponent k is Agent(kind, seed=opponent_seed(seed, k)), the
    # seat drawn from stream_seed(seed, 0); the agents go on across episodes until reseeded
    env = PhotosynthesisEnv(players=players, opponents=opponents, seat=seat)
    specs = [opponents] * (players - 1) if isinstance(opponents, str) else opponents
    rng = np.random.default_rng(0)
    first = env.reset(seed=42)
    agents = [_agent(spec, opponent_seed(42, k)) for k, spec in enumerate(specs)]
    stream = stream_seed(42, 0)
    for episode in range(2):
        play_episode(env, rng, first if episode == 0 else None)
        if seat == "random":
            expected, stream = draw_below(stream, players)
            assert env.seat == expected
        replay = photocore.Game(players)
        for move in env.game.history:
            if replay.current_player != env.seat:
                k = (replay.current_player - env.seat - 1) % players
                assert agents[k].select(replay) == move
            replay.play(move)
        assert replay.is_over


def _agent(spec, seed):
    parsed = photocore.play.specs.parse(spec)
    simulations = parsed.simulations or photocore.play.specs.DEFAULT_SIMULATIONS
    return photocore.Agent(parsed.kind, seed=seed, simulations=simulations)


def test_python_agents_play_between_steps():
    class First:
        """Plays the first legal move; counts its games."""
        def __init__(self):
            self.games = 0

        def reset(self):
            self.games += 1

        def select(self, game):
            return str(game.legal_moves()[0])         # text is a move too

    first = First()
    env = PhotosynthesisEnv(players=3, opponents=[first, photocore.Agent("greedy", seed=1)],
                            seat=0)
    rng = np.random.default_rng(1)
    steps = play_episode(env, rng, env.reset(seed=0))
    assert first.games == 1 and env.game.is_over and len(steps) > 10
    replay = photocore.Game(3)
    for move in env.game.history:
        if replay.current_player == 1:
            assert move == replay.legal_moves()[0]
        replay.play(move)


def test_opponents_from_agent_specs_of_every_kind():
    # a py: spec (an agent class from a file, with arguments) and a cmd: engine speaking
    # the protocol: both play their seats; the engine's process ends with the environment
    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    python_agent = f"py:{examples / 'agents' / 'noisy_greedy.py'}:NoisyGreedy?epsilon=0.5"
    engine = f'cmd:"{shlex.join([sys.executable, str(examples / "engines" / "simple_engine.py")])}"'
    env = PhotosynthesisEnv(players=3, opponents=[python_agent, engine], seat=0)
    rng = np.random.default_rng(5)
    play_episode(env, rng, env.reset(seed=3))
    assert env.game.is_over
    assert [type(a).__name__ for a in env.agents] == ["PythonAgentPlayer", "Engine"]
    process = env.agents[1]._process
    assert process is not None and process.poll() is None     # the engine played its seat
    env.close()
    assert process.wait(timeout=10) is not None
    with pytest.raises(ValueError, match="nope"):
        PhotosynthesisEnv(opponents="nope")


def test_reward_is_the_learners_return_and_determinism():
    runs = []
    for _ in range(2):
        env = PhotosynthesisEnv(players=2, opponents="greedy", seat="random")
        rng = np.random.default_rng(3)
        episodes = [play_episode(env, rng, env.reset(seed=7))] + [
            play_episode(env, rng) for _ in range(3)]
        for steps in episodes[-1:]:
            assert [r for _, r, _ in steps[:-1]] == [0.0] * (len(steps) - 1)
            assert steps[-1][1] == env.game.returns()[env.seat]
            assert not steps[-1][2]["action_mask"].any()
        runs.append([(obs.tobytes(), r, i["seat"]) for steps in episodes for obs, r, i in steps])
    assert runs[0] == runs[1]
    env.reset(seed=8)
    other = [play_episode(env, np.random.default_rng(3))]
    assert [(o.tobytes(), r, i["seat"]) for o, r, i in other[0]] != runs[0][:len(other[0])]


def test_shaping_moves_credit_earlier_and_keeps_the_total():
    # the same game with and without shaping (the seeds and the learner's moves agree):
    # shaped rewards are the changes of the learner's score lead, and sum to the return
    env = PhotosynthesisEnv(opponents="greedy", seat=0, shaping=0.1)
    plain = PhotosynthesisEnv(opponents="greedy", seat=0)
    steps = play_episode(env, np.random.default_rng(5), env.reset(seed=2))
    same = play_episode(plain, np.random.default_rng(5), plain.reset(seed=2))
    assert env.game.history == plain.game.history
    rewards = [r for _, r, _ in steps[1:]]
    assert any(rewards[:-1]) and sum(rewards) == pytest.approx(same[-1][1])
    replay, lead, shaped = photocore.Game(2), 0, []
    for move in env.game.history:
        replay.play(move)
        if replay.current_player == 0:           # the learner's next decision
            scores = replay.scores()
            shaped.append(0.1 * ((scores[0] - scores[1]) - lead))
            lead = scores[0] - scores[1]
    assert rewards[:-1] == pytest.approx(shaped)
    assert rewards[-1] == pytest.approx(same[-1][1] - 0.1 * lead)


def test_illegal_actions_forfeit_or_raise():
    env = PhotosynthesisEnv(opponents="random", seat=0)
    obs, info = env.reset(seed=0)
    end = photocore.Move.parse("end").id                 # not legal during setup
    after, reward, terminated, truncated, info = env.step(end)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert np.array_equal(after, obs) and not env.action_masks().any()
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    strict = PhotosynthesisEnv(opponents="random", illegal="raise")
    strict.reset(seed=0)
    with pytest.raises(photocore.IllegalMoveError):
        strict.step(end)
    with pytest.raises(ValueError, match="range"):
        strict.step(NUM_ACTIONS)


def test_bad_arguments_are_refused():
    for kwargs, match in [(dict(opponents="grumpy"), "unknown agent"),
                          (dict(opponents=[object()]), "neither an agent spec"),
                          (dict(players=3, opponents=["random"]), "list of 2"),
                          (dict(seat=2), "seat"), (dict(illegal="ignore"), "illegal"),
                          (dict(render_mode="rgb_array"), "render_mode")]:
        with pytest.raises(ValueError, match=match):
            PhotosynthesisEnv(**kwargs)
    with pytest.raises(ValueError, match="built-in agents"):
        PhotosynthesisVectorEnv(2, opponents=photocore.Agent("greedy"))
    with pytest.raises(ValueError, match="options"):
        PhotosynthesisEnv().reset(options={"seat": 1})


def _same(a, b, where="info"):
    """Equal infos, as Gymnasium builds them: dicts of arrays, object arrays of arrays."""
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _same(a[key], b[key], f"{where}[{key!r}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert len(a) == len(b), where
        for x, y in zip(a, b):
            assert (x is None and y is None) or np.array_equal(x, y), where
    else:
        assert np.asarray(a).dtype == np.asarray(b).dtype, where
        assert np.array_equal(a, b), where


@pytest.mark.parametrize("kwargs", [
    dict(players=2, opponents="random", seat="random"),
    dict(players=2, opponents="greedy", seat=1, shaping=0.25),
    dict(players=3, opponents=["mcts:4", "random"], seat="random", options="f"),
    dict(players=4, opponents="greedy", seat="random", options=photocore.Options.parse("s"),
         shaping=0.1)])
def test_vector_env_equals_single_envs(kwargs):
    # Gymnasium's own SyncVectorEnv over single environments, same-step autoreset, is the
    # reference: observations, rewards, ends and infos (final_obs, final_info) step for step
    n = 4
    vec = PhotosynthesisVectorEnv(n, **kwargs, threads=2)     # two parts, stepped side by side
    sync = gymnasium.vector.SyncVectorEnv(
        [lambda: PhotosynthesisEnv(**kwargs) for _ in range(n)],
        autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP)
    rng = np.random.default_rng(0)
    for seed in (9, None):
        a, b = vec.reset(seed=seed), sync.reset(seed=seed)
        if seed is None:
            break
        assert np.array_equal(a[0], b[0])
        _same(a[1], b[1])
    ended = forfeits = 0
    for step in range(400):
        mask = vec.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        if step % 97 == 50:                   # an illegal action now and then: a forfeit
            actions[step % n] = np.flatnonzero(~mask[step % n])[0]
            forfeits += 1
        got, want = vec.step(actions), sync.step(actions)
        assert np.array_equal(got[0], want[0])
        assert np.allclose(got[1], want[1], rtol=0, atol=1e-6)
        assert np.array_equal(got[2], want[2]) and np.array_equal(got[3], want[3])
        _same(got[4], want[4])
        ended += got[2].sum()
    assert ended > forfeits


@pytest.mark.parametrize("copy", [True, False])
def test_vector_env_copy_keeps_what_it_returned(copy):
    # copy=True (the default): what a step returned stays as it was through the next steps,
    # written into new arrays rather than copied; copy=False: the same arrays, refilled
    envs = PhotosynthesisVectorEnv(8, opponents="random", copy=copy)
    obs, info = envs.reset(seed=0)
    returned = [(obs, info["action_mask"], info["seat"])]
    kept = [tuple(a.copy() for a in returned[0])]          # their values when returned
    ended = 0
    for _ in range(80):
        assert envs.action_masks() is info["action_mask"]
        obs, rewards, terminated, truncated, info = envs.step(envs.sample_actions())
        returned.append((obs, info["action_mask"], info["seat"], rewards, terminated))
        kept.append(tuple(a.copy() for a in returned[-1]))
        ended += terminated.sum()
    assert ended
    if copy:
        for arrays, values in zip(returned, kept):
            assert all(np.array_equal(a, b) for a, b in zip(arrays, values))
        assert len({id(r[0]) for r in returned}) == len(returned)
    else:
        assert all(r[0] is obs and r[1] is info["action_mask"] for r in returned)


def test_vector_env_reset_seeds():
    vec = PhotosynthesisVectorEnv(3, opponents="random")
    single = PhotosynthesisEnv(opponents="random")
    obs, info = vec.reset(seed=[None, 12, None])
    assert np.array_equal(obs[1], single.reset(seed=12)[0])
    assert info["seat"][1] == single.seat
    with pytest.raises(ValueError, match="seeds must list 3"):
        vec.reset(seed=[1, 2])


@pytest.mark.slow
def test_maskable_ppo_short_run():
    pytest.importorskip("sb3_contrib")
    spec = importlib.util.spec_from_file_location("maskable_ppo",
                                                  EXAMPLES / "rl" / "maskable_ppo.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        model = example.train("random", envs=2, steps=2048, n_steps=128, seconds=120)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 2048
    wins, ties, losses = example.evaluate(model, "greedy", games=4)
    assert wins + ties + losses == 4


