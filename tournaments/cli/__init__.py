"""The ``arbiter`` command line.

    arbiter tournament --game loa --system swiss --agents random greedy "alphabeta:depth=3" \\
                       --workers 2 --journal run.db [--resume]
    arbiter tournament --game othello --system gauntlet --candidates "mcts:simulations=400" \\
                       --agents random greedy "alphabeta:depth=2" --games 20 --openings builtin
    (Ctrl-C stops it without a traceback, exit status 130, and prints the line that resumes it)
    arbiter study [--out study_out] [--parts grid models placing budget] [--plot DIR] [--executor ray]
    arbiter play --game gomoku -p size=9 --black human --white "alphabeta:depth=3"
    arbiter gtp --game go --size 9 --agent mcts:seconds=5        (delegates to agents.gtp)
    arbiter pbrain --agent mcts:seconds=5        (a Gomocup brain; delegates to agents.gomocup)
    arbiter match --game othello -a greedy -b random --games 400 --sprt 0 50 0.05 0.05
    arbiter report run.db -o report.html
    arbiter ratings a.db b.jsonl c.csv --anchor random=0   (one rating list from journals and records)

A subcommand is a pair of functions, ``_add_<name>(subparsers)`` and ``_run_<name>(args)``, listed
in ``COMMANDS``; ``gtp`` forwards its whole argument list to ``agents.gtp.main``.

Everything a command is given is checked before its first game or simulation: option values,
agents (that they parse and can play the game here, extras included) and every output path
(``tournaments.referee.outputs``), so careless input costs one line on stderr and exit status 2, never a
traceback, and never a run whose results cannot be written once it is over.
"""

from __future__ import annotations

import argparse
import re
import shlex
import signal
import sys
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import envs
from agents.human import Abandoned, HumanAgent, seat_name
from envs import render

from ..referee.executor import ExecutorError
from ..referee.journal import JournalError, JournalHoldsGames, JournalWriteError
from ..referee.matches import MatchError
from ..referee.outputs import check_directory, check_file
from ..referee.play import check_players, play_game
from ..referee.records import RecordWriteError

if TYPE_CHECKING:
    from envs.core.outcome import Outcome

    from ..referee.play import GameOutcome, Player

MAX_SEED = 2**63 - 1


def _check_seed(seed) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise envs.ParameterError(f"--seed {seed}: expected an integer from 0 to 2**63 - 1")
    return seed


def _check_positive(option, value, allow_none=True):
    """A positive number of seconds, at most a day, written in ASCII digits (``agents.clock.seconds``:
    ``float`` alone would take ``1_0``, other scripts' digits and ``1e300``), or None where the
    option is optional."""
    from agents.clock import seconds

    if value is None and allow_none:
        return None
    return seconds(value, f"{option} {value}", positive=True)


def _check_count(option, value, lo):
    if value is not None and value < lo:
        raise envs.ParameterError(f"{option} {value}: expected an integer of at least {lo}")
    return value


def _game_params(pairs) -> dict:
    """``["size=9", "komi=7.5"]`` → ``{"size": 9, "komi": 7.5}`` (values as Python literals)."""
    params = {}
    for item in pairs or []:
        key, eq, value = item.partition("=")
        if not eq:
            raise envs.ParameterError(f"-p {item}: expected key=value, e.g. -p size=9")
        params[key.strip()] = envs.core.literal(value.strip())
    return params


def _add_game(p, two_players=False):
    names = [s.name for s in envs.specs() if s.num_players == 2 or not two_players]
    p.add_argument(
        "--game",
        default="loa",
        choices=sorted(names),
        help="the game ('arbiter games' lists them with their parameters; default %(default)s)",
    )
    p.add_argument(
        "-p", "--param", action="append", metavar="KEY=VALUE", help="a game parameter, e.g. -p size=9 (repeatable)"
    )


