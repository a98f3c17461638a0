"""No crash, no orphan, no lost game: the referee under injected faults.

Workers die with their parent (even a SIGKILLed one), a worker killed from outside costs only a
replay of its game, an agent that kills its own process forfeits with the real cause, a hung
warm-up loses on time within ``setup_time``, Ctrl-C ends the CLI without a traceback and with a
resume hint, and a journal serves one process at a time.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import fault_agents  # noqa: F401  (registers "slow", "segfault", "exit3", "warmhang")
import pytest

import tournaments
from tournaments.referee import records
from tournaments.referee.journal import Journal, JournalError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GAME = {"game": "gomoku", "game_params": {"size": 7}}
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, HERE])}


def timeless(games):
    return [{k: v for k, v in g.items() if k not in ("seconds", "times")} for g in games]


def children(pid) -> set[int]:
    """Live (not zombie) child processes of ``pid``, from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.add(int(entry))
    return found


def alive(pid) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def journaled(path) -> int:
    if not os.path.exists(path):
        return 0
    try:
        db = sqlite3.connect(path)
        try:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def cli(args, **kw):
    """The ``arbiter`` command (with the fault agents registered) in its own session."""
    return subprocess.Popen(
        [sys.executable, os.path.join(HERE, "fault_agents.py"), *args],
        env=kw.pop("env", ENV),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **kw,
    )


