"""``arbiter match``: an evaluation match of two agents, fixed-length or sequential.

A plain match (``tournaments.match``) plays its colour pairs in this process, from random
openings of its own seeding, as the documented figures were made. Any option of a run (a clock,
an opening suite or random opening plies, adjudication, workers, a journal, record files) plays
the match through the tournament runner instead, as a gauntlet of one candidate, A, against one
opponent, B: every game journaled and resumable, on the referee's clocks and rules, with the same
sequential test. Both print cutechess-cli's score line.
"""

from __future__ import annotations

from envs.core.outcome import Outcome

from ..analysis.statistics import colour_pairs
from ..referee.matches import match, score_line
from ._common import add_game, add_sprt, check_seed, game_params, sprt_of
from .tournament import add_run_options, play_run

NOT_A_RUN = ("seed", "ratings_every")  # run options a plain match has too, or that mean nothing to it


def add(sub):
    p = sub.add_parser("match", help="an evaluation match of two agents, fixed-length or sequential (SPRT)")
    add_game(p, two_players=True)
    p.add_argument("-a", "--a", dest="a", required=True, metavar="SPEC", help="agent A, e.g. alphabeta:depth=3")
    p.add_argument("-b", "--b", dest="b", required=True, metavar="SPEC", help="agent B, the reference")
    p.add_argument("--games", type=int, default=100, help="games (even; with --sprt the maximum), default %(default)s")
    add_sprt(p, "stop the match once the SPRT decides")
    before = {action.dest for action in p._actions}
    add_run_options(p)  # --seed among them
    run_options = {a.dest: a.default for a in p._actions if a.dest not in before and a.dest not in NOT_A_RUN}
    p.set_defaults(run_options=run_options)


def run(args) -> int:
    check_seed(args.seed)
    if any(getattr(args, dest) != default for dest, default in args.run_options.items()):
        return _through_the_runner(args)
    test = sprt_of(args) if args.sprt else None

    def line(text):
        print(text, flush=True)

    result = match(
        args.a,
        args.b,
        game=args.game,
        game_params=game_params(args.param),
        games=args.games,
        seed=args.seed,
        sprt=test,
        lines=line,
    )
    print(f"{args.a} vs {args.b} on {args.game}: {result}")
    return 0


def _through_the_runner(args) -> int:
    """The match as a gauntlet of A against B through the runner, with the run's options."""
    args.system, args.candidates, args.agents = "gauntlet", [args.a], [args.b]
    args.each, args.noswap = [], False
    args.k = args.rounds = None
    args.recursive = args.allow_rematches = False
    return play_run(args, _show_match)


def _show_match(args, result) -> None:
    """cutechess-cli's score line of A against B, then the run's table (forfeits, ratings,
    colour pairs, the sequential test)."""
    a = result.names.index(args.a)

    def points(game) -> float:  # A's
        return Outcome.from_record(game).points(0 if game["black_id"] == a else 1)

    scored = [points(g) for g in result.games]
    wins, losses, draws = scored.count(1.0), scored.count(0.0), scored.count(0.5)
    pentanomial = [0] * 5
    for first, second in colour_pairs(result.games):
        pentanomial[round(2 * (points(first) + points(second)))] += 1
    print(score_line(args.a, args.b, wins, losses, draws, pentanomial, result.sprt.get(args.a)))
    print()
    print(result)
