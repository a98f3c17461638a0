"""Calculation (patience) policy: play up whenever a card fits, else keep the waste piles in order.

Used by the greedy agent (``tactical``) and as the ``playout="greedy"`` policy of MCTS
(``policy_move``). It reads only what the player sees: foundations, waste piles, the face-up card
and the counts of unseen cards, never the stock order.

**Foundations first**, and a waste top before the face-up card: a waste top can leave its pile only
that way, while the face-up card, if it no longer fits, still has a choice of pile. A card that
fits two foundations goes where the card after it is already at hand.

**Otherwise the face-up card goes onto a waste pile.** Piles are worked from the top only, so a
pile unwinds by itself when every card is needed before the one under it. ``_placement`` scores,
best first:

* a *chain* fit: some foundation needs the card and then, ``gap`` steps later, the pile's top
  (gap 1: the pile feeds that foundation in order); cost ``CHAIN * gap``;
* a King onto the King pile (a pile of Kings only; Kings are last everywhere, so a King never
  blocks anything when it lies under Kings or on an empty pile);
* an empty pile (``EMPTY``), dearer while it is the last one and the Kings have no pile yet;
* a *cross* fit: the card is needed sooner than the top, but by another foundation (``CROSS``);
* an *inversion*, burying a top that is needed sooner (``BURY``, plus ``SLOPE`` per step the card
  is needed after the top and ``SOON`` per step the top is needed early).

"Needed sooner" compares *distances*: steps until the nearest foundation that wants a copy wants
it, where copies already waiting on the piles serve the nearer foundations first (``_distance``).

**Never bury the piles for good** (``_unwinds``; the greedy agent only). Cards only ever land on
top of a pile, so if the piles could not all be played up even with every unseen card turning up
exactly when wanted, the deal is lost, however the rest of the stock falls. A placement after
which that happens pays ``DEAD``, more than any placement cost. The check spends unseen cards
greedily (where they free the most waste tops), so it is a heuristic that may call a few live
positions dead; it reads the counts of unseen cards, never their order.

**Look one card ahead.** Each placement also pays ``LOOKAHEAD`` times the expected cost of placing
the next card, drawn from the unseen cards, by the same rule, unwinding check included
(``DEAD_NEXT``), so a move that spoils the only good home of many unseen cards, or leaves some
of them no home that keeps the piles alive, is avoided.

Measured (``docs/patience.md``, greedy agent, seed 0): deals 0..1999, 393 won (19.7%, Wilson 95%
18.0-21.5%), against 197 (9.9%) without the unwinding checks and 2.7% for the earlier
nearest-distance rule. As the MCTS playout policy (``PLAYOUT_WEIGHTS``: no lookahead, no
unwinding check, over 100x cheaper per move) it lifts UCT from 0.5% to 34.5% at 1000 playouts
per move (76.5% at 10000).
"""

import numpy as np
from numba import njit

from .. import _common as C
from . import _kernel as K

KING = 13
FAR = 99  # distance of a rank no foundation wants any more

# SEQ_POS[f, r]: position (1..13) of rank r in foundation f+1's sequence (i*(f+1)-1) % 13 + 1.
SEQ_POS = np.zeros((4, 14), dtype=np.int64)
for _f in range(4):
    for _i in range(1, 14):
        SEQ_POS[_f, (_i * (_f + 1) - 1) % 13 + 1] = _i

PLAY_WASTE = 3000.0    # a waste top to a foundation
PLAY_FACE_UP = 2000.0  # the face-up card to a foundation
# Placement costs, chosen on deals 10000..15999 (the tests and docs use deals 0..1999).
EMPTY = 2.0       # starting a pile
BURY = 20.0       # any inversion ...
SLOPE = 1.0       # ... plus this per step the card is needed after the top it buries
SOON = 1.0        # ... plus this per step the buried top is needed before distance 13
KING_PILE = 6.0   # a non-King on the King pile while Kings are still to come
LAST_EMPTY = 6.0  # a non-King on the last empty pile while the Kings have no pile
CHAIN = 2.0       # per step of a chain fit
CROSS = 15.0      # a cross fit
LOOKAHEAD = 1.0   # weight of the next cards' expected placement cost
DEAD = 100.0      # a placement after which the piles can no longer unwind
DEAD_NEXT = 100.0  # the same for the next card, in the lookahead
WEIGHTS = np.array([EMPTY, BURY, SLOPE, SOON, KING_PILE, LAST_EMPTY, CHAIN, CROSS, LOOKAHEAD, DEAD,
                    DEAD_NEXT], dtype=np.float64)
