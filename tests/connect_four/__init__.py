"""Connect Four, a game defined outside ``envs/``: the worked example of docs/adding-a-game.md.

    import envs, connect_four
    envs.register(connect_four.SPEC)          # once per process; then it is a game like any other
    game = envs.make_game("connect_four", columns=8, rows=7)

The package holds what every game holds: ``_kernel.py`` (the rules in numba), ``game.py`` (the
``Game`` facade and a picture), ``notation.py`` (moves and text boards) and ``evaluation.py``
(optional search knowledge), declared together as ``SPEC``.
"""

import envs

from . import _kernel, evaluation, notation
from .game import ConnectFour, render

SPEC = envs.GameSpec(
    name="connect_four",
    title="Connect Four",
    game=ConnectFour,
    kernel=_kernel,
    notation=notation,
    evaluation=evaluation,
    params=(
        envs.Param("columns", 7, "board columns", low=4, high=10),
        envs.Param("rows", 6, "board rows", low=4, high=10),
        envs.Param("connect", 4, "discs in a row that win", low=3, high=6),
    ),
    render=render,
    gym_id="ConnectFour-v0",
    pettingzoo="connect_four_v0",
    summary="four in a row; discs drop to the lowest free cell",
)

__all__ = ["ConnectFour", "SPEC"]
