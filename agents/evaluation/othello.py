"""Othello evaluation for any even board size: square classes, mobility and disc count.

Square values follow the classic 8x8 table, generalised by position class so they apply to every
size: corners are stable for ever (+), the X- and C-squares next to an empty corner hand it to the
opponent (-), other edge squares are semi-stable (+), the rest are neutral. Mobility (moves
available to each side) dominates the middlegame; the raw disc count matters only at the end,
so its weight grows with the number of discs on the board.
"""

import numpy as np
from numba import njit

from envs import _common as C

# weights: square value, mobility, disc count at a full board
WEIGHTS = np.array([1.0, 8.0, 4.0], dtype=np.float64)
CORNER, X_SQUARE, C_SQUARE, EDGE, INNER = 40, -15, -6, 3, 0


@njit(cache=True)
def _size(p):
    return p[C.P_GAME]


@njit(cache=True)
def _corner_of(n, r, c):
    """Cell index of the corner nearest to (r, c)."""
    return (0 if r < n // 2 else n - 1) * n + (0 if c < n // 2 else n - 1)


@njit(cache=True)
def square_value(s, n, a):
    """Class value of square ``a``; X/C squares cost only while their corner is empty."""
    r, c = a // n, a % n
    edge_r = r == 0 or r == n - 1
    edge_c = c == 0 or c == n - 1
    if edge_r and edge_c:
        return CORNER
    near_r = r <= 1 or r >= n - 2
    near_c = c <= 1 or c >= n - 2
    if near_r and near_c:
        if s[C.HEADER + _corner_of(n, r, c)] != 0:
            return EDGE if edge_r or edge_c else INNER
        return C_SQUARE if edge_r or edge_c else X_SQUARE
    return EDGE if edge_r or edge_c else INNER


@njit(cache=True)
def _flanks(s, n, a, me):
    """Whether ``me`` placing on empty ``a`` would flip at least one disc."""
    r0, c0 = a // n, a % n
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if dr == 0 and dc == 0:
                continue
            r, c = r0 + dr, c0 + dc
            seen = 0
            while 0 <= r < n and 0 <= c < n:
                v = s[C.HEADER + r * n + c]
                if v == 0:
                    break
                if v == me:
                    if seen:
                        return True
                    break
                seen += 1
                r += dr
                c += dc
    return False


@njit(cache=True)
def evaluate(s, p, w):
    n = _size(p)
    me = s[C.H_PLAYER] + 1
    squares = 0
    discs = 0
    filled = 0
    my_moves = 0
    their_moves = 0
    for a in range(n * n):
        v = s[C.HEADER + a]
        if v == 0:
            my_moves += _flanks(s, n, a, me)
            their_moves += _flanks(s, n, a, 3 - me)
            continue
        filled += 1
        sign = 1 if v == me else -1
        squares += sign * square_value(s, n, a)
        discs += sign
    total = my_moves + their_moves
    mobility = 0.0 if total == 0 else 100.0 * (my_moves - their_moves) / total
    phase = filled / (n * n)
    value = w[0] * squares + w[1] * mobility / 10.0 + w[2] * phase * phase * discs
    return np.int64(10.0 * value)


@njit(cache=True)
def hint(s, p, a):
    n = _size(p)
    return square_value(s, n, a) if a < n * n else -1000


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Greedy score: the position after the move from the mover's view (corners, edges, mobility)."""
    if child[C.H_PLAYER] == s[C.H_PLAYER]:
        return np.float64(evaluate(child, p, w))
    return -np.float64(evaluate(child, p, w))
