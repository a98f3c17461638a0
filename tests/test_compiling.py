"""First compiles announce themselves on stderr, and search statistics leave compile time out.

The fast tests compile small functions made for the test (numba compiles each new function the
first time it runs); the slow one runs a game and an MCTS move in a fresh process with an empty
numba cache, as a new user's first run does.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import envs
from agents.base import Agent
from envs.core import compiling

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _nothing_announced_yet(monkeypatch):
    """Each test starts as a new process would (earlier tests of a cold run announce their own)."""
    monkeypatch.setattr(compiling, "_announced", set())
    monkeypatch.setattr(compiling, "_quiet", set())
    monkeypatch.setitem(compiling._state, "told", False)


def _fresh(module, qualname="helper"):
    """A new jitted function (never compiled, not cached) that numba files under ``module``."""

    def helper(x):
        total = 0
        for i in range(x):
            total += i * i
        return total

    helper.__module__ = module
    helper.__qualname__ = qualname
    return njit(helper)


def test_a_first_compile_of_project_code_is_announced_once_per_game_and_module(capsys):
    _fresh("envs.go._kernel")(3)
    _fresh("envs.go._kernel", "other")(3)  # same part (go's rules): announced already
    _fresh("agents._mcts_kernel", "run__go_0123456789ab")(3)  # go's MCTS: a part of its own
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("arbiter: compiling go's numba code (envs.go._kernel.helper and what it calls)")
    assert "numba caches it for later runs" in err[0]
    assert err[1] == "arbiter: compiling go's numba code (agents._mcts_kernel.run and what it calls)"
    assert len(err) == 2


def test_quiet_games_and_foreign_code_print_nothing(capsys):
    compiling.quiet("loa")
    _fresh("agents.alphabeta", "search_root__loa_0123456789ab")(3)
    _fresh("someone.elses.module")(3)  # user code compiled with numba: not ours to announce
    assert capsys.readouterr().err == ""


def test_notices_can_be_turned_off(capsys):
    compiling.notices(False)
    try:
        _fresh("agents.fresh_module_for_the_test")(3)
    finally:
        compiling.notices(True)
    assert capsys.readouterr().err == ""


def test_compile_seconds_counts_compiling_not_running():
    f = _fresh("someone.elses.module")
    before = compiling.compile_seconds()
    f(10)
    compiled = compiling.compile_seconds()
    assert compiled > before
    f(10**6)  # compiled already: running adds nothing
    assert compiling.compile_seconds() == compiled


class _Compiles(Agent):
    """Compiles a new function on its first move, times its whole move as a search agent does."""

    name = "compiles-for-the-test"

    def _act(self, game, state):
        start = time.perf_counter()
        self.kernel(1000)
        self.last_stats = {"seconds": time.perf_counter() - start, "nodes": 1}
        return int(game.legal_actions(state)[0])


def test_last_stats_seconds_leave_the_compile_out():
    game = envs.make_game("othello")
    state = game.initial_state(seed=0)
    bot = _Compiles(seed=0)
    bot.kernel = _fresh("someone.elses.module")
    start, compiled_before = time.perf_counter(), compiling.compile_seconds()
    bot.act(game, state)
    whole = time.perf_counter() - start
    compile_s = compiling.compile_seconds() - compiled_before
    first = bot.last_stats
    assert compile_s > 0
    assert first["seconds"] + compile_s <= whole
    assert first["seconds"] < compile_s  # a 1,000-step loop against a compile
    assert set(first) == {"seconds", "nodes"}  # the agent's own statistics, nothing added
    compiled_before = compiling.compile_seconds()
    bot.act(game, state)
    assert compiling.compile_seconds() == compiled_before  # compiled: nothing to leave out


CHILD = """
import sys, time
import agents, envs
from envs.core import compiling
game = envs.make_game("gomoku", size=9)
state = game.initial_state(seed=0)
game.legal_actions(state)
bot = agents.make("mcts:simulations=200", seed=0)
start, compiled_before = time.perf_counter(), compiling.compile_seconds()
bot.act(game, state)
whole = time.perf_counter() - start
print(bot.last_stats["seconds"], compiling.compile_seconds() - compiled_before, whole)
"""


@pytest.mark.slow
def test_a_cold_start_announces_each_part_and_times_the_search_alone(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    runs = []
    for _ in range(2):  # cold (empty cache), then warm (the same cache)
        proc = subprocess.run(
            [sys.executable, "-c", CHILD],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
            check=True,
        )
        runs.append((proc.stderr, [float(x) for x in proc.stdout.split()]))
    (cold_err, (seconds, compile_s, whole)), (warm_err, warm) = runs
    lines = [line for line in cold_err.splitlines() if line.startswith("arbiter: compiling gomoku's")]
    assert any("envs._game_ops." in line for line in lines)  # the first legal moves
    assert any("agents._mcts_kernel." in line for line in lines)  # the first MCTS move
    assert compile_s > 1.0 and seconds < whole - compile_s + 0.05
    assert seconds < compile_s
    assert "arbiter: compiling" not in warm_err  # loaded from the cache: nothing to announce
    assert np.isclose(warm[1], 0.0, atol=1.0)  # loading the cached code: well under a second


CLOCKED = """
import agents, envs
game = envs.make_game("loa")
state = game.initial_state(seed=0)
game.legal_actions(state)
bot = agents.make("alphabeta:time=1.0", seed=0)
bot.act(game, state)
print(bot.last_stats["depth"], bot.last_stats["seconds"])
"""


@pytest.mark.slow
def test_a_first_compile_does_not_eat_an_alphabeta_clock(tmp_path):
    """On a 1 s clock with an empty cache, the first move compiles first and then searches its
    full second: deeper than the depth 1-2 a clock spent on compiling leaves."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-c", CLOCKED], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900, check=True
    )
    depth, seconds = proc.stdout.split()
    assert int(depth) >= 3
    assert 0.5 < float(seconds) < 5.0  # the search's own second, the compile left out
