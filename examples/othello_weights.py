"""Compare Othello evaluations by self-play at a fixed depth or on a clock.

    nice python examples/othello_weights.py --depth 3 --pairs 30 --workers 2 \\
        --candidate 1,8,4,10,1,4 --baseline 1,8,4,0,0,0
    nice python examples/othello_weights.py --time 0.2 --pairs 30 --workers 2 \\
        --candidate patterns --baseline 1,8,4,10,3,4

Each pair of games starts from its own opening of 4-8 uniformly random plies (``--seed``), the
candidate Black in one game and White in the other, both players ``alphabeta:depth=D`` with
their weights (no exact endgame solver: ``depth=`` runs leave it off, so the evaluation alone
decides), or ``alphabeta:time=S`` (with the exact endgame solver, as Othello's default plays:
what an evaluation's cost in speed buys or loses shows). Prints the candidate's mean outcome
(win 1, draw 0.5, loss 0) with its standard error and 95% Wilson interval. Weights are those
of the hand-written evaluation of ``envs/othello/evaluation.py`` (square values, mobility,
disc count at a full board, stable discs, frontier discs, region parity; the old evaluation is
``1,8,4,0,0,0`` exactly, the new terms weighted 0), or a pattern table: ``patterns`` for the
one shipped (``envs/othello/patterns.py``), or a ``.npz`` that ``examples/othello_patterns.py``
wrote.
"""

from __future__ import annotations

import argparse
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


_TABLES = {}


def _weights(text):
    """Comma-separated weights of the hand-written evaluation, or a pattern table: ``patterns``
    (the one shipped) or the path of a ``.npz`` that ``examples/othello_patterns.py`` wrote."""
    if text not in _TABLES:
        from envs.othello import patterns

        if text == "patterns":
            _TABLES[text] = patterns.table()
        elif text.endswith(".npz"):
            with np.load(text) as data:
                _TABLES[text] = data["table"].astype(np.float64)
        else:
            _TABLES[text] = np.array([float(v) for v in text.split(",")])
    return _TABLES[text]


def _game(args):
    weights_black, weights_white, opening, depth, size, seconds = args
    import agents
    import envs

    game = envs.make_game("othello", size=size)
    players = [
        agents.make("alphabeta", weights=_weights(w), seed=0, **({"time": seconds} if seconds else {"depth": depth}))
        for w in (weights_black, weights_white)
    ]
    state = game.initial_state(seed=0)
    for a in opening:
        state = game.apply(state, a)
    while not game.is_terminal(state):
        state = game.apply(state, players[game.current_player(state)].act(game, state))
    return game.returns(state)[0]  # Black's result: 1, 0 or -1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidate", required=True, help="comma-separated weights, 'patterns' or a table's .npz")
    parser.add_argument("--baseline", required=True, help="comma-separated weights, 'patterns' or a table's .npz")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--time", type=float, default=0.0, help="seconds per move instead of a depth")
    parser.add_argument("--pairs", type=int, default=30, help="colour pairs (2 games each)")
    parser.add_argument("--size", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import envs
    from agents.openings import random_opening

    cand, base = args.candidate, args.baseline
    game = envs.make_game("othello", size=args.size)
    rng = np.random.default_rng(args.seed)
    jobs = []
    for _ in range(args.pairs):
        opening = random_opening(game, rng, 4, 8)
        jobs += [(cand, base, opening, args.depth, args.size, args.time)]
        jobs += [(base, cand, opening, args.depth, args.size, args.time)]
    with ProcessPoolExecutor(args.workers) as pool:
        black = list(pool.map(_game, jobs))
    score = np.array([(r if k % 2 == 0 else -r) * 0.5 + 0.5 for k, r in enumerate(black)])
    n = len(score)
    z, rate = 1.96, score.mean()
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    print(
        f"candidate {args.candidate} vs baseline {args.baseline}, "
        f"{f'{args.time} s a move' if args.time else f'depth {args.depth}'}, {n} games: "
        f"{rate:.3f} ± {score.std(ddof=1) / math.sqrt(n):.3f} (Wilson {centre - half:.2f}-{centre + half:.2f}), "
        f"W/D/L {(score == 1).sum()}/{(score == 0.5).sum()}/{(score == 0).sum()}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
