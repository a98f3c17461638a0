"""PettingZoo AEC envs of the registered games, one module per game as in ``pettingzoo.classic``:

    from envs.pettingzoo import loa_v0
    env = loa_v0.env(render_mode="ansi")

Each module's ``env(render_mode=None, **rule_params)`` is the wrapped env and ``raw_env`` the bare
one; all are the single generic class ``envs.pz_env.ArbiterAEC``. The modules are made from the
game registry (``envs.framework_ids``): a registered game with a ``pettingzoo`` name gets one.
"""

__all__: list = []
