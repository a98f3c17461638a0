"""Learned agents: a MaskablePPO baseline (``ppo``) and an AlphaZero-style player (``alphazero``).

Importing this package registers both agents without importing torch; torch (the ``learn``
extra: ``pip install "arbiter-games[learn]"``) is needed once they load weights or train.
Modules: ``network`` (the size-independent net), ``_puct_kernel``/``puct`` (batched PUCT search),
``selfplay``, ``train`` (replay buffer, checkpoints), ``weights`` (safe save/load with sidecars),
``ppo`` and ``alphazero`` (the agents). Their evaluation protocol is ``tournaments.match``.
"""

from . import alphazero, ppo  # noqa: F401  (registration side effects)
