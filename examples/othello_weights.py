"""Compare Othello evaluation weight sets by self-play at a fixed depth.

    nice python examples/othello_weights.py --depth 3 --pairs 30 --workers 2 \\
        --candidate 1,8,4,10,1,4 --baseline 1,8,4,0,0,0

Each pair of games starts from its own opening of 4-8 uniformly random plies (``--seed``), the
candidate Black in one game and White in the other, both players ``alphabeta:depth=D`` with
their weights (no exact endgame solver: ``depth=`` runs leave it off), so the evaluation alone
decides. Prints the candidate's mean outcome (win 1, draw 0.5, loss 0) with its standard error
and 95% Wilson interval. The weights are those of ``envs/othello/evaluation.py`` (square values,
mobility, disc count at a full board, stable discs, frontier discs, region parity); the old
evaluation is ``1,8,4,0,0,0`` exactly (the new terms weighted 0).
"""

from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _game(args):
    weights_black, weights_white, opening, depth, size = args
    import agents
    import envs

    game = envs.make_game("othello", size=size)
    players = [agents.make("alphabeta", depth=depth, weights=w, seed=0) for w in (weights_black, weights_white)]
    state = game.initial_state(seed=0)
    for a in opening:
        state = game.apply(state, a)
    while not game.is_terminal(state):
        state = game.apply(state, players[game.current_player(state)].act(game, state))
    return game.returns(state)[0]  # Black's result: 1, 0 or -1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidate", required=True, help="comma-separated weights")
    parser.add_argument("--baseline", required=True, help="comma-separated weights")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--pairs", type=int, default=30, help="colour pairs (2 games each)")
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import envs
    from agents.openings import random_opening

    cand = [float(v) for v in args.candidate.split(",")]
    base = [float(v) for v in args.baseline.split(",")]
    game = envs.make_game("othello", size=args.size)
    rng = np.random.default_rng(args.seed)
    jobs = []
    for _ in range(args.pairs):
        opening = random_opening(game, rng, 4, 8)
        jobs += [(cand, base, opening, args.depth, args.size), (base, cand, opening, args.depth, args.size)]
    with ProcessPoolExecutor(args.workers) as pool:
        black = list(pool.map(_game, jobs))
    score = np.array([(r if k % 2 == 0 else -r) * 0.5 + 0.5 for k, r in enumerate(black)])
    n = len(score)
    z, rate = 1.96, score.mean()
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    print(
        f"candidate {args.candidate} vs baseline {args.baseline}, depth {args.depth}, {n} games: "
        f"{rate:.3f} ± {score.std(ddof=1) / math.sqrt(n):.3f} (Wilson {centre - half:.2f}-{centre + half:.2f}), "
        f"W/D/L {(score == 1).sum()}/{(score == 0.5).sum()}/{(score == 0).sum()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
