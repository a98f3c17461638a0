"""Shared fixtures: a game registered for a test or a test module (and the registry put back
after), a script of the repository run as a user runs it, and a local Ray for a test module.

``tests/`` is put on ``sys.path`` here, so ``import connect_four`` (the worked example of
docs/adding-a-game.md, a game package outside ``envs/``) works in every pytest import mode.

Ctrl-C is given its default here: a test run started in the background of a shell without job
control (``pytest &``, ``nohup``) inherits SIGINT ignored, and so would every process it starts,
so the tests that interrupt a tournament with SIGINT would wait for a signal nobody hears.
"""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import envs

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


class Registry:
    """Registers specs (replacing a game of the same name) and, at ``restore``, puts back what
    each name held before: the other spec, or nothing (its framework ids go with it)."""

    def __init__(self):
        self._before = {}

    def add(self, *specs):
        for spec in specs:
            if spec.name not in self._before:
                self._before[spec.name] = envs.spec(spec.name) if spec.name in envs.GAMES else None
            envs.register(spec, replace=True)
            assert envs.spec(spec.name) is spec

    def restore(self):
        for name, spec in reversed(list(self._before.items())):
            if spec is None:
                envs.unregister(name)
            else:
                envs.register(spec, replace=True)
        self._before.clear()


@pytest.fixture
def registry():
    """Games registered with ``registry.add(spec)`` for one test."""
    registered = Registry()
    yield registered
    registered.restore()


@pytest.fixture(scope="module")
def module_registry():
    """Games registered with ``module_registry.add(spec)`` until a test module's last test."""
    registered = Registry()
    yield registered
    registered.restore()


@pytest.fixture
def run_script():
    """``run_script("examples/x.py", *args)`` (or ``"-m", "tournaments.cli", ...``): the command
    run in a fresh interpreter from the repository root, as the docs show it, with the
    repository and ``tests/`` (test agents and games) on its ``PYTHONPATH``; returns the
    ``CompletedProcess``, its output as text. ``env`` adds variables, ``cwd`` and ``input`` are
    ``subprocess.run``'s. For tests whose point is a script's command line end to end: what a
    script computes is tested through the package module it calls."""
    path = os.pathsep.join(filter(None, [str(ROOT), str(HERE), os.environ.get("PYTHONPATH")]))

    def run(*argv, cwd=ROOT, env=None, input=None, timeout=600):
        return subprocess.run(
            [sys.executable, *map(str, argv)],
            cwd=cwd,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "PYTHONPATH": path, **(env or {})},
        )

    return run


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray (2 CPUs, no dashboard) for one test module, shut down after its last test;
    its workers find ``tests/`` on their path (test agents such as ``fault_agents``)."""
    ray = pytest.importorskip("ray", reason='needs the distributed extra: pip install "arbiter-games[distributed]"')
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    yield ray
    ray.shutdown()
