"""Exact Othello endgame solver: final scores by the world rules under perfect play.

Late in the game the static evaluation is the weakest part of a search: the outcome is decided by
who gets the last moves in each region, which no evaluation sees. With few empty squares left
the game tree is small enough to search to the end, so ``solve`` (the game's ``solve`` hook,
called by alpha-beta when a position has at most its ``endgame`` limit of empties) returns the
exact result instead.

Scores count by the World Othello Federation's rules, as the FFO test suite and every Othello
program do: the final disc difference, with the empty squares of a game that ends before the
board is full given to the winner (a win by 33-30 with one empty square scores +4, not +3).

The 8x8 board (``_search``, below) is one 64-bit word per side, bit ``8*r + c`` (a1 = bit 0,
the top-left corner, h8 = bit 63)::

         a  b  c  d  e  f  g  h
      1  0  1  2  3  4  5  6  7        quadrants (region parity):
      2  8  9 10 11 12 13 14 15          0: a1-d4   1: e1-h4
      3 16 17 18 19 20 21 22 23          2: a5-d8   3: e5-h8
      4 24 25 26 27 28 29 30 31
      5 32 33 34 35 36 37 38 39        shifts: +1 east, +8 south,
      6 40 41 42 43 44 45 46 47                +9 south-east, +7 south-west
      7 48 49 50 51 52 53 54 55
      8 56 57 58 59 60 61 62 63

A node is two words, the mover's discs ``own`` and the opponent's ``opp``: a move is ``own | flips |
square`` and ``opp & ~flips`` with the sides swapped, nothing to undo. What makes it fast is what
every strong solver does, layer by layer from the root:

  * **null windows**: every node searches its first move with its window and the others with a
    null window above the best so far (PVS), re-searching only a move that beats it. ``solve``
    asks only win, draw or loss (a window around a draw), far cheaper than the score; the exact
    score (``exact``; a lost game's margin) is found by MTD(f): searches whose window admits one
    score each (every final score is even), from below: failing high is cheap far below the
    value, failing low costs a full search wherever it is (``_mtd``). ``exact`` starts it at a
    first guess, a 6-ply search over the fitted pattern evaluation (``_first_guess``), which
    lands within a few discs and usually below the value (FFO #44, -14: guessed -14);
  * **a transposition table** (``TT_MIN_EMPTIES`` empties and more) keyed by both words, so a
    hit is never a collision, three positions to a 64-byte bucket (one cache line a probe;
    ``exact``'s table in huge pages, ``table_of``, and a frame prefetches its children's
    buckets as it lists them); a position's exact value does not depend on the path, so bounds
    from any earlier search (a win/loss search before the exact one) stay valid;
  * **enhanced transposition cut-offs** (``ETC_MIN_EMPTIES`` and more): before searching any
    child, the table is asked whether one of them is already known to refute the window;
  * **stability cut-offs**: discs the opponent can never lose cap the mover's best final score
    at ``64 - 2 * stable``; when that is at most alpha the node fails low unsearched;
  * **move ordering**: the table's best move first; then, with ``SORT_MIN_EMPTIES`` empties and
    more, by a shallow alpha-beta search of each child (``_probe1`` to ``_probe4``: one to four
    plies over a mobility evaluation, deeper with more empties); in ``exact``, from
    ``PATTERN_EMPTIES`` up, by a 2- to 4-ply search over the fitted pattern evaluation of
    ``patterns.py`` instead (``_pattern_probe``; each group read off the two words in the
    board's eight orientations, ``_pattern_sum``, about 170 ns an evaluation), below alpha
    less ``SORT_MARGIN`` discs (a worse move need not be ordered exactly); ``solve``, which
    alpha-beta calls in its games, keeps the mobility search. Each node of these searches
    with two plies or more left tries first the move that leaves the fewest replies
    (``_fastest``), so the rest meet a window; in a full window the value, so the key, is
    the same in any order; below ``SORT_MIN_EMPTIES`` **fastest first** (the moves that
    leave the opponent fewest replies, corners counted twice, first: a cut-off comes sooner
    where the opponent has few options; in ``exact`` the mover's corner-stable discs,
    ``_corner_stability``, weigh a sixteenth of a reply), with odd quadrants first among
    equals;
  * **parity** in the last ``SHALLOW_EMPTIES`` squares, solved by straight-line code
    (``_shallow``, ``_solve7`` down to ``_small`` and ``_solve2``: no table, no move list, no
    frame): moves into quadrants with an odd number of empties first (the side that plays last
    in a region gains from it), where counting replies would cost more than it saves. Most
    nodes are here (nine in ten), at about 35 ns each against 0.6 us for a frame's.

The tree is walked over an explicit stack of frames (``_search`` and ``_walk``), not by
recursion: numba cannot link a recursive function loaded from its disk cache into a caller
compiled later.
Boards smaller than 8x8 (6x6) keep the size-generic search over the kernel's one-word move
generator (``_general_search``), with the same ordering ideas and no table: their trees are
small.
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

from ..core import kernel as C
from . import _kernel as K
from . import patterns as PT

SOLVED, NOT_SOLVED, OUT_OF_TIME = 1, 0, -1
ONE = np.uint64(1)
ZERO = np.uint64(0)
PASS = 64  # the pass on 8x8 (action N*N)
SCORE_MAX = 64

SMALL_EMPTIES = 5  # from here down: solved in one call, no frame, region parity (``_small``)
SHALLOW_EMPTIES = 7  # from here down: no frame, no table, parity order (``_shallow``)
TT_MIN_EMPTIES = 8  # the table is probed and stored from here up (every frame)
ETC_MIN_EMPTIES = 10  # enhanced transposition cut-offs from here up
SORT_MIN_EMPTIES = 12  # children ordered by a shallow search from here up: one ply,
SORT_DEEPER_EMPTIES = 14  # two plies from here up,
SORT_DEEPEST_EMPTIES = 17  # three from here up,
SORT_FOUR_EMPTIES = 20  # four from here up
PATTERN_EMPTIES = 20  # with a pattern table (``exact``): its search orders from here up instead,
PATTERN_DEEPER_EMPTIES = 22  # two plies at PATTERN_EMPTIES, three from here up,
PATTERN_DEEPEST_EMPTIES = 25  # four from here up
SORT_MARGIN = 8  # the pattern search orders exactly only moves above alpha - SORT_MARGIN discs
GUESS_PLIES = 6  # the pattern search that gives MTD(f) its first score (``_first_guess``)
PATTERN_WEIGHT = 10  # its key per hundredth of a disc (a disc weighs about one reply less)
CORNER_STABLE_WEIGHT = 64  # with a pattern table (``exact``), a key per corner-stable disc of the
# mover's after the move: a sixteenth of one reply less, as Edax weighs it
PROBE_INF = 1 << 20  # beyond any probe's value
TT_BITS = 20  # largest table ``solve`` allocates: 1.5 * 2**20 positions (32 MB)
# The time rule of ``solve`` on a clock: a position with e empties is solved only when
# WLD_SECONDS * 2**(e - WLD_EMPTIES) seconds are left (2.6 s at 22). A win/draw/loss search of a
# hard position (FFO #41, a draw at 22 empties) took about 2.3 s of CPU on this project's shared
# 2-core machine when the rule was set; it now takes about 1.3 s (23 million nodes), and the cost
# about doubles with each empty square (the FFO #40-#59 table, docs/benchmarks.md). The rule
# keeps its start all the same: starting one empty square earlier changes what the default
# alpha-beta plays, and that lands only with an SPRT of the new default against the old, which
# it has not passed (undecided after 67 colour pairs at 0.2 s a move, docs/strength.md). Easier
# positions take far less; the rule errs towards not starting.
WLD_SECONDS, WLD_EMPTIES = 1.3, 21
CHECK_NODES = 4096  # nodes between two looks at the clock


# -- tables built once at import ----------------------------------------------------------------
def _u64(x):
    return np.uint64(x & 0xFFFFFFFFFFFFFFFF)


def _rays():
    """RAYS[sq, d]: the squares from ``sq`` (excluded) to the board's edge in direction d; the
    first four directions run to higher bits (east, south-west, south, south-east), the last
    four to lower bits. A square's eight rays lie side by side, two vectors' worth
    (``_ray_flips``)."""
    steps = ((0, 1), (1, -1), (1, 0), (1, 1), (0, -1), (-1, 1), (-1, 0), (-1, -1))
    rays = np.zeros((64, 8), dtype=np.uint64)
    for d, (dr, dc) in enumerate(steps):
        for sq in range(64):
            r, c, bits = sq // 8 + dr, sq % 8 + dc, 0
            while 0 <= r < 8 and 0 <= c < 8:
                bits |= 1 << (8 * r + c)
                r, c = r + dr, c + dc
            rays[sq, d] = _u64(bits)
    return rays


def _neighbours():
    """NEIGHBOURS[sq]: the up to 8 squares next to ``sq`` (a move must flip one of them)."""
    out = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        bits = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                r, c = sq // 8 + dr, sq % 8 + dc
                if (dr or dc) and 0 <= r < 8 and 0 <= c < 8:
                    bits |= 1 << (8 * r + c)
        out[sq] = _u64(bits)
    return out


def _quadrants():
    """QUADRANT_BIT[sq] (1 << quadrant) and ODD_SQUARES[parity]: the squares of the quadrants
    whose bits are set in the 4-bit ``parity``."""
    bit = np.zeros(64, dtype=np.int64)
    masks = [0] * 4
    for sq in range(64):
        q = 2 * (sq // 8 >= 4) + (sq % 8 >= 4)
        bit[sq] = 1 << q
        masks[q] |= 1 << sq
    odd = np.zeros(16, dtype=np.uint64)
    for parity in range(16):
        odd[parity] = _u64(sum(masks[q] for q in range(4) if parity >> q & 1))
    return bit, odd


def _diagonals():
    """The 15 diagonals of each direction, as masks (for full-line tests)."""
    d9, d7 = [0] * 15, [0] * 15
    for sq in range(64):
        r, c = divmod(sq, 8)
        d9[r - c + 7] |= 1 << sq
        d7[r + c] |= 1 << sq
    return np.array([_u64(m) for m in d9 + d7], dtype=np.uint64)


def _edge_stability():
    """EDGE_STABLE[p * 256 + o]: the discs of ``p`` on an 8-square edge (bits 0..7, ``o`` the
    opponent's) that no sequence of placements on that edge can flip.

    A disc on an edge can be flipped only along the edge, so its stability is a property of the
    edge line alone; any empty edge square may be taken by either side in any order (legality
    depends on the rest of the board, so every placement is assumed possible). Built bottom-up
    from full lines: the stable set of a line is its owner's discs that stay theirs in every
    line one placement away.
    """
    table = np.zeros(65536, dtype=np.uint8)
    lines = [(p, o) for p in range(256) for o in range(256) if not p & o]
    lines.sort(key=lambda po: -bin(po[0] | po[1]).count("1"))  # fuller lines first
    for p, o in lines:
        stable = p
        empty = ~(p | o) & 0xFF
        for x in range(8):
            if not empty >> x & 1:
                continue
            for mover in (0, 1):
                me, you = (p, o) if mover == 0 else (o, p)
                flips = 0
                for step in (1, -1):
                    run, y = 0, x + step
                    while 0 <= y < 8 and you >> y & 1:
                        run |= 1 << y
                        y += step
                    if 0 <= y < 8 and me >> y & 1:
                        flips |= run
                me, you = me | flips | (1 << x), you & ~flips
                child_p, child_o = (me, you) if mover == 0 else (you, me)
                stable &= int(table[child_p * 256 + child_o])
                if not stable:
                    break
            if not stable:
                break
        table[p * 256 + o] = stable
    return table


def _count_flip():
    """COUNT_FLIP[x * 256 + p]: the discs a placement at ``x`` flips on a full line of 8 squares
    whose mover's discs are the bits of ``p`` (bit ``x`` ignored, every other square the
    opponent's). A line shorter than 8 read as a byte has zeros past its ends, which read as the
    opponent's and flip nothing: a run that reaches the edge without the mover's disc."""
    table = np.zeros(8 * 256, dtype=np.int64)
    for x in range(8):
        for p in range(256):
            n = 0
            for step in (1, -1):
                run, y = 0, x + step
                while 0 <= y < 8 and not p >> y & 1:
                    run, y = run + 1, y + step
                if 0 <= y < 8:
                    n += run
            table[x * 256 + p] = n
    return table


def _line_masks():
    """LINE_9[sq], LINE_7[sq]: the diagonal (a1-h8 direction) and the anti-diagonal through ``sq``."""
    d9 = np.zeros(64, dtype=np.uint64)
    d7 = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        r, c = divmod(sq, 8)
        for t in range(64):
            if t // 8 - t % 8 == r - c:
                d9[sq] |= np.uint64(1 << t)
            if t // 8 + t % 8 == r + c:
                d7[sq] |= np.uint64(1 << t)
    return d9, d7


RAYS = _rays()
COUNT_FLIP = _count_flip()
LINE_9, LINE_7 = _line_masks()
NEIGHBOURS = _neighbours()
QUADRANT_BIT, ODD_SQUARES = _quadrants()
QUADRANT_0, QUADRANT_1 = np.uint64(0x000000000F0F0F0F), np.uint64(0x00000000F0F0F0F0)  # a1-d4, e1-h4
QUADRANT_2, QUADRANT_3 = np.uint64(0x0F0F0F0F00000000), np.uint64(0xF0F0F0F000000000)  # a5-d8, e5-h8
DIAGONALS = _diagonals()
EDGE_STABLE = _edge_stability()
CORNERS = np.uint64(0x8100000000000081)
INNER = np.uint64(0x007E7E7E7E7E7E00)  # squares off every edge
NOT_A = np.uint64(0x7E7E7E7E7E7E7E7E)  # masks a horizontal or diagonal shift to columns b-g
COLUMN_A = np.uint64(0x0101010101010101)
PACK_COLUMN = np.uint64(0x0102040810204080)  # column a (bits 0, 8, .. 56) -> one byte, times this
UNPACK_COLUMN = np.array([_u64(sum(1 << (8 * k) for k in range(8) if b >> k & 1)) for b in range(256)], dtype=np.uint64)


# -- bitboard primitives ------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _count(x):
    """Set bits of a uint64 (LLVM makes it one popcnt)."""
    n = 0
    while x:
        x &= x - ONE
        n += 1
    return n


# -- vector helpers for the intrinsics below (LLVM IR: four 64-bit lanes) ------------------------
WORD = ir.IntType(64)
QUAD = ir.VectorType(WORD, 4)


def _splat(builder, x):
    """A word in all four lanes."""
    first = builder.insert_element(ir.Constant(QUAD, ir.Undefined), x, ir.IntType(32)(0))
    return builder.shuffle_vector(
        first, ir.Constant(QUAD, ir.Undefined), ir.Constant(ir.VectorType(ir.IntType(32), 4), [0] * 4)
    )


def _lanes(*values):
    """A constant vector: one value in every lane, or one per lane."""
    return ir.Constant(QUAD, list(values) * 4 if len(values) == 1 else list(values))


def _or_lanes(builder, v):
    """The four lanes OR-ed into one word."""
    reduce_or = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(WORD, [QUAD]), "llvm.vector.reduce.or.v4i64"
    )
    return builder.call(reduce_or, [v])


@intrinsic
def _fill_moves(typingctx, own, opp):
    """Squares where ``own`` can place against ``opp``, the four directions at once in vectors of
    four 64-bit lanes (shifts 1, 8, 7 and 9, each both ways): from ``own``, a Kogge-Stone fill
    over the runs of ``opp`` discs (up to 6 in four steps), then one step onto the square. The
    horizontal and diagonal runs are masked to columns b-g so a fill never wraps round the
    board's side. Vector code for the reason ``_ray_flips`` gives."""

    def codegen(context, builder, signature, args):
        own, opp = args
        inner = builder.and_(opp, WORD(int(NOT_A)))
        mask = builder.insert_element(_splat(builder, inner), opp, ir.IntType(32)(1))  # shift 8 wraps nowhere
        k, k2 = _lanes(1, 8, 7, 9), _lanes(2, 16, 14, 18)
        own_v = _splat(builder, own)
        left = builder.and_(mask, builder.shl(own_v, k))
        right = builder.and_(mask, builder.lshr(own_v, k))
        left = builder.or_(left, builder.and_(mask, builder.shl(left, k)))
        right = builder.or_(right, builder.and_(mask, builder.lshr(right, k)))
        pre_left = builder.and_(mask, builder.shl(mask, k))
        pre_right = builder.and_(mask, builder.lshr(mask, k))
        for _ in range(2):
            left = builder.or_(left, builder.and_(pre_left, builder.shl(left, k2)))
            right = builder.or_(right, builder.and_(pre_right, builder.lshr(right, k2)))
        reach = _or_lanes(builder, builder.or_(builder.shl(left, k), builder.lshr(right, k)))
        return builder.and_(reach, builder.not_(builder.or_(own, opp)))

    return types.uint64(own, opp), codegen


@njit(cache=True)
def _moves(own, opp):
    """Squares where ``own`` can place against ``opp`` (``_fill_moves``)."""
    return _fill_moves(np.uint64(own), np.uint64(opp))


@intrinsic
def _ray_flips(typingctx, own, opp, sq, rays):
    """The discs a placement at ``sq`` flips, all eight rays at once in two vectors of four
    64-bit lanes (``rays``: ``RAYS``, one square's eight rays side by side).

    The same arithmetic as one ray at a time, lane by lane: towards higher bits the nearest
    square that is not ``opp``'s is the lowest set bit of ``ray & ~opp``; towards lower bits the
    highest, found by counting leading zeros. Written in LLVM's vector operations because numba
    leaves LLVM's SLP vectoriser off: scalar code over the eight rays stays eight times the
    instructions. With AVX2 (variable shifts per lane) and AVX-512 CD (leading zeros per lane)
    each step is one instruction for all four lanes, about 30 in all; on other CPUs LLVM lowers
    the vectors lane by lane, the same result."""

    def codegen(context, builder, signature, args):
        own, opp, square, table = args
        base = builder.gep(
            context.make_array(signature.args[3])(context, builder, table).data, [builder.mul(square, WORD(8))]
        )
        up = builder.load(builder.bitcast(base, QUAD.as_pointer()), align=8)  # rays 0-3
        down = builder.load(builder.bitcast(builder.gep(base, [WORD(4)]), QUAD.as_pointer()), align=8)  # 4-7
        own_v, not_opp = _splat(builder, own), builder.not_(_splat(builder, opp))
        # towards higher bits: the lowest non-opp square, kept when it is own's
        stop = builder.and_(up, not_opp)
        end = builder.and_(builder.and_(stop, builder.neg(stop)), own_v)
        found = builder.zext(builder.icmp_unsigned("!=", end, _lanes(0)), QUAD)
        flips = builder.and_(up, builder.sub(end, found))
        # towards lower bits: the highest non-opp square (bit 0 stands in for none)
        stop = builder.or_(builder.and_(down, not_opp), _lanes(1))
        ctlz = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(QUAD, [QUAD, ir.IntType(1)]), "llvm.ctlz.v4i64"
        )
        top = builder.lshr(_lanes(1 << 63), builder.call(ctlz, [stop, ir.IntType(1)(1)]))
        end = builder.and_(builder.and_(top, own_v), down)
        below = builder.sub(builder.shl(end, _lanes(1)), _lanes(1))  # all ones when no end
        flips = builder.or_(flips, builder.and_(down, builder.not_(below)))
        return _or_lanes(builder, flips)

    return types.uint64(own, opp, sq, rays), codegen


