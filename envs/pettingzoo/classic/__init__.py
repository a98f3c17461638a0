"""The registered games as PettingZoo AEC envs in the layout of PettingZoo's classic envs, so that
a script written for ``pettingzoo.classic`` runs with only its import changed:

    from envs.pettingzoo.classic import go_v5      # was: from pettingzoo.classic import go_v5
    env = go_v5.env(board_size=9, komi=7.5)

Agents are named by colour (``"black_0"``, ``"white_0"``; a one-player game ``"player_0"``),
observation planes are channels-last ``(H, W, C)``, ``action_mask`` is int8, and PettingZoo's
parameter names are accepted where they differ from ours (``board_size`` for Go's ``size``). A game
PettingZoo has keeps PettingZoo's module name (``go_v5``); the others keep ours (``othello_v0``).
The modules are made from the game registry (``envs.framework_ids``).
"""

__all__: list = []
