"""Exact Othello endgame solver on the one-word bitboards (N <= 8).

Late in the game the static evaluation is the weakest part of a search: the outcome is decided by
who gets the last moves in each region, which no evaluation sees. With few empty squares left
the game tree is small enough to search to the end, so ``solve`` (the game's ``solve`` hook,
called by alpha-beta when a position has at most its ``endgame`` limit of empties) returns the
exact result instead.

The search is a negamax alpha-beta over two words per position (the mover's discs and the
opponent's), with no cells, counts or hash to keep up to date: a node is one Kogge-Stone move
generation. It runs over an explicit stack of frames (numba's on-disk cache breaks recursive
functions). Move ordering, which decides its speed:

  * **fastest first** while more than ``PARITY_EMPTIES`` squares are empty: moves that leave the
    opponent the fewest replies first (a cut-off is found sooner where the opponent has few
    options), corners before other squares at equal counts;
  * **parity** below that: moves into quadrants with an odd number of empties first (the side
    that plays last in a region is the one that gains from it), where counting replies costs
    more than it saves.

``solve`` asks only win, draw or loss (a null window around a draw: every cut-off comes as soon
as one move reaches the bound), which is what a match needs and several times cheaper than the
exact disc difference; ``disc_difference`` gives the latter (full window), for tests and
analysis. Only a lost position pays for the margin too: an engine that must lose loses by as
few discs as it can, rather than by whichever losing move the win/loss search met first.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core import kernel as C
from . import _kernel as K

PARITY_EMPTIES = 6  # from here down, parity ordering instead of fastest first
ONE = np.uint64(1)
SOLVED, NOT_SOLVED, OUT_OF_TIME = 1, 0, -1


def _quadrant_masks():
    """QUADRANTS[n, q]: the squares of quadrant q (rows and columns split at n // 2), n <= 8."""
    table = np.zeros((9, 4), dtype=np.int64)
    for n in range(4, 9, 2):
        quads = [0] * 4
        for a in range(n * n):
            r, c = a // n, a % n
            quads[2 * (r >= n // 2) + (c >= n // 2)] |= 1 << a
        table[n] = [q - (1 << 64) if q >= 1 << 63 else q for q in quads]
    return table


def _corner_masks():
    table = np.zeros(9, dtype=np.int64)
    for n in range(4, 9, 2):
        m = (1 << 0) | (1 << (n - 1)) | (1 << (n * (n - 1))) | (1 << (n * n - 1))
        table[n] = m - (1 << 64) if m >= 1 << 63 else m
    return table


QUADRANTS = _quadrant_masks()
CORNERS = _corner_masks()


@njit(cache=True)
def _count(x):
    return C.popcount(np.int64(x))


@njit(cache=True)
def _open(own, opp, p, alpha, beta, ply, moves, keys, counts, index, best, best_move, info, deadline, pass_move):
    """Enter node ``ply``; True when it is resolved at once (its value in ``best[ply]``): game
    over or out of time. Otherwise its moves are listed, with ordering keys, for the main loop."""
    info[0] += 1
    if deadline > 0.0 and (info[0] & 4095) == 1 and C.now() > deadline:  # node 1, 4097, ...
        info[1] = 1
    if info[1]:
        best[ply] = 0
        return True
    m = K._bb_moves(own, opp, p)
    if m == 0:
        if K._bb_moves(opp, own, p) == 0:
            best[ply] = _count(own) - _count(opp)  # game over: the disc difference
            return True
        moves[ply, 0] = pass_move  # a pass: the only child, the same discs with sides swapped
        keys[ply, 0] = 0
        counts[ply] = 1
    else:
        n = p[K.P_SIZE]
        empty = ~(own | opp)
        empties = _count(empty) - (64 - n * n)
        corners = np.uint64(CORNERS[n])
        odd = np.uint64(0)
        for q in range(4):
            quad = np.uint64(QUADRANTS[n, q])
            if _count(empty & quad) & 1:
                odd |= quad
        k = 0
        while m:
            sq = trailing_zeros(m)
            bit = ONE << np.uint64(sq)
            m &= m - ONE
            key = 2 * ((odd & bit) != 0) + ((corners & bit) != 0)
            if empties > PARITY_EMPTIES:
                flips = K._bb_flips(own, opp, bit, p)
                replies = _count(K._bb_moves(opp & ~flips, own | flips | bit, p))
                key = 16 * (64 - replies) + 4 * ((corners & bit) != 0) + key
            moves[ply, k] = sq
            keys[ply, k] = key
            k += 1
        counts[ply] = k
    index[ply] = 0
    best[ply] = -1000
    best_move[ply] = moves[ply, 0]
    return False


@njit(cache=True)
def _search(own, opp, p, alpha, beta, deadline, info):
    """Negamax value (fail-soft, within ``(alpha, beta)`` exact) of the final disc difference for
    the side owning ``own``, and its best move (N*N for a pass). ``info[0]`` counts nodes;
    ``info[1]`` becomes 1 when ``deadline`` (perf_counter seconds; 0: none) passed, and then the
    value means nothing."""
    n = p[K.P_SIZE]
    pass_move = n * n
    empties = n * n - _count(own | opp)
    depth = 2 * empties + 3  # each ply fills a square or passes, never two passes in a row
    width = max(empties, 1)
    S_own = np.zeros(depth, dtype=np.uint64)
    S_opp = np.zeros(depth, dtype=np.uint64)
    moves = np.zeros((depth, width), dtype=np.int64)
    keys = np.zeros((depth, width), dtype=np.int64)
    counts = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    best = np.zeros(depth, dtype=np.int64)
    best_move = np.zeros(depth, dtype=np.int64)
    lo = np.zeros(depth, dtype=np.int64)
    hi = np.zeros(depth, dtype=np.int64)
    S_own[0], S_opp[0], lo[0], hi[0] = own, opp, alpha, beta
    ply = 0
    resolved = _open(
        own, opp, p, alpha, beta, 0, moves, keys, counts, index, best, best_move, info, deadline, pass_move
    )
    while True:
        if resolved:
            if ply == 0:
                return best[0], best_move[0]
            v = -best[ply]
            ply -= 1
            if info[1]:
                return 0, best_move[0]
            if v > best[ply]:
                best[ply] = v
                best_move[ply] = moves[ply, index[ply] - 1]
                if v > lo[ply]:
                    lo[ply] = v
                    if v >= hi[ply]:
                        index[ply] = counts[ply]  # cut-off
        i = index[ply]
        c = counts[ply]
        if i >= c:
            resolved = True
            continue
        j = i
        for k in range(i + 1, c):
            if keys[ply, k] > keys[ply, j]:
                j = k
        a, ka = moves[ply, j], keys[ply, j]
        moves[ply, j], keys[ply, j] = moves[ply, i], keys[ply, i]
        moves[ply, i], keys[ply, i] = a, ka
        index[ply] = i + 1
        o, x = S_own[ply], S_opp[ply]
        if a == pass_move:
            S_own[ply + 1], S_opp[ply + 1] = x, o
        else:
            bit = ONE << np.uint64(a)
            flips = K._bb_flips(o, x, bit, p)
            S_own[ply + 1], S_opp[ply + 1] = x & ~flips, o | flips | bit
        lo[ply + 1], hi[ply + 1] = -hi[ply], -lo[ply]
        ply += 1
        resolved = _open(
            S_own[ply],
            S_opp[ply],
            p,
            lo[ply],
            hi[ply],
            ply,
            moves,
            keys,
            counts,
            index,
            best,
            best_move,
            info,
            deadline,
            pass_move,
        )


@njit(cache=True)
def _sides(s, p):
    n = p[K.P_SIZE]
    x = C.HEADER + n * n
    me = s[C.H_PLAYER]
    return np.uint64(s[x + K.S_BITS + me]), np.uint64(s[x + K.S_BITS + 1 - me])


@njit(cache=True)
def empties(s, p):
    """Empty squares of the board."""
    n = p[K.P_SIZE]
    x = C.HEADER + n * n
    return n * n - s[x + K.S_COUNT] - s[x + K.S_COUNT + 1]


@njit(cache=True)
def solve(s, p, limit, deadline, out):
    """The game's ``solve`` hook: win, draw or loss of ongoing ``s`` for its side to move, when it
    has at most ``limit`` empty squares and a one-word board (N <= 8).

    Returns ``SOLVED`` (out[0] = 1 won, 0 drawn, -1 lost; out[1] a move that achieves it, N*N
    for the pass), ``NOT_SOLVED`` (too many empties, a larger board or a finished game) or
    ``OUT_OF_TIME`` (``deadline``, perf_counter seconds, passed; 0: no deadline). out[2]: nodes.

    A lost position is then solved again with a full window below a draw, so that out[1] is the
    move that loses by the fewest discs and out[3] that (negative) disc difference; out[3] is 0
    when the deadline passed first (out[1] is then just some losing move), and in won or drawn
    positions.
    """
    out[2] = 0
    out[3] = 0
    if not p[K.P_FAST] or s[C.H_STATUS] != C.ONGOING or empties(s, p) > limit:
        return NOT_SOLVED
    own, opp = _sides(s, p)
    info = np.zeros(2, dtype=np.int64)
    v, move = _search(own, opp, p, -1, 1, deadline, info)
    out[2] = info[0]
    if info[1]:
        return OUT_OF_TIME
    out[0] = 1 if v > 0 else -1 if v < 0 else 0
    out[1] = move
    if v < 0:
        info[0] = 0
        margin, least = _search(own, opp, p, -100, 0, deadline, info)
        out[2] += info[0]
        if not info[1]:
            out[1] = least
            out[3] = margin
    return SOLVED


@njit(cache=True)
def disc_difference(s, p):
    """Exact final disc difference (mover's discs minus the opponent's, empties uncounted) under
    perfect play from ongoing ``s`` (N <= 8), and a best move: a full-window solve."""
    own, opp = _sides(s, p)
    info = np.zeros(2, dtype=np.int64)
    return _search(own, opp, p, -100, 100, 0.0, info)
