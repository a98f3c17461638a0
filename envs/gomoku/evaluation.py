"""Gomoku evaluation: five-cell windows (the standard line-pattern count), any board size.

Every run of five cells in the four directions is a *window*. A window holding k stones of one
colour and none of the other is a live pattern worth ``LINE[k]``: 1, 8, 64 and 512 for one to four
stones; a window holding both colours is dead. Open threes and fours count twice or more because
several windows cover them, which ranks them above closed ones without a pattern matcher.
"""

import numpy as np
from numba import njit

from ..core import kernel as C
from ..core import rng as R
from . import _kernel as K
from . import search as S

LINE = np.array([0, 1, 8, 64, 512, 0], dtype=np.int64)
# Blocking values for the greedy one-ply score: an opponent window of four must be closed at once.
BLOCK = np.array([0, 1, 8, 64, 1_000_000, 0], dtype=np.int64)
NEAR_WIN = 50_000  # the side to move completes a live four: it wins next ply
DR = (0, 1, 1, 1)
DC = (1, 0, 1, -1)


@njit(cache=True)
def _size(p):
    return p[C.P_GAME]


@njit(cache=True)
def evaluate(s, p, w):
    """Live-window score of the side to move minus the opponent's (no weights to tune)."""
    n = _size(p)
    me = s[C.H_PLAYER] + 1
    mine = 0
    theirs = 0
    my_fours = 0
    their_fours = 0
    for d in range(4):
        dr, dc = DR[d], DC[d]
        for r in range(n):
            r_end = r + 4 * dr
            if r_end >= n:
                continue
            for c in range(n):
                c_end = c + 4 * dc
                if c_end < 0 or c_end >= n:
                    continue
                black = 0
                white = 0
                for k in range(5):
                    v = s[C.HEADER + (r + k * dr) * n + c + k * dc]
                    if v == 1:
                        black += 1
                    elif v == 2:
                        white += 1
                if black and white:
                    continue
                own, opp = (black, white) if me == 1 else (white, black)
                mine += LINE[own]
                theirs += LINE[opp]
                my_fours += own == 4
                their_fours += opp == 4
    if my_fours:
        return NEAR_WIN
    if their_fours >= 2:
        return -NEAR_WIN // 2
    return mine - theirs


@njit(cache=True)
def _local(s, n, a, me):
    """Change in live-window value for ``me`` placing on empty cell ``a``: own gain plus blocks."""
    gain, block = _gain_block(s, n, a, me)
    return gain + block


@njit(cache=True)
def _gain_block(s, n, a, me):
    """``_local``'s two parts: own live-window gain (1,000,000 or more: the move makes five) and
    the opponent's windows blocked (1,000,000 or more: it closes a four)."""
    r0, c0 = a // n, a % n
    gain = 0
    block = 0
    for d in range(4):
        dr, dc = DR[d], DC[d]
        for start in range(-4, 1):
            r, c = r0 + start * dr, c0 + start * dc
            if not (0 <= r < n and 0 <= c < n and 0 <= r + 4 * dr < n and 0 <= c + 4 * dc < n):
                continue
            own = 0
            opp = 0
            for k in range(5):
                v = s[C.HEADER + (r + k * dr) * n + c + k * dc]
                if v == me:
                    own += 1
                elif v != 0:
                    opp += 1
            if opp == 0:
                gain += LINE[own + 1] - LINE[own] if own < 4 else 1_000_000
            elif own == 0:
                block += BLOCK[opp]
    return gain, block


