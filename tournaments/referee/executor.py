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
writing a heartbeat at every step (``tournaments.referee.heartbeat``: the step, whose it is, its
deadline and the plies, in memory the parent reads, not a message a move); while games are cheap
(``QUEUE_SECONDS``) each worker has its next games waiting in its pipe. Its promise is *no crash, no
orphan, no lost game*:

* A game whose current step outlives its deadline (a hung agent) has its process killed and is
  recorded as a forfeit-timeout of the agent to move. Building an agent and its unclocked warm-up
  move are bounded by ``setup_time`` (60 s by default). An agent that once fails to get ready in
  time is *ruled out*: its other games that have not begun to play are forfeited on time at once
  (detail ``ruled out: setup timed out after 60 s (...)``), so a hung agent costs the run one
  ``setup_time``, not one per game; a worker that finds such a game waiting in its pipe does not
  play it (the players ruled out are in memory the workers share).
* A worker that dies of its own during an agent's step (segfault, abort, ``os._exit``, an
  exception escaping the referee) forfeits that agent with forfeit-crash and the real cause in the
  detail (``exit code 3``, ``signal SIGSEGV``), followed by what the worker last wrote on stderr
  (a worker's stderr goes to a file, not the console, emptied for each game; ``faulthandler``
  writes there, so a segfault reads ``Fatal Python error: Segmentation fault, at agent.py:51 in
  _act``; to watch an agent's stderr as it plays, play in the calling process, ``workers=0``).
  A death is noticed from the process itself, not only from its pipe, so it is a crash even
  while a child of the agent holds the pipe open. A worker *killed from outside* (SIGKILL, SIGTERM, SIGINT,
  SIGHUP: the OOM killer, an operator) is no agent's fault: its game is played again from the
  start, at most ``retries`` times, then ``ExecutorError`` names the game. The rule cannot tell
  an agent that sends itself SIGKILL from the OOM killer; such an agent is replayed until the
  retry limit stops the tournament, which is the safe side of the ambiguity. Either way the worker
  is replaced and only finished games are yielded, so a replayed game is journaled once; a game
  that waited in the pipe of a worker that died, hung or was killed is played by another worker,
  as if it had never been sent.
* Every worker leads its own session and process group, and whenever a worker ends its whole
  group is killed with it: processes an agent started (``os.fork``, ``subprocess``) do not outlive
  it. The parent kills the group when it ends a worker (a hung game, a death, the end of the
  tournament); a *keeper*, a small process each worker forks first, kills it when the worker dies
  in a way the parent never sees (the tournament process SIGKILLed). Only a process that leaves
  the group on purpose (``setsid``) escapes.
* Workers die with the tournament process, whatever kills it: on Linux they ask the kernel for
  SIGKILL when their parent dies (``prctl(PR_SET_PDEATHSIG)``), and everywhere a watchdog thread
  kills the worker's group when the parent process changes. A worker closes the inherited copies
  of the other workers' pipe ends, so a pipe really closes when its owner dies.
* Workers ignore SIGINT: Ctrl-C reaches the parent only, which kills busy workers in ``close``
  and lets ``KeyboardInterrupt`` through (the CLI turns it into a resume hint).

``start`` first warms up every agent (``agent.warm_up(game)``: numba compiles the agent's code
into its disk cache, where each worker loads it instead of compiling it again) in one helper
process, each agent within ``setup_time``; an agent whose warm-up hangs has its helper killed and
is ruled out: it loses every game on time without playing it (``warm_up_report`` tells what each
agent took, ``ruled_out`` why an agent was ruled out).

*A cold cache costs time, never a game.* Every helper and worker tells its parent when it enters
and leaves numba's compiler (``envs.core.compiling.watch``), and the parent stops the clock of the
step it is in meanwhile: a setup step's ``setup_time`` and a move's hard limit count no compiling
(a compile is bounded by ``COMPILE_LIMIT`` alone, against a hang), and ``play_game`` charges no
compiling to a game clock either. So a tournament plays the same games on an empty cache and a
busy machine as on a warm one. The children's first-compile notices come to the parent, which
prints them once and keeps the "still compiling" heartbeat going on its own stderr.

``InlineExecutor`` plays in the calling process (debugging, profilers): a move that never returns
cannot be interrupted there.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import faulthandler
import multiprocessing as mp
import os
import re
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from multiprocessing.connection import wait
from typing import Any, Protocol

from envs.core import compiling

from .heartbeat import ChildFd, Heartbeat, HeartbeatWriter, appending_file
from .play import CRASH, TIMEOUT, Context, Job, build_agent, double_forfeit_record, forfeit_record, play_job

# Deaths by these signals are taken as kills from outside the agent (OOM killer, operator, a
# terminal closing): the game is replayed. Any other signal or exit code is the agent's crash.
OUTSIDE_SIGNALS = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP})
PR_SET_PDEATHSIG = 1
WATCHDOG_PERIOD = 0.5
STARTUP_TIME = 120.0  # seconds for a helper process to start and build the game (Arbiter's own code)
DEATH_POLL = 0.25  # seconds between checks that busy workers live (their pipe may hide a death)
STDERR_TAIL = 16384  # bytes of a dead worker's stderr read for its forfeit detail
SETUP_STEPS = {"build": "building the agent", "warm": "warm-up move"}
# The longest one spell in numba's compiler may take (seconds) before its step counts as hung:
# a cold compile on a busy 2-core machine took up to 3 minutes; this bound only catches a hang.
COMPILE_LIMIT = 1800.0
# While games are cheap a worker holds more than the one it plays: the next ones wait in its pipe,
# about QUEUE_SECONDS of them by the running average of a game's seconds (at most MAX_QUEUE), so
# that it goes on at once instead of waiting for the parent to take in the last game and send
# another, or to finish the run's bookkeeping (a rating table every few hundred games: tenths
# of a second). On 6x6 Othello between random agents (games of 0.8 ms) workers that got one game
# at a time stood idle half the time. Games longer than QUEUE_SECONDS go one at a time, so that
# the last games of a run are not queued behind a long one while another worker idles.
QUEUE_SECONDS = 0.1
MAX_QUEUE = 64
# While every worker has games waiting, the parent sleeps this long (seconds) before it looks for
# results, and takes in all that came meanwhile: one wake-up for many games, not one each (each
# wake-up takes a core from a worker: on 2 cores, 2 workers and their parent, that was a third
# of a cheap game's cost).
GATHER = 0.005
_GONE = object()  # what ``_receive`` returns when a worker's pipe is closed


