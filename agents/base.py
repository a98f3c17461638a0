"""The Agent protocol, the agent registry and spec parsing.

An agent chooses moves: ``agent.act(game, state) -> action`` for any ``envs.Game`` it applies to.
Every agent has a registry ``name``, a ``seed`` from which *all* its randomness is drawn (the same
seed and the same sequence of positions give the same moves), and is picklable so tournaments can
ship it to worker processes. Search agents also set ``last_stats`` after each move, a dict with at
least ``"seconds"`` and ``"nodes"`` (tree search: ``"simulations"``) and ``"depth"`` where it applies.
``"seconds"`` times the search alone: the time a move spent in numba's compiler (a first move on
a cold cache, or loading the cached code) is left out, so nodes or simulations per second are the
search's (``envs.core.compiling.compile_seconds()`` adds up the compile time of the process).

Registering a new agent (the module must also be listed in ``agents/__init__.py``)::

    from .base import Agent, register

    @register("mcts")
    class MCTSAgent(Agent):
        '''UCT Monte-Carlo tree search.'''
        # every game; or override applies_to(game), which
        # reads the game's spec (players, chance, placement)
        games = None

        def __init__(self, simulations: int = 1000, c: float = 1.4, seed=None):
            super().__init__(seed=seed)
            self.simulations = simulations
            self.c = c

        def _act(self, game, state) -> int:
            ...                           # draw randomness from self.rng (a SplitMix64 state)

Names are case-insensitive: ``register("MyBot")`` registers ``mybot``, which ``make("MyBot")``
and ``make("mybot")`` both build (a spec's name is lower-cased, so registration is too).

An agent says what it is and what it plays with: ``summary`` (one line for ``arbiter agents``),
``settings(game)`` (every option with the value that applies to that game, defaults resolved:
MCTS's 1,000 simulations, alpha-beta's depth 4 or Othello's 1 s clock) and ``check_ready(game)``
(whether it can play the game on this machine: the game, its weights, an extra it needs), which
tournaments and matches call before the first game so that an agent that cannot play is one
clear error, not a forfeit in every game. A search agent names its ``time_option`` (the seconds
it may think per move), and ``clock_options(seconds)`` says how to hold it to a controller's
clock (the GTP server sets them for each ``genmove``).

On a game clock (``tournaments.play_game(..., clock=...)``, ``arbiter tournament --tc``) the
referee calls ``set_clock(time_left)`` before each of the agent's moves, so ``agent.clock`` holds an
``agents.clock.TimeLeft`` (main time left, increment, byo-yomi periods, the most the move may take
and a share of it) while it moves, and None without a clock; search agents are also held to the
share through ``clock_options``, as under a GTP clock.

``agents.make("mcts:simulations=5000,c=0.5")`` then builds it: the options of a spec are the
keyword arguments of ``__init__``, each string value coerced to the type of that argument's default
(``int``, ``float``, ``bool``, ``str``; an argument defaulting to ``None`` accepts any Python
literal, else the raw string). ``make("mcts", simulations=5000)`` passes values unchanged.
Options are validated by the agent's ``__init__``; use ``check_option`` for a clear ``AgentError``.
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import inspect
import math
from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np
from numpy.typing import ArrayLike

from envs.core import ArbiterError, ParameterError, literal, shown
from envs.core import kernel as C
from envs.core import rng as R
from envs.core.compiling import compile_seconds
from envs.game import Game

if TYPE_CHECKING:
    from .clock import TimeLeft

REGISTRY: dict[str, type[Agent]] = {}
_A = TypeVar("_A", bound="type[Agent]")


class AgentError(ArbiterError):
    """An unknown agent, a bad agent option, or a game the agent does not apply to."""


class Resign(Exception):
    """Raised by ``act`` to give up the game. Whoever runs the game (``tournaments.play_game``)
    scores it as a loss of the resigning seat with reason ``"resign"``, not as a crash: resigning
    is a legal way to end a game, a crash is a bug."""


class TakeBack(Exception):
    """Raised by ``act`` to take back the player's own last move and the replies to it (the human
    at the terminal typing ``undo``). Only ``play_game(..., takebacks=True)`` honours it; anywhere
    else it is an illegal request and forfeits, so no tournament agent can replay a lost line."""


class PlayerError(AgentError, ParameterError):
    """An object that cannot be a player (no ``act``, not callable), or one whose method names a
    hook of ``Player`` misspelt (``set_clok``): the referee would never call it, silently."""


# -- the Player protocol ---------------------------------------------------------------------------
# The hooks the referee calls besides ``act``, each a method of ``Player`` that does nothing by
# default: a player declares one by defining it (overriding), and the referee calls every hook of
# every player, with no probing. ``as_player`` (``agents.players``) adapts other objects once.
HOOKS = ("reset", "set_clock", "set_history", "clock_options", "check_ready")


def misspelt_hooks(names) -> list[tuple[str, str]]:
    """``(name, hook)`` for each of ``names`` that looks like a hook of ``Player`` misspelt: the
    same letters in another case or without the underscores (``setClock``, ``sethistory``), or
    close to it by ``difflib``'s ratio (``set_clok``, ``rest``). Private names (``_act``) and the
    hooks themselves pass."""
    found = []
    for name in names:
        if not isinstance(name, str) or name.startswith("_") or name in HOOKS or name == "act":
            continue
        key = name.lower().replace("_", "")
        for hook in (*HOOKS, "act"):
            if key == hook.replace("_", "") or (
                hook != "act" and difflib.SequenceMatcher(None, name.lower(), hook).ratio() >= 0.85
            ):
                found.append((name, hook))
                break
    return found


class Player:
    """What the referee (``tournaments.play_game``) plays a game with: ``act`` and the hooks.

    act(game, state) -> action      the move; the only method a player must define.
    reset()                         a new game starts: forget the last one (before every game).
    set_clock(time_left)            before each of its moves on a game clock, an
                                    ``agents.clock.TimeLeft``; None when the game is over.
    set_history(game, actions)      the action ids played since the start position (the opening
                                    before the first move, the line after a takeback), for a
                                    player that keeps its own board (GTP and Gomocup engines).
    clock_options(seconds) -> dict  the options that hold its next move to ``seconds`` (a search's
                                    time option), set for that move only; ``{}``: play as set.
    check_ready(game)               raise unless it can play ``game`` here (before a tournament's
                                    first game: one clear error instead of a forfeit per game).

    Every hook is declared here and does nothing by default, so the referee calls them all on
    every player and never looks an attribute up by name: a player *declares* a hook by
    overriding it. A subclass with a method whose name is a hook misspelt (``set_clok``) is
    refused when the class is made (``PlayerError``), since the referee would never call it.
    ``Agent`` is a ``Player``; any other object becomes one through ``agents.as_player``.
    ``last_stats`` (a dict) is where a player reports its last move's search: the record keeps
    its ``score`` (or ``value``) as the move's evaluation."""

    name: str = ""
    last_stats: Mapping[str, Any] = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        wrong = misspelt_hooks(k for k, v in vars(cls).items() if callable(v))
        if wrong:
            name, hook = wrong[0]
            raise PlayerError(
                f"{cls.__qualname__}.{name}: looks like the Player hook {hook!r} misspelt; the referee "
                f"calls only {', '.join(('act', *HOOKS))} (rename it, or make it private with a leading _)"
            )

    def act(self, game: Game, state: np.ndarray) -> int:
        """The action this player plays in ``state``, an ongoing position of ``game``."""
        raise NotImplementedError(f"{type(self).__qualname__}.act")

    def reset(self) -> None:
        """Forget per-game memory (search trees, tables) before a new game. Default: nothing."""

    def set_clock(self, clock: TimeLeft | None) -> None:
        """The referee's word on this player's clock before its move (``agents.clock.TimeLeft``),
        or None (the game is over). Default: nothing."""

    def set_history(self, game: Game, actions: tuple[int, ...]) -> None:
        """The action ids played from the start position so far. Default: nothing (a player that
        reads the position it is given in ``act`` needs no history)."""

    def clock_options(self, seconds: float) -> dict[str, Any]:
        """The options under which the next move takes at most ``seconds``. Default: none."""
        return {}

    def check_ready(self, game: Game) -> None:
        """Raise unless this player can play ``game`` here. Default: it can."""


