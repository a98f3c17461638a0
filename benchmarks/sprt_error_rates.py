"""The SPRT's error rates measured by simulation: how often it accepts H1 when H0 holds, and fails
to accept H1 when H1 holds, for the exact pentanomial GSPRT (``method="mle"``, the default) and its
normal approximation (``method="normal"``).

Each row runs ``--runs`` seeded sequential matches at the true Elo ``elo0`` and as many at ``elo1``
(``tournaments.sprt.error_rates``: pairs drawn from ``pentanomial_probabilities`` with two
independent games per pair at the given draw rate, vectorised over the runs; no match is cut off
before ``--max-pairs``). Type I is the fraction accepting H1 at ``elo0``; type II the fraction not
accepting H1 at ``elo1``. With ``--runs`` N, a rate's binomial standard error is about
sqrt(r (1 - r) / N): 0.005 at 5% and N = 2000. The mean number of pairs played is the price.

    python benchmarks/sprt_error_rates.py                 # the table of docs/tournaments.md (minutes)
    python benchmarks/sprt_error_rates.py --runs 500 --seed 1
"""

import argparse
import time

from tournaments.analysis import sprt

ROWS = [  # (elo0, elo1, alpha, beta, model, draw rate)
    (0, 10, 0.05, 0.05, "logistic", 0.3),
    (0, 50, 0.05, 0.05, "logistic", 0.1),
    (0, 50, 0.05, 0.05, "logistic", 0.6),
    (-5, 5, 0.05, 0.10, "logistic", 0.3),
    (0, 10, 0.05, 0.05, "normalized", 0.3),
]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated matches per hypothesis (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the first row (each row adds 2)")
    parser.add_argument("--max-pairs", type=int, default=100_000)
    args = parser.parse_args(argv)
    print(f"{args.runs} simulated matches per hypothesis, seed {args.seed}")
    print(
        f"{'[elo0, elo1]':>12} {'alpha':>5} {'beta':>5} {'model':>10} {'draws':>5} {'method':>6}"
        f" {'type I':>6} {'type II':>7} {'pairs@H0':>8} {'pairs@H1':>8} {'seconds':>7}"
    )
    for k, (elo0, elo1, alpha, beta, model, draws) in enumerate(ROWS):
        for method in sprt.METHODS:
            test = sprt.SPRT(elo0, elo1, alpha, beta, model=model, method=method)
            start = time.perf_counter()
            r = sprt.error_rates(
                test, draw_rate=draws, runs=args.runs, max_pairs=args.max_pairs, seed=args.seed + 2 * k
            )
            print(
                f"{f'[{elo0}, {elo1}]':>12} {alpha:>5g} {beta:>5g} {model:>10} {draws:>5g} {method:>6}"
                f" {r['type1']:>6.3f} {r['type2']:>7.3f} {r['at_elo0']['mean_pairs']:>8.0f}"
                f" {r['at_elo1']['mean_pairs']:>8.0f} {time.perf_counter() - start:>7.1f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
