"""Bradley–Terry ratings on the Elo scale, with 95% intervals, anchors and the posterior they imply
(numpy only).

Model: P(i beats j) = 1 / (1 + 10**((R_j - R_i) / 400)); a draw counts half a win for each side.
Fitted by Newton's method on the log-likelihood plus a weak Gaussian prior on the natural-scale
strengths (standard deviation ``PRIOR_SD``): the prior keeps ratings finite when an agent wins or
loses every game, and makes the Hessian invertible, whose inverse is the covariance of the
ratings (the Laplace approximation of their posterior, as BayesElo uses it).

The scale: without anchors the ratings are centred on a mean of 0. One anchor (an agent fixed at
a given Elo, as Ordo's ``-a``/``-A`` do) shifts that fit so the anchor sits at its Elo: the
likelihood depends only on differences, so the other ratings keep their distances, and their
intervals become intervals of their difference from the anchor. Several anchors (Ordo's anchor
file) are fixed at their Elo together and the others fitted around them, the prior then centred
on the anchors' mean.

From the covariance come the likelihood of superiority ``Fit.los`` (the probability that i is
stronger than j, given the games) and the probability that each agent is the strongest
(``Fit.p_best``: seeded draws from the posterior).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from envs.core import ParameterError

ELO = 400.0 / np.log(10.0)
PRIOR_SD = 5.0  # natural units (about 2,170 Elo): weak, only bounds perfect scores
Z95 = 1.96  # the 95% intervals' normal quantile, as printed since the first version
SAMPLES = 20_000  # posterior draws behind ``p_best``: a Monte Carlo standard error below 0.4 percentage points


@dataclass(frozen=True)
class Fit:
    """A Bradley–Terry fit: ``elo[i]`` and the covariance ``cov[i, j]`` of the ratings (Elo²;
    anchored ratings have variance 0)."""

    elo: np.ndarray
    cov: np.ndarray

    @property
    def half(self) -> np.ndarray:
        """95% interval half-widths, in Elo."""
        return Z95 * np.sqrt(np.maximum(np.diag(self.cov), 0.0))

    def los(self) -> np.ndarray:
        """``[i, j]``: the likelihood of superiority, P(i is stronger than j | the games), from the
        normal approximation of the posterior of R_i - R_j; 0.5 on the diagonal."""
        var = np.diag(self.cov)
        sd = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * self.cov, 0.0))
        diff = self.elo[:, None] - self.elo[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            # no spread (both anchored): the order is certain, or, at equal ratings, a coin toss
            z = np.where(sd > 0, diff / np.where(sd > 0, sd, 1.0), np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
        erf = np.vectorize(math.erf, otypes=[float])
        out = 0.5 * (1.0 + erf(np.where(np.isfinite(z), z, np.sign(z) * 40.0) / math.sqrt(2.0)))
        np.fill_diagonal(out, 0.5)
        return out

    def p_best(self, seed: int = 0, samples: int = SAMPLES) -> np.ndarray:
        """P(i is the strongest | the games): the share of ``samples`` seeded draws of the ratings
        from their posterior (normal, ``elo`` and ``cov``) in which i has the highest rating."""
        n = len(self.elo)
        if n == 1:
            return np.ones(1)
        w, v = np.linalg.eigh((self.cov + self.cov.T) / 2)
        root = v * np.sqrt(np.maximum(w, 0.0))
        rng = np.random.default_rng(seed)
        draws = self.elo + rng.standard_normal((samples, n)) @ root.T
        return np.bincount(np.argmax(draws, axis=1), minlength=n) / samples


def _log_posterior(scores, games, theta, mean, lam) -> float:
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(scores > 0, scores * np.log(p), 0.0)
    return float(terms.sum() - 0.5 * lam * ((theta - mean) ** 2).sum())


def _newton(scores, games, theta, free, mean, lam, iterations):
    """Maximise the log-likelihood plus the prior N(mean, 1/lam) over ``theta[free]`` (the other
    entries fixed); returns theta and the Hessian of the negative log-posterior. A step that
    would lower the posterior is halved until it does not (anchors far from where the games put
    their agents start Newton far from the optimum, where a full step overshoots)."""
    for _ in range(iterations if len(free) else 0):
        p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
        grad = (scores - games * p).sum(axis=1) - lam * (theta - mean)
        w = games * p * (1.0 - p)
        hess = np.diag(w.sum(axis=1)) - w + lam * np.eye(len(theta))
        step = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        before = _log_posterior(scores, games, theta, mean, lam)
        for _ in range(30):
            trial = theta.copy()
            trial[free] += step
            if _log_posterior(scores, games, trial, mean, lam) >= before - 1e-12:
                break
            step = step / 2
        theta = trial
        if np.abs(step).max() < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(theta[None, :] - theta[:, None]))
    w = games * p * (1.0 - p)
    return theta, np.diag(w.sum(axis=1)) - w + lam * np.eye(len(theta))


def fit(scores: ArrayLike, games: ArrayLike, anchors: Mapping[int, float] | None = None, iterations: int = 100) -> Fit:
    """Ratings from ``scores[i, j]`` (points i took from j: wins + draws / 2) and ``games[i, j]``;
    ``anchors``: ``{player index: Elo}`` (see the module docstring), none: mean 0."""
    scores = np.asarray(scores, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    n = scores.shape[0]
    anchors = dict(anchors or {})
    for i, value in anchors.items():
        if not 0 <= i < n or not math.isfinite(value):
            raise ParameterError(f"anchor {i}={value!r}: expected a player from 0 to {n - 1} and a finite Elo")
    lam = 1.0 / PRIOR_SD**2
    if len(anchors) <= 1:
        theta, hess = _newton(scores, games, np.zeros(n), np.arange(n), 0.0, lam, iterations)
        cov = np.linalg.inv(hess)
        if anchors:  # the anchor's Elo, the others their difference from it
            ((a, value),) = anchors.items()
            move = np.eye(n)
            move[:, a] -= 1.0
            return Fit(ELO * (theta - theta[a]) + value, ELO**2 * (move @ cov @ move.T))
        proj = np.eye(n) - np.full((n, n), 1.0 / n)  # the covariance of theta - mean(theta)
        return Fit(ELO * (theta - theta.mean()), ELO**2 * (proj @ cov @ proj.T))
    fixed = np.array(sorted(anchors))
    free = np.array([i for i in range(n) if i not in anchors], dtype=np.int64)
    theta = np.zeros(n)
    theta[fixed] = [anchors[i] / ELO for i in fixed]
    theta, hess = _newton(scores, games, theta, free, theta[fixed].mean(), lam, iterations)
    cov = np.zeros((n, n))
    if free.size:
        cov[np.ix_(free, free)] = np.linalg.inv(hess[np.ix_(free, free)])
    return Fit(ELO * theta, ELO**2 * cov)


def bradley_terry(scores: ArrayLike, games: ArrayLike, iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Ratings from ``scores[i, j]`` (points i took from j: wins + draws / 2) and ``games[i, j]``.

    Returns ``(elo, half_width)``: arrays of ratings (mean 0) and 95% interval half-widths, in Elo.
    """
    result = fit(scores, games, iterations=iterations)
    return result.elo, result.half
