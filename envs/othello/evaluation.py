"""Othello evaluation for any even board size: square classes, mobility, disc count, stable
discs, frontier discs and region parity; and the search hooks built on them.

Square values follow the classic 8x8 table, generalised by position class so they apply to every
size: corners are stable for ever (+), the X- and C-squares next to an empty corner hand it to the
opponent (-), other edge squares are semi-stable (+), the rest are neutral. Mobility (moves
available to each side) dominates the middlegame; the raw disc count matters only at the end,
so its weight grows with the number of discs on the board. Stable discs (``_stable``) can never
be lost; frontier discs, next to an empty square, give the opponent moves (potential mobility);
late in the game the side that can play into the odd regions of empty squares tends to get the
last move in each (region parity). The weights were chosen by self-play at fixed depth
(``examples/othello_weights.py``; the measurements are in docs/strength.md).

On 8x8 the default weights are a pattern table fitted to self-play games (``patterns.py``):
``evaluate`` given such a table scores the position by it, with the counts above (mobility,
stable and frontier discs, parity) as its extra inputs; given the six weights below, by the
hand-written sum, which stays the evaluation of every other size.

Boards of N <= 8 are evaluated on the kernel's bitboards (square classes and lines as masks, the
mover's placements cached in the state, the opponent's by one Kogge-Stone pass, stability and
regions by shifts of whole words); larger ones by a walk over the squares. Both give the same
integer on every board. The exact endgame solver (the ``solve`` hook) is ``endgame.py``.
"""

import numpy as np
from numba import njit

from ..core import kernel as C
from . import _kernel as K
from . import patterns as PT
from .endgame import solve  # noqa: F401  (the game's ``solve`` hook: exact endgames, N <= 8)

# weights: square value, mobility, disc count at a full board, stable discs, frontier discs,
# region parity (see ``_scan_terms``; chosen by self-play, docs/strength.md)
WEIGHTS = np.array([1.0, 8.0, 4.0, 10.0, 3.0, 4.0], dtype=np.float64)
PARITY_SHARE = 4  # region parity counts once at most N*N / 4 squares are empty
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


def _line_masks(n):
    """The board's lines as masks, for N <= 8: per axis (rows, columns, diagonals r - c constant,
    anti-diagonals r + c constant) up to 2N - 1 lines, unused slots 0."""
    lines = [[0] * 15 for _ in range(4)]
    for r in range(n):
        for c in range(n):
            bit = 1 << (r * n + c)
            lines[0][r] |= bit
            lines[1][c] |= bit
            lines[2][r - c + n - 1] |= bit
            lines[3][r + c] |= bit
    return [[m - (1 << 64) if m >= 1 << 63 else m for m in axis] for axis in lines]


LINES = np.zeros((9, 4, 15), dtype=np.int64)
for _n in range(4, 9, 2):
    LINES[_n] = _line_masks(_n)
# the kernel's direction pairs (``K.DIRECTIONS``) along each axis of ``LINES``
AXIS_DIRECTIONS = ((0, 1), (2, 3), (4, 7), (5, 6))
AXIS_STEPS = ((0, 1), (1, 0), (1, 1), (1, -1))  # (dr, dc) of each axis, for the scan


@njit(cache=True)
def _step(x, p, d):
    """The squares of ``x`` moved one square in the kernel's direction ``d`` (off-board dropped)."""
    return K._shift(x, p[K.P_SHIFT + d]) & np.uint64(p[K.P_MASK + d])


@njit(cache=True)
def _neighbours(x, p):
    """The squares next to (8-neighbourhood) some square of ``x``."""
    out = np.uint64(0)
    for d in range(8):
        out |= _step(x, p, d)
    return out


@njit(cache=True)
def _stable(own, occupied, board, p, n):
    """Stable discs of ``own``: discs no sequence of moves can flip, found as the smallest set
    closed under the rule "a disc is stable when along each of the four axes its line is full,
    or a neighbour on that axis is off the board or a stable disc of its colour". Corners start
    it, and edges and full lines grow it; a disc in it can never flip (every axis is blocked),
    though a few more stable discs exist (it is the usual conservative count)."""
    blocked = np.zeros(4, dtype=np.uint64)
    for axis in range(4):
        full = np.uint64(0)
        for k in range(2 * n - 1):
            m = np.uint64(LINES[n, axis, k])
            if m != 0 and (occupied & m) == m:
                full |= m
        d0, d1 = AXIS_DIRECTIONS[axis]
        edge = board & ~(np.uint64(p[K.P_MASK + d0]) & np.uint64(p[K.P_MASK + d1]))
        blocked[axis] = full | edge
    stable = np.uint64(0)
    while True:
        grown = own
        for axis in range(4):
            d0, d1 = AXIS_DIRECTIONS[axis]
            grown &= blocked[axis] | _step(stable, p, d0) | _step(stable, p, d1)
        if grown == stable:
            return stable
        stable = grown


