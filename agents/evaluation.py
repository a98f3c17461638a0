"""What search agents share about scores, over the evaluation hooks a game provides.

A game's evaluation lives with the game (its spec's ``evaluation`` module, e.g.
``envs/go/evaluation.py``) and is reached through the hooks ``evaluate``, ``hint``, ``tactical``,
``live_length``, ``filter_moves`` and ``playout`` (``envs.registry.HOOKS``); a game without one
gets the evaluation that knows nothing (``envs.core.hooks``). Scores are integers so that
transposition-table entries compare exactly; a forced win at ply ``k`` scores ``INF - k``, and a
static evaluation is clamped inside ``WIN_BOUND`` so it can never pass for one.
"""

import hashlib

import numpy as np
from numba import njit

from envs.core import kernel as C
from envs.core import shown
from envs.core.generic import per_game

from .base import AgentError

G = None  # the game's hook namespace, bound per game by envs.core.specialise

INF = 1_000_000
WIN_BOUND = INF - 1_000  # scores beyond this are forced wins or losses


MAX_WEIGHT = 1e6  # |weight| of an evaluation: far above any tuned one (at most 100), and far
# enough below the int64 a score is summed in that no weighted feature can overflow it


def check_weights(weights) -> np.ndarray:
    """Evaluation weights given as an agent option, as the flat float64 array the compiled
    evaluation reads; an ``AgentError`` naming them unless they are a flat list of finite numbers
    within ``MAX_WEIGHT``. Checked when the agent is built: text (``weights=abc``), a nested list
    or NaN would otherwise fail on every move, and an infinite or huge weight would overflow the
    integer score and pass for a forced win."""
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        w = None
    if w is None or w.ndim != 1 or not np.isfinite(w).all() or (np.abs(w) > MAX_WEIGHT).any():
        raise AgentError(
            f"weights={shown(weights)}: expected a flat list of finite numbers from "
            f"{-MAX_WEIGHT:g} to {MAX_WEIGHT:g}, e.g. weights=[1,8,4,10,3,4]"
        )
    return w


def weights_for(weights, game) -> np.ndarray:
    """The weights an agent plays ``game`` with: its own (``check_weights``), whose count must be
    one the game's evaluation takes, else the game's defaults."""
    if weights is None:
        return default_weights(game)
    if len(weights) not in game.spec.weight_counts(game):
        counts = " or ".join(map(str, game.spec.weight_counts(game)))
        raise AgentError(f"weights={describe(weights)}: {game.name} takes {counts} evaluation weights")
    return weights


def default_weights(game) -> np.ndarray:
    """The default evaluation weights of ``game`` (empty without an evaluation): a fresh copy
    of the evaluation's ``WEIGHTS``, or the table its ``weights_for`` picks for the game's
    parameters (shared, not to be modified)."""
    return game.spec.default_weights(game)


def describe(weights) -> list[float] | str:
    """Weights as settings and records show them: the numbers, or for a table a digest."""
    if len(weights) <= 64:
        return [round(float(x), 6) for x in weights]
    digest = hashlib.sha256(np.ascontiguousarray(weights, dtype=np.float64).tobytes()).hexdigest()
    return f"table of {len(weights)} (sha256 {digest[:12]})"


@njit(cache=True)
def terminal_score(s, ply):
    """Value of a finished game for its side to move: INF - ply won, -(INF - ply) lost, 0 drawn."""
    w = s[C.H_WINNER]
    if w == C.NO_WINNER:
        return 0
    return INF - ply if w == s[C.H_PLAYER] else ply - INF


@per_game
def evaluate(s, p, w):
    """The game's static value of ``s`` for its side to move, clamped inside ``WIN_BOUND``."""
    v = G.evaluate(s, p, w)
    return max(-WIN_BOUND + 1, min(WIN_BOUND - 1, v))
