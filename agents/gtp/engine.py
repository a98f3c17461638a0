"""An external GTP engine as a process: send a command, read its response within a deadline.

``GTPEngine(argv)`` starts the engine (GNU Go, GRhino, ``arbiter gtp`` itself) with pipes to its
stdin and stdout; ``send`` returns a success response's text and raises on a failure response,
``ask`` returns ``(success, text)`` either way. Every way an engine can fail its caller is a
``GTPEngineError`` (an ``agents.AgentError``), so a tournament can forfeit the game instead of
hanging: it cannot be started, it dies (the tail of its stderr says why), it answers something
that is no GTP response, or it is silent past the deadline (``GTPTimeout``, and the engine is
stopped). The client agent (``agents.gtp.client``) raises the other two errors defined here:
``GTPResigned`` for an engine's resignation, ``GTPSyncError`` for a position it cannot explain.
"""

from __future__ import annotations

import os
import select
import subprocess
import tempfile
import time
from collections.abc import Iterable

from ..base import AgentError, Resign
from .protocol import RESPONSE_END, parse_response


class GTPEngineError(AgentError):
    """The external engine died, broke the protocol, refused a command, or resigned."""


class GTPTimeout(GTPEngineError):
    """The external engine did not answer within its time limit."""


class GTPResigned(GTPEngineError, Resign):
    """The external engine answered ``genmove`` with ``resign``: a result, not a fault, so
    ``tournaments.play_game`` scores the game as the engine's loss by resignation (reason
    ``"resign"``), as it does for any agent that raises ``Resign``."""


class GTPSyncError(AgentError):
    """The position handed to a GTP agent does not follow from the one its engine knows."""


class GTPEngine:
    """One external GTP engine process: send a command, get the answer or a ``GTPEngineError``.

    Responses are read with ``select`` against a deadline, so a silent engine cannot block the
    caller; the engine's stderr goes to a temporary file whose tail explains a crash.
    """

    def __init__(self, command: Iterable[str], timeout: float = 10.0) -> None:
        self.command = list(command)
        self.timeout = timeout
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=0,
            )
        except OSError as exc:
            raise GTPEngineError(f"cannot start GTP engine {self.command!r}: {exc}") from None
        self._buffer = b""

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; return the text of a success answer (``= text``).

        A failure answer (``? text``) raises ``GTPEngineError`` carrying the engine's message.
        """
        ok, text = self.ask(command, timeout)
        if not ok:
            raise GTPEngineError(f"GTP engine {self._name()} refused {command!r}: {text}")
        return text

    def ask(self, command: str, timeout: float | None = None) -> tuple[bool, str]:
        """Send one command; return ``(success, text)`` without raising on a failure answer."""
        try:
            self._proc.stdin.write(command.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(command) from None
        answer = self._read(command, self.timeout if timeout is None else timeout)
        parsed = parse_response(answer)
        if parsed is None:
            raise GTPEngineError(
                f"GTP engine {self._name()} answered {answer[:80]!r} to {command!r}: "
                "expected a response starting with '=' or '?'"
            )
        return parsed

    def _read(self, command: str, timeout: float) -> bytes:
        """The next response (up to the empty line that ends it), within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        fd = self._proc.stdout.fileno()
        while True:
            self._buffer = self._buffer.lstrip(b"\n")
            end = self._buffer.find(RESPONSE_END)
            if end >= 0:
                answer, self._buffer = self._buffer[:end], self._buffer[end + len(RESPONSE_END) :]
                return answer
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise GTPTimeout(f"GTP engine {self._name()} gave no answer to {command!r} within {timeout:g} s")
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self._died(command)
                self._buffer += chunk.replace(b"\r", b"")

    def _died(self, command: str) -> GTPEngineError:
        try:
            code = self._proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr.seek(0)
        tail = self._stderr.read()[-300:].decode(errors="replace").strip()
        self.close()
        detail = f" (exit code {code})" if code is not None else ""
        detail += f"; its stderr ends: {tail!r}" if tail else ""
        return GTPEngineError(f"GTP engine {self._name()} died while answering {command!r}{detail}")

    def _name(self) -> str:
        return os.path.basename(self.command[0]) if self.command else "?"

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        """Ask the engine to quit, then make sure it is gone."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write(b"quit\n")
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
