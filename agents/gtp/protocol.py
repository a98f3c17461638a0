"""The Go Text Protocol's wire format, as both sides of it speak it (GTP version 2).

A command is one line: an optional numeric id, the command's name and its arguments; control
characters other than tab and newline are dropped and ``#`` starts a comment. A response is
``=`` (success) or ``?`` (failure), the id echoed, a space and the text, ended by an empty line.
Colours are ``b``/``black`` and ``w``/``white``; a vertex is the game's notation for a move,
written upper-case as GTP writes vertices and read in any case:

======== ====================================== ==============================================
game     written                                read as well
======== ====================================== ==============================================
Go       ``C3`` (columns skip I), ``pass``      ``c3``
Othello  ``D3`` (GRhino's rows), ``pass``       ``d3``
Gomoku   ``H8`` (columns skip no letter)        ``h8``
LOA      ``B1-B3``, a capture ``C1XA3``         ``b1-b3``, ``c1xa3``, ``c1:a3``, the squares
                                                alone (``b1b3``, ``c1a3``); ``pass``
======== ====================================== ==============================================

A Lines of Action move is one token, its from-square and its to-square.

The parsers here refuse what they cannot read with ``Refusal``, whose message is GTP's own text
(``syntax error``, ``invalid color or coordinate``), and bound what they read: no line is held
past ``MAX_LINE`` characters and no digit string is converted past ten digits, so a buggy
controller (or anything behind the socket ``arbiter gtp`` may sit behind) cannot exhaust the
engine.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, TextIO

from envs.core import ArbiterError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from envs.game import Game

COLOURS = ("black", "white")  # by seat: GTP's names of seat 0 and seat 1
MAX_LINE = 16384  # characters of a command line; the longest real command is loadsgf with a long path
RESPONSE_END = b"\n\n"  # an empty line ends every response
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # GTP: dropped, except HT and LF
_DIGITS = re.compile(r"[0-9]+")
_SQUARE = re.compile(r"[a-z][0-9]+")  # one square of a move in notation (b1-b3: b1, b3)


class Refusal(Exception):
    """A GTP failure response (``? message``): the command is refused, the engine goes on."""


# -- commands ------------------------------------------------------------------------------------


def command_lines(infile: TextIO) -> Iterator[tuple[str, bool]]:
    """``(line, complete)`` for each line of ``infile``; a line longer than MAX_LINE comes as its
    first characters with ``complete`` False, the rest read and dropped, never held whole."""
    while True:
        line = infile.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) <= MAX_LINE or line.endswith("\n"):
            yield line, True
            continue
        while True:
            rest = infile.readline(MAX_LINE)
            if not rest or rest.endswith("\n"):
                break
        yield line[:64], False


def parse_command(line: str) -> tuple[str, str, list[str]] | None:
    """``(id, name, args)`` of a command line (``id`` "" when it has none, ``name`` lower-case);
    None for a line that holds no command (empty, a comment, an id alone)."""
    words = _CONTROL.sub("", line.split("#", 1)[0]).replace("\t", " ").split()
    if not words:
        return None
    ident = ""
    if _DIGITS.fullmatch(words[0]):
        ident, words = words[0], words[1:]
        if not words:
            return None
    return ident, words[0].lower(), words[1:]


# -- responses -----------------------------------------------------------------------------------


def response(ok: bool, ident: str, text: str) -> str:
    """The text of one response: ``=id text`` or ``?id text``, then the empty line."""
    return f"{'=' if ok else '?'}{ident} {text}".rstrip(" ") + RESPONSE_END.decode()


def parse_response(answer: bytes) -> tuple[bool, str] | None:
    """``(success, text)`` of one response's bytes (without the empty line that ends it); None
    for anything that is not a GTP response (it starts with neither ``=`` nor ``?``)."""
    if answer[:1] not in (b"=", b"?"):
        return None
    return answer[:1] == b"=", answer[1:].decode(errors="replace").strip()


# -- arguments -----------------------------------------------------------------------------------


def colour(text: str) -> int:
    """The seat a GTP colour names; ``invalid color or coordinate`` for anything else."""
    text = text.lower()
    if text in ("b", "black"):
        return 0
    if text in ("w", "white"):
        return 1
    raise Refusal("invalid color or coordinate")


def vertex(game: Game, state: ArrayLike, action: int) -> str:
    """``action`` as a GTP vertex: the game's notation upper-case, as GTP writes vertices (Go's
    ``C3``; Lines of Action's ``B1-B3``, a capture ``C1XA3``); a pass ``pass``."""
    if action == game.pass_action:
        return "pass"
    return game.action_to_str(state, action).upper()


def read_vertex(game: Game, state: ArrayLike, text: str) -> int:
    """The action a GTP vertex names in ``state`` (legal or not, which is for the caller to say);
    ``invalid color or coordinate`` if it names none.

    Any case is read. A move written without its separator (Lines of Action ``b1b3`` for
    ``b1-b3``, as engines that write a move as two squares do) names the legal move whose
    notation it is once the separator is left out."""
    text = text.strip().lower()
    try:
        return int(game.spec.notation.parse_move(game, state, text))
    except ArbiterError:
        pass
    if text.isalnum() and not game.is_terminal(state):
        for action in game.legal_actions(state):
            if "".join(_SQUARE.findall(game.action_to_str(state, int(action)).lower())) == text:
                return int(action)
    raise Refusal("invalid color or coordinate")


def number(text: str) -> float:
    """A finite, non-negative number of seconds; ``syntax error`` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise Refusal("syntax error") from None
    if value < 0 or not math.isfinite(value):
        raise Refusal("syntax error")
    return value


def count(text: str, most: int = 10**9) -> int:
    """A whole number written in ASCII digits, at most ``most``; ``syntax error`` otherwise (so
    no digit string is ever long enough to cost time to convert)."""
    digits = text.lstrip("0") or "0"
    if not _DIGITS.fullmatch(text) or len(digits) > len(str(most)) or int(digits) > most:
        raise Refusal("syntax error")
    return int(digits)


def size(text: str) -> int:
    """A board size as ``boardsize`` takes it: ASCII digits (``syntax error`` otherwise), more
    than three of them (after leading zeros) ``unacceptable size`` before any conversion."""
    if not _DIGITS.fullmatch(text):
        raise Refusal("syntax error")
    digits = text.lstrip("0") or "0"
    if len(digits) > 3:
        raise Refusal("unacceptable size")
    return int(digits)
