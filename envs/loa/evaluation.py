"""Lines of Action evaluation with Winands' features, over the kernel's bitboards.

For each side, with n pieces and centre of mass (CoM) at the mean row and column:

  concentration   -(sum of Chebyshev distances to the CoM minus the least possible sum for n
                  pieces) / n: the sole goal is to bring every piece together
  centralisation  mean piece-square value (centre squares high, edges low, corners lowest)
  CoM position    Chebyshev distance of the CoM from the board centre, in squares (Winands: a
                  group gathering near an edge is harder for the opponent to break up)
  quads           2x2 blocks holding three or four own pieces within two squares of the CoM
                  (such blocks cannot be cut apart)
  mobility        moves, a capture counting 2 and a move onto an edge 1/2, divided by 8
  uniformity      -(area of the bounding rectangle) / 16
  connectedness   mean number of own pieces among a piece's eight neighbours

The value is sum of weight * (own feature - opponent's feature), times 100 as an integer.

The features are computed on bitboards without a per-piece move walk: sums over pieces are
popcounts of masks, quads one 3-of-4 bit test over all blocks, and mobility a table lookup per
line (``mobility``); only the distances to the CoM loop over the pieces. Every feature equals its
per-piece definition above exactly (same integers, same floating-point operations).
``WEIGHTS`` are hand-set in Winands' order of importance; a self-play fit of all seven
(``python examples/tune_loa.py``, logistic regression on game results) played level
with them, so they stay (``docs/loa_weights.md``).
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from ..core import kernel as C
from ..core import rng as R
from . import _kernel as K

FEATURES = ("concentration", "centralisation", "com_position", "quads", "mobility", "uniformity", "connectedness")
WEIGHTS = np.array([6.0, 2.0, 0.25, 2.0, 3.0, 1.0, 1.0], dtype=np.float64)
TEMPO = 10  # the side to move is a tempo ahead


def _signed(x):
    return K._signed(x & ((1 << 64) - 1))


def _bit_tables():
    """Piece-square values, least distance sums, and the masks that turn the per-piece sums of
    ``features`` into popcounts: PST_MASK[i] holds the squares worth PST_VALUE[i]; ROW_BIT[b]
    (COL_BIT[b]) the squares whose row (column) has bit b set; WINDOW[r*8 + c] the top-left
    corners of the 2x2 blocks within two squares of a centre of mass in square (r, c)."""
    pst = np.zeros(64, dtype=np.int64)
    row_bit, col_bit = [0, 0, 0], [0, 0, 0]
    for r in range(8):
        for c in range(8):
            ring = max(abs(2 * r - 7), abs(2 * c - 7)) // 2  # 0 centre .. 3 edge
            corner = (r in (0, 7)) and (c in (0, 7))
            pst[r * 8 + c] = (4, 3, 1, -1)[ring] - 2 * corner
            for b in range(3):
                row_bit[b] |= ((r >> b) & 1) << (r * 8 + c)
                col_bit[b] |= ((c >> b) & 1) << (r * 8 + c)
    values = np.unique(pst)
    masks = [sum(1 << i for i in range(64) if pst[i] == v) for v in values]
    window = np.zeros(64, dtype=np.int64)
    for r in range(8):
        for c in range(8):
            rows = range(max(0, r - 2), min(7, r + 3))
            cols = range(max(0, c - 2), min(7, c + 3))
            window[r * 8 + c] = _signed(sum(1 << (rr * 8 + cc) for rr in rows for cc in cols))
    # least sum of distances to the CoM for n pieces: one at the centre, 8 at 1, 16 at 2, ...
    least = np.zeros(13, dtype=np.int64)
    for n in range(1, 13):
        k = n - 1
        total, ring = 0, 1
        while k > 0:
            take = min(k, 8 * ring)
            total += take * ring
            k -= take
            ring += 1
        least[n] = total
    return (
        pst,
        values.astype(np.int64),
        np.array([_signed(m) for m in masks], dtype=np.int64),
        np.array([_signed(m) for m in row_bit], dtype=np.int64),
        np.array([_signed(m) for m in col_bit], dtype=np.int64),
        window,
        least,
    )


PST, PST_VALUE, PST_MASK, ROW_BIT, COL_BIT, WINDOW, LEAST = _bit_tables()
FILE_A = K.FILE_A
NOT_A, NOT_H, LOW56 = K.NOT_A, K.NOT_H, K.LOW56

# -- mobility, one line at a time ----------------------------------------------------------------
# A piece moves along a line exactly as many squares as the line holds pieces, so the moves along
# a line depend on that line's contents only. Each of the kernel's 46 lines is gathered into a
# byte per colour (one multiply), the pair is read as a base-3 number (own 1, opponent 2) and a
# table gives the half-move mobility of both colours along that line. The sum over the lines is
# the sum over every (piece, direction) pair of the per-piece definition.


def _line_gathers():
    """For line i (the kernel's numbering): byte = ((bb >> PRE[i]) & MASK[i]) * MUL[i] >> 56
    (the line's squares in the low bits, by column, or by row for a column), then >> LO[i] so
    that its first square is bit 0; KIND[i] is the line's row of ``LINE_MOBILITY``."""
    pre, mask, mul, lo, kind = [], [], [], [], []
    for i in range(K.NUM_LINES):
        if i < 16:  # columns a..h, then rows 0..7: full lines, on the edge or with edge ends
            k = i % 8
            pre.append(k if i < 8 else 8 * k)
            mask.append(FILE_A if i < 8 else 0xFF)
            mul.append(K.ROW_GATHER if i < 8 else 1 << 56)
            lo.append(0)
            kind.append(9 if k in (0, 7) else 8)
            continue
        cells = [
            r * 8 + c
            for r in range(8)
            for c in range(8)
            if (i < 31 and r + c == i - 16) or (i >= 31 and r - c + 7 == i - 31)
        ]
        cols = [cell % 8 for cell in cells]
        pre.append(0)
        mask.append(sum(1 << cell for cell in cells))
        mul.append(FILE_A)
        lo.append(min(cols))
        kind.append(len(cells))
    as_i64 = lambda xs: np.array([_signed(x) for x in xs], dtype=np.int64)
    return as_i64(pre), as_i64(mask), as_i64(mul), as_i64(lo), as_i64(kind)


def _line_mobility():
    """LINE_MOBILITY[kind, T3[own] + 2 * T3[opp]]: half-move mobility along a line of the pieces
    coded 1 (low byte) and 2 (high byte), for a line of ``kind`` squares whose two ends are edge
    squares (1..8) or a line along the edge (9). Built with numpy over all 3**8 contents, every
    piece of a content at once (a content of a shorter line leaves the squares past it empty)."""
    code = np.arange(3**8)
    cells = ((code[:, None] // 3 ** np.arange(8)) % 3).astype(np.int8)  # 0 empty, 1 own, 2 opp
    count = (cells > 0).sum(axis=1, keepdims=True, dtype=np.int8)  # distance every piece moves
    square = np.arange(8, dtype=np.int8)
    table = np.zeros((10, 3**8), dtype=np.int64)
    for side in (1, 2):
        for step in (1, -1):
            target = square + step * count  # [content, start]
            lands = np.take_along_axis(cells, np.clip(target, 0, 7), axis=1)
            ok = (cells == side) & (lands != side)
            for j in range(1, 8):  # no opponent piece strictly between start and target
                ahead = np.zeros_like(ok)
                if step > 0:
                    ahead[:, : 8 - j] = cells[:, j:] == 3 - side
                else:
                    ahead[:, j:] = cells[:, : 8 - j] == 3 - side
                ok &= (j >= count) | ~ahead
            worth = (2 + 2 * (lands == 3 - side)).astype(np.int8)
            for kind in range(1, 10):
                length = min(kind, 8)
                on = ok & (target >= 0) & (target < length)
                edge = (kind == 9) | (target == 0) | (target == length - 1)
                gain = np.where(on, worth - edge, 0).sum(axis=1, dtype=np.int64)
                table[kind] += gain << (8 * (side - 1))
    return table.astype(np.int16)


def _base3():
    """T3[b]: the byte b read as base-3 digits (bit i is digit i)."""
    return np.array([sum(3**i for i in range(8) if (b >> i) & 1) for b in range(256)], dtype=np.int64)


LINE_PRE, LINE_MASK, LINE_MUL, LINE_LO, LINE_KIND = _line_gathers()
LINE_MOBILITY = _line_mobility()
T3 = _base3()


@njit(cache=True)
def mobility(s, seat):
    """Half-move mobility (a capture counts 4, a move onto an edge 1, another move 2) of
    ``seat`` and of its opponent, line by line (see above)."""
    own = s[K.S_BB + seat]
    opp = s[K.S_BB + 1 - seat]
    mine = 0
    theirs = 0
    for i in range(K.NUM_LINES):
        pre, mask, mul, lo = LINE_PRE[i], LINE_MASK[i], LINE_MUL[i], LINE_LO[i]
        a = (((((own >> pre) & mask) * mul) >> 56) & 0xFF) >> lo
        b = (((((opp >> pre) & mask) * mul) >> 56) & 0xFF) >> lo
        entry = LINE_MOBILITY[LINE_KIND[i], T3[a] + 2 * T3[b]]
        mine += entry & 0xFF
        theirs += entry >> 8
    return mine, theirs


# -- the other features, as popcounts --------------------------------------------------------------


@njit(cache=True)
def _weighted_sum(bb, masks):
    """Sum over the pieces of ``bb`` of their index bits: sum_b 2**b * popcount(bb & masks[b])."""
    return C.popcount(bb & masks[0]) + 2 * C.popcount(bb & masks[1]) + 4 * C.popcount(bb & masks[2])


@njit(cache=True)
def _pairs(own):
    """Adjacent pairs of pieces (each pair once, in the E, S, SE and SW directions)."""
    return (
        C.popcount(own & (own >> 1) & NOT_H)
        + C.popcount(own & (own >> 8) & LOW56)
        + C.popcount(own & (own >> 9) & NOT_H & LOW56)
        + C.popcount(own & (own >> 7) & NOT_A & LOW56)
    )


@njit(cache=True)
def _quads(own, cr, cc):
    """2x2 blocks with three or four pieces whose top-left square is within two of (cr, cc)."""
    a = own
    b = (own >> 1) & NOT_H
    c = (own >> 8) & LOW56
    d = (own >> 9) & NOT_H & LOW56
    three = (a & b & (c | d)) | (c & d & (a | b))
    return C.popcount(three & WINDOW[int(cr) * 8 + int(cc)])


@njit(cache=True)
def _static_features(s, seat, out):
    """All features but mobility (``out[4]`` is left alone); see the module docstring."""
    own = s[K.S_BB + seat]
    n = C.popcount(own)
    if n == 0:
        out[:] = 0.0
        return
    cr = _weighted_sum(own, ROW_BIT) / n
    cc = _weighted_sum(own, COL_BIT) / n
    central = 0
    for i in range(PST_VALUE.shape[0]):
        central += PST_VALUE[i] * C.popcount(own & PST_MASK[i])
    cols = own | (own >> 32)
    cols |= cols >> 16
    cols = (cols | (cols >> 8)) & 0xFF
    rmin, rmax = trailing_zeros(own) >> 3, (63 - leading_zeros(own)) >> 3
    cmin, cmax = trailing_zeros(cols), 63 - leading_zeros(cols)
    dist = 0
    rest = own
    while rest != 0:
        cell = K._lowest_cell(rest)
        rest &= rest - 1
        dist += int(max(abs(cell // 8 - cr), abs(cell % 8 - cc)) + 0.5)
    out[0] = -(dist - LEAST[min(n, 12)]) / n
    out[1] = central / n
    out[2] = max(abs(cr - 3.5), abs(cc - 3.5))
    out[3] = _quads(own, cr, cc)
    out[5] = -(rmax - rmin + 1) * (cmax - cmin + 1) / 16.0
    out[6] = 2 * _pairs(own) / n


@njit(cache=True)
def features(s, seat, out):
    """Write the seven features of ``seat`` into ``out`` (see the module docstring)."""
    _static_features(s, seat, out)
    if s[K.S_BB + seat] != 0:
        out[4] = mobility(s, seat)[0] / 16.0


@njit(cache=True)
def evaluate(s, p, w):
    me = s[C.H_PLAYER]
    mine = np.empty(7, dtype=np.float64)
    theirs = np.empty(7, dtype=np.float64)
    _static_features(s, me, mine)
    _static_features(s, 1 - me, theirs)
    mob_mine, mob_theirs = mobility(s, me)
    if s[K.S_BB + me] != 0:
        mine[4] = mob_mine / 16.0
    if s[K.S_BB + 1 - me] != 0:
        theirs[4] = mob_theirs / 16.0
    value = 0.0
    for i in range(7):
        value += w[i] * (mine[i] - theirs[i])
    return np.int64(100.0 * value) + TEMPO


@njit(cache=True)
def live_length(s):
    """Cells up to the last recorded hash: the kernel reads (and appends to) no history beyond."""
    return K.S_HIST + s[K.S_NHIST]


@njit(cache=True)
def hint(s, p, a):
    """Centre first (Winands: random ordering was 3x slower), captures before quiet moves."""
    if a == K.PASS:
        return -1000
    cell = a // 8
    t = K.TARGET[K._move_key(s, cell, a % 8)]
    capture = (s[K.S_BB + 1 - s[C.H_PLAYER]] >> t) & 1
    return 4 * (PST[t] - PST[cell]) + 6 * capture


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Greedy score: the evaluation of the position after the move, from the mover's view."""
    v = np.float64(evaluate(child, p, w))
    return v if child[C.H_PLAYER] == s[C.H_PLAYER] else -v


# -- prior knowledge for MCTS's tree ---------------------------------------------------------------
# A new node's children start from the evaluation of the position after each move (the greedy
# player's score), as PRIOR_VISITS virtual simulations of mean 1 / (1 + exp(-v / PRIOR_SCALE)):
# the search tries the moves the evaluation likes first and soon trusts its own playouts
# (progressive bias, which MC-LOA takes from its move categories, here from the evaluation).
PRIOR_VISITS = 10.0
PRIOR_SCALE = 300.0  # evaluation (x100, mover's view) of a prior of 1 / (1 + e^-1), about 0.73


@njit(cache=True, inline="always")
def priors(s, p, moves, n, out):
    """Prior knowledge of the ``n`` legal ``moves`` of ``s`` for a new MCTS node: virtual
    simulations into ``out[i, 0]``, their mean value for the mover into ``out[i, 1]`` (above; a
    move that ends the game counts as its result)."""
    child = np.empty_like(s)
    live = live_length(s)
    me = s[C.H_PLAYER]
    for i in range(n):
        C.copy(child, s, live)
        K.apply(child, p, moves[i])
        if child[C.H_STATUS] != C.ONGOING:
            w = child[C.H_WINNER]
            mean = 0.5 if w == C.NO_WINNER else (1.0 if w == me else 0.0)
        else:
            v = np.float64(evaluate(child, p, WEIGHTS))
            mean = 1.0 / (1.0 + np.exp((v if child[C.H_PLAYER] != me else -v) / PRIOR_SCALE))
        out[i, 0] = PRIOR_VISITS
        out[i, 1] = mean


# -- MCTS playouts with the evaluation (MC-LOA) ----------------------------------------------------
# Winands and Bjornsson's MC-LOA: uniformly random LOA playouts are long and say little, so the
# playout moves are drawn with weights from the move-ordering knowledge (towards the centre,
# captures first), and the playout stops as soon as the evaluation is decisive for one side
# (the evaluation cut-off): that side is scored the winner. A playout still undecided after
# ``PLAYOUT_PLIES`` plies goes to the side the evaluation favours.

PLAYOUTS = ("random", "evaluation")  # the spec's playout names; code = index
EVALUATION = 1
CUTOFF = 700  # |evaluation| (side to move, x100) that decides a playout
PLAYOUT_PLIES = 12  # the longest playout before the evaluation's sign decides
MOVE_BASE = 12  # a playout move's weight is MOVE_BASE + its ``hint``, at least 1


@njit(cache=True)
def _weighted_move(s, p, rng, moves):
    """A legal move of ongoing ``s`` drawn with weight ``MOVE_BASE + hint`` (at least 1)."""
    n = K.legal_actions(s, p, moves)
    if n == 1:
        return moves[0]
    weights = np.empty(n, dtype=np.int64)
    total = 0
    for i in range(n):
        weights[i] = max(1, MOVE_BASE + hint(s, p, moves[i]))
        total += weights[i]
    x = R.randint(rng, total)
    for i in range(n):
        x -= weights[i]
        if x < 0:
            return moves[i]
    return moves[n - 1]


@njit(cache=True)
def _decide(s, winner):
    """End the playout's scratch position as won by ``winner`` (MCTS reads only the winner)."""
    C.finish(s, winner, K.CONNECTED)


@njit(cache=True)
def playout(s, p, rng, moves, policy):
    """Finish ``s`` with a LOA playout policy: EVALUATION (above: weighted moves, the evaluation
    cut-off, the evaluation's sign after ``PLAYOUT_PLIES``) or uniformly random moves (the
    kernel's own random playout)."""
    if policy != EVALUATION:
        while s[C.H_STATUS] == C.ONGOING:
            n = K.legal_actions(s, p, moves)
            K.apply(s, p, moves[R.randint(rng, n)])
        return
    for _ in range(PLAYOUT_PLIES):
        if s[C.H_STATUS] != C.ONGOING:
            return
        K.apply(s, p, _weighted_move(s, p, rng, moves))
        if s[C.H_STATUS] != C.ONGOING:
            return
        v = evaluate(s, p, WEIGHTS)
        if v >= CUTOFF:
            _decide(s, s[C.H_PLAYER])
            return
        if v <= -CUTOFF:
            _decide(s, 1 - s[C.H_PLAYER])
            return
    v = evaluate(s, p, WEIGHTS)
    if v > 0:
        _decide(s, s[C.H_PLAYER])
    elif v < 0:
        _decide(s, 1 - s[C.H_PLAYER])
    else:
        C.finish(s, C.NO_WINNER, K.MAX_MOVES)
