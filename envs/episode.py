"""The episode rules every framework env shares: the observation space, the action mask, when a
game is cut off rather than ended, and the random opening an episode starts from.

The Gymnasium env, the vector env, PettingZoo's AEC envs and ``envs.sb3`` all expose a game as
episodes; what an episode is (its spaces, its mask, its truncation, its opening) is written here
once, so the frameworks cannot drift apart.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from .core import ParameterError, shown
from .core import kernel as C


def observation_box(game) -> spaces.Box:
    """The ``Box`` holding ``game.observation``: shape and dtype from a sample, bounds from the game.

    ``game.observation_bounds`` gives ``(low, high)`` where a plane is not 0/1 (Calculation
    counts unseen copies of a rank, 0..4); binary planes need nothing.
    """
    sample = game.observation(game.initial_state(seed=0), 0)
    low, high = game.observation_bounds
    return spaces.Box(low=low, high=high, shape=sample.shape, dtype=sample.dtype)


def action_mask(game, state) -> np.ndarray:
    """Legal actions of ``state`` as an int8 0/1 vector; all ones when the game is over (the
    action that follows the end is never played: see the module docstring)."""
    if game.is_terminal(state):
        return np.ones(game.num_actions, dtype=np.int8)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    return mask


def ended_by_max_moves(game, state) -> bool:
    """Whether the game was cut off by ``game.max_moves`` rather than ended by its rules."""
    return game.end_reason(state) == "max_moves"


def opening_range(opening_plies, game) -> tuple:
    """``opening_plies`` (k, or (fewest, most)) as (fewest, most) random plies, checked: an
    opening must end before the game's ``max_moves``."""
    def count(x):
        return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0

    pair = tuple(opening_plies) if isinstance(opening_plies, (tuple, list)) else None
    if count(opening_plies):
        lo = hi = int(opening_plies)
    elif pair is not None and len(pair) == 2 and all(count(x) for x in pair) and pair[0] <= pair[1]:
        lo, hi = (int(x) for x in pair)
    else:
        raise ParameterError(f"opening_plies={shown(opening_plies)}: expected a count of random plies >= 0, "
                             "or a pair (fewest, most) with 0 <= fewest <= most")
    cap = int(game.kernel_params[C.P_MAX_MOVES])
    if hi >= cap:
        raise ParameterError(f"opening_plies={shown(opening_plies)}: an opening must be shorter than the game's "
                             f"max_moves={cap}")
    return lo, hi
