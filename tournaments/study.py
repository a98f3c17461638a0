"""The championship study: how accurate is each system, and at what cost in games.

Player model: Np strengths drawn uniformly and rescaled so the weakest is 0 and the strongest 1;
one game between n and m is won by n with probability 0.5 + (A - 0.5)(F_n - F_m); no draws; the
starting draw is a random permutation. The championship itself is run by the very same compiled
pairing and placing rules as real tournaments (``_systems``), with the player model as the game.

Metrics per championship, averaged over a series (a player on an aggregate place counts the
interval's midpoint, so places 5–8 count 6.5):
  win    the strongest player's credit for first place: 1/s if it shares first place with s-1
         others (s = 1: alone), else 0;
  d      total discrepancy sum_i |place_i - i| (i = true place);
  mid    the strongest player's place;
  tri    place_1 + place_2 + place_3 - 6 for the three truly strongest;
  games  the number of games played.

Parallelism: the series is cut into fixed chunks of ``CHUNK`` championships, each with its own
SplitMix64 seed drawn from the master seed; numba's ``prange`` spreads chunks over the cores and
the per-chunk sums are added in chunk order, so results do not depend on the thread count.
"""

from __future__ import annotations

import csv
import io
import time

import numpy as np
from numba import njit, prange

from envs import _common as C

from . import _systems as S
from .referee import configure

METRICS = ("win", "d", "mid", "tri", "games")
CHUNK = 2000
GRID_N = (8, 16, 32, 64)
GRID_A = (0.5, 0.65, 0.75, 0.85, 1.0)


@njit(cache=True)
def _championship(T, met, mt, out, res, F, rng):
    """Play one championship with the player model; return the number of games."""
    A = F[-1]  # the field's A rides in the last cell (keeps the signature small)
    S.reset(T, met, mt, rng)
    while True:
        n = S.next_games(T, met, mt, rng, out)
        if n == 0:
            return T[S.T_GAMES]
        for i in range(n):
            black, white = out[i, 1], out[i, 2]
            p = 0.5 + (A - 0.5) * (F[black] - F[white])
            res[i] = S.BLACK_WINS if C.uniform(rng) < p else S.WHITE_WINS
        S.record(T, met, mt, out, res, n, rng)


@njit(cache=True)
def _chunk(T, met, mt, out, A, count, rng, sums):
    """Run ``count`` championships; add each metric's sum and sum of squares into ``sums``."""
    n = T[S.T_N]
    F = np.empty(n + 1)
    F[n] = A
    res = np.zeros(out.shape[0], dtype=np.int64)
    lo = np.zeros(n, dtype=np.int64)
    hi = np.zeros(n, dtype=np.int64)
    vals = np.zeros(5)
    for _ in range(count):
        for i in range(n):
            F[i] = C.uniform(rng)
        fmin, fmax = F[:n].min(), F[:n].max()
        for i in range(n):
            F[i] = (F[i] - fmin) / (fmax - fmin)
        games = _championship(T, met, mt, out, res, F, rng)
        S.places(T, lo, hi)
        true_order = np.argsort(-F[:n])  # true_order[t]: the player whose true place is t + 1
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
        for j in range(5):
            sums[j, 0] += vals[j]
            sums[j, 1] += vals[j] * vals[j]


@njit(cache=True, parallel=True)
def _series(T0, met0, mt0, out0, A, counts, seeds, sums):
    for c in prange(counts.shape[0]):
        T, met, mt, out = T0.copy(), met0.copy(), mt0.copy(), out0.copy()
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = seeds[c]
        _chunk(T, met, mt, out, A, counts[c], rng, sums[c])


