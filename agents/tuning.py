"""Per-game defaults of the search agents: what an agent plays a game with when its spec leaves
an option out.

A game's spec says what the game *is* (rules, parameters, notation, observation, the hooks of its
kernel and evaluation, the names of the playout policies its evaluation offers); how an agent
should search it is the agent's business, measured per game and declared here with ``tune``:

    agents.tune("mcts", "connect_four", threshold=3, playout="light")

An option given in the spec (``mcts:rave=0``) always wins; a game nobody tuned gets the agent's
own defaults. Games registered later (outside the package) are tuned the same way, by name, once
their package is imported.

The keys each agent reads:

``mcts``
    ``playout`` (a policy name of the game's evaluation), ``rave`` (RAVE's equivalence parameter
    k; 0: plain UCT), ``c`` (UCB's exploration constant), ``threshold`` (playouts a leaf gets
    before it is expanded), ``filter_moves`` (True: the tree keeps only the moves of the game's
    ``filter_moves`` hook) and
    ``time_profile`` (on a clock: ``((progress, weight), ...)``, progress = plies played /
    num_actions from 0 ascending, weight = a move's share of the average time, linear in
    between, flat past the last point; none: every move the same time, no early stop).
``alphabeta``
    ``seconds`` (its clock per move when given neither depth nor time: iterative deepening; 0:
    depth 4, no clock) and ``endgame`` (the limit passed to the game's ``solve`` hook on that
    clock, Othello's empty squares; 0: no exact solving).
"""

from __future__ import annotations

import math
from typing import Any, Literal

from envs.core.checks import check_int, shown

from .base import AgentError

KEYS = {
    "mcts": ("playout", "rave", "threshold", "time_profile", "c", "filter_moves", "progress_reward"),
    "alphabeta": ("seconds", "endgame"),
}
_TUNING: dict[tuple[str, str], dict] = {}


def tune(agent: Literal["mcts", "alphabeta"], game: str, **values: object) -> None:
    """Declare ``agent``'s defaults for the game named ``game`` (replacing earlier ones for the
    same keys). The values are checked here, so a bad tuning fails where it is written."""
    if agent not in KEYS:
        raise AgentError(f"tune({shown(agent)}, ...): agents with per-game defaults are {', '.join(KEYS)}")
    unknown = sorted(set(values) - set(KEYS[agent]))
    if unknown:
        raise AgentError(
            f"tune({agent!r}, {game!r}): unknown key {unknown[0]!r}: expected some of {', '.join(KEYS[agent])}"
        )
    for key, value in values.items():
        _check(agent, game, key, value)
    _TUNING.setdefault((agent, game), {}).update(values)


def tuned(agent: str, game: str, key: str, default: Any) -> Any:
    """``agent``'s default ``key`` for the game named ``game``, or ``default`` if none was tuned."""
    return _TUNING.get((agent, game), {}).get(key, default)


def _check(agent, game, key, value) -> None:
    where = f"tune({agent!r}, {game!r}): {key}={shown(value)}"
    if key == "time_profile":
        _check_time_profile(where, value)
    elif key == "filter_moves":
        if not isinstance(value, bool):
            raise AgentError(f"{where}: expected True or False")
    elif key == "playout":
        if not isinstance(value, str):
            raise AgentError(f"{where}: expected a playout policy's name")
    elif key in ("threshold", "endgame"):
        check_int(key, value, 1 if key == "threshold" else 0, 10**6)
    elif key == "progress_reward":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise AgentError(f"{where}: expected a number from 0 to 1")
    elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise AgentError(f"{where}: expected a finite number >= 0")


def _check_time_profile(where, profile) -> None:
    """A time profile is (progress, weight) pairs, progress ascending from 0, weights positive."""
    try:
        points = [(float(x), float(w)) for x, w in profile]
    except (TypeError, ValueError):
        raise AgentError(f"{where}: expected (progress, weight) pairs") from None
    xs = [x for x, _ in points]
    if points and (
        xs[0] != 0.0
        or any(b <= a for a, b in zip(xs, xs[1:]))
        or not all(math.isfinite(x) for x in xs)
        or not all(math.isfinite(w) and w > 0 for _, w in points)
    ):
        raise AgentError(f"{where}: progress must rise from 0 and weights be positive")


# -- the built-in games ---------------------------------------------------------------------------

