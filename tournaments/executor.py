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
sending a heartbeat before every move. Its promise is *no crash, no orphan, no lost game*:

* A game whose current step outlives its deadline (a hung agent) has its process killed and is
  recorded as a forfeit-timeout of the agent to move. Building an agent and its unclocked warm-up
  move are bounded by ``setup_time`` (60 s by default); a hung warm-up forfeits on time with a
  detail that says so.
* A worker that dies of its own during an agent's step (segfault, abort, ``os._exit``, an
  exception escaping the referee) forfeits that agent with forfeit-crash and the real cause in the
  detail (``exit code 3``, ``signal SIGSEGV``). A worker *killed from outside* (SIGKILL, SIGTERM,
  SIGINT, SIGHUP: the OOM killer, an operator) is no agent's fault: its game is played again from
  the start, at most ``retries`` times, then ``ExecutorError`` names the game. The rule cannot
  tell an agent that sends itself SIGKILL from the OOM killer; such an agent is replayed until the
  retry limit stops the tournament, which is the safe side of the ambiguity. Either way the worker
  is replaced and only finished games are yielded, so a replayed game is journaled once.
* Workers die with the tournament process, whatever kills it: on Linux they ask the kernel for
  SIGKILL when their parent dies (``prctl(PR_SET_PDEATHSIG)``), and everywhere a watchdog thread
  exits when the parent process changes. A worker closes the inherited copies of the other
  workers' pipe ends, so a pipe really closes when its owner dies.
* Workers ignore SIGINT: Ctrl-C reaches the parent only, which kills busy workers in ``close``
  and lets ``KeyboardInterrupt`` through (the CLI turns it into a resume hint).

``start`` first warms up every agent (``agent.warm_up(game)``: numba compiles the agent's code
into its disk cache, where each worker loads it instead of compiling it again) in one helper
process, each agent within ``setup_time``; an agent whose warm-up hangs has its helper killed and
loses every game on time without playing it (``warm_up_report`` tells what each agent took).

``InlineExecutor`` plays in the calling process (debugging, profilers): a move that never returns
cannot be interrupted there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing as mp
import os
import signal
import threading
import time
import traceback
from collections import deque
from multiprocessing.connection import wait

from .play import CRASH, TIMEOUT, Context, build_agent, forfeit_record, play_job

# Deaths by these signals are taken as kills from outside the agent (OOM killer, operator, a
# terminal closing): the game is replayed. Any other signal or exit code is the agent's crash.
OUTSIDE_SIGNALS = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
PR_SET_PDEATHSIG = 1
WATCHDOG_PERIOD = 0.5
STARTUP_TIME = 120.0  # seconds for a helper process to start and build the game (Arbiter's own code)


class ExecutorError(RuntimeError):
    """A worker failed for a reason that is no agent's fault (an Arbiter bug, a broken install,
    a game whose worker keeps being killed from outside)."""


def hard_limit(ctx: Context) -> float | None:
    """How long a move may run before its process is killed: the clock plus a margin for IPC."""
    if ctx.move_time is None:
        return None
    return ctx.move_time + max(1.0, 0.5 * ctx.move_time)


def describe_exit(exitcode) -> str:
    """``"exit code 3"`` or ``"signal SIGSEGV"`` for a process's ``exitcode`` (negative: a signal)."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def killed_from_outside(exitcode) -> bool:
    """Whether a process that ended with ``exitcode`` was killed by a signal in OUTSIDE_SIGNALS."""
    return exitcode is not None and exitcode < 0 and -exitcode in OUTSIDE_SIGNALS


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


# -- the worker side -------------------------------------------------------------------------------
def _die_with_parent(inherited=(), parent=None) -> None:
    """Make this child process end when its parent does, and ignore Ctrl-C (the parent handles it).

    The kernel's parent-death signal covers SIGKILL of the parent on Linux; the watchdog thread
    (the parent pid changes when the parent dies and the child is re-parented) covers the rest.
    ``inherited`` are Connection objects a forked child got copies of (the parent's ends of this
    and the other workers' pipes): they are closed so that only their owner keeps them open.
    ``parent`` is the pid the parent had when it started this child (None where the child's
    parent is a fork server): a different parent pid means the parent already died.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for conn in inherited:
        try:
            conn.close()
        except OSError:
            pass
    if parent is None:
        parent = os.getppid()
    libc_name = ctypes.util.find_library("c")
    if libc_name and os.uname().sysname == "Linux":
        try:
            ctypes.CDLL(libc_name, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)

    def watch():
        while True:
            time.sleep(WATCHDOG_PERIOD)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="arbiter-parent-watchdog", daemon=True).start()


def _worker_main(conn, ctx: Context, inherited=(), parent=None) -> None:
    _die_with_parent(inherited, parent)
    game = ctx.make_game()
    warmed: set = set()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            record = play_job(ctx, job, game, report=lambda *msg: conn.send(msg), warmed=warmed)
        except Exception:  # noqa: BLE001 - reported to the parent, which raises ExecutorError
            conn.send(("error", traceback.format_exc()))
            continue
        conn.send(("done", record))


