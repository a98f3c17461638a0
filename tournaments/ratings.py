"""Bradley–Terry ratings on the Elo scale, with 95% intervals (numpy only).

Model: P(i beats j) = 1 / (1 + 10**((R_j - R_i) / 400)); a draw counts half a win for each side.
Fitted by Newton's method on the log-likelihood plus a weak Gaussian prior on the natural-scale
strengths (standard deviation ``PRIOR_SD``): the prior keeps ratings finite when an agent wins or
loses every game, and makes the Hessian invertible, whose inverse gives the standard errors.
Ratings are centred on a mean of 0.
"""

from __future__ import annotations

import numpy as np

ELO = 400.0 / np.log(10.0)
PRIOR_SD = 5.0  # natural units (about 2,170 Elo): weak, only bounds perfect scores


def bradley_terry(scores, games, iterations=100):
    """Ratings from ``scores[i, j]`` (points i took from j: wins + draws / 2) and ``games[i, j]``.

    Returns ``(elo, half_width)``: arrays of ratings and 95% interval half-widths, in Elo.
    """
    scores = np.asarray(scores, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    n = scores.shape[0]
    lam = 1.0 / PRIOR_SD**2
    theta = np.zeros(n)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = (scores - games * p).sum(axis=1) - lam * theta
        w = games * p * (1.0 - p)
        hess = w - np.diag(w.sum(axis=1)) - lam * np.eye(n)
        step = np.linalg.solve(hess, -grad)
        theta += step
        if np.abs(step).max() < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = games * p * (1.0 - p)
    cov = np.linalg.inv(np.diag(w.sum(axis=1)) - w + lam * np.eye(n))
    centre = np.full(n, 1.0 / n)  # the variance of theta_i - mean(theta)
    proj = np.eye(n) - centre[None, :]
    se = np.sqrt(np.maximum(np.diag(proj @ cov @ proj.T), 0.0))
    return ELO * (theta - theta.mean()), 1.96 * ELO * se