@njit(cache=True)
def _bitboard_terms(s, p, n, me):
    """The evaluation's terms on a one-word-generator board (N <= 8); see ``_scan_terms``.

    Each square class is a mask (``MASKS``), so the square term is a few popcounts; the mover's
    placements are cached in the state by the kernel and the opponent's take one Kogge-Stone
    pass; stability, frontier and regions are shifts of whole words. Equal to ``_scan_terms``
    on every board (tests/test_agents_search.py compares them on random games of 6x6 and 8x8).
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
    mine_at = np.uint64(s[x + K.S_MOVES])
    theirs_at = K._bb_moves(np.uint64(opp), np.uint64(own), p)
    mine = C.popcount(np.int64(mine_at))
    theirs = C.popcount(np.int64(theirs_at))

    o, t = np.uint64(own), np.uint64(opp)
    occ = o | t
    board = ~np.uint64(0) if n == 8 else (np.uint64(1) << np.uint64(n * n)) - np.uint64(1)
    stable = C.popcount(np.int64(_stable(o, occ, board, p, n))) - C.popcount(np.int64(_stable(t, occ, board, p, n)))
    empty = board & ~occ
    near_empty = _neighbours(empty, p)
    frontier = C.popcount(np.int64(t & near_empty)) - C.popcount(np.int64(o & near_empty))
    parity = 0
    if C.popcount(np.int64(empty)) <= n * n // PARITY_SHARE:
        left = empty
        while left:
            region = left & (~left + np.uint64(1))  # lowest empty square, grown to its region
            while True:
                grown = (region | _neighbours(region, p)) & empty
                if grown == region:
                    break
                region = grown
            left &= ~region
            if C.popcount(np.int64(region)) & 1:
                parity += ((mine_at & region) != 0) - ((theirs_at & region) != 0)
    return squares, mine, theirs, stable, frontier, parity


@njit(cache=True)
def _line_full(s, n, a, dr, dc):
    """Whether the line through ``a`` along (dr, dc) has no empty square."""
    for sign in (1, -1):
        r, c = a // n + sign * dr, a % n + sign * dc
        while 0 <= r < n and 0 <= c < n:
            if s[C.HEADER + r * n + c] == 0:
                return False
            r += sign * dr
            c += sign * dc
    return True


@njit(cache=True)
def _scan_stable(s, n, colour):
    """``_stable`` by a walk over the squares, for any N: the same smallest closed set, grown
    square by square until nothing changes."""
    stable = np.zeros(n * n, dtype=np.bool_)
    count = 0
    changed = True
    while changed:
        changed = False
        for a in range(n * n):
            if stable[a] or s[C.HEADER + a] != colour:
                continue
            r, c = a // n, a % n
            ok = True
            for axis in range(4):
                dr, dc = AXIS_STEPS[axis]
                r0, c0, r1, c1 = r + dr, c + dc, r - dr, c - dc
                if not (0 <= r0 < n and 0 <= c0 < n) or not (0 <= r1 < n and 0 <= c1 < n):
                    continue
                if stable[r0 * n + c0] or stable[r1 * n + c1] or _line_full(s, n, a, dr, dc):
                    continue
                ok = False
                break
            if ok:
                stable[a] = True
                count += 1
                changed = True
    return count


@njit(cache=True)
def _scan_terms(s, n, me):
    """The evaluation's terms by a walk over every square (any N): the mover's square values
    minus the opponent's, both sides' move counts, stable discs (mover's minus opponent's),
    frontier discs (discs next to an empty square; opponent's minus mover's) and, late in the
    game (at most N*N / PARITY_SHARE empties), region parity: over the odd-sized regions of
    empty squares (8-connected), those the mover can play into minus those the opponent can."""
    nn = n * n
    squares = 0
    my_moves = 0
    their_moves = 0
    mine_at = np.zeros(nn, dtype=np.bool_)
    theirs_at = np.zeros(nn, dtype=np.bool_)
    frontier = 0
    empties = 0
    for a in range(nn):
        v = s[C.HEADER + a]
        if v == 0:
            empties += 1
            mine_at[a] = _flanks(s, n, a, me)
            theirs_at[a] = _flanks(s, n, a, 3 - me)
            my_moves += mine_at[a]
            their_moves += theirs_at[a]
        else:
            squares += (1 if v == me else -1) * square_value(s, n, a)
            r, c = a // n, a % n
            near = False
            for dr in range(-1, 2):
                for dc in range(-1, 2):
                    rr, cc = r + dr, c + dc
                    if 0 <= rr < n and 0 <= cc < n and s[C.HEADER + rr * n + cc] == 0:
                        near = True
            if near:
                frontier += -1 if v == me else 1
    stable = _scan_stable(s, n, me) - _scan_stable(s, n, 3 - me)
    parity = 0
    if empties <= nn // PARITY_SHARE:
        region = np.full(nn, -1, dtype=np.int64)
        todo = np.empty(nn, dtype=np.int64)
        for a in range(nn):
            if s[C.HEADER + a] != 0 or region[a] >= 0:
                continue
            region[a] = a
            todo[0] = a
            top, size, mine_in, theirs_in = 1, 0, False, False
            while top:
                top -= 1
                b = todo[top]
                size += 1
                mine_in |= mine_at[b]
                theirs_in |= theirs_at[b]
                for dr in range(-1, 2):
                    for dc in range(-1, 2):
                        rr, cc = b // n + dr, b % n + dc
                        if 0 <= rr < n and 0 <= cc < n:
                            q = rr * n + cc
                            if s[C.HEADER + q] == 0 and region[q] < 0:
                                region[q] = a
                                todo[top] = q
                                top += 1
            if size & 1:
                parity += int(mine_in) - int(theirs_in)
    return squares, my_moves, their_moves, stable, frontier, parity


@njit(cache=True)
def terms(s, p):
    """The evaluation's terms of ``s`` for its side to move, by the path ``evaluate`` takes."""
    n = _size(p)
    me = s[C.H_PLAYER] + 1
    if p[K.P_FAST]:
        return _bitboard_terms(s, p, n, me)
    return _scan_terms(s, n, me)


