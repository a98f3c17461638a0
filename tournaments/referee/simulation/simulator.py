"""``simulate``: a series of model championships, planned as fixed chunks and run locally or on Ray.

A series is cut into chunks of ``CHUNK`` championships, each with its own SplitMix64 seed drawn
from the master seed. A chunk's sums depend only on its seed and count, and chunks are added in
chunk order, so the result is the same whatever runs the chunks: threads on this machine
(``executor=None``) or Ray tasks anywhere (``executor="ray"``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np

from envs.core import ParameterError
from envs.core import rng as R

from ..systems import Config, configure
from . import kernels as K
from .distributed import RayStudyExecutor
from .model import Model, Placing, Strengths, make_model

METRICS = ("win", "d", "mid", "tri", "games", "black")
CHUNK = 2000
SYSTEMS = ("round_robin", "olympic", "swiss", "swiss_study", "random_order")
System = Literal["round_robin", "olympic", "swiss", "swiss_study", "random_order"]


def system_config(system: System, n_players: int, **options: Any) -> Config:
    """The referee's configuration for a study system name.

    ``"swiss"`` is the referee's Swiss as real tournaments play it: rematches avoided whenever
    possible. ``"swiss_study"`` is the study's rule: neighbours in the standings meet, rematches
    allowed (``configure("swiss", avoid_rematches=False)``, ``arbiter tournament
    --allow-rematches``); ``"swiss"`` with ``avoid_rematches=False`` is the same and still accepted.
    """
    if system == "swiss_study":
        if options.get("avoid_rematches", False):
            raise ParameterError(
                "system='swiss_study' allows rematches; for the rematch-avoiding Swiss use system='swiss'"
            )
        options = {**options, "avoid_rematches": False}
        system = "swiss"
    elif system not in SYSTEMS:
        raise ParameterError(f"system={system!r}: expected one of {', '.join(SYSTEMS)}")
    return configure(system, n_players, **options)


@dataclass
class Cell:
    """One planned series: the system, the model and the chunks' counts and seeds."""

    config: Config
    model: Model
    championships: int
    counts: np.ndarray
    seeds: np.ndarray

    def arguments(self, chunks: slice = slice(None)) -> tuple[Any, ...]:
        """The arguments of ``kernels.series`` for some of the chunks."""
        model, elo = self.model.arrays(self.config.n_players)
        counts, seeds = self.counts[chunks], self.seeds[chunks]
        return (*self.config.arrays(), model, elo, counts, seeds, np.zeros((len(counts), K.NMETRICS, 2)))

    def summary(self, sums: np.ndarray) -> dict[str, tuple[float, float]]:
        """Means and standard errors from the per-chunk sums (added in chunk order)."""
        n = self.championships
        total = sums.sum(axis=0)
        mean = total[:, 0] / n
        var = np.maximum(total[:, 1] / n - mean**2, 0.0) * n / (n - 1)
        se = np.sqrt(var / n)
        return {m: (float(mean[j]), float(se[j])) for j, m in enumerate(METRICS)}


