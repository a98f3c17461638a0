"""How many Calculation deals could be won with the stock order known?

    python examples/patience_solver.py --deals 100
    python examples/patience_solver.py --deals 100 --study f100k.jsonl

Runs ``envs.calculation.solver.solve`` on deals ``seed .. seed + deals - 1`` (deal ``i`` is
``initial_state(seed=i)``, the deals of ``examples/patience_study.py``) and prints each deal's
result, nodes and seconds, then how many were won, lost and unknown. The solver reads the
face-down stock, so a won deal is one a player who knew the order could win: the count is an upper
bound on what any strategy can win on these deals (exact when no deal is unknown). ``--study``
reads a patience study's records and says, for each deal the study's agent lost, whether it could
have been won.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import envs
from envs.calculation.solver import DEFAULT_NODES, solve
from tournaments.studies.patience import wilson


def solve_deal(job: tuple[int, int]) -> tuple[int, str, int, int, float]:
    """(deal, result, nodes, moves, seconds) for one deal."""
    deal, node_limit = job
    state = envs.make_game("calculation").initial_state(seed=deal)
    start = time.perf_counter()
    solution = solve(state, node_limit=node_limit)
    return deal, solution.result, solution.nodes, len(solution.moves), time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0, help="first deal (default 0)")
    parser.add_argument(
        "--node-limit", type=float, default=DEFAULT_NODES, help=f"nodes per deal (default {DEFAULT_NODES:.0e})"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--study", type=Path, default=None, help="a patience study's --records file")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.workers < 1:
        parser.error("--deals and --workers must be positive")
    if args.node_limit < 1 or args.node_limit != int(args.node_limit):
        parser.error(f"--node-limit {args.node_limit:g}: expected a positive whole number")
    study = None
    if args.study is not None:
        if not args.study.exists():
            parser.error(f"--study {args.study}: no such file")
        study = {}
        for n, line in enumerate(args.study.read_text().splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                    study[int(record["deal"]), int(record["playouts"])] = bool(record["won"])
                except (ValueError, TypeError, KeyError):
                    parser.error(f"--study {args.study}: line {n} is not a patience study record")

    deals = range(args.seed, args.seed + args.deals)
    solve_deal((deals.start, 1))  # compile once here, not in every worker
    results = {}
    print(f"{'deal':>6} {'result':>8} {'nodes':>11} {'moves':>6} {'seconds':>8}", flush=True)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        jobs = [(d, int(args.node_limit)) for d in deals]
        for deal, result, nodes, moves, seconds in pool.map(solve_deal, jobs):
            results[deal] = result
            print(f"{deal:>6} {result:>8} {nodes:>11} {moves or '':>6} {seconds:>8.2f}", flush=True)
    won = sum(r == "won" for r in results.values())
    lost = sum(r == "lost" for r in results.values())
    unknown = len(results) - won - lost
    lo, hi = wilson(won, len(results))
    print(
        f"deals {deals.start}..{deals.stop - 1}: {won} won ({100 * won / len(results):.1f}%, "
        f"Wilson {100 * lo:.1f}-{100 * hi:.1f}%), {lost} lost, {unknown} unknown "
        f"({int(args.node_limit):,} nodes a deal at most)"
    )
    if study is not None:
        for playouts in sorted({p for _, p in study}):
            lost_deals = [d for d in deals if study.get((d, playouts)) is False]
            played = sum((d, playouts) in study for d in deals)
            verdict = ", ".join(f"{d} {results[d]}" for d in lost_deals) or "none"
            print(
                f"the study at {playouts} playouts lost {len(lost_deals)} of {played}; with the stock known: {verdict}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
