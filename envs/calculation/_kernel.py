"""Calculation patience rules kernel (numba).

Cards are ranks only, 1 = A … 13 = K (0 = no card): suits never matter in Calculation, so the
deck is four copies of each rank, and two deals that differ only in suits are the same game.

State (int64), after the common header of ``envs/core/kernel.py``:

    FOUND + k     cards on foundation k+1 (k = 0..3): 1 (its base only) .. 13 (up to its King)
    POS           index into STOCK of the face-up card; 48 when the stock is exhausted
    WLEN + w      number of cards on waste pile w+1 (w = 0..3)
    STOCK + i     the deal: i < POS already played (zeroed), i = POS face up, i > POS face down
                  (HIDDEN: only ``shuffle_hidden`` and the text format may read i > POS)
    WASTE + 48*w + d   d-th card of waste pile w+1 from the bottom (d < WLEN + w), else 0

    Foundation k+1 holds the first ``n`` cards of the sequence k+1, 2(k+1), 3(k+1), … (mod 13):
        card i (i = 1..13) of foundation k+1 has rank (i*(k+1) - 1) % 13 + 1
        f1: A 2 3 4 5 6 7 8 9 T J Q K        f3: 3 6 9 Q 2 5 8 J A 4 7 T K
        f2: 2 4 6 8 T Q A 3 5 7 9 J K        f4: 4 8 Q 3 7 J 2 6 T A 5 9 K

Actions (24, fixed):

    0..3     face-up card  -> waste pile w+1          a = w
    4..7     face-up card  -> foundation f+1          a = 4 + f
    8..23    waste pile w+1 top -> foundation f+1     a = 8 + 4*w + f

Every move takes one card one step closer to a foundation (stock -> waste -> foundation or
stock -> foundation), so a game has at most 2 * 48 = 96 moves (``MAX_MOVES``).

The hash ``H_HASH`` covers only what the player sees (foundations, waste piles in order, the
face-up card), so it identifies an information set and never leaks the stock order: a state and
its ``shuffle_hidden`` copy hash alike.

Reason codes in H_REASON: WON (all 52 cards on the foundations), STUCK (stock exhausted and no
waste top fits a foundation).

Invariants (``validate``): foundations hold 1..13 cards, ``POS`` is 0..48, waste piles 0..48
cards; played stock slots (i < POS) and slots past a pile's top are 0, every other card is a rank
1..13, and together with the foundation cards they are one deck (4 of each rank); the waste
holds exactly the cards played from the stock that did not go to a foundation, so
``sum(WLEN) = POS - (foundation cards - 4)``; the ply is the cards played from the stock plus
the waste-to-foundation moves, so ``POS <= ply <= POS + foundation cards - 4``; ``H_HASH`` is
``full_hash``; the last action, if known, is one whose effect shows (a card on a waste pile or a
foundation); the status is what ``check_end`` gives.
"""

import numpy as np
from numba import njit

from ..core import kernel as C
from ..core import rng as R

NF = 4  # foundations
NW = 4  # waste piles
NSTOCK = 48  # cards dealt to the stock (52 minus the four bases)
FOUND = C.HEADER
POS = FOUND + NF
WLEN = POS + 1
STOCK = WLEN + NW
WASTE = STOCK + NSTOCK
STATE_LEN = WASTE + NW * NSTOCK

TO_WASTE = 0
TO_FOUND = NW
FROM_WASTE = NW + NF
NUM_ACTIONS = FROM_WASTE + NW * NF
MAX_MOVES = 2 * NSTOCK

WON = 1
STUCK = 2

E_FOUNDATION = C.GAME_ERRORS
E_POS = C.GAME_ERRORS + 1
E_WLEN = C.GAME_ERRORS + 2
E_CARD = C.GAME_ERRORS + 3
E_DECK = C.GAME_ERRORS + 4
E_WASTE_TOTAL = C.GAME_ERRORS + 5
E_PLY = C.GAME_ERRORS + 6
E_HASH = C.GAME_ERRORS + 7
E_END = C.GAME_ERRORS + 8
E_LAST = C.GAME_ERRORS + 9
STATE_ERRORS = {
    E_FOUNDATION: "a foundation count is not 1 (its base) to 13",
    E_POS: "the stock position is not 0 to 48",
    E_WLEN: "a waste pile length is not 0 to 48",
    E_CARD: "a card cell is not a rank 1..13 where a card lies, or not 0 where none does",
    E_DECK: "the foundations, waste piles and stock are not one deck (4 cards of each rank)",
    E_WASTE_TOTAL: "the waste piles do not hold exactly the cards played from the stock that "
    "did not go to a foundation (sum of pile lengths = stock position - "
    "(foundation cards - 4))",
    E_PLY: "the ply count is not the cards played from the stock plus some waste-to-foundation "
    "moves (stock position <= ply <= stock position + foundation cards - 4)",
    E_HASH: "the hash is not the hash of the visible position",
    E_END: "the status, winner or end reason is not what the cards give",
    E_LAST: "the last action is not -1 nor a move whose effect shows (a card on its waste pile "
    "or above the base of its foundation)",
}

