"""Tournaments on a Ray cluster: the executor interface of ``tournaments.referee.executor`` over Ray actors.

    result = tournaments.round_robin(agents, game="go", executor="ray")         # a local Ray
    result = tournaments.round_robin(agents, game="go", executor=RayExecutor(address="auto"))

    $ ray start --head                                  # on one host
    $ ray start --address HEAD_IP:6379                  # on each of the others
    $ arbiter tournament --executor ray --address auto ...   # on the head (the driver)

Each Ray actor owns a ``ProcessExecutor`` of one worker process and plays the games it is sent one
at a time, so every rule of a local tournament holds unchanged on every node: per-move clocks,
warm-up limits, forfeits for crashes, hangs, illegal moves and exit codes, workers that die with
their actor. What Ray adds:

* the journal stays with the driver, which journals each game as its actor returns it, so a
  killed driver resumes exactly as a local tournament does;
* a lost actor (its process killed, its node gone) costs no finished game, whenever it is lost:
  while it starts and warms up (the run begins as soon as one actor is ready; the others join as
  they come), between games, or during one, whose game is then sent to a fresh actor, at most
  ``retries`` times, then ``ExecutorError`` names the game. The actor is replaced in every case;
  a place whose actors are lost ``retries`` times in a row before one is ready is given up, and
  only when every place is given up does the run stop. An actor whose ``__init__`` raises (a
  broken install on a node) is an ``ExecutorError`` at once: a fresh one would fail alike;
* an agent ruled out on one actor (it did not get ready within ``setup_time``, see
  ``tournaments.referee.executor``) is ruled out on all: the driver forfeits its remaining games without
  sending them, and tells every actor;
* the tournament's context (agents, their weights, game parameters) travels once, through Ray's
  object store; each actor's worker process is started with ``spawn`` (forking a process that runs
  Ray's threads is unsafe) and warms the agents' compiled code once, under a lock per node, so the
  first actor on a node compiles and the others load numba's disk cache.

Needs the ``distributed`` extra (``pip install "arbiter-games[distributed]"``).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

from agents import ray_cluster

from .executor import ExecutorError, ProcessExecutor, ruled_out_record
from .play import Context, Job


def require_ray(error: type[Exception] = ExecutorError) -> ModuleType:
    """The ``ray`` module, or ``error`` with the install hint when the extra is missing."""
    return ray_cluster.require_ray(error)


class _Player:
    """One Ray actor: a one-worker ``ProcessExecutor`` kept for the whole tournament."""

    def __init__(self, ctx: Context, ruled_out=None):
        lock = os.path.join(tempfile.gettempdir(), "arbiter-warm-up.lock")
        with open(lock, "a") as handle:  # one actor per node compiles; the others load the cache
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self.executor = ProcessExecutor(1, mp_context="spawn")
                self.executor.ruled_out.update(ruled_out or {})
                self.executor.start(ctx)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def play(self, job, ruled_out) -> tuple:
        """Play ``job``; return its record and the players ruled out here so far (``ruled_out``
        are the driver's)."""
        self.executor.ruled_out.update(ruled_out)
        record = next(iter(self.executor.run([job])))
        return record, dict(self.executor.ruled_out)

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        self.executor.close()


class RayExecutor:
    """Plays a tournament's games on Ray actors (see the module docstring).

    ``address``: None starts a local Ray (``num_cpus`` CPUs, default this machine's), ``"auto"``
    or ``"host:port"`` joins a running cluster. ``workers``: actors, one game each at a time
    (default: the cluster's CPUs). ``retries``: how often a game may lose its actor, and how
    often in a row an actor place may lose its actor before it is ready.
    """

    def __init__(
        self, address: str | None = None, workers: int | None = None, retries: int = 3, num_cpus: int | None = None
    ) -> None:
        require_ray()  # the install hint now, not at the first game
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ExecutorError(f"workers={workers!r}: expected a positive number of Ray actors")
        self.address, self.workers, self.retries, self.num_cpus = address, workers, retries, num_cpus
        self._started_ray = False
        self._actors: list = []  # per place: its actor, or None once the place is given up
        self._pids: list = []
        self._ready: set = set()  # places whose actor answered and is not known to be lost
        self._starting: dict = {}  # object ref of a new actor's first answer -> its place
        self._failed: dict = {}  # place -> actors lost in a row before one was ready
        self._last_loss = None
        self.replayed = 0  # games sent again because their actor was lost
        self.restarted = 0  # actors replaced after a loss (starting, warming up, idle or playing)
        self.ruled_out: dict = {}  # player -> why it loses its games without playing

    def start(self, ctx: Context) -> None:
        ray = require_ray()
        self._started_ray = ray_cluster.connect(self.address, self.num_cpus, ExecutorError)
        self._remote = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_Player)
        self._context = ctx
        self._ctx = ray.put(ctx)
        self.ruled_out = {}
        n = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._actors, self._pids = [None] * n, [None] * n
        for place in range(n):
            self._launch(place)
        while not self._ready:  # the run begins once one actor is up and warmed; the rest join
            self._no_place_left()
            ready, _ = ray.wait(list(self._starting), num_returns=1)
            self._answered(ready[0])

    def _launch(self, place) -> None:
        actor = self._remote.remote(self._ctx, self.ruled_out)
        self._actors[place] = actor
        self._starting[actor.pid.remote()] = place

    def _answered(self, ref):
        """A new actor's first answer: the place is ready (returned), or its actor was lost while
        starting (relaunched, or the place given up after ``retries`` losses in a row: None)."""
        ray = require_ray()
        place = self._starting.pop(ref)
        try:
            self._pids[place] = ray.get(ref)
        except ray.exceptions.RayError as exc:
            if not ray_cluster.lost(exc):
                raise ExecutorError(f"a Ray worker could not start: {exc}") from exc
            self._failed[place] = self._failed.get(place, 0) + 1
            self._replace(place, exc, give_up=self._failed[place] > self.retries)
            return None
        self._failed.pop(place, None)
        self._ready.add(place)
        return place

    def _replace(self, place, exc, give_up=False) -> None:
        """The actor of ``place`` was lost: make sure it is gone, and start a fresh one (Ray
        places it once there is room: after a lost node, perhaps later) unless ``give_up``."""
        ray = require_ray()
        self._last_loss = exc
        self._ready.discard(place)
        try:
            ray.kill(self._actors[place])
        except Exception:  # noqa: BLE001 - already gone
            pass
        if give_up:
            self._actors[place] = None
            return
        self.restarted += 1
        self._launch(place)

    def _no_place_left(self) -> None:
        if not self._ready and not self._starting:
            last = f" (last: {type(self._last_loss).__name__}: {self._last_loss})" if self._last_loss else ""
            raise ExecutorError(
                f"no Ray worker left to play on: every actor was lost {self.retries + 1} "
                f"times in a row before it was ready{last}"
            )

    def actor_pids(self) -> list[int]:
        """The process ids of the ready actors (for fault-injection tests and monitoring)."""
        return [self._pids[place] for place in sorted(self._ready)]

    def run(self, jobs: Iterable[Job]) -> Iterator[dict[str, Any]]:
        ray = require_ray()
        pending = deque(jobs)
        idle = sorted(self._ready)
        busy: dict = {}  # object ref of a game -> (actor place, job)
        lost: dict = {}  # job index -> actors lost while playing it
        while pending or busy:
            while pending and idle:
                job = pending.popleft()
                if (record := ruled_out_record(self._context, self.ruled_out, job)) is not None:
                    yield record
                    continue
                place = idle.pop()
                busy[self._actors[place].play.remote(job, self.ruled_out)] = (place, job)
            if not pending and not busy:
                break
            if not busy:
                self._no_place_left()
            ready, _ = ray.wait([*busy, *self._starting], num_returns=1)
            for ref in ready:
                if ref in self._starting:
                    if (place := self._answered(ref)) is not None:
                        idle.append(place)
                    continue
                place, job = busy.pop(ref)
                try:
                    record, ruled_out = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    if not ray_cluster.lost(exc):  # the referee itself failed: a bug
                        raise ExecutorError(f"game {job.index} failed in its Ray worker: {exc}") from exc
                    lost[job.index] = lost.get(job.index, 0) + 1
                    if lost[job.index] > self.retries:
                        raise ExecutorError(
                            f"game {job.index} (round {job.round}, players {job.black} and {job.white}) "
                            f"lost its Ray worker {lost[job.index]} times; last: {type(exc).__name__}"
                        ) from exc
                    # The game goes back to the queue for any ready actor; a fresh actor takes the
                    # place once Ray can put it somewhere (after a lost node there may be no room).
                    self.replayed += 1
                    pending.appendleft(job)
                    self._replace(place, exc)
                    continue
                self.ruled_out.update(ruled_out)
                idle.append(place)
                yield record

    def close(self) -> None:
        ray = require_ray()
        live = [a for a in self._actors if a is not None]
        try:  # each actor stops its worker process before the actor itself goes
            ray.get([a.close.remote() for a in live], timeout=10)
        except Exception:  # noqa: BLE001 - lost or unplaced actors have no worker to stop
            pass
        ray_cluster.release(live, self._started_ray)
        self._actors, self._ready, self._starting = [], set(), {}
        self._started_ray = False
