"""PettingZoo AEC envs of the five games, one module per game as in ``pettingzoo.classic``:

    from envs.pettingzoo import loa_v0
    env = loa_v0.env(render_mode="ansi")

Each module's ``env(render_mode=None, **rule_params)`` is the wrapped env and ``raw_env`` the bare
one; all are the single generic class ``envs.pz_env.ArbiterAEC``.
"""

from . import calculation_v0, go_v0, gomoku_v0, loa_v0, othello_v0

__all__ = ["loa_v0", "othello_v0", "gomoku_v0", "go_v0", "calculation_v0"]
