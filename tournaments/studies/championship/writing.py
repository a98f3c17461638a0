"""The study written out: ``write_study`` runs the parts asked for (the grid, the other player
models, ratings-based placing, equal budgets), writes each one's table as Markdown and CSV, and
with a plot directory draws its figures (``plots``, the plot extra).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Sequence
from os import PathLike
from typing import Any, Literal

from envs.core import ParameterError

from ...referee.progress import Progress
from . import plots
from .grid import (
    GRID_A,
    GRID_N,
    PARTS,
    ExecutorArg,
    Row,
    Spec,
    best_systems,
    budget_specs,
    budget_table,
    efficiency,
    grid_specs,
    log_rows,
    model_specs,
    models_table,
    placing_specs,
    placing_table,
    run_specs,
    to_csv,
    to_markdown,
    work,
)


def write_study(
    outdir: str | PathLike[str],
    sizes: Iterable[int] = GRID_N,
    strengths: Iterable[float] = GRID_A,
    championships: int | None = None,
    seed: int = 0,
    log: Callable[[str], object] = print,
    executor: ExecutorArg = None,
    plot_dir: str | PathLike[str] | None = None,
    rows: Sequence[Row] | None = None,
    parts: Iterable[Literal["grid", "models", "placing", "budget"]] = ("grid",),
    **model: Any,
) -> dict[str, Any]:
    """Run the study's ``parts`` and write each one's ``<part>.md`` and ``<part>.csv`` into
    ``outdir``, and with ``plot_dir`` the plots (PNG and SVG; the plot extra). Returns {"rows"
    (the grid's), "seconds", "cpu_seconds", "files"}.

    grid     every system × Np (``sizes``) × A (``strengths``); ``model`` passes player-model
             arguments to every cell (``draw=0.3``...); ``rows`` reuses a grid already computed
             (e.g. ``read_csv("docs/study_grid.csv")``) instead of simulating;
    models   every system at A = 0.75 under the study's model, draws 0.3, a first-move advantage
             of 0.05 and both;
    placing  every system at A = 0.75 placed by points and by a Bradley–Terry fit;
    budget   accuracy against games for every system and parameter at A = 0.75.
    ``championships`` per cell defaults to 1,000,000 (Np = 8) / 100,000 for the grid and the
    models, 20,000 for placing and budget.
    """
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise ParameterError(f"parts={unknown!r}: expected some of {', '.join(PARTS)}")
    os.makedirs(outdir, exist_ok=True)
    t, cpu = time.perf_counter(), time.process_time()
    planned = _planned(parts, rows, sizes, strengths, championships, seed, model)
    progress = _progress(planned, log)
    out = _Output(outdir, plot_dir)
    rows = _write_parts(planned, parts, rows, seed, executor, progress, out)
    return {
        "rows": rows,
        "seconds": time.perf_counter() - t,
        "cpu_seconds": time.process_time() - cpu,
        "files": out.files,
    }


def _planned(parts, rows, sizes, strengths, championships, seed, model) -> dict[str, list[Spec]]:
    """Each part's specs, all made first so that the progress knows the total."""
    planned = {}
    if "grid" in parts and rows is None:
        planned["grid"] = grid_specs(sizes, strengths, championships, seed, **model)
    if "models" in parts:
        planned["models"] = model_specs(sizes, championships=championships or 100_000, seed=seed)
    if "placing" in parts:
        planned["placing"] = placing_specs(sizes, championships=championships or 20_000, seed=seed)
    if "budget" in parts:
        planned["budget"] = budget_specs(sizes, championships=championships or 20_000, seed=seed)
    return planned


def _progress(planned: dict[str, list[Spec]], log: Callable[[str], object]) -> Callable[[Row], None]:
    """Says what is to be simulated, and returns what logs each finished cell with the time left."""
    cells = [kwargs for specs in planned.values() for _, kwargs in specs]
    if cells:
        log(
            f"simulating {len(cells)} cells ({', '.join(planned)}: "
            f"{sum(k['championships'] for k in cells):,} championships); a line per cell with the time left"
        )
    total = sum(work(k["championships"], k["n_players"]) for k in cells)
    return log_rows(log, Progress(False, total=len(cells), unit="cell", work=total))


class _Output:
    """The files written into ``outdir`` (and the plots into ``plot_dir``, when given), in order."""

    def __init__(self, outdir: str | PathLike[str], plot_dir: str | PathLike[str] | None) -> None:
        self.outdir, self.plot_dir = outdir, plot_dir
        self.files: list[str] = []

    def write(self, name: str, text: str) -> None:
        self.files.append(os.path.join(self.outdir, name))
        with open(self.files[-1], "w") as f:
            f.write(text)

    def plot(self, kind: str, data: Sequence[Row]) -> None:
        if self.plot_dir is not None:
            self.files.extend(getattr(plots, kind)(data, self.plot_dir))


def _write_parts(planned, parts, rows, seed, executor, progress, out: _Output) -> Sequence[Row] | None:
    """Simulate and write every part asked for, in the study's order; returns the grid's rows."""
    if "grid" in parts:
        if rows is None:
            rows = run_specs(planned["grid"], executor, progress)
        out.write(
            "grid.md",
            f"Seed {seed}.\n\n## Most accurate system per metric\n\n"
            + best_systems(rows)
            + "\n\n## Accuracy against games\n\n"
            + efficiency(rows)
            + "\n## The grid\n\n"
            + to_markdown(rows),
        )
        out.write("grid.csv", to_csv(rows))
        out.plot("plot_metrics", rows)
    if "models" in parts:
        found = run_specs(planned["models"], executor, progress)
        out.write("models.md", models_table(found))
        out.write("models.csv", to_csv(found, labels=("model", "system", "n", "A")))
    if "placing" in parts:
        found = run_specs(planned["placing"], executor, progress)
        out.write("placing.md", placing_table(found))
        out.write("placing.csv", to_csv(found, labels=("placing", "system", "n", "A")))
    if "budget" in parts:
        found = run_specs(planned["budget"], executor, progress)
        out.write("budget.md", budget_table(found))
        out.write("budget.csv", to_csv(found, labels=("family", "parameter", "system", "n", "A")))
        out.plot("plot_budget", found)
    return rows
