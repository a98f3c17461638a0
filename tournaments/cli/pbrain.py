"""``arbiter pbrain``: a Gomoku agent served as a Gomocup (piskvork) brain."""

from __future__ import annotations

from agents.gomocup.cli import add_arguments, params_of
from agents.gomocup.cli import run as serve

from ._common import check_seed


def add(sub):
    add_arguments(sub.add_parser("pbrain", help="serve a Gomoku agent as a Gomocup (piskvork) brain"))


def run(args) -> int:
    return serve(args.agent, params_of(args.param), check_seed(args.seed))
