"""The batched vector env: Gymnasium's vector conventions (NEXT_STEP autoreset, seeding, threads,
returned arrays), its opponents (greedy, self-play), openings and the single env's rules.

That every slot's observation and mask are the Game API's, with the rewards and ends of its
games, runs on every registered game and configuration as ``envs.testing``'s vector check
(tests/test_contract.py).
"""

import gymnasium
import numpy as np
import pytest

from envs.core import ParameterError
from envs.core import kernel as C
from envs.framework_ids import gym_ids, register_envs
from envs.vector_env import ArbiterVectorEnv

register_envs()
IDS = gym_ids()


def _random_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def _play(vec, seed, steps, action_seed=0):
    rng = np.random.default_rng(action_seed)
    obs, info = vec.reset(seed=seed)
    trace = [obs]
    for _ in range(steps):
        obs, reward, terminated, truncated, info = vec.step(_random_actions(info["action_mask"], rng))
        trace += [obs, reward, terminated, truncated, info["action_mask"]]
    return trace


def test_next_step_autoreset_and_rewards():
    vec = ArbiterVectorEnv(num_envs=32, game="gomoku", size=7)
    rng = np.random.default_rng(0)
    obs, info = vec.reset(seed=0)
    saw_end = False
    for _ in range(60):
        obs, reward, terminated, truncated, info = vec.step(_random_actions(info["action_mask"], rng))
        ended = terminated | truncated
        states = vec.states()
        for i in np.flatnonzero(ended):
            saw_end = True
            assert reward[i] == vec.game.returns(states[i])[int(info["agent_seat"][i])]
            assert info["action_mask"][i].all()  # any action: the next step ignores it
        assert np.all(reward[~ended] == 0)
        if ended.any():
            before = ended.copy()
            obs, reward, terminated, truncated, info = vec.step(np.zeros(32, dtype=np.int64))
            assert np.all(reward[before] == 0) and not (terminated | truncated)[before].any()
            assert np.all(vec.states()[before, C.H_PLY] <= 1)  # a fresh game (plus the opponent's opening)
    assert saw_end


def test_illegal_actions_lose():
    vec = ArbiterVectorEnv(num_envs=4, game="othello", size=6)
    obs, info = vec.reset(seed=0)
    actions = np.array([0, -1, 10_000, int(np.flatnonzero(info["action_mask"][3])[0])])
    obs, reward, terminated, truncated, info = vec.step(actions)
    assert reward.tolist()[:3] == [-1.0, -1.0, -1.0] and terminated[:3].all() and info["illegal_action"][:3].all()
    assert not terminated[3] and not info["illegal_action"][3]


def test_seeding_is_deterministic_and_per_slot():
    def run(n, seed):
        return _play(ArbiterVectorEnv(num_envs=n, game="go", size=5, agent_seat="random"), seed, 30)

    a, b = run(8, 5), run(8, 5)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    c = run(8, 6)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    # The first reset of slot i depends on its own stream only: a bigger batch starts alike.
    assert np.array_equal(run(8, 5)[0], run(16, 5)[0][:8])


@pytest.mark.parametrize("game, params", [("go", {"size": 5}), ("calculation", {})])
def test_threads_change_nothing_but_speed(game, params):
    """Blocks of games on numba's threads play exactly the games one thread plays, with the
    learner's own actions and SB3's same-step autoreset as with Gymnasium's."""
    import numba

    threads = numba.config.NUMBA_NUM_THREADS
    seat = "random" if game == "go" else 0
    one = _play(ArbiterVectorEnv(num_envs=9, game=game, agent_seat=seat, num_threads=1, **params), 3, 40)
    many = _play(ArbiterVectorEnv(num_envs=9, game=game, agent_seat=seat, num_threads=threads, **params), 3, 40)
    assert all(np.array_equal(x, y) for x, y in zip(one, many))
    finals = []
    for n_threads in (1, threads):
        vec = ArbiterVectorEnv(num_envs=9, game=game, agent_seat=seat, num_threads=n_threads, **params)
        vec.reset(seed=3)
        final = np.zeros((9, vec.buffers.obs[0].size), dtype=np.float32)
        rng = np.random.default_rng(0)
        for _ in range(40):
            vec.advance(_random_actions(vec.buffers.masks, rng), final=final)
        finals.append((vec.states(), final.copy()))
    assert np.array_equal(finals[0][0], finals[1][0]) and np.array_equal(finals[0][1], finals[1][1])


