"""Gomoku's own alpha-beta search kernel (numba), as Gomocup engines search: alpha-beta's
``search="game"`` plays with it (``agents.alphabeta``), as Othello's exact solver lives in
``envs.othello.endgame``.

The generic alpha-beta sees a Gomoku position through hooks that recompute everything at every
node (the live-window evaluation reads all ~1,000 windows of a 15x15 board) and searches every
point near a stone, so at 1 s a move it reaches 3 to 4 plies, and an opponent's threat two moves
deeper goes unseen until no defence is left. This kernel keeps what a classical engine keeps:

  * a bordered board and, for every empty point, each colour and each of the four lines, the
    *pattern* that colour would make by playing there (five, open four, four, open three, three,
    open two, two, nothing), read from a table over the eight neighbouring cells of the line
    (``patterns()``, built once) and updated incrementally: every point keeps the base-3 codes
    of its four lines, a stone changes one digit of the codes of the points within four cells
    along its lines, and the empty ones among them read their patterns again;
  * a Zobrist hash, updated with each stone, and a transposition table (value, bound, depth and
    best move in one word, as ``agents.alphabeta`` packs them);
  * the threats read from the patterns at every node, before any move is searched: a five-point
    of the side to move wins; two of the opponent's lose; one of the opponent's is the only move,
    played without costing depth (a four's forced answer is no choice); a point where the side
    to move makes an open four or a double four wins in three; against the opponent's point for
    an open four (an open three) only the moves that stop it (the points of the opponent's fours)
    and the side to move's own fours are searched;
  * candidate moves (points within two cells of a stone) ranked by their patterns for both
    colours (attack plus defence), the best ``WIDTH`` searched below the root;
  * at the horizon, the side to move's fours only (a VCF search inside the tree: each four is
    answered by its forced block, free of depth) beside the static value, ``QUIESCENCE`` fours
    deep;
  * iterative deepening with principal variation search and the history heuristic;
  * the static value: the patterns of every candidate point summed for each colour (``VALUE``),
    the side to move's minus the opponent's.

Works for every board size (7 to 19) and both rules (an overline wins in freestyle; only exactly
five wins with ``exact_five``: a five-point is checked along its whole line there).
"""

import numpy as np
from numba import njit

from ..core import kernel as C

INF = 1_000_000  # agents.evaluation.INF: a won game at ply k scores INF - k
PAD = 4  # border cells on each side of the bordered board
BORDER = 3
MAX_PLY = 96  # plies below the root (iterative deepening, forced answers and fours included)
MAX_DEPTH = 40
WIDTH = 12  # candidate moves searched at an interior node (the best by pattern value)
ROOT_WIDTH = 40  # and at the root
QUIESCENCE = 6  # own fours tried beyond the horizon (each answered by its forced block)

# Patterns of one colour playing on an empty point, along one line.
NONE, B2, F2, B3, F3, B4, F4, FIVE = range(8)
# Static value of a candidate point's pattern for its colour (summed over points and lines).
VALUE = np.array([0, 1, 4, 4, 16, 18, 60, 0], dtype=np.int64)
# Ordering value of a point's pattern (attack, and the same for defence), and the combinations.
ORDER = np.array([0, 2, 6, 6, 30, 40, 800, 20_000], dtype=np.int64)
DOUBLE_FOUR, FOUR_THREE, DOUBLE_THREE = 800, 600, 300

# info slots
NODES, ABORT, DEADLINE_HIT, EXACT_DEPTH_TT = 0, 1, 2, 3
T_KEY, T_DATA = 0, 1
# frame columns: one row per ply of the explicit search stack
F_SIDE, F_DEPTH, F_ALPHA, F_BETA, F_ALPHA0, F_BEST, F_BEST_MOVE, F_N, F_I = range(9)
F_CHILD_DEPTH, F_HORIZON, F_KEY, F_STORE, F_STAGE, F_VAL, F_COLUMNS = range(9, 16)
NULL_WINDOW, FULL = 0, 1  # how the move being searched was searched last
EXACT, LOWER, UPPER = 0, 1, 2
NO_TT_DEPTH = 0  # depth stored with no entry: entries hold depth + 1 (an all-zero word is empty)

