"""Shared fixtures: a game registered for a test or a test module, and the registry put back after.

``tests/`` is put on ``sys.path`` here, so ``import connect_four`` (the worked example of
docs/adding-a-game.md, a game package outside ``envs/``) works in every pytest import mode.
"""

import sys
from pathlib import Path

import pytest

import envs

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


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
