"""Arbiter's games: rule engines in numba behind one Game protocol (see ``envs.core``).

    import envs
    game = envs.make_game("go", size=7, komi=9.5, rules="openspiel")
"""

from importlib import import_module

from .core import (
    ArbiterError,
    Game,
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)

GAMES = {
    "loa": ("envs.loa", "LinesOfAction"),
    "othello": ("envs.othello", "Othello"),
    "gomoku": ("envs.gomoku", "Gomoku"),
    "go": ("envs.go", "Go"),
    "calculation": ("envs.calculation", "Calculation"),
}


def make_game(name, **params) -> Game:
    """Build a game by name with rule parameters (``rules="openspiel"`` selects OpenSpiel's)."""
    if not isinstance(name, str) or name.lower() not in GAMES:
        raise ParameterError(f"unknown game {name!r}: expected one of {', '.join(GAMES)}")
    module, cls = GAMES[name.lower()]
    return getattr(import_module(module), cls)(**params)


from .registration import register_envs  # noqa: E402

register_envs()

__all__ = [
    "GAMES", "make_game", "Game", "ArbiterError", "ParameterError", "StateError",
    "IllegalActionError", "NotationError", "TextBoardError", "register_envs",
]
