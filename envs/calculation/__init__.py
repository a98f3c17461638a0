"""The Calculation patience: one player, a hidden stock (see ``game.py``)."""

from ..registry import GameSpec
from . import _kernel, evaluation, notation, render
from .game import Calculation

SPEC = GameSpec(
    name="calculation",
    title="Calculation",
    game=Calculation,
    kernel=_kernel,
    notation=notation,
    evaluation=evaluation,
    num_players=1,
    chance_outcomes=_kernel.CHANCE_OUTCOMES,
    playouts=evaluation.PLAYOUTS,
    render=render.rgb,
    gym_id="Calculation-v0",
    pettingzoo="calculation_v0",
    summary="patience: build four foundations by 1s, 2s, 3s and 4s from a hidden stock",
    checked="position tests of every rule; the stock order never reaches observations or renders",
)

__all__ = ["Calculation", "SPEC"]
