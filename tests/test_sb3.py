"""The stable-baselines3 VecEnv (``envs.sb3``): SB3's conventions, and MaskablePPO training on it."""

import numpy as np
import pytest

sb3 = pytest.importorskip("stable_baselines3", reason='needs the learn extra: pip install "arbiter-games[learn]"')
pytest.importorskip("sb3_contrib", reason='needs the learn extra: pip install "arbiter-games[learn]"')

from stable_baselines3.common.preprocessing import is_image_space  # noqa: E402

import envs  # noqa: E402
from envs.sb3 import make_vec_env  # noqa: E402


def _play(venv, steps, seed=0):
    """Random legal actions for ``steps`` steps; returns everything the env returned."""
    rng = np.random.default_rng(seed)
    trace = [venv.reset()]
    for _ in range(steps):
        masks = venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        trace.append((obs, rewards, dones, infos))
    return trace


@pytest.mark.parametrize(
    "env_id, params", [("Othello-v0", {"size": 6}), ("Go-v0", {"size": 5}), ("Calculation-v0", {})]
)
def test_same_step_autoreset_masks_and_observations(env_id, params):
    venv = make_vec_env(env_id, n_envs=4, seed=3, **params)
    game = venv.game
    rng = np.random.default_rng(0)
    obs = venv.reset()
    finished = 0
    for _ in range(120):
        states, seats = venv.vec.states(), venv.vec.buffers.seats
        masks = venv.action_masks()
        for i in range(4):  # every slot is always ongoing and to move: no step is ever ignored
            assert not game.is_terminal(states[i]) and game.current_player(states[i]) == seats[i]
            np.testing.assert_array_equal(masks[i], game.legal_mask(states[i]))
            np.testing.assert_array_equal(obs[i], game.observation(states[i], seats[i]))
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        assert obs.shape == (4, *venv.observation_space.shape) and rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            finished += 1
            assert infos[i]["terminal_observation"].shape == venv.observation_space.shape
            assert not infos[i]["illegal_action"] and "TimeLimit.truncated" in infos[i]
            assert rewards[i] in (-1.0, 0.0, 1.0)
        assert not rewards[~dones].any()
    assert finished > 0


def test_an_illegal_action_ends_the_episode_with_minus_one():
    venv = make_vec_env("Gomoku-v0", n_envs=2, seed=0, size=7)
    venv.reset()
    actions = np.array([venv.game.num_actions, int(np.flatnonzero(venv.action_masks()[1])[0])])
    _, rewards, dones, infos = venv.step(actions)  # slot 0: an action outside the action space
    assert dones[0] and rewards[0] == -1.0 and infos[0]["illegal_action"]
    assert not dones[1] and "terminal_observation" not in infos[1]


def test_same_seed_same_games():
    a = _play(make_vec_env("Othello-v0", n_envs=3, seed=11, size=6), 40)
    b = _play(make_vec_env("Othello-v0", n_envs=3, seed=11, size=6), 40)
    for x, y in zip(a[1:], b[1:]):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[1], y[1])


def test_random_openings_reach_the_vec_env():
    from envs.core import kernel as C

    venv = make_vec_env("Othello-v0", n_envs=4, seed=1, size=6, opening_plies=3, agent_seat=1)
    venv.reset()
    assert (venv.vec.states()[:, C.H_PLY] == 3).all()  # three random plies: the learner (White) to move
    with pytest.raises(envs.ParameterError, match="opening_plies"):
        make_vec_env("Othello-v0", opening_plies=-1)


def test_the_greedy_opponent_is_compiled_in_and_other_opponents_are_refused():
    venv = make_vec_env("Othello-v0", n_envs=3, seed=2, size=6, opponent="greedy")
    assert venv.vec.opponent == "greedy"
    a = _play(venv, 30)
    b = _play(make_vec_env("Othello-v0", n_envs=3, seed=2, size=6), 30)
    assert any(not np.array_equal(x[0], y[0]) for x, y in zip(a[1:], b[1:]))  # other replies
    for bad in ("self", "alphabeta"):
        with pytest.raises(envs.ParameterError, match=f"opponent='{bad}'"):
            make_vec_env("Othello-v0", opponent=bad)


