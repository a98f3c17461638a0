"""Sequential matches: the SPRT on game pairs, as cutechess-cli and fastchess stop engine matches.

    test = tournaments.sprt.SPRT(elo0=0, elo1=20, alpha=0.05, beta=0.05)
    result = tournaments.match(a, b, game="othello", sprt=test, games=2000)
    result.sprt.decision, result.sprt.llr, result.sprt.elo, result.pentanomial
    tournaments.sprt.error_rates(test, draw_rate=0.3, runs=2000)   # type I / II by simulation

A fixed-length match spends as many games on a clear-cut comparison as on a close one. A sequential
probability ratio test instead plays until the evidence for one of two hypotheses is strong enough:
H0 "A is ``elo0`` Elo stronger than B" against H1 "A is ``elo1`` Elo stronger" (elo0 < elo1), with
error rates ``alpha`` (accepting H1 when H0 holds) and ``beta`` (accepting H0 when H1 holds).
After every game pair the log-likelihood ratio (LLR) is compared with Wald's bounds
``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``: below the lower bound H0 is
accepted, above the upper bound H1; in between the match goes on (or ends undecided at its
maximum length).

Why pairs (the *pentanomial* model): a match plays each seeded opening twice with colours swapped,
so the two games of a pair are correlated (a lopsided opening favours whoever has the good side in
both). Counting games as independent trinomial draws (win/draw/loss) overstates the variance; the
unit that is independent is the pair, scoring 0, 0.5, 1, 1.5 or 2 points for A, whose five
frequencies are the pentanomial counts.

The LLR is the generalized SPRT (GSPRT) of the pentanomial model, computed as fastchess computes
it today (``method="mle"``, the default): the difference of the log-likelihoods of the observed
pair frequencies under the two *constrained maximum-likelihood* distributions, the pentanomial
distribution closest to the data among those of mean ``s0`` and among those of mean ``s1``,

    LLR = N * sum_i f_i * (log p1_i - log p0_i)

with ``N`` pairs and frequencies ``f_i``. Each constrained maximum is found by the Lagrange
multiplier method (Van den Bergh, "Comments on Normalized Elo", proposition 1.1):
``p_i = f_i / (1 + theta (a_i - s))`` over the pair scores ``a_i``, with ``theta`` the one root of
``sum_i f_i (a_i - s) / (1 + theta (a_i - s)) = 0`` between the poles ``-1 / (1 - s)`` and
``1 / s`` (the sum falls from +inf to -inf there, so a safeguarded Newton iteration brackets it).
``s0``, ``s1`` are the expected scores under H0 and H1: ``1 / (1 + 10**(-elo / 400))`` for the usual
logistic Elo (``model="logistic"``, the default here: the Elo of ``MatchResult`` and the ratings).
fastchess's own default model is normalized Elo (``model="normalized"``: H is then the
normalized Elo ``(mu - 1/2) / sigma * sqrt(2) * 400 / ln 10`` of the pair scores, a constraint on
mean *and* spread, maximised by the fixed-point iteration of the same paper's section 4.1).

Empty cells: like fastchess, each pentanomial count that is 0 is replaced by ``REGULARIZE``
(0.001 of a pair) before the frequencies are taken, so every ``f_i`` is positive, the constrained
maximum is interior and the LLR finite, also when every pair ended alike. (fastchess counts a
pair of one win and one loss with the pairs of two draws, as the pentanomial index 2 here does.)

``method="normal"`` keeps the earlier normal approximation of the GSPRT (the one cutechess-cli's
pentanomial test and early fastchess versions used): with ``m`` the mean pair score, ``v`` its
per-pair variance (counts with the weak prior ``PRIOR``, see ``SPRT.llr``),
``LLR = (s1 - s0) * (2 m - s0 - s1) / (2 v / N)``; for normalized Elo there
``s = 0.5 + nelo * sqrt(2 v) / (800 / ln 10)``. It stops earlier on lopsided matches: 8 pairs of
which 7 were won 2-0 and one split give it +3.20 (H1 at elo0 0, elo1 50), the exact GSPRT +1.07.
The error rates of either are checked by simulation (``error_rates``) rather than taken on trust.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

from envs import ParameterError
from envs.core import rng as R

H0, H1, UNDECIDED = "H0", "H1", "undecided"
MODELS = ("logistic", "normalized")
METHODS = ("mle", "normal")  # the exact constrained-maximum-likelihood GSPRT, its normal approximation
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # A's pair points / 2, by pentanomial index
NELO = 800.0 / math.log(10.0)
# Half a pair at each extreme, added to the counts before the LLR: a weak prior that keeps the
# variance positive. It pulls the mean towards 1/2 (conservative) and vanishes as pairs accumulate;
# the simulated error rates (``error_rates``) are measured with it.
PRIOR = np.array([0.5, 0.0, 0.0, 0.0, 0.5])
# What an empty pentanomial cell counts as in the exact GSPRT (fastchess's regularisation): a
# thousandth of a pair, so every frequency is positive and the constrained maxima are interior.
REGULARIZE = 1e-3


def _number(name, value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
    ):
        raise ParameterError(f"{name}={value!r}: expected a finite number")
    return float(value)


@dataclass(frozen=True)
class SPRT:
    """A validated test: H0 ``elo0`` against H1 ``elo1`` at error rates ``alpha``, ``beta``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "logistic"
    method: str = "mle"

    def __post_init__(self):
        for name in ("elo0", "elo1", "alpha", "beta"):
            object.__setattr__(self, name, _number(name, getattr(self, name)))
        if not self.elo0 < self.elo1:
            raise ParameterError(f"elo0={self.elo0!r}, elo1={self.elo1!r}: expected elo0 < elo1")
        for name in ("alpha", "beta"):
            if not 0 < getattr(self, name) < 1:
                raise ParameterError(f"{name}={getattr(self, name)!r}: expected a probability in (0, 1)")
        if self.alpha + self.beta >= 1:
            raise ParameterError(f"alpha={self.alpha!r}, beta={self.beta!r}: expected alpha + beta < 1")
        if self.model not in MODELS:
            raise ParameterError(f"model={self.model!r}: expected one of {', '.join(MODELS)}")
        if self.method not in METHODS:
            raise ParameterError(f"method={self.method!r}: expected one of {', '.join(METHODS)}")
        if self.method == "mle" and self.model == "logistic":
            for name in ("elo0", "elo1"):
                if not 0.0 < logistic_score(getattr(self, name)) < 1.0:
                    raise ParameterError(
                        f"{name}={getattr(self, name)!r}: its expected score rounds to "
                        f"{float(logistic_score(getattr(self, name))):g}, the edge of the pair scores, "
                        "where the constrained likelihood is degenerate"
                    )

    @classmethod
    def of(cls, spec: SPRT | Sequence[float]) -> SPRT:
        """``spec`` as a test: an ``SPRT``, or a tuple ``(elo0, elo1, alpha, beta)``."""
        if isinstance(spec, SPRT):
            return spec
        if isinstance(spec, (tuple, list)) and len(spec) == 4:
            return cls(*spec)
        raise ParameterError(f"sprt={spec!r}: expected (elo0, elo1, alpha, beta) or an SPRT")

    @classmethod
    def parse(cls, words: str | Sequence[str], model: str = "logistic", method: str = "mle") -> SPRT:
        """A test from the command line: ``"elo0,elo1,alpha,beta"`` (fastchess's and cutechess's
        order) as one word or as four (``0 50 0.05 0.05``), or both mixed (``0,50 0.05 0.05``)."""
        if isinstance(words, str):
            words = [words]
        fields = [w.strip() for word in words for w in str(word).split(",")]
        if len(fields) != 4 or not all(fields):
            raise ParameterError(f"--sprt {' '.join(map(str, words))!r}: expected elo0,elo1,alpha,beta")
        values = []
        for name, text in zip(("elo0", "elo1", "alpha", "beta"), fields):
            try:
                values.append(float(text))
            except ValueError:
                raise ParameterError(f"--sprt {name}={text!r}: expected a number") from None
        return cls(*values, model=model, method=method)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: log(beta / (1 - alpha))."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: log((1 - beta) / alpha)."""
        return math.log((1 - self.beta) / self.alpha)

    def scores(self) -> tuple[float, float]:
        """The expected pair scores ``(s0, s1)`` of H0 and H1 under the logistic model."""
        return float(logistic_score(self.elo0)), float(logistic_score(self.elo1))

    def llr(self, counts: ArrayLike) -> np.ndarray | float:
        """The LLR of pentanomial ``counts`` (last axis: pairs scoring 0, 0.5, 1, 1.5, 2 points);
        vectorised over leading axes; 0 before the first pair. ``method="mle"``: the exact GSPRT
        (module docstring), empty cells counted as ``REGULARIZE``; ``method="normal"``: its normal
        approximation, with ``PRIOR`` added to the counts: without it a one-sided run (every pair
        won 2-0, as a strong agent does to a weak one) has variance 0 and the formula is undefined,
        so such a match could never stop."""
        counts = np.asarray(counts, dtype=np.float64)
        if counts.shape[-1:] != (5,) or not np.all(counts >= 0):
            raise ParameterError(f"counts={counts.tolist()!r}: expected five non-negative pentanomial counts")
        played = counts.sum(axis=-1)
        if self.method == "mle":
            out = self._llr_mle(counts)
        else:
            out = self._llr_normal(counts)
        out = np.where(played > 0, out, 0.0)
        return float(out) if out.ndim == 0 else out

    def _llr_normal(self, counts: np.ndarray) -> np.ndarray:
        counts = counts + PRIOR
        n = counts.sum(axis=-1)
        m = (counts @ PAIR_SCORES) / n
        v = (counts @ PAIR_SCORES**2) / n - m**2
        if self.model == "logistic":
            s0, s1 = self.scores()
        else:
            s0 = 0.5 + self.elo0 * np.sqrt(2 * v) / NELO
            s1 = 0.5 + self.elo1 * np.sqrt(2 * v) / NELO
        return (s1 - s0) * (2 * m - s0 - s1) / (2 * v / n)

    def _llr_mle(self, counts: np.ndarray) -> np.ndarray:
        rows = np.where(counts > 0, counts, REGULARIZE).reshape(-1, 5)
        out = np.empty(len(rows))
        if self.model == "logistic":
            _llr_rows_logistic(rows, PAIR_SCORES, *self.scores(), out)
        else:
            t0, t1 = (math.sqrt(2.0) * e / NELO for e in (self.elo0, self.elo1))
            _llr_rows_normalized(rows, PAIR_SCORES, t0, t1, out)
            if np.isnan(out).any():
                bad = rows[np.isnan(out)][0]
                bad = np.where(bad == REGULARIZE, 0.0, bad)
                raise ParameterError(
                    f"counts={bad.tolist()!r}: the normalized-Elo maximum likelihood at elo0={self.elo0:g}, "
                    f"elo1={self.elo1:g} did not converge (a normalized Elo too far from 0)"
                )
        return out.reshape(counts.shape[:-1])

    def decide(self, llr: float) -> str:
        return H1 if llr >= self.upper else H0 if llr <= self.lower else UNDECIDED

    def status(self, counts: Sequence[int]) -> SPRTStatus:
        """Where a match with pentanomial ``counts`` stands."""
        counts = tuple(int(c) for c in counts)
        llr = self.llr(counts)
        elo, lo, hi = elo_interval(counts)
        return SPRTStatus(
            self.elo0,
            self.elo1,
            self.alpha,
            self.beta,
            self.model,
            sum(counts),
            counts,
            round(llr, 4),
            round(self.lower, 4),
            round(self.upper, 4),
            elo,
            lo,
            hi,
            self.decide(llr),
            self.method,
        )


