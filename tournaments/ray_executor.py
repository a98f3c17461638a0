"""Tournaments on a Ray cluster: the executor interface of ``tournaments.executor`` over Ray actors.

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
* a lost actor (its process killed, its node gone) costs no finished game: the game it was playing
  is sent to a fresh actor, at most ``retries`` times, then ``ExecutorError`` names the game;
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

from agents import ray_cluster

from .executor import ExecutorError, ProcessExecutor
from .play import Context



def require_ray(error=ExecutorError):
    """The ``ray`` module, or ``error`` with the install hint when the extra is missing."""
    return ray_cluster.require_ray(error)


class _Player:
    """One Ray actor: a one-worker ``ProcessExecutor`` kept for the whole tournament."""

    def __init__(self, ctx: Context):
        lock = os.path.join(tempfile.gettempdir(), "arbiter-warm-up.lock")
        with open(lock, "a") as handle:  # one actor per node compiles; the others load the cache
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                self.executor = ProcessExecutor(1, mp_context="spawn")
                self.executor.start(ctx)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def play(self, job) -> dict:
        return next(iter(self.executor.run([job])))

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        self.executor.close()


class RayExecutor:
    """Plays a tournament's games on Ray actors (see the module docstring).

    ``address``: None starts a local Ray (``num_cpus`` CPUs, default this machine's), ``"auto"``
    or ``"host:port"`` joins a running cluster. ``workers``: actors, one game each at a time
    (default: the cluster's CPUs). ``retries``: how often a game may lose its actor.
    """

    def __init__(self, address: str | None = None, workers: int | None = None, retries: int = 3,
                 num_cpus: int | None = None):
        require_ray()  # the install hint now, not at the first game
        if workers is not None and (not isinstance(workers, int) or workers < 1):
            raise ExecutorError(f"workers={workers!r}: expected a positive number of Ray actors")
        self.address, self.workers, self.retries, self.num_cpus = address, workers, retries, num_cpus
        self._started_ray = False
        self._actors: list = []
        self._pids: list = []
        self.replayed = 0  # games sent again because their actor was lost

    def start(self, ctx: Context) -> None:
        ray = require_ray()
        self._started_ray = ray_cluster.connect(self.address, self.num_cpus, ExecutorError)
        self._remote = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(_Player)
        self._ctx = ray.put(ctx)
        n = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        actors = [self._remote.remote(self._ctx) for _ in range(n)]
        self._pids = ray.get([a.pid.remote() for a in actors])  # every actor up and warmed
        self._actors = actors

    def actor_pids(self) -> list:
        """The process ids of the live actors (for fault-injection tests and monitoring)."""
        return [pid for actor, pid in zip(self._actors, self._pids) if actor is not None]

    def run(self, jobs):
        ray = require_ray()
        pending = deque(jobs)
        idle = [i for i, actor in enumerate(self._actors) if actor is not None]
        busy: dict = {}      # object ref of a game -> (actor slot, job)
        starting: dict = {}  # object ref of a replacement actor's first answer -> slot
        lost: dict = {}      # job index -> actors lost while playing it
        while pending or busy:
            while pending and idle:
                slot, job = idle.pop(), pending.popleft()
                busy[self._actors[slot].play.remote(job)] = (slot, job)
            if not busy and not starting:
                raise ExecutorError("no Ray worker left to play on: every actor was lost")
            ready, _ = ray.wait([*busy, *starting], num_returns=1)
            for ref in ready:
                if ref in starting:  # a replacement is up (or could not start: its slot is dropped)
                    slot = starting.pop(ref)
                    try:
                        self._pids[slot] = ray.get(ref)
                        idle.append(slot)
                    except ray.exceptions.RayError:
                        self._actors[slot] = None
                    continue
                slot, job = busy.pop(ref)
                try:
                    record = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError,
                        ray.exceptions.NodeDiedError) as exc:
                    lost[job.index] = lost.get(job.index, 0) + 1
                    if lost[job.index] > self.retries:
                        raise ExecutorError(
                            f"game {job.index} (round {job.round}, players {job.black} and {job.white}) "
                            f"lost its Ray worker {lost[job.index]} times; last: {type(exc).__name__}"
                        ) from exc
                    # The game goes back to the queue for any live actor; a fresh actor takes the
                    # slot once Ray can place it (after a lost node there may be no room for it).
                    self.replayed += 1
                    pending.appendleft(job)
                    self._actors[slot] = self._remote.remote(self._ctx)
                    starting[self._actors[slot].pid.remote()] = slot
                    continue
                except ray.exceptions.RayTaskError as exc:  # the referee itself failed: a bug
                    raise ExecutorError(f"game {job.index} failed in its Ray worker: {exc}") from exc
                idle.append(slot)
                yield record

    def close(self) -> None:
        ray = require_ray()
        live = [a for a in self._actors if a is not None]
        try:  # each actor stops its worker process before the actor itself goes
            ray.get([a.close.remote() for a in live], timeout=10)
        except Exception:  # noqa: BLE001 - lost or unplaced actors have no worker to stop
            pass
        ray_cluster.release(live, self._started_ray)
        self._actors = []
        self._started_ray = False
