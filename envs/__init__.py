"""Arbiter's games: rule engines in numba behind one Game protocol (see ``envs.core``).

    import envs
    game = envs.make_game("go", size=7, komi=9.5, rules="openspiel")

``envs.__version__`` is the installed distribution's version, for every layer to read (the GTP
server's ``version`` answers it).
"""

from importlib import import_module, metadata

from .core import (
    ArbiterError,
    Game,
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)
from .registration import gym_ids, register_envs
from .state import State
from .registry import GameSpec, Param, names, register, spec, specs, unregister

try:  # pyproject.toml's version, as the installed distribution records it: its one source
    __version__ = metadata.version("arbiter-games")
except metadata.PackageNotFoundError:  # a source tree that was never installed: no record to read
    __version__ = "0+unknown"  # PEP 440, below every release

# The built-in games: each folder declares its game as ``SPEC``; adding a game adds one name here.
for _folder in ("loa", "othello", "gomoku", "go", "calculation"):
    register(import_module(f"{__name__}.{_folder}").SPEC)


def make_game(name, **params) -> Game:
    """Build a registered game by name with rule parameters (``rules="openspiel"`` selects
    OpenSpiel's); an unknown name is a ``ParameterError`` listing the registered games."""
    return spec(name).game(**params)


def __getattr__(attr):
    if attr == "GAMES":  # the registered games' names, as the registry holds them now
        return names()
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = [
    "GAMES", "make_game", "register", "unregister", "spec", "specs", "names", "GameSpec", "Param", "Game",
    "State",    "ArbiterError", "ParameterError", "StateError", "IllegalActionError", "NotationError",
    "TextBoardError", "gym_ids", "register_envs",
]
