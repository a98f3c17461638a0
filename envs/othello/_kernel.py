"""Othello rules kernel (numba), one code base for every even size N from 6 to 16.

State (int64), after the common header of ``envs/core/kernel.py`` (X = HEADER + N*N):

    HEADER + r*N + c    cell at row r (0 = top row, printed as row 1), column c (0 = column a):
                        0 empty, 1 Black (seat 0), 2 White (seat 1)
    X + 0, X + 1        disc counts of Black and White
    X + 2, X + 3        one-word generator: Black's and White's discs as bitboards, bit r*N + c
    X + 4               the mover's placements: a bitboard (one-word generator), or 1 if there
                        is one and 0 if not (row generator); zero exactly when a pass is due
    X + 5 + k*N + r     row generator only: row r as bits (bit c = column c) of Black's discs
                        (k = 0), White's discs (k = 1) and the mover's placements (k = 2)

    Board indexing for N = 6 (action id = cell index = bit index = r*N + c; pass = N*N = 36):
          a  b  c  d  e  f
       1  0  1  2  3  4  5
       2  6  7  8  9 10 11
       3 12 13 14 15 16 17           start: c3 and d4 White (o), c4 and d3 Black (x)
       4 18 19 20 21 22 23           (on 8x8: d4 and e5 White, d5 and e4 Black)
       5 24 25 26 27 28 29
       6 30 31 32 33 34 35

Two move generators share all the rules around them, chosen per game by ``P_FAST``:
  * N <= 8: the board fits one 64-bit word per colour; Kogge-Stone fills along the 8 directions
    give the placements of all squares at once and the flips of one placement, with no per-square
    loop;
  * N >= 10: row bitboards (one int per row and colour): fills within each row, and one sweep over
    the rows per vertical or diagonal direction; flips are walked square by square over a
    neighbour table (``P_STEP``), which is cheap for a single placement.
Either way ``apply`` leaves the new mover's placements in the state, so ``legal_actions`` and
``is_legal`` only read bits. Both generators pass the same perft numbers (the test suite forces
the second onto 6x6 and 8x8). ``apply`` turns the flipped cells over with one precomputed key per
cell for the hash and a popcount for the counts.

Random playouts (``random_playout``: ``Game.random_playouts`` and MCTS rollouts) do not go
through ``apply``: only the end of a playout is observed, so they keep a board of their own and
write the cells, counts, hash and cached fields back once, at the end (``_write_back``):
  * N <= 8: the two bitboards in registers, Kogge-Stone placements every ply (shifts and masks
    as constants on 8x8) and the k-th placement, k uniform;
  * N >= 10: each colour's discs as line words in the four orientations (``LINES``), where
    whether a square is a placement and how far it flips are a few branch-free word operations,
    and the frontier (empty squares next to a disc) as a list drawn from without replacement
    until a placement comes up: a ply costs about the same on every size, where the row
    generator pays for all N*N squares.

Termination depends on the board and the side to move only: after every ply ``settle`` ends the
game when the board is full (reason FULL) or neither side can place (NO_MOVES, which includes a
wipe-out); otherwise a seat without a placement has exactly one legal action, the pass N*N. So
two passes in a row never happen and no pass history is stored. Plies are at most 2*(N*N - 4):
each placement adds a disc and only a placement can follow a pass.

Params: P_SIZE = N; P_FAST (1: one-word generator, 0: row generator); P_SHIFT, 8 bit offsets
dr*N + dc, one per direction; P_MASK, 8 masks of the squares a one-square shift may land on (on
the board, no wrap round an edge), as int64 bit patterns; P_STEP + 8*cell + d, the neighbour of
``cell`` in direction d or -1.

Invariants (``validate``): cells 0..2 with the centre four never empty; the counts are the cells'
counts; every ply alternates the side to move (passes too), so the seat to move is the ply's
parity, and ``discs - 4 <= ply <= 2 * (discs - 4)``; ``H_HASH`` is the Zobrist hash of the discs
and the side to move; the last action is -1, the pass, or a disc of the side that just moved;
the bitboards (or rows), the cached placements and the end status are what ``setup`` derives
from the cells and the side to move.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ..core import kernel as C
from ..core import rng as R

FULL = 1  # reason: the board is full
NO_MOVES = 2  # reason: neither side can place (empty squares left, or a side was wiped out)

P_SIZE = C.P_GAME
P_FAST = C.P_GAME + 1
P_SHIFT = C.P_GAME + 2
P_MASK = P_SHIFT + 8
P_STEP = P_MASK + 8

S_COUNT = 0  # offsets after the N*N cells
S_BITS = 2
S_MOVES = 4
S_ROWS = 5

DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
ZOBRIST = C.zobrist_table(2 * 16 * 16 + 1, salt=2)
SIDE_KEY = ZOBRIST[-1]
TURN_KEY = ZOBRIST[0:-1:2] ^ ZOBRIST[1::2]  # per cell: a disc turned over (Black's key ^ White's)
ONE = np.uint64(1)

E_CELL = C.GAME_ERRORS
E_CENTRE = C.GAME_ERRORS + 1
E_COUNT = C.GAME_ERRORS + 2
E_TURN = C.GAME_ERRORS + 3
E_PLY = C.GAME_ERRORS + 4
E_HASH = C.GAME_ERRORS + 5
E_LAST = C.GAME_ERRORS + 6
E_DERIVED = C.GAME_ERRORS + 7
E_END = C.GAME_ERRORS + 8
STATE_ERRORS = {
    E_CELL: "a board cell is not 0 (empty), 1 (Black) or 2 (White)",
    E_CENTRE: "a centre square is empty (the four start discs are never removed)",
    E_COUNT: "a disc count differs from the number of that colour's discs on the board",
    E_TURN: "the side to move is not the ply's parity (every ply, a pass too, alternates)",
    E_PLY: "the ply count does not fit the discs: each placement adds one disc and a pass is "
    "always followed by a placement, so discs - 4 <= ply <= 2 * (discs - 4)",
    E_HASH: "the hash is not the Zobrist hash of the discs and the side to move",
    E_LAST: "the last action is neither -1, the pass, nor a disc of the side that just moved",
    E_DERIVED: "the bitboards or the cached placements disagree with the cells",
    E_END: "the status, winner or end reason is not what the board and the side to move give",
}


def state_length(n: int, fast: bool) -> int:
    """Cells, counts, the one-word fields, and for the row generator 3*N rows."""
    return C.HEADER + n * n + S_ROWS + (0 if fast else 3 * n)


def kernel_params(n: int) -> list:
    """The game-specific kernel params for size ``n`` (see the module docstring)."""
    shifts, masks = [], []
    step = np.full((n * n, 8), -1, dtype=np.int64)
    for d, (dr, dc) in enumerate(DIRECTIONS):
        shifts.append(dr * n + dc)
        landing = 0
        for r in range(n):
            for c in range(n):
                if 0 <= r - dr < n and 0 <= c - dc < n:
                    landing |= 1 << (r * n + c)
                if 0 <= r + dr < n and 0 <= c + dc < n:
                    step[r * n + c, d] = (r + dr) * n + c + dc
        if n > 8:
            landing = 0  # the one-word generator is off: masks unused
        masks.append(landing - (1 << 64) if landing >= 1 << 63 else landing)  # int64 bit pattern
    return [n, int(n <= 8), *shifts, *masks, *step.ravel()]


# -- one-word generator (N <= 8) ----------------------------------------------------------------
# numba caveat: a uint64 mixed with an int64 promotes to float64, so every operand below is cast
# to uint64 explicitly; int64 <-> uint64 casts keep the bit pattern.


@njit(cache=True, inline="always")
def _shift(x, k):
    """The bits of ``x`` moved by ``k`` places (k > 0: towards higher squares); no edge mask."""
    if k > 0:
        return x << np.uint64(k)
    return x >> np.uint64(-k)


@njit(cache=True, inline="always")
def _fill(gen, opp, k, mask):
    """``gen`` grown along direction ``k`` through contiguous ``opp`` discs (occluded fill).

    Kogge-Stone: jumps of 1, 2 and 4 squares reach runs of up to 7 discs (on N <= 8 a run has at
    most 6) in three steps instead of six. ``pro`` is masked to the squares a one-square step may
    land on, so a run cannot wrap round the board edge; ``pro &= shift(pro)`` keeps only squares
    whose whole jump stays inside ``pro``.
    """
    pro = opp & mask
    run = gen | (pro & _shift(gen, k))
    pro &= _shift(pro, k)
    run |= pro & _shift(run, 2 * k)
    pro &= _shift(pro, 2 * k)
    return run | (pro & _shift(run, 4 * k))


@njit(cache=True)
def _bb_moves(own, opp, p):
    """Bitboard of the squares where ``own`` can place: an empty square just past a run of ``opp``
    discs that starts next to an ``own`` disc, for all squares at once, direction by direction."""
    empty = ~(own | opp)
    moves = np.uint64(0)
    for d in range(8):
        k = p[P_SHIFT + d]
        mask = np.uint64(p[P_MASK + d])
        moves |= _shift(_fill(own, opp, k, mask) & opp, k) & mask & empty
    return moves


@njit(cache=True)
def _bb_flips(own, opp, bit, p):
    """Bitboard of the ``opp`` discs that a placement at ``bit`` flips: in each direction, the run
    of ``opp`` discs from ``bit``, if an ``own`` disc closes it. (Fills, not square-by-square
    walks: their unpredictable loop exits cost more than the extra shifts.)"""
    flips = np.uint64(0)
    for d in range(8):
        k = p[P_SHIFT + d]
        mask = np.uint64(p[P_MASK + d])
        run = _fill(bit, opp, k, mask)
        if _shift(run, k) & mask & own:
            flips |= run & opp
    return flips


# -- ray walking (flips for the row generator) -----------------------------------------------------------------


@njit(cache=True)
def _run(s, p, a, d, colour):
    """Number of opponent discs a placement of ``colour`` at ``a`` flips in direction ``d``."""
    other = 3 - colour
    step = P_STEP + d
    cell = p[step + 8 * a]
    count = 0
    while cell >= 0 and s[C.HEADER + cell] == other:
        cell = p[step + 8 * cell]
        count += 1
    if count and cell >= 0 and s[C.HEADER + cell] == colour:
        return count
    return 0


# -- row generator (any N) ----------------------------------------------------------------------
# Row r of a colour is one int64 whose bit c is column c (N <= 16 bits, so no sign trouble).


@njit(cache=True, inline="always")
def _shift_row(x, dc, full):
    """Row ``x`` moved ``dc`` columns (dc > 0: towards column N-1), cut to the board's width."""
    if dc > 0:
        return (x << dc) & full
    if dc < 0:
        return x >> -dc
    return x


