"""Gomoku rules kernel (numba).

State (int64), after the common header of ``envs/core/kernel.py``:

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

``apply`` counts the four lines through the new stone only. Random playouts (``random_playout``)
list the empty points once and draw from the list, swap-removing each stone's point, so a ply costs
the same at every stage of the game instead of a scan of the board.

Invariants (``validate``): cells 0..2; Black moves first and players alternate, so black stones
minus white stones is the seat to move and the ply is the number of stones; ``H_HASH`` is the
Zobrist hash of the stones and the side to move; the last action, if known, holds a stone of the
side that just moved; an ongoing game has no winning line and an empty point, a FIVE game's only
winning line is the winner's (who just moved), a FULL game has a full board and no winning line.
"""

import numpy as np
from numba import njit

from ..core import kernel as C
from ..core import rng as R

P_SIZE = C.P_GAME
P_EXACT = C.P_GAME + 1
FIVE = 1
FULL = 2

ZOBRIST = C.zobrist_table(2 * 19 * 19 + 1, salt=3)
SIDE_KEY = ZOBRIST[-1]

E_CELL = C.GAME_ERRORS
E_TURN = C.GAME_ERRORS + 1
E_PLY = C.GAME_ERRORS + 2
E_HASH = C.GAME_ERRORS + 3
E_LAST = C.GAME_ERRORS + 4
E_END = C.GAME_ERRORS + 5
STATE_ERRORS = {
    E_CELL: "a board cell is not 0 (empty), 1 (Black) or 2 (White)",
    E_TURN: "the stone counts do not fit the side to move (Black moves first: black minus white "
    "stones is 0 with Black to move, 1 with White)",
    E_PLY: "the ply count is not the number of stones on the board",
    E_HASH: "the hash is not the Zobrist hash of the stones and the side to move",
    E_LAST: "the last action is not a point holding a stone of the side that just moved",
    E_END: "the status does not fit the board (a line of five ends the game, won by its maker, "
    "who just moved; a full board without one is a draw; otherwise the game goes on)",
}


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
def random_playout(s, p, rng, moves):
    """Finish the game in ``s`` with uniformly random moves (random playouts, MCTS rollouts).

    The same distribution as drawing from ``legal_actions`` every ply, without listing them: the
    empty points are listed once (in ``moves``) and each ply draws one and swap-removes it. The
    stones also go on a bordered board of int8 cells (``(r + 1) * W + c + 1``, W = N + 1; the
    border is 0), on which the lines through the new stone are counted without bounds checks. The cells,
    hash, ply, seat and last move of ``s`` are kept as ``apply`` keeps them.
    """
    if s[C.H_STATUS] != C.ONGOING:
        return
    size = p[P_SIZE]
    exact = p[P_EXACT] != 0
    w = size + 1
    cells = (size + 2) * w + 1
    board = np.zeros(cells, dtype=np.int8)
    action = np.empty(cells, dtype=np.int64)  # bordered cell -> action id
    count = 0
    for r in range(size):
        for c in range(size):
            at = (r + 1) * w + c + 1
            a = r * size + c
            action[at] = a
            board[at] = s[C.HEADER + a]
            if board[at] == 0:
                moves[count] = at
                count += 1
    steps = (1, w, w + 1, w - 1)
    seat = s[C.H_PLAYER]
    h = s[C.H_HASH]
    ply = s[C.H_PLY]
    a = s[C.H_LAST]
    winner = C.NO_WINNER
    while count > 0:
        i = R.randint(rng, count)
        at = moves[i]
        count -= 1
        moves[i] = moves[count]
        colour = seat + 1
        board[at] = colour
        a = action[at]
        s[C.HEADER + a] = colour
        h ^= ZOBRIST[2 * a + seat] ^ SIDE_KEY
        ply += 1
        seat = 1 - seat
        for k in steps:
            length = 1
            x = at + k
            while board[x] == colour:
                length += 1
                x += k
            x = at - k
            while board[x] == colour:
                length += 1
                x -= k
            if length == 5 or (length > 5 and not exact):
                winner = colour - 1
                break
        if winner != C.NO_WINNER:
            break
    s[C.H_PLAYER] = seat
    s[C.H_HASH] = h
    s[C.H_PLY] = ply
    s[C.H_LAST] = a
    if winner != C.NO_WINNER:
        C.finish(s, winner, FIVE)
    else:
        C.finish(s, C.NO_WINNER, FULL)


