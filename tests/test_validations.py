"""Validation happens where a state enters from a user, once: the envs step their own positions
with the compiled stepper and never check them again, and an agent checks the state it is given
once per move (``Agent.act``), however many positions its search looks at.

A full validation is a run of the game's ``validate`` hook: ``check_state`` calls it, and
``legal_actions`` and ``apply`` run it inside their compiled call (``checked_legal``,
``checked_apply``). ``counted`` wraps all three on one Game object, the one an env plays and
hands to its opponent.

Also here: a game that is over before the learner's first move (the opponent's opening move
reaches ``max_moves=1``), which every env reports consistently.
"""

import types

import gymnasium
import numpy as np
import pytest

import agents
import envs
from envs.core import kernel as C
from envs.framework_ids import register_envs
from envs.pz_env import env as aec_env
from envs.vector_env import ArbiterVectorEnv

register_envs()


def counted(game) -> list:
    """Count every full validation of a state by ``game`` into the returned one-cell list."""
    calls = [0]
    validate, ops = game._validate, game._ops

    def validate_counted(s, p):
        calls[0] += 1
        return validate(s, p)

    def counting(fn):
        def call(*args):
            calls[0] += 1
            return fn(*args)

        return call

    proxy = types.ModuleType(ops.__name__)
    proxy.__dict__.update(vars(ops))
    proxy.checked_legal, proxy.checked_apply = counting(ops.checked_legal), counting(ops.checked_apply)
    game._validate, game._ops = validate_counted, proxy
    game.__dict__.pop("unchecked", None)  # built again over the counting namespace
    return calls


class FirstLegal:
    """A user's opponent object: it reads the position through the checked Game API."""

    def act(self, game, state):
        return int(game.legal_actions(state)[0])


def _steps_validations(env, seed, episodes=2):
    """The validations of each reset and step of ``episodes`` episodes of the raw Gymnasium
    ``env`` (masked random learner actions)."""
    calls = counted(env.game)
    rng = np.random.default_rng(seed)
    counts = []
    for episode in range(episodes):
        before = calls[0]
        _, info = env.reset(seed=seed + episode)
        counts.append(calls[0] - before)
        while True:
            before = calls[0]
            _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            counts.append(calls[0] - before)
            if terminated or truncated:
                break
    return counts


@pytest.mark.parametrize("opponent", ["random", "greedy", "agent", "user", "spec"])
def test_a_gymnasium_step_validates_at_most_once(opponent):
    """0 with a compiled opponent; one with an opponent object, in its ``act`` (an agent's
    ``Agent.act``, or a user's ``game.legal_actions``); never for the env's own position."""
    made = {"agent": agents.make("random", seed=3), "user": FirstLegal(), "spec": "mcts:simulations=40"}
    env = gymnasium.make("Go-v0", size=5, agent_seat="random", opponent=made.get(opponent, opponent)).unwrapped
    counts = _steps_validations(env, seed=7)
    assert len(counts) > 10
    limit = 0 if opponent in ("random", "greedy") else 1
    assert max(counts) == limit, counts
    if opponent != "random" and opponent != "greedy":
        assert counts.count(1) >= len(counts) // 2  # the opponent was asked (and checked) on most steps


def test_an_mcts_move_validates_once_with_tree_reuse_and_the_loss_guard():
    """``Agent.act`` checks the state; the tree reuse (the two plies played since the last
    search), the one-move-loss guard (every reply to the chosen move) and the move itself read
    positions without a second check. The opponent is another MCTS, whose replies the first
    one's tree has mostly expanded, so most searches start from a reused subtree."""
    game = envs.make_game("go", size=5)
    bot, opponent = agents.make("mcts:simulations=300", seed=1), agents.make("mcts:simulations=300", seed=2)
    calls = counted(game)
    state, per_move, reused = game.initial_state(), [], 0
    while not game.unchecked.is_terminal(state) and len(per_move) < 20:
        before = calls[0]
        action = bot.act(game, state)
        per_move.append(calls[0] - before)
        reused += bot.last_stats["reused"] > 0
        state = game.unchecked.apply(state, action)
        if not game.unchecked.is_terminal(state):
            state = game.unchecked.apply(state, opponent.act(game, state))
    assert per_move == [1] * len(per_move)
    assert reused > 0  # the reuse path ran


