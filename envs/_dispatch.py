"""Compiled game-generic entry points: one ``if`` chain over the game id per kernel function.

Generic compiled code (random playouts, search, the vector env) must call a game's kernel without
receiving the kernel as a function argument: numba recompiles a function that takes another
jitted function as an argument in every new process (its on-disk cache never hits). Branching on
an integer game id keeps every caller cacheable, at the price of compiling all five games into it.

Caveat: numba's cache does not notice when a kernel in another file changes. After editing a
``_kernel.py``, delete ``envs/__pycache__/_dispatch*.nb*`` (and caches of callers) or set
``NUMBA_CACHE_DIR`` to a fresh directory; installed copies are unaffected.

Every kernel module provides, over a state ``s`` and kernel params ``p`` (both int64 arrays):
    init(s, p, rng)              fill a start position (rng: SplitMix64 state, for deals)
    legal_actions(s, p, out)     write the legal action ids ascending into ``out``; return count
    is_legal(s, p, a)            whether action ``a`` (already known to be in range) is legal
    apply(s, p, a)               play legal action ``a`` in place
"""

import numpy as np
from numba import njit

from . import _common as C
from .calculation import _kernel as calculation
from .go import _kernel as go
from .gomoku import _kernel as gomoku
from .loa import _kernel as loa
from .othello import _kernel as othello

LOA, OTHELLO, GOMOKU, GO, CALCULATION = 0, 1, 2, 3, 4


@njit(cache=True)
def init(gid, s, p, rng):
    if gid == LOA:
        loa.init(s, p, rng)
    elif gid == OTHELLO:
        othello.init(s, p, rng)
    elif gid == GOMOKU:
        gomoku.init(s, p, rng)
    elif gid == GO:
        go.init(s, p, rng)
    else:
        calculation.init(s, p, rng)


@njit(cache=True)
def legal_actions(gid, s, p, out):
    if gid == LOA:
        return loa.legal_actions(s, p, out)
    elif gid == OTHELLO:
        return othello.legal_actions(s, p, out)
    elif gid == GOMOKU:
        return gomoku.legal_actions(s, p, out)
    elif gid == GO:
        return go.legal_actions(s, p, out)
    return calculation.legal_actions(s, p, out)


@njit(cache=True)
def is_legal(gid, s, p, a):
    if gid == LOA:
        return loa.is_legal(s, p, a)
    elif gid == OTHELLO:
        return othello.is_legal(s, p, a)
    elif gid == GOMOKU:
        return gomoku.is_legal(s, p, a)
    elif gid == GO:
        return go.is_legal(s, p, a)
    return calculation.is_legal(s, p, a)


@njit(cache=True)
def apply(gid, s, p, a):
    if gid == LOA:
        loa.apply(s, p, a)
    elif gid == OTHELLO:
        othello.apply(s, p, a)
    elif gid == GOMOKU:
        gomoku.apply(s, p, a)
    elif gid == GO:
        go.apply(s, p, a)
    else:
        calculation.apply(s, p, a)


@njit(cache=True)
def random_playouts(gid, p, state_len, num_actions, num_players, rng, returns, lengths):
    """Fill ``returns[g]`` and ``lengths[g]`` with uniformly random games from a fresh start.

    Go draws each move from its list of empty points plus pass (``go.random_playout``: the same
    uniform distribution over legal moves without listing them all every ply)."""
    s = np.zeros(state_len, dtype=np.int64)
    moves = np.zeros(num_actions, dtype=np.int64)
    for g in range(returns.shape[0]):
        init(gid, s, p, rng)
        if gid == GO:
            go.random_playout(s, p, rng)
        while s[C.H_STATUS] == C.ONGOING:
            n = legal_actions(gid, s, p, moves)
            apply(gid, s, p, moves[C.randint(rng, n)])
        C.fill_returns(s, num_players, returns[g])
        lengths[g] = s[C.H_PLY]



@njit(cache=True)
def perft(gid, s0, p, depth, num_actions):
    """Number of move sequences of length ``depth`` from ``s0`` (a finished game counts as a leaf).

    Iterative with an explicit stack of states and move lists, so it needs no recursion.
    """
    if depth == 0 or s0[C.H_STATUS] != C.ONGOING:
        return 1
    states = np.zeros((depth + 1, s0.shape[0]), dtype=np.int64)
    moves = np.zeros((depth, num_actions), dtype=np.int64)
    count = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    states[0, :] = s0
    count[0] = legal_actions(gid, states[0], p, moves[0])
    level = 0
    total = 0
    while level >= 0:
        if index[level] == count[level]:
            level -= 1
            continue
        child = states[level + 1]
        child[:] = states[level]
        apply(gid, child, p, moves[level, index[level]])
        index[level] += 1
        if level + 1 == depth or child[C.H_STATUS] != C.ONGOING:
            total += 1
        else:
            level += 1
            count[level] = legal_actions(gid, child, p, moves[level])
            index[level] = 0
    return total


@njit(cache=True)
def legal_array(gid, s, p, num_actions):
    """The legal actions as a new trimmed array: one compiled call for ``Game.legal_actions``."""
    out = np.empty(num_actions, dtype=np.int64)
    n = legal_actions(gid, s, p, out)
    return out[:n].copy()


@njit(cache=True)
def checked_apply(gid, s, p, a):
    """A copy of ``s`` after action ``a``, or an empty array if ``a`` is not legal in ``s``.

    Validation, copy and move in one compiled call: ``Game.apply`` is on every Python game loop,
    and each call into numba costs about as much as the move itself.
    """
    if s[C.H_STATUS] != C.ONGOING or not is_legal(gid, s, p, a):
        return np.empty(0, dtype=np.int64)
    t = s.copy()
    apply(gid, t, p, a)
    return t
