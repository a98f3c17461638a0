"""Alpha-beta speed: nodes per second against OpenSpiel's Python alpha-beta, and LOA depth-6 times.

    python -m benchmarks.search                 # both parts, default sizes
    python -m benchmarks.search --positions 5   # quicker

Part 1 searches the same positions (Othello 8x8 at depth 6 and LOA at depth 4, ten random
plies in) with Arbiter's
``alphabeta`` and with ``open_spiel.python.algorithms.minimax.alpha_beta_search`` in this run,
and prints nodes/s and their ratio (target >= 30x). OpenSpiel's nodes are counted by wrapping its
recursive ``_alpha_beta``; its leaf value is a constant, which costs it nothing, while ours is the
full static evaluation, so the ratio understates our speed per node of equal work.
Part 2 times LOA alpha-beta at depth 6 on middlegame positions (reached by two seeded depth-2
alpha-beta players from the start) and prints the median seconds per move (target < 0.5 s).
The first call of each compiled function is excluded (warm-up).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import minimax as os_minimax

import agents
import envs


def random_positions(game, count, plies, seed):
    """``count`` ongoing positions after ``plies`` random moves, with their move lists."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        history = []
        for _ in range(plies):
            moves = game.legal_actions(s)
            a = int(moves[rng.integers(len(moves))])
            history.append(a)
            s = game.apply(s, a)
            if game.is_terminal(s):
                break
        if not game.is_terminal(s):
            out.append((s, history))
    return out


def openspiel_nodes_per_second(name, histories, depth):
    """OpenSpiel alpha-beta on the same move sequences; returns (nodes, seconds)."""
    game = pyspiel.load_game(name)
    inner = os_minimax._alpha_beta
    counter = [0]

    def counting(*args, **kwargs):
        counter[0] += 1
        return inner(*args, **kwargs)

    os_minimax._alpha_beta = counting
    try:
        start = time.perf_counter()
        for history in histories:
            state = game.new_initial_state()
            for a in history:
                state.apply_action(a)
            os_minimax.alpha_beta_search(game, state, value_function=lambda s: 0.0,
                                         maximum_depth=depth)
        return counter[0], time.perf_counter() - start
    finally:
        os_minimax._alpha_beta = inner


def arbiter_nodes_per_second(game, positions, depth):
    nodes, seconds = 0, 0.0
    for s, _ in positions:
        agent = agents.make("alphabeta", depth=depth, seed=0)
        agent.act(game, s)
        nodes += agent.last_stats["nodes"]
        seconds += agent.last_stats["seconds"]
    return nodes, seconds


def compare(name, os_name, kw, depth, count):
    game = envs.make_game(name, **kw)
    positions = random_positions(game, count, plies=10, seed=1)
    arbiter_nodes_per_second(game, positions[:1], 2)  # warm-up: loads the compiled code
    ours_n, ours_t = arbiter_nodes_per_second(game, positions, depth)
    histories = [openspiel_history(name, game, h) for _, h in positions]
    theirs_n, theirs_t = openspiel_nodes_per_second(os_name, histories, depth)
    ours, theirs = ours_n / ours_t, theirs_n / theirs_t
    print(f"{name:8s} depth {depth}: arbiter {ours_n:9d} nodes {ours_t:7.3f} s {ours:12,.0f} n/s | "
          f"openspiel {theirs_n:8d} nodes {theirs_t:7.3f} s {theirs:10,.0f} n/s | ratio {ours / theirs:6.1f}x")
    return ours / theirs


def openspiel_history(name, game, history):
    """The same game as OpenSpiel action ids (replayed through move notation)."""
    os_game = pyspiel.load_game({"loa": "lines_of_action", "othello": "othello"}[name])
    state = os_game.new_initial_state()
    s = game.initial_state()
    out = []
    for a in history:
        text = game.action_to_str(s, a)
        match = [b for b in state.legal_actions() if _same_move(state.action_to_string(b), text)]
        if len(match) != 1:
            raise RuntimeError(f"{name}: cannot map move {text!r} to OpenSpiel")
        out.append(match[0])
        state.apply_action(match[0])
        s = game.apply(s, a)
    return out


def _same_move(os_text, ours):
    """OpenSpiel writes LOA moves like ``b1-b3``/``b1xd3`` and Othello like ``d3``."""
    clean = os_text.lower().replace(":", "x").split("(")[0].strip()
    return clean == ours.lower() or clean.replace("x", "-") == ours.lower().replace("x", "-")


def loa_depth6(count, depth=6):
    game = envs.make_game("loa")
    times = []
    for k in range(count):
        players = [agents.make("alphabeta", depth=2, seed=2 * k), agents.make("alphabeta", depth=2, seed=2 * k + 1)]
        s = game.initial_state()
        for _ in range(16 + k % 8):  # into the middlegame
            s = game.apply(s, players[game.current_player(s)].act(game, s))
            if game.is_terminal(s):
                break
        if game.is_terminal(s):
            continue
        agent = agents.make("alphabeta", depth=depth, seed=k)
        agent.act(game, s)
        times.append(agent.last_stats["seconds"])
    median = statistics.median(times)
    print(f"loa depth {depth}: median {median:.3f} s per move over {len(times)} middlegame positions "
          f"(max {max(times):.3f} s)")
    return median


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=10, help="positions per game in part 1")
    parser.add_argument("--depth6", type=int, default=20, help="LOA middlegame positions in part 2")
    args = parser.parse_args(argv)
    compare("othello", "othello", {}, 6, args.positions)
    compare("loa", "lines_of_action", {}, 4, args.positions)
    if args.depth6 > 0:
        loa_depth6(args.depth6)


if __name__ == "__main__":
    main()