@njit(cache=True)
def _flips(own, opp, sq):
    """The ``opp`` discs a placement of ``own`` at ``sq`` flips: along each ray, the run of ``opp``
    discs up to the first square that is not ``opp``'s, when that square is ``own``'s. Without
    branches (a mispredicted test per ray cost more than the whole ray): a ray that ends on no
    disc of ``own`` gives an empty mask."""
    return _ray_flips(np.uint64(own), np.uint64(opp), np.int64(sq), RAYS)


@njit(cache=True, inline="always")
def _final(own, opp):
    """The world rules' final score for ``own``: disc difference, empty squares to the winner."""
    p, o = _count(own), _count(opp)
    if p > o:
        return SCORE_MAX - 2 * o
    if p < o:
        return 2 * p - SCORE_MAX
    return 0


@njit(cache=True)
def _weighted_mobility(own, opp):
    """Moves of ``own``, corners counted twice."""
    m = _moves(own, opp)
    return _count(m) + _count(m & CORNERS)


@njit(cache=True, inline="always")
def _fastest(own, opp, m):
    """The move of ``m`` (not empty) that leaves the opponent the fewest replies, corners
    counted twice: the first child of a shallow search's node (fastest first). A single move
    is returned without counting its replies."""
    if m & (m - ONE) == ZERO:
        return trailing_zeros(m)
    first, least = -1, 1 << 30
    while m:
        sq = trailing_zeros(m)
        bit = ONE << np.uint64(sq)
        m ^= bit
        f = _flips(own, opp, sq)
        r = _weighted_mobility(opp ^ f, own | f | bit)
        if r < least:
            first, least = sq, r
    return first


@njit(cache=True, inline="always")
def _parity(empty):
    """4-bit region parity: bit q set when quadrant q has an odd number of empty squares (one
    population count a quadrant, not a loop over the empty squares)."""
    return (
        (_count(empty & QUADRANT_0) & 1)
        | (_count(empty & QUADRANT_1) & 1) << 1
        | (_count(empty & QUADRANT_2) & 1) << 2
        | (_count(empty & QUADRANT_3) & 1) << 3
    )


