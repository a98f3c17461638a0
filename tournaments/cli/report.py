"""``arbiter report``: a journal as one self-contained HTML page."""

from __future__ import annotations

from ..referee.outputs import check_file
from ..referee.report import write_report


def add(sub):
    p = sub.add_parser("report", help="write a tournament journal as one self-contained HTML page")
    p.add_argument("journal", help="the SQLite journal of arbiter tournament --journal")
    p.add_argument("-o", "--out", default="report.html", help="HTML file to write (default %(default)s)")


def run(args) -> int:
    check_file(args.out, "-o")
    path = write_report(args.journal, args.out)
    print(f"wrote {path}")
    return 0
