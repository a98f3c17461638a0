"""Tune the LOA evaluation weights by self-play: logistic regression on game results (Texel's method).

    python examples/tune_loa.py --games 600 --rounds 2 --depth 2 --check-games 200 --seed 0

The evaluation is linear in the feature differences ``d`` (own minus opponent's, from the side to
move), so the question "which weights make the evaluation predict who wins" is a logistic
regression: ``P(side to move wins) = sigmoid(b . d + b0)``. Each round

1. plays ``games`` self-play games with alpha-beta at ``depth`` using the current weights, each
   from its own opening of ``opening`` random plies (both colours from every opening);
2. labels every position after the opening with the game's result for the side to move (win 1,
   draw 1/2, loss 0) and fits ``b`` by Newton's method with a small L2 penalty on all positions
   collected so far;
3. rescales ``b`` to the L1 norm of the starting weights (alpha-beta compares values, so only
   the direction matters; the tempo bonus is a constant at a fixed depth and is left alone).

Finally the tuned weights play the starting weights, ``check_games`` games at ``check_depth``
from fresh openings, colours alternated; the script prints the score with its standard error.
Adopt the weights (``WEIGHTS`` in ``envs/loa/evaluation.py``) only if score - 2 SE > 0.5, and
record the run in ``docs/loa_weights.md``. One-coordinate match searches were tried first and
rejected: 40-game matches have a standard error near 0.08, so their accept/reject decisions
were mostly noise, while every position of every game informs the regression.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import agents
import envs
from envs.loa import evaluation as loa

RIDGE = 1e-3  # L2 penalty per position: keeps collinear features from wandering


def openings(game, count, plies, rng):
    """``count`` move lists of ``plies`` random moves that leave the game running."""
    from agents.openings import random_opening

    return [list(random_opening(game, rng, plies, plies)) for _ in range(count)]


def play(game, players, opening):
    """Play from ``opening``; return (positions after the opening, Black's result in [0, 1])."""
    s = game.initial_state()
    for a in opening:
        s = game.apply(s, a)
    seen = []
    while not game.is_terminal(s):
        seen.append(s)
        s = game.apply(s, players[game.current_player(s)].act(game, s))
    return seen, (game.returns(s)[0] + 1) / 2


def differences(game, s) -> np.ndarray:
    """Feature differences (own - opponent's) from the view of the side to move."""
    me = game.current_player(s)
    mine, theirs = np.empty(7), np.empty(7)
    loa.features(s, me, mine)
    loa.features(s, 1 - me, theirs)
    return mine - theirs


def self_play(game, weights, games, depth, opening_plies, rng):
    """Positions (feature differences) and labels from ``games`` games of ``weights`` vs itself."""
    rows, labels = [], []
    for opening in openings(game, games // 2, opening_plies, rng):
        for _ in range(2):  # each opening twice
            seeds = rng.integers(2**31, size=2)
            players = [agents.make("alphabeta", depth=depth, weights=weights, seed=int(x)) for x in seeds]
            seen, black = play(game, players, opening)
            for s in seen:
                rows.append(differences(game, s))
                labels.append(black if game.current_player(s) == 0 else 1 - black)
    return np.array(rows), np.array(labels)


def fit(x, y, iterations=30):
    """Ridge-penalised logistic regression by Newton's method; returns (b, b0)."""
    n, k = x.shape
    xa = np.hstack([x, np.ones((n, 1))])
    beta = np.zeros(k + 1)
    penalty = RIDGE * n * np.eye(k + 1)
    penalty[k, k] = 0.0  # no penalty on the intercept
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-xa @ beta))
        grad = xa.T @ (p - y) + penalty @ beta
        hess = (xa * (p * (1 - p))[:, None]).T @ xa + penalty
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return beta[:k], beta[k]


def log_loss(x, y, b, b0):
    p = np.clip(1 / (1 + np.exp(-(x @ b + b0))), 1e-9, 1 - 1e-9)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())


def match(game, a_weights, b_weights, games, depth, opening_plies, rng):
    """Score of ``a_weights`` against ``b_weights`` (mean result, standard error)."""
    scores = []
    for opening in openings(game, games // 2, opening_plies, rng):
        seeds = [int(x) for x in rng.integers(2**31, size=2)]
        a = agents.make("alphabeta", depth=depth, weights=a_weights, seed=seeds[0])
        b = agents.make("alphabeta", depth=depth, weights=b_weights, seed=seeds[1])
        scores.append(play(game, [a, b], opening)[1])
        scores.append(1 - play(game, [b, a], opening)[1])
    s = np.array(scores)
    return float(s.mean()), float(s.std(ddof=1) / math.sqrt(len(s)))


def tune(games, rounds, depth, opening_plies, seed, weights=None):
    game = envs.make_game("loa", max_moves=300)
    rng = np.random.default_rng(seed)
    start = np.array(loa.WEIGHTS if weights is None else weights, dtype=np.float64)
    current = start.copy()
    xs, ys = [], []
    for r in range(rounds):
        t = time.perf_counter()
        x, y = self_play(game, current, games, depth, opening_plies, rng)
        xs.append(x)
        ys.append(y)
        x_all, y_all = np.vstack(xs), np.concatenate(ys)
        b, b0 = fit(x_all, y_all)
        before = fit_scale(x_all, y_all, current)
        current = b * np.abs(start).sum() / np.abs(b).sum()
        print(
            f"round {r}: {len(y)} new positions ({len(y_all)} in all, {time.perf_counter() - t:.0f} s); "
            f"log-loss with the previous weights {before:.4f}, fitted {log_loss(x_all, y_all, b, b0):.4f}; "
            f"intercept {b0:+.3f}",
            flush=True,
        )
        print("  weights:", ", ".join(f"{name}={w:.3g}" for name, w in zip(loa.FEATURES, current)), flush=True)
    return start, current


def fit_scale(x, y, weights):
    """Log-loss of the best logistic model along the direction ``weights`` (scale and intercept
    fitted): how well the old weights predict results, for comparison with the full fit."""
    z = x @ weights
    b, b0 = fit(z[:, None], y)
    return log_loss(z[:, None], y, b, b0)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600, help="self-play games per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--depth", type=int, default=2, help="alpha-beta depth of the self-play games")
    parser.add_argument("--opening", type=int, default=4, help="random plies before each game")
    parser.add_argument("--check-games", type=int, default=200, help="games of tuned vs starting weights")
    parser.add_argument("--check-depth", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start, tuned = tune(args.games, args.rounds, args.depth, args.opening, args.seed)
    game = envs.make_game("loa", max_moves=300)
    score, se = match(
        game, tuned, start, args.check_games, args.check_depth, args.opening, np.random.default_rng(args.seed + 1)
    )
    verdict = "beats" if score - 2 * se > 0.5 else "does not beat"
    print(
        f"tuned vs starting weights, {args.check_games} games at depth {args.check_depth}: "
        f"{score:.3f} ± {se:.3f} ({verdict} them)"
    )
    print("WEIGHTS = np.array([" + ", ".join(f"{w:.3g}" for w in tuned) + "], dtype=np.float64)")


if __name__ == "__main__":
    main()
