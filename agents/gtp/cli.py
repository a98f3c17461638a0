"""``arbiter gtp``: serve an Arbiter agent over GTP on stdin and stdout.

    arbiter gtp --game go --size 9 --agent mcts:simulations=5000

GoGui, Sabaki or a referee starts it as an engine. Bad arguments (an unknown game or agent, a
komi that is no finite number) are one line on stderr and exit status 2, as the other
``arbiter`` commands; once the session runs, every command is answered (``agents.gtp.server``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import envs
from envs.core import ArbiterError

from ..base import make, parse_spec
from .server import komi_param, serve


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``arbiter gtp --game go --size 9 --agent mcts:simulations=5000``."""
    parser = argparse.ArgumentParser(prog="arbiter gtp", description="Serve an Arbiter agent over GTP on stdin/stdout.")
    parser.add_argument(
        "--game",
        default="loa",
        choices=sorted(s.name for s in envs.specs() if s.num_players == 2),
        help="the game to play, in its own notation (Go's vertices; Othello as GRhino writes it; Gomoku's "
        "points, H8; Lines of Action's from-to moves, B1-B3); default %(default)s, as every arbiter command",
    )
    parser.add_argument("--size", type=int, help="board size (the game's default if omitted)")
    parser.add_argument("--komi", type=float, help="komi for Go")
    parser.add_argument("--rules", default="standard", help="rule preset, e.g. 'openspiel'")
    parser.add_argument(
        "--agent",
        default="mcts:seconds=5",
        help="agent spec (default %(default)s); 'arbiter agents --game G' lists those that play G",
    )
    parser.add_argument("--seed", type=int, default=0, help="agent seed unless the spec sets one")
    parser.add_argument(
        "--no-resign", action="store_true", help="never answer genmove with resign: play every game out"
    )
    args = parser.parse_args(argv)
    params = {"rules": args.rules}
    if args.size is not None:
        params["size"] = args.size
    if args.komi is not None:
        params["komi"] = komi_param(args.komi)

    if hasattr(sys.stdin, "reconfigure"):  # a controller's stray bytes are not a crash
        sys.stdin.reconfigure(errors="replace")
    try:
        try:
            game = envs.make_game(args.game, **params)
        except ArithmeticError as exc:  # a komi too large for the game's arithmetic
            raise envs.ParameterError(f"komi={args.komi!r}: {exc}") from None
        options = parse_spec(args.agent)[1]
        agent = make(args.agent, **({} if "seed" in options else {"seed": args.seed}))
        agent.check_ready(game)  # before the first command, not at the first genmove: its options too
        serve(game, agent, sys.stdin, sys.stdout, resign=not args.no_resign)
    except ArbiterError as exc:  # bad input: one line, status 2, as the other commands
        print(f"arbiter gtp: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the controller went away: nothing left to answer, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
