"""Gomoku's own search kernel (``envs.gomoku.search``, alpha-beta's ``search="own"``): its
pattern table, the threats it reads (a win by threats seven plies and more deep, the forced
defence), its transposition table (the same values with and without it), both rules and every
board size, and bad options."""

import numpy as np
import pytest
from test_gomoku_threats import DEFENCES, DEFEND, TWO_THREATS, VCF3

import agents
import envs
from envs.gomoku import search as S

GAME = envs.make_game("gomoku", size=9)
WIN_BOUND = S.INF - 1000
NO_TABLE = np.zeros((1, 2), dtype=np.int64)


def run(game, state, depth, tt=None, exact_depth=False, allowed=()):
    """(move as text, score, depth reached, nodes) of a fixed-depth search."""
    out = np.array([0, 0, 0, 0, int(exact_depth)], dtype=np.int64)
    table = np.zeros((1 << 16, 2), dtype=np.int64) if tt is None else tt
    S.search(state, game.kernel_params, depth, 0.0, np.array(allowed, dtype=np.int64), table, out)
    return game.action_to_str(state, int(out[0])), int(out[1]), int(out[2]), int(out[3])


def line(cells):
    """A ``patterns()`` code from the eight neighbours, -4..-1 then +1..+4 (0 empty, 1 own, 2 other)."""
    return sum(v * 3**i for i, v in enumerate(cells))


@pytest.mark.parametrize(
    "cells, exact, pattern",
    [
        ((0, 1, 1, 1, 1, 0, 0, 0), False, S.FIVE),
        ((0, 0, 0, 1, 1, 1, 0, 0), False, S.F4),  # _XXX.XX_: the centre makes an open four
        ((0, 0, 2, 1, 1, 1, 0, 0), False, S.B4),
        ((0, 0, 0, 1, 1, 0, 0, 0), False, S.F3),
        ((0, 0, 0, 0, 1, 0, 1, 0), False, S.F3),  # the split three .X.X.X.
        ((0, 0, 2, 1, 1, 0, 0, 0), False, S.B3),
        ((0, 0, 0, 1, 0, 0, 0, 0), False, S.F2),
        ((2, 0, 0, 0, 0, 0, 0, 0), False, S.NONE),
        ((1, 1, 1, 1, 1, 0, 0, 0), False, S.FIVE),  # six in a row: wins in freestyle only
        ((1, 1, 1, 1, 1, 0, 0, 0), True, S.NONE),
        ((2, 1, 1, 1, 1, 2, 0, 0), True, S.FIVE),
    ],
)
def test_pattern_table(cells, exact, pattern):
    assert S.patterns()[int(exact), line(cells)] == pattern


def test_a_five_point_and_a_forced_block_are_played():
    four = VCF3.replace("5 o x x x . . . . .", "5 o x x x x . . . .")
    state = GAME.from_text(four.replace("9 o . . .", "9 o o . ."))
    assert run(GAME, state, 1)[:2] == ("f5", S.INF - 1)
    o_to_move = GAME.from_text(four.replace("to_move=x", "to_move=o"))
    assert run(GAME, o_to_move, 4)[0] == "f5"


def test_a_win_by_two_threats_seven_plies_deep():
    """x wins with a three and one more threat after any defence (the one-threat VCT misses it):
    the kernel sees a win seven plies deep. Its move, f3, and the two-threat search's e4 are
    both wins: after either, every reply of o leaves x a forced win (checked once with the
    two-threat search and the kernel at depth 9 on each reply)."""
    state = GAME.from_text(TWO_THREATS)
    move, score, reached, _ = run(GAME, state, 9)
    assert score > WIN_BOUND and S.INF - score >= 7
    assert move in {"f3", "e4"}
    assert run(GAME, state, 3)[1] < WIN_BOUND  # not within three plies


def test_the_forced_defence_is_found():
    """o to move against x's VCF (three fours): alpha-beta with the kernel plays a stone on its
    line (the root's threat-space search keeps only those; the kernel alone sees o lost to a
    slower win anyway, and any move loses as late)."""
    state = GAME.from_text(DEFEND)
    agent = agents.make("alphabeta", depth=4, search="own", seed=0)
    assert GAME.action_to_str(state, agent.act(GAME, state)) in DEFENCES
    assert run(GAME, state, 4)[1] < -WIN_BOUND


def test_an_open_three_is_blocked():
    game = envs.make_game("gomoku", size=15)
    state = game.initial_state()
    for move in ("h8", "a1", "i8", "a3", "j8"):  # x: h8-i8-j8 open; o's stones far away
        state = game.apply(state, game.str_to_action(state, move))
    move, score, _, _ = run(game, state, 4)
    assert move in {"g8", "k8", "f8", "l8"} and score > -WIN_BOUND


