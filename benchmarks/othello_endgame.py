"""The Othello endgame solver against alpha-beta searching the same positions to the end.

    python benchmarks/othello_endgame.py --empties 14 --positions 12

Positions: games of ``alphabeta:depth=4`` self-play from random 4-8 ply openings, stopped at
``--empties`` empty squares. Each is solved (win/draw/loss) twice, in the same run: by the
bitboard solver (``envs/othello/endgame.py``, the ``solve`` hook) and by the generic alpha-beta
(``agents/alphabeta.py``, iterative deepening with its transposition table and the Othello
evaluation's ordering, no solver: ``endgame=0``) run until it proves a result (or, for a
draw, to ``empties + 4`` plies). Prints CPU
seconds (``time.process_time``) of both, their ratio, and checks that they agree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--empties", type=int, default=14)
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import agents
    import envs
    from agents.evaluation import WIN_BOUND
    from agents.openings import random_opening
    from envs.othello import endgame

    game = envs.make_game("othello")
    p = game.kernel_params
    rng = np.random.default_rng(args.seed)
    positions = []
    while len(positions) < args.positions:
        s = game.initial_state()
        for a in random_opening(game, rng, 4, 8):
            s = game.apply(s, a)
        player = agents.make("alphabeta:depth=4", seed=len(positions))
        while not game.is_terminal(s) and endgame.empties(s, p) > args.empties:
            s = game.apply(s, player.act(game, s))
        if not game.is_terminal(s) and len(game.legal_actions(s)) > 1:
            positions.append(s)

    out = np.zeros(3, dtype=np.int64)
    endgame.solve(positions[0], p, 64, 0.0, out)  # compile both before timing
    agents.make("alphabeta:depth=1,endgame=0").act(game, positions[0])
    solver = search = 0.0
    for s in positions:
        t = time.process_time()
        assert endgame.solve(s, p, 64, 0.0, out) == endgame.SOLVED
        solver += time.process_time() - t
        # deep enough for every line to end (passes add plies); iterative deepening stops at a
        # proved win or loss, a draw searches every depth up to this
        agent = agents.make(f"alphabeta:depth={args.empties + 4},endgame=0", seed=0)
        t = time.process_time()
        agent.act(game, s)
        search += time.process_time() - t
        score = agent.last_stats["score"]
        proved = 1 if score > WIN_BOUND else -1 if score < -WIN_BOUND else 0
        assert proved == out[0] or proved == 0, (proved, out[0])
    print(
        f"{len(positions)} positions at {args.empties} empties, CPU seconds: solver {solver:.3f}, "
        f"alpha-beta to the end {search:.3f}; alpha-beta / solver = {search / solver:.1f}x"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
