"""The game registry: every game declares itself once, as a ``GameSpec``, and everything that
lists or dispatches on games (``make_game``, the Gymnasium ids, the PettingZoo modules, the CLI's
choices, the agents' evaluations, the docs tables) derives from this registry.

    import envs
    envs.register(envs.GameSpec(name="connect4", title="Connect Four", game=ConnectFour,
                                kernel=connect4_kernel, params=(envs.Param("rows", 6, "board rows",
                                low=4, high=10),)))
    envs.make_game("connect4", rows=7)

A spec names three things of its game:

* ``game``: the ``envs.core.Game`` subclass (the Python facade: turns validated parameters into
  kernel parameters, owns the state length and the observation shape);
* ``kernel``: a module of compiled (numba) functions — the rules and the hooks listed in
  ``HOOKS`` below, called by name from generic compiled code (``envs._specialise``);
* ``notation``: a module with ``action_to_str``, ``parse_move``, ``to_text`` and ``from_text``.

and optionally ``evaluation``, a module of compiled search knowledge (static evaluation, move
ordering, playout policies) that search agents use.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType

import numpy as np

from .core import UNBOUNDED, ParameterError, check_choice, check_int, shown

# Hooks that generic compiled code calls by name, and which module of a spec provides each.
# ``envs._generic`` holds a default for every optional one.
HOOKS = {
    # rules (``kernel``; the first five are required)
    "init": "kernel",            # init(s, p, rng): fill a start position (rng: SplitMix64, for deals)
    "legal_actions": "kernel",   # legal_actions(s, p, out) -> n: legal ids ascending into out[:n]
    "is_legal": "kernel",        # is_legal(s, p, a) -> bool, for a in range(num_actions)
    "apply": "kernel",           # apply(s, p, a): play legal action a in place
    "encode": "kernel",          # encode(s, p, seat, legal, n_legal, out): observation, flat float32,
                                 # every cell of ``out`` written (it may hold anything before)
    "random_playout": "kernel",  # random_playout(s, p, rng, moves): finish s with uniform legal moves
    "determinise": "kernel",     # determinise(s, p, rng): redraw what the mover cannot see
    "reveals": "kernel",         # reveals(s, p, a) -> bool: playing a turns up a hidden card
    "revealed": "kernel",        # revealed(s, p) -> slot in [0, chance_outcomes): what turned up
    "owners": "kernel",          # owners(s, p, out): final owner of each cell, 0/1/2 (board games)
    "validate": "kernel",        # validate(s, p) -> 0 or C.error(code, cell): every invariant the
                                 # kernel relies on (default: the common header, C.check_header)
    # search knowledge (``evaluation``)
    "evaluate": "evaluation",    # evaluate(s, p, w) -> int: static value for the side to move
    "hint": "evaluation",        # hint(s, p, a) -> int: move ordering, higher searched first
    "tactical": "evaluation",    # tactical(s, child, p, a, w) -> float: greedy score of move a
    "live_length": "evaluation",  # live_length(s) -> int: leading cells a search copy must carry
    "filter_moves": "evaluation",  # filter_moves(s, p, moves, n) -> n': moves search considers
    "playout": "evaluation",     # playout(s, p, rng, moves, policy): finish s with a named policy
    "traced_playout": "evaluation",  # traced_playout(s, p, rng, moves, policy, trace) -> n: the same,
                                 # writing each move and its mover into trace[i, 0], trace[i, 1] (RAVE)
    "priors": "evaluation",      # priors(s, p, moves, n, out): prior knowledge of the n legal moves for a
                                 # new MCTS node, as virtual simulations out[i, 0] of mean value
                                 # out[i, 1] for the mover (RAVE starts from them; default none: 0)
    "solve": "evaluation",       # solve(s, p, limit, deadline, out) -> 1 solved (out[0]: 1 won, 0
                                 # drawn, -1 lost for the mover; out[1]: a move that does it), 0 not
                                 # attempted (more than ``limit`` left to play), -1 out of time;
                                 # out[2]: nodes (an exact endgame solver; alpha-beta's ``endgame``)
}
REQUIRED_HOOKS = ("init", "legal_actions", "is_legal", "apply", "encode")
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class Param:
    """One rule parameter: its default, what values it takes, and a line of documentation.

    ``low``/``high`` bound an integer (``even`` asks for an even one); ``choices`` lists the
    values of a categorical one (strings or bools, compared by type and value); ``number``
    accepts any finite real number; ``optional`` also accepts ``None`` (meaning "derived from
    the other parameters"; the game's ``_configure`` says how). A game's ``_configure`` checks
    what depends on several parameters at once (Go's komi against the board size).
    """

    def __init__(self, name, default, doc, *, low=None, high=None, even=False, choices=None,
                 number=False, optional=False):
        self.name, self.default, self.doc = name, default, doc
        self.low, self.high, self.even = low, high, even
        self.choices = None if choices is None else tuple(choices)
        self.number, self.optional = number, optional

    def check(self, value):
        """``value`` if this parameter takes it (ints normalised to ``int``); else ParameterError."""
        if value is None and self.optional:
            return None
        if self.choices is not None:
            return check_choice(self.name, value, self.choices)
        if self.number:
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise ParameterError(f"{self.name}={shown(value)}: expected a number")
            try:
                finite = math.isfinite(float(value))
            except OverflowError:  # an int too large for a float (10**400): as unusable as inf
                raise ParameterError(f"{self.name}={shown(value)}: expected a finite number; this one "
                                     "is too large for a float") from None
            if not finite:
                raise ParameterError(f"{self.name}={shown(value)}: expected a finite number")
            return value
        hi = self.high if self.high is not None else UNBOUNDED
        return check_int(self.name, value, self.low if self.low is not None else -UNBOUNDED, hi, even=self.even)

    def describe(self) -> str:
        """The values it takes, for help texts and the docs tables (``6..16, even``)."""
        if self.choices is not None:
            text = " / ".join(repr(c) if isinstance(c, str) else str(c) for c in self.choices)
        elif self.number:
            text = "a number"
        else:
            lo = "" if self.low is None else str(self.low)
            hi = "" if self.high is None else str(self.high)
            text = f"{lo}..{hi}" + (", even" if self.even else "")
        return text + (" or None" if self.optional else "")  # "1.. or None": from 1, no upper bound

    def __repr__(self) -> str:
        return f"Param({self.name!r}, default={self.default!r}, {self.describe()})"


@dataclass(frozen=True)
class GameSpec:
    """Everything the project knows about one game (see the module docstring)."""

    name: str
    title: str
    game: type
    kernel: ModuleType
    notation: ModuleType
    params: tuple = ()
    presets: dict = field(default_factory=lambda: {"standard": {}})
    num_players: int = 2
    evaluation: ModuleType | None = None
    chance_outcomes: int = 0       # > 0: actions that ``reveals`` lead to chance nodes with this many slots
    placement: bool = False        # action r*N + c places on cell (r, c) of an N x N board (N*N: pass)
    gtp: bool = False              # its notation is GTP's (vertices, "pass"): GTP engines can play it
    sgf: int | None = None         # SGF game number (GM): records can be saved as SGF (placement games
                                   # as points; others through their notation's ``sgf_move``)
    playouts: tuple = ("random",)  # playout policy names; code = index; 0 is always uniform random
    default_playout: str = "random"
    rave: float = 0.0              # MCTS's default RAVE equivalence parameter k (0: plain UCT)
    expansion_threshold: int = 5   # MCTS's default ``threshold``: playouts a leaf gets before it is
                                   # expanded (the patience study's 5)
    search_seconds: float = 0.0    # alpha-beta's clock per move when given neither depth nor time
                                   # (iterative deepening; 0: depth 4, no clock)
    endgame: int = 0               # the ``limit`` alpha-beta on a clock passes to the ``solve`` hook
                                   # (Othello: empty squares); 0: no exact solving by default
    time_profile: tuple = ()       # MCTS on a clock: ((progress, weight), ...), progress = plies
                                   # played / num_actions from 0 ascending, weight = a move's share
                                   # of the average time (linear in between, flat past the last
                                   # point); empty: every move the same time, no early stop
    render: object = None          # render(game, state, previous) -> (H, W, 3) uint8; None: envs.render.board
    board_style: str = "squares"   # the generic board picture: "squares", "intersections" or "checker"
    gym_id: str | None = None
    pettingzoo: str | None = None  # module name under ``envs.pettingzoo`` (``go_v0``)
    classic: str | None = None     # module name under ``envs.pettingzoo.classic`` (PettingZoo's own,
                                   # ``go_v5``, where it has the game); None: the ``pettingzoo`` name
    classic_params: dict = field(default_factory=dict)  # PettingZoo's parameter names -> ours
    classic_defaults: dict = field(default_factory=dict)  # PettingZoo's defaults in that layout, in its
                                   # names (go_v5: board_size 19, screen_height 800: its picture's rows)
    classic_frames: int = 0        # > 0: that layout observes PettingZoo go_v5's planes: this many
                                   # boards of history, two bool planes each, and a colour plane
    summary: str = ""
    checked: str = ""              # what the rules are tested against, for the games table

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ParameterError(f"game name {self.name!r}: expected lower-case letters, digits and _")
        missing = [h for h in REQUIRED_HOOKS if not callable(getattr(self.kernel, h, None))]
        if missing:
            raise ParameterError(f"game {self.name!r}: its kernel module lacks {', '.join(missing)}")
        if self.num_players not in (1, 2):
            raise ParameterError(f"game {self.name!r}: num_players={self.num_players!r}: expected 1 or 2")
        names = [p.name for p in self.params]
        if len(set(names)) != len(names) or "rules" in names:
            raise ParameterError(f"game {self.name!r}: parameter names must be distinct and not 'rules'")
        if "standard" not in self.presets:
            raise ParameterError(f"game {self.name!r}: presets need a 'standard' entry")
        for preset, values in self.presets.items():
            unknown = set(values) - set(names)
            if unknown:
                raise ParameterError(f"game {self.name!r}: preset {preset!r} sets unknown {sorted(unknown)}")
        if not self.playouts or self.playouts[0] != "random" or self.default_playout not in self.playouts:
            raise ParameterError(f"game {self.name!r}: playouts must start with 'random' and hold the default")
        _check_time_profile(self.name, self.time_profile)
        check_int(f"game {self.name!r}: expansion_threshold", self.expansion_threshold, 1, 10**6)
        check_int(f"game {self.name!r}: classic_frames", self.classic_frames, 0, 64)
        ours = {self.classic_params.get(k, k) for k in self.classic_defaults} - {"screen_height"}
        if ours - set(names):
            raise ParameterError(f"game {self.name!r}: classic_defaults sets unknown {sorted(ours - set(names))}")
        object.__setattr__(self, "presets", MappingProxyType(dict(self.presets)))
        object.__setattr__(self, "classic_defaults", MappingProxyType(dict(self.classic_defaults)))

    @property
    def defaults(self) -> dict:
        """Every parameter with its standard value."""
        return {p.name: p.default for p in self.params}

    def param(self, name) -> Param:
        return next(p for p in self.params if p.name == name)

    def default_weights(self) -> np.ndarray:
        """A fresh copy of the evaluation's ``WEIGHTS`` (what ``evaluate`` and ``tactical`` are
        given by default; empty without an evaluation or weights)."""
        weights = getattr(self.evaluation, "WEIGHTS", None) if self.evaluation is not None else None
        return np.zeros(0, dtype=np.float64) if weights is None else np.asarray(weights, dtype=np.float64).copy()

    def __reduce__(self):
        """A spec pickles by reference: its modules by name and its classes and functions as
        pickle does, so a worker process (``spawn``, a Ray node) rebuilds the same spec by
        importing them and can register a game that only the parent had registered."""
        fields = {f: getattr(self, f) for f in self.__dataclass_fields__}
        for key in ("kernel", "notation", "evaluation"):
            if fields[key] is not None:
                fields[key] = fields[key].__name__
        fields["presets"] = dict(fields["presets"])
        fields["classic_defaults"] = dict(fields["classic_defaults"])
        return (_rebuild, (fields,))


def _check_time_profile(name, profile) -> None:
    """A time profile is (progress, weight) pairs, progress ascending from 0, weights positive."""
    try:
        points = [(float(x), float(w)) for x, w in profile]
    except (TypeError, ValueError):
        raise ParameterError(f"game {name!r}: time_profile={profile!r}: expected (progress, weight) pairs") from None
    xs = [x for x, _ in points]
    if points and (xs[0] != 0.0 or any(b <= a for a, b in zip(xs, xs[1:]))
                   or not all(math.isfinite(x) for x in xs)
                   or not all(math.isfinite(w) and w > 0 for _, w in points)):
        raise ParameterError(f"game {name!r}: time_profile={profile!r}: progress must rise from 0 "
                             "and weights be positive")


def _rebuild(fields) -> GameSpec:
    import importlib

    for key in ("kernel", "notation", "evaluation"):
        if fields[key] is not None:
            fields[key] = importlib.import_module(fields[key])
    return GameSpec(**fields)


_REGISTRY: dict[str, GameSpec] = {}


def register(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add ``spec`` to the registry and bind its facade class to it; returns the spec.

    Registering also adds its Gymnasium id (if any). A name already taken is an error unless
    ``replace`` is set (for a game under development, re-registered after an edit).
    """
    if not isinstance(spec, GameSpec):
        raise ParameterError(f"register({spec!r}): expected an envs.GameSpec")
    if spec.name in _REGISTRY and not replace and _REGISTRY[spec.name] is not spec:
        raise ParameterError(f"game {spec.name!r} is already registered")
    spec.game.spec = spec
    _REGISTRY[spec.name] = spec
    from .registration import register_env

    register_env(spec)
    return spec


def unregister(name) -> GameSpec:
    """Remove a registered game (with its Gymnasium id and PettingZoo module); returns its spec.

    For games under development and for tests; a built-in game can be removed too, and comes
    back with the next process."""
    found = spec(name)
    del _REGISTRY[found.name]
    from .registration import unregister_env

    unregister_env(found)
    return found


def ensure(spec_: GameSpec) -> GameSpec:
    """The registered spec of ``spec_``'s name, registering ``spec_`` first if the name is free:
    what a worker process does with the spec its parent sent it."""
    if spec_.name not in _REGISTRY:
        register(spec_)
    return _REGISTRY[spec_.name]


def spec(name) -> GameSpec:
    """The spec of a registered game; ``ParameterError`` listing the registered games if unknown."""
    key = name.lower() if isinstance(name, str) else name
    if key not in _REGISTRY:
        raise ParameterError(f"unknown game {name!r}: expected one of {', '.join(_REGISTRY)}")
    return _REGISTRY[key]


def names() -> tuple:
    """The registered games' names, in registration order."""
    return tuple(_REGISTRY)


def specs() -> tuple:
    return tuple(_REGISTRY.values())


def games_table(specs_=None) -> str:
    """A markdown table of the registered games: parameters (values they take, default), rule
    presets and framework ids. The README's games table is this text (a test keeps them equal)."""
    rows = ["| game | players | parameters (values, default) | rules presets | Gymnasium / PettingZoo | rules checked against |",
            "|---|---|---|---|---|---|"]
    for s in specs_ if specs_ is not None else specs():
        params = "<br>".join(f"`{p.name}`: {p.describe()}, default `{p.default!r}`" for p in s.params) or "none"
        presets = ", ".join(f"`{name}`" for name in s.presets)
        ids = " / ".join(f"`{i}`" for i in (s.gym_id, s.pettingzoo) if i is not None) or "—"
        rows.append(f"| `{s.name}`: {s.title} ({s.summary}) | {s.num_players} | {params} | {presets} | {ids} "
                    f"| {s.checked or '—'} |")
    return "\n".join(rows) + "\n"