# -- resignation -----------------------------------------------------------------------------------
# Search agents resign (raise ``Resign``) only where whoever runs the game records a resignation:
# ``tournaments.play_game`` (``arbiter play``, tournaments, matches) and ``arbiter gtp`` open
# ``resignation()`` unless told not to. Everywhere else (a Gymnasium or PettingZoo opponent, a
# script calling ``act``) games are played out, as an RL user needs them.
RESIGN_PLY = 20  # no agent resigns before this ply of a game: the first moves are never given up
_RESIGNING = contextvars.ContextVar("arbiter_resigning", default=False)


@contextlib.contextmanager
def resignation(allowed: bool = True) -> Iterator[None]:
    """Within the block, search agents whose ``resign`` option is on may give up a lost game by
    raising ``Resign`` (``allowed=False``: they play every game out, whatever their options)."""
    token = _RESIGNING.set(bool(allowed))
    try:
        yield
    finally:
        _RESIGNING.reset(token)


def resignation_allowed() -> bool:
    """Whether the game now being played lets search agents resign (see ``resignation``)."""
    return _RESIGNING.get()


class Resigner:
    """An agent's resignation rule: ``moves`` consecutive moves judged lost (a root win rate under
    the agent's threshold, or a proven loss) give the game up, never before ``RESIGN_PLY`` and
    only where ``resignation_allowed()``. The count starts again with every game (a ply lower
    than the last one judged means a new game, or a take-back) and with every move not lost; the
    same position asked again (a GTP controller that declined the resignation) counts once."""

    def __init__(self, moves: int = 1) -> None:
        self.moves = moves
        self.streak, self.ply = 0, -1

    def judge(self, game: Game, state: np.ndarray, lost: bool, why: str) -> None:
        """Count this move's verdict; raise ``Resign`` (saying ``why``) when the game is given up."""
        ply = int(state[C.H_PLY])
        if ply < self.ply:
            self.streak = 0
        if not lost:
            self.streak = 0
        elif ply != self.ply or self.streak == 0:  # the same position asked again counts once
            self.streak += 1
        self.ply = ply
        if self.streak >= self.moves and ply >= RESIGN_PLY and resignation_allowed():
            # the first player is Black in every two-player game here
            raise Resign(f"{('Black', 'White')[game.current_player(state)]} resigns: {why}")


