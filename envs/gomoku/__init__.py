"""Gomoku on an N x N board, 7 to 19, freestyle or exactly five (see ``game.py``)."""

from ..registry import GameSpec, Param
from . import _kernel, evaluation, notation
from .game import Gomoku

SPEC = GameSpec(
    name="gomoku",
    title="Gomoku",
    game=Gomoku,
    kernel=_kernel,
    notation=notation,
    evaluation=evaluation,
    placement=True,
    sgf=4,
    playouts=evaluation.PLAYOUTS,
    params=(
        Param("size", 15, "board side", low=7, high=19),
        Param("exact_five", False, "only exactly five in a row wins (an overline does not)", choices=(False, True)),
    ),
    presets={"standard": {}, "openspiel": {"exact_five": False}},
    board_style="intersections",
    gym_id="Gomoku-v0",
    pettingzoo="gomoku_v0",
    summary="five in a row",
    checked="OpenSpiel, move for move on 30 recorded games (7x7, 15x15); position tests",
)

__all__ = ["Gomoku", "SPEC"]
