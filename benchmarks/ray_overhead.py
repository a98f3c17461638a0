"""Games per second on Ray against the process executor, on the same jobs in the same run.

    python benchmarks/ray_overhead.py --agents 4 --simulations 2000 --game gomoku -p size=9

A round robin of MCTS agents (``mcts:simulations=N``, seeds differ by agent) is played twice
with the same seed: on a local Ray (``RayExecutor``, one actor per CPU) and on the process
executor (one worker per CPU). Both start cold in the sense of a fresh executor but share numba's
disk cache, which a first untimed warm-up game fills. Prints wall seconds, games per second and
Ray's overhead; the games themselves are identical (checked).
"""

import argparse
import ast
import os
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=4, help="MCTS agents in the round robin")
    parser.add_argument("--simulations", type=int, default=2000)
    parser.add_argument("--game", default="gomoku")
    parser.add_argument("-p", "--param", action="append", default=["size=9"], metavar="KEY=VALUE")
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)

    import ray

    import tournaments
    from tournaments.referee.executor import ProcessExecutor
    from tournaments.referee.ray_executor import RayExecutor

    params = {k: ast.literal_eval(v) for k, v in (item.split("=", 1) for item in args.param)}
    agents = [f"mcts:simulations={args.simulations},seed={i}" for i in range(args.agents)]
    common = {"game": args.game, "game_params": params, "seed": 1, "progress": False}
    tournaments.round_robin(agents[:2], workers=0, **common)  # fill numba's cache, untimed
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    timings = {}
    results = {}
    for label, executor in (("process", ProcessExecutor(args.workers)), ("ray", RayExecutor(workers=args.workers))):
        start = time.perf_counter()
        results[label] = tournaments.round_robin(agents, executor=executor, **common)
        timings[label] = time.perf_counter() - start
    ray.shutdown()
    strip = [
        sorted(tuple(sorted((k, str(v)) for k, v in g.items() if k != "seconds")) for g in results[x].games)
        for x in ("process", "ray")
    ]
    n = len(results["ray"].games)
    print(
        f"{n} games of {args.game} {params}, {args.agents} agents mcts:simulations={args.simulations}, "
        f"{args.workers} workers; same games on both: {strip[0] == strip[1]}"
    )
    for label in ("process", "ray"):
        print(f"  {label:8s} {timings[label]:7.1f} s  {n / timings[label]:6.2f} games/s")
    print(f"  Ray overhead: {100 * (timings['ray'] / timings['process'] - 1):+.1f}%")


if __name__ == "__main__":
    main()