# -- tournament ------------------------------------------------------------------------------------
def _add_tournament(sub):
    p = sub.add_parser("tournament", help="play a tournament between agents and print the standings")
    _add_game(p, two_players=True)
    p.add_argument(
        "--system",
        default="swiss",
        choices=["round_robin", "olympic", "swiss", "gauntlet", "random_order"],
        help="round_robin: everyone meets everyone, --games per pair; olympic: knock-out matches "
        "(first to --k wins, or --games); swiss: --rounds of pairings among equal scores; "
        "gauntlet: each of --candidates plays each of --agents --games games; random_order: "
        "places drawn at random, the study's baseline (default %(default)s)",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        metavar="SPEC",
        help='agent specs, e.g. random greedy "alphabeta:depth=3" (a gauntlet\'s field)',
    )
    p.add_argument(
        "--candidates",
        nargs="+",
        metavar="SPEC",
        help="gauntlet: the agents under test; each plays every agent of --agents, not each other",
    )
    _add_sprt(p, "gauntlet: stop a candidate's games once the SPRT of its pairs against the field decides")
    p.add_argument(
        "--games",
        type=int,
        help="games per encounter, even, half with each colour, each colour pair from one opening: "
        "round_robin and gauntlet (default 2); olympic: a match of N games instead of --k, "
        "extended by colour pairs while level",
    )
    p.add_argument(
        "--openings",
        metavar="FILE",
        help="opening suite: a text file (one opening a line, moves in the game's notation, "
        "# comments) or an .sgf collection; 'builtin': the suite shipped for the game and size",
    )
    p.add_argument(
        "--openings-order",
        choices=["sequential", "random"],
        default="sequential",
        help="the suite's order: as in the file, or shuffled by --seed (default %(default)s)",
    )
    p.add_argument(
        "--openings-start",
        type=int,
        default=1,
        metavar="N",
        help="the suite's opening the first colour pair plays, from 1 (default %(default)s)",
    )
    p.add_argument(
        "--opening-plies",
        type=int,
        nargs="+",
        metavar="K",
        help="seeded random openings of K plies (or K MAX: from K to MAX) instead of a suite",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes, or Ray actors with --executor ray (0: play in this process)",
    )
    p.add_argument(
        "--executor",
        choices=["process", "ray"],
        default="process",
        help="where games run: local worker processes, or Ray (needs the distributed extra)",
    )
    p.add_argument(
        "--address", help="with --executor ray: a running Ray cluster ('auto', 'host:6379'); default: start a local Ray"
    )
    p.add_argument("--journal", help="SQLite journal of finished games (needed for --resume)")
    p.add_argument("--resume", action="store_true", help="continue the tournament in --journal")
    p.add_argument(
        "--move-time",
        help="seconds per move (at most a day); slower moves forfeit the game (needs worker processes: "
        "a move played in this process, --workers 0, cannot be stopped)",
    )
    p.add_argument(
        "--tc",
        metavar="[MOVES/]BASE+INC",
        help="game clock: BASE seconds per game and INC seconds added after each move, e.g. 10+0.1 "
        "(or BASE alone), or BASE seconds for every MOVES moves, e.g. 40/60+0.5 (cutechess-cli's tc); "
        "a move that overruns it loses on time",
    )
    p.add_argument(
        "--byoyomi",
        metavar="PERIODS/SECONDS",
        help="Japanese byo-yomi after the --tc base time (Go's overtime), e.g. 5/10: five periods of "
        "10 s; a move within its period keeps it, the last one overrun loses on time",
    )
    p.add_argument(
        "--adjudicate",
        nargs="+",
        metavar="RULE",
        help="end games early (none by default): cap:plies=N[,result=draw|score], "
        "resign:movecount=K,score=S, draw:movenumber=N,movecount=K,score=S (see docs/tournaments.md)",
    )
    p.add_argument(
        "--adjudicator",
        metavar="SPEC",
        help="the agent whose evaluation the resign and draw rules read (default alphabeta:depth=2)",
    )
    p.add_argument(
        "--no-resign", action="store_true", help="search agents play every game out instead of resigning lost ones"
    )
    p.add_argument(
        "--setup-time",
        default="60",
        help="seconds an agent may take to build and warm up; a hung warm-up loses on time (default %(default)s)",
    )
    p.add_argument("--k", type=int, help="olympic: first to k wins per match (default 1)")
    p.add_argument("--recursive", action="store_true", help="olympic: play off every place")
    p.add_argument("--rounds", type=int, help="swiss: number of rounds (default: ceil(log2 N))")
    p.add_argument("--allow-rematches", action="store_true", help="swiss: the study's pairing rule")
    p.add_argument("--jsonl", help="write every game record to this JSON-lines file as the game finishes")
    p.add_argument("--csv", help="write every game record to this CSV file as the game finishes")
    p.add_argument(
        "--sgf", help="write one SGF file per game into this directory as it finishes (Go, Othello, Gomoku, LOA)"
    )
    p.add_argument(
        "--noswap",
        action="store_true",
        help="round_robin, gauntlet, olympic: no colour pairs; the agent listed first is Black in every game "
        "(cutechess-cli's -noswap)",
    )
    p.add_argument(
        "--each",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="an option for every agent of the run, candidates and field alike (cutechess-cli's -each), "
        "e.g. --each resign=false; a spec's own value wins; an agent without the option is an error",
    )
    p.add_argument("--event", help="the event's name in the records (SGF EV, the JSONL's and CSV's event)")
    p.add_argument("--site", help="where the run is played, in the records (SGF PC, the JSONL's and CSV's site)")
    p.add_argument(
        "--ratings-every",
        type=int,
        metavar="N",
        help="print the rating table every N games while the run goes (on stderr; default: every "
        "tenth of the run, at least 50 games; 0: only at the end)",
    )