@njit(cache=True, inline="always")
def _row_shift(row, m, full):
    """Row bits moved so that bit c of the result is bit ``c + m`` of ``row`` (0 off the board)."""
    if m >= 0:
        return row >> m
    return (row << -m) & full


@njit(cache=True)
def _has_line(rows, base, size, exact):
    """Whether the colour whose row bitboards are ``rows[base:base + size]`` has a winning line:
    a maximal run of exactly five (``exact``) or of five or more, in any of the four directions.

    Row bitboards, all start squares of a row at once: bit c of the AND of the five rows
    ``r + k*dr`` shifted by ``k*dc`` is a run of five from (r, c); with ``exact`` the squares just
    before and after the run must not be the colour's. About 4 * N * 7 word operations, against
    a walk along every run that costs several times more on a full board.
    """
    full = (np.int64(1) << size) - 1
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for r in range(size - 4 * dr):
            run = full
            for k in range(5):
                run &= _row_shift(rows[base + r + k * dr], k * dc, full)
            if run != 0 and exact:
                if r + 5 * dr < size:
                    run &= ~_row_shift(rows[base + r + 5 * dr], 5 * dc, full)
                if r - dr >= 0:
                    run &= ~_row_shift(rows[base + r - dr], -dc, full)
            if run & full:
                return True
    return False


@njit(cache=True)
def validate(s, p):
    """0 if ``s`` is a consistent Gomoku state, else ``C.error(code, cell)`` (see the module
    docstring for the invariants; codes in ``STATE_ERRORS``). One pass over the board, and one
    over the line starts of each stone for the end status."""
    e = C.check_header(s, p)
    if e:
        return e
    size = p[P_SIZE]
    nn = size * size
    black = white = 0
    h = SIDE_KEY if s[C.H_PLAYER] == 1 else np.int64(0)
    rows = np.zeros(2 * size, dtype=np.int64)  # rows[colour*size + r]: bit c = stone on (r, c)
    for i in range(nn):
        v = s[C.HEADER + i]
        if v < 0 or v > 2:
            return C.error(E_CELL, C.HEADER + i)
        if v:
            black += v == 1
            white += v == 2
            h ^= ZOBRIST[2 * i + v - 1]
            rows[(v - 1) * size + i // size] |= np.int64(1) << (i % size)
    if black - white != s[C.H_PLAYER]:
        return C.error(E_TURN, C.H_PLAYER)
    if s[C.H_PLY] != black + white:
        return C.error(E_PLY, C.H_PLY)
    if h != s[C.H_HASH]:
        return C.error(E_HASH, C.H_HASH)
    last = s[C.H_LAST]
    if last >= 0 and s[C.HEADER + last] != 2 - s[C.H_PLAYER]:
        return C.error(E_LAST, C.H_LAST)
    lines = 0  # bit k: colour k + 1 has a winning line
    for colour in range(2):
        if _has_line(rows, colour * size, size, p[P_EXACT] != 0):
            lines |= 1 << colour
    empty = nn - black - white
    if s[C.H_STATUS] == C.ONGOING:
        ok = lines == 0 and empty > 0
    elif s[C.H_REASON] == FIVE:
        ok = s[C.H_WINNER] == 1 - s[C.H_PLAYER] and lines == 1 << s[C.H_WINNER]
    else:
        ok = s[C.H_WINNER] == C.NO_WINNER and lines == 0 and empty == 0
    if not ok:
        return C.error(E_END, C.H_STATUS)
    return 0


@njit(cache=True)
def encode(s, p, seat, legal, n_legal, out):
    """Observation of ``seat`` (see the game's docstring): own stones, the opponent's, to-move."""
    n = p[P_SIZE]
    C.encode_stones(s, seat, n * n, out)
