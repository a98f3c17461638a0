"""``arbiter pbrain``: serve an Arbiter Gomoku agent as a Gomocup brain on stdin and stdout.

    arbiter pbrain --agent mcts:seconds=5 [-p size=15] [-p exact_five=true]

piskvork, c-gomoku-cli or Yixin-Board run it as a brain (a manager that wants one executable
file gets a two-line shell script that ``exec``s this command). Bad arguments (an unknown agent,
one that does not play Gomoku, a game parameter out of range) are one line on stderr and exit
status 2, as the other ``arbiter`` commands; once the brain runs, every command is answered
(``agents.gomocup.server``). ``python -m agents.gomocup`` is the same command.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence

import envs
from envs.core import ArbiterError, literal

from ..base import make, parse_spec
from .protocol import GAME
from .server import serve

DEFAULT_AGENT = "mcts:seconds=5"


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The command's options, on ``parser`` (``arbiter pbrain`` and ``python -m agents.gomocup``)."""
    parser.add_argument(
        "--agent",
        default=DEFAULT_AGENT,
        help="agent spec (default %(default)s); 'arbiter agents --game gomoku' lists those that play it",
    )
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="a Gomoku parameter to start with, e.g. -p exact_five=true (START and INFO rule change them)",
    )
    parser.add_argument("--seed", type=int, default=0, help="agent seed unless the spec sets one")
    return parser


def params_of(pairs: Sequence[str] | None) -> dict[str, object]:
    """``["size=9"]`` → ``{"size": 9}`` (values as Python literals)."""
    params: dict[str, object] = {}
    for item in pairs or []:
        key, eq, value = item.partition("=")
        if not eq:
            raise envs.ParameterError(f"-p {item}: expected key=value, e.g. -p size=15")
        params[key.strip()] = literal(value.strip())
    return params


def run(agent_spec: str, params: Mapping[str, object], seed: int = 0) -> int:
    """Check the agent and the game, then serve on stdin/stdout; the exit status. Bad input
    raises ``ArbiterError`` before the first command is read."""
    game = envs.make_game(GAME, **params)
    options = parse_spec(agent_spec)[1]
    agent = make(agent_spec, **({} if "seed" in options else {"seed": seed}))
    agent.check_ready(game)
    if hasattr(sys.stdin, "reconfigure"):  # a manager's stray bytes are not a crash
        sys.stdin.reconfigure(errors="replace")
    try:
        serve(game, agent, sys.stdin, sys.stdout, name=agent_spec)
    except BrokenPipeError:  # the manager went away: nothing left to answer, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m agents.gomocup --agent mcts:seconds=5``."""
    parser = add_arguments(
        argparse.ArgumentParser(prog="arbiter pbrain", description="Serve a Gomoku agent as a Gomocup brain.")
    )
    args = parser.parse_args(argv)
    try:
        return run(args.agent, params_of(args.param), args.seed)
    except ArbiterError as exc:  # bad input: one line, status 2, as the other commands
        print(f"arbiter pbrain: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