@dataclass(frozen=True)
class SPRTStatus:
    """A sequential match after ``pairs`` game pairs: the LLR between its bounds, the Elo estimate
    of A over B with a 95% interval (``elo_interval``: infinite where the scores seen so far do
    not bound it), the pentanomial counts and the decision so far."""

    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: str
    pairs: int
    pentanomial: tuple  # pairs in which A scored 0, 0.5, 1, 1.5, 2 points
    llr: float
    lower: float
    upper: float
    elo: float
    elo_lo: float
    elo_hi: float
    decision: str  # H0, H1 or undecided
    method: str = "mle"  # "mle": the exact GSPRT; "normal": its normal approximation

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        verdict = {
            H0: f"H0 accepted (not {self.elo1:g} Elo better)",
            H1: f"H1 accepted ({self.elo1:g} Elo better)",
            UNDECIDED: "undecided",
        }[self.decision]
        return (
            f"SPRT [{self.elo0:g}, {self.elo1:g}] alpha={self.alpha:g} beta={self.beta:g} "
            f"({self.model}{'' if self.method == 'mle' else ', normal approximation'}): "
            f"LLR {self.llr:+.2f} ({self.lower:.2f}, {self.upper:.2f}); Elo "
            f"{format_elo(self.elo, self.elo_lo, self.elo_hi)}; pentanomial {list(self.pentanomial)} "
            f"in {self.pairs} pairs; {verdict}"
        )