def test_reset_mask_and_argument_errors():
    vec = ArbiterVectorEnv(num_envs=4, game="gomoku", size=7, agent_seat=1)
    obs, info = vec.reset(seed=0)
    vec.step(np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]]))
    vec.reset(options={"reset_mask": np.array([True, False, True, False])})
    assert vec.states()[:, C.H_PLY].tolist() == [1, 3, 1, 3]
    with pytest.raises(ParameterError):
        vec.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ParameterError):
        ArbiterVectorEnv(num_envs=4, game="gomoku", opponent="alphabeta")
    with pytest.raises(ParameterError):
        ArbiterVectorEnv(num_envs=0, game="gomoku")
    for bad in (None, 0, -1, 10**6, 1.5, True, "2"):
        with pytest.raises(ParameterError, match="num_threads"):
            ArbiterVectorEnv(num_envs=4, game="gomoku", num_threads=bad)


def test_returned_arrays_belong_to_the_caller():
    """Steps hand out their observation and mask arrays without copying the batch; a later step
    or a partial reset must never write into arrays already returned, and a partial reset keeps
    the other slots' observations."""
    vec = ArbiterVectorEnv(num_envs=3, game="gomoku", size=7)
    rng = np.random.default_rng(0)
    obs0, info0 = vec.reset(seed=0)
    kept = [(obs0, obs0.copy()), (info0["action_mask"], info0["action_mask"].copy())]
    obs, _, _, _, info = vec.step(_random_actions(info0["action_mask"], rng))
    kept += [(obs, obs.copy()), (info["action_mask"], info["action_mask"].copy())]
    obs2, _, _, _, info2 = vec.step(_random_actions(info["action_mask"], rng))
    obs3, info3 = vec.reset(options={"reset_mask": np.array([True, False, False])})
    vec.step(_random_actions(info3["action_mask"], rng))
    for returned, snapshot in kept:
        np.testing.assert_array_equal(returned, snapshot)
    np.testing.assert_array_equal(obs3[1:], obs2[1:])
    np.testing.assert_array_equal(info3["action_mask"][1:], info2["action_mask"][1:])
    np.testing.assert_array_equal(obs3[0], obs0[0])  # slot 0 back at the start


def test_vector_render_and_registration():
    for env_id in IDS:
        assert gymnasium.spec(env_id).vector_entry_point == "envs.vector_env:ArbiterVectorEnv"
    vec = gymnasium.make_vec(
        "Calculation-v0", num_envs=2, vectorization_mode="vector_entry_point", render_mode="rgb_array"
    )
    vec.reset(seed=0)
    frames = vec.render()
    assert len(frames) == 2 and frames[0].dtype == np.uint8 and not np.array_equal(frames[0], frames[1])


@pytest.mark.parametrize(
    "game, params", [("othello", {"size": 6}), ("gomoku", {"size": 7}), ("go", {"size": 5}), ("loa", {})]
)
def test_greedy_opponent_plays_the_greedy_agents_moves(game, params):
    """``opponent="greedy"``: after the learner's move, every reply is the move the greedy agent
    (``agents.make("greedy")``) chooses from the same position with the same random stream (its
    ties), so the compiled opponent is that agent, not an imitation."""
    import agents

    vec = ArbiterVectorEnv(num_envs=2, game=game, opponent="greedy", agent_seat=1, **params)
    g = vec.game
    rng = np.random.default_rng(3)
    obs, info = vec.reset(seed=4)
    replies = 0
    for _ in range(40):
        before, streams = vec.states(), vec.buffers.rngs.copy()
        actions = _random_actions(info["action_mask"], rng)
        obs, reward, terminated, truncated, info = vec.step(actions)
        after = vec.states()
        for i in range(2):
            if before[i][C.H_STATUS] != C.ONGOING or after[i][C.H_PLY] < before[i][C.H_PLY]:
                continue  # a slot that started a new episode this step
            s = g.apply(before[i], int(actions[i]))
            greedy = agents.make("greedy")
            greedy.rng = streams[i].copy()
            while not g.is_terminal(s) and g.current_player(s) != 1:
                s = g.apply(s, greedy.act(g, s))
                replies += 1
            assert np.array_equal(s, after[i])
    assert replies >= 40