@njit(cache=True)
def _row_moves(s, p, seat, store):
    """Whether ``seat`` has a placement, by row bitboards; with ``store`` also write its placement
    rows into the state.

    Along a row: an occluded fill per row in jumps of 1, 2, 4, 8 columns (runs up to 15 discs).
    Down and up the board (6 directions): one sweep over the rows per direction carries the
    previous row's reached squares, since a square is reached iff it is ``own``, or ``opp`` with
    its predecessor reached; a placement is an empty square whose predecessor is a reached ``opp``.
    """
    n = p[P_SIZE]
    base = C.HEADER + n * n + S_ROWS
    own0, opp0, out0 = base + seat * n, base + (1 - seat) * n, base + 2 * n
    full = (1 << n) - 1
    found = 0
    for r in range(n):
        own, opp = s[own0 + r], s[opp0 + r]
        moves = 0
        for dc in (1, -1):
            pro = opp
            run = own | (pro & _shift_row(own, dc, full))
            pro &= _shift_row(pro, dc, full)
            run |= pro & _shift_row(run, 2 * dc, full)
            pro &= _shift_row(pro, 2 * dc, full)
            run |= pro & _shift_row(run, 4 * dc, full)
            pro &= _shift_row(pro, 4 * dc, full)
            run |= pro & _shift_row(run, 8 * dc, full)
            moves |= _shift_row(run & opp, dc, full) & ~(own | opp)
        if store:
            s[out0 + r] = moves
        found |= moves
    for dr in (1, -1):
        for dc in (-1, 0, 1):
            run = 0  # previous row's reached squares (own discs and reached opp discs)
            chain = 0  # previous row's reached opp discs
            for i in range(n):
                r = i if dr == 1 else n - 1 - i
                own, opp = s[own0 + r], s[opp0 + r]
                moves = _shift_row(chain, dc, full) & ~(own | opp)
                chain = opp & _shift_row(run, dc, full)
                run = own | chain
                if store:
                    s[out0 + r] |= moves
                found |= moves
            if found and not store:
                return True
    return found != 0