(I_EMPTY, I_BURY, I_SLOPE, I_SOON, I_KING_PILE, I_LAST_EMPTY, I_CHAIN, I_CROSS, I_LOOKAHEAD,
 I_DEAD, I_DEAD_NEXT) = range(11)
# MCTS playouts drop the lookahead and the unwinding checks (measured with exactly these weights;
# the lookahead alone made a move about 10x dearer for half a point, the checks 15x more again).
PLAYOUT_WEIGHTS = WEIGHTS.copy()
PLAYOUT_WEIGHTS[I_LOOKAHEAD] = 0.0
PLAYOUT_WEIGHTS[I_DEAD] = 0.0
PLAYOUT_WEIGHTS[I_DEAD_NEXT] = 0.0


@njit(cache=True)
def _top(s, w):
    """Top card of waste pile ``w``, 0 when it is empty."""
    n = s[K.WLEN + w]
    return s[K.WASTE + K.NSTOCK * w + n - 1] if n > 0 else 0


@njit(cache=True)
def _on_piles(s, rank):
    """Copies of ``rank`` on the waste piles."""
    k = 0
    for w in range(K.NW):
        for d in range(s[K.WLEN + w]):
            k += s[K.WASTE + K.NSTOCK * w + d] == rank
    return k


@njit(cache=True)
def _distance(s, rank, ahead):
    """Steps until a foundation wants the copy of ``rank`` that has ``ahead`` copies before it.

    The foundations still wanting ``rank`` want it at step distances e1 <= e2 <= ...; copies
    already on the piles serve the nearer ones, so one more copy most likely serves e(ahead+1).
    """
    e0, e1, e2, e3 = _step(s, 0, rank), _step(s, 1, rank), _step(s, 2, rank), _step(s, 3, rank)
    # sorting network on four scalars (no allocation: this runs in every playout move)
    e0, e1 = min(e0, e1), max(e0, e1)
    e2, e3 = min(e2, e3), max(e2, e3)
    e0, e2 = min(e0, e2), max(e0, e2)
    e1, e3 = min(e1, e3), max(e1, e3)
    e1, e2 = min(e1, e2), max(e1, e2)
    k = min(ahead, 3)
    e = e0 if k == 0 else (e1 if k == 1 else (e2 if k == 2 else e3))
    return e if e < FAR else e0


@njit(cache=True)
def _step(s, f, rank):
    """Steps until foundation ``f`` wants ``rank``, FAR when it has passed it."""
    have = s[K.FOUND + f]
    need = SEQ_POS[f, rank]
    return need - have if need > have else FAR


@njit(cache=True)
def _chain_gap(s, card, top):
    """Fewest steps from ``card`` to ``top`` along one foundation that still needs both, else FAR.

    A gap of 1 means that foundation takes ``top`` right after ``card``: the pile feeds it in order.
    """
    best = FAR
    for f in range(4):
        have = s[K.FOUND + f]
        a, b = SEQ_POS[f, card], SEQ_POS[f, top]
        if have < a < b and b - a < best:
            best = b - a
    return best


@njit(cache=True)
def _only_kings(s, w):
    """Whether waste pile ``w`` is non-empty and holds Kings only."""
    n = s[K.WLEN + w]
    for d in range(n):
        if s[K.WASTE + K.NSTOCK * w + d] != KING:
            return False
    return n > 0


@njit(cache=True)
def _kings_to_come(s):
    """Kings neither on a foundation nor on a waste pile (face up or in the stock)."""
    left = 4 - _on_piles(s, KING)
    for f in range(4):
        left -= s[K.FOUND + f] == 13
    return left


@njit(cache=True)
def _placement(s, card, w, wts):
    """Score (<= 0, higher is better) of putting ``card`` on waste pile ``w`` of ``s``."""
    height = s[K.WLEN + w]
    king_pile, empties = -1, 0
    for v in range(K.NW):
        if s[K.WLEN + v] == 0:
            empties += 1
        elif king_pile < 0 and _only_kings(s, v):
            king_pile = v
    if card == KING:
        if w == king_pile:
            return 0.0
        if height == 0:
            return -1.0
    elif height == 0:
        if empties == 1 and king_pile < 0 and _kings_to_come(s) > 0:
            return -(wts[I_EMPTY] + wts[I_LAST_EMPTY])
        return -wts[I_EMPTY]
    top = s[K.WASTE + K.NSTOCK * w + height - 1]
    cost = 0.0
    if card != KING and w == king_pile and _kings_to_come(s) > 0:
        cost += wts[I_KING_PILE]
    chain = _chain_gap(s, card, top)
    if chain < FAR:
        return -(cost + wts[I_CHAIN] * chain)
    d = _distance(s, card, _on_piles(s, card))
    dt = _distance(s, top, _on_piles(s, top) - 1)  # the top itself is one of the copies on piles
    if d <= dt:
        return -(cost + wts[I_CROSS] + dt - d)
    return -(cost + wts[I_BURY] + wts[I_SLOPE] * (d - dt) + wts[I_SOON] * (13 - dt))


