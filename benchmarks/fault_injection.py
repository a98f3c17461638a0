"""Fault injection: kill tournament workers and the tournament itself at random, resume, compare.

The referee promises *no crash, no orphan, no lost game*. This script checks the promise end to
end through the public command line. It first plays a reference tournament uninterrupted
(``arbiter tournament ... --jsonl``), then plays the same tournament (same seed) with a journal
while a random clock fires kills of two kinds:

* worker: SIGKILL of a random child process of the tournament (a game worker, or the warm-up
  helper) — as the OOM killer would; the game must be replayed, the tournament must go on;
* parent: SIGKILL of the tournament process itself; every process under it (workers, the
  warm-up helper, each worker's group keeper, anything an agent started) must be gone 5 s later
  (an orphan is counted otherwise), and the run is restarted with ``--resume``.

A game whose worker is killed more often than the executor's replay limit stops the run with a
clear error (exit status 1, no traceback); that is resumed too, and counted.

When a trial's tournament finishes before all kills are spent, a new trial starts with a fresh
journal, so every requested kill happens. Each trial's final records (without their wall-clock
``seconds``, the only field that may differ) and its printed standings, ratings and crosstable
must equal the reference. The script prints the number of kills of each kind, orphans, restarts
and whether everything matched; it exits with status 1 on any mismatch or orphan.

    python benchmarks/fault_injection.py                      # 24 kills, the default agents
    python benchmarks/fault_injection.py --kills 40 --seed 3 --parent-share 0.3

The children import the source tree this script belongs to (its root is put first on
``PYTHONPATH``). Only Linux is supported (children are found through /proc).
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
AGENTS = [
    "mcts:simulations=30000",
    "mcts:simulations=10000",
    "alphabeta:depth=3",
    "alphabeta:depth=2",
    "greedy",
    "random",
]


def children(pid):
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


def descendants(pid):
    """Live processes under ``pid`` at any depth, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def command(args, extra):
    return [
        sys.executable,
        "-m",
        "tournaments.cli",
        "tournament",
        "--game",
        args.game,
        "-p",
        f"size={args.size}",
        "--system",
        "round_robin",
        "--seed",
        str(args.seed),
        "--workers",
        str(args.workers),
        "--agents",
        *args.agents,
        *extra,
    ]


def timeless(path):
    with open(path) as f:
        return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in f]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=24, help="kills to inject in all (default %(default)s)")
    parser.add_argument(
        "--parent-share",
        type=float,
        default=0.25,
        help="fraction of kills aimed at the tournament process (default %(default)s)",
    )
    parser.add_argument(
        "--interval",
        type=float,
        nargs=2,
        default=(0.5, 2.5),
        metavar=("MIN", "MAX"),
        help="seconds between kills, drawn uniformly (default %(default)s)",
    )
    parser.add_argument("--agents", nargs="+", default=AGENTS, help="agent specs (default %(default)s)")
    parser.add_argument("--game", default="gomoku", help="default %(default)s")
    parser.add_argument("--size", type=int, default=9, help="board size (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="default %(default)s")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed and kill clock seed")
    args = parser.parse_args(argv)
    if args.kills < 1 or not 0 <= args.parent_share <= 1 or not 0 < args.interval[0] <= args.interval[1]:
        parser.error("expected --kills >= 1, 0 <= --parent-share <= 1 and 0 < MIN <= MAX")
    rng = random.Random(args.seed)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")])}
    work = tempfile.mkdtemp(prefix="arbiter-faults-")
    print(f"load average {os.getloadavg()}; working in {work}", flush=True)

    t = time.monotonic()
    ref_jsonl = os.path.join(work, "reference.jsonl")
    ref = subprocess.run(command(args, ["--jsonl", ref_jsonl]), env=env, capture_output=True, text=True)
    if ref.returncode != 0:
        sys.exit(f"the reference run failed:\n{ref.stderr}")
    reference = timeless(ref_jsonl)
    print(f"reference: {len(reference)} games in {time.monotonic() - t:.1f}s", flush=True)

    counts = {
        "worker": 0,
        "parent": 0,
        "orphans": 0,
        "restarts": 0,
        "trials": 0,
        "mismatches": 0,
        "retry_limit_stops": 0,
    }
    while counts["worker"] + counts["parent"] < args.kills:
        counts["trials"] += 1
        trial = counts["trials"]
        journal = os.path.join(work, f"trial{trial}.db")
        out_jsonl = os.path.join(work, f"trial{trial}.jsonl")
        extra = ["--journal", journal, "--jsonl", out_jsonl]
        while True:
            proc = subprocess.Popen(
                command(args, extra),
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            killed_parent = False
            while counts["worker"] + counts["parent"] < args.kills:
                try:
                    proc.wait(timeout=rng.uniform(*args.interval))
                    break  # finished before the next kill
                except subprocess.TimeoutExpired:
                    pass
                kids = sorted(children(proc.pid))
                if rng.random() < args.parent_share:
                    under = descendants(proc.pid)
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()
                    counts["parent"] += 1
                    time.sleep(5)
                    orphans = [k for k in under if alive(k)]
                    counts["orphans"] += len(orphans)
                    for k in orphans:  # do not leave them running on the machine
                        os.kill(k, signal.SIGKILL)
                    killed_parent = True
                    break
                if kids:
                    os.kill(rng.choice(kids), signal.SIGKILL)
                    counts["worker"] += 1
            out, err = proc.communicate()
            if proc.returncode == 1 and "killed from outside" in err:
                # a game's worker was killed more often than the replay limit: the run stops
                # with a clear error and is resumed like after a crash
                counts["retry_limit_stops"] += 1
                killed_parent = True
            if killed_parent:
                counts["restarts"] += 1
                if "--resume" not in extra:
                    extra.append("--resume")
                continue
            if proc.returncode != 0:
                sys.exit(f"trial {trial}: the tournament failed (exit {proc.returncode}):\n{err}")
            break
        same_records = timeless(out_jsonl) == reference
        same_report = out == ref.stdout
        counts["mismatches"] += not (same_records and same_report)
        print(
            f"trial {trial}: kills so far worker={counts['worker']} parent={counts['parent']}, "
            f"records {'match' if same_records else 'DIFFER'}, report {'matches' if same_report else 'DIFFERS'}",
            flush=True,
        )
    ok = counts["mismatches"] == 0 and counts["orphans"] == 0
    print(
        f"kills: {counts['worker']} worker SIGKILLs, {counts['parent']} tournament SIGKILLs "
        f"({counts['restarts']} resumes, {counts['retry_limit_stops']} of them after a game hit the replay "
        f"limit) over {counts['trials']} trials; orphans: {counts['orphans']}; "
        f"trials differing from the reference: {counts['mismatches']}; "
        f"{'everything matched' if ok else 'FAILED'} ({time.monotonic() - t:.0f}s)"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
