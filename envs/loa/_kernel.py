"""Lines of Action rules kernel (numba): bitboards, line counts and a repetition history.

Board indexing (cell = bit = r*8 + c, row r = 0 at the top as printed, i.e. rank 8):

         a  b  c  d  e  f  g  h
      8  0  1  2  3  4  5  6  7
      7  8  9 10 11 12 13 14 15
      6 16 17 18 19 20 21 22 23
      5 24 25 26 27 28 29 30 31
      4 32 33 34 35 36 37 38 39
      3 40 41 42 43 44 45 46 47
      2 48 49 50 51 52 53 54 55
      1 56 57 58 59 60 61 62 63

Action ``from_cell*8 + direction`` moves the piece on ``from_cell`` along ``direction``:

         7 0 1         0 N  (up, toward rank 8)    4 S
          \\|/          1 NE                         5 SW
        6 -*- 2        2 E  (toward file h)        6 W
          /|\\          3 SE                         7 NW
         5 4 3

The distance is not part of the action: it is the number of pieces on the whole line, so each
(from, direction) pair names at most one move. ``direction % 4`` is the line's axis (0 column,
1 anti-diagonal "/", 2 row, 3 diagonal "\\"); ``direction ^ 4`` is the opposite direction.
Action ``PASS`` (512) exists only under ``no_move="pass"``, when the mover has no other move.
Example: from the start, b1 is cell 57 and has b1-b3 (N, 456), b1-d3 (NE, 457), b1-h1 (E, 458).

State (int64), after the common header of ``envs/core/kernel.py``:

    S_BB + k          bitboard of seat k's pieces (k = 0 Black 'x', 1 White 'o'); bit = cell
    S_COUNT + i       pieces of either colour on line i (46 lines, ids in ``LINE``):
                      0..7 columns a..h, 8..15 rows r = 0..7, 16..30 anti-diagonals r+c,
                      31..45 diagonals r-c+7
    S_NHIST           number of hashes in the history
    S_IRREV           history index of the first position after the last capture
    S_HIST + k        H_HASH of the k-th position since the start (or since ``from_text``)

The history has ``max_moves + 1`` slots: one per position from the start to the cap, so it never
overflows. A capture is irreversible (pieces never come back), so a repetition is searched only
from ``S_IRREV`` on. Hashes are 64-bit Zobrist keys; a false repetition needs a 64-bit collision.

Params: P_GAME + 0..3 = simultaneous (0 draw, 1 mover wins), no_move (0 pass, 1 lose),
repetition (0 threefold, 1 first_board), win_at_cap (0 stands, 1 draw).
Reason codes in H_REASON: CONNECTED, OPPONENT_CONNECTED, BOTH_CONNECTED, REPETITION, MAX_MOVES,
NO_MOVE (the side to move has no move and no_move="lose").

Invariants (``validate``): the bitboards are disjoint and hold 1 to 12 pieces each; every ply
(a pass too) alternates the side to move, so the seat to move is the ply's parity, and a side has
lost no more pieces than its opponent has made moves; the line counts and ``H_HASH`` are what the
pieces give; the history holds 1 to ply + 1 hashes, the last being ``H_HASH`` (slots after them
are written before they are read, so they are not checked, which keeps the check's cost
independent of ``max_moves``), and ``S_IRREV`` points into it; the last action is -1, a pass (if passes exist) or a move whose
square is now empty; the status is what the end-of-move rules give (an ongoing game has no
connected side, is below the cap, is no repetition and, under no_move="lose", has a move).

numba caveat: bitboards are int64 (a uint64 mixed with an int64 silently becomes float64), so bit
63 is the sign bit and ``>>`` is arithmetic; every right shift whose high bits matter is masked.
"""

import numpy as np
from numba import njit

from ..core import kernel as C

N = 8
PASS = 512
NUM_ACTIONS = 513
NUM_LINES = 46
DR = (-1, -1, 0, 1, 1, 1, 0, -1)
DC = (0, 1, 1, 1, 0, -1, -1, -1)

P_SIMULTANEOUS = C.P_GAME
P_NO_MOVE = C.P_GAME + 1
P_REPETITION = C.P_GAME + 2
P_WIN_AT_CAP = C.P_GAME + 3

S_BB = C.HEADER
S_COUNT = C.HEADER + 2
S_NHIST = S_COUNT + NUM_LINES
S_IRREV = S_NHIST + 1
S_HIST = S_IRREV + 1

