"""The PettingZoo AEC envs: classic-style conventions, the classic layout against PettingZoo's own
``go_v5``, rendering in every mode.

PettingZoo's own ``api_test`` (in both layouts) and ``seed_test``, and episodes compared with the
Game API, run on every registered game and configuration as ``envs.testing``'s pettingzoo check
(tests/test_contract.py).
"""

import contextlib
import io

import numpy as np
import pytest
from pettingzoo.test import render_test

import envs
import envs.pettingzoo
import envs.pettingzoo.classic
from envs.core import IllegalActionError, ParameterError
from envs.pettingzoo import calculation_v0, go_v0, gomoku_v0, loa_v0, othello_v0
from envs.testing import small_params

# every registered game with an envs.pettingzoo module, on its smallest board
MODULES = [(getattr(envs.pettingzoo, s.pettingzoo), small_params(s)) for s in envs.specs() if s.pettingzoo]
IDS = [m.__name__.rsplit(".", 1)[1] for m, _ in MODULES]


@pytest.mark.parametrize("module, params", MODULES, ids=IDS)
def test_pettingzoos_render_test_passes_in_every_mode(module, params):
    with contextlib.redirect_stdout(io.StringIO()):  # render_test also runs "human" mode
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
    theirs = wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(wrappers.TerminateIllegalWrapper(module.raw_env(**params), illegal_reward=-1))
    )
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
    assert observation["observation"].shape == (5, 5, 17) and observation["observation"].dtype == bool
    assert observation["action_mask"].dtype == np.int8
    assert env.unwrapped.game.params["size"] == 5


# the classic layout observes our planes channels last, except where it has PettingZoo's own
# (``classic_frames``: compared with pettingzoo.classic's go_v5 below)
OWN_PLANES = [(m, p) for m, p in MODULES if not m.raw_env(**p).game.spec.classic_frames]


@pytest.mark.parametrize("module, params", OWN_PLANES, ids=[m.__name__.rsplit(".", 1)[1] for m, _ in OWN_PLANES])
def test_classic_layout_observes_the_games_planes_channels_last(module, params):
    spec = module.env(**params).unwrapped.game.spec
    env = getattr(envs.pettingzoo.classic, spec.classic or spec.pettingzoo).env(**params)
    env.reset(seed=1)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    for agent in env.possible_agents:
        planes = env.observe(agent)["observation"]
        native = env.unwrapped.game.observation(env.unwrapped.state, env.possible_agents.index(agent))
        np.testing.assert_array_equal(planes, native.transpose(1, 2, 0) if native.ndim == 3 else native)


# -- the classic layout against PettingZoo's own go_v5 --------------------------------------------
def _pettingzoo_go_v5():
    pytest.importorskip("pygame", reason="PettingZoo's go_v5 imports pygame (the test extra)")
    from pettingzoo.classic import go_v5

    return go_v5


@pytest.mark.parametrize(
    "kwargs", [{}, {"board_size": 9}, {"board_size": 5, "komi": 0.5}], ids=["defaults", "9x9", "5x5"]
)
def test_classic_go_v5_has_pettingzoos_spaces_and_picture_size(kwargs):
    from envs.pettingzoo.classic import go_v5 as ours

    theirs = _pettingzoo_go_v5()

    a, b = ours.env(render_mode="rgb_array", **kwargs), theirs.env(render_mode="rgb_array", **kwargs)
    assert a.possible_agents == b.possible_agents
    for agent in b.possible_agents:
        assert a.observation_space(agent) == b.observation_space(agent)
        assert a.action_space(agent) == b.action_space(agent)
        assert a.observation_space(agent)["observation"].dtype == np.bool_
    a.reset(seed=0)
    b.reset(seed=0)
    assert a.render().shape == b.render().shape == (800, 800, 3)
    small = ours.env(render_mode="rgb_array", screen_height=300, board_size=7)
    small.reset()
    assert small.render().shape == (300, 300, 3) and small.render().dtype == np.uint8