def _check_outputs(args, game) -> None:
    """Every output path of a tournament, before its first game (see the module docstring)."""
    for option in ("journal", "jsonl", "csv"):
        if getattr(args, option):
            check_file(getattr(args, option), f"--{option}")
    if args.sgf:
        if game.spec.sgf is None:
            raise envs.ParameterError(f"--sgf {args.sgf}: {game.name} games have no SGF format")
        check_directory(args.sgf, "--sgf")


def _run_tournament(args) -> int:
    from ..referee import precompile, runner

    _check_seed(args.seed)
    if args.workers is not None and args.workers < 0:
        raise envs.ParameterError(
            f"--workers {args.workers}: expected 0 (play in this process) or a positive number of worker processes"
        )
    args.move_time = _check_positive("--move-time", args.move_time)
    if args.move_time is not None and args.workers == 0:
        raise envs.ParameterError(
            f"--move-time {args.move_time:g} with --workers 0: a move played in this process cannot be "
            "stopped when it overruns; use --workers 1 or more (a worker past its time is killed)"
        )
    if args.adjudicator is not None and not args.adjudicate:
        raise envs.ParameterError(f"--adjudicator {args.adjudicator}: needs --adjudicate RULE...")
    args.setup_time = _check_positive("--setup-time", args.setup_time, allow_none=False)
    _check_count("--k", args.k, 1)
    _check_count("--rounds", args.rounds, 1)
    options = {}
    if args.system == "olympic":
        options = {"k": args.k or 1, "recursive": args.recursive}
    elif args.system == "swiss":
        options = {"rounds": args.rounds, "avoid_rematches": not args.allow_rematches}
    agents = args.agents
    options.update(_encounter_options(args))
    if args.system == "gauntlet":
        agents = args.candidates + args.agents
    agents = _with_each(agents, args.each)
    if args.resume and not args.journal:
        raise envs.ParameterError("--resume needs --journal FILE")
    if args.address and args.executor != "ray":
        raise envs.ParameterError(f"--address {args.address}: needs --executor ray")
    _check_outputs(args, envs.make_game(args.game, **_game_params(args.param)))
    # a first run compiles the pairing rules and the trust line's simulator in a helper process
    # while the agents warm up (started before Ray, whose threads a forked helper must not copy)
    precompile.start(("systems", "simulator") if len(agents) >= 3 else ("systems",))
    executor = None
    if args.executor == "ray":
        from ..referee.ray_executor import RayExecutor

        try:
            executor = RayExecutor(address=args.address, workers=args.workers or None)
        except ExecutorError as e:  # the distributed extra is missing: before any game
            raise envs.ParameterError(f"--executor ray: {e}") from None
    _check_count("--ratings-every", args.ratings_every, 0)
    options["ratings_every"] = args.ratings_every  # None: the runner's default
    try:
        with terminate_as_interrupt():
            result = runner.run(
                args.system,
                agents,
                args.game,
                seed=args.seed,
                workers=args.workers,
                executor=executor,
                journal=args.journal,
                resume=args.resume,
                move_time=args.move_time,
                setup_time=args.setup_time,
                tc=args.tc,
                byoyomi=args.byoyomi,
                adjudicate=args.adjudicate,
                adjudicator=args.adjudicator,
                game_params=_game_params(args.param),
                resign=not args.no_resign,
                swap=not args.noswap,
                jsonl=args.jsonl,
                csv=args.csv,
                sgf=args.sgf,
                event=args.event,
                site=args.site,
                **options,
            )
    except JournalHoldsGames as e:  # the API's words (resume=True) said as the command line says them
        raise JournalError(
            f"--journal {e.path} already holds {e.count} finished game{'s' * (e.count != 1)} of this "
            "tournament: add --resume to continue it, or choose another --journal file"
        ) from None
    except KeyboardInterrupt as e:  # Ctrl-C, or SIGTERM (``Terminated``): the same stop, its own status
        how = "terminated (SIGTERM)" if isinstance(e, Terminated) else "interrupted"
        sys.stderr.write("\n" + _stopped(args, how) + "\n")
        return 128 + int(signal.SIGTERM) if isinstance(e, Terminated) else 130
    except (ExecutorError, JournalWriteError, RecordWriteError) as e:  # a worker that keeps dying, a full disk
        sys.stderr.write(f"arbiter tournament: error: {e}\n" + _stopped(args, "stopped") + "\n")
        return 1
    print(result)
    _print_trust(result)
    return 0


