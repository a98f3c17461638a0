"""Connect Four search knowledge: a window count for ``evaluate``, centre-first move ordering.

Every run of ``connect`` cells in the four directions is a *window*. A window holding discs of
one colour only is live for that colour: one more disc short of a line (an open three in the
standard game) is worth ``WEIGHTS[0]``, two short ``WEIGHTS[1]``; each disc in the centre
column(s) is worth ``WEIGHTS[2]``. ``evaluate`` is the side to move's total minus the
opponent's. A game needs no evaluation module at all (search then knows only wins and losses,
see ``envs.core.hooks``); this one shows the shape of one, with tunable weights.
"""

import numpy as np
from numba import njit

from envs.core import kernel as C

# The kernel's parameter layout and line directions, repeated rather than imported from
# ``_kernel``: numba caches ``evaluate`` in a file checked against this module's source only, so
# a constant or function read from another module of the game would not be re-read after an edit
# there (see docs/adding-a-game.md).
P_COLUMNS, P_ROWS, P_CONNECT = C.P_GAME, C.P_GAME + 1, C.P_GAME + 2
DR = (0, 1, 1, 1)
DC = (1, 0, 1, -1)

WEIGHTS = np.array([16.0, 4.0, 3.0])  # one short of a line, two short, a centre disc
_DEFAULT = (16.0, 4.0, 3.0)  # the same, for weights too short to read (see ``evaluate``)


@njit(cache=True)
def evaluate(s, p, w):
    """Live-window score of the side to move minus the opponent's, rounded to an integer."""
    # weights come from callers (``alphabeta:weights=...``): never read past a short array
    short, two_short, centre = (w[0], w[1], w[2]) if w.shape[0] >= 3 else _DEFAULT
    columns, rows, k = p[P_COLUMNS], p[P_ROWS], p[P_CONNECT]
    me = s[C.H_PLAYER] + 1
    score = 0.0
    for d in range(4):
        dr, dc = DR[d], DC[d]
        for r in range(rows):
            if r + (k - 1) * dr >= rows:
                continue
            for c in range(columns):
                end = c + (k - 1) * dc
                if end < 0 or end >= columns:
                    continue
                first = 0
                second = 0
                for i in range(k):
                    v = s[C.HEADER + (r + i * dr) * columns + c + i * dc]
                    if v == 1:
                        first += 1
                    elif v == 2:
                        second += 1
                if first and second:
                    continue
                count = first + second
                if count == 0:
                    continue
                value = short if count == k - 1 else (two_short if count == k - 2 else 0.0)
                owner = 1 if first else 2
                score += value if owner == me else -value
    lo, hi = (columns - 1) // 2, columns // 2
    for r in range(rows):
        for c in range(lo, hi + 1):
            v = s[C.HEADER + r * columns + c]
            if v:
                score += centre if v == me else -centre
    return int(round(score))


@njit(cache=True)
def hint(s, p, a):
    """Move ordering: columns nearer the centre first (they take part in the most lines)."""
    columns = p[P_COLUMNS]
    return columns - abs(2 * a - (columns - 1))
