"""``arbiter match``: an evaluation match of two agents, fixed-length or sequential."""

from __future__ import annotations

from ..referee.matches import match
from ._common import add_game, add_sprt, check_seed, game_params, sprt_of


def add(sub):
    p = sub.add_parser("match", help="an evaluation match of two agents, fixed-length or sequential (SPRT)")
    add_game(p, two_players=True)
    p.add_argument("-a", "--a", dest="a", required=True, metavar="SPEC", help="agent A, e.g. alphabeta:depth=3")
    p.add_argument("-b", "--b", dest="b", required=True, metavar="SPEC", help="agent B, the reference")
    p.add_argument("--games", type=int, default=100, help="games (even; with --sprt the maximum), default %(default)s")
    add_sprt(p, "stop the match once the SPRT decides")
    p.add_argument("--seed", type=int, default=0, help="seeds every random choice (default %(default)s)")


def run(args) -> int:
    check_seed(args.seed)
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
