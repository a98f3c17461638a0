"""The framework envs compose: each takes the ``Game`` it is given (its rule parameters validated
once, when it was made), they step one buffer type (``envs.episode.Buffers``), and a game given
as an object plays exactly the episodes of the same game given by name."""

import gymnasium
import numpy as np
import pytest

import envs
from envs import episode, pz_env
from envs.gym_env import ArbiterEnv
from envs.vector_env import ArbiterVectorEnv


def _episodes(env, seed, steps=60):
    """Observations, rewards and ends of ``steps`` steps taking the first legal action."""
    obs, info = env.reset(seed=seed)
    out = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        out += [obs, reward, terminated, truncated]
        if terminated or truncated:
            obs, info = env.reset()
            out.append(obs)
    return out


def _same(a, b):
    return len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("opponent", ["random", "greedy", "object"])
def test_a_gymnasium_env_of_a_game_object_plays_the_episodes_of_the_named_game(opponent):
    import agents

    game = envs.make_game("othello", size=6)
    made = [agents.make("random", seed=5) if opponent == "object" else opponent for _ in range(2)]
    given = ArbiterEnv(game, opponent=made[0], agent_seat="random", opening_plies=(0, 3))
    named = gymnasium.make("Othello-v0", size=6, opponent=made[1], agent_seat="random", opening_plies=(0, 3))
    assert given.game is game
    assert _same(_episodes(given, 7), _episodes(named, 7))


def test_the_vector_and_aec_envs_take_the_game_they_are_given():
    game = envs.make_game("go", size=5, komi=0.5)
    vec = ArbiterVectorEnv(num_envs=4, game=game)
    named = ArbiterVectorEnv(num_envs=4, game="go", size=5, komi=0.5)
    assert vec.game is game and isinstance(vec.buffers, episode.Buffers)
    for v in (vec, named):
        v.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(30):
        actions = np.argmax(np.where(vec.buffers.masks, rng.random(vec.buffers.masks.shape), -1.0), axis=1)
        a, b = vec.step(actions), named.step(actions)
        assert all(np.array_equal(x, y) for x, y in zip(a[:4], b[:4]))
    aec = pz_env.env(game)
    assert aec.unwrapped.game is game
    aec.reset(seed=0)
    assert aec.agent_selection == "player_0"


def test_rule_parameters_beside_a_made_game_are_refused():
    game = envs.make_game("gomoku", size=9)
    for make in (
        lambda: ArbiterEnv(game, size=11),
        lambda: ArbiterVectorEnv(num_envs=2, game=game, exact_five=True),
        lambda: pz_env.env(game, size=11),
    ):
        with pytest.raises(envs.ParameterError, match=r"size=|exact_five="):
            make()


def test_a_named_game_is_made_once(monkeypatch):
    """The Gymnasium and AEC envs build their stepper from the game they made: its parameters
    are validated once, not again by a one-game vector env."""
    made = []
    real = episode.make_game

    def counting(name, **params):
        made.append(name)
        return real(name, **params)

    monkeypatch.setattr(episode, "make_game", counting)
    ArbiterEnv("othello", size=6, opponent="greedy").reset(seed=0)
    pz_env.env("othello", size=6).reset(seed=0)
    assert made == ["othello", "othello"]


def test_seat_and_render_checks_are_the_same_in_every_env():
    game = envs.make_game("calculation")
    for make in (lambda **k: ArbiterEnv(game, **k), lambda **k: ArbiterVectorEnv(num_envs=1, game=game, **k)):
        with pytest.raises(envs.ParameterError, match=r"agent_seat=1: expected one of 0"):
            make(agent_seat=1)
        with pytest.raises(envs.ParameterError, match=r"render_mode='movie'"):
            make(render_mode="movie")
    with pytest.raises(envs.ParameterError, match=r"render_mode='movie'"):
        pz_env.env(game, render_mode="movie")
