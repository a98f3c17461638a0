"""The exact pentanomial GSPRT (``tournaments.sprt``, ``method="mle"``) against an independent
implementation written here, and the command-line forms of ``--sprt``.

The module finds each constrained maximum likelihood through its Lagrange multiplier (a 1-D root).
The check here never forms that multiplier: it maximises the log-likelihood directly over the
pentanomial distributions of the required mean by Newton's method in the primal, moving only
along directions that keep the total and the mean fixed (the null space of the constraints), from
a feasible start, with a backtracking line search that keeps every probability positive.
"""

import math

import numpy as np
import pytest

import envs
from tournaments import sprt

A = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def _null_space(rows: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the vectors orthogonal to every row (by SVD)."""
    _, sv, vt = np.linalg.svd(rows)
    return vt[int((sv > 1e-12).sum()) :].T


def _feasible_start(f: np.ndarray, s: float) -> np.ndarray:
    """A positive distribution of mean ``s``: ``f`` mixed with the point mass beyond ``s``."""
    m = f @ A
    if abs(m - s) < 1e-15:
        return f.copy()
    edge, target = (np.eye(5)[4], 1.0) if m < s else (np.eye(5)[0], 0.0)
    w = (s - m) / (target - m)
    return (1 - w) * f + w * edge


def primal_mle(f: np.ndarray, s: float) -> np.ndarray:
    """argmax sum f log p over distributions p on A of mean s, by primal Newton steps."""
    basis = _null_space(np.vstack([np.ones(5), A]))
    p = _feasible_start(f, s)

    def loglik(q):
        return float(f @ np.log(q))

    for _ in range(500):
        grad = basis.T @ (f / p)
        hess = basis.T @ (basis * (f / p**2)[:, None])
        step = basis @ np.linalg.solve(hess, grad)  # ascent: the Hessian of -loglik is positive
        t = 1.0
        while np.any(p + t * step <= 0) or loglik(p + t * step) < loglik(p):
            t /= 2
            if t < 1e-20:
                return p
        p = p + t * step
        if np.abs(t * step).max() < 1e-15:
            break
    return p


def independent_llr(counts, elo0: float, elo1: float) -> float:
    """fastchess's GSPRT, computed here without a Lagrange multiplier: empty cells count as
    0.001 of a pair, the LLR is N * sum f (log p1 - log p0) at the two constrained maxima."""
    c = np.array(counts, dtype=float)
    c[c == 0] = 1e-3
    n = c.sum()
    f = c / n
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    p0, p1 = primal_mle(f, s0), primal_mle(f, s1)
    assert abs(p0 @ A - s0) < 1e-9 and abs(p1 @ A - s1) < 1e-9 and abs(p0.sum() - 1) < 1e-9
    return float(n * (f @ (np.log(p1) - np.log(p0))))


CASES = [
    ([0, 0, 1, 0, 7], 0, 50),
    ([3, 10, 20, 12, 5], 0, 20),
    ([5, 30, 100, 40, 6], -5, 5),
    ([0, 0, 40, 0, 0], 0, 10),  # every pair a split or two draws
    ([12, 0, 0, 0, 0], 0, 50),  # every pair lost
    ([0, 0, 0, 0, 30], 0, 100),  # every pair won
    ([1, 0, 0, 0, 1], 10, 30),
    ([900, 4100, 9000, 4300, 1000], 0, 2),
]


@pytest.mark.parametrize("counts, elo0, elo1", CASES)
def test_llr_equals_an_independent_maximisation(counts, elo0, elo1):
    ours = sprt.SPRT(elo0, elo1, 0.05, 0.05).llr(counts)
    assert math.isfinite(ours)
    assert ours == pytest.approx(independent_llr(counts, elo0, elo1), abs=0.01)


def test_the_lopsided_match_continues_as_fastchess_does():
    """8 pairs, 7 won 2-0 and one split, H0 0 Elo against H1 50 Elo: the exact GSPRT gives +1.07
    and plays on (the normal approximation gives +3.20 and would stop, accepting H1); with every
    further pair won it accepts H1 at pair 23, not before."""
    test = sprt.SPRT(0, 50, 0.05, 0.05)
    status = test.status([0, 0, 1, 0, 7])
    assert status.llr == pytest.approx(1.07, abs=0.005) and status.decision == "undecided"
    assert sprt.SPRT(0, 50, 0.05, 0.05, method="normal").llr([0, 0, 1, 0, 7]) == pytest.approx(3.20, abs=0.005)
    decided = [k + 1 for k in range(7, 40) if test.status([0, 0, 1, 0, k]).decision == "H1"]
    assert decided[0] == 23


def test_bounds_are_fastchess_bounds():
    test = sprt.SPRT(0, 5, 0.05, 0.1)
    assert (test.lower, test.upper) == (math.log(0.1 / 0.95), math.log(0.9 / 0.05))


def test_llr_is_vectorised_zero_before_the_first_pair_and_antisymmetric():
    test = sprt.SPRT(-10, 10, 0.05, 0.05)
    rows = np.array([[3, 10, 20, 12, 5], [5, 12, 20, 10, 3], [0, 0, 0, 0, 0]])
    out = test.llr(rows)
    assert out.shape == (3,) and out[2] == 0.0
    assert out[0] == pytest.approx(test.llr(rows[0])) and out[0] == pytest.approx(-out[1])


def test_normalized_elo_maximum_meets_its_constraint_and_beats_its_neighbours():
    """Normalized Elo (fastchess's default model): the maximum found satisfies
    (mu - 1/2) / sigma = t and no feasible distribution near it has a higher likelihood."""
    counts = np.array([3.0, 10, 20, 12, 5])
    f = counts / counts.sum()
    t = math.sqrt(2) * 20 / sprt.NELO
    p = np.zeros(5)
    sprt._normalized_mle(f, A, t, p)
    mu = p @ A
    sigma = math.sqrt(p @ (A - mu) ** 2)
    assert p.sum() == pytest.approx(1) and (mu - 0.5) / sigma == pytest.approx(t, abs=1e-9)
    best = f @ np.log(p)
    rng = np.random.default_rng(0)
    for _ in range(300):
        q = p * np.exp(rng.normal(0, 0.05, 5))
        q /= q.sum()
        # walk q back onto the constraint along the mean direction (mix with a point mass)
        lo, hi = 0.0, 1.0
        edge = np.eye(5)[4] if (q @ A - 0.5) / math.sqrt(q @ (A - q @ A) ** 2) < t else np.eye(5)[0]
        for _ in range(100):
            w = (lo + hi) / 2
            r = (1 - w) * q + w * edge
            m = r @ A
            g = (m - 0.5) / math.sqrt(r @ (A - m) ** 2) - t
            lo, hi = (w, hi) if (g < 0) == (edge[4] == 1) else (lo, w)
        assert abs(g) < 1e-9  # r is feasible
        assert f @ np.log(r) <= best + 1e-12
    llr = sprt.SPRT(0, 20, model="normalized").llr(counts)
    assert math.isfinite(llr) and llr > sprt.SPRT(0, 20, model="normalized").llr(counts[::-1])


@pytest.mark.parametrize("words", [["0,50,0.05,0.05"], ["0", "50", "0.05", "0.05"], ["0,50", "0.05", "0.05"]])
def test_parse_takes_the_comma_and_the_space_forms(words):
    assert sprt.SPRT.parse(words) == sprt.SPRT(0, 50, 0.05, 0.05)


@pytest.mark.parametrize(
    "words, named", [(["0,50,0.05"], "--sprt"), (["0,x,0.05,0.05"], "elo1"), (["50,0,0.05,0.05"], "elo0")]
)
def test_parse_names_the_bad_value(words, named):
    with pytest.raises(envs.ParameterError, match=named):
        sprt.SPRT.parse(words)


def test_bad_method_and_degenerate_hypotheses_are_named():
    with pytest.raises(envs.ParameterError, match="method"):
        sprt.SPRT(0, 10, method="bayes")
    with pytest.raises(envs.ParameterError, match="elo1"):
        sprt.SPRT(0, 1e5)  # an expected score of 1: only all-won pairs have that mean
    with pytest.raises(envs.ParameterError, match="counts"):
        sprt.SPRT(0, 10).llr([1, 2, 3])
