"""Pairing and placing rules of the championship systems, as numba kernels over flat arrays.

There is exactly one implementation of each system, and two drivers use it: the study's simulator
(``tournaments.study``, everything compiled) and the real-agent driver (``tournaments.referee.runner``,
games in worker processes). Both run the same loop, so they cannot disagree::

    reset(T, met, mt, rng)                      # the starting draw
    while (n := next_games(T, met, mt, rng, out)) > 0:
        ...play the n games out[i] = (match, black, white)...
        record(T, met, mt, out, res, n, rng)    # res[i]: BLACK_WINS, WHITE_WINS, DRAW or DOUBLE_FORFEIT
    places(T, lo, hi)                           # aggregate place interval [lo, hi] per player

The games of one batch are independent (different matches), so a real driver may run them in
parallel. A system is a sequence of *rounds*; a round is a set of *matches* between two players,
and a match lasts one game or more, so a round may take several batches ("legs"), one game of
every undecided match per batch:

* round robin and gauntlet: one round of *ordered* matches, (a, b) with a as Black in each of its
  ``len`` games (``T_LEN``), so an encounter of 2·len games is the two matches (a, b) and (b, a),
  and game g of one and game g of the other, in the same batch, are a colour pair (they share an
  opening). The gauntlet's matches are those between a candidate (players ``0..T_CAND-1``) and
  the field (the others); candidates do not meet each other, as in fastchess's gauntlet with
  seeds. ``len`` = 1 is the round robin the study measured.
* Swiss: one game per match and round.
* olympic: colours alternate within a match (games 2t and 2t+1 are a pair). With ``T_LEN`` = 0 the
  match is first to ``k`` wins: draws do not count towards ``k``, and a match still undecided
  after ``4k`` games goes to the player with more wins, else to a seeded coin. With ``T_LEN`` = N
  (even) it is a match of N games, as engine runners play a knock-out encounter: it ends at the
  first pair boundary where the leader can no longer be caught, a match level after N games goes
  on pair by pair (tie-break) until one leads, and one still level after 4N games goes to a coin.

Draws (real games only; the study's model has none) are worth half a point; a double forfeit
(both agents ruled out of a tournament) is worth nothing to either and counts as a game played.

Arrays (all int64 except ``rng``):
  ``T``    header ``T_*`` then ``NBLOCK`` per-player blocks of length N (``blk(T, B_*)``);
  ``met``  (N, N) games played between each pair (Swiss rematch avoidance);
  ``mt``   (N*N, M_COLS) matches of the current round: players a (Black in game 0), b, wins,
           games, winner (a player; -1 undecided; DRAWN for a drawn single game);
  ``out``  (N*N, 3) one batch of games: (match, black, white);
  ``rng``  SplitMix64 state from ``envs.core.kernel``.

Results are ``envs.core.outcome``'s codes (``Outcome.code``) and points its points
(``Outcome.points``), kept here in half-points (a win ``WIN2`` = 2, a draw ``DRAW2`` = 1) so they
stay integers.
"""

import numpy as np
from numba import njit

from envs.core import rng as R
from envs.core.outcome import BLACK_WINS, DOUBLE_FORFEIT, DRAW, HALF, WHITE_WINS, WIN  # noqa: F401  (the result codes, re-exported)

ROUND_ROBIN, OLYMPIC, SWISS, RANDOM_ORDER, GAUNTLET = 0, 1, 2, 3, 4
SYSTEMS = {
    "round_robin": ROUND_ROBIN,
    "olympic": OLYMPIC,
    "swiss": SWISS,
    "random_order": RANDOM_ORDER,
    "gauntlet": GAUNTLET,
}

# header of T
T_SYS, T_N, T_K, T_RECURSIVE, T_AVOID, T_ROUNDS, T_DEPTH = 0, 1, 2, 3, 4, 5, 6
T_ROUND, T_NMATCH, T_DONE, T_GAMES, T_BYE = 7, 8, 9, 10, 11
T_LEN, T_CAND = 12, 13  # a match's length (see the module docstring); the gauntlet's candidates
T_HEADER = 14
# per-player blocks. numpy integers, not Python ints: numba types a global Python int passed to a
# jitted function as a literal and compiles that function once per value (``blk`` eleven times)
B_PTS, B_HIST, B_NPLAYED, B_POS, B_COL, B_LAST, B_BYES = (np.int64(b) for b in range(7))
B_ORDER, B_PAIRS, B_USED, B_NEXT = (np.int64(b) for b in range(7, 11))  # scratch for Swiss pairing
NBLOCK = 11
# match table columns
M_A, M_B, M_WA, M_WB, M_GAMES, M_WINNER = 0, 1, 2, 3, 4, 5
M_COLS = 6
UNDECIDED, DRAWN = -1, -2
# points of a win and of a draw, in half-points
WIN2, DRAW2 = int(2 * WIN), int(2 * HALF)