class Executor(Protocol):
    """What a tournament needs of an executor (see the module docstring): ``start`` once with
    the shared ``Context``, ``run`` batches of jobs (yielding each game's record as it ends, in
    any order), ``close`` at the end."""

    def start(self, ctx: Context) -> None: ...

    def run(self, jobs: Iterable[Job]) -> Iterator[dict[str, Any]]: ...

    def close(self) -> None: ...


class ExecutorError(RuntimeError):
    """A worker failed for a reason that is no agent's fault (an Arbiter bug, a broken install,
    a game whose worker keeps being killed from outside)."""


def hard_limit(ctx: Context, seconds: float | None = None) -> float | None:
    """How long a move may run before its process is killed: the clock plus a margin for IPC.
    ``seconds``: the most this move may take on a game clock (its heartbeat says), else
    ``move_time``; None: no limit."""
    if seconds is None:
        seconds = ctx.move_time
    if seconds is None:
        return None
    return seconds + max(1.0, 0.5 * seconds)


def describe_exit(exitcode: int | None) -> str:
    """``"exit code 3"`` or ``"signal SIGSEGV"`` for a process's ``exitcode`` (negative: a signal)."""
    if exitcode is None:
        return "still running"
    if exitcode < 0:
        try:
            return f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit code {exitcode}"


def killed_from_outside(exitcode: int | None) -> bool:
    """Whether a process that ended with ``exitcode`` was killed by a signal in OUTSIDE_SIGNALS."""
    return exitcode is not None and exitcode < 0 and -exitcode in OUTSIDE_SIGNALS


def ruled_out_record(ctx: Context, ruled_out: Mapping[int, str], job: Job) -> dict[str, Any] | None:
    """The record of ``job`` lost on time by the players in ``ruled_out`` (player index ->
    reason): by the one that is, or by both when both are (a double forfeit, 0-0: neither gets
    a point, as neither could play); None when neither is."""
    seats = [seat for seat, player in enumerate((job.black, job.white)) if player in ruled_out]
    if len(seats) == 2:
        detail = "; ".join(f"{colour}: {ruled_out[p]}" for colour, p in zip(("Black", "White"), (job.black, job.white)))
        return double_forfeit_record(ctx, job, TIMEOUT, detail)
    if seats:
        return forfeit_record(ctx, job, seats[0], TIMEOUT, ruled_out[(job.black, job.white)[seats[0]]])
    return None