# Zobrist keys: foundation (k, count), waste (w, depth, rank), face-up rank.
_ZF = 0
_ZW = _ZF + NF * 14
_ZU = _ZW + NW * NSTOCK * 14
ZOBRIST = C.zobrist_table(_ZU + 14, salt=5)


# SEQUENCE[k, i]: rank of the i-th card (1-based) of foundation k (0-based), (i*(k+1) - 1) % 13 + 1;
# SEQUENCE[k, 14] = 0 so that a complete foundation (13 cards) "needs" no card. A table lookup
# costs less than the modulo in the loops that ask it on every move of a playout.
SEQUENCE = np.zeros((NF, 15), dtype=np.int64)
for _k in range(NF):
    for _i in range(1, 14):
        SEQUENCE[_k, _i] = (_i * (_k + 1) - 1) % 13 + 1


@njit(cache=True)
def card_on_foundation(k, i):
    """Rank of the ``i``-th card (1-based, 1..13) of foundation ``k`` (0-based)."""
    return SEQUENCE[k, i]


@njit(cache=True)
def needed(s, k):
    """Rank foundation ``k`` (0-based) needs next, or 0 when it is complete."""
    return SEQUENCE[k, s[FOUND + k] + 1]


@njit(cache=True)
def face_up(s, p):
    """Rank 1..13 of the face-up card, or -1 when the stock is exhausted.

    MCTS indexes chance-node children by this after a face-up move has turned the next card.
    """
    pos = s[POS]
    card = s[STOCK + min(pos, NSTOCK - 1)]  # read unconditionally: see evaluation._placement
    return card if pos < NSTOCK else -1


@njit(cache=True)
def unseen_counts(s, p, out):
    """``out[r - 1]`` = face-down copies of rank ``r`` (what the player knows by elimination)."""
    out[:] = 0
    for i in range(s[POS] + 1, NSTOCK):
        out[s[STOCK + i] - 1] += 1


@njit(cache=True)
def _shuffle(a, lo, hi, rng):
    """Fisher-Yates shuffle of ``a[lo:hi]`` in place."""
    for i in range(hi - 1, lo, -1):
        j = lo + R.randint(rng, i - lo + 1)
        a[i], a[j] = a[j], a[i]


@njit(cache=True)
def shuffle_hidden(s, p, rng):
    """Redraw the order of the face-down cards in place (determinisation for search).

    Everything the player sees, the hash included, is unchanged. A search calls this on its own
    copy of the root before every iteration, so each card its moves turn is drawn from the unseen
    cards (the chance node's distribution) and never from the true stock order. The face-down
    cards are sorted before the shuffle, so the result depends only on what the player can see
    and on ``rng``: two deals differing only in stock order give the same redraw.
    """
    lo = STOCK + s[POS] + 1
    _sort_ranks(s, lo, STOCK + NSTOCK)
    _shuffle(s, lo, STOCK + NSTOCK, rng)


@njit(cache=True)
def _sort_ranks(a, lo, hi):
    """Sort the ranks ``a[lo:hi]`` in place by counting (what ``np.sort`` gives, without the
    allocation and the comparisons: this runs before every simulation of a search)."""
    counts = np.zeros(14, dtype=np.int64)
    for i in range(lo, hi):
        counts[a[i]] += 1
    i = lo
    for rank in range(1, 14):
        for _ in range(counts[rank]):
            a[i] = rank
            i += 1


@njit(cache=True)
def full_hash(s):
    """Hash of the visible position computed from scratch (``apply`` updates it incrementally)."""
    h = np.int64(0)  # numba: start from int64 so the XORs never promote through uint64 to float
    for k in range(NF):
        h ^= ZOBRIST[_ZF + k * 14 + s[FOUND + k]]
    for w in range(NW):
        for d in range(s[WLEN + w]):
            h ^= ZOBRIST[_ZW + (w * NSTOCK + d) * 14 + s[WASTE + w * NSTOCK + d]]
    if s[POS] < NSTOCK:
        h ^= ZOBRIST[_ZU + s[STOCK + s[POS]]]
    return h


