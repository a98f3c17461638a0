"""``arbiter gtp``: an agent served over GTP (``agents.gtp`` parses its own arguments)."""

from __future__ import annotations

from agents import gtp


def add(sub):
    sub.add_parser("gtp", help="serve an agent over GTP (see: arbiter gtp --help)", add_help=False)


def run(rest) -> int:
    return gtp.main(rest) or 0