def stderr_summary(text: str) -> str:
    """One line from what a dead process wrote on stderr, for a forfeit's detail: a
    ``faulthandler`` dump becomes its error and the innermost frame of the crashing thread
    (``Fatal Python error: Segmentation fault, at agent.py:51 in _act``); anything else, its
    last non-empty line. Empty when nothing was written."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    fatal = [i for i, line in enumerate(lines) if line.startswith("Fatal Python error:")]
    if fatal:
        first = fatal[-1]
        where = ""
        for i in range(first + 1, len(lines)):
            if lines[i].startswith("Current thread"):
                frame = re.match(r'File "(.*)", line (\d+) in (.*)', lines[i + 1] if i + 1 < len(lines) else "")
                if frame:
                    where = f", at {frame[1]}:{frame[2]} in {frame[3]}"
                break
        return lines[first] + where
    if not lines:
        return ""
    last = lines[-1]
    return "its stderr ends: " + (last if len(last) <= 300 else "..." + last[-297:])


class _Stderr:
    """The file a worker's stderr goes to (the parent's end): kept per process, emptied per game,
    read back when the process dies. Writes append (O_APPEND on the shared file description), so
    the worker emptying it as a game begins restarts its writes at the top."""

    def __init__(self):
        self.file = appending_file()

    def child_end(self) -> ChildFd:
        return ChildFd(self.file.fileno())

    def summary(self) -> str:
        fd = self.file.fileno()
        size = os.fstat(fd).st_size
        data = os.pread(fd, STDERR_TAIL, max(0, size - STDERR_TAIL))
        return stderr_summary(data.decode(errors="replace"))

    def close(self) -> None:
        self.file.close()


class InlineExecutor:
    """Plays every game in the calling process, one after another."""

    def start(self, ctx: Context) -> None:
        self.ctx = ctx
        self.game = ctx.make_game()
        self.warmed: set[int] = set()

    def run(self, jobs: Iterable[Job]) -> Iterator[dict[str, Any]]:
        for job in jobs:
            yield play_job(self.ctx, job, self.game, warmed=self.warmed)

    def close(self) -> None:
        pass


# -- the worker side -------------------------------------------------------------------------------
def _arm_parent_death_signal() -> None:
    """Ask the kernel (Linux) to SIGKILL this process when its parent dies."""
    libc_name = ctypes.util.find_library("c")
    if PR_SET_PDEATHSIG and libc_name and os.uname().sysname == "Linux":
        try:
            ctypes.CDLL(libc_name, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass


def _keep_group(worker: int) -> None:
    """The keeper of a worker's process group (a forked child of the worker, in its group): once
    the worker is gone, however it died, kill the group, the agent's children and itself included.
    It holds no descriptor of the worker's (a pipe kept open would hide the worker's death) and
    polls its parent pid, as the watchdog does: no signal to miss, nothing Linux-only."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)
        while os.getppid() == worker:
            time.sleep(WATCHDOG_PERIOD)
        os.killpg(0, signal.SIGKILL)
    finally:
        os._exit(0)


def _end_group_and_exit() -> None:
    """Kill this worker's process group (the agent's children with it), or just exit."""
    if os.getpgid(0) == os.getpid():
        os.killpg(os.getpid(), signal.SIGKILL)
    os._exit(1)


def _become_worker(stderr: ChildFd, inherited=(), parent=None) -> None:
    """Set a child process up as a worker: its own session and process group with its keeper
    (``_keep_group``), stderr into the parent's file (with ``faulthandler`` writing there), death
    with its parent, and no Ctrl-C (the parent handles it).

    The kernel's parent-death signal covers SIGKILL of the parent on Linux; the watchdog thread
    (the parent pid changes when the parent dies and the child is re-parented) covers the rest and
    takes the worker's process group with it. ``inherited`` are objects with ``close`` a forked child got
    copies of (the parent's ends of this and the other workers' pipes, their stderr files): they
    are closed so that only their owner keeps them open. ``parent`` is the pid the parent had when
    it started this child (None where the child's parent is a fork server): a different parent pid
    means the parent already died.
    """
    # a forked child inherits the parent's Python handlers: SIGTERM stops the *command*
    # (``cli.terminate_as_interrupt``), but a worker sent SIGTERM dies, and its game is replayed
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        os.setsid()
    except OSError:  # already a group leader: cannot happen to a new child, but do no harm
        pass
    else:
        worker = os.getpid()
        if os.fork() == 0:  # before any thread starts: the keeper is a plain copy of this process
            _keep_group(worker)
    os.dup2(stderr.fd, 2)
    os.close(stderr.fd)
    sys.stderr = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)
    faulthandler.enable(sys.stderr)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for obj in inherited:
        try:
            obj.close()
        except OSError:
            pass
    die_with_parent(parent)


def die_with_parent(parent: int | None = None) -> None:
    """End this child process (with the process group it leads, if it leads one) when its parent
    dies, however it dies: the kernel's parent-death signal on Linux, and everywhere a watchdog
    thread that sees the parent pid change. ``parent``: the pid the parent had when it started
    this child (None: the parent now), so that a parent dead before this call is noticed too."""
    if parent is None:
        parent = os.getppid()
    _arm_parent_death_signal()
    if os.getppid() != parent:  # the parent died before the signal was armed
        _end_group_and_exit()

    def watch():
        while True:
            time.sleep(WATCHDOG_PERIOD)
            if os.getppid() != parent:
                _end_group_and_exit()

    threading.Thread(target=watch, name="arbiter-parent-watchdog", daemon=True).start()


