"""Calculation: the greedy playout and a 100,000-playout MCTS move, against peers in the same run.

    python benchmarks/patience.py [--simulations 100000] [--playouts 20000] [--repeats 3]

1. Playouts per CPU second from a fresh deal and from a mid-game position (30 moves of the
   greedy agent in): the greedy playout (``playout="greedy"``, the game's default), the same
   policy scored move by move through the greedy agent's ``tactical`` hook with the playout
   weights (the straightforward loop: same scores, same ties, same moves, the piles counted
   anew for every candidate), and uniformly random playouts. The two greedy loops must finish
   every playout in the same position; the benchmark checks it before timing.
2. One ``agents.make("mcts", simulations=100000)`` move from the same two positions, in CPU
   seconds (``time.process_time``), with the default greedy playouts and with random ones.

CPU time of this process, best of ``--repeats``: another job on the machine slows both sides
alike, but on a shared machine the figures still vary by 10-30% from run to run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import agents  # noqa: E402
import envs  # noqa: E402
from envs.calculation import _kernel as K  # noqa: E402
from envs.calculation import evaluation as E  # noqa: E402
from envs.core import kernel as C  # noqa: E402
from envs.core import rng as R  # noqa: E402

RANDOM, GREEDY, TACTICAL = 0, E.GREEDY, -1  # TACTICAL: the move-by-move peer below


@njit(cache=True)
def _tactical_playout(s, p, rng, moves):
    """The greedy playout policy written the straightforward way: every legal move scored by
    ``tactical`` with ``PLAYOUT_WEIGHTS``, ties broken at random as the playout breaks them."""
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        best, choice, ties = -np.inf, moves[0], 0
        for i in range(n):
            score = E.tactical(s, s, p, moves[i], E.PLAYOUT_WEIGHTS)
            if score > best:
                best, choice, ties = score, moves[i], 1
            elif score == best:
                ties += 1
                if R.randint(rng, ties) == 0:
                    choice = moves[i]
        K.apply(s, p, choice)


@njit(cache=True)
def _playouts(root, p, n, seed, policy, finals):
    """``n`` playouts from ``root``, each from a fresh redraw of the unseen cards (as a search
    does), with ``policy``; returns the moves played and keeps each final position's hash."""
    rng = np.empty(1, dtype=np.uint64)
    rng[0] = seed
    s = np.empty_like(root)
    moves = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    plies = 0
    for i in range(n):
        s[:] = root
        K.shuffle_hidden(s, p, rng)
        if policy == TACTICAL:
            _tactical_playout(s, p, rng, moves)
        else:
            E.playout(s, p, rng, moves, policy)
        plies += s[C.H_PLY] - root[C.H_PLY]
        finals[i] = s[C.H_HASH] ^ (s[C.H_PLY] << 40) ^ s[C.H_WINNER]
    return plies


def positions(game):
    fresh = game.initial_state(seed=3)
    mid = game.initial_state(seed=4)
    greedy = agents.make("greedy", seed=0)
    for _ in range(30):
        mid = game.apply(mid, greedy.act(game, mid))
    return {"fresh deal": fresh, "mid-game (30 moves in)": mid}


def playout_rate(game, state, policy, n, repeats):
    finals = np.empty(n, dtype=np.int64)
    _playouts(state, game.kernel_params, 2, 1, policy, finals[:2])  # compile outside the timing
    best = 0.0
    for _ in range(repeats):
        t = time.process_time()
        _playouts(state, game.kernel_params, n, 12345, policy, finals)
        best = max(best, n / (time.process_time() - t))
    return best, finals.copy()


def move_seconds(game, state, playout, simulations, repeats):
    agents.make("mcts", simulations=64, playout=playout, seed=0).act(game, state)  # compile
    best = np.inf
    for r in range(repeats):
        bot = agents.make("mcts", simulations=simulations, playout=playout, seed=r)
        t = time.process_time()
        bot.act(game, state)
        best = min(best, time.process_time() - t)
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--simulations", type=int, default=100000)
    parser.add_argument("--playouts", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    game = envs.make_game("calculation")
    print(
        "| position | greedy playouts/s | move-by-move peer /s | ratio | random playouts/s |"
        f" MCTS {args.simulations:,} greedy, CPU s | MCTS random, CPU s |"
    )
    print("|---|---|---|---|---|---|---|")
    for label, state in positions(game).items():
        fast, a = playout_rate(game, state, GREEDY, args.playouts, args.repeats)
        peer, b = playout_rate(game, state, TACTICAL, args.playouts, args.repeats)
        if not np.array_equal(a, b):
            raise SystemExit(
                f"{label}: the greedy playout and its move-by-move peer ended in different "
                "positions; they must play the same moves"
            )
        rand, _ = playout_rate(game, state, RANDOM, args.playouts, args.repeats)
        greedy_s = move_seconds(game, state, None, args.simulations, args.repeats)
        random_s = move_seconds(game, state, "random", args.simulations, args.repeats)
        print(
            f"| {label} | {fast:,.0f} | {peer:,.0f} | {fast / peer:.1f}x | {rand:,.0f} | "
            f"{greedy_s:.2f} | {random_s:.2f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
