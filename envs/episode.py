"""The episode rules every framework env shares, the Python side of the compiled stepper
(``envs._stepper``): the observation space, the action mask, when a game is cut off rather than
ended, the random opening an episode starts from, and ``Episode``, one game of the stepper.

The Gymnasium env, the vector env, PettingZoo's AEC envs and ``envs.sb3`` all expose a game as
episodes and all step them in the stepper; what an episode is (its spaces, its mask, its
truncation, its opening, its rewards, an illegal action) is written there and here once, so the
frameworks cannot drift apart.
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
        raise ParameterError(
            f"opening_plies={shown(opening_plies)}: expected a count of random plies >= 0, "
            "or a pair (fewest, most) with 0 <= fewest <= most"
        )
    cap = int(game.kernel_params[C.P_MAX_MOVES])
    if hi >= cap:
        raise ParameterError(
            f"opening_plies={shown(opening_plies)}: an opening must be shorter than the game's max_moves={cap}"
        )
    return lo, hi


class Episode:
    """One game of the compiled stepper (``envs._stepper``), as the Gymnasium and AEC envs play it.

    ``vec`` is a one-game vector env: its buffers are packed into one array, so a step is one
    compiled call of three arguments (numba spends 0.1-0.2 us on each argument of a call), and
    ``state``, ``rewards`` (every seat's, this step), ``mask`` and ``obs`` are views of what the
    stepper writes. ``external``: the opponent is a Python object, so a step stops with it to move
    (``AWAIT`` in the bits returned) and ``reply`` plays its answer by the same rules.
    ``observe=False``: steps write no observation or mask (the AEC env observes for the agent
    asking). The position is the env's own: the stepper never validates it again.
    """

    def __init__(self, vec, external: bool = False, observe: bool = True):
        self.vec = vec
        self.external = external
        self.observe_steps = observe
        self._bind()

    def _bind(self) -> None:
        v = self.vec
        self.one = v._pack_one(external=self.external, observe=self.observe_steps)
        self.state, self.rewards, self.mask, self.obs = v._states[0], v._all_rewards[0], v._masks[0], v._obs[0]
        self.seats = v._seats
        kernel, self._p = v._kernel, v._p
        self._step = kernel.step_one if v._weights is None else kernel.step_one_greedy
        self._reply, self._observe = kernel.reply_one, kernel.observe_one

    def __getstate__(self):
        return {"vec": self.vec, "external": self.external, "observe_steps": self.observe_steps}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._bind()  # the buffers travelled as separate arrays: packed into one again

    @property
    def seat(self) -> int:
        """The learner's seat (self-play: the seat to move)."""
        return self.seats.item(0)

    def start(self, state: np.ndarray, seat: int) -> None:
        """Begin an episode at ``state`` (the env's own making: ``initial_state`` and a compiled
        opening) with the learner in ``seat``; ``observe`` or ``reply`` follows."""
        self.state[:] = state
        self.seats[0] = seat
        self.rewards[:] = 0.0

    def step(self, action: int) -> int:
        """The learner's ``action`` (-1: an illegal one); the step's bits (``envs._stepper``)."""
        return self._step(self._p, self.one, action)

    def reply(self, action: int) -> int:
        """The Python opponent's ``action`` after ``AWAIT``; the step's bits, -1 if not legal."""
        return self._reply(self._p, self.one, action)

    def awaiting(self) -> bool:
        """Whether the opponent is to move in a game still going on."""
        s = self.state
        return s.item(C.H_STATUS) == C.ONGOING and s.item(C.H_PLAYER) != self.seats.item(0)

    def observe(self) -> None:
        """The learner's observation and mask of the position (all-ones mask once it is over)."""
        self._observe(self._p, self.one)