def _with_each(specs: Sequence[str], items: Sequence[str]) -> list[str]:
    """Every agent spec with the ``--each KEY=VALUE`` options added (``agents.base.with_options``:
    a spec's own value wins, an agent without the option is an error naming it)."""
    from agents.base import with_options

    each: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise envs.ParameterError(f"--each {item}: expected KEY=VALUE, e.g. --each resign=false")
        if key.strip() in each:
            raise envs.ParameterError(f"--each {item}: {key.strip()} is given twice")
        each[key.strip()] = value.strip()
    return [with_options(spec, each, "--each") for spec in specs] if each else list(specs)


def _encounter_options(args) -> dict:
    """``run``'s keywords from the games-per-encounter, gauntlet and opening options, each checked
    against the system it applies to."""
    options = {}
    if args.candidates and args.system != "gauntlet":
        raise envs.ParameterError(f"--candidates: applies to --system gauntlet, not {args.system}")
    if args.system == "gauntlet" and not args.candidates:
        raise envs.ParameterError(
            "--system gauntlet needs --candidates SPEC... (the agents under test; --agents is the field they play)"
        )
    if args.system == "gauntlet":
        options["candidates"] = len(args.candidates)
    if args.sprt and args.system != "gauntlet":
        raise envs.ParameterError(
            f"--sprt: applies to --system gauntlet (each candidate against the field), not {args.system}"
        )
    if args.sprt:
        options["sprt"] = _sprt(args)
    if args.games is not None:
        if args.system not in ("round_robin", "olympic", "gauntlet"):
            raise envs.ParameterError(
                f"--games: applies to round_robin, olympic and gauntlet, not {args.system} (one game per pairing)"
            )
        if args.system == "olympic" and args.k is not None:
            raise envs.ParameterError(
                f"--games {args.games} and --k {args.k}: an olympic match is first to k "
                "wins or a match of N games, not both"
            )
        if args.games < 2 or args.games % 2:
            raise envs.ParameterError(
                f"--games {args.games}: expected an even number of at least 2 (each "
                "opening is played once with each colour)"
            )
        options["games"] = args.games
        options.pop("k", None)
    if args.openings is not None and args.opening_plies is not None:
        raise envs.ParameterError("--openings and --opening-plies: a suite or random openings, not both")
    if args.opening_plies is not None:
        if len(args.opening_plies) > 2:
            raise envs.ParameterError(f"--opening-plies {' '.join(map(str, args.opening_plies))}: expected K or K MAX")
        lo, hi = args.opening_plies[0], args.opening_plies[-1]
        if not 0 < lo <= hi:
            raise envs.ParameterError(
                f"--opening-plies {' '.join(map(str, args.opening_plies))}: expected 0 < K <= MAX plies"
            )
        options["opening_plies"] = lo if lo == hi else (lo, hi)
    if args.openings is None and (args.openings_order != "sequential" or args.openings_start != 1):
        which = "--openings-order" if args.openings_order != "sequential" else "--openings-start"
        raise envs.ParameterError(f"{which}: needs --openings FILE")
    if args.openings is not None:
        _check_count("--openings-start", args.openings_start, 1)
        options.update(openings=args.openings, openings_order=args.openings_order, openings_start=args.openings_start)
    return options


