"""The rating lists: one Elo list per game of every shipped agent and the external engines.

    nice -n 5 python examples/rating_lists.py --games 10 --workers 2 --resume --out docs/strength.md
    python examples/rating_lists.py --only othello --games 2 --out runs/ratings.md   # a quick look

Each game's players (``tournaments.studies.rating_lists.FIELDS``: random, greedy, minimax,
alpha-beta and MCTS at the strength table's budgets, AlphaZero at 64 simulations, GNU Go and
GRhino at their levels) play one round robin into ``--journals/<game>.db``; ``arbiter ratings``'s
fit of each journal, anchored at ``greedy`` = 0, is written into ``--out`` as a CCRL-style table
between the block's markers (the rest of the document is kept). With ``--resume`` a journal's games
are kept and only the missing ones are played, so a complete set of journals regenerates the lists
without playing. The same list by hand, from one journal:

    arbiter ratings runs/ratings/othello_8x8.db --anchor greedy=0
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.studies import rating_lists  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Play one round robin per game and write its rating list.")
    parser.add_argument("--games", type=int, default=10, help="games per pair, even (default 10: 5 colour pairs)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=0, help="seeds every game, agent and the fit (default 0)")
    parser.add_argument(
        "--journals", type=Path, default=Path("runs/ratings"), help="where the journals go (default runs/ratings)"
    )
    parser.add_argument(
        "--out", type=Path, default=Path("runs/ratings.md"), help="the document to write the lists into"
    )
    parser.add_argument("--only", nargs="+", default=[], help="only the games whose label contains one of these")
    parser.add_argument("--no-learned", action="store_true", help="leave AlphaZero out (it needs torch)")
    parser.add_argument("--no-engines", action="store_true", help="leave GNU Go and GRhino out")
    parser.add_argument("--resume", action="store_true", help="keep the journals' games and play only the missing")
    args = parser.parse_args(argv)
    if args.workers < 0:
        parser.error(f"--workers {args.workers}: must be 0 or more")
    command = "python examples/rating_lists.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    try:
        chosen = rating_lists.fields(args.only, learned=not args.no_learned, engines=not args.no_engines)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        meta = rating_lists.run(
            chosen,
            args.out,
            journals=args.journals,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            resume=args.resume,
            command=command,
        )
    except rating_lists.RatingListError as exc:
        parser.error(str(exc))
    print(f"wrote {args.out}: {meta['played']} games played in {meta['wall'] / 60:.1f} minutes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