CONNECTED = 1
OPPONENT_CONNECTED = 2
BOTH_CONNECTED = 3
REPETITION = 4
MAX_MOVES = 5
NO_MOVE = 6

ZOBRIST = C.zobrist_table(2 * 64 + 1, salt=1)  # [seat*64 + cell], then the side-to-move key
SIDE_KEY = ZOBRIST[-1]

E_OVERLAP = C.GAME_ERRORS
E_PIECES = C.GAME_ERRORS + 1
E_TURN = C.GAME_ERRORS + 2
E_CAPTURES = C.GAME_ERRORS + 3
E_LINES = C.GAME_ERRORS + 4
E_HASH = C.GAME_ERRORS + 5
E_HISTORY = C.GAME_ERRORS + 6
E_IRREV = C.GAME_ERRORS + 7
E_LAST = C.GAME_ERRORS + 8
E_END = C.GAME_ERRORS + 9
STATE_ERRORS = {
    E_OVERLAP: "the two bitboards share a square",
    E_PIECES: "a side has no piece or more than 12",
    E_TURN: "the side to move is not the ply's parity (every ply, a pass too, alternates)",
    E_CAPTURES: "a side has lost more pieces than its opponent has made moves",
    E_LINES: "a line count differs from the pieces on that line",
    E_HASH: "the hash is not the Zobrist hash of the pieces and the side to move",
    E_HISTORY: "the repetition history does not hold 1 to ply + 1 hashes ending with the current hash",
    E_IRREV: "the last-capture index does not point into the history",
    E_LAST: "the last action is neither -1, an allowed pass, nor a move whose square is now empty",
    E_END: "the status, winner or end reason is not what the end-of-move rules give for the pieces",
}


def state_len(max_moves: int) -> int:
    return S_HIST + max_moves + 1


def _signed(x: int) -> int:
    """A 64-bit pattern as the signed Python int numba reads as an int64 constant."""
    return x - (1 << 64) if x >= 1 << 63 else x


FILE_A = sum(1 << (8 * r) for r in range(8))
NOT_A = _signed(((1 << 64) - 1) ^ FILE_A)
NOT_H = _signed(((1 << 64) - 1) ^ (FILE_A << 7))
LOW56 = (1 << 56) - 1
BYTE_LOW_BITS = FILE_A  # bit 0 of every byte (row)
ROW_GATHER = 0x0102040810204080  # moves bit 8r to bit 56 + r; no two partial products collide
DEBRUIJN = 0x03F79D71B4CB0A89


def _debruijn_index():
    """Cell of the single set bit b from the top 6 bits of b * DEBRUIJN (mod 2**64)."""
    index = np.zeros(64, dtype=np.int64)
    for i in range(64):
        index[((DEBRUIJN << i) & ((1 << 64) - 1)) >> 58] = i
    return index


DEBRUIJN_INDEX = _debruijn_index()


def _tables():
    """LINE[cell*4 + axis]; for k = (cell*8 + dir)*9 + dist: TARGET[k] the landing cell (-1 off
    the board), LAND[k] its bit (0 off the board) and PATH[k] the cells jumped over (all ones off
    the board, so that an off-board move always "jumps" an enemy piece and one test suffices)."""
    line = np.zeros(64 * 4, dtype=np.int64)
    target = np.full(64 * 8 * 9, -1, dtype=np.int64)
    land = np.zeros(64 * 8 * 9, dtype=np.int64)
    path = np.full(64 * 8 * 9, -1, dtype=np.int64)
    for r in range(N):
        for c in range(N):
            cell = r * N + c
            line[cell * 4 : cell * 4 + 4] = (c, 16 + r + c, 8 + r, 31 + r - c + 7)
            for d in range(8):
                between = 0
                for dist in range(1, 9):
                    rr, cc = r + dist * DR[d], c + dist * DC[d]
                    if not (0 <= rr < N and 0 <= cc < N):
                        break
                    k = (cell * 8 + d) * 9 + dist
                    target[k] = rr * N + cc
                    land[k] = _signed(1 << (rr * N + cc))
                    path[k] = _signed(between)
                    between |= 1 << (rr * N + cc)
    return line, target, land, path


LINE, TARGET, LAND, PATH = _tables()

