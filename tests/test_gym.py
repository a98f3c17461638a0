"""The Gymnasium env: its conventions (masks, rewards, seats, opponents, seeding, copies, truncation,
rendering) beyond the contract.

Gymnasium's own ``check_env`` on both opponent paths, and episodes compared with the Game API, run
on every registered game and configuration as ``envs.testing``'s gymnasium check
(tests/test_contract.py).
"""

import contextlib
import copy
import io
import pickle

import gymnasium
import numpy as np
import pytest

import envs
from envs.core import IllegalActionError, ParameterError
from envs.core import kernel as C
from envs.framework_ids import gym_ids, register_envs

register_envs()
IDS = gym_ids()


class FirstLegal:
    """A deterministic opponent: always the lowest legal action; counts its calls."""

    def __init__(self):
        self.calls = 0

    def act(self, game, state):
        self.calls += 1
        return int(game.legal_actions(state)[0])


def _legal(info):
    return np.flatnonzero(info["action_mask"])


def test_every_game_is_registered_and_parameters_reach_the_game():
    assert set(IDS) <= set(gymnasium.registry)
    env = gymnasium.make("Go-v0", size=7, komi=5.5, rules="openspiel")
    game = env.unwrapped.game
    assert (game.name, game.params["size"], game.params["komi"], game.rules) == ("go", 7, 5.5, "openspiel")
    assert env.observation_space.shape == game.observation(game.initial_state(), 0).shape
    assert env.action_space.n == game.num_actions == 50
    with pytest.raises(ParameterError):
        gymnasium.make("Go-v0", size=4)
    with pytest.raises(ParameterError):
        gymnasium.make("Gomoku-v0", agent_seat=2)
    with pytest.raises(ParameterError):
        gymnasium.make("Calculation-v0", opponent="random", agent_seat=1)


def test_masks_rewards_and_episode_end_follow_the_game():
    env = gymnasium.make("Gomoku-v0", size=7, opponent=FirstLegal())
    assert env.unwrapped.state is None
    obs, info = env.reset(seed=3)
    game = env.unwrapped.game
    assert np.array_equal(env.unwrapped.state, game.initial_state())
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (49,)
    total, steps = 0.0, 0
    while True:
        assert np.array_equal(env.unwrapped.action_masks(), info["action_mask"].astype(bool))
        obs, reward, terminated, truncated, info = env.step(int(_legal(info)[-1]))
        total += reward
        steps += 1
        if terminated or truncated:
            break
        assert reward == 0.0 and info["action_mask"].any()
    state = env.unwrapped.state
    assert state is not env.unwrapped.state  # a copy: the env's position cannot be changed through it
    assert game.is_terminal(state) and reward == game.returns(state)[0] and total == reward
    # the last step's mask is all ones: its action is never played (the vector modes' autoreset
    # step ignores it), and a masked sampler needs something to draw from
    assert info["action_mask"].all() and info["illegal_action"] is False
    assert env.unwrapped.action_masks().all()
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.unwrapped.step(0)


