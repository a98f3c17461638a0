"""Any object as a ``Player``: ``as_player(obj)``, the one place where foreign objects are adapted.

    import agents
    player = agents.as_player(lambda game, state: int(game.legal_actions(state)[0]))
    player.act(game, state)

The referee (``tournaments.play_game``) calls ``act`` and every hook of ``agents.base.Player`` on
each player, never probing for a method by name; whatever is not a ``Player`` is adapted here,
once, before the game:

  a ``Player`` (every ``Agent``)      as it is: its hooks are its own methods;
  an object with ``act(game, state)`` (a user's class, the human at the terminal): its ``act``,
                                      and those of its methods named as hooks (``reset``,
                                      ``set_clock``, ``set_history``, ``check_ready``, or the
                                      older ``check_game``); a method named like a hook
                                      misspelt (``set_clok``) is a ``PlayerError``, not ignored;
  a plain callable ``f(game, state) -> action``;
  a stable-baselines3 model (``predict(observation, ...)``, MaskablePPO's included): asked with
                                      ``game.observation(state, seat)`` as float32 planes (the
                                      observation ``envs.sb3`` trains it on), the legal moves as
                                      its ``action_masks`` where it takes them, deterministic;
  a ``pyspiel.Bot``:                  through ``agents.openspiel.BotAgent`` (the bot plays every
                                      seat it is asked to move for).

An adapted object keeps its own ``name`` (else its type's) and ``last_stats``. Its options are
not held to a clock share (``clock_options``): a foreign object that should be declares it by
subclassing ``Player`` or ``Agent``.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import numpy as np

from envs import Game

from .base import Player, PlayerError, misspelt_hooks
from .openspiel import BotAgent

# an object's methods that answer the Player hooks, by the hook's name (``check_game`` is the name
# an older agent gave ``check_ready``)
_ANSWERS = {
    "reset": ("reset",),
    "set_clock": ("set_clock",),
    "set_history": ("set_history",),
    "check_ready": ("check_ready", "check_game"),
}


class Adapted(Player):
    """An object with ``act`` as a ``Player``: its ``act`` and its hook methods bound once (the
    hooks it lacks are ``Player``'s no-ops). ``obj`` is the object itself."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.name = getattr(obj, "name", "") or type(obj).__name__
        self.act = obj.act  # type: ignore[method-assign]  (bound once: no call through the adapter)
        for hook, names in _ANSWERS.items():
            method = next((getattr(obj, n) for n in names if callable(getattr(obj, n, None))), None)
            if method is not None:
                setattr(self, hook, method)

    @property
    def last_stats(self) -> Mapping[str, Any]:  # type: ignore[override]
        """The object's own report of its last move (its ``last_stats``; empty if it keeps none)."""
        stats = getattr(self.obj, "last_stats", None)
        return stats if isinstance(stats, Mapping) else MappingProxyType({})

    def __repr__(self) -> str:
        return f"as_player({self.obj!r})"


class CallablePlayer(Player):
    """A plain function ``f(game, state) -> action`` as a player (no hooks)."""

    def __init__(self, fn: Callable[[Game, np.ndarray], int], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "") or type(fn).__name__

    def act(self, game: Game, state: np.ndarray) -> int:
        return self.fn(game, state)

    def __repr__(self) -> str:
        return f"as_player({self.fn!r})"


class PolicyPlayer(Player):
    """A stable-baselines3 model as a player: ``model.predict`` on the mover's observation planes
    (float32, as ``envs.sb3.make_vec_env`` trains on them), deterministic, with the legal moves
    as ``action_masks`` when its ``predict`` takes them (sb3-contrib's maskable algorithms)."""

    def __init__(self, model: Any, name: str | None = None) -> None:
        self.model = model
        self.name = name or type(model).__name__
        try:
            self.masks = "action_masks" in inspect.signature(model.predict).parameters
        except (TypeError, ValueError):  # a builtin without a signature: no masks asked of it
            self.masks = False

    def act(self, game: Game, state: np.ndarray) -> int:
        observation = game.observation(state, game.current_player(state)).astype(np.float32)
        if self.masks:
            action, _ = self.model.predict(observation, deterministic=True, action_masks=game.legal_mask(state))
        else:
            action, _ = self.model.predict(observation, deterministic=True)
        return int(np.asarray(action).reshape(-1)[0])

    def __repr__(self) -> str:
        return f"as_player({self.model!r})"


def _is_pyspiel_bot(obj: Any) -> bool:
    pyspiel = sys.modules.get("pyspiel")  # a bot exists only where pyspiel was imported
    return pyspiel is not None and isinstance(obj, pyspiel.Bot)


def _fixed_bot(bot: Any) -> Callable[[Any, int, int], Any]:
    def factory(openspiel_game: Any, seat: int, seed: int) -> Any:
        return bot

    return factory


def as_player(obj: Any, what: str = "player") -> Player:
    """``obj`` as a ``Player`` (see the module): itself if it is one, else its adapter. Raises
    ``PlayerError`` naming ``what`` for an object that cannot play, or one with a hook's name
    misspelt. The referee adapts each player once per game, before its first move."""
    if isinstance(obj, Player):
        return obj
    if _is_pyspiel_bot(obj):
        return BotAgent(_fixed_bot(obj), name=type(obj).__name__)
    if callable(getattr(obj, "act", None)):
        wrong = _misspelt(type(obj))
        if wrong:
            name, hook = wrong[0]
            raise PlayerError(
                f"{what}={_shown(obj)}: its method {name!r} looks like the Player hook {hook!r} misspelt, "
                f"which the referee would never call (rename it to {hook!r}, or make it private with a leading _)"
            )
        return Adapted(obj)
    if callable(getattr(obj, "predict", None)):
        return PolicyPlayer(obj)
    if callable(obj) and not isinstance(obj, type):
        return CallablePlayer(obj)
    raise PlayerError(
        f"{what}={_shown(obj)}: expected a player: an object with act(game, state) -> action, a function "
        "(game, state) -> action, a stable-baselines3 model or a pyspiel.Bot"
    )


_MISSPELT: dict[type, list[tuple[str, str]]] = {}  # per class: its methods' misspelt hook names


def _misspelt(cls: type) -> list[tuple[str, str]]:
    """The misspelt hook names among the methods of ``cls`` (looked up once per class)."""
    if cls not in _MISSPELT:
        names = [n for n in dir(cls) if callable(inspect.getattr_static(cls, n, None))]
        _MISSPELT[cls] = misspelt_hooks(names)
    return _MISSPELT[cls]


def _shown(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 80 else text[:77] + "..."
