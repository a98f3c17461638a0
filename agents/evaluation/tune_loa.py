"""Tune the LOA evaluation weights by self-play tournaments (coordinate search).

    python -m agents.evaluation.tune_loa --rounds 2 --games 20 --depth 2 --seed 0

Each round tries, for every feature in turn, the current weight vector with that one weight
halved and doubled. A candidate plays ``games`` games against the incumbent, colours alternated,
each game from a different opening (``opening`` random plies, shared by both colour orders), with
alpha-beta at ``depth`` on both sides. A candidate that scores above ``accept`` (win 1, draw 1/2)
replaces the incumbent at once. The method and the runs behind the shipped ``WEIGHTS`` are in
``docs/loa_weights.md``.
"""

from __future__ import annotations

import argparse

import numpy as np

import agents
import envs
from agents.evaluation import loa


def play(game, black, white, opening):
    """Result for Black (1, 1/2, 0) of one game from the given opening moves."""
    s = game.initial_state()
    for a in opening:
        s = game.apply(s, a)
    players = (black, white)
    while not game.is_terminal(s):
        s = game.apply(s, players[game.current_player(s)].act(game, s))
    return (game.returns(s)[0] + 1) / 2


def openings(game, count, plies, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s, moves = game.initial_state(), []
        for _ in range(plies):
            legal = game.legal_actions(s)
            moves.append(int(legal[rng.integers(len(legal))]))
            s = game.apply(s, moves[-1])
        if not game.is_terminal(s):
            out.append(moves)
    return out


def match(game, candidate, incumbent, games, depth, opening_plies, seed):
    """Mean score of ``candidate`` against ``incumbent`` over ``games`` games (colours alternated)."""
    total = 0.0
    for k, opening in enumerate(openings(game, (games + 1) // 2, opening_plies, seed)):
        a = agents.make("alphabeta", depth=depth, weights=candidate, seed=seed + k)
        b = agents.make("alphabeta", depth=depth, weights=incumbent, seed=seed + k)
        total += play(game, a, b, opening)
        total += 1 - play(game, b, a, opening)
    return total / (2 * ((games + 1) // 2))


def tune(rounds, games, depth, opening_plies, accept, seed, weights=None):
    game = envs.make_game("loa", max_moves=300)
    best = np.array(loa.WEIGHTS if weights is None else weights, dtype=np.float64)
    for r in range(rounds):
        for i, feature in enumerate(loa.FEATURES):
            for factor in (0.5, 2.0):
                cand = best.copy()
                cand[i] *= factor
                score = match(game, cand, best, games, depth, opening_plies, seed + 1000 * r + 10 * i)
                verdict = "accepted" if score > accept else "kept"
                print(f"round {r} {feature:15s} x{factor:<3} score {score:.3f} {verdict}", flush=True)
                if score > accept:
                    best = cand
        print("weights:", ", ".join(f"{w:g}" for w in best), flush=True)
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--opening", type=int, default=4, help="random plies before each game")
    parser.add_argument("--accept", type=float, default=0.55)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tune(args.rounds, args.games, args.depth, args.opening, args.accept, args.seed)


if __name__ == "__main__":
    main()
