"""envs.State: OpenSpiel's in-place position over a Game, equal move for move to the Game API.

That every registered game's State holds the Game API's state and legal actions move for move is
``envs.testing``'s protocol check (tests/test_contract.py); here, what the State derives from them
and its own conventions.
"""

import pickle
import random

import numpy as np
import pytest

import envs
from envs import IllegalActionError, StateError


@pytest.mark.parametrize(
    "name,params", [("go", {"size": 5, "rules": "openspiel"}), ("calculation", {})], ids=["two players", "one player"]
)
def test_the_mask_mover_returns_and_history_follow_the_game_api(name, params):
    game = envs.make_game(name, **params)
    rng = random.Random(7)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        array = game.initial_state(seed=seed)
        while True:
            np.testing.assert_array_equal(state.legal_actions(), game.legal_actions(array))
            np.testing.assert_array_equal(state.legal_actions_mask(), game.legal_mask(array))
            assert state.current_player() == game.current_player(array)
            assert state.is_terminal() == game.is_terminal(array)
            if state.is_terminal():
                break
            legal = state.legal_actions()
            a = int(legal[rng.randrange(len(legal))])
            state.apply_action(a)
            array = game.apply(array, a)
            np.testing.assert_array_equal(state.array, array)
        np.testing.assert_array_equal(state.returns(), game.returns(array))
        assert len(state.history()) == state.move_number() == int(array[envs.core.kernel.H_PLY])
        assert state.legal_actions().size == 0


def test_illegal_actions_are_refused_and_change_nothing():
    game = envs.make_game("othello", size=6)
    state = game.new_initial_state()
    before = state.array
    illegal = int(np.flatnonzero(~state.legal_actions_mask())[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal} .* not legal"):
        state.apply_action(illegal)
    for bad in (-1, game.num_actions, 2.5, "c4", None):
        with pytest.raises(IllegalActionError, match="outside the action space"):
            state.apply_action(bad)
    np.testing.assert_array_equal(state.array, before)
    assert state.history() == []
    state.apply_action(np.int32(state.legal_actions()[0]))  # any integer type is an action
    assert len(state.history()) == 1


def test_no_move_after_the_end():
    game = envs.make_game("gomoku", size=7)
    state = game.new_initial_state()
    for a in (0, 7, 1, 8, 2, 9, 3, 10, 4):  # Black's five along the top row
        state.apply_action(a)
    assert state.is_terminal() and state.returns().tolist() == [1.0, -1.0]
    with pytest.raises(IllegalActionError, match="after the game ended"):
        state.apply_action(20)


def test_the_array_is_never_shared():
    game = envs.make_game("go", size=5)
    state = game.new_initial_state()
    outside = state.array
    outside[envs.core.kernel.HEADER] = 2  # an edit to the copy handed out
    legal = state.legal_actions()
    legal[:] = 0
    assert state.legal_actions()[1] == 1  # the next copy is intact
    np.testing.assert_array_equal(state.array, game.initial_state())
    start = game.initial_state()
    mine = envs.State(game, start)
    start[envs.core.kernel.HEADER] = 1
    np.testing.assert_array_equal(mine.array, game.initial_state())


def test_clone_child_and_pickle_are_independent_positions():
    game = envs.make_game("loa")
    state = game.new_initial_state()
    state.apply_action(int(state.legal_actions()[3]))
    twin = state.clone()
    a = int(state.legal_actions()[0])
    child = state.child(a)
    assert twin == state and child != state and len(child.history()) == 2
    state.apply_action(a)
    assert state == child and twin != state
    back = pickle.loads(pickle.dumps(state))
    assert back == state and back.history() == state.history()
    back.apply_action(int(back.legal_actions()[0]))
    assert back != state


def test_a_state_refuses_arrays_the_game_refuses():
    game = envs.make_game("othello", size=6)
    tampered = game.initial_state()
    tampered[envs.core.kernel.HEADER] = 7
    with pytest.raises(StateError):
        envs.State(game, tampered)
    with pytest.raises(StateError):
        envs.State(game, envs.make_game("othello", size=8).initial_state())
    with pytest.raises(TypeError):
        envs.State("othello", tampered)


def test_text_and_notation_come_from_the_game():
    game = envs.make_game("othello", size=6)
    state = game.new_initial_state()
    a = int(state.legal_actions()[0])
    assert state.action_to_string(a) == game.action_to_str(game.initial_state(), a)
    assert str(state) == game.to_text(game.initial_state())
    assert state.observation(0).shape == game.observation_shape
    assert "ply 0" in repr(state)