def plan(
    system: System,
    n_players: int,
    A: float | None = None,
    championships: int = 10_000,
    seed: int = 0,
    *,
    strengths: Strengths = "study",
    draw: float = 0.0,
    first_move_advantage: float = 0.0,
    placing: Placing = "points",
    cycles: int = 1,
    **options: Any,
) -> Cell:
    """Validate a simulation's parameters and cut it into seeded chunks."""
    config = system_config(system, n_players, **options)
    if n_players < 3:
        raise ParameterError(f"{n_players} players: the study's metrics need at least 3")
    model = make_model(
        config.n_players,
        A,
        strengths=strengths,
        draw=draw,
        first_move_advantage=first_move_advantage,
        placing=placing,
        cycles=cycles,
        system=config.system,
    )
    if isinstance(championships, bool) or not isinstance(championships, (int, np.integer)) or championships < 2:
        raise ParameterError(f"championships={championships!r}: expected an integer >= 2")
    nchunks = -(-int(championships) // CHUNK)
    counts = np.full(nchunks, CHUNK, dtype=np.int64)
    counts[-1] = championships - CHUNK * (nchunks - 1)
    master = R.new_rng(seed)
    seeds = np.array([R.next_u64(master) for _ in range(nchunks)], dtype=np.uint64)
    return Cell(config, model, int(championships), counts, seeds)


class StudyExecutor(Protocol):
    """What the study needs of an executor: ``run(cells)`` yielding ``(index, sums, seconds,
    cpu_seconds)`` for every cell (any order), and ``close()``."""

    def run(self, cells: Sequence[Cell]) -> Iterator[tuple[int, np.ndarray, float, float]]: ...

    def close(self) -> None: ...


class LocalExecutor:
    """Runs cells one after the other, the chunks of each on all cores (threads over the compiled kernel)."""

    def run(self, cells: Sequence[Cell]) -> Iterator[tuple[int, np.ndarray, float, float]]:
        """Yield ``(index, sums, seconds, cpu_seconds)`` for every cell, in order."""
        for i, cell in enumerate(cells):
            t, cpu = time.perf_counter(), time.process_time()
            args = cell.arguments()
            K.series(*args)
            yield i, args[-1], time.perf_counter() - t, time.process_time() - cpu

    def close(self) -> None:
        pass


def make_executor(executor: Literal["local", "ray"] | StudyExecutor | None) -> StudyExecutor:
    """None or ``"local"``: this machine; ``"ray"``: a local Ray or the one already connected;
    else an object with ``run(cells)`` and ``close()`` (e.g. ``RayStudyExecutor(address=...)``)."""
    if executor is None or executor == "local":
        return LocalExecutor()
    if executor == "ray":
        return RayStudyExecutor()
    if isinstance(executor, str) or not callable(getattr(executor, "run", None)):
        raise ParameterError(f"executor={executor!r}: expected 'local', 'ray' or an object with run(cells)")
    return executor


def simulate(
    system: System,
    n_players: int,
    A: float | None = None,
    championships: int = 10_000,
    seed: int = 0,
    *,
    strengths: Strengths = "study",
    draw: float = 0.0,
    first_move_advantage: float = 0.0,
    placing: Placing = "points",
    cycles: int = 1,
    executor: Literal["local", "ray"] | StudyExecutor | None = None,
    **options: Any,
) -> dict[str, tuple[float, float]]:
    """Simulate ``championships`` championships of ``system`` among ``n_players`` model players.

    ``system``: ``round_robin`` (``cycles=`` all-play-all cycles), ``olympic`` (``k=``,
    ``recursive=``), ``swiss`` (rematches avoided; ``rounds=``), ``swiss_study`` (the study's
    neighbour pairing, rematches allowed; ``rounds=``) or ``random_order`` (the study's "no
    rules"). Swiss defaults to the study's number of rounds (5, 7, 10, 13 for 8, 16, 32, 64).
    The player model (``A``, ``strengths``, ``draw``, ``first_move_advantage``) and ``placing``
    are described in ``tournaments.referee.simulation.model``; the defaults are the study's. ``executor``:
    None (this machine's cores), ``"ray"`` or a ``RayStudyExecutor``; the numbers do not depend on it.
    Returns ``{"win", "d", "mid", "tri", "games", "black"}`` mapped to ``(mean, standard_error)``;
    ``black`` is the first mover's share of the points.
    """
    cell = plan(
        system,
        n_players,
        A,
        championships,
        seed,
        strengths=strengths,
        draw=draw,
        first_move_advantage=first_move_advantage,
        placing=placing,
        cycles=cycles,
        **options,
    )
    runner = make_executor(executor)
    try:
        ((_, sums, _, _),) = runner.run([cell])
    finally:
        if runner is not executor:
            runner.close()
    return cell.summary(sums)