def _print_trust(result) -> None:
    """The trust line under the standings (its first simulation compiles the study's simulator:
    said on stderr first, as a game's first compile is)."""

    def announce():
        sys.stderr.write(
            "compiling the study's simulator for the trust line: first run only, about 5-20 s (a minute on a busy machine)\n"
        )
        sys.stderr.flush()

    print()
    print(result.trust(announce=announce))


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is, as Ctrl-C raises ``KeyboardInterrupt``: a service
    manager's stop (systemd, Docker, a batch queue) ends a tournament as Ctrl-C does, its games
    journaled, its workers gone and the command that resumes it printed, not silently at 143."""


@contextmanager
def terminate_as_interrupt():
    """Within the block, SIGTERM raises ``Terminated`` (the handler before is restored after)."""

    def terminate(signum, frame):
        raise Terminated

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _stopped(args, how) -> str:
    """What a stopped run (Ctrl-C, a game that cannot be played) left behind: the games safe in
    the journal and the command that resumes."""
    if not args.journal:
        return (
            f"arbiter tournament: {how}; without --journal the finished games are not kept "
            "(run with --journal FILE to be able to resume)"
        )
    import sqlite3

    try:
        db = sqlite3.connect(args.journal)
        try:
            done = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        done = 0
    argv = list(getattr(args, "argv", None) or sys.argv[1:])
    if "--resume" not in argv:
        argv.append("--resume")
    return (
        f"arbiter tournament: {how}; the journal {args.journal} holds {done} finished "
        f"game{'s' * (done != 1)}. Resume with:\n  arbiter {shlex.join(argv)}"
    )


# -- study -----------------------------------------------------------------------------------------
def _add_study(sub):
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


def _run_study(args) -> int:
    from ..studies.championship import read_csv, write_study

    _check_seed(args.seed)
    _check_count("--championships", args.championships, 2)
    for n in args.sizes:
        _check_count("--sizes", n, 3)
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
            from ..studies.championship.plots import _pyplot

            _pyplot()
    except ImportError as e:  # an optional extra (matplotlib for --plot)
        raise envs.ParameterError(f"--plot {args.plot}: {e}") from None
    executor = None
    if args.executor == "ray":
        from ..studies.championship.distributed import RayStudyExecutor

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


# -- play ------------------------------------------------------------------------------------------
def _add_play(sub):
    p = sub.add_parser("play", help="watch two agents, or play against one ('human') in the terminal")
    _add_game(p)
    p.add_argument("--black", default="human", help="agent spec or 'human' (default %(default)s)")
    p.add_argument("--white", default="random", help="agent spec or 'human' (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument("--hint", default="greedy", metavar="SPEC", help="the agent behind 'hint' (default %(default)s)")
    p.add_argument("--save", metavar="FILE.sgf", help="write the game as SGF when it ends")
    p.add_argument(
        "--no-resign", action="store_true", help="search agents play the game out instead of resigning it when lost"
    )


def play(
    game: envs.Game,
    agents: Sequence[Player],
    seed: int | None = 0,
    out: Callable[[str], object] = print,
    resign: bool = True,
    names: Sequence[str] | None = None,
) -> GameOutcome:
    """Play one game between ``agents`` (``HumanAgent`` objects for people at the terminal) with
    ``play_game``, showing the board after every move; a human may undo (takebacks are on) and
    resign, and so may search agents in a lost game unless ``resign`` is False. Ends with the
    result line, whatever ended the game; returns the ``GameOutcome``. ``names``: how the header
    and the result line call the players (``arbiter play`` passes the specs, options and all);
    default: each agent's ``name``."""
    if names is None:
        names = [getattr(a, "name", "") or type(a).__name__ for a in agents]
    out(", ".join(f"{seat_name(game, seat)}: {name}" for seat, name in enumerate(names)))
    verb = "play" if game.num_players == 1 else "plays"  # "You play K>w1", "Black plays d3"

    def watch(state, seat, move):
        if move is not None:
            out(f"{seat_name(game, seat)} {verb} {move}")
        out(render.ansi(game, state, move).rstrip("\n"))
        if game.summary(state):
            out(game.summary(state))

    outcome = play_game(game, agents, seed=seed, takebacks=True, watch=watch, resign=resign)
    out(result_line(game, outcome, names))
    return outcome


def result_line(game: envs.Game, outcome: Outcome, names: Sequence[str]) -> str:
    """How a game ended, in one line (``Outcome.describe``): the score, who won (seat and agent)
    and by how much where the game has a margin, or why the game ended early (a resignation, a
    loss on time, a forfeit, with its detail): ``Result: 0-1, White (mcts) wins by 12`` or
    ``Result: 1-0, Black (greedy) wins: White (alphazero) forfeited: the agent failed
    (WeightsError: ...)``; alone, ``Result: won`` or ``Result: lost: you resigned``."""
    if game.num_players == 1:
        return "Result: " + outcome.describe(["you"])
    return "Result: " + outcome.describe([f"{seat_name(game, seat)} ({name})" for seat, name in enumerate(names)])