def _tell_compiles(conn, beat: HeartbeatWriter | None = None) -> Callable[..., None]:
    """Send this child's compiles to its parent (see the module docstring): ``("compiler",
    inside)`` as it enters and leaves numba's compiler, ``("compiling", game, module, name, ours)``
    as a compile begins (``compiling.announce``'s arguments). Returns the locked ``send`` the
    child's other messages must use too: a compile may start on any thread of an agent. A worker's
    spell in the compiler is also added to its step's deadline in its ``beat`` before it says the
    spell is over, so that the parent, which stops the step's clock while it compiles, never sees
    the step's old deadline."""
    lock = threading.Lock()
    began = [0.0]

    def send(msg) -> None:
        with lock:
            try:
                conn.send(msg)
            except (OSError, ValueError):  # the parent is gone: the worker ends with it anyway
                pass

    def inside(flag: bool) -> None:
        if beat is not None:
            if flag:
                began[0] = time.monotonic()
            else:
                beat.extend(time.monotonic() - began[0])
        send(("compiler", flag))

    compiling.relay(lambda *part: send(("compiling", *part)))
    compiling.watch(inside)
    return send


def step_limit(ctx: Context, step: str, seconds: float | None = None) -> float | None:
    """The seconds a worker's ``step`` may take before its process is killed (None: no limit):
    a move its ``hard_limit`` (``seconds``: what the game clock leaves it), building an agent and
    its warm-up move ``setup_time``, the adjudication's judge (Arbiter's choice, no agent's clock)
    as long as Arbiter's own code."""
    if step == "move":
        return hard_limit(ctx, seconds)
    if step == "judge":
        return max(ctx.setup_time, STARTUP_TIME)
    return ctx.setup_time


def _worker_main(conn, ctx: Context, beat: HeartbeatWriter, ruled, stderr: ChildFd, inherited=(), parent=None) -> None:
    """Play the games the parent sends, one after another, each begun and ended in ``beat``.
    ``ruled[p]`` (shared with the parent) marks player ``p`` ruled out: a game of its that was
    already waiting in the pipe is not played (the parent records its forfeit)."""
    _become_worker(stderr, inherited, parent)
    send = _tell_compiles(conn, beat)
    game = ctx.make_game()
    warmed: set = set()

    def report(step, seat, plies=(), seconds=None) -> None:  # ``play_game``'s heartbeat
        beat.played(plies)
        beat.enter(step, seat, step_limit(ctx, step, seconds))

    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        sys.stderr.flush()
        os.ftruncate(2, 0)  # a dead worker's last words are this game's
        beat.begin(max(ctx.setup_time, STARTUP_TIME))
        if ruled[job.black] or ruled[job.white]:
            beat.idle()
            send(("ruled out", job.index))
            continue
        try:
            record = play_job(ctx, job, game, report=report, warmed=warmed)
        except Exception:  # noqa: BLE001 - reported to the parent, which raises ExecutorError
            beat.idle()
            send(("error", traceback.format_exc()))
            continue
        beat.idle()
        send(("done", record))


def _warm_main(conn, ctx: Context, first: int, skip, stderr: ChildFd, inherited=(), parent=None) -> None:
    """Warm up agents ``first``, ``first + 1``, ... (not those in ``skip``), telling the parent
    before and after each."""
    _become_worker(stderr, inherited, parent)
    send = _tell_compiles(conn)
    game = ctx.make_game()
    for i in range(first, len(ctx.agents)):
        if i in skip:
            continue
        send(("warm", i))
        try:
            agent = build_agent(ctx.agents[i], 0)
            if hasattr(agent, "warm_up"):
                agent.warm_up(game)
        except Exception:  # noqa: BLE001 - the agent fails in its games instead, as a forfeit
            pass
        send(("warmed", i))
    send(("end",))


def _process(mpctx, target, args, others=()):
    """Start ``target(child_end, *args, stderr, inherited, parent_pid)`` in a new process; return
    (process, our end of its pipe, its ``_Stderr``)."""
    parent, child = mpctx.Pipe()
    stderr = _Stderr()
    # a forked child gets copies of every open pipe end and stderr file; it closes the parent's
    method = mpctx.get_start_method()
    inherited = [parent, *others] if method == "fork" else []
    pid = os.getpid() if method in ("fork", "spawn") else None
    proc = mpctx.Process(target=target, args=(child, *args, stderr.child_end(), inherited, pid), daemon=True)
    proc.start()
    child.close()
    return proc, parent, stderr


