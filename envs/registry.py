"""The game registry: every game declares itself once, as a ``GameSpec``, and everything that
lists or dispatches on games (``make_game``, the Gymnasium ids, the PettingZoo modules, the CLI's
choices, the agents' evaluations, the docs tables) derives from this registry. What each
framework needs of a spec (its Gymnasium id, its PettingZoo modules) is ``envs.framework_ids``'s.

    import envs
    envs.register(envs.GameSpec(name="connect4", title="Connect Four", game=ConnectFour,
                                kernel=connect4_kernel, params=(envs.Param("rows", 6, "board rows",
                                low=4, high=10),)))
    envs.make_game("connect4", rows=7)

A spec names three things of its game:

* ``game``: the ``envs.game.Game`` subclass (the Python facade: turns validated parameters into
  kernel parameters, owns the state length and the observation shape);
* ``kernel``: a module of compiled (numba) functions — the rules and the hooks listed in
  ``envs.core.hooks.HOOKS``, called by name from generic compiled code (``envs.core.specialise``);
* ``notation``: a module with ``action_to_str``, ``parse_move``, ``to_text`` and ``from_text``.

and optionally ``evaluation``, a module of compiled search knowledge (static evaluation, move
ordering, playout policies) that search agents use.
"""

from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING

import numpy as np

from .core import UNBOUNDED, ParameterError, check_choice, check_int, shown
from .core.hooks import REQUIRED_HOOKS

if TYPE_CHECKING:  # the Game imports the registry's table
    from .game import Game

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


class Param:
    """One rule parameter: its default, what values it takes, and a line of documentation.

    ``low``/``high`` bound an integer (``even`` asks for an even one); ``choices`` lists the
    values of a categorical one (strings or bools, compared by type and value); ``number``
    accepts any finite real number; ``optional`` also accepts ``None`` (meaning "derived from
    the other parameters"; the game's ``_configure`` says how). A game's ``_configure`` checks
    what depends on several parameters at once (Go's komi against the board size).
    """

    def __init__(
        self, name, default, doc, *, low=None, high=None, even=False, choices=None, number=False, optional=False
    ):
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
                raise ParameterError(
                    f"{self.name}={shown(value)}: expected a finite number; this one is too large for a float"
                ) from None
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
    chance_outcomes: int = 0  # > 0: actions that ``reveals`` lead to chance nodes with this many slots
    placement: bool = False  # action r*N + c places on cell (r, c) of an N x N board (N*N: pass)
    gtp: bool = False  # its notation is GTP's (vertices, "pass"): GTP engines can play it
    # SGF game number (GM): records can be saved as SGF (placement games
    # as points; others through their notation's ``sgf_move``)
    sgf: int | None = None
    # the playout policies its evaluation offers, by name; code = index;
    # 0 is always uniform random (which one MCTS plays: agents.tuning)
    playouts: tuple = ("random",)
    render: object = None  # render(game, state, previous) -> (H, W, 3) uint8; None: envs.render.board
    board_style: str = "squares"  # the generic board picture: "squares", "intersections" or "checker"
    gym_id: str | None = None
    pettingzoo: str | None = None  # module name under ``envs.pettingzoo`` (``go_v0``)
    # module name under ``envs.pettingzoo.classic`` (PettingZoo's own,
    # ``go_v5``, where it has the game); None: the ``pettingzoo`` name
    classic: str | None = None
    classic_params: dict = field(default_factory=dict)  # PettingZoo's parameter names -> ours
    classic_defaults: dict = field(default_factory=dict)  # PettingZoo's defaults in that layout, in its
    # names (go_v5: board_size 19, screen_height 800: its picture's rows)
    # > 0: that layout observes PettingZoo go_v5's planes: this many
    # boards of history, two bool planes each, and a colour plane
    classic_frames: int = 0
    summary: str = ""
    checked: str = ""  # what the rules are tested against, for the games table

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
        if not self.playouts or self.playouts[0] != "random":
            raise ParameterError(f"game {self.name!r}: playouts must start with 'random'")
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

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def default_weights(self, game=None) -> np.ndarray:
        """What ``evaluate`` and ``tactical`` are given by default: for ``game``, the weights
        its evaluation picks for that game's parameters where it defines ``weights_for`` (the
        fitted pattern table of 8x8 Othello: shared, not to be modified); otherwise a fresh
        copy of the evaluation's ``WEIGHTS`` (empty without an evaluation or weights)."""
        pick = getattr(self.evaluation, "weights_for", None)
        if game is not None and pick is not None:
            picked = pick(game)
            if picked is not None:
                return picked
        weights = getattr(self.evaluation, "WEIGHTS", None) if self.evaluation is not None else None
        return np.zeros(0, dtype=np.float64) if weights is None else np.asarray(weights, dtype=np.float64).copy()

    def weight_counts(self, game) -> tuple[int, ...]:
        """How many weights ``evaluate`` accepts for ``game``: its ``WEIGHTS``' count, and where
        the evaluation defines ``weight_counts(game)``, those (Othello's pattern table on 8x8)."""
        counts = getattr(self.evaluation, "weight_counts", None)
        own = (len(self.default_weights()),)
        return own + tuple(counts(game)) if counts is not None else own

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


def _rebuild(fields) -> GameSpec:
    for key in ("kernel", "notation", "evaluation"):
        if fields[key] is not None:
            fields[key] = importlib.import_module(fields[key])
    return GameSpec(**fields)


_REGISTRY: dict[str, GameSpec] = {}


def add(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Put ``spec`` in the table and bind its facade class to it (``envs.register`` does this and
    adds the game's framework ids); a name already taken is an error unless ``replace`` is set."""
    if not isinstance(spec, GameSpec):
        raise ParameterError(f"register({spec!r}): expected an envs.GameSpec")
    if spec.name in _REGISTRY and not replace and _REGISTRY[spec.name] is not spec:
        raise ParameterError(f"game {spec.name!r} is already registered")
    spec.game.spec = spec
    _REGISTRY[spec.name] = spec
    return spec


def remove(name: str) -> GameSpec:
    """Take a registered game out of the table; returns its spec (``envs.unregister`` does this
    and removes its framework ids)."""
    found = spec(name)
    del _REGISTRY[found.name]
    return found


def make_game(name: str, **params) -> Game:
    """Build a registered game by name with rule parameters (``rules="openspiel"`` selects
    OpenSpiel's); an unknown name is a ``ParameterError`` listing the registered games."""
    return spec(name).game(**params)


def spec(name: str) -> GameSpec:
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
    rows = [
        "| game | players | parameters (values, default) | rules presets | Gymnasium / PettingZoo | rules checked against |",
        "|---|---|---|---|---|---|",
    ]
    for s in specs_ if specs_ is not None else specs():
        params = "<br>".join(f"`{p.name}`: {p.describe()}, default `{p.default!r}`" for p in s.params) or "none"
        presets = ", ".join(f"`{name}`" for name in s.presets)
        ids = " / ".join(f"`{i}`" for i in (s.gym_id, s.pettingzoo) if i is not None) or "—"
        rows.append(
            f"| `{s.name}`: {s.title} ({s.summary}) | {s.num_players} | {params} | {presets} | {ids} "
            f"| {s.checked or '—'} |"
        )
    return "\n".join(rows) + "\n"
