"""``arbiter ratings``: one rating list from journals and record files."""

from __future__ import annotations

import argparse
import re

from ..analysis.statistics import RatingsError, check_anchor
from ..referee.reading import rating_list
from ..referee.records import records_kind
from ._common import check_seed


def add(sub):
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
    p.add_argument(
        "--first-move",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fit the first mover's advantage with the ratings, as Ordo's -W (default: on; --no-first-move: "
        "the plain model, colours ignored)",
    )
    p.add_argument(
        "--draw-model",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="fit the draw parameter with the ratings, as BayesElo's drawelo (default: on; --no-draw-model: "
        "a draw counts half a win for each side)",
    )


def _anchors(items) -> dict:
    """``["greedy=1000", "alphabeta:depth=3=1500"]`` -> ``{spec: Elo}`` (a spec may hold ``=``: the
    Elo follows the last one)."""

    anchors = {}
    for item in items:
        spec, eq, value = item.rpartition("=")
        if not eq or not spec or not re.fullmatch(r"[+-]?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]{1,3})?", value.strip()):
            raise RatingsError(f"--anchor {item}: expected SPEC=ELO, e.g. --anchor random=0")
        if spec in anchors:
            raise RatingsError(f"--anchor {item}: {spec} is anchored twice")
        anchors[spec] = check_anchor(spec, float(value), "--anchor")
    return anchors


def run(args) -> int:
    check_seed(args.seed)

    kinds = [records_kind(path) for path in args.journals]  # an unreadable file: one line, before any fit
    stats = rating_list(
        args.journals,
        anchors=_anchors(args.anchor),
        seed=args.seed,
        first_move=args.first_move,
        draw_model=args.draw_model,
    )
    counts = [(kinds.count("journal"), "journal"), (len(kinds) - kinds.count("journal"), "record file")]
    read = ", ".join(f"{n} {what}{'s' * (n != 1)}" for n, what in counts if n)
    print(f"{read}, {stats.games} games, {len(stats.ratings)} agents\n")
    print(stats.table())
    return 0