SWISS_ROUNDS = {8: 5, 16: 7, 32: 10, 64: 13}
DFS_BUDGET = np.int64(200_000)  # search steps per rematch allowance before allowing one more rematch


def new_arrays(
    system: int,
    n: int,
    k: int,
    recursive: bool,
    avoid: bool,
    rounds: int,
    depth: int,
    length: int = -1,
    candidates: int = 0,
):
    """Allocate ``(T, met, mt, out)`` for one championship of ``n`` players (options validated).
    ``length``: ``T_LEN``, -1 for the system's default (one game per match; olympic: first to k)."""
    T = np.zeros(T_HEADER + NBLOCK * n, dtype=np.int64)
    T[T_SYS], T[T_N], T[T_K], T[T_RECURSIVE] = system, n, k, int(recursive)
    T[T_AVOID], T[T_ROUNDS], T[T_DEPTH] = int(avoid), rounds, depth
    T[T_LEN] = (0 if system == OLYMPIC else 1) if length < 0 else length
    T[T_CAND] = candidates
    m = max(n * n, 1)
    return (
        T,
        np.zeros((n, n), dtype=np.int64),
        np.zeros((m, M_COLS), dtype=np.int64),
        np.zeros((m, 3), dtype=np.int64),
    )


@njit(cache=True)
def blk(T, b):
    """The per-player block ``b`` of ``T`` (a view)."""
    n = T[T_N]
    return T[T_HEADER + b * n : T_HEADER + (b + 1) * n]


@njit(cache=True)
def shuffle(a, rng):
    """Fisher–Yates shuffle of ``a`` in place."""
    for i in range(a.shape[0] - 1, 0, -1):
        j = R.randint(rng, i + 1)
        a[i], a[j] = a[j], a[i]


@njit(cache=True)
def reset(T, met, mt, rng):
    """Start a championship: clear the state and make the starting draw (a random permutation)."""
    T[T_ROUND:T_LEN] = 0  # the running state; the options before T_ROUND and from T_LEN on stay
    T[T_BYE] = -1
    T[T_HEADER:] = 0
    met[:, :] = 0
    pos = blk(T, B_POS)
    for i in range(T[T_N]):
        pos[i] = i
    shuffle(pos, rng)  # pos[i]: player i's bracket position / random place (random_order)


@njit(cache=True)
def _colours(T, rng, x, y):
    """(black, white) for a pairing: the player who had Black less often gets it, then the one
    who had White last, then a coin."""
    col, last = blk(T, B_COL), blk(T, B_LAST)
    if col[x] != col[y]:
        return (x, y) if col[x] < col[y] else (y, x)
    if last[x] != last[y]:
        return (x, y) if last[x] < last[y] else (y, x)
    return (x, y) if R.randint(rng, 2) == 0 else (y, x)


@njit(cache=True)
def _add_match(T, mt, a, b):
    m = T[T_NMATCH]
    mt[m, M_A], mt[m, M_B] = a, b
    mt[m, M_WA] = mt[m, M_WB] = mt[m, M_GAMES] = 0
    mt[m, M_WINNER] = UNDECIDED
    T[T_NMATCH] = m + 1


@njit(cache=True)
def _rank_by_points(T, rng, order):
    """Players by points, highest first, ties in random order (a shuffle, then a stable sort)."""
    n = T[T_N]
    pts = blk(T, B_PTS)
    for i in range(n):
        order[i] = i
    shuffle(order, rng)
    for i in range(1, n):  # insertion sort: stable, and n is small
        p = order[i]
        j = i - 1
        while j >= 0 and pts[order[j]] < pts[p]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = p


@njit(cache=True)
def _clash(col, x, y):
    """Both players are already two games or more ahead on the same colour: whoever of them got
    that colour again would be three ahead."""
    return col[x] * col[y] > 0 and min(abs(col[x]), abs(col[y])) >= 2