def _run_play(args) -> int:
    import agents

    _check_seed(args.seed)
    game = envs.make_game(args.game, **_game_params(args.param))
    if args.save and game.spec.sgf is None:
        raise envs.ParameterError(f"--save {args.save}: {game.name} games have no SGF format")
    if args.save:
        check_file(args.save, "--save")
    players = []
    specs = (args.black, args.white)[: game.num_players]
    for seat, spec in enumerate(specs):
        if spec == "human":
            check_players([args.hint], game)  # the hint agent, before the first move, not at the first hint
            players.append(HumanAgent(hint=args.hint))
        else:
            players.append(agents.make(spec, seed=min(args.seed + seat, MAX_SEED)))
    check_players(players, game)
    try:
        outcome = play(game, players, seed=args.seed, resign=not args.no_resign, names=specs)
    except Abandoned as e:  # the person left: no move, no resignation, so no result to record
        print(f"Game abandoned ({e}): no result recorded{', nothing saved' if args.save else ''}.")
        return 1
    if args.save:
        from ..referee.records import game_sgf

        data = game_sgf(game, outcome, specs[0], specs[1], seed=args.seed)
        try:
            with open(args.save, "wb") as f:
                f.write(data)
        except OSError as e:  # checked before the game, so something changed since (a full disk)
            sys.stderr.write(
                f"arbiter play: error: --save {args.save}: cannot write it "
                f"({e.strerror or type(e).__name__}); the game's moves: {' '.join(outcome.moves)}\n"
            )
            return 1
        print(f"saved {args.save}")
    return 0


# -- gtp -------------------------------------------------------------------------------------------
def _add_gtp(sub):
    sub.add_parser("gtp", help="serve an agent over GTP (see: arbiter gtp --help)", add_help=False)


def _run_gtp(args, rest) -> int:
    from agents import gtp

    return gtp.main(rest) or 0


# -- pbrain ----------------------------------------------------------------------------------------
def _add_pbrain(sub):
    from agents.gomocup.cli import add_arguments

    add_arguments(sub.add_parser("pbrain", help="serve a Gomoku agent as a Gomocup (piskvork) brain"))


def _run_pbrain(args) -> int:
    from agents.gomocup.cli import params_of, run

    return run(args.agent, params_of(args.param), _check_seed(args.seed))


# -- export ---------------------------------------------------------------------------------------
def _add_export(sub):
    p = sub.add_parser("export", help="write the games of a tournament journal as SGF files")
    p.add_argument("journal", help="the SQLite journal of arbiter tournament --journal")
    p.add_argument("--sgf", required=True, metavar="DIR", help="directory for one SGF file per game")


def _run_export(args) -> int:
    from ..analysis.report import load_journal

    result = load_journal(args.journal)
    if envs.spec(result.config["game"]).sgf is None:
        raise envs.ParameterError(f"--sgf {args.sgf}: {result.config['game']} games have no SGF format")
    check_directory(args.sgf, "--sgf")
    paths = result.to_sgf(args.sgf)
    print(f"wrote {len(paths)} SGF files into {args.sgf}")
    return 0


# -- games and agents -------------------------------------------------------------------------------
def _add_games(sub):
    sub.add_parser("games", help="list the registered games: parameters, values, defaults, rule presets, ids")


def _run_games(args) -> int:
    for spec in envs.specs():
        players = "one player" if spec.num_players == 1 else "two players"
        print(f"{spec.name}: {spec.title}, {players}; {spec.summary}")
        for p in spec.params:
            print(f"    -p {p.name}=...   {p.describe()}, default {p.default!r}: {p.doc}")
        ids = ", ".join(i for i in (spec.gym_id, spec.pettingzoo and f"envs.pettingzoo.{spec.pettingzoo}") if i)
        print(f"    rules: {', '.join(spec.presets)}" + (f"; {ids}" if ids else ""))
    return 0


def _add_agents(sub):
    p = sub.add_parser("agents", help="list the agents with a line on each and the option values that apply")
    p.add_argument(
        "--game",
        choices=sorted(envs.GAMES),
        help="only the agents that can play this game, with the values that apply to it",
    )
    p.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a parameter of --game, e.g. -p size=9 (repeatable)",
    )


