"""Hidden cards as chance events, read from the Game protocol alone (no OpenSpiel needed here).

A game with ``spec.chance_outcomes > 0`` keeps what the player cannot see (the Calculation
stock) inside its state and reports, through its hooks, which moves turn a hidden item up
(``reveals``), what turned up (``revealed``, a slot in ``[0, chance_outcomes)``) and how to
redraw the unseen items (``determinise``, behind ``Game.sample_hidden``). OpenSpiel's algorithms
instead expect the turned item to be a chance node with an explicit distribution. Both are
built here from those hooks, with no knowledge of any game's layout:

* *what can turn up, and how likely*: from a position just reached by the deal or by a
  revealing move, a run of revealing moves turns up the unseen items one by one, then the slot
  of an exhausted supply (the Calculation stock: the face-down cards in their dealt order, then
  0). The run's slots but the last are the unseen items, so each slot's share of them is its
  probability, exactly; the order the state happens to hold never matters, only the multiset;
* *a chosen outcome*: the position is redrawn with seeds 0, 1, 2, ... (``sample_hidden``, which
  sorts the unseen items before it shuffles them, so the draw depends on what the player sees
  and on the seed only) until the chosen slot turns up. The result is a pure function of the
  visible position and the outcome, so replaying a history (OpenSpiel's ``deserialize``) gives
  the same state again.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..core import IllegalActionError
from ..core.specialise import hooks

# Redraws tried for one outcome: each hits with probability at least 1/48 (one card among the
# Calculation stock's 48), so all of them miss with probability below 1e-90.
MAX_REDRAWS = 10_000


def distribution(game, reached: np.ndarray) -> list[tuple[int, float]]:
    """``[(slot, probability), ...]``, slots ascending, of what turned up in ``reached`` (a
    position just reached by the deal or a revealing move), given what the player sees."""
    slots = _run(game, reached)
    unseen = slots[:-1] or slots  # a lone slot: nothing was left to turn, its outcome is certain
    counts = Counter(unseen)
    return [(slot, counts[slot] / len(unseen)) for slot in sorted(counts)]


def reveals(game, state: np.ndarray, action: int) -> bool:
    """Whether playing ``action`` in ``state`` turns a hidden item up (a chance event follows)."""
    return game.spec.chance_outcomes > 0 and bool(hooks(game.spec).reveals(state, game._p, int(action)))


def deal(game, slot: int) -> np.ndarray:
    """A start position whose first turned item is ``slot``."""
    return _first(game, slot, lambda seed: game.initial_state(seed=seed), game.initial_state(seed=0))


def turn(game, before: np.ndarray, action: int, slot: int) -> np.ndarray:
    """The position after revealing ``action`` in ``before``, with ``slot`` turned up."""
    u = game.unchecked
    return _first(
        game, slot, lambda seed: u.apply(game.sample_hidden(before, rng=seed), action), u.apply(before, action)
    )


def _first(game, slot, draw, sample) -> np.ndarray:
    possible = dict(distribution(game, sample))
    if slot not in possible:
        raise IllegalActionError(f"chance outcome {slot!r} cannot turn up here: expected one of {sorted(possible)}")
    revealed, p = hooks(game.spec).revealed, game._p
    for seed in range(MAX_REDRAWS):
        state = draw(seed)
        if revealed(state, p) == slot:
            return state
    raise RuntimeError(f"chance outcome {slot} did not turn up in {MAX_REDRAWS} redraws")  # p < 1e-90


def _run(game, state: np.ndarray) -> list[int]:
    """The slots that ``state`` shows and a run of revealing moves from it turns up, in order."""
    h, p, u = hooks(game.spec), game._p, game.unchecked
    slots = [int(h.revealed(state, p))]
    while not u.is_terminal(state):
        move = next((int(a) for a in u.legal_actions(state) if h.reveals(state, p, int(a))), None)
        if move is None:
            break
        state = u.apply(state, move)
        slots.append(int(h.revealed(state, p)))
    return slots
