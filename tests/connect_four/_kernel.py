"""Connect Four rules kernel (numba): the game's rules as the hooks of ``envs.registry.HOOKS``.

State (int64), after the common header of ``envs/core/kernel.py``:

    HEADER + r*C + c         cell at row r (0 = top row as printed), column c (0 = column a):
                             0 empty, 1 first player (seat 0, "x"), 2 second player (seat 1, "o")
    HEADER + R*C + c         height of column c: discs in it (a disc dropped there lands on row
                             R - 1 - height)

    Board indexing for the standard 7 columns x 6 rows (cell k = r*7 + c; action id = column):
         a  b  c  d  e  f  g
      6  0  1  2  3  4  5  6
      5  7  8  9 10 11 12 13
      ...
      1 35 36 37 38 39 40 41

Params: P_GAME = columns C, P_GAME+1 = rows R, P_GAME+2 = connect (discs in a row that win).
Reason codes in H_REASON: LINE (the mover made ``connect`` in a row), FULL (board full, draw).

Cells sit at ``s[HEADER + k]`` with 0/1/2 like the built-in board games, so ``encode`` is
``envs.core.kernel.encode_stones`` and the generic ``owners`` default fits as is.
"""

from numba import njit

from envs.core import kernel as C

P_COLUMNS = C.P_GAME
P_ROWS = C.P_GAME + 1
P_CONNECT = C.P_GAME + 2
LINE = 1
FULL = 2
MAX_CELLS = 10 * 10  # the largest board the parameter ranges allow

# Zobrist keys: 2 per cell (one per colour) and one for "seat 1 to move". The salt fixes them for
# ever, so a position has the same H_HASH in every run (transposition tables, text round trips).
ZOBRIST = C.zobrist_table(2 * MAX_CELLS + 1, salt=0xC4)
SIDE_KEY = ZOBRIST[-1]

DR = (0, 1, 1, 1)  # the four line directions: horizontal, vertical, two diagonals
DC = (1, 0, 1, -1)


@njit(cache=True)
def init(s, p, rng):
    """The empty board, seat 0 to move (no chance: ``rng`` is unused)."""
    C.clear(s, p)


@njit(cache=True)
def _heights(p):
    """Index of the first column-height cell."""
    return C.HEADER + p[P_ROWS] * p[P_COLUMNS]


@njit(cache=True)
def legal_actions(s, p, out):
    """The columns that are not full, ascending; none once the game is over."""
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    rows = p[P_ROWS]
    base = _heights(p)
    n = 0
    for c in range(p[P_COLUMNS]):
        if s[base + c] < rows:
            out[n] = c
            n += 1
    return n


@njit(cache=True)
def is_legal(s, p, a):
    """Whether column ``a`` (already known to be in ``range(columns)``) takes a disc."""
    return s[C.H_STATUS] == C.ONGOING and s[_heights(p) + a] < p[P_ROWS]


@njit(cache=True)
def run_length(s, columns, rows, r, c, dr, dc, colour):
    """Length of the line of ``colour`` through (r, c) along (dr, dc), both ways."""
    length = 1
    for sign in (1, -1):
        rr, cc = r + sign * dr, c + sign * dc
        while 0 <= rr < rows and 0 <= cc < columns and s[C.HEADER + rr * columns + cc] == colour:
            length += 1
            rr += sign * dr
            cc += sign * dc
    return length


@njit(cache=True)
def wins_at(s, p, r, c):
    """Whether the disc on (r, c) lies on a line of at least ``connect`` discs of its colour."""
    columns, rows = p[P_COLUMNS], p[P_ROWS]
    colour = s[C.HEADER + r * columns + c]
    if colour == 0:
        return False
    for d in range(4):
        if run_length(s, columns, rows, r, c, DR[d], DC[d], colour) >= p[P_CONNECT]:
            return True
    return False


@njit(cache=True)
def apply(s, p, a):
    """Drop the mover's disc into column ``a`` (legal); a line wins, a full board draws."""
    columns, rows = p[P_COLUMNS], p[P_ROWS]
    seat = s[C.H_PLAYER]
    h = _heights(p) + a
    r = rows - 1 - s[h]
    cell = r * columns + a
    s[C.HEADER + cell] = seat + 1
    s[h] += 1
    s[C.H_HASH] ^= ZOBRIST[2 * cell + seat] ^ SIDE_KEY
    s[C.H_PLY] += 1
    s[C.H_LAST] = a
    s[C.H_PLAYER] = 1 - seat
    if wins_at(s, p, r, a):
        C.finish(s, seat, LINE)
    elif s[C.H_PLY] == rows * columns:
        C.finish(s, C.NO_WINNER, FULL)


@njit(cache=True)
def encode(s, p, seat, legal, n_legal, out):
    """Observation of ``seat``, flat: own discs, the opponent's, all ones if ``seat`` is to move
    (reshaped by the facade to (3, rows, columns))."""
    C.encode_stones(s, seat, p[P_ROWS] * p[P_COLUMNS], out)
