"""Tournaments on Ray (``executor="ray"``): the same games as the process executor, a lost Ray
worker costs no finished game, and a killed driver resumes from its journal with none lost. A real local Ray (2 CPUs, no dashboard) runs in these tests."""

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

import tournaments
from tournaments.referee.executor import ExecutorError, ProcessExecutor

ray = pytest.importorskip("ray", reason='needs the distributed extra: pip install "arbiter-games[distributed]"')

from tournaments.referee.ray_executor import RayExecutor  # noqa: E402

AGENTS = ["random", "greedy", "alphabeta:depth=1", "mcts:simulations=30"]
GAME = {"game": "gomoku", "game_params": {"size": 7}, "seed": 5}


HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1"])
def test_an_address_where_nothing_answers_fails_in_seconds_naming_it(address, monkeypatch):
    if ray.is_initialized():
        pytest.skip("Ray is already initialised in this process: connect() would reuse it")
    # ray.init itself would wait minutes for a refused port; the TCP check answers first
    monkeypatch.setattr(ray, "init", lambda **kw: pytest.fail("ray.init must not be reached"))
    with pytest.raises(ExecutorError, match=f"address='{address}': no Ray cluster answers there"):
        RayExecutor(address=address).start(None)


def _games(result):
    return sorted(
        ({k: v for k, v in g.items() if k not in ("seconds", "times")} for g in result.games), key=lambda g: g["index"]
    )


def test_ray_plays_the_same_games_as_the_process_executor(local_ray):
    on_ray = tournaments.round_robin(AGENTS, executor=RayExecutor(workers=2), progress=False, **GAME)
    local = tournaments.round_robin(AGENTS, executor=ProcessExecutor(2), progress=False, **GAME)
    assert _games(on_ray) == _games(local)
    assert [s.name for s in on_ray.standings()] == [s.name for s in local.standings()]
    assert on_ray.points == local.points and len(on_ray.games) == 12


def test_the_executor_option_names_ray(local_ray):
    result = tournaments.round_robin(AGENTS[:2], executor="ray", workers=2, progress=False, **GAME)
    assert len(result.games) == 2


SLOW = "mcts:simulations=20000"  # seconds a game: long enough to be interrupted


def test_a_killed_ray_worker_costs_no_finished_game(local_ray, tmp_path):
    journal = tmp_path / "run.db"
    executor = RayExecutor(workers=2)
    killed = []

    def kill_one_actor():  # once the actors play (both are busy from then on), kill one
        while not killed:
            time.sleep(0.2)
            try:
                pids = executor.actor_pids()
            except Exception:  # noqa: BLE001 - the actors are being started
                continue
            if not pids:
                continue
            time.sleep(1.0)
            os.kill(pids[0], signal.SIGKILL)
            killed.append(pids[0])

    killer = threading.Thread(target=kill_one_actor, daemon=True)
    killer.start()
    result = tournaments.round_robin(
        [SLOW, "random", "greedy"], executor=executor, journal=str(journal), progress=False, **GAME
    )
    killer.join(timeout=5)
    assert killed, "no actor was killed: the tournament ended first"
    assert executor.replayed == 1  # the killed actor was playing: its game went to a fresh actor
    indices = [g["index"] for g in result.games]
    assert sorted(indices) == list(range(6))  # every game once, the interrupted one played again
    resumed = tournaments.round_robin(
        [SLOW, "random", "greedy"], executor="inline", journal=str(journal), resume=True, progress=False, **GAME
    )
    assert _games(resumed) == _games(result)  # the journal holds every game, once


def _starting_players() -> list:
    """Pids of Ray actors running ``_Player.__init__`` (Ray titles a worker process by its task)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    title = f.read()
            except OSError:
                continue
            if title.startswith(b"ray::_Player.__init__"):
                found.append(int(entry))
    return found


def test_an_actor_lost_while_it_starts_is_replaced_and_costs_no_game(local_ray):
    """One actor is SIGKILLed as soon as it exists, during its warm-up: the tournament neither
    stops nor loses a game; a fresh actor takes the place."""
    executor = RayExecutor(workers=2)
    killed = []

    def kill_a_starting_actor():
        deadline = time.monotonic() + 120
        while not killed and time.monotonic() < deadline:
            for pid in _starting_players():
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                break
            time.sleep(0.005)

    killer = threading.Thread(target=kill_a_starting_actor, daemon=True)
    killer.start()
    result = tournaments.round_robin(AGENTS[:3], executor=executor, progress=False, **GAME)
    killer.join(timeout=5)
    assert killed, "no actor was seen starting"
    assert executor.restarted >= 1 and executor.replayed == 0
    assert sorted(g["index"] for g in result.games) == list(range(6))
    assert all(g["reason"] == "normal" for g in result.games)


def test_an_agent_ruled_out_on_one_actor_is_ruled_out_on_all(local_ray):
    """The hung agent times out at setup on one or both actors (they play at once); its other
    games are forfeited by the driver without being sent, with the reason."""
    from fault_agents import MoveHang

    result = tournaments.round_robin(
        [MoveHang(), "random", "greedy"],
        executor=RayExecutor(workers=2),
        move_time=1.0,
        setup_time=2.0,
        progress=False,
        **GAME,
    )
    theirs = [g for g in result.games if "movehang" in (g["black"], g["white"])]
    assert len(result.games) == 6 and len(theirs) == 4
    assert all(g["reason"] == "forfeit-timeout" for g in theirs)
    waited = [g for g in theirs if g["detail"].startswith("warm-up move: no answer within setup_time=2.0s")]
    ruled = [g for g in theirs if g["detail"].startswith("ruled out: setup timed out after 2 s (warm-up move, game ")]
    assert 1 <= len(waited) <= 2 and len(waited) + len(ruled) == 4


DRIVEN = ["mcts:simulations=40000", "mcts:simulations=20000", "greedy", "random"]  # 12 games, ~10 s of play


def _session(sid) -> list:
    """The live processes of session ``sid``: a driver started in its own session, its local Ray
    (GCS, raylet, agents) and the actors and game workers under it."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    state, _, _, session = f.read().rsplit(")", 1)[1].split()[:4]
            except OSError:
                continue
            if int(session) == sid and state != "Z":
                found.append(int(entry))
    return found