BLACK_START = sum(1 << (r * 8 + c) for r in (0, 7) for c in range(1, 7))
WHITE_START = sum(1 << (r * 8 + c) for r in range(1, 7) for c in (0, 7))


# -- bit helpers -----------------------------------------------------------------------------
@njit(cache=True)
def _lowest_cell(bb):
    """Index of the lowest set bit of a non-zero bitboard (de Bruijn multiply, no loop)."""
    return DEBRUIJN_INDEX[((bb & -bb) * DEBRUIJN >> 58) & 63]


@njit(cache=True)
def _contiguous(mask):
    """Whether the set bits of a non-zero mask form one run (adding the low bit clears it)."""
    return ((mask + (mask & -mask)) & mask) == 0


@njit(cache=True)
def _spans_contiguous(bb):
    """Cheap necessary test for connection: occupied columns and rows are each one run."""
    x = bb | (bb >> 32)
    x |= x >> 16
    x |= x >> 8
    if not _contiguous(x & 0xFF):
        return False
    y = bb | (bb >> 4)
    y |= y >> 2
    y |= y >> 1
    rows = ((y & BYTE_LOW_BITS) * ROW_GATHER >> 56) & 0xFF
    return _contiguous(rows)


@njit(cache=True)
def connected(bb):
    """Whether the pieces of bitboard ``bb`` (non-empty) form one 8-connected group.

    Flood fill by dilation: grow the group of the lowest piece one king step at a time until it
    stops growing, then compare it with all pieces.
    """
    if not _spans_contiguous(bb):
        return False
    group = bb & -bb
    while True:
        grown = group | ((group << 1) & NOT_A) | ((group >> 1) & NOT_H)
        grown = (grown | (grown << 8) | ((grown >> 8) & LOW56)) & bb
        if grown == group:
            return group == bb
        group = grown


# -- move generation ------------------------------------------------------------------------
@njit(cache=True)
def _move_key(s, cell, d):
    """Table index (cell*8 + d)*9 + distance of the move of ``cell`` along direction ``d``."""
    return (cell * 8 + d) * 9 + s[S_COUNT + LINE[cell * 4 + (d & 3)]]


@njit(cache=True)
def _move_ok(own, opp, k):
    """A move lands on the board, not on an own piece, and jumps no enemy piece (``opp`` is never
    empty in an unfinished game, so the all-ones PATH of an off-board move always fails)."""
    return ((opp & PATH[k]) | (own & LAND[k])) == 0


@njit(cache=True)
def _generate(s, seat, out):
    """Write seat's piece moves into ``out`` (ascending: cells, then directions); return how many."""
    own = s[S_BB + seat]
    opp = s[S_BB + 1 - seat]
    n = 0
    rest = own
    while rest != 0:
        cell = _lowest_cell(rest)
        rest &= rest - 1
        for d in range(8):  # branch-free: always write, advance only past a legal move
            out[n] = cell * 8 + d
            n += _move_ok(own, opp, _move_key(s, cell, d))
    return n


@njit(cache=True)
def _has_move(s, seat):
    """Whether seat has any piece move; stops at the first (nearly always the first piece)."""
    own = s[S_BB + seat]
    opp = s[S_BB + 1 - seat]
    rest = own
    while rest != 0:
        cell = _lowest_cell(rest)
        rest &= rest - 1
        for d in range(8):
            if _move_ok(own, opp, _move_key(s, cell, d)):
                return True
    return False


# -- the kernel interface ---------------------------------------------------------------------
@njit(cache=True)
def init(s, p, rng):
    s[:] = 0
    s[C.H_SIG] = p[C.P_SIG]
    s[S_BB] = BLACK_START
    s[S_BB + 1] = WHITE_START
    setup(s, p)


@njit(cache=True)
def legal_actions(s, p, out):
    """Legal actions ascending; ``out`` needs 96 cells (12 pieces x 8 directions are written)."""
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    n = _generate(s, s[C.H_PLAYER], out)
    if n == 0 and p[P_NO_MOVE] == 0:
        out[0] = PASS
        n = 1
    return n


@njit(cache=True)
def is_legal(s, p, a):
    if s[C.H_STATUS] != C.ONGOING:
        return False
    seat = s[C.H_PLAYER]
    if a == PASS:
        return p[P_NO_MOVE] == 0 and not _has_move(s, seat)
    cell = a >> 3
    own = s[S_BB + seat]
    return ((own >> cell) & 1) == 1 and _move_ok(own, s[S_BB + 1 - seat], _move_key(s, cell, a & 7))