_NOT_IN_NAMES = set(":,=()[]{}'\"") | {" ", "\t", "\n"}


def register(name: str) -> Callable[[_A], _A]:
    """Class decorator: make ``cls`` buildable as ``agents.make(name)`` and set ``cls.name``.

    The name is stored lower-cased, as ``parse_spec`` reads every spec's name; it must be a
    non-empty word that a spec can hold (no ``:``, ``,``, ``=``, brackets, quotes or spaces)."""
    if not isinstance(name, str) or not name.strip() or _NOT_IN_NAMES & set(name.strip()):
        raise AgentError(
            f"@register({name!r}): expected a non-empty name without spaces, quotes, "
            "brackets, ':', ',' or '=' (it is the first word of a spec)"
        )
    key = name.strip().lower()

    def decorate(cls: _A) -> _A:
        if key in REGISTRY and REGISTRY[key] is not cls:
            raise AgentError(f"agent name {key!r} is already registered by {REGISTRY[key].__name__}")
        if not (isinstance(cls, type) and issubclass(cls, Agent)):
            raise AgentError(f"@register({name!r}) expects an Agent subclass, got {cls!r}")
        cls.name = key
        REGISTRY[key] = cls
        return cls

    return decorate


# The most seconds an agent may be given per move (a day): a move time is a budget a search keeps
# to, and one past this cannot be meant (``seconds=1e300`` never ended its move); tournament clocks
# are held to the same bound (``agents.clock``).
MAX_SECONDS = 86_400.0