def _journaled(path) -> list:
    if not os.path.exists(path):
        return []
    try:
        db = sqlite3.connect(path)
        try:
            return [row[0] for row in db.execute("SELECT idx FROM games")]
        finally:
            db.close()
    except sqlite3.Error:  # the driver is creating it
        return []


def _reap(sid, grace: float = 10.0) -> list:
    """Kill what a SIGKILLed driver left of its local Ray (Ray's own agents outlive their raylet)
    and return the pids that were still there after ``grace`` seconds."""
    deadline = time.monotonic() + grace
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = _session(sid)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 10
    while _session(sid) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


@pytest.mark.slow
def test_a_killed_driver_resumes_with_no_finished_game_lost(tmp_path):
    """The CLI on a local Ray is SIGKILLed once games are journaled; the same command with
    --resume finishes the tournament: every game in the journal once, standings as if never
    interrupted, and nothing of the killed driver's Ray left running."""
    journal = str(tmp_path / "run.db")
    command = [
        sys.executable,
        "-m",
        "tournaments.cli",
        "tournament",
        "--game",
        "gomoku",
        "-p",
        "size=7",
        "--system",
        "round_robin",
        "--seed",
        "5",
        "--agents",
        *DRIVEN,
        "--executor",
        "ray",
        "--workers",
        "2",
        "--journal",
        journal,
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")])}
    driver = subprocess.Popen(
        command,
        env=env,
        cwd=str(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 240
        while len(_journaled(journal)) < 2 and driver.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.poll() is None, driver.communicate()[1][-2000:]
        before = len(_journaled(journal))
        os.kill(driver.pid, signal.SIGKILL)
        driver.communicate()
    finally:
        if driver.poll() is None:
            os.kill(driver.pid, signal.SIGKILL)
            driver.communicate()
        _reap(driver.pid)
    assert _session(driver.pid) == []  # no orphan of the killed driver's Ray
    assert 2 <= before < 12, f"{before} games journaled at the kill: the tournament was not interrupted"

    resumed = subprocess.run(
        [*command, "--resume"],
        env=env,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
        start_new_session=True,
    )
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert "round_robin on gomoku (size=7): 12 games" in resumed.stdout
    assert sorted(_journaled(journal)) == list(range(12))  # every game once (idx is the key)

    again = tournaments.round_robin(
        DRIVEN, executor="inline", journal=journal, resume=True, progress=False, **GAME
    )  # reads the journal back: nothing left to play
    uninterrupted = tournaments.round_robin(DRIVEN, workers=0, progress=False, **GAME)
    assert _games(again) == _games(uninterrupted)
    assert [(s.name, s.place, s.points) for s in again.standings()] == [
        (s.name, s.place, s.points) for s in uninterrupted.standings()
    ]


def test_without_ray_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ExecutorError, match=r'pip install "arbiter-games\[distributed\]"'):
        tournaments.round_robin(AGENTS[:2], executor="ray", progress=False, **GAME)


@pytest.mark.slow
def test_a_lost_node_costs_no_finished_game(tmp_path):
    """Two Ray nodes on this machine; the worker node is removed mid-tournament: its actor's game
    is played again on the head node, and every game is journaled once."""
    from ray.cluster_utils import Cluster

    if ray.is_initialized():
        ray.shutdown()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    worker = cluster.add_node(num_cpus=1)
    ray.init(address=cluster.address, log_to_driver=False)
    try:
        executor = RayExecutor(workers=2)
        removed = []

        def remove_worker_node():
            while not removed:
                time.sleep(0.2)
                try:
                    if len(executor.actor_pids()) < 2:
                        continue
                except Exception:  # noqa: BLE001 - actors still starting
                    continue
                time.sleep(2.0)
                cluster.remove_node(worker)
                removed.append(True)

        remover = threading.Thread(target=remove_worker_node, daemon=True)
        remover.start()
        result = tournaments.round_robin(
            [SLOW, "random", "greedy"], executor=executor, journal=str(tmp_path / "run.db"), progress=False, **GAME
        )
        remover.join(timeout=10)
        assert removed and sorted(g["index"] for g in result.games) == list(range(6))
    finally:
        ray.shutdown()
        cluster.shutdown()