@njit(cache=True)
def _add_to_lines(s, cell, delta):
    for axis in range(4):
        s[S_COUNT + LINE[cell * 4 + axis]] += delta


@njit(cache=True)
def apply(s, p, a):
    seat = s[C.H_PLAYER]
    captured = False
    if a != PASS:
        cell = a >> 3
        t = TARGET[_move_key(s, cell, a & 7)]
        s[S_BB + seat] ^= (1 << cell) | (1 << t)
        s[C.H_HASH] ^= ZOBRIST[seat * 64 + cell] ^ ZOBRIST[seat * 64 + t]
        _add_to_lines(s, cell, np.int64(-1))  # np.int64: numba compiles a copy per literal number
        if (s[S_BB + 1 - seat] >> t) & 1:
            captured = True
            s[S_BB + 1 - seat] ^= 1 << t
            s[C.H_HASH] ^= ZOBRIST[(1 - seat) * 64 + t]
        else:
            _add_to_lines(s, t, np.int64(1))
    s[C.H_HASH] ^= SIDE_KEY
    s[C.H_PLAYER] = 1 - seat
    s[C.H_PLY] += 1
    s[C.H_LAST] = a
    if captured:
        s[S_IRREV] = s[S_NHIST]
    _remember(s)
    _conclude(s, p, seat, captured)


@njit(cache=True)
def _remember(s):
    s[S_HIST + s[S_NHIST]] = s[C.H_HASH]
    s[S_NHIST] += 1


@njit(cache=True)
def _repeated(s, p):
    """Whether the position just recorded ends the game by repetition.

    threefold: its third occurrence with the same side to move (same-side positions are an even
    number of plies apart). first_board: any earlier position with the same piece placement.
    """
    now = s[S_NHIST] - 1
    h = s[S_HIST + now]
    if p[P_REPETITION] == 1:
        for k in range(now - 1, s[S_IRREV] - 1, -1):
            if s[S_HIST + k] == h or s[S_HIST + k] == h ^ SIDE_KEY:
                return True
        return False
    seen = 0
    for k in range(now - 2, s[S_IRREV] - 1, -2):
        if s[S_HIST + k] == h:
            seen += 1
            if seen == 2:
                return True
    return False


@njit(cache=True)
def _conclude(s, p, mover, captured):
    """End-of-move rules, in order: connection (the opponent's pieces change only by a capture),
    the cap overriding a win if win_at_cap="draw", repetition, the cap, then the next player's
    lack of moves under no_move="lose"."""
    me = connected(s[S_BB + mover])
    them = captured and connected(s[S_BB + 1 - mover])
    at_cap = s[C.H_PLY] >= p[C.P_MAX_MOVES]
    if me or them:
        if at_cap and p[P_WIN_AT_CAP] == 1:
            C.finish(s, C.NO_WINNER, MAX_MOVES)
        elif me and them:
            C.finish(s, mover if p[P_SIMULTANEOUS] == 1 else C.NO_WINNER, BOTH_CONNECTED)
        elif me:
            C.finish(s, mover, CONNECTED)
        else:
            C.finish(s, 1 - mover, OPPONENT_CONNECTED)
    elif _repeated(s, p):
        C.finish(s, C.NO_WINNER, REPETITION)
    elif at_cap:
        C.finish(s, C.NO_WINNER, MAX_MOVES)
    elif p[P_NO_MOVE] == 1 and not _has_move(s, 1 - mover):
        C.finish(s, mover, NO_MOVE)


@njit(cache=True)
def setup(s, p):
    """Complete a state whose signature, bitboards, H_PLAYER and H_PLY are set: line counts,
    hash, a fresh one-position history, and the end-of-game status as if the side not to move
    had just moved (with a capture, so both sides' connection is tested)."""
    s[C.H_STATUS] = C.ONGOING
    s[C.H_WINNER] = C.NO_WINNER
    s[C.H_REASON] = 0
    s[C.H_LAST] = -1
    s[S_COUNT : S_COUNT + NUM_LINES] = 0
    h = SIDE_KEY if s[C.H_PLAYER] == 1 else 0
    for seat in range(2):
        rest = s[S_BB + seat]
        while rest != 0:
            cell = _lowest_cell(rest)
            rest &= rest - 1
            _add_to_lines(s, cell, np.int64(1))
            h ^= ZOBRIST[seat * 64 + cell]
    s[C.H_HASH] = h
    s[S_NHIST] = 0
    s[S_IRREV] = 0
    _remember(s)
    _conclude(s, p, 1 - s[C.H_PLAYER], np.bool_(True))  # not the literal: one compile of _conclude


