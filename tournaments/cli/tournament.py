"""``arbiter tournament``: a tournament between agents, its standings and trust line."""

from __future__ import annotations

import shlex
import signal
import sqlite3
import sys
from collections.abc import Sequence

import envs
from agents.base import with_options
from agents.clock import seconds

from ..referee import precompile, runner
from ..referee.config import TournamentConfig
from ..referee.executor import ExecutorError
from ..referee.journal import JournalError, JournalHoldsGames, JournalWriteError
from ..referee.outputs import check_directory, check_file
from ..referee.ray_executor import RayExecutor
from ..referee.records import RecordWriteError
from ._common import (
    Terminated,
    add_game,
    add_sprt,
    check_count,
    check_positive,
    check_seed,
    game_params,
    sprt_of,
    terminate_as_interrupt,
)


def add(sub):
    p = sub.add_parser("tournament", help="play a tournament between agents and print the standings")
    _add_field(p)
    add_run_options(p)
    _add_system_options(p)
    _add_pairing_options(p)


def add_run_options(p) -> None:
    """The options of a run through the runner that a match shares with a tournament: openings,
    workers and journal, clock and adjudication, record files, labels and progress."""
    _add_openings(p)
    _add_running(p)
    _add_clock_and_adjudication(p)
    _add_outputs(p)
    _add_labels_and_progress(p)


def _add_field(p) -> None:
    """The system, the agents and the games of each encounter."""
    add_game(p, two_players=True)
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
    add_sprt(p, "gauntlet: stop a candidate's games once the SPRT of its pairs against the field decides")
    p.add_argument(
        "--games",
        type=int,
        help="games per encounter, even, half with each colour, each colour pair from one opening: "
        "round_robin and gauntlet (default 2); olympic: a match of N games instead of --k, "
        "extended by colour pairs while level",
    )


def _add_openings(p) -> None:
    """Where each game starts: an opening suite or random plies."""
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


def _add_running(p) -> None:
    """Seed, workers, executor and the journal a run resumes from."""
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


def _add_clock_and_adjudication(p) -> None:
    """Time limits and the rules that end games early."""
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
        "--time-margin",
        metavar="SECONDS",
        help="a move may overrun the --tc/--byoyomi clock by up to SECONDS without losing on time (its clock "
        "then stands at 0), as cutechess-cli's and fastchess's timemargin (in milliseconds there); default 0",
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


def _add_system_options(p) -> None:
    """The options of one system each (olympic, swiss)."""
    p.add_argument("--k", type=int, help="olympic: first to k wins per match (default 1)")
    p.add_argument("--recursive", action="store_true", help="olympic: play off every place")
    p.add_argument("--rounds", type=int, help="swiss: number of rounds (default: ceil(log2 N))")
    p.add_argument("--allow-rematches", action="store_true", help="swiss: the study's pairing rule")


def _add_outputs(p) -> None:
    """The record files written as games finish."""
    p.add_argument("--jsonl", help="write every game record to this JSON-lines file as the game finishes")
    p.add_argument("--csv", help="write every game record to this CSV file as the game finishes")
    p.add_argument(
        "--sgf", help="write one SGF file per game into this directory as it finishes (Go, Othello, Gomoku, LOA)"
    )


def _add_pairing_options(p) -> None:
    """Colours and the options given to every agent."""
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


def _add_labels_and_progress(p) -> None:
    """The event's name and site in the records, and the rating lines while it runs."""
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


def run(args) -> int:
    return play_run(args, _show_tournament)


def play_run(args, show) -> int:
    """Check every option, build the run's ``TournamentConfig`` and play it; ``show(args,
    result)`` prints what the finished run tells. Returns the exit status."""
    _check_options(args)
    agents, options = _field_and_options(args)
    if args.resume and not args.journal:
        raise envs.ParameterError("--resume needs --journal FILE")
    if args.address and args.executor != "ray":
        raise envs.ParameterError(f"--address {args.address}: needs --executor ray")
    _check_outputs(args, envs.make_game(args.game, **game_params(args.param)))
    # a first run compiles the pairing rules and the trust line's simulator in a helper process
    # while the agents warm up (started before Ray, whose threads a forked helper must not copy)
    precompile.start(("systems", "simulator") if len(agents) >= 3 else ("systems",))
    executor = _executor(args)
    check_count("--ratings-every", args.ratings_every, 0)
    options["ratings_every"] = args.ratings_every  # None: the runner's default
    config = _config(args, agents, executor, options)  # every value checked before the first game
    return _play(args, config, show)


