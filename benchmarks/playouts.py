"""Random-playout throughput of the rule engines against OpenSpiel, measured in the same run.

For each game: (a) ``game.random_playouts`` (the whole game loop compiled), (b) a plain Python loop
over the Game API (``legal_actions`` + ``apply``, each validating the array it is given), (c) the
same loop over an ``envs.State`` (``state.legal_actions()`` + ``apply_action``, in place), and
OpenSpiel's Python-driven loop written the same way as (c) on the same rules. Rates are per CPU-second of this
process (``time.process_time``), so a busy second core does not distort them. Also the start-up
time of a fresh process up to the first ``legal_actions`` of all five games, with an empty numba
cache (cold) and with the cache filled (warm).

    pip install -e ".[bench]"
    python benchmarks/playouts.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

import envs

CASES = [
    # (label, our game, our params, OpenSpiel game, OpenSpiel params)
    ("Othello 8x8", "othello", {"rules": "openspiel"}, "othello", {}),
    ("LOA 8x8", "loa", {"rules": "openspiel"}, "lines_of_action", {}),
    ("Gomoku 15x15", "gomoku", {"size": 15, "rules": "openspiel"}, "gomoku", {"size": 15}),
    ("Go 9x9", "go", {"size": 9, "komi": 7.5, "rules": "openspiel"}, "go", {"board_size": 9, "komi": 7.5}),
    ("Calculation", "calculation", {}, None, None),
]


def rate(run_batch, seconds):
    """Call ``run_batch() -> (games, moves)`` until ``seconds`` of CPU time; return per-second rates."""
    games = moves = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        g, m = run_batch()
        games += g
        moves += m
    elapsed = time.process_time() - start
    return games / elapsed, moves / elapsed


def compiled(game, seconds):
    game.random_playouts(10, seed=0)  # compile / load from cache outside the timing
    seed = iter(range(10**9))

    def batch():
        out = game.random_playouts(200, seed=next(seed))
        return 200, int(out["lengths"].sum())

    return rate(batch, seconds)


def python_loop(game, seconds):
    rng = random.Random(0)  # the same generator and call pattern as the OpenSpiel loop

    def batch():
        state = game.initial_state(seed=rng.randrange(2**31))
        moves = 0
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            state = game.apply(state, int(legal[rng.randrange(len(legal))]))
            moves += 1
        return 1, moves

    batch()
    return rate(batch, seconds)


def state_loop(game, seconds):
    """(c): OpenSpiel's loop, word for word, over an ``envs.State``."""
    rng = random.Random(0)

    def batch():
        state = game.new_initial_state(seed=rng.randrange(2**31))
        moves = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.randrange(len(legal))]))
            moves += 1
        return 1, moves

    batch()
    return rate(batch, seconds)


def openspiel_loop(name, params, seconds):
    import pyspiel

    game = pyspiel.load_game(name, params)
    rng = random.Random(0)

    def batch():
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            moves += 1
        return 1, moves

    return rate(batch, seconds)


STARTUP = (
    "import time; t = time.perf_counter(); import envs\n"
    "for name in envs.GAMES:\n"
    "    g = envs.make_game(name); g.legal_actions(g.initial_state(seed=0))\n"
    "print(time.perf_counter() - t)"
)


def startup_seconds(cache_dir):
    env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", STARTUP], env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per measurement")
    parser.add_argument("--only", nargs="+", metavar="GAME", help="these games only (envs names, e.g. go)")
    parser.add_argument("--no-startup", action="store_true", help="skip the start-up timing")
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        sys.exit("OpenSpiel is the peer of this benchmark: pip install -e '.[bench]'")

    print(
        "| game | (a) random_playouts games/s | moves/s | (b) Game-API loop moves/s | (c) State loop moves/s"
        " | OpenSpiel loop games/s | moves/s | (a)/OpenSpiel games | (b)/OpenSpiel moves | (c)/OpenSpiel moves |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for label, name, params, os_name, os_params in CASES:
        if args.only and name not in args.only:
            continue
        game = envs.make_game(name, **params)
        ga, ma = compiled(game, args.seconds)
        _, mb = python_loop(game, args.seconds)
        _, mc = state_loop(game, args.seconds)
        if os_name is None:
            print(f"| {label} | {ga:,.0f} | {ma:,.0f} | {mb:,.0f} | {mc:,.0f} | – | – | – | – | – |", flush=True)
            continue
        go, mo = openspiel_loop(os_name, os_params, args.seconds)
        print(
            f"| {label} | {ga:,.0f} | {ma:,.0f} | {mb:,.0f} | {mc:,.0f} | {go:,.0f} | {mo:,.0f} | "
            f"{ga / go:.1f}x | {mb / mo:.2f}x | {mc / mo:.2f}x |",
            flush=True,
        )

    if args.no_startup:
        return
    with tempfile.TemporaryDirectory() as cache:
        cold = startup_seconds(cache)
        warm = min(startup_seconds(cache) for _ in range(3))
    print(f"\nfresh process to first legal_actions of all five games: cold {cold:.1f} s, warm {warm:.2f} s")


if __name__ == "__main__":
    main()
