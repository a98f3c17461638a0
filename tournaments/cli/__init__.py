"""The ``arbiter`` command line.

    arbiter tournament --game loa --system swiss --agents random greedy "alphabeta:depth=3" \\
                       --workers 2 --journal run.db [--resume]
    arbiter tournament --game othello --system gauntlet --candidates "mcts:simulations=400" \\
                       --agents random greedy "alphabeta:depth=2" --games 20 --openings builtin
    (Ctrl-C stops it without a traceback, exit status 130, and prints the line that resumes it)
    arbiter study [--out study_out] [--parts grid models placing budget] [--plot DIR] [--executor ray]
    arbiter play --game gomoku -p size=9 --black human --white "alphabeta:depth=3"
    arbiter gtp --game go --size 9 --agent mcts:seconds=5        (delegates to agents.gtp)
    arbiter pbrain --agent mcts:seconds=5        (a Gomocup brain; delegates to agents.gomocup)
    arbiter match --game othello -a greedy -b random --games 400 --sprt 0 50 0.05 0.05
    arbiter report run.db -o report.html
    arbiter ratings a.db b.jsonl c.csv --anchor random=0   (one rating list from journals and records)

A subcommand is a module of this package (``tournament``, ``study``, ``play``, ``gtp``, ``pbrain``,
``match``, ``report``, ``games``, ``agents``, ``export``, ``ratings``) with two functions,
``add(subparsers)`` and ``run(args)``, listed in ``COMMANDS``; ``_common`` holds what several
share. ``gtp`` forwards its whole argument list to ``agents.gtp.main``. Nothing in the library
imports this package: it is the top of the house.

Everything a command is given is checked before its first game or simulation: option values,
agents (that they parse and can play the game here, extras included) and every output path
(``tournaments.referee.outputs``), so careless input costs one line on stderr and exit status 2, never a
traceback, and never a run whose results cannot be written once it is over.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import envs

from ..referee.journal import JournalError
from ..referee.matches import MatchError
from . import agents, export, games, gtp, match, pbrain, ratings, report, study, tournament
from . import play as play_command
from .play import play, result_line  # ``tournaments.cli.play`` is the function (the module: play_command)

__all__ = ["main", "play", "result_line", "COMMANDS"]

COMMANDS = {
    "tournament": tournament,
    "study": study,
    "play": play_command,
    "gtp": gtp,
    "pbrain": pbrain,
    "match": match,
    "report": report,
    "games": games,
    "agents": agents,
    "export": export,
    "ratings": ratings,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "gtp":  # GTP has its own parser; pass everything through
        return gtp.run(argv[1:])
    parser = argparse.ArgumentParser(prog="arbiter", description="Arbiter: games, agents, tournaments.")
    parser.add_argument("--version", action="version", version=f"arbiter {envs.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS.values():
        command.add(sub)
    args = parser.parse_args(argv)
    args.argv = argv  # a command that was interrupted tells the exact line that resumes it
    try:
        return COMMANDS[args.command].run(args)
    except (envs.ArbiterError, JournalError) as e:  # bad input: one line, status 2 (as argparse's own)
        parser.exit(2, f"arbiter {args.command}: error: {_one_line(e)}\n")
    except MatchError as e:  # an agent forfeited a match game: the match measures nothing
        parser.exit(1, f"arbiter {args.command}: error: {_one_line(e)}\n")
    except KeyboardInterrupt:  # Ctrl-C in play, match, study (a tournament reports its journal itself)
        sys.stderr.write(f"\narbiter {args.command}: interrupted\n")
        return 130
    except BrokenPipeError:  # ``arbiter agents | head``: the reader left; no traceback for that
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _one_line(error) -> str:
    return " ".join(str(error).split()) or type(error).__name__