@njit(cache=True)
def _pair_without_rematches(players, met, col, max_rematches, strict, pa, pb, used, nxt, budget):
    """Pair ``players`` (in rank order) top-down, each with the nearest-ranked free opponent,
    backtracking so that at most ``max_rematches`` pairs have met before (and, if ``strict``, no
    pair has a colour clash). Iterative DFS; returns (found, search steps taken): not found if no
    such pairing exists or ``budget`` steps run out. ``used`` and ``nxt`` are scratch arrays of at
    least ``len(players)``."""
    n = players.shape[0]
    npairs = n // 2
    used[:n] = 0
    depth, rematches, steps, fresh = 0, 0, 0, True
    while depth < npairs:
        if fresh:
            a = 0
            while used[a]:
                a += 1
            pa[depth] = a
            nxt[depth] = a + 1
        a = pa[depth]
        j = nxt[depth]
        while j < n and (
            used[j]
            or rematches + (met[players[a], players[j]] > 0) > max_rematches
            or (strict and _clash(col, players[a], players[j]))
        ):
            j += 1
        if j < n:
            used[a] = used[j] = True
            pb[depth] = j
            nxt[depth] = j + 1
            rematches += met[players[a], players[j]] > 0
            depth += 1
            fresh = True
            steps += 1
            if steps > budget:
                return False, steps
        else:
            if depth == 0:
                return False, steps
            depth -= 1
            a, j = pa[depth], pb[depth]
            used[a] = used[j] = False
            rematches -= met[players[a], players[j]] > 0
            fresh = False
    for d in range(npairs):
        pa[d], pb[d] = players[pa[d]], players[pb[d]]
    return True, steps


@njit(cache=True)
def _pair_avoiding(T, met, order, m, pa, pb, used, nxt):
    """The rematch-avoiding pairing of the ranked ``order[:m]`` (``m`` = n or n - 1; with an odd
    field ``order[m]`` receives the bye): a backtracking search in rank order, so that pairs stay
    inside their score group and float down only when they must, with the criteria in the order
    chess arbiters weigh them. Rematches are the absolute criterion (fewest first; none whenever a
    rematch-free pairing exists), a second bye comes next (a player who had one gets another only
    when every other choice would cost a rematch), then colour clashes (three games ahead on one
    colour), and last the bye's rank. The bye candidate is part of the search: the lowest-ranked
    eligible player whose absence leaves a pairable field, not merely the lowest-ranked (that
    choice alone can force a rematch that another bye avoids). Within a score group players
    meet their nearest-ranked opponent (1-2, 3-4) rather than FIDE Dutch's top half against
    bottom half: that is the pairing whose accuracy the study measured (docs/study.md), and
    the search order, not the in-group rule, is what guarantees no avoidable rematch.
    Returns False only if the search budget runs out at every allowance; on success the bye's
    player is ``order[m]``."""
    n = T[T_N]
    col, byes = blk(T, B_COL), blk(T, B_BYES)
    npairs = m // 2
    if m == n:
        for allowed in range(npairs + 1):  # fewest rematches first, then colour clashes
            for strict in (True, False):
                if _pair_without_rematches(order[:m], met, col, allowed, strict, pa, pb, used, nxt, DFS_BUDGET)[0]:
                    return True
        return False
    fewest = byes[order[0]]
    for i in range(n):
        fewest = min(fewest, byes[order[i]])
    rest = np.empty(m, dtype=np.int64)  # the field without the bye candidate, in rank order
    for allowed in range(npairs + 1):  # fewest rematches first
        for second_bye in (False, True):  # then nobody's second bye
            for strict in (True, False):  # then colour clashes
                budget = DFS_BUDGET  # shared by the candidates (hopeless levels end quickly)
                for cand in range(n - 1, -1, -1):  # bye candidates from the lowest rank up
                    if (byes[order[cand]] > fewest) != second_bye:
                        continue
                    t = 0
                    for i in range(n):
                        if i != cand:
                            rest[t] = order[i]
                            t += 1
                    if budget <= 0:
                        break
                    found, steps = _pair_without_rematches(rest, met, col, allowed, strict, pa, pb, used, nxt, budget)
                    budget -= steps
                    if found:
                        bye = order[cand]
                        order[:m] = rest
                        order[m] = bye
                        return True
    return False


