"""Plain depth-limited minimax: the reference every faster search is tested against.

A preorder traversal in negamax form: at each node the terminal test comes first (a
finished game scores ``INF - ply`` for a win, so faster wins are preferred), then the repetition
test (a position repeating one on the current path is a draw), the static evaluation only at the
depth limit, and otherwise the best child value. No pruning, no ordering, no table: what it
returns is the definition of the depth-``d`` value that alpha-beta must reproduce. Moves are
those alpha-beta searches (``agents.evaluation.filter_moves``), and the root always returns a
move, even when every move loses (the first of the best, in ascending action order).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from envs import Game
from envs.core import kernel as C
from envs.core.generic import per_game
from envs.core.specialise import compiled

from . import evaluation as E
from .alphabeta import MAX_PLY, SearchAgent, _flag, repeated
from .base import Resigner, check_option, register

G = None  # the game's hook namespace, bound per game by envs.core.specialise


@per_game
def _leaf(p, w, states, ply, depth):
    """Value of ``states[ply]`` if it needs no children (else the sentinel ``-INF - 2``)."""
    s = states[ply]
    if s[C.H_STATUS] != C.ONGOING:
        return E.terminal_score(s, ply)
    if ply > 0 and repeated(states, ply):
        return 0
    if depth == ply:
        return E.evaluate(s, p, w)
    return -E.INF - 2


@per_game
def minimax(p, w, states, moves, depth, stats):
    """Negamax value of ``states[0]`` searched ``depth`` plies; ``stats[0]`` counts nodes and
    ``stats[1]`` receives the best root move. Iterative over the ply stack (numba's on-disk
    cache breaks recursive functions): ``best[k]`` is node k's value so far, ``index[k]`` its
    next move."""
    best = np.zeros(depth + 1, dtype=np.int64)
    index = np.zeros(depth + 1, dtype=np.int64)
    count = np.zeros(depth + 1, dtype=np.int64)
    stats[0] = 1
    v = _leaf(p, w, states, 0, depth)
    if v != -E.INF - 2:
        stats[1] = -1
        return v
    count[0] = G.filter_moves(states[0], p, moves[0], G.legal_actions(states[0], p, moves[0]))
    best[0] = -E.INF - 1
    stats[1] = moves[0, 0]
    ply = 0
    while True:
        if index[ply] == count[ply]:  # node finished: hand its value to the parent
            if ply == 0:
                return best[0]
            v = best[ply]
            ply -= 1
        else:
            child = states[ply + 1]
            C.copy(child, states[ply], child.shape[0])
            G.apply(child, p, moves[ply, index[ply]])
            index[ply] += 1
            stats[0] += 1
            v = _leaf(p, w, states, ply + 1, depth)
            if v == -E.INF - 2:  # an inner node: descend
                ply += 1
                count[ply] = G.filter_moves(child, p, moves[ply], G.legal_actions(child, p, moves[ply]))
                index[ply] = 0
                best[ply] = -E.INF - 1
                continue
        if states[ply + 1, C.H_PLAYER] != states[ply, C.H_PLAYER]:
            v = -v
        if v > best[ply]:
            best[ply] = v
            if ply == 0:
                stats[1] = moves[0, index[0] - 1]


@register("minimax")
class MinimaxAgent(SearchAgent):
    """Full-width minimax to a fixed ``depth`` (plies) with the game's static evaluation;
    ``resign`` (default True) gives up a game its search proves lost, as alpha-beta does."""

    summary = "full-width minimax to a fixed depth with the game's evaluation (the reference search)"

    def __init__(
        self, depth: int = 2, weights: ArrayLike | None = None, resign: bool = True, seed: int | None = None
    ) -> None:
        super().__init__(seed=seed)
        self.resign = _flag("resign", resign)
        self._resigner = Resigner(1)
        self.depth = check_option("depth", depth, int, 1, MAX_PLY)
        self.weights = None if weights is None else E.check_weights(weights)

    def warm_up(self, game: Game) -> None:
        if self.applies_to(game):
            MinimaxAgent(depth=1, weights=self.weights, seed=0).act(game, game.initial_state(seed=0))

    def settings(self, game: Game) -> dict[str, Any]:
        """``weights``: the ones given, else the game's default evaluation weights."""
        weights = E.weights_for(self.weights, game)
        return {**super().settings(game), "weights": E.describe(weights)}

    def _act(self, game: Game, state: np.ndarray) -> int:
        p = game.kernel_params
        w = E.weights_for(self.weights, game)
        states, moves, _ = self._stack(game, self.depth)
        states[0] = state
        stats = np.zeros(2, dtype=np.int64)
        start = time.perf_counter()
        value = compiled(__name__, game.spec).minimax(p, w, states, moves, self.depth, stats)
        self._judge(game, state, value < -E.WIN_BOUND, f"a forced loss in {E.INF + int(value)} plies")
        self.last_stats = {
            "nodes": int(stats[0]),
            "depth": self.depth,
            "seconds": time.perf_counter() - start,
            "score": int(value),
        }
        return int(stats[1])
