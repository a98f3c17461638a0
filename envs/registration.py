"""Gymnasium ids of the five games. Gymnasium 1.x loads no plugins, so ``import envs`` calls
``register_envs()``; then

    gymnasium.make("Go-v0", size=9, komi=7.5, opponent="random")          # one env
    gymnasium.make_vec("Othello-v0", num_envs=256,
                       vectorization_mode="vector_entry_point")           # compiled batch

Every keyword goes to the env class and from there the rule parameters to ``envs.make_game``.
No ``max_episode_steps`` is registered: each game ends (or is truncated) at its own ``max_moves``.
"""

import gymnasium

IDS = {"LOA-v0": "loa", "Othello-v0": "othello", "Gomoku-v0": "gomoku", "Go-v0": "go", "Calculation-v0": "calculation"}


def register_envs() -> None:
    """Register every id once (calling it again is harmless)."""
    for env_id, game in IDS.items():
        if env_id in gymnasium.registry:
            continue
        gymnasium.register(
            id=env_id,
            entry_point="envs.gym_env:ArbiterEnv",
            vector_entry_point="envs.vector_env:ArbiterVectorEnv",
            kwargs={"game": game},
        )
