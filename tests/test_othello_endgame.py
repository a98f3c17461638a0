"""The 8x8 endgame solver: scores by the world rules, its transposition table, FFO positions."""

import time
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.othello import _kernel as K
from envs.othello import endgame as EG
from envs.othello.notation import from_obf

FFO = Path(__file__).resolve().parent / "data" / "ffo" / "fforum-40-59.obf"
GAME = envs.make_game("othello")
P = GAME.kernel_params


def ffo(number):
    """FFO position ``number`` (40..59) and its moves' exact scores."""
    return from_obf(GAME, FFO.read_text().splitlines()[number - 40])


def random_position(seed, empties):
    """A random game stopped at ``empties`` empty squares that gives the mover a choice, or None."""
    rng = np.random.default_rng(seed)
    s = GAME.initial_state()
    while not GAME.is_terminal(s) and EG.empties(s, P) > empties:
        moves = GAME.legal_actions(s)
        s = GAME.apply(s, int(moves[rng.integers(len(moves))]))
    if GAME.is_terminal(s) or len(GAME.legal_actions(s)) < 2:
        return None
    return s


def random_boards(seeds, empties):
    """``random_position(seed, empties(seed))`` for each seed that gives one, with its two words
    (the mover's and the opponent's, as uint64, not Python ints)."""
    for seed in seeds:
        s = random_position(seed, empties(seed))
        if s is not None:
            own, opp = (np.uint64(w) for w in EG._sides(s, P))
            yield s, own, opp


# White's only disc is b1: Black takes it with a1 and the game ends with 57 empty squares, which
# the world rules give to Black: 7 discs to 0 scores 64, not 7.
WIPE_OUT = """
1 . o x . . . . .
2 . . . . . . . .
3 . . . . . . . .
4 . . . x x . . .
5 . . . x x . . .
6 . . . . . . . .
7 . . . . . . . .
8 . . . . . . . .
  a b c d e f g h
to_move=x ply=2
"""

# Black's one move g8 flips along row 8 and the diagonal to d5, and then nobody can play a1 or
# b1: every line from them runs through Black's discs to the edge. 59 discs to 3 with two
# squares empty scores 58 for Black (64 - 2 * 3), not 56.
BLOCKED = "--XXXXXX" + "XXXXXXXX" * 4 + "XXXOOXXX" + "XXXOOOXX" + "XXXOOO-X" + " X"


def test_a_wipe_out_scores_every_square_for_the_winner():
    s = GAME.from_text(WIPE_OUT)
    value, move, _ = EG.exact(s, P)
    assert value == 64 and GAME.action_to_str(s, move) == "a1"
    end = GAME.apply(s, move)
    assert GAME.is_terminal(end) and GAME.discs(end) == (7, 0)
    assert GAME.score(end) == 64 and GAME.margin(end) == 64 and GAME.returns(end).tolist() == [1.0, -1.0]
    out = np.zeros(4, dtype=np.int64)
    assert EG.solve(s, P, 64, 0.0, out) == EG.SOLVED and out[0] == 1


def test_empty_squares_left_at_the_end_go_to_the_winner():
    s, _ = from_obf(GAME, BLOCKED)
    value, move, _ = EG.exact(s, P)
    assert value == 58 and GAME.action_to_str(s, move) == "g8"
    end = GAME.apply(s, move)
    assert GAME.is_terminal(end) and GAME.discs(end) == (59, 3)
    assert GAME.score(end) == 58 and GAME.margin(end) == 58 and GAME.outcome(end).margin == 58
    assert GAME.outcome(end).sgf_result == "B+58"
    # White to move on the same board must pass: the pass is its move, and it loses by 58
    s, _ = from_obf(GAME, BLOCKED[:-1] + "O")
    value, move, _ = EG.exact(s, P)
    assert value == -58 and move == 64
    out = np.zeros(4, dtype=np.int64)
    assert EG.solve(s, P, 64, 0.0, out) == EG.SOLVED
    assert out.tolist()[:2] == [-1, 64] and out[3] == -58  # lost, by the least it can: 58


def test_the_table_changes_no_value():
    """The same exact score with and without the transposition table on random positions of
    12 to 14 empty squares (the table and its cut-offs work from 8 empties up)."""
    checked = 0
    for seed in range(40):
        s = random_position(seed, 12 + seed % 3)
        if s is None:
            continue
        with_table, move, nodes = EG.exact(s, P)
        without, _, plain = EG.exact(s, P, tt_bits=0)
        assert with_table == without
        child = GAME.apply(s, move)  # the move found reaches that score
        if not GAME.is_terminal(child):
            after = EG.exact(child, P)[0]
            turned = GAME.current_player(child) != GAME.current_player(s)
            assert (-after if turned else after) == with_table
        checked += 1
        if checked == 10:
            break
    assert checked == 10


