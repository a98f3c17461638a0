"""Go evaluation (area, territory by influence, liberties and eyes), the greedy tactical score,
MCTS's playout policies (light: true eyes kept, the last move's ataris answered, ladders read;
pattern, the default: light plus MoGo's 3x3 shapes around the last move; see the section below)
and its prior knowledge for new tree nodes, any board size.

The static value (``evaluate``, alpha-beta's and minimax's leaf value) is an area count as
Tromp-Taylor scoring would give it now (stones plus empty regions that touch one colour only, with
komi), adjusted for what the count cannot see: a chain in atari is the side to move's to take (or
its own to lose), and a chain of two liberties without two true eyes is short of liberties, a
weakness the opponent can attack. Both in points per stone (``WEIGHTS`` 6 and 7); before they
were there the atari term was ``tactical``'s weight 1 and the value had no liberty term. Tried
and left out, measured in alpha-beta self-play: influence (an empty point nearer one side's
stones counting for it) and a bonus per true eye both lost games at depths 2-3. The greedy score
of a move (``tactical``) rewards captures, putting adjacent groups in atari and rescuing own
groups from atari, and punishes self-atari and filling one's own eye (which is how a greedy
player kills itself).
"""

import numpy as np
from numba import njit

from ..core import kernel as C
from ..core import rng as R
from . import _kernel as K

# weights: 0 area point; ``tactical``'s 1 atari (per stone), 2 capture, 3 self-atari, 4 eye fill,
# 5 liberty; ``evaluate``'s 6 atari (per stone), 7 short of liberties (per stone)
WEIGHTS = np.array([1.0, 0.5, 3.0, 4.0, 100.0, 0.3, 1.5, 1.0], dtype=np.float64)
PASS_SCORE = -50.0


@K.called
def _size(p):
    return p[C.P_GAME]


@K.called
def _komi2(p):
    """Twice the komi (to White)."""
    return p[C.P_GAME + 1]


@K.called
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


@K.called
def evaluate(s, p, w):
    n = _size(p)
    nn = n * n
    me = s[C.H_PLAYER] + 1
    seen = np.zeros(nn, dtype=np.int64)
    stack = np.empty(nn, dtype=np.int64)
    done = np.zeros(nn, dtype=np.bool_)
    area = 0
    atari = 0.0
    short = 0.0
    stamp = 0
    for i in range(nn):
        if done[i]:
            continue
        stamp += 1
        v = s[C.HEADER + i]
        size, libs, touch = _flood(s, n, i, seen, stamp, stack)
        eyes = 0
        for j in range(nn):  # mark the region done (its cells carry this stamp and colour)
            if seen[j] == stamp:
                if s[C.HEADER + j] == v:
                    done[j] = True
                elif libs == 2 and eyes < 2 and is_eye(s, p, j, v):
                    eyes += 1  # a liberty of this chain that is its true eye
        if v == 0:
            if touch == me:
                area += size
            elif touch == 3 - me:
                area -= size
            continue
        sign = 1 if v == me else -1
        area += sign * size
        if libs == 1:
            atari -= sign * size
        elif libs == 2 and eyes < 2:
            short -= sign * size
    area2 = 2 * area + (-_komi2(p) if me == 1 else _komi2(p))
    return np.int64(10.0 * (w[0] * area2 / 2.0 + w[6] * atari + w[7] * short))


@K.called
def hint(s, p, a):
    n = _size(p)
    if a >= n * n:
        return -1000
    r, c = a // n, a % n
    return -abs(2 * r - (n - 1)) - abs(2 * c - (n - 1))


@K.called
def _count(s, n, colour):
    k = 0
    for i in range(n * n):
        k += s[C.HEADER + i] == colour
    return k


@K.called
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


# -- the playout policy ------------------------------------------------------------------------------
# Uniformly random playouts fill their own eyes, so every group dies in the end and the final count
# says little about the position. The "light" policy (MoGo-style light heuristics) keeps groups
# with two eyes alive and answers the last move's ataris, which is what makes MCTS count territory
# the way a Go player does. The "pattern" policy (the Go default) then looks, before a random
# move, for a point next to the last move where a stone makes a MoGo shape (hane, cut, edge moves):
# local answers make playouts fight over what the last move fought over. Everything runs on the
# kernel's incremental chain records (a chain in atari is one test, its liberty one division);
# only the self-atari test walks a chain's stones.
PLAYOUTS = ("random", "light", "pattern")  # the spec's playout names; code = index
LIGHT = 1
PATTERN = 2  # light, and MoGo's 3x3 shapes around the last move before a random move
_SELF_ATARI_SIZE = 2  # a move leaving its group in atari is refused from this many stones on