@njit(cache=True)
def _pair_swiss(T, met, mt, rng):
    n = T[T_N]
    order = blk(T, B_ORDER)
    _rank_by_points(T, rng, order)
    T[T_BYE] = -1
    m = n - n % 2
    npairs = m // 2
    pairs = blk(T, B_PAIRS)
    pa, pb = pairs[:npairs], pairs[npairs : 2 * npairs]
    used, nxt = blk(T, B_USED), blk(T, B_NEXT)
    paired = False
    if T[T_AVOID]:
        paired = _pair_avoiding(T, met, order, m, pa, pb, used, nxt)
    if not paired:  # the study's rule: neighbours 1-2, 3-4, ...
        if m < n:  # the bye: the lowest-ranked player among those with the fewest byes
            byes = blk(T, B_BYES)
            best = n - 1
            for i in range(n - 1, -1, -1):
                if byes[order[i]] < byes[order[best]]:
                    best = i
            bye = order[best]
            for i in range(best, n - 1):
                order[i] = order[i + 1]
            order[n - 1] = bye
        for d in range(npairs):
            pa[d], pb[d] = order[2 * d], order[2 * d + 1]
    if m < n:
        bye = order[m]
        T[T_BYE] = bye
        blk(T, B_BYES)[bye] += 1
        blk(T, B_PTS)[bye] += 2
    for d in range(npairs):
        black, white = _colours(T, rng, pa[d], pb[d])
        _add_match(T, mt, black, white)


@njit(cache=True)
def _pair_olympic(T, mt, rng):
    """Pair within groups of equal knock-out history, neighbours by bracket position.

    ``hist`` is the player's results so far as a binary number (1 = lost), first round most
    significant. Group 0 is the main bracket; without ``recursive`` the only other group that plays
    is the semifinal losers (history 1) in the last round: the third-place match."""
    n, r, depth = T[T_N], T[T_ROUND], T[T_DEPTH]
    hist, nplayed, pos = blk(T, B_HIST), blk(T, B_NPLAYED), blk(T, B_POS)
    key = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        if nplayed[i] == r and (T[T_RECURSIVE] or hist[i] == 0 or (r == depth - 1 and hist[i] == 1)):
            key[m] = (hist[i] * n + pos[i]) * n + i  # sort by (group, bracket position)
            m += 1
    key = np.sort(key[:m])
    for t in range(0, m - 1, 2):
        black, white = _colours(T, rng, key[t] % n, key[t + 1] % n)
        _add_match(T, mt, black, white)


@njit(cache=True)
def _pair_round(T, met, mt, rng):
    """Pair the next round into ``mt``; False when the system has no rounds left."""
    system, n, r = T[T_SYS], T[T_N], T[T_ROUND]
    T[T_NMATCH] = 0
    if system == ROUND_ROBIN or system == GAUNTLET:
        if r >= 1:
            return False
        c = T[T_CAND]
        for i in range(n):
            for j in range(n):
                if i != j and (system == ROUND_ROBIN or (i < c) != (j < c)):
                    _add_match(T, mt, i, j)
    elif system == OLYMPIC:
        if r >= T[T_DEPTH]:
            return False
        _pair_olympic(T, mt, rng)
    elif system == SWISS:
        if r >= T[T_ROUNDS]:
            return False
        _pair_swiss(T, met, mt, rng)
    else:
        return False
    T[T_ROUND] = r + 1
    return True


@njit(cache=True)
def _close_round(T, mt):
    """Knock-out bookkeeping once every match of the round is decided (points are per game)."""
    if T[T_SYS] != OLYMPIC:
        return
    hist, nplayed = blk(T, B_HIST), blk(T, B_NPLAYED)
    for m in range(T[T_NMATCH]):
        a, b, w = mt[m, M_A], mt[m, M_B], mt[m, M_WINNER]
        loser = b if w == a else a
        hist[w] = 2 * hist[w]
        hist[loser] = 2 * hist[loser] + 1
        nplayed[w] += 1
        nplayed[loser] += 1


