"""Generic compiled code, specialised per game, that stays on numba's on-disk cache.

Generic compiled code (random playouts, search, the vector env, PUCT) is written once as plain
Python functions marked ``@per_game``, which call a game's hooks as ``G.legal_actions(...)``,
``G.evaluate(...)`` and so on. ``compiled(module, spec)`` makes, for one game, a copy of every
``@per_game`` function of ``module`` whose global ``G`` is that game's hook namespace, and jits
it with ``cache=True``. Why this shape, measured on this project:

* a jitted function that *receives* another jitted function as an argument is recompiled in
  every new process (the argument's type embeds a per-process id, so the cache never hits);
* one function that branches on a game id (``if gid == 0: ... elif ...``) compiles every game
  into every caller: a cold Gomoku move took minutes inside such a chain, 7 s on its own;
* a function that calls a jitted function through a *global* caches fine, and numba files a
  function's cache under its qualified name: each specialised copy gets its own
  (``playouts__go_<digest>``), so a process compiles exactly the games it uses and every copy
  is reused by the next process.

numba's cache checks only the source file of the function it caches, not the files of the kernels
that function calls. The ``<digest>`` in each copy's name is a hash of the source files its game's
hooks come from (and the project modules those import), so editing a game's kernel gives the
generic code a new name and a fresh compile: a stale copy can never be loaded.
"""

from __future__ import annotations

import hashlib
import sys
import threading
import types
from pathlib import Path

from numba import njit
from numba.core.registry import CPUDispatcher

from . import hooks as _defaults
from .generic import PER_GAME
from .hooks import HOOKS

_NAMESPACES: dict = {}  # (spec name, id(spec)) -> hook namespace
_COMPILED: dict = {}  # (module name, spec name, id(spec)) -> module of specialised functions
# Both tables are filled in steps (a namespace, then its functions); the lock keeps a thread from
# reading one half built (MCTS's ``threads`` may ask for the same game's code at once).
_LOCK = threading.RLock()
_PACKAGES = tuple(Path(__file__).resolve().parents[2] / name for name in ("envs", "agents", "tournaments"))


def hooks(spec) -> types.ModuleType:
    """The hook namespace ``G`` of a game: its kernel's and evaluation's functions by hook name,
    with the defaults of ``envs.core.hooks`` for the optional hooks it does not provide."""
    with _LOCK:
        return _hooks(spec)


def _hooks(spec) -> types.ModuleType:
    key = (spec.name, id(spec))
    ns = _NAMESPACES.get(key)
    if ns is not None:
        return ns
    ns = types.ModuleType(f"arbiter_hooks_{spec.name}")
    missing = []
    for hook, where in HOOKS.items():
        source = getattr(spec, where)
        fn = getattr(source, hook, None) if source is not None else None
        if fn is None:
            missing.append(hook)
        else:
            setattr(ns, hook, fn)
    ns.__digest__ = _digest([getattr(ns, h) for h in HOOKS if hasattr(ns, h)] + [spec.kernel, spec.evaluation])
    _NAMESPACES[key] = ns
    defaults = _specialise(_defaults, spec, ns)
    for hook in missing:
        setattr(ns, hook, getattr(defaults, "default_" + hook))
    return ns


def compiled(module, spec) -> types.ModuleType:
    """``module``'s ``@per_game`` functions jitted for the game of ``spec`` (memoised per process).

    ``module`` is a module or its name. The result is a module object holding everything
    ``module`` holds, its ``@per_game`` functions replaced by the game's jitted copies. Inside
    those copies, a module global that itself has ``@per_game`` functions (``E`` for
    ``agents.evaluation``) is that module's namespace for the same game, so generic code can call
    generic code of another module.
    """
    if isinstance(module, str):
        module = sys.modules[module]
    with _LOCK:
        return _specialise(module, spec, _hooks(spec))


def _specialise(module, spec, ns):
    key = (module.__name__, spec.name, id(spec))
    out = _COMPILED.get(key)
    if out is not None:
        return out
    names = module.__dict__.get(PER_GAME, ())
    out = types.ModuleType(f"{module.__name__}[{spec.name}]", module.__doc__)
    _COMPILED[key] = out
    scope = dict(module.__dict__)
    scope["G"] = ns
    for name, value in module.__dict__.items():
        if isinstance(value, types.ModuleType) and value is not module and PER_GAME in value.__dict__:
            scope[name] = _specialise(value, spec, ns)
    tag = f"{spec.name}_{ns.__digest__}"
    for name in names:
        fn = module.__dict__[name]
        copy = types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__, fn.__closure__)
        copy.__qualname__ = f"{fn.__qualname__}__{tag}"
        copy.__module__ = fn.__module__
        copy.__doc__ = fn.__doc__
        options = {"inline": "always"} if getattr(fn, "__per_game_inline__", False) else {}
        if getattr(fn, "__per_game_parallel__", False):
            options["parallel"] = True
        if getattr(fn, "__per_game_nogil__", False):
            options["nogil"] = True
        scope[name] = njit(cache=True, **options)(copy)
    for name, value in scope.items():
        if not name.startswith("__"):
            setattr(out, name, value)
    return out


def _digest(objects) -> str:
    """A short hash of the source files behind ``objects`` (jitted functions and modules) and of
    the modules they reach through their module globals, transitively, within the packages of
    ``objects`` themselves (an installed game included: upgrading it changes the hash) and this
    project's; third-party libraries (numpy, numba) and the standard library are left out."""
    start = [m for m in (_module_of(o) for o in objects if o is not None) if m is not None]
    packages = {m.__name__.partition(".")[0] for m in start}
    files: set = set()
    seen: set = set()
    todo = list(start)
    while todo:
        module = todo.pop()
        if module.__name__ in seen:
            continue
        seen.add(module.__name__)
        path = getattr(module, "__file__", None)
        if not path or not (module.__name__.partition(".")[0] in packages or _ours(path)):
            continue
        files.add(str(Path(path).resolve()))
        todo.extend(m for m in map(_module_of, list(vars(module).values())) if m is not None)
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode())
        h.update(Path(path).read_bytes())
    return h.hexdigest()[:12]


def _module_of(obj):
    if isinstance(obj, types.ModuleType):
        return obj
    if isinstance(obj, CPUDispatcher):
        return sys.modules.get(obj.py_func.__module__)
    return None


def _ours(path) -> bool:
    """Whether ``path`` is a source file whose edits must invalidate generic code: anything but
    the installed libraries (numpy, numba, the standard library)."""
    p = Path(path).resolve()
    if p.suffix != ".py":
        return False
    if any(p.is_relative_to(package) for package in _PACKAGES):
        return True
    return not any(part in ("site-packages", "dist-packages") for part in p.parts) and not p.is_relative_to(
        Path(sys.base_prefix).resolve()
    )


def on_disk(function) -> bool | None:
    """Whether numba's disk cache holds compiled ``function`` (a specialised copy); None when that
    cannot be told (numba's cache layout is not a public API). Lets a program say "compiling,
    first run only" before a long first compile."""
    try:
        index = function._cache._cache_file._index_path
    except AttributeError:
        return None
    return Path(index).exists()
