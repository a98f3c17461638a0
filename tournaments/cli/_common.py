"""What several subcommands share: option checks, the game options, the SPRT options and SIGTERM
as Ctrl-C."""

from __future__ import annotations

import signal
from contextlib import contextmanager

import envs
from agents.clock import seconds

from ..analysis.sprt import SPRT

MAX_SEED = 2**63 - 1


def check_seed(seed) -> int:
    if not 0 <= seed <= MAX_SEED:
        raise envs.ParameterError(f"--seed {seed}: expected an integer from 0 to 2**63 - 1")
    return seed


def check_positive(option, value, allow_none=True):
    """A positive number of seconds, at most a day, written in ASCII digits (``agents.clock.seconds``:
    ``float`` alone would take ``1_0``, other scripts' digits and ``1e300``), or None where the
    option is optional."""

    if value is None and allow_none:
        return None
    return seconds(value, f"{option} {value}", positive=True)


def check_count(option, value, lo):
    if value is not None and value < lo:
        raise envs.ParameterError(f"{option} {value}: expected an integer of at least {lo}")
    return value


def game_params(pairs) -> dict:
    """``["size=9", "komi=7.5"]`` → ``{"size": 9, "komi": 7.5}`` (values as Python literals)."""
    params = {}
    for item in pairs or []:
        key, eq, value = item.partition("=")
        if not eq:
            raise envs.ParameterError(f"-p {item}: expected key=value, e.g. -p size=9")
        params[key.strip()] = envs.core.literal(value.strip())
    return params


def add_game(p, two_players=False):
    names = [s.name for s in envs.specs() if s.num_players == 2 or not two_players]
    p.add_argument(
        "--game",
        default="loa",
        choices=sorted(names),
        help="the game ('arbiter games' lists them with their parameters; default %(default)s)",
    )
    p.add_argument(
        "-p", "--param", action="append", metavar="KEY=VALUE", help="a game parameter, e.g. -p size=9 (repeatable)"
    )


def add_sprt(p, what: str) -> None:
    p.add_argument(
        "--sprt",
        nargs="+",
        metavar="ELO0,ELO1,ALPHA,BETA",
        help=f"{what}: H0 'A is ELO0 Elo better' against H1 'ELO1 better' at error rates ALPHA, BETA "
        "(also as four words: --sprt 0 50 0.05 0.05); the pentanomial GSPRT with fastchess's exact "
        "maximum likelihood",
    )
    p.add_argument(
        "--sprt-model",
        default="logistic",
        choices=["logistic", "normalized"],
        help="Elo scale of ELO0/ELO1 (default %(default)s; fastchess's default is normalized)",
    )
    p.add_argument(
        "--sprt-method",
        default="mle",
        choices=["mle", "normal"],
        help="mle: the exact constrained maximum likelihood, as fastchess; normal: the normal approximation "
        "(default %(default)s)",
    )


def sprt_of(args):
    return SPRT.parse(args.sprt, model=args.sprt_model, method=args.sprt_method)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is, as Ctrl-C raises ``KeyboardInterrupt``: a service
    manager's stop (systemd, Docker, a batch queue) ends a tournament as Ctrl-C does, its games
    journaled, its workers gone and the command that resumes it printed, not silently at 143."""


@contextmanager
def terminate_as_interrupt():
    """Within the block, SIGTERM raises ``Terminated`` (the handler before is restored after)."""

    def terminate(signum, frame):
        raise Terminated

    before = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)
