"""Calculation (patience) policy: play up whenever a card fits, else keep the waste piles in order.

Used by the greedy agent (``tactical``) and as the ``playout="greedy"`` policy of MCTS
(``playout``, the game's default). It reads only what the player sees: foundations, waste piles, the face-up card
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
nearest-distance rule.

**MCTS playouts** use the placement rule alone (``PLAYOUT_WEIGHTS``: no lookahead). The
``"greedy"`` playout skips the unwinding check too (over 100x cheaper per move than the greedy
agent; one playout from a fresh deal wins 9.1%). The ``"checked"`` playout (the game's default)
checks the pile the rule picks and, if the piles would no longer unwind, takes the best pile
after which they still do: one playout wins 13.5%, at about 7 times the cost of a greedy one
(``benchmarks/patience.py``). In UCT at 1,000 playouts per move that is 58% of deals won against
42% for ``"greedy"``, at 10,000 83.5% against 79% (not a significant gain).

**What search tries** (``filter_moves``, which MCTS asks on Calculation by default): only the
moves that play a card up where a card fits, and one empty pile for all; with the checked
playouts, 68% of deals won at 1,000 playouts per move, 91% at 10,000 and 92 of 100 at 100,000;
with MCTS's ``progress_reward`` as well (a lost playout scores a fifth of its share of cards up,
the kernel's ``progress``), 73%, 91% and 95 of 100 (``docs/patience.md``).
"""

import numpy as np
from numba import njit

from ..core import kernel as C
from ..core import rng as R
from . import _kernel as K

KING = 13
FAR = 99  # distance of a rank no foundation wants any more

# SEQ_POS[f, r]: position (1..13) of rank r in foundation f+1's sequence (i*(f+1)-1) % 13 + 1.
SEQ_POS = np.zeros((4, 14), dtype=np.int64)
for _f in range(4):
    for _i in range(1, 14):
        SEQ_POS[_f, (_i * (_f + 1) - 1) % 13 + 1] = _i

PLAY_WASTE = 3000.0  # a waste top to a foundation
PLAY_FACE_UP = 2000.0  # the face-up card to a foundation
# Placement costs, chosen on deals 10000..15999 (the tests and docs use deals 0..1999).
EMPTY = 2.0  # starting a pile
BURY = 20.0  # any inversion ...
SLOPE = 1.0  # ... plus this per step the card is needed after the top it buries
SOON = 1.0  # ... plus this per step the buried top is needed before distance 13
KING_PILE = 6.0  # a non-King on the King pile while Kings are still to come
LAST_EMPTY = 6.0  # a non-King on the last empty pile while the Kings have no pile
CHAIN = 2.0  # per step of a chain fit
CROSS = 15.0  # a cross fit
LOOKAHEAD = 1.0  # weight of the next cards' expected placement cost
DEAD = 100.0  # a placement after which the piles can no longer unwind
DEAD_NEXT = 100.0  # the same for the next card, in the lookahead
WEIGHTS = np.array(
    [EMPTY, BURY, SLOPE, SOON, KING_PILE, LAST_EMPTY, CHAIN, CROSS, LOOKAHEAD, DEAD, DEAD_NEXT], dtype=np.float64
)
(I_EMPTY, I_BURY, I_SLOPE, I_SOON, I_KING_PILE, I_LAST_EMPTY, I_CHAIN, I_CROSS, I_LOOKAHEAD, I_DEAD, I_DEAD_NEXT) = (
    range(11)
)
# MCTS playouts drop the lookahead and the weighted unwinding checks (measured with exactly these
# weights; the lookahead alone made a move about 10x dearer for half a point); the "checked" playout
# asks the unwinding check of the pile it picks instead (``_greedy_playout``).
PLAYOUT_WEIGHTS = WEIGHTS.copy()
PLAYOUT_WEIGHTS[I_LOOKAHEAD] = 0.0
PLAYOUT_WEIGHTS[I_DEAD] = 0.0
PLAYOUT_WEIGHTS[I_DEAD_NEXT] = 0.0


@njit(cache=True)
def _top(s, w):
    """Top card of waste pile ``w``, 0 when it is empty."""
    return s[K.WASTE + K.NSTOCK * w + max(s[K.WLEN + w], 1) - 1]  # the cell past a pile's top is 0


@njit(cache=True)
def _tops(s):
    """The four waste tops as a tuple (0: an empty pile)."""
    return _top(s, 0), _top(s, 1), _top(s, 2), _top(s, 3)


