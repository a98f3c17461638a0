"""Output paths checked before any work: a file or directory that cannot be written is an
``OutputPathError`` naming it, raised before the first game is played, not a traceback after
the last one (when the games, unless journaled, would be lost with it).

    check_file("games.jsonl", "--jsonl")      # a file we may create or overwrite
    check_directory("sgf", "--sgf")           # a directory we may create and write files in

A check is a real attempt, not a reading of permission bits (which say nothing for root, a
read-only mount or a pseudo-filesystem such as ``/sys`` or ``/proc``): a file is opened for
appending, or created and removed again; a directory is created if missing and a temporary
file is made in it. The checks change nothing a user can see, except that a missing output
directory exists afterwards, as it would once the first file is written into it.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile

from envs.core import ArbiterError


class OutputPathError(ArbiterError):
    """An output file or directory that cannot be written (its option and the reason named)."""


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def check_file(path: str | os.PathLike[str], option: str) -> str:
    """``path`` as a string, after making sure a file can be written there (see the module)."""
    path = os.fspath(path)
    if not path:
        raise OutputPathError(f"{option} '': expected a file name")
    if os.path.isdir(path):
        raise OutputPathError(f"{option} {path}: is a directory, expected a file name")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise OutputPathError(f"{option} {path}: the directory {parent} does not exist")
    existed = os.path.exists(path)
    try:
        if existed:  # non-blocking: a FIFO without a reader is an error here, not a hang
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0)))
        else:
            with open(path, "xb"):
                pass
            os.remove(path)
    except OSError as exc:
        raise OutputPathError(f"{option} {path}: cannot write it ({_reason(exc)})") from None
    return path


def check_directory(path: str | os.PathLike[str], option: str) -> str:
    """``path`` as a string, after making sure it is (or can be made) a directory that files can
    be written into (see the module)."""
    path = os.fspath(path)
    if not path:
        raise OutputPathError(f"{option} '': expected a directory name")
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputPathError(f"{option} {path}: is a file, expected a directory")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise OutputPathError(f"{option} {path}: cannot write files in it ({_reason(exc)})") from None
    return path


# The installed packages: what Arbiter ships (weights, pattern tables, opening suites) lives in
# them, and a user's run writes there only when told to in so many words.
_PACKAGES = tuple(
    os.path.dirname(importlib.util.find_spec(name).origin)  # where each package is, not this file
    for name in ("envs", "agents", "tournaments")
)
OVERWRITE_SHIPPED = "--overwrite-shipped"


def ships(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` lies inside one of Arbiter's packages (``envs``, ``agents``,
    ``tournaments``), symbolic links followed: a file there is part of what we ship."""
    real = os.path.realpath(os.fspath(path))
    return any(real == root or real.startswith(root + os.sep) for root in map(os.path.realpath, _PACKAGES))


def check_not_shipped(path: str | os.PathLike[str], option: str, overwrite: bool = False) -> str:
    """``path`` as a string, unless it lies inside the packages (``ships``) and ``overwrite``
    was not asked for: training and fitting scripts write to ``runs/`` by default, and replacing
    the shipped weights, tables or suites takes ``--overwrite-shipped``."""
    path = os.fspath(path)
    if ships(path) and not overwrite:
        raise OutputPathError(
            f"{option} {path}: inside the installed package, over what Arbiter ships; write elsewhere "
            f"(runs/ by default) or pass {OVERWRITE_SHIPPED} to replace the shipped file"
        )
    return path
