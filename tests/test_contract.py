"""Contract tests: invariants of the Game protocol that every game at several sizes must keep.

Random games are played through the public API with a seeded generator; at every ply the state is
checked against the protocol (masks, immutability, notation and text round trips, observations).
"""

import numpy as np
import pytest

import envs
from envs import _common as C
from envs.core import IllegalActionError, ParameterError, StateError

CONFIGS = [
    ("loa", {}),
    ("loa", {"rules": "openspiel"}),
    ("loa", {"simultaneous": "mover", "no_move": "lose"}),
    ("othello", {"size": 6}),
    ("othello", {}),
    ("othello", {"size": 10}),
    ("gomoku", {"size": 7}),
    ("gomoku", {}),
    ("gomoku", {"size": 9, "exact_five": True}),
    ("go", {"size": 5}),
    ("go", {"size": 7, "rules": "openspiel"}),
    ("go", {"size": 9, "suicide": True}),
    ("calculation", {}),
]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in params.items()) or 'default'}" for name, params in CONFIGS]


@pytest.fixture(params=CONFIGS, ids=IDS)
def game(request):
    name, params = request.param
    return envs.make_game(name, **params)


def _check_state(game, state):
    legal = game.legal_actions(state)
    mask = game.legal_mask(state)
    assert legal.dtype == np.int64 and np.all(np.diff(legal) > 0), "legal actions not ascending int64"
    assert np.array_equal(np.flatnonzero(mask), legal), "legal_mask disagrees with legal_actions"
    assert (len(legal) == 0) == game.is_terminal(state)
    obs = game.observation(state, game.current_player(state))
    assert obs.dtype == np.float32 and obs.shape == game.observation(game.initial_state(), 0).shape
    for a in legal:
        text = game.action_to_str(state, a)
        assert game.str_to_action(state, text) == a, f"{text!r} does not round-trip"
        assert game.str_to_action(state, f"  {text.swapcase()} ") == a, "notation must ignore case and spaces"
    text = game.to_text(state)
    back = game.from_text(text)
    assert game.to_text(back) == text
    back_legal = game.legal_actions(back)
    if game.name == "go" and game.params["superko"] == "illegal":
        # like FEN, a text board carries no history, so it may allow a superko repetition
        assert set(legal) <= set(back_legal)
    else:
        assert np.array_equal(back_legal, legal)
    assert back[C.H_HASH] == state[C.H_HASH]
    return legal


def test_random_games_keep_the_contract(game):
    rng = np.random.default_rng(7)
    for episode in range(3):
        state = game.initial_state(seed=episode)
        plies = 0
        while not game.is_terminal(state):
            legal = _check_state(game, state)
            before = state.copy()
            nxt = game.apply(state, int(rng.choice(legal)))
            assert np.array_equal(state, before), "apply mutated its input"
            state = nxt
            plies += 1
            assert plies <= game.max_moves
        _check_state(game, state)
        returns = game.returns(state)
        assert returns.shape == (game.num_players,)
        if game.num_players == 2:
            assert returns.sum() == 0 and set(returns) <= {-1.0, 0.0, 1.0}
        else:
            assert returns[0] in (0.0, 1.0)


def test_random_playouts_are_compiled_and_deterministic(game):
    a = game.random_playouts(200, seed=11)
    b = game.random_playouts(200, seed=11)
    c = game.random_playouts(200, seed=12)
    assert a["returns"].shape == (200, game.num_players) and a["lengths"].shape == (200,)
    assert np.array_equal(a["returns"], b["returns"]) and np.array_equal(a["lengths"], b["lengths"])
    assert not np.array_equal(a["lengths"], c["lengths"])
    assert np.all((a["lengths"] > 0) & (a["lengths"] <= game.max_moves))
    if game.num_players == 2:
        assert np.all(a["returns"].sum(axis=1) == 0)


def test_initial_state_is_deterministic_per_seed(game):
    assert np.array_equal(game.initial_state(seed=3), game.initial_state(seed=3))


def test_bad_actions_raise_typed_errors(game):
    state = game.initial_state(seed=0)
    for bad in (-1, game.num_actions, 10**12, 1.0, True, "3", None):
        with pytest.raises(IllegalActionError, match=repr(bad).replace("(", r"\(").replace(")", r"\)")):
            game.apply(state, bad)
    illegal = np.flatnonzero(~game.legal_mask(state))
    if len(illegal):
        with pytest.raises(IllegalActionError, match=f"action {illegal[0]}"):
            game.apply(state, int(illegal[0]))


def test_foreign_or_damaged_states_are_refused(game):
    state = game.initial_state(seed=0)
    other = envs.make_game("gomoku", size=8)
    with pytest.raises(StateError):
        game.legal_actions(other.initial_state())
    with pytest.raises(StateError):
        game.apply(state.astype(np.int32), 0)
    with pytest.raises(StateError):
        game.current_player(state[:-1])
    with pytest.raises(StateError):
        game.is_terminal([0] * game.state_len)


def test_unknown_games_and_parameters_are_refused():
    with pytest.raises(ParameterError, match="'chess'"):
        envs.make_game("chess")
    with pytest.raises(ParameterError, match="'sise'"):
        envs.make_game("go", sise=9)
    with pytest.raises(ParameterError, match="'japanese'"):
        envs.make_game("go", rules="japanese")
