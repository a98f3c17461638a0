"""Calculation (Broken Intervals, 計算), a one-player patience with a hidden stock.

## Description
One 52-card deck. A, 2, 3 and 4 start four foundations; foundation k (k = 1..4) is built in
steps of k, wrapping modulo 13 (A = 1 … K = 13), up to its King:

    f1: A 2 3 4 5 6 7 8 9 T J Q K        f3: 3 6 9 Q 2 5 8 J A 4 7 T K
    f2: 2 4 6 8 T Q A 3 5 7 9 J K        f4: 4 8 Q 3 7 J 2 6 T A 5 9 K

The other 48 cards are shuffled into a face-down stock whose top card is face up. It must be
played onto a foundation that needs it or onto one of four waste piles (no size limit); the next
card is then turned automatically, inside ``apply``, so ``apply`` is deterministic and all chance
is in the deal (``initial_state(seed)``). The top card of a waste pile may go to a foundation
that needs it at any time. There are no waste-to-waste moves and no redeal.

Suits never matter, so cards are represented by rank only (four copies of each rank): two deals
that differ only in suits are the same game, and a state is smaller and faster to search.

The stock order is **hidden information**: it lives in the state (the deal has to come from
somewhere) but never in ``observation``, and a search agent must reach it only through
``sample_hidden`` (the Python facade) or ``_kernel.shuffle_hidden`` (compiled), which redraw the
face-down order from the cards still unseen. ``to_text`` does show the stock order: the text
format is the full state, for tests and humans.

## Action Space
``Discrete(24)``, in the patience's notation (ranks ``A 2 … 9 T J Q K``):

| ids | move | notation |
|---|---|---|
| ``w - 1`` (0..3) | face-up card to waste pile w (w = 1..4) | ``K>w3`` |
| ``4 + f - 1`` (4..7) | face-up card to foundation f (f = 1..4) | ``9>f2`` |
| ``8 + 4(w - 1) + f - 1`` (8..23) | top of waste pile w to foundation f | ``w1>f4`` |

So from a fresh deal the legal actions are always 0..3 plus any 4..7 the face-up card fits.

## Observation Space
``Box(0, 4, (198, 13), float32)``; every row is indexed by rank (column r - 1 for rank r):

| rows | meaning |
|---|---|
| 0..3 | foundation k + 1: one-hot of its top rank (the whole pile follows from it) |
| 4 | the face-up card, one-hot (all zero once the stock is exhausted) |
| 5 | unseen cards: how many copies of each rank are still face down (0..4) |
| 6 + 48w + d | waste pile w + 1, the card d places below its top (d = 0 is the playable top), one-hot; zero past the pile's bottom |

Two states that differ only in the order of the face-down cards give identical observations.

## Rewards
At the end only: 1.0 if all 52 cards reach the foundations, else 0.0.

## Episode End
Won when all 52 cards are on the foundations; lost when no legal move remains (the stock is
exhausted and no waste top fits a foundation). Every move takes a card one step closer to a
foundation (stock -> waste -> foundation at most), so a game has at most 2 * 48 = 96 moves:
``max_moves`` is 96 and is never the reason a game ends.

## Arguments
``make_game("calculation")``: no rule parameters. ``rules="openspiel"`` is refused because
OpenSpiel has no Calculation.

## Version History
* v0: initial release.
"""

import numpy as np

from ..core import ParameterError
from ..game import Game
from . import _kernel

# _TOP_COUNT[k, rank - 1]: the cards on foundation k+1 when its top card has that rank
_TOP_COUNT = np.zeros((_kernel.NF, 13), dtype=np.int64)
for _k in range(_kernel.NF):
    _TOP_COUNT[_k, (np.arange(1, 14) * (_k + 1) - 1) % 13] = np.arange(1, 14)


class Calculation(Game):
    end_reasons = {_kernel.WON: "won", _kernel.STUCK: "stuck"}
    observation_bounds = (0.0, 4.0)  # unseen-card counts go up to 4 per rank

    def __init__(self, **params):
        if params.get("rules") == "openspiel":
            raise ParameterError("rules='openspiel': OpenSpiel has no Calculation patience; expected rules='standard'")
        super().__init__(**params)

    def _configure(self, params):
        return [], _kernel.NUM_ACTIONS, _kernel.STATE_LEN, _kernel.MAX_MOVES

    def _observation_shape(self):
        return (_kernel.OBS_ROWS, 13)

    def summary(self, state) -> str:
        return f"cards on the foundations: {self.foundation_cards(state)} of 52"

    def foundation_cards(self, state) -> int:
        """Cards on the four foundations, 4 (the bases) to 52 (won): the patience's progress,
        what a study reports for lost deals and what a progress reward can count."""
        s = self.check_state(state)
        return int(s[_kernel.FOUND : _kernel.FOUND + _kernel.NF].sum())

    @staticmethod
    def foundation_cards_of(states: np.ndarray) -> np.ndarray:
        """``foundation_cards`` of a batch (N, state_len) of states that compiled code produced
        (a vector env's), read at once and unchecked: a progress reward over N games per step."""
        return states[:, _kernel.FOUND : _kernel.FOUND + _kernel.NF].sum(axis=1)

    @staticmethod
    def observed_foundation_cards(observations: np.ndarray) -> np.ndarray:
        """(M,) the cards on the foundations of M observations (M, rows, 13), from their first
        four rows, the foundation tops: foundation k+1 holds the first n cards of k+1, 2(k+1),
        ... (mod 13), a permutation of the ranks, so its top card's rank tells n."""
        tops = observations[:, : _kernel.NF, :].argmax(axis=2)
        return _TOP_COUNT[np.arange(_kernel.NF), tops].sum(axis=1)
