"""Arbiter's games: rule engines in numba behind one Game protocol (see ``envs.game``).

    import envs
    game = envs.make_game("go", size=7, komi=9.5, rules="openspiel")

Each game's folder holds its rules (``_kernel.py``), its facade (``game.py``), its notation and
its search knowledge (``evaluation.py``: static evaluation, move ordering, playout policies, the
tactical score). The knowledge lives with the game, not with the agents, because it is compiled
kernel code written against that game's state layout, reached by generic code as the game's
hooks (``G.evaluate``, ``G.tactical``: ``envs.core.hooks``) and specialised per game, and
because several consumers share it: alpha-beta, MCTS and the greedy agent in ``agents``, and the
envs' own compiled greedy opponent (``envs.policies``), which the layers forbid from importing
``agents``. A new game brings its knowledge in its folder; the agents stay free of game names.

``envs.__version__`` is the installed distribution's version, for every layer to read (the GTP
server's ``version`` answers it).
"""

from importlib import import_module, metadata

from .core import (
    ArbiterError,
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)
from .framework_ids import ensure, gym_ids, register, register_envs, unregister
from .game import Game
from .registry import GameSpec, Param, make_game, names, spec, specs
from .state import State

try:  # pyproject.toml's version, as the installed distribution records it: its one source
    __version__ = metadata.version("arbiter-games")
except metadata.PackageNotFoundError:  # a source tree that was never installed: no record to read
    __version__ = "0+unknown"  # PEP 440, below every release

# The built-in games: each folder declares its game as ``SPEC``; adding a game adds one name here.
for _folder in ("loa", "othello", "gomoku", "go", "calculation"):
    register(import_module(f"{__name__}.{_folder}").SPEC)


def __getattr__(attr):
    if attr == "GAMES":  # the registered games' names, as the registry holds them now
        return names()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = [
    "GAMES",
    "make_game",
    "register",
    "unregister",
    "ensure",
    "spec",
    "specs",
    "names",
    "GameSpec",
    "Param",
    "Game",
    "State",
    "ArbiterError",
    "ParameterError",
    "StateError",
    "IllegalActionError",
    "NotationError",
    "TextBoardError",
    "gym_ids",
    "register_envs",
]
