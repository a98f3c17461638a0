"""Checking values that come from users: parameters, options and the text they are written in.

Every value a user hands Arbiter (a game parameter, an agent option, a command-line value) goes
through these before it reaches compiled code or a long run: a bad one is a ``ParameterError``
that names it (cut to its ends when it is huge), never an ``OverflowError`` or a crash later.
"""

from __future__ import annotations

import ast
import os
import stat

import numpy as np

from .errors import ParameterError


def shown(value, limit: int = 60) -> str:
    """``repr(value)`` for an error message, cut in the middle past ``limit`` characters: a
    parameter of ten thousand digits is named by its ends and length, not printed whole (and an
    int past Python's 4,300-digit conversion limit, whose ``repr`` raises, is named by its bits)."""
    try:
        text = repr(value)
    except ValueError:  # int too large to convert to str
        return f"<an int of {value.bit_length()} bits>"
    if len(text) <= limit:
        return text
    half = (limit - 5) // 2
    return f"{text[:half]}...{text[-half:]} ({len(text)} characters)"


LITERAL_LIMIT = 200  # characters: no parameter or option value needs more


def literal(text: str):
    """A value as a spec string or a command line writes it (``size=9``, ``komi=6.5``,
    ``exact_five=True``): the Python literal it reads as, else the text itself (``rules=openspiel``).
    Text past ``LITERAL_LIMIT`` characters stays text, so a hostile value (a hundred thousand
    minus signs) becomes a checked parameter's typed error instead of exhausting the parser's
    memory or recursion."""
    if len(text) > LITERAL_LIMIT:
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def is_int(value) -> bool:
    """An integer that is not a bool (numpy integers included)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


UNBOUNDED = 2**62  # the ``hi`` of an integer parameter with no upper bound of its own


def check_int(name, value, lo, hi, *, even=False):
    """Validate an integer parameter in ``[lo, hi]`` (optionally even); returns it as ``int``."""
    span = f"from {lo} to {hi}" if hi < UNBOUNDED else f"of at least {lo}"
    if not is_int(value):
        raise ParameterError(f"{name}={shown(value)}: expected an integer {span}")
    value = int(value)
    if not lo <= value <= hi or (even and value % 2):
        kind = "an even integer" if even else "an integer"
        raise ParameterError(f"{name}={shown(value)}: expected {kind} {span}")
    return value


def check_choice(name, value, allowed):
    """Validate a parameter that takes one of a few values (strings or bools); numpy's bools
    count as bools (a config read through numpy hands them out), numbers never do."""
    if isinstance(value, np.bool_):
        value = bool(value)
    for option in allowed:
        if type(value) is type(option) and value == option:
            return value
    options = ", ".join(repr(o) for o in allowed)
    raise ParameterError(f"{name}={shown(value)}: expected one of {options}")


def read_bounded(path, limit: int, what: str, error: type[ParameterError] = ParameterError) -> bytes:
    """The bytes of the file a user named (``what`` names it in errors): a regular file of at
    most ``limit`` bytes, else ``error``. Checked by ``fstat`` before a byte is read, because
    ``read()`` of ``/dev/zero`` never ends (it ran out of memory), of a FIFO blocks until a writer
    comes, and of a huge file takes the memory of its size; the read itself stops one byte past
    ``limit`` for a file that grows meanwhile."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO opens without a writer
    except (OSError, ValueError) as e:
        raise error(f"{what}: cannot read it ({getattr(e, 'strerror', None) or e})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file (a device, a pipe or a socket)"
            raise error(f"{what}: {kind}; expected a file")
        try:
            data = f.read(limit + 1) if info.st_size <= limit else b""
        except OSError as e:
            raise error(f"{what}: cannot read it ({e.strerror or type(e).__name__})") from None
    if info.st_size > limit or len(data) > limit:
        raise error(f"{what}: {max(info.st_size, len(data))} bytes or more, past the limit of {limit}")
    return data
