"""The simulator's compiled core: one championship under the player model, chunks of them, and
the Bradley–Terry fit behind ratings-based placing.

The model travels as a small float array (``MODEL_*`` indices) so that one compiled function
serves every model; the study's default model consumes exactly one uniform per player (the
strengths) and one per game, in the same order as it always has, so its results are bitwise
those of earlier versions.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import config, njit

from envs.core import rng as R

from .. import _systems as S

# the model array
MODEL_KIND, MODEL_A, MODEL_DRAW, MODEL_FMA, MODEL_SCALE, MODEL_PLACING, MODEL_CYCLES = range(7)
MODEL_SIZE = 7
STUDY, ELO_FIXED, ELO_NORMAL, ELO_UNIFORM = 0, 1, 2, 3  # how strengths are made
POINTS, RATINGS = 0, 1  # how places are given
NMETRICS = 6  # win, d, mid, tri, games, black
ELO_SCALE = 400.0 / np.log(10.0)
PRIOR_SD = 5.0  # tournaments.analysis.ratings' prior, natural units
TIE = 1e-9  # ratings closer than this (natural units) share their places


@njit(cache=True)
def _normal(rng):
    """A standard normal deviate (Box–Muller from two uniforms)."""
    u1 = 1.0 - R.uniform(rng)  # in (0, 1]
    u2 = R.uniform(rng)
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


@njit(cache=True)
def game_result(F, model, black, white, rng):
    """Draw one game's result: a draw with probability ``draw``, else Black wins with the model's
    probability p (shifted by the first-move advantage, clipped to [0, 1])."""
    if model[MODEL_KIND] == STUDY:
        A = model[MODEL_A]
        p = 0.5 + (A - 0.5) * (F[black] - F[white])
    else:
        p = 1.0 / (1.0 + 10.0 ** ((F[white] - F[black]) / 400.0))
    p = p + model[MODEL_FMA]
    if p > 1.0:
        p = 1.0
    elif p < 0.0:
        p = 0.0
    draw = model[MODEL_DRAW]
    u = R.uniform(rng)
    if u < draw:
        return S.DRAW
    return S.BLACK_WINS if u < draw + (1.0 - draw) * p else S.WHITE_WINS


@njit(cache=True)
def championship(T, met, mt, out, res, F, model, W, rng):
    """Play one championship with the player model; return the number of games. ``W[i, j]`` gains
    the half-points i took from j (kept for ratings-based placing only). Round robin may run
    ``cycles`` all-play-all cycles on one score table."""
    S.reset(T, met, mt, rng)
    keep = model[MODEL_PLACING] == RATINGS
    black_points = 0
    for cycle in range(int(model[MODEL_CYCLES])):
        if cycle > 0:  # the round robin once more, points carried over
            T[S.T_ROUND] = 0
            T[S.T_DONE] = 0
        while True:
            n = S.next_games(T, met, mt, rng, out)
            if n == 0:
                break
            for i in range(n):
                black, white = out[i, 1], out[i, 2]
                r = game_result(F, model, black, white, rng)
                res[i] = r
                half = S.WIN2 if r == S.BLACK_WINS else (S.DRAW2 if r == S.DRAW else 0)
                black_points += half
                if keep:
                    W[black, white] += half
                    W[white, black] += S.WIN2 - half
            S.record(T, met, mt, out, res, n, rng)
    return T[S.T_GAMES], black_points


@njit(cache=True)
def _cholesky_solve(M, b):
    """Solve M x = b for a symmetric positive definite M (M is overwritten by its factor)."""
    n = b.shape[0]
    for j in range(n):
        s = M[j, j]
        for k in range(j):
            s -= M[j, k] * M[j, k]
        M[j, j] = np.sqrt(s)
        for i in range(j + 1, n):
            s = M[i, j]
            for k in range(j):
                s -= M[i, k] * M[j, k]
            M[i, j] = s / M[j, j]
    x = b.copy()
    for i in range(n):
        for k in range(i):
            x[i] -= M[i, k] * x[k]
        x[i] /= M[i, i]
    for i in range(n - 1, -1, -1):
        for k in range(i + 1, n):
            x[i] -= M[k, i] * x[k]
        x[i] /= M[i, i]
    return x


@njit(cache=True)
def fit_ratings(W, G, iterations=100):
    """Bradley–Terry strengths (natural units, centred) from half-points ``W[i, j]`` and games
    ``G[i, j]``: ``tournaments.analysis.ratings.bradley_terry``'s Newton iteration and weak Gaussian prior,
    compiled (no standard errors: placing needs only the order)."""
    n = W.shape[0]
    lam = 1.0 / PRIOR_SD**2
    theta = np.zeros(n)
    grad = np.empty(n)
    M = np.empty((n, n))
    for _ in range(iterations):
        for i in range(n):
            grad[i] = -lam * theta[i]
            M[i, :] = 0.0
        for i in range(n):
            for j in range(n):
                g = G[i, j]
                if i != j and g > 0:
                    p = 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
                    grad[i] += 0.5 * W[i, j] - g * p
                    w = g * p * (1.0 - p)
                    M[i, j] -= w
                    M[i, i] += w
        for i in range(n):
            M[i, i] += lam
        step = _cholesky_solve(M, grad)
        biggest = 0.0
        for i in range(n):
            theta[i] += step[i]
            biggest = max(biggest, abs(step[i]))
        if biggest < 1e-10:
            break
    return theta - theta.mean()


@njit(cache=True)
def rating_places(W, G, lo, hi):
    """Places by fitted rating, highest first; ratings within ``TIE`` share their interval."""
    theta = fit_ratings(W, G)
    n = theta.shape[0]
    order = np.argsort(-theta, kind="mergesort")
    start = 0
    while start < n:
        end = start
        while end + 1 < n and theta[order[start]] - theta[order[end + 1]] < TIE:
            end += 1
        for t in range(start, end + 1):
            lo[order[t]], hi[order[t]] = start + 1, end + 1
        start = end + 1


@njit(cache=True)
def chunk(T, met, mt, out, model, elo, count, rng, sums):
    """Run ``count`` championships; add each metric's sum and sum of squares into ``sums``."""
    n = T[S.T_N]
    kind = model[MODEL_KIND]
    scale = model[MODEL_SCALE]
    F = np.empty(n)
    res = np.zeros(out.shape[0], dtype=np.int64)
    lo = np.zeros(n, dtype=np.int64)
    hi = np.zeros(n, dtype=np.int64)
    W = np.zeros((n, n), dtype=np.int64)
    vals = np.zeros(NMETRICS)
    ratings = model[MODEL_PLACING] == RATINGS
    for _ in range(count):
        if kind == STUDY:
            for i in range(n):
                F[i] = R.uniform(rng)
            fmin, fmax = F.min(), F.max()
            for i in range(n):
                F[i] = (F[i] - fmin) / (fmax - fmin)
        elif kind == ELO_FIXED:
            F[:] = elo
        elif kind == ELO_NORMAL:
            for i in range(n):
                F[i] = scale * _normal(rng)
        else:
            for i in range(n):
                F[i] = scale * R.uniform(rng)
        if ratings:
            W[:, :] = 0
        games, black_points = championship(T, met, mt, out, res, F, model, W, rng)
        if ratings:
            rating_places(W, met, lo, hi)
        else:
            S.places(T, lo, hi)
        true_order = np.argsort(-F, kind="mergesort")  # true_order[t]: the player whose true place is t + 1
        best = true_order[0]
        vals[0] = 1.0 / (hi[best] - lo[best] + 1) if lo[best] == 1 else 0.0
        d = 0.0
        for t in range(n):
            p = true_order[t]
            d += abs(0.5 * (lo[p] + hi[p]) - (t + 1))
        vals[1] = d
        vals[2] = 0.5 * (lo[best] + hi[best])
        tri = -6.0
        for t in range(min(3, n)):
            p = true_order[t]
            tri += 0.5 * (lo[p] + hi[p])
        vals[3] = tri
        vals[4] = games
        vals[5] = black_points / (2.0 * games) if games > 0 else 0.5
        for j in range(NMETRICS):
            sums[j, 0] += vals[j]
            sums[j, 1] += vals[j] * vals[j]


