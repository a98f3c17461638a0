"""Agents that misbehave on purpose, for tests/test_faults.py: importing this module registers
them (``agents.make("slow:delay=0.05")``), so a CLI started with it on its path can use them.

Run as a script it is the ``arbiter`` command with these agents available::

    python tests/fault_agents.py tournament --agents slow segfault ...
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import agents
from agents.base import Agent


class _Lowest(Agent):
    def _act(self, game, state) -> int:
        return int(game.legal_actions(state)[0])


def _register(name):
    """Register once (a test may import this module under two names)."""

    def decorate(cls):
        return agents.REGISTRY.get(name) or agents.register(name)(cls)

    return decorate


@_register("slow")
class Slow(_Lowest):
    """Plays the lowest legal action after ``delay`` seconds (a run that lasts long enough to be
    interrupted)."""

    def __init__(self, delay=0.05, seed=None):
        super().__init__(seed=seed)
        self.delay = float(delay)

    def _act(self, game, state) -> int:
        time.sleep(self.delay)
        return super()._act(game, state)


@_register("segfault")
class Segfault(_Lowest):
    """Kills its own process with SIGSEGV when asked to move."""

    def _act(self, game, state) -> int:
        os.kill(os.getpid(), signal.SIGSEGV)
        return super()._act(game, state)


@_register("exit3")
class Exit3(_Lowest):
    """Says why on stderr, then ends its process with ``os._exit(3)`` when asked to move."""

    def _act(self, game, state) -> int:
        print("exit3: giving up", file=sys.stderr, flush=True)
        os._exit(3)


@_register("selfkill")
class SelfKill(_Lowest):
    """SIGKILLs its own process when asked to move: indistinguishable from the OOM killer, so the
    game is replayed until the replay limit stops the run."""

    def _act(self, game, state) -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        return super()._act(game, state)


@_register("warmhang")
class WarmHang(_Lowest):
    """Its warm-up never finishes."""

    def warm_up(self, game) -> None:
        time.sleep(1000)


@_register("movehang")
class MoveHang(_Lowest):
    """Never answers a move (with a clock, its first, unclocked warm-up move hangs: a setup
    timeout)."""

    def _act(self, game, state) -> int:
        time.sleep(1000)
        return super()._act(game, state)


@_register("forker")
class Forker(_Lowest):
    """Starts two children on its first move, each meant to sleep ten minutes: one forked (it holds
    a copy of every descriptor of the worker, its pipe to the referee included) and one ``sleep``
    to which it passes every descriptor it has (a careless engine launch). Each child's pid is a
    file in the directory ``pids``, for a test to check that none outlives the tournament."""

    def __init__(self, pids="", seed=None):
        super().__init__(seed=seed)
        self.pids = pids
        self.started = False

    def _note(self, pid) -> None:
        if self.pids:
            open(os.path.join(self.pids, str(pid)), "w").close()

    def _act(self, game, state) -> int:
        if not self.started:
            self.started = True
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child only sleeps
                time.sleep(600)
                os._exit(0)
            self._note(pid)
            fds = []
            for name in os.listdir("/proc/self/fd"):
                try:
                    os.fstat(int(name))
                except OSError:  # the listing's own descriptor, closed by now
                    continue
                if int(name) > 2:
                    fds.append(int(name))
            self._note(subprocess.Popen(["sleep", "600"], pass_fds=fds).pid)
        return super()._act(game, state)


if __name__ == "__main__":
    from tournaments import cli
    from tournaments.referee import executor

    if os.environ.get("ARBITER_TEST_NO_PDEATHSIG"):  # leave it to the watchdog (prctl option 0 is a no-op)
        executor.PR_SET_PDEATHSIG = 0

    sys.exit(cli.main(sys.argv[1:]))