# -- threat-space search (``threat_search``) --------------------------------------------------------
# The same kernel proves a forced win by threats, as Gomocup engines read VCT: the attacker plays
# only threats (its fours, and its open threes while depth is left; past the depth, fours alone: a
# VCF, which costs no depth and ends by itself); the defender answers a three with the points
# where the attacker would make a four (every block of the three is one of them) or a four of its
# own, and a four with its block, both at no cost in depth. A defender left with no threat to
# answer has escaped. A win is INF - ply as in the full search; anything else is UNPROVEN for the
# defender. Unlike ``evaluation._vct``, which tries every empty point as the defender's reply, the
# defences are read from the patterns: many threes deep in the time of one, as sound as the
# blocks are.
UNPROVEN = INF // 2  # the defender's value where the attacker has no proven win
VCT_SALT = 0x5DEECE66D  # key offset per attacker colour: a table's entries are one attacker's proofs


@njit(cache=True)
def _run_through(line, z, exact):
    """Whether the own stones of ``line`` (nine cells: 0 empty, 1 own, 2 blocked), ``z`` own,
    make five through ``z`` that also covers the centre (index 4)."""
    lo = z
    while lo > 0 and line[lo - 1] == 1:
        lo -= 1
    hi = z
    while hi < 8 and line[hi + 1] == 1:
        hi += 1
    length = hi - lo + 1
    if lo > 4 or hi < 4:
        return False
    return length == 5 or (length > 5 and not exact)


@njit(cache=True)
def _five_points(line, exact):
    """Empty points of ``line`` where one more own stone makes five through the centre."""
    n = 0
    for z in range(9):
        if line[z] == 0:
            line[z] = 1
            if _run_through(line, z, exact):
                n += 1
            line[z] = 0
    return n


@njit(cache=True)
def _level(line, exact, stones):
    """With ``stones`` (0 to 2) more own stones on ``line`` (centre already own), the most
    five-points through the centre they can leave: 2 (an open four, or two fours), 1 or 0.
    Loops, not recursion: numba's cache cannot load a recursive function's callers."""
    best = 0
    for z1 in range(9 if stones >= 1 else 1):
        if stones >= 1:
            if line[z1] != 0:
                continue
            line[z1] = 1
        for z2 in range(z1 + 1 if stones >= 2 else 0, 9 if stones >= 2 else 1):
            if stones >= 2:
                if line[z2] != 0:
                    continue
                line[z2] = 1
            f = _five_points(line, exact)
            if f > best:
                best = min(f, 2)
            if stones >= 2:
                line[z2] = 0
        if stones >= 1:
            line[z1] = 0
    return best


@njit(cache=True)
def _build_patterns(exact):
    """``patterns()[exact][code]``: the pattern a colour makes by playing the centre of a line whose
    eight neighbours (cells -4..-1, +1..+4; 0 empty, 1 own, 2 other colour or off the board) are
    ``code`` in base 3, lowest digit first."""
    table = np.zeros(3**8, dtype=np.uint8)
    line = np.zeros(9, dtype=np.int64)
    for code in range(3**8):
        x = code
        for i in range(9):
            if i == 4:
                line[i] = 1
                continue
            line[i] = x % 3
            x //= 3
        if _run_through(line, 4, exact):
            table[code] = FIVE
            continue
        f = _level(line, exact, 0)
        if f == 2:
            table[code] = F4
        elif f == 1:
            table[code] = B4
        else:
            g = _level(line, exact, 1)
            if g == 2:
                table[code] = F3
            elif g == 1:
                table[code] = B3
            else:
                h = _level(line, exact, 2)
                table[code] = F2 if h == 2 else (B2 if h == 1 else NONE)
    return table


_patterns: list = []


