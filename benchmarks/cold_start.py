"""Cold and warm start-up wall times: fresh processes with an empty (cold) or filled (warm) numba cache.

Every measurement is one new Python process whose ``NUMBA_CACHE_DIR`` is a new empty temporary
directory (cold: every compiled function used is compiled); the warm figure is a second process
reusing that directory (every function is loaded from the cache). Setting the variable also stops
numba from reading or writing the caches kept next to the sources in ``__pycache__``, so the
figures do not depend on what earlier runs left there. Only the public API is used, so the script
measures the code before and after a change to the compiled kernels alike:

* per game: ``import envs`` + ``envs.make_game(name)`` + ``initial_state`` + ``legal_actions``
  ("first moves"), then + ``import agents`` and one ``mcts:simulations=1000`` move (the first
  move that needs a search: Calculation's MCTS plays a deal's first move without one), then + one
  ``alphabeta:depth=3`` move (games the agent does not apply to are skipped and said so); times
  are cumulative from the moment the process was started (interpreter start included);
* all games: the same three steps over all the games in one process (first moves of every game,
  then an MCTS move in every game, then an alpha-beta move in every game);
* quick start: the README's tournament command (``arbiter tournament --game loa --system swiss
  --agents random greedy "alphabeta:depth=3" "mcts:simulations=2000" --workers 2``), wall time of
  the whole command, run in a temporary working directory.

The children import the source tree this script belongs to (its root is put first on
``PYTHONPATH``; they print where ``envs`` came from). Wall times depend on the machine's load:
the load average is printed at the start, before every measurement and at the end, and each
cell also gives the CPU seconds the process (quick start: the command and its workers) had used
by then, which other processes on the machine inflate far less than the wall time.

    python benchmarks/cold_start.py                         # everything, once (several minutes)
    python benchmarks/cold_start.py --games loa go --skip-quickstart --repeat 2 --json out.json
"""

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = ("loa", "othello", "gomoku", "go", "calculation")
MCTS_SPEC = "mcts:simulations=1000"
ALPHABETA_SPEC = "alphabeta:depth=3"
QUICKSTART = [
    "tournament",
    "--game",
    "loa",
    "--system",
    "swiss",
    "--agents",
    "random",
    "greedy",
    "alphabeta:depth=3",
    "mcts:simulations=2000",
    "--workers",
    "2",
]
STEPS = ("first_moves", "mcts", "alphabeta")
STEP_LABELS = {
    "first_moves": "import + first legal moves",
    "mcts": "+ MCTS 1000 sims",
    "alphabeta": "+ alpha-beta depth 3",
}
# The project's goals (seconds of wall time).
TARGET_GAME_COLD = 30.0  # one game: first moves + MCTS move + alpha-beta move, cold
TARGET_QUICKSTART_COLD = 30.0
TARGET_QUICKSTART_WARM = 15.0

# Run in the child. Prints one JSON object per line: {"step": name, "t": time.time()} after each
# step, {"skip": ...} for an agent that does not apply, {"error": ...} on failure.
CHILD = r"""
import json, resource, sys, time
games = sys.argv[1].split(",")
def out(**kw):
    if "step" in kw:
        use = resource.getrusage(resource.RUSAGE_SELF)
        kw["cpu"] = use.ru_utime + use.ru_stime
    print("COLDSTART " + json.dumps(kw), flush=True)
try:
    import envs
    out(info="envs", file=envs.__file__)
    made = []
    for name in games:
        g = envs.make_game(name)
        s = g.initial_state(seed=0)
        n = len(g.legal_actions(s))
        made.append((name, g, s))
    out(step="first_moves", t=time.time())
    import agents
    out(info="agents", file=agents.__file__)
    for name, g, s in made:
        bot = agents.make(%(mcts)r, seed=0)
        t = s
        while True:  # up to the first move searched (a move alone kept needs no search)
            a = bot.act(g, t)
            if bot.last_stats["simulations"] > 0 or g.is_terminal(g.apply(t, a)):
                break
            t = g.apply(t, a)
    out(step="mcts", t=time.time())
    for name, g, s in made:
        bot = agents.make(%(alphabeta)r, seed=0)
        if not bot.applies_to(g):
            out(skip=name, why=%(alphabeta)r + " does not apply to " + name)
            continue
        bot.act(g, s)
    out(step="alphabeta", t=time.time())
except BaseException as e:
    import traceback
    out(error=repr(e), trace=traceback.format_exc())
    sys.exit(1)
""" % {"mcts": MCTS_SPEC, "alphabeta": ALPHABETA_SPEC}  # noqa: UP031 (a template of the child script, filled with % so its own braces stay as they are)


