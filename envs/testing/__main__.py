"""``python -m envs.testing``: run the contract checks on registered games and print each result.

    python -m envs.testing connect_four --module connect_four
    python -m envs.testing go --param size=5 --check protocol --check notation --seed 3
    python -m envs.testing othello --variants

``--module`` imports a module first (repeatable): one that registers your game, or a game package
that declares it as ``SPEC`` (the layout of docs/adding-a-game.md), which is then registered if
its name is free. Every check
runs, even after one fails, and prints one line (``ok`` or ``FAIL`` and its time), a failure
followed by its report; the exit status is 0 when all pass, 1 when one failed, 2 for a usage
error (an unknown game, check or parameter, a module that does not import).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import sys
import time

from ..core import ArbiterError
from ..framework_ids import register
from ..registry import GameSpec, names
from . import CHECKS, GAMES, ContractError, as_game, variant_id, variants


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m envs.testing",
        description="Run the contract checks of envs.testing on registered games.",
        epilog="Checks, in order: " + ", ".join(CHECKS) + ". Exit status: 0 all passed, 1 a check failed, "
        "2 usage error.",
    )
    parser.add_argument("names", nargs="+", metavar="game", help="registered game names")
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        metavar="MODULE",
        help="import MODULE first: one that registers your game, or a game package whose "
        "SPEC is then registered; repeatable",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a rule parameter (VALUE read as a Python literal, else as a string); repeatable",
    )
    parser.add_argument(
        "--variants", action="store_true", help="check every configuration envs.testing.variants derives from the spec"
    )
    parser.add_argument(
        "--check",
        action="append",
        choices=list(CHECKS),
        metavar="CHECK",
        help=f"run only this check ({', '.join(CHECKS)}); repeatable",
    )
    parser.add_argument("--seed", type=int, default=0, help="the seed of the games played (default 0)")
    parser.add_argument("--games", type=int, default=GAMES, help=f"random games per check (default {GAMES})")
    return parser


def _param(text: str) -> tuple:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise ValueError(f"--param {text!r}: expected NAME=VALUE")
    try:
        return name.strip(), ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name.strip(), value


def main(argv=None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.variants and args.param:
        parser.error("--variants checks the derived configurations: give no --param with it")
    for module in args.module:
        try:
            declared = getattr(importlib.import_module(module), "SPEC", None)
        except ImportError as error:
            parser.error(f"--module {module}: {error}")
        if isinstance(declared, GameSpec) and declared.name not in names():
            register(declared)
    try:
        params = dict(_param(p) for p in args.param)
        runs = [(name, config) for name in args.names for config in (variants(name) if args.variants else [params])]
        configured = [(as_game(name, config), variant_id(config)) for name, config in runs]
    except (ArbiterError, ValueError) as error:
        parser.error(str(error))
    checks = [c for c in CHECKS if args.check is None or c in args.check]
    failed = passed = 0
    for game, label in configured:
        print(f"{game!r} [{label}]", flush=True)
        for name in checks:
            start = time.perf_counter()
            try:
                CHECKS[name](game, seed=args.seed, games=args.games)
            except ContractError as error:
                failed += 1
                print(f"  {name:<12} FAIL {time.perf_counter() - start:6.2f} s", flush=True)
                print("\n".join("      " + line for line in str(error).splitlines()), flush=True)
                continue
            except ArbiterError as error:  # --seed or --games out of range
                parser.error(str(error))
            passed += 1
            print(f"  {name:<12} ok   {time.perf_counter() - start:6.2f} s", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
