"""The study's chunks as Ray tasks (the ``distributed`` extra).

    simulate("swiss", 64, 0.75, 1_000_000, executor="ray")                   # a local Ray
    run_grid(executor=RayStudyExecutor(address="auto"))                      # a running cluster
    $ arbiter study --executor ray --address auto

Every cell of a grid is cut into its fixed chunks (``CHUNK`` championships, seeds drawn from the
master seed as in a local run) and the chunks go to Ray in tasks of ``chunks_per_task``, each
task one CPU; the driver adds the chunks' sums in chunk order, so the numbers are identical to a
local run with the same seed, on any number of nodes.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from agents import ray_cluster
from envs.core import ParameterError

from ..ray_executor import require_ray
from . import kernels

if TYPE_CHECKING:
    import numpy as np

    from .simulator import Cell


def _run_chunks(args):
    """A Ray task: some chunks of one cell, on one core; returns (sums, seconds, cpu_seconds)."""

    t, cpu = time.perf_counter(), time.process_time()
    args = [np.array(a) for a in args]  # Ray hands over read-only arrays; the kernels write
    kernels.series(*args, threads=1)  # the task holds one CPU; Ray spreads the tasks
    return args[-1], time.perf_counter() - t, time.process_time() - cpu


class RayStudyExecutor:
    """Runs the chunks of a list of cells as Ray tasks.

    ``address``: None starts a local Ray (``num_cpus``, default this machine's) unless Ray is
    already initialised; ``"auto"`` or ``"host:port"`` joins a running cluster. A Ray this executor
    started is shut down by ``close()``.
    """

    def __init__(self, address: str | None = None, num_cpus: int | None = None, chunks_per_task: int = 4) -> None:
        require_ray(ParameterError)  # the install hint now, not at the first cell
        if isinstance(chunks_per_task, bool) or not isinstance(chunks_per_task, int) or chunks_per_task < 1:
            raise ParameterError(f"chunks_per_task={chunks_per_task!r}: expected a positive integer")
        self.address, self.num_cpus, self.chunks_per_task = address, num_cpus, chunks_per_task
        self._started = False

    def _start(self):
        ray = require_ray(ParameterError)
        if ray_cluster.connect(self.address, self.num_cpus, ParameterError):
            self._started = True
        return ray

    def run(self, cells: Sequence[Cell]) -> Iterator[tuple[int, np.ndarray, float, float]]:
        """Yield ``(index, sums, seconds, cpu_seconds)`` for every cell as its last task finishes
        (seconds: the tasks' wall time added up; cpu_seconds: their CPU time)."""

        ray = self._start()
        task = ray.remote(num_cpus=1)(_run_chunks)
        refs = {}  # object ref -> (cell, first chunk)
        parts = []
        for i, cell in enumerate(cells):
            parts.append([None] * len(cell.counts))
            for start in range(0, len(cell.counts), self.chunks_per_task):
                chunks = slice(start, start + self.chunks_per_task)
                refs[task.remote(cell.arguments(chunks))] = (i, start)
        left = [len(p) for p in parts]
        seconds = [0.0] * len(cells)
        cpu = [0.0] * len(cells)
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                i, start = refs.pop(ref)
                sums, wall, used = ray.get(ref)
                for j, row in enumerate(sums):
                    parts[i][start + j] = row
                left[i] -= len(sums)
                seconds[i] += wall
                cpu[i] += used
                if left[i] == 0:
                    yield i, np.stack(parts[i]), seconds[i], cpu[i]

    def close(self) -> None:
        if self._started:
            require_ray(ParameterError).shutdown()
            self._started = False