def _kill_group(pid: int) -> None:
    """SIGKILL the process group a worker leads (the worker and the processes its agent started).
    Also safe once the worker is reaped: the group id stays taken while any member lives."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:  # no such group (left already, or never made): nothing to end
        pass


def _end(proc):
    """Kill a worker with its process group and reap it; its exit code."""
    _kill_group(proc.pid)
    proc.kill()  # in case it had not made its own group yet
    proc.join()
    return proc.exitcode


def _reap(proc, timeout=5.0):
    """Wait for a process whose pipe closed to end (killing it if it lingers), end its process
    group, and return its exit code. The process is polled, not waited on through its sentinel:
    a child the agent forked holds a copy of the sentinel's pipe."""
    deadline = time.monotonic() + timeout
    while proc.exitcode is None and time.monotonic() < deadline:
        time.sleep(0.01)
    return _end(proc)


class Compiles:
    """A child's spells in numba's compiler as its messages tell them, and what they do to the
    parent: a clock that stops meanwhile (``hold``), the notice printed once, the heartbeat."""

    def __init__(self) -> None:
        self.since: float | None = None  # when the spell under way began

    def message(self, msg) -> bool:
        """Take in ``msg`` if it is about compiling (True), else leave it to the caller."""
        if msg[0] == "compiling":
            compiling.announce(*msg[1:5])
            return True
        if msg[0] != "compiler":
            return False
        if msg[1] and self.since is None:
            self.since = time.monotonic()
            compiling.remote_spell(True)
        elif not msg[1]:
            self.end()
        return True

    def end(self) -> float:
        """The spell is over (or its process is gone): the seconds it took, 0.0 if none was on."""
        if self.since is None:
            return 0.0
        spent, self.since = time.monotonic() - self.since, None
        compiling.remote_spell(False)
        return spent

    def held(self, deadline: float) -> float:
        """``deadline`` as it stands while the child compiles: ``COMPILE_LIMIT`` after the spell
        began (a hang guard), else unchanged."""
        return deadline if self.since is None else self.since + COMPILE_LIMIT


class _Slot:
    """One worker process and the games sent to it: the first is being played (or about to be),
    the others wait in its pipe. The game's step, seat, deadline and plies are what the worker's
    heartbeat says (``tournaments.referee.heartbeat``)."""

    def __init__(self, mpctx, ctx, ruled, others=()):
        self.beat = Heartbeat(mpctx, time.monotonic() + max(ctx.setup_time, STARTUP_TIME))
        self.proc, self.conn, self.stderr = _process(mpctx, _worker_main, (ctx, self.beat.writer(), ruled), others)
        self.jobs: deque[Job] = deque()
        self.since = time.monotonic()  # when the game under way began, as near as the parent knows
        self.compiles = Compiles()

    @property
    def job(self) -> Job | None:
        """The game being played (or about to be)."""
        return self.jobs[0] if self.jobs else None

    def assign(self, job):
        if not self.jobs:
            self.since = time.monotonic()
        self.conn.send(job)
        self.jobs.append(job)

    def next_game(self) -> float:
        """The game under way is over: the seconds it took (the next one begins now)."""
        self.jobs.popleft()
        now = time.monotonic()
        took, self.since = now - self.since, now
        return took

    @property
    def step(self) -> str:
        return self.beat.read()[0]

    def deadline(self) -> float:
        """When the step under way runs out of time (while the worker compiles: ``COMPILE_LIMIT``
        after the spell began)."""
        return self.compiles.held(self.beat.read()[2])

    def kill(self):
        _end(self.proc)
        self.release()

    def release(self):
        self.compiles.end()
        self.conn.close()
        self.stderr.close()
        self.beat.close()

    def expired(self, now: float) -> bool:
        """Whether the step under way has run out of time (compiling stops its clock)."""
        return now > self.deadline()