def random_positions(game, seed, count):
    rng = np.random.default_rng(seed)
    n = game.kernel_params[5]
    out = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(6, 16))):  # random stones near the centre
            free = [a for a in game.legal_actions(state) if abs(a // n - n // 2) <= 3 and abs(a % n - n // 2) <= 3]
            state = game.apply(state, int(free[rng.integers(len(free))]))
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            out.append(state)
    return out


def test_the_table_changes_no_value():
    """Iterative deepening to depth 4 with the table (its values used at their own depth) and
    without it gives the same value: the table only saves work (fewer nodes overall)."""
    game = envs.make_game("gomoku", size=11)
    with_tt = without = 0
    for state in random_positions(game, 5, 12):
        _, v1, d1, n1 = run(game, state, 4, exact_depth=True)
        _, v2, d2, n2 = run(game, state, 4, tt=NO_TABLE)
        assert (v1, d1) == (v2, d2)
        with_tt += n1
        without += n2
    assert with_tt < without


def test_the_patterns_kept_stone_by_stone_are_the_boards():
    """The kernel keeps every point's line codes as stones are placed and taken back (one digit
    of a code at a time) and each empty point's patterns from them: after any sequence, in any
    order, they are the patterns read from the board afresh, for both rules."""
    size = 9
    w = size + 2 * S.PAD
    cells = w * w
    steps = np.array([1, w, w + 1, w - 1], dtype=np.int64)
    interior = [(r + S.PAD) * w + c + S.PAD for r in range(size) for c in range(size)]
    rng = np.random.default_rng(5)
    for exact in (0, 1):
        table = S.patterns()[exact]
        board = np.full(cells, S.BORDER, dtype=np.int8)
        board[interior] = 0
        pat = np.zeros((2, cells, 4), dtype=np.uint8)
        codes = np.zeros((2, cells, 4), dtype=np.int16)
        for y in interior:
            for d in range(4):
                codes[:, y, d] = S._line_codes(board, y, steps[d])
                pat[:, y, d] = table[codes[:, y, d]]
        near = np.zeros(cells, dtype=np.int16)
        hsh = np.zeros(1, dtype=np.int64)
        stones = []
        for _ in range(150):
            if stones and (len(stones) > 40 or rng.random() < 0.4):
                x = stones.pop(int(rng.integers(len(stones))))  # not the last placed, as often as not
                S._remove(board, pat, near, table, codes, steps, w, hsh, x)
            else:
                free = [y for y in interior if board[y] == 0]
                x = free[int(rng.integers(len(free)))]
                S._place(board, pat, near, table, codes, steps, w, hsh, x, int(rng.integers(1, 3)))
                stones.append(x)
            for y in interior:
                if board[y] == 0:
                    for d in range(4):
                        black, white = S._line_codes(board, y, steps[d])
                        assert (pat[0, y, d], pat[1, y, d]) == (table[black], table[white])


def test_the_root_moves_can_be_restricted():
    state = GAME.from_text(VCF3)
    assert run(GAME, state, 2)[0] != "h5"
    assert run(GAME, state, 2, allowed=[GAME.str_to_action(state, "h5")])[0] == "h5"


@pytest.mark.parametrize("size", [7, 19])
@pytest.mark.parametrize("exact", [False, True])
def test_every_size_and_rule_plays_a_legal_move(size, exact):
    game = envs.make_game("gomoku", size=size, exact_five=exact)
    state = game.initial_state()
    for _ in range(6):
        move, _, reached, _ = run(game, state, 3)
        a = game.str_to_action(state, move)
        assert game.is_legal(state, a) and reached >= 1
        state = game.apply(state, a)


def test_an_overline_is_no_win_with_exact_five():
    game = envs.make_game("gomoku", size=9, exact_five=True)
    state = game.initial_state()
    for move in ("a5", "a1", "b5", "a2", "c5", "a8", "e5", "a9", "f5", "i9", "g5", "i1"):
        state = game.apply(state, game.str_to_action(state, move))
    _, score, _, _ = run(game, state, 1)  # x to move: d5 makes seven, which does not win
    assert score < WIN_BOUND
    free = envs.make_game("gomoku", size=9)
    assert run(free, free.from_text(game.to_text(state)), 1)[:2] == ("d5", S.INF - 1)


def test_alphabeta_with_its_own_search_on_a_clock():
    game = envs.make_game("gomoku", size=15)
    state = game.initial_state()
    for move in ("h8", "a1", "i8", "a3", "j8"):
        state = game.apply(state, game.str_to_action(state, move))
    agent = agents.make("alphabeta", time=0.3, search="own", seed=0)
    agent.act(game, state)  # compiles first
    assert game.action_to_str(state, agent.act(game, state)) in {"g8", "k8", "f8", "l8"}
    assert agent.last_stats["depth"] >= 4 and agent.last_stats["seconds"] < 1.0


def test_bad_search_option_and_a_game_without_its_own_search():
    with pytest.raises(agents.AgentError, match="'fast'"):
        agents.make("alphabeta", search="fast")
    othello = envs.make_game("othello")
    agent = agents.make("alphabeta", depth=1, search="own")
    with pytest.raises(agents.AgentError, match="othello"):
        agent.act(othello, othello.initial_state())


def test_the_default_search_is_the_kernel_on_a_clock_only():
    """On a clock alpha-beta plays Gomoku with the kernel (its SPRT: docs/strength.md); a fixed
    depth keeps the generic search and its moves, and games without a kernel keep theirs."""
    game = envs.make_game("gomoku", size=15)
    assert agents.make("alphabeta", time=0.5).settings(game)["search"] == "own"
    assert agents.make("alphabeta", depth=3).settings(game)["search"] == "generic"
    assert agents.make("alphabeta", time=0.5, search="generic").settings(game)["search"] == "generic"
    othello = envs.make_game("othello")
    assert agents.make("alphabeta", time=0.5).settings(othello)["search"] == "generic"


def test_the_defences_watch_the_clock():
    """``tactics.defences`` on a clock (alpha-beta's with the kernel): with time to finish, the
    moves it finds without a limit; with a limit already past, none tried (the kernel then
    decides alone)."""
    import time

    state = GAME.from_text(DEFEND)
    legal = GAME.legal_actions(state)
    found = agents.tactics.defences(GAME, state, legal, time.perf_counter() + 600)
    assert sorted(found) == sorted(agents.tactics.defences(GAME, state, legal))
    assert {GAME.action_to_str(state, a) for a in found} <= DEFENCES
    assert agents.tactics.defences(GAME, state, legal, 1e-9) is None


def threat_search(game, state, seat, depth, tt=None):
    """(first move as text, plies to the five or None, depth reached) of ``S.threat_search``."""
    out = np.zeros(5, dtype=np.int64)
    table = np.zeros((1 << 14, 2), dtype=np.int64) if tt is None else tt
    S.threat_search(state, game.kernel_params, seat, depth, 0.0, table, out)
    plies = S.INF - int(out[1]) if out[1] > WIN_BOUND else None
    return game.action_to_str(state, int(out[0])), plies, int(out[2])


def test_the_threat_search_sees_two_threats_where_the_depth_allows():
    """x wins TWO_THREATS with a three and one more threat: the kernel's threat-space search
    finds it with two threats' depth and not with one, and o (as if to move) has none."""
    state = GAME.from_text(TWO_THREATS)
    move, plies, _ = threat_search(GAME, state, 0, 2)
    assert move in {"f3", "e4"} and plies >= 7
    assert threat_search(GAME, state, 0, 1)[1] is None
    assert threat_search(GAME, state, 1, 6)[1:] == (None, 6)  # searched to the end: no win


def test_the_threat_search_finds_what_the_exhaustive_one_proves():
    """On random 9x9 positions, every win the exhaustive threat-space search proves (VCF, one
    threat, two threats: every defender reply tried) the kernel's threat-space search finds
    too, three threats deep; and after the first move of every win the kernel finds, every
    reply of the defender (none of which wins) still leaves the attacker a win it finds."""
    from test_gomoku_threats import random_positions as positions
    from test_gomoku_threats import threats

    proven = found = 0
    for state, seat in positions(11, 150):
        kind, _ = threats(state, seat, deep=True)
        move, plies, _ = threat_search(GAME, state, seat, 3)
        if kind:
            assert plies is not None
            proven += 1
        if plies is None:
            continue
        found += 1
        after = GAME.apply(state, GAME.str_to_action(state, move))
        if GAME.is_terminal(after):
            continue
        for reply in GAME.legal_actions(after):
            child = GAME.apply(after, int(reply))
            assert not GAME.is_terminal(child)
            assert threat_search(GAME, child, seat, 3)[1] is not None, GAME.action_to_str(after, int(reply))
    assert proven >= 20 and found > proven


def test_alphabeta_plays_and_stops_the_deep_threats():
    """With ``vct`` alpha-beta plays a win by two threats at once, and against x's VCF (o to
    move) only moves on its line; a bad ``vct`` is refused."""
    state = GAME.from_text(TWO_THREATS)
    agent = agents.make("alphabeta", time=0.5, vct=4, seed=0)
    assert GAME.action_to_str(state, agent.act(GAME, state)) in {"f3", "e4"}
    assert agent.last_stats["threat"] == "win"
    defend = GAME.from_text(DEFEND)
    assert GAME.action_to_str(defend, agent.act(GAME, defend)) in DEFENCES
    for bad in (-1, 21, 2.5):
        with pytest.raises(agents.AgentError, match="vct"):
            agents.make("alphabeta", vct=bad)
    with pytest.raises(agents.AgentError, match="vct=4"):  # the generic search has none
        agents.make("alphabeta", depth=2, vct=4).act(GAME, state)
    othello = envs.make_game("othello")
    with pytest.raises(agents.AgentError, match="vct=4"):
        agents.make("alphabeta", time=0.1, vct=4).act(othello, othello.initial_state())
