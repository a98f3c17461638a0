"""Othello search knowledge: the exact endgame solver, stable discs, and how alpha-beta uses them."""

import numpy as np
import pytest

import agents
import envs
from agents.base import AgentError
from envs.core import kernel as C
from envs.othello import endgame as EG
from envs.othello import evaluation as EV


def world_score(game, s):
    """Final score of finished ``s`` for its side to move by the world rules: the disc
    difference, the empty squares counted for the winner."""
    x = C.HEADER + game.size * game.size
    me = s[C.H_PLAYER]
    mine, theirs = int(s[x + me]), int(s[x + 1 - me])
    rest = game.size * game.size - mine - theirs
    return mine - theirs + (rest if mine > theirs else -rest if mine < theirs else 0)


def negamax(game, s):
    """Final score (world rules) for the side to move under perfect play: the plain full tree."""
    if game.is_terminal(s):
        return world_score(game, s)
    return max(-negamax(game, game.apply(s, int(a))) for a in game.legal_actions(s))


def late_position(game, empties, seed):
    """A random game stopped at ``empties`` empty squares (None if it ended before)."""
    rng = np.random.default_rng(seed)
    s = game.initial_state()
    while not game.is_terminal(s):
        if EG.empties(s, game.kernel_params) <= empties:
            return s
        moves = game.legal_actions(s)
        s = game.apply(s, int(moves[rng.integers(len(moves))]))
    return None


def open_late_positions(game, empties, seeds):
    """(position, its exact disc difference) for the random games of ``seeds`` stopped at
    ``empties`` empty squares that still give the mover a choice."""
    for seed in seeds:
        s = late_position(game, empties, seed)
        if s is not None and len(game.legal_actions(s)) >= 2:
            yield s, EG.disc_difference(s, game.kernel_params)[0]


@pytest.mark.parametrize("size", [6, 8])
def test_solver_equals_plain_negamax(size):
    game = envs.make_game("othello", size=size)
    p = game.kernel_params
    out = np.zeros(4, dtype=np.int64)
    checked = 0
    for seed in range(40):
        s = late_position(game, 7, seed)
        if s is None:
            continue
        exact = negamax(game, s)
        value, move = EG.disc_difference(s, p)
        assert value == exact
        assert EG.solve(s, p, 7, 0.0, out) == EG.SOLVED
        assert out[0] == np.sign(exact)
        # the move returned achieves the value: the opponent's best reply cannot do better
        child = game.apply(s, int(out[1]))
        after = negamax(game, child)
        after = after if child[C.H_PLAYER] == s[C.H_PLAYER] else -after
        assert np.sign(after) == np.sign(exact)
        checked += 1
    assert checked >= 30


def test_solver_declines_what_it_cannot_solve_and_stops_on_time():
    game = envs.make_game("othello")
    p = game.kernel_params
    out = np.zeros(4, dtype=np.int64)
    s = late_position(game, 16, 3)
    assert EG.solve(s, p, 15, 0.0, out) == EG.NOT_SOLVED  # more empties than the limit
    assert EG.solve(s, p, 16, 1e-9, out) == EG.OUT_OF_TIME  # a deadline long past
    big = envs.make_game("othello", size=10)
    assert EG.solve(big.initial_state(), big.kernel_params, 100, 0.0, out) == EG.NOT_SOLVED


CORNER_EDGE = """
1 x x x x o . . .
2 x x . . . . . .
3 . . . . . . . .
4 . . . o x . . .
5 . . . x o . . .
6 . . . . . . . .
7 . . . . . . . .
8 . . . . . . . .
  a b c d e f g h
to_move=x ply=8
"""


def stable_counts(game, s):
    p, n = game.kernel_params, game.size
    x = C.HEADER + n * n
    black, white = np.uint64(s[x + 2]), np.uint64(s[x + 3])
    occupied = black | white
    board = ~np.uint64(0) if n == 8 else (np.uint64(1) << np.uint64(n * n)) - np.uint64(1)
    bits = [C.popcount(np.int64(EV._stable(c, occupied, board, p, n))) for c in (black, white)]
    scans = [EV._scan_stable(s, n, colour) for colour in (1, 2)]
    assert bits == scans  # the bitboard and the square walk find the same set's size
    return bits


def test_stable_discs_grow_from_corners_along_edges():
    game = envs.make_game("othello")
    s = game.from_text(CORNER_EDGE)
    # a1-d1 along the edge from the corner, a2 under it and b2 held by them all; the White disc
    # on e1 is not stable (Black takes it by playing f1), nor is any centre disc
    assert stable_counts(game, s) == [6, 0]
    # from Black's view (to move) the term is Black's stable discs minus White's
    assert EV.terms(s, game.kernel_params)[3] == 6


