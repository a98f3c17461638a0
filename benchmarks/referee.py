"""The referee's own cost: a round robin of cheap agents through ``tournaments.round_robin`` against
the same games played by a plain loop of ``play_game`` in one process, in the same run.

    python benchmarks/referee.py                       # 8, 32 and 128 agents, Gomoku 7x7, 2 workers
    python benchmarks/referee.py --agents 8 32 --game othello -p size=6

The agents are random and greedy, alternately (``random:seed=0``, ``greedy:seed=1``, ...), so a
game costs little and what the referee adds shows: pairing in the compiled rules, building two
fresh agents per game, the worker processes and their pipes, the game records, the result. The
plain loop plays exactly the referee's games (its pairings, in order, each with the game and
agent seeds the referee gave it: checked move for move) and does nothing else. Three timings per
field size, wall clock, taken in turn ``--repeats`` times and the fastest of each kept (on a
shared machine other jobs slow some runs; the fastest is the one least disturbed):

  plain     the loop of ``play_game``, one process;
  inline    ``round_robin(..., workers=0)``: the referee in this process, no workers;
  workers   ``round_robin(..., workers=W)``: the referee with W worker processes.

A round robin of N agents with two games per pairing plays N(N - 1) games, so the fields grow the
games quadratically; the cost per game says whether the referee's grows faster than the games.
Besides wall-clock rates (games/s, and each against the plain loop's), the CPU time per game of
every process involved (this one, and the worker processes, counted once they have exited) is
what a shared machine cannot blur: the referee's cost per game is its CPU per game less the plain
loop's, on one core (inline) and summed over the workers and the driver (workers).
"""

import argparse
import ast
import os
import resource
import time


def cpu() -> float:
    """CPU seconds of this process and of its children that have exited (the workers)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def plain_loop(result, specs, game, seed):
    """Play ``result``'s games again without the referee; return (seconds, CPU seconds, identical
    moves?)."""
    import agents
    import tournaments
    from tournaments.referee.runner import _seeds
    from tournaments.referee.systems import Pairing

    jobs = []
    for g in result.games:  # the pairings and seeds, prepared before the clock starts
        p = Pairing(g["index"], g["round"], g["match"], g["game"], g["black_id"], g["white_id"])
        game_seed, (black_seed, white_seed) = _seeds(seed, p)
        jobs.append((specs[p.black], black_seed, specs[p.white], white_seed, game_seed))
    moves = []
    start, used = time.perf_counter(), cpu()
    for black, black_seed, white, white_seed, game_seed in jobs:
        players = [agents.make(black, seed=black_seed), agents.make(white, seed=white_seed)]
        moves.append(tournaments.play_game(game, players, seed=game_seed).moves)
    seconds, used = time.perf_counter() - start, cpu() - used
    return seconds, used, [list(m) for m in moves] == [g["moves"] for g in result.games]


def keep(best, kind, wall, used):
    """The fastest wall time and the least CPU time seen for ``kind``."""
    best[kind] = (min(best[kind][0], wall), min(best[kind][1], used))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, nargs="+", default=[8, 32, 128], help="field sizes")
    parser.add_argument("--game", default="gomoku")
    parser.add_argument(
        "-p", "--param", action="append", metavar="KEY=VALUE", help="a game parameter (default for gomoku: size=7)"
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3, help="timings of each kind; the fastest is kept")
    args = parser.parse_args(argv)

    import envs
    import tournaments

    items = args.param if args.param is not None else (["size=7"] if args.game == "gomoku" else [])
    params = {k: ast.literal_eval(v) for k, v in (item.split("=", 1) for item in items)}
    game = envs.make_game(args.game, **params)
    common = {"game": args.game, "game_params": params, "seed": args.seed, "progress": False}
    tournaments.round_robin(["random", "greedy"], workers=0, **common)  # numba's cache, untimed
    print(
        f"round robin of random and greedy agents on {args.game} {params}, two games per pairing; "
        f"{args.workers} workers; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    )
    w = args.workers
    print(
        f"{'agents':>6} {'games':>6} | wall games/s: {'plain':>6} {'inline':>6} {f'{w} workers':>9} | "
        f"{'inline/plain':>12} {'workers/plain':>13} | CPU us/game: {'plain':>5} {'inline':>6} {'workers':>7} | "
        f"referee us/game: {'inline':>6} {'workers':>7} | same games"
    )
    for n in args.agents:
        specs = [f"{'random' if i % 2 == 0 else 'greedy'}:seed={i}" for i in range(n)]
        best = {k: (float("inf"), float("inf")) for k in ("plain", "inline", "workers")}  # (wall, CPU)
        same = True
        for _ in range(args.repeats):
            start, used = time.perf_counter(), cpu()
            inline = tournaments.round_robin(specs, workers=0, **common)
            keep(best, "inline", time.perf_counter() - start, cpu() - used)
            wall, used, identical = plain_loop(inline, specs, game, args.seed)
            keep(best, "plain", wall, used)
            start, used = time.perf_counter(), cpu()
            pooled = tournaments.round_robin(specs, workers=w, **common)
            keep(best, "workers", time.perf_counter() - start, cpu() - used)
            same = same and identical and [g["moves"] for g in pooled.games] == [g["moves"] for g in inline.games]
        games = len(inline.games)
        rate = {k: games / v[0] for k, v in best.items()}
        per = {k: 1e6 * v[1] / games for k, v in best.items()}
        print(
            f"{n:>6} {games:>6} | {'':>13} {rate['plain']:>6.0f} {rate['inline']:>6.0f} {rate['workers']:>9.0f} | "
            f"{rate['inline'] / rate['plain']:>11.2f}x {rate['workers'] / rate['plain']:>12.2f}x | "
            f"{'':>11} {per['plain']:>5.0f} {per['inline']:>6.0f} {per['workers']:>7.0f} | "
            f"{'':>15} {per['inline'] - per['plain']:>+6.0f} {per['workers'] - per['plain']:>+7.0f} | {same}"
        )


if __name__ == "__main__":
    main()