def test_image_observations_are_what_cnn_policies_take():
    venv = make_vec_env("Go-v0", n_envs=2, observation="image", seed=0, size=5)
    obs = venv.reset()
    assert is_image_space(venv.observation_space) and obs.dtype == np.uint8
    h, w, c = venv.observation_space.shape
    assert c == 4 and h >= 36 and w >= 36 and h % 5 == 0
    planes = venv.game.observation(venv.vec.states()[0], venv.vec.buffers.seats[0])
    k = h // 5
    np.testing.assert_array_equal(obs[0][::k, ::k, :].transpose(2, 0, 1), (planes * 255).astype(np.uint8))
    with pytest.raises(envs.ParameterError, match="observation='pixels'"):
        make_vec_env("Go-v0", observation="pixels")
    with pytest.raises(envs.ParameterError, match="unknown game 'Chess-v0'"):
        make_vec_env("Chess-v0")


@pytest.mark.parametrize(
    "policy, observation, env_id, params, n_envs, n_steps",
    [("MlpPolicy", "planes", "Othello-v0", {"size": 6}, 16, 128), ("CnnPolicy", "image", "Go-v0", {"size": 5}, 8, 128)],
)
def test_maskable_ppo_trains_on_it(policy, observation, env_id, params, n_envs, n_steps):
    from sb3_contrib import MaskablePPO

    venv = make_vec_env(env_id, n_envs=n_envs, observation=observation, seed=0, **params)
    model = MaskablePPO(policy, venv, n_steps=n_steps, batch_size=256, n_epochs=2, seed=0, verbose=0)
    model.learn(2048)
    assert model.num_timesteps >= 2048
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    assert all(venv.action_masks()[i, a] for i, a in enumerate(actions))


# -- PPO training on the VecEnv (agents.learned.ppo_training, examples/train_ppo.py) --------------
def test_vectorised_progress_reward_counts_the_cards_each_step_put_on_a_foundation():
    from agents.learned import ppo_training

    venv = make_vec_env("Calculation-v0", n_envs=8, seed=5)
    wrapped = ppo_training.vec_progress_reward_wrapper()(venv, 2.0)
    game = venv.game
    rng = np.random.default_rng(1)
    wrapped.reset()
    finished = 0
    for _ in range(150):  # a deal lasts at most 96 moves: every slot finishes at least once
        before, masks = venv.vec.states(), venv.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, rewards, dones, infos = wrapped.step(actions)
        for i in range(8):  # the reference: the state this slot's move led to, counted by the game
            after = game.apply(before[i], int(actions[i]))
            gained = game.foundation_cards(after) - game.foundation_cards(before[i])
            won = float(game.is_terminal(after) and game.returns(after)[0] > 0)
            assert rewards[i] == pytest.approx(won + 2.0 * gained / 48, abs=1e-6)
            assert dones[i] == game.is_terminal(after)
            if dones[i]:
                finished += 1
                assert (
                    game.foundation_cards(after)
                    == game.observed_foundation_cards(infos[i]["terminal_observation"][None])[0]
                )
    assert finished >= 8