@njit(cache=True)
def _multiplier(f, x, s):
    """The Lagrange multiplier ``theta`` of a maximum likelihood under one linear constraint,
    ``sum p_i d_i = 0`` with ``d = x - s``: the root of ``g(theta) = sum_i f_i d_i / (1 + theta d_i)``
    between its poles ``-1 / max d`` and ``-1 / min d``, where every ``1 + theta d_i`` is positive.
    ``g`` falls strictly from +inf to -inf there, so Newton's steps are kept inside a shrinking
    bracket (a step that leaves it is replaced by bisection). NaN where ``d`` does not change sign
    (no constrained maximum)."""
    dmin, dmax = x.min() - s, x.max() - s
    if not (dmin < 0.0 < dmax):
        return np.nan
    lo, hi = -1.0 / dmax, -1.0 / dmin
    theta = 0.0
    for _ in range(200):
        g, slope = 0.0, 0.0
        for i in range(f.size):
            q = (x[i] - s) / (1.0 + theta * (x[i] - s))
            g += f[i] * q
            slope -= f[i] * q * q
        if g > 0.0:
            lo = theta
        else:
            hi = theta
        step = -g / slope if slope < 0.0 else 0.0
        new = theta + step
        if not (lo < new < hi):
            new = 0.5 * (lo + hi)
        if abs(new - theta) <= 1e-15 * (1.0 + abs(theta)) or hi - lo <= 1e-15 * (1.0 + abs(theta)):
            return new
        theta = new
    return theta


