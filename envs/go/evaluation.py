"""Go evaluation (area estimate plus atari) and the greedy tactical score, any board size.

The static value is an area count as Tromp-Taylor scoring would give it now: stones plus empty
regions that touch one colour only, with komi, then adjusted for groups in atari (the side to
move can capture an opponent's such group, and its own ones are in danger). The greedy score of
a move rewards captures, putting adjacent groups in atari and rescuing own groups from atari, and
punishes self-atari and filling one's own eye (which is how a greedy player kills itself).
"""

import numpy as np
from numba import njit

from .. import _common as C

# weights: area point, atari (per stone), capture (per stone), self-atari, eye fill, liberty
WEIGHTS = np.array([1.0, 0.5, 3.0, 4.0, 100.0, 0.3], dtype=np.float64)
PASS_SCORE = -50.0


@njit(cache=True)
def _size(p):
    return p[C.P_GAME]


@njit(cache=True)
def _komi2(p):
    """Twice the komi (to White)."""
    return p[C.P_GAME + 1]


@njit(cache=True)
def _flood(s, n, start, seen, stamp, stack):
    """Flood the region of ``start``'s colour. Returns (size, liberties, colours touched bitmask).

    ``seen`` holds the stamp of every visited cell (stones and counted liberties) so that
    repeated calls need no clearing; liberties are counted once each.
    """
    colour = s[C.HEADER + start]
    seen[start] = stamp
    stack[0] = start
    top = 1
    size = 0
    libs = 0
    touch = 0
    while top:
        top -= 1
        i = stack[top]
        size += 1
        r, c = i // n, i % n
        for k in range(4):
            rr = r + (k == 0) - (k == 1)
            cc = c + (k == 2) - (k == 3)
            if not (0 <= rr < n and 0 <= cc < n):
                continue
            j = rr * n + cc
            v = s[C.HEADER + j]
            if v == colour:
                if seen[j] != stamp:
                    seen[j] = stamp
                    stack[top] = j
                    top += 1
            elif v == 0:
                if seen[j] != stamp:
                    seen[j] = stamp
                    libs += 1
            else:
                touch |= v
    return size, libs, touch


@njit(cache=True)
def evaluate(s, p, w):
    n = _size(p)
    me = s[C.H_PLAYER] + 1
    seen = np.zeros(n * n, dtype=np.int64)
    stack = np.empty(n * n, dtype=np.int64)
    done = np.zeros(n * n, dtype=np.bool_)
    area = 0
    atari = 0.0
    stamp = 0
    for i in range(n * n):
        if done[i]:
            continue
        stamp += 1
        v = s[C.HEADER + i]
        size, libs, touch = _flood(s, n, i, seen, stamp, stack)
        for j in range(n * n):  # mark the region done (its cells carry this stamp and colour)
            if seen[j] == stamp and s[C.HEADER + j] == v:
                done[j] = True
        if v == 0:
            if touch == me:
                area += size
            elif touch == 3 - me:
                area -= size
        else:
            sign = 1 if v == me else -1
            area += sign * size
            if libs == 1:
                atari += size if v != me else -size
    area2 = 2 * area + (-_komi2(p) if me == 1 else _komi2(p))
    return np.int64(10.0 * (w[0] * area2 / 2.0 + w[1] * atari))


@njit(cache=True)
def hint(s, p, a):
    n = _size(p)
    if a >= n * n:
        return -1000
    r, c = a // n, a % n
    return -abs(2 * r - (n - 1)) - abs(2 * c - (n - 1))


@njit(cache=True)
def _count(s, n, colour):
    k = 0
    for i in range(n * n):
        k += s[C.HEADER + i] == colour
    return k


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Greedy score of placing on ``a`` (or passing) from the mover's view."""
    n = _size(p)
    if a >= n * n:
        return PASS_SCORE
    me = s[C.H_PLAYER] + 1
    opp = 3 - me
    r, c = a // n, a % n
    seen = np.zeros(n * n, dtype=np.int64)
    stack = np.empty(n * n, dtype=np.int64)
    captured = _count(s, n, opp) - _count(child, n, opp)
    score = w[2] * captured
    own_neighbours = 0
    neighbours = 0
    stamp = 0
    for k in range(4):
        rr = r + (k == 0) - (k == 1)
        cc = c + (k == 2) - (k == 3)
        if not (0 <= rr < n and 0 <= cc < n):
            continue
        neighbours += 1
        j = rr * n + cc
        before = s[C.HEADER + j]
        own_neighbours += before == me
        stamp += 1
        if before == me:  # rescuing a group that was in atari
            size, libs, _ = _flood(s, n, j, seen, stamp, stack)
            if libs == 1:
                score += w[1] * 2 * size
        elif before == opp and child[C.HEADER + j] == opp:
            size, libs, _ = _flood(child, n, j, seen, stamp, stack)
            if libs == 1:
                score += w[1] * 2 * size
    if own_neighbours == neighbours and captured == 0:
        score -= w[4]  # filling an own eye
    stamp += 1
    size, libs, _ = _flood(child, n, a, seen, stamp, stack)
    if libs == 1 and captured == 0:
        score -= w[3] * size
    score += w[5] * min(libs, 4)
    return score + 0.1 * hint(s, p, a)