def test_the_aec_and_vector_envs_never_validate_their_own_positions():
    aec = aec_env("othello", size=6)
    calls = counted(aec.unwrapped.game)
    aec.reset(seed=0)
    for _agent in aec.agent_iter():
        obs, _, termination, truncation, _ = aec.last()
        aec.step(None if termination or truncation else int(np.flatnonzero(obs["action_mask"])[0]))
    vec = ArbiterVectorEnv(num_envs=4, game="othello", size=6)
    vec_calls = counted(vec.game)
    _, info = vec.reset(seed=0)
    for _ in range(40):
        _, _, _, _, info = vec.step(np.argmax(info["action_mask"], axis=1))
    assert calls[0] == 0 and vec_calls[0] == 0


# -- a game over before the learner's first move ----------------------------------------------------


@pytest.mark.parametrize("opponent", ["random", "object"])
def test_a_game_over_at_reset_shows_the_end_mask_and_ends_at_the_first_step(opponent):
    """Go with ``max_moves=1`` and the learner on seat 1: the opponent's first move ends the game.
    The reset's mask is all ones (the finished game's, never all zeros: a masked sampler must
    draw), and the first step ends the episode, truncated at the cap, with the learner's return;
    its action is ignored, not called illegal."""
    env = gymnasium.make(
        "Go-v0", size=5, max_moves=1, agent_seat=1, opponent=FirstLegal() if opponent == "object" else "random"
    ).unwrapped
    obs, info = env.reset(seed=0)
    game = env.game
    assert game.is_terminal(env.state) and info["action_mask"].dtype == np.int8 and info["action_mask"].all()
    np.testing.assert_array_equal(obs, game.observation(env.state, 1))
    assert env.action_masks().all()
    _, reward, terminated, truncated, info = env.step(3)
    assert (terminated, truncated, info["illegal_action"]) == (False, True, False)
    assert reward == game.returns(env.state)[1] != 0.0
    assert info["action_mask"].all() and env.state[C.H_PLY] == 1
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


def test_the_vector_and_sb3_envs_report_a_game_over_at_reset_on_the_next_step():
    vec = ArbiterVectorEnv(num_envs=3, game="go", size=5, max_moves=1, agent_seat=1)
    _, info = vec.reset(seed=0)
    assert info["action_mask"].all()
    returns = [vec.game.returns(s)[1] for s in vec.states()]
    _, rewards, terminated, truncated, info = vec.step(np.zeros(3, dtype=np.int64))
    assert truncated.all() and not terminated.any() and not info["illegal_action"].any()
    assert rewards.tolist() == returns and 0.0 not in returns and info["action_mask"].all()
    _, rewards, terminated, truncated, info = vec.step(np.zeros(3, dtype=np.int64))  # the autoreset step
    assert not (terminated | truncated).any() and (rewards == 0).all() and info["action_mask"].all()
    pytest.importorskip("stable_baselines3", reason="envs.sb3 needs the learn extra")
    from envs.sb3 import make_vec_env

    venv = make_vec_env("Go-v0", n_envs=2, size=5, max_moves=1, agent_seat=1, seed=0)
    venv.reset()
    assert venv.action_masks().all()
    _, rewards, dones, infos = venv.step(np.zeros(2, dtype=np.int64))
    assert dones.all() and (rewards != 0).all() and all(i["TimeLimit.truncated"] for i in infos)
    assert venv.action_masks().all()  # the next episode is over at its start too


def test_the_aec_env_ends_every_agent_of_a_game_over_at_reset(monkeypatch):
    """A start position that is already over (here a Gomoku board with a five on it, as a custom
    ``initial_state`` could give): reset ends every agent at once with its return, and each
    takes its one dead step."""
    env = aec_env("gomoku", size=9)
    game = env.unwrapped.game
    won = game.from_text(
        "\n".join(
            [
                f"{9 - r} " + " ".join("x" if r == 4 and c < 5 else "o" if r == 5 and c < 4 else "." for c in range(9))
                for r in range(9)
            ]
        )
        + "\n  a b c d e f g h i\nto_move=o\n"
    )
    assert game.is_terminal(won)
    monkeypatch.setattr(game, "initial_state", lambda seed=None: won.copy())
    env.reset(seed=0)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    seen = []
    for agent in env.agent_iter():
        _, reward, termination, _, _ = env.last()
        seen.append((agent, reward, termination))
        env.step(None)
    assert sorted(seen) == [("player_0", 1.0, True), ("player_1", -1.0, True)] and env.agents == []