@pytest.mark.parametrize("game, size", [("othello", 6), ("calculation", None)])
def test_ppo_training_on_the_vec_env_saves_weights_the_ppo_agent_plays_and_resumes(tmp_path, game, size):
    import dataclasses

    import agents
    from agents.learned import ppo_training, weights
    from tournaments import play_game
    from tournaments.referee.baselines import against_baselines

    config = ppo_training.Config(
        game=game, size=size, steps=256, n_envs=4, n_steps=64, batch=128, epochs=1, snapshot_every=256, net=(16,)
    )
    assert config.opponent == "random"  # the compiled vector env

    def evaluate(g, path):
        return against_baselines(g, agents.make("ppo", path=str(path), seed=0), games=2)

    files = {"checkpoint": tmp_path / "run.zip", "out": tmp_path / "ppo.pt", "command": "test", "evaluate": evaluate}
    out, evaluation = ppo_training.train(config, **files)
    meta = weights.read_meta(out)
    assert meta["training"]["steps"] == 256 and meta["training"]["hyper_parameters"]["n_envs"] == 4
    assert meta["evaluation"] == evaluation and len(evaluation) == (2 if game == "othello" else 5)
    assert (tmp_path / "run.zip").is_file()

    out, _ = ppo_training.train(dataclasses.replace(config, steps=512), **files)  # resumes
    assert weights.read_meta(out)["training"]["steps"] == 512
    g = envs.make_game(game, **config.params)
    bot = agents.make("ppo", path=str(out), seed=0)
    players = [bot] if g.num_players == 1 else [bot, agents.make("random", seed=1)]
    for seed in range(3):
        outcome = play_game(g, players, seed=seed)  # an illegal move would forfeit
        assert outcome.reason == "normal", outcome.detail


def test_the_train_ppo_example_trains_evaluates_and_names_bad_options(tmp_path, run_script):
    """examples/train_ppo.py end to end: the command it was run with and the evaluation in the sidecar."""
    from agents.learned import weights

    argv = [
        "--game",
        "othello",
        "--size",
        "6",
        "--n-envs",
        "4",
        "--n-steps",
        "64",
        "--batch",
        "128",
        "--epochs",
        "1",
        "--steps",
        "256",
        "--snapshot-every",
        "256",
        "--eval-games",
        "2",
        "--net",
        "16",
        "--checkpoint",
        tmp_path / "run.zip",
        "--out",
        tmp_path / "ppo.pt",
    ]
    done = run_script("examples/train_ppo.py", *argv)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "trained 256 steps" in done.stdout and "ppo vs greedy on " in done.stdout
    meta = weights.read_meta(tmp_path / "ppo.pt")
    assert meta["training"]["command"].startswith("python examples/train_ppo.py --game othello --size 6")
    assert set(meta["evaluation"]) == {"vs random size=6", "vs greedy size=6"}
    bad = run_script("examples/train_ppo.py", "--opponent", "pool", "--opening-plies", "2")
    assert bad.returncode == 2 and "--opening-plies: only with --opponent random or greedy" in bad.stderr


def test_a_curriculum_switches_opponent_at_its_steps_and_resumes_in_its_phase(tmp_path, monkeypatch):
    """random until 256 steps, then greedy: the env is made anew at the switch, the checkpoint's
    phase file says where each phase ended, and a run resumed past the switch stays on greedy."""
    import json

    from agents.learned import ppo_training, weights

    made = []
    vector_env = ppo_training._vector_env

    def recording(config, game, opponent):
        made.append(opponent)
        return vector_env(config, game, opponent)

    monkeypatch.setattr(ppo_training, "_vector_env", recording)
    small = {"game": "othello", "size": 6, "n_envs": 4, "n_steps": 64, "batch": 128, "epochs": 1, "net": (16,)}
    files = {"checkpoint": tmp_path / "run.zip", "out": tmp_path / "ppo.pt", "command": "test"}
    config = ppo_training.Config(curriculum=(("random", 256), ("greedy", 512)), snapshot_every=10_000, **small)
    assert config.steps == 512 and config.opponent == "random" and config.phase_at(256) == 1
    out, _ = ppo_training.train(config, **files)
    assert made == ["random", "greedy"]  # 256 steps (one update of 4 x 64) against random, then greedy
    training = weights.read_meta(out)["training"]
    assert training["steps"] == 512 and training["hyper_parameters"]["curriculum"] == [["random", 256], ["greedy", 512]]
    assert training["opponents"].startswith("random to 256 steps, then greedy")
    record = json.loads((tmp_path / "run.phase.json").read_text())
    assert record["phase_ends"] == [256, 512] and record["steps"] == 512

    made.clear()
    longer = ppo_training.Config(curriculum=(("random", 256), ("greedy", 768)), **small)
    out, _ = ppo_training.train(longer, **files)  # resumes at 512: phase 2, against greedy
    assert made == ["greedy"] and weights.read_meta(out)["training"]["steps"] == 768
    record = json.loads((tmp_path / "run.phase.json").read_text())
    assert record["phase"] == 2 and record["opponent"] == "greedy" and record["phase_ends"] == [256, 768]

    made.clear()
    files["checkpoint"] = tmp_path / "other.zip"
    ppo_training.train(ppo_training.Config(curriculum=(("random", 256),), **small), **files)
    ppo_training.train(longer, **files)  # a run that ended in phase 1 resumes into phase 2
    assert made == ["random", "greedy"]