def patterns() -> np.ndarray:
    """The pattern tables of both rules, ``patterns()[exact][code]`` (see ``_build_patterns``),
    built on first use: building them compiles ``_build_patterns`` when numba's cache is empty,
    which belongs to an agent's warm-up, where it is announced, not to ``import envs``."""
    if not _patterns:
        _patterns.append(np.stack([_build_patterns(False), _build_patterns(True)]))
    return _patterns[0]


ZOBRIST = C.zobrist_table(2 * (19 + 2 * PAD) ** 2, salt=11).reshape(2, (19 + 2 * PAD) ** 2)


@njit(cache=True)
def _line_codes(board, y, k):
    """Base-3 codes of the eight neighbours of ``y`` along step ``k``, for Black and for White."""
    cb = 0
    cw = 0
    m = 1
    for i in range(-4, 5):
        if i == 0:
            continue
        v = board[y + i * k]
        if v == 1:
            cb += m
            cw += 2 * m
        elif v == 2:
            cb += 2 * m
            cw += m
        elif v == BORDER:
            cb += 2 * m
            cw += 2 * m
        m *= 3
    return cb, cw


# ``[j + 4]``: the weight of the neighbour at offset ``j`` (-4..4, not 0) in a line code, the
# base-3 digits ``_line_codes`` reads from -4 up to +4
DIGIT_POWERS = np.array([0 if j == 0 else 3 ** (j + 4 if j < 0 else j + 3) for j in range(-4, 5)], dtype=np.int64)


@njit(cache=True)
def _update(board, pat, table, codes, steps, x, colour, sign):
    """A ``colour`` stone placed on ``x`` (``sign`` 1) or taken from it (-1): the line codes
    (``_line_codes``) of the points within four cells along its lines change by one digit, and
    the empty ones among them (``x`` itself too once empty) take their patterns from them."""
    black = sign * (1 if colour == 1 else 2)  # the digit's change in Black's code, and White's
    white = sign * (2 if colour == 1 else 1)
    for d in range(4):
        k = steps[d]
        for i in range(-4, 5):
            if i == 0:
                continue
            y = x + i * k
            b = board[y]
            if b == BORDER:
                if i < 0:
                    continue
                break
            power = DIGIT_POWERS[4 - i]  # ``x`` is at offset -i from ``y``
            codes[0, y, d] += black * power
            codes[1, y, d] += white * power
            if b == 0:
                pat[0, y, d] = table[codes[0, y, d]]
                pat[1, y, d] = table[codes[1, y, d]]
    if board[x] == 0:
        for d in range(4):
            pat[0, x, d] = table[codes[0, x, d]]
            pat[1, x, d] = table[codes[1, x, d]]


@njit(cache=True)
def _place(board, pat, near, table, codes, steps, w, hsh, x, colour):
    board[x] = colour
    hsh[0] ^= ZOBRIST[colour - 1, x]
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            near[x + dr * w + dc] += 1
    _update(board, pat, table, codes, steps, x, colour, 1)


@njit(cache=True)
def _remove(board, pat, near, table, codes, steps, w, hsh, x):
    colour = board[x]
    board[x] = 0
    hsh[0] ^= ZOBRIST[colour - 1, x]
    for dr in range(-2, 3):
        for dc in range(-2, 3):
            near[x + dr * w + dc] -= 1
    _update(board, pat, table, codes, steps, x, colour, -1)


@njit(cache=True)
def _true_five(board, x, colour, steps, exact):
    """Whether ``colour`` playing on empty ``x`` makes a winning line (whole lines read)."""
    for d in range(4):
        k = steps[d]
        length = 1
        y = x + k
        while board[y] == colour:
            length += 1
            y += k
        y = x - k
        while board[y] == colour:
            length += 1
            y -= k
        if length == 5 or (length > 5 and not exact):
            return True
    return False


