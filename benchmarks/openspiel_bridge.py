"""OpenSpiel's MCTSBot on our games through the bridge against the same bot on OpenSpiel's own games.

    python benchmarks/openspiel_bridge.py [--simulations 400] [--repeats 3]

What an OpenSpiel user gains or pays by loading ``arbiter_<game>`` (``envs.openspiel``) instead of
OpenSpiel's implementation of the same game: the same bot, the same simulations from the start
position, on both, in one run. The bot is OpenSpiel's Python
``open_spiel.python.algorithms.mcts.MCTSBot``, what Python users run: every call it makes of
the game is a Python call on both sides, into our numba kernels or into OpenSpiel's C++. (Its
C++ ``pyspiel.MCTSBot`` cannot search a game written in Python: in OpenSpiel 2.0.2 it ends the
process with a segmentation fault on OpenSpiel's own Python tic-tac-toe too.) Plain UCT: uniform random rollouts, one per
simulation, no solver. Rules are OpenSpiel's on both sides (``rules="openspiel"``), so the
trees search the same game. Times are CPU seconds of this process (``time.process_time``), best
of ``--repeats`` fresh searches after a warm-up search (numba's compile and loading stay out).
Prints simulations/s for each and the ratio ours/theirs.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402

import envs  # noqa: E402
import envs.openspiel  # noqa: E402

CASES = [  # (label, Arbiter game, OpenSpiel's game)
    ("loa 8x8", ("loa", {"rules": "openspiel"}), ("lines_of_action", {})),
    ("othello 8x8", ("othello", {"rules": "openspiel"}), ("othello", {})),
    ("gomoku 15x15", ("gomoku", {"rules": "openspiel"}), ("gomoku", {})),
    ("go 9x9", ("go", {"size": 9, "rules": "openspiel"}), ("go", {"board_size": 9})),
]


def bot(game, sims, seed):
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(game, 2.0, sims, mcts.RandomRolloutEvaluator(1, rng), solve=False, random_state=rng)


def rate(game, sims, repeats):
    """Best simulations per CPU second of ``repeats`` searches from the start of ``game``."""
    state = game.new_initial_state()
    bot(game, min(sims, 20), 0).step(state)  # warm-up: compile or load what the searches run
    best = 0.0
    for r in range(repeats):
        search = bot(game, sims, r + 1)
        start = time.process_time()
        search.step(state)
        best = max(best, sims / (time.process_time() - start))
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    envs.openspiel.register()
    print(f"{'game':<14} {'arbiter_* sims/s':>17} {'OpenSpiel sims/s':>17} {'ratio':>7}")
    for label, (name, params), (theirs, their_params) in CASES:
        try:
            peer_game = pyspiel.load_game(theirs, their_params)
        except pyspiel.SpielError as exc:
            print(f"{label:<14} skipped: OpenSpiel has no {theirs} ({exc})")
            continue
        our_game = envs.openspiel.load(envs.make_game(name, **params))
        ours = rate(our_game, args.simulations, args.repeats)
        peer = rate(peer_game, args.simulations, args.repeats)
        print(f"{label:<14} {ours:>17,.0f} {peer:>17,.0f} {ours / peer:>6.2f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