@njit(cache=True)
def evaluate(s, p, w):
    n = _size(p)
    squares, my_moves, their_moves, stable, frontier, parity = terms(s, p)
    me = s[C.H_PLAYER] + 1
    if n == PT.N and len(w) == PT.SIZE:  # a pattern table (patterns.py)
        return np.int64(PT.value(s, me, my_moves, their_moves, stable, frontier, parity, w))
    x = C.HEADER + n * n
    mine, theirs = s[x + K.S_COUNT + me - 1], s[x + K.S_COUNT + 2 - me]
    discs = mine - theirs
    total = my_moves + their_moves
    mobility = 0.0 if total == 0 else 100.0 * (my_moves - their_moves) / total
    phase = (mine + theirs) / (n * n)
    value = (
        w[0] * squares
        + w[1] * mobility / 10.0
        + w[2] * phase * phase * discs
        + w[3] * stable
        + w[4] * frontier
        + w[5] * parity
    )
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


def weights_for(game):
    """The default weights of ``game``: the fitted pattern table on 8x8 (``patterns.npz``),
    None elsewhere (the hand-written evaluation's ``WEIGHTS``)."""
    return PT.table() if game.size == PT.N else None


def weight_counts(game):
    """Beside ``WEIGHTS``, a pattern table's ``patterns.SIZE`` entries on 8x8."""
    return (PT.SIZE,) if game.size == PT.N else ()


# The "evaluation" policy (MCTS's default on Othello, ``agents/tuning.py``) plays no playout: MCTS
# backs up ``tanh(evaluate / VALUE_SCALE)`` of the leaf, the hand-written evaluation at every size
# (the pattern table needs weights a leaf hook does not get). With random playouts MCTS at 1,000
# simulations scored 0.305 against greedy on 8x8, with the value 0.73-0.80 (three sets of
# openings). The scale: 150 scored 0.465, 300 0.725, 600 0.73 (the evaluation, x10, has a median
# size of about 300 in positions of random play).
PLAYOUTS = ("random", "evaluation")  # the spec's playout names; code = index
EVALUATION = 1
VALUE_SCALE = 600.0


@njit(cache=True)
def leaf_value(s, p, policy):
    """The hand-written evaluation's value of ``s`` for the side to move under EVALUATION (else
    NaN: play the playout)."""
    if policy != EVALUATION:
        return np.nan
    return np.tanh(evaluate(s, p, WEIGHTS) / VALUE_SCALE)
