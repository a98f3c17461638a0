"""Reproduce the patience study: UCT-MCTS with chance nodes on Calculation.

    python examples/patience_study.py --deals 200 --playouts 1000 10000 100000 --seed 0

Plays ``--deals`` deals at each playout budget (the same deals for every budget: deal ``i`` is
``initial_state(seed=seed + i)`` and the agent's seed is ``seed + i`` too) with the study's
C = 0.5 and threshold 5, on a process pool, and prints the wins with a 95% Wilson interval and
the search time per move. ``--playout`` swaps the study's uniformly random playouts for
``foundation-first`` (a fitting card goes up at once, the rest random) or ``greedy`` (the
rule-based waste-pile policy of the greedy agent); docs/patience.md explains why.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import agents
import envs

STUDY = {1000: 17, 2000: 28, 5000: 40, 10000: 53, 15000: 59, 20000: 65, 30000: 72, 40000: 69,
         50000: 77, 100000: 80, 200000: 86}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion (sound at 0 or n successes too)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_deal(job):
    """One deal to the end; returns (won, moves, seconds searching, cards on the foundations)."""
    deal, playouts, c, threshold, playout = job
    game = envs.make_game("calculation")
    state = game.initial_state(seed=deal)
    bot = agents.make("mcts", simulations=playouts, c=c, threshold=threshold, playout=playout, seed=deal)
    moves, seconds = 0, 0.0
    while not game.is_terminal(state):
        state = game.apply(state, bot.act(game, state))
        moves += 1
        seconds += bot.last_stats["seconds"]
    return bool(game.returns(state)[0] == 1.0), moves, seconds, game.foundation_cards(state)


def _report(playouts, results, partial=False):
    """One table row: wins, their Wilson interval, mean cards on the foundations, s/move."""
    wins = sum(r[0] for r in results)
    moves = sum(r[1] for r in results)
    seconds = sum(r[2] for r in results)
    cards = sum(r[3] for r in results) / len(results)
    lo, hi = wilson(wins, len(results))
    print(f"{playouts:>9} {len(results):>6} {wins:>5} {100 * wins / len(results):>6.1f} "
          f"{f'{100 * lo:.1f}-{100 * hi:.1f}':>15} {STUDY.get(playouts, ''):>10} {cards:>6.1f} "
          f"{seconds / max(moves, 1):>8.3f}{'  (so far)' if partial else ''}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--playouts", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=0.5)
    parser.add_argument("--threshold", type=int, default=5)
    parser.add_argument("--playout", choices=envs.spec("calculation").playouts, default="random")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--progress", type=int, default=0, help="print a running row every N deals")
    args = parser.parse_args(argv)

    print(f"Calculation, UCT with chance nodes: C={args.c}, threshold={args.threshold}, "
          f"{args.playout} playouts, deals {args.seed}..{args.seed + args.deals - 1}", flush=True)
    print(f"{'playouts':>9} {'deals':>6} {'wins':>5} {'win %':>6} {'95% interval':>15} "
          f"{'study /100':>10} {'cards':>6} {'s/move':>8}", flush=True)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for playouts in args.playouts:
            jobs = [(args.seed + i, playouts, args.c, args.threshold, args.playout)
                    for i in range(args.deals)]
            results = []
            for result in pool.map(play_deal, jobs):
                results.append(result)
                if args.progress and len(results) % args.progress == 0 and len(results) < len(jobs):
                    _report(playouts, results, partial=True)
            _report(playouts, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