def test_the_pattern_evaluation_on_bitboards_is_the_fitted_one():
    """``_pattern_sum`` (every group read off the two words in the board's eight orientations)
    gives ``patterns.value``'s sum over the placed groups, on random positions of every stage."""
    from envs.othello import patterns as PT

    table = PT.table()
    if table is None:
        pytest.skip("no patterns.npz")
    checked = 0
    for s, own, opp in random_boards(range(200, 260), lambda seed: 4 + seed % 56):
        start = PT.phase(EG.empties(s, P)) * PT.STAGE
        mine = (EG._pattern_sum(own, opp, start, table) + table[start]) * PT.SCALE
        assert mine == pytest.approx(PT.value(s, GAME.current_player(s) + 1, 0, 0, 0, 0, 0, table))
        checked += 1
    assert checked >= 40


def test_the_pattern_ordering_changes_no_value():
    """``exact`` orders moves from ``PATTERN_EMPTIES`` empties up by a search over the pattern
    evaluation: the same scores as the mobility ordering alone (no table of patterns)."""
    checked = 0
    for seed in range(70, 90):
        s = random_position(seed, EG.PATTERN_EMPTIES + 1)
        if s is None:
            continue
        value, move, _ = EG.exact(s, P)
        info = np.zeros(4, dtype=np.int64)
        plain, _ = EG._exact(s, P, *EG.table_of(20), EG.NO_PATTERNS, info)
        assert value == plain
        child = GAME.apply(s, move)
        if not GAME.is_terminal(child):
            after = EG.exact(child, P)[0]
            assert (-after if GAME.current_player(child) != GAME.current_player(s) else after) == value
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def test_mtd_finds_the_same_score_from_any_first_guess():
    """``exact`` starts MTD(f) at a pattern search's score (``_first_guess``) instead of a draw:
    from any even start, far above or below the value, the searches end at the same exact
    score, and with a move that reaches it."""
    checked = 0
    for seed in range(300, 340):
        s = random_position(seed, 13)
        if s is None:
            continue
        own, opp = (np.uint64(w) for w in EG._sides(s, P))
        value, _, _ = EG.exact(s, P, tt_bits=0)
        guess = EG._first_guess(own, opp, EG.pattern_weights())
        assert guess % 2 == 0 and -64 <= guess <= 64
        for start in (-64, -20, 0, guess, 30, 64):
            tables, mask = EG._tables(14)
            info = np.zeros(4, dtype=np.int64)
            v, move = EG._mtd(own, opp, -64, 64, start, tables, mask, EG.NO_PATTERNS, 0.0, info)
            assert v == value
            child = GAME.apply(s, move)
            if not GAME.is_terminal(child):
                after = EG.exact(child, P)[0]
                assert (-after if GAME.current_player(child) != GAME.current_player(s) else after) == value
        checked += 1
        if checked == 6:
            break
    assert checked == 6


def test_win_loss_and_exact_searches_agree():
    """``solve`` (a window around a draw, then the loss's margin) agrees with the full window."""
    out = np.zeros(4, dtype=np.int64)
    seen = set()
    for seed in range(100, 130):
        s = random_position(seed, 14)
        if s is None:
            continue
        value, _, _ = EG.exact(s, P)
        assert EG.solve(s, P, 14, 0.0, out) == EG.SOLVED
        assert out[0] == np.sign(value)
        if value < 0:
            assert out[3] == value  # the least loss: the exact score
        seen.add(int(np.sign(value)))
    assert seen >= {-1, 1}


def minimax(s, who):
    """Final score by the world rules for player ``who`` under perfect play, by the game's own
    rules and plain minimax (no pruning): the reference for the solver's code."""
    if GAME.is_terminal(s):
        return GAME.score(s) if who == 0 else -GAME.score(s)
    values = [minimax(GAME.apply(s, int(a)), who) for a in GAME.legal_actions(s)]
    return max(values) if GAME.current_player(s) == who else min(values)