@njit(cache=True)
def _heights(s):
    """The four waste pile heights as a tuple."""
    return s[K.WLEN], s[K.WLEN + 1], s[K.WLEN + 2], s[K.WLEN + 3]


@njit(cache=True)
def _weights(wts):
    """The weights array as a tuple, read once: the scoring helpers take tuples and scalars
    rather than arrays (see ``_placement`` on why)."""
    return (wts[0], wts[1], wts[2], wts[3], wts[4], wts[5], wts[6], wts[7], wts[8], wts[9], wts[10])


@njit(cache=True)
def _foundations(s):
    """The four foundation counts as a tuple: the scoring helpers below take it, and scalars,
    rather than the state array (see ``_placement`` on why)."""
    return s[K.FOUND], s[K.FOUND + 1], s[K.FOUND + 2], s[K.FOUND + 3]


@njit(cache=True)
def _distance(found, rank, ahead):
    """Steps until a foundation wants the copy of ``rank`` that has ``ahead`` copies before it
    (``found``: the foundation counts).

    The foundations still wanting ``rank`` want it at step distances e1 <= e2 <= ...; copies
    already on the piles serve the nearer ones, so one more copy most likely serves e(ahead+1).
    """
    e0, e1 = _step(found[0], 0, rank), _step(found[1], 1, rank)
    e2, e3 = _step(found[2], 2, rank), _step(found[3], 3, rank)
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
def _step(have, f, rank):
    """Steps until foundation ``f``, holding ``have`` cards, wants ``rank``; FAR when it has
    passed it."""
    need = SEQ_POS[f, rank]
    return need - have if need > have else FAR


@njit(cache=True)
def _chain_gap(found, card, top):
    """Fewest steps from ``card`` to ``top`` along one foundation that still needs both, else FAR
    (``found``: the foundation counts).

    A gap of 1 means that foundation takes ``top`` right after ``card``: the pile feeds it in order.
    """
    best = FAR
    for f in range(4):
        a, b = SEQ_POS[f, card], SEQ_POS[f, top]
        if found[f] < a < b and b - a < best:
            best = b - a
    return best


@njit(cache=True)
def _census(s, on_piles, plain):
    """Count what lies on the waste piles: ``on_piles[r]`` copies of rank ``r``, ``plain[w]``
    non-Kings on pile ``w`` (one pass; a playout keeps both up to date move by move instead)."""
    on_piles[:] = 0
    for w in range(K.NW):
        plain[w] = 0
        for d in range(s[K.WLEN + w]):
            card = s[K.WASTE + K.NSTOCK * w + d]
            on_piles[card] += 1
            plain[w] += card != KING


@njit(cache=True)
def _layout(s, on_piles, plain):
    """``(king_pile, empties, kings_to_come)`` of ``s``: the first pile of Kings only (-1: none),
    the empty piles, and the Kings neither on a foundation nor on a pile (face up or unseen)."""
    king_pile, empties = -1, 0
    for v in range(K.NW):
        if s[K.WLEN + v] == 0:
            empties += 1
        elif king_pile < 0 and plain[v] == 0:
            king_pile = v
    left = 4 - on_piles[KING]
    for f in range(4):
        left -= s[K.FOUND + f] == 13
    return king_pile, empties, left


@njit(cache=True)
def _placement(s, card, w, wts, on_piles, king_pile, empties, kings_to_come):
    """Score (<= 0, higher is better) of putting ``card`` on waste pile ``w`` of ``s``, whose
    piles hold ``on_piles`` and are laid out as ``_layout`` says.

    Every array is read first, unconditionally, and the rule then works on scalars: numba
    releases an array argument where it is last used, and releases on several branches keep
    its reference-count pass from removing the atomic increment and decrement around each call,
    which cost more than the rule itself (this runs for every pile on every playout move).
    """
    top = _top(s, w)
    found = _foundations(s)
    return _placement_cost(
        card,
        w == king_pile,
        s[K.WLEN + w],
        top,
        found,
        _distance(found, card, on_piles[card]),
        on_piles[top],
        empties,
        king_pile,
        kings_to_come,
        _weights(wts),
    )