def load():
    return [round(x, 2) for x in os.getloadavg()]


def child_env(cache_dir):
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = cache_dir
    env["PYTHONPATH"] = os.pathsep.join([ROOT] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    for var in ("NUMBA_DISABLE_JIT", "NUMBA_DEBUG_CACHE"):
        env.pop(var, None)
    return env


def run_steps(games, cache_dir, timeout):
    """One child process running the steps over ``games``; cumulative wall seconds per step."""
    rec = {"load_before": load(), "steps": {}, "cpu": {}, "skipped": [], "error": None}
    start = time.time()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, ",".join(games)],
            env=child_env(cache_dir),
            cwd=cache_dir,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        rec["error"] = f"timed out after {timeout} s"
        rec["total"] = time.time() - start
        return rec
    rec["total"] = time.time() - start
    for line in proc.stdout.splitlines():
        if not line.startswith("COLDSTART "):
            continue
        msg = json.loads(line[len("COLDSTART ") :])
        if "step" in msg:
            rec["steps"][msg["step"]] = round(msg["t"] - start, 3)
            rec["cpu"][msg["step"]] = round(msg["cpu"], 3)
        elif "skip" in msg:
            rec["skipped"].append(msg["why"])
        elif "error" in msg:
            rec["error"] = msg["error"]
            rec["trace"] = msg["trace"]
        elif msg.get("info"):
            rec[msg["info"] + "_file"] = msg["file"]
    if proc.returncode and not rec["error"]:
        rec["error"] = f"exit code {proc.returncode}: {proc.stderr.strip()[-500:]}"
    rec["total"] = round(rec["total"], 3)
    return rec


def run_quickstart(cache_dir, timeout):
    rec = {"load_before": load(), "error": None}
    work = tempfile.mkdtemp(prefix="arbiter-quickstart-")
    start = time.time()
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "tournaments.cli", *QUICKSTART],
            env=child_env(cache_dir),
            cwd=work,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        rec["total"] = round(time.time() - start, 3)
        now = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command and its worker processes
        rec["cpu_total"] = round(now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime, 3)
        if proc.returncode:
            rec["error"] = f"exit code {proc.returncode}: {proc.stderr.strip()[-500:]}"
        rec["output_tail"] = proc.stdout.strip().splitlines()[-12:]
    except subprocess.TimeoutExpired:
        rec["total"] = round(time.time() - start, 3)
        rec["error"] = f"timed out after {timeout} s"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rec


def cold_and_warm(measure, repeat):
    """``repeat`` pairs: a cold run in a new empty cache directory, then a warm run reusing it."""
    runs = []
    for _ in range(repeat):
        cache = tempfile.mkdtemp(prefix="arbiter-numba-cache-")
        try:
            cold = measure(cache)
            warm = measure(cache)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        runs.append({"cold": cold, "warm": warm})
    return runs


def best(runs, kind, key, table="steps"):
    """Smallest figure over the repeats (None if no run got that far); ``table`` "cpu" for CPU
    seconds."""
    vals = [r[kind].get(table, {}).get(key) if key in STEPS else r[kind].get(key) for r in runs]
    vals = [v for v in vals if v is not None]
    return min(vals) if vals else None


def fmt(v, cpu=None):
    if v is None:
        return "failed"
    return f"{v:.1f}" if cpu is None else f"{v:.1f} ({cpu:.1f})"


def verdict(v, target):
    if v is None:
        return "?"
    return "met" if v <= target else "MISSED"


