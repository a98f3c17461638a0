"""An external engine as a child process: lines out, answers in within a deadline, always ended.

GTP engines (``agents.gtp``) and Gomocup brains (``agents.gomocup``) are programs that read
commands on stdin and answer on stdout. What can go wrong with such a program is the same
whatever the protocol, and so is the discipline that keeps a tournament alive through it:

* it cannot be started (no such file, not executable): an error naming the command;
* it is silent past the deadline: the read gives up (``select`` against a monotonic deadline,
  never a blocking read), the process is ended and a timeout error is raised;
* it dies: the end of its stdout is noticed and the error carries its exit code and the tail of
  its stderr (kept in a temporary file, so a chatty engine cannot fill a pipe and stall);
* it is ended when its owner is done: ``close`` sends the protocol's goodbye line, waits a
  second, then kills it and reaps it, so no engine outlives the agent that started it.

``EngineProcess`` does the process side; the protocol modules frame commands and answers and
choose the error classes, so each protocol's errors stay its own (``GTPEngineError``,
``GomocupError``) while the process handling is written once.
"""

from __future__ import annotations

import os
import select
import subprocess
import tempfile
import time
from collections.abc import Iterable

from .base import AgentError

STDERR_TAIL = 300  # bytes of a dead engine's stderr quoted in the error


class EngineProcess:
    """One engine process speaking a line protocol on its stdin and stdout.

    ``what``: how errors name it ("GTP engine", "Gomocup brain"); ``error``/``timeout``: the
    ``AgentError`` classes raised when it fails or is silent; ``goodbye``: the line that asks it
    to quit (GTP ``quit``, Gomocup ``END``).
    """

    def __init__(
        self,
        command: Iterable[str],
        *,
        what: str,
        error: type[AgentError],
        timeout: type[AgentError],
        goodbye: str,
    ) -> None:
        self.command = list(command)
        self.what, self.error, self.timeout_error, self.goodbye = what, error, timeout, goodbye
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
            )
        except (OSError, ValueError) as exc:
            self._stderr.close()
            raise error(f"cannot start {what} {self.command!r}: {exc}") from None
        self._buffer = b""

    @property
    def name(self) -> str:
        """The program's file name, for messages."""
        return os.path.basename(self.command[0]) if self.command else "?"

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def write(self, line: str, command: str | None = None) -> None:
        """Send one line (a newline is added); a dead engine raises ``error``."""
        try:
            self._proc.stdin.write(line.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError, AttributeError):
            raise self.died(command or line) from None

    def read_until(self, end: bytes, command: str, timeout: float, allowed: float | None = None) -> bytes:
        """The bytes up to the next ``end`` (dropped, as are carriage returns), within
        ``timeout`` seconds. Silence past the deadline ends the engine and raises ``timeout``
        (saying it had ``allowed`` seconds, default ``timeout``: what the command was given when
        this read is its last part); the end of its output raises ``error``."""
        deadline = time.monotonic() + timeout
        fd = self._proc.stdout.fileno()
        while True:
            at = self._buffer.find(end)
            if at >= 0:
                answer, self._buffer = self._buffer[:at], self._buffer[at + len(end) :]
                return answer
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise self.timeout_error(
                    f"{self.what} {self.name} gave no answer to {command!r} within "
                    f"{timeout if allowed is None else allowed:g} s"
                )
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self.died(command)
                self._buffer += chunk.replace(b"\r", b"")

    def lstrip(self, chars: bytes) -> None:
        """Drop ``chars`` from the start of what is buffered (GTP: blank lines between answers)."""
        self._buffer = self._buffer.lstrip(chars)

    def died(self, command: str) -> AgentError:
        """The error for an engine found dead while answering ``command``: its exit code and
        the tail of its stderr. The process is reaped."""
        try:
            code = self._proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        tail = b""
        try:
            self._stderr.seek(0)
            tail = self._stderr.read()[-STDERR_TAIL:]
        except (OSError, ValueError):  # already closed: nothing more to quote
            pass
        self.close()
        detail = f" (exit code {code})" if code is not None else ""
        text = tail.decode(errors="replace").strip()
        detail += f"; its stderr ends: {text!r}" if text else ""
        return self.error(f"{self.what} {self.name} died while answering {command!r}{detail}")

    def close(self) -> None:
        """Ask the engine to quit (``goodbye``), then make sure it is gone: killed after a
        second and reaped, its pipes and stderr file closed. Safe to call twice."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write(self.goodbye.encode() + b"\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=1.0)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout, self._stderr):
            try:
                stream.close()
            except OSError:
                pass
