"""``arbiter export``: a journal's games as SGF files."""

from __future__ import annotations

import envs

from ..referee.outputs import check_directory
from ..referee.reading import load_journal


def add(sub):
    p = sub.add_parser("export", help="write the games of a tournament journal as SGF files")
    p.add_argument("journal", help="the SQLite journal of arbiter tournament --journal")
    p.add_argument("--sgf", required=True, metavar="DIR", help="directory for one SGF file per game")


def run(args) -> int:
    result = load_journal(args.journal)
    if envs.spec(result.config["game"]).sgf is None:
        raise envs.ParameterError(f"--sgf {args.sgf}: {result.config['game']} games have no SGF format")
    check_directory(args.sgf, "--sgf")
    paths = result.to_sgf(args.sgf)
    print(f"wrote {len(paths)} SGF files into {args.sgf}")
    return 0
