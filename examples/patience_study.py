"""Reproduce the patience study: UCT-MCTS with chance nodes on Calculation.

    python examples/patience_study.py --deals 200 --playouts 1000 10000 --seed 0
    python examples/patience_study.py --deals 100 --playouts 100000 --records run.jsonl
    python examples/patience_study.py --deals 100 --playouts 100000 --records run.jsonl --resume

Plays ``--deals`` deals at each playout budget (the same deals for every budget: deal ``i`` is
``initial_state(seed=seed + i)`` and the agent's seed is ``seed + i`` too) with the study's
C = 0.5, on a process pool, and prints the wins with a 95% Wilson interval, the mean cards on
the foundations and the time per move. ``--playout`` and ``--threshold`` are the game's
defaults, ``agents.make("mcts")``'s: the rule-based waste-pile policy of the greedy agent
(``greedy``) and a leaf expanded at its first playout (1); ``--playout random --threshold 5``
gives the study's uniformly random playouts and expansion threshold, and ``foundation-first``
random playouts that play a fitting card at once (docs/patience.md explains why the defaults are
not the study's).

``--records FILE`` writes one JSON line per finished deal as soon as it finishes; a killed run
then loses only the deals in progress, and ``--resume`` with the same file and options reads the
finished deals back and plays only the missing ones. A deal's result depends only on its seeds,
not on what else is played, so a resumed run gives the table an uninterrupted one gives.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import agents
import envs

STUDY = {1000: 17, 2000: 28, 5000: 40, 10000: 53, 15000: 59, 20000: 65, 30000: 72, 40000: 69,
         50000: 77, 100000: 80, 200000: 86}
OPTIONS = ("playout", "c", "threshold")  # what a record must share with the run that resumes it


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion (sound at 0 or n successes too)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_deal(job) -> dict:
    """One deal to the end, as a record: won, moves, search seconds (wall), the deal's CPU
    seconds (``time.process_time`` of this worker) and the cards on the foundations."""
    deal, playouts, c, threshold, playout = job
    game = envs.make_game("calculation")
    state = game.initial_state(seed=deal)
    bot = agents.make("mcts", simulations=playouts, c=c, threshold=threshold, playout=playout, seed=deal)
    moves, seconds = 0, 0.0
    cpu = time.process_time()
    while not game.is_terminal(state):
        state = game.apply(state, bot.act(game, state))
        moves += 1
        seconds += bot.last_stats["seconds"]
    return {"deal": deal, "playouts": playouts, "playout": playout, "c": c, "threshold": threshold,
            "won": bool(game.returns(state)[0] == 1.0), "moves": moves, "seconds": seconds,
            "cpu_seconds": time.process_time() - cpu, "cards": game.foundation_cards(state)}


def read_records(path: Path, options: dict) -> list[dict]:
    """The finished deals in ``path`` (a ``--records`` file), for ``--resume``.

    A last line cut short by the interruption is dropped from the file, so the next record
    starts a line of its own. Records played with other options (playout policy, C, threshold)
    are refused rather than mixed in."""
    if not path.exists():
        return []
    from tournaments.records import RecordError, read_json_lines

    records = []
    try:
        for n, record in read_json_lines(path, "a patience study"):
            theirs = {k: record.get(k) for k in OPTIONS}
            if theirs != options:
                raise SystemExit(f"{path}:{n}: deal {record.get('deal')} was played with other options "
                                 f"({theirs}, this run: {options}); resume with the original command")
            records.append(record)
    except RecordError as exc:
        raise SystemExit(str(exc)) from None
    return records


def report(playouts: int, results: list[dict], partial: bool = False) -> None:
    """One table row: wins, their Wilson interval, mean cards on the foundations, time per move."""
    wins = sum(r["won"] for r in results)
    moves = max(sum(r["moves"] for r in results), 1)
    cards = sum(r["cards"] for r in results) / len(results)
    lo, hi = wilson(wins, len(results))
    print(f"{playouts:>9} {len(results):>6} {wins:>5} {100 * wins / len(results):>6.1f} "
          f"{f'{100 * lo:.1f}-{100 * hi:.1f}':>15} {STUDY.get(playouts, ''):>10} {cards:>6.1f} "
          f"{sum(r['seconds'] for r in results) / moves:>8.3f} "
          f"{sum(r['cpu_seconds'] for r in results) / moves:>9.3f}{'  (so far)' if partial else ''}",
          flush=True)


def main(argv=None) -> int:
    spec = envs.spec("calculation")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--playouts", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=0.5)
    parser.add_argument("--threshold", type=int, default=spec.expansion_threshold,
                        help=f"expansion threshold (default: the game's, {spec.expansion_threshold}; the study's: 5)")
    parser.add_argument("--playout", choices=spec.playouts, default=spec.default_playout,
                        help=f"playout policy (default: the game's, {spec.default_playout!r})")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--progress", type=int, default=0, help="print a running row every N deals")
    parser.add_argument("--records", type=Path, default=None,
                        help="write every finished deal to this file (JSON lines)")
    parser.add_argument("--resume", action="store_true",
                        help="read the deals already in --records and play only the missing ones")
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals {args.deals}: expected at least 1")
    if args.resume and args.records is None:
        parser.error("--resume needs the --records file of the interrupted run")
    if args.records is not None and not args.resume and args.records.exists() and args.records.stat().st_size:
        parser.error(f"{args.records} already holds records: pass --resume to continue that run, "
                     "or name another file")

    options = {"playout": args.playout, "c": args.c, "threshold": args.threshold}
    deals = range(args.seed, args.seed + args.deals)
    done = {(r["playouts"], r["deal"]): r for r in read_records(args.records, options)} if args.resume else {}
    print(f"Calculation, UCT with chance nodes: C={args.c}, threshold={args.threshold}, "
          f"{args.playout} playouts, deals {deals.start}..{deals.stop - 1}", flush=True)
    if done:
        print(f"({len(done)} finished deals read back from {args.records})", flush=True)
    print(f"{'playouts':>9} {'deals':>6} {'wins':>5} {'win %':>6} {'95% interval':>15} "
          f"{'study /100':>10} {'cards':>6} {'s/move':>8} {'cpu s/move':>9}", flush=True)
    log = open(args.records, "a") if args.records is not None else None
    try:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            for playouts in args.playouts:
                results = [done[playouts, d] for d in deals if (playouts, d) in done]
                futures = [pool.submit(play_deal, (d, playouts, args.c, args.threshold, args.playout))
                           for d in deals if (playouts, d) not in done]
                for future in as_completed(futures):
                    record = future.result()
                    if log is not None:
                        log.write(json.dumps(record) + "\n")
                        log.flush()
                        os.fsync(log.fileno())
                    results.append(record)
                    if args.progress and len(results) % args.progress == 0 and len(results) < args.deals:
                        report(playouts, results, partial=True)
                report(playouts, results)
    finally:
        if log is not None:
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