@njit(cache=True)
def next_games(T, met, mt, rng, out):
    """Write the next batch of games into ``out`` and return how many (0: the championship is
    over). Every game of a batch must be passed to ``record`` before the next call."""
    while True:
        n = 0
        for m in range(T[T_NMATCH]):
            if mt[m, M_WINNER] == UNDECIDED:
                a, b = mt[m, M_A], mt[m, M_B]
                even = T[T_SYS] != OLYMPIC or mt[m, M_GAMES] % 2 == 0  # a knock-out alternates colours
                out[n, 0], out[n, 1], out[n, 2] = m, (a if even else b), (b if even else a)
                n += 1
        if n > 0 or T[T_DONE]:
            return n
        _close_round(T, mt)
        if not _pair_round(T, met, mt, rng):
            T[T_DONE] = 1
            T[T_NMATCH] = 0
            return 0


@njit(cache=True)
def record(T, met, mt, out, res, n, rng):
    """Score the ``n`` games of the last batch: ``res[i]`` is the result of game ``out[i]``."""
    pts, col, last = blk(T, B_PTS), blk(T, B_COL), blk(T, B_LAST)
    k = T[T_K]
    for i in range(n):
        m, black, white = out[i, 0], out[i, 1], out[i, 2]
        r = res[i]
        met[black, white] += 1
        met[white, black] += 1
        col[black] += 1
        col[white] -= 1
        last[black], last[white] = 1, -1
        T[T_GAMES] += 1
        mt[m, M_GAMES] += 1
        winner = black if r == BLACK_WINS else (white if r == WHITE_WINS else -1)
        if winner >= 0:
            pts[winner] += WIN2
            if winner == mt[m, M_A]:
                mt[m, M_WA] += 1
            else:
                mt[m, M_WB] += 1
        elif r == DRAW:
            pts[black] += DRAW2
            pts[white] += DRAW2
        # DOUBLE_FORFEIT: a game both lost, worth nothing to either and no win towards a match
        wa, wb, g, length = mt[m, M_WA], mt[m, M_WB], mt[m, M_GAMES], T[T_LEN]
        if T[T_SYS] != OLYMPIC:  # a fixed number of games, one colour: draws are shared, wins decide
            if g >= length:
                mt[m, M_WINNER] = mt[m, M_A] if wa > wb else (mt[m, M_B] if wb > wa else DRAWN)
        elif length == 0:  # first to k
            if wa == k or wb == k or g >= 4 * k:
                a_wins = wa > wb or (wa == wb and R.randint(rng, 2) == 0)
                mt[m, M_WINNER] = mt[m, M_A] if a_wins else mt[m, M_B]
        elif g % 2 == 0 and (abs(wa - wb) > max(length - g, 0) or g >= 4 * length):
            # a match of ``length`` games, decided at a pair boundary: the leader cannot be caught
            a_wins = wa > wb or (wa == wb and R.randint(rng, 2) == 0)
            mt[m, M_WINNER] = mt[m, M_A] if a_wins else mt[m, M_B]


@njit(cache=True)
def places(T, lo, hi):
    """Aggregate place interval ``[lo[i], hi[i]]`` (1 = first) of every player."""
    n, system = T[T_N], T[T_SYS]
    if system == RANDOM_ORDER:
        pos = blk(T, B_POS)
        for i in range(n):
            lo[i] = hi[i] = pos[i] + 1
    elif system == OLYMPIC:  # unplayed rounds leave a block of 2**(rounds left) shared places
        hist, nplayed = blk(T, B_HIST), blk(T, B_NPLAYED)
        for i in range(n):
            left = T[T_DEPTH] - nplayed[i]
            lo[i] = 1 + (hist[i] << left)
            hi[i] = lo[i] + (1 << left) - 1
    elif system == GAUNTLET:  # the candidates by points, then the field by points
        c = T[T_CAND]
        _by_points(blk(T, B_PTS), np.int64(0), c, lo, hi)  # not the literal 0: one compile
        _by_points(blk(T, B_PTS), c, n, lo, hi)
    else:
        _by_points(blk(T, B_PTS), np.int64(0), n, lo, hi)


@njit(cache=True)
def _by_points(pts, first, last, lo, hi):
    """Places ``first + 1``.. of players ``first..last-1`` by points; equal points share the
    interval of places they span."""
    order = first + np.argsort(-pts[first:last], kind="mergesort")
    n = last - first
    start = 0
    while start < n:
        end = start
        while end + 1 < n and pts[order[end + 1]] == pts[order[start]]:
            end += 1
        for t in range(start, end + 1):
            lo[order[t]], hi[order[t]] = first + start + 1, first + end + 1
        start = end + 1
