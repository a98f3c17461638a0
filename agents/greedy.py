"""The greedy agent: one ply of lookahead plus a per-game tactical score, on any board size.

Every legal move is played on a scratch copy; a move that wins at once is taken, one that loses
at once (or draws, when anything else is available) is avoided, and the rest are ranked by the
game's ``tactical`` score (``agents.evaluation``): Othello corners/edges/mobility, Gomoku threats
made and blocked, Go captures/atari/liberties/eyes, LOA the Winands evaluation, Calculation the
waste-pile rule. Ties are broken uniformly at random from the agent's seeded generator
(reservoir sampling), so the loop stays in compiled code: ``envs.policies.greedy_move``, which
the vector and Gymnasium envs also run as their compiled ``opponent="greedy"``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from envs import Game, policies
from envs.core.specialise import compiled

from . import evaluation as E
from .base import Agent, register


@register("greedy")
class GreedyAgent(Agent):
    """One-ply greedy player (see the module docstring); ``weights`` override the game's defaults."""

    summary = "one ply of lookahead, moves scored by the game's tactical evaluation"

    def __init__(self, weights: ArrayLike | None = None, seed: int | None = None) -> None:
        super().__init__(seed=seed)
        self.weights = None if weights is None else E.check_weights(weights)

    def warm_up(self, game: Game) -> None:
        self.act(game, game.initial_state(seed=0))

    def settings(self, game: Game) -> dict[str, Any]:
        """``weights``: the ones given, else the game's default evaluation weights."""
        weights = E.weights_for(self.weights, game)
        return {**super().settings(game), "weights": E.describe(weights)}

    def _act(self, game: Game, state: np.ndarray) -> int:
        w = E.weights_for(self.weights, game)
        moves = np.empty(game.num_actions, dtype=np.int64)
        return compiled(policies, game.spec).greedy(state, game.kernel_params, w, self.rng, moves, np.empty_like(state))
