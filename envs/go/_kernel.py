"""Go rules kernel (numba): Tromp-Taylor area scoring, positional superko, optional suicide.

State (int64), after the common header of ``envs/core/kernel.py`` (NN = N*N):

    HEADER + r*N + c   point at row r (0 = top row as printed = GTP row N), column c (0 = GTP A):
                       0 empty, 1 Black (seat 0), 2 White (seat 1)
    CH + k*NN + i      chain records, k = HEAD, NEXT, SIZE, NLIB, LSUM, LSQ, CHASH (CH = HEADER
                       + NN). For a stone at i: HEAD its chain's head point, NEXT the next stone
                       of the chain (a circular list). Indexed by a head point: SIZE stones;
                       NLIB, LSUM, LSQ the count, sum and sum of squares of its pseudo-liberties
                       (one per stone/empty-point adjacency); CHASH the XOR of its stones' keys.
                       Meaningless on empty points and non-head stones.
    G + O_PASSES       consecutive passes just played (0, 1; 2 ends the game); G = fields(p) = HEADER + 8*NN
    G + O_KO           simple-ko point the mover may not retake at once, or -1 (under
                       ``superko="illegal"`` the history forbids it too; kept so that a text
                       board, which has no history, still carries it, like FEN's en passant)
    G + O_BOARD        Zobrist hash of the stones alone (the key positional superko compares)
    G + O_COUNT        number of positions in the history below
    G + O_HIST + i     history: the board hash of every whole-board position of this game so far,
                       in order, the start first (passes add nothing: they repeat the position);
                       HISTORY = max_moves + 1 slots, enough for a game that never passes
                       (9x9 defaults: the whole state is 951 cells, 7.6 kB)
    G + O_HIST + HISTORY + w
                       filter over the history (a one-hash Bloom filter), WORDS 64-bit words:
                       a hash entering the history sets bit ``h & 63`` of word ``(h >> 6) & (WORDS-1)``

    Board indexing for N = 5 (action id = point index = r*N + c; pass = NN = 25):
         A  B  C  D  E
      5  0  1  2  3  4
      4  5  6  7  8  9
      3 10 11 12 13 14
      2 15 16 17 18 19
      1 20 21 22 23 24

Chains are kept incrementally, as in OpenSpiel's board: a chain is in atari exactly
when all its pseudo-liberties are one point, i.e. ``LSUM**2 == LSQ * NLIB`` (equality in
Cauchy-Schwarz), so legality and captures need no flood fill; only merging relabels the smaller
chain and only a capture walks the captured chain.

``H_HASH`` = board hash ^ side-to-move key ^ (pass key after one pass) ^ (ko key of the ko point):
everything that decides the legal moves except the superko history itself.

Params (after the common ones): N, 2*komi, superko mode (0 illegal, 1 draw), suicide (0/1),
HISTORY, WORDS, then the neighbour table: ``p[P_NBR + 4*i + d]`` is the d-th orthogonal neighbour
of point i (up, left, right, down) or -1 off the board; a lookup beats row/column arithmetic.

Reason codes in H_REASON: TWO_PASSES, MAX_MOVES (both scored), SUPERKO (a repetition under
``superko="draw"``: the game ends drawn).

Invariants (``validate``): points 0..2, no chain without a liberty; every ply alternates the side
to move (passes too), so the seat to move is the ply's parity, and a ply adds at most one stone;
the chain records are those ``rebuild_chains`` derives from the stones, up to the choice of each
chain's head: the same partition into chains, every stone's HEAD the head of its chain, the NEXT
links one cycle through exactly its stones, and the head's SIZE, NLIB, LSUM, LSQ, CHASH equal to
the rebuilt ones; the board hash and ``H_HASH`` are what ``rehash`` gives; passes are 0..2, 2
exactly when the game ended by two passes; the ko point is -1 or an empty point with no pass since;
the history holds 1 to ply + 1 hashes, each marked in the filter, the last being the current
board while the game goes on (slots after them are written before they are read: not checked); the last action is -1, a pass after a pass, or a
point with no pass since; the status, winner and reason are what ``_play`` would have set.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from ..core import kernel as C
from ..core import rng as R

P_SIZE = C.P_GAME
P_KOMI2 = C.P_GAME + 1
P_SUPERKO = C.P_GAME + 2
P_SUICIDE = C.P_GAME + 3
P_HISTORY = C.P_GAME + 4
P_WORDS = C.P_GAME + 5
P_NBR = C.P_GAME + 6

SUPERKO_ILLEGAL = 0
SUPERKO_DRAW = 1

HEAD, NEXT, SIZE, NLIB, LSUM, LSQ, CHASH = range(7)
CHAIN_FIELDS = 7

O_PASSES = 0
O_KO = 1
O_BOARD = 2
O_COUNT = 3
O_HIST = 4

TWO_PASSES = 1
MAX_MOVES = 2
SUPERKO = 3

E_CELL = C.GAME_ERRORS
E_TURN = C.GAME_ERRORS + 1
E_PLY = C.GAME_ERRORS + 2
E_DEAD = C.GAME_ERRORS + 3
E_CHAIN = C.GAME_ERRORS + 4
E_RECORD = C.GAME_ERRORS + 5
E_BOARD_HASH = C.GAME_ERRORS + 6
E_HASH = C.GAME_ERRORS + 7
E_PASSES = C.GAME_ERRORS + 8
E_KO = C.GAME_ERRORS + 9
E_HISTORY = C.GAME_ERRORS + 10
E_FILTER = C.GAME_ERRORS + 11
E_LAST = C.GAME_ERRORS + 12
E_END = C.GAME_ERRORS + 13
STATE_ERRORS = {
    E_CELL: "a point is not 0 (empty), 1 (Black) or 2 (White)",
    E_TURN: "the side to move is not the ply's parity (every ply, a pass too, alternates)",
    E_PLY: "more stones on the board than plies played (a ply adds at most one stone)",
    E_DEAD: "a chain has no liberty (captures and suicides remove such chains)",
    E_CHAIN: "a chain record does not link the chain's stones: HEAD is not the head of the stone's "
    "chain, or NEXT is not one cycle through exactly its stones",
    E_RECORD: "a chain's size, pseudo-liberty counts or stone hash differ from its stones'",
    E_BOARD_HASH: "the board hash is not the Zobrist hash of the stones",
    E_HASH: "the hash is not the board hash with the side to move, pass and ko keys",
    E_PASSES: "the consecutive pass count is not 0..2 within the plies played (2 exactly when "
    "the game ended by two passes)",
    E_KO: "the ko point is neither -1 nor an empty point with no pass since",
    E_HISTORY: "the superko history does not hold 1 to ply + 1 board hashes, ending with the "
    "current board while the game goes on",
    E_FILTER: "a board hash of the history is missing from the history filter",
    E_LAST: "the last action is neither -1, a pass after a pass, nor a point with no pass since",
    E_END: "the status, winner or end reason is not what the rules give for this position",
}

MAX_SIZE = 19
# Keys: 2 per point (Black, White), then side to move, one pass played, and one per ko point.
ZOBRIST = C.zobrist_table(3 * MAX_SIZE * MAX_SIZE + 2, salt=4)
SIDE_KEY = ZOBRIST[2 * MAX_SIZE * MAX_SIZE]
PASS_KEY = ZOBRIST[2 * MAX_SIZE * MAX_SIZE + 1]
KO_BASE = 2 * MAX_SIZE * MAX_SIZE + 2


def filter_words(max_moves: int) -> int:
    """64-bit words of the history filter: a power of two with at least 32 bits per position a
    game can reach, so at most ~1/32 of lookups of a new position scan the history."""
    words = 1
    while 64 * words < 32 * (max_moves + 1):
        words *= 2
    return words


def neighbour_table(n: int) -> np.ndarray:
    """``(n*n*4,)`` orthogonal neighbours of each point (up, left, right, down), -1 off the board."""
    table = np.full((n * n, 4), -1, dtype=np.int64)
    for i in range(n * n):
        r, c = divmod(i, n)
        for d, (dr, dc) in enumerate(((-1, 0), (0, -1), (0, 1), (1, 0))):
            if 0 <= r + dr < n and 0 <= c + dc < n:
                table[i, d] = (r + dr) * n + c + dc
    return table.ravel()


# -- the position history ---------------------------------------------------------------------------
# How the helpers are compiled. The legality and move helpers run per point and per ply, where a
# call costs (each passes two arrays as ~14 scalars): inlining them made ``legal_actions`` about
# 1.8x faster and ``apply`` about 15%. numba inlines in two ways, and this file uses both:
# * ``inline="always"`` inlines at numba-IR level: the helper is never compiled on its own, but
#   its IR is copied into every caller (its own inlined helpers first), and numba copies the
#   helper's whole variable scope once per block of it: quadratic in the helper's size. A nest
#   of such helpers made Go's cold start take minutes (the pattern playout alone compiled for
#   about 80 s). Kept for the tiny leaves (``fields``, ``_in_atari``, ...), cheap to copy.
# * ``forceinline=True`` (``inlined``) compiles the helper once and has LLVM inline it into each
#   caller: the same machine code for a fraction of the compile time. The larger helpers.
#   numba hands the flag down to whatever it first compiles while compiling such a helper, so
#   every other function here says ``forceinline=False`` (``called``): otherwise whether it is
#   inlined would depend on which of its callers happened to be compiled first.
# Helpers off the hot paths (the rare point with no empty neighbour, ladder readings) are called,
# not inlined: numba optimises the code a function links in again in every function linking it,
# so each copy inlined where speed does not need it costs compile time in every caller above.
# numba's cache of a caller keeps the old body of an inlined helper after the helper is edited:
# clear the caches. (Generic code is safe: its cache name carries a hash of this file.)
called = njit(cache=True, forceinline=False)
inlined = njit(cache=True, forceinline=True)


@njit(cache=True, inline="always")
def fields(p):
    """Start of the game-specific fields after the board and the chain records."""
    return C.HEADER + (1 + CHAIN_FIELDS) * p[P_SIZE] * p[P_SIZE]


@njit(cache=True, inline="always")
def _filter_bit(s, p, board_hash):
    """``(state index, mask)`` of the filter bit of ``board_hash``."""
    word = fields(p) + O_HIST + p[P_HISTORY] + ((board_hash >> 6) & (p[P_WORDS] - 1))
    return word, np.int64(1) << (board_hash & 63)


@njit(cache=True, inline="always")
def _seen(s, p, board_hash):
    """Whether ``board_hash`` is in the history: the filter settles ~97% of lookups at once."""
    word, bit = _filter_bit(s, p, board_hash)
    if s[word] & bit == 0:
        return False
    base = fields(p) + O_HIST
    for i in range(s[fields(p) + O_COUNT]):
        if s[base + i] == board_hash:
            return True
    return False


@njit(cache=True, inline="always")
def _remember(s, p, board_hash):
    """Append a position to the history; return True (appending nothing) if it was there."""
    if _seen(s, p, board_hash):
        return True
    g = fields(p)
    word, bit = _filter_bit(s, p, board_hash)
    s[word] |= bit
    s[g + O_HIST + s[g + O_COUNT]] = board_hash
    s[g + O_COUNT] += 1
    return False


@called
def rehash(s, p):
    """Recompute ``H_HASH`` from the board hash, side to move, passes and ko point."""
    g = fields(p)
    h = s[g + O_BOARD]
    if s[C.H_PLAYER] == 1:
        h ^= SIDE_KEY
    if s[g + O_PASSES] == 1:
        h ^= PASS_KEY
    if s[g + O_KO] >= 0:
        h ^= ZOBRIST[KO_BASE + s[g + O_KO]]
    s[C.H_HASH] = h


@called
def reset_history(s, p):
    """Start a fresh history holding only the current board (start of game, or from text)."""
    g = fields(p)
    s[g + O_HIST : g + O_HIST + p[P_HISTORY] + p[P_WORDS]] = 0
    s[g + O_COUNT] = 0
    _remember(s, p, s[g + O_BOARD])


# -- chains ------------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _in_atari(s, p, h):
    """Whether chain ``h`` (a head) has exactly one liberty; call only when it has one at least."""
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    n, total = s[x + NLIB * nn + h], s[x + LSUM * nn + h]
    return total * total == s[x + LSQ * nn + h] * n


@njit(cache=True, inline="always")
def _liberty(s, p, h, point, sign):
    """Add (sign 1) or remove (sign -1) one pseudo-liberty ``point`` of chain ``h``."""
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    s[x + NLIB * nn + h] += sign
    s[x + LSUM * nn + h] += sign * point
    s[x + LSQ * nn + h] += sign * point * point


@inlined
def _add_stone(s, p, a, colour):
    """Put a stone on empty point ``a`` and merge it with its own chains; return ``(head of its
    chain, whether every neighbour was an enemy stone or the edge, whether an enemy chain lost its
    last liberty)``: the second is what OpenSpiel's ko test looks at, the third spares most moves
    the search for captures.

    One pass over the neighbours: each stone there loses the pseudo-liberty ``a``, the empty ones
    are the new stone's, and the first own chain met simply takes the stone in (the common case,
    cheaper than building a one-stone chain and merging it); any further own chain is merged.
    """
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    s[C.HEADER + a] = colour
    head = np.int64(-1)  # not the literal -1: numba would compile _merge for it as well
    libs = total = squares = 0
    in_enemy_eye = True
    kills = False
    for d in range(4):
        t = p[P_NBR + 4 * a + d]
        if t < 0:
            continue
        v = s[C.HEADER + t]
        if v == 0:
            libs += 1
            total += t
            squares += t * t
            in_enemy_eye = False
            continue
        k = s[x + HEAD * nn + t]
        _liberty(s, p, k, a, -1)
        if v == colour:
            in_enemy_eye = False
            if head < 0:
                head = k
            elif k != head:
                head = _merge(s, p, head, k)
        else:
            kills |= s[x + NLIB * nn + k] == 0
    key = ZOBRIST[2 * a + colour - 1]
    if head < 0:
        head = a
        s[x + NEXT * nn + a] = a
        s[x + SIZE * nn + a] = 1
        s[x + NLIB * nn + a] = libs
        s[x + LSUM * nn + a] = total
        s[x + LSQ * nn + a] = squares
        s[x + CHASH * nn + a] = key
    else:
        s[x + NEXT * nn + a] = s[x + NEXT * nn + head]
        s[x + NEXT * nn + head] = a
        s[x + SIZE * nn + head] += 1
        s[x + NLIB * nn + head] += libs
        s[x + LSUM * nn + head] += total
        s[x + LSQ * nn + head] += squares
        s[x + CHASH * nn + head] ^= key
    s[x + HEAD * nn + a] = head
    return head, in_enemy_eye, kills


@inlined
def _merge(s, p, h1, h2):
    """Join chains ``h1`` and ``h2`` (heads); the smaller is relabelled. Returns the new head."""
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    if s[x + SIZE * nn + h1] < s[x + SIZE * nn + h2]:
        h1, h2 = h2, h1
    q = h2
    while True:
        s[x + HEAD * nn + q] = h1
        q = s[x + NEXT * nn + q]
        if q == h2:
            break
    n1, n2 = s[x + NEXT * nn + h1], s[x + NEXT * nn + h2]
    s[x + NEXT * nn + h1], s[x + NEXT * nn + h2] = n2, n1
    for field in (SIZE, NLIB, LSUM, LSQ):
        s[x + field * nn + h1] += s[x + field * nn + h2]
    s[x + CHASH * nn + h1] ^= s[x + CHASH * nn + h2]
    return h1


@inlined
def _remove_chain(s, p, h):
    """Take chain ``h`` off the board; its points become liberties of the chains around them."""
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    q = h
    while True:
        s[C.HEADER + q] = 0
        q = s[x + NEXT * nn + q]
        if q == h:
            break
    s[fields(p) + O_BOARD] ^= s[x + CHASH * nn + h]
    while True:  # every stone still next to the chain is of the other colour
        for d in range(4):
            t = p[P_NBR + 4 * q + d]
            if t >= 0 and s[C.HEADER + t] != 0:
                _liberty(s, p, s[x + HEAD * nn + t], q, 1)
        q = s[x + NEXT * nn + q]
        if q == h:
            break


@inlined
def _place(s, p, a, colour):
    """Put a stone, merge, capture, then (when legal) remove a suicided chain.

    Returns ``(stones captured, a captured point, whether every neighbour was an enemy stone or
    the edge)``, what OpenSpiel's simple-ko rule looks at.
    """
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    head, in_enemy_eye, kills = _add_stone(s, p, a, colour)
    s[fields(p) + O_BOARD] ^= ZOBRIST[2 * a + colour - 1]
    captured = 0
    taken = -1
    for d in range(4 if kills else 0):
        t = p[P_NBR + 4 * a + d]
        if t >= 0 and s[C.HEADER + t] == 3 - colour:
            h = s[x + HEAD * nn + t]
            if s[x + NLIB * nn + h] == 0:
                captured += s[x + SIZE * nn + h]
                taken = t
                _remove_chain(s, p, h)
    if captured == 0 and s[x + NLIB * nn + head] == 0:
        _remove_chain(s, p, head)  # multi-stone suicide, legal only with suicide=True
    return captured, taken, in_enemy_eye


@called
def place(s, p, a, colour):
    """``_place`` compiled once, for callers off the hot paths (the ladder reading)."""
    return _place(s, p, a, colour)


@called
def rebuild_chains(s, p):
    """Recompute every chain record and the board hash from the stones (after reading a text)."""
    nn = p[P_SIZE] * p[P_SIZE]
    stones = s[C.HEADER : C.HEADER + nn].copy()
    s[C.HEADER : C.HEADER + nn] = 0
    s[fields(p) + O_BOARD] = 0
    for a in range(nn):
        if stones[a] != 0:
            _place(s, p, a, stones[a])


# -- the protocol -----------------------------------------------------------------------------------
@called
def init(s, p, rng):
    C.clear(s, p)
    s[fields(p) + O_KO] = -1
    reset_history(s, p)
    rehash(s, p)


@called
def _outcome(s, p, a, colour):
    """``(legal_shape, board_hash_after)`` for a stone of ``colour`` on empty point ``a``.

    ``legal_shape`` is False for a forbidden suicide; ko and superko are the caller's business.
    Single-stone suicide is always forbidden: it leaves the board unchanged (a pass in disguise,
    and under positional superko a repeat of the current position).
    """
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    h = s[fields(p) + O_BOARD] ^ ZOBRIST[2 * a + colour - 1]
    alive = False
    own = False
    own_dead = 0
    seen0 = seen1 = seen2 = -1
    for d in range(4):
        t = p[P_NBR + 4 * a + d]
        if t < 0:
            continue
        v = s[C.HEADER + t]
        if v == 0:
            alive = True
            continue
        k = s[x + HEAD * nn + t]
        if k == seen0 or k == seen1 or k == seen2:
            continue  # a chain met again from another side
        if d == 0:
            seen0 = k
        elif d == 1:
            seen1 = k
        else:
            seen2 = k
        atari = _in_atari(s, p, k)  # its one liberty can only be a
        if v == colour:
            own = True
            if atari:
                own_dead ^= s[x + CHASH * nn + k]
            else:
                alive = True
        elif atari:
            h ^= s[x + CHASH * nn + k]  # captured
            alive = True
    if alive:
        return True, h
    if own and p[P_SUICIDE] == 1:
        return True, h ^ own_dead ^ ZOBRIST[2 * a + colour - 1]
    return False, h


@njit(cache=True, inline="always")
def _allowed(s, p, a):
    """Whether a stone on empty point ``a`` is legal for the side to move."""
    g = fields(p)
    return _allowed_in(s, p, a, s[g + O_KO], s[C.H_PLAYER] + 1, p[P_SUPERKO] == SUPERKO_DRAW, s[g + O_BOARD])


@inlined
def _allowed_in(s, p, a, ko, colour, draw, board):
    """``_allowed`` with what is the same for every point of a position passed in.

    Fast path first (most points in play): with an empty neighbour the stone lives, so only the
    enemy chains it may capture matter, and only for the superko hash. ``legal_actions`` applies
    the same rule with its neighbours read from row masks; it spells the rule out again because
    calling this (inlined) from its loop made a listing twice as slow (9x9: 219 -> 474 ns).
    """
    if a == ko:
        return False
    free = False
    enemy = False
    for d in range(4):
        t = p[P_NBR + 4 * a + d]
        if t >= 0:
            v = s[C.HEADER + t]
            free |= v == 0
            enemy |= v == 3 - colour
    if free:
        if draw:
            return True
        h = board ^ ZOBRIST[2 * a + colour - 1]
        if enemy:
            h = _capture_hash(s, p, a, 3 - colour, h)
        return not _seen(s, p, h)
    ok, h = _outcome(s, p, a, colour)
    return ok and (draw or not _seen(s, p, h))


@called
def allowed(s, p, a):
    """``_allowed`` compiled once, for callers off the hot paths (the ladder reading)."""
    return _allowed(s, p, a)


@njit(cache=True, inline="always")
def _capture_hash(s, p, a, enemy, h):
    """``h`` with every ``enemy`` chain next to ``a`` in atari (so on its last liberty) removed."""
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    taken0 = taken1 = taken2 = -1
    for d in range(4):
        t = p[P_NBR + 4 * a + d]
        if t >= 0 and s[C.HEADER + t] == enemy:
            k = s[x + HEAD * nn + t]
            if _in_atari(s, p, k) and k != taken0 and k != taken1 and k != taken2:
                h ^= s[x + CHASH * nn + k]
                if taken0 < 0:
                    taken0 = k
                elif taken1 < 0:
                    taken1 = k
                else:
                    taken2 = k
    return h


@njit(cache=True, inline="always")
def _row_masks(s, n, r, enemy):
    """Bit masks (bit c = column c) of the empty points and of the ``enemy`` stones of row ``r``
    (none for r = n, the row below the board)."""
    empty = enemies = 0
    if r < n:
        for c in range(n):
            v = s[C.HEADER + r * n + c]
            empty |= np.int64(v == 0) << c
            enemies |= np.int64(v == enemy) << c
    return empty, enemies


@called
def legal_actions(s, p, out):
    """The legal moves, ascending. Row by row, masks of the empty points and enemy stones say at
    once which empty points have an empty neighbour (their stone lives: only the superko test
    remains, and the capture hash only beside an enemy stone); the others go through
    ``_outcome``. Same result as ``_allowed`` on every empty point (``_allowed_in``'s rule, written
    out here for speed; a test compares the two), without reading each point's four neighbours
    one by one. What is the same for every point is read once, not per point: numba cannot hoist
    reads of ``s`` or ``p`` past the writes to ``out``, which may alias them."""
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    size = p[P_SIZE]
    nn = size * size
    g = fields(p)
    ko = s[g + O_KO]
    colour = s[C.H_PLAYER] + 1
    enemy = 3 - colour
    draw = p[P_SUPERKO] == SUPERKO_DRAW
    board = s[g + O_BOARD]
    full = (np.int64(1) << size) - 1
    filter_base = g + O_HIST + p[P_HISTORY]
    filter_mask = p[P_WORDS] - 1
    n = 0
    empty_above = enemy_above = 0
    empty_here, enemy_here = _row_masks(s, size, 0, enemy)
    for r in range(size):
        empty_below, enemy_below = _row_masks(s, size, r + 1, enemy)
        free = (((empty_here << 1) | (empty_here >> 1)) & full) | empty_above | empty_below
        beside_enemy = (((enemy_here << 1) | (enemy_here >> 1)) & full) | enemy_above | enemy_below
        m = empty_here
        while m:
            c = np.int64(trailing_zeros(m))
            m &= m - 1
            a = r * size + c
            if a == ko:
                continue
            if (free >> c) & 1:
                if not draw:
                    h = board ^ ZOBRIST[2 * a + colour - 1]
                    if (beside_enemy >> c) & 1:
                        h = _capture_hash(s, p, a, enemy, h)
                    # ``_seen`` with the filter's place read once per listing (see _allowed_in)
                    if (s[filter_base + ((h >> 6) & filter_mask)] >> (h & 63)) & 1 and _seen(s, p, h):
                        continue
            else:
                ok, h = _outcome(s, p, a, colour)
                if not ok or (not draw and _seen(s, p, h)):
                    continue
            out[n] = a
            n += 1
        empty_above, enemy_above = empty_here, enemy_here
        empty_here, enemy_here = empty_below, enemy_below
    out[n] = nn
    return n + 1


@called
def is_legal(s, p, a):
    if s[C.H_STATUS] != C.ONGOING:
        return False
    nn = p[P_SIZE] * p[P_SIZE]
    if a == nn:
        return True
    return s[C.HEADER + a] == 0 and _allowed(s, p, a)


@inlined
def _play(s, p, a):
    """``apply``, returning the stones it captured (a random playout updates its list of empty
    points only after a capture or a suicide)."""
    nn = p[P_SIZE] * p[P_SIZE]
    g = fields(p)
    seat = s[C.H_PLAYER]
    repeated = False
    captured = 0
    if a == nn:
        s[g + O_PASSES] += 1
        s[g + O_KO] = -1
    else:
        s[g + O_PASSES] = 0
        captured, taken, in_enemy_eye = _place(s, p, a, seat + 1)
        # Simple ko (OpenSpiel's test): one stone taken by a stone played into an enemy eye.
        if in_enemy_eye and captured == 1:
            s[g + O_KO] = taken
        else:
            s[g + O_KO] = -1
        repeated = _remember(s, p, s[g + O_BOARD])
    s[C.H_PLY] += 1
    s[C.H_LAST] = a
    s[C.H_PLAYER] = 1 - seat
    rehash(s, p)
    if repeated:
        C.finish(s, C.NO_WINNER, SUPERKO)
    elif s[g + O_PASSES] >= 2:
        finish_scored(s, p, TWO_PASSES)
    elif s[C.H_PLY] >= p[C.P_MAX_MOVES]:
        finish_scored(s, p, MAX_MOVES)
    return captured


@called
def apply(s, p, a):
    _play(s, p, a)


# -- random playouts ---------------------------------------------------------------------------------
# MCTS rollouts finish a game with uniformly random legal moves. Drawing from ``legal_actions``
# tests every empty point each ply, and drawing random action ids wastes most draws on stones
# late in a game; instead a playout keeps the empty points in a list (``empty``, with each point's
# index there in ``where``, -1 on a stone) that a stone shortens and a capture lengthens.
@called
def _list_empty(s, p, empty, where):
    """Fill the empty-point list from the board; return its length."""
    nn = p[P_SIZE] * p[P_SIZE]
    n = 0
    for i in range(nn):
        where[i] = -1
        if s[C.HEADER + i] == 0:
            empty[n] = i
            where[i] = n
            n += 1
    return n


@njit(cache=True, inline="always")
def _swap(empty, where, i, j):
    """Exchange entries ``i`` and ``j`` of the empty-point list."""
    a, b = empty[i], empty[j]
    empty[i], empty[j] = b, a
    where[b], where[a] = i, j


@inlined
def _random_move(s, p, rng, empty, where, n):
    """A uniformly random legal move: one of the ``n`` listed empty points, or pass.

    Candidates are drawn without replacement, pass standing for index ``live`` of the untested
    ones: a drawn point that proves illegal is swapped out past the end of ``empty[:live]``, so
    each draw is uniform over the candidates still untested, and the first legal one drawn is
    uniform over all legal moves (the first legal element of a uniformly random order). Pass is
    always legal, so this ends. The list keeps its contents, only their order changes.
    """
    live = n
    while True:
        k = R.randint(rng, live + 1)
        if k == live:
            return p[P_SIZE] * p[P_SIZE]
        a = empty[k]
        if _allowed(s, p, a):
            return a
        live -= 1
        _swap(empty, where, k, live)


@inlined
def _relist(s, p, a, captured, empty, where, n):
    """Update the list of ``n`` points after a stone on listed point ``a`` that ``captured``
    stones; return its length.

    The stones the move removed (enemy chains next to ``a``, or with suicide ``a``'s own chain) are
    the empty points not in the list; a removed chain keeps its circular NEXT list, so each is
    walked once from whichever of its points is met first.
    """
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    n -= 1
    _swap(empty, where, where[a], n)
    where[a] = -1
    if captured == 0 and s[C.HEADER + a] != 0:
        return n
    for d in range(5):
        t = p[P_NBR + 4 * a + d] if d < 4 else a
        if t >= 0 and s[C.HEADER + t] == 0 and where[t] < 0:
            q = t
            while True:
                empty[n] = q
                where[q] = n
                n += 1
                q = s[x + NEXT * nn + q]
                if q == t:
                    break
    return n


@called
def random_playout(s, p, rng, moves):
    """Finish the game in ``s`` with uniformly random legal moves, pass included (MCTS rollouts;
    ``moves`` is unused: the empty points are listed in scratch arrays of their own).

    The same distribution as drawing from ``legal_actions`` every ply, at the price of one or two
    legality tests of a point per ply instead of one per empty point.
    """
    nn = p[P_SIZE] * p[P_SIZE]
    scratch = np.empty(2 * nn, dtype=np.int64)
    empty, where = scratch[:nn], scratch[nn:]
    n = _list_empty(s, p, empty, where)
    while s[C.H_STATUS] == C.ONGOING:
        a = _random_move(s, p, rng, empty, where, n)
        captured = _play(s, p, a)
        if a < nn:
            n = _relist(s, p, a, captured, empty, where, n)


# -- scoring ------------------------------------------------------------------------------------------
@called
def owners(s, p, out):
    """Tromp-Taylor owner of every point into ``out`` (length N*N): 1 Black, 2 White, 0 neither.
    A stone owns its point; an empty region belongs to the one colour it reaches, if only one."""
    nn = p[P_SIZE] * p[P_SIZE]
    region = np.empty(nn, dtype=np.int64)
    for i in range(nn):
        out[i] = s[C.HEADER + i] if s[C.HEADER + i] != 0 else -1  # -1: empty, region not yet found
    for i in range(nn):
        if out[i] != -1:
            continue
        out[i] = 0
        region[0] = i
        head, size, reach = 0, 1, 0  # breadth first; reach: bit 0 touches Black, bit 1 White
        while head < size:
            q = region[head]
            head += 1
            for d in range(4):
                t = p[P_NBR + 4 * q + d]
                if t < 0:
                    continue
                if s[C.HEADER + t] != 0:
                    reach |= s[C.HEADER + t]
                elif out[t] == -1:
                    out[t] = 0
                    region[size] = t
                    size += 1
        if reach == 1 or reach == 2:
            for j in range(size):
                out[region[j]] = reach


@called
def area(s, p):
    """Tromp-Taylor area ``(black, white)``: stones plus empty regions reaching only that colour."""
    nn = p[P_SIZE] * p[P_SIZE]
    owner = np.empty(nn, dtype=np.int64)
    owners(s, p, owner)
    black = white = 0
    for i in range(nn):
        if owner[i] == 1:
            black += 1
        elif owner[i] == 2:
            white += 1
    return black, white


@called
def score(s, p):
    """Twice the Tromp-Taylor score, Black minus White minus komi (an int: komi is a half-integer)."""
    black, white = area(s, p)
    return 2 * (black - white) - p[P_KOMI2]


@njit(cache=True, inline="always")
def finish_scored(s, p, reason):
    """End the game with the Tromp-Taylor result (a komi of 0 or a whole number can draw)."""
    x = score(s, p)
    C.finish(s, 0 if x > 0 else (1 if x < 0 else C.NO_WINNER), reason)


@called
def validate(s, p):
    """0 if ``s`` is a consistent Go state, else ``C.error(code, cell)`` (invariants in the module
    docstring, codes in ``STATE_ERRORS``).

    Values used as indices (points, ko, history count) are range-checked first. The chain records
    are checked without rebuilding them (play and a rebuild may choose different heads for the
    same chain): heads and links are checked stone by stone, the per-chain sums recomputed per
    head, each NEXT walk bounded by the chain's size, and each chain's connection by a flood fill
    of its group. One scratch array of 9*N*N cells; no copy of the state.
    """
    e = C.check_header(s, p)
    if e:
        return e
    nn = p[P_SIZE] * p[P_SIZE]
    x = C.HEADER + nn
    g = fields(p)
    ply = s[C.H_PLY]
    stones = 0
    for i in range(nn):
        v = s[C.HEADER + i]
        if v < 0 or v > 2:
            return C.error(E_CELL, C.HEADER + i)
        stones += v != 0
    if ply % 2 != s[C.H_PLAYER]:
        return C.error(E_TURN, C.H_PLAYER)
    if stones > ply:
        return C.error(E_PLY, C.H_PLY)
    passes = s[g + O_PASSES]
    if passes < 0 or passes > 2 or passes > ply:
        return C.error(E_PASSES, g + O_PASSES)
    ko = s[g + O_KO]
    if ko < -1 or ko >= nn or (ko >= 0 and (s[C.HEADER + ko] != 0 or passes != 0)):
        return C.error(E_KO, g + O_KO)
    count = s[g + O_COUNT]
    if count < 1 or count > ply + 1 or count > p[P_HISTORY]:
        return C.error(E_HISTORY, g + O_COUNT)
    for i in range(count):
        word, bit = _filter_bit(s, p, s[g + O_HIST + i])
        if s[word] & bit == 0:
            return C.error(E_FILTER, word)
    # Chains, in two passes over the stones with no copy of the state. First each stone: its HEAD
    # is a stone of its colour that is its own head, its NEXT a stone with the same head, every
    # same-coloured neighbour has the same head; its keys and pseudo-liberties are summed per head.
    work = np.zeros(9 * nn, dtype=np.int64)  # sums per head at f*nn (f = SIZE..CHASH), marks, stack
    board = np.int64(0)
    for i in range(nn):
        v = s[C.HEADER + i]
        if v == 0:
            continue
        hs = s[x + HEAD * nn + i]
        if hs < 0 or hs >= nn or s[C.HEADER + hs] != v or s[x + HEAD * nn + hs] != hs:
            return C.error(E_CHAIN, x + HEAD * nn + i)
        q = s[x + NEXT * nn + i]
        if q < 0 or q >= nn or s[C.HEADER + q] != v or s[x + HEAD * nn + q] != hs:
            return C.error(E_CHAIN, x + NEXT * nn + i)
        for d in range(4):
            t = p[P_NBR + 4 * i + d]
            if t < 0:
                continue
            w = s[C.HEADER + t]
            if w == 0:
                work[NLIB * nn + hs] += 1
                work[LSUM * nn + hs] += t
                work[LSQ * nn + hs] += t * t
            elif w == v and s[x + HEAD * nn + t] != hs:
                return C.error(E_CHAIN, x + HEAD * nn + t)  # touching stones in two chains
        key = ZOBRIST[2 * i + v - 1]
        work[SIZE * nn + hs] += 1
        work[CHASH * nn + hs] ^= key
        board ^= key
    if board != s[g + O_BOARD]:
        return C.error(E_BOARD_HASH, g + O_BOARD)
    # Then each head: its records equal the sums, it has a liberty, its NEXT walk is one cycle of
    # SIZE stones, and its stones are connected (so a chain is exactly one group of stones).
    mark, stack = 7 * nn, 8 * nn
    for h in range(nn):
        if s[C.HEADER + h] == 0 or s[x + HEAD * nn + h] != h:
            continue
        for f in (SIZE, NLIB, LSUM, LSQ, CHASH):
            if s[x + f * nn + h] != work[f * nn + h]:
                return C.error(E_RECORD, x + f * nn + h)
        if work[NLIB * nn + h] == 0:
            return C.error(E_DEAD, C.HEADER + h)
        size = work[SIZE * nn + h]
        q = h
        for k in range(size):
            q = s[x + NEXT * nn + q]
            if q == h and k + 1 < size:
                return C.error(E_CHAIN, x + NEXT * nn + h)
        if q != h:
            return C.error(E_CHAIN, x + NEXT * nn + h)
        work[mark + h] = 1
        work[stack] = h
        top, reached = 1, 1
        while top > 0:
            top -= 1
            a = work[stack + top]
            for d in range(4):
                t = p[P_NBR + 4 * a + d]
                if t >= 0 and s[C.HEADER + t] == s[C.HEADER + h] and work[mark + t] == 0:
                    work[mark + t] = 1
                    work[stack + top] = t
                    top += 1
                    reached += 1
        if reached != size:
            return C.error(E_CHAIN, x + HEAD * nn + h)  # one head for stones in separate groups
    board = s[g + O_BOARD]
    h = board
    if s[C.H_PLAYER] == 1:
        h ^= SIDE_KEY
    if passes == 1:
        h ^= PASS_KEY
    if ko >= 0:
        h ^= ZOBRIST[KO_BASE + ko]
    if h != s[C.H_HASH]:
        return C.error(E_HASH, C.H_HASH)
    last = s[C.H_LAST]
    if (last == nn and passes == 0) or (0 <= last < nn and passes != 0):
        return C.error(E_LAST, C.H_LAST)
    winner = s[C.H_WINNER]
    if s[C.H_STATUS] == C.ONGOING:
        ok = passes < 2 and ply < p[C.P_MAX_MOVES] and s[g + O_HIST + count - 1] == board
    else:
        reason = s[C.H_REASON]
        if reason == SUPERKO:
            ok = winner == C.NO_WINNER and p[P_SUPERKO] == SUPERKO_DRAW and passes == 0
            if ok:
                ok = False
                for i in range(count):
                    ok |= s[g + O_HIST + i] == board
        else:
            d = score(s, p)
            ok = winner == (0 if d > 0 else (1 if d < 0 else C.NO_WINNER))
            if reason == TWO_PASSES:
                ok &= passes == 2
            else:
                ok &= passes < 2 and ply == p[C.P_MAX_MOVES]
    if not ok:
        return C.error(E_END, C.H_STATUS)
    return 0


@called
def encode(s, p, seat, legal, n_legal, out):
    """Observation of ``seat``: own stones, the opponent's, to-move, and plane 3 = empty points
    the side to move may not play (ko, suicide, superko); ``legal[:n_legal]`` are its moves."""
    nn = p[P_SIZE] * p[P_SIZE]
    C.encode_stones(s, seat, nn, out)
    base = 3 * nn
    for k in range(nn):
        out[base + k] = 0.0
    if s[C.H_STATUS] != C.ONGOING:
        return
    for k in range(nn):
        if s[C.HEADER + k] == 0:
            out[base + k] = 1.0
    for j in range(n_legal):
        if legal[j] < nn:
            out[base + legal[j]] = 0.0