@njit(cache=True)
def _can_place(s, p, seat):
    """Whether ``seat`` has any placement."""
    n = p[P_SIZE]
    x = C.HEADER + n * n
    if p[P_FAST]:
        return _bb_moves(np.uint64(s[x + S_BITS + seat]), np.uint64(s[x + S_BITS + 1 - seat]), p) != 0
    return _row_moves(s, p, seat, np.bool_(False))  # np.bool_: one compile, not one per literal


# -- rules shared by both generators ----------------------------------------------------------------


@njit(cache=True)
def _set(s, p, cell, seat):
    """Put a disc of ``seat`` on ``cell`` (empty or the opponent's): cell, hash and counts.

    The bitboards are the caller's job (``apply`` updates them in one go, ``setup`` rebuilds them).
    """
    n = p[P_SIZE]
    x = C.HEADER + n * n
    old = s[C.HEADER + cell]
    if old:
        s[C.H_HASH] ^= ZOBRIST[2 * cell + old - 1]
        s[x + S_COUNT + old - 1] -= 1
    s[C.HEADER + cell] = seat + 1
    s[C.H_HASH] ^= ZOBRIST[2 * cell + seat]
    s[x + S_COUNT + seat] += 1


@njit(cache=True)
def _set_row_bit(s, p, cell, seat):
    """Mirror a disc of ``seat`` on ``cell`` in the row bitboards (row generator only)."""
    n = p[P_SIZE]
    base = C.HEADER + n * n + S_ROWS
    r, bit = cell // n, 1 << (cell % n)
    s[base + seat * n + r] |= bit
    s[base + (1 - seat) * n + r] &= ~bit


