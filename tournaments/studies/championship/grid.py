"""The study's grids and their tables: the reference grid (every system × Np × A), the same
systems under other player models, points against ratings-based placing, and the equal-budget
comparison (accuracy against games for every system and parameter, with its Pareto front).

Every grid is a list of *specs* ``(row, simulate-arguments)`` run by one executor, so a Ray
cluster gets the whole grid at once; a row is a dict of its labels plus every metric's mean and
standard error (``win``, ``win_se``, ...) and the seconds it took.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from ...referee.simulation.simulator import METRICS, StudyExecutor, System, make_executor, plan, simulate
from ...referee.systems import study_swiss_rounds

if TYPE_CHECKING:
    from os import PathLike

    from ...referee.progress import Progress

# one cell of a table: its labels (system, n, A, ...), every metric's mean and ``<metric>_se``,
# ``championships``, ``seconds`` and ``cpu_seconds``
Row = dict[str, Any]
# a cell to simulate: ``(row labels, keyword arguments of simulate)``
Spec = tuple[dict[str, Any], dict[str, Any]]
ExecutorArg = Literal["local", "ray"] | StudyExecutor | None

GRID_N = (8, 16, 32, 64)
GRID_A = (0.5, 0.65, 0.75, 0.85, 1.0)
ACCURACY = ("win", "d", "mid", "tri")
LOWER_IS_BETTER = {"win": False, "d": True, "mid": True, "tri": True}
METRIC_NAMES = {"win": "Win", "d": "D", "mid": "Mid", "tri": "Tri"}


def grid_systems() -> list[tuple[str, System, dict[str, Any]]]:
    """(label, system, options) for every row of the study's grid, in the study's order, plus the
    rematch-avoiding Swiss that real tournaments play."""
    rows: list[tuple[str, System, dict[str, Any]]] = [("round robin", "round_robin", {}), ("olympic", "olympic", {})]
    for k in (2, 3):
        rows.append((f"olympic k={k}", "olympic", {"k": k}))
    rows.append(("olympic recursive", "olympic", {"recursive": True}))
    for k in (2, 3):
        rows.append((f"olympic recursive k={k}", "olympic", {"recursive": True, "k": k}))
    rows.append(("swiss (study)", "swiss_study", {}))
    rows.append(("swiss (no rematches)", "swiss", {}))
    rows.append(("no rules", "random_order", {}))
    return rows


def run_specs(
    specs: Sequence[Spec], executor: ExecutorArg = None, progress: Callable[[Row], object] | None = None
) -> list[Row]:
    """Simulate every spec ``(row, kwargs)`` (kwargs of ``simulate``) with one executor; return the
    rows, in the specs' order, with the metrics and timing added."""
    cells = [plan(**kwargs) for _, kwargs in specs]
    runner = make_executor(executor)
    rows = [None] * len(cells)
    try:
        for i, sums, seconds, cpu in runner.run(cells):
            result = cells[i].summary(sums)
            row = {**specs[i][0], "championships": cells[i].championships, "seconds": seconds, "cpu_seconds": cpu}
            for m in METRICS:
                row[m], row[m + "_se"] = result[m]
            rows[i] = row
            if progress:
                progress(row)
    finally:
        if runner is not executor:
            runner.close()
    return rows


def grid_specs(
    sizes: Iterable[int] = GRID_N,
    strengths: Iterable[float] = GRID_A,
    championships: int | None = None,
    seed: int = 0,
    **model: Any,
) -> list[Spec]:
    """The reference grid's specs; ``model``: extra ``simulate`` arguments (draw=, placing=...)."""
    specs = []
    for n in sizes:
        count = championships or (1_000_000 if n == 8 else 100_000)
        for label, system, options in grid_systems():
            for A in strengths:
                specs.append(
                    (
                        {"system": label, "n": n, "A": A},
                        dict(system=system, n_players=n, A=A, championships=count, seed=seed, **model, **options),
                    )
                )
    return specs


def run_grid(
    sizes: Iterable[int] = GRID_N,
    strengths: Iterable[float] = GRID_A,
    championships: int | None = None,
    seed: int = 0,
    progress: Callable[[Row], object] | None = None,
    executor: ExecutorArg = None,
    **model: Any,
) -> list[Row]:
    """Every cell of the grid. ``championships`` defaults to the study's (1e6 for Np=8, else 1e5);
    ``model`` passes player-model arguments to every cell (``draw=0.3``, ``placing="ratings"``...).

    Returns one dict per cell: system label, n, A, every metric's mean and standard error, and
    the wall-clock and CPU seconds it took.
    """
    return run_specs(grid_specs(sizes, strengths, championships, seed, **model), executor, progress)