# MoGo's 3x3 playout patterns (Gelly, Wang, Munos and Teytaud 2006, as Michi writes them): the
# centre is the empty point to play; X and O are the two colours (each pattern stands for both
# ways round), x is anything but X (empty, O or off the board), o anything but O, # off the
# board, ? anything. A pattern holds in all eight rotations and reflections.
PATTERNS = (
    ("XOX", "...", "???"),  # hane: enclosing hane
    ("XO.", "...", "?.?"),  # hane: non-cutting hane
    ("XO?", "X..", "x.?"),  # hane: magari
    (".O.", "X..", "..."),  # katatsuke or diagonal attachment
    ("XO?", "O.o", "?o?"),  # cut: unprotected cut
    ("XO?", "O.X", "???"),  # cut: peeped cut
    ("?X?", "O.O", "ooo"),  # cut: de (push between)
    ("OX?", "o.O", "???"),  # cut: keima
    ("X.?", "O.?", "##?"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block side cut
    ("?X?", "x.O", "###"),  # edge: block side connection
    ("?XO", "x.x", "###"),  # edge: sagari
    ("?OX", "X.O", "###"),  # edge: cut
)
# what each letter allows, as a bit mask over the point codes 0 empty, 1 Black, 2 White, 3 off
_MEANS = {".": 0b0001, "X": 0b0010, "O": 0b0100, "#": 0b1000, "x": 0b1101, "o": 0b1011, "?": 0b1111}


def _pattern_table() -> np.ndarray:
    """``table[shape]``: whether a 3x3 neighbourhood code (``shape``) matches one of ``PATTERNS``
    in any rotation, reflection and colouring; 65,536 booleans, built with numpy at import."""
    codes = np.arange(1 << 16)
    bits = [1 << ((codes >> (2 * k)) & 3) for k in range(8)]  # the 8 neighbours, row by row
    rotate = (6, 3, 0, 7, 4, 1, 8, 5, 2)  # new[i] = old[rotate[i]]: a quarter turn
    mirror = (2, 1, 0, 5, 4, 3, 8, 7, 6)
    swap = str.maketrans("XOxo", "OXox")
    table = np.zeros(1 << 16, dtype=np.bool_)
    for rows in PATTERNS:
        grid = "".join(rows)
        for colours in (grid, grid.translate(swap)):
            for flip in (False, True):
                g = "".join(colours[i] for i in mirror) if flip else colours
                for _ in range(4):
                    ok = np.ones(1 << 16, dtype=np.bool_)
                    for k, i in enumerate((0, 1, 2, 3, 5, 6, 7, 8)):
                        ok &= (bits[k] & _MEANS[g[i]]) != 0
                    table |= ok
                    g = "".join(g[i] for i in rotate)
    return table


PATTERN_TABLE = _pattern_table()
# The same table packed 64 entries to an int64 word, for compiled code (``_is_pattern``): numba
# embeds a global array in the code of every function reading it, and of every function linking
# that one, where 65,536 booleans were a fifth of the code LLVM had to optimise again each time.
_PATTERN_WORDS = np.bitwise_or.reduce(
    PATTERN_TABLE.reshape(-1, 64).astype(np.int64) << np.arange(64, dtype=np.int64), axis=1
)


@njit(cache=True, inline="always")
def shape(s, p, a):
    """The 3x3 neighbourhood of point ``a`` as a 16-bit code: its eight neighbours row by row
    (top left first), two bits each: 0 empty, 1 Black, 2 White, 3 off the board."""
    n = p[K.P_SIZE]
    r, c = a // n, a % n
    code = 0
    k = 0
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            if dr == 0 and dc == 0:
                continue
            rr, cc = r + dr, c + dc
            v = 3
            if 0 <= rr < n and 0 <= cc < n:
                v = s[C.HEADER + rr * n + cc]
            code |= v << (2 * k)
            k += 1
    return code


@njit(cache=True, inline="always")
def _is_pattern(code):
    """``PATTERN_TABLE[code]`` for a ``shape`` code, read from the packed words."""
    return (_PATTERN_WORDS[code >> 6] >> (code & 63)) & 1 != 0


@njit(cache=True, inline="always")
def _atari_point(s, p, h):
    """The one liberty of chain ``h`` (a head) in atari: all its pseudo-liberties are that point."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    return s[x + K.LSUM * nn + h] // s[x + K.NLIB * nn + h]


@K.called
def is_eye(s, p, a, colour):
    """Whether empty point ``a`` is a true single-point eye of ``colour``: every orthogonal
    neighbour is a ``colour`` stone, and of the diagonal points the enemy holds none when ``a``
    is on the edge or in a corner, at most one in the middle (else the eye is false: the enemy
    can cut it off by an atari)."""
    n = p[K.P_SIZE]
    for d in range(4):
        t = p[K.P_NBR + 4 * a + d]
        if t >= 0 and s[C.HEADER + t] != colour:
            return False
    r, c = a // n, a % n
    enemy = 0
    edge = False
    for dr in (-1, 1):
        for dc in (-1, 1):
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n:
                enemy += s[C.HEADER + rr * n + cc] == 3 - colour
            else:
                edge = True
    return enemy == 0 if edge else enemy < 2


@K.called
def liberties_after(s, p, a, colour, most):
    """``(liberties, stones)`` of the group a ``colour`` stone on empty point ``a`` would make,
    liberties counted up to ``most`` (2 or 3; the last count meaning that many or more): the
    empty neighbours, the points of enemy chains it captures, and the other liberties of the own
    chains it joins. Callers pass ``most`` as ``np.int64``: numba compiles a function once more
    for every literal number it is called with."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    first = second = -1
    libs = 0
    stones = 1
    seen0 = seen1 = seen2 = -1
    for d in range(4):
        t = p[K.P_NBR + 4 * a + d]
        if t < 0:
            continue
        v = s[C.HEADER + t]
        if v == 0 or (v == 3 - colour and K._in_atari(s, p, s[x + K.HEAD * nn + t])):
            if t != first and t != second:  # an empty neighbour, or a stone this move captures
                libs += 1
                if libs == most:
                    return libs, stones
                if first < 0:
                    first = t
                else:
                    second = t
            continue
        if v != colour:
            continue
        k = s[x + K.HEAD * nn + t]
        if k == seen0 or k == seen1 or k == seen2:
            continue
        if d == 0:
            seen0 = k
        elif d == 1:
            seen1 = k
        else:
            seen2 = k
        stones += s[x + K.SIZE * nn + k]
        if K._in_atari(s, p, k):
            continue  # its one liberty is a
        q = k
        while True:  # the chain's liberties other than a
            for e in range(4):
                u = p[K.P_NBR + 4 * q + e]
                if u >= 0 and u != a and u != first and u != second and s[C.HEADER + u] == 0:
                    libs += 1
                    if libs == most:
                        return libs, stones
                    if first < 0:
                        first = u
                    else:
                        second = u
            q = s[x + K.NEXT * nn + q]
            if q == k:
                break
    return libs, stones


# -- ladders ---------------------------------------------------------------------------------------
# Extending a chain out of atari to two liberties only helps if the enemy cannot keep it in atari
# until it dies: a ladder. Playouts miss it (the attacker's next atari is one random move among
# many), so without a reading they score the extension as saved and the chain as alive, and the
# search, trusting them, runs the chain across the board. The reading below is the one Go
# programs make at this point (GNU Go, Pachi, Michi): the attacker ataris on either liberty,
# the defender extends or takes an attacking chain left in atari, until the chain has three
# liberties (escaped) or one it cannot get out of (captured).
_LADDER_PLIES = 300  # stones a reading may play (replays included); past it the chain escapes
_LADDER_DEPTH = 32  # attacker moves deep a ladder may run before it counts as escaped


@K.called
def _liberties(s, p, h, out):
    """The distinct liberties of chain ``h`` (a head), up to 3: their count (3 meaning three or
    more), the first two written to ``out``."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    libs = 0
    q = h
    while True:
        for e in range(4):
            u = p[K.P_NBR + 4 * q + e]
            if u < 0 or s[C.HEADER + u] != 0:
                continue
            if (libs == 0 or u != out[0]) and (libs < 2 or u != out[1]):  # not counted yet
                if libs == 2:
                    return 3
                out[libs] = u
                libs += 1
        q = s[x + K.NEXT * nn + q]
        if q == h:
            return libs


@K.called
def _counter_capture(s, p, h):
    """Whether a chain of the enemy of chain ``h`` next to it is in atari (the defender of a
    ladder takes it and gets out)."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    colour = s[C.HEADER + h]
    q = h
    while True:
        for e in range(4):
            u = p[K.P_NBR + 4 * q + e]
            if u >= 0 and s[C.HEADER + u] == 3 - colour:
                if K._in_atari(s, p, s[x + K.HEAD * nn + u]):
                    return True
        q = s[x + K.NEXT * nn + q]
        if q == h:
            return False


@K.called
def ladder_escapes(s, p, a):
    """Whether the side to move, playing on empty point ``a`` next to its chain in atari (its
    liberty), saves the chain from a ladder: the chain then has three liberties or more, or two
    and every sequence of enemy ataris fails (the section's comment). ``s`` is left as it is.
    Readings past ``_LADDER_PLIES`` stones or ``_LADDER_DEPTH`` ataris count as escapes. Most
    calls end at the liberty count (``liberties_after``: three, or fewer than two) and copy
    nothing.

    Depth-first over the attacker's two ataris at each depth (the defender's reply is forced);
    one atari that captures decides the reading. Stones go down with the kernel's ``place``
    on copies of the board and chain records only (no history, hash or ko: a ladder does not
    repeat), and ``base`` holds the position at the current depth, so an atari that fails at
    once costs two stones and only a return to a shallower depth replays the sequence."""
    colour = s[C.H_PLAYER] + 1
    count = liberties_after(s, p, a, colour, np.int64(3))[0]
    if count != 2:
        return count == 3
    size, d = K.fields(p), _LADDER_DEPTH  # the board and chain records: what ``_place`` reads
    room = size + K.O_BOARD + 1  # ``_place`` also updates the board hash after them
    scratch = np.empty(2 * room + 5 * d + 3, dtype=np.int64)  # one allocation: a read is hot
    work, base = scratch[:room], scratch[room : 2 * room]
    seq = scratch[2 * room : 2 * room + 2 * d + 1]  # a, then (atari, extension) per depth
    opts = scratch[2 * room + 2 * d + 1 : 2 * room + 4 * d + 1]  # the two ataris at depth k: 2k, 2k+1
    tried = scratch[2 * room + 4 * d + 1 : 2 * room + 5 * d + 1]  # how many of them were read
    libs = scratch[2 * room + 5 * d + 1 :]
    tried[0] = 0
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    C.copy(work, s, size)
    K.place(work, p, a, colour)
    _liberties(work, p, work[x + K.HEAD * nn + a], libs)  # the two, into the first atari options
    C.copy(base, work, size)
    seq[0] = a
    opts[0], opts[1] = libs[0], libs[1]
    depth = have = 0  # ``base`` holds the position at depth ``have``
    plies = 1
    while True:
        if tried[depth] == 2:  # both ataris at this depth fail: so did the atari that led here
            if depth == 0:
                return True
            depth -= 1
            tried[depth] += 1
            continue
        if plies > _LADDER_PLIES:
            return True
        if have != depth:
            C.copy(base, s, size)
            for i in range(2 * depth + 1):
                K.place(base, p, seq[i], colour if i % 2 == 0 else 3 - colour)
            plies += 2 * depth + 1
            have = depth
        C.copy(work, base, size)
        atari = opts[2 * depth + tried[depth]]
        plies += 2
        K.place(work, p, atari, 3 - colour)
        h = work[x + K.HEAD * nn + a]
        fails = work[C.HEADER + atari] == 0 or not K._in_atari(work, p, h)
        if fails or _counter_capture(work, p, h):
            tried[depth] += 1  # a suicide, no atari, or one the defender answers by a capture
            continue
        run = _atari_point(work, p, h)
        K.place(work, p, run, colour)
        if work[C.HEADER + a] == 0:
            return False  # running was a suicide
        count = _liberties(work, p, work[x + K.HEAD * nn + a], libs)
        if count < 2:
            return False
        if count > 2 or depth + 1 == _LADDER_DEPTH:
            tried[depth] += 1
            continue
        seq[2 * depth + 1], seq[2 * depth + 2] = atari, run
        depth += 1
        opts[2 * depth], opts[2 * depth + 1] = libs[0], libs[1]
        tried[depth] = 0
        C.copy(base, work, size)
        have = depth


@K.called
def _ladder_captures(s, p, a, t):
    """Whether the side to move, playing on ``a`` and so putting the enemy chain of stone ``t``
    (two liberties, ``a`` one of them) in atari, captures it: the chain can neither take an
    attacking chain in atari nor run out of the ladder (``ladder_escapes``)."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    work = s.copy()
    K.apply(work, p, a)
    if work[C.H_STATUS] != C.ONGOING or work[C.HEADER + t] == 0:
        return False
    h = work[x + K.HEAD * nn + t]
    if not K._in_atari(work, p, h) or _counter_capture(work, p, h):
        return False
    run = _atari_point(work, p, h)
    return not K.allowed(work, p, run) or not ladder_escapes(work, p, run)


@njit(cache=True, inline="always")
def _acceptable(s, p, a, colour):
    """A random playout move the light policy allows: legal, not filling a true own eye, and not
    putting a group of ``_SELF_ATARI_SIZE`` or more stones into atari."""
    if is_eye(s, p, a, colour) or not K._allowed(s, p, a):
        return False
    libs, stones = liberties_after(s, p, a, colour, np.int64(2))
    return libs >= 2 or stones < _SELF_ATARI_SIZE


@njit(cache=True, inline="always")
def _add(cands, n, a):
    """Append ``a`` to the first ``n`` candidates unless already there; return the new count."""
    for i in range(n):
        if cands[i] == a:
            return n
    cands[n] = a
    return n + 1


@K.called
def _answers(s, p, cands):
    """Moves answering the last move (an enemy stone at ``H_LAST``) into ``cands``; their count.

    Capture the chain of the last stone if it is in atari; for each own chain next to it that
    the move put in atari, capture an enemy chain in atari around it, or extend on its liberty
    when that leaves the group two liberties or more and out of a ladder (``ladder_escapes``).
    """
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    x = C.HEADER + nn
    last = s[C.H_LAST]
    colour = s[C.H_PLAYER] + 1
    if last < 0 or last >= nn or s[C.HEADER + last] != 3 - colour:
        return 0
    n = 0
    h = s[x + K.HEAD * nn + last]
    if K._in_atari(s, p, h):
        n = _add(cands, n, _atari_point(s, p, h))
    for d in range(4):
        t = p[K.P_NBR + 4 * last + d]
        if t < 0 or s[C.HEADER + t] != colour:
            continue
        k = s[x + K.HEAD * nn + t]
        if not K._in_atari(s, p, k):
            continue
        q = k
        while True:  # enemy chains in atari around the threatened chain
            for e in range(4):
                u = p[K.P_NBR + 4 * q + e]
                if u >= 0 and s[C.HEADER + u] == 3 - colour:
                    j = s[x + K.HEAD * nn + u]
                    if K._in_atari(s, p, j):
                        n = _add(cands, n, _atari_point(s, p, j))
            q = s[x + K.NEXT * nn + q]
            if q == k:
                break
        escape = _atari_point(s, p, k)
        if ladder_escapes(s, p, escape):
            n = _add(cands, n, escape)
    return n


@njit(cache=True, inline="always")
def _pattern_answers(s, p, cands):
    """Empty points around the last move (its eight neighbours) where a stone would make one of
    the ``PATTERNS`` shapes, into ``cands``; their count."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    n_side = p[K.P_SIZE]
    last = s[C.H_LAST]
    if last < 0 or last >= nn:
        return 0
    r, c = last // n_side, last % n_side
    m = 0
    for dr in range(-1, 2):
        for dc in range(-1, 2):
            rr, cc = r + dr, c + dc
            if (dr != 0 or dc != 0) and 0 <= rr < n_side and 0 <= cc < n_side:
                a = rr * n_side + cc
                if s[C.HEADER + a] == 0 and _is_pattern(shape(s, p, a)):
                    cands[m] = a
                    m += 1
    return m


@K.inlined
def _policy_move(s, p, rng, empty, where, n, cands, patterns):
    """The light policy's move (``light_move``), with ``patterns`` the pattern step before the
    random one."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    colour = s[C.H_PLAYER] + 1
    m = _answers(s, p, cands)
    while m > 0:
        k = R.randint(rng, m)
        a = cands[k]
        if K._allowed(s, p, a):
            return a
        m -= 1
        cands[k] = cands[m]
    if patterns:
        m = _pattern_answers(s, p, cands)
        while m > 0:
            k = R.randint(rng, m)
            a = cands[k]
            if _acceptable(s, p, a, colour):
                return a
            m -= 1
            cands[k] = cands[m]
    live = n
    while live > 0:
        k = R.randint(rng, live)
        a = empty[k]
        if _acceptable(s, p, a, colour):
            return a
        live -= 1
        K._swap(empty, where, k, live)
    return nn


@K.called
def light_move(s, p, rng, empty, where, n, cands):
    """The light policy's move: an answer to the last move if one is legal (chosen at random among
    them), else a uniformly random move among the ``n`` listed empty points that ``_acceptable``
    allows, else pass. Rejected points are swapped past the live part of the list, as in the
    kernel's random playouts, so each draw is uniform over the points not yet tried."""
    return _policy_move(s, p, rng, empty, where, n, cands, False)


