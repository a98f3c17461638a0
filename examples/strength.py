"""The strength table: how strong each classical agent is, measured by playing.

    nice -n 10 python examples/strength.py --out docs/strength.md   # the whole table, the docs' page
    python examples/strength.py --games 10 --engine-games 4 --only Othello   # a quick look: runs/strength.md

Rows are (agent vs opponent, game): every agent (random, greedy, minimax, alpha-beta, MCTS at the
budgets of ``AGENTS``) against random and against greedy on LOA, Othello 8x8, Gomoku 15x15 and
Go 9x9, then MCTS and alpha-beta against GNU Go (levels 1 and 10, Go 7x7 and 9x9) and GRhino
(levels 1-3, or those of ``--grhino-levels``, up to 5; Othello 8x8). Each row plays N games in colour pairs: games 2k and 2k+1 start from
the same opening of 2-4 uniformly random plies (``--opening-plies``; seeded by the row and k),
the agent Black in the first and White in the second, so deterministic pairs of agents do not
replay one game and neither colour is favoured. It reports the agent's mean outcome (win 1, draw 0.5, loss 0) with its
standard error, W/D/L, median seconds and mean plies per game, and how many of the games were distinct.

Games are played by the tournament machinery (``tournaments.play_game``, run by ``play_job`` in the
worker processes of ``tournaments.ProcessExecutor``): one executor per game and board size plays the
jobs of all its rows, so both workers stay busy across row boundaries and each worker loads the
compiled kernels once. A game's seed and its two agent seeds come from ``--seed``, the row and
the game number only, so a row replays identically whatever else is run or how many workers
play it. ``move_time`` is a generous safety net (a hung engine forfeits instead of stalling the
run); it also makes every worker warm each agent up with one untimed move, so just-in-time
compilation is not charged to the first game's seconds. A warm-up that outlasts ``--setup-time``
(600 s by default: a cold compile of Go's MCTS takes minutes on a busy machine) forfeits the
agent's games.

Engine resignations (GNU Go resigns lost games) are counted as ordinary losses of the engine;
any other forfeit is counted against the forfeiting side and listed under the table. A row whose
engine cannot be started is kept in the table with the reason instead of a result. The markdown
is rewritten after every game group, so an interrupted run leaves the rows it finished, and
``--resume`` with the same ``--records`` file and options reads back every finished game and
plays only the missing ones (a game's seeds do not depend on what else is played, so a resumed
table equals an uninterrupted one game for game).

The table itself is ``tournaments.studies.strength``; this is its command line.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.referee.records import RecordError  # noqa: E402
from tournaments.studies import strength  # noqa: E402
from tournaments.studies.strength import AGENTS, ENGINE_MOVE_TIME, GRHINO_LEVELS, SETUP_TIME  # noqa: E402

# -- command line ----------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Play the strength table and write it as markdown.")
    parser.add_argument("--games", type=int, default=100, help="games per row against random/greedy (default 100)")
    parser.add_argument(
        "--search-games",
        type=int,
        default=None,
        help="games per row for alphabeta/mcts against random/greedy on LOA and Go (default: --games)",
    )
    parser.add_argument(
        "--engine-games", type=int, default=None, help="games per row against GNU Go / GRhino (default: --games)"
    )
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every game and agent (default 0)")
    parser.add_argument(
        "--opening-plies",
        type=int,
        nargs=2,
        default=(2, 4),
        metavar=("MIN", "MAX"),
        help="random plies before the agents take over, per colour pair (default 2 4; 0 0: none)",
    )
    parser.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="LABEL=SPEC",
        help="play agent LABEL (one of " + ", ".join(AGENTS) + ") with another "
        "agents.make spec, e.g. mcts=mcts:seconds=2 (repeatable)",
    )
    parser.add_argument(
        "--only",
        nargs="+",
        default=None,
        metavar="TEXT",
        help="play only rows whose 'agent vs opponent on game' contains one of these",
    )
    parser.add_argument(
        "--grhino-levels",
        type=int,
        nargs="+",
        default=list(GRHINO_LEVELS),
        metavar="LEVEL",
        help="GRhino levels of the Othello engine rows, 1-5 (default 1 2 3; level 5 takes minutes per game)",
    )
    parser.add_argument(
        "--go-sizes",
        type=int,
        nargs="+",
        default=list(strength.GO_SIZES),
        metavar="N",
        help="Go boards of the GNU Go rows: 7, 9, 13, 19 (default 7 9; a 19x19 game at 2 s a move takes about 8 minutes)",
    )
    parser.add_argument(
        "--engine-move-time",
        type=float,
        default=ENGINE_MOVE_TIME,
        metavar="SECONDS",
        help="seconds an engine may think on one move before it forfeits (default "
        f"{ENGINE_MOVE_TIME:g}; GRhino level 5 needs several minutes on a busy machine)",
    )
    parser.add_argument(
        "--setup-time",
        type=float,
        default=SETUP_TIME,
        metavar="SECONDS",
        help="seconds an agent may take to build and warm up (compile) before it "
        f"forfeits its games (default {SETUP_TIME:g})",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ROOT / "runs" / "strength.md",
        help="markdown to write (default runs/strength.md; the docs' table: --out docs/strength.md)",
    )
    parser.add_argument("--records", type=Path, default=None, help="also write every game record (JSON lines)")
    parser.add_argument(
        "--resume", action="store_true", help="read the games already in --records and play only the missing ones"
    )
    args = parser.parse_args(argv)
    search_games = args.games if args.search_games is None else args.search_games
    engine_games = args.games if args.engine_games is None else args.engine_games
    if min(args.games, search_games, engine_games, args.workers) < 1:
        parser.error("--games, --search-games, --engine-games and --workers must be positive")
    if any(not 1 <= lv <= 5 for lv in args.grhino_levels):
        parser.error(f"--grhino-levels {args.grhino_levels}: GRhino's levels are 1 to 5")
    if args.engine_move_time <= 0:
        parser.error("--engine-move-time must be positive")
    if args.setup_time <= 0:
        parser.error("--setup-time must be positive")
    if args.resume and args.records is None:
        parser.error("--resume needs the --records file of the interrupted run")

    agents = dict(AGENTS)
    for item in args.agent:
        label, _, spec = item.partition("=")
        if label not in AGENTS or not spec:
            parser.error(f"--agent {item!r}: expected LABEL=SPEC with LABEL one of {', '.join(AGENTS)}")
        agents[label] = spec
    try:
        rows = strength.table_rows(
            args.games,
            search_games,
            engine_games,
            tuple(dict.fromkeys(args.grhino_levels)),
            tuple(dict.fromkeys(args.go_sizes)),
        )
    except ValueError as exc:
        parser.error(f"--go-sizes {' '.join(map(str, args.go_sizes))}: {exc}")
    if args.only:
        rows = [r for r in rows if any(t.lower() in r.key.lower() for t in args.only)]
    command = "python examples/strength.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)  # runs/ on a fresh clone
    try:
        meta = strength.run(
            rows,
            args.out,
            records=args.records,
            resume_records=args.resume,
            seed=args.seed,
            workers=args.workers,
            plies=tuple(args.opening_plies),
            setup_time=args.setup_time,
            agents=agents,
            engine_move_time=args.engine_move_time,
            command=command,
        )
    except RecordError as exc:
        raise SystemExit(str(exc)) from None
    print(f"wrote {args.out} in {meta['wall'] / 60:.1f} minutes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