# -- CSV -------------------------------------------------------------------------------------------
def to_csv(rows: Iterable[Row], labels: Sequence[str] = ("system", "n", "A")) -> str:
    """Rows as CSV (one line per cell, means and standard errors, then timing)."""
    buf = io.StringIO()
    fields = [*labels, "championships"] + [f for m in METRICS for f in (m, m + "_se")] + ["seconds", "cpu_seconds"]
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    w.writeheader()
    for row in rows:
        w.writerow(row)
    return buf.getvalue()


def read_csv(path: str | PathLike[str]) -> list[Row]:
    """Rows from a CSV written by ``to_csv`` (numbers as numbers; columns of older versions that
    lack a metric simply lack it)."""
    rows = []
    with open(path, newline="") as f:
        for raw in csv.DictReader(f):
            row = {}
            for key, value in raw.items():
                try:
                    row[key] = int(value) if key in ("n", "championships") else float(value)
                except ValueError:
                    row[key] = value
            rows.append(row)
    return rows


# -- tables ----------------------------------------------------------------------------------------
def to_markdown(rows: Sequence[Row]) -> str:
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
                for a in strengths
            )
            out.append(f"| {label} | {games} | {vals} |")
        out.append("")
    return "\n".join(out)


def best_systems(rows: Sequence[Row]) -> str:
    """Markdown: for every Np and A > 0.5, the most accurate system by each metric (no rules
    excluded), with a ``≈`` mark when the runner-up is within two standard errors."""
    out = ["| Np | A | Win | D | Mid | Tri |", "|---:|---:|---|---|---|---|"]
    cells = [r for r in rows if r["system"] != "no rules"]
    for n in sorted({r["n"] for r in cells}):
        for a in sorted({r["A"] for r in cells if r["n"] == n and r["A"] > 0.5}):
            here = [r for r in cells if r["n"] == n and r["A"] == a]
            out.append(f"| {n} | {a:g} | " + " | ".join(_best(here, m) for m in ACCURACY) + " |")
    return "\n".join(out)


def _best(rows, m):
    """The most accurate row's label by metric ``m``, with ``(≈ runner-up)`` within 2 SE."""
    lower = LOWER_IS_BETTER[m]
    ranked = sorted(rows, key=lambda r: r[m] if lower else -r[m])
    first, second = ranked[0], ranked[1]
    close = abs(first[m] - second[m]) < 2 * (first[m + "_se"] ** 2 + second[m + "_se"] ** 2) ** 0.5
    return first["system"] + (f" (≈ {second['system']})" if close else "")


def pareto(rows: Iterable[Row], m: str) -> list[Row]:
    """The rows on the games–accuracy front by metric ``m``: no row with at most as many games is
    more accurate. In order of games."""
    lower = LOWER_IS_BETTER[m]
    return [
        r
        for r in sorted(rows, key=lambda r: r["games"])
        if not any(o is not r and o["games"] <= r["games"] and (o[m] < r[m] if lower else o[m] > r[m]) for o in rows)
    ]


