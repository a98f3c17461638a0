"""Figures of the study (the ``plot`` extra: matplotlib, imported only here and only when asked).

``plot_metrics``: every metric against A, one panel per metric and Np, one line per system.
``plot_budget``: every metric against games played for every system and parameter, per Np, with
the games–accuracy Pareto front. Each is written as PNG and SVG.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from .grid import ACCURACY, LOWER_IS_BETTER, pareto

INSTALL_HINT = 'plotting needs matplotlib: pip install "arbiter-games[plot]"'
LABELS = {
    "win": "Win: P(strongest is first)",
    "d": "D: total discrepancy",
    "mid": "Mid: place of the strongest",
    "tri": "Tri: places of the top 3 − 6",
}


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig, plot_dir, name):
    os.makedirs(plot_dir, exist_ok=True)
    paths = [os.path.join(plot_dir, f"{name}.{ext}") for ext in ("png", "svg")]
    fig.savefig(paths[0], dpi=110)
    fig.savefig(paths[1])
    return paths


def _direction(m):
    return "lower is better" if LOWER_IS_BETTER[m] else "higher is better"


def plot_metrics(
    rows: Sequence[dict[str, Any]], plot_dir: str | os.PathLike[str], name: str = "study_metrics"
) -> list[str]:
    """Small multiples: rows of panels are the metrics, columns the numbers of players; x is A,
    one line per system (95% intervals as error bars). Returns the paths written."""
    plt = _pyplot()
    sizes = sorted({r["n"] for r in rows})
    systems = list(dict.fromkeys(r["system"] for r in rows))
    cmap = plt.get_cmap("tab10")
    fig, axes = plt.subplots(
        len(ACCURACY), len(sizes), figsize=(3.4 * len(sizes) + 2.6, 2.7 * len(ACCURACY)), squeeze=False, sharex=True
    )
    for col, n in enumerate(sizes):
        for row, m in enumerate(ACCURACY):
            ax = axes[row, col]
            for s, system in enumerate(systems):
                cells = sorted((r for r in rows if r["n"] == n and r["system"] == system), key=lambda r: r["A"])
                ax.errorbar(
                    [r["A"] for r in cells],
                    [r[m] for r in cells],
                    yerr=[1.96 * r[m + "_se"] for r in cells],
                    color=cmap(s % 10),
                    linestyle="--" if "swiss" in system else "-",
                    marker="o",
                    markersize=3,
                    linewidth=1.2,
                    label=system,
                )
            if row == 0:
                ax.set_title(f"Np = {n}", fontsize=11)
            if col == 0:
                ax.set_ylabel(f"{LABELS[m]}\n({_direction(m)})", fontsize=8.5)
            if row == len(ACCURACY) - 1:
                ax.set_xlabel("A (how much the stronger player wins)", fontsize=8.5)
            ax.tick_params(labelsize=8)
            ax.grid(alpha=0.3)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8.5, frameon=False, title="system")
    fig.tight_layout(rect=(0, 0, 1 - 2.0 / fig.get_figwidth(), 1))
    paths = _save(fig, plot_dir, name)
    plt.close(fig)
    return paths


def plot_budget(
    rows: Sequence[dict[str, Any]], plot_dir: str | os.PathLike[str], name: str = "study_budget"
) -> list[str]:
    """Every metric against games per championship (log scale), per Np: one line per family
    through its parameters, the Pareto front as a grey step line. Returns the paths written."""
    plt = _pyplot()
    sizes = sorted({r["n"] for r in rows})
    families = list(dict.fromkeys(r["family"] for r in rows))
    cmap = plt.get_cmap("tab10")
    fig, axes = plt.subplots(
        len(ACCURACY), len(sizes), figsize=(3.4 * len(sizes) + 2.6, 2.7 * len(ACCURACY)), squeeze=False
    )
    for col, n in enumerate(sizes):
        here = [r for r in rows if r["n"] == n]
        for row, m in enumerate(ACCURACY):
            ax = axes[row, col]
            front = pareto(here, m)
            ax.step(
                [r["games"] for r in front],
                [r[m] for r in front],
                where="post",
                color="0.6",
                linewidth=4,
                alpha=0.5,
                label="Pareto front",
                zorder=1,
            )
            for f, family in enumerate(families):
                cells = sorted((r for r in here if r["family"] == family), key=lambda r: r["parameter"])
                ax.plot(
                    [r["games"] for r in cells],
                    [r[m] for r in cells],
                    color=cmap(f % 10),
                    marker="o",
                    markersize=2.5,
                    linewidth=1.1,
                    label=family,
                    zorder=2,
                )
            ax.set_xscale("log")
            if row == 0:
                ax.set_title(f"Np = {n}", fontsize=11)
            if col == 0:
                ax.set_ylabel(f"{LABELS[m]}\n({_direction(m)})", fontsize=8.5)
            if row == len(ACCURACY) - 1:
                ax.set_xlabel("games per championship", fontsize=8.5)
            ax.tick_params(labelsize=8)
            ax.grid(alpha=0.3, which="both")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="center right", fontsize=8.5, frameon=False)
    fig.tight_layout(rect=(0, 0, 1 - 2.0 / fig.get_figwidth(), 1))
    paths = _save(fig, plot_dir, name)
    plt.close(fig)
    return paths