@njit(cache=True)
def validate(s, p):
    """0 if ``s`` is a consistent LOA state, else ``C.error(code, cell)`` (invariants in the module
    docstring, codes in ``STATE_ERRORS``). The pieces are checked first, so every later table
    lookup (lines, hashes, connection) reads inside its table."""
    e = C.check_header(s, p)
    if e:
        return e
    black, white = s[S_BB], s[S_BB + 1]
    if black & white != 0:
        return C.error(E_OVERLAP, S_BB + 1)
    ply = s[C.H_PLY]
    player = s[C.H_PLAYER]
    for side in range(2):
        count = C.popcount(s[S_BB + side])
        if count < 1 or count > 12:
            return C.error(E_PIECES, S_BB + side)
        if 12 - count > (ply + side) // 2:
            return C.error(E_CAPTURES, S_BB + side)
    if ply % 2 != player:
        return C.error(E_TURN, C.H_PLAYER)
    lines = np.zeros(NUM_LINES, dtype=np.int64)
    h = SIDE_KEY if player == 1 else np.int64(0)
    for side in range(2):
        rest = s[S_BB + side]
        while rest != 0:
            cell = _lowest_cell(rest)
            rest &= rest - 1
            for axis in range(4):
                lines[LINE[cell * 4 + axis]] += 1
            h ^= ZOBRIST[side * 64 + cell]
    for i in range(NUM_LINES):
        if lines[i] != s[S_COUNT + i]:
            return C.error(E_LINES, S_COUNT + i)
    if h != s[C.H_HASH]:
        return C.error(E_HASH, C.H_HASH)
    nhist = s[S_NHIST]
    if nhist < 1 or nhist > ply + 1 or s[S_HIST + nhist - 1] != h:
        return C.error(E_HISTORY, S_NHIST)
    if s[S_IRREV] < 0 or s[S_IRREV] >= nhist:
        return C.error(E_IRREV, S_IRREV)
    last = s[C.H_LAST]
    if last == PASS:
        if p[P_NO_MOVE] != 0:
            return C.error(E_LAST, C.H_LAST)
    elif last >= 0 and ((black | white) >> (last >> 3)) & 1:
        return C.error(E_LAST, C.H_LAST)
    mover = 1 - player  # who made the last move
    me = connected(s[S_BB + mover])
    them = connected(s[S_BB + player])
    winner = s[C.H_WINNER]
    if s[C.H_STATUS] == C.ONGOING:
        ok = (
            not me
            and not them
            and ply < p[C.P_MAX_MOVES]
            and not _repeated(s, p)
            and (p[P_NO_MOVE] == 0 or _has_move(s, player))
        )
    else:
        reason = s[C.H_REASON]
        if reason == CONNECTED:
            ok = me and not them and winner == mover
        elif reason == OPPONENT_CONNECTED:
            ok = them and not me and winner == player
        elif reason == BOTH_CONNECTED:
            ok = me and them and winner == (mover if p[P_SIMULTANEOUS] == 1 else C.NO_WINNER)
        elif reason == REPETITION:
            ok = winner == C.NO_WINNER
        elif reason == MAX_MOVES:
            ok = winner == C.NO_WINNER and ply == p[C.P_MAX_MOVES]
        else:  # NO_MOVE
            ok = winner == mover and p[P_NO_MOVE] == 1 and not _has_move(s, player)
    if not ok:
        return C.error(E_END, C.H_STATUS)
    return 0


@njit(cache=True)
def encode(s, p, seat, legal, n_legal, out):
    """Observation of ``seat`` from the two bitboards (bit = cell = r*8 + c, row 0 = rank 8):
    own pieces, the opponent's, all ones if ``seat`` is to move."""
    own, other = s[S_BB + seat], s[S_BB + 1 - seat]
    to_move = 1.0 if s[C.H_PLAYER] == seat else 0.0
    for k in range(64):
        out[k] = np.float32((own >> k) & 1)
        out[64 + k] = np.float32((other >> k) & 1)
        out[128 + k] = to_move
