"""Othello: perft, golden replay against OpenSpiel, a pure-Python oracle, position tests as text
boards, notation and bad input."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core import NotationError, ParameterError, TextBoardError
from envs.core import kernel as C
from envs.core import rng as R
from envs.game import perft
from envs.othello import _kernel as K

GOLDEN = Path(__file__).parent / "data" / "golden"
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]

PERFT_8 = [4, 12, 56, 244, 1396, 8200, 55092, 390216, 3005288, 24571284]
PERFT_6 = [4, 12, 56, 244, 1364, 7604, 47740, 308716, 2114912, 14976792]


def play(game, state, *moves):
    for move in moves:
        state = game.apply(state, game.str_to_action(state, move))
    return state


def grid_of(game, state):
    n = game.size
    return state[C.HEADER : C.HEADER + n * n].reshape(n, n)


# -- perft ------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft_8x8(depth):
    game = envs.make_game("othello")
    assert perft(game, game.initial_state(), depth) == PERFT_8[depth - 1]


@pytest.mark.parametrize("depth", range(1, 8))
def test_perft_6x6(depth):
    game = envs.make_game("othello", size=6)
    assert perft(game, game.initial_state(), depth) == PERFT_6[depth - 1]


@pytest.mark.slow
@pytest.mark.parametrize("size, depth", [(8, 9), (8, 10), (6, 8), (6, 9), (6, 10)])
def test_perft_deep(size, depth):
    game = envs.make_game("othello", size=size)
    expected = (PERFT_8 if size == 8 else PERFT_6)[depth - 1]
    assert perft(game, game.initial_state(), depth) == expected


@pytest.mark.parametrize("size, depth", [(6, 7), (8, 7)])
def test_ray_walking_generator_matches_perft(size, depth):
    """Sizes 10..16 use the ray-walking generator; force it on the sizes with known perft."""
    game = envs.make_game("othello", size=size)
    p = game._p.copy()
    p[K.P_FAST] = 0
    p.flags.writeable = False  # same array type as the game's own params: no extra compilation
    state = np.zeros(K.state_length(size, fast=False), dtype=np.int64)
    K.init(state, p, R.new_rng(0))
    expected = (PERFT_8 if size == 8 else PERFT_6)[depth - 1]
    assert game._ops.perft(state, p, depth, game.num_actions) == expected


@pytest.mark.parametrize("size", [10, 12, 14, 16])
def test_opening_perft_is_size_independent(size):
    """The first four plies never reach an edge, so every size counts like 8x8."""
    game = envs.make_game("othello", size=size)
    assert [perft(game, game.initial_state(), d) for d in range(1, 5)] == PERFT_8[:4]


# -- OpenSpiel --------------------------------------------------------------------------------


def golden_records():
    for name in ("othello_8x8", "othello_8x8_early_end"):
        with gzip.open(GOLDEN / f"{name}.jsonl.gz", "rt") as f:
            yield from (json.loads(line) for line in f)


def test_golden_records_replay_exactly():
    game = envs.make_game("othello", rules="openspiel")
    records = list(golden_records())
    assert len(records) == 46
    mismatches = []
    for rec in records:
        state = game.initial_state()

        def action(move):
            return 64 if move == "pass" else move[0] * 8 + move[1]

        for k, move in enumerate(rec["moves"]):
            legal = sorted(action(m) for m in rec["legal"][k])
            if game.is_terminal(state) or game.legal_actions(state).tolist() != legal:
                mismatches.append((rec["id"], k, "legal"))
                break
            assert game.action_to_str(state, action(move)) == rec["action_strings"][k]
            state = game.apply(state, action(move))
            if "/".join(game.to_text(state).splitlines()[:8]) != "/".join(
                f"{r + 1} " + " ".join(row) for r, row in enumerate(rec["boards"][k].split("/"))
            ):
                mismatches.append((rec["id"], k, "board"))
                break
        else:
            if not game.is_terminal(state) or game.returns(state).tolist() != rec["returns"]:
                mismatches.append((rec["id"], len(rec["moves"]), "end"))
            elif list(game.discs(state)) != rec["info"]["discs"]:
                mismatches.append((rec["id"], len(rec["moves"]), "discs"))
            elif state[C.H_REASON] != {"board_full": K.FULL, "no_moves_for_either": K.NO_MOVES}[rec["end_reason"]]:
                mismatches.append((rec["id"], len(rec["moves"]), "reason"))
    assert mismatches == []


def test_random_games_match_live_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    game = envs.make_game("othello", rules="openspiel")
    rng = np.random.default_rng(7)
    for _ in range(30):
        theirs = pyspiel.load_game("othello").new_initial_state()
        ours = game.initial_state()
        while not theirs.is_terminal():
            assert game.legal_actions(ours).tolist() == sorted(theirs.legal_actions())
            a = int(rng.choice(theirs.legal_actions()))
            theirs.apply_action(a)
            ours = game.apply(ours, a)
        assert game.is_terminal(ours)
        assert game.returns(ours).tolist() == list(theirs.returns())


# -- a pure-Python oracle on every size ---------------------------------------------------------


def oracle_flips(grid, r, c, colour):
    """Cells a placement of ``colour`` at (r, c) flips, straight from the rule text."""
    n = len(grid)
    flips = []
    if grid[r][c]:
        return flips
    for dr, dc in DIRECTIONS:
        line, rr, cc = [], r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == 3 - colour:
            line.append((rr, cc))
            rr, cc = rr + dr, cc + dc
        if line and 0 <= rr < n and 0 <= cc < n and grid[rr][cc] == colour:
            flips += line
    return flips


@pytest.mark.parametrize("size", [6, 8, 10, 12, 14, 16])
def test_random_games_agree_with_oracle(size):
    game = envs.make_game("othello", size=size)
    n = size
    rng = np.random.default_rng(size)
    for _ in range(3):
        state = game.initial_state()
        grid = grid_of(game, state).tolist()
        while True:
            colour = game.current_player(state) + 1
            mine = [r * n + c for r in range(n) for c in range(n) if oracle_flips(grid, r, c, colour)]
            theirs = [r * n + c for r in range(n) for c in range(n) if oracle_flips(grid, r, c, 3 - colour)]
            if not mine and not theirs:
                assert game.is_terminal(state)
                black, white = (sum(row.count(v) for row in grid) for v in (1, 2))
                assert game.returns(state).tolist() == [float(np.sign(black - white)), float(np.sign(white - black))]
                assert game.discs(state) == (black, white)
                break
            assert game.legal_actions(state).tolist() == (mine or [n * n])
            a = int(rng.choice(mine or [n * n]))
            if a < n * n:
                for rr, cc in oracle_flips(grid, a // n, a % n, colour) + [divmod(a, n)]:
                    grid[rr][cc] = colour
            state = game.apply(state, a)
            assert grid_of(game, state).tolist() == grid
            again = game.from_text(game.to_text(state))  # equal but for the unknown last action
            assert np.array_equal(np.delete(again, C.H_LAST), np.delete(state, C.H_LAST))
        assert state[C.H_PLY] <= 2 * (n * n - 4) < game.max_moves


def test_random_playouts_are_reproducible_and_bounded():
    game = envs.make_game("othello")
    a, b = game.random_playouts(200, seed=3), game.random_playouts(200, seed=3)
    assert np.array_equal(a["returns"], b["returns"]) and np.array_equal(a["lengths"], b["lengths"])
    assert (a["returns"].sum(axis=1) == 0).all()
    assert ((a["lengths"] >= 9) & (a["lengths"] <= 2 * 60)).all()  # the shortest wipe-out takes 9 plies


# -- compiled random playouts ------------------------------------------------------------------
# ``random_playout`` keeps its own board (one-word bitboards for N <= 8, line words and a frontier
# list for N >= 10) and writes the cells, counts and hash back at the end; these tests hold it to
# ``legal_actions`` + ``apply``.


def line_params(game):
    """The game's params with the one-word generator off: the line playout on 6x6 and 8x8."""
    p = game.kernel_params.copy()
    p[K.P_FAST] = 0
    p.flags.writeable = False
    return p


