"""The Othello endgame solver on the FFO test positions, and against alpha-beta.

    python benchmarks/othello_endgame.py                      # FFO #40-#59, exact scores
    python benchmarks/othello_endgame.py --ffo 40,41,47       # some of them
    python benchmarks/othello_endgame.py --ffo 40-47 --wld    # win/draw/loss only (``solve``)
    python benchmarks/othello_endgame.py --empties 16 --positions 8   # against alpha-beta

FFO mode: the FForum endgame positions #40-#59 (20-34 empty squares, ``tests/data/ffo``) are
solved exactly, one after the other in one process, on one core (``envs.othello.endgame.exact``:
MTD(f) from a pattern search's first guess, with its transposition table of ``--tt-bits``
positions). Each line prints the CPU seconds
(``time.process_time``), nodes, nodes per second, the move found and its score against the
suite's best score and the moves that reach it; ``ok`` when both agree. Then the total, the
slowest position and the count correct. The solver is compiled before the first timing. CPU
seconds on a shared machine vary with its load; the node counts do not, so they are the figures
to compare between two versions of the solver (nodes per second then gives the speed).

With ``--wld`` each position is solved win/draw/loss only, as alpha-beta's endgame asks (the
``solve`` hook, its table of at most ``2**TT_BITS`` positions; a lost position's margin is then
searched too, as there): the cost the time rule (``affordable_seconds``) is measured by.

Against alpha-beta (``--empties``): positions from games of ``alphabeta:depth=4`` self-play from
random 4-8 ply openings, stopped at ``--empties`` empty squares. Each is solved (win/draw/loss)
twice, in the same run: by the solver (the ``solve`` hook) and by the generic alpha-beta
(``agents/alphabeta.py``, iterative deepening with its transposition table and the Othello
evaluation's ordering, no solver: ``endgame=0``) run until it proves a result (or, for a draw,
to ``empties + 4`` plies). Prints CPU seconds of both, their ratio, and checks that they agree.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FFO = ROOT / "tests" / "data" / "ffo" / "fforum-40-59.obf"


def positions_of(text: str) -> list[int]:
    """``40-59`` or ``40,41,47`` as a list of FFO numbers."""
    numbers = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        numbers.extend(range(int(low), int(high or low) + 1))
    return numbers


def ffo(numbers: list[int], tt_bits: int, wld: bool = False) -> int:
    import envs
    from envs.othello import endgame
    from envs.othello.notation import from_obf

    game = envs.make_game("othello")
    p = game.kernel_params
    lines = FFO.read_text().splitlines()
    first, _ = from_obf(game, lines[0])
    endgame.exact(first, p, 1)  # compile (or load) before timing: a tiny table, a quick solve
    out = np.zeros(4, dtype=np.int64)
    endgame.solve(first, p, 64, 0.0, out)
    print(f"{'FFO':>4} {'empties':>7} {'seconds':>8} {'nodes':>14} {'nodes/s':>11} {'move':>5} {'score':>5}  expected")
    total, slowest, right, nodes_total = 0.0, (0.0, 0), 0, 0
    for number in numbers:
        state, scores = from_obf(game, lines[number - 40])
        top = max(scores.values())
        best = sorted(game.action_to_str(state, a) for a, v in scores.items() if v == top)
        t = time.process_time()
        if wld:
            assert endgame.solve(state, p, 64, 0.0, out) == endgame.SOLVED
            value, move, nodes = int(out[3]) if out[0] < 0 else int(out[0]), int(out[1]), int(out[2])
        else:
            value, move, nodes = endgame.exact(state, p, tt_bits)
        seconds = time.process_time() - t
        if wld:  # the sign, a move that keeps it, and a loss's exact margin
            ok = np.sign(value) == np.sign(top) and np.sign(scores.get(int(move), -99)) == np.sign(top)
            ok = ok and (top >= 0 or (value == top and scores.get(int(move)) == top))
        else:
            ok = value == top and scores.get(int(move)) == top
        right += ok
        total += seconds
        nodes_total += nodes
        slowest = max(slowest, (seconds, number))
        print(
            f"#{number:<3} {endgame.empties(state, p):>7} {seconds:>8.2f} {nodes:>14,} {nodes / max(seconds, 1e-9):>11,.0f} "
            f"{game.action_to_str(state, int(move)):>5} {value:>+5d}  {top:+d} {'/'.join(best)}  {'ok' if ok else 'WRONG'}",
            flush=True,
        )
    print(
        f"total {total:.1f} s CPU, {nodes_total:,} nodes ({nodes_total / max(total, 1e-9):,.0f}/s) over "
        f"{len(numbers)} positions, slowest #{slowest[1]} {slowest[0]:.1f} s, {right}/{len(numbers)} "
        + ("right (win/draw/loss)" if wld else "exact")
    )
    return 0 if right == len(numbers) else 1


def versus_alphabeta(empties: int, count: int, seed: int) -> int:
    import agents
    import envs
    from agents.evaluation import WIN_BOUND
    from agents.openings import random_opening
    from envs.othello import endgame

    game = envs.make_game("othello")
    p = game.kernel_params
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        s = game.initial_state()
        for a in random_opening(game, rng, 4, 8):
            s = game.apply(s, a)
        player = agents.make("alphabeta:depth=4", seed=len(positions))
        while not game.is_terminal(s) and endgame.empties(s, p) > empties:
            s = game.apply(s, player.act(game, s))
        if not game.is_terminal(s) and len(game.legal_actions(s)) > 1:
            positions.append(s)

    out = np.zeros(4, dtype=np.int64)
    endgame.solve(positions[0], p, 64, 0.0, out)  # compile both before timing
    agents.make("alphabeta:depth=1,endgame=0").act(game, positions[0])
    solver = search = 0.0
    for s in positions:
        t = time.process_time()
        assert endgame.solve(s, p, 64, 0.0, out) == endgame.SOLVED
        solver += time.process_time() - t
        # deep enough for every line to end (passes add plies); iterative deepening stops at a
        # proved win or loss, a draw searches every depth up to this
        agent = agents.make(f"alphabeta:depth={empties + 4},endgame=0", seed=0)
        t = time.process_time()
        agent.act(game, s)
        search += time.process_time() - t
        score = agent.last_stats["score"]
        proved = 1 if score > WIN_BOUND else -1 if score < -WIN_BOUND else 0
        assert proved == out[0] or proved == 0, (proved, out[0])
    print(
        f"{len(positions)} positions at {empties} empties, CPU seconds: solver {solver:.3f}, "
        f"alpha-beta to the end {search:.3f}; alpha-beta / solver = {search / solver:.1f}x"
    )
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ffo", default="40-59", help="FFO positions, e.g. 40-59 or 40,41,47")
    parser.add_argument("--tt-bits", type=int, default=22, help="transposition table of 2**bits positions")
    parser.add_argument("--wld", action="store_true", help="win/draw/loss only, by the solve hook")
    parser.add_argument("--empties", type=int, help="instead: random positions at this many empties, vs alpha-beta")
    parser.add_argument("--positions", type=int, default=12, help="with --empties: how many")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.empties is not None:
        return versus_alphabeta(args.empties, args.positions, args.seed)
    numbers = positions_of(args.ffo)
    if not numbers or min(numbers) < 40 or max(numbers) > 59:
        parser.error(f"--ffo {args.ffo}: positions 40 to 59")
    if not 1 <= args.tt_bits <= 28:
        parser.error(f"--tt-bits {args.tt_bits}: 1 to 28")
    return ffo(numbers, args.tt_bits, args.wld)


if __name__ == "__main__":
    sys.exit(main())