def _warm_main(conn, ctx: Context, first: int, inherited=(), parent=None) -> None:
    """Warm up agents ``first``, ``first + 1``, ... telling the parent before and after each."""
    _die_with_parent(inherited, parent)
    game = ctx.make_game()
    for i in range(first, len(ctx.agents)):
        conn.send(("warm", i))
        try:
            agent = build_agent(ctx.agents[i], 0)
            if hasattr(agent, "warm_up"):
                agent.warm_up(game)
        except Exception:  # noqa: BLE001 - the agent fails in its games instead, as a forfeit
            pass
        conn.send(("warmed", i))
    conn.send(("end",))


def _process(mpctx, target, args, others=()):
    """Start ``target(child_end, *args, inherited, parent_pid)`` in a new process; return
    (process, our end of its pipe)."""
    parent, child = mpctx.Pipe()
    # a forked child gets copies of every open pipe end; it closes the parent-side ones
    method = mpctx.get_start_method()
    inherited = [parent, *others] if method == "fork" else []
    pid = os.getpid() if method in ("fork", "spawn") else None
    proc = mpctx.Process(target=target, args=(child, *args, inherited, pid), daemon=True)
    proc.start()
    child.close()
    return proc, parent


def _reap(proc, timeout=5.0):
    """Wait for a process whose pipe closed to end (killing it if it lingers); its exit code."""
    proc.join(timeout)
    if proc.exitcode is None:
        proc.kill()
        proc.join()
    return proc.exitcode


class _Slot:
    """One worker process and the game it is playing."""

    def __init__(self, mpctx, ctx, others=()):
        self.proc, self.conn = _process(mpctx, _worker_main, (ctx,), others)
        self.job = None

    def assign(self, job, setup_time):
        self.job, self.seat, self.step, self.moves, self.actions = job, None, "start", [], []
        self.deadline = time.monotonic() + setup_time
        self.conn.send(job)

    def kill(self):
        self.proc.kill()
        self.proc.join()
        self.conn.close()