@njit(cache=True)
def _constrained_mle(f, a, s, p):
    """``p``: the distribution on scores ``a`` of mean ``s`` that maximises ``sum f log p``."""
    theta = _multiplier(f, a, s)
    for i in range(f.size):
        p[i] = f[i] / (1.0 + theta * (a[i] - s))


@njit(cache=True)
def _normalized_mle(f, a, t, p):
    """``p``: the distribution on scores ``a`` whose normalized score ``(mu - 1/2) / sigma`` is ``t``
    that maximises ``sum f log p``, by Van den Bergh's fixed point (section 4.1): linearise the
    constraint at the current ``p`` (``phi``), solve the one-multiplier problem, repeat. Starts
    from ``p`` as given when it is a distribution (the previous row's answer: a simulated match
    adds one pair per row, so a step or two suffice), else from the uniform one, as the paper
    does, and again from the uniform one if a warm start fails; NaN if that fails too."""
    k = f.size
    phi = np.empty(k)
    if not (np.all(p > 0.0) and abs(p.sum() - 1.0) < 1e-6):
        p[:] = 1.0 / k
    if not _fixed_point(f, a, t, p, phi):
        p[:] = 1.0 / k
        if not _fixed_point(f, a, t, p, phi):
            p[:] = np.nan


@njit(cache=True)
def _fixed_point(f, a, t, p, phi):
    k = f.size
    for _ in range(500):
        mu = 0.0
        for i in range(k):
            mu += p[i] * a[i]
        var = 0.0
        for i in range(k):
            var += p[i] * (a[i] - mu) ** 2
        sigma = np.sqrt(var)
        for i in range(k):
            z = (a[i] - mu) / sigma
            phi[i] = a[i] - 0.5 - 0.5 * t * sigma * (1.0 + z * z)
        theta = _multiplier(f, phi, 0.0)
        if np.isnan(theta):
            return False
        change = 0.0  # relative: the LLR needs every log p_i, the smallest ones too
        for i in range(k):
            new = f[i] / (1.0 + theta * phi[i])
            change = max(change, abs(new - p[i]) / new)
            p[i] = new
        if change < 1e-10:
            return True
    return False


