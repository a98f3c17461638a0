"""The Game protocol: one Python facade over each game's numba kernel.

A ``Game`` object owns a game's parameters and validates everything a caller hands it before it
reaches compiled code (numba does no bounds checks, so a bad index would read or write memory
silently). States are flat ``np.int64`` arrays (layout in ``envs/core/kernel.py`` and each kernel's
docstring); ``apply`` copies before it mutates, so a state a caller holds never changes.

Vocabulary, used the same way everywhere in Arbiter:
  *seat*     an int, 0 = Black / first player (the solitaire player in Calculation);
  *action*   an int in ``range(num_actions)``, the flat action space (pass is an explicit action);
  *move*     an action written in the game's notation (``b1-b3``, ``d3``, ``C3``, ``K>w3``);
  *returns*  the final outcome per seat (+1 win, -1 loss, 0 draw; Calculation 1 won / 0 lost).

A subclass is the Python facade of one game. What the game *is* (name, players, parameter schema
and presets, kernel, notation, hooks, framework ids) is declared once in its ``GameSpec``
(``envs.registry``); ``envs.register(spec)`` binds the class to it as ``spec``. The subclass
implements ``_configure`` (validated parameters -> kernel parameters and sizes) and may add
game-specific conveniences (``Go.score``, ``Othello.discs``).
"""

from __future__ import annotations

import zlib
from functools import cached_property
from types import MappingProxyType

import numpy as np
from numpy.typing import ArrayLike

from . import _game_ops
from .core import kernel as C
from .core import rng as R
from .core.checks import check_int, is_int, shown
from .core.errors import (
    ArbiterError,
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)
from .core.outcome import Outcome
from .core.rng import SeedLike
from .core.specialise import compiled, hooks, on_disk
from .state import State

_INT64 = np.dtype(np.int64)
_HEADER_NAMES = (
    "s[0] (H_SIG)",
    "s[1] (H_PLAYER)",
    "s[2] (H_PLY)",
    "s[3] (H_STATUS)",
    "s[4] (H_WINNER)",
    "s[5] (H_HASH)",
    "s[6] (H_LAST)",
    "s[7] (H_REASON)",
)