@njit(cache=True, inline="always")
def _placement_cost(card, on_king_pile, height, top, found, d, on_top, empties, king_pile, kings_to_come, wt):
    """``_placement`` on scalars: ``card``, needed in ``d`` steps (``_distance``), onto a pile
    of ``height`` cards with ``top`` on top (0: empty) and ``on_top`` copies of that rank on the
    piles, the weights ``wt`` as a tuple (``_weights``). Inlined: the playout calls it for every
    pile on every move."""
    if card == KING:
        if on_king_pile:
            return 0.0
        if height == 0:
            return -1.0
    elif height == 0:
        if empties == 1 and king_pile < 0 and kings_to_come > 0:
            return -(wt[I_EMPTY] + wt[I_LAST_EMPTY])
        return -wt[I_EMPTY]
    cost = 0.0
    if card != KING and on_king_pile and kings_to_come > 0:
        cost += wt[I_KING_PILE]
    chain = _chain_gap(found, card, top)
    if chain < FAR:
        return -(cost + wt[I_CHAIN] * chain)
    dt = _distance(found, top, on_top - 1)  # the top itself is one of the copies on piles
    if d <= dt:
        return -(cost + wt[I_CROSS] + dt - d)
    return -(cost + wt[I_BURY] + wt[I_SLOPE] * (d - dt) + wt[I_SOON] * (13 - dt))


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
    on_piles = np.empty(14, dtype=np.int64)
    plain = np.empty(K.NW, dtype=np.int64)
    _census(s, on_piles, plain)
    king_pile, empties, kings_to_come = _layout(s, on_piles, plain)
    scores = np.empty(K.NW)
    for v in range(K.NW):
        scores[v] = _placement(s, card, v, wts, on_piles, king_pile, empties, kings_to_come)
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
def _settle_view(s, view, buried):
    """Play waste tops up in ``view`` until none fits; return how many went up, and take each
    off ``buried`` (copies of each rank on the piles).

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
                    if K.SEQUENCE[f, view[f] + 1] == top:  # SEQUENCE[f, 14] = 0: a full foundation
                        view[f] += 1
                        view[4 + w] = n - 1
                        buried[top] -= 1
                        played += 1
                        moved = True
                        break
    return played


@njit(cache=True)
def _unwinds(s, counts):
    """Whether every card could still reach a foundation if each unseen card came when wanted.

    Cards only ever go on top of the piles, so a pile order that cannot unwind even then is lost.
    Waste tops go up first; when none fits, an unseen card is spent on the foundation where it
    frees the most waste tops (then: whose rank has the fewest copies buried in the piles). That
    choice is a heuristic, so a few live positions may be called dead.
    """
    return _unwinds_in(s, counts, np.empty(SCRATCH, dtype=np.int64))


SCRATCH = 8 + 8 + 14 + 13 + 14  # _unwinds_in's working arrays: view, trial, buried, free, spare


@njit(cache=True)
def _unwinds_in(s, counts, scratch):
    """``_unwinds`` working in ``scratch`` (``SCRATCH`` cells), which a playout allocates once."""
    view, trial, buried, free, spare = scratch[0:8], scratch[8:16], scratch[16:30], scratch[30:43], scratch[43:57]
    buried[:] = 0
    for i in range(4):
        view[i] = s[K.FOUND + i]
        view[4 + i] = s[K.WLEN + i]
        for d in range(view[4 + i]):
            buried[s[K.WASTE + K.NSTOCK * i + d]] += 1
    free[:] = counts
    while True:
        _settle_view(s, view, buried)
        if view[4] + view[5] + view[6] + view[7] == 0:
            return True  # the piles are empty: every card left is unseen and can come when wanted
        pick, best = -1, -(1 << 30)
        for f in range(4):
            if view[f] == 13:
                continue
            r = K.SEQUENCE[f, view[f] + 1]
            if free[r - 1] == 0:
                continue
            gain = -buried[r]
            after = K.SEQUENCE[f, view[f] + 2]
            # the piles are settled, so only the card foundation f wants after r can start a run
            if after != 0 and _on_top(s, view, after):
                trial[:] = view
                trial[f] += 1
                gain += 100 * _settle_view(s, trial, spare)  # a trial's counts are not kept
            if gain > best:
                pick, best = f, gain
        if pick < 0:
            break
        free[K.SEQUENCE[pick, view[pick] + 1] - 1] -= 1
        view[pick] += 1
    return view[0] + view[1] + view[2] + view[3] == 52


@njit(cache=True)
def _alive_after(s, w, card, counts, scratch):
    """Whether the piles still unwind (``_unwinds_in``) once ``card`` lies on pile ``w``."""
    _push(s, w, card)
    alive = _unwinds_in(s, counts, scratch)
    _pop(s, w)
    return alive


@njit(cache=True)
def _on_top(s, view, rank):
    """Whether some pile of ``view`` has ``rank`` on top."""
    for w in range(K.NW):
        n = view[4 + w]
        if n > 0 and s[K.WASTE + K.NSTOCK * w + n - 1] == rank:
            return True
    return False


@njit(cache=True)
def _dead_cost(s, card, w, wts):
    """``DEAD`` when ``card`` on pile ``w`` leaves piles that can no longer unwind, else 0."""
    counts = np.zeros(13, dtype=np.int64)
    K.unseen_counts(s, 0, counts)
    return 0.0 if _alive_after(s, w, card, counts, np.empty(SCRATCH, dtype=np.int64)) else wts[I_DEAD]


@njit(cache=True)
def _up_score(found, tops, up, card, f):
    """1 if the card after ``card`` on foundation ``f`` is at hand: face up (``up``) or a waste
    top (``tops``); ``found``: the foundation counts."""
    n = found[f] + 1
    if n == 13:
        return 1.0
    following = K.card_on_foundation(f, n + 1)
    if up == following:
        return 1.0
    for w in range(K.NW):
        if tops[w] == following:
            return 1.0
    return 0.0


@njit(cache=True)
def _foundation_score(found, tops, up, a):
    """Score of move ``a`` (``a >= TO_FOUND``) that plays a card up: a waste top before the
    face-up card ``up``, either one better where the card after it is at hand."""
    if a >= K.FROM_WASTE:
        src, f = (a - K.FROM_WASTE) // K.NF, (a - K.FROM_WASTE) % K.NF
        return PLAY_WASTE + _up_score(found, tops, up, tops[src], f)
    return PLAY_FACE_UP + _up_score(found, tops, up, up, a - K.TO_FOUND)


@njit(cache=True)
def tactical(s, child, p, a, w):
    """Score of move ``a`` in ``s`` by the rule-based policy (higher is better).

    ``child`` is unused: after a face-up move it shows the next stock card, which the policy must
    not see.
    """
    if a >= K.TO_FOUND:
        return _foundation_score(_foundations(s), _tops(s), K.face_up(s, p), a)
    on_piles = np.empty(14, dtype=np.int64)
    plain = np.empty(K.NW, dtype=np.int64)
    _census(s, on_piles, plain)
    king_pile, empties, kings_to_come = _layout(s, on_piles, plain)
    card = s[K.STOCK + s[K.POS]]
    score = _placement(s, card, a, w, on_piles, king_pile, empties, kings_to_come)
    if w[I_DEAD] > 0:
        score -= _dead_cost(s, card, a, w)
    if w[I_LOOKAHEAD] > 0:
        score += w[I_LOOKAHEAD] * _next_card_cost(s, card, a, w)
    return score


@njit(cache=True)
def filter_moves(s, p, moves, n):
    """The moves search considers among the ``n`` legal ``moves`` (ascending ids): only those that
    play a card up, when there are any; else the placements, one empty pile standing for all.

    Playing up is hardly ever worse than keeping the card: a foundation only ever waits for its
    next card, and the copy played now serves it as well as a later copy would. Keeping one back
    can pay only where another foundation wants the same rank first, so search loses little by
    never trying it, and gains much: the tree no longer splits its playouts between moves that
    almost never matter (UCT on deals 0-199: 136 won instead of 116 at 1,000 playouts per move,
    182 instead of 167 at 10,000; ``docs/patience.md``). Which card goes up first, and onto
    which foundation, is still searched. Empty piles are alike (the rules never tell one pile
    from another), so a card laid on any of them leads to the same position up to the piles'
    order: only the first is tried.
    """
    first = n
    while first > 0 and moves[first - 1] >= K.TO_FOUND:  # placements (0..3) come first
        first -= 1
    if first == n:
        kept, empty_seen = 0, False
        for i in range(n):
            empty = s[K.WLEN + moves[i]] == 0
            if not (empty and empty_seen):
                moves[kept] = moves[i]
                kept += 1
            empty_seen = empty_seen or empty
        return kept
    for i in range(first, n):
        moves[i - first] = moves[i]
    return n - first


@njit(cache=True)
def evaluate(s, p, w):
    """Cards on the foundations (a patience has no opponent; used only by generic code)."""
    return s[K.FOUND] + s[K.FOUND + 1] + s[K.FOUND + 2] + s[K.FOUND + 3]


@njit(cache=True)
def hint(s, p, a):
    return 1 if a >= 4 else 0


PLAYOUTS = ("random", "foundation-first", "greedy", "checked")  # the spec's playout names; code = index
FOUNDATION_FIRST, GREEDY, CHECKED = 1, 2, 3


@njit(cache=True)
def playout(s, p, rng, moves, policy):
    """Finish the deal in ``s`` with a patience playout policy (search calls the uniform random
    policy, code 0, through the kernel's ``random_playout`` instead).

    FOUNDATION_FIRST: a card that fits a foundation goes there at once; only the other moves are
    random. GREEDY: the rule-based waste-pile policy of ``tactical`` without its unwinding checks
    and lookahead (``PLAYOUT_WEIGHTS``), ties at random (``_greedy_playout``). CHECKED: GREEDY,
    but a placement after which the piles can no longer unwind (``_unwinds``) gives way to the
    best one after which they can. All read only what the player sees; the cards they turn come
    from the simulation's redrawn stock, so playouts differ between simulations.
    """
    if policy == GREEDY or policy == CHECKED:
        _greedy_playout(s, p, rng, moves, policy == CHECKED)
        return
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        a = moves[R.randint(rng, n)]
        if policy == FOUNDATION_FIRST and moves[n - 1] >= K.TO_FOUND:
            for i in range(n):  # ascending ids: the first foundation move, face-up card first
                if moves[i] >= K.TO_FOUND:
                    a = moves[i]
                    break
        K.apply(s, p, a)


@njit(cache=True)
def _greedy_playout(s, p, rng, moves, checked):
    """Finish the deal with the rule-based policy without its lookahead (``PLAYOUT_WEIGHTS``):
    the best move by ``_foundation_score`` and ``_placement_cost``, ties broken at random; with
    ``checked``, a pile after which the piles can no longer unwind gives way to the best pile
    after which they can (none: the rule's pile).

    Only the chosen pile is checked, and only when it holds cards: a card laid on an empty pile
    lies above nothing. Checking the chosen pile alone keeps the cost at about one check per
    placement; the unseen counts the check reads are kept up to date card by card.

    Written for speed, as one loop: the census of the piles is taken once and then kept up to
    date by the one card each move lays or lifts, the position is read into tuples once per
    move, and no array is handed to a helper on the way (see ``_placement`` on why).
    """
    on_piles = np.empty(14, dtype=np.int64)
    plain = np.empty(K.NW, dtype=np.int64)
    _census(s, on_piles, plain)
    wt = _weights(PLAYOUT_WEIGHTS)
    counts = np.zeros(13, dtype=np.int64)
    scratch = np.empty(SCRATCH, dtype=np.int64)
    if checked:
        K.unseen_counts(s, 0, counts)
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        king_pile, empties, kings_to_come = _layout(s, on_piles, plain)
        found, tops, heights, up = _foundations(s), _tops(s), _heights(s), K.face_up(s, p)
        d_up = _distance(found, max(up, 1), on_piles[max(up, 0)])  # up = -1: no placement
        best = -np.inf
        choice = moves[0]
        ties = 0
        for i in range(n):
            a = moves[i]
            if a >= K.TO_FOUND:
                score = _foundation_score(found, tops, up, a)
            else:
                score = _placement_cost(
                    up,
                    a == king_pile,
                    heights[a],
                    tops[a],
                    found,
                    d_up,
                    on_piles[tops[a]],
                    empties,
                    king_pile,
                    kings_to_come,
                    wt,
                )
            if score > best:
                best, choice, ties = score, a, 1
            elif score == best:
                ties += 1
                if R.randint(rng, ties) == 0:
                    choice = a
        if checked and choice < K.TO_FOUND and heights[choice] > 0:
            # the unwinding check on the pile chosen; if it buries the piles for good, the best
            # pile that does not (an empty pile never does), much as ``tactical``'s DEAD cost picks
            if not _alive_after(s, choice, up, counts, scratch):
                alt, alt_score = -1, -np.inf
                for v in range(K.NW):
                    score = _placement_cost(
                        up,
                        v == king_pile,
                        heights[v],
                        tops[v],
                        found,
                        d_up,
                        on_piles[tops[v]],
                        empties,
                        king_pile,
                        kings_to_come,
                        wt,
                    )
                    if (
                        v != choice
                        and score > alt_score
                        and (heights[v] == 0 or _alive_after(s, v, up, counts, scratch))
                    ):
                        alt, alt_score = v, score
                if alt >= 0:
                    choice = alt
        if choice < K.TO_FOUND:
            on_piles[up] += 1
            plain[choice] += up != KING
        elif choice >= K.FROM_WASTE:
            pile = (choice - K.FROM_WASTE) // K.NF
            on_piles[tops[pile]] -= 1
            plain[pile] -= tops[pile] != KING
        K.apply(s, p, choice)
        if checked and choice < K.FROM_WASTE:
            turned = K.face_up(s, p)  # the face-up card went, the next one turned
            if turned > 0:
                counts[turned - 1] -= 1