@njit(cache=True)
def _end(s, p, reason):
    """Finish the game: more discs wins, equal counts draw."""
    x = C.HEADER + p[P_SIZE] * p[P_SIZE]
    black, white = s[x + S_COUNT], s[x + S_COUNT + 1]
    C.finish(s, 0 if black > white else 1 if white > black else C.NO_WINNER, reason)


@njit(cache=True)
def settle(s, p):
    """Decide from the board and the side to move whether the game goes on; cache the placements.

    Called after every ply and by ``setup``, so the status never depends on history.
    """
    n = p[P_SIZE]
    x = C.HEADER + n * n
    seat = s[C.H_PLAYER]
    if p[P_FAST]:
        moves = _bb_moves(np.uint64(s[x + S_BITS + seat]), np.uint64(s[x + S_BITS + 1 - seat]), p)
        s[x + S_MOVES] = np.int64(moves)
    else:
        s[x + S_MOVES] = _row_moves(s, p, seat, np.bool_(True))
    if s[x + S_COUNT] + s[x + S_COUNT + 1] == n * n:
        _end(s, p, np.int64(FULL))
    elif s[x + S_MOVES] == 0 and not _can_place(s, p, 1 - seat):
        _end(s, p, np.int64(NO_MOVES))


@njit(cache=True)
def setup(s, p):
    """Complete a state whose cells, counts, hash, seat and ply are set (by ``init`` or a text
    board): build the bitboards or row bitboards, then decide the status."""
    n = p[P_SIZE]
    x = C.HEADER + n * n
    if p[P_FAST]:
        for seat in range(2):
            bits = np.uint64(0)
            for cell in range(n * n):
                if s[C.HEADER + cell] == seat + 1:
                    bits |= ONE << np.uint64(cell)
            s[x + S_BITS + seat] = np.int64(bits)
    else:
        for r in range(n):  # row by row: no division per cell
            black = white = 0
            for c in range(n):
                v = s[C.HEADER + r * n + c]
                black |= np.int64(v == 1) << c
                white |= np.int64(v == 2) << c
            s[x + S_ROWS + r] = black
            s[x + S_ROWS + n + r] = white
    settle(s, p)


@njit(cache=True)
def init(s, p, rng):
    n = p[P_SIZE]
    C.clear(s, p)
    m = n // 2
    white, black = np.int64(1), np.int64(0)  # seats, not literals: numba compiles per literal
    _set(s, p, (m - 1) * n + m - 1, white)  # d4 on 8x8
    _set(s, p, m * n + m, white)  # e5
    _set(s, p, m * n + m - 1, black)  # d5
    _set(s, p, (m - 1) * n + m, black)  # e4
    setup(s, p)


@njit(cache=True)
def legal_actions(s, p, out):
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    n = p[P_SIZE]
    count = 0
    if p[P_FAST]:
        moves = np.uint64(s[C.HEADER + n * n + S_MOVES])
        while moves:
            out[count] = trailing_zeros(moves)
            count += 1
            moves &= moves - ONE
    else:
        out0 = C.HEADER + n * n + S_ROWS + 2 * n
        for r in range(n):
            moves = s[out0 + r]
            while moves:
                out[count] = r * n + trailing_zeros(moves)
                count += 1
                moves &= moves - 1
    if count == 0:
        out[0] = n * n
        count = 1
    return count