# Go: pattern playouts, RAVE from the tree's and the playouts' moves, and on a clock the longest
# thinking in the middle game, where 9x9 games against GNU Go are decided (by plies / points: the
# opening's first moves are few and the endgame's are small).
tune(
    "mcts",
    "go",
    playout="pattern",
    rave=1000.0,
    time_profile=((0.0, 0.6), (0.1, 1.2), (0.5, 1.2), (0.8, 0.6), (1.2, 0.5)),
)
# Calculation: the greedy rule's playouts with the unwinding check of the pile it picks (200 deals:
# 58% won against 42% without the check at 1,000 playouts per move, 83.5% against 79% at 10,000,
# at about 5x the time per move), and a leaf expanded at its first playout: with greedy playouts
# at 1,000, 10,000 and 100,000 playouts per move on the same deals it won more than the study's
# threshold 5; and a tree that tries only the moves that play a card up where a card fits (the
# game's ``filter_moves``): 136 deals of 200 won instead of 116 at 1,000 playouts per move, 182
# instead of 167 at 10,000, 92 of 100 at 100,000 (docs/patience.md); and a lost playout worth a
# fifth of the share of cards it got up (``progress_reward``): on deals 0..199 at 1,000 playouts
# 146 won against 136 (0.5 screened at 146 of 200 against 148 for 0.2), at 10,000 182 against
# 182 (13 deals won only by each), and 95 of 100 at 100,000 against 92.
tune("mcts", "calculation", playout="checked", threshold=1, filter_moves=True, progress_reward=0.2)
# Othello: 1 s a move by default, with the exact endgame solver from as many empty squares as
# the move's time allows by the solver's measured speed (its time rule, ``envs/othello/endgame.py``:
# 20 at 1 s a move, 23 at 10 s), never above 30.
tune("alphabeta", "othello", seconds=1.0, endgame=30)
# Othello MCTS: no playouts, the hand-written evaluation's value at the leaves, and less
# exploration. At 1,000 simulations against greedy (which plays the pattern table on 8x8), 8x8,
# 100 games on each of three sets of openings (seeds 0, 1, 2):
#   random playouts, c = 0.5 (the earlier default): 0.305 (seed 0)
#   the value (scale 300), c = 0.5 / 0.3 / 0.2 / 0.1 / 0.05 / 0: 0.485 / 0.595 / 0.67 / 0.725 / 0.605 / 0.70
#   the value, c = 0.1, scale 150 / 300 / 600 / 1000:  0.465 / 0.725 / 0.73, 0.785, 0.80 / -, 0.81, 0.78
# and on 6x6 / 10x10 (60 games): 0.85 / 0.95, against 0.75 / 0.40 with random playouts.
tune("mcts", "othello", playout="evaluation", c=0.1)
# Gomoku: no playouts, the evaluation's value at the leaves (``envs/gomoku/evaluation.py``), RAVE
# from the tree's moves with the game's priors (fives and blocks decide, far points start lost), a
# leaf expanded at its first visit, MCTS-Solver in the tree. At 1,000 simulations against greedy,
# 100 games on each of two sets of openings (seeds 1 and 2), 15x15 / 9x9:
#   threat-aware playouts, RAVE k = 500 (the earlier default): 0.84, 0.74 / -
#   the value, plain UCT (c = 0.5):                            0.97, 0.93 / 0.85 (c 0.3: 0.82, 0.8: 0.87)
#   the value, RAVE k = 100:                                   0.93, 0.95 / 0.965, 0.99
#   the value, RAVE k = 300:                                   0.93, 0.92 / 0.94, 0.96
#   the value, RAVE k = 1000:                                  0.90, 0.88 / 0.97
tune("mcts", "gomoku", playout="evaluation", rave=100.0, threshold=1)
# LOA: MC-LOA's playouts (weighted moves, stopped by the evaluation), MCTS-Solver in the tree,
# and less exploration than the study's 0.5: at 1,000 simulations against greedy, c = 0.2 scored
# 36/40 and 33/40 on two sets of openings where c = 0.5 scored 30/40 on the first. New nodes
# start from the evaluation's priors (``envs/loa/evaluation.py``): against greedy, 400 games
# each, 0.873 -> 0.925 (seed 1) and 0.858 -> 0.931 (seed 2); c = 0.1 and 0.3 without them
# 0.882 and 0.811.
tune("mcts", "loa", playout="evaluation", c=0.2)