@njit(cache=True)
def init(s, p, rng):
    C.clear(s, p)
    i = STOCK
    for rank in range(1, 14):
        for _ in range(4 - (1 if rank <= NF else 0)):
            s[i] = rank
            i += 1
    _shuffle(s, STOCK, STOCK + NSTOCK, rng)
    for k in range(NF):
        s[FOUND + k] = 1
    s[C.H_HASH] = full_hash(s)


@njit(cache=True)
def is_legal(s, p, a):
    if s[C.H_STATUS] != C.ONGOING:
        return False
    if a < TO_FOUND:
        return s[POS] < NSTOCK
    if a < FROM_WASTE:
        return s[POS] < NSTOCK and s[STOCK + s[POS]] == needed(s, a - TO_FOUND)
    w, k = (a - FROM_WASTE) // NF, (a - FROM_WASTE) % NF
    n = s[WLEN + w]
    return n > 0 and s[WASTE + w * NSTOCK + n - 1] == needed(s, k)


@njit(cache=True)
def legal_actions(s, p, out):
    """Same answers as ``is_legal`` over all 24 ids, with each foundation's need computed once.
    ``out`` holds ``NUM_ACTIONS`` cells; those past the returned count are scratch."""
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    needs = (needed(s, 0), needed(s, 1), needed(s, 2), needed(s, 3))
    n = 0
    pos = s[POS]
    if pos < NSTOCK:
        for w in range(NW):
            out[n] = TO_WASTE + w
            n += 1
        n = _append_fits(s[STOCK + pos], needs, TO_FOUND, out, n)
    for w in range(NW):
        m = s[WLEN + w]
        if m > 0:
            n = _append_fits(s[WASTE + w * NSTOCK + m - 1], needs, FROM_WASTE + w * NF, out, n)
    return n


@njit(cache=True)
def _append_fits(card, needs, first, out, n):
    """Append ``first + k`` for every foundation k that needs ``card``; return the new count.

    Every cell is written (past the count where the card does not fit): numba releases an array
    argument where it is last used, and a write on some branches only left an atomic reference
    count increment and decrement around every call, which cost more than the work itself.
    """
    for k in range(NF):
        out[n] = first + k
        n += card == needs[k]
    return n


@njit(cache=True)
def _to_foundation(s, k):
    n = s[FOUND + k]
    s[C.H_HASH] ^= ZOBRIST[_ZF + k * 14 + n] ^ ZOBRIST[_ZF + k * 14 + n + 1]
    s[FOUND + k] = n + 1


@njit(cache=True)
def _turn(s):
    """The face-up card has left: turn the next one (its key replaces the old one in the hash)."""
    pos = s[POS]
    s[C.H_HASH] ^= ZOBRIST[_ZU + s[STOCK + pos]]
    s[STOCK + pos] = 0
    s[POS] = pos + 1
    if pos + 1 < NSTOCK:
        s[C.H_HASH] ^= ZOBRIST[_ZU + s[STOCK + pos + 1]]


# Inlined into ``apply``: one call less per move, and no reference count updates on ``s`` around it.
@njit(cache=True, inline="always")
def check_end(s):
    """Finish the game if it is won or no move remains; the only way a game ends."""
    total = 0
    for k in range(NF):
        total += s[FOUND + k]
    if total == 13 * NF:
        C.finish(s, 0, WON)
        return
    if s[POS] < NSTOCK:
        return
    for w in range(NW):
        n = s[WLEN + w]
        if n > 0:
            top = s[WASTE + w * NSTOCK + n - 1]
            for k in range(NF):
                if top == needed(s, k):
                    return
    C.finish(s, C.NO_WINNER, STUCK)


@njit(cache=True)
def apply(s, p, a):
    if a < TO_FOUND:
        w = a
        n = s[WLEN + w]
        card = s[STOCK + s[POS]]
        s[WASTE + w * NSTOCK + n] = card
        s[WLEN + w] = n + 1
        s[C.H_HASH] ^= ZOBRIST[_ZW + (w * NSTOCK + n) * 14 + card]
        _turn(s)
    elif a < FROM_WASTE:
        _to_foundation(s, a - TO_FOUND)
        _turn(s)
    else:
        w, k = (a - FROM_WASTE) // NF, (a - FROM_WASTE) % NF
        n = s[WLEN + w] - 1
        cell = WASTE + w * NSTOCK + n
        s[C.H_HASH] ^= ZOBRIST[_ZW + (w * NSTOCK + n) * 14 + s[cell]]
        s[cell] = 0
        s[WLEN + w] = n
        _to_foundation(s, k)
    s[C.H_PLY] += 1
    s[C.H_LAST] = a
    check_end(s)