def _check_options(args) -> None:
    """The options that stand alone, in the order a user meets them (``--move-time`` and
    ``--setup-time`` become seconds)."""
    check_seed(args.seed)
    if args.workers is not None and args.workers < 0:
        raise envs.ParameterError(
            f"--workers {args.workers}: expected 0 (play in this process) or a positive number of worker processes"
        )
    args.move_time = check_positive("--move-time", args.move_time)
    if args.time_margin is not None:  # 0 is a margin too: none
        args.time_margin = seconds(args.time_margin, f"--time-margin {args.time_margin}")
    if args.move_time is not None and args.workers == 0:
        raise envs.ParameterError(
            f"--move-time {args.move_time:g} with --workers 0: a move played in this process cannot be "
            "stopped when it overruns; use --workers 1 or more (a worker past its time is killed)"
        )
    if args.adjudicator is not None and not args.adjudicate:
        raise envs.ParameterError(f"--adjudicator {args.adjudicator}: needs --adjudicate RULE...")
    args.setup_time = check_positive("--setup-time", args.setup_time, allow_none=False)
    check_count("--k", args.k, 1)
    check_count("--rounds", args.rounds, 1)


def _field_and_options(args) -> tuple[list[str], dict]:
    """The agents (candidates first in a gauntlet, ``--each`` applied) and ``run``'s keywords of
    the system and its encounters."""
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
    return agents, options


def _executor(args):
    """The Ray executor for ``--executor ray`` (None: the runner's worker processes)."""
    executor = None
    if args.executor == "ray":
        try:
            executor = RayExecutor(address=args.address, workers=args.workers or None)
        except ExecutorError as e:  # the distributed extra is missing: before any game
            raise envs.ParameterError(f"--executor ray: {e}") from None
    return executor


def _config(args, agents, executor, options) -> TournamentConfig:
    return TournamentConfig.of(
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
        time_margin=args.time_margin,
        adjudicate=args.adjudicate,
        adjudicator=args.adjudicator,
        game_params=game_params(args.param),
        resign=not args.no_resign,
        swap=not args.noswap,
        jsonl=args.jsonl,
        csv=args.csv,
        sgf=args.sgf,
        event=args.event,
        site=args.site,
        **options,
    )


def _play(args, config: TournamentConfig, show) -> int:
    """Run the tournament, then ``show`` its result; a stopped run says what its journal holds
    and how to resume. Returns the exit status."""
    try:
        with terminate_as_interrupt():
            result = runner.run(config)
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
        sys.stderr.write(f"arbiter {args.command}: error: {e}\n" + _stopped(args, "stopped") + "\n")
        return 1
    show(args, result)
    return 0


def _show_tournament(args, result) -> None:
    """The standings, the rating table and the crosstable, then the trust line."""
    print(result)
    _print_trust(result)


def _with_each(specs: Sequence[str], items: Sequence[str]) -> list[str]:
    """Every agent spec with the ``--each KEY=VALUE`` options added (``agents.base.with_options``:
    a spec's own value wins, an agent without the option is an error naming it)."""

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
        options["sprt"] = sprt_of(args)
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
        check_count("--openings-start", args.openings_start, 1)
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


def _stopped(args, how) -> str:
    """What a stopped run (Ctrl-C, a game that cannot be played) left behind: the games safe in
    the journal and the command that resumes."""
    if not args.journal:
        return (
            f"arbiter {args.command}: {how}; without --journal the finished games are not kept "
            "(run with --journal FILE to be able to resume)"
        )

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
        f"arbiter {args.command}: {how}; the journal {args.journal} holds {done} finished "
        f"game{'s' * (done != 1)}. Resume with:\n  arbiter {shlex.join(argv)}"
    )