def _agent_settings(cls, games) -> tuple[dict, dict, str, str]:
    """(option -> value, option -> {value: games}, the games it plays, what it lacks here) of
    agent class ``cls`` built with its defaults: its ``settings`` on each of ``games`` that it
    plays (``check_game``); the second dict holds the options whose value differs between games;
    the last is why it cannot play on this machine (``check_ready``: an extra not installed), ""
    when it can. An agent that needs an option to be built (the gtp engine's command) shows its
    signature's defaults and its ``plays``."""
    import inspect

    import agents

    options = agents.base.options_of(cls)
    try:
        agent = cls()
    except (agents.AgentError, TypeError):
        shown = {
            k: "(required)" if v is inspect.Parameter.empty or (v is None and k == "command") else v
            for k, v in options.items()
        }
        playable = [g.name for g in games if cls.applies_to(cls.__new__(cls), g)]
        return (shown, {}, ", ".join(playable), "") if playable else ({}, {}, "", "")
    per_game, lacks = {}, ""
    for game in games:
        try:
            agent.check_game(game)
        except agents.AgentError:
            continue
        per_game[game.name] = agent.settings(game)
        try:
            agent.check_ready(game)
        except agents.AgentError as e:
            lacks = lacks or str(e)
    if not per_game:
        return {}, {}, "", ""
    values, differ = {}, {}
    for key in next(iter(per_game.values())):
        seen: dict = {}
        for name, settings in per_game.items():
            seen.setdefault(repr(settings[key]), []).append(name)
        if len(seen) == 1:
            values[key] = next(iter(per_game.values()))[key]
        else:
            values[key] = "(per game)"
            differ[key] = seen
    if "seed" in options:
        values["seed"] = agent.seed
    return values, differ, ", ".join(per_game), lacks


def _run_agents(args) -> int:
    import agents

    if args.game:
        games = [envs.make_game(args.game, **_game_params(args.param))]
    else:
        if args.param:
            raise envs.ParameterError(f"-p {args.param[0]}: game parameters need --game")
        games = [envs.make_game(spec.name) for spec in envs.specs()]
    for name in sorted(agents.REGISTRY):
        cls = agents.REGISTRY[name]
        values, differ, plays, lacks = _agent_settings(cls, games)
        if not plays:  # it plays none of the games
            continue
        print(f"{name}: {cls.describe()}")
        if not args.game:
            print(f"    plays: {plays}")
        if lacks:
            print(f"    not on this machine: {lacks}")
        shown = ",".join(f"{k}={v if v in ('(required)', '(per game)') else repr(v)}" for k, v in values.items())
        print(f"    {name}:{shown}" if shown else f"    {name}")
        for key, seen in differ.items():
            print(f"        {key}: " + "; ".join(f"{value} on {', '.join(names)}" for value, names in seen.items()))
    if not args.game:
        print(
            "(values as they apply to each game with its default parameters; "
            "arbiter agents --game G -p KEY=VALUE for one game)"
        )
    return 0


# -- match ----------------------------------------------------------------------------------------
def _add_match(sub):
    p = sub.add_parser("match", help="an evaluation match of two agents, fixed-length or sequential (SPRT)")
    _add_game(p, two_players=True)
    p.add_argument("-a", "--a", dest="a", required=True, metavar="SPEC", help="agent A, e.g. alphabeta:depth=3")
    p.add_argument("-b", "--b", dest="b", required=True, metavar="SPEC", help="agent B, the reference")
    p.add_argument("--games", type=int, default=100, help="games (even; with --sprt the maximum), default %(default)s")
    _add_sprt(p, "stop the match once the SPRT decides")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")


def _add_sprt(p, what: str) -> None:
    p.add_argument(
        "--sprt",
        nargs="+",
        metavar="ELO0,ELO1,ALPHA,BETA",
        help=f"{what}: H0 'A is ELO0 Elo better' against H1 'ELO1 better' at error rates ALPHA, BETA "
        "(also as four words: --sprt 0 50 0.05 0.05); the pentanomial GSPRT with fastchess's exact "
        "maximum likelihood",
    )
    p.add_argument(
        "--sprt-model",
        default="logistic",
        choices=["logistic", "normalized"],
        help="Elo scale of ELO0/ELO1 (default %(default)s; fastchess's default is normalized)",
    )
    p.add_argument(
        "--sprt-method",
        default="mle",
        choices=["mle", "normal"],
        help="mle: the exact constrained maximum likelihood, as fastchess; normal: the normal approximation "
        "(default %(default)s)",
    )


def _sprt(args):
    from ..analysis.sprt import SPRT

    return SPRT.parse(args.sprt, model=args.sprt_model, method=args.sprt_method)


def _run_match(args) -> int:
    from ..referee.matches import match

    _check_seed(args.seed)
    test = _sprt(args) if args.sprt else None

    def line(text):
        print(text, flush=True)

    result = match(
        args.a,
        args.b,
        game=args.game,
        game_params=_game_params(args.param),
        games=args.games,
        seed=args.seed,
        sprt=test,
        lines=line,
    )
    print(f"{args.a} vs {args.b} on {args.game}: {result}")
    return 0