@njit(cache=True)
def _fitting_foundation(s, rank):
    """First foundation that needs ``rank`` next, -1 when none does."""
    for f in range(4):
        if K.needed(s, f) == rank:
            return f
    return -1


@njit(cache=True)
def _push(s, w, card):
    """Lay ``card`` on waste pile ``w`` of a borrowed state (``_pop`` undoes it)."""
    s[K.WASTE + K.NSTOCK * w + s[K.WLEN + w]] = card
    s[K.WLEN + w] += 1


@njit(cache=True)
def _pop(s, w):
    """Take the top card off waste pile ``w`` of a borrowed state (undoes ``_push``)."""
    s[K.WLEN + w] -= 1
    s[K.WASTE + K.NSTOCK * w + s[K.WLEN + w]] = 0


@njit(cache=True)
def _best_placement(s, card, counts, wts):
    """Score of the best waste pile for ``card`` (``counts``: the cards still unseen after it).

    A pile after which the piles cannot unwind (``_unwinds``) pays ``DEAD_NEXT``. Piles are tried
    best placement first and the first one that keeps the piles alive ends the search: this runs
    for every unseen rank of every candidate move.
    """
    scores = np.empty(K.NW)
    for v in range(K.NW):
        scores[v] = _placement(s, card, v, wts)
    if wts[I_DEAD_NEXT] <= 0:
        return scores.max()
    for v in np.argsort(-scores, kind="mergesort"):
        _push(s, v, card)
        alive = _unwinds(s, counts)
        _pop(s, v)
        if alive:
            return scores[v]
    return scores.max() - wts[I_DEAD_NEXT]


@njit(cache=True)
def _expected_next(s, counts, wts):
    """Expected score of placing the next card, drawn from ``counts`` (unseen ranks), (<= 0).

    A card that fits a foundation costs nothing; any other goes to its ``_best_placement``.
    """
    total, cards = 0.0, 0
    for r in range(1, 14):
        c = counts[r - 1]
        cards += c
        if c == 0 or _fitting_foundation(s, r) >= 0:
            continue
        counts[r - 1] -= 1
        total += c * _best_placement(s, r, counts, wts)
        counts[r - 1] += 1
    return total / cards if cards > 0 else 0.0


@njit(cache=True)
def _next_card_cost(s, card, w, wts):
    """Expected score of placing the next card once ``card`` lies on pile ``w`` (<= 0).

    The next card is drawn from the unseen cards (their counts, never their order) and placed by
    ``_best_placement``. ``s`` is borrowed: the card is pushed onto the pile and popped again
    before returning.
    """
    counts = np.zeros(13, dtype=np.int64)
    K.unseen_counts(s, 0, counts)
    _push(s, w, card)
    cost = _expected_next(s, counts, wts)
    _pop(s, w)
    return cost


@njit(cache=True)
def _settle_view(s, view):
    """Play waste tops up in ``view`` until none fits; return how many went up.

    ``view[0:4]`` are the foundation counts and ``view[4:8]`` the pile heights of a position whose
    pile cards are those of ``s``: popping a card only lowers a height, so ``s`` is never written.
    """
    played = 0
    moved = True
    while moved:
        moved = False
        for w in range(K.NW):
            n = view[4 + w]
            if n > 0:
                top = s[K.WASTE + K.NSTOCK * w + n - 1]
                for f in range(4):
                    if view[f] < 13 and K.card_on_foundation(f, view[f] + 1) == top:
                        view[f] += 1
                        view[4 + w] = n - 1
                        played += 1
                        moved = True
                        break
    return played


@njit(cache=True)
def _buried(s, view, rank):
    """Copies of ``rank`` on the piles of ``view``."""
    k = 0
    for w in range(K.NW):
        for d in range(view[4 + w]):
            k += s[K.WASTE + K.NSTOCK * w + d] == rank
    return k