# -- stability ----------------------------------------------------------------------------------
@njit(cache=True)
def _full_lines(occupied):
    """(rows, columns, diagonals 9, diagonals 7): the squares whose line in that direction is
    full (a disc there can never be flipped along it)."""
    h = occupied & (occupied >> ONE)
    h &= h >> np.uint64(2)
    h &= h >> np.uint64(4)
    rows = (h & COLUMN_A) * np.uint64(0xFF)  # bit 8r holds row r's AND, spread over the row
    v = occupied & (occupied >> np.uint64(32))
    v &= v >> np.uint64(16)
    v &= v >> np.uint64(8)
    cols = (v & np.uint64(0xFF)) * COLUMN_A
    d9 = ZERO
    d7 = ZERO
    for i in range(15):
        m = DIAGONALS[i]
        if occupied & m == m:
            d9 |= m
        m = DIAGONALS[15 + i]
        if occupied & m == m:
            d7 |= m
    return rows, cols, d9, d7


@njit(cache=True, inline="always")
def _column(x, shift):
    """Column ``shift`` (0 = a, 7 = h) of ``x`` packed into a byte, row 1 as bit 0."""
    return (((x >> np.uint64(shift)) & COLUMN_A) * PACK_COLUMN) >> np.uint64(56)


@njit(cache=True)
def _edges_stable(own, opp):
    """``own``'s discs on the four edges that stay ``own``'s (``EDGE_STABLE`` per edge line)."""
    b = np.uint64(0xFF)
    top = np.uint64(EDGE_STABLE[(own & b) * np.uint64(256) + (opp & b)])
    s56 = np.uint64(56)
    bottom = np.uint64(EDGE_STABLE[(own >> s56) * np.uint64(256) + (opp >> s56)])
    left = EDGE_STABLE[_column(own, 0) * np.uint64(256) + _column(opp, 0)]
    right = EDGE_STABLE[_column(own, 7) * np.uint64(256) + _column(opp, 7)]
    return top | (bottom << s56) | UNPACK_COLUMN[left] | (UNPACK_COLUMN[right] << np.uint64(7))


@njit(cache=True)
def _stable(own, opp):
    """``own``'s discs that no play can flip (a subset of the true set, as solvers compute it):
    the edge discs stable along their edge, and inner discs that along each of the four axes
    have a full line or a stable neighbour of their own, grown until nothing changes."""
    rows, cols, d9, d7 = _full_lines(own | opp)
    inner = own & INNER
    stable = _edges_stable(own, opp) | (inner & rows & cols & d9 & d7)
    if stable == ZERO:
        return stable
    while True:
        old = stable
        h = (stable >> ONE) | (stable << ONE) | rows
        v = (stable >> np.uint64(8)) | (stable << np.uint64(8)) | cols
        a = (stable >> np.uint64(9)) | (stable << np.uint64(9)) | d9
        b = (stable >> np.uint64(7)) | (stable << np.uint64(7)) | d7
        stable |= h & v & a & b & inner
        if stable == old:
            return stable


# -- the last empty squares (no table, no move list, no stack) -------------------------------------
@njit(cache=True, inline="always")
def _count_last(x, sq):
    """How many discs a placement at ``sq`` flips for the side owning ``x`` when ``sq`` is the
    only empty square (every other square the other side's): each of its four lines read as a
    byte (a row by a shift, a column and the two diagonals gathered by a multiplication into the
    top byte, by column) and looked up in ``COUNT_FLIP``; no flip mask is built."""
    x = np.uint64(x)
    r = sq >> 3
    c = sq & 7
    s56 = np.uint64(56)
    row = (x >> np.uint64(8 * r)) & np.uint64(0xFF)
    col = (((x >> np.uint64(c)) & COLUMN_A) * PACK_COLUMN) >> s56
    d9 = ((x & LINE_9[sq]) * COLUMN_A) >> s56
    d7 = ((x & LINE_7[sq]) * COLUMN_A) >> s56
    return COUNT_FLIP[c * 256 + row] + COUNT_FLIP[r * 256 + col] + COUNT_FLIP[c * 256 + d9] + COUNT_FLIP[c * 256 + d7]


@intrinsic
def _tally(typingctx, counter):
    """Add one to the int64 at address ``counter`` (``info.ctypes.data``: the node count).

    The straight-line solvers (``_shallow`` and below, nine in ten nodes) count their nodes
    through this plain address rather than the ``info`` array itself: numba increments and
    decrements an array's reference count, an atomic instruction, at every call an array is
    passed to, and at these nodes that came to about 5% of ``exact``'s time (FFO #45, #46 and
    #49; a profile put 11% of the samples in the reference counts before, 8% after)."""

    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], WORD.as_pointer())
        builder.store(builder.add(builder.load(pointer), WORD(1)), pointer)
        return context.get_dummy_value()

    return types.void(counter), codegen


@intrinsic
def _borrowed(typingctx, array):
    """A view of ``array`` that owns no reference: the same data, shape and strides, without the
    memory-info pointer that numba counts references through.

    numba increments and decrements an array's reference count, each an atomic instruction that
    waits for the processor's stores to drain, whenever the array is passed to a call or a view
    of it is taken. The search hands its frames' arrays, the table, the pattern weights and
    ``info`` to ``_push`` and its helpers at every frame, where a profile of FFO #45 and #46 put
    about a fifth of ``exact``'s samples on those instructions. Given borrowed views instead,
    numba's counting finds no memory-info and does nothing. A borrowed view keeps nothing alive:
    the array it was taken from must be held elsewhere for as long as the view is used. numba
    releases a variable after its last use, so ``_walk`` borrows its arguments, which its
    caller holds until it returns, never an array it allocated itself."""

    def codegen(context, builder, signature, args):
        source = context.make_array(signature.args[0])(context, builder, args[0])
        view = context.make_array(signature.return_type)(context, builder)
        for field in ("data", "shape", "strides", "itemsize", "nitems"):
            setattr(view, field, getattr(source, field))
        view.meminfo = ir.Constant(view.meminfo.type, None)
        view.parent = ir.Constant(view.parent.type, None)
        return view._getvalue()

    return array(array), codegen


@njit(cache=True)
def _last(own, opp, sq, nodes):
    """Final score for ``own`` with one empty square ``sq``: whoever can takes it, else it goes
    to the winner (flips counted by ``_count_last``)."""
    _tally(nodes)
    p = _count(own)
    f = _count_last(own, sq)
    if f:
        return 2 * (p + f + 1) - SCORE_MAX
    f = _count_last(opp, sq)
    if f:
        return 2 * (p - f) - SCORE_MAX
    return 2 * p - SCORE_MAX + 2 if 2 * p > 63 else 2 * p - SCORE_MAX  # 63 discs: never drawn


@njit(cache=True)
def _solve2(own, opp, alpha, beta, x1, x2, nodes):
    """Fail-soft value for ``own`` with the two empty squares ``x1``, ``x2`` (tried in that
    order). A pass swaps the sides (and the window) once; a second pass ends the game."""
    _tally(nodes)
    sign = 1
    for _side in range(2):
        best = -SCORE_MAX - 1
        for k in range(2):
            x, y = (x1, x2) if k == 0 else (x2, x1)
            if NEIGHBOURS[x] & opp:
                f = _flips(own, opp, x)
                if f:
                    v = -_last(opp ^ f, own | f | (ONE << np.uint64(x)), y, nodes)
                    if v > best:
                        best = v
                        if v >= beta:
                            return sign * v
                        if v > alpha:
                            alpha = v
        if best > -SCORE_MAX - 1:
            return sign * best
        own, opp, alpha, beta, sign = opp, own, -beta, -alpha, -sign
    return _final(own, opp)


@njit(cache=True)
def _solve3(own, opp, alpha, beta, x1, x2, x3, nodes):
    """``_solve2`` with three empty squares, tried in the order given."""
    _tally(nodes)
    sign = 1
    for _side in range(2):
        best = -SCORE_MAX - 1
        for k in range(3):
            x, y, z = (x1, x2, x3) if k == 0 else (x2, x1, x3) if k == 1 else (x3, x1, x2)
            if NEIGHBOURS[x] & opp:
                f = _flips(own, opp, x)
                if f:
                    v = -_solve2(opp ^ f, own | f | (ONE << np.uint64(x)), -beta, -alpha, y, z, nodes)
                    if v > best:
                        best = v
                        if v >= beta:
                            return sign * v
                        if v > alpha:
                            alpha = v
        if best > -SCORE_MAX - 1:
            return sign * best
        own, opp, alpha, beta, sign = opp, own, -beta, -alpha, -sign
    return _final(own, opp)


@njit(cache=True)
def _solve4(own, opp, alpha, beta, x1, x2, x3, x4, nodes):
    """``_solve2`` with four empty squares, tried in the order given."""
    _tally(nodes)
    sign = 1
    for _side in range(2):
        best = -SCORE_MAX - 1
        for k in range(4):
            if k == 0:
                x, y, z, w = x1, x2, x3, x4
            elif k == 1:
                x, y, z, w = x2, x1, x3, x4
            elif k == 2:
                x, y, z, w = x3, x1, x2, x4
            else:
                x, y, z, w = x4, x1, x2, x3
            if NEIGHBOURS[x] & opp:
                f = _flips(own, opp, x)
                if f:
                    v = -_solve3(opp ^ f, own | f | (ONE << np.uint64(x)), -beta, -alpha, y, z, w, nodes)
                    if v > best:
                        best = v
                        if v >= beta:
                            return sign * v
                        if v > alpha:
                            alpha = v
        if best > -SCORE_MAX - 1:
            return sign * best
        own, opp, alpha, beta, sign = opp, own, -beta, -alpha, -sign
    return _final(own, opp)


@njit(cache=True)
def _solve5(own, opp, alpha, beta, x1, x2, x3, x4, x5, nodes):
    """``_solve2`` with five empty squares, tried in the order given."""
    _tally(nodes)
    sign = 1
    for _side in range(2):
        best = -SCORE_MAX - 1
        for k in range(5):
            if k == 0:
                x, y, z, w, u = x1, x2, x3, x4, x5
            elif k == 1:
                x, y, z, w, u = x2, x1, x3, x4, x5
            elif k == 2:
                x, y, z, w, u = x3, x1, x2, x4, x5
            elif k == 3:
                x, y, z, w, u = x4, x1, x2, x3, x5
            else:
                x, y, z, w, u = x5, x1, x2, x3, x4
            if NEIGHBOURS[x] & opp:
                f = _flips(own, opp, x)
                if f:
                    v = -_solve4(opp ^ f, own | f | (ONE << np.uint64(x)), -beta, -alpha, y, z, w, u, nodes)
                    if v > best:
                        best = v
                        if v >= beta:
                            return sign * v
                        if v > alpha:
                            alpha = v
        if best > -SCORE_MAX - 1:
            return sign * best
        own, opp, alpha, beta, sign = opp, own, -beta, -alpha, -sign
    return _final(own, opp)


