"""Lines of Action evaluation with Winands' features (STUDY.md §3), over the kernel's bitboards.

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
``WEIGHTS`` were tuned by self-play (``python -m agents.evaluation.tune_loa``;
``docs/loa_weights.md``).
"""

import numpy as np
from numba import njit

from envs import _common as C
from envs.loa import _kernel as K

FEATURES = ("concentration", "centralisation", "com_position", "quads", "mobility",
            "uniformity", "connectedness")
WEIGHTS = np.array([6.0, 2.0, 0.25, 2.0, 3.0, 1.0, 1.0], dtype=np.float64)
TEMPO = 10  # the side to move is a tempo ahead


def _tables():
    pst = np.zeros(64, dtype=np.int64)
    nbr = np.zeros(64, dtype=np.int64)
    edge = np.zeros(64, dtype=np.bool_)
    for r in range(8):
        for c in range(8):
            ring = max(abs(2 * r - 7), abs(2 * c - 7)) // 2  # 0 centre .. 3 edge
            corner = (r in (0, 7)) and (c in (0, 7))
            pst[r * 8 + c] = (4, 3, 1, -1)[ring] - 2 * corner
            edge[r * 8 + c] = ring == 3
            mask = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    if (dr or dc) and 0 <= rr < 8 and 0 <= cc < 8:
                        mask |= 1 << (rr * 8 + cc)
            nbr[r * 8 + c] = K._signed(mask)
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
    return pst, nbr, edge, least


PST, NBR, EDGE, LEAST = _tables()


@njit(cache=True)
def _popcount(x):
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def features(s, seat, out):
    """Write the seven features of ``seat`` into ``out`` (see the module docstring)."""
    own = s[K.S_BB + seat]
    opp = s[K.S_BB + 1 - seat]
    n = 0
    sr = 0
    sc = 0
    rmin, rmax, cmin, cmax = 8, -1, 8, -1
    central = 0
    conn = 0
    mob2 = 0  # mobility in half-moves
    rest = own
    while rest != 0:
        cell = K._lowest_cell(rest)
        rest &= rest - 1
        r, c = cell // 8, cell % 8
        n += 1
        sr += r
        sc += c
        rmin, rmax, cmin, cmax = min(rmin, r), max(rmax, r), min(cmin, c), max(cmax, c)
        central += PST[cell]
        conn += _popcount(NBR[cell] & own)
        for d in range(8):
            k = K._move_key(s, cell, d)
            if K._move_ok(own, opp, k):
                t = K.TARGET[k]
                mob2 += 1 if EDGE[t] else 2
                if (opp >> t) & 1:
                    mob2 += 2
    if n == 0:
        out[:] = 0.0
        return
    cr = sr / n
    cc = sc / n
    dist = 0
    rest = own
    while rest != 0:
        cell = K._lowest_cell(rest)
        rest &= rest - 1
        dist += int(max(abs(cell // 8 - cr), abs(cell % 8 - cc)) + 0.5)
    quads = 0
    for r in range(max(0, int(cr) - 2), min(7, int(cr) + 3)):
        for c in range(max(0, int(cc) - 2), min(7, int(cc) + 3)):
            block = (own >> (r * 8 + c)) & 3
            block |= ((own >> ((r + 1) * 8 + c)) & 3) << 2
            if _popcount(block) >= 3:
                quads += 1
    out[0] = -(dist - LEAST[min(n, 12)]) / n
    out[1] = central / n
    out[2] = max(abs(cr - 3.5), abs(cc - 3.5))
    out[3] = quads
    out[4] = mob2 / 16.0
    out[5] = -(rmax - rmin + 1) * (cmax - cmin + 1) / 16.0
    out[6] = conn / n


@njit(cache=True)
def evaluate(s, p, w):
    me = s[C.H_PLAYER]
    mine = np.empty(7, dtype=np.float64)
    theirs = np.empty(7, dtype=np.float64)
    features(s, me, mine)
    features(s, 1 - me, theirs)
    value = 0.0
    for i in range(7):
        value += w[i] * (mine[i] - theirs[i])
    return np.int64(100.0 * value) + TEMPO


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