def test_a_bad_curriculum_is_a_config_error_and_the_script_exits_2(run_script):
    from agents.learned import ppo_training
    from agents.learned.train import ConfigError

    for curriculum, match in [
        ((("alphabeta", 100),), "'alphabeta'"),
        ((("random", 200), ("greedy", 100)), "greedy:100"),
        ((("random", 0),), "random:0"),
    ]:
        with pytest.raises(ConfigError, match=match):
            ppo_training.Config(curriculum=curriculum)
    with pytest.raises(ConfigError, match="opponent='pool' with a curriculum"):
        ppo_training.Config(opponent="pool", curriculum=(("random", 100),))
    with pytest.raises(ConfigError, match="steps=300"):
        ppo_training.Config(curriculum=(("random", 100), ("greedy", 200)), steps=300)
    with pytest.raises(ConfigError, match="'greedy-100'"):
        ppo_training.parse_curriculum(["greedy-100"])
    for argv, message in [
        (["--curriculum", "alphabeta:100"], "curriculum opponent 'alphabeta'"),
        (["--curriculum", "random:200", "greedy:100"], "curriculum phase greedy:100"),
        (["--curriculum", "random:100", "--opponent", "pool"], "opponent='pool' with a curriculum"),
    ]:
        bad = run_script("examples/train_ppo.py", *argv)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr[-2000:]


def test_the_game_alone_trains_its_recipe_and_options_override_it():
    """``train_ppo.py --game X`` parses to the RECIPES entry (no training: the parsed Config)."""
    import runpy

    from agents.learned import ppo_training

    parse = runpy.run_path(str(ppo_training.Path(__file__).parent.parent / "examples" / "train_ppo.py"))["parse"]
    for game, recipe in ppo_training.RECIPES.items():
        config = parse(["--game", game]).config
        assert config.size == recipe["size"] and config.opening_plies == recipe["opening_plies"]
        assert config.curriculum == recipe["curriculum"] and config.steps == recipe["curriculum"][-1][1]
    othello = parse(["--game", "othello", "--steps", "3000000", "--opening-plies", "2"]).config
    assert othello.curriculum == (("random", 1_000_000), ("greedy", 3_000_000)) and othello.opening_plies == 2
    assert parse(["--game", "othello", "--steps", "500000"]).config.curriculum == (("random", 500_000),)
    greedy = parse(["--game", "loa", "--opponent", "greedy"]).config
    assert greedy.curriculum is None and greedy.opponent == "greedy" and greedy.steps == 3_200_000
    six = parse(["--game", "othello", "--size", "6"]).config  # the recipe is for 8x8
    assert six.curriculum is None and six.opening_plies == 0 and six.steps == ppo_training.STEPS
    assert parse(["--game", "gomoku"]).config.curriculum is None  # no recipe