@njit(cache=True)
def _true_win3(board, y, colour, steps, exact):
    """Whether ``colour`` playing on empty ``y`` leaves two five-points or more, whole lines
    read (the table sees four cells each way: with exact five, a longer run beyond them can
    spoil a five-point it counts)."""
    board[y] = colour
    count = 0
    first = -1
    for d in range(4):
        k = steps[d]
        for step in (k, -k):
            x = y + step
            while board[x] == colour:
                x += step
            if board[x] == 0 and x != first and _true_five(board, x, colour, steps, exact):
                count += 1
                first = x
    board[y] = 0
    return count >= 2


@njit(cache=True)
def _kind(pat, c, y):
    """(best pattern over the four lines, fours, open threes) of colour index ``c`` at ``y``."""
    best = 0
    fours = 0
    threes = 0
    for d in range(4):
        v = pat[c, y, d]
        if v > best:
            best = v
        if v == B4:
            fours += 1
        elif v == F3:
            threes += 1
    return best, fours, threes


@njit(cache=True)
def _order_value(pat, c, y):
    v = 0
    for d in range(4):
        v += ORDER[pat[c, y, d]]
    best, fours, threes = _kind(pat, c, y)
    if fours >= 2:
        v += DOUBLE_FOUR
    elif fours and threes:
        v += FOUR_THREE
    elif threes >= 2:
        v += DOUBLE_THREE
    return v


@njit(cache=True)
def _keep_threats(pat, c, mv, ky, n, threes):
    """Keep, first in ``mv[:n]`` and ``ky``, the points where colour index ``c`` makes a four
    (and an open three, with ``threes``); return how many."""
    k = 0
    for i in range(n):
        y = mv[i]
        _, fours, open_threes = _kind(pat, c, y)
        if fours > 0 or (threes and open_threes > 0):
            mv[k] = y
            ky[k] = ky[i]
            k += 1
    return k


@njit(cache=True)
def _keep_blocks(pat, c, mv, ky, n):
    """Against the other colour's open three: keep the points where it would make a four or
    more (every block of the three is one of them) and those where colour index ``c`` makes a
    four of its own; return how many."""
    k = 0
    for i in range(n):
        y = mv[i]
        if _kind(pat, 1 - c, y)[0] >= B4 or _kind(pat, c, y)[1] > 0:
            mv[k] = y
            ky[k] = ky[i]
            k += 1
    return k


@njit(cache=True)
def _to_tt(v, ply):
    if v > INF - 1000:
        return v + ply
    if v < -(INF - 1000):
        return v - ply
    return v


@njit(cache=True)
def _from_tt(v, ply):
    if v > INF - 1000:
        return v - ply
    if v < -(INF - 1000):
        return v + ply
    return v