@njit(cache=True, inline="always")
def _next(first, rest):
    """The lowest square of ``first`` (else of ``rest``) and both sets without it: the empty
    squares in parity order, odd quadrants first."""
    if first:
        sq = trailing_zeros(first)
        return sq, first & (first - ONE), rest
    sq = trailing_zeros(rest)
    return sq, first, rest & (rest - ONE)


@njit(cache=True)
def _small(own, opp, alpha, beta, nodes):
    """Fail-soft value for ``own`` with at most ``SMALL_EMPTIES`` (5) empty squares: the empty
    squares of odd quadrants first (region parity), then the others."""
    empty = ~(own | opp)
    n = _count(empty)
    if n == 0:
        _tally(nodes)
        return _final(own, opp)
    odd = ODD_SQUARES[_parity(empty)]
    first, rest = empty & odd, empty & ~odd
    x1, first, rest = _next(first, rest)
    if n == 1:
        return _last(own, opp, x1, nodes)
    x2, first, rest = _next(first, rest)
    if n == 2:
        return _solve2(own, opp, alpha, beta, x1, x2, nodes)
    x3, first, rest = _next(first, rest)
    if n == 3:
        return _solve3(own, opp, alpha, beta, x1, x2, x3, nodes)
    x4, first, rest = _next(first, rest)
    if n == 4:
        return _solve4(own, opp, alpha, beta, x1, x2, x3, x4, nodes)
    x5, first, rest = _next(first, rest)
    return _solve5(own, opp, alpha, beta, x1, x2, x3, x4, x5, nodes)


@njit(cache=True)
def _solve6(own, opp, alpha, beta, nodes):
    """Fail-soft value for ``own`` with six empty squares, without a frame or a table: a
    stability cut-off, then the moves in parity order (odd quadrants first), each child by
    ``_small``. A pass swaps the sides (and the window) once; a second ends the game."""
    _tally(nodes)
    if SCORE_MAX - 2 * _count(opp) <= alpha:
        top = SCORE_MAX - 2 * _count(_stable(opp, own))
        if top <= alpha:
            return top
    empty = ~(own | opp)
    odd = ODD_SQUARES[_parity(empty)]
    sign = 1
    for _side in range(2):
        best = -SCORE_MAX - 1
        for half in range(2):
            part = empty & odd if half == 0 else empty & ~odd
            while part:
                sq = trailing_zeros(part)
                part &= part - ONE
                if NEIGHBOURS[sq] & opp:
                    f = _flips(own, opp, sq)
                    if f:
                        v = -_small(opp ^ f, own | f | (ONE << np.uint64(sq)), -beta, -alpha, nodes)
                        if v > best:
                            best = v
                            if v >= beta:
                                return sign * v
                            if v > alpha:
                                alpha = v
        if best > -SCORE_MAX - 1:
            return sign * best
        own, opp, alpha, beta, sign = opp, own, -beta, -alpha, -sign
    return _final(own, opp)


@njit(cache=True)
def _solve7(own, opp, alpha, beta, nodes):
    """``_solve6`` with seven empty squares, each child by ``_solve6``."""
    _tally(nodes)
    if SCORE_MAX - 2 * _count(opp) <= alpha:
        top = SCORE_MAX - 2 * _count(_stable(opp, own))
        if top <= alpha:
            return top
    empty = ~(own | opp)
    odd = ODD_SQUARES[_parity(empty)]
    sign = 1
    for _side in range(2):
        best = -SCORE_MAX - 1
        for half in range(2):
            part = empty & odd if half == 0 else empty & ~odd
            while part:
                sq = trailing_zeros(part)
                part &= part - ONE
                if NEIGHBOURS[sq] & opp:
                    f = _flips(own, opp, sq)
                    if f:
                        v = -_solve6(opp ^ f, own | f | (ONE << np.uint64(sq)), -beta, -alpha, nodes)
                        if v > best:
                            best = v
                            if v >= beta:
                                return sign * v
                            if v > alpha:
                                alpha = v
        if best > -SCORE_MAX - 1:
            return sign * best
        own, opp, alpha, beta, sign = opp, own, -beta, -alpha, -sign
    return _final(own, opp)


@njit(cache=True)
def _shallow(own, opp, alpha, beta, n, nodes):
    """Fail-soft value for ``own`` with ``n`` <= ``SHALLOW_EMPTIES`` empty squares; ``nodes``,
    here and below, is the node count's address (``info.ctypes.data``, added to by ``_tally``)."""
    if n <= SMALL_EMPTIES:
        return _small(own, opp, alpha, beta, nodes)
    if n == 6:
        return _solve6(own, opp, alpha, beta, nodes)
    return _solve7(own, opp, alpha, beta, nodes)


# -- move ordering by a shallow search ----------------------------------------------------------
@njit(cache=True)
def _evaluate(own, opp):
    """A cheap midgame evaluation for ordering: weighted mobility and corners, each side's
    (potential mobility, empty squares next to the other side's discs, ordered worse)."""
    return 4 * (_weighted_mobility(own, opp) - _weighted_mobility(opp, own)) + 8 * (
        _count(own & CORNERS) - _count(opp & CORNERS)
    )


@njit(cache=True)
def _probe1(own, opp, alpha, beta):
    """One ply of fail-soft negamax over ``_evaluate`` within ``(alpha, beta)`` (a finished
    game: its score, scaled past any evaluation)."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return 1000 * _final(own, opp)
        return -_evaluate(opp, own)
    best = -1000000
    while m:
        sq = trailing_zeros(m)
        bit = ONE << np.uint64(sq)
        m ^= bit
        f = _flips(own, opp, sq)
        v = -_evaluate(opp ^ f, own | f | bit)
        if v > best:
            best = v
            if v >= beta:
                return v
    return best


@njit(cache=True)
def _probe2(own, opp, alpha, beta):
    """Two plies of fail-soft alpha-beta over ``_evaluate``."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return 1000 * _final(own, opp)
        return -_probe1(opp, own, -beta, -alpha)
    best = -1000000
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_probe1(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best))
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _probe3(own, opp, alpha, beta):
    """Three plies of fail-soft alpha-beta over ``_evaluate``."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return 1000 * _final(own, opp)
        return -_probe2(opp, own, -beta, -alpha)
    best = -1000000
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_probe2(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best))
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _probe4(own, opp, alpha, beta):
    """Four plies of fail-soft alpha-beta over ``_evaluate``."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return 1000 * _final(own, opp)
        return -_probe3(opp, own, -beta, -alpha)
    best = -1000000
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_probe3(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best))
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


# -- the fitted pattern evaluation, on the two words -----------------------------------------------
# ``patterns.py``'s groups read straight off the bitboards (bit 8*r + c is its cell r*8 + c): a
# cell's digit is 1 for the mover's disc, 2 for the opponent's. The table (``pattern_weights``:
# its values times ``PT.SCALE``, rounded, as int32, so a value is in hundredths of a disc) is
# passed to the search; an empty one means no patterns (``solve``, the in-game hook).


def _placements():
    """(kind, orientation) of each placed group, in ``patterns.CELLS``' order: ``kind`` indexes
    ``patterns.GROUPS`` and the orientation is that of ``patterns.orientations``."""
    out, kinds = [], list(PT.GROUPS)
    for kind, squares in enumerate(PT.GROUPS.values()):
        seen = set()
        for t in range(8):
            image = frozenset(PT.placed(squares, t))
            if image not in seen:
                seen.add(image)
                out.append((kind, t))
    assert len(out) == PT.PLACED and kinds[0] == "corner3x3" and kinds[-1] == "diag4"
    return np.array(out, dtype=np.int64)


def _base3():
    """BASE3[b]: the bits of byte ``b`` read as base-3 digits (bit k worth 3**k)."""
    return np.array([sum(3**k for k in range(8) if b >> k & 1) for b in range(256)], dtype=np.int64)


PLACEMENTS = _placements()
PLACED_AS = [
    [0, 0],
    [0, 2],
    [0, 3],
    [0, 6],
    [1, 0],
    [1, 1],
    [1, 2],
    [1, 3],
    [1, 4],
    [1, 5],
    [1, 6],
    [1, 7],
    [2, 0],
    [2, 1],
    [2, 4],
    [2, 5],
    [3, 0],
    [3, 1],
    [3, 4],
    [3, 5],
    [4, 0],
    [4, 1],
    [4, 4],
    [4, 5],
    [5, 0],
    [5, 1],
    [5, 4],
    [5, 5],
    [6, 0],
    [6, 2],
    [7, 0],
    [7, 1],
    [7, 2],
    [7, 4],
    [8, 0],
    [8, 1],
    [8, 2],
    [8, 4],
    [9, 0],
    [9, 1],
    [9, 2],
    [9, 4],
    [10, 0],
    [10, 1],
    [10, 2],
    [10, 4],
]  # ``_pattern_sum``'s lines
if PLACEMENTS.tolist() != PLACED_AS:
    raise ImportError("patterns.GROUPS changed: write _pattern_sum's lines again from PLACEMENTS")
PATTERN_BASE = PT.BASE
BASE3 = _base3()
DIAGONAL_CELLS = np.array([_u64(sum(1 << (9 * k + j) for k in range(8 - j))) for j in range(5)], dtype=np.uint64)
NO_PATTERNS = np.zeros(0, dtype=np.int32)
COLUMN_H = np.uint64(0x8080808080808080)
_pattern_cache: list = []


def pattern_weights() -> np.ndarray:
    """The pattern table as the solver uses it (int32, hundredths of a disc), or ``NO_PATTERNS``
    where ``patterns.npz`` is missing; built once per process."""
    if not _pattern_cache:
        table = PT.table()
        if table is None:
            _pattern_cache.append(NO_PATTERNS)
        else:
            _pattern_cache.append(np.round(table * PT.SCALE).astype(np.int32))
    return _pattern_cache[0]


@njit(cache=True, inline="always")
def _around(x):
    """The squares next to (8-neighbourhood) some square of ``x``."""
    east = (x << ONE) & ~COLUMN_A
    west = (x >> ONE) & ~COLUMN_H
    row = x | east | west
    return east | west | (row << np.uint64(8)) | (row >> np.uint64(8))


@njit(cache=True, inline="always")
def _transpose(x):
    """Bit (r, c) to (c, r): the a1-h8 diagonal flip, by three delta swaps."""
    t = np.uint64(0x0F0F0F0F00000000) & (x ^ (x << np.uint64(28)))
    x ^= t ^ (t >> np.uint64(28))
    t = np.uint64(0x3333000033330000) & (x ^ (x << np.uint64(14)))
    x ^= t ^ (t >> np.uint64(14))
    t = np.uint64(0x5500550055005500) & (x ^ (x << np.uint64(7)))
    x ^= t ^ (t >> np.uint64(7))
    return x