@K.called
def pattern_move(s, p, rng, empty, where, n, cands):
    """The pattern policy's move: ``light_move`` with one more step between the answers and the
    random move: a point next to the last move (of its eight) that matches a ``PATTERNS`` shape
    and that ``_acceptable`` allows, chosen at random among them (MoGo's playout order)."""
    return _policy_move(s, p, rng, empty, where, n, cands, True)


@K.called
def traced_playout(s, p, rng, moves, policy, trace):
    """Finish the game in ``s`` with ``policy`` (LIGHT, or uniformly random moves as the kernel's
    ``random_playout`` draws them), writing each move and its mover into ``trace[i, 0]`` and
    ``trace[i, 1]`` while there is room; return how many were written (RAVE's record). Passes
    are not written: every playout ends with both sides passing, so AMAF would rate a pass at the
    playouts' mean result wherever it is played, and a middle-game pass would look as good as
    the position (MoGo and Fuego leave passes out of RAVE too).

    Under the light policy both sides pass only when nothing but own eyes and large self-ataris
    is left, so the end is scored as a Go player would count it."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    scratch = np.empty(3 * nn, dtype=np.int64)  # answers are distinct points: at most nn
    empty, where, cands = scratch[:nn], scratch[nn : 2 * nn], scratch[2 * nn :]
    n = K._list_empty(s, p, empty, where)
    length = 0
    while s[C.H_STATUS] == C.ONGOING:
        if policy == LIGHT or policy == PATTERN:
            a = _policy_move(s, p, rng, empty, where, n, cands, policy == PATTERN)
        else:
            a = K._random_move(s, p, rng, empty, where, n)
        if a < nn and length < trace.shape[0]:  # passes earn no AMAF credit (docstring)
            trace[length, 0] = a
            trace[length, 1] = s[C.H_PLAYER]
            length += 1
        captured = K._play(s, p, a)
        if a < nn:
            n = K._relist(s, p, a, captured, empty, where, n)
    return length


@K.called
def playout(s, p, rng, moves, policy):
    """Finish the game in ``s`` with a Go playout policy: LIGHT (above) or uniformly random."""
    traced_playout(s, p, rng, moves, policy, np.empty((0, 2), dtype=np.int64))


# -- prior knowledge for the search tree ----------------------------------------------------------
# MCTS with RAVE rates a new node by its AMAF value until it has simulations of its own; a node's
# priors start that value from virtual simulations (Gelly and Silver 2007, MoGo's "heuristic
# MC-RAVE"; the terms as Pachi's): every move EVEN of them at 1/2, and then virtual wins or losses
# for what a Go player sees at once. In virtual simulations (real AMAF counts of a node's children
# reach such numbers after a few dozen simulations through it, so priors steer young nodes and
# fade from the old ones):
PRIOR_EVEN = 20.0  # every move but pass, at 1/2 (no move looks better than the others untried)
PRIOR_EYE = 200.0  # losses: filling an own true eye (never, unless nothing else is left)
PRIOR_CAPTURE = 30.0  # wins: capturing a chain
# wins: the light playout's answers to the last move (capture it, save
# the chain it put in atari)
PRIOR_ANSWER = 20.0
# wins: saving an own chain in atari (to two liberties or more and
# out of a ladder; extending into a ladder counts as a self-atari)
PRIOR_ESCAPE = 20.0
PRIOR_SELF_ATARI = 40.0  # losses: putting a group of two stones or more into atari
PRIOR_LADDER = 30.0  # wins: an atari on a two-liberty chain that captures it in a ladder
PRIOR_NEAR = 10.0  # wins: one of the eight points around the last move
PRIOR_SHAPE = 15.0  # wins: a ``PATTERNS`` shape
PRIOR_EDGE = (20.0, 10.0)  # losses: a first- or second-line move with no stone two points around
# losses: passing while a move the light policy would play is left and the opponent has not just
# passed. The game goes on after a pass (the opponent need not pass back), so a pass is a free
# move for the opponent; a search of a few hundred simulations cannot see what that move costs
# (a group killed), and without this it passed in won middle games.
PRIOR_PASS = 100.0


@njit(cache=True, inline="always")
def _alone(s, p, a):
    """Whether no stone stands within Manhattan distance 2 of point ``a``."""
    n = p[K.P_SIZE]
    r, c = a // n, a % n
    for dr in range(-2, 3):
        for dc in range(abs(dr) - 2, 3 - abs(dr)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n and s[C.HEADER + rr * n + cc] != 0:
                return False
    return True


@K.called
def priors(s, p, moves, n, out):
    """Prior knowledge of the ``n`` legal ``moves`` of ``s`` for a new tree node: virtual
    simulations into ``out[i, 0]`` and their mean value for the mover into ``out[i, 1]``
    (the ``PRIOR_*`` terms above)."""
    nn = p[K.P_SIZE] * p[K.P_SIZE]
    size = p[K.P_SIZE]
    x = C.HEADER + nn
    colour = s[C.H_PLAYER] + 1
    last = s[C.H_LAST]
    on_board = 0 <= last < nn and s[C.HEADER + last] == 3 - colour
    cands = np.empty(nn, dtype=np.int64)
    pair = np.empty(2, dtype=np.int64)
    m = _answers(s, p, cands)
    at_pass = -1
    playable = False  # a move the light policy would play instead of passing
    for i in range(n):
        a = moves[i]
        if a == nn:  # pass: rated after the loop
            at_pass = i
            continue
        visits, wins = PRIOR_EVEN, 0.5 * PRIOR_EVEN
        if is_eye(s, p, a, colour):
            visits += PRIOR_EYE
        else:
            captured = 0
            escape = False
            chased = np.int64(-1)  # an enemy chain of two liberties the move puts in atari
            # (np.int64: a literal -1 would have numba compile _ladder_captures for it too)
            for d in range(4):
                t = p[K.P_NBR + 4 * a + d]
                if t < 0 or s[C.HEADER + t] == 0:
                    continue
                h = s[x + K.HEAD * nn + t]
                if K._in_atari(s, p, h):
                    if s[C.HEADER + t] == colour:
                        escape = True
                    else:
                        captured += 1
                elif s[C.HEADER + t] != colour and _liberties(s, p, h, pair) == 2:
                    chased = t
            libs, stones = liberties_after(s, p, a, colour, np.int64(2))
            playable = playable or libs >= 2 or stones < _SELF_ATARI_SIZE
            if captured > 0:
                visits += PRIOR_CAPTURE
                wins += PRIOR_CAPTURE
            elif libs < 2 and stones >= _SELF_ATARI_SIZE:
                visits += PRIOR_SELF_ATARI
            elif chased >= 0 and libs >= 2 and _ladder_captures(s, p, a, chased):
                visits += PRIOR_LADDER
                wins += PRIOR_LADDER
            if escape and libs >= 2:
                if ladder_escapes(s, p, a):
                    visits += PRIOR_ESCAPE
                    wins += PRIOR_ESCAPE
                else:
                    visits += PRIOR_SELF_ATARI
            for j in range(m):
                if cands[j] == a:
                    visits += PRIOR_ANSWER
                    wins += PRIOR_ANSWER
                    break
            if on_board and max(abs(a // size - last // size), abs(a % size - last % size)) == 1:
                visits += PRIOR_NEAR
                wins += PRIOR_NEAR
            if _is_pattern(shape(s, p, a)):
                visits += PRIOR_SHAPE
                wins += PRIOR_SHAPE
            line = min(a // size, a % size, size - 1 - a // size, size - 1 - a % size)
            if line < 2 and _alone(s, p, a):
                visits += PRIOR_EDGE[line]
        out[i, 0] = visits
        out[i, 1] = wins / visits
    if at_pass >= 0:
        # after the opponent's pass, or with nothing left to play, passing is the game's end:
        # no knowledge (its own simulations rate it)
        idle = s[K.fields(p) + K.O_PASSES] == 1 or not playable
        out[at_pass, 0] = 0.0 if idle else PRIOR_PASS
        out[at_pass, 1] = 0.0
