"""Gomoku's own search kernel: nodes per CPU-second at a fixed depth, against the generic alpha-beta.

    python benchmarks/gomoku_search.py                       # 24 games' positions, depth 8
    python benchmarks/gomoku_search.py --games 8 --depth 6   # quicker

Positions: 15x15 freestyle games from two seeded random stones near the centre (a 2-ply
opening, as the PentaZen matches of ``docs/strength.md`` are played), continued by the kernel
itself at depth 3, taken after 8, 14 and 20 plies where the game goes on. Each is searched to
``--depth`` plies by the kernel (``envs.gomoku.search.search``, a fresh table of 2^20 positions
each time, no clock), one process, one core, compiled before the first timing.

It prints the nodes, the CPU seconds (``time.process_time``), nodes per second and a digest of
every search's (move, score, depth, nodes): two versions of the kernel that search the same
trees print the same digest, so the digest says whether a change to the kernel left every
search as it was, and nodes per second then says what it saved. For scale it then runs the
generic alpha-beta (``alphabeta:depth=K,search=generic``: the game's hooks, no kernel) over the
first positions at ``--generic-depth`` plies and prints its nodes per second and the ratio.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import envs  # noqa: E402
from envs.gomoku import search as S  # noqa: E402

TT_BITS = 20
SAMPLE_PLIES = (8, 14, 20)


def positions(game, games: int, seed: int) -> list:
    """The benchmark's positions: seeded 2-ply openings near the centre, then the kernel at depth 3."""
    rng = np.random.default_rng(seed)
    n = game.kernel_params[envs.core.kernel.P_GAME]
    centre = [a for a in range(n * n) if abs(a // n - n // 2) <= 3 and abs(a % n - n // 2) <= 3]
    table = np.zeros((1 << 16, 2), dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    out = []
    for _ in range(games):
        state = game.initial_state()
        for a in rng.choice(centre, size=2, replace=False):
            state = game.apply(state, int(a))
        for ply in range(2, max(SAMPLE_PLIES) + 1):
            if game.is_terminal(state):
                break
            if ply in SAMPLE_PLIES:
                out.append(state)
            table[:] = 0
            result = np.zeros(5, dtype=np.int64)
            S.search(state, game.kernel_params, 3, 0.0, empty, table, result)
            state = game.apply(state, int(result[0]))
    return out


def kernel_sweep(game, states, depth: int):
    """(nodes, CPU seconds, digest) of the kernel searching every state to ``depth``."""
    table = np.zeros((1 << TT_BITS, 2), dtype=np.int64)
    empty = np.zeros(0, dtype=np.int64)
    results = []
    nodes = 0
    cpu = 0.0
    for state in states:
        table[:] = 0
        out = np.zeros(5, dtype=np.int64)
        start = time.process_time()
        S.search(state, game.kernel_params, depth, 0.0, empty, table, out)
        cpu += time.process_time() - start
        nodes += int(out[3])
        results.append(tuple(int(x) for x in out[:4]))
    return nodes, cpu, hashlib.sha256(repr(results).encode()).hexdigest()[:16]


def generic_sweep(game, states, depth: int):
    """(nodes, CPU seconds) of the generic alpha-beta over ``states`` at ``depth``."""
    agent = agents.make(f"alphabeta:depth={depth},search=generic")
    agent.act(game, states[0])  # compiles, off the clock
    nodes = 0
    cpu = 0.0
    for state in states:
        start = time.process_time()
        agent.act(game, state)
        cpu += time.process_time() - start
        nodes += int(agent.last_stats["nodes"])
    return nodes, cpu


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=24, help="games the positions come from (default 24)")
    parser.add_argument("--depth", type=int, default=8, help="the kernel's depth (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the openings (default 0)")
    parser.add_argument("--generic-depth", type=int, default=4, help="the generic search's depth (default 4)")
    parser.add_argument("--generic-positions", type=int, default=6, help="positions it searches (default 6)")
    args = parser.parse_args(argv)
    if args.games < 1 or not 1 <= args.depth <= S.MAX_DEPTH or args.generic_depth < 1:
        parser.error("--games and --generic-depth must be at least 1, --depth from 1 to 40")
    game = envs.make_game("gomoku", size=15)
    states = positions(game, args.games, args.seed)
    kernel_sweep(game, states[:1], 2)  # compiles, off the clock
    nodes, cpu, digest = kernel_sweep(game, states, args.depth)
    print(
        f"kernel: {len(states)} positions, depth {args.depth}: {nodes:,} nodes, {cpu:.2f} s of CPU, "
        f"{nodes / cpu:,.0f} nodes/s; digest {digest}"
    )
    if args.generic_positions > 0:
        few = states[: args.generic_positions]
        g_nodes, g_cpu = generic_sweep(game, few, args.generic_depth)
        k_nodes, k_cpu, _ = kernel_sweep(game, few, args.depth)
        print(
            f"generic alpha-beta: {len(few)} positions, depth {args.generic_depth}: {g_nodes:,} nodes, "
            f"{g_cpu:.2f} s of CPU, {g_nodes / g_cpu:,.0f} nodes/s; the kernel on them "
            f"{k_nodes / k_cpu:,.0f} nodes/s, {k_nodes / k_cpu / (g_nodes / g_cpu):.1f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