@njit(cache=True)
def is_legal(s, p, a):
    if s[C.H_STATUS] != C.ONGOING:
        return False
    n = p[P_SIZE]
    x = C.HEADER + n * n
    if a == n * n:
        return s[x + S_MOVES] == 0
    if p[P_FAST]:
        return (np.uint64(s[x + S_MOVES]) >> np.uint64(a)) & ONE != 0
    return (s[x + S_ROWS + 2 * n + a // n] >> (a % n)) & 1 != 0


@njit(cache=True)
def apply(s, p, a):
    n = p[P_SIZE]
    seat = s[C.H_PLAYER]
    if a != n * n:
        if p[P_FAST]:
            # the flips as one word: counts by a popcount, the hash by one key per turned disc
            x = C.HEADER + n * n
            own = np.uint64(s[x + S_BITS + seat])
            opp = np.uint64(s[x + S_BITS + 1 - seat])
            bit = ONE << np.uint64(a)
            flips = _bb_flips(own, opp, bit, p)
            s[x + S_BITS + seat] = np.int64(own | flips | bit)
            s[x + S_BITS + 1 - seat] = np.int64(opp & ~flips)
            turned = C.popcount(np.int64(flips))
            s[x + S_COUNT + seat] += turned + 1
            s[x + S_COUNT + 1 - seat] -= turned
            colour = seat + 1
            h = s[C.H_HASH] ^ ZOBRIST[2 * a + seat]
            while flips:
                cell = trailing_zeros(flips)
                s[C.HEADER + cell] = colour
                h ^= TURN_KEY[cell]
                flips &= flips - ONE
            s[C.HEADER + a] = colour
            s[C.H_HASH] = h
        else:
            for d in range(8):
                cell = a
                for _ in range(_run(s, p, a, d, seat + 1)):
                    cell = p[P_STEP + d + 8 * cell]
                    _set(s, p, cell, seat)
                    _set_row_bit(s, p, cell, seat)
            _set_row_bit(s, p, a, seat)
            _set(s, p, a, seat)
    s[C.H_PLAYER] = 1 - seat
    s[C.H_HASH] ^= SIDE_KEY
    s[C.H_PLY] += 1
    s[C.H_LAST] = a
    settle(s, p)


# -- random playouts ------------------------------------------------------------------------------
# A playout (random playouts, MCTS rollouts) needs only the discs and the mover's placements; the
# cells, counts and hash, which ``apply`` keeps for search and the Game API, are rebuilt once at the
# end (``_write_back``), not touched per disc.


@njit(cache=True, inline="always")
def _fill_up(gen, pro, k):
    """``_fill`` for a shift towards higher squares by ``k`` (``pro``: masked opponent discs)."""
    run = gen | (pro & (gen << k))
    pro &= pro << k
    run |= pro & (run << (k + k))
    pro &= pro << (k + k)
    return run | (pro & (run << (k + k + k + k)))


@njit(cache=True, inline="always")
def _fill_down(gen, pro, k):
    """``_fill`` for a shift towards lower squares by ``k``."""
    run = gen | (pro & (gen >> k))
    pro &= pro >> k
    run |= pro & (run >> (k + k))
    pro &= pro >> (k + k)
    return run | (pro & (run >> (k + k + k + k)))


@njit(cache=True, inline="always")
def _word_moves(own, opp, ks, ups, downs):
    """``_bb_moves`` over the four direction pairs: shift ``ks[i]`` up (landing mask ``ups[i]``)
    and down (``downs[i]``)."""
    empty = ~(own | opp)
    moves = np.uint64(0)
    for i in range(4):
        k, up, down = ks[i], ups[i], downs[i]
        moves |= ((_fill_up(own, opp & up, k) & opp) << k) & up
        moves |= ((_fill_down(own, opp & down, k) & opp) >> k) & down
    return moves & empty


@njit(cache=True, inline="always")
def _word_flips(own, opp, bit, ks, ups, downs):
    """``_bb_flips`` over the four direction pairs."""
    flips = np.uint64(0)
    for i in range(4):
        k, up, down = ks[i], ups[i], downs[i]
        run = _fill_up(bit, opp & up, k)
        if (run << k) & up & own:
            flips |= run & opp
        run = _fill_down(bit, opp & down, k)
        if (run >> k) & down & own:
            flips |= run & opp
    return flips


@njit(cache=True, inline="always")
def _kth_bit(x, k):
    """The ``k``-th lowest set bit of ``x`` (k < popcount(x)), as a one-bit word: a binary search
    on popcounts of the low halves, branch-free (LLVM selects), where clearing k low bits in a
    loop would mispredict its exit every ply."""
    at = np.uint64(0)
    for width in (32, 16, 8, 4, 2, 1):
        w = np.uint64(width)
        low = np.uint64(C.popcount(np.int64(x & ((ONE << w) - ONE))))
        up = k >= low
        k = k - low if up else k
        x = x >> w if up else x
        at = at + w if up else at
    return ONE << at


@njit(cache=True, forceinline=True)
def _word_playout(s, p, rng, ks, ups, downs):
    """The one-word playout: the Kogge-Stone generator on two words held in registers; a ply
    picks the k-th set bit of the placements, k uniform. Compiled once and inlined by LLVM into
    both branches of ``_one_word_playout`` (which folds the 8x8 constants into it there): copied
    twice at numba-IR level (``inline="always"``), it cost about 5 s of every cold start."""
    n = p[P_SIZE]
    x = C.HEADER + n * n
    seat = s[C.H_PLAYER]
    own = np.uint64(s[x + S_BITS + seat])
    opp = np.uint64(s[x + S_BITS + 1 - seat])
    ply = s[C.H_PLY]
    last = s[C.H_LAST]
    moves = np.uint64(s[x + S_MOVES])
    while True:
        if moves == 0:
            moves = _word_moves(opp, own, ks, ups, downs)
            if moves == 0:
                break
            own, opp = opp, own  # a pass
            seat = 1 - seat
            ply += 1
            last = n * n
        bit = _kth_bit(moves, np.uint64(R.randint(rng, C.popcount(np.int64(moves)))))
        flips = _word_flips(own, opp, bit, ks, ups, downs)
        own, opp = opp & ~flips, own | flips | bit
        seat = 1 - seat
        ply += 1
        last = np.int64(trailing_zeros(bit))  # int64, as in the line playout: one _write_back
        moves = _word_moves(own, opp, ks, ups, downs)
    black, white = (own, opp) if seat == 0 else (opp, own)
    for cell in range(n * n):
        b = (black >> np.uint64(cell)) & ONE
        s[C.HEADER + cell] = 1 if b else 2 if (white >> np.uint64(cell)) & ONE else 0
    _write_back(s, p, seat, ply, last)


@njit(cache=True, inline="always")
def _u64(v):
    return np.uint64(v)


@njit(cache=True)
def _one_word_playout(s, p, rng):
    """``_word_playout`` with the direction shifts and masks of this size; on 8x8 as constants,
    which LLVM folds into the shifts (as a C compiler does for a fixed board)."""
    if p[P_SIZE] == 8:
        ks = (np.uint64(1), np.uint64(8), np.uint64(9), np.uint64(7))
        not_a, not_h, every = np.uint64(0xFEFEFEFEFEFEFEFE), np.uint64(0x7F7F7F7F7F7F7F7F), ~np.uint64(0)
        _word_playout(s, p, rng, ks, (not_a, every, not_a, not_h), (not_h, every, not_h, not_a))
    else:
        ks = (_u64(p[P_SHIFT]), _u64(p[P_SHIFT + 2]), _u64(p[P_SHIFT + 4]), _u64(p[P_SHIFT + 5]))
        ups = (_u64(p[P_MASK]), _u64(p[P_MASK + 2]), _u64(p[P_MASK + 4]), _u64(p[P_MASK + 5]))
        downs = (_u64(p[P_MASK + 1]), _u64(p[P_MASK + 3]), _u64(p[P_MASK + 7]), _u64(p[P_MASK + 6]))
        _word_playout(s, p, rng, ks, ups, downs)


def _line_tables():
    """LINES[n * 1024 + cell * 4 + o] = 64 * slot + bit: the line through ``cell`` in orientation
    ``o`` (rows, columns, diagonals r - c, anti-diagonals r + c; 32 slots each) and the cell's bit
    in it (its column, its row, its column, its column). For every size (the line playout runs
    on N >= 10; the tests force it on 6x6 and 8x8 too); one flat table, so a lookup is one load."""
    table = np.zeros(17 * 1024, dtype=np.int64)
    for n in range(6, 17, 2):
        for r in range(n):
            for c in range(n):
                at = n * 1024 + (r * n + c) * 4
                table[at : at + 4] = (
                    64 * r + c,
                    64 * (32 + c) + r,
                    64 * (64 + r - c + n - 1) + c,
                    64 * (96 + r + c) + c,
                )
    return table


def _neighbour_tables():
    """NEIGHBOURS[n * 2048 + cell * 8 + d]: the neighbour of ``cell`` in direction ``d``, or N*N
    off the board (the line playout keeps cell N*N taken), for every size."""
    table = np.zeros(17 * 2048, dtype=np.int64)
    for n in range(6, 17, 2):
        for r in range(n):
            for c in range(n):
                for d, (dr, dc) in enumerate(DIRECTIONS):
                    on = 0 <= r + dr < n and 0 <= c + dc < n
                    table[n * 2048 + (r * n + c) * 8 + d] = (r + dr) * n + c + dc if on else n * n
    return table


LINES = _line_tables()
NEIGHBOURS = _neighbour_tables()
LINE_SLOTS = 128
FREE, TAKEN = -1, -2  # a square's ``where`` in the line playout when it is not in the frontier
LINE_BITS = np.uint64(0xFFFF)
BOTH = np.uint64(1 + (1 << 32))  # a bit in both colours' halves of a line word


@njit(cache=True, inline="always")
def _runs(lines, me, entry):
    """The opponent discs a disc of the colour whose half of a line word starts at bit ``me``
    (0 Black, 32 White) flips along the line of ``entry`` (``LINES``): (towards higher bits,
    towards lower bits) counts, 0 where no own disc closes the run. Branch-free: the run is the
    trailing (leading) ones of the opponent's half shifted to the disc's bit."""
    word = lines[entry >> 6]
    i = np.uint64(entry & 63)
    mine = (word >> me) & LINE_BITS
    theirs = (word >> (np.uint64(32) - me)) & LINE_BITS
    up = np.uint64(trailing_zeros(~(theirs >> (i + ONE))))
    closed_up = ((mine >> (i + ONE)) >> up) & ONE
    low = np.uint64(63) - i
    down = np.uint64(leading_zeros(~((theirs << low) << ONE)))
    closed_down = (((mine << low) << ONE) << down) >> np.uint64(63)
    return np.int64(up * closed_up), np.int64(down * closed_down)


@njit(cache=True, inline="always")
def _places(lines, me, base, a, runs):
    """Whether a disc of the colour at half ``me`` on empty ``a`` outflanks a line; the runs it
    would flip, up and down each orientation, into ``runs`` (8 cells), for the move to reuse."""
    at = base + 4 * a
    found = 0
    for o in range(4):  # no early exit: the four lines' dependency chains overlap
        up, down = _runs(lines, me, LINES[at + o])
        runs[2 * o] = up
        runs[2 * o + 1] = down
        found |= up | down
    return found != 0


@njit(cache=True, forceinline=True)  # compiled once for its two calls, inlined by LLVM
def _draw(lines, me, base, frontier, where, count, rng, runs):
    """A uniformly random placement of the colour at half ``me``, or -1 if it has none: frontier
    squares drawn without replacement until one outflanks (the first legal square of a random
    order is uniform over the legal squares). ``runs`` is left holding the placement's runs."""
    m = count
    while m > 0:
        i = R.randint(rng, m)
        a = frontier[i]
        if _places(lines, me, base, a, runs):
            return a
        m -= 1
        b = frontier[m]
        frontier[i], frontier[m] = b, a
        where[b], where[a] = i, m
    return -1


@njit(cache=True, inline="always")
def _place_disc(lines, me, base, cell):
    """Put a disc of the colour at half ``me`` on empty ``cell``, in its four lines."""
    at = base + 4 * cell
    for o in range(4):
        entry = LINES[at + o]
        lines[entry >> 6] |= ONE << (np.uint64(entry & 63) + me)


@njit(cache=True, inline="always")
def _flip_disc(lines, base, cell):
    """Turn the disc on ``cell`` over, in its four lines (one XOR each: both halves)."""
    at = base + 4 * cell
    for o in range(4):
        entry = LINES[at + o]
        lines[entry >> 6] ^= BOTH << np.uint64(entry & 63)


@njit(cache=True)
def _line_playout(s, p, rng, frontier):
    """The playout of the larger boards, where a move generator over all N*N squares costs what
    the rest of a ply costs several times over. Each colour's discs are held as line words in
    the four orientations (``_line_tables``), so whether a square is a placement, and how many
    discs it flips each way, are a few word operations per orientation (``_runs``). The
    frontier, the empty squares next to a disc (every placement is one), is a list with a
    position index: a ply draws frontier squares until one is a placement (``_draw``), turns the
    flipped discs in their four lines, and lists the empty neighbours of the new disc. The cost
    of a ply depends on the frontier and the flips, not on N*N."""
    n = p[P_SIZE]
    nn = n * n
    base = 1024 * n
    nbase = 2048 * n
    lines = np.zeros(LINE_SLOTS, dtype=np.uint64)  # Black's bits 0..15, White's 32..47
    # where[a]: a's place in the frontier, or FREE (empty, not in it) or TAKEN (a disc; cell nn,
    # off the board, is always TAKEN)
    where = np.full(nn + 1, FREE, dtype=np.int64)
    where[nn] = TAKEN
    runs = np.zeros(8, dtype=np.int64)
    for a in range(nn):
        v = s[C.HEADER + a]
        if v:
            where[a] = TAKEN
            _place_disc(lines, np.uint64(32 * (v - 1)), base, a)
    count = 0  # the frontier in ascending order, row by row from the row words
    full = (ONE << np.uint64(n)) - ONE
    above = np.uint64(0)
    here = (lines[0] | (lines[0] >> np.uint64(32))) & LINE_BITS
    for r in range(n):
        below = (lines[r + 1] | (lines[r + 1] >> np.uint64(32))) & LINE_BITS if r + 1 < n else np.uint64(0)
        near = above | here | below
        empty_next_to_a_disc = (near | (near << ONE) | (near >> ONE)) & full & ~here
        while empty_next_to_a_disc:
            c = trailing_zeros(empty_next_to_a_disc)
            a = r * n + c
            frontier[count] = a
            where[a] = count
            count += 1
            empty_next_to_a_disc &= empty_next_to_a_disc - ONE
        above, here = here, below
    seat = s[C.H_PLAYER]
    ply = s[C.H_PLY]
    last = s[C.H_LAST]
    while True:
        me = np.uint64(32 * seat)
        a = _draw(lines, me, base, frontier, where, count, rng, runs)
        if a < 0:
            me = np.uint64(32) - me
            a = _draw(lines, me, base, frontier, where, count, rng, runs)
            if a < 0:
                break
            seat = 1 - seat  # a pass
            ply += 1
            last = nn
        for o in range(4):
            up, down = runs[2 * o], runs[2 * o + 1]
            step = p[P_SHIFT + 2 * o]  # directions 0, 2, 4, 6: +1, +N, +N+1, 1-N
            for k in range(1, up + 1):
                _flip_disc(lines, base, a + k * step)
            for k in range(1, down + 1):
                _flip_disc(lines, base, a - k * step)
        _place_disc(lines, me, base, a)
        count -= 1
        b = frontier[count]
        i = where[a]
        frontier[i] = b
        where[b] = i
        where[a] = TAKEN
        for d in range(8):  # branch-free: an off-board neighbour is the always-taken cell nn
            t = NEIGHBOURS[nbase + 8 * a + d]
            w = where[t]
            new = w == FREE
            frontier[count] = t
            where[t] = count if new else w
            count += new
        seat = 1 - seat
        ply += 1
        last = a
    for r in range(n):
        word = np.int64(lines[r])
        for c in range(n):
            s[C.HEADER + r * n + c] = 1 if (word >> c) & 1 else 2 if (word >> (32 + c)) & 1 else 0
    _write_back(s, p, seat, ply, last)


@njit(cache=True, forceinline=False)  # not the flag of its forceinline caller ``_word_playout``
def _write_back(s, p, seat, ply, last):
    """Finish a playout whose final cells are in ``s``: the counts, hash, seat, ply and last move,
    then ``setup`` for the bitboards and the end."""
    n = p[P_SIZE]
    x = C.HEADER + n * n
    black = white = 0
    h = SIDE_KEY if seat == 1 else np.int64(0)
    for cell in range(n * n):
        v = s[C.HEADER + cell]
        if v:
            h ^= ZOBRIST[2 * cell + v - 1]
            if v == 1:
                black += 1
            else:
                white += 1
    s[x + S_COUNT] = black
    s[x + S_COUNT + 1] = white
    s[C.H_HASH] = h
    s[C.H_PLAYER] = seat
    s[C.H_PLY] = ply
    s[C.H_LAST] = last
    setup(s, p)


@njit(cache=True)
def random_playout(s, p, rng, moves):
    """Finish the game in ``s`` with uniformly random legal moves (random playouts, MCTS
    rollouts): the same distribution as drawing from ``legal_actions`` every ply, and the same
    final state as ``apply`` would leave. ``moves`` (N*N + 1 long) is scratch."""
    if s[C.H_STATUS] != C.ONGOING:
        return
    if p[P_FAST]:
        _one_word_playout(s, p, rng)
    else:
        _line_playout(s, p, rng, moves)


@njit(cache=True)
def validate(s, p):
    """0 if ``s`` is a consistent Othello state, else ``C.error(code, cell)`` (invariants in the
    module docstring, codes in ``STATE_ERRORS``). The primary fields (cells, seat, ply) are
    checked by value; everything derived from them is rebuilt on a copy by ``setup`` (which reads
    only checked cells) and compared cell by cell."""
    e = C.check_header(s, p)
    if e:
        return e
    n = p[P_SIZE]
    nn = n * n
    x = C.HEADER + nn
    black = white = 0
    h = SIDE_KEY if s[C.H_PLAYER] == 1 else np.int64(0)
    for i in range(nn):
        v = s[C.HEADER + i]
        if v < 0 or v > 2:
            return C.error(E_CELL, C.HEADER + i)
        if v == 1:
            black += 1
        elif v == 2:
            white += 1
        if v:
            h ^= ZOBRIST[2 * i + v - 1]
    m = n // 2
    for r in range(m - 1, m + 1):
        for c in range(m - 1, m + 1):
            if s[C.HEADER + r * n + c] == 0:
                return C.error(E_CENTRE, C.HEADER + r * n + c)
    if s[x + S_COUNT] != black:
        return C.error(E_COUNT, x + S_COUNT)
    if s[x + S_COUNT + 1] != white:
        return C.error(E_COUNT, x + S_COUNT + 1)
    ply = s[C.H_PLY]
    if ply % 2 != s[C.H_PLAYER]:
        return C.error(E_TURN, C.H_PLAYER)
    placements = black + white - 4
    if ply < placements or ply > 2 * placements:
        return C.error(E_PLY, C.H_PLY)
    if h != s[C.H_HASH]:
        return C.error(E_HASH, C.H_HASH)
    last = s[C.H_LAST]
    if 0 <= last < nn and s[C.HEADER + last] != 2 - s[C.H_PLAYER]:
        return C.error(E_LAST, C.H_LAST)
    t = s.copy()
    t[C.H_STATUS] = C.ONGOING
    t[C.H_WINNER] = C.NO_WINNER
    t[C.H_REASON] = 0
    setup(t, p)
    for i in range(x + S_BITS, s.shape[0]):
        if t[i] != s[i]:
            return C.error(E_DERIVED, i)
    for i in (C.H_STATUS, C.H_WINNER, C.H_REASON):
        if t[i] != s[i]:
            return C.error(E_END, i)
    return 0


@njit(cache=True)
def encode(s, p, seat, legal, n_legal, out):
    """Observation of ``seat`` (see the game's docstring): own stones, the opponent's, to-move."""
    n = p[P_SIZE]
    C.encode_stones(s, seat, n * n, out)