def test_greedy_opponent_beats_the_random_one_and_fuses_in_gymnasium():
    """The greedy opponent is stronger than the random one (Othello 6x6, learner random), and a
    Gymnasium env given ``opponent="greedy"`` steps through the compiled one-slot path."""
    rng = np.random.default_rng(0)
    wins = {}
    for opponent in ("random", "greedy"):
        vec = ArbiterVectorEnv(num_envs=64, game="othello", size=6, opponent=opponent)
        obs, info = vec.reset(seed=0)
        returns = []
        while len(returns) < 200:
            obs, reward, terminated, truncated, info = vec.step(_random_actions(info["action_mask"], rng))
            returns += reward[terminated | truncated].tolist()
        wins[opponent] = np.mean(np.array(returns) > 0)
    assert wins["greedy"] < wins["random"] - 0.2, wins
    env = gymnasium.make("Othello-v0", size=6, opponent="greedy")
    episode = env.unwrapped._episode
    assert not episode.external and episode.buffers.weights is not None  # the compiled greedy replies
    obs, info = env.reset(seed=1)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    assert reward in (-1.0, 0.0, 1.0)


@pytest.mark.parametrize("game, params", [("othello", {"size": 6}), ("go", {"size": 5}), ("calculation", {})])
def test_self_play_plays_every_seat_like_the_game(game, params):
    """``opponent="self"``: every action is the mover's; observation and mask are the next
    mover's; the reward is the mover's return; after an end the slot starts again (NEXT_STEP)."""
    vec = ArbiterVectorEnv(num_envs=3, game=game, opponent="self", **params)
    g = vec.game
    rng = np.random.default_rng(1)
    obs, info = vec.reset(seed=2)
    states = list(vec.states())
    pending = [False] * 3
    ends = 0
    for _ in range(400 if game != "calculation" else 150):
        actions = _random_actions(info["action_mask"], rng)
        obs, reward, terminated, truncated, info = vec.step(actions)
        now = vec.states()
        for i in range(3):
            if pending[i]:  # a new episode: compare from its first position on
                states[i] = now[i]
                pending[i] = False
                assert reward[i] == 0 and not terminated[i]
            else:
                mover = g.current_player(states[i])
                states[i] = g.apply(states[i], int(actions[i]))
                assert np.array_equal(states[i], now[i])
                if g.is_terminal(states[i]):
                    ends += 1
                    returns = g.returns(states[i])
                    assert terminated[i] or truncated[i]
                    assert reward[i] == returns[mover] and np.array_equal(info["rewards"][i], returns)
                    assert info["agent_seat"][i] == mover
                    pending[i] = True
                else:
                    assert reward[i] == 0 and not np.any(info["rewards"][i])
                    assert info["agent_seat"][i] == g.current_player(states[i])
                    mask = np.zeros(g.num_actions, dtype=np.int8)
                    mask[g.legal_actions(states[i])] = 1
                    assert np.array_equal(info["action_mask"][i], mask)
            seat = int(info["agent_seat"][i])
            assert np.array_equal(obs[i], g.observation(states[i], seat))
    assert ends >= 3


def test_self_play_errors():
    with pytest.raises(ParameterError, match="agent_seat"):
        ArbiterVectorEnv(num_envs=2, game="othello", opponent="self", agent_seat=1)
    with pytest.raises(ParameterError, match="opponent"):
        ArbiterVectorEnv(num_envs=2, game="othello", opponent="alphabeta")