def simulate(system, n_players, A, championships, seed=0, **options) -> dict:
    """Simulate ``championships`` championships of ``system`` among ``n_players`` model players.

    ``options`` are the system's (``k``, ``recursive``, ``avoid_rematches``, ``rounds``); note that
    ``avoid_rematches`` defaults to True, and the study's own Swiss is ``avoid_rematches=False``.
    Returns ``{"win", "d", "mid", "tri", "games"}`` mapped to ``(mean, standard_error)``.
    """
    config = configure(system, n_players, **options)
    if n_players < 3:
        raise ValueError(f"{n_players} players: the study's metrics need at least 3")
    if not 0.5 <= A <= 1.0:
        raise ValueError(f"A={A!r}: expected a number in [0.5, 1]")
    if not isinstance(championships, (int, np.integer)) or championships < 2:
        raise ValueError(f"championships={championships!r}: expected an integer >= 2")
    nchunks = -(-championships // CHUNK)
    counts = np.full(nchunks, CHUNK, dtype=np.int64)
    counts[-1] = championships - CHUNK * (nchunks - 1)
    master = C.new_rng(seed)
    seeds = np.array([C.next_u64(master) for _ in range(nchunks)], dtype=np.uint64)
    sums = np.zeros((nchunks, 5, 2))
    _series(*config.arrays(), float(A), counts, seeds, sums)
    total = sums.sum(axis=0)
    mean = total[:, 0] / championships
    var = np.maximum(total[:, 1] / championships - mean**2, 0.0) * championships / (championships - 1)
    se = np.sqrt(var / championships)
    return {m: (float(mean[j]), float(se[j])) for j, m in enumerate(METRICS)}


# -- the grid --------------------------------------------------------------------------------------
def grid_systems():
    """(label, system, options) for every row of the study's grid, in the study's order, plus our
    rematch-avoiding Swiss for comparison."""
    rows = [("round robin", "round_robin", {}), ("olympic", "olympic", {})]
    for k in (2, 3):
        rows.append((f"olympic k={k}", "olympic", {"k": k}))
    rows.append(("olympic recursive", "olympic", {"recursive": True}))
    for k in (2, 3):
        rows.append((f"olympic recursive k={k}", "olympic", {"recursive": True, "k": k}))
    rows.append(("swiss (study)", "swiss", {"avoid_rematches": False}))
    rows.append(("swiss (no rematches)", "swiss", {"avoid_rematches": True}))
    rows.append(("no rules", "random_order", {}))
    return rows


def run_grid(sizes=GRID_N, strengths=GRID_A, championships=None, seed=0, progress=None) -> list[dict]:
    """Every cell of the grid. ``championships`` defaults to the study's (1e6 for Np=8, else 1e5).

    Returns one dict per cell: label, n, A, the five metrics' means and standard errors, and the
    wall-clock and CPU (all threads) seconds it took.
    """
    rows = []
    for n in sizes:
        count = championships or (1_000_000 if n == 8 else 100_000)
        for label, system, options in grid_systems():
            for A in strengths:
                t, cpu = time.perf_counter(), time.process_time()
                r = simulate(system, n, A, count, seed=seed, **options)
                row = {"system": label, "n": n, "A": A, "championships": count,
                       "seconds": time.perf_counter() - t, "cpu_seconds": time.process_time() - cpu}
                for m in METRICS:
                    row[m], row[m + "_se"] = r[m]
                rows.append(row)
                if progress:
                    progress(row)
    return rows


def to_csv(rows) -> str:
    """The grid as CSV (one line per cell, means and standard errors)."""
    buf = io.StringIO()
    fields = ["system", "n", "A", "championships"] + [f for m in METRICS for f in (m, m + "_se")] + ["seconds", "cpu_seconds"]
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({f: row[f] for f in fields})
    return buf.getvalue()


def to_markdown(rows) -> str:
    """One table per Np: systems down, A across, each cell ``win / D / mid / tri``, then games."""
    out = []
    for n in sorted({r["n"] for r in rows}):
        cells = [r for r in rows if r["n"] == n]
        strengths = sorted({r["A"] for r in cells})
        out.append(f"### Np = {n} ({int(cells[0]['championships']):,} championships per cell)\n")
        out.append("Each cell: Win / D / Mid / Tri; games: the range over A (match systems stop early).\n")
        out.append("| system | games | " + " | ".join(f"A = {a:g}" for a in strengths) + " |")
        out.append("|---|---:|" + "---|" * len(strengths))
        for label in dict.fromkeys(r["system"] for r in cells):
            by_a = {r["A"]: r for r in cells if r["system"] == label}
            lo, hi = min(r["games"] for r in by_a.values()), max(r["games"] for r in by_a.values())
            games = f"{lo:.1f}" if hi - lo < 0.05 else f"{lo:.1f}–{hi:.1f}"
            vals = " | ".join(
                f"{by_a[a]['win']:.3f} / {by_a[a]['d']:.1f} / {by_a[a]['mid']:.2f} / {by_a[a]['tri']:.2f}"
                for a in strengths)
            out.append(f"| {label} | {games} | {vals} |")
        out.append("")
    return "\n".join(out)


def plot(rows, path, metric="d", A=0.75) -> None:
    """Accuracy (``metric``) against games played, one line per system, one panel per Np."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as e:  # an optional extra
        raise ImportError("plotting needs matplotlib: pip install 'arbiter-games[plot]' "
                          "(or pip install matplotlib)") from e
    sizes = sorted({r["n"] for r in rows})
    cols = min(2, len(sizes))
    rows_ = -(-len(sizes) // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(6.5 * cols, 4.5 * rows_), squeeze=False)
    for ax, n in zip(axes.flat, sizes):
        cells = [r for r in rows if r["n"] == n and r["A"] == A and r["system"] != "no rules"]
        for r in cells:
            ax.errorbar(max(r["games"], 1), r[metric], yerr=1.96 * r[metric + "_se"], fmt="o")
            ax.annotate(r["system"], (max(r["games"], 1), r[metric]), fontsize=7,
                        xytext=(3, 3), textcoords="offset points")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(f"Np = {n}, A = {A:g}")
        ax.set_xlabel("games per championship")
        ax.set_ylabel({"d": "total discrepancy D (lower is better)", "win": "P(strongest wins)",
                       "mid": "place of the strongest", "tri": "Tri"}[metric])
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_study(outdir, sizes=GRID_N, strengths=GRID_A, championships=None, seed=0, log=print) -> dict:
    """Run the grid and write ``grid.md``, ``grid.csv`` and (with matplotlib) ``accuracy.png``
    into ``outdir``; returns {"rows", "seconds", "files"}."""
    import os

    os.makedirs(outdir, exist_ok=True)
    t, cpu = time.perf_counter(), time.process_time()
    rows = run_grid(sizes, strengths, championships, seed,
                    progress=lambda r: log(f"Np={r['n']:>2} A={r['A']:<4} {r['system']:<26} "
                                           f"D={r['d']:9.2f} win={r['win']:.4f} ({r['seconds']:.1f}s, "
                                           f"cpu {r['cpu_seconds']:.1f}s)"))
    seconds, cpu_seconds = time.perf_counter() - t, time.process_time() - cpu
    files = [os.path.join(outdir, "grid.md"), os.path.join(outdir, "grid.csv")]
    with open(files[0], "w") as f:
        f.write(f"Grid computed in {seconds:.0f} s wall clock, {cpu_seconds:.0f} s CPU over all "
                f"threads (seed {seed}).\n\n## Most accurate system per metric\n\n"
                + best_systems(rows) + "\n\n## Accuracy against games\n\n" + efficiency(rows)
                + "\n## The grid\n\n" + to_markdown(rows))
    with open(files[1], "w") as f:
        f.write(to_csv(rows))
    try:
        plot(rows, os.path.join(outdir, "accuracy.png"))
        files.append(os.path.join(outdir, "accuracy.png"))
    except ImportError as e:
        log(f"no plot: {e}")
    return {"rows": rows, "seconds": seconds, "cpu_seconds": cpu_seconds, "files": files}


# -- reading the grid ------------------------------------------------------------------------------
LOWER_IS_BETTER = {"win": False, "d": True, "mid": True, "tri": True}


def best_systems(rows) -> str:
    """Markdown: for every Np and A > 0.5, the most accurate system by each metric (no rules
    excluded), with a ``≈`` mark when the runner-up is within two standard errors."""
    out = ["| Np | A | Win | D | Mid | Tri |", "|---:|---:|---|---|---|---|"]
    cells = [r for r in rows if r["system"] != "no rules"]
    for n in sorted({r["n"] for r in cells}):
        for a in sorted({r["A"] for r in cells if r["n"] == n and r["A"] > 0.5}):
            here = [r for r in cells if r["n"] == n and r["A"] == a]
            best = []
            for m, lower in LOWER_IS_BETTER.items():
                ranked = sorted(here, key=lambda r: r[m] if lower else -r[m])
                first, second = ranked[0], ranked[1]
                close = abs(first[m] - second[m]) < 2 * (first[m + "_se"] ** 2 + second[m + "_se"] ** 2) ** 0.5
                best.append(first["system"] + (f" (≈ {second['system']})" if close else ""))
            out.append(f"| {n} | {a:g} | " + " | ".join(best) + " |")
    return "\n".join(out)


def efficiency(rows, A=0.75) -> str:
    """Markdown: per Np at ``A``, the systems by games played with every metric, and for which
    metrics each system is on the games–accuracy Pareto front (no system with at most as many
    games is more accurate): the question "which system is most accurate for its cost"."""
    out = []
    for n in sorted({r["n"] for r in rows}):
        here = sorted((r for r in rows if r["n"] == n and r["A"] == A and r["system"] != "no rules"),
                      key=lambda r: r["games"])
        out += [f"**Np = {n}, A = {A:g}**", "",
                "| system | games | Win | D | Mid | Tri | best for its cost by |",
                "|---|---:|---:|---:|---:|---:|---|"]
        for r in here:
            front = [m.capitalize() if m != "d" else "D" for m, lower in LOWER_IS_BETTER.items()
                     if not any(o is not r and o["games"] <= r["games"]
                                and (o[m] < r[m] if lower else o[m] > r[m]) for o in here)]
            out.append(f"| {r['system']} | {r['games']:.1f} | {r['win']:.3f} | {r['d']:.1f} | "
                       f"{r['mid']:.2f} | {r['tri']:.2f} | {', '.join(front)} |")
        out.append("")
    return "\n".join(out)


def swiss_rounds_curve(n=16, A=0.75, rounds=range(1, 16), championships=20_000, seed=0) -> list[dict]:
    """D, Win and games of the study's Swiss for each number of rounds (cost of an extra round)."""
    rows = []
    for k in rounds:
        r = simulate("swiss", n, A, championships, seed=seed, rounds=k, avoid_rematches=False)
        rows.append({"rounds": k, **{m: r[m][0] for m in METRICS}, "d_se": r["d"][1]})
    return rows