def test_illegal_action_loses_or_raises():
    env = gymnasium.make("Othello-v0", size=6)
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert info["action_mask"].all()
    strict = gymnasium.make("Othello-v0", size=6, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step(illegal)
    with pytest.raises(IllegalActionError):
        strict.unwrapped.step(10_000)


def test_agent_seat_one_lets_the_opponent_open_and_random_seat_varies():
    opponent = FirstLegal()
    env = gymnasium.make("Gomoku-v0", size=9, opponent=opponent, agent_seat=1)
    obs, info = env.reset(seed=0)
    assert opponent.calls == 1 and info["agent_seat"] == 1
    assert obs[1].sum() == 1 and obs[0].sum() == 0 and obs[2].all()  # opponent stone, learner to move
    env = gymnasium.make("Gomoku-v0", size=9, agent_seat="random")
    seats = {env.reset(seed=s)[1]["agent_seat"] for s in range(20)}
    assert seats == {0, 1}


def test_same_seed_same_episode_including_opponent_and_deal():
    def episode(env_id, seed, **params):
        env = gymnasium.make(env_id, **params)
        obs, info = env.reset(seed=seed)
        trace = [obs]
        for _ in range(200):
            legal = _legal(info)
            obs, reward, terminated, truncated, info = env.step(int(legal[len(trace) % len(legal)]))
            trace += [obs, reward]
            if terminated or truncated:
                break
        return trace

    for env_id, params in [
        ("Go-v0", {"size": 5, "agent_seat": "random"}),
        ("Calculation-v0", {}),
        ("Othello-v0", {"size": 6, "agent_seat": "random"}),
    ]:
        a, b = episode(env_id, 11, **params), episode(env_id, 11, **params)
        assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not np.array_equal(episode("Calculation-v0", 1)[0], episode("Calculation-v0", 2)[0])
    go = [episode("Go-v0", seed, size=5)[1] for seed in range(4)]  # the random opponent's reply
    assert any(not np.array_equal(go[0], other) for other in go[1:])


def test_set_opponent_between_episodes():
    env = gymnasium.make("Gomoku-v0", size=7, agent_seat=1)
    first = FirstLegal()
    env.unwrapped.set_opponent(first)
    obs, _ = env.reset(seed=0)
    assert first.calls == 1 and obs[1, 0, 0] == 1  # lowest action: the top-left point
    env.unwrapped.set_opponent("random")
    env.reset(seed=0)
    assert first.calls == 1
    with pytest.raises(ValueError):
        env.unwrapped.set_opponent("no-such-agent")
    with pytest.raises(ParameterError):
        env.unwrapped.set_opponent(42)


def test_set_opponent_mid_episode_takes_over_at_the_next_reset():
    env = gymnasium.make("Gomoku-v0", size=7).unwrapped
    reference = gymnasium.make("Gomoku-v0", size=7).unwrapped
    first = FirstLegal()
    _, info = env.reset(seed=3)
    _, ref_info = reference.reset(seed=3)
    env.set_opponent(first)  # the random opponent finishes this episode
    for _ in range(3):
        a = int(_legal(info)[0])
        out, ref = env.step(a), reference.step(a)
        info = out[4]
        np.testing.assert_array_equal(out[0], ref[0])
    assert first.calls == 0
    _, info = env.reset(seed=3)
    assert first.calls == 0  # agent_seat 0 opens; the new opponent answers the first step
    env.step(int(_legal(info)[0]))
    assert first.calls == 1


@pytest.mark.parametrize("copy_env", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_a_copied_env_plays_on_like_the_original(copy_env):
    env = gymnasium.make("Go-v0", size=5).unwrapped
    _, info = env.reset(seed=1)
    for _ in range(2):
        _, _, _, _, info = env.step(int(_legal(info)[0]))
    twin = copy_env(env)
    np.testing.assert_array_equal(twin.state, env.state)
    for _ in range(4):
        a = int(_legal(info)[1])
        out, again = env.step(a), twin.step(a)
        info = out[4]
        for x, y in zip(out, again):
            if isinstance(x, dict):
                np.testing.assert_array_equal(x["action_mask"], y["action_mask"])
            else:
                np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(twin.state, env.state)


def test_truncation_at_max_moves():
    game = envs.make_game("go", size=5, max_moves=6)
    if getattr(game, "max_moves_reason", None) is None:
        pytest.skip("Go does not yet name its max_moves_reason (requested from the lead)")
    env = gymnasium.make("Go-v0", size=5, max_moves=6, opponent=FirstLegal())
    obs, info = env.reset(seed=0)
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(int(_legal(info)[-2]))  # never pass
    assert truncated and not terminated and env.unwrapped._state[C.H_PLY] == 6
    assert reward == env.unwrapped.game.returns(env.unwrapped._state)[0]


@pytest.mark.parametrize("env_id", list(IDS))
def test_rgb_frames_show_moves(env_id):
    env = gymnasium.make(env_id, render_mode="rgb_array")
    obs, info = env.reset(seed=5)
    before = env.render()
    assert before.dtype == np.uint8 and before.ndim == 3 and before.shape[2] == 3
    env.step(int(_legal(info)[0]))
    after = env.render()
    assert after.shape == before.shape and not np.array_equal(before, after)


def test_ansi_and_human_render_the_text_board():
    env = gymnasium.make("Go-v0", size=5, render_mode="ansi", opponent=FirstLegal())
    obs, info = env.reset(seed=0)
    env.step(12)
    text = env.render()
    game = env.unwrapped.game
    assert (
        text.startswith(game.to_text(env.unwrapped._state)) and "last move: A5" in text
    )  # the opponent's reply (action 0)
    human = gymnasium.make("Go-v0", size=5, render_mode="human")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        human.reset(seed=0)
        assert human.render() is None
    assert out.getvalue().startswith(human.unwrapped.game.to_text(human.unwrapped._state))
