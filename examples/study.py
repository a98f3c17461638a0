"""Reproduce the championship study and write its tables and plot (``docs/study.md``).

    python examples/study.py [outdir] [--quick]

The full grid (Np 8/16/32/64 x A 0.5/0.65/0.75/0.85/1 x every system; 1,000,000 championships per
cell for Np = 8 and 100,000 otherwise) runs in compiled code on all cores; ``--quick`` runs 2,000
per cell to try things out. Same as ``arbiter study``.
"""

import argparse

from tournaments.study import write_study

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", nargs="?", default="study_out", help="where the tables and plot go")
    parser.add_argument("--quick", action="store_true", help="2,000 championships per cell, to try things out")
    args = parser.parse_args()
    out = write_study(args.outdir, championships=2000 if args.quick else None)
    print(f"grid done in {out['seconds']:.0f} s ({out['cpu_seconds']:.0f} s CPU): " + ", ".join(out["files"]))