@njit(cache=True, inline="always")
def _flip_rows(x):
    """Row r to row 7 - r (a byte swap)."""
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    return (x >> np.uint64(32)) | (x << np.uint64(32))


@njit(cache=True, inline="always")
def _flip_columns(x):
    """Column c to column 7 - c (the bits of each byte reversed)."""
    x = ((x >> ONE) & np.uint64(0x5555555555555555)) | ((x & np.uint64(0x5555555555555555)) << ONE)
    x = ((x >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((x & np.uint64(0x3333333333333333)) << np.uint64(2))
    return ((x >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((x & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))


@njit(cache=True, inline="always")
def _oriented(x, t):
    """The board seen in orientation ``t`` of ``patterns.orientations``: its bit (r, c) is the
    bit of ``x`` at that orientation's image of (r, c), so a group read at the a1 corner of the
    result is the group placed in orientation ``t``."""
    if t == 0:
        return x
    if t == 1:
        return _transpose(x)
    if t == 2:
        return _flip_columns(x)
    if t == 3:
        return _transpose(_flip_rows(x))
    if t == 4:
        return _flip_rows(x)
    if t == 5:
        return _transpose(_flip_columns(x))
    if t == 6:
        return _flip_rows(_flip_columns(x))
    return _transpose(_flip_rows(_flip_columns(x)))


@njit(cache=True, inline="always")
def _digits(x, kind):
    """The base-3 index of the squares of ``x`` in group ``kind`` at the a1 corner, in the
    group's reading order (its k-th square worth 3**k), as a byte table and shifts read them."""
    b = np.uint64(0xFF)
    if kind == 0:  # corner3x3: three rows of three
        s = np.uint64(7)
        return BASE3[x & s] + 27 * BASE3[(x >> np.uint64(8)) & s] + 729 * BASE3[(x >> np.uint64(16)) & s]
    if kind == 1:  # corner2x5: two rows of five
        s = np.uint64(31)
        return BASE3[x & s] + 243 * BASE3[(x >> np.uint64(8)) & s]
    if kind == 2:  # edge2x: row 1, then b2 and g2
        return BASE3[x & b] + 6561 * np.int64((x >> np.uint64(9)) & ONE) + 19683 * np.int64((x >> np.uint64(14)) & ONE)
    if kind <= 5:  # line2, line3, line4: rows 2, 3, 4
        return BASE3[(x >> np.uint64(8 * (kind - 2))) & b]
    j = kind - 6  # diag8 .. diag4: squares (k, k + j), gathered into the top byte by column
    return BASE3[((x & DIAGONAL_CELLS[j]) * COLUMN_A) >> np.uint64(56 + j)]


@njit(cache=True)
def _pattern_sum(own, opp, start, w):
    """The sum of every placed group's value in the stage starting at ``w[start]``: the board in
    each of its eight orientations, each group read at the a1 corner of its own, one line per
    placed group of ``PLACEMENTS`` (``PLACED_AS`` checks the order at import)."""
    p0, o0 = _oriented(own, 0), _oriented(opp, 0)
    p1, o1 = _oriented(own, 1), _oriented(opp, 1)
    p2, o2 = _oriented(own, 2), _oriented(opp, 2)
    p3, o3 = _oriented(own, 3), _oriented(opp, 3)
    p4, o4 = _oriented(own, 4), _oriented(opp, 4)
    p5, o5 = _oriented(own, 5), _oriented(opp, 5)
    p6, o6 = _oriented(own, 6), _oriented(opp, 6)
    p7, o7 = _oriented(own, 7), _oriented(opp, 7)
    s = start
    return (
        w[s + PATTERN_BASE[0] + _digits(p0, 0) + 2 * _digits(o0, 0)]
        + w[s + PATTERN_BASE[1] + _digits(p2, 0) + 2 * _digits(o2, 0)]
        + w[s + PATTERN_BASE[2] + _digits(p3, 0) + 2 * _digits(o3, 0)]
        + w[s + PATTERN_BASE[3] + _digits(p6, 0) + 2 * _digits(o6, 0)]
        + w[s + PATTERN_BASE[4] + _digits(p0, 1) + 2 * _digits(o0, 1)]
        + w[s + PATTERN_BASE[5] + _digits(p1, 1) + 2 * _digits(o1, 1)]
        + w[s + PATTERN_BASE[6] + _digits(p2, 1) + 2 * _digits(o2, 1)]
        + w[s + PATTERN_BASE[7] + _digits(p3, 1) + 2 * _digits(o3, 1)]
        + w[s + PATTERN_BASE[8] + _digits(p4, 1) + 2 * _digits(o4, 1)]
        + w[s + PATTERN_BASE[9] + _digits(p5, 1) + 2 * _digits(o5, 1)]
        + w[s + PATTERN_BASE[10] + _digits(p6, 1) + 2 * _digits(o6, 1)]
        + w[s + PATTERN_BASE[11] + _digits(p7, 1) + 2 * _digits(o7, 1)]
        + w[s + PATTERN_BASE[12] + _digits(p0, 2) + 2 * _digits(o0, 2)]
        + w[s + PATTERN_BASE[13] + _digits(p1, 2) + 2 * _digits(o1, 2)]
        + w[s + PATTERN_BASE[14] + _digits(p4, 2) + 2 * _digits(o4, 2)]
        + w[s + PATTERN_BASE[15] + _digits(p5, 2) + 2 * _digits(o5, 2)]
        + w[s + PATTERN_BASE[16] + _digits(p0, 3) + 2 * _digits(o0, 3)]
        + w[s + PATTERN_BASE[17] + _digits(p1, 3) + 2 * _digits(o1, 3)]
        + w[s + PATTERN_BASE[18] + _digits(p4, 3) + 2 * _digits(o4, 3)]
        + w[s + PATTERN_BASE[19] + _digits(p5, 3) + 2 * _digits(o5, 3)]
        + w[s + PATTERN_BASE[20] + _digits(p0, 4) + 2 * _digits(o0, 4)]
        + w[s + PATTERN_BASE[21] + _digits(p1, 4) + 2 * _digits(o1, 4)]
        + w[s + PATTERN_BASE[22] + _digits(p4, 4) + 2 * _digits(o4, 4)]
        + w[s + PATTERN_BASE[23] + _digits(p5, 4) + 2 * _digits(o5, 4)]
        + w[s + PATTERN_BASE[24] + _digits(p0, 5) + 2 * _digits(o0, 5)]
        + w[s + PATTERN_BASE[25] + _digits(p1, 5) + 2 * _digits(o1, 5)]
        + w[s + PATTERN_BASE[26] + _digits(p4, 5) + 2 * _digits(o4, 5)]
        + w[s + PATTERN_BASE[27] + _digits(p5, 5) + 2 * _digits(o5, 5)]
        + w[s + PATTERN_BASE[28] + _digits(p0, 6) + 2 * _digits(o0, 6)]
        + w[s + PATTERN_BASE[29] + _digits(p2, 6) + 2 * _digits(o2, 6)]
        + w[s + PATTERN_BASE[30] + _digits(p0, 7) + 2 * _digits(o0, 7)]
        + w[s + PATTERN_BASE[31] + _digits(p1, 7) + 2 * _digits(o1, 7)]
        + w[s + PATTERN_BASE[32] + _digits(p2, 7) + 2 * _digits(o2, 7)]
        + w[s + PATTERN_BASE[33] + _digits(p4, 7) + 2 * _digits(o4, 7)]
        + w[s + PATTERN_BASE[34] + _digits(p0, 8) + 2 * _digits(o0, 8)]
        + w[s + PATTERN_BASE[35] + _digits(p1, 8) + 2 * _digits(o1, 8)]
        + w[s + PATTERN_BASE[36] + _digits(p2, 8) + 2 * _digits(o2, 8)]
        + w[s + PATTERN_BASE[37] + _digits(p4, 8) + 2 * _digits(o4, 8)]
        + w[s + PATTERN_BASE[38] + _digits(p0, 9) + 2 * _digits(o0, 9)]
        + w[s + PATTERN_BASE[39] + _digits(p1, 9) + 2 * _digits(o1, 9)]
        + w[s + PATTERN_BASE[40] + _digits(p2, 9) + 2 * _digits(o2, 9)]
        + w[s + PATTERN_BASE[41] + _digits(p4, 9) + 2 * _digits(o4, 9)]
        + w[s + PATTERN_BASE[42] + _digits(p0, 10) + 2 * _digits(o0, 10)]
        + w[s + PATTERN_BASE[43] + _digits(p1, 10) + 2 * _digits(o1, 10)]
        + w[s + PATTERN_BASE[44] + _digits(p2, 10) + 2 * _digits(o2, 10)]
        + w[s + PATTERN_BASE[45] + _digits(p4, 10) + 2 * _digits(o4, 10)]
    )


@njit(cache=True)
def _pattern_eval(own, opp, w):
    """The fitted evaluation of (own, opp) for ``own`` in hundredths of a disc: the patterns and
    the counts beside them (``patterns.COUNTS``: moves of each side, stable discs by this
    module's ``_stable``, which finds a few more than the evaluation's, frontier discs, and with
    at most 16 empty squares region parity over the 8-connected regions)."""
    empty = ~(own | opp)
    e = _count(empty)
    start = PT.phase(e) * PT.STAGE
    mine_at = _moves(own, opp)
    theirs_at = _moves(opp, own)
    stable = _count(_stable(own, opp)) - _count(_stable(opp, own))
    near = _around(empty)
    frontier = _count(opp & near) - _count(own & near)
    parity = 0
    if e <= 16:
        left = empty
        while left:
            region = left & (~left + ONE)
            while True:
                grown = (region | _around(region)) & empty
                if grown == region:
                    break
                region = grown
            left &= ~region
            if _count(region) & 1:
                parity += np.int64((region & mine_at) != ZERO) - np.int64((region & theirs_at) != ZERO)
    total = (
        w[start]
        + w[start + 1] * _count(mine_at)
        + w[start + 2] * _count(theirs_at)
        + w[start + 3] * stable
        + w[start + 4] * frontier
        + w[start + 5] * parity
    )
    return total + _pattern_sum(own, opp, start, w)


@njit(cache=True)
def _pprobe1(own, opp, alpha, beta, w):
    """One ply of fail-soft negamax over the pattern evaluation (``_pattern_eval``; a finished
    game: its score in the same hundredths of a disc)."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return PT.SCALE * _final(own, opp)
        return -_pattern_eval(opp, own, w)
    best = -PROBE_INF
    while m:
        sq = trailing_zeros(m)
        bit = ONE << np.uint64(sq)
        m ^= bit
        f = _flips(own, opp, sq)
        v = -_pattern_eval(opp ^ f, own | f | bit, w)
        if v > best:
            best = v
            if v >= beta:
                return v
    return best


@njit(cache=True)
def _pprobe2(own, opp, alpha, beta, w):
    """Two plies of fail-soft alpha-beta over the pattern evaluation."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return PT.SCALE * _final(own, opp)
        return -_pprobe1(opp, own, -beta, -alpha, w)
    best = -PROBE_INF
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_pprobe1(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best), w)
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _pprobe3(own, opp, alpha, beta, w):
    """Three plies of fail-soft alpha-beta over the pattern evaluation."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return PT.SCALE * _final(own, opp)
        return -_pprobe2(opp, own, -beta, -alpha, w)
    best = -PROBE_INF
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_pprobe2(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best), w)
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _pprobe4(own, opp, alpha, beta, w):
    """Four plies of fail-soft alpha-beta over the pattern evaluation."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return PT.SCALE * _final(own, opp)
        return -_pprobe3(opp, own, -beta, -alpha, w)
    best = -PROBE_INF
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_pprobe3(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best), w)
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _pprobe5(own, opp, alpha, beta, w):
    """Five plies of fail-soft alpha-beta over the pattern evaluation."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return PT.SCALE * _final(own, opp)
        return -_pprobe4(opp, own, -beta, -alpha, w)
    best = -PROBE_INF
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_pprobe4(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best), w)
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _pprobe6(own, opp, alpha, beta, w):
    """Six plies of fail-soft alpha-beta over the pattern evaluation."""
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            return PT.SCALE * _final(own, opp)
        return -_pprobe5(opp, own, -beta, -alpha, w)
    best = -PROBE_INF
    sq = _fastest(own, opp, m)
    m ^= ONE << np.uint64(sq)
    while True:
        bit = ONE << np.uint64(sq)
        f = _flips(own, opp, sq)
        v = -_pprobe5(opp ^ f, own | f | bit, -beta, -(alpha if alpha > best else best), w)
        if v > best:
            best = v
            if v >= beta:
                return v
        if m == ZERO:
            return best
        sq = trailing_zeros(m)
        m ^= ONE << np.uint64(sq)


@njit(cache=True)
def _pattern_probe(own, opp, depth, beta, w):
    """``depth`` plies (0 to 6) of fail-soft alpha-beta over the pattern evaluation from (own,
    opp), below ``beta`` (a value at or above it is a lower bound)."""
    if depth <= 0:
        return _pattern_eval(own, opp, w)
    if depth == 1:
        return _pprobe1(own, opp, -PROBE_INF, beta, w)
    if depth == 2:
        return _pprobe2(own, opp, -PROBE_INF, beta, w)
    if depth == 3:
        return _pprobe3(own, opp, -PROBE_INF, beta, w)
    if depth == 4:
        return _pprobe4(own, opp, -PROBE_INF, beta, w)
    if depth == 5:
        return _pprobe5(own, opp, -PROBE_INF, beta, w)
    return _pprobe6(own, opp, -PROBE_INF, beta, w)


# -- transposition table ------------------------------------------------------------------------
# One uint64 array of buckets of eight words, one cache line each: three positions (both words
# each, so a hit is never a collision) and their data, 32 bits a position: lower bound + 64, upper
# bound + 64, best move, empties (0: an unused slot, which no stored position has).
TT_SLOTS = 3


@njit(cache=True, inline="always")
def _bucket(own, opp, mask):
    """The first word of the bucket a position belongs to."""
    h = own * np.uint64(0x9E3779B97F4A7C15) ^ (opp * np.uint64(0xC2B2AE3D27D4EB4F))
    return np.int64((h ^ (h >> np.uint64(29))) & mask) << 3


@intrinsic
def _prefetch(typingctx, array, index):
    """Start loading the cache line of ``array[index]`` (LLVM's prefetch: a hint, no result)."""

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        byte = ir.IntType(8).as_pointer()
        pointer = builder.bitcast(builder.gep(data, [args[1]]), byte)
        i32 = ir.IntType(32)
        name = "llvm.prefetch.p0" if getattr(pointer.type, "is_opaque", False) else "llvm.prefetch.p0i8"
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32]), name
        )
        builder.call(fn, [pointer, i32(0), i32(3), i32(1)])  # a read, kept in every cache level, data
        return context.get_dummy_value()

    return types.void(array, index), codegen