def wait_for(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


SLOW_RR = [
    "tournament",
    "--game",
    "gomoku",
    "-p",
    "size=7",
    "--system",
    "round_robin",
    "--workers",
    "2",
    "--agents",
    "slow:delay=0.05",
    "slow:delay=0.04",
    "slow:delay=0.03",
    "greedy",
]


# -- 1. workers die with their parent ------------------------------------------------------------
@pytest.mark.parametrize(
    "sig,pdeathsig",
    [(signal.SIGKILL, True), (signal.SIGKILL, False), (signal.SIGTERM, True)],
    ids=["sigkill", "sigkill-watchdog-only", "sigterm"],
)
def test_no_worker_outlives_a_killed_parent(tmp_path, sig, pdeathsig):
    env = dict(ENV) if pdeathsig else {**ENV, "ARBITER_TEST_NO_PDEATHSIG": "1"}
    db = str(tmp_path / "j.db")
    proc = cli([*SLOW_RR, "--journal", db], env=env)
    try:
        wait_for(lambda: journaled(db) >= 1 and len(children(proc.pid)) >= 2, 60, "two busy workers")
        workers = children(proc.pid)
        os.kill(proc.pid, sig)
        proc.wait()
        time.sleep(5)
        assert [pid for pid in workers if alive(pid)] == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def test_no_process_an_agent_started_outlives_a_killed_parent(tmp_path):
    """The tournament is SIGKILLed while the forker's children (a fork and a ``sleep``) run: the
    keeper of each worker's group ends them once their worker is gone (the worker itself dies at
    once of its parent-death signal, before it could do anything)."""
    db, pids = str(tmp_path / "j.db"), tmp_path / "pids"
    pids.mkdir()
    proc = cli(
        [
            "tournament",
            "--game",
            "gomoku",
            "-p",
            "size=7",
            "--system",
            "round_robin",
            "--workers",
            "2",
            "--agents",
            f"forker:pids={pids}",
            "slow:delay=0.05",
            "slow:delay=0.04",
            "--journal",
            db,
        ]
    )
    try:
        wait_for(lambda: journaled(db) >= 1 and len(started_by_forker(pids)) >= 2, 60, "the forker's children")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        started = started_by_forker(pids)
        wait_for(lambda: not any(alive(pid) for pid in started), 10, "the agent's children to end")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in started_by_forker(pids):  # on failure: leave nothing running (they hold the pipes)
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.communicate()


def test_workers_hold_no_copy_of_the_parents_pipe_ends():
    """A pipe end kept open by another worker would hide its owner's death (no EOF ever)."""
    ctx = tournaments.referee.play.Context("gomoku", {"size": 7}, ("greedy", "random"), ("greedy", "random"))
    executor = tournaments.ProcessExecutor(2)
    executor.start(ctx)
    try:
        jobs = [tournaments.referee.play.Job(i, 1, i, 0, i % 2, 1 - i % 2, i, (i, i)) for i in range(4)]
        assert len(list(executor.run(jobs))) == 4
        assert len(executor.slots) == 2
        ours = {os.fstat(slot.conn.fileno()).st_ino for slot in executor.slots}
        for slot in executor.slots:
            fds = os.listdir(f"/proc/{slot.proc.pid}/fd")
            held = set()
            for fd in fds:
                try:
                    held.add(os.stat(f"/proc/{slot.proc.pid}/fd/{fd}").st_ino)
                except OSError:
                    continue
            assert held and not (held & ours)
    finally:
        executor.close()


# -- 2. a killed worker costs at most its game ---------------------------------------------------
class KilledOnce:
    """Plays the lowest action, but the first time any copy of it moves from ply 4 on, its
    process is SIGKILLed (as by the OOM killer): a marker file remembers it across processes."""

    def __init__(self, marker, name="killed-once", always=False):
        self.marker, self.name, self.always = str(marker), name, always

    def act(self, game, state):
        if len(game.legal_actions(state)) <= game.num_actions - 4:
            if self.always or not os.path.exists(self.marker):
                open(self.marker, "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
        return int(game.legal_actions(state)[0])


def test_a_worker_killed_from_outside_replays_its_game_once(tmp_path, capsys):
    agents = [KilledOnce(tmp_path / "marker"), "slow:delay=0", "greedy"]
    db = str(tmp_path / "j.db")
    r = tournaments.round_robin(agents, workers=2, journal=db, seed=4, progress=True, ratings_every=0, **GAME)
    assert os.path.exists(tmp_path / "marker")  # a worker was killed mid-game
    said = [line for line in capsys.readouterr().err.splitlines() if "killed from outside" in line]
    assert len(said) == 1 and re.fullmatch(
        r"game \d \(round \d, .+ - .+\): its worker was killed from outside \(signal SIGKILL\); "
        r"playing the game again \(replay 1 of at most 3\)",
        said[0],
    ), said
    assert sorted(g["index"] for g in r.games) == list(range(6))
    assert all(g["reason"] == "normal" for g in r.games)
    conn = sqlite3.connect(db)
    stored = [json.loads(rec) for _, rec in conn.execute("SELECT idx, record FROM games ORDER BY idx")]
    conn.close()
    assert [g["index"] for g in stored] == list(range(6))
    clean = tournaments.round_robin(
        [KilledOnce(tmp_path / "marker"), "slow:delay=0", "greedy"], workers=2, seed=4, progress=False, **GAME
    )
    assert timeless(stored) == timeless(r.games) == timeless(clean.games)


def test_a_game_whose_worker_is_always_killed_stops_with_its_name(tmp_path):
    executor = tournaments.ProcessExecutor(1, retries=2)
    before = children(os.getpid())
    with pytest.raises(tournaments.ExecutorError, match=r"game 0 .*killed from outside 3 times.*SIGKILL"):
        tournaments.round_robin(
            [KilledOnce(tmp_path / "m", always=True), "greedy"], executor=executor, progress=False, **GAME
        )
    assert children(os.getpid()) - before == set()


@pytest.mark.parametrize("spec,detail", [("segfault", "signal SIGSEGV"), ("exit3", "exit code 3")])
@pytest.mark.parametrize("move_time", [None, 2.0])
def test_an_agent_that_kills_its_own_process_forfeits_with_the_cause(spec, detail, move_time):
    r = tournaments.round_robin(
        [spec, "slow:delay=0"], workers=2, move_time=move_time, setup_time=20, progress=False, **GAME
    )
    assert len(r.games) == 2
    for g in r.games:
        assert g["reason"] == "forfeit-crash" and detail in g["detail"]
        assert g["result"] == ("0-1" if g["black"] == spec else "1-0")
        # with a clock the first move of the process is the unclocked warm-up move
        assert ("warm-up" in g["detail"]) == (move_time is not None)
        # the worker's last words: faulthandler's error and the crashing frame, or its last line
        if spec == "segfault":
            assert re.search(
                r"SIGSEGV: Fatal Python error: Segmentation fault, at .*fault_agents\.py:\d+ in _act", g["detail"]
            ), g["detail"]
        else:
            assert g["detail"].endswith("(exit code 3: its stderr ends: exit3: giving up)"), g["detail"]


def test_a_crashing_worker_prints_no_crash_dump_on_the_console(tmp_path):
    """faulthandler on (as under pytest, or ``python -X faulthandler``): the dump of a worker
    that segfaults goes to the game's record, not to the terminal of the person watching."""
    jsonl = tmp_path / "games.jsonl"
    run = subprocess.run(
        [
            sys.executable,
            "-X",
            "faulthandler",
            os.path.join(HERE, "fault_agents.py"),
            "tournament",
            "--game",
            "gomoku",
            "-p",
            "size=7",
            "--system",
            "round_robin",
            "--workers",
            "2",
            "--agents",
            "segfault",
            "slow:delay=0",
            "--jsonl",
            str(jsonl),
        ],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "Fatal Python error" not in run.stderr  # no dump; the standings' footnote may quote its first line
    assert "Current thread" not in run.stderr + run.stdout and "Extension modules" not in run.stderr + run.stdout
    details = [json.loads(line)["detail"] for line in jsonl.read_text().splitlines()]
    assert len(details) == 2 and all("Segmentation fault, at " in d for d in details)


# -- 2b. what an agent starts ends with its worker -----------------------------------------------
def started_by_forker(directory) -> list[int]:
    return [int(name) for name in os.listdir(directory)]


def test_no_process_an_agent_starts_outlives_the_tournament(tmp_path):
    r = tournaments.round_robin(
        [f"forker:pids={tmp_path}", "slow:delay=0", "greedy"], workers=2, progress=False, **GAME
    )
    assert [g["reason"] for g in r.games] == ["normal"] * 6
    started = started_by_forker(tmp_path)
    assert len(started) == 8  # a forked child and a `sleep` in each of its four games
    wait_for(lambda: not any(alive(pid) for pid in started), 10, "the agent's children to end")


def test_a_crash_is_a_crash_while_the_other_agents_child_holds_the_pipe(tmp_path):
    """The forker's ``sleep`` holds the worker's pipe to the referee, so the pipe does not close
    when the segfault agent kills the worker: the death is seen from the process and recorded as
    the crash it is, at once, not as a timeout after setup_time."""
    r = tournaments.round_robin(
        [f"forker:pids={tmp_path}", "segfault"], workers=1, move_time=5.0, setup_time=60, progress=False, **GAME
    )
    assert [g["reason"] for g in r.games] == ["forfeit-crash"] * 2
    assert all("signal SIGSEGV: Fatal Python error: Segmentation fault" in g["detail"] for g in r.games)
    assert all(g["result"] == ("0-1" if g["black"] == "segfault" else "1-0") for g in r.games)
    started = started_by_forker(tmp_path)
    assert started  # the forker moved (its warm-up move) before the crash
    wait_for(lambda: not any(alive(pid) for pid in started), 10, "the agent's children to end")


# -- 3. warm-up is clocked -----------------------------------------------------------------------
class HangsOnEveryMove:
    name = "hangs"

    def act(self, game, state):
        time.sleep(1000)


def test_a_hung_warm_up_loses_on_time_within_setup_time():
    t = time.monotonic()
    r = tournaments.round_robin(
        ["warmhang", "slow:delay=0", "greedy"], workers=2, setup_time=1.0, progress=False, **GAME
    )
    assert time.monotonic() - t < 30
    theirs = [g for g in r.games if "warmhang" in (g["black"], g["white"])]
    assert len(theirs) == 4
    assert all(g["reason"] == "forfeit-timeout" and "warm-up" in g["detail"] for g in theirs)
    assert all(g["reason"] == "normal" for g in r.games if g not in theirs)
    assert r.warm_up["warmhang"].startswith("hung") and r.warm_up["greedy"].endswith("s")
    assert "Warm-up: warmhang hung" in str(r)


def test_a_hung_warm_up_move_loses_on_time_within_setup_time():
    t = time.monotonic()
    r = tournaments.round_robin(
        [HangsOnEveryMove(), "slow:delay=0"], workers=2, move_time=0.5, setup_time=1.5, progress=False, **GAME
    )
    assert time.monotonic() - t < 30
    assert [g["reason"] for g in r.games] == ["forfeit-timeout"] * 2
    assert all("warm-up move" in g["detail"] and g["plies"] == 0 for g in r.games)


def test_an_agent_that_times_out_at_setup_is_ruled_out_for_the_rest_of_the_run():
    """It hangs on its warm-up move: the first game that waits for it times out after setup_time,
    and every other game of it is forfeited at once with the reason, not after setup_time each."""
    r = tournaments.round_robin(
        [HangsOnEveryMove(), "slow:delay=0", "greedy", "random"],
        workers=2,
        move_time=1.0,
        setup_time=2.0,
        progress=False,
        **GAME,
    )
    theirs = [g for g in r.games if "hangs" in (g["black"], g["white"])]
    assert len(r.games) == 12 and len(theirs) == 6
    assert all(g["reason"] == "forfeit-timeout" and g["plies"] == 0 for g in theirs)
    assert all(g["result"] == ("0-1" if g["black"] == "hangs" else "1-0") for g in theirs)
    waited = [g for g in theirs if g["detail"].startswith("warm-up move: no answer within setup_time=2.0s")]
    assert len(waited) == 1 and "ruled out for the rest of the run" in waited[0]["detail"]
    ruled = [g for g in theirs if g not in waited]
    assert all(
        g["detail"] == f"ruled out: setup timed out after 2 s (warm-up move, game {waited[0]['index']})" for g in ruled
    )
    assert all(g["reason"] == "normal" for g in r.games if g not in theirs)


def test_a_game_between_two_ruled_out_agents_is_lost_by_both():
    """Both agents of a game were ruled out before it: neither could play, so neither wins it
    (a double forfeit, 0-0, as FIDE scores one), where scoring it for Black would hand a point
    to an agent that never moved; no rating reads it and both forfeit lines count it."""
    r = tournaments.round_robin(
        ["warmhang", "warmhang:seed=5", "random"], workers=2, setup_time=1.5, progress=False, seed=1, **GAME
    )
    hung = {"warmhang", "warmhang:seed=5"}
    both = [g for g in r.games if {g["black"], g["white"]} == hung]
    assert len(r.games) == 6 and len(both) == 2
    assert all(g["result"] == "0-0" and g["code"] == 3 and g["returns"] == [-1.0, -1.0] for g in both)
    assert all(g["winner"] is None and g["reason"] == "forfeit-timeout" and g["plies"] == 0 for g in both)
    assert all(g["detail"].startswith("Black: ruled out") and "; White: ruled out" in g["detail"] for g in both)
    standings = {s.name: (s.points, s.games, s.forfeits) for s in r.standings()}
    assert standings == {"random": (4.0, 4, 0), "warmhang": (0.0, 4, 4), "warmhang:seed=5": (0.0, 4, 4)}
    table = str(r)
    assert "warmhang: 4 games lost by forfeit-timeout" in table
    assert "warmhang:seed=5: 4 games lost by forfeit-timeout" in table
    rated = {x.name: x.games for x in r.statistics().ratings}
    assert rated == {"random": 4, "warmhang": 2, "warmhang:seed=5": 2}  # the two 0-0 games are not rated


def test_setup_time_must_be_positive():
    with pytest.raises(ValueError, match="setup_time=0"):
        tournaments.round_robin(["greedy", "random"], workers=0, setup_time=0, **GAME)


# -- 4. Ctrl-C -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "stop, status, said",
    [
        # what a terminal's Ctrl-C does: SIGINT to the whole process group
        (lambda pid: os.killpg(pid, signal.SIGINT), 130, "interrupted"),
        # what a service manager's stop does: SIGTERM to the tournament's process
        (lambda pid: os.kill(pid, signal.SIGTERM), 143, "terminated (SIGTERM)"),
    ],
    ids=["sigint", "sigterm"],
)
def test_ctrl_c_stops_the_cli_cleanly_and_tells_how_to_resume(tmp_path, stop, status, said):
    db = str(tmp_path / "j.db")
    files = ["--jsonl", str(tmp_path / "g.jsonl"), "--csv", str(tmp_path / "g.csv"), "--sgf", str(tmp_path / "sgf")]
    proc = cli([*SLOW_RR, "--journal", db, "--seed", "2", *files], cwd=str(tmp_path))
    try:
        wait_for(lambda: journaled(db) >= 1 and len(children(proc.pid)) >= 2, 60, "a game in the journal")
        workers = children(proc.pid)
        stop(proc.pid)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == status
    assert "Traceback" not in err and "KeyboardInterrupt" not in err and "Terminated" not in err
    done = journaled(db)
    assert f"arbiter tournament: {said}; the journal" in err and f"holds {done} finished game" in err
    # the record files hold exactly the journal's games at the moment of the stop
    db_games = sqlite3.connect(db)
    held = sorted(idx for (idx,) in db_games.execute("SELECT idx FROM games"))
    db_games.close()
    for name in ("g.jsonl", "g.csv"):
        assert sorted(r["index"] for r in records.read_records(tmp_path / name)) == held
    assert sorted(int(f[4:9]) for f in os.listdir(tmp_path / "sgf")) == held
    assert [pid for pid in workers if alive(pid)] == []
    command = err.strip().splitlines()[-1].strip()
    assert command.startswith("arbiter tournament ") and command.endswith("--resume")
    resumed = subprocess.run(
        [sys.executable, os.path.join(HERE, "fault_agents.py"), *shlex.split(command)[1:]],
        env=ENV,
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "round_robin on gomoku (size=7): 12 games" in resumed.stdout
    assert sorted(r["index"] for r in records.read_records(tmp_path / "g.jsonl")) == list(range(12))


def test_a_game_that_cannot_be_played_stops_the_cli_cleanly_with_a_resume_hint(tmp_path):
    db = str(tmp_path / "j.db")
    proc = cli(
        [
            "tournament",
            "--game",
            "gomoku",
            "-p",
            "size=7",
            "--system",
            "round_robin",
            "--workers",
            "1",
            "--agents",
            "selfkill",
            "greedy",
            "--journal",
            db,
        ]
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and "Traceback" not in err
    assert re.search(r"error: game 0 \(round 1, selfkill - greedy\): its worker was killed from outside 4 times", err)
    assert "holds 0 finished games" in err and err.strip().endswith("--resume")


class InterruptsTheParent:
    """Sends SIGINT to the tournament process while it moves (the worker itself ignores it)."""

    name = "interrupter"

    def act(self, game, state):
        os.kill(os.getppid(), signal.SIGINT)
        time.sleep(1000)


def test_keyboard_interrupt_reaches_api_callers_and_workers_are_gone():
    before = children(os.getpid())
    with pytest.raises(KeyboardInterrupt):
        tournaments.round_robin([InterruptsTheParent(), "slow:delay=0"], workers=2, progress=False, **GAME)
    assert children(os.getpid()) - before == set()


# -- 6. one journal, one process -----------------------------------------------------------------
OPEN_JOURNAL = textwrap.dedent("""
    import sys
    from tournaments.referee.journal import Journal, JournalError
    try:
        Journal(sys.argv[1], {"t": 1}, resume=True).close()
    except JournalError as e:
        print("JournalError:", e)
    else:
        print("opened")
""")


def test_a_second_process_on_a_journal_gets_journal_in_use(tmp_path):
    path = str(tmp_path / "j.db")
    first = Journal(path, {"t": 1}, resume=False)
    first.append({"index": 0, "x": 1})
    other = subprocess.run([sys.executable, "-c", OPEN_JOURNAL, path], env=ENV, capture_output=True, text=True)
    assert re.search(r"JournalError: .*j\.db is in use", other.stdout), other.stdout + other.stderr
    first.append({"index": 1, "x": 2})  # the first owner carries on, unharmed
    first.close()
    again = Journal(path, {"t": 1}, resume=True)
    assert sorted(again.done) == [0, 1]
    with pytest.raises(JournalError, match="in use"):
        Journal(path, {"t": 1}, resume=True)
    again.close()


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    path = str(tmp_path / "j.db")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent(f"""
        import time
        from tournaments.referee.journal import Journal
        j = Journal({path!r}, {{"t": 1}}, resume=False)
        print("locked", flush=True)
        time.sleep(1000)
    """),
        ],
        env=ENV,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "locked"
    with pytest.raises(JournalError, match="in use"):
        Journal(path, {"t": 1}, resume=True)
    holder.kill()
    holder.wait()
    holder.stdout.close()
    Journal(path, {"t": 1}, resume=True).close()


def test_workers_do_not_keep_the_journal_lock(tmp_path):
    """A forked worker closes its copy of the lock descriptor: once the tournament closes its
    journal, the file is free even while the forked process still lives."""
    path = str(tmp_path / "j.db")
    j = Journal(path, {"t": 1}, resume=False)
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only says it runs (fork hooks done), then sleeps
        os.write(ready_w, b"x")
        time.sleep(30)
        os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"x"
        j.close()
        Journal(path, {"t": 1}, resume=True).close()
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(ready_r)
        os.close(ready_w)