@pytest.mark.parametrize("size, komi, seed", [(5, 0.5, 0), (7, 7.5, 1), (9, 7.5, 2)])
def test_classic_go_v5_observes_what_pettingzoos_go_v5_observes(size, komi, seed):
    """The same random moves in both envs: after every move both agents' observations (the 16
    history planes and the colour plane) are equal, and so are the masks while the game is on,
    the agent to move and the final rewards. OpenSpiel's rules are PettingZoo's (MiniGo's)
    where they overlap: simple ko, no suicide, two passes end the game; a repetition ends ours
    drawn, after which MiniGo would go on, so the comparison stops there."""
    import warnings

    from envs.pettingzoo.classic import go_v5 as ours

    theirs = _pettingzoo_go_v5()

    a = ours.env(board_size=size, komi=komi, rules="openspiel", max_moves=8 * size * size)
    b = theirs.env(board_size=size, komi=komi)
    a.reset(seed=seed)
    b.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moves = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while True:
            agent = a.agent_selection
            assert agent == b.agent_selection
            for other in a.possible_agents:
                x, y = a.observe(other), b.observe(other)
                assert x["observation"].dtype == y["observation"].dtype == np.bool_
                np.testing.assert_array_equal(x["observation"], y["observation"], err_msg=f"move {moves}")
            over = a.terminations[agent] or a.truncations[agent]
            if over:
                break
            mask = a.observe(agent)["action_mask"]
            np.testing.assert_array_equal(mask, b.observe(agent)["action_mask"], err_msg=f"move {moves}")
            action = int(rng.choice(np.flatnonzero(mask)))
            a.step(action)
            b.step(action)
            moves += 1
    game = a.unwrapped.game
    assert moves > 2 * size and a.unwrapped.state is not None
    if game.end_reason(a.unwrapped.state) == "two_passes":
        assert all(b.terminations.values())
        assert a.rewards == b.rewards and sorted(a.rewards.values()) == [-1, 1]


def test_classic_go_v5_history_planes_by_hand():
    """go_v5's frame stacking spelled out on a 5x5 game: after Black C3 and White pass, the
    newest pair is (the mover's stones, the other side's): White passed, so (no white stones,
    Black's C3); the pair before is Black's move: (C3, nothing); the colour plane is 1 for
    white_0 only."""
    from envs.pettingzoo.classic import go_v5

    env = go_v5.env(board_size=5)
    env.reset()
    game = env.unwrapped.game
    env.step(game.str_to_action(game.initial_state(), "C3"))
    env.step(25)
    black, white = env.observe("black_0")["observation"], env.observe("white_0")["observation"]
    c3 = np.zeros((5, 5), dtype=bool)
    c3[2, 2] = True
    for planes in (black, white):
        assert not planes[:, :, 0].any()
        np.testing.assert_array_equal(planes[:, :, 1], c3)
        np.testing.assert_array_equal(planes[:, :, 2], c3)
        assert not planes[:, :, 3:16].any()
    assert not black[:, :, 16].any() and white[:, :, 16].all()
    env.reset()
    assert not env.observe("black_0")["observation"].any()


def test_classic_layout_parameters():
    from envs.pettingzoo.classic import go_v5, othello_v0

    assert go_v5.env().unwrapped.game.params["size"] == 19  # PettingZoo's default board
    assert go_v5.env(size=7).unwrapped.game.params["size"] == 7  # our name works too
    with pytest.raises(ParameterError, match="given twice"):
        go_v5.env(size=7, board_size=9)
    with pytest.raises(ParameterError, match="screen_height"):
        go_v5.env(screen_height=0)
    othello = othello_v0.env(size=6, render_mode="rgb_array")
    othello.reset()
    native = othello.render()
    assert native.shape[2] == 3
    assert othello_v0.env(size=6).observation_space("black_0")["observation"].shape == (6, 6, 3)


# -- after the game: dead steps, then steps after every agent is done -------------------------------
@pytest.mark.parametrize("module, params", [(go_v0, {"size": 5}), (loa_v0, {})], ids=["go_v0", "loa_v0"])
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
def test_steps_after_the_game_follow_pettingzoo(module, params, wrapped):
    """PettingZoo's convention: each finished agent takes one dead step (``step(None)``; any
    other action is a ValueError), and a step after every agent is done is a warning, the
    action ignored (OrderEnforcingWrapper's), never a KeyError."""
    from pettingzoo.utils.env_logger import EnvLogger

    env = (module.env if wrapped else module.raw_env)(**params)
    env.reset(seed=0)
    for _ in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            with pytest.raises(ValueError):
                env.step(0)
            env.step(None)
        else:
            env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert env.agents == []
    EnvLogger.flush()
    for action in (None, 0, None):
        env.step(action)
    assert len(EnvLogger.mqueue) == 3 and all("terminated or truncated" in m for m in EnvLogger.mqueue)
    EnvLogger.flush()
    env.reset(seed=1)
    assert env.agents == env.possible_agents
