"""The ``arbiter`` command line.

    arbiter tournament --game loa --system swiss --agents random greedy "alphabeta:depth=3" \\
                       --workers 2 --journal run.db [--resume]
    (Ctrl-C stops it without a traceback, exit status 130, and prints the line that resumes it)
    arbiter study [--out study_out] [--parts grid models placing budget] [--plot DIR] [--executor ray]
    arbiter play --game gomoku -p size=9 --black human --white "alphabeta:depth=3"
    arbiter gtp --game go --size 9 --agent mcts:seconds=5        (delegates to agents.gtp)
    arbiter match --game othello --a greedy --b random --games 400 --sprt 0 50 0.05 0.05
    arbiter report run.db -o report.html

A subcommand is a pair of functions, ``_add_<name>(subparsers)`` and ``_run_<name>(args)``, listed
in ``COMMANDS``; ``gtp`` forwards its whole argument list to ``agents.gtp.main``.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import sys

import envs
from envs import render

from .human import HumanAgent, seat_name
from .executor import ExecutorError
from .journal import JournalError
from .play import NORMAL, RESIGN, play_game


def _game_params(pairs) -> dict:
    """``["size=9", "komi=7.5"]`` → ``{"size": 9, "komi": 7.5}`` (values as Python literals)."""
    params = {}
    for item in pairs or []:
        key, eq, value = item.partition("=")
        if not eq:
            raise SystemExit(f"-p {item!r}: expected key=value, e.g. -p size=9")
        try:
            params[key.strip()] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            params[key.strip()] = value.strip()
    return params


def _add_game(p, two_players=False):
    names = [s.name for s in envs.specs() if s.num_players == 2 or not two_players]
    p.add_argument("--game", default="loa", choices=sorted(names),
                   help="the game ('arbiter games' lists them with their parameters; default %(default)s)")
    p.add_argument("-p", "--param", action="append", metavar="KEY=VALUE",
                   help="a game parameter, e.g. -p size=9 (repeatable)")


# -- tournament ------------------------------------------------------------------------------------
def _add_tournament(sub):
    p = sub.add_parser("tournament", help="play a tournament between agents and print the standings")
    _add_game(p, two_players=True)
    p.add_argument("--system", default="swiss", choices=["round_robin", "olympic", "swiss", "random_order"],
                   help="round_robin: everyone meets everyone with both colours; olympic: knock-out matches "
                        "(first to --k wins); swiss: --rounds of pairings among equal scores; random_order: "
                        "places drawn at random, the study's baseline (default %(default)s)")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help='agent specs, e.g. random greedy "alphabeta:depth=3"')
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes, or Ray actors with --executor ray (0: play in this process)")
    p.add_argument("--executor", choices=["process", "ray"], default="process",
                   help="where games run: local worker processes, or Ray (needs the distributed extra)")
    p.add_argument("--address", help="with --executor ray: a running Ray cluster ('auto', 'host:6379'); "
                                     "default: start a local Ray")
    p.add_argument("--journal", help="SQLite journal of finished games (needed for --resume)")
    p.add_argument("--resume", action="store_true", help="continue the tournament in --journal")
    p.add_argument("--move-time", type=float, help="seconds per move; slower moves forfeit the game")
    p.add_argument("--setup-time", type=float, default=60.0,
                   help="seconds an agent may take to build and warm up; a hung warm-up loses on time "
                        "(default %(default)s)")
    p.add_argument("--k", type=int, default=1, help="olympic: first to k wins per match")
    p.add_argument("--recursive", action="store_true", help="olympic: play off every place")
    p.add_argument("--rounds", type=int, help="swiss: number of rounds (default: ceil(log2 N))")
    p.add_argument("--allow-rematches", action="store_true", help="swiss: the study's pairing rule")
    p.add_argument("--jsonl", help="write every game record to this JSON-lines file")
    p.add_argument("--csv", help="write every game record to this CSV file")
    p.add_argument("--sgf", help="write one SGF file per game into this directory (Go, Othello, Gomoku, LOA; "
                                 "the records extra)")


def _run_tournament(args) -> int:
    from . import runner

    options = {}
    if args.system == "olympic":
        options = {"k": args.k, "recursive": args.recursive}
    elif args.system == "swiss":
        options = {"rounds": args.rounds, "avoid_rematches": not args.allow_rematches}
    if args.resume and not args.journal:
        raise SystemExit("--resume needs --journal FILE")
    executor = None
    if args.executor == "ray":
        from .ray_executor import RayExecutor

        executor = RayExecutor(address=args.address, workers=args.workers or None)
    elif args.address:
        raise SystemExit("--address needs --executor ray")
    try:
        result = runner.run(args.system, args.agents, args.game, seed=args.seed, workers=args.workers,
                            executor=executor, journal=args.journal, resume=args.resume,
                            move_time=args.move_time, setup_time=args.setup_time,
                            game_params=_game_params(args.param), **options)
    except KeyboardInterrupt:
        sys.stderr.write("\n" + _stopped(args, "interrupted") + "\n")
        return 130
    except ExecutorError as e:  # e.g. a game whose worker keeps being killed: resumable, not a bug report
        sys.stderr.write(f"arbiter tournament: error: {e}\n" + _stopped(args, "stopped") + "\n")
        return 1
    print(result)
    if args.jsonl:
        result.to_jsonl(args.jsonl)
    if args.csv:
        result.to_csv(args.csv)
    if args.sgf:
        result.to_sgf(args.sgf)
    return 0


def _stopped(args, how) -> str:
    """What a stopped run (Ctrl-C, a game that cannot be played) left behind: the games safe in
    the journal and the command that resumes."""
    if not args.journal:
        return (f"arbiter tournament: {how}; without --journal the finished games are not kept "
                "(run with --journal FILE to be able to resume)")
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
    return (f"arbiter tournament: {how}; the journal {args.journal} holds {done} finished "
            f"game{'s' * (done != 1)}. Resume with:\n  arbiter {shlex.join(argv)}")


# -- study -----------------------------------------------------------------------------------------
def _add_study(sub):
    p = sub.add_parser("study", help="simulate the championship study: its grid, other player models, "
                                     "ratings-based placing, equal budgets; tables and plots")
    p.add_argument("--out", default="study_out", help="output directory of the tables (default %(default)s)")
    p.add_argument("--parts", nargs="+", default=["grid"], choices=["grid", "models", "placing", "budget"],
                   help="grid: every system x Np x A; models: draws and a first-move advantage against the "
                        "study's model; placing: points against Bradley-Terry ratings; budget: accuracy "
                        "against games for every system parameter (default %(default)s)")
    p.add_argument("--championships", type=int,
                   help="per cell (default: the study's 1,000,000 for Np=8, 100,000 otherwise; 20,000 for "
                        "placing and budget)")
    p.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32, 64],
                   help="numbers of players of the grid (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument("--draw", type=float, default=0.0, help="grid: probability of a drawn game (default 0)")
    p.add_argument("--first-move-advantage", type=float, default=0.0,
                   help="grid: added to the first mover's win probability (default 0)")
    p.add_argument("--placing", choices=["points", "ratings"], default="points",
                   help="grid: places by the system's points or by a Bradley-Terry fit (default %(default)s)")
    p.add_argument("--plot", metavar="DIR", help="write the plots, PNG and SVG, into DIR (the plot extra)")
    p.add_argument("--from-csv", metavar="FILE",
                   help="grid: take the cells from a grid.csv written earlier instead of simulating")
    p.add_argument("--executor", choices=["local", "ray"], default="local",
                   help="where the chunks run: this machine's cores, or Ray tasks (the distributed extra)")
    p.add_argument("--address", help="with --executor ray: a running Ray cluster ('auto', 'host:6379'); "
                                     "default: start a local Ray")


def _run_study(args) -> int:
    from .study import read_csv, write_study

    executor = None
    if args.executor == "ray":
        from .study.distributed import RayStudyExecutor

        executor = RayStudyExecutor(address=args.address)
    elif args.address:
        raise SystemExit("--address needs --executor ray")
    rows = read_csv(args.from_csv) if args.from_csv else None
    try:
        if args.plot:  # the plot extra's install hint now, not after the simulations
            from .study.plots import _pyplot

            _pyplot()
        out = write_study(args.out, sizes=tuple(args.sizes), championships=args.championships, seed=args.seed,
                          executor=executor, plot_dir=args.plot, rows=rows, parts=tuple(args.parts),
                          draw=args.draw, first_move_advantage=args.first_move_advantage, placing=args.placing)
    except ImportError as e:  # an optional extra (matplotlib for --plot)
        raise SystemExit(f"arbiter study: {e}") from None
    finally:
        if executor is not None:
            executor.close()
    print(f"done in {out['seconds']:.0f} s ({out['cpu_seconds']:.0f} s CPU in this process): "
          + ", ".join(out["files"]))
    return 0


# -- play ------------------------------------------------------------------------------------------
def _add_play(sub):
    p = sub.add_parser("play", help="watch two agents, or play against one ('human') in the terminal")
    _add_game(p)
    p.add_argument("--black", default="human", help="agent spec or 'human' (default %(default)s)")
    p.add_argument("--white", default="random", help="agent spec or 'human' (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")
    p.add_argument("--hint", default="greedy", metavar="SPEC", help="the agent behind 'hint' (default %(default)s)")
    p.add_argument("--save", metavar="FILE.sgf", help="write the game as SGF when it ends (the records extra)")


def play(game, agents, seed=0, out=print):
    """Play one game between ``agents`` (``HumanAgent`` objects for people at the terminal) with
    ``play_game``, showing the board after every move; a human may undo (takebacks are on) and
    resign. Ends with the result line, whatever ended the game; returns the ``GameOutcome``."""
    out(", ".join(f"{seat_name(game, seat)}: {getattr(a, 'name', '') or type(a).__name__}"
                  for seat, a in enumerate(agents)))

    def watch(state, seat, move):
        if move is not None:
            out(f"{seat_name(game, seat)} plays {move}")
        out(render.ansi(game, state, move).rstrip("\n"))
        if game.summary(state):
            out(game.summary(state))

    outcome = play_game(game, agents, seed=seed, takebacks=True, watch=watch)
    if outcome.reason != NORMAL:
        loser = min(range(game.num_players), key=lambda s: outcome.returns[s])
        if outcome.reason == RESIGN:
            what = "resign" if game.num_players == 1 else "resigns"
        else:
            what = f"{'forfeit' if game.num_players == 1 else 'forfeits'} ({outcome.reason}: {outcome.detail})"
        out(f"{seat_name(game, loser)} {what}.")
    if game.num_players == 2:
        out(f"Result: {outcome.result}")
    else:
        out(f"Result: {'won' if outcome.winner == 0 else 'lost'}")
    return outcome


def _run_play(args) -> int:
    game = envs.make_game(args.game, **_game_params(args.param))
    if args.save and game.spec.sgf is None:
        raise envs.ParameterError(f"--save: {game.name} games have no SGF format")
    players = []
    for seat, spec in enumerate((args.black, args.white)[:game.num_players]):
        if spec == "human":
            players.append(HumanAgent(hint=args.hint))
        else:
            import agents

            players.append(agents.make(spec, seed=args.seed + seat))
    outcome = play(game, players, seed=args.seed)
    if args.save:
        from .records import sgf_bytes

        names = [getattr(p, "name", "") or type(p).__name__ for p in players]
        record = {"black": names[0], "white": names[1], "moves": list(outcome.moves), "index": 0,
                  "result": outcome.result, "reason": outcome.reason, "seed": args.seed}
        with open(args.save, "wb") as f:
            f.write(sgf_bytes(game, record))
        print(f"saved {args.save}")
    return 0


# -- gtp -------------------------------------------------------------------------------------------
def _add_gtp(sub):
    sub.add_parser("gtp", help="serve an agent over GTP (see: arbiter gtp --help)", add_help=False)


def _run_gtp(args, rest) -> int:
    from agents import gtp

    return gtp.main(rest) or 0


# -- export ---------------------------------------------------------------------------------------
def _add_export(sub):
    p = sub.add_parser("export", help="write the games of a tournament journal as SGF files")
    p.add_argument("journal", help="the SQLite journal of arbiter tournament --journal")
    p.add_argument("--sgf", required=True, metavar="DIR", help="directory for one SGF file per game")


def _run_export(args) -> int:
    from .report import load_journal

    paths = load_journal(args.journal).to_sgf(args.sgf)
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
    p = sub.add_parser("agents", help="list the agents with their options and defaults")
    p.add_argument("--game", choices=sorted(envs.GAMES), help="only the agents that can play this game")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a parameter of --game, e.g. -p size=9 (repeatable)")


def _run_agents(args) -> int:
    import inspect

    import agents

    game = envs.make_game(args.game, **_game_params(args.param)) if args.game else None
    for name in sorted(agents.REGISTRY):
        cls = agents.REGISTRY[name]
        options = agents.base.options_of(cls)
        try:
            applies = game is None or cls(**{k: v for k, v in options.items()
                                              if v is not inspect.Parameter.empty}).applies_to(game)
        except agents.AgentError:  # needs a required option (the gtp engine's command)
            applies = game is None or cls.applies_to(cls.__new__(cls), game)
        if not applies:
            continue
        summary = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
        print(f"{name}: {summary}")
        shown = ", ".join(f"{k}={'(required)' if v is inspect.Parameter.empty else repr(v)}"
                          for k, v in options.items())
        print(f"    {name}:{shown.replace(', ', ',')}" if shown else f"    {name}")
    return 0


# -- match ----------------------------------------------------------------------------------------
def _add_match(sub):
    p = sub.add_parser("match", help="an evaluation match of two agents, fixed-length or sequential (SPRT)")
    _add_game(p, two_players=True)
    p.add_argument("--a", required=True, metavar="SPEC", help="agent A, e.g. alphabeta:depth=3")
    p.add_argument("--b", required=True, metavar="SPEC", help="agent B, the reference")
    p.add_argument("--games", type=int, default=100,
                   help="games (even; with --sprt the maximum), default %(default)s")
    p.add_argument("--sprt", type=float, nargs=4, metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
                   help="stop when the SPRT of H0: A is ELO0 Elo better against H1: ELO1 decides")
    p.add_argument("--sprt-model", default="logistic", choices=["logistic", "normalized"],
                   help="Elo scale of ELO0/ELO1 (default %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")


def _run_match(args) -> int:
    from .matches import match
    from .sprt import SPRT

    test = SPRT(*args.sprt, model=args.sprt_model) if args.sprt else None

    def progress(done, pairs, status=None):
        if status is None:
            print(f"pair {done}/{pairs}", flush=True)
        else:
            print(f"pair {done}/{pairs}: pentanomial {list(status.pentanomial)}, LLR {status.llr:+.2f} "
                  f"({status.lower:.2f}, {status.upper:.2f}), Elo {status.elo:+.1f} "
                  f"[{status.elo_lo:+.1f}, {status.elo_hi:+.1f}], {status.decision}", flush=True)

    result = match(args.a, args.b, game=args.game, game_params=_game_params(args.param), games=args.games,
                   seed=args.seed, sprt=test, progress=progress)
    print(f"{args.a} vs {args.b} on {args.game}: {result}")
    return 0


# -- report ---------------------------------------------------------------------------------------
def _add_report(sub):
    p = sub.add_parser("report", help="write a tournament journal as one self-contained HTML page")
    p.add_argument("journal", help="the SQLite journal of arbiter tournament --journal")
    p.add_argument("-o", "--out", default="report.html", help="HTML file to write (default %(default)s)")


def _run_report(args) -> int:
    from .report import write_report

    path = write_report(args.journal, args.out)
    print(f"wrote {path}")
    return 0


COMMANDS = {"tournament": (_add_tournament, _run_tournament), "study": (_add_study, _run_study),
            "play": (_add_play, _run_play), "gtp": (_add_gtp, None), "match": (_add_match, _run_match),
            "report": (_add_report, _run_report), "games": (_add_games, _run_games),
            "agents": (_add_agents, _run_agents), "export": (_add_export, _run_export)}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "gtp":  # GTP has its own parser; pass everything through
        return _run_gtp(None, argv[1:])
    parser = argparse.ArgumentParser(prog="arbiter", description="Arbiter: games, agents, tournaments.")
    sub = parser.add_subparsers(dest="command", required=True)
    for add, _ in COMMANDS.values():
        add(sub)
    args = parser.parse_args(argv)
    args.argv = argv  # a command that was interrupted tells the exact line that resumes it
    try:
        return COMMANDS[args.command][1](args)
    except (envs.ArbiterError, JournalError) as e:
        parser.exit(2, f"arbiter {args.command}: error: {e}\n")


if __name__ == "__main__":
    sys.exit(main())