def test_flips_moves_and_last_square_counts_agree_with_the_game_kernel():
    """``_flips`` (eight rays in two vectors) against the game kernel's fills on random boards,
    every empty square, both sides; ``_moves`` (four directions in vectors) against the squares
    where the kernel flips something; and ``_count_last`` (line bytes looked up in ``COUNT_FLIP``)
    against the popcount of the kernel's flips on boards with one empty square."""
    rng = np.random.default_rng(5)
    for trial in range(300):
        fill = rng.random(64) < rng.uniform(0.3, 1.0)
        mine = rng.random(64) < 0.5
        own = sum(1 << k for k in range(64) if fill[k] and mine[k])
        opp = sum(1 << k for k in range(64) if fill[k] and not mine[k])
        if trial % 3 == 0:  # one empty square: the last move's counts
            sq = int(rng.integers(64))
            own = own & ~(1 << sq)
            opp = ((1 << 64) - 1) & ~own & ~(1 << sq)
        own, opp = np.uint64(own), np.uint64(opp)
        empty = [k for k in range(64) if not (int(own) | int(opp)) >> k & 1]
        legal = {0: 0, 1: 0}
        for sq in empty:
            bit = np.uint64(1 << sq)
            for side, (a, b) in enumerate(((own, opp), (opp, own))):
                assert EG._flips(a, b, sq) == K._bb_flips(a, b, bit, P)
                legal[side] |= (1 << sq) if K._bb_flips(a, b, bit, P) else 0
                if len(empty) == 1:
                    assert EG._count_last(a, sq) == bin(int(K._bb_flips(a, b, bit, P))).count("1")
        assert int(EG._moves(own, opp)) == legal[0] and int(EG._moves(opp, own)) == legal[1]


def test_corner_stability_counts_corners_and_the_edge_squares_next_to_held_ones():
    """``_corner_stability`` (an ordering term of ``exact``): a1, b1 and a2 held: 3; b1 and a2
    without a1: 0; h8, g8 and d4 held: 2."""

    def discs(*squares):
        return np.uint64(sum(1 << s for s in squares))

    assert EG._corner_stability(discs(0, 1, 8)) == 3
    assert EG._corner_stability(discs(1, 8, 9)) == 0
    assert EG._corner_stability(discs(63, 62, 27)) == 2