@njit(cache=True)
def hint(s, p, a):
    """Move-ordering hint: the local attack-plus-block value of the placement."""
    return _local(s, _size(p), a, s[C.H_PLAYER] + 1)


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Greedy score: own open threes/fours made plus opponent threats blocked by placing on ``a``."""
    return np.float64(_local(s, _size(p), a, s[C.H_PLAYER] + 1))


@njit(cache=True)
def filter_moves(s, p, moves, n):
    """Keep placements within two cells of a stone (the centre alone on an empty board).

    Far placements cannot take part in a five within the few plies a search looks ahead, and
    dropping them cuts the branching factor of a 15x15 middlegame from ~200 to ~30.
    """
    size = _size(p)
    near = np.zeros(size * size, dtype=np.bool_)
    stones = 0
    for i in range(size * size):
        if s[C.HEADER + i] != 0:
            stones += 1
            r, c = i // size, i % size
            for rr in range(max(0, r - 2), min(size, r + 3)):
                for cc in range(max(0, c - 2), min(size, c + 3)):
                    near[rr * size + cc] = True
    if stones == 0:
        centre = (size // 2) * size + size // 2
        near[centre] = True
    k = 0
    for i in range(n):
        if near[moves[i]]:
            moves[k] = moves[i]
            k += 1
    return k if k > 0 else n


WEIGHTS = np.zeros(1, dtype=np.float64)


# -- MCTS knowledge: threat-aware playouts and priors ----------------------------------------------
# Uniformly random playouts on a Gomoku board miss wins in one and leave fours unblocked, so
# their results say little about a position (MCTS with them lost every game to the one-ply
# greedy player). The "threats" policy plays as any Gomoku player does before thinking: complete
# a five if it can, else block the opponent's five-point, else make an open four (two
# five-points: the opponent cannot block both), else take the opponent's open-four point (the
# usual defence of an open three), else a random point near the stones (within ``NEAR`` cells of
# one, where the fight is). The points are kept incrementally: a point becomes one for a colour
# only when that colour plays on a line through it (for a five-point, the first empty point each
# way along the four lines of the new stone is the only candidate; for an open-four point, the
# empty points within four along them), and each is checked again when it is taken.

PLAYOUTS = ("random", "threats", "evaluation")  # the spec's playout names; code = index
THREATS = 1
EVALUATION = 2  # no playout: the evaluation's value (``leaf_value``); played out, the threats policy
NEAR = 2  # a random playout move is drawn among the points this close to a stone
NEAR_TRIES = 12  # random draws tried for a near point before any empty point is accepted
BORDER = 3  # off-board cells of the playout's bordered board (two cells wide)

# Priors (virtual simulations for RAVE, mean value for the mover), as Go's are used: a five, a
# block of the opponent's five and an open four of one's own decide at once; a point near the
# stones starts at a value rising with its attack-plus-block score (``_local``), and at least
# ``PRIOR_STOP`` where the opponent would make an open four; a point far from every stone
# starts as a loss.
PRIOR_WIN = 1000.0
PRIOR_BLOCK = 200.0
PRIOR_NEAR = 20.0
PRIOR_FAR = 40.0
PRIOR_SCALE = 200.0  # the score at which a near point's prior value is halfway from 0.45 to 0.95
PRIOR_STOP = 0.8  # at least this for a point where the opponent would make an open four


@njit(cache=True, inline="always")
def _five_along(board, at, colour, k, exact):
    """Whether ``colour`` placing on the empty bordered cell ``at`` makes a winning line along
    direction ``k``: five exactly, or more where overlines win (not ``exact``)."""
    length = 1
    x = at + k
    while board[x] == colour:
        length += 1
        x += k
    x = at - k
    while board[x] == colour:
        length += 1
        x -= k
    return length == 5 or (length > 5 and not exact)


@njit(cache=True)
def _five_at(board, at, colour, w, exact):
    """Whether ``colour`` placing on the empty bordered cell ``at`` makes a winning line."""
    for k in (1, w, w + 1, w - 1):
        if _five_along(board, at, colour, k, exact):
            return True
    return False


@njit(cache=True)
def _new_fives(board, at, colour, w, exact, flag, points, count):
    """After ``colour`` played on ``at``: add to ``points`` (``flag`` marks members) the empty
    points where ``colour`` now completes a five, the first empty point each way along the four
    lines; return the new count."""
    for k in (1, w, w + 1, w - 1, -1, -w, -w - 1, -w + 1):
        x = at + k
        while board[x] == colour:
            x += k
        if board[x] == 0 and not flag[x] and _five_at(board, x, colour, w, exact):
            flag[x] = True
            points[count] = x
            count += 1
    return count


@njit(cache=True)
def _take_five(board, colour, w, exact, points, count, flag):
    """A still-open five-point of ``colour`` from ``points[:count]`` (stale ones dropped, last
    first), as (cell or -1, new count)."""
    while count > 0:
        x = points[count - 1]
        if board[x] == 0 and _five_at(board, x, colour, w, exact):
            return x, count
        flag[x] = False
        count -= 1
    return -1, count


@njit(cache=True)
def _fours_along(board, y, colour, k, exact):
    """Five-points ``colour`` would have along direction ``k`` after placing on empty ``y``: the
    first empty point each way from ``y`` past its own stones, where the line then makes five
    (0, 1, or 2: an open four)."""
    board[y] = colour
    count = 0
    for step in (k, -k):
        x = y + step
        while board[x] == colour:
            x += step
        if board[x] == 0 and _five_along(board, x, colour, k, exact):
            count += 1
    board[y] = 0
    return count


@njit(cache=True)
def _open_four_at(board, y, colour, w, exact):
    """Whether ``colour`` placing on empty ``y`` makes two five-points or more (an open four, or
    two fours): the opponent cannot block both, so it wins in two moves."""
    total = 0
    for k in (1, w, w + 1, w - 1):
        total += _fours_along(board, y, colour, k, exact)
        if total >= 2:
            return True
    return False


@njit(cache=True)
def _new_open_fours(board, at, colour, w, exact, flag, points, count):
    """After ``colour`` played on ``at``: add to ``points`` the empty points within four cells
    along the lines through ``at`` where ``colour`` now makes an open four along that line;
    return the new count."""
    for k in (1, w, w + 1, w - 1):
        for step in (k, -k):
            y = at
            for _ in range(4):
                y += step
                if board[y] == BORDER or board[y] == 3 - colour:
                    break
                if board[y] == 0 and not flag[y] and _fours_along(board, y, colour, k, exact) >= 2:
                    flag[y] = True
                    points[count] = y
                    count += 1
    return count


@njit(cache=True)
def _take_open_four(board, colour, w, exact, points, count, flag):
    """A still-valid open-four point of ``colour`` from ``points[:count]`` (stale ones dropped),
    as (cell or -1, new count)."""
    while count > 0:
        x = points[count - 1]
        if board[x] == 0 and _open_four_at(board, x, colour, w, exact):
            return x, count
        flag[x] = False
        count -= 1
    return -1, count


@njit(cache=True)
def _threat_playout(s, p, rng, trace):
    """Finish ``s`` with the threats policy (above), recording moves into ``trace`` while there
    is room; return how many were recorded. The cells, hash, ply, seat and last move of ``s`` are
    kept as ``apply`` keeps them."""
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    size = _size(p)
    exact = p[C.P_GAME + 1] != 0
    w = size + 4
    cells = (size + 4) * w
    board = np.full(cells, BORDER, dtype=np.int8)
    action = np.empty(cells, dtype=np.int64)
    empty = np.empty(size * size, dtype=np.int64)
    where = np.empty(cells, dtype=np.int64)
    near = np.zeros(cells, dtype=np.int16)
    flag = np.zeros((2, cells), dtype=np.bool_)
    points = np.empty((2, size * size), dtype=np.int64)
    npoints = np.zeros(2, dtype=np.int64)
    flag4 = np.zeros((2, cells), dtype=np.bool_)  # the same for open-four points
    points4 = np.empty((2, size * size), dtype=np.int64)
    npoints4 = np.zeros(2, dtype=np.int64)
    count = 0
    for r in range(size):
        for c in range(size):
            at = (r + 2) * w + c + 2
            a = r * size + c
            action[at] = a
            board[at] = s[C.HEADER + a]
            if board[at] == 0:
                where[at] = count
                empty[count] = at
                count += 1
    for r in range(size):
        for c in range(size):
            at = (r + 2) * w + c + 2
            if board[at] == 1 or board[at] == 2:
                for dr in range(-NEAR, NEAR + 1):
                    for dc in range(-NEAR, NEAR + 1):
                        near[at + dr * w + dc] += 1
    for r in range(size):
        for c in range(size):
            at = (r + 2) * w + c + 2
            if board[at] == 0:
                for colour in range(1, 3):
                    if _five_at(board, at, colour, w, exact):
                        flag[colour - 1, at] = True
                        points[colour - 1, npoints[colour - 1]] = at
                        npoints[colour - 1] += 1
                    elif near[at] > 0 and _open_four_at(board, at, colour, w, exact):
                        flag4[colour - 1, at] = True
                        points4[colour - 1, npoints4[colour - 1]] = at
                        npoints4[colour - 1] += 1
    seat = s[C.H_PLAYER]
    h = s[C.H_HASH]
    ply = s[C.H_PLY]
    a = s[C.H_LAST]
    winner = C.NO_WINNER
    length = 0
    while count > 0:
        colour = seat + 1
        at, npoints[seat] = _take_five(board, colour, w, exact, points[seat], npoints[seat], flag[seat])
        if at < 0:
            at, npoints[1 - seat] = _take_five(
                board, 3 - colour, w, exact, points[1 - seat], npoints[1 - seat], flag[1 - seat]
            )
        if at < 0:
            at, npoints4[seat] = _take_open_four(board, colour, w, exact, points4[seat], npoints4[seat], flag4[seat])
        if at < 0:
            at, npoints4[1 - seat] = _take_open_four(
                board, 3 - colour, w, exact, points4[1 - seat], npoints4[1 - seat], flag4[1 - seat]
            )
        if at < 0:
            at = empty[R.randint(rng, count)]
            for _ in range(NEAR_TRIES):
                if near[at] > 0:
                    break
                at = empty[R.randint(rng, count)]
        i = where[at]
        count -= 1
        empty[i] = empty[count]
        where[empty[i]] = i
        board[at] = colour
        a = action[at]
        if length < trace.shape[0]:
            trace[length, 0] = a
            trace[length, 1] = seat
            length += 1
        s[C.HEADER + a] = colour
        h ^= K.ZOBRIST[2 * a + seat] ^ K.SIDE_KEY
        ply += 1
        seat = 1 - seat
        for dr in range(-NEAR, NEAR + 1):
            for dc in range(-NEAR, NEAR + 1):
                near[at + dr * w + dc] += 1
        if _five_at(board, at, colour, w, exact):  # (reads the lines through ``at``, not ``at``)
            winner = colour - 1
            break
        npoints[colour - 1] = _new_fives(
            board, at, colour, w, exact, flag[colour - 1], points[colour - 1], npoints[colour - 1]
        )
        npoints4[colour - 1] = _new_open_fours(
            board, at, colour, w, exact, flag4[colour - 1], points4[colour - 1], npoints4[colour - 1]
        )
    s[C.H_PLAYER] = seat
    s[C.H_HASH] = h
    s[C.H_PLY] = ply
    s[C.H_LAST] = a
    if winner != C.NO_WINNER:
        C.finish(s, winner, K.FIVE)
    else:
        C.finish(s, C.NO_WINNER, K.FULL)
    return length


@njit(cache=True)
def traced_playout(s, p, rng, moves, policy, trace):
    """Finish ``s`` with ``policy`` (THREATS or EVALUATION, or uniformly random moves), writing
    each move and its mover into ``trace`` while there is room; return how many were written
    (RAVE's record)."""
    if policy == THREATS or policy == EVALUATION:
        return _threat_playout(s, p, rng, trace)
    length = 0
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        a = moves[R.randint(rng, n)]
        if length < trace.shape[0]:
            trace[length, 0] = a
            trace[length, 1] = s[C.H_PLAYER]
            length += 1
        K.apply(s, p, a)
    return length


@njit(cache=True)
def playout(s, p, rng, moves, policy):
    """Finish ``s`` with a Gomoku playout policy: THREATS (above; EVALUATION too, where a caller
    wants the game played out) or uniformly random."""
    if policy == THREATS or policy == EVALUATION:
        _threat_playout(s, p, rng, np.empty((0, 2), dtype=np.int64))
    else:
        K.random_playout(s, p, rng, moves)


# The "evaluation" policy plays no playout: MCTS backs up ``tanh(evaluate / VALUE_SCALE)`` of the
# leaf instead. Playouts say little about a Gomoku position: most end in a five neither side was
# building, and MCTS with them lost to the one-ply greedy player, whose evaluation this is (the
# figures: ``agents/tuning.py``). The scale, with plain UCT at 1,000 simulations against greedy
# on 15x15 (100 games): 300 scored 0.90, 100 scored 0.97, 50 scored 0.96. A side with a four to
# complete is worth ``NEAR_WIN``: a value of 1.
VALUE_SCALE = 100.0


@njit(cache=True)
def leaf_value(s, p, policy):
    """The evaluation's value of ``s`` for the side to move under EVALUATION (else NaN: play the
    playout)."""
    if policy != EVALUATION:
        return np.nan
    return np.tanh(evaluate(s, p, WEIGHTS) / VALUE_SCALE)


@njit(cache=True)
def priors(s, p, moves, n, out):
    """Prior knowledge of the ``n`` legal ``moves`` of ``s`` for a new tree node: virtual
    simulations into ``out[i, 0]`` and their mean value for the mover into ``out[i, 1]`` (the
    ``PRIOR_*`` terms above)."""
    size = _size(p)
    exact = p[C.P_GAME + 1] != 0
    me = s[C.H_PLAYER] + 1
    w = size + 4
    board = np.full((size + 4) * w, BORDER, dtype=np.int8)
    near = np.zeros(size * size, dtype=np.bool_)
    for i in range(size * size):
        r, c = i // size, i % size
        board[(r + 2) * w + c + 2] = s[C.HEADER + i]
        if s[C.HEADER + i] != 0:
            for rr in range(max(0, r - NEAR), min(size, r + NEAR + 1)):
                for cc in range(max(0, c - NEAR), min(size, c + NEAR + 1)):
                    near[rr * size + cc] = True
    for i in range(n):
        a = moves[i]
        at = (a // size + 2) * w + a % size + 2
        if not near[a]:
            out[i, 0], out[i, 1] = PRIOR_FAR, 0.0
        elif _five_at(board, at, me, w, exact):
            out[i, 0], out[i, 1] = PRIOR_WIN, 1.0
        elif _five_at(board, at, 3 - me, w, exact):
            out[i, 0], out[i, 1] = PRIOR_BLOCK, 0.9
        elif _open_four_at(board, at, me, w, exact):
            out[i, 0], out[i, 1] = PRIOR_BLOCK, 0.9
        else:
            gain, block = _gain_block(s, size, a, me)
            score = gain + block
            value = 0.45 + 0.5 * score / (score + PRIOR_SCALE)
            if _open_four_at(board, at, 3 - me, w, exact):
                value = max(value, PRIOR_STOP)  # stops the opponent's open three
            out[i, 0], out[i, 1] = PRIOR_NEAR, value


# -- threat-space search: victory by continuous fours (VCF) ----------------------------------------
# Allis's threat-space search restricted to fours: the attacker plays a four (a stone after which
# it has exactly one five-point), the defender must take that point, and the attacker goes on
# until it makes two five-points at once (an open four or a double four: the defender blocks one,
# the other makes five). A sequence is dropped where the defender's forced stone gives the
# defender a five-point of its own (the attacker would have to answer it instead). Every
# defender move is forced, so the tree is narrow: depth-first over an explicit stack (numba's
# cache breaks recursion), at most ``VCF_NODES`` fours tried. A sequence found is a proof; none
# found within the limits proves nothing.

VCF_NODES = 20_000
CLOCK_NODES = 255  # on a clock a VCF reads it once every 256 fours tried (the threat searches
# that run VCFs, before each one): a search of ``VCT_NODES`` takes seconds, more than a move has


@njit(cache=True)
def _bordered(s, size):
    """The board of ``s`` with a two-cell ``BORDER`` frame (cell ``(r + 2) * (size + 4) + c + 2``)."""
    w = size + 4
    board = np.full((size + 4) * w, BORDER, dtype=np.int8)
    for i in range(size * size):
        board[(i // size + 2) * w + i % size + 2] = s[C.HEADER + i]
    return board


@njit(cache=True)
def _five_points(board, y, colour, w, exact, out):
    """The five-points ``colour`` has through ``y`` after placing on empty ``y`` (at most 8,
    into ``out``); return how many. Only the first empty point each way along a line can be one."""
    board[y] = colour
    count = 0
    for k in (1, w, w + 1, w - 1, -1, -w, -w - 1, -w + 1):
        x = y + k
        while board[x] == colour:
            x += k
        if board[x] == 0 and _five_at(board, x, colour, w, exact):
            dup = False
            for j in range(count):
                dup = dup or out[j] == x
            if not dup:
                out[count] = x
                count += 1
    board[y] = 0
    return count


@njit(cache=True)
def _any_five(board, colour, w, exact):
    """A five-point of ``colour`` on ``board`` (an empty cell where it completes five), or -1."""
    for x in range(board.shape[0]):
        if board[x] == 0 and _five_at(board, x, colour, w, exact):
            return x
    return -1


@njit(cache=True)
def _fours(board, colour, w, exact, cand, level, pts):
    """Fill ``cand[level]`` with the points where ``colour`` makes a four (one five-point);
    return (how many, a point that makes two five-points or -1: a win)."""
    n = 0
    for y in range(board.shape[0]):
        if board[y] != 0:
            continue
        f = _five_points(board, y, colour, w, exact, pts)
        if f >= 2:
            return n, y
        if f == 1:
            cand[level, n] = y
            n += 1
    return n, -1


@njit(cache=True)
def _block_gives(board, z, defender, w, exact):
    """Whether the defender's stone on ``z`` (already placed) gives it a five-point."""
    for k in (1, w, w + 1, w - 1, -1, -w, -w - 1, -w + 1):
        x = z + k
        while board[x] == defender:
            x += k
        if board[x] == 0 and _five_at(board, x, defender, w, exact):
            return True
    return False


@njit(cache=True)
def _vcf(board, w, attacker, exact, depth, max_nodes, deadline, line):
    """Depth-first VCF for ``attacker`` (1 or 2) on ``board`` (neither side has a five-point)
    of at most ``depth`` attacker moves, the last one the open or double four; ``line[i]`` gets
    the attacker's i-th stone of a win. Returns (attacker moves in the win or 0 if none found,
    nodes). Past ``deadline`` (``C.now()`` seconds; 0.0: none) it stops as at ``max_nodes``."""
    defender = 3 - attacker
    cells = board.shape[0]
    cand = np.empty((depth + 1, cells), dtype=np.int64)
    ncand = np.zeros(depth + 1, dtype=np.int64)
    idx = np.zeros(depth + 1, dtype=np.int64)
    reply = np.empty(depth + 1, dtype=np.int64)
    pts = np.empty(8, dtype=np.int64)
    n, win = _fours(board, attacker, w, exact, cand, 0, pts)
    if win >= 0:
        line[0] = win
        return 1, 1
    ncand[0] = n
    level, nodes = 0, 0
    while True:
        if idx[level] >= ncand[level] or level >= depth - 1:  # the win would come too late
            if level == 0:
                return 0, nodes
            level -= 1
            board[reply[level]] = 0
            board[line[level]] = 0
            idx[level] += 1
            continue
        nodes += 1
        if nodes > max_nodes or (deadline > 0.0 and (nodes & CLOCK_NODES) == 0 and C.now() > deadline):
            for j in range(level - 1, -1, -1):  # restore the board
                board[reply[j]] = 0
                board[line[j]] = 0
            return 0, nodes
        y = cand[level, idx[level]]
        _five_points(board, y, attacker, w, exact, pts)
        z = pts[0]
        board[y] = attacker
        board[z] = defender
        if _block_gives(board, z, defender, w, exact):
            board[z] = 0
            board[y] = 0
            idx[level] += 1
            continue
        line[level] = y
        reply[level] = z
        level += 1
        idx[level] = 0
        ncand[level], win = _fours(board, attacker, w, exact, cand, level, pts)
        if win >= 0:
            line[level] = win
            plies = level + 1
            for j in range(level - 1, -1, -1):  # restore the board
                board[reply[j]] = 0
                board[line[j]] = 0
            return plies, nodes


# -- threat-space search with one three: victory by a threat, then continuous fours (VCT) --------
# A VCF only chains fours. Most wins between players who block fours come one step earlier, from
# a move that is not a four but threatens a VCF: the double three (two open threes), the
# four-three prepared by a three, a three next to a hidden four. The attacker plays such a
# *threat* (a stone in a five-cell window with two more of its own and none of the defender's,
# after which it would win by VCF if the defender passed), and the threat holds when every
# defender reply, every empty point of the board, still leaves the attacker a VCF. A reply that
# is a four of the defender is answered by its forced block, and the defender replies again (at
# most ``VCT_FOURS`` times in a row; deeper counts as unproven); a reply that makes two
# five-points for the defender refutes the threat. Most replies are far from the attack: the VCF
# found for the pass is replayed against them (a few steps), and only replies that break it are
# searched again. Every defender reply is tried, so a threat found is a proof; each VCF in it is
# one the plain VCF search (``VCF_NODES``) finds again when the position comes on the board.

VCT_NODES = 200_000  # fours tried over all the VCFs a threat-space search with threes runs
VCT_FOURS = 3  # defender fours in a row a threat is checked through


@njit(cache=True)
def _makes_three(board, y, colour, w):
    """Whether ``colour`` placing on empty ``y`` fills three cells of a five-cell window with no
    stone of the other colour: the least a threat that is not a four needs."""
    for k in (1, w, w + 1, w - 1):
        for first in range(-4, 1):
            own = 0
            for j in range(5):
                c = board[y + (first + j) * k]
                if c == BORDER or c == 3 - colour:
                    own = -1
                    break
                if c == colour:
                    own += 1
            if own >= 2:
                return True
    return False


@njit(cache=True)
def _line_holds(board, w, attacker, exact, line, plies, pts, placed):
    """Whether the attacker's VCF ``line[:plies]`` (as ``_vcf`` returns it) still wins on
    ``board``: each move still a four whose forced block gives the defender no five-point, the
    last one two five-points. The board is left as it was."""
    defender = 3 - attacker
    n = 0
    holds = False
    for i in range(plies):
        y = line[i]
        if board[y] != 0:
            break
        f = _five_points(board, y, attacker, w, exact, pts)
        if f >= 2:
            holds = True
            break
        if f == 0 or i == plies - 1:
            break
        z = pts[0]
        board[y] = attacker
        board[z] = defender
        placed[n], placed[n + 1] = y, z
        n += 2
        if _block_gives(board, z, defender, w, exact):
            break
    for j in range(n):
        board[placed[j]] = 0
    return holds


@njit(cache=True)
def _threat_holds(board, w, attacker, exact, depth, max_nodes, deadline):
    """After the attacker's threat, with the defender to move: (whether every defender reply
    leaves the attacker a VCF of at most ``depth`` moves, the attacker's moves in the VCF if the
    defender passed, fours tried). The board is left as it was. See the section's comment for
    the defender's fours. Every VCF is searched at one call site (``check``), so the compiled
    code holds one copy of it."""
    defender = 3 - attacker
    cells = board.shape[0]
    lines = np.empty((VCT_FOURS + 1, depth + 2), dtype=np.int64)
    plies = np.zeros(VCT_FOURS + 1, dtype=np.int64)
    idx = np.zeros(VCT_FOURS + 1, dtype=np.int64)
    four = np.zeros(VCT_FOURS + 1, dtype=np.int64)  # the defender's four at each level
    block = np.zeros(VCT_FOURS + 1, dtype=np.int64)  # and the attacker's block
    scratch = np.empty(depth + 2, dtype=np.int64)
    placed = np.empty(2 * depth + 4, dtype=np.int64)
    undo = np.empty(3, dtype=np.int64)  # stones placed for a leaf's VCF, taken back after it
    pts = np.empty(8, dtype=np.int64)
    mine = np.empty(8, dtype=np.int64)
    level, nodes, holds = 0, 0, True
    check, n_undo = 2, 0  # 2: this level's VCF (the defender passing), 1: a leaf's, 0: none
    while holds:
        if check:
            line = lines[level] if check == 2 else scratch
            found, n = 0, 0
            if deadline == 0.0 or C.now() <= deadline:  # past it: unproven, as at max_nodes
                found, n = _vcf(board, w, attacker, exact, depth, min(max_nodes - nodes, VCF_NODES), deadline, line)
            nodes += n
            if check == 2:
                plies[level] = found
            for j in range(n_undo):
                board[undo[j]] = 0
            check, n_undo = 0, 0
            holds = found > 0 and nodes <= max_nodes
            continue
        x = idx[level]
        if x >= cells:  # every reply at this level refuted
            if level == 0:
                break
            level -= 1
            board[block[level]] = 0
            board[four[level]] = 0
            continue
        idx[level] = x + 1
        if board[x] != 0:
            continue
        f = _five_points(board, x, defender, w, exact, pts)
        if f >= 2:  # the defender's open or double four
            holds = False
        elif f == 1:  # the defender's four: the attacker blocks, the defender moves again
            z = pts[0]
            board[x] = defender
            g = _five_points(board, z, attacker, w, exact, mine)
            board[z] = attacker
            if g == 1:  # the block is a four: the defender's forced answer, then a VCF
                board[mine[0]] = defender
                undo[0], undo[1], undo[2], n_undo = mine[0], z, x, 3
                check = 1
                if _block_gives(board, mine[0], defender, w, exact):
                    holds = False
            elif g >= 2 or level == VCT_FOURS:  # the block wins; or too many fours: unproven
                board[z] = 0
                board[x] = 0
                holds = g >= 2
            else:
                four[level], block[level] = x, z
                level += 1
                idx[level] = 0
                check = 2
        else:
            board[x] = defender
            if _line_holds(board, w, attacker, exact, lines[level], plies[level], pts, placed):
                board[x] = 0
            else:
                undo[0], n_undo = x, 1
                check = 1
    for j in range(n_undo):
        board[undo[j]] = 0
    for j in range(level - 1, -1, -1):  # restore the board
        board[block[j]] = 0
        board[four[j]] = 0
    return holds, plies[0], nodes


@njit(cache=True)
def _vct(board, w, attacker, exact, depth, hint, max_nodes, deadline):
    """A threat (see above) of ``attacker`` that holds, ``hint`` tried first (-1: none), on
    ``board`` where neither side has a five-point and the attacker has no VCF: (its cell or -1,
    the attacker's moves up to the open or double four, fours tried)."""
    cells = board.shape[0]
    nodes = 0
    pts = np.empty(8, dtype=np.int64)
    for i in range(-1, cells):
        y = hint if i < 0 else i
        if y < 0 or board[y] != 0 or (i >= 0 and y == hint):
            continue
        if not _makes_three(board, y, attacker, w) or _five_points(board, y, attacker, w, exact, pts) > 0:
            continue  # not a threat, or a four (the VCF has tried those)
        board[y] = attacker
        holds, plies, n = _threat_holds(board, w, attacker, exact, depth, max_nodes - nodes, deadline)
        board[y] = 0
        nodes += n
        if holds:
            return y, plies + 1, nodes
        if nodes > max_nodes or (deadline > 0.0 and C.now() > deadline):
            break
    return -1, 0, nodes


# -- threat-space search with two threats (VCT2) ---------------------------------------------------
# The wins the one-threat search misses, one level deeper, as lambda-search's second order reads
# them: the attacker's threat (a three after which, if the defender passed, it wins by
# continuous fours) holds when every defender reply leaves the attacker a VCF *or a one-threat
# VCT* (above); and a four whose forced block leaves the attacker a one-threat VCT. A defender
# reply that is a four is answered by its block: a block that is itself a four is answered, and
# then the attacker must win by a VCF or a VCT; any other block counts the four as a refutation
# (searching the defender's next reply too found one more win in 1,090 positions of 30 games,
# 16 against 15, and cost 3 s more of compile time in a cold start). Every defender reply is
# tried, as in the one-threat search, so a threat found is a proof. It costs tens of times more
# than the one-threat search (``VCT2_NODES``), and the agents run it only where a few positions
# are checked: the opponent's replies to the move they are about to play.

VCT2_NODES = 10_000  # fours tried over all the searches a two-threat search runs
VCT2_LEAF_NODES = 1_000  # and in each one-threat search it runs


@njit(cache=True)
def _reply_holds(board, w, attacker, exact, depth, x, line, plies, hint, max_nodes, deadline):
    """After the attacker's threat, whether the defender's reply on empty ``x`` still leaves the
    attacker a forced win (see above; ``line[:plies]``: its VCF if the defender passed, ``hint``:
    the threat that last answered a reply, or -1); ``x`` = -1: whether the attacker, to move,
    wins by a VCF or a one-threat VCT. Return (it does, the threat that answered this reply or
    ``hint``, fours tried). The board is left as it was. The attacker's VCF and VCT are searched
    at one call site, so the compiled code holds one copy of them."""
    defender = 3 - attacker
    pts = np.empty(8, dtype=np.int64)
    mine = np.empty(8, dtype=np.int64)
    scratch = np.empty(depth + 2, dtype=np.int64)
    placed = np.empty(2 * depth + 4, dtype=np.int64)
    undo = np.empty(3, dtype=np.int64)
    f = 0 if x < 0 else _five_points(board, x, defender, w, exact, pts)
    if f >= 2:
        return False, hint, 0
    holds, search, nodes, n_undo = True, x < 0, 0, 0
    if x >= 0:
        board[x] = defender
        undo[0], n_undo = x, 1
    if f == 1:  # the defender's four: the attacker blocks (see above for what follows)
        z = pts[0]
        g = _five_points(board, z, attacker, w, exact, mine)
        board[z] = attacker
        undo[1], n_undo = z, 2
        holds = g >= 2  # the block wins; a block that is no four refutes (not searched on)
        if g == 1:  # the block is a four: the defender answers it, the attacker moves
            board[mine[0]] = defender
            undo[2], n_undo = mine[0], 3
            holds = not _block_gives(board, mine[0], defender, w, exact)
            search = holds
    elif x >= 0:
        search = not _line_holds(board, w, attacker, exact, line, plies, pts, placed)
    if search:  # a VCF, else one threat and fours
        found, nodes = _vcf(board, w, attacker, exact, depth, min(max_nodes, VCF_NODES), deadline, scratch)
        holds = found > 0
        if not holds:
            leaf = min(max_nodes - nodes, VCT2_LEAF_NODES)
            at, _, n = _vct(board, w, attacker, exact, depth - 1, hint, leaf, deadline)
            nodes += n
            holds = at >= 0
            if holds:
                hint = at
    for j in range(n_undo):
        board[undo[j]] = 0
    return holds, hint, nodes


@njit(cache=True)
def _vct2(board, w, attacker, exact, depth, max_nodes, deadline):
    """A four or threat of ``attacker`` that wins with one more threat (see above) on ``board``,
    where neither side has a five-point and the attacker has no VCF or one-threat VCT: (its cell
    or -1, the attacker's moves up to the open or double four if the defender passed, fours
    tried)."""
    defender = 3 - attacker
    cells = board.shape[0]
    nodes = 0
    pts = np.empty(8, dtype=np.int64)
    line = np.empty(depth + 2, dtype=np.int64)
    for y in range(cells):
        if nodes > max_nodes:
            break
        if board[y] != 0 or not _makes_three(board, y, attacker, w):
            continue
        if deadline > 0.0 and C.now() > deadline:
            break
        f = _five_points(board, y, attacker, w, exact, pts)
        if f >= 2:
            continue
        board[y] = attacker
        if f == 1:  # a four: the block is forced, then the attacker needs one threat and fours
            z = pts[0]
            board[z] = defender
            holds, plies, first, last = not _block_gives(board, z, defender, w, exact), 1, -1, -1
        else:  # a threat: the VCF if the defender passed (most replies leave it standing), then
            # every reply (one call site for them all: one compiled copy of what it calls)
            plies, n = _vcf(board, w, attacker, exact, depth - 1, min(max_nodes - nodes, VCF_NODES), deadline, line)
            nodes += n
            holds, first, last = plies > 0, 0, cells - 1
        hint, x = -1, first
        while holds and x <= last and nodes <= max_nodes:
            if x < 0 or board[x] == 0:
                budget = max_nodes - nodes
                holds, hint, n = _reply_holds(
                    board, w, attacker, exact, depth - 1, x, line, plies, hint, budget, deadline
                )
                nodes += n
            x += 1
        if f == 1:
            board[z] = 0
        board[y] = 0
        if holds and nodes <= max_nodes:
            return y, plies + 1, nodes
    return -1, 0, nodes


@njit(cache=True)
def threats(s, p, seat, limit, deadline, out):
    """Threat-space search for ``seat`` from ``s`` as if ``seat`` were to move: 1 if it wins by
    continuous fours (VCF, above; or a five-point now), 2 if by one threat and then continuous
    fours (VCT, above), within ``limit`` of its moves, the five included, -1 if none was found
    before ``deadline`` (``C.now()`` seconds; 0.0: none) and the search stopped there unfinished
    (``out[0]``: the first move as an action;
    ``out[1]``: its moves up to the five: 1 for a five-point now, 2 for an open four), else 0;
    ``out[2]``: the fours tried. A non-negative ``out[0]`` on entry is a move to try first as
    the threat (the one found before a small change of the position, usually still good). With
    ``out[3]`` = 2 on entry (an ``out`` of four), 3 if by two threats, or a four and a threat
    (VCT2, above). The opponent holding a five-point (it would win or need an answer first)
    finds nothing."""
    size = _size(p)
    w = size + 4
    exact = p[C.P_GAME + 1] != 0
    hint = -1
    if 0 <= out[0] < size * size:
        hint = (out[0] // size + 2) * w + out[0] % size + 2
    deep = out.shape[0] > 3 and out[3] >= 2
    out[0], out[1], out[2] = -1, 0, 0
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    board = _bordered(s, size)
    attacker = seat + 1
    line = np.empty(limit + 2, dtype=np.int64)
    at = _any_five(board, attacker, w, exact)
    plies = 1
    kind = 1
    if at < 0:
        if _any_five(board, 3 - attacker, w, exact) >= 0:
            return 0
        plies, out[2] = _vcf(board, w, attacker, exact, limit - 1, VCF_NODES, deadline, line)
        if plies > 0:
            at = line[0]
        elif limit >= 3:
            at, plies, nodes = _vct(board, w, attacker, exact, limit - 2, hint, VCT_NODES, deadline)
            out[2] += nodes
            kind = 2
            if at < 0 and deep and limit >= 4:
                at, plies, nodes = _vct2(board, w, attacker, exact, limit - 2, VCT2_NODES, deadline)
                out[2] += nodes
                kind = 3
        if at < 0:  # none found: -1 if the clock stopped the search, else 0
            return -1 if deadline > 0.0 and C.now() > deadline else 0
        plies += 1  # the five after the open or double four
    out[0] = (at // w - 2) * size + at % w - 2
    out[1] = plies
    return kind


# The game's own search kernel, which alpha-beta's ``search="own"`` plays with (``search.py``).
own_search = S.search
# And its threat-space search, which alpha-beta's ``vct`` option runs at the root.
own_threats = S.threat_search