@njit(cache=True, inline="always")
def _data(tt, b, k):
    """Slot ``k``'s 32-bit data in the bucket at ``b`` (words 6 and 7 hold them)."""
    if k == 0:
        return np.int64(tt[b + 6] & np.uint64(0xFFFFFFFF))
    if k == 1:
        return np.int64(tt[b + 6] >> np.uint64(32))
    return np.int64(tt[b + 7])


@njit(cache=True, inline="always")
def _lookup(tt, own, opp, mask):
    """The data of (own, opp): ``lo + 64 | (hi + 64) << 8 | move << 16 | empties << 24``, or 0
    when the table does not hold it."""
    b = _bucket(own, opp, mask)
    for k in range(TT_SLOTS):
        if tt[b + 2 * k] == own and tt[b + 2 * k + 1] == opp:
            return _data(tt, b, k)
    return 0


@njit(cache=True, inline="always")
def _store(tt, own, opp, mask, n, lo, hi, move):
    """Record bounds ``lo <= value <= hi`` and the best move of (own, opp) with ``n`` empties,
    tightening what the table already knows of it; a new position takes the slot of the
    bucket's smallest subtree (fewest empties; an unused slot has none)."""
    b = _bucket(own, opp, mask)
    j = -1
    for k in range(TT_SLOTS):
        if tt[b + 2 * k] == own and tt[b + 2 * k + 1] == opp:
            d = _data(tt, b, k)
            lo = max(lo, (d & 0xFF) - SCORE_MAX)
            hi = min(hi, ((d >> 8) & 0xFF) - SCORE_MAX)
            j = k
            break
    if j < 0:
        j, least = 0, 1 << 30
        for k in range(TT_SLOTS):
            e = _data(tt, b, k) >> 24
            if e < least:
                j, least = k, e
    d = np.uint64((lo + SCORE_MAX) | (hi + SCORE_MAX) << 8 | move << 16 | n << 24)
    tt[b + 2 * j] = own
    tt[b + 2 * j + 1] = opp
    if j == 0:
        tt[b + 6] = (tt[b + 6] & np.uint64(0xFFFFFFFF00000000)) | d
    elif j == 1:
        tt[b + 6] = (tt[b + 6] & np.uint64(0xFFFFFFFF)) | (d << np.uint64(32))
    else:
        tt[b + 7] = d


# -- the main search ----------------------------------------------------------------------------
@njit(cache=True)
def _probe(own, opp, n, alpha, w):
    """The shallow search's term of the ordering key of a child (``own`` to move) of a node with
    ``n`` empties, higher for the better move: with a pattern table and ``PATTERN_EMPTIES`` or
    more, ``PATTERN_WEIGHT`` times minus a pattern search's value (``_pattern_probe``, two to
    four plies, deeper with more empties), else minus the mobility search's (one to four
    plies) times 2**16."""
    if len(w) and n >= PATTERN_EMPTIES:
        depth = 2 if n < PATTERN_DEEPER_EMPTIES else (3 if n < PATTERN_DEEPEST_EMPTIES else 4)
        beta = PT.SCALE * (SORT_MARGIN - alpha)  # the move is worse than alpha - SORT_MARGIN
        return -PATTERN_WEIGHT * _pattern_probe(own, opp, depth, beta, w)
    if n < SORT_DEEPER_EMPTIES:
        v = _probe1(own, opp, -PROBE_INF, PROBE_INF)
    elif n < SORT_DEEPEST_EMPTIES:
        v = _probe2(own, opp, -PROBE_INF, PROBE_INF)
    elif n < SORT_FOUR_EMPTIES:
        v = _probe3(own, opp, -PROBE_INF, PROBE_INF)
    else:
        v = _probe4(own, opp, -PROBE_INF, PROBE_INF)
    return -(1 << 16) * v


@njit(cache=True, inline="always")
def _corner_stability(x):
    """The discs of ``x`` on corners and on the edge squares next to a corner it holds (Edax's
    corner stability: discs that can never be flipped, found in a few operations)."""
    s = ((np.uint64(0x0100000000000001) & x) << ONE) | ((np.uint64(0x8000000000000080) & x) >> ONE)
    s |= ((np.uint64(0x0000000000000081) & x) << np.uint64(8)) | ((np.uint64(0x8100000000000000) & x) >> np.uint64(8))
    return _count((s | CORNERS) & x)


@njit(cache=True, inline="always")
def _list_moves(own, opp, n, m, ply, mv, fl, ky, hash_move, probe, alpha, w, tables, mask):
    """List the moves of bitboard ``m`` at frame ``ply`` (squares ``mv``, flips ``fl``) with
    ordering keys ``ky`` (higher first); returns their number. The keys: the table's move
    first; then a shallow search's value (when ``probe``), then fewest replies (weighted
    mobility), with a pattern table (``exact``) the mover's corner-stable discs, then odd
    quadrants and corners. When the children are in the table's range, each one's bucket is
    prefetched as it is listed: the enhanced transposition cut-offs and the children's own
    probes then find it in the cache (a bucket's miss costs more than the child's keys)."""
    odd = ODD_SQUARES[_parity(~(own | opp))]
    fetch = n > TT_MIN_EMPTIES and mask != ZERO
    k = 0
    while m:
        sq = trailing_zeros(m)
        bit = ONE << np.uint64(sq)
        m ^= bit
        f = _flips(own, opp, sq)
        key = 4 * ((bit & odd) != ZERO) + 2 * ((bit & CORNERS) != ZERO)
        child_p, child_o = opp ^ f, own | f | bit
        if fetch:
            _prefetch(tables, _bucket(child_p, child_o, mask))
        if sq == hash_move:
            key = 1 << 40
        else:
            key += 1024 * (64 - _weighted_mobility(child_p, child_o))
            if len(w):  # ``exact`` only: ``solve`` keeps its order, so alpha-beta its moves
                key += CORNER_STABLE_WEIGHT * _corner_stability(child_o)
            if probe:
                key += _probe(child_p, child_o, n, alpha, w)
        mv[ply, k] = sq
        fl[ply, k] = f
        ky[ply, k] = key
        k += 1
    return k


@njit(cache=True, inline="always")
def _probe_rest(own, opp, n, ply, mv, fl, ky, start, count, alpha, w):
    """Add the shallow search's term to the keys of moves ``start`` to ``count`` of frame
    ``ply`` (listed without it: the table's move came first and did not cut off)."""
    for k in range(start, count):
        f = fl[ply, k]
        ky[ply, k] += _probe(opp ^ f, own | f | (ONE << np.uint64(mv[ply, k])), n, alpha, w)


# frame fields of ``_search``'s stack (one int64 row per ply; the position in ``boards``)
F_EMPTIES, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_MOVE, F_COUNT, F_INDEX, F_STAGE, F_LAZY = range(10)


