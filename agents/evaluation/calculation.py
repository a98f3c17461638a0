"""Calculation (patience) policy: play up whenever a card fits, else keep the waste piles in order.

A card's *distance* is how many cards its nearest foundation still needs before it (each rank
sits once in each foundation's sequence; see ``distance``). Waste piles are worked from the top
only, so a pile unwinds by itself when distances grow downwards: the top is needed soonest.

Foundation moves come first, and a waste top before the face-up card: a waste top can only ever
leave its pile that way, while the face-up card, if it does not fit any more, still has a choice of
pile. A card that fits two foundations goes where the following card is already at hand.

Otherwise the face-up card goes onto a waste pile, scored by ``_placement``:

* onto a top needed later than the card (an *in-order* fit): the tighter the better, so that wide
  gaps stay free for cards that need them;
* onto an empty pile: a fixed cost, since an empty pile fits anything later;
* onto a top needed sooner (an *inversion*: the top is blocked until the card is played): the
  worst, costing more the longer the card blocks and the sooner the buried top is needed.

Kings are last on every foundation, so one pile collects them (a pile whose bottom is a King):
Kings go there and other cards keep off it while Kings are still to come, and the last empty pile
is kept for the first King.
"""

import numpy as np
from numba import njit

from envs import _common as C
from envs.calculation import _kernel as K

KING = 13

# SEQ_POS[f, r]: position (1..13) of rank r in foundation f+1's sequence (i*(f+1)-1) % 13 + 1.
SEQ_POS = np.zeros((4, 14), dtype=np.int64)
for _f in range(4):
    for _i in range(1, 14):
        SEQ_POS[_f, (_i * (_f + 1) - 1) % 13 + 1] = _i

PLAY_WASTE = 3000.0   # a waste top to a foundation
PLAY_FACE_UP = 2000.0  # the face-up card to a foundation
# Placement weights (tuned on deals 10000..11999, see docs/patience.md).
EMPTY = 2.0      # cost of starting a pile
BURY = 20.0      # cost of any inversion
SLOPE = 1.0      # ... plus this per step the card is needed after the buried top
SOON = 1.0       # ... plus this per step the buried top is needed before the 13th
KING_PILE = 6.0  # a non-King on the King pile while Kings are still to come
LAST_EMPTY = 6.0  # a non-King on the last empty pile while no King pile exists
WEIGHTS = np.array([EMPTY, BURY, SLOPE, SOON, KING_PILE, LAST_EMPTY], dtype=np.float64)


@njit(cache=True)
def distance(s, rank):
    """Cards still to be played on the nearest foundation that wants ``rank`` before it does."""
    best = 99
    for f in range(4):
        have = s[K.FOUND + f]
        need = SEQ_POS[f, rank]
        if need > have and need - have < best:
            best = need - have
    return best


@njit(cache=True)
def _top(s, w):
    """Top card of waste pile ``w``, 0 when it is empty."""
    n = s[K.WLEN + w]
    return s[K.WASTE + K.NSTOCK * w + n - 1] if n > 0 else 0


@njit(cache=True)
def _at_hand(s, rank):
    """Whether a card of ``rank`` is the face-up card or on top of a waste pile."""
    if K.face_up(s, 0) == rank:
        return True
    for w in range(K.NW):
        if _top(s, w) == rank:
            return True
    return False


@njit(cache=True)
def _kings_to_come(s):
    """Kings neither on a foundation nor on a waste pile (face up or in the stock)."""
    left = 4
    for f in range(4):
        left -= s[K.FOUND + f] == 13
    for w in range(K.NW):
        for d in range(s[K.WLEN + w]):
            left -= s[K.WASTE + K.NSTOCK * w + d] == KING
    return left


@njit(cache=True)
def _placement(s, card, w, wts):
    """Score (<= 0, higher is better) of putting the face-up ``card`` on waste pile ``w``."""
    height = s[K.WLEN + w]
    king_pile = -1
    empties = 0
    for v in range(K.NW):
        if s[K.WLEN + v] == 0:
            empties += 1
        elif s[K.WASTE + K.NSTOCK * v] == KING and king_pile < 0:
            king_pile = v
    if card == KING:
        if w == king_pile:
            return 0.0
        if height == 0:
            return -1.0
    elif height == 0:
        cost = wts[0]
        if empties == 1 and king_pile < 0 and _kings_to_come(s) > 0:
            cost += wts[5]
        return -cost
    d = distance(s, card)
    top = s[K.WASTE + K.NSTOCK * w + height - 1]
    dt = distance(s, top)
    cost = 0.0
    if card != KING and w == king_pile and _kings_to_come(s) > 0:
        cost += wts[4]
    if d <= dt:
        return -(cost + dt - d)
    return -(cost + wts[1] + wts[2] * (d - dt) + wts[3] * (13 - dt))


@njit(cache=True)
def _up_score(s, card, f):
    """Bonus in [0, 1] for playing ``card`` on foundation ``f``: the next card is at hand."""
    n = s[K.FOUND + f] + 1
    if n == 13:
        return 1.0
    return 1.0 if _at_hand(s, K.card_on_foundation(f, n + 1)) else 0.0


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Score of move ``a`` for the rule-based policy (higher is better; see the module docstring)."""
    if a >= K.FROM_WASTE:
        src, f = (a - K.FROM_WASTE) // K.NF, (a - K.FROM_WASTE) % K.NF
        return PLAY_WASTE + _up_score(s, _top(s, src), f)
    card = s[K.STOCK + s[K.POS]]
    if a >= K.TO_FOUND:
        return PLAY_FACE_UP + _up_score(s, card, a - K.TO_FOUND)
    return _placement(s, card, a, w)


@njit(cache=True)
def policy_move(s, p, w, moves, n, rng):
    """The policy's move among the ``n`` legal ``moves`` of ``s``, ties broken at random."""
    best = -np.inf
    choice = moves[0]
    ties = 0
    for i in range(n):
        a = moves[i]
        score = tactical(s, s, p, a, w)
        if score > best:
            best, choice, ties = score, a, 1
        elif score == best:
            ties += 1
            if C.randint(rng, ties) == 0:
                choice = a
    return choice


@njit(cache=True)
def evaluate(s, p, w):
    """Cards on the foundations (a patience has no opponent; used only by generic code)."""
    return s[K.FOUND] + s[K.FOUND + 1] + s[K.FOUND + 2] + s[K.FOUND + 3]


@njit(cache=True)
def hint(s, p, a):
    return 1 if a >= 4 else 0
