"""Bradley–Terry ratings on the Elo scale, with 95% intervals, anchors and the posterior they imply
(numpy; numba for the posterior draws).

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
(``Fit.p_best``: seeded draws from the posterior's normal approximation).

The rating table's model (``fit_model``, ``Model``) adds what Ordo and BayesElo fit: a first-move
advantage (Ordo's white advantage ``-W``; here Black's, as Black moves first in every game here)
and the Rao–Kupper draw model (BayesElo's drawelo; ``ModelFit.draw_rate`` is the draw rate
between equal agents it implies, the figure Ordo's ``-D`` fits), both with the same weak prior,
reported in Elo with 95% margins. Its
LOS and P(best) come from the exact posterior, not its normal approximation, which is symmetric
where the likelihood is not: an agent that lost every game has a likelihood flat towards -inf and
steep above, and the normal law put several percent of P(best) on such an agent where the exact
posterior puts none. ``Model.sample`` draws from the exact posterior by adaptive importance
sampling (a multivariate t proposal refitted to a pilot's weighted moments; the log-density in
numba), deterministic from a seed; ``Posterior`` turns the weighted draws into the LOS matrix and
P(best).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

from envs.core import ParameterError
from envs.core import rng as R

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
        rng = R.generator(seed)
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


# -- the colour and draw model -------------------------------------------------------------------
ADVANTAGE, DRAW = "first-move advantage", "draw"
PROPOSAL_DF = 8.0  # the importance sampler's multivariate t: tails heavier than any log-concave posterior's
CHUNK = 8192  # posterior draws evaluated at once (bounds the memory of a draws x cells array)
MAX_BATCHES = 4  # batches of ``samples`` draws at most, drawn until ``MIN_EFFECTIVE`` are effective
MIN_EFFECTIVE = 5_000  # effective draws: a Monte Carlo standard error of at most 0.7 percentage points


def _log_sigmoid(z):
    return -np.logaddexp(0.0, -z)


def _log_draw(x, delta):
    """log P(draw) = log(F(delta - x) - F(-delta - x)), F logistic, computed without cancellation;
    -inf where ``delta`` <= 0 (no draw is possible there)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        upper, lower = _log_sigmoid(delta - x), _log_sigmoid(-delta - x)
        out = upper + np.log1p(-np.exp(lower - upper))
    return np.where(delta > 0, out, -np.inf)


@njit(cache=True)
def _log_sigmoid_scalar(z):
    return -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))


@njit(cache=True)
def _log_posterior_kernel(p, first, second, wins, draws, losses, n, advantage, draw, mean):
    """``Model.log_posterior`` of each row of ``p``: one pass over the cells per draw (the
    importance sampler evaluates tens of thousands of draws)."""
    size = p.shape[1]
    out = np.empty(p.shape[0])
    lam = 1.0 / PRIOR_SD**2
    for s in range(p.shape[0]):
        delta = p[s, size - 1] if draw else 0.0
        if draw and delta <= 0:
            out[s] = -np.inf
            continue
        eta = p[s, n] if advantage else 0.0
        total = 0.0
        for k in range(first.shape[0]):
            x = p[s, first[k]] - p[s, second[k]] + eta
            upper = _log_sigmoid_scalar(delta - x)  # log F(delta - x)
            lower = _log_sigmoid_scalar(-delta - x)  # log F(-x - delta): the second mover wins
            # log F(x - delta) = (x - delta) + log F(delta - x): the first mover wins
            total += wins[k] * (x - delta + upper) + losses[k] * lower
            if draws[k] > 0:  # log(F(delta - x) - F(-delta - x)), without cancellation
                total += draws[k] * (upper + math.log1p(-math.exp(lower - upper)))
        prior = 0.0
        for j in range(size):
            prior += (p[s, j] - mean[j]) ** 2
        out[s] = total - 0.5 * lam * prior
    return out


@dataclass(frozen=True)
class Cells:
    """The games as cells: ``first[k]`` moved first against ``second[k]`` and won ``wins[k]``,
    drew ``draws[k]`` and lost ``losses[k]`` of their games (floats: a draw folded into half a win
    for each side when the model has no draw term)."""

    first: np.ndarray
    second: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray


@dataclass(frozen=True)
class Model:
    """Bradley–Terry on the natural scale with Ordo's first-move (white) advantage and the
    Rao–Kupper draw model that BayesElo uses (its ``drawelo``): for the first mover i against j,
    x = theta_i - theta_j + eta and

        P(i wins) = F(x - delta),  P(j wins) = F(-x - delta),  P(draw) = 1 - both,  F logistic.

    Parameters, in this order: the ``n`` strengths theta, then eta (if ``advantage``), then delta
    (if ``draw``). The prior is ``fit``'s: every parameter Gaussian with standard deviation
    ``PRIOR_SD`` (natural units) about ``mean`` (delta's truncated at 0). ``fixed``: anchored
    strengths, not free. Without eta and delta (delta = 0, draws half a win) it is ``fit``'s model.
    The log-posterior is concave (an ordered logit), so Newton's method finds its one mode."""

    n: int
    cells: Cells
    advantage: bool
    draw: bool
    mean: np.ndarray
    fixed: np.ndarray  # bool per parameter

    @property
    def size(self) -> int:
        return self.n + self.advantage + self.draw

    @property
    def free(self) -> np.ndarray:
        return np.flatnonzero(~self.fixed)

    def _x_delta(self, p):
        c = self.cells
        x = p[..., c.first] - p[..., c.second]
        if self.advantage:
            x = x + p[..., self.n, None]
        delta = p[..., self.size - 1, None] if self.draw else np.zeros(p.shape[:-1] + (1,))
        return x, delta

    def log_posterior(self, p: np.ndarray) -> np.ndarray:
        """The log-posterior (up to a constant) of parameter vectors ``p`` (``(..., size)``)."""
        c = self.cells
        p = np.asarray(p, dtype=np.float64)
        flat = np.ascontiguousarray(p.reshape(-1, self.size))
        out = _log_posterior_kernel(
            flat, c.first, c.second, c.wins, c.draws, c.losses, self.n, self.advantage, self.draw, self.mean
        )
        return out.reshape(p.shape[:-1])

    def derivatives(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The gradient and the Hessian of the log-posterior at one parameter vector ``p``: each
        cell's derivatives in (x, delta), carried to the parameters by the linear map x = J p."""
        c = self.cells
        x, delta = self._x_delta(p)
        u, v = np.exp(_log_sigmoid(x - delta)), np.exp(_log_sigmoid(-x - delta))
        g, h = u * (1 - u), v * (1 - v)
        gx = c.wins * (1 - u) - c.losses * (1 - v)
        gd = -c.wins * (1 - u) - c.losses * (1 - v)
        hxx = -c.wins * g - c.losses * h
        hxd = c.wins * g - c.losses * h
        hdd = hxx.copy()
        if self.draw:  # log P(draw) = log D, D = 1 - u - v
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                big_d = np.exp(_log_draw(x, delta))
                g1, h1 = g * (1 - 2 * u), h * (1 - 2 * v)
                dx, dd = (h - g) / big_d, (g + h) / big_d
                drawn = c.draws > 0
                gx = gx + np.where(drawn, c.draws * dx, 0.0)
                gd = gd + np.where(drawn, c.draws * dd, 0.0)
                hxx = hxx + np.where(drawn, c.draws * ((-g1 - h1) / big_d - dx * dx), 0.0)
                hxd = hxd + np.where(drawn, c.draws * ((g1 - h1) / big_d - dx * dd), 0.0)
                hdd = hdd + np.where(drawn, c.draws * ((-g1 - h1) / big_d - dd * dd), 0.0)
        jx = np.zeros((len(c.first), self.size))
        rows = np.arange(len(c.first))
        jx[rows, c.first] += 1.0
        jx[rows, c.second] -= 1.0
        if self.advantage:
            jx[:, self.n] = 1.0
        lam = 1.0 / PRIOR_SD**2
        grad = jx.T @ gx - lam * (p - self.mean)
        hess = (jx.T * hxx) @ jx - lam * np.eye(self.size)
        if self.draw:
            k = self.size - 1
            grad[k] += gd.sum()
            cross = jx.T @ hxd
            hess[:, k] += cross
            hess[k, :] += cross
            hess[k, k] += hdd.sum()
        return grad, hess

    def mode(self, start: np.ndarray, iterations: int = 100) -> tuple[np.ndarray, np.ndarray]:
        """The posterior mode over the free parameters from ``start`` (Newton's method, a step
        halved until it does not lower the posterior) and the negative Hessian there."""
        p, free = start.astype(np.float64).copy(), self.free
        for _ in range(iterations if free.size else 0):
            grad, hess = self.derivatives(p)
            step = np.linalg.solve(-hess[np.ix_(free, free)], grad[free])
            before = self.log_posterior(p)
            for _ in range(60):
                trial = p.copy()
                trial[free] += step
                if self.log_posterior(trial) >= before - 1e-12:
                    break
                step = step / 2
            p = trial
            if np.abs(step).max() < 1e-10:
                break
        return p, -self.derivatives(p)[1]

    def sample(self, mode: np.ndarray, information: np.ndarray, seed: int, samples: int = SAMPLES):
        """Seeded draws of the parameters from the exact posterior by importance sampling: a
        multivariate t proposal (``PROPOSAL_DF`` degrees of freedom) first at the Laplace
        approximation (``mode``, inverse ``information``), then refitted to the weighted moments
        of a pilot of a quarter as many draws (adaptive importance sampling), so that a skewed
        posterior, as a zero or a perfect score gives, is covered where its mass is; then batches
        of ``samples`` draws, up to ``MAX_BATCHES``, until the effective sample size reaches
        ``MIN_EFFECTIVE`` (a large field's weights are less even). Returns ``(draws, weights)``:
        parameter vectors (fixed ones at ``mode``) and normalised weights summing to 1."""
        rng = R.generator(seed)
        free = self.free
        if free.size == 0:
            return mode[None, :].copy(), np.ones(1)
        cov = np.linalg.inv(information[np.ix_(free, free)])
        draws, log_w = self._weighted(mode, mode[free], cov, rng, max(samples // 4, 1))
        weights = _normalised(log_w)
        centre = mode[free]
        if 1.0 / np.sum(weights**2) >= 10 * (free.size + 1):  # enough to estimate the moments: refit
            centre = weights @ draws[:, free]
            dev = draws[:, free] - centre
            cov = (dev.T * weights) @ dev * (PROPOSAL_DF - 2) / PROPOSAL_DF * 1.2
        batches = []  # a large field weighs its draws less evenly: draw on to ``MIN_EFFECTIVE``
        for _ in range(MAX_BATCHES):
            batches.append(self._weighted(mode, centre, cov, rng, samples))
            weights = _normalised(np.concatenate([b[1] for b in batches]))
            if 1.0 / np.sum(weights**2) >= min(MIN_EFFECTIVE, samples / 2):
                break
        return np.concatenate([b[0] for b in batches]), weights

    def _weighted(self, mode, centre, cov, rng, samples):
        free = self.free
        w, v = np.linalg.eigh((cov + cov.T) / 2)
        w = np.maximum(w, 1e-12 * max(w.max(), 1e-300))
        root = v * np.sqrt(w)
        z = rng.standard_normal((samples, free.size))
        scale = np.sqrt(rng.chisquare(PROPOSAL_DF, samples) / PROPOSAL_DF)
        draws = np.repeat(mode[None, :], samples, axis=0)
        draws[:, free] = centre + (z @ root.T) / scale[:, None]
        white = z / scale[:, None]  # the draw in the proposal's whitened coordinates
        log_q = -0.5 * (PROPOSAL_DF + free.size) * np.log1p((white**2).sum(axis=1) / PROPOSAL_DF)
        log_p = np.concatenate([self.log_posterior(draws[k : k + CHUNK]) for k in range(0, samples, CHUNK)])
        return draws, log_p - log_q


def _normalised(log_w: np.ndarray) -> np.ndarray:
    """Importance weights from their logarithms (-inf: outside the posterior's support), summing to 1."""
    finite = np.isfinite(log_w)
    weights = np.where(finite, np.exp(log_w - log_w[finite].max()), 0.0)
    return weights / weights.sum()


@dataclass(frozen=True)
class Posterior:
    """Weighted draws of the strengths from the exact posterior (``Model.sample``): ``strengths``
    ``(draws, n)`` on the natural scale, ``weights`` summing to 1."""

    strengths: np.ndarray
    weights: np.ndarray

    @property
    def effective_samples(self) -> float:
        """Kish's effective sample size of the weights: the Monte Carlo error is that of this many
        independent draws."""
        return float(1.0 / np.sum(self.weights**2))

    def los(self) -> np.ndarray:
        """``[i, j]``: P(theta_i > theta_j | the games), a tie (two anchors) counting half."""
        s, w = self.strengths, self.weights
        out = np.empty((s.shape[1], s.shape[1]))
        for i in range(s.shape[1]):  # one agent at a time: draws x agents, not draws x agents²
            out[i] = w @ ((s[:, i, None] > s) + 0.5 * (s[:, i, None] == s))
        np.fill_diagonal(out, 0.5)
        return out

    def p_best(self, among: ArrayLike | None = None) -> np.ndarray:
        """P(i is the strongest of ``among`` (agent indices; all by default) | the games)."""
        s = self.strengths if among is None else self.strengths[:, np.asarray(among, dtype=np.int64)]
        return np.bincount(np.argmax(s, axis=1), weights=self.weights, minlength=s.shape[1])


@dataclass(frozen=True)
class ModelFit(Fit):
    """A fit of ``Model``: ``elo``/``cov`` of the ratings as ``Fit`` has them, and the first-move
    advantage and the draw parameter (BayesElo's drawelo) in Elo with 95% margins, None where the
    model has no such term (``why``: ``(ADVANTAGE or DRAW, the reason)`` for each left out)."""

    advantage: float | None = None
    advantage_margin: float | None = None
    draw_elo: float | None = None
    draw_margin: float | None = None
    why: tuple = ()
    model: Model | None = None
    mode: np.ndarray | None = None
    information: np.ndarray | None = None

    @property
    def draw_rate(self) -> float | None:
        """The draw rate between equal agents the draw parameter implies: F(d) - F(-d)."""
        return None if self.draw_elo is None else float(math.tanh(self.draw_elo / ELO / 2))

    def posterior(self, seed: int = 0, samples: int = SAMPLES) -> Posterior:
        """Seeded weighted draws of the strengths from the exact posterior (``Model.sample``)."""
        draws, weights = self.model.sample(self.mode, self.information, seed, samples)
        return Posterior(draws[:, : self.model.n], weights)


def _cells(wins, draws, losses, fold_draws: bool, by_colour: bool) -> Cells:
    """The played cells of the count matrices; draws folded into half a win each (no draw term),
    and both colours of a pair merged (no first-move term)."""
    wins, draws, losses = (np.asarray(a, dtype=np.float64) for a in (wins, draws, losses))
    if fold_draws:
        wins, losses, draws = wins + draws / 2, losses + draws / 2, np.zeros_like(draws)
    if not by_colour:  # i first against j is j second against i
        upper = np.triu(np.ones(wins.shape, dtype=bool), 1)
        wins, draws, losses = (
            np.where(upper, wins + losses.T, 0.0),
            np.where(upper, draws + draws.T, 0.0),
            np.where(upper, losses + wins.T, 0.0),
        )
    first, second = np.nonzero(wins + draws + losses)
    return Cells(first, second, wins[first, second], draws[first, second], losses[first, second])


def _identifies_advantage(cells: Cells, n: int) -> bool:
    """Whether the colours played tell a first-move advantage from the strengths: the column of
    ones (eta) is not a combination of the strength columns of the design (e.g. A always Black
    against B leaves A's strength and Black's advantage confounded)."""
    if len(cells.first) == 0:
        return False
    design = np.zeros((len(cells.first), n))
    design[np.arange(len(cells.first)), cells.first] += 1.0
    design[np.arange(len(cells.first)), cells.second] -= 1.0
    with_ones = np.column_stack([design, np.ones(len(cells.first))])
    return np.linalg.matrix_rank(with_ones) > np.linalg.matrix_rank(design)


def fit_model(
    wins: ArrayLike,
    draws: ArrayLike,
    losses: ArrayLike,
    anchors: Mapping[int, float] | None = None,
    advantage: bool = True,
    draw: bool = True,
    iterations: int = 100,
) -> ModelFit:
    """Ratings with a first-move advantage and draws (``Model``) from ``wins[i, j]``,
    ``draws[i, j]`` and ``losses[i, j]``: the games in which i moved first against j.
    ``anchors`` as ``fit`` reads them. ``advantage``: fit the first-move term (left out when the
    colours played cannot identify it); ``draw``: fit the draw term (left out without draws, as a
    game without draws has no draw parameter to fit; a draw then counts half a win, as in ``fit``)."""
    wins, draws, losses = (np.asarray(a, dtype=np.float64) for a in (wins, draws, losses))
    n = wins.shape[0]
    if not (wins.shape == draws.shape == losses.shape == (n, n)):
        raise ParameterError(
            f"wins, draws, losses: expected three n x n arrays, got {wins.shape}, {draws.shape}, {losses.shape}"
        )
    if (wins < 0).any() or (draws < 0).any() or (losses < 0).any() or not np.isfinite(wins + draws + losses).all():
        raise ParameterError("wins, draws, losses: expected finite counts >= 0")
    anchors = dict(anchors or {})
    for i, value in anchors.items():
        if not 0 <= i < n or not math.isfinite(value):
            raise ParameterError(f"anchor {i}={value!r}: expected a player from 0 to {n - 1} and a finite Elo")
    why = []
    with_draw = draw and draws.sum() > 0
    if draw and not with_draw:
        why.append((DRAW, "no draws"))
    cells = _cells(wins, draws, losses, not with_draw, by_colour=True)
    with_advantage = advantage and _identifies_advantage(cells, n)
    if advantage and not with_advantage:
        why.append((ADVANTAGE, "the colours played do not separate it from the ratings"))
    if not with_advantage:
        cells = _cells(wins, draws, losses, not with_draw, by_colour=False)
    size = n + with_advantage + with_draw
    fixed, mean, start = np.zeros(size, dtype=bool), np.zeros(size), np.zeros(size)
    if len(anchors) > 1:  # several anchors fixed, the prior centred on their mean (as ``fit``)
        for i, value in anchors.items():
            fixed[i], start[i] = True, value / ELO
        mean[:n] = np.mean([value / ELO for value in anchors.values()])
    if with_draw:
        start[-1] = 1.0
    model = Model(n, cells, bool(with_advantage), bool(with_draw), mean, fixed)
    mode, information = model.mode(start, iterations)
    free = model.free
    full = np.zeros((size, size))
    if free.size:
        full[np.ix_(free, free)] = np.linalg.inv(information[np.ix_(free, free)])
    theta, cov = mode[:n], full[:n, :n]
    if len(anchors) == 1:  # the anchor's Elo, the others their difference from it
        ((a, value),) = anchors.items()
        move = np.eye(n)
        move[:, a] -= 1.0
        elo, cov = ELO * (theta - theta[a]) + value, ELO**2 * (move @ cov @ move.T)
    elif not anchors:
        proj = np.eye(n) - np.full((n, n), 1.0 / n)
        elo, cov = ELO * (theta - theta.mean()), ELO**2 * (proj @ cov @ proj.T)
    else:
        elo, cov = ELO * theta, ELO**2 * cov

    def term(k):
        return float(ELO * mode[k]), float(Z95 * ELO * math.sqrt(max(full[k, k], 0.0)))

    adv = term(n) if with_advantage else (None, None)
    drw = term(size - 1) if with_draw else (None, None)
    return ModelFit(elo, cov, *adv, *drw, tuple(why), model, mode, information)