class ProcessExecutor:
    """``workers`` processes (default: the CPU count), killed and replaced when a game hangs,
    replaced when they die; a game whose worker is killed from outside is replayed, at most
    ``retries`` times. While games are cheap, a worker has about ``queue_seconds`` of games
    waiting in its pipe (see ``QUEUE_SECONDS``; ``inf``: ``MAX_QUEUE`` from the first game)."""

    def __init__(
        self,
        workers: int | None = None,
        mp_context: str | None = None,
        retries: int = 3,
        queue_seconds: float = QUEUE_SECONDS,
    ) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.queue_seconds = queue_seconds  # the games a worker holds ahead, in seconds (``QUEUE_SECONDS``)
        self.mpctx = mp.get_context(mp_context)
        self.retries = retries
        self.slots: list[_Slot] = []
        self.replays: dict[int, int] = {}  # game index -> times replayed after an outside kill
        self.warm_up_report: dict[str, str] = {}  # agent name -> what its warm-up took / did
        self.ruled_out: dict[int, str] = {}  # player -> why it loses its games without playing
        self.typical = float("inf")  # a game's seconds, a running average (see QUEUE_SECONDS)
        # a line of news for the run's progress display (``Progress.note``; the runner sets it):
        # a replayed game is said, so that a run that loses time to outside kills shows why
        self.announce: Callable[[str], object] = lambda line: None

    def start(self, ctx: Context) -> None:
        self.ctx = ctx
        self.ruled = self.mpctx.RawArray(ctypes.c_bool, len(ctx.agents))  # the workers' view of ruled_out
        self.warm_up(ctx)

    def _others(self):
        return [obj for s in self.slots for obj in (s.conn, s.stderr, s.beat)]

    def warm_up(self, ctx: Context) -> None:
        """Compile every agent's code for the game once, before any worker starts, each agent
        within ``ctx.setup_time``, in a helper process so that a hung warm-up can be killed.
        An agent that fails here is left to fail in its games, as a forfeit; one that hangs is
        ruled out and loses its games on time (see ``run``); players already in ``ruled_out``
        are not warmed."""
        first, tries = 0, 0
        while first < len(ctx.agents):
            proc, conn, stderr = _process(
                self.mpctx, _warm_main, (ctx, first, frozenset(self.ruled_out)), self._others()
            )
            current, since = None, time.monotonic()
            compiles = Compiles()
            try:
                while True:
                    # an agent's warm-up has setup_time; between agents the helper runs Arbiter's
                    # code only (starting, building the game), which gets a generous bound; no
                    # time spent compiling counts (see the module docstring)
                    bound = ctx.setup_time if current is not None else max(ctx.setup_time, STARTUP_TIME)
                    deadline = compiles.held(since + bound)
                    if not conn.poll(max(0.0, deadline - time.monotonic())):
                        _end(proc)
                        if current is None:
                            raise ExecutorError(f"the warm-up process did not answer within {bound}s")
                        self._rule(current, f"ruled out: setup timed out after {ctx.setup_time:g} s (its warm-up)")
                        self.warm_up_report[ctx.names[current]] = (
                            f"hung: no warm-up within setup_time={ctx.setup_time}s (killed)"
                        )
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
                            raise ExecutorError(
                                f"the warm-up process died between agents ({describe_exit(code)})"
                            ) from None
                        if killed_from_outside(code) and tries < self.retries:  # not the agent's doing
                            tries += 1
                            first = current
                            break
                        said = stderr.summary()
                        self.warm_up_report[ctx.names[current]] = f"warm-up process died ({describe_exit(code)}" + (
                            f": {said})" if said else ")"
                        )
                        first = current + 1
                        break
                    if msg[0] == "compiler" and not msg[1]:
                        since += compiles.end()  # the clock stood still while it compiled
                        continue
                    if compiles.message(msg):
                        continue
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
            finally:  # also on Ctrl-C: no helper (nor anything it started) outlives the warm-up
                compiles.end()
                conn.close()
                _end(proc)
                stderr.close()

    def run(self, jobs: Iterable[Job]) -> Iterator[dict[str, Any]]:
        pending = deque(jobs)
        busy: dict = {}
        for slot in [slot for slot in self.slots if slot.jobs]:  # games of a run its caller left
            self._discard(slot)
        for player in self.ruled_out:  # (a Ray actor's executor is told of rule-outs elsewhere)
            self.ruled[player] = True
        checked = time.monotonic()  # when busy workers were last looked at (deaths, deadlines)
        while pending or busy:
            yield from self._fill(pending, busy)
            if not busy:
                continue
            first = min(s.deadline() for s in busy.values())
            timeout = min(DEATH_POLL, max(0.0, first - time.monotonic()))
            if all(len(slot.jobs) > 1 for slot in busy.values()):  # every worker has games ahead:
                time.sleep(GATHER)  # let results gather, taken in with one wake-up
            ended = []
            ready = wait(list(busy), timeout=timeout)
            for conn in ready:
                slot = busy[conn]
                while True:  # every message it has sent
                    record = self._receive(slot)
                    if record is _GONE:
                        del busy[conn]
                        ended += self._gone(slot, busy, pending)
                        break
                    if record is not None:
                        ended.append(record)
                        if not slot.jobs:
                            del busy[conn]
                            break
                    if not conn.poll(0):
                        break
            # a worker can die with its pipe still open (a child of its agent holds a copy): its
            # death is a crash all the same, noticed here, before its deadline can call it a hang;
            # one whose step ran out of time is killed (a hung agent). Looked at when the wait
            # timed out (a deadline, or DEATH_POLL), and every DEATH_POLL while results stream in
            now = time.monotonic()
            if not ready or now >= checked + DEATH_POLL:
                checked = now
                for conn, slot in list(busy.items()):
                    if conn not in busy:  # (a rule-out ended it already)
                        continue
                    if slot.proc.exitcode is not None or slot.expired(now):
                        del busy[conn]
                        ended += self._gone(slot, busy, pending, timed_out=slot.proc.exitcode is None)
            if ended:  # the idle workers get their next games before the caller takes these in
                # (journal, standings, progress): with cheap games no worker waits for that
                yield from self._fill(pending, busy)
                yield from (record for record in ended if record is not None)

    def _fill(self, pending, busy) -> Iterator[dict[str, Any]]:
        """Hand pending games to workers: one to each idle worker while fewer than ``workers``
        are busy, then (cheap games) more to the busy ones, evenly (``_slot_for_next``); yield at
        once the records of games forfeited without playing (an agent ruled out)."""
        while pending:
            slot = self._slot_for_next(busy)
            if slot is None:
                return
            job = pending.popleft()
            if (lost := ruled_out_record(self.ctx, self.ruled_out, job)) is not None:
                yield lost
                continue
            try:
                slot.assign(job)
            except OSError:  # the worker was killed: an idle one is replaced, not a replay; a
                pending.appendleft(job)  # busy one's death is handled with its game
                if slot.jobs:
                    return
                self._discard(slot)
                continue
            busy[slot.conn] = slot

    def _slot_for_next(self, busy) -> _Slot | None:
        """An idle worker while fewer than ``workers`` are busy, else the busy one holding the
        fewest games if it has room for another (``_depth``), else None."""
        if len(busy) < self.workers:
            return self._idle_slot(busy)
        slot = min(busy.values(), key=lambda s: len(s.jobs))
        return slot if len(slot.jobs) < self._depth() else None

    def _depth(self) -> int:
        """How many games a worker holds, the one it plays included (see ``QUEUE_SECONDS``)."""
        if self.queue_seconds == float("inf"):
            return MAX_QUEUE
        if self.typical == float("inf"):  # no game has ended yet
            return 1
        return min(MAX_QUEUE, 1 + int(self.queue_seconds / max(self.typical, 1e-6)))

    def _idle_slot(self, busy) -> _Slot:
        """A live idle worker (dead idle ones are replaced), or a new one."""
        working = set(busy.values())
        for slot in list(self.slots):
            if slot not in working:
                if slot.proc.exitcode is None:
                    return slot
                self._discard(slot)
        return self._spawn()

    def _discard(self, slot) -> None:
        _end(slot.proc)
        slot.release()
        self.slots.remove(slot)

    def _spawn(self) -> _Slot:
        slot = _Slot(self.mpctx, self.ctx, self.ruled, self._others())
        self.slots.append(slot)
        return slot

    def _receive(self, slot):
        """Handle one message from ``slot``: the record of a game it finished, else None;
        ``_GONE`` when its pipe is closed. (A worker's steps are not messages: its heartbeat
        says them.)"""
        try:
            msg = slot.conn.recv()
        except (EOFError, OSError):
            return _GONE
        if slot.compiles.message(msg):
            return None
        if msg[0] in ("done", "ruled out"):
            job, took = slot.job, slot.next_game()
            if msg[0] == "ruled out":  # it waited in the pipe while its agent was ruled out
                return ruled_out_record(self.ctx, self.ruled_out, job)
            self.typical = took if self.typical == float("inf") else 0.9 * self.typical + 0.1 * took
            return msg[1]
        if msg[0] == "error":
            raise ExecutorError("a tournament worker failed:\n" + msg[1])
        raise ExecutorError(f"a tournament worker sent an unknown message: {msg[0]!r}")

    def _gone(self, slot, busy, pending, timed_out=False) -> list:
        """End ``slot``'s worker, which has exited, closed its pipe or (``timed_out``) run out of
        time in a step. First the games it finished before are taken in (their results wait in
        the pipe), then the game under way ends: a forfeit on time, a crash, or a replay when
        the worker was killed from outside; the games waiting behind it go back to ``pending``.
        Returns the records (None for a replay)."""
        if timed_out:
            _end(slot.proc)  # its step, seat and plies are final from here
        records = []
        while slot.jobs:
            try:
                if not slot.conn.poll(0):
                    break
            except OSError:
                break
            record = self._receive(slot)
            if record is _GONE:
                break
            if record is not None:
                records.append(record)
        if not slot.jobs:  # it had finished all its games
            self._discard(slot)
            return records
        if not timed_out:
            return [*records, self._ended(slot, self._died(slot), pending)]
        step, seat, _ = slot.beat.read()
        job = slot.job
        if step == "judge":
            self._discard(slot)
            raise ExecutorError(
                f"game {job.index}: the adjudication's judge did not answer within "
                f"{max(self.ctx.setup_time, STARTUP_TIME):g} s (give it a smaller search)"
            )
        records.append(self._ended(slot, self._forfeit(slot, TIMEOUT, self._timeout_detail(step)), pending))
        if step in SETUP_STEPS:
            records += self._rule_out(job, seat, step, busy, pending)
        return records

    def _ended(self, slot, record, pending):
        """``slot``'s worker is gone and its game ended with ``record``: the record, or None for
        a replay, which is queued again, before the games that waited behind it (not played)."""
        pending.extendleft(reversed(list(slot.jobs)[1:]))
        if record == "replay":
            pending.appendleft(slot.job)
            return None
        return record

    def _rule_out(self, job, seat, step, busy, pending) -> list:
        """The agent in ``seat`` of ``job`` did not get ready within setup_time (its ``step``):
        rule it out, and forfeit at once its games that other workers are still setting up
        (their records); its games waiting in a worker's pipe are not played (``ruled``)."""
        player = (job.black, job.white)[seat]
        why = f"{SETUP_STEPS[step]}, game {job.index}"
        self._rule(player, f"ruled out: setup timed out after {self.ctx.setup_time:g} s ({why})")
        records = []
        for conn, other in list(busy.items()):
            if player in (other.job.black, other.job.white) and other.step != "move":
                del busy[conn]
                self._discard(other)
                records.append(self._ended(other, ruled_out_record(self.ctx, self.ruled_out, other.job), pending))
        return records

    def _rule(self, player: int, why: str) -> None:
        self.ruled_out[player] = why
        self.ruled[player] = True

    def _timeout_detail(self, step) -> str:
        if step in SETUP_STEPS:
            return (
                f"{SETUP_STEPS[step]}: no answer within setup_time={self.ctx.setup_time}s; process "
                "killed; ruled out for the rest of the run"
            )
        return "no answer within the time limit; process killed"

    def _died(self, slot):
        """The worker of ``slot`` is gone: replay its game if it was killed from outside, else
        forfeit the agent whose step it was, with the cause and the worker's last words."""
        code = _reap(slot.proc)
        said = slot.stderr.summary()
        step, seat, _ = slot.beat.read()
        moves, actions = slot.beat.plies()
        slot.release()
        self.slots.remove(slot)
        job = slot.job
        if killed_from_outside(code):
            n = self.replays[job.index] = self.replays.get(job.index, 0) + 1
            if n > self.retries:
                raise ExecutorError(
                    f"game {job.index} (round {job.round}, {self.ctx.names[job.black]} - "
                    f"{self.ctx.names[job.white]}): its worker was killed from outside {n} times "
                    f"(last: {describe_exit(code)}); giving up after {self.retries} replays"
                )
            self.announce(
                f"game {job.index} (round {job.round}, {self.ctx.names[job.black]} - {self.ctx.names[job.white]}): "
                f"its worker was killed from outside ({describe_exit(code)}); playing the game again "
                f"(replay {n} of at most {self.retries})"
            )
            return "replay"
        cause = describe_exit(code) + (f": {said}" if said else "")
        if seat is None:
            raise ExecutorError(f"worker for game {job.index} failed before the game started ({cause})")
        what = {"build": "building the agent: ", "warm": "warm-up move: "}.get(step, "")
        return forfeit_record(self.ctx, job, seat, CRASH, f"{what}worker process died ({cause})", moves, actions)

    def _forfeit(self, slot, reason, detail):
        """Kill the worker of ``slot`` and forfeit its game: the agent whose step it was loses."""
        _end(slot.proc)
        job, (_, seat, _) = slot.job, slot.beat.read()
        moves, actions = slot.beat.plies()
        slot.release()
        self.slots.remove(slot)
        if seat is None:
            raise ExecutorError(f"worker for game {job.index} failed before the game started: {detail}")
        return forfeit_record(self.ctx, job, seat, reason, detail, moves, actions)

    def close(self) -> None:
        """End every worker with its process group: idle ones are asked to exit, busy ones
        (``close`` during a game means an error or Ctrl-C in the caller) are killed at once."""
        for slot in self.slots:
            if slot.job is not None:
                _kill_group(slot.proc.pid)
                slot.proc.kill()
                continue
            try:
                slot.conn.send(None)
            except OSError:
                pass
        deadline = time.monotonic() + 5
        for slot in self.slots:
            while slot.proc.exitcode is None and time.monotonic() < deadline:
                time.sleep(0.01)
            _end(slot.proc)
            slot.release()
        self.slots = []
