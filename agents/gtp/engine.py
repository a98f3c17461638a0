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

import time
from collections.abc import Iterable

from ..base import AgentError, Resign
from ..engine_process import EngineProcess
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

    Responses are read against a deadline, so a silent engine cannot block the caller; the
    engine's stderr goes to a temporary file whose tail explains a crash (the process side is
    ``agents.engine_process.EngineProcess``, shared with the Gomocup brains).
    """

    def __init__(self, command: Iterable[str], timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._process = EngineProcess(
            command, what="GTP engine", error=GTPEngineError, timeout=GTPTimeout, goodbye="quit"
        )
        self.command = self._process.command

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; return the text of a success answer (``= text``).

        A failure answer (``? text``) raises ``GTPEngineError`` carrying the engine's message.
        """
        ok, text = self.ask(command, timeout)
        if not ok:
            raise GTPEngineError(f"GTP engine {self._process.name} refused {command!r}: {text}")
        return text

    def ask(self, command: str, timeout: float | None = None) -> tuple[bool, str]:
        """Send one command; return ``(success, text)`` without raising on a failure answer."""
        self._process.write(command)
        self._process.lstrip(b"\n")  # blank lines before a response are no response
        answer = self._read(command, self.timeout if timeout is None else timeout)
        parsed = parse_response(answer)
        if parsed is None:
            raise GTPEngineError(
                f"GTP engine {self._process.name} answered {answer[:80]!r} to {command!r}: "
                "expected a response starting with '=' or '?'"
            )
        return parsed

    def _read(self, command: str, timeout: float) -> bytes:
        """The next response (up to the empty line that ends it), within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            left = max(deadline - time.monotonic(), 0.0)
            answer = self._process.read_until(RESPONSE_END, command, left, allowed=timeout)
            if answer.strip(b"\n"):
                return answer.lstrip(b"\n")

    @property
    def alive(self) -> bool:
        return self._process.alive

    def close(self) -> None:
        """Ask the engine to quit, then make sure it is gone."""
        self._process.close()