class ProcessExecutor:
    """``workers`` processes (default: the CPU count), killed and replaced when a game hangs,
    replaced when they die; a game whose worker is killed from outside is replayed, at most
    ``retries`` times."""

    def __init__(self, workers: int | None = None, mp_context: str | None = None, retries: int = 3):
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.mpctx = mp.get_context(mp_context)
        self.retries = retries
        self.slots: list[_Slot] = []
        self.replays: dict[int, int] = {}        # game index -> times replayed after an outside kill
        self.warm_up_report: dict[str, str] = {}  # agent name -> what its warm-up took / did
        self.hung: set[int] = set()              # players whose warm-up hung: they lose on time

    def start(self, ctx: Context) -> None:
        self.ctx = ctx
        self.limit = hard_limit(ctx)
        self.warm_up(ctx)

    def warm_up(self, ctx: Context) -> None:
        """Compile every agent's code for the game once, before any worker starts, each agent
        within ``ctx.setup_time``, in a helper process so that a hung warm-up can be killed.
        An agent that fails here is left to fail in its games, as a forfeit; one that hangs loses
        its games on time (see ``run``)."""
        first, tries = 0, 0
        while first < len(ctx.agents):
            proc, conn = _process(self.mpctx, _warm_main, (ctx, first), [s.conn for s in self.slots])
            current, since = None, time.monotonic()
            try:
                while True:
                    # an agent's warm-up has setup_time; between agents the helper runs Arbiter's
                    # code only (starting, building the game), which gets a generous bound
                    bound = ctx.setup_time if current is not None else max(ctx.setup_time, STARTUP_TIME)
                    if not conn.poll(max(0.0, bound - (time.monotonic() - since))):
                        proc.kill()
                        proc.join()
                        if current is None:
                            raise ExecutorError(f"the warm-up process did not answer within {bound}s")
                        self.hung.add(current)
                        self.warm_up_report[ctx.names[current]] = (
                            f"hung: no warm-up within setup_time={ctx.setup_time}s (killed)")
                        first = current + 1
                        break
                    try:
                        msg = conn.recv()
                    except (EOFError, OSError):
                        code = _reap(proc)
                        if current is None:
                            if killed_from_outside(code) and tries < self.retries:
                                tries += 1
                                break
                            raise ExecutorError("the warm-up process died between agents "
                                                f"({describe_exit(code)})") from None
                        if killed_from_outside(code) and tries < self.retries:  # not the agent's doing
                            tries += 1
                            first = current
                            break
                        self.warm_up_report[ctx.names[current]] = f"warm-up process died ({describe_exit(code)})"
                        first = current + 1
                        break
                    now = time.monotonic()
                    if msg[0] == "warm":
                        current, since = msg[1], now
                    elif msg[0] == "warmed":
                        self.warm_up_report[ctx.names[msg[1]]] = f"{now - since:.2f}s"
                        current, since = None, now
                    else:  # end
                        proc.join()
                        first = len(ctx.agents)
                        break
            finally:  # also on Ctrl-C: no helper outlives the warm-up
                conn.close()
                if proc.is_alive():
                    proc.kill()
                proc.join()

    def run(self, jobs):
        pending = deque(jobs)
        busy: dict = {}
        while pending or busy:
            while pending and len(busy) < self.workers:
                job = pending.popleft()
                if (lost := self._hung_player_loses(job)) is not None:
                    yield lost
                    continue
                idle = [s for s in self.slots if s not in busy.values()]
                slot = idle[0] if idle else self._spawn()
                try:
                    slot.assign(job, self.ctx.setup_time)
                except OSError:  # an idle worker was killed: replace it, not a replay
                    _reap(slot.proc)
                    slot.conn.close()
                    self.slots.remove(slot)
                    pending.appendleft(job)
                    continue
                busy[slot.conn] = slot
            if not busy:
                continue
            first = min(s.deadline for s in busy.values())
            timeout = None if first == float("inf") else max(0.0, first - time.monotonic())
            for conn in wait(list(busy), timeout=timeout):
                slot = busy[conn]
                record = self._receive(slot)
                if record is not None:
                    del busy[conn]
                    if record == "replay":
                        pending.appendleft(slot.job)
                    else:
                        yield record
            now = time.monotonic()
            for conn, slot in list(busy.items()):
                if now > slot.deadline:
                    del busy[conn]
                    yield self._forfeit(slot, TIMEOUT, self._timeout_detail(slot))

    def _hung_player_loses(self, job):
        """The record of ``job`` lost on time by a player whose warm-up hung, or None."""
        for seat, player in enumerate((job.black, job.white)):
            if player in self.hung:
                return forfeit_record(self.ctx, job, seat, TIMEOUT,
                                      f"warm-up did not finish within setup_time={self.ctx.setup_time}s")
        return None

    def _timeout_detail(self, slot) -> str:
        if slot.step == "warm":
            return f"warm-up move: no answer within setup_time={self.ctx.setup_time}s; process killed"
        if slot.step == "build":
            return f"building the agent: no answer within setup_time={self.ctx.setup_time}s; process killed"
        return "no answer within the time limit; process killed"

    def _spawn(self) -> _Slot:
        slot = _Slot(self.mpctx, self.ctx, [s.conn for s in self.slots])
        self.slots.append(slot)
        return slot

    def _receive(self, slot):
        """Handle one message from ``slot``; return the game record once the game is over, or
        ``"replay"`` when its worker was killed from outside and the game must be played again."""
        try:
            msg = slot.conn.recv()
        except (EOFError, OSError):
            return self._died(slot)
        kind = msg[0]
        if kind == "done":
            slot.job = None
            return msg[1]
        if kind == "error":
            raise ExecutorError("a tournament worker failed:\n" + msg[1])
        slot.seat, slot.step = msg[1], kind
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

    def _died(self, slot):
        """The worker of ``slot`` is gone: replay its game if it was killed from outside, else
        forfeit the agent whose step it was."""
        code = _reap(slot.proc)
        slot.conn.close()
        self.slots.remove(slot)
        job = slot.job
        if killed_from_outside(code):
            n = self.replays[job.index] = self.replays.get(job.index, 0) + 1
            if n > self.retries:
                raise ExecutorError(
                    f"game {job.index} (round {job.round}, {self.ctx.names[job.black]} - "
                    f"{self.ctx.names[job.white]}): its worker was killed from outside {n} times "
                    f"(last: {describe_exit(code)}); giving up after {self.retries} replays")
            return "replay"
        if slot.seat is None:
            raise ExecutorError(f"worker for game {job.index} failed before the game started ({describe_exit(code)})")
        what = {"build": "building the agent: ", "warm": "warm-up move: "}.get(slot.step, "")
        return forfeit_record(self.ctx, job, slot.seat, CRASH, f"{what}worker process died ({describe_exit(code)})",
                              slot.moves, slot.actions)

    def _forfeit(self, slot, reason, detail):
        job, seat, moves, actions = slot.job, slot.seat, slot.moves, slot.actions
        slot.kill()
        self.slots.remove(slot)
        if seat is None:
            raise ExecutorError(f"worker for game {job.index} failed before the game started: {detail}")
        return forfeit_record(self.ctx, job, seat, reason, detail, moves, actions)

    def close(self) -> None:
        """End every worker: idle ones are asked to exit, busy ones (``close`` during a game means
        an error or Ctrl-C in the caller) are killed at once."""
        for slot in self.slots:
            if slot.job is not None:
                slot.proc.kill()
                continue
            try:
                slot.conn.send(None)
            except OSError:
                pass
        for slot in self.slots:
            slot.proc.join(timeout=5)
            if slot.proc.is_alive():
                slot.proc.kill()
                slot.proc.join()
            slot.conn.close()
        self.slots = []