# -- hooks for generic code: observation and chance ---------------------------------------------------
OBS_ROWS = 6 + NW * NSTOCK
CHANCE_OUTCOMES = 14  # what a turned card can be: rank 1..13, or slot 0 when the stock is empty


@njit(cache=True)
def encode(s, p, seat, legal, n_legal, out):
    """Observation (OBS_ROWS x 13, flat): rows 0..3 the foundation tops one-hot, 4 the face-up
    card, 5 the unseen count per rank, 6 + 48w + d the card d below the top of waste pile w.
    Only counts of the face-down cards appear, never their order."""
    out[:] = 0.0
    for k in range(NF):
        out[k * 13 + card_on_foundation(k, s[FOUND + k]) - 1] = 1.0
    pos = s[POS]
    if pos < NSTOCK:
        out[4 * 13 + s[STOCK + pos] - 1] = 1.0
    for i in range(pos + 1, NSTOCK):
        out[5 * 13 + s[STOCK + i] - 1] += 1.0
    for w in range(NW):
        n = s[WLEN + w]
        for d in range(n):
            card = s[WASTE + w * NSTOCK + n - 1 - d]
            out[(6 + w * NSTOCK + d) * 13 + card - 1] = 1.0


@njit(cache=True)
def determinise(s, p, rng):
    """The hook search calls before each simulation: ``shuffle_hidden``."""
    shuffle_hidden(s, p, rng)


@njit(cache=True)
def reveals(s, p, a):
    """Whether action ``a`` moves the face-up card, so that the next stock card is turned."""
    return a < FROM_WASTE


@njit(cache=True)
def revealed(s, p):
    """Chance slot of the position just reached: the face-up rank, 0 when the stock is empty."""
    return max(face_up(s, p), 0)


@njit(cache=True)
def progress(s, p):
    """How far the deal got: the share of the 52 cards on the foundations (the four bases count)."""
    return (s[FOUND] + s[FOUND + 1] + s[FOUND + 2] + s[FOUND + 3]) / 52.0


@njit(cache=True)
def validate(s, p):
    """0 if ``s`` is a consistent Calculation state, else ``C.error(code, cell)`` (invariants in
    the module docstring, codes in ``STATE_ERRORS``). Counts and positions are checked before they
    are used as indices; the deck is counted rank by rank."""
    e = C.check_header(s, p)
    if e:
        return e
    deck = np.zeros(14, dtype=np.int64)
    on_foundations = 0
    for k in range(NF):
        n = s[FOUND + k]
        if n < 1 or n > 13:
            return C.error(E_FOUNDATION, FOUND + k)
        on_foundations += n
        for i in range(1, n + 1):
            deck[card_on_foundation(k, i)] += 1
    pos = s[POS]
    if pos < 0 or pos > NSTOCK:
        return C.error(E_POS, POS)
    for i in range(NSTOCK):
        card = s[STOCK + i]
        if (card != 0) if i < pos else (card < 1 or card > 13):
            return C.error(E_CARD, STOCK + i)
        deck[card] += 1
    waste = 0
    for w in range(NW):
        n = s[WLEN + w]
        if n < 0 or n > NSTOCK:
            return C.error(E_WLEN, WLEN + w)
        waste += n
        for d in range(NSTOCK):
            card = s[WASTE + w * NSTOCK + d]
            if (card < 1 or card > 13) if d < n else (card != 0):
                return C.error(E_CARD, WASTE + w * NSTOCK + d)
            deck[card] += 1
    for r in range(1, 14):
        if deck[r] != 4:
            return C.error(E_DECK, POS)
    if waste != pos - (on_foundations - NF):
        return C.error(E_WASTE_TOTAL, WLEN)
    ply = s[C.H_PLY]
    if ply < pos or ply > pos + on_foundations - NF:
        return C.error(E_PLY, C.H_PLY)
    if full_hash(s) != s[C.H_HASH]:
        return C.error(E_HASH, C.H_HASH)
    last = s[C.H_LAST]
    if last >= 0:
        if last < TO_FOUND:
            ok = s[WLEN + last] > 0
        elif last < FROM_WASTE:
            ok = s[FOUND + last - TO_FOUND] > 1
        else:
            ok = s[FOUND + (last - FROM_WASTE) % NF] > 1
        if not ok or pos == 0:
            return C.error(E_LAST, C.H_LAST)
    t = s.copy()
    t[C.H_STATUS] = C.ONGOING
    t[C.H_WINNER] = C.NO_WINNER
    t[C.H_REASON] = 0
    check_end(t)
    for i in (C.H_STATUS, C.H_WINNER, C.H_REASON):
        if t[i] != s[i]:
            return C.error(E_END, i)
    return 0