@njit(cache=True, inline="always")
def _enter(ply, boards, fr, mv, fl, ky, tables, mask, w, info, deadline):
    """Open frame ``ply`` (position, empties and window already set): True when it is decided
    at once, its value in ``fr[ply, F_BEST]`` (the table's bounds, a stability or enhanced
    transposition cut-off, the game's end, out of time); otherwise its moves are listed."""
    info[0] += 1
    if deadline > 0.0 and info[0] >= info[3]:
        info[3] = info[0] + CHECK_NODES
        if C.now() > deadline:
            info[1] = 1
    if info[1]:
        fr[ply, F_BEST] = 0
        return True
    own, opp = boards[ply, 0], boards[ply, 1]
    n, alpha, beta = fr[ply, F_EMPTIES], fr[ply, F_ALPHA], fr[ply, F_BETA]
    hash_move = -1
    if ply > 0:  # the root always lists its moves: it must name one
        if SCORE_MAX - 2 * _count(opp) <= alpha:  # stability: the opponent's stable discs stay theirs
            top = SCORE_MAX - 2 * _count(_stable(opp, own))
            if top <= alpha:
                fr[ply, F_BEST] = top
                return True
        if n >= TT_MIN_EMPTIES and mask:
            d = _lookup(tables, own, opp, mask)
            if d:
                lo, hi = (d & 0xFF) - SCORE_MAX, ((d >> 8) & 0xFF) - SCORE_MAX
                if lo >= beta or lo == hi:
                    fr[ply, F_BEST] = lo
                    return True
                if hi <= alpha:
                    fr[ply, F_BEST] = hi
                    return True
                hash_move = (d >> 16) & 0xFF
    m = _moves(own, opp)
    if m == ZERO:
        if _moves(opp, own) == ZERO:
            fr[ply, F_BEST] = _final(own, opp)
            return True
        mv[ply, 0] = PASS  # the only child: the same discs, the sides swapped
        fl[ply, 0] = ZERO
        fr[ply, F_LAZY] = 0
        k = 1
    else:
        # with the table's move, which usually cuts off, the shallow searches wait until it has not
        lazy = n >= SORT_MIN_EMPTIES and hash_move >= 0
        probe = n >= SORT_MIN_EMPTIES and not lazy
        k = _list_moves(own, opp, n, m, ply, mv, fl, ky, hash_move, probe, alpha, w, tables, mask)
        fr[ply, F_LAZY] = lazy
        if ply > 0 and n >= ETC_MIN_EMPTIES and mask:  # a child known to refute the window
            for c in range(k):
                f = fl[ply, c]
                d = _lookup(tables, opp ^ f, own | f | (ONE << np.uint64(mv[ply, c])), mask)
                if d and SCORE_MAX - ((d >> 8) & 0xFF) >= beta:
                    fr[ply, F_BEST] = SCORE_MAX - ((d >> 8) & 0xFF)
                    return True
    fr[ply, F_COUNT] = k
    fr[ply, F_INDEX] = 0
    fr[ply, F_ALPHA0] = alpha
    fr[ply, F_BEST] = -SCORE_MAX - 1
    fr[ply, F_MOVE] = mv[ply, 0]
    return False


@njit(cache=True, inline="always")
def _push(ply, own, opp, n, alpha, beta, boards, fr, mv, fl, ky, tables, mask, w, info, deadline):
    """Set frame ``ply`` to a position and window and open it (``_enter``); a position below
    the root with at most ``SHALLOW_EMPTIES`` empties is solved at once (``_shallow``; the root
    lists its moves, to report the best). True when decided.

    numba inlines it (``inline="always"``) at its one call site in ``_walk``, which opens every
    frame, as it does ``_enter`` here, ``_list_moves`` and ``_lookup`` into ``_enter`` and
    ``_store`` and ``_probe_rest`` into ``_walk``: a call that passes the frames' eight arrays
    copies about sixty words, and a profile put an eighth of the solver's time on that one
    call. Inlined at one place each, they compile about as fast (``_enter`` inlined at three
    call sites added 36 s to a compilation from a cold cache)."""
    boards[ply, 0], boards[ply, 1] = own, opp
    fr[ply, F_EMPTIES], fr[ply, F_ALPHA], fr[ply, F_BETA] = n, alpha, beta
    if n <= SHALLOW_EMPTIES and ply > 0:
        fr[ply, F_BEST] = _shallow(own, opp, alpha, beta, n, info.ctypes.data)
        return True
    return _enter(ply, boards, fr, mv, fl, ky, tables, mask, w, info, deadline)


@njit(cache=True)
def _tables(tt_bits):
    """A transposition table for at least ``2**tt_bits`` positions: ``2**(tt_bits - 1)`` buckets
    of eight words (``TT_SLOTS`` positions each; ``2**(tt_bits + 5)`` bytes; 0: one unused
    bucket, and mask 0, which turns the table off), and the bucket mask."""
    size = 1 << max(tt_bits - 1, 0)
    tt = np.zeros(8 * size, dtype=np.uint64)
    mask = np.uint64(size - 1) if tt_bits > 0 else ZERO
    return tt, mask


@njit(cache=True)
def _search(own, opp, alpha, beta, tables, mask, w, deadline, info):
    """Fail-soft PVS value for ``own`` (exact within ``(alpha, beta)``, a bound outside) and, in
    ``info[2]``, a best move (``PASS``: the pass; -1: the game is over), with the table
    ``tables`` (``_tables``). ``info``: nodes, the out-of-time flag (then the value means
    nothing), the move, the node count of the next look at the clock.

    Allocates the frames (``_walk`` searches over them). It holds them, and its caller holds
    the table, the weights and ``info``, until ``_walk`` returns: ``_walk`` works on borrowed
    views of them (``_borrowed``), which keep nothing alive.
    """
    depth = 2 * 64 + 2  # plies: each fills a square or passes, never two passes in a row
    boards = np.zeros((depth, 2), dtype=np.uint64)
    fr = np.zeros((depth, 10), dtype=np.int64)
    mv = np.zeros((depth, 34), dtype=np.int64)  # a position has at most 33 moves
    fl = np.zeros((depth, 34), dtype=np.uint64)
    ky = np.zeros((depth, 34), dtype=np.int64)
    return _walk(own, opp, alpha, beta, tables, mask, w, deadline, info, boards, fr, mv, fl, ky)


@njit(cache=True)
def _walk(own, opp, alpha, beta, tables, mask, w, deadline, info, boards, fr, mv, fl, ky):
    """``_search`` over the frames ``boards``, ``fr``, ``mv``, ``fl`` and ``ky``.

    The tree is walked over an explicit stack of frames (numba cannot cache a recursive
    function for callers compiled later). A frame's children are searched in key order: the
    first with the frame's window, the others with a null window above alpha (``F_STAGE`` 1),
    re-searched with the window from their value up (stage 2) when they land inside it. The
    arrays are borrowed views from here on (``_borrowed``), since they go to ``_push`` and its
    helpers at every frame; the caller's references keep them alive.
    """
    boards, fr, mv, fl, ky = _borrowed(boards), _borrowed(fr), _borrowed(mv), _borrowed(fl), _borrowed(ky)
    tables, w, info = _borrowed(tables), _borrowed(w), _borrowed(info)
    info[2] = -1
    info[3] = 1  # the clock is read at the first node, then every CHECK_NODES
    n = _count(~(own | opp))
    ply, lo, hi = 0, alpha, beta  # the frame to open: ply, own, opp, n, lo, hi
    while True:
        resolved = _push(ply, own, opp, n, lo, hi, boards, fr, mv, fl, ky, tables, mask, w, info, deadline)
        while True:  # until the next frame is to be opened
            if resolved:
                if ply == 0:
                    if fr[0, F_COUNT] > 0:
                        info[2] = fr[0, F_MOVE]
                    return fr[0, F_BEST]
                v = -fr[ply, F_BEST]
                ply -= 1
                if info[1]:
                    return 0
                a, b = fr[ply, F_ALPHA], fr[ply, F_BETA]
                if fr[ply, F_STAGE] == 1 and a < v < b:  # the null window failed high inside: re-search
                    fr[ply, F_STAGE] = 2
                    ply += 1
                    own, opp, n = boards[ply, 0], boards[ply, 1], fr[ply, F_EMPTIES]
                    lo, hi = -b, -v
                    break
                if v > fr[ply, F_BEST]:
                    fr[ply, F_BEST] = v
                    fr[ply, F_MOVE] = mv[ply, fr[ply, F_INDEX] - 1]
                    if v > a:
                        fr[ply, F_ALPHA] = v
                        if v >= b:
                            fr[ply, F_INDEX] = fr[ply, F_COUNT]  # cut-off
            i = fr[ply, F_INDEX]
            if i >= fr[ply, F_COUNT]:  # the frame is done
                n = fr[ply, F_EMPTIES]
                if n >= TT_MIN_EMPTIES and mask:
                    v = fr[ply, F_BEST]
                    lo = v if v > fr[ply, F_ALPHA0] else -SCORE_MAX
                    hi = v if v < fr[ply, F_BETA] else SCORE_MAX
                    _store(tables, boards[ply, 0], boards[ply, 1], mask, n, lo, hi, fr[ply, F_MOVE])
                resolved = True
                continue
            if i == 1 and fr[ply, F_LAZY]:
                own, opp, n = boards[ply, 0], boards[ply, 1], fr[ply, F_EMPTIES]
                _probe_rest(own, opp, n, ply, mv, fl, ky, 1, fr[ply, F_COUNT], fr[ply, F_ALPHA], w)
            j = i  # selection: the highest remaining key to position i
            for k in range(i + 1, fr[ply, F_COUNT]):
                if ky[ply, k] > ky[ply, j]:
                    j = k
            sq, f, key = mv[ply, j], fl[ply, j], ky[ply, j]
            mv[ply, j], fl[ply, j], ky[ply, j] = mv[ply, i], fl[ply, i], ky[ply, i]
            mv[ply, i], fl[ply, i], ky[ply, i] = sq, f, key
            fr[ply, F_INDEX] = i + 1
            own, opp = boards[ply, 0], boards[ply, 1]
            a, b = fr[ply, F_ALPHA], fr[ply, F_BETA]
            if sq == PASS:
                own, opp, n = opp, own, fr[ply, F_EMPTIES]
            else:
                own, opp, n = opp ^ f, own | f | (ONE << np.uint64(sq)), fr[ply, F_EMPTIES] - 1
            if i == 0 or b == a + 1:
                fr[ply, F_STAGE] = 0
                lo, hi = -b, -a
            else:
                fr[ply, F_STAGE] = 1
                lo, hi = -a - 1, -a
            ply += 1
            break


# -- boards smaller than 8x8: the size-generic search ---------------------------------------------
PARITY_EMPTIES = 6  # the generic search: parity ordering from here down


