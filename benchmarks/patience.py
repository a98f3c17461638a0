"""Calculation: the playouts and a 100,000-playout MCTS move, against peers in the same run.

    python benchmarks/patience.py [--simulations 100000] [--playouts 20000] [--repeats 3]

1. Playouts per CPU second from a fresh deal and from a mid-game position (30 moves of the
   greedy agent in): the greedy playout (``playout="greedy"``), the same policy scored move by
   move through the greedy agent's ``tactical`` hook with the playout weights (the
   straightforward loop: same scores, same ties, same moves, the piles counted anew for every
   candidate), the checked playout (``playout="checked"``, the game's default) and its
   straightforward peer (the same loop, then the unwinding check of the pile picked with the
   unseen cards counted anew, and of the other piles if it fails), and uniformly random
   playouts. Each fast loop must finish every playout in the position its peer does; the
   benchmark checks it before timing.
2. One ``agents.make("mcts", simulations=100000)`` move, in CPU seconds
   (``time.process_time``), with the default checked playouts, greedy ones and random ones,
   from the first position at or after each of the two where the tree has a choice (its
   ``filter_moves``: a move that is the only one kept, as every first move of a deal is, is
   played without a search), and the same with the study's tree of every legal move.

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

RANDOM, GREEDY, CHECKED = 0, E.GREEDY, E.CHECKED
TACTICAL, TACTICAL_CHECKED = -1, -2  # the move-by-move peers below


@njit(cache=True)
def _tactical_playout(s, p, rng, moves, checked):
    """The greedy playout policy written the straightforward way: every legal move scored by
    ``tactical`` with ``PLAYOUT_WEIGHTS``, ties broken at random as the playout breaks them;
    with ``checked``, a placement on a pile after which the piles cannot unwind gives way to the
    best-scored pile (first of equals) after which they can, an empty pile always can."""
    scores = np.empty(K.NUM_ACTIONS)
    while s[C.H_STATUS] == C.ONGOING:
        n = K.legal_actions(s, p, moves)
        best, choice, ties = -np.inf, moves[0], 0
        for i in range(n):
            scores[moves[i]] = E.tactical(s, s, p, moves[i], E.PLAYOUT_WEIGHTS)
            if scores[moves[i]] > best:
                best, choice, ties = scores[moves[i]], moves[i], 1
            elif scores[moves[i]] == best:
                ties += 1
                if R.randint(rng, ties) == 0:
                    choice = moves[i]
        if checked and choice < K.TO_FOUND and s[K.WLEN + choice] > 0 and not _alive_after(s, p, choice):
            alt = -1
            for w in range(K.NW):
                if w != choice and (alt < 0 or scores[w] > scores[alt]):
                    if s[K.WLEN + w] == 0 or _alive_after(s, p, w):
                        alt = w
            if alt >= 0:
                choice = alt
        K.apply(s, p, choice)


@njit(cache=True)
def _alive_after(s, p, w):
    """Whether the piles still unwind once the face-up card lies on pile ``w``."""
    counts = np.zeros(13, dtype=np.int64)
    K.unseen_counts(s, p, counts)
    E._push(s, w, K.face_up(s, p))
    alive = E._unwinds(s, counts)
    E._pop(s, w)
    return alive


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
        if policy < 0:
            _tactical_playout(s, p, rng, moves, policy == TACTICAL_CHECKED)
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


def first_choice(game, state):
    """``state``, or the first position after it (the greedy agent's moves) where MCTS's tree
    keeps more than one move, with the plies played to reach it."""
    greedy = agents.make("greedy", seed=0)
    moves = np.empty(game.num_actions, dtype=np.int64)
    p, plies = game.kernel_params, 0
    while E.filter_moves(state, p, moves, K.legal_actions(state, p, moves)) < 2:
        state, plies = game.apply(state, greedy.act(game, state)), plies + 1
    return state, plies


def move_seconds(game, state, playout, simulations, repeats, filter_moves=True):
    agents.make("mcts", simulations=64, playout=playout, filter_moves=filter_moves, seed=0).act(game, state)
    best = np.inf
    for r in range(repeats):
        bot = agents.make("mcts", simulations=simulations, playout=playout, filter_moves=filter_moves, seed=r)
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
        "| position | greedy playouts/s | move-by-move peer /s | ratio | checked playouts/s | move-by-move peer /s |"
        f" ratio | random playouts/s | MCTS {args.simulations:,}: plies to a choice | checked (default), CPU s |"
        " greedy, CPU s | random, CPU s | checked, every legal move, CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for label, state in positions(game).items():
        rates = []
        for fast_policy, peer_policy in ((GREEDY, TACTICAL), (CHECKED, TACTICAL_CHECKED)):
            fast, a = playout_rate(game, state, fast_policy, args.playouts, args.repeats)
            peer, b = playout_rate(game, state, peer_policy, args.playouts, args.repeats)
            if not np.array_equal(a, b):
                raise SystemExit(
                    f"{label}: the {E.PLAYOUTS[fast_policy]} playout and its move-by-move peer ended in "
                    "different positions; they must play the same moves"
                )
            rates += [f"{fast:,.0f}", f"{peer:,.0f}", f"{fast / peer:.1f}x"]
        rand, _ = playout_rate(game, state, RANDOM, args.playouts, args.repeats)
        searched, plies = first_choice(game, state)
        seconds = [
            move_seconds(game, searched, playout, args.simulations, args.repeats)
            for playout in (None, "greedy", "random")
        ]
        seconds.append(move_seconds(game, searched, None, args.simulations, args.repeats, filter_moves=False))
        print(
            f"| {label} | {' | '.join(rates)} | {rand:,.0f} | {plies} | "
            + " | ".join(f"{x:.2f}" for x in seconds)
            + " |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
