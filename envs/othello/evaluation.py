"""Othello evaluation for any even board size: square classes, mobility and disc count.

Square values follow the classic 8x8 table, generalised by position class so they apply to every
size: corners are stable for ever (+), the X- and C-squares next to an empty corner hand it to the
opponent (-), other edge squares are semi-stable (+), the rest are neutral. Mobility (moves
available to each side) dominates the middlegame; the raw disc count matters only at the end,
so its weight grows with the number of discs on the board.

Boards of N <= 8 are evaluated on the kernel's bitboards (square classes as masks, the mover's
placements cached in the state, the opponent's by one Kogge-Stone pass); larger ones by a walk
over the squares. Both give the same integer on every board.
"""

import numpy as np
from numba import njit

from .. import _common as C
from . import _kernel as K

# weights: square value, mobility, disc count at a full board
WEIGHTS = np.array([1.0, 8.0, 4.0], dtype=np.float64)
CORNER, X_SQUARE, C_SQUARE, EDGE, INNER = 40, -15, -6, 3, 0
FIXED = np.array([CORNER, EDGE, INNER], dtype=np.int64)  # values of the classes in MASKS[n, :3]


def _class_masks(n):
    """Square classes of an n x n board as one-word bit masks (int64 bit patterns), for N <= 8:
    corners, edge squares away from corners, inner squares away from corners, then per corner
    its own bit, its C-squares (edge neighbours) and its X-square (diagonal neighbour)."""
    masks = [0] * 15
    for r in range(n):
        for c in range(n):
            bit = 1 << (r * n + c)
            edge_r, edge_c = r in (0, n - 1), c in (0, n - 1)
            near = (r <= 1 or r >= n - 2) and (c <= 1 or c >= n - 2)
            if edge_r and edge_c:
                masks[0] |= bit
            elif not near:
                masks[1 if edge_r or edge_c else 2] |= bit
            if near:
                corner = (0 if r < n // 2 else 2) + (0 if c < n // 2 else 1)
                kind = 0 if edge_r and edge_c else 1 if edge_r or edge_c else 2
                masks[3 + 3 * corner + kind] |= bit
    return [m - (1 << 64) if m >= 1 << 63 else m for m in masks]


MASKS = np.zeros((9, 15), dtype=np.int64)  # row N, for the even sizes with a one-word board
for _n in range(4, 9, 2):
    MASKS[_n] = _class_masks(_n)


@njit(cache=True)
def _size(p):
    return p[C.P_GAME]


def _square_table():
    """SQUARES[n, a] = (corner, value while it is empty, value once taken) for every even size:
    corner is -1 for squares whose value is fixed (then both values are equal). A lookup keeps
    divisions by a run-time N out of ``hint``, which runs on every move of every node."""
    table = np.zeros((17, 256, 3), dtype=np.int64)
    for n in range(4, 17, 2):
        for a in range(n * n):
            r, c = a // n, a % n
            edge_r, edge_c = r in (0, n - 1), c in (0, n - 1)
            near = (r <= 1 or r >= n - 2) and (c <= 1 or c >= n - 2)
            plain = EDGE if edge_r or edge_c else INNER
            if edge_r and edge_c:
                table[n, a] = (-1, CORNER, CORNER)
            elif near:  # an X- or C-square: next to the corner of its quadrant
                corner = (0 if r < n // 2 else n - 1) * n + (0 if c < n // 2 else n - 1)
                table[n, a] = (corner, C_SQUARE if edge_r or edge_c else X_SQUARE, plain)
            else:
                table[n, a] = (-1, plain, plain)
    return table


SQUARES = _square_table()


@njit(cache=True)
def square_value(s, n, a):
    """Class value of square ``a``; X/C squares cost only while their corner is empty."""
    corner, empty, taken = SQUARES[n, a, 0], SQUARES[n, a, 1], SQUARES[n, a, 2]
    return taken if corner >= 0 and s[C.HEADER + corner] != 0 else empty


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
def _bitboard_terms(s, p, n, me):
    """Square values and both sides' move counts of a one-word-generator board (N <= 8).

    Each class is a mask (``MASKS``), so the square term is a few popcounts; the mover's
    placements are cached in the state by the kernel and the opponent's take one Kogge-Stone
    pass. Equal to ``_scan_terms`` (compared on every position of 450 random games on 6x6, 8x8
    and 10x10 when written: same integers).
    """
    x = C.HEADER + n * n
    own = s[x + K.S_BITS + me - 1]
    opp = s[x + K.S_BITS + 2 - me]
    m = MASKS[n]
    squares = 0
    for k in range(3):  # corners, plain edge squares, plain inner squares
        squares += FIXED[k] * (C.popcount(own & m[k]) - C.popcount(opp & m[k]))
    occupied = own | opp
    for k in range(3, 15, 3):  # each corner: its cell, C-squares, X-square
        c_diff = C.popcount(own & m[k + 1]) - C.popcount(opp & m[k + 1])
        x_diff = C.popcount(own & m[k + 2]) - C.popcount(opp & m[k + 2])
        if occupied & m[k]:
            squares += EDGE * c_diff + INNER * x_diff
        else:
            squares += C_SQUARE * c_diff + X_SQUARE * x_diff
    mine = C.popcount(s[x + K.S_MOVES])
    theirs = C.popcount(np.int64(K._bb_moves(np.uint64(opp), np.uint64(own), p)))
    return squares, mine, theirs


@njit(cache=True)
def _scan_terms(s, n, me):
    """Square values and both sides' move counts by a walk over every square (any N)."""
    squares = 0
    my_moves = 0
    their_moves = 0
    for a in range(n * n):
        v = s[C.HEADER + a]
        if v == 0:
            my_moves += _flanks(s, n, a, me)
            their_moves += _flanks(s, n, a, 3 - me)
        else:
            squares += (1 if v == me else -1) * square_value(s, n, a)
    return squares, my_moves, their_moves


@njit(cache=True)
def evaluate(s, p, w):
    n = _size(p)
    me = s[C.H_PLAYER] + 1
    if p[K.P_FAST]:
        squares, my_moves, their_moves = _bitboard_terms(s, p, n, me)
    else:
        squares, my_moves, their_moves = _scan_terms(s, n, me)
    x = C.HEADER + n * n
    mine, theirs = s[x + K.S_COUNT + me - 1], s[x + K.S_COUNT + 2 - me]
    discs = mine - theirs
    total = my_moves + their_moves
    mobility = 0.0 if total == 0 else 100.0 * (my_moves - their_moves) / total
    phase = (mine + theirs) / (n * n)
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
