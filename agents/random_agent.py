"""The uniform random agent: every legal move with equal probability (the weakest baseline)."""

from __future__ import annotations

import numpy as np

from envs import Game
from envs.core import rng as R

from .base import Agent, register


@register("random")
class RandomAgent(Agent):
    """Plays a uniformly random legal move, drawn from its own seeded SplitMix64 stream."""

    summary = "a uniformly random legal move (the weakest baseline)"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed=seed)

    def _act(self, game: Game, state: np.ndarray) -> int:
        moves = game.unchecked.legal_actions(state)  # ``act`` checked the state
        return int(moves[R.randint(self.rng, len(moves))])
