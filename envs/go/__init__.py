"""Go on an N x N board, 5 to 19, Tromp-Taylor area scoring (see ``game.py``)."""

from ..registry import GameSpec, Param
from . import _kernel, evaluation, notation
from .game import Go

SPEC = GameSpec(
    name="go",
    title="Go",
    game=Go,
    kernel=_kernel,
    notation=notation,
    evaluation=evaluation,
    placement=True,
    sgf=1,
    gtp=True,
    params=(
        Param("size", 9, "board side", low=5, high=_kernel.MAX_SIZE),
        Param("komi", 7.5, "points added to White's score, a multiple of 0.5 within ±N*N", number=True),
        Param(
            "superko",
            "illegal",
            "positional superko forbids a repetition, or it ends the game drawn",
            choices=("illegal", "draw"),
        ),
        Param("suicide", False, "a multi-stone suicide is legal", choices=(False, True)),
        Param("max_moves", None, "plies before the board is scored, 1..8*N*N (None: 2*N*N)", low=1, optional=True),
    ),
    presets={"standard": {}, "openspiel": {"superko": "draw", "suicide": False}},
    playouts=evaluation.PLAYOUTS,
    board_style="intersections",
    gym_id="Go-v0",
    pettingzoo="go_v0",
    classic="go_v5",
    classic_params={"board_size": "size"},
    classic_defaults={"board_size": 19, "komi": 7.5, "screen_height": 800},
    classic_frames=8,
    summary="surround territory; area scoring, positional superko",
    checked='OpenSpiel, move for move on 130 recorded games (5x5-9x9, komi 0-7.5, `rules="openspiel"`); GNU Go over GTP',
)

__all__ = ["Go", "SPEC"]