def print_row(label, runs, cold_target=None):
    for kind in ("cold", "warm"):
        cells = [fmt(best(runs, kind, k), best(runs, kind, k, "cpu")) for k in STEPS]
        cells.append(fmt(best(runs, kind, "total")))
        note = ""
        if kind == "cold" and cold_target is not None:
            v = best(runs, kind, "alphabeta")
            note = f"target <= {cold_target:.0f} s: {verdict(v, cold_target)}"
        loads = ",".join(f"{r[kind]['load_before'][0]:.1f}" for r in runs)
        print(f"| {label} | {kind} | " + " | ".join(cells) + f" | {loads} | {note} |", flush=True)
        for r in runs:
            if r[kind]["skipped"]:
                print(
                    f"|   | note: {'; '.join(r[kind]['skipped'])} (the alpha-beta step is then a no-op) |", flush=True
                )
            if r[kind]["error"]:
                print(f"|   | ERROR: {r[kind]['error']} |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.splitlines()[2:]),
    )
    parser.add_argument(
        "--games",
        nargs="+",
        choices=GAMES,
        default=list(GAMES),
        metavar="GAME",
        help=f"per-game rows for these games (default: all of {', '.join(GAMES)})",
    )
    parser.add_argument("--skip-all-games", action="store_true", help="skip the all-games-in-one-process row")
    parser.add_argument("--skip-quickstart", action="store_true", help="skip the quick-start tournament row")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="cold+warm pairs per row, each with its own new cache (the minimum is shown)",
    )
    parser.add_argument("--timeout", type=float, default=3600, help="seconds allowed per process (default 3600)")
    parser.add_argument("--json", metavar="PATH", help="save all raw results here")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    import numba  # only for the record
    import numpy

    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "source_tree": ROOT,
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": numpy.__version__,
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_start": load(),
        "repeat": args.repeat,
        "mcts": MCTS_SPEC,
        "alphabeta": ALPHABETA_SPEC,
        "quickstart": ["arbiter", *QUICKSTART],
    }
    try:
        meta["git_commit"] = subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        pass
    print(
        f"source tree {ROOT} (commit {meta.get('git_commit', '?')}), Python {meta['python']}, "
        f"numba {meta['numba']}, {meta['machine']}"
    )
    print(f"cpu_count {os.cpu_count()}, load average at start {meta['load_start']}")
    print(
        "wall seconds from process start, cumulative (in parentheses: CPU seconds of the process by then); "
        "cold = empty NUMBA_CACHE_DIR, warm = same dir again\n"
    )
    print(
        "| row | cache | "
        + " | ".join(STEP_LABELS[k] for k in STEPS)
        + " | process total | load (1 min) before | target |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---|", flush=True)

    results = {"meta": meta, "games": {}, "all_games": None, "quickstart": None}
    timeout = args.timeout
    for name in args.games:
        runs = cold_and_warm(lambda cache, name=name: run_steps([name], cache, timeout), args.repeat)
        results["games"][name] = runs
        print_row(name, runs, TARGET_GAME_COLD)
    if not args.skip_all_games:
        runs = cold_and_warm(lambda cache: run_steps(list(GAMES), cache, timeout), args.repeat)
        results["all_games"] = runs
        print_row("all games, one process", runs)
    if not args.skip_quickstart:
        runs = cold_and_warm(lambda cache: run_quickstart(cache, timeout), args.repeat)
        results["quickstart"] = runs
        for kind, target in (("cold", TARGET_QUICKSTART_COLD), ("warm", TARGET_QUICKSTART_WARM)):
            v = best(runs, kind, "total")
            cpu = best(runs, kind, "cpu_total")
            loads = ",".join(f"{r[kind]['load_before'][0]:.1f}" for r in runs)
            print(
                f"| quick-start tournament | {kind} | | | | {fmt(v, cpu)} | {loads} | "
                f"target <= {target:.0f} s: {verdict(v, target)} |",
                flush=True,
            )
            for r in runs:
                if r[kind]["error"]:
                    print(f"|   | ERROR: {r[kind]['error']} |", flush=True)

    meta["load_end"] = load()
    print(f"\ncpu_count {os.cpu_count()}, load average at end {meta['load_end']}")
    print(
        f"targets: one game cold (first moves + MCTS + alpha-beta) <= {TARGET_GAME_COLD:.0f} s; "
        f"quick start <= {TARGET_QUICKSTART_COLD:.0f} s cold, <= {TARGET_QUICKSTART_WARM:.0f} s warm"
    )
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
        print(f"saved {args.json}")


if __name__ == "__main__":
    main()