def line_state(game, state):
    """``state`` in the layout of the row generator (for ``line_params``)."""
    t = np.zeros(K.state_length(game.size, fast=False), dtype=np.int64)
    t[: C.HEADER + game.size**2 + K.S_ROWS] = state[: C.HEADER + game.size**2 + K.S_ROWS]
    t[C.HEADER + game.size**2 + K.S_MOVES] = 0
    K.setup(t, line_params(game))
    return t


def near_the_end(game, empties, seed):
    """A position of a uniformly random game with at most ``empties`` empty squares, ongoing."""
    rng = np.random.default_rng(seed)
    while True:
        state = game.initial_state()
        while not game.is_terminal(state):
            if (state[C.HEADER : C.HEADER + game.size**2] == 0).sum() <= empties:
                return state
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.integers(len(legal))]))


def final_states(game, state, p=None):
    """Every final state reachable from ``state`` under uniformly random play (``apply`` over
    ``legal_actions``, the reference), with its probability, keyed by the state's bytes."""
    p = game.kernel_params if p is None else p
    out = {}

    def walk(s, prob):
        if s[C.H_STATUS] != C.ONGOING:
            out[s.tobytes()] = out.get(s.tobytes(), 0.0) + prob
            return
        moves = np.zeros(game.num_actions, dtype=np.int64)
        n = K.legal_actions(s, p, moves)
        for a in moves[:n]:
            child = s.copy()
            K.apply(child, p, a)
            walk(child, prob / n)

    walk(state, 1.0)
    return out


