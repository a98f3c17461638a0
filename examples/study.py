"""Reproduce the championship study and write its tables and plots (``docs/study.md``).

    python examples/study.py [outdir] [--parts grid models placing budget] [--plot DIR] [--quick]
                             [--executor ray [--address ADDR]]

grid: the full grid (Np 8/16/32/64 x A 0.5/0.65/0.75/0.85/1 x every system; 1,000,000
championships per cell for Np = 8 and 100,000 otherwise); models: every system at A = 0.75 with
draws 0.3, a first-move advantage of 0.05 and both (100,000 per cell); placing: points against a
Bradley-Terry fit (20,000 per cell); budget: accuracy against games for every system parameter
(20,000 per cell). ``--quick`` runs 2,000 per cell to try things out. Same as ``arbiter study``.
"""

import argparse

from tournaments.studies.championship import PARTS, write_study

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", nargs="?", default="study_out", help="where the tables go")
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS, help="what to run (default: all)")
    parser.add_argument("--plot", metavar="DIR", help="write the plots (PNG and SVG) into DIR")
    parser.add_argument("--quick", action="store_true", help="2,000 championships per cell, to try things out")
    parser.add_argument("--executor", choices=["local", "ray"], default="local", help="where the chunks run")
    parser.add_argument("--address", help="with --executor ray: a running Ray cluster, e.g. auto")
    args = parser.parse_args()
    executor = None
    if args.executor == "ray":
        from tournaments.referee.simulation.distributed import RayStudyExecutor

        executor = RayStudyExecutor(address=args.address)
    try:
        out = write_study(
            args.outdir,
            championships=2000 if args.quick else None,
            parts=tuple(args.parts),
            plot_dir=args.plot,
            executor=executor,
        )
    finally:
        if executor is not None:
            executor.close()
    print(
        f"done in {out['seconds']:.0f} s ({out['cpu_seconds']:.0f} s CPU in this process): " + ", ".join(out["files"])
    )