@njit(cache=True)
def _frequencies(row, f):
    """``f``: the row's counts as frequencies; returns their total."""
    n = row.sum()
    for i in range(row.size):
        f[i] = row[i] / n
    return n


@njit(cache=True)
def _llr_of(n, f, p0, p1):
    """N * sum f (log p1 - log p0): the log-likelihood ratio of the two maxima."""
    total = 0.0
    for i in range(f.size):
        total += f[i] * (np.log(p1[i]) - np.log(p0[i]))
    return n * total


@njit(cache=True)
def _llr_rows_logistic(rows, a, s0, s1, out):
    f, p0, p1 = np.empty(a.size), np.empty(a.size), np.empty(a.size)
    for r in range(rows.shape[0]):
        n = _frequencies(rows[r], f)
        _constrained_mle(f, a, s0, p0)
        _constrained_mle(f, a, s1, p1)
        out[r] = _llr_of(n, f, p0, p1)


@njit(cache=True)
def _llr_rows_normalized(rows, a, t0, t1, out):
    f, p0, p1 = np.empty(a.size), np.zeros(a.size), np.zeros(a.size)
    for r in range(rows.shape[0]):
        n = _frequencies(rows[r], f)
        _normalized_mle(f, a, t0, p0)
        _normalized_mle(f, a, t1, p1)
        out[r] = _llr_of(n, f, p0, p1)