# -- report ---------------------------------------------------------------------------------------
def _add_report(sub):
    p = sub.add_parser("report", help="write a tournament journal as one self-contained HTML page")
    p.add_argument("journal", help="the SQLite journal of arbiter tournament --journal")
    p.add_argument("-o", "--out", default="report.html", help="HTML file to write (default %(default)s)")


def _run_report(args) -> int:
    from ..analysis.report import write_report

    check_file(args.out, "-o")
    path = write_report(args.journal, args.out)
    print(f"wrote {path}")
    return 0


# -- ratings --------------------------------------------------------------------------------------
def _add_ratings(sub):
    p = sub.add_parser(
        "ratings",
        help="one rating list from the games of tournament journals and --jsonl/--csv records, anchored as Ordo does",
    )
    p.add_argument(
        "journals",
        nargs="+",
        metavar="FILE",
        help="journals of arbiter tournament --journal, or its --jsonl or --csv files (told apart by "
        "content), of one game and rules; an agent is the same in every file where its spec is",
    )
    p.add_argument(
        "--anchor",
        action="append",
        default=[],
        metavar="SPEC=ELO",
        help="fix agent SPEC at ELO, e.g. --anchor random=0 (repeatable: several anchors are fixed "
        "together; default: the ratings' mean is 0)",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds P(best)'s posterior draws (default %(default)s)")


def _anchors(items) -> dict:
    """``["greedy=1000", "alphabeta:depth=3=1500"]`` -> ``{spec: Elo}`` (a spec may hold ``=``: the
    Elo follows the last one)."""
    from ..analysis.statistics import RatingsError, check_anchor

    anchors = {}
    for item in items:
        spec, eq, value = item.rpartition("=")
        if not eq or not spec or not re.fullmatch(r"[+-]?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]{1,3})?", value.strip()):
            raise RatingsError(f"--anchor {item}: expected SPEC=ELO, e.g. --anchor random=0")
        if spec in anchors:
            raise RatingsError(f"--anchor {item}: {spec} is anchored twice")
        anchors[spec] = check_anchor(spec, float(value), "--anchor")
    return anchors


def _run_ratings(args) -> int:
    from ..analysis.statistics import rating_list

    _check_seed(args.seed)
    from ..referee.records import records_kind

    kinds = [records_kind(path) for path in args.journals]  # an unreadable file: one line, before any fit
    stats = rating_list(args.journals, anchors=_anchors(args.anchor), seed=args.seed)
    counts = [(kinds.count("journal"), "journal"), (len(kinds) - kinds.count("journal"), "record file")]
    read = ", ".join(f"{n} {what}{'s' * (n != 1)}" for n, what in counts if n)
    print(f"{read}, {stats.games} games, {len(stats.ratings)} agents\n")
    print(stats.table())
    return 0


COMMANDS = {
    "tournament": (_add_tournament, _run_tournament),
    "study": (_add_study, _run_study),
    "play": (_add_play, _run_play),
    "gtp": (_add_gtp, None),
    "pbrain": (_add_pbrain, _run_pbrain),
    "match": (_add_match, _run_match),
    "report": (_add_report, _run_report),
    "games": (_add_games, _run_games),
    "agents": (_add_agents, _run_agents),
    "export": (_add_export, _run_export),
    "ratings": (_add_ratings, _run_ratings),
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "gtp":  # GTP has its own parser; pass everything through
        return _run_gtp(None, argv[1:])
    parser = argparse.ArgumentParser(prog="arbiter", description="Arbiter: games, agents, tournaments.")
    parser.add_argument("--version", action="version", version=f"arbiter {envs.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add, _ in COMMANDS.values():
        add(sub)
    args = parser.parse_args(argv)
    args.argv = argv  # a command that was interrupted tells the exact line that resumes it
    try:
        return COMMANDS[args.command][1](args)
    except (envs.ArbiterError, JournalError) as e:  # bad input: one line, status 2 (as argparse's own)
        parser.exit(2, f"arbiter {args.command}: error: {_one_line(e)}\n")
    except MatchError as e:  # an agent forfeited a match game: the match measures nothing
        parser.exit(1, f"arbiter {args.command}: error: {_one_line(e)}\n")
    except KeyboardInterrupt:  # Ctrl-C in play, match, study (a tournament reports its journal itself)
        sys.stderr.write(f"\narbiter {args.command}: interrupted\n")
        return 130
    except BrokenPipeError:  # ``arbiter agents | head``: the reader left; no traceback for that
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _one_line(error) -> str:
    return " ".join(str(error).split()) or type(error).__name__

