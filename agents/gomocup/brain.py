"""A Gomocup brain as a process: send a command, read its answer within a deadline.

``Brain(argv)`` starts the brain with pipes to its stdin and stdout (the process side is
``agents.engine_process.EngineProcess``, shared with GTP engines). ``ask`` sends a command (with
the lines of its body, for ``BOARD``) and returns the brain's answer line; ``tell`` sends one
that has no answer (``INFO``). ``MESSAGE`` and ``DEBUG`` lines are kept (the last few are quoted
when the brain fails) and never taken for an answer. Every way a brain can fail its caller is a
``GomocupError`` (an ``agents.AgentError``), so a tournament forfeits the game instead of
hanging: it cannot be started, it dies, it answers ``ERROR`` or ``UNKNOWN`` (``GomocupRefused``),
or it is silent past the deadline (``GomocupTimeout``, and the brain is ended).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence

from ..base import AgentError
from ..engine_process import EngineProcess
from .protocol import NOTES, REFUSALS, read_about, split


class GomocupError(AgentError):
    """The brain died, broke the protocol, refused a command, or played an impossible move."""


class GomocupTimeout(GomocupError):
    """The brain did not answer within its time."""


class GomocupRefused(GomocupError):
    """The brain answered ``ERROR`` or ``UNKNOWN``: it will not do what it was asked (a board
    size or rule it does not play at ``START``, a command it does not know)."""


class Brain:
    """One Gomocup brain process (see the module docstring); ``timeout``: seconds any answer
    but a move may take (a move's deadline is given with its command)."""

    def __init__(self, command: Iterable[str], timeout: float = 30.0) -> None:
        self.timeout = timeout
        self._process = EngineProcess(
            command, what="Gomocup brain", error=GomocupError, timeout=GomocupTimeout, goodbye="END"
        )
        self.command = self._process.command
        self.notes: deque[str] = deque(maxlen=4)  # its last MESSAGE/DEBUG lines

    @property
    def name(self) -> str:
        return self._process.name

    @property
    def alive(self) -> bool:
        return self._process.alive

    def tell(self, line: str) -> None:
        """Send a command that has no answer (``INFO``)."""
        self._process.write(line)

    def ask(
        self,
        command: str,
        timeout: float | None = None,
        body: Sequence[str] = (),
        answers: Callable[[str], bool] | None = None,
    ) -> str:
        """Send ``command`` (and the lines of ``body`` after it) and return the brain's answer
        line, stripped; ``ERROR``/``UNKNOWN`` raise ``GomocupRefused`` with the brain's text.

        ``answers``: which lines are meant as the answer; any other line is kept as a note, as
        a ``MESSAGE`` is (a move is a line with a comma: some brains write their search's
        progress on lines of their own, or break a ``MESSAGE`` line with a stray newline, and
        the manager still waits for the move). Default: every line but a note is the answer."""
        for line in (command, *body):
            self._process.write(line, command)
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while True:
            left = max(deadline - time.monotonic(), 0.0)
            try:
                line = self._process.read_until(b"\n", command, left, allowed=timeout)
            except GomocupError as exc:  # silent or dead: what it last said may tell why
                said = f"; its last notes: {' | '.join(self.notes)}" if self.notes else ""
                raise type(exc)(f"{exc}{said}") from None
            line = line.decode(errors="replace").strip()
            keyword, text = split(line)
            if not line:
                continue
            if keyword in NOTES or (answers is not None and keyword not in REFUSALS and not answers(line)):
                self.notes.append(line[:200])
                continue
            if keyword in REFUSALS:
                raise GomocupRefused(f"Gomocup brain {self.name} answered {line[:200]!r} to {command!r}")
            return line

    def about(self) -> dict[str, str]:
        """The brain's ``ABOUT`` fields (``name``, ``version``, ``author``, ...)."""
        return read_about(self.ask("ABOUT"))

    def close(self) -> None:
        """Send ``END``, then make sure the brain is gone (killed after a second)."""
        self._process.close()
