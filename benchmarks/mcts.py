"""MCTS simulations per second: Arbiter's compiled UCT against OpenSpiel's C++ ``pyspiel.MCTSBot``.

    python benchmarks/mcts.py [--simulations 20000] [--repeats 3]

Both search from the start position with uniformly random rollouts (one per simulation) and no
time limit; OpenSpiel runs without its solver so both do plain UCT. Each engine is timed on a
fresh search ``--repeats`` times after a warm-up (numba compilation) and the best run counts.
Times are CPU seconds of this process (``time.process_time``; both searches are single-threaded),
so other jobs on the machine distort neither side. Prints simulations/s for each game and the
ratio (target: at least 5x). Arbiter's search runs with ``playout="random", rave=0`` (Go's default
is light playouts with RAVE); a last line gives the price of that default against plain UCT,
both measured here.
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
    plain, default = ours(go, args.simulations, args.repeats), ours(go, args.simulations, args.repeats, {})
    print(f"go 9x9, the default (light playouts, RAVE): {default:,.0f} sims/s, "
          f"{default / plain:.2f}x plain UCT's {plain:,.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