@njit(cache=True)
def _enter(
    board, pat, near, steps, w, exact, hsh, ply, moves, keys, tt, history, info, deadline, cells, allowed, fr, vct,
):  # fmt: skip
    """Enter the node at ``ply`` (side, depth and window already in ``fr[ply]``; see the module
    docstring for the rules applied). True when it is resolved without searching a move (value
    in ``fr[ply, F_VAL]``); else its moves are ranked in ``moves[ply]`` and ``fr[ply]`` is ready
    for the first of them. ``vct``: the attacker's colour in a threat-space search (see
    ``threat_search``), 0 in the full search."""
    side = fr[ply, F_SIDE]
    depth = fr[ply, F_DEPTH]
    alpha = fr[ply, F_ALPHA]
    beta = fr[ply, F_BETA]
    info[NODES] += 1
    if deadline > 0.0 and (info[NODES] & 4095) == 0 and C.now() > deadline:
        info[ABORT] = 1
    if info[ABORT]:
        fr[ply, F_VAL] = 0
        return True
    me = side - 1
    op = 1 - me
    # the threats on the board, the candidates and the static value, in one pass
    my_five = -1
    op_five = -1
    op_fives = 0
    my_win3 = -1  # an open four or a double four of the side to move
    op_three = False  # the opponent has a point for an open four
    mine = 0
    theirs = 0
    n = 0
    mv = moves[ply]
    ky = keys[ply]
    any_allowed = ply == 0 and allowed.sum() > 0
    for y in range(cells):
        if board[y] != 0 or near[y] == 0:
            continue
        mb = 0  # the best pattern of each colour here, and the side to move's fours
        ob = 0
        mf = 0
        for d in range(4):  # each line read once: the threats and the static value
            q = pat[me, y, d]
            mine += VALUE[q]
            if q > mb:
                mb = q
            if q == B4:
                mf += 1
            q = pat[op, y, d]
            theirs += VALUE[q]
            if q > ob:
                ob = q
        if mb == FIVE and (not exact or _true_five(board, y, side, steps, exact)):
            my_five = y
        if ob == FIVE and (not exact or _true_five(board, y, 3 - side, steps, exact)):
            if op_five != y:
                op_fives += 1
            op_five = y
        if (mb == F4 or mf >= 2) and (not exact or _true_win3(board, y, side, steps, exact)):
            my_win3 = y
        if ob == F4:
            op_three = True
        if any_allowed and allowed[y] == 0:
            continue
        mv[n] = y
        n += 1
    if my_five >= 0:
        if ply == 0:
            info[4], info[5] = my_five, INF - 1
        fr[ply, F_VAL] = INF - ply - 1
        return True
    if op_fives >= 2:
        if ply == 0:
            info[4], info[5] = op_five, -(INF - 2)
        fr[ply, F_VAL] = -(INF - ply - 2)
        return True
    if n == 0:
        if ply == 0 and any_allowed:
            fr[ply, F_VAL] = 0
            return True
        empty = False
        for y in range(cells):
            if board[y] == 0:
                empty = True
                break
        if not empty:
            fr[ply, F_VAL] = 0
            return True
        # an empty board: the centre
        centre = (cells // w // 2) * w + w // 2
        mv[0] = centre
        ky[0] = 0
        n = 1
    forced = op_five >= 0
    if forced:
        if ply == 0 and any_allowed and allowed[op_five] == 0:
            pass
        else:
            mv[0] = op_five
            n = 1
    elif my_win3 >= 0:
        if ply == 0:
            info[4], info[5] = my_win3, INF - 3
        fr[ply, F_VAL] = INF - ply - 3
        return True

    static = mine - theirs
    if vct:
        static = -UNPROVEN if side == vct else UNPROVEN
    if ply >= MAX_PLY - 2:
        fr[ply, F_VAL] = static
        return True
    horizon = depth <= 0 and not forced and not vct
    best = -INF - 1
    child_depth = depth if forced else depth - 1
    if vct and not forced:
        k = 0
        if side == vct:  # the attacker: its fours, and its open threes while depth is left
            k = _keep_threats(pat, me, mv, ky, n, depth > 0)
            if depth <= 0:
                child_depth = depth  # continuous fours cost no depth: a VCF ends by itself
        elif op_three:  # the defender: the blocks and its own fours
            k = _keep_blocks(pat, me, mv, ky, n)
            child_depth = depth  # the defender's replies cost no depth
        n = k  # the defender not under a threat (k = 0) has escaped
        if n == 0:
            fr[ply, F_VAL] = static
            return True
    elif horizon:
        if static >= beta or depth <= -QUIESCENCE:
            fr[ply, F_VAL] = static
            return True
        best = static
        if static > alpha:
            alpha = static
        n = _keep_threats(pat, me, mv, ky, n, False)  # own fours only
        if n == 0:
            fr[ply, F_VAL] = static
            return True
    elif not forced and op_three:
        k = _keep_blocks(pat, me, mv, ky, n)  # the opponent threatens an open four
        if k > 0:
            n = k

    alpha0 = alpha
    key = hsh[0] ^ (side - 1) ^ (vct * VCT_SALT)
    mask = tt.shape[0] - 1
    slot = key & mask
    tt_move = -1
    store = mask > 0 and not horizon
    if mask > 0 and tt[slot, T_KEY] == key:
        data = tt[slot, T_DATA]
        tt_move = ((data >> 16) & 0xFFFF) - 1
        stored = ((data >> 8) & 0xFF) - 1
        usable = stored == depth if info[EXACT_DEPTH_TT] else stored >= depth
        if ply > 0 and usable and not horizon:
            v = _from_tt(data >> 32, ply)
            flag = data & 0xFF
            if flag == EXACT:
                fr[ply, F_VAL] = v
                return True
            if flag == LOWER and v >= beta:
                fr[ply, F_VAL] = v
                return True
            if flag == UPPER and v <= alpha:
                fr[ply, F_VAL] = v
                return True

    # rank: the best ``width`` by pattern value, then the table's move and history within them
    for i in range(n):  # ordered only now: a node resolved above needs no order
        y = mv[i]
        ky[i] = _order_value(pat, me, y) + _order_value(pat, op, y)
    width = n if (ply == 0 or horizon or forced or vct) else min(n, WIDTH)
    if ply == 0 and not vct:
        width = min(n, ROOT_WIDTH)
    for i in range(width):
        j = i
        for t in range(i + 1, n):
            if ky[t] > ky[j]:
                j = t
        mv[i], mv[j] = mv[j], mv[i]
        ky[i], ky[j] = ky[j], ky[i]
    n = width
    for i in range(n):
        y = mv[i]
        ky[i] = ky[i] * 64 + min(history[me, y], 63)
        if y == tt_move:
            ky[i] = 1 << 60
    fr[ply, F_ALPHA] = alpha
    fr[ply, F_ALPHA0] = alpha0
    fr[ply, F_BEST] = best
    fr[ply, F_BEST_MOVE] = -1
    fr[ply, F_N] = n
    fr[ply, F_I] = 0
    fr[ply, F_CHILD_DEPTH] = child_depth
    fr[ply, F_HORIZON] = horizon
    fr[ply, F_KEY] = key
    fr[ply, F_STORE] = store
    return False


@njit(cache=True)
def _leave(tt, info, fr, ply):
    """Finish the node at ``ply``: its value into ``fr[ply, F_VAL]`` and, searched in full (or
    the root cut short by the clock), into the table."""
    best = fr[ply, F_BEST]
    fr[ply, F_VAL] = best
    if fr[ply, F_STORE] and not (info[ABORT] and ply > 0):
        if best <= fr[ply, F_ALPHA0]:
            flag = UPPER
        elif best >= fr[ply, F_BETA]:
            flag = LOWER
        else:
            flag = EXACT
        d = max(fr[ply, F_DEPTH], 0)
        key = fr[ply, F_KEY]
        slot = key & (tt.shape[0] - 1)
        tt[slot, T_KEY] = key
        move = fr[ply, F_BEST_MOVE]
        tt[slot, T_DATA] = (_to_tt(best, ply) << 32) | ((move + 1) << 16) | ((min(d, 254) + 1) << 8) | flag


@njit(cache=True)
def _child(board, pat, near, table, codes, steps, w, hsh, fr, ply, y, full):
    """Play ``y`` for the side to move at ``ply`` and set up the child's frame: a full window
    (``full``) or the null window after the first move (PVS)."""
    _place(board, pat, near, table, codes, steps, w, hsh, y, fr[ply, F_SIDE])
    fr[ply, F_STAGE] = FULL if full else NULL_WINDOW
    fr[ply + 1, F_SIDE] = 3 - fr[ply, F_SIDE]
    fr[ply + 1, F_DEPTH] = fr[ply, F_CHILD_DEPTH]
    fr[ply + 1, F_ALPHA] = -fr[ply, F_BETA] if full else -fr[ply, F_ALPHA] - 1
    fr[ply + 1, F_BETA] = -fr[ply, F_ALPHA]


@njit(cache=True)
def _ab(
    board, pat, near, table, codes, steps, w, hsh, exact, side, depth, moves, keys, tt, history, info, deadline, cells,
    allowed, fr, vct,
):  # fmt: skip
    """Negamax alpha-beta value of the root for ``side`` (colour 1 or 2) to move, searched
    ``depth`` plies with principal variation search; iterative over the frames ``fr``, one row
    per ply (numba's on-disk cache cannot load recursive functions). The root's best move and
    value go to ``info[4]`` and ``info[5]`` as it finds them, so a search the clock stops keeps
    the moves it finished."""
    fr[0, F_SIDE] = side
    fr[0, F_DEPTH] = depth
    fr[0, F_ALPHA] = -INF - 1
    fr[0, F_BETA] = INF + 1
    ply = np.int64(0)
    args = (board, pat, near, steps, w, exact, hsh)
    resolved = _enter(*args, ply, moves, keys, tt, history, info, deadline, cells, allowed, fr, vct)
    while True:
        if resolved:
            if ply == 0:
                return fr[0, F_VAL]
            v = -fr[ply, F_VAL]
            ply -= 1
            i = fr[ply, F_I]  # the child just searched is move i - 1
            y = moves[ply, i - 1]
            _remove(board, pat, near, table, codes, steps, w, hsh, y)
            if info[ABORT]:
                if ply == 0 and i > 1:
                    _leave(tt, info, fr, ply)  # the moves finished so far stand
                else:
                    fr[ply, F_VAL] = 0
                continue
            if fr[ply, F_STAGE] == NULL_WINDOW and fr[ply, F_ALPHA] < v < fr[ply, F_BETA]:
                _child(board, pat, near, table, codes, steps, w, hsh, fr, ply, y, True)  # search it again
                ply += 1
                resolved = _enter(*args, ply, moves, keys, tt, history, info, deadline, cells, allowed, fr, vct)
                continue
            if v > fr[ply, F_BEST]:
                fr[ply, F_BEST] = v
                fr[ply, F_BEST_MOVE] = y
                if ply == 0:
                    info[4] = y
                    info[5] = v
            if v > fr[ply, F_ALPHA]:
                fr[ply, F_ALPHA] = v
            if fr[ply, F_ALPHA] >= fr[ply, F_BETA]:
                if fr[ply, F_DEPTH] > 0:
                    history[fr[ply, F_SIDE] - 1, y] += fr[ply, F_DEPTH] * fr[ply, F_DEPTH]
                fr[ply, F_I] = fr[ply, F_N]  # a cut-off: no more moves
        i = fr[ply, F_I]
        n = fr[ply, F_N]
        if i >= n:
            _leave(tt, info, fr, ply)
            resolved = True
            continue
        mv = moves[ply]
        ky = keys[ply]
        j = i  # the next best move to position i
        for t in range(i + 1, n):
            if ky[t] > ky[j]:
                j = t
        mv[i], mv[j] = mv[j], mv[i]
        ky[i], ky[j] = ky[j], ky[i]
        y = mv[i]
        if fr[ply, F_BEST_MOVE] < 0:
            fr[ply, F_BEST_MOVE] = y
        fr[ply, F_I] = i + 1
        _child(board, pat, near, table, codes, steps, w, hsh, fr, ply, y, i == 0 or fr[ply, F_HORIZON] != 0)
        ply += 1
        resolved = _enter(*args, ply, moves, keys, tt, history, info, deadline, cells, allowed, fr, vct)


def search(s, p, max_depth, deadline, allowed_actions, tt, out):
    """Iterative deepening from ``s`` (ongoing) to ``max_depth`` plies or ``deadline`` (seconds on
    ``time.perf_counter``'s clock; 0: none), the root's moves restricted to ``allowed_actions``
    when it is not empty. Writes ``out``: [best action, its score for the side to move, the depth
    of the last finished iteration, nodes]. ``out[4]`` = 1 on entry: the table's values are used
    only at their own depth (every iteration then returns the same value as a search without the
    table, which the tests check)."""
    return _search(s, p, max_depth, deadline, allowed_actions, tt, out, _rule_patterns(p), 0)


def _rule_patterns(p):
    """The pattern table of the rule of kernel params ``p`` (freestyle or exactly five)."""
    return patterns()[int(p[C.P_GAME + 1] != 0)]


def threat_search(s, p, seat, max_depth, deadline, tt, out):
    """Threat-space search for ``seat`` from ``s`` (ongoing) as if ``seat`` were to move, by the
    same kernel (see the section above ``UNPROVEN``): iterative deepening to ``max_depth``
    attacker moves before the last continuous fours, or to ``deadline``. Writes ``out`` as
    ``search`` does: a forced win has ``out[1] > INF - 1000`` (``INF - out[1]``: its plies, the
    five included), its first move in ``out[0]``. ``tt``: a table of its own (the attacker is in
    the key, so its entries can serve both colours' searches)."""
    return _search(s, p, max_depth, deadline, np.zeros(0, dtype=np.int64), tt, out, _rule_patterns(p), seat + 1)


@njit(cache=True)
def _search(s, p, max_depth, deadline, allowed_actions, tt, out, table, vct):
    """``search`` with the pattern table of its rule (``vct``: ``threat_search``'s attacker colour)."""
    size = p[C.P_GAME]
    exact = p[C.P_GAME + 1] != 0
    w = size + 2 * PAD
    cells = w * w
    steps = np.array([1, w, w + 1, w - 1], dtype=np.int64)
    board = np.full(cells, BORDER, dtype=np.int8)
    pat = np.zeros((2, cells, 4), dtype=np.uint8)
    near = np.zeros(cells, dtype=np.int16)
    hsh = np.zeros(1, dtype=np.int64)
    for r in range(size):
        for c in range(size):
            board[(r + PAD) * w + c + PAD] = 0
    codes = np.zeros((2, cells, 4), dtype=np.int16)
    for y in range(cells):
        if board[y] == 0:
            for d in range(4):
                cb, cw = _line_codes(board, y, steps[d])
                codes[0, y, d] = cb
                codes[1, y, d] = cw
                pat[0, y, d] = table[cb]
                pat[1, y, d] = table[cw]
    side = s[C.H_PLAYER] + 1 if vct == 0 else vct
    for a in range(size * size):
        v = s[C.HEADER + a]
        if v != 0:
            _place(board, pat, near, table, codes, steps, w, hsh, (a // size + PAD) * w + a % size + PAD, v)
    allowed = np.zeros(cells, dtype=np.int8)
    for a in allowed_actions:
        allowed[(a // size + PAD) * w + a % size + PAD] = 1
    moves = np.zeros((MAX_PLY + 1, cells), dtype=np.int64)
    keys = np.zeros((MAX_PLY + 1, cells), dtype=np.int64)
    history = np.zeros((2, cells), dtype=np.int64)
    info = np.zeros(6, dtype=np.int64)
    frames = np.zeros((MAX_PLY + 1, F_COLUMNS), dtype=np.int64)
    info[EXACT_DEPTH_TT] = out[4] if out.shape[0] > 4 else 0
    best, score, reached, nodes = -1, 0, 0, 0
    for depth in range(1, min(max_depth, MAX_DEPTH) + 1):
        info[NODES] = 0
        info[4] = -1
        v = _ab(
            board, pat, near, table, codes, steps, w, hsh, exact, side, depth, moves, keys, tt, history, info, deadline,
            cells, allowed, frames, vct,
        )  # fmt: skip
        nodes += info[NODES]
        if info[ABORT]:
            if info[4] >= 0:
                best, score = info[4], info[5]
            break
        if info[4] >= 0:
            best = info[4]
        score, reached = v, depth
        if abs(v) > INF - 1000:
            break  # a forced result
    if best < 0:  # decided before any move was searched (a five-point, or a forced answer)
        best = moves[0, 0]
    out[0] = (best // w - PAD) * size + best % w - PAD
    out[1] = score
    out[2] = reached
    out[3] = nodes
    return out[0]


search.dispatcher = _search  # compiled once its signatures are not empty (alpha-beta warms it up off the clock)