def test_random_openings_start_every_episode_elsewhere():
    """``opening_plies``: every episode starts after that many random legal plies (a valid
    position, still under way), different per slot, the same for the same seed; an opening that
    would end the game is dealt again; the Gymnasium env opens the same way on both its paths."""
    import agents

    def starts(seed, plies, n=16, **kw):
        vec = ArbiterVectorEnv(num_envs=n, game="othello", size=6, opponent="self", opening_plies=plies, **kw)
        vec.reset(seed=seed)
        return vec.game, vec.states()

    game, s = starts(0, 4)
    assert (s[:, C.H_PLY] == 4).all() and (s[:, C.H_STATUS] == C.ONGOING).all()
    for row in s:
        game.check_state(row)  # every cell consistent: the plies were legal moves
    assert len({row.tobytes() for row in s}) > 4
    assert np.array_equal(starts(0, 4)[1], s) and not np.array_equal(starts(1, 4)[1], s)
    _, ranged = starts(0, (1, 5), n=64)
    assert set(ranged[:, C.H_PLY].tolist()) == {1, 2, 3, 4, 5}
    assert (starts(0, 0)[1][:, C.H_PLY] == 0).all()

    # Go 5x5: a quarter of random games are over by ply 28, so 30-ply openings often end the game
    go = ArbiterVectorEnv(num_envs=64, game="go", size=5, opponent="self", opening_plies=30)
    assert np.mean(go.game.random_playouts(400, seed=0)["lengths"] <= 30) > 0.2
    go.reset(seed=0)
    assert (go.states()[:, C.H_PLY] == 30).all() and (go.states()[:, C.H_STATUS] == C.ONGOING).all()

    # the Gymnasium env, with the compiled random opponent and with an agent object asked in Python
    for opponent in ("random", agents.make("random", seed=0)):
        env = gymnasium.make("Othello-v0", size=6, opponent=opponent, agent_seat=0, opening_plies=(2, 3))
        plies = set()
        for seed in range(12):
            env.reset(seed=seed)
            state = env.unwrapped.state
            env.unwrapped.game.check_state(state)
            plies.add(int(state[C.H_PLY]))
        assert plies <= {2, 3, 4} and len(plies) > 1  # 2 or 3 random plies, the opponent's reply if odd
        a = env.reset(seed=5)[0]
        assert np.array_equal(env.reset(seed=5)[0], a)

    for bad in (-1, (3, 2), (1,), (1, 2, 3), "2", 1.5, True, 128):
        with pytest.raises(ParameterError, match="opening_plies"):
            ArbiterVectorEnv(num_envs=2, game="othello", opening_plies=bad)
        with pytest.raises(ParameterError, match="opening_plies"):
            gymnasium.make("Othello-v0", opening_plies=bad)


@pytest.mark.parametrize(
    "env_id, params, opponent",
    [("Othello-v0", {"size": 6}, "random"), ("Go-v0", {"size": 5}, "random"), ("Calculation-v0", {}, None)],
    ids=["othello", "go", "calculation"],
)
def test_every_vectorization_mode_hands_out_the_same_terminal_mask(env_id, params, opponent):
    """Gymnasium's NEXT_STEP autoreset: the step that ends a game returns its final observation
    and the next step resets that slot, ignoring its action. That action is sampled from the
    final step's mask, so the mask must be one a sampler can draw from: all ones, in every mode
    (sync and async vectorize the Gymnasium env; vector_entry_point is the compiled batch). The
    same sampling line (``rng.choice`` of the legal ids, which raises on an empty mask) runs in
    all three; a slot's next step after its end is a fresh episode's start."""
    kwargs = dict(params) if opponent is None else {**params, "opponent": opponent}
    ends = {}
    for mode in ("sync", "async", "vector_entry_point"):
        vec = gymnasium.make_vec(env_id, num_envs=3, vectorization_mode=mode, **kwargs)
        assert vec.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
        rng = np.random.default_rng(0)
        obs, info = vec.reset(seed=0)
        finished = np.zeros(3, dtype=bool)
        ends[mode] = 0
        try:
            for _ in range(120):
                actions = _random_actions(info["action_mask"], rng)  # raises on an empty mask
                obs, reward, terminated, truncated, info = vec.step(actions)
                done = terminated | truncated
                assert info["action_mask"][done].all(), mode
                assert info["action_mask"][~done].any(axis=1).all(), mode
                # the step after an end started a new episode: no reward, no end, a legal mask
                assert not done[finished].any() and (reward[finished] == 0).all(), mode
                finished = done
                ends[mode] += int(done.sum())
        finally:
            vec.close()
    assert min(ends.values()) >= 3, ends
