"""Generic compiled code: functions written once, as plain Python, that call a game's hooks
through a module global ``G`` (``G.legal_actions(s, p, out)``, ``G.evaluate(s, p, w)``), and that
``envs.core.specialise.compiled(module, spec)`` jits once per game. Random playouts, the Game
facade's entry points, the vector env, alpha-beta, MCTS and PUCT are all written this way.

A module of generic code sets ``G = None`` at its top (bound per game when it is specialised) and
marks its functions with ``@per_game``; this module holds only the mark, so that any layer can
write generic code without importing the machinery that compiles it.
"""

from __future__ import annotations

import sys

PER_GAME = "__per_game__"  # a module's list of its @per_game function names


def per_game(fn=None, *, inline=False, parallel=False, nogil=False):
    """Mark a plain function as generic compiled code that calls game hooks through ``G``.

    The function itself is never jitted; ``compiled(module, spec)`` jits one copy per game.
    Every other ``@per_game`` function of the same module that it calls by name is the copy of
    the same game. ``inline=True`` (``@per_game(inline=True)``) inlines a small helper into its
    callers at numba-IR level instead of compiling it as a function of its own: each function
    compiled on its own links in and re-optimises the game's kernel code it calls, which is
    most of a cold compile. ``parallel=True`` compiles with numba's ``parallel=True``, for a
    function whose ``prange`` loops spread independent games over the cores. ``nogil=True``
    releases the GIL while the copy runs, so Python threads can run it side by side (MCTS's
    ``threads`` search one tree each).
    """
    if fn is None:
        return lambda f: per_game(f, inline=inline, parallel=parallel, nogil=nogil)
    fn.__per_game_inline__ = inline
    fn.__per_game_parallel__ = parallel
    fn.__per_game_nogil__ = nogil
    module = sys.modules[fn.__module__]
    names = module.__dict__.setdefault(PER_GAME, [])
    if fn.__name__ not in names:
        names.append(fn.__name__)
    return fn
