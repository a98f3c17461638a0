"""Othello on an even N x N board, 6 to 16 (see ``game.py``)."""

from ..registry import GameSpec, Param
from . import _kernel, evaluation, notation
from .game import Othello

SPEC = GameSpec(
    name="othello",
    title="Othello",
    game=Othello,
    kernel=_kernel,
    notation=notation,
    evaluation=evaluation,
    playouts=evaluation.PLAYOUTS,
    placement=True,
    sgf=2,
    gtp=True,
    params=(Param("size", 8, "board side", low=6, high=16, even=True),),
    presets={"standard": {}, "openspiel": {}},
    gym_id="Othello-v0",
    pettingzoo="othello_v0",
    summary="flip discs by outflanking; most discs wins",
    checked="OpenSpiel, move for move on 46 recorded 8x8 games; perft (6x6, 8x8, larger boards against a second generator); GRhino over GTP",
)

__all__ = ["Othello", "SPEC"]
