"""The helper that compiles the referee's code ahead (``tournaments.referee.precompile``): it fills an
empty numba cache, starts nothing when the cache is full, and a helper that dies costs nothing
but the time it saved."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tournaments.referee import precompile

ROOT = Path(__file__).resolve().parents[1]


def _fresh_process(code: str, cache: Path) -> dict:
    """Run ``code`` in a new interpreter whose numba cache is the empty directory ``cache``; the
    code prints one JSON line, returned."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_helper_fills_an_empty_cache_and_is_not_started_again(tmp_path):
    got = _fresh_process(
        """
        import json
        from tournaments.referee import precompile
        before = precompile.cached("systems")
        started = precompile.start(["systems"])
        precompile.wait("systems")
        print(json.dumps({"before": before, "started": started, "after": precompile.cached("systems"),
                          "again": precompile.start(["systems"])}))
        """,
        tmp_path,
    )
    assert got == {"before": False, "started": True, "after": True, "again": False}


def test_a_helper_that_dies_leaves_the_part_to_the_caller(tmp_path):
    got = _fresh_process(
        """
        import json, time
        from tournaments.referee import precompile
        from tournaments.studies.championship import simulate
        precompile.start(["simulator"])
        precompile._helpers["simulator"].proc.kill()
        t = time.monotonic()
        precompile.wait("simulator")
        waited = time.monotonic() - t
        cached = precompile.cached("simulator")
        win = simulate("swiss", 4, 0.7, championships=20, seed=1, rounds=2)["win"][0]  # compiles it here
        print(json.dumps({"waited": waited, "cached": cached, "win": win}))
        """,
        tmp_path,
    )
    assert got["waited"] < 5 and got["cached"] is False
    assert 0 <= got["win"] <= 1


def test_a_helper_that_takes_too_long_is_ended(tmp_path):
    got = _fresh_process(
        """
        import json, time
        from tournaments.referee import precompile
        precompile.WAIT_LIMIT = 0.2
        precompile.start(["systems", "simulator"])
        helper = precompile._helpers["systems"]
        t = time.monotonic()
        precompile.wait("systems")
        precompile.wait("simulator")
        waited = time.monotonic() - t
        helper.proc.join(5)
        print(json.dumps({"waited": waited, "alive": helper.proc.is_alive(), "cached": precompile.cached("systems")}))
        """,
        tmp_path,
    )
    assert got["waited"] < 5 and got["alive"] is False and got["cached"] is False


def test_waiting_for_a_part_nobody_compiles_returns_at_once():
    precompile.wait("systems")
    precompile.wait("simulator")


def test_unknown_parts_are_refused():
    with pytest.raises(ValueError, match="'ratings'"):
        precompile.start(["ratings"])
    with pytest.raises(ValueError, match="'ratings'"):
        precompile.compile_part("ratings")


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for a reaper counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
def test_the_helper_dies_with_a_sigkilled_parent(tmp_path):
    """SIGKILL of a tournament's process (the OOM killer, ``kill -9``) leaves no helper behind."""
    import signal
    import time

    code = """
        import sys, time
        from tournaments.referee import precompile
        assert precompile.start(["systems", "simulator"])
        print(precompile._helpers["systems"].proc.pid, flush=True)
        time.sleep(120)
        """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], env=env, stdout=subprocess.PIPE, text=True)
    try:
        helper = int(parent.stdout.readline())
        assert _alive(helper)
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 10
        while _alive(helper) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(helper), "the precompile helper outlived its SIGKILLed parent"
    finally:
        parent.kill()
        parent.wait()
