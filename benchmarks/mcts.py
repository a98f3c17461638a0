"""MCTS simulations per second: Arbiter's compiled UCT against OpenSpiel's C++ ``pyspiel.MCTSBot``.

    python benchmarks/mcts.py [--simulations 20000] [--repeats 3]

Both search from the start position with uniformly random rollouts (one per simulation) and no
time limit; OpenSpiel runs without its solver so both do plain UCT. Each engine is timed on a
fresh search ``--repeats`` times after a warm-up (numba compilation) and the best run counts.
Times are CPU seconds of this process (``time.process_time``; both searches are single-threaded),
so other jobs on the machine distort neither side. Prints simulations/s for each game and the
ratio (target: at least 5x). Arbiter's search runs with ``playout="random", rave=0`` (Go's default
adds RAVE, priors and its own playouts); the last lines give the price of each of Go's layers of
knowledge against plain UCT, all measured here.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pyspiel  # noqa: E402

import agents  # noqa: E402
import agents.mcts  # noqa: E402,F401
import envs  # noqa: E402

CASES = [  # (label, Arbiter game, OpenSpiel game)
    ("othello 8x8", ("othello", {}), ("othello", {})),
    ("go 9x9", ("go", {"size": 9, "rules": "openspiel"}), ("go", {"board_size": 9})),
    ("gomoku 15x15", ("gomoku", {}), ("gomoku", {})),
    ("loa 8x8", ("loa", {"rules": "openspiel"}), ("lines_of_action", {})),
]


PLAIN = {"playout": "random", "rave": 0}  # plain UCT with uniform rollouts, as OpenSpiel's bot
# Go's search knowledge layer by layer, each with RAVE (k = 1000), against plain UCT above.
GO_LAYERS = [
    ("light playouts", {"playout": "light", "priors": False}),
    ("light playouts, priors", {"playout": "light"}),
    ("pattern playouts", {"playout": "pattern", "priors": False}),
    ("pattern playouts, priors", {"playout": "pattern"}),
]


def ours(game_spec, sims, repeats, options=PLAIN):
    game = envs.make_game(game_spec[0], **game_spec[1])
    state = game.initial_state()
    agents.make("mcts", simulations=50, seed=0, **options).act(game, state)  # compile outside the timing
    best = 0.0
    for r in range(repeats):
        bot = agents.make("mcts", simulations=sims, seed=r, **options)
        t0 = time.process_time()
        bot.act(game, state)
        best = max(best, bot.last_stats["simulations"] / (time.process_time() - t0))
    return best


def openspiel(game_spec, sims, repeats):
    game = pyspiel.load_game(game_spec[0], game_spec[1])
    state = game.new_initial_state()
    best = 0.0
    for r in range(repeats):
        evaluator = pyspiel.RandomRolloutEvaluator(1, r)
        bot = pyspiel.MCTSBot(game, evaluator, 2.0, sims, 2000, False, r, False)
        t0 = time.process_time()
        bot.step(state)
        best = max(best, sims / (time.process_time() - t0))
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'game':<14} {'arbiter sims/s':>15} {'pyspiel sims/s':>15} {'ratio':>7}")
    for label, mine, theirs in CASES:
        try:
            peer = openspiel(theirs, args.simulations, args.repeats)
        except pyspiel.SpielError as exc:
            print(f"{label:<14} skipped: OpenSpiel has no {theirs[0]} ({exc})")
            continue
        rate = ours(mine, args.simulations, args.repeats)
        print(f"{label:<14} {rate:>15,.0f} {peer:>15,.0f} {rate / peer:>6.1f}x", flush=True)
    go = ("go", {"size": 9})
    plain = ours(go, args.simulations, args.repeats)
    print(f"go 9x9, plain UCT with uniform playouts: {plain:,.0f} sims/s; with RAVE:")
    for label, options in GO_LAYERS:
        rate = ours(go, args.simulations, args.repeats, options)
        print(f"  {label:<44} {rate:>9,.0f} sims/s {rate / plain:>6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