@overload
def check_option(name: str, value: Any, kind: type[int], lo: float | None = None, hi: float | None = None) -> int: ...
@overload
def check_option(
    name: str, value: Any, kind: type[float], lo: float | None = None, hi: float | None = None
) -> float: ...
def check_option(
    name: str, value: Any, kind: type[int] | type[float], lo: float | None = None, hi: float | None = None
) -> int | float:
    """Validate one agent option of type ``kind`` (int or float) in ``[lo, hi]``; return it. A
    float must be finite: NaN passes every comparison with a bound and would reach the compiled
    search as a silently wrong constant, and an infinite time never ends a move."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if kind is float:
        ok = (ok or isinstance(value, (float, np.floating))) and math.isfinite(value)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f" from {lo}" if lo is not None else ""
        bounds += f" to {hi}" if hi is not None else ""
        raise AgentError(
            f"{name}={shown(value)}: expected {'a finite number' if kind is float else 'an integer'}{bounds}"
        )
    return kind(value)


class Agent(Player):
    """Base class of every agent, a ``Player``. Subclasses implement ``_act``; see the module docstring."""

    name: str = ""
    games: tuple[str, ...] | None = None  # game names the agent applies to; None: every game it ``applies_to``
    plays: str = ""  # the games it applies to, in words, when ``applies_to`` is overridden
    summary: str = ""  # what the agent is, in one line (``arbiter agents``); default: the docstring's
    # the option holding its seconds per move (MCTS ``seconds``,
    # alpha-beta ``time``), which a clock sets; None: it has none
    time_option: str | None = None
    clock: TimeLeft | None = None  # an agents.clock.TimeLeft during a move on a game clock (``set_clock``), else None

    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and (not (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)) or seed < 0):
            # numpy's seeding refuses a negative seed with a ValueError at the first move
            raise AgentError(f"seed={shown(seed)}: expected a non-negative integer or None")
        self.seed = None if seed is None else int(seed)
        self.rng = R.new_rng(self.seed)
        self.last_stats: dict[str, Any] = {}

    def applies_to(self, game: Game) -> bool:
        """Whether this agent can play ``game`` (game name and parameters are both available)."""
        return self.games is None or game.name in self.games

    def check_game(self, game: Game) -> None:
        """Raise ``AgentError`` unless this agent applies to ``game``."""
        if not isinstance(game, Game):
            raise AgentError(f"{self.name}: expected an envs.Game, got {type(game).__name__}")
        if not self.applies_to(game):
            which = self.plays or (", ".join(self.games) if self.games else "no game")
            raise AgentError(f"agent {self.name!r} does not apply to {game.name}: it plays {which}")

    def check_ready(self, game: Game) -> None:
        """Raise ``AgentError`` unless this agent can play ``game`` here: it applies to the game
        and what it needs is at hand (learned agents: PyTorch and their weights). Tournaments
        and matches call it before the first game. Default: ``check_game``, then ``settings``,
        which resolves every option against the game and so refuses one the game cannot take
        (MCTS's RAVE on the patience, a weight count the evaluation does not read) here rather
        than at every move, where each game would be forfeited."""
        self.check_game(game)
        self.settings(game)

    def settings(self, game: Game) -> dict[str, Any]:
        """Every option (but ``seed``) with the value this agent plays ``game`` with: the value
        given, or the default that applies to ``game`` where the default depends on the game
        (``None`` in the signature). ``arbiter agents`` prints these. The default implementation
        reads the attribute of each option's name; agents whose defaults depend on the game
        override it."""
        return {k: _plain(getattr(self, k, v)) for k, v in options_of(type(self)).items() if k != "seed"}

    def clock_options(self, seconds: float) -> dict[str, float]:
        """The options under which this agent spends at most ``seconds`` on its next move, for a
        controller that hands out time move by move (a GTP clock): ``time_option`` set to
        ``seconds``, or left at the agent's own setting where that is lower; ``{}`` for an agent
        without a time option, which plays as configured. The caller sets them for that move
        and gives the agent its own values back afterwards."""
        if self.time_option is None:
            return {}
        own = getattr(self, self.time_option)
        return {self.time_option: min(own, seconds) if own else seconds}

    def set_clock(self, clock: TimeLeft | None) -> None:
        """The referee's word on this agent's clock before its move: an ``agents.clock.TimeLeft``,
        or None (no clock, or the game is over). It is kept in ``self.clock`` for ``_act`` to read;
        an agent that plans its own time overrides this to see every update."""
        self.clock = clock

    @classmethod
    def describe(cls) -> str:
        """One line saying what the agent is: ``summary``, else the docstring's first sentence."""
        if cls.summary:
            return cls.summary
        doc = " ".join((inspect.getdoc(cls) or "").split("\n\n")[0].split())
        return doc.split(". ")[0].rstrip(".")

    def act(self, game: Game, state: ArrayLike) -> int:
        """The action this agent plays in ``state`` (an ongoing position of ``game``).

        The state is validated here, once (``game.check_state``), and ``_act`` gets the checked
        array: inside it, the agent reads positions through ``game.unchecked`` (the state and
        those its own moves make need no second check), so a move costs one validation."""
        self.check_game(game)
        state = game.check_state(state)
        if state.item(C.H_STATUS) != C.ONGOING:
            raise AgentError(f"agent {self.name!r} asked to move in a finished game")
        before, compiled_before = self.last_stats, compile_seconds()
        action = int(self._act(game, state))
        compiling = compile_seconds() - compiled_before
        stats = self.last_stats
        if compiling > 0 and stats is not before and isinstance(stats.get("seconds"), float):
            stats["seconds"] = max(stats["seconds"] - compiling, 0.0)
        return action

    def _act(self, game: Game, state: np.ndarray) -> int:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget per-game memory (search trees, tables) before a new game. Default: nothing."""

    def warm_up(self, game: Game) -> None:
        """Compile the code this agent runs on ``game`` so that numba's disk cache holds it:
        processes started afterwards (tournament workers) then load it instead of each
        compiling it again. Default: nothing to compile (pure Python agents, external engines)."""

    def __repr__(self) -> str:
        return f"make({self.name!r}, seed={self.seed!r})"


# -- building agents by name or spec ---------------------------------------------------------------


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"alphabeta:depth=6,time=1.5"`` into ``("alphabeta", {"depth": "6", "time": "1.5"})``.

    An agent of a family is also written with a colon, as the family's own tools name it:
    ``openspiel:mcts:simulations=400`` is ``openspiel_mcts`` with ``simulations=400`` (a word
    without ``=`` after the first colon names the member when ``family_member`` is registered)."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"agent spec {shown(spec)}: expected a string like 'alphabeta:depth=6'")
    name, _, rest = spec.strip().partition(":")
    member, colon, after = rest.partition(":")
    if "=" not in member and "," not in member and f"{name.strip()}_{member.strip()}".lower() in REGISTRY:
        name, rest = f"{name.strip()}_{member.strip()}", after if colon else ""
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in _split_options(rest))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise AgentError(f"agent spec {shown(spec)}: option {shown(item)} is not of the form key=value")
        if key.strip() in options:
            raise AgentError(f"agent spec {shown(spec)}: option {key.strip()!r} given twice")
        options[key.strip()] = value.strip()
    return name.strip().lower(), options


def _split_options(text: str) -> list[str]:
    """Split on commas outside brackets and quotes, so ``command=['gnugo','--mode','gtp']`` works."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


_TRUTH = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def _coerce(agent: str, key: str, text: str, default):
    """Convert a spec string to the type of the option's default value. An option whose default
    is None (the game's choice) reads the words of a truth value as one (``filter_moves=off``)
    and anything else as a literal."""
    try:
        if isinstance(default, bool):
            word = {"1": "true", "0": "false"}.get(text, text.lower())
            if word in _TRUTH:
                return _TRUTH[word]
            raise ValueError(text)
        if default is None and text.lower() in _TRUTH:
            return _TRUTH[text.lower()]
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return float(text)
        if isinstance(default, str):
            return text
    except ValueError:
        kind = type(default).__name__
        raise AgentError(f"agent {agent!r}: option {key}={shown(text)} is not a valid {kind}") from None
    return literal(text)


def _plain(value):
    """An option's value as a spec would write it: arrays as lists of plain numbers."""
    if isinstance(value, np.ndarray):
        return [round(float(x), 6) for x in value.ravel()]
    if isinstance(value, np.generic):
        return value.item()
    return value


def options_of(cls: type[Agent]) -> dict[str, Any]:
    """The keyword options of an agent class with their defaults (``inspect.Parameter.empty`` if required)."""
    params = inspect.signature(cls.__init__).parameters
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return {k: v.default for k, v in params.items() if k != "self" and v.kind in kinds}


def with_options(spec: str, options: Mapping[str, str], what: str = "options") -> str:
    """``spec`` with ``options`` (``{"resign": "false"}``) added where the spec does not set them
    itself (its own value wins), as one spec: ``with_options("alphabeta:depth=3", {"time": "1"})``
    is ``"alphabeta:depth=3,time=1"``. Options applied to every agent of a run (``--each``): an
    agent without one of them is an ``AgentError`` naming ``what`` gave it, the agent and the
    options it has."""
    name, own = parse_spec(spec)
    if name not in REGISTRY:
        raise AgentError(f"unknown agent {shown(name)}: expected one of {', '.join(sorted(REGISTRY))}")
    allowed = options_of(REGISTRY[name])
    added = []
    for key, value in options.items():
        if key not in allowed:
            raise AgentError(
                f"{what} {key}={value}: agent {name!r} ({spec}) has no option {key!r}; it has {', '.join(allowed)}"
            )
        if key not in own:
            added.append(f"{key}={value}")
    if not added:
        return spec
    base = spec.strip().rstrip(":")
    return base + ("," if own else ":") + ",".join(added)


def make(spec: str, **kwargs: object) -> Agent:
    """Build an agent from a spec (``"alphabeta:depth=6,time=1.5"``) and/or keyword options.

    Keyword options override spec options of the same name and are passed without coercion.
    """
    name, raw = parse_spec(spec)
    if name not in REGISTRY:
        raise AgentError(f"unknown agent {shown(name)}: expected one of {', '.join(sorted(REGISTRY))}")
    cls = REGISTRY[name]
    allowed = options_of(cls)
    for key in [*raw, *kwargs]:
        if key not in allowed:
            raise AgentError(f"agent {name!r} has no option {key!r}: expected some of {', '.join(allowed)}")
    options = {k: _coerce(name, k, v, allowed[k]) for k, v in raw.items()}
    options.update(kwargs)
    missing = [k for k, v in allowed.items() if v is inspect.Parameter.empty and k not in options]
    if missing:
        raise AgentError(f"agent {name!r} needs option {missing[0]!r} (e.g. '{name}:{missing[0]}=...')")
    return cls(**options)
