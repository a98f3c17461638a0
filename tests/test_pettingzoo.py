"""The PettingZoo AEC envs: PettingZoo's own api/seed/render tests and classic-style conventions."""

import contextlib
import io

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs.core import IllegalActionError
from envs.pettingzoo import calculation_v0, go_v0, gomoku_v0, loa_v0, othello_v0

# Small boards keep PettingZoo's 1000-cycle api_test fast; defaults are covered by the Gym checker.
MODULES = [(loa_v0, {}), (othello_v0, {"size": 6}), (gomoku_v0, {"size": 9}), (go_v0, {"size": 5}),
           (calculation_v0, {})]
IDS = [m.__name__.rsplit(".", 1)[1] for m, _ in MODULES]


@pytest.mark.parametrize("module, params", MODULES, ids=IDS)
def test_pettingzoo_api_seed_and_render_tests(module, params):
    with contextlib.redirect_stdout(io.StringIO()):  # render_test also runs "human" mode
        api_test(module.env(**params), num_cycles=300)
        seed_test(lambda **kw: module.env(**params, **kw), num_cycles=300)
        render_test(lambda **kw: module.env(**params, **kw))


def test_classic_conventions_masks_and_final_rewards():
    env = gomoku_v0.env(size=7)
    env.reset(seed=0)
    rewards = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        rewards[agent] += reward
        other = next(a for a in env.agents if a != agent) if len(env.agents) > 1 else None
        if other is not None:
            assert not env.observe(other)["action_mask"].any(), "the waiting agent's mask must be zero"
        if termination or truncation:
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any() and reward == 0
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    game = env.unwrapped.game
    returns = game.returns(env.unwrapped.state)
    assert rewards == {"player_0": returns[0], "player_1": returns[1]} and sum(rewards.values()) == 0


def test_illegal_move_ends_the_game_as_in_pettingzoo_classic():
    env = othello_v0.env(size=6)
    env.reset(seed=0)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0}
    raw = othello_v0.raw_env(size=6)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(0)


@pytest.mark.parametrize("module, params", [(othello_v0, {"size": 6}), (go_v0, {"size": 5}), (calculation_v0, {})])
def test_one_layer_wrapper_behaves_as_pettingzoos_three(module, params):
    """``env()``'s ``ClassicWrapper`` against PettingZoo's own stack over the same raw env
    (TerminateIllegal, AssertOutOfBounds, OrderEnforcing): the same ``last()``, rewards,
    terminations and truncations after every step, illegal actions (1 in 15) and steps of
    finished agents included."""
    import warnings

    from pettingzoo.utils import wrappers

    ours = module.env(**params)
    theirs = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
        wrappers.TerminateIllegalWrapper(module.raw_env(**params), illegal_reward=-1)))
    rng = np.random.default_rng(0)
    games = steps = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for game in range(12):
            for env in (ours, theirs):
                env.reset(seed=game)
            while ours.agents:
                assert theirs.agents == ours.agents and theirs.agent_selection == ours.agent_selection
                a, b = ours.last(), theirs.last()
                assert np.array_equal(a[0]["observation"], b[0]["observation"])
                assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"]) and a[1:] == b[1:]
                assert ours.rewards == theirs.rewards and ours.terminations == theirs.terminations
                assert ours.truncations == theirs.truncations
                if a[2] or a[3]:
                    action = None
                elif rng.random() < 1 / 15 and not a[0]["action_mask"].all():
                    action = int(rng.choice(np.flatnonzero(a[0]["action_mask"] == 0)))
                else:
                    action = int(rng.choice(np.flatnonzero(a[0]["action_mask"])))
                ours.step(action)
                theirs.step(action)
                steps += 1
            games += 1
    assert games == 12 and steps > 100
    with pytest.raises(IllegalActionError, match="outside the action space"):
        ours.reset(seed=0)
        ours.step(10**6)


def test_parameters_and_seeded_deals():
    env = go_v0.env(size=7, komi=0.5)
    env.reset()
    assert env.unwrapped.game.params["komi"] == 0.5
    assert env.observation_space("player_0")["observation"].shape == (4, 7, 7)
    one, two = calculation_v0.env(), calculation_v0.env()
    one.reset(seed=3)
    two.reset(seed=3)
    assert np.array_equal(one.observe("player_0")["observation"], two.observe("player_0")["observation"])
    two.reset(seed=4)
    assert not np.array_equal(one.observe("player_0")["observation"], two.observe("player_0")["observation"])
    assert one.possible_agents == ["player_0"]


def test_rgb_render_changes_after_a_move():
    env = loa_v0.env(render_mode="rgb_array")
    env.reset(seed=0)
    before = env.render()
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    after = env.render()
    assert before.shape == after.shape and before.dtype == np.uint8 and not np.array_equal(before, after)


def test_a_go_v5_script_runs_with_only_its_import_changed():
    """PettingZoo's own usage of ``pettingzoo.classic.go_v5``, with ``from envs.pettingzoo.classic
    import go_v5``: its parameter names, colour-named agents, channels-last planes, int8 masks."""
    from envs.pettingzoo.classic import go_v5

    env = go_v5.env(board_size=5, komi=7.5)
    env.reset(seed=42)
    final = {}
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
            final[agent] = reward
        else:
            mask = observation["action_mask"]
            action = env.action_space(agent).sample(mask)
        env.step(action)
    env.close()
    assert env.possible_agents == ["black_0", "white_0"] and set(final) == {"black_0", "white_0"}
    assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert observation["observation"].shape == (5, 5, 4) and observation["action_mask"].dtype == np.int8
    assert env.unwrapped.game.params["size"] == 5


@pytest.mark.parametrize("module, params", MODULES, ids=IDS)
def test_classic_layout_passes_the_api_test(module, params):
    import envs.pettingzoo.classic as classic

    spec = module.env(**params).unwrapped.game.spec
    classic_module = getattr(classic, spec.classic or spec.pettingzoo)
    env = classic_module.env(**params)
    with contextlib.redirect_stdout(io.StringIO()):
        api_test(env, num_cycles=100)
    env.reset(seed=1)
    agent = env.agent_selection
    planes = env.observe(agent)["observation"]
    native = env.unwrapped.game.observation(env.unwrapped.state, env.possible_agents.index(agent))
    np.testing.assert_array_equal(planes, native.transpose(1, 2, 0) if native.ndim == 3 else native)