def logistic_score(elo: ArrayLike) -> np.ndarray | float:
    """Expected score of a player ``elo`` stronger: 1 / (1 + 10**(-elo / 400))."""
    return 1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=np.float64) / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected ``score``: ``+inf`` at 1 and ``-inf`` at 0,
    because no finite difference predicts that every game is won (or lost)."""
    s = float(score)
    if s >= 1.0:
        return math.inf
    if s <= 0.0:
        return -math.inf
    return round(-400.0 * math.log10(1.0 / s - 1.0), 2) + 0.0  # + 0.0: no "-0.0"


Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


def score_interval(
    counts: ArrayLike, scores: ArrayLike = PAIR_SCORES, z: float = Z95
) -> tuple[np.ndarray | float, np.ndarray | float, np.ndarray | float]:
    """``(mean, lo, hi)``: the mean score of outcomes counted in ``counts`` (last axis: how often
    each of ``scores``, values in [0, 1], occurred) and a Wilson-style interval around it;
    vectorised over leading axes. With no outcome: ``(0.5, 0, 1)``.

    The interval is every mean ``p`` that the observed mean ``m`` lies within ``z`` standard
    errors of, the standard error taken *under* ``p``, as Wilson's score interval takes it for a
    win/loss proportion. The distribution under ``p`` is the observed one moved to mean ``p`` by
    the least mixing with the extreme on ``p``'s side (a point mass at 1 above ``m``, at 0 below).
    For outcomes that are only 0 or 1 this is exactly Wilson's interval; unlike the mean ± z
    sample standard errors, it never shrinks to a point when every game pair ends the same way
    (twelve won games: ``[0.61, 1]`` on six pairs, not ``[1, 1]``). Both bounds solve a quadratic:
    with ``d`` the distance from ``m``, ``k = z**2 / N`` and ``v`` the sample variance,
    ``d**2 (1 + k) - k b d - k v = 0``, where ``b`` is the variance's slope in ``d`` on that side.
    """
    counts = np.asarray(counts, dtype=np.float64)
    scores = np.asarray(scores, dtype=np.float64)
    n = counts.sum(axis=-1)
    safe = np.where(n > 0, n, 1.0)
    m = counts @ scores / safe
    s2 = counts @ scores**2 / safe
    v = np.maximum(s2 - m * m, 0.0)
    k = z * z / safe
    with np.errstate(divide="ignore", invalid="ignore"):
        b_up = np.where(m < 1, (1 - s2) / np.where(m < 1, 1 - m, 1.0) - 2 * m, 0.0)
        b_down = np.where(m > 0, 2 * m - s2 / np.where(m > 0, m, 1.0), 0.0)
    up = (k * b_up + np.sqrt((k * b_up) ** 2 + 4 * (1 + k) * k * v)) / (2 * (1 + k))
    down = (k * b_down + np.sqrt((k * b_down) ** 2 + 4 * (1 + k) * k * v)) / (2 * (1 + k))
    lo = np.where(n > 0, np.clip(m - down, 0.0, 1.0), 0.0)
    hi = np.where(n > 0, np.clip(m + up, 0.0, 1.0), 1.0)
    m = np.where(n > 0, m, 0.5)
    if m.ndim == 0:
        return float(m), float(lo), float(hi)
    return m, lo, hi


def elo_interval(counts: ArrayLike) -> tuple[float, float, float]:
    """Elo estimate of A and its 95% interval from pentanomial ``counts``: ``score_interval`` of
    the pair scores mapped through the logistic curve. A bound (and at a score of 0 or 1 the
    estimate) is infinite where the interval reaches a score of 0 or 1: after six pairs all won,
    A is more than 77 Elo stronger at 95%, and nothing bounds it from above yet."""
    m, lo, hi = score_interval(counts)
    if np.sum(counts) == 0:
        return 0.0, -math.inf, math.inf
    return score_to_elo(m), score_to_elo(lo), score_to_elo(hi)


def format_elo(elo: float, lo: float, hi: float) -> str:
    """An Elo estimate and its interval as text, infinite bounds included: ``+35.2 [+10.1, +60.3]``,
    ``> +77.3 (95%)`` when every pair was won, ``< -77.3 (95%)`` when every pair was lost."""
    if math.isinf(elo):
        return f"> {lo:+.1f} (95%)" if elo > 0 else f"< {hi:+.1f} (95%)"

    def bound(x):
        return ("+inf" if x > 0 else "-inf") if math.isinf(x) else f"{x:+.1f}"

    return f"{elo:+.1f} [{bound(lo)}, {bound(hi)}]"


def pentanomial_probabilities(elo: float, draw_rate: float) -> np.ndarray:
    """Probabilities of A's pair scores 0, 0.5, 1, 1.5, 2 when A is ``elo`` (logistic) stronger and
    a game is drawn with probability ``draw_rate``, the two games of a pair independent: a game's
    win and loss probabilities are ``s - d/2`` and ``1 - s - d/2`` for the expected score ``s``."""
    s = float(logistic_score(elo))
    d = _number("draw_rate", draw_rate)
    w, lo = s - d / 2, 1 - s - d / 2
    if not 0 <= d < 1 or w < 0 or lo < 0:
        raise ParameterError(
            f"draw_rate={draw_rate!r}: expected 0 <= draw rate < 1 leaving win and loss "
            f"probabilities >= 0 at {elo:g} Elo (score {s:.3f})"
        )
    return np.array([lo * lo, 2 * lo * d, 2 * w * lo + d * d, 2 * w * d, w * w])


def _true_elo(test: SPRT, hypothesis_elo: float, draw_rate: float) -> float:
    """The logistic Elo at which the test's hypothesis holds: itself for the logistic model; for
    normalized Elo, the logistic Elo whose pair distribution has that normalized Elo."""
    if test.model == "logistic":
        return hypothesis_elo

    def nelo(elo):
        p = pentanomial_probabilities(elo, draw_rate)
        m = p @ PAIR_SCORES
        return (m - 0.5) / math.sqrt(2 * (p @ PAIR_SCORES**2 - m * m)) * NELO

    lo, hi = -600.0, 600.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if nelo(mid) < hypothesis_elo else (lo, mid)
    return (lo + hi) / 2


def simulate(
    test: SPRT | Sequence[float],
    elo: float,
    draw_rate: float = 0.3,
    runs: int = 2000,
    max_pairs: int = 100_000,
    seed: int = 0,
    chunk: int = 256,
) -> dict[str, Any]:
    """Run ``runs`` sequential matches whose pairs are drawn from ``pentanomial_probabilities(elo,
    draw_rate)`` until the LLR of ``test`` leaves its bounds (or ``max_pairs``); vectorised over the
    runs, ``chunk`` pairs at a time, seeded. Returns the fractions accepting H0 and H1, undecided,
    and the mean and 90th percentile of the pairs played."""
    test = SPRT.of(test)
    if not isinstance(runs, (int, np.integer)) or runs < 1:
        raise ParameterError(f"runs={runs!r}: expected a positive integer")
    p = pentanomial_probabilities(elo, draw_rate)
    rng = R.generator(seed)
    counts = np.zeros((runs, 5), dtype=np.int64)
    decision = np.zeros(runs, dtype=np.int8)  # 0 undecided, -1 H0, +1 H1
    pairs = np.full(runs, max_pairs, dtype=np.int64)
    active = np.arange(runs)
    done = 0
    while active.size and done < max_pairs:
        k = min(chunk, max_pairs - done)
        draws = rng.choice(5, size=(active.size, k), p=p)
        cum = counts[active][:, None, :] + (draws[..., None] == np.arange(5)).cumsum(axis=1)
        llr = test.llr(cum)
        hi, lo = llr >= test.upper, llr <= test.lower
        hit = hi | lo
        ended = hit.any(axis=1)
        first = hit.argmax(axis=1)
        rows = active[ended]
        decision[rows] = np.where(hi[ended, first[ended]], 1, -1)
        pairs[rows] = done + first[ended] + 1
        counts[active] = cum[:, -1]
        active = active[~ended]
        done += k
    return {
        "elo": elo,
        "draw_rate": draw_rate,
        "runs": runs,
        "h0": float((decision == -1).mean()),
        "h1": float((decision == 1).mean()),
        "undecided": float((decision == 0).mean()),
        "mean_pairs": float(pairs.mean()),
        "p90_pairs": float(np.percentile(pairs, 90)),
    }


def error_rates(
    test: SPRT | Sequence[float], draw_rate: float = 0.3, runs: int = 2000, max_pairs: int = 100_000, seed: int = 0
) -> dict[str, Any]:
    """The test's measured error rates: type I, the fraction of ``runs`` simulated matches at the
    true Elo ``elo0`` that accept H1; type II, the fraction at ``elo1`` that do not accept H1
    (accepting H0 or ending undecided). Also the two simulations themselves."""
    test = SPRT.of(test)
    at0 = simulate(test, _true_elo(test, test.elo0, draw_rate), draw_rate, runs, max_pairs, seed)
    at1 = simulate(test, _true_elo(test, test.elo1, draw_rate), draw_rate, runs, max_pairs, seed + 1)
    return {"type1": at0["h1"], "type2": at1["h0"] + at1["undecided"], "at_elo0": at0, "at_elo1": at1}
