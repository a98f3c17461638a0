"""Reproduce the championship study (STUDY.md §1) and write its tables and plot.

    python examples/study.py [outdir] [--quick]

The full grid (Np 8/16/32/64 x A 0.5/0.65/0.75/0.85/1 x every system; 1,000,000 championships per
cell for Np = 8 and 100,000 otherwise) runs in compiled code on all cores; ``--quick`` runs 2,000
per cell to try things out. Same as ``arbiter study``.
"""

import sys

from tournaments.study import write_study

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = write_study(args[0] if args else "study_out", championships=2000 if "--quick" in sys.argv else None)
    print(f"grid done in {out['seconds']:.0f} s ({out['cpu_seconds']:.0f} s CPU): " + ", ".join(out["files"]))