class Game:
    """Base class of every game's facade; see the module docstring and ``docs/`` for the protocol."""

    spec = None  # the game's ``GameSpec``, bound by ``envs.register``
    end_reasons: dict = {}  # H_REASON code -> name, e.g. {1: "five", 2: "board_full"}
    observation_bounds = (0.0, 1.0)  # (low, high) of every observation value

    def __init__(self, **params):
        spec = type(self).spec
        if spec is None or spec.game is not type(self):
            raise ParameterError(f"{type(self).__name__} is not a registered game: call envs.register(spec) first")
        rules = params.pop("rules", "standard")
        if not isinstance(rules, str) or rules not in spec.presets:
            raise ParameterError(
                f"rules={shown(rules)}: expected one of {', '.join(map(repr, spec.presets))} for {spec.name}"
            )
        unknown = sorted(set(params) - {p.name for p in spec.params})
        if unknown:
            raise ParameterError(
                f"unknown parameter {unknown[0]!r} for {spec.name}: "
                f"expected some of {', '.join(p.name for p in spec.params) or 'none'} (and rules=)"
            )
        merged = {**spec.defaults, **spec.presets[rules], **params}
        merged = {p.name: p.check(merged[p.name]) for p in spec.params}
        kernel_params, num_actions, state_len, max_moves = self._configure(merged)
        self.rules = rules
        self.params = MappingProxyType(merged)
        self.num_actions = int(num_actions)
        self.state_len = int(state_len)
        self.max_moves = int(max_moves)
        signature = zlib.crc32(repr((spec.name, sorted(merged.items()))).encode())
        reasons = 0
        for code in self.end_reasons:
            if not is_int(code) or not 1 <= code <= 62:
                raise ParameterError(f"{spec.name}: end reason code {code!r}: expected an integer from 1 to 62")
            reasons |= 1 << int(code)
        p = np.array([signature, max_moves, num_actions, spec.num_players, reasons, *kernel_params], dtype=np.int64)
        p.flags.writeable = False
        self._p = p
        self._shape = (self.state_len,)
        self.observation_shape = tuple(int(d) for d in self._observation_shape())
        self._ops = compiled(_game_ops, spec)
        self._validate = hooks(spec).validate
        self._errors = {**C.HEADER_ERRORS, **getattr(spec.kernel, "STATE_ERRORS", {})}

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def num_players(self) -> int:
        return self.spec.num_players

    @property
    def defaults(self) -> dict:
        return self.spec.defaults

    @property
    def presets(self) -> dict:
        return self.spec.presets

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_ops", None)  # compiled functions do not pickle; rebuilt from the spec
        state.pop("_validate", None)
        state.pop("unchecked", None)  # rebuilt when first asked for
        state["params"] = dict(self.params)
        return state

    def __setstate__(self, state):
        state["params"] = MappingProxyType(state["params"])
        self.__dict__.update(state)
        self._ops = compiled(_game_ops, self.spec)
        self._validate = hooks(self.spec).validate

    # -- hooks a game implements -------------------------------------------------------------
    def _configure(self, params: dict):
        """Check what depends on several (already individually validated) ``params``; return
        (kernel params after the common ones, num_actions, state_len, max_moves)."""
        raise NotImplementedError

    def _observation_shape(self) -> tuple:
        """The shape of ``observation()`` (its values come from the kernel's ``encode`` hook)."""
        raise NotImplementedError

    # -- the protocol ------------------------------------------------------------------------
    @property
    def kernel_params(self) -> np.ndarray:
        """The read-only int64 parameter array compiled code passes to the kernel with a state."""
        return self._p

    def kernel_params_under(self, **params) -> np.ndarray:
        """``kernel_params`` with some rule parameters changed (checked as the constructor checks
        them), for a search that plays this game's states under other rules: Go's MCTS, losing,
        searches under a komi that moves with its expected score (a dynamic komi). The
        signature stays this game's, so its states run unchanged; a parameter that changes the
        state's layout or the actions (``size``, ``max_moves``) is refused."""
        other = type(self)(rules=self.rules, **{**self.params, **params})
        if (other.num_actions, other.state_len, other.max_moves) != (self.num_actions, self.state_len, self.max_moves):
            changed = ", ".join(f"{k}={v!r}" for k, v in params.items())
            raise ParameterError(f"{changed}: changes the states or actions of {self!r}, not only its rules")
        p = other._p.copy()
        p[C.P_SIG] = self._p[C.P_SIG]
        p.flags.writeable = False
        return p

    def initial_state(self, seed: SeedLike | None = None) -> np.ndarray:
        """The start position. ``seed`` matters only where the game has chance (the deal)."""
        s = np.zeros(self.state_len, dtype=np.int64)
        self.spec.kernel.init(s, self._p, R.new_rng(seed))
        return s

    def new_initial_state(self, seed: SeedLike | None = None) -> State:
        """The start position as an ``envs.State``, which plays in place without validating each
        move (OpenSpiel's name and shape; see ``envs/state.py``)."""
        return State._own(self, self.initial_state(seed=seed))

    def check_state(self, state: ArrayLike) -> np.ndarray:
        """Return ``state`` if it is a state of this game, else raise ``StateError`` saying what is
        wrong (which cell, its value, and the invariant it breaks).

        Every public method runs this first, so compiled code only ever sees a state whose every
        invariant holds: type, length and signature here, then the game's ``validate`` hook in
        compiled code (``envs.registry.HOOKS``): indices and counts in range, bitboards inside the
        board and consistent with the cells, piece counts, the Zobrist hash recomputed from
        scratch, Go's chain records, the Calculation deck, and the common header
        (``envs.core.kernel.check_header``). numba does no bounds checks, so without this a tampered
        cell is a segfault or silently wrong play.

        No cache of "states this object produced" skips the check: a sound cache must still prove
        the array unchanged since it was produced, which needs a pass over it with a hash no
        accidental edit can collide with (a plain weighted sum misses two flipped sign bits), and
        that costs about what ``validate`` costs for most games. So every call pays for the full
        check (a loop that wants none uses ``new_initial_state()``: an ``envs.State`` owns its
        array, so nothing but compiled code ever writes it); ``legal_actions`` and ``apply`` validate inside their own compiled call (one call
        into numba, not two). Measured (min of 3 interleaved runs, shared 2-core machine, a
        position 10 plies in; before = type/length/signature only):

            per call, us              check_state     legal_actions   Python loop, per ply
            Go 9x9                    0.34 -> 1.1     2.1 -> 2.4      5.3 -> 8.8
            Othello 8x8               0.33 -> 0.8     1.3 -> 1.4      4.1 -> 4.9
            LOA                       0.32 -> 0.8     1.7 -> 1.8      4.8 -> 5.3
            Gomoku 15x15              0.33 -> 1.1     1.5 -> 1.9      4.5 -> 6.4
            Calculation               0.34 -> 1.1     1.3 -> 1.8      4.2 -> 6.1

        (late-game positions: Go 1.8, Gomoku 1.3; the loop is ``is_terminal`` + ``legal_actions``
        + ``apply`` over whole random games). Compiled loops (playouts, search, the vector env)
        never call it.

        An ndarray subclass, a read-only, non-contiguous or byte-swapped int64 array with the
        right content is accepted as a fresh native copy (returned), so compiled code sees one
        array type; callers use the returned array.
        """
        if (
            type(state) is not np.ndarray
            or (state.dtype is not _INT64 and state.dtype != _INT64)  # numba's arrays: an equal dtype
            or state.shape != self._shape
            or not (flags := state.flags).writeable
            or not flags.c_contiguous
        ):
            state = self._array(state)
        code = self._validate(state, self._p)
        if code:
            self._refuse(state, int(code))
        return state

    def _array(self, state) -> np.ndarray:
        """The type, dtype and length part of ``check_state``: ``state`` itself, or a native copy
        of an int64 array of the right length (so compiled code sees one array type and is never
        compiled again for a read-only or strided one); anything else is a StateError."""
        if (
            type(state) is not np.ndarray
            or state.dtype != _INT64
            or state.shape != self._shape
            or not (flags := state.flags).writeable
            or not flags.c_contiguous
        ):
            if not isinstance(state, np.ndarray) or state.dtype.kind not in "iu" or state.shape != self._shape:
                got = (
                    f"array of {state.dtype} with shape {state.shape}"
                    if isinstance(state, np.ndarray)
                    else type(state).__name__
                )
                raise StateError(f"not a {self!r} state: got {got}, expected int64 array of shape ({self.state_len},)")
            if state.dtype.itemsize != 8 or state.dtype.kind != "i":
                raise StateError(f"not a {self!r} state: got an array of {state.dtype}, expected int64")
            state = np.array(state, dtype=np.int64, order="C", subok=False)
        return state

    def _refuse(self, state, code):
        """Raise the StateError of ``validate`` result ``code``."""
        if code == C.E_SIG:  # H_SIG is cell 0
            raise StateError(f"state belongs to another game or parameter set, not {self!r}")
        raise StateError(self._state_error(state, code))

    def _state_error(self, state, code) -> str:
        """The message of a ``validate`` result (``envs.core.kernel.error``): field, value, invariant."""
        index, kind = code >> 16, code & 0xFFFF
        what = self._errors.get(kind, f"invariant {kind} of the game's validate hook is broken")
        field = _HEADER_NAMES[index] if index < C.HEADER else f"s[{index}]"
        value = int(state[index]) if 0 <= index < state.shape[0] else "?"
        return f"invalid {self!r} state: {field} = {value}: {what}"

    @cached_property
    def unchecked(self) -> Unchecked:
        """The rules on states that need no check: one this Game's methods made (``apply``'s
        result, ``initial_state``) or one ``check_state`` passed, unchanged since. Agents use it
        inside ``act``, which checks the state it is given once (``Agent.act``), so a move costs
        one validation however many positions its search looks at; envs step their own
        positions the same way. A state from anywhere else goes through the methods above:
        numba does no bounds checks, and these read any array they are given as a valid state."""
        return Unchecked(self)

    def check_action(self, action: int) -> int:
        """Return ``action`` as an int if it lies in the action space, else raise."""
        if type(action) is int and 0 <= action < self.num_actions:
            return action
        if not is_int(action) or not 0 <= int(action) < self.num_actions:
            raise IllegalActionError(
                f"action {action!r} is outside the action space: expected an integer in [0, {self.num_actions})"
            )
        return int(action)

    def current_player(self, state: ArrayLike) -> int:
        return int(self.check_state(state)[C.H_PLAYER])

    def is_terminal(self, state: ArrayLike) -> bool:
        return self.check_state(state).item(C.H_STATUS) == C.TERMINAL

    def end_reason(self, state: ArrayLike) -> str | None:
        """Why the game ended, as a name from ``end_reasons`` (``None`` while it goes on)."""
        state = self.check_state(state)
        code = state.item(C.H_REASON)
        if state.item(C.H_STATUS) != C.TERMINAL:
            return None
        return self.end_reasons.get(code, f"reason {code}")

    @property
    def max_moves_reason(self) -> int | None:
        """The ``H_REASON`` code of a game cut off by ``max_moves`` (``None`` if it cannot be):
        frameworks report such an end as a truncation rather than a termination."""
        return next((code for code, name in self.end_reasons.items() if name == "max_moves"), None)

    def legal_actions(self, state: ArrayLike) -> np.ndarray:
        """Legal action ids, ascending; empty exactly when the game is over."""
        state = self._array(state)
        out = self._ops.checked_legal(state, self._p, self.num_actions)  # validate + list: one call
        if out.size == 1 and out.item(0) < 0:
            self._refuse(state, -out.item(0))
        return out

    def legal_mask(self, state: ArrayLike) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=bool)
        mask[self.legal_actions(state)] = True
        return mask

    def is_legal(self, state: ArrayLike, action: int) -> bool:
        state = self.check_state(state)
        if not is_int(action) or not 0 <= int(action) < self.num_actions:
            return False
        return state[C.H_STATUS] == C.ONGOING and bool(self.spec.kernel.is_legal(state, self._p, int(action)))

    def apply(self, state: ArrayLike, action: int) -> np.ndarray:
        """The state after ``action``; ``state`` itself is left unchanged."""
        state = self._array(state)
        nxt = self._ops.checked_apply(state, self._p, self.check_action(action))  # validates too
        if nxt.size > 1:
            return nxt
        if nxt.size:
            self._refuse(state, -nxt.item(0))
        a = int(action)
        if state[C.H_STATUS] != C.ONGOING:
            raise IllegalActionError(f"action {a} played after the game ended")
        raise IllegalActionError(f"action {a} ({self._describe(state, a)}) is not legal here")

    def returns(self, state: ArrayLike) -> np.ndarray:
        out = np.zeros(self.num_players, dtype=np.float64)
        C.fill_returns(self.check_state(state), self.num_players, out)
        return out

    def outcome(self, state: ArrayLike) -> Outcome | None:
        """How finished ``state`` ended, as an ``envs.core.outcome.Outcome`` (None while the game goes
        on): the winner (None for a draw; alone, None for a lost game), ``returns``, the rule that
        ended it (``end_reason``) and the ``margin``: what journals, records and reports keep."""
        state = self.check_state(state)
        if state.item(C.H_STATUS) != C.TERMINAL:
            return None
        won = state.item(C.H_WINNER) != C.NO_WINNER
        return Outcome.from_state(
            state, self.returns(state), end_reason=self.end_reason(state), margin=self.margin(state) if won else None
        )

    def action_to_str(self, state: ArrayLike, action: int) -> str:
        return self.spec.notation.action_to_str(self, self.check_state(state), self.check_action(action))

    def str_to_action(self, state: ArrayLike, text: str) -> int:
        """Parse a move in the game's notation; raise NotationError if malformed or illegal."""
        state = self.check_state(state)
        if not isinstance(text, str):
            raise NotationError(f"move {text!r}: expected a string in {self.name} notation")
        action = self.spec.notation.parse_move(self, state, text.strip().lower())
        if not self.is_legal(state, action):
            raise NotationError(f"move {text!r} is not legal in this position")
        return action

    def observation(self, state: ArrayLike, seat: int) -> np.ndarray:
        """Planes from ``seat``'s point of view; never contains hidden information."""
        state = self.check_state(state)
        if not is_int(seat) or not 0 <= int(seat) < self.num_players:
            raise ArbiterError(f"seat {seat!r}: expected 0..{self.num_players - 1}")
        out = np.empty(self.observation_shape, dtype=np.float32)
        self._ops.observe(state, self._p, int(seat), self.num_actions, out.reshape(-1))
        return out

    def to_text(self, state: ArrayLike) -> str:
        return self.spec.notation.to_text(self, self.check_state(state))

    def from_text(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise TextBoardError(f"text board {text!r}: expected a string")
        state = self.spec.notation.from_text(self, text)
        code = self._validate(state, self._p)
        if code:  # a position the notation's own checks let through: refuse it here, not later
            raise TextBoardError(f"text board: {self._state_error(state, int(code))}")
        return state

    def summary(self, state: ArrayLike) -> str:
        """One line of counts a person reads beside the board: for board games the pieces of each
        side (from the observation planes); games add what matters to them (Go's score)."""
        self.check_state(state)
        if len(self.observation_shape) != 3 or self.num_players != 2:
            return ""
        planes = self.observation(state, 0)
        return f"pieces: x {int(planes[0].sum())}, o {int(planes[1].sum())}"

    def margin(self, state: ArrayLike) -> float | None:
        """By how much the winner of finished ``state`` won, in the game's own unit (Go: points,
        Othello: discs), for records (``RE[B+3.5]``); None where a win has no size."""
        return None

    def self_harm(self, state, action) -> bool:
        """Whether legal ``action`` only damages the mover, whatever follows (Go: filling one of
        its own true eyes), so that a search agent never chooses it at the root while any other
        move is legal, whatever its tree says. A game answers in ``_self_harm`` (a checked state
        and action; ``game.unchecked.self_harm`` calls it for a search's own positions).
        Default: no move is."""
        return self._self_harm(self.check_state(state), self.check_action(action))

    def _self_harm(self, state: np.ndarray, action: int) -> bool:
        return False

    # -- what GTP asks of a game (board, komi, pass): declared here, so it need not guess ----------
    @property
    def board_size(self) -> int | None:
        """The side N of the N x N board the game is played on (GTP's ``boardsize``, SGF's
        ``SZ``), None for a game without a square board (Calculation, Connect Four). A game
        whose board side is a rule parameter names it ``size``; a fixed board declares its side
        (LOA: ``board_size = 8``)."""
        size = self.params.get("size")
        return None if size is None else int(size)

    @property
    def komi(self) -> float | None:
        """The points White gets on top of its score (GTP's ``komi``, SGF's ``KM``), as the rule
        parameter ``komi`` holds it; None for a game without komi."""
        return self.params.get("komi")

    @cached_property
    def pass_action(self) -> int | None:
        """The action that passes the turn, None for a game without one (Gomoku). When passing is
        legal is the rules' business (Go: always; Othello and LOA: only when blocked). It is the
        action the notation reads as ``pass``, GTP's word, which every notation here with a pass uses."""
        try:
            return int(self.spec.notation.parse_move(self, self.initial_state(seed=0), "pass"))
        except ArbiterError:
            return None

    def sample_hidden(self, state: ArrayLike, rng: SeedLike | np.random.Generator | None = None) -> np.ndarray:
        """A copy of ``state`` with everything the mover cannot see re-drawn at random.

        Search agents call this (determinisation) instead of reading hidden information; it
        runs the game's ``determinise`` hook. Games with perfect information return an unchanged
        copy. ``rng`` is anything ``np.random.SeedSequence`` accepts (None: fresh entropy) or a
        ``np.random.Generator``, from which one seed is drawn; the same seed gives the same draw.
        """
        s = self.check_state(state).copy()
        if isinstance(rng, np.random.Generator):
            rng = int(rng.integers(0, 2**63 - 1))
        try:
            stream = R.new_rng(rng)
        except (TypeError, ValueError) as exc:
            raise ParameterError(
                f"rng={rng!r}: expected None, a non-negative integer seed or a numpy Generator"
            ) from exc
        hooks(self.spec).determinise(s, self._p, stream)
        return s

    def random_playouts(self, n_games: int, seed: SeedLike | None = None) -> dict:
        """Play ``n_games`` uniformly random games from the start inside compiled code.

        Returns ``{"returns": (n_games, num_players) float64, "lengths": (n_games,) int64}``.
        Games with a deal get a fresh deal per game. The same seed gives the same games.
        """
        n = check_int("n_games", n_games, 1, 10**9)
        returns = np.zeros((n, self.num_players), dtype=np.float64)
        lengths = np.zeros(n, dtype=np.int64)
        self._ops.random_playouts(
            self._p,
            self.state_len,
            self.num_actions,
            self.num_players,
            R.new_rng(seed),
            returns,
            lengths,
        )
        return {"returns": returns, "lengths": lengths}

    # -- conveniences --------------------------------------------------------------------------
    def _describe(self, state, action) -> str:
        try:
            return self.spec.notation.action_to_str(self, state, action)
        except ArbiterError:
            return "no such move"

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.params.items() if self.defaults.get(k) != v}
        args = "".join(f", {k}={v!r}" for k, v in changed.items())
        return f"make_game({self.name!r}{args})"


