"""Where games run: a small executor interface and two implementations.

An executor is started once per tournament with the shared ``Context`` and then asked to play
batches of ``Job``s; it yields each game's record as soon as the game ends (any order). That is
the whole interface, so a distributed backend (Dask, Ray) only has to implement ``start``,
``run`` and ``close``::

    class Executor(Protocol):
        def start(self, ctx: Context) -> None: ...
        def run(self, jobs: list[Job]) -> Iterator[dict]: ...
        def close(self) -> None: ...

``ProcessExecutor`` (the default) keeps ``workers`` processes, each playing one game at a time and
sending a heartbeat before every move. A game whose current step outlives its deadline (a hung
agent) has its process killed and is recorded as a forfeit-timeout of the agent to move; a process
that dies (segfault, ``os._exit``) forfeits the agent to move with forfeit-crash. A killed worker is
replaced. ``InlineExecutor`` plays in the calling process (debugging, profilers): a move that never
returns cannot be interrupted there.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
import traceback
from collections import deque
from multiprocessing.connection import wait

from .play import CRASH, TIMEOUT, Context, build_agent, forfeit_record, play_job


class ExecutorError(RuntimeError):
    """A worker failed for a reason that is no agent's fault (an Arbiter bug, a broken install)."""


def hard_limit(ctx: Context) -> float | None:
    """How long a move may run before its process is killed: the clock plus a margin for IPC."""
    if ctx.move_time is None:
        return None
    return ctx.move_time + max(1.0, 0.5 * ctx.move_time)


class InlineExecutor:
    """Plays every game in the calling process, one after another."""

    def start(self, ctx: Context) -> None:
        self.ctx = ctx
        self.game = ctx.make_game()
        self.warmed: set = set()

    def run(self, jobs):
        for job in jobs:
            yield play_job(self.ctx, job, self.game, warmed=self.warmed)

    def close(self) -> None:
        pass


def warm_up(ctx: Context) -> None:
    """Compile every agent's code for the game here, once, before any worker starts: numba
    writes it to its disk cache and each worker loads it, where each would otherwise compile
    it again. An agent that fails here is left to fail in its games, as a forfeit."""
    game = ctx.make_game()
    for entry in ctx.agents:
        try:
            agent = build_agent(entry, 0)
            if hasattr(agent, "warm_up"):
                agent.warm_up(game)
        except Exception:  # noqa: BLE001 - the worker reports it as that agent's forfeit
            continue


def _worker_main(conn, ctx: Context) -> None:
    game = ctx.make_game()
    warmed: set = set()
    while True:
        try:
            job = conn.recv()
        except EOFError:
            return
        if job is None:
            return
        try:
            record = play_job(ctx, job, game, report=lambda *msg: conn.send(msg), warmed=warmed)
        except Exception:  # noqa: BLE001 - reported to the parent, which raises ExecutorError
            conn.send(("error", traceback.format_exc()))
            continue
        conn.send(("done", record))


class _Slot:
    """One worker process and the game it is playing."""

    def __init__(self, mpctx, ctx):
        parent, child = mpctx.Pipe()
        self.conn = parent
        self.proc = mpctx.Process(target=_worker_main, args=(child, ctx), daemon=True)
        self.proc.start()
        child.close()
        self.job = None

    def assign(self, job, setup_time):
        self.job, self.seat, self.moves, self.actions = job, None, [], []
        self.deadline = time.monotonic() + setup_time
        self.conn.send(job)

    def kill(self):
        self.proc.kill()
        self.proc.join()
        self.conn.close()


class ProcessExecutor:
    """``workers`` processes (default: the CPU count), killed and replaced when a game hangs."""

    def __init__(self, workers: int | None = None, mp_context: str | None = None):
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.mpctx = mp.get_context(mp_context)
        self.slots: list[_Slot] = []

    def start(self, ctx: Context) -> None:
        self.ctx = ctx
        self.limit = hard_limit(ctx)
        warm_up(ctx)

    def run(self, jobs):
        pending = deque(jobs)
        busy: dict = {}
        while pending or busy:
            while pending and len(busy) < self.workers:
                idle = [s for s in self.slots if s not in busy.values()]
                slot = idle[0] if idle else self._spawn()
                slot.assign(pending.popleft(), self.ctx.setup_time)
                busy[slot.conn] = slot
            first = min(s.deadline for s in busy.values())
            timeout = None if first == float("inf") else max(0.0, first - time.monotonic())
            for conn in wait(list(busy), timeout=timeout):
                slot = busy[conn]
                record = self._receive(slot)
                if record is not None:
                    del busy[conn]
                    yield record
            now = time.monotonic()
            for conn, slot in list(busy.items()):
                if now > slot.deadline:
                    del busy[conn]
                    yield self._forfeit(slot, TIMEOUT, "no answer within the time limit; process killed")

    def _spawn(self) -> _Slot:
        slot = _Slot(self.mpctx, self.ctx)
        self.slots.append(slot)
        return slot

    def _receive(self, slot):
        """Handle one message from ``slot``; return the game record once the game is over."""
        try:
            msg = slot.conn.recv()
        except (EOFError, OSError):
            return self._forfeit(slot, CRASH, f"worker process died (exit code {slot.proc.exitcode})")
        kind = msg[0]
        if kind == "done":
            slot.job = None
            return msg[1]
        if kind == "error":
            raise ExecutorError("a tournament worker failed:\n" + msg[1])
        slot.seat = msg[1]
        if kind == "move":  # ("move", seat, the (move, action) plies played since the last one)
            for move, action in msg[2]:
                slot.moves.append(move)
                slot.actions.append(action)
            if self.limit is not None:
                slot.deadline = time.monotonic() + self.limit
            else:
                slot.deadline = float("inf")
        else:  # build / warm-up
            slot.deadline = time.monotonic() + self.ctx.setup_time
        return None

    def _forfeit(self, slot, reason, detail):
        job, seat, moves, actions = slot.job, slot.seat, slot.moves, slot.actions
        slot.kill()
        self.slots.remove(slot)
        if seat is None:
            raise ExecutorError(f"worker for game {job.index} failed before the game started: {detail}")
        return forfeit_record(self.ctx, job, seat, reason, detail, moves, actions)

    def close(self) -> None:
        for slot in self.slots:
            try:
                slot.conn.send(None)
            except OSError:
                pass
            slot.proc.join(timeout=5)
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join()
        self.slots = []
