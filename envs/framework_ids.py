"""Framework ids of the registered games, derived from their specs: the Gymnasium ids and the
PettingZoo modules. ``envs.registry`` holds the games themselves (their specs, by name, and
``make_game``); ``register`` here puts a spec in that table and adds its framework ids, so that
``envs.register`` is one call.

Gymnasium 1.x loads no plugins, so ``import envs`` registers every built-in game's id (and
``envs.register`` a new game's); then

    gymnasium.make("Go-v0", size=9, komi=7.5, opponent="random")          # one env
    gymnasium.make_vec("Othello-v0", num_envs=256,
                       vectorization_mode="vector_entry_point")           # compiled batch

Every keyword goes to the env class and from there the rule parameters to ``envs.make_game``.
No ``max_episode_steps`` is registered: each game ends (or is truncated) at its own ``max_moves``.

PettingZoo AEC envs are modules named as in ``pettingzoo.classic`` (``envs.pettingzoo.go_v0``),
made for each spec that names one.
"""

from __future__ import annotations

import sys
from functools import partial
from types import ModuleType

import gymnasium

from . import pettingzoo, registry
from .pettingzoo import classic
from .registry import GameSpec


def register(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add ``spec`` to the game registry, bind its facade class to it, and register its Gymnasium
    id and PettingZoo modules; returns the spec. A name already taken is an error unless
    ``replace`` is set (for a game under development, re-registered after an edit)."""
    registry.add(spec, replace=replace)
    register_env(spec)
    return spec


def unregister(name: str) -> GameSpec:
    """Remove a registered game with its Gymnasium id and PettingZoo modules; returns its spec.

    For games under development and for tests; a built-in game can be removed too, and comes
    back with the next process."""
    found = registry.remove(name)
    unregister_env(found)
    return found


def ensure(spec: GameSpec) -> GameSpec:
    """The registered spec of ``spec``'s name, registering ``spec`` first if the name is free:
    what a worker process does with the spec its parent sent it."""
    if spec.name not in registry.names():
        register(spec)
    return registry.spec(spec.name)


def register_env(spec: GameSpec) -> None:
    """Register ``spec``'s Gymnasium id and PettingZoo module (again: replaced, harmless)."""
    if spec.gym_id is not None:
        if spec.gym_id in gymnasium.registry:
            del gymnasium.registry[spec.gym_id]
        gymnasium.register(
            id=spec.gym_id,
            entry_point="envs.gym_env:ArbiterEnv",
            vector_entry_point="envs.vector_env:ArbiterVectorEnv",
            kwargs={"game": spec.name},
        )
    if spec.pettingzoo is not None:
        _add_module(
            pettingzoo,
            spec.pettingzoo,
            spec,
            "arbiter",
            f"{spec.title} as a PettingZoo AEC env: ``{spec.pettingzoo}.env(render_mode=None, "
            "**rule_params)`` (see ``envs.pz_env``).",
        )
        _add_module(
            classic,
            spec.classic or spec.pettingzoo,
            spec,
            "classic",
            f"{spec.title} as a PettingZoo AEC env in the layout of PettingZoo's classic envs (see ``envs.pz_env``).",
        )


def _add_module(package, name, spec, layout, doc) -> None:
    module = ModuleType(f"{package.__name__}.{name}", doc)
    module.env = partial(_aec, "env", spec.name, layout=layout)
    module.raw_env = partial(_aec, "raw_env", spec.name, layout=layout)
    sys.modules[module.__name__] = module
    setattr(package, name, module)
    if name not in package.__all__:
        package.__all__.append(name)


def _drop_module(package, name) -> None:
    sys.modules.pop(f"{package.__name__}.{name}", None)
    if hasattr(package, name):
        delattr(package, name)
    if name in package.__all__:
        package.__all__.remove(name)


def unregister_env(spec: GameSpec) -> None:
    """Remove ``spec``'s Gymnasium id and PettingZoo module."""
    if spec.gym_id is not None and spec.gym_id in gymnasium.registry:
        del gymnasium.registry[spec.gym_id]
    if spec.pettingzoo is not None:
        _drop_module(pettingzoo, spec.pettingzoo)
        _drop_module(classic, spec.classic or spec.pettingzoo)


def register_envs() -> None:
    """Register the framework ids of every registered game (again: harmless). ``import envs``
    and ``envs.register`` already do; this is for code that cleared Gymnasium's registry."""
    for spec in registry.specs():
        register_env(spec)


def _aec(kind, game, **kwargs):
    from . import (
        pz_env,  # on first use: it imports PettingZoo, which only the AEC envs need
    )

    return getattr(pz_env, kind)(game, **kwargs)


def gym_ids() -> dict:
    """Gymnasium id -> game name, for every registered game that has one."""
    return {s.gym_id: s.name for s in registry.specs() if s.gym_id is not None}