def _general_quadrants():
    """QUADRANTS[n, q]: the squares of quadrant q (rows and columns split at n // 2), n <= 8."""
    table = np.zeros((9, 4), dtype=np.int64)
    for n in range(4, 9, 2):
        quads = [0] * 4
        for a in range(n * n):
            r, c = a // n, a % n
            quads[2 * (r >= n // 2) + (c >= n // 2)] |= 1 << a
        table[n] = [q - (1 << 64) if q >= 1 << 63 else q for q in quads]
    return table


def _general_corners():
    table = np.zeros(9, dtype=np.int64)
    for n in range(4, 9, 2):
        m = (1 << 0) | (1 << (n - 1)) | (1 << (n * (n - 1))) | (1 << (n * n - 1))
        table[n] = m - (1 << 64) if m >= 1 << 63 else m
    return table


QUADRANTS = _general_quadrants()
GENERAL_CORNERS = _general_corners()


@njit(cache=True)
def _general_open(own, opp, p, ply, moves, keys, counts, index, best, best_move, info, deadline, pass_move):
    """Enter node ``ply`` of the generic search; True when it is resolved at once (its value in
    ``best[ply]``): game over or out of time. Otherwise its moves are listed, with ordering
    keys (fastest first, parity near the end), for the main loop."""
    info[0] += 1
    if deadline > 0.0 and (info[0] & 4095) == 1 and C.now() > deadline:  # node 1, 4097, ...
        info[1] = 1
    if info[1]:
        best[ply] = 0
        return True
    n = p[K.P_SIZE]
    m = K._bb_moves(own, opp, p)
    if m == 0:
        if K._bb_moves(opp, own, p) == 0:
            mine, theirs = _count(own), _count(opp)  # game over: empties to the winner
            rest = n * n - mine - theirs
            best[ply] = mine - theirs + (rest if mine > theirs else -rest if mine < theirs else 0)
            return True
        moves[ply, 0] = pass_move  # a pass: the only child, the same discs with sides swapped
        keys[ply, 0] = 0
        counts[ply] = 1
    else:
        empty = ~(own | opp)
        empties = _count(empty) - (64 - n * n)
        corners = np.uint64(GENERAL_CORNERS[n])
        odd = ZERO
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
def _general_search(own, opp, p, alpha, beta, deadline, info):
    """Negamax value (fail-soft, exact within ``(alpha, beta)``) of the final score for the side
    owning ``own`` on any one-word board, and its best move (N*N for a pass), over an explicit
    stack of frames. ``info`` as ``_search``'s (nodes, out of time)."""
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
    resolved = _general_open(own, opp, p, 0, moves, keys, counts, index, best, best_move, info, deadline, pass_move)
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
        resolved = _general_open(
            S_own[ply], S_opp[ply], p, ply, moves, keys, counts, index, best, best_move, info, deadline, pass_move
        )


# -- public entry points ------------------------------------------------------------------------
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
def _mtd(own, opp, lo, hi, guess, tables, mask, w, deadline, info):
    """Exact value for ``own``, known to lie in ``[lo, hi]``, and a best move, by a sequence of
    searches with windows that admit one score each (MTD(f)): every score is even (the board
    has an even number of squares, all counted at the end), so ``(g - 1, g + 1)`` either proves
    ``g`` or fails soft to a bound beyond it. The table carries each search's bounds into the
    next.

    The two ways of failing do not cost the same: failing high needs one good move, and far
    below the value it is cheap (FFO #48, +28: under a million nodes each up to +10, 160
    million at +28), while failing low refutes every move and costs about as much as the exact
    search wherever ``g`` is (FFO #44, -14: 12 to 20 million at 0, -4 and -10). So the value
    is approached from below: a search that fails high is followed by one at its bound (a
    score further), and while none has, each failing low steps down 2, 4, 8, .. scores past
    its bound, to a ``g`` that fails high in few searches."""
    g = min(max(guess, lo), hi)
    move = -1
    step = 2
    high_seen = False  # a search has failed high
    while lo < hi:
        v = _search(own, opp, g - 1, g + 1, tables, mask, w, deadline, info)
        if info[1]:
            return 0, move
        if v <= g - 1:
            hi = v
        else:
            move = info[2]
            if v >= g + 1:
                lo = v
                high_seen = True
            else:
                lo = hi = v
        if high_seen:
            g = min(lo, hi)
        else:
            g = max(hi - step, lo)
            step *= 2
    if move == -1:  # only failed low, down to the lowest bound: one search for the move
        _search(own, opp, lo - 1, lo + 1, tables, mask, w, deadline, info)
        move = info[2]
    return lo, move


@njit(cache=True)
def _first_guess(own, opp, w):
    """Where MTD(f) starts: the pattern evaluation searched ``GUESS_PLIES`` plies deep, in
    discs, rounded to an even score (every final score is even); a draw without a table."""
    if len(w) == 0:
        return 0
    v = _pattern_probe(own, opp, GUESS_PLIES, PROBE_INF, w)
    g = 2 * int(np.round(v / (2.0 * PT.SCALE)))
    return min(max(g, -SCORE_MAX), SCORE_MAX)


@njit(cache=True)
def _value(s, p, alpha, beta, tables, mask, w, deadline, info):
    """Value and best move (N*N: the pass) of ongoing ``s`` within ``(alpha, beta)``: on 8x8 one
    search for a window of one score (win/draw/loss), MTD(f) from the first guess for a wider
    one, with the table ``tables`` (``_tables``); on a smaller board the generic search."""
    own, opp = _sides(s, p)
    if p[K.P_SIZE] == 8:
        if beta - alpha <= 2:
            v = _search(own, opp, alpha, beta, tables, mask, w, deadline, info)
            return v, info[2]
        guess = _first_guess(own, opp, w)
        return _mtd(own, opp, max(alpha, -SCORE_MAX), min(beta, SCORE_MAX), guess, tables, mask, w, deadline, info)
    return _general_search(own, opp, p, alpha, beta, deadline, info)


@njit(cache=True)
def affordable_seconds(e):
    """The time ``solve`` wants left before it starts on a position with ``e`` empty squares (a
    hard one's win/draw/loss cost; see ``WLD_SECONDS``): 0.65 s at 20, 1.3 s at 21, 10.4 s at 24."""
    return WLD_SECONDS * 2.0 ** (e - WLD_EMPTIES)


@njit(cache=True)
def solve(s, p, limit, deadline, out):
    """The game's ``solve`` hook: win, draw or loss of ongoing ``s`` for its side to move, when it
    has at most ``limit`` empty squares and a one-word board (N <= 8).

    Returns ``SOLVED`` (out[0] = 1 won, 0 drawn, -1 lost; out[1] a move that achieves it, N*N
    for the pass), ``NOT_SOLVED`` (too many empties, a larger board or a finished game, or on a
    clock less time left than the solver's measured speed needs at this many empties:
    ``affordable_seconds``) or ``OUT_OF_TIME`` (``deadline``, perf_counter seconds, passed; 0:
    no deadline). out[2]: nodes. So on a clock the solver starts from as many empty squares as
    the time allows, ``limit`` being only a cap.

    A lost position is then solved again with a full window below a draw, so that out[1] is the
    move that loses by the fewest discs and out[3] that (negative) final score by the world
    rules; out[3] is 0 when the deadline passed first (out[1] is then just some losing move),
    and in won or drawn positions.
    """
    out[2] = 0
    out[3] = 0
    e = empties(s, p)
    if not p[K.P_FAST] or s[C.H_STATUS] != C.ONGOING or e > limit:
        return NOT_SOLVED
    if deadline > 0.0:
        now = C.now()
        if now > deadline:
            return OUT_OF_TIME
        if now + affordable_seconds(e) > deadline:
            return NOT_SOLVED  # the time rule: not enough time left to expect an answer
    info = np.zeros(4, dtype=np.int64)
    eight = p[K.P_SIZE] == 8
    own, opp = _sides(s, p)
    tables, mask = _tables(min(TT_BITS, max(12, e)) if eight else 0)  # a small tree, a small table
    w = np.zeros(0, dtype=np.int32)  # mobility ordering only: alpha-beta's hook has no table
    if eight:
        v = _search(own, opp, -1, 1, tables, mask, w, deadline, info)
        move = info[2]
    else:
        v, move = _general_search(own, opp, p, -1, 1, deadline, info)
    if info[1]:
        out[2] = info[0]
        return OUT_OF_TIME
    out[0] = 1 if v > 0 else -1 if v < 0 else 0
    out[1] = move
    if v < 0:  # at most v (fail-soft); the same table carries on
        if eight:
            margin, least = _mtd(own, opp, -SCORE_MAX, v, v, tables, mask, w, deadline, info)
        else:
            margin, least = _general_search(own, opp, p, -SCORE_MAX - 1, 0, deadline, info)
        if not info[1]:
            out[1] = least
            out[3] = margin
    out[2] = info[0]
    return SOLVED


def table_of(tt_bits):
    """A transposition table as ``_tables`` makes it (``2**(tt_bits - 1)`` buckets of eight words,
    and the bucket mask), allocated by numpy instead of inside compiled code: numpy asks the
    kernel for huge pages (2 MB) for a large array, numba's allocator does not, and with 4 KB
    pages nearly every probe of a table of hundreds of megabytes also misses the TLB."""
    size = 1 << max(tt_bits - 1, 0)
    return np.zeros(8 * size, dtype=np.uint64), np.uint64(size - 1 if tt_bits > 0 else 0)


@njit(cache=True)
def _exact(s, p, tables, mask, w, info):
    info[:] = 0
    return _value(s, p, -SCORE_MAX - 1, SCORE_MAX + 1, tables, mask, w, 0.0, info)


def exact(s, p, tt_bits=TT_BITS):
    """Final score by the world rules for the side to move of ongoing ``s`` (a board of N <= 8)
    under perfect play, a move achieving it (N*N: the pass) and the nodes searched: a
    full-window search, on 8x8 with a table of ``2**tt_bits`` positions (0: none)."""
    s = np.asarray(s)
    if s.dtype != np.int64 or s.ndim != 1 or len(s) <= C.HEADER:
        raise ValueError("exact: expected a game state (a one-dimensional int64 array)")
    if not p[K.P_FAST]:
        raise ValueError(f"exact: boards up to 8x8, not {p[K.P_SIZE]}x{p[K.P_SIZE]}")
    if s[C.H_STATUS] != C.ONGOING:
        raise ValueError("exact: the game is over")
    if not 0 <= tt_bits <= 28:
        raise ValueError(f"exact: tt_bits={tt_bits}, expected 0..28")
    info = np.zeros(4, dtype=np.int64)
    tables, mask = table_of(int(tt_bits) if p[K.P_SIZE] == 8 else 0)
    value, move = _exact(s, p, tables, mask, pattern_weights(), info)
    return int(value), int(move), int(info[0])


def disc_difference(s, p):
    """Final score (the disc difference with the empties to the winner, by the world rules) for
    the side to move of ongoing ``s`` (N <= 8) under perfect play, and a best move."""
    value, move, _ = exact(s, p)
    return value, move
