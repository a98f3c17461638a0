"""A worker's heartbeat: the step of its game it is in and until when, in memory it shares with
its parent, and the plies it has played, in a file.

The parent stops a game whose agent hangs and records what was played, so at any moment it must
know whose step it is (building an agent, its warm-up, a move, the adjudication's judge), when
that step runs out of time, and the plies so far. Sent as a pipe message before every move, that
cost the worker a pickle and a write and the parent a wake-up per ply: on 6x6 Othello between
random agents 1.3 ms a game, more than the game itself (0.8 ms), so that two workers played
slower than one process. Written here, a ply costs a few stores and one ``write`` to a file; the
parent sleeps until a game ends, a compile starts or a deadline passes, and reads the plies only
of a game it has to forfeit.

The cells are a seqlock: the writer makes the version odd, writes, makes it even again; a reader
retries while the version is odd or changed under it. Only the worker writes, once started: it
begins each game (``begin``: no plies, no seat, a deadline for Arbiter's own code to reach the
first step) and ends it (``idle``: no deadline) before it says the game is over, so the parent
never holds a finished game's last step against the next one.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import tempfile
import threading
import time
from multiprocessing import reduction

STEPS = ("idle", "start", "build", "warm", "move", "judge")
_VERSION, _SEAT, _STEP, _DEADLINE = range(4)
_READ_TRIES = 10_000  # a writer killed mid-write leaves the version odd: then take what is there


class ChildFd:
    """A file descriptor handed to a child process: a forked child inherits it as it is, a
    spawned (or forkserver) one gets a duplicate, as multiprocessing passes its own pipes."""

    def __init__(self, fd: int):
        self.fd = fd

    def __reduce__(self):
        return _rebuild_fd, (reduction.DupFd(self.fd),)


def _rebuild_fd(dup) -> ChildFd:
    return ChildFd(dup.detach())


def appending_file():
    """A temporary file whose writes append (O_APPEND on the file description every process
    shares), so that whoever empties it restarts everyone's writes at the top."""
    file = tempfile.TemporaryFile()
    fd = file.fileno()
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
    return file


class Heartbeat:
    """The parent's side, made before the worker starts (which gets ``writer()``): the worker's
    first step is ``start``, until ``deadline`` (its process starting, the game built)."""

    def __init__(self, mpctx, deadline: float) -> None:
        self.cells = mpctx.RawArray(ctypes.c_double, 4)
        _write(self.cells, STEPS.index("start"), -1, deadline)
        self.file = appending_file()

    def writer(self) -> HeartbeatWriter:
        return HeartbeatWriter(self.cells, ChildFd(self.file.fileno()))

    def read(self) -> tuple[str, int | None, float]:
        """(step, seat or None, deadline on ``time.monotonic``'s clock) as the worker last wrote them."""
        cells = self.cells
        for _ in range(_READ_TRIES):
            version = cells[_VERSION]
            step, seat, deadline = cells[_STEP], cells[_SEAT], cells[_DEADLINE]
            if version % 2 == 0 and cells[_VERSION] == version:
                break
        return STEPS[int(step)], None if seat < 0 else int(seat), deadline

    def plies(self) -> tuple[list[str], list[int]]:
        """The moves and actions the worker's game has reported so far."""
        fd = self.file.fileno()
        data = os.pread(fd, os.fstat(fd).st_size, 0).decode()
        moves, actions = [], []
        for line in data.splitlines():
            action, _, move = line.partition(" ")
            moves.append(move)
            actions.append(int(action))
        return moves, actions

    def close(self) -> None:
        self.file.close()


class HeartbeatWriter:
    """The worker's side: each step as it begins (``enter``), the plies as they are played, a
    compile's time added to the step's deadline (numba may compile on any thread: a lock)."""

    def __init__(self, cells, fd: ChildFd) -> None:
        self.cells, self.fd = cells, fd
        self.lock = threading.Lock()

    def __getstate__(self):
        return {"cells": self.cells, "fd": self.fd}

    def __setstate__(self, state):
        self.__init__(state["cells"], state["fd"])

    def begin(self, seconds: float) -> None:
        """A new game: no plies yet, no seat, ``seconds`` for Arbiter's code to reach its first step."""
        os.ftruncate(self.fd.fd, 0)
        self.enter("start", None, seconds)

    def idle(self) -> None:
        """The game is over: no step runs, nothing can run out of time."""
        self.enter("idle", None, None)

    def played(self, plies) -> None:
        """Append ``(move, action)`` plies to the game's list."""
        if plies:
            os.write(self.fd.fd, "".join(f"{action} {move}\n" for move, action in plies).encode())

    def enter(self, step: str, seat: int | None, seconds: float | None) -> None:
        """``step`` begins for ``seat`` and may take ``seconds`` (None: no limit)."""
        deadline = float("inf") if seconds is None else time.monotonic() + seconds
        with self.lock:
            _write(self.cells, STEPS.index(step), -1 if seat is None else seat, deadline)

    def extend(self, seconds: float) -> None:
        """The step's clock stood still for ``seconds`` (a compile): push its deadline back."""
        with self.lock:
            _write(self.cells, self.cells[_STEP], self.cells[_SEAT], self.cells[_DEADLINE] + seconds)


def _write(cells, step, seat, deadline) -> None:
    cells[_VERSION] += 1
    cells[_STEP], cells[_SEAT], cells[_DEADLINE] = step, seat, deadline
    cells[_VERSION] += 1
