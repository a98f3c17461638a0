"""A position that plays in place: the shape of OpenSpiel's ``pyspiel.State`` over a Game.

The Game API is functional: ``game.apply(state, a)`` returns a new array and validates the one it
is given, because a state array can come from anywhere (a file, a user's edit, another game).
That check is the price of a loop written in Python over the Game API (about 1 µs of the 5-9 µs a
ply costs). A ``State`` owns its array: it is made once from a validated array, and from then on
only compiled code of this package writes it, so a move needs one compiled call and no
validation: the action is checked against the legal set, played in place, and the next legal set
listed in the same call (``envs._game_ops.advance``).

Code written for OpenSpiel reads the same::

    state = game.new_initial_state(seed=0)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    state.returns()

The array is never handed out, only copies (``state.array``), so nothing outside can change a
position behind the object's back; ``State(game, array)`` takes any array the Game API accepts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._game_ops import PACKED_HEADER as _PACKED_HEADER
from .core import IllegalActionError
from .core import kernel as C

if TYPE_CHECKING:  # the Game imports this module (new_initial_state); a State only reads its game
    from .game import Game


class State:
    """A position of ``game`` that ``apply_action`` advances in place (see the module docstring).

    Method names follow ``pyspiel.State`` where the concept is the same; everything else a
    position offers goes through the Game API with ``state.array``.
    """

    __slots__ = ("game", "_buf", "_s", "_legal", "_n", "_history", "_advance", "_num_actions")

    def __init__(self, game: Game, array):
        if not callable(getattr(game, "check_state", None)) or not hasattr(game, "kernel_params"):
            raise TypeError(f"State needs a Game, got {type(game).__name__}")
        self._start(game, game.check_state(array))  # validated once, here

    @classmethod
    def _own(cls, game: Game, array: np.ndarray) -> State:
        """A State of an array this package's compiled code just made (``new_initial_state``):
        nothing to validate."""
        out = cls.__new__(cls)
        out._start(game, array)
        return out

    def _start(self, game, s):
        p = game._p
        buf = np.empty(_PACKED_HEADER + s.size + p.size + game.num_actions, dtype=np.int64)
        buf[0], buf[1] = s.size, p.size
        buf[_PACKED_HEADER : _PACKED_HEADER + s.size] = s  # a copy: the array is ours alone
        buf[_PACKED_HEADER + s.size : _PACKED_HEADER + s.size + p.size] = p
        self.game = game
        self._history = []
        self._bind(buf)
        self._n = int(game._ops.list_legal(self._s, p, self._legal))

    def _bind(self, buf):
        """Views of the packed buffer, and what ``apply_action`` reads on every move, one
        attribute away. State, parameters and legal list share one array (``_game_ops``'s
        ``advance_packed``) because numba checks the type of each argument on every call: two
        arguments instead of four save about a tenth of a Python ply."""
        self._buf = buf
        start = _PACKED_HEADER + int(buf[0])
        self._s = buf[_PACKED_HEADER:start]
        self._legal = buf[start + int(buf[1]) :]
        self._advance = self.game._ops.advance_packed
        self._num_actions = self.game.num_actions

    # -- playing ---------------------------------------------------------------------------
    def apply_action(self, action: int) -> None:
        """Play ``action`` in place; an ``IllegalActionError`` (state unchanged) if it is not legal."""
        if type(action) is not int or not 0 <= action < self._num_actions:
            action = self.game.check_action(action)  # an int in range, or raises naming the space
        n = self._advance(self._buf, action)
        if n < 0:
            if self.is_terminal():
                raise IllegalActionError(f"action {action} played after the game ended")
            raise IllegalActionError(f"action {action} ({self.game._describe(self._s, action)}) is not legal here")
        self._n = n
        self._history.append(action)

    def child(self, action: int) -> State:
        """A new position after ``action``; this one is unchanged."""
        out = self.clone()
        out.apply_action(action)
        return out

    def clone(self) -> State:
        out = State.__new__(State)
        out.game = self.game
        out._n = self._n
        out._history = list(self._history)
        out._bind(self._buf.copy())
        return out

    def __getstate__(self):
        return {"game": self.game, "array": self._s, "history": self._history}

    def __setstate__(self, state):
        self.__init__(state["game"], state["array"])  # validated again: a pickle is outside input
        self._history = list(state["history"])

    # -- reading ---------------------------------------------------------------------------
    def legal_actions(self) -> np.ndarray:
        """Legal action ids, ascending (a new array); empty exactly when the game is over."""
        return self._legal[: self._n].copy()

    def legal_actions_mask(self) -> np.ndarray:
        mask = np.zeros(self.game.num_actions, dtype=bool)
        mask[self._legal[: self._n]] = True
        return mask

    def is_terminal(self) -> bool:
        return self._n == 0  # no legal action exactly when the game is over

    def current_player(self) -> int:
        """The seat to move (as ``Game.current_player``)."""
        return self._s.item(C.H_PLAYER)

    def returns(self) -> np.ndarray:
        out = np.zeros(self.game.num_players, dtype=np.float64)
        C.fill_returns(self._s, self.game.num_players, out)
        return out

    def history(self) -> list:
        """The actions applied to this object, oldest first (not those before its array)."""
        return list(self._history)

    def move_number(self) -> int:
        """Plies played since the start of the game (the header's count)."""
        return self._s.item(C.H_PLY)

    @property
    def array(self) -> np.ndarray:
        """A copy of the state array, for the Game API (``game.observation(state.array, seat)``)."""
        return self._s.copy()

    def observation(self, seat: int) -> np.ndarray:
        return self.game.observation(self._s, seat)

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_str(self._s, action)

    def __eq__(self, other) -> bool:
        """Same position (the array's first cell is the game's signature, so games differ too)."""
        return isinstance(other, State) and np.array_equal(other._s, self._s)

    __hash__ = None  # it changes in place

    def __str__(self) -> str:
        return self.game.to_text(self._s)

    def __repr__(self) -> str:
        return f"<State of {self.game!r}, ply {self.move_number()}, {self._n} legal actions>"