def test_region_parity_counts_each_quadrant():
    """``_parity`` takes one population count a quadrant: the same bits as toggling each empty
    square's quadrant in turn."""
    rng = np.random.default_rng(11)
    for _ in range(300):
        empty = int(rng.integers(0, 2**63)) | int(rng.integers(0, 2)) << 63
        empty &= int(rng.integers(0, 2**63)) | int(rng.integers(0, 2)) << 63  # sparse sets too
        expected = 0
        for sq in range(64):
            if empty >> sq & 1:
                expected ^= 1 << (2 * (sq // 8 >= 4) + (sq % 8 >= 4))
        assert EG._parity(np.uint64(empty)) == expected


def test_the_numpy_table_is_the_compiled_one():
    """``exact`` makes its table with numpy (``table_of``: huge pages) instead of ``_tables``
    inside compiled code: the same zeroed words and the same bucket mask."""
    for bits in (0, 1, 5, 14):
        tables, mask = EG.table_of(bits)
        compiled, compiled_mask = EG._tables(bits)
        assert tables.dtype == compiled.dtype and tables.shape == compiled.shape
        assert mask == compiled_mask and not tables.any()


def test_the_last_squares_code_agrees_with_minimax():
    """``_shallow`` (straight-line code for the last seven squares, no table) against plain
    minimax over the game's rules on random positions of 1 to 7 empty squares, in random
    windows: a value inside the window is exact, one on or outside it a bound on the right
    side; and ``exact`` (whose root lists its moves and calls ``_shallow`` below) agrees."""
    rng = np.random.default_rng(11)
    checked = 0
    for seed in range(400, 460):
        s = random_position(seed, 1 + seed % 7)
        if s is None:
            continue
        own, opp = (np.uint64(w) for w in EG._sides(s, P))  # uint64, not Python ints
        true = minimax(s, GAME.current_player(s))
        info = np.zeros(4, dtype=np.int64)
        for _ in range(4):
            alpha = int(rng.integers(-66, 64))
            beta = alpha + int(rng.choice([1, 2, 3, int(rng.integers(1, 130))]))
            nodes = info[0]
            v = EG._shallow(own, opp, alpha, beta, EG.empties(s, P), info.ctypes.data)
            assert info[0] > nodes  # the node count, kept through its address
            if alpha < v < beta:
                assert v == true
            elif v <= alpha:
                assert true <= v
            else:
                assert true >= v
        assert EG.exact(s, P)[0] == true
        checked += 1
    assert checked >= 40


def negamax(own, opp, depth, evaluate, end):
    """Plain negamax over a leaf evaluation, every move in square order, no window: what the
    shallow searches of the move ordering must return whatever order they try moves in."""
    moves = int(EG._moves(own, opp))
    if not moves:
        if not EG._moves(opp, own):
            return end * int(EG._final(own, opp))
        return -(evaluate(opp, own) if depth <= 1 else negamax(opp, own, depth - 1, evaluate, end))
    best = None
    for sq in (k for k in range(64) if moves >> k & 1):
        f = EG._flips(own, opp, sq)
        child = (opp ^ f, own | f | np.uint64(1 << sq))
        v = -(evaluate(*child) if depth <= 1 else negamax(*child, depth - 1, evaluate, end))
        best = v if best is None else max(best, v)
    return best


def test_the_ordering_searches_are_plain_negamax_in_a_full_window():
    """The shallow searches that order the solver's moves try the move leaving the fewest
    replies first at each node of two plies or more (``_fastest``); alpha-beta in a full
    window still returns the negamax value, over the mobility evaluation and over the
    pattern table, so the order changes the work and never the keys."""
    from envs.othello import patterns as PT

    w = EG.pattern_weights()
    pattern = lambda own, opp: int(EG._pattern_eval(own, opp, w))
    checked = 0
    for _, own, opp in random_boards(range(500, 540), lambda seed: 24 + seed % 8):
        for depth, probe in ((2, EG._probe2), (3, EG._probe3)):
            expected = negamax(own, opp, depth, lambda a, b: int(EG._evaluate(a, b)), 1000)
            assert probe(own, opp, -EG.PROBE_INF, EG.PROBE_INF) == expected
        expected = negamax(own, opp, 2, pattern, PT.SCALE)
        assert EG._pattern_probe(own, opp, 2, EG.PROBE_INF, w) == expected
        checked += 1
        if checked == 8:
            break
    assert checked == 8


@pytest.mark.parametrize("number", [40])
def test_ffo_win_or_loss_and_a_move_that_keeps_it(number):
    """FFO positions solved win/draw/loss (the game's ``solve`` hook): the result has the sign
    of the suite's best score, and the move found is one of the moves that keep it."""
    s, scores = ffo(number)
    out = np.zeros(4, dtype=np.int64)
    assert EG.solve(s, P, 64, 0.0, out) == EG.SOLVED
    best = max(scores.values())
    assert out[0] == np.sign(best)
    assert np.sign(scores[int(out[1])]) == np.sign(best)


@pytest.mark.slow
@pytest.mark.parametrize("number", [40, 41, 42, 44])
def test_ffo_exact_score_and_best_move(number):
    s, scores = ffo(number)
    value, move, _ = EG.exact(s, P)
    assert value == max(scores.values())
    assert scores[move] == value


def test_obf_lines_are_checked():
    with pytest.raises(ValueError, match="side to move"):
        from_obf(GAME, "X" * 64)
    with pytest.raises(ValueError, match="squares must be"):
        from_obf(GAME, "Z" * 64 + " X")
    s, scores = ffo(40)
    assert EG.empties(s, P) == 20 and GAME.current_player(s) == 0 and len(scores) == 10
    with pytest.raises(ValueError, match="tt_bits"):
        EG.exact(s, P, tt_bits=40)


def test_on_a_clock_the_solver_starts_only_where_its_speed_says_it_finishes():
    out = np.zeros(4, dtype=np.int64)
    need = EG.affordable_seconds(30)
    assert need > 300 and EG.affordable_seconds(31) == 2 * need  # twice for one more empty square
    far = random_position(3, 30)
    assert EG.solve(far, P, 64, time.perf_counter() + 60.0, out) == EG.NOT_SOLVED  # a minute: too little
    assert out[2] == 0  # declined before any search
    near = random_position(3, 16)
    assert EG.affordable_seconds(16) < 0.1
    assert EG.solve(near, P, 64, time.perf_counter() + 600.0, out) == EG.SOLVED
    assert EG.solve(near, P, 64, 1e-9, out) == EG.OUT_OF_TIME  # a deadline long past


def test_a_search_stops_when_its_deadline_passes():
    s = random_position(3, 16)
    info = np.zeros(4, dtype=np.int64)
    EG._value(s, P, -1, 1, *EG.table_of(12), EG.NO_PATTERNS, 1e-9, info)  # the clock is read at the first node
    assert info[1] == 1 and info[0] == 1


def test_stable_discs_never_change_colour():
    """What the stability cut-off relies on: discs ``_stable`` calls stable keep their colour in
    every random continuation of the game."""
    rng = np.random.default_rng(5)
    x = envs.core.kernel.HEADER + 64
    checked = 0
    for _ in range(60):
        s = GAME.initial_state()
        for _ in range(int(rng.integers(20, 56))):
            if GAME.is_terminal(s):
                break
            moves = GAME.legal_actions(s)
            s = GAME.apply(s, int(moves[rng.integers(len(moves))]))
        black, white = np.uint64(s[x + 2]), np.uint64(s[x + 3])
        stable = [int(EG._stable(black, white)), int(EG._stable(white, black))]
        for _ in range(3):
            t = s
            while not GAME.is_terminal(t):
                moves = GAME.legal_actions(t)
                t = GAME.apply(t, int(moves[rng.integers(len(moves))]))
                now = [int(np.uint64(t[x + 2])), int(np.uint64(t[x + 3]))]
                assert stable[0] & now[0] == stable[0] and stable[1] & now[1] == stable[1]
        checked += bool(stable[0] | stable[1])
    assert checked >= 20
