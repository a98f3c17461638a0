"""The shared core: what every layer of Arbiter may import, and which imports nothing else of it.

    errors       the error hierarchy (``ArbiterError`` and its kinds: every bad input is one)
    checks       checking values users hand in: parameters, options, the text they are written in
    rng          random streams for compiled code (SplitMix64): every random choice flows from one
    kernel       the state layout and the helpers every game kernel shares
    generic      the ``@per_game`` mark of generic compiled code
    hooks        the hooks a game provides to generic code, and the defaults of the optional ones
    specialise   compiling generic code once per game, so that it stays on numba's disk cache
    compiling    a notice on stderr before a first compile, and the seconds spent compiling
    outcome      how a game ended: one type from the kernel's header to the journal and the report

Games (``envs``), agents and tournaments sit above it and import it; it imports none of them, so
the layers point one way: ``envs.core`` <- ``envs`` <- ``agents`` <- ``tournaments``. The errors
and the checks are importable from here directly (``from envs.core import ParameterError``).
"""

from . import compiling  # noqa: F401 (installs its numba listeners: every first compile is announced)
from .checks import (
    LITERAL_LIMIT,
    UNBOUNDED,
    check_choice,
    check_int,
    is_int,
    literal,
    shown,
)
from .errors import (
    ArbiterError,
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)

__all__ = [
    "ArbiterError",
    "ParameterError",
    "StateError",
    "IllegalActionError",
    "NotationError",
    "TextBoardError",
    "LITERAL_LIMIT",
    "UNBOUNDED",
    "check_choice",
    "check_int",
    "is_int",
    "literal",
    "shown",
]
