"""The greedy agent: one ply of lookahead plus a per-game tactical score, on any board size.

Every legal move is played on a scratch copy; a move that wins at once is taken, one that loses
at once (or draws, when anything else is available) is avoided, and the rest are ranked by the
game's ``tactical`` score (``agents.evaluation``): Othello corners/edges/mobility, Gomoku threats
made and blocked, Go captures/atari/liberties/eyes, LOA the Winands evaluation, Calculation the
waste-pile rule. Ties are broken uniformly at random from the agent's seeded generator
(reservoir sampling), so the loop stays in compiled code.
"""

from __future__ import annotations

import numpy as np

from envs import _common as C
from envs._specialise import compiled, per_game

from . import evaluation as E
from .base import Agent, register

G = None  # the game's hook namespace, bound per game by envs._specialise

WIN, DRAW, LOSS = 1e18, -1e17, -1e18


@per_game
def greedy_move(s, p, w, rng, moves, child):
    """The best move of ``s`` by one-ply outcome, then tactical score, ties at random."""
    n = G.legal_actions(s, p, moves)
    mover = s[C.H_PLAYER]
    best = -np.inf
    choice = moves[0]
    ties = 0
    for i in range(n):
        a = moves[i]
        child[:] = s
        G.apply(child, p, a)
        if child[C.H_STATUS] != C.ONGOING:
            winner = child[C.H_WINNER]
            score = WIN if winner == mover else (DRAW if winner == C.NO_WINNER else LOSS)
        else:
            score = G.tactical(s, child, p, a, w)
        if score > best:
            best = score
            choice = a
            ties = 1
        elif score == best:
            ties += 1
            if C.randint(rng, ties) == 0:
                choice = a
    return choice


@register("greedy")
class GreedyAgent(Agent):
    """One-ply greedy player (see the module docstring); ``weights`` override the game's defaults."""

    def __init__(self, weights=None, seed=None):
        super().__init__(seed=seed)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)

    def warm_up(self, game):
        self.act(game, game.initial_state(seed=0))

    def _act(self, game, state):
        w = self.weights if self.weights is not None else E.default_weights(game)
        moves = np.empty(game.num_actions, dtype=np.int64)
        return compiled(__name__, game.spec).greedy_move(state, game.kernel_params, w, self.rng, moves,
                                                         np.empty_like(state))