def test_every_disc_of_a_full_board_is_stable():
    game = envs.make_game("othello", size=6)
    for seed in range(20):
        rng = np.random.default_rng(seed)
        s = game.initial_state()
        while not game.is_terminal(s):
            moves = game.legal_actions(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
        if EG.empties(s, game.kernel_params) != 0:
            continue
        black, white = game.discs(s)
        assert stable_counts(game, s) == [black, white]
        return
    pytest.fail("no random game filled the board")


def test_clock_is_othellos_default_and_depth_runs_keep_theirs():
    othello = envs.make_game("othello")
    gomoku = envs.make_game("gomoku", size=9)
    assert agents.make("alphabeta").budget(othello) == (64, 1.0, 30)
    assert agents.make("alphabeta").budget(gomoku) == (4, 0.0, 0)  # no clock declared: depth 4
    assert agents.make("alphabeta:depth=3").budget(othello) == (3, 0.0, 0)
    assert agents.make("alphabeta:depth=3,endgame=10").budget(othello) == (3, 0.0, 10)
    assert agents.make("alphabeta:time=0.5").budget(othello) == (64, 0.5, 30)


def test_alphabeta_plays_the_solvers_win_in_the_endgame():
    game = envs.make_game("othello")
    p = game.kernel_params
    won = 0
    for s, value in open_late_positions(game, 12, range(100, 130)):
        agent = agents.make("alphabeta:time=5", seed=0)
        a = agent.act(game, s)
        if value > 0:
            assert agent.last_stats["solved"]
            child = game.apply(s, a)
            after, _ = EG.disc_difference(child, p) if not game.is_terminal(child) else (0, 0)
            after = after if child[C.H_PLAYER] == s[C.H_PLAYER] else -after
            assert after > 0 or (game.is_terminal(child) and game.returns(child)[s[C.H_PLAYER]] == 1)
            won += 1
        # a fixed depth does not solve: same moves as before the solver existed, deterministic
        fixed = [agents.make("alphabeta:depth=2", seed=0) for _ in range(2)]
        assert fixed[0].act(game, s) == fixed[1].act(game, s)
        assert "solved" not in fixed[0].last_stats
    assert won >= 5


def test_a_proven_loss_is_played_by_the_move_that_loses_by_least():
    """Engines lose by as little as they can: the solver's second, full-window solve picks the
    losing move with the best final disc difference, and alpha-beta plays it (resign off)."""
    game = envs.make_game("othello")
    p = game.kernel_params
    out = np.zeros(4, dtype=np.int64)
    checked = 0
    for s, value in open_late_positions(game, 9, range(300, 360)):
        if value >= 0:
            continue
        margins = {}
        for a in game.legal_actions(s):
            child = game.apply(s, int(a))
            after = negamax(game, child)
            margins[int(a)] = after if child[C.H_PLAYER] == s[C.H_PLAYER] else -after
        assert max(margins.values()) == value
        assert EG.solve(s, p, 9, 0.0, out) == EG.SOLVED
        assert out[0] == -1 and out[3] == value and margins[int(out[1])] == value
        agent = agents.make("alphabeta:time=5,resign=False", seed=0)
        a = agent.act(game, s)
        assert agent.last_stats["solved"] and agent.last_stats["margin"] == value
        assert margins[a] == value
        checked += len(set(margins.values())) > 1  # a position where the choice matters
    assert checked >= 3


def test_weights_of_the_wrong_length_are_refused():
    game = envs.make_game("othello", size=6)
    with pytest.raises(AgentError, match="6 evaluation weights"):
        agents.make("alphabeta", depth=1, weights=[1.0, 8.0, 4.0]).act(game, game.initial_state())


@pytest.mark.slow
def test_new_evaluation_beats_the_old_at_equal_depth():
    """Stability, frontier and parity against the evaluation without them (their weights 0):
    colour pairs from 12 random openings, depth 2, no endgame solver."""
    from agents.openings import random_opening

    game = envs.make_game("othello")
    new, old = EV.WEIGHTS.tolist(), EV.WEIGHTS[:3].tolist() + [0.0, 0.0, 0.0]
    rng = np.random.default_rng(0)
    score = 0.0
    games = 0
    for _ in range(12):
        opening = random_opening(game, rng, 4, 8)
        for black_is_new in (True, False):
            weights = (new, old) if black_is_new else (old, new)
            players = [agents.make("alphabeta", depth=2, weights=w, seed=0) for w in weights]
            s = game.initial_state()
            for a in opening:
                s = game.apply(s, a)
            while not game.is_terminal(s):
                s = game.apply(s, players[game.current_player(s)].act(game, s))
            r = game.returns(s)[0 if black_is_new else 1]
            score += (r + 1) / 2
            games += 1
    assert score / games > 0.6
