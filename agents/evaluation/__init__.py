"""Static evaluations and tactical move scores for every game, dispatched by game id in numba.

Like ``envs/_dispatch.py``, each entry point is one ``if`` chain over the game id, so compiled
search code can call a game's evaluation without taking a function argument (which would defeat
numba's on-disk cache). Each game module provides, over a state ``s`` and kernel params ``p``:

    evaluate(s, p, w) -> int      static value for the side to move (|value| < WIN_BOUND)
    hint(s, p, a) -> int          move-ordering hint: higher is searched first
    tactical(s, child, p, a, w)   greedy score of move ``a`` (``child`` = the position after it)
    WEIGHTS                       the default weight vector ``w`` (float64)

and Gomoku also ``filter_moves`` (placements near stones only). Scores are integers so that
transposition-table entries compare exactly; a forced win at ply ``k`` scores ``INF - k``.
"""

import numpy as np
from numba import njit

from envs import _common as C
from envs._dispatch import GO, GOMOKU, LOA, OTHELLO

from . import calculation, go, gomoku, loa, othello

INF = 1_000_000
WIN_BOUND = INF - 1_000  # scores beyond this are forced wins or losses

_MODULES = {"loa": loa, "othello": othello, "gomoku": gomoku, "go": go, "calculation": calculation}


def default_weights(game_name: str) -> np.ndarray:
    """A fresh copy of the default evaluation weights of a game (by ``Game.name``)."""
    return _MODULES[game_name].WEIGHTS.copy()


@njit(cache=True)
def terminal_score(s, ply):
    """Value of a finished game for its side to move: INF - ply won, -(INF - ply) lost, 0 drawn."""
    w = s[C.H_WINNER]
    if w == C.NO_WINNER:
        return 0
    return INF - ply if w == s[C.H_PLAYER] else ply - INF


@njit(cache=True)
def evaluate(gid, s, p, w):
    if gid == LOA:
        v = loa.evaluate(s, p, w)
    elif gid == OTHELLO:
        v = othello.evaluate(s, p, w)
    elif gid == GOMOKU:
        v = gomoku.evaluate(s, p, w)
    elif gid == GO:
        v = go.evaluate(s, p, w)
    else:
        v = calculation.evaluate(s, p, w)
    return max(-WIN_BOUND + 1, min(WIN_BOUND - 1, v))


@njit(cache=True)
def hint(gid, s, p, a):
    if gid == LOA:
        return loa.hint(s, p, a)
    elif gid == OTHELLO:
        return othello.hint(s, p, a)
    elif gid == GOMOKU:
        return gomoku.hint(s, p, a)
    elif gid == GO:
        return go.hint(s, p, a)
    return calculation.hint(s, p, a)


@njit(cache=True)
def tactical(gid, s, child, p, a, w):
    if gid == LOA:
        return loa.tactical(s, child, p, a, w)
    elif gid == OTHELLO:
        return othello.tactical(s, child, p, a, w)
    elif gid == GOMOKU:
        return gomoku.tactical(s, child, p, a, w)
    elif gid == GO:
        return go.tactical(s, child, p, a, w)
    return calculation.tactical(s, child, p, a, w)


@njit(cache=True)
def live_length(gid, s):
    """How many leading cells of ``s`` a copy must carry for play to go on from the copy.

    Copy-make search copies a state per node: LOA's row is mostly repetition-history slots of
    moves not yet played (8 KB), so only its used part is copied; other games use the whole row.
    """
    if gid == LOA:
        return loa.live_length(s)
    return s.shape[0]


@njit(cache=True)
def filter_moves(gid, s, p, moves, n):
    """Drop moves search never considers (Gomoku: far from every stone); keeps at least one."""
    if gid == GOMOKU:
        return gomoku.filter_moves(s, p, moves, n)
    return n
