"""Gomoku position tests, written as text boards."""

import numpy as np
import pytest

import envs
from envs.core import NotationError, ParameterError, TextBoardError
from envs.core import kernel as C
from envs.core import rng as R
from envs.gomoku import _kernel as K

OVERLINE = """
7 . . . . . . .
6 . . . . . . .
5 . . . . . . .
4 x x x . x x .
3 . o o . o o .
2 . . . . . . .
1 . o . . . . .
  a b c d e f g
to_move=x
"""


def test_centre_of_15x15_is_h8():
    game = envs.make_game("gomoku")
    state = game.initial_state()
    assert game.str_to_action(state, "h8") == 7 * 15 + 7
    assert game.action_to_str(state, 0) == "a15"
    assert game.action_to_str(state, 224) == "o1"


def test_overline_wins_in_freestyle():
    game = envs.make_game("gomoku", size=7)
    state = game.from_text(OVERLINE)
    after = game.apply(state, game.str_to_action(state, "d4"))
    assert game.is_terminal(after)
    assert list(game.returns(after)) == [1.0, -1.0]


def test_overline_does_not_win_with_exact_five():
    game = envs.make_game("gomoku", size=7, exact_five=True)
    state = game.from_text(OVERLINE)
    after = game.apply(state, game.str_to_action(state, "d4"))
    assert not game.is_terminal(after)
    five = game.apply(after, game.str_to_action(after, "d3"))  # b3-f3: exactly five for White
    assert game.is_terminal(five) and list(game.returns(five)) == [-1.0, 1.0]


def test_exactly_five_wins_under_both_settings():
    for exact in (False, True):
        game = envs.make_game("gomoku", size=7, exact_five=exact)
        state = game.from_text(OVERLINE.replace("4 x x x . x x .", "4 x x x . x . x"))
        after = game.apply(state, game.str_to_action(state, "d4"))
        assert game.is_terminal(after) and game.returns(after)[0] == 1.0


FULL_BUT_ONE = """
7 o x o o o x x
6 x x o x o x x
5 x o x x x x o
4 o o o o x o o
3 x x o o o x x
2 o o o x o o x
1 x x x o o x .
  a b c d e f g
to_move=x
"""


def test_full_board_without_five_is_a_draw():
    game = envs.make_game("gomoku", size=7)
    state = game.from_text(FULL_BUT_ONE)
    assert not game.is_terminal(state)
    end = game.apply(state, game.str_to_action(state, "g1"))
    assert game.is_terminal(end)
    assert list(game.returns(end)) == [0.0, 0.0]
    assert len(game.legal_actions(end)) == 0


def test_diagonal_five_wins():
    game = envs.make_game("gomoku", size=9)
    state = game.initial_state()
    for move in ["a1", "a9", "b2", "b9", "c3", "c9", "d4", "d9"]:
        state = game.apply(state, game.str_to_action(state, move))
    assert not game.is_terminal(state)
    state = game.apply(state, game.str_to_action(state, "e5"))
    assert game.is_terminal(state) and game.returns(state)[0] == 1.0


@pytest.mark.parametrize("params", [{"size": 6}, {"size": 20}, {"size": "15"}, {"exact_five": 1}])
def test_bad_parameters(params):
    with pytest.raises(ParameterError, match=repr(next(iter(params.values())))):
        envs.make_game("gomoku", **params)


@pytest.mark.parametrize("text", ["", "h", "h0", "h16", "p8", "8h", "h8h", "pass", "h-8"])
def test_malformed_notation(text):
    game = envs.make_game("gomoku")
    with pytest.raises(NotationError, match=repr(text)):
        game.str_to_action(game.initial_state(), text)


def test_occupied_point_is_illegal_notation():
    game = envs.make_game("gomoku")
    state = game.apply(game.initial_state(), 112)
    with pytest.raises(NotationError, match="not legal"):
        game.str_to_action(state, "H8")


