"""``arbiter study``: the championship study's simulations, tables and plots."""

from __future__ import annotations

import envs

from ..referee.outputs import check_directory
from ..referee.simulation.distributed import RayStudyExecutor
from ..studies.championship import read_csv, write_study
from ..studies.championship.plots import _pyplot
from ._common import check_count, check_seed


def add(sub):
    p = sub.add_parser(
        "study",
        help="simulate the championship study: its grid, other player models, "
        "ratings-based placing, equal budgets; tables and plots",
    )
    p.add_argument("--out", default="study_out", help="output directory of the tables (default %(default)s)")
    p.add_argument(
        "--parts",
        nargs="+",
        default=["grid"],
        choices=["grid", "models", "placing", "budget"],
        help="grid: every system x Np x A; models: draws and a first-move advantage against the "
        "study's model; placing: points against Bradley-Terry ratings; budget: accuracy "
        "against games for every system parameter (default %(default)s)",
    )
    p.add_argument(
        "--championships",
        type=int,
        help="per cell (default: the study's 1,000,000 for Np=8, 100,000 otherwise; 20,000 for placing and budget)",
    )
    p.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[8, 16, 32, 64],
        help="numbers of players of the grid (default %(default)s)",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument("--draw", type=float, default=0.0, help="grid: probability of a drawn game (default 0)")
    p.add_argument(
        "--first-move-advantage",
        type=float,
        default=0.0,
        help="grid: added to the first mover's win probability (default 0)",
    )
    p.add_argument(
        "--placing",
        choices=["points", "ratings"],
        default="points",
        help="grid: places by the system's points or by a Bradley-Terry fit (default %(default)s)",
    )
    p.add_argument("--plot", metavar="DIR", help="write the plots, PNG and SVG, into DIR (the plot extra)")
    p.add_argument(
        "--from-csv", metavar="FILE", help="grid: take the cells from a grid.csv written earlier instead of simulating"
    )
    p.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="where the chunks run: this machine's cores, or Ray tasks (the distributed extra)",
    )
    p.add_argument(
        "--address", help="with --executor ray: a running Ray cluster ('auto', 'host:6379'); default: start a local Ray"
    )


def run(args) -> int:
    check_seed(args.seed)
    check_count("--championships", args.championships, 2)
    for n in args.sizes:
        check_count("--sizes", n, 3)
    if args.address and args.executor != "ray":
        raise envs.ParameterError(f"--address {args.address}: needs --executor ray")
    check_directory(args.out, "--out")
    if args.plot:
        check_directory(args.plot, "--plot")
    rows = None
    if args.from_csv:
        try:
            rows = read_csv(args.from_csv)
        except (OSError, UnicodeDecodeError) as e:
            raise envs.ParameterError(
                f"--from-csv {args.from_csv}: cannot read it ({getattr(e, 'strerror', None) or e})"
            ) from None
        except (KeyError, ValueError) as e:
            raise envs.ParameterError(f"--from-csv {args.from_csv}: not a grid.csv of arbiter study ({e})") from None
    try:
        if args.plot:  # the plot extra's install hint now, not after the simulations
            _pyplot()
    except ImportError as e:  # an optional extra (matplotlib for --plot)
        raise envs.ParameterError(f"--plot {args.plot}: {e}") from None
    executor = None
    if args.executor == "ray":
        executor = RayStudyExecutor(address=args.address)  # the distributed extra's hint: a ParameterError
    try:
        out = write_study(
            args.out,
            sizes=tuple(args.sizes),
            championships=args.championships,
            seed=args.seed,
            executor=executor,
            plot_dir=args.plot,
            rows=rows,
            parts=tuple(args.parts),
            draw=args.draw,
            first_move_advantage=args.first_move_advantage,
            placing=args.placing,
        )
    finally:
        if executor is not None:
            executor.close()
    print(
        f"done in {out['seconds']:.0f} s ({out['cpu_seconds']:.0f} s CPU in this process): " + ", ".join(out["files"])
    )
    return 0
