"""Gomoku rules kernel (numba).

State (int64), after the common header of ``envs/_common.py``:

    HEADER + r*N + c    cell at row r (0 = top row as printed), column c (0 = left):
                        0 empty, 1 Black (seat 0), 2 White (seat 1)

    Board indexing for N = 7 (action id = cell index = r*N + c):
         a  b  c  d  e  f  g
      7  0  1  2  3  4  5  6
      6  7  8  9 10 11 12 13
      ...
      1 42 43 44 45 46 47 48

Params: P_GAME = N, P_GAME+1 = exact_five (1: exactly five wins, 0: five or more wins).
Reason codes in H_REASON: FIVE (the mover made a winning line), FULL (board full, draw).
"""

from numba import njit

from .. import _common as C

P_SIZE = C.P_GAME
P_EXACT = C.P_GAME + 1
FIVE = 1
FULL = 2

ZOBRIST = C.zobrist_table(2 * 19 * 19 + 1, salt=3)
SIDE_KEY = ZOBRIST[-1]


@njit(cache=True)
def init(s, p, rng):
    C.clear(s, p)


@njit(cache=True)
def legal_actions(s, p, out):
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    n = 0
    for i in range(p[P_SIZE] * p[P_SIZE]):
        if s[C.HEADER + i] == 0:
            out[n] = i
            n += 1
    return n


@njit(cache=True)
def is_legal(s, p, a):
    return s[C.H_STATUS] == C.ONGOING and s[C.HEADER + a] == 0


@njit(cache=True)
def _run(s, size, r, c, dr, dc, colour):
    """Length of the line of ``colour`` through (r, c) along (dr, dc), both ways."""
    length = 1
    for sign in (1, -1):
        rr, cc = r + sign * dr, c + sign * dc
        while 0 <= rr < size and 0 <= cc < size and s[C.HEADER + rr * size + cc] == colour:
            length += 1
            rr += sign * dr
            cc += sign * dc
    return length


@njit(cache=True)
def apply(s, p, a):
    size = p[P_SIZE]
    seat = s[C.H_PLAYER]
    colour = seat + 1
    s[C.HEADER + a] = colour
    s[C.H_HASH] ^= ZOBRIST[2 * a + seat] ^ SIDE_KEY
    s[C.H_PLY] += 1
    s[C.H_LAST] = a
    s[C.H_PLAYER] = 1 - seat
    r, c = a // size, a % size
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        length = _run(s, size, r, c, dr, dc, colour)
        if length == 5 or (length > 5 and p[P_EXACT] == 0):
            C.finish(s, seat, FIVE)
            return
    if s[C.H_PLY] == size * size:
        C.finish(s, C.NO_WINNER, FULL)


@njit(cache=True)
def encode(s, p, seat, legal, n_legal, out):
    """Observation of ``seat`` (see the game's docstring): own stones, the opponent's, to-move."""
    n = p[P_SIZE]
    C.encode_stones(s, seat, n * n, out)
