"""Random-playout speed of the Othello and Gomoku kernels against plain C, measured in the same run.

The C yardsticks are ``benchmarks/c_reference/othello.c`` (8x8, one 64-bit word per colour,
Kogge-Stone move generation) and ``gomoku.c`` (15x15 freestyle, a list of the empty points and a
line count around the last stone). Both play the same policy as ``game.random_playouts``: every
ply uniform over the legal moves (SplitMix64, Lemire's multiply-shift), Othello with passes
(counted as plies on both sides), Gomoku until five in a row or a full board. This script
compiles them with ``cc -O3 -march=native`` (``$CC`` if set) in a temporary directory; without a
C compiler it says so and prints our figures alone.

Rates are moves (plies) per CPU-second of the measuring process (``time.process_time`` here, the
C program's ``CLOCK_PROCESS_CPUTIME_ID``), so another busy core distorts them little. Ours and C
alternate for ``--rounds`` rounds of ``--seconds`` each and the best round of each counts, so a
burst of load on a shared machine does not decide a ratio. Then Othello at every size: the cost
of a move against 8x8 in the same run.

    python benchmarks/kernels_vs_c.py [--seconds 2] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tree this script sits in

import envs  # noqa: E402

C_DIR = Path(__file__).resolve().parent / "c_reference"
CASES = [
    # (label, C program, our game, our params, goal: our rate / C's at least)
    ("Othello 8x8", "othello", "othello", {"size": 8}, 0.5),
    ("Gomoku 15x15", "gomoku", "gomoku", {"size": 15}, 0.3),
]
OTHELLO_SIZES = (6, 8, 10, 12, 14, 16)
SIZE_GOAL = 2.0  # Othello 16x16: a move costs at most this many times an 8x8 move


def compile_c(workdir) -> dict | str:
    """{program: path of its binary}, or the reason there is none."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        return "no C compiler found (set CC or install cc)"
    binaries = {}
    for name in ("othello", "gomoku"):
        out = Path(workdir) / name
        cmd = [cc, "-O3", "-march=native", str(C_DIR / f"{name}.c"), "-o", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            return f"{' '.join(cmd)} failed:\n{done.stderr.strip()}"
        binaries[name] = out
    return binaries


def c_rate(binary, seconds, seed) -> float:
    """Moves per CPU-second of the C program (it times itself)."""
    out = subprocess.run([str(binary), str(seconds), str(seed)], capture_output=True, text=True, check=True)
    games, plies, cpu, _ = out.stdout.split()
    return int(plies) / float(cpu)


def our_rate(game, seconds, seed) -> float:
    """Moves per CPU-second of ``game.random_playouts`` (whole games in compiled code)."""
    moves, batch = 0, 200
    start = time.process_time()
    while time.process_time() - start < seconds:
        out = game.random_playouts(batch, seed=seed)
        seed += 1
        moves += int(out["lengths"].sum())
    return moves / (time.process_time() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best of each side counts")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as workdir:
        binaries = compile_c(workdir)
        if isinstance(binaries, str):
            print(f"C reference skipped: {binaries}\n")
            binaries = {}
        print("| game | Arbiter moves/s | C moves/s | Arbiter / C | goal |")
        print("|---|---:|---:|---:|---|")
        for label, program, name, params, goal in CASES:
            game = envs.make_game(name, **params)
            game.random_playouts(10, seed=0)  # compile or load from the cache outside the timing
            ours, theirs = 0.0, 0.0
            for r in range(args.rounds):
                ours = max(ours, our_rate(game, args.seconds, seed=1000 * r))
                if program in binaries:
                    theirs = max(theirs, c_rate(binaries[program], args.seconds, seed=r + 1))
            if theirs:
                ratio = ours / theirs
                verdict = f">= {goal}x: {'met' if ratio >= goal else 'MISSED'}"
                print(f"| {label} | {ours:,.0f} | {theirs:,.0f} | {ratio:.2f}x | {verdict} |", flush=True)
            else:
                print(f"| {label} | {ours:,.0f} | – | – | – |", flush=True)

    print("\n| Othello size | moves/s | ns per move | cost of a move / 8x8 |")
    print("|---|---:|---:|---:|")
    games = {n: envs.make_game("othello", size=n) for n in OTHELLO_SIZES}
    for game in games.values():
        game.random_playouts(2, seed=0)
    best = {n: 0.0 for n in OTHELLO_SIZES}
    for r in range(args.rounds):
        for n, game in games.items():
            best[n] = max(best[n], our_rate(game, args.seconds / 2, seed=1000 * r))
    for n in OTHELLO_SIZES:
        cost = best[8] / best[n]
        note = f" (goal <= {SIZE_GOAL:g}x: {'met' if cost <= SIZE_GOAL else 'MISSED'})" if n == 16 else ""
        print(f"| {n}x{n} | {best[n]:,.0f} | {1e9 / best[n]:.1f} | {cost:.2f}x{note} |", flush=True)


if __name__ == "__main__":
    main()
