"""Reproduce the patience study: UCT-MCTS with chance nodes on Calculation.

    python examples/patience_study.py --deals 200 --playouts 1000 10000 --seed 0
    python examples/patience_study.py --deals 100 --playouts 100000 --records run.jsonl
    python examples/patience_study.py --deals 100 --playouts 100000 --records run.jsonl --resume

Plays ``--deals`` deals at each playout budget (the same deals for every budget: deal ``i`` is
``initial_state(seed=seed + i)`` and the agent's seed is ``seed + i`` too) with the study's
C = 0.5, on a process pool, and prints the wins with a 95% Wilson interval, the mean cards on
the foundations and the time per move. ``--playout`` and ``--threshold`` are the game's
defaults, ``agents.make("mcts")``'s: the rule-based waste-pile policy of the greedy agent with
the unwinding check of the pile it picks (``checked``; ``greedy`` without the check) and a leaf
expanded at its first playout (1); ``--filter-moves`` and ``--progress-reward`` are too: a tree
that tries only the moves that play a card up where a card fits, and a lost playout worth a
fifth of its share of the 52 cards on the foundations (0.2). ``--playout random --threshold 5
--no-filter-moves --progress-reward 0`` gives the study's uniformly random playouts, expansion
threshold, tree and rewards, and ``foundation-first`` random playouts that play a fitting card at
once (docs/patience.md explains why the defaults are not the study's).

``--records FILE`` writes one JSON line per finished deal as soon as it finishes; a killed run
then loses only the deals in progress, and ``--resume`` with the same file and options reads the
finished deals back and plays only the missing ones. A deal's result depends only on its seeds,
not on what else is played, so a resumed run gives the table an uninterrupted one gives.

The study itself is ``tournaments.studies.patience``; this is its command line.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import envs
from agents.mcts import DEFAULT_THRESHOLD
from agents.tuning import tuned
from tournaments.referee.records import RecordError
from tournaments.studies import patience


def main(argv=None) -> int:
    spec = envs.spec("calculation")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--playouts", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=patience.C)
    threshold = tuned("mcts", spec.name, "threshold", DEFAULT_THRESHOLD)
    playout = tuned("mcts", spec.name, "playout", "random")
    parser.add_argument(
        "--threshold",
        type=int,
        default=threshold,
        help=f"expansion threshold (default: MCTS's for the game, {threshold}; the study's: 5)",
    )
    parser.add_argument(
        "--playout",
        choices=spec.playouts,
        default=playout,
        help=f"playout policy (default: MCTS's for the game, {playout!r})",
    )
    filtered = tuned("mcts", spec.name, "filter_moves", False)
    parser.add_argument(
        "--filter-moves",
        action=argparse.BooleanOptionalAction,
        default=filtered,
        help="the tree tries only the moves that play a card up where a card fits, one empty pile for all "
        f"(default: MCTS's for the game, {'on' if filtered else 'off'}; the study's: off)",
    )
    reward = tuned("mcts", spec.name, "progress_reward", 0.0)
    parser.add_argument(
        "--progress-reward",
        type=float,
        default=reward,
        help="a lost playout is worth this times the share of the 52 cards on the foundations "
        f"(default: MCTS's for the game, {reward:g}; the study's: 0)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--progress", type=int, default=0, help="print a running row every N deals")
    parser.add_argument(
        "--records", type=Path, default=None, help="write every finished deal to this file (JSON lines)"
    )
    parser.add_argument(
        "--resume", action="store_true", help="read the deals already in --records and play only the missing ones"
    )
    args = parser.parse_args(argv)
    if args.deals < 1:
        parser.error(f"--deals {args.deals}: expected at least 1")
    if not 0.0 <= args.progress_reward <= 1.0:
        parser.error(f"--progress-reward {args.progress_reward}: expected a number from 0 to 1")
    if args.resume and args.records is None:
        parser.error("--resume needs the --records file of the interrupted run")
    if args.records is not None and not args.resume and args.records.exists() and args.records.stat().st_size:
        parser.error(f"{args.records} already holds records: pass --resume to continue that run, or name another file")
    try:
        patience.run(
            range(args.seed, args.seed + args.deals),
            args.playouts,
            c=args.c,
            threshold=args.threshold,
            playout=args.playout,
            filter_moves=args.filter_moves,
            progress_reward=args.progress_reward,
            workers=args.workers,
            progress=args.progress,
            records=args.records,
            resume=args.resume,
        )
    except RecordError as exc:
        raise SystemExit(str(exc)) from None
    return 0


if __name__ == "__main__":
    sys.exit(main())
