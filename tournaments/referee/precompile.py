"""The referee's compiled code, compiled ahead in a helper process while the agents warm up.

A tournament's first run on a machine compiles three things one after the other: the systems'
pairing rules (``_systems``: about 7 s of one core here), the game and its agents (the
executor's warm-up: 10-60 s, in a process of its own) and, for the trust line, the study's
simulator (about 6 s). Of the first and the last the main process needs nothing but numba's disk
cache filled, so ``start`` has a helper process fill it while the warm-up runs on another core,
and ``wait(part)`` blocks until the helper has cached that part; the main process then loads it
in milliseconds. On the 2-core machine this cut the README's quick-start tournament from 36.6 s
to 20.9 s cold (docs/benchmarks.md).

Nothing is started when the cache already holds a part (a warm run costs two file checks). If
the helper dies, cannot compile a part or takes longer than ``WAIT_LIMIT``, ``wait`` returns all
the same and the main process compiles what is missing itself, as it would without the helper.
The helper ignores Ctrl-C (the main process ends it on exit: a daemon process), dies with the
main process however that one dies (``executor.die_with_parent``: a SIGKILLed tournament leaves
no helper behind), prints no compile notices, and uses the start method of the tournament's own
worker processes.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Iterable

from envs.core import ParameterError, compiling
from envs.core.specialise import on_disk

from . import _systems
from .executor import Compiles, die_with_parent
from .simulation import kernels
from .simulation.simulator import simulate
from .systems import DRAW, Referee, configure

PARTS = ("systems", "simulator")
# The longest ``wait`` for one part (seconds): far beyond a compile of a few seconds, short of a
# hang. A helper forked while another thread of the parent held numba's compiler lock would wait
# for that lock forever; past this bound it is killed and the caller compiles what is missing.
WAIT_LIMIT = 180.0

_lock = threading.Lock()
_helpers: dict[str, _Helper] = {}  # part -> the helper compiling it, until someone waited for it


def _functions(part: str) -> list:
    """The compiled functions whose cache entries say whether ``part`` is compiled."""
    if part == "systems":
        return [_systems.next_games, _systems.record, _systems.places]
    return [kernels.run_chunks]


def cached(part: str) -> bool | None:
    """Whether numba's disk cache holds ``part`` (None when that cannot be told): the helper
    starts unless it does, and a caller can say "compiling, first run only" when it does not."""
    held = [on_disk(f) for f in _functions(part)]
    return None if None in held else all(held)


def compile_part(part: str) -> None:
    """Compile ``part`` in this process (what the helper runs; its results are thrown away)."""
    if part == "systems":
        # one championship compiles every system's rules: one compiled function branches on it
        referee = Referee(configure("swiss", 5, rounds=2), 0)
        while batch := referee.next_games():
            referee.record([DRAW] * len(batch))
        referee.places()
    elif part == "simulator":
        # the argument types of the trust line's simulations (tournaments.trust)
        simulate("swiss", 3, None, 2, 0, strengths=("normal", 100.0), draw=0.1, first_move_advantage=0.01, rounds=2)
    else:
        raise ParameterError(f"part {part!r}: expected one of {', '.join(PARTS)}")


def _main(conn, parts, parent) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the command's handler, inherited by a fork
    die_with_parent(parent)
    compiling.notices(False)
    # the main process, when it waits for a part, keeps the "still compiling" heartbeat going
    compiling.relay(lambda *begun: conn.send(("compiling", *begun)))
    compiling.watch(lambda inside: conn.send(("compiler", inside)))
    for part in parts:
        try:
            compile_part(part)
        except Exception:  # noqa: BLE001 - the main process compiles it itself, and reports any error
            pass
        conn.send(("compiled", part))
    conn.close()


class _Helper:
    def __init__(self, parts: list[str]) -> None:
        context = mp.get_context()
        self.conn, child = context.Pipe(duplex=False)
        # the parent it must outlive: this process, unless a fork server starts the child
        parent = os.getpid() if context.get_start_method() in ("fork", "spawn") else None
        self.proc = context.Process(target=_main, args=(child, parts, parent), daemon=True, name="arbiter-precompile")
        self.proc.start()
        child.close()
        self.ready: set[str] = set()
        self.left = set(parts)
        self.compiles = Compiles()

    def wait(self, part: str) -> None:
        deadline = time.monotonic() + WAIT_LIMIT
        try:
            while part not in self.ready:
                try:
                    if not self.conn.poll(max(0.0, deadline - time.monotonic())):
                        self.proc.kill()  # stuck (a lock a forked child can never take): do without it
                        break
                    msg = self.conn.recv()
                except (EOFError, OSError):  # the helper died: the caller compiles what is missing
                    break
                if msg[0] == "compiled":
                    self.ready.add(msg[1])
                else:
                    self.compiles.message(msg)
        finally:
            self.compiles.end()
        self.left.discard(part)
        if not self.left or not self.proc.is_alive():
            self.conn.close()
            self.proc.join(timeout=5)


def start(parts: Iterable[str] = PARTS) -> bool:
    """Compile the ``parts`` not yet in numba's cache (nor already being compiled) in a helper
    process; True if one was started."""
    parts = list(parts)
    for part in parts:
        if part not in PARTS:
            raise ParameterError(f"part {part!r}: expected one of {', '.join(PARTS)}")
    with _lock:
        todo = [p for p in parts if p not in _helpers and not cached(p)]
        if not todo:
            return False
        helper = _Helper(todo)
        for part in todo:
            _helpers[part] = helper
        return True


def wait(part: str) -> None:
    """Return once the helper compiling ``part`` has cached it or died; at once if none is."""
    with _lock:
        helper = _helpers.pop(part, None)
        if helper is not None:
            helper.wait(part)