@njit(cache=True, nogil=True)
def run_chunks(T0, met0, mt0, out0, model, elo, counts, seeds, sums):
    """Every chunk ``c`` of (part of) a series: ``counts[c]`` championships from seed
    ``seeds[c]``, sums into ``sums[c]``. Without the GIL, so that threads run chunks at once."""
    for c in range(counts.shape[0]):
        T, met, mt, out = T0.copy(), met0.copy(), mt0.copy(), out0.copy()
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = seeds[c]
        chunk(T, met, mt, out, model, elo, counts[c], rng, sums[c])


def series(T0, met0, mt0, out0, model, elo, counts, seeds, sums, threads=None):
    """Every chunk of a series (``run_chunks``), spread over ``threads`` threads (default:
    ``numba.config.NUMBA_NUM_THREADS``, the cores numba would use). Each chunk's result is
    independent of the others and of the thread that ran it.

    Threads over a ``nogil`` function rather than numba's ``parallel=True``: the same use of the
    cores, without the parallel compile (5 of a cold trust line's 10 seconds of compiling)."""
    threads = config.NUMBA_NUM_THREADS if threads is None else threads
    n = counts.shape[0]
    if threads <= 1 or n <= 1:
        run_chunks(T0, met0, mt0, out0, model, elo, counts, seeds, sums)
        return
    with ThreadPoolExecutor(min(threads, n)) as pool:
        done = [
            pool.submit(
                run_chunks, T0, met0, mt0, out0, model, elo, counts[c : c + 1], seeds[c : c + 1], sums[c : c + 1]
            )
            for c in range(n)
        ]
        for future in done:
            future.result()