def playout_counts(game, state, times, seed, p=None):
    p = game.kernel_params if p is None else p
    rng, moves, counts = R.new_rng(seed), np.zeros(game.num_actions, dtype=np.int64), {}
    for _ in range(times):
        s = state.copy()
        K.random_playout(s, p, rng, moves)
        counts[s.tobytes()] = counts.get(s.tobytes(), 0) + 1
    return counts


@pytest.mark.parametrize("size, line", [(6, False), (8, False), (6, True), (8, True), (10, True), (16, True)])
def test_playouts_end_exactly_where_apply_does(size, line):
    """From positions a few empty squares from the end, every playout ends in a final state that
    ``apply`` reaches (the whole state: cells, counts, hash, bitboards, last move, result), each as
    often as uniform play reaches it (within 5 standard errors)."""
    game = envs.make_game("othello", size=size)
    times = 1500
    for seed in range(3):
        state = near_the_end(game, 6, seed)
        p = line_params(game) if line else game.kernel_params
        if line:
            state = line_state(game, state)
        expected = final_states(game, state, p)
        counts = playout_counts(game, state, times, seed, p)
        assert set(counts) <= set(expected)
        for key, q in expected.items():
            assert abs(counts.get(key, 0) / times - q) <= 5 * np.sqrt(q * (1 - q) / times) + 1 / times


@pytest.mark.parametrize("size", [6, 8, 10, 12, 14, 16])
def test_playouts_from_midgame_leave_valid_final_states(size):
    game = envs.make_game("othello", size=size)
    rng, moves = R.new_rng(size), np.zeros(game.num_actions, dtype=np.int64)
    pick = np.random.default_rng(size)
    for _ in range(40):
        state = game.initial_state()
        for _ in range(int(pick.integers(0, 2 * size))):
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[pick.integers(len(legal))]))
        K.random_playout(state, game.kernel_params, rng, moves)
        game.check_state(state)  # every invariant: counts, hash, bitboards, end status
        assert game.is_terminal(state)


