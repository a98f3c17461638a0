"""Hypothesis drives random (often illegal) actions and seeds through the Gymnasium and PettingZoo
envs of every game and checks the invariants both APIs promise."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envs
from envs.core import IllegalActionError
from envs.gym_env import ArbiterEnv
from envs.pz_env import env as aec_env
from envs.testing import small_params

GAMES = [(name, small_params(name)) for name in envs.names()]  # every registered game, on its smallest board
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Each choice is either "a legal move" (an index into the legal actions) or a raw action id that
# may be out of range or illegal, so episodes both run long and hit every illegal-action path.
choices = st.lists(
    st.one_of(st.tuples(st.just("legal"), st.integers(0, 10**6)), st.tuples(st.just("raw"), st.integers(-3, 600))),
    max_size=120,
)


def _pick(choice, mask):
    kind, value = choice
    legal = np.flatnonzero(mask)
    return int(legal[value % len(legal)]) if kind == "legal" and len(legal) else value


@pytest.mark.parametrize("name, params", GAMES, ids=[g for g, _ in GAMES])
@FUZZ
@given(seed=st.integers(0, 2**32), moves=choices, raise_on_illegal=st.booleans())
def test_gym_env_invariants(name, params, seed, moves, raise_on_illegal):
    seat = {"agent_seat": "random"} if envs.spec(name).num_players == 2 else {}
    env = ArbiterEnv(name, illegal_action="raise" if raise_on_illegal else "lose", **seat, **params)
    obs, info = env.reset(seed=seed)
    total = 0.0
    for choice in moves:
        assert env.observation_space.contains(obs)
        assert info["action_mask"].any(), "an ongoing episode must offer a legal action"
        action = _pick(choice, info["action_mask"])
        legal = 0 <= action < env.game.num_actions and info["action_mask"][action]
        if raise_on_illegal and not legal:
            with pytest.raises(IllegalActionError):
                env.step(action)
            return
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        assert info["illegal_action"] == (not legal)
        if terminated or truncated:
            assert info["action_mask"].all()  # the end: any action (never played)
            assert reward in (-1.0, 0.0, 1.0) and total == reward
            if not legal:
                assert reward == -1.0
            else:
                assert reward == env.game.returns(env._state)[env._seat]
            return
        assert reward == 0.0


@pytest.mark.parametrize("name, params", GAMES, ids=[g for g, _ in GAMES])
@FUZZ
@given(seed=st.integers(0, 2**32), moves=choices)
def test_aec_env_invariants(name, params, seed, moves):
    env = aec_env(name, **params)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    moves = iter(moves)
    for agent in env.agent_iter(max_iter=400):
        obs, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        assert obs["action_mask"].any()
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        choice = next(moves, ("legal", 0))
        action = _pick(choice, obs["action_mask"])
        if not 0 <= action < env.unwrapped.game.num_actions:
            with pytest.raises(IllegalActionError, match="outside the action space"):  # a typed error
                env.step(action)
            return
        env.step(action)
    assert not env.agents, "every agent must have been removed after the game ended"
    game = env.unwrapped.game
    if game.is_terminal(env.unwrapped.state):
        assert list(totals.values()) == game.returns(env.unwrapped.state).tolist()
    else:  # ended by an illegal move: the offender -1, everybody else 0
        assert sorted(totals.values())[0] == -1.0 and sum(totals.values()) == -1.0
