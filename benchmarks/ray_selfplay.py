"""AlphaZero self-play positions per second on Ray actors against self-play in this process.

    python benchmarks/ray_selfplay.py --game othello --size 6 --games 16 --rounds 2 --actors 2

The same net (the default architecture, untrained, fixed seed) plays ``--rounds`` rounds of
``--games`` self-play games (the training defaults: 64 / 16 simulations, a quarter of the moves
searched in full): first in this process (``train.Trainer``'s local path, one torch thread), then
on ``--actors`` Ray actors (``distributed.RaySelfPlay`` on a local Ray, the weights broadcast once
per round). Actor start-up and warm-up are reported apart and not counted in the rate: they
happen once per training run. Prints wall seconds, positions per second and the ratio, plus CPU seconds
(this process's, and the actors' own for their self-play): on a shared machine the wall clock
alone says little.
"""

import argparse
import os
import time


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="othello")
    parser.add_argument("--size", type=int, default=6)
    parser.add_argument("--games", type=int, default=16, help="self-play games per round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--actors", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)

    import numpy as np
    import ray
    import torch

    from agents.learned import distributed, train

    torch.set_num_threads(1)
    config = train.Config(game=args.game, sizes=[args.size], games=args.games, seed=0)
    trainer = train.Trainer(config)  # local self-play; its net is the one both sides play with
    trainer._self_play(np.random.default_rng(99))  # numba's cache warm in this process, untimed
    rates = {}
    start, cpu = time.perf_counter(), time.process_time()
    positions = sum(len(s.value) for r in range(args.rounds) for s in trainer._self_play(np.random.default_rng([0, r])))
    rates["local"] = (positions, time.perf_counter() - start, time.process_time() - cpu)

    ray.init(num_cpus=args.actors, include_dashboard=False, log_to_driver=False)
    executor = distributed.RaySelfPlay(actors=args.actors)
    up = time.perf_counter()
    executor.start(config, trainer.net.config)
    up = time.perf_counter() - up
    start, cpu = time.perf_counter(), time.process_time()
    positions, actor_cpu = 0, 0.0
    for r in range(args.rounds):
        positions += sum(len(s.value) for s in executor.play(trainer.net, r, 0, args.games))
        actor_cpu += sum(report["cpu_seconds"] for report in executor.reports)
    rates["ray"] = (positions, time.perf_counter() - start, time.process_time() - cpu)
    executor.close()
    ray.shutdown()

    print(
        f"{args.rounds} rounds of {args.games} self-play games of {args.game} {args.size}x{args.size}; "
        f"Ray: {args.actors} actors, started and warmed in {up:.1f} s (not counted)"
    )
    for label, (n, wall, cpu) in rates.items():
        print(
            f"  {label:6s} {n:6d} positions {wall:7.1f} s wall {n / wall:8.1f} positions/s "
            f"(this process: {cpu:.1f} CPU s)"
        )
    print(
        f"  actors' self-play CPU seconds: {actor_cpu:.1f} ({rates['ray'][0] / actor_cpu:.1f} positions per CPU s; "
        f"local: {rates['local'][0] / rates['local'][2]:.1f})"
    )
    ratio = (rates["ray"][0] / rates["ray"][1]) / (rates["local"][0] / rates["local"][1])
    print(f"  Ray / local: {ratio:.2f}x positions per second")


if __name__ == "__main__":
    main()
