"""What numba's compiler does in this process: a notice on stderr before a first compile, and the
seconds spent compiling, so that a search can time itself without them.

numba compiles a function the first time it is called with new argument types, unless its disk
cache holds it (then it loads it in milliseconds). A cold start of a game and its agents compiles
for tens of seconds, during a call that looks like any other (``game.legal_actions(s)``,
``bot.act(game, s)``), so the first such compile of each part of the project prints one line on
stderr, as the command line does before a tournament:

    arbiter: compiling go's numba code (agents._mcts_kernel.run_rave and what it calls): first
    use only, can take 10-60 s; numba caches it for later runs

"Part" is a game and the module of the entry point that compiles (the game's rules, MCTS,
alpha-beta...): a first MCTS move after the first legal moves announces itself again, a second
MCTS agent does not. ``quiet(game)`` marks a game as announced by the caller (the command line's
own notice); ``notices(False)`` turns the lines off.

``compile_seconds()`` is the time this process has spent in numba's compiler so far (compiling,
or loading from the cache, whichever thread did it): an agent subtracts what a move added to it
from the move's ``last_stats["seconds"]``, which thus times the search and not the compile.

Nothing here compiles or imports anything of the project: the listeners are numba's own
``numba.core.event`` hooks, installed once when this module is imported.
"""

from __future__ import annotations

import sys
import threading
import time

from numba.core import event

# Code of the games and the agents. The tournaments' own compiled code (the systems' pairings) is
# left to the command line's notice, whose first line a run's log starts with.
_PROJECT = ("envs.", "agents.")

_lock = threading.Lock()
_local = threading.local()
_state = {"seconds": 0.0, "enabled": True}
_announced: set = set()  # (game or None, module) pairs announced; (game, None): the whole game
_quiet: set = set()  # games whose compiles the caller announced itself


def compile_seconds() -> float:
    """Seconds this process has spent in numba's compiler (compiling or loading cached code)."""
    with _lock:
        return _state["seconds"]


def notices(enabled: bool) -> None:
    """Turn the first-compile lines on stderr on (the default) or off."""
    _state["enabled"] = bool(enabled)


def quiet(game: str) -> None:
    """Print no first-compile line for ``game`` (its caller printed its own)."""
    with _lock:
        _quiet.add(game)


def _part(dispatcher):
    """``(game or None, module, function)`` of a dispatcher that belongs to the project or to a
    game: a specialised copy of generic code carries ``__<game>_<digest>`` in its name; a game's
    own kernels are named by their package (``envs.go._kernel``: go)."""
    fn = getattr(dispatcher, "py_func", None)
    if fn is None:
        return None
    module = fn.__module__ or ""
    name, _, tag = fn.__qualname__.partition("__")
    game, _, digest = tag.rpartition("_")
    if not (name and game and len(digest) == 12 and all(c in "0123456789abcdef" for c in digest)):
        name, game = fn.__qualname__, None
    if not game and module.startswith("envs."):
        parts = module.split(".")
        game = parts[1] if len(parts) > 2 and parts[1] != "core" else None
    if not game and not module.startswith(_PROJECT):
        return None
    return game, module, name


class _Notice(event.Listener):
    """Prints the line for the outermost compile of a part not announced yet (numba nests the
    compiles of the functions a function calls inside its own)."""

    def on_start(self, ev):
        depth = getattr(_local, "compiling", 0)
        _local.compiling = depth + 1
        if depth or not _state["enabled"]:
            return
        part = _part(ev.data.get("dispatcher"))
        if part is None:
            return
        game, module, name = part
        with _lock:
            if game in _quiet or (game, module) in _announced:
                return
            _announced.add((game, module))
        whose = f"{game}'s numba code" if game else "numba code"
        sys.stderr.write(
            f"arbiter: compiling {whose} ({module}.{name} and what it calls): first use "
            "only, can take 10-60 s; numba caches it for later runs\n"
        )
        sys.stderr.flush()

    def on_end(self, ev):
        _local.compiling = getattr(_local, "compiling", 1) - 1


class _Clock(event.Listener):
    """Adds up the outermost spells in numba's compiler lock, per thread."""

    def on_start(self, ev):
        depth = getattr(_local, "locked", 0)
        _local.locked = depth + 1
        if depth == 0:
            _local.since = time.perf_counter()

    def on_end(self, ev):
        _local.locked = getattr(_local, "locked", 1) - 1
        if _local.locked == 0:
            spent = time.perf_counter() - _local.since
            with _lock:
                _state["seconds"] += spent


event.register("numba:compile", _Notice())
event.register("numba:compiler_lock", _Clock())