class Unchecked:
    """``game.unchecked``: ``legal_actions``, ``apply``, ``is_terminal``, ``current_player``,
    ``returns`` and ``self_harm`` of ``Game``, without validating the state (see ``Game.unchecked``); the state
    must be a native int64 array of the game's length. An action is still checked: an illegal
    one raises ``IllegalActionError`` as ``Game.apply`` does."""

    __slots__ = ("_game", "_ops", "_p", "_n")

    def __init__(self, game: Game):
        self._game, self._ops, self._p, self._n = game, game._ops, game._p, game.num_actions

    def legal_actions(self, state: np.ndarray) -> np.ndarray:
        return self._ops.legal_array(state, self._p, self._n)

    def apply(self, state: np.ndarray, action: int) -> np.ndarray:
        nxt = self._ops.play(state, self._p, self._game.check_action(action))
        if nxt.size == 0:
            a = int(action)
            if state[C.H_STATUS] != C.ONGOING:
                raise IllegalActionError(f"action {a} played after the game ended")
            raise IllegalActionError(f"action {a} ({self._game._describe(state, a)}) is not legal here")
        return nxt

    def self_harm(self, state: np.ndarray, action: int) -> bool:
        game = self._game
        if type(game).self_harm is not Game.self_harm:  # a game answering in its own checked method
            return game.self_harm(state, action)
        return game._self_harm(state, game.check_action(action))

    @staticmethod
    def is_terminal(state: np.ndarray) -> bool:
        return state.item(C.H_STATUS) == C.TERMINAL

    @staticmethod
    def current_player(state: np.ndarray) -> int:
        return state.item(C.H_PLAYER)

    def returns(self, state: np.ndarray) -> np.ndarray:
        out = np.zeros(self._game.num_players, dtype=np.float64)
        C.fill_returns(state, self._game.num_players, out)
        return out


def perft(game: Game, state: ArrayLike, depth: int) -> int:
    """Count the move sequences of ``depth`` plies from ``state`` (finished games are leaves)."""
    depth = check_int("depth", depth, 0, 64)
    return int(game._ops.perft(game.check_state(state), game._p, depth, game.num_actions))


def is_cached(spec) -> bool | None:
    """Whether numba's disk cache holds this game's compiled code (its legal-move entry point, the
    first thing any run compiles); None when that cannot be told. Lets a program say "compiling,
    first run only" before a long first compile."""
    return on_disk(compiled(_game_ops, spec).legal_array)