def efficiency(rows: Sequence[Row], A: float = 0.75) -> str:
    """Markdown: per Np at ``A``, the systems by games played with every metric, and for which
    metrics each system is on the games–accuracy Pareto front: the question "which system is
    most accurate for its cost"."""
    out = []
    for n in sorted({r["n"] for r in rows}):
        here = sorted(
            (r for r in rows if r["n"] == n and r["A"] == A and r["system"] != "no rules"), key=lambda r: r["games"]
        )
        fronts = {m: {id(r) for r in pareto(here, m)} for m in ACCURACY}
        out += [
            f"**Np = {n}, A = {A:g}**",
            "",
            "| system | games | Win | D | Mid | Tri | best for its cost by |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for r in here:
            front = [METRIC_NAMES[m] for m in ACCURACY if id(r) in fronts[m]]
            out.append(
                f"| {r['system']} | {r['games']:.1f} | {r['win']:.3f} | {r['d']:.1f} | "
                f"{r['mid']:.2f} | {r['tri']:.2f} | {', '.join(front)} |"
            )
        out.append("")
    return "\n".join(out)


# -- other player models ---------------------------------------------------------------------------
MODELS = (
    ("study", {}),
    ("draw 0.3", {"draw": 0.3}),
    ("first move +0.05", {"first_move_advantage": 0.05}),
    ("draw 0.3, first move +0.05", {"draw": 0.3, "first_move_advantage": 0.05}),
)


def model_specs(
    sizes: Iterable[int] = GRID_N,
    A: float = 0.75,
    championships: int = 100_000,
    seed: int = 0,
    models: Iterable[tuple[str, dict[str, Any]]] = MODELS,
) -> list[Spec]:
    """Every system of the grid at one A under each of ``models`` ((label, simulate arguments))."""
    return [
        (
            {"model": label, "system": sys_label, "n": n, "A": A},
            dict(system=system, n_players=n, A=A, championships=championships, seed=seed, **extra, **options),
        )
        for n in sizes
        for label, extra in models
        for sys_label, system, options in grid_systems()
    ]


def models_table(rows: Sequence[Row]) -> str:
    """Markdown: per Np, each system's D (with its games, which draws raise in knock-out matches)
    and Win under every model, and each model's most accurate systems for their cost (D front)."""
    models = list(dict.fromkeys(r["model"] for r in rows))
    out = []
    for n in sorted({r["n"] for r in rows}):
        here = [r for r in rows if r["n"] == n]
        by = {(r["model"], r["system"]): r for r in here}
        fronts = {
            mod: {
                r["system"] for r in pareto([r for r in here if r["model"] == mod and r["system"] != "no rules"], "d")
            }
            for mod in models
        }
        out += [
            f"**Np = {n}, A = {here[0]['A']:g}** ({int(here[0]['championships']):,} championships per "
            "cell; D (games) and Win per model; `*`: on the D front for its cost)",
            "",
            "| system | "
            + " | ".join(f"D: {m}" for m in models)
            + " | "
            + " | ".join(f"Win: {m}" for m in models)
            + " |",
            "|---|" + "---:|" * (2 * len(models)),
        ]
        for label in dict.fromkeys(r["system"] for r in here):
            if label == "no rules":
                continue
            d = " | ".join(
                f"{by[m, label]['d']:.1f}{'*' if label in fronts[m] else ''} ({by[m, label]['games']:.0f})"
                for m in models
            )
            w = " | ".join(f"{by[m, label]['win']:.3f}" for m in models)
            out.append(f"| {label} | {d} | {w} |")
        out.append("")
    return "\n".join(out)


# -- points against ratings ------------------------------------------------------------------------
def placing_specs(
    sizes: Iterable[int] = GRID_N, A: float = 0.75, championships: int = 20_000, seed: int = 0
) -> list[Spec]:
    """Every system of the grid (but no rules) at one A, placed by points and by ratings."""
    return [
        (
            {"placing": placing, "system": label, "n": n, "A": A},
            dict(system=system, n_players=n, A=A, championships=championships, seed=seed, placing=placing, **options),
        )
        for n in sizes
        for label, system, options in grid_systems()
        if system != "random_order"
        for placing in ("points", "ratings")
    ]


def placing_table(rows: Sequence[Row]) -> str:
    """Markdown: per Np, every metric by points → by ratings, the better one in bold when they
    differ by more than two standard errors."""
    out = []
    for n in sorted({r["n"] for r in rows}):
        here = [r for r in rows if r["n"] == n]
        by = {(r["placing"], r["system"]): r for r in here}
        out += [
            f"**Np = {n}, A = {here[0]['A']:g}** ({int(here[0]['championships']):,} championships per "
            "cell; points → ratings, bold: better by more than 2 standard errors)",
            "",
            "| system | games | Win | D | Mid | Tri |",
            "|---|---:|---|---|---|---|",
        ]
        for label in dict.fromkeys(r["system"] for r in here):
            p, r = by["points", label], by["ratings", label]
            cells = []
            for m in ACCURACY:
                fmt = "{:.3f}" if m == "win" else "{:.1f}" if m == "d" else "{:.2f}"
                a, b = fmt.format(p[m]), fmt.format(r[m])
                if abs(p[m] - r[m]) > 2 * (p[m + "_se"] ** 2 + r[m + "_se"] ** 2) ** 0.5:
                    better_p = (p[m] < r[m]) == LOWER_IS_BETTER[m]
                    a, b = (f"**{a}**", b) if better_p else (a, f"**{b}**")
                cells.append(f"{a} → {b}")
            out.append(f"| {label} | {p['games']:.1f} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


# -- equal budget ----------------------------------------------------------------------------------
def budget_systems(n: int) -> list[tuple[str, int, System, dict[str, Any]]]:
    """(family, parameter, system, options) for the equal-budget comparison at ``n`` players:
    round robin for 1–3 cycles, olympic and recursive olympic for k = 1–5, the study's Swiss for
    1 to twice its rounds, the rematch-avoiding Swiss for 1 to min(twice its rounds, n - 1,
    ``MAX_REMATCH_FREE_ROUNDS``)."""
    rows: list[tuple[str, int, System, dict[str, Any]]] = [
        ("round robin", c, "round_robin", {"cycles": c}) for c in (1, 2, 3)
    ]
    for k in range(1, 6):
        rows.append(("olympic", k, "olympic", {"k": k}))
        rows.append(("olympic recursive", k, "olympic", {"k": k, "recursive": True}))
    most = 2 * study_swiss_rounds(n)
    rows += [("swiss (study)", r, "swiss_study", {"rounds": r}) for r in range(1, most + 1)]
    rows += [
        ("swiss (no rematches)", r, "swiss", {"rounds": r})
        for r in range(1, min(most, n - 1, MAX_REMATCH_FREE_ROUNDS) + 1)
    ]
    return rows


# Beyond about Np/2 rounds the rematch-free pairing search has few pairings left to find and tries
# many before it allows a rematch: 32 players take 1.4 s of CPU per 20,000 championships at 14
# rounds, 49 s at 17. The study's Swiss covers the longer tournaments.
MAX_REMATCH_FREE_ROUNDS = 15
BUDGET_PARAMETER = {
    "round robin": "cycles",
    "olympic": "k",
    "olympic recursive": "k",
    "swiss (study)": "rounds",
    "swiss (no rematches)": "rounds",
}


def budget_specs(
    sizes: Iterable[int] = GRID_N, A: float = 0.75, championships: int = 20_000, seed: int = 0
) -> list[Spec]:
    """The equal-budget comparison's specs: every family and parameter of ``budget_systems``."""
    return [
        (
            {
                "family": family,
                "parameter": param,
                "system": f"{family} {BUDGET_PARAMETER[family]}={param}",
                "n": n,
                "A": A,
            },
            dict(system=system, n_players=n, A=A, championships=championships, seed=seed, **options),
        )
        for n in sizes
        for family, param, system, options in budget_systems(n)
    ]


def budget_table(rows: Sequence[Row]) -> str:
    """Markdown: per Np, the configurations on the games–accuracy front for at least one metric,
    by games, with the metrics they are on the front for."""
    out = []
    for n in sorted({r["n"] for r in rows}):
        here = [r for r in rows if r["n"] == n]
        fronts = {m: {id(r) for r in pareto(here, m)} for m in ACCURACY}
        out += [
            f"**Np = {n}, A = {here[0]['A']:g}** ({int(here[0]['championships']):,} championships per "
            f"configuration; {len(here)} configurations, those on a front listed)",
            "",
            "| configuration | games | Win | D | Mid | Tri | on the front by |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for r in sorted(here, key=lambda r: (r["games"], r["system"])):
            front = [METRIC_NAMES[m] for m in ACCURACY if id(r) in fronts[m]]
            if front:
                out.append(
                    f"| {r['system']} | {r['games']:.1f} | {r['win']:.3f} | {r['d']:.1f} | "
                    f"{r['mid']:.2f} | {r['tri']:.2f} | {', '.join(front)} |"
                )
        out.append("")
    return "\n".join(out)


def swiss_rounds_curve(
    n: int = 16, A: float = 0.75, rounds: Iterable[int] = range(1, 16), championships: int = 20_000, seed: int = 0
) -> list[dict[str, Any]]:
    """D, Win and games of the study's Swiss for each number of rounds (cost of an extra round)."""
    rows = []
    for k in rounds:
        r = simulate("swiss_study", n, A, championships, seed=seed, rounds=k)
        rows.append({"rounds": k, **{m: r[m][0] for m in METRICS}, "d_se": r["d"][1]})
    return rows


def work(championships: int, n_players: int) -> float:
    """A cell's expected cost, for the time left: championships x players. Measured on the
    reference grid, a cell's CPU time per championship about doubles with the players (8 -> 64:
    4 -> 39 microseconds on average); systems differ within a factor of 10 at equal players."""
    return float(championships) * n_players


def log_rows(log: Callable[[str], object], progress: Progress | None = None) -> Callable[[Row], None]:
    """A progress callback printing each finished row; with ``progress`` (a
    ``tournaments.referee.progress.Progress`` of the cells), each line ends with cells done of the
    total and the time left."""

    def show(r: Row) -> None:
        label = " ".join(str(r[k]) for k in ("model", "placing", "system") if k in r)
        where = ""
        if progress is not None:
            progress.tick(work=work(r["championships"], r["n"]))
            where = f" [{progress.status()}]"
        log(
            f"Np={r['n']:>2} A={r['A']:<4} {label:<34} D={r['d']:9.2f} win={r['win']:.4f} "
            f"({r['seconds']:.1f}s, cpu {r['cpu_seconds']:.1f}s){where}"
        )

    return show


PARTS = ("grid", "models", "placing", "budget")
