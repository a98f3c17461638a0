"""Lines of Action on 8x8 (see ``game.py`` for the rules and the action space)."""

from ..registry import GameSpec, Param
from . import _kernel, evaluation, notation, render
from .game import CHOICES, MAX_MOVES_LIMIT, LinesOfAction

SPEC = GameSpec(
    name="loa",
    title="Lines of Action",
    game=LinesOfAction,
    kernel=_kernel,
    notation=notation,
    evaluation=evaluation,
    playouts=evaluation.PLAYOUTS,
    params=(
        Param(
            "simultaneous",
            "draw",
            "a move that connects both groups: a draw or the mover's win",
            choices=CHOICES["simultaneous"],
        ),
        Param("no_move", "pass", "a player without a move passes or loses", choices=CHOICES["no_move"]),
        Param(
            "repetition",
            "threefold",
            "draw on a threefold repetition, or on any recurring board",
            choices=CHOICES["repetition"],
        ),
        Param("max_moves", 1000, "plies before the game is drawn", low=1, high=MAX_MOVES_LIMIT),
        Param(
            "win_at_cap", "stands", "a connection on the last ply still wins, or draws", choices=CHOICES["win_at_cap"]
        ),
    ),
    presets={
        "standard": {},
        "openspiel": {
            "simultaneous": "mover",
            "no_move": "lose",
            "repetition": "first_board",
            "max_moves": 1000,
            "win_at_cap": "draw",
        },
    },
    render=render.rgb,
    sgf=9,
    gym_id="LOA-v0",
    pettingzoo="loa_v0",
    summary="connect all your pieces into one group; 8x8",
    checked='OpenSpiel, move for move on 46 recorded games (`rules="openspiel"`); perft; position tests',
)

__all__ = ["LinesOfAction", "SPEC"]