@pytest.mark.parametrize("size, games", [(6, 4000), (8, 3000), (10, 1000)])
def test_compiled_playouts_draw_like_a_uniform_choice_among_legal_moves(size, games):
    """Game length and Black's result of compiled playouts against games choosing uniformly
    from ``legal_actions`` through the Game API (within 4 standard errors)."""
    game = envs.make_game("othello", size=size)
    fast = game.random_playouts(games, seed=7)
    rng = np.random.default_rng(7)
    lengths, black = [], []
    for _ in range(games // 2):
        s = game.initial_state()
        while not game.is_terminal(s):
            moves = game.legal_actions(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
        lengths.append(s[C.H_PLY])
        black.append(game.returns(s)[0])
    for ours, reference in ((fast["lengths"], np.array(lengths)), (fast["returns"][:, 0], np.array(black))):
        se = np.sqrt(ours.var() / len(ours) + reference.var() / len(reference))
        assert abs(ours.mean() - reference.mean()) < 4 * se


# -- positions as text boards -----------------------------------------------------------------

START_6 = """
1 . . . . . .
2 . . . . . .
3 . . o x . .
4 . . x o . .
5 . . . . . .
6 . . . . . .
  a b c d e f
to_move=x ply=0
"""


def test_6x6_start():
    game = envs.make_game("othello", size=6)
    state = game.initial_state()
    assert game.to_text(state) == START_6.lstrip("\n")
    assert np.array_equal(game.from_text(START_6), state)
    assert [game.action_to_str(state, a) for a in game.legal_actions(state)] == ["c2", "b3", "e4", "d5"]


def test_16x16_start():
    game = envs.make_game("othello", size=16)
    state = game.initial_state()
    grid = grid_of(game, state)
    assert grid[7, 7] == grid[8, 8] == 2 and grid[8, 7] == grid[7, 8] == 1 and np.count_nonzero(grid) == 4
    assert [game.action_to_str(state, a) for a in game.legal_actions(state)] == ["h7", "g8", "j9", "i10"]
    text = game.to_text(state)
    assert text.splitlines()[7] == " 8 " + ". " * 7 + "o x " + ". " * 6 + "."
    assert text.splitlines()[-2].split() == list("abcdefghijklmnop")
    assert np.array_equal(game.from_text(text), state)


FORCED_PASS = """
1 x x x o o o . .
2 o x o o o o . o
3 o x o o o o o x
4 o x o x o o x x
5 o x x x x x o x
6 o o x x x x o x
7 o o o x x x x x
8 . . o x x x x x
  a b c d e f g h
to_move=o ply=55
"""


def test_forced_pass():
    game = envs.make_game("othello")
    state = game.from_text(FORCED_PASS)
    assert not game.is_terminal(state)
    assert game.legal_actions(state).tolist() == [64]
    with pytest.raises(NotationError, match="'g1' is not legal"):
        game.str_to_action(state, "g1")
    passed = play(game, state, " PASS ")
    assert np.array_equal(grid_of(game, passed), grid_of(game, state))
    assert game.current_player(passed) == 0 and passed[C.H_PLY] == 56
    assert [game.action_to_str(passed, a) for a in game.legal_actions(passed)] == ["g1", "h1", "g2", "a8", "b8"]
    with pytest.raises(NotationError, match="'pass' is not legal"):
        game.str_to_action(passed, "pass")


NO_MOVES_LEFT = """
1 o o o o o o o .
2 o o o o x o x x
3 o x o x o x x x
4 o x x o x x x x
5 o x x x x o x x
6 . x x x o o x x
7 o x x o x x x x
8 x x x x x x x x
  a b c d e f g h
to_move=x ply=58
"""


def test_game_ends_with_an_empty_square_no_one_can_take():
    game = envs.make_game("othello")
    state = play(game, game.from_text(NO_MOVES_LEFT), "a6")
    assert game.is_terminal(state) and state[C.H_REASON] == K.NO_MOVES
    assert grid_of(game, state)[0, 7] == 0 and game.discs(state) == (41, 22)
    assert game.returns(state).tolist() == [1.0, -1.0]
    assert game.legal_actions(state).size == 0


WIPE_OUT = """
1 . . . . . . . .
2 . . . . . . . .
3 . . . . . . . .
4 . . . o x . . .
5 . . . x x x . .
6 . . . . . x . .
7 . . . . . . . .
8 . . . . . . . .
  a b c d e f g h
to_move=x ply=4
"""


def test_wipe_out_ends_the_game():
    game = envs.make_game("othello")
    state = game.from_text(WIPE_OUT)
    assert [game.action_to_str(state, a) for a in game.legal_actions(state)] == ["c3", "d3", "c4"]
    end = play(game, state, "c4")
    assert game.is_terminal(end) and end[C.H_REASON] == K.NO_MOVES
    assert game.discs(end) == (7, 0) and game.returns(end).tolist() == [1.0, -1.0]


LAST_SQUARE = """
1 . o x o o o
2 x x o o o o
3 x x o o o o
4 x x x o o o
5 x x x x o o
6 x x x x {} o
  a b c d e f
to_move=x ply=32
"""


@pytest.mark.parametrize("e6, returns", [("o", [0.0, 0.0]), ("x", [1.0, -1.0])])
def test_full_board_draw_and_win(e6, returns):
    game = envs.make_game("othello", size=6)
    state = game.from_text(LAST_SQUARE.format(e6))
    assert game.legal_actions(state).tolist() == [0]
    end = play(game, state, "a1")
    assert game.is_terminal(end) and end[C.H_REASON] == K.FULL
    assert sum(game.discs(end)) == 36 and game.returns(end).tolist() == returns


def test_text_board_of_a_finished_game_reads_as_finished():
    game = envs.make_game("othello", size=6)
    end = play(game, game.from_text(LAST_SQUARE.format("o")), "a1")
    again = game.from_text(game.to_text(end))
    assert game.is_terminal(again) and np.array_equal(np.delete(again, C.H_LAST), np.delete(end, C.H_LAST))


def test_observation_planes():
    game = envs.make_game("othello")
    state = game.from_text(WIPE_OUT)
    for seat in (0, 1):
        obs = game.observation(state, seat)
        assert obs.shape == (3, 8, 8) and obs.dtype == np.float32
        assert obs[0].sum() == (5 if seat == 0 else 1) and obs[1].sum() == (1 if seat == 0 else 5)
        assert (obs[2] == (1.0 if seat == 0 else 0.0)).all()
    assert game.observation(state, 1)[1, 3, 4] == 1.0  # e4 is Black's


def test_apply_leaves_its_argument_alone():
    game = envs.make_game("othello")
    state = game.initial_state()
    before = state.copy()
    game.apply(state, 19)
    assert np.array_equal(state, before)


# -- notation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [6, 8, 16])
def test_notation_round_trips_every_action(size):
    game = envs.make_game("othello", size=size)
    state = game.initial_state()
    names = [game.action_to_str(state, a) for a in range(game.num_actions)]
    assert names[0] == "a1" and names[size - 1] == f"{'abcdefghijklmnop'[size - 1]}1"
    assert names[size * size - size] == f"a{size}" and names[-1] == "pass"
    assert len(set(names)) == game.num_actions
    for a, name in enumerate(names):
        assert game.spec.notation.parse_move(game, state, name) == a


def test_notation_is_case_and_space_insensitive():
    game = envs.make_game("othello")
    state = game.initial_state()
    assert game.str_to_action(state, "  D3\n") == 19
    assert game.action_to_str(state, 19) == "d3"


# -- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [7, 5, 4, 18, 9, 0, -8])
def test_bad_sizes(size):
    with pytest.raises(ParameterError, match=f"size={size}: expected an even integer from 6 to 16"):
        envs.make_game("othello", size=size)


@pytest.mark.parametrize("size", ["8", 8.0, True, None])
def test_sizes_that_are_not_integers(size):
    with pytest.raises(ParameterError, match=f"size={size!r}: expected an integer"):
        envs.make_game("othello", size=size)


def test_bad_rules_and_unknown_parameters():
    with pytest.raises(ParameterError, match="rules='tournament'"):
        envs.make_game("othello", rules="tournament")
    with pytest.raises(ParameterError, match="'komi'"):
        envs.make_game("othello", komi=7.5)


@pytest.mark.parametrize("text", ["", "d", "d0", "d9", "i4", "4d", "d3d", "pas", "passs", "d-3", "d03"])
def test_malformed_notation(text):
    game = envs.make_game("othello")
    with pytest.raises(NotationError, match=repr(text)):
        game.str_to_action(game.initial_state(), text)


@pytest.mark.parametrize("text", ["a1", "d4", "pass"])
def test_illegal_notation(text):
    game = envs.make_game("othello")
    with pytest.raises(NotationError, match=f"{text!r} is not legal"):
        game.str_to_action(game.initial_state(), text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("garbage", "non-empty lines"),
        (START_6.replace("2 . . . . . .", "2 . . . . ."), "'2 . . . . .'"),
        (START_6.replace("5 . . . . . .", "5 . . . * . ."), "'\\*'"),
        (START_6.replace("  a b c d e f", "  a b c d e g"), "column line"),
        (START_6.replace("to_move=x ply=0", "to_move=x"), "missing ply"),
        (START_6.replace("to_move=x", "to_move=b"), "to_move='b'"),
        (START_6.replace("ply=0", "ply=1"), "to_move=x with ply=1"),
        (START_6.replace("ply=0", "ply=-2"), "ply='-2'"),
        (START_6.replace("ply=0", "ply=2"), "ply=2 with 4 discs"),
        (START_6.replace("3 . . o x", "3 . . . x"), "centre squares c3 d3 c4 d4"),
        (WIPE_OUT, "expected 6 board rows"),  # an 8x8 board given to the 6x6 game
    ],
)
def test_garbage_text_boards(text, message):
    game = envs.make_game("othello", size=6)
    with pytest.raises(TextBoardError, match=message):
        game.from_text(text)