@pytest.mark.parametrize(
    "text",
    [
        "garbage",
        OVERLINE.replace("to_move=x", "to_move=o"),  # stone counts say x is to move
        OVERLINE.replace("1 . o", "1 . z"),
        OVERLINE.replace("  a b c d e f g", "  a b c d e f h"),
        OVERLINE.replace("to_move=x", "to_move=x ply=3"),
        OVERLINE.replace("4 x x x . x x .", "4 x x x x x . ."),  # x has five but is to move
    ],
)
def test_garbage_text_boards(text):
    game = envs.make_game("gomoku", size=7)
    with pytest.raises(TextBoardError):
        game.from_text(text)


def test_observation_planes_are_from_the_seat_view():
    game = envs.make_game("gomoku", size=7)
    state = game.apply(game.initial_state(), 24)
    black, white = game.observation(state, 0), game.observation(state, 1)
    assert black[0].sum() == 1 and black[1].sum() == 0 and black[2].max() == 0
    assert np.array_equal(white[1], black[0]) and white[2].min() == 1


# -- compiled random playouts ------------------------------------------------------------------
# ``random_playout`` draws from a list of the empty points and counts lines on a bordered board of
# its own; these tests hold it to ``legal_actions`` + ``apply``.


def late_position(game, empties, seed):
    """A position of a uniformly random game with at most ``empties`` empty points, ongoing."""
    rng = np.random.default_rng(seed)
    while True:
        state = game.initial_state()
        while not game.is_terminal(state):
            if state[C.HEADER : C.HEADER + game.size**2].tolist().count(0) <= empties:
                return state
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))


def final_states(game, state):
    """Every final state reachable from ``state`` under uniformly random play (``apply`` over
    ``legal_actions``, the reference), with its probability, keyed by the state's bytes."""
    out = {}

    def walk(s, prob):
        if game.is_terminal(s):
            out[s.tobytes()] = out.get(s.tobytes(), 0.0) + prob
            return
        legal = game.legal_actions(s)
        for a in legal:
            walk(game.apply(s, int(a)), prob / len(legal))

    walk(state, 1.0)
    return out


@pytest.mark.parametrize("params", [{"size": 7}, {"size": 7, "exact_five": True}, {"size": 9, "exact_five": True}])
def test_playouts_end_exactly_where_apply_does(params):
    """From positions a few empty points from the end, every playout ends in a final state that
    ``apply`` reaches (cells, hash, ply, last move, result), each as often as uniform play
    reaches it (within 5 standard errors)."""
    game = envs.make_game("gomoku", **params)
    times = 1500
    for seed in range(3):
        state = late_position(game, 5, seed)
        expected = final_states(game, state)
        rng, moves, counts = R.new_rng(seed), np.zeros(game.num_actions, dtype=np.int64), {}
        for _ in range(times):
            s = state.copy()
            K.random_playout(s, game.kernel_params, rng, moves)
            counts[s.tobytes()] = counts.get(s.tobytes(), 0) + 1
        assert set(counts) <= set(expected)
        for key, q in expected.items():
            assert abs(counts.get(key, 0) / times - q) <= 5 * np.sqrt(q * (1 - q) / times) + 1 / times


@pytest.mark.parametrize("params", [{"size": 9}, {"size": 15}, {"size": 9, "exact_five": True}])
def test_compiled_playouts_draw_like_a_uniform_choice_among_legal_moves(params):
    """Game length and Black's result of compiled playouts against games choosing uniformly
    from ``legal_actions`` through the Game API (within 4 standard errors)."""
    game = envs.make_game("gomoku", **params)
    fast = game.random_playouts(3000, seed=7)
    rng = np.random.default_rng(7)
    lengths, black = [], []
    for _ in range(1000):
        s = game.initial_state()
        while not game.is_terminal(s):
            moves = game.legal_actions(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
        lengths.append(s[C.H_PLY])
        black.append(game.returns(s)[0])
    for ours, reference in ((fast["lengths"], np.array(lengths)), (fast["returns"][:, 0], np.array(black))):
        se = np.sqrt(ours.var() / len(ours) + reference.var() / len(reference))
        assert abs(ours.mean() - reference.mean()) < 4 * se