@njit(cache=True)
def _unwinds(s, counts):
    """Whether every card could still reach a foundation if each unseen card came when wanted.

    Cards only ever go on top of the piles, so a pile order that cannot unwind even then is lost.
    Waste tops go up first; when none fits, an unseen card is spent on the foundation where it
    frees the most waste tops (then: whose rank has the fewest copies buried in the piles). That
    choice is a heuristic, so a few live positions may be called dead.
    """
    view = np.empty(8, dtype=np.int64)
    trial = np.empty(8, dtype=np.int64)
    for i in range(4):
        view[i] = s[K.FOUND + i]
        view[4 + i] = s[K.WLEN + i]
    free = counts.copy()
    while True:
        _settle_view(s, view)
        pick, best = -1, -(1 << 30)
        for f in range(4):
            if view[f] == 13:
                continue
            r = K.card_on_foundation(f, view[f] + 1)
            if free[r - 1] > 0:
                trial[:] = view
                trial[f] += 1
                gain = 100 * _settle_view(s, trial) - _buried(s, view, r)
                if gain > best:
                    pick, best = f, gain
        if pick < 0:
            break
        free[K.card_on_foundation(pick, view[pick] + 1) - 1] -= 1
        view[pick] += 1
    return view[0] + view[1] + view[2] + view[3] == 52


@njit(cache=True)
def _dead_cost(s, card, w, wts):
    """``DEAD`` when ``card`` on pile ``w`` leaves piles that can no longer unwind, else 0."""
    counts = np.zeros(13, dtype=np.int64)
    K.unseen_counts(s, 0, counts)
    _push(s, w, card)
    alive = _unwinds(s, counts)
    _pop(s, w)
    return 0.0 if alive else wts[I_DEAD]


@njit(cache=True)
def _up_score(s, card, f):
    """1 if the card after ``card`` on foundation ``f`` is at hand (face up or a waste top)."""
    n = s[K.FOUND + f] + 1
    if n == 13:
        return 1.0
    following = K.card_on_foundation(f, n + 1)
    if K.face_up(s, 0) == following:
        return 1.0
    for w in range(K.NW):
        if _top(s, w) == following:
            return 1.0
    return 0.0


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Score of move ``a`` in ``s`` by the rule-based policy (higher is better).

    ``child`` is unused: after a face-up move it shows the next stock card, which the policy must
    not see.
    """
    if a >= K.FROM_WASTE:
        src, f = (a - K.FROM_WASTE) // K.NF, (a - K.FROM_WASTE) % K.NF
        return PLAY_WASTE + _up_score(s, _top(s, src), f)
    card = s[K.STOCK + s[K.POS]]
    if a >= K.TO_FOUND:
        return PLAY_FACE_UP + _up_score(s, card, a - K.TO_FOUND)
    score = _placement(s, card, a, w)
    if w[I_DEAD] > 0:
        score -= _dead_cost(s, card, a, w)
    if w[I_LOOKAHEAD] > 0:
        score += w[I_LOOKAHEAD] * _next_card_cost(s, card, a, w)
    return score


@njit(cache=True)
def policy_move(s, p, w, moves, n, rng):
    """The policy's move among the ``n`` legal ``moves`` of ``s``; ties broken at random."""
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


PLAYOUTS = ("random", "foundation-first", "greedy")  # the spec's playout names; code = index
FOUNDATION_FIRST, GREEDY = 1, 2


@njit(cache=True)
def playout(s, p, rng, moves, policy):
    """Finish the deal in ``s`` with a patience playout policy (search calls the uniform random
    policy, code 0, through the kernel's ``random_playout`` instead).

    FOUNDATION_FIRST: a card that fits a foundation goes there at once; only the other moves are
    random. GREEDY: the rule-based waste-pile policy of ``policy_move`` without its lookahead term
    (``PLAYOUT_WEIGHTS``), ties at random. Both read only what the player sees; the cards they
    turn come from the simulation's redrawn stock, so playouts differ between simulations.
    """
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        if policy == GREEDY:
            K.apply(s, p, policy_move(s, p, PLAYOUT_WEIGHTS, moves, n, rng))
            continue
        a = moves[C.randint(rng, n)]
        if policy == FOUNDATION_FIRST and moves[n - 1] >= K.TO_FOUND:
            for i in range(n):  # ascending ids: the first foundation move, face-up card first
                if moves[i] >= K.TO_FOUND:
                    a = moves[i]
                    break
        K.apply(s, p, a)
