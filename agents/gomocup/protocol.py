"""The Gomocup (piskvork) protocol's wire format, as both sides of it speak it.

The manager (piskvork, c-gomoku-cli, Yixin-Board, our ``gomocup`` agent) talks to a *brain* (an
engine program, ``pbrain-*``; ``arbiter pbrain``) on its stdin and stdout, one command a line:

============================ ============================================ ======================
manager sends                meaning                                      brain answers
============================ ============================================ ======================
``START 15``                 a new match on a 15x15 board                 ``OK`` or ``ERROR msg``
``RESTART``                  a new game, same board                       ``OK`` (or ``UNKNOWN``)
``INFO key value``           ``timeout_turn``/``timeout_match``/           nothing
                             ``time_left`` (ms), ``max_memory`` (bytes),
                             ``rule`` (bits), ``game_type``, ...
``BEGIN``                    the brain plays first, on the empty board    its move ``x,y``
``TURN x,y``                 the opponent played ``x,y``                  its move ``x,y``
``BOARD`` / ``x,y,f`` / ...  a whole position, the moves in their order   its move ``x,y``
``DONE``                     (``f`` 1: the brain's stone, 2: the
                             opponent's), the brain to move
``TAKEBACK x,y``             undo the last move, at ``x,y``               ``OK``
``ABOUT``                    who are you                                  ``name="..", version=..``
``END``                      quit                                         nothing: it exits
============================ ============================================ ======================

A point ``x,y`` is zero-based, ``x`` the column from the left and ``y`` the row from the top, so
on Arbiter's Gomoku board (action ``r * N + c``, row ``r`` counted from the top row, which the
notation calls row ``N``) the point ``x,y`` is action ``y * N + x``: ``0,0`` is ``a15`` on 15x15.

``INFO rule`` is a set of bits: 1 exactly five in a row wins (an overline does not), 2 the game
goes on after a five (continuous), 4 renju, 8 caro. Arbiter's Gomoku is rule 0 (freestyle, five
or more) or rule 1 (``exact_five=True``).

Besides its answer a brain may write, at any time, ``MESSAGE text`` and ``DEBUG text`` (for the
manager's log), ``ERROR text`` (a command it could not carry out; in place of an answer, a
refusal) and ``UNKNOWN text`` (a command it does not know). The parsers here refuse malformed
input with ``WireError`` (a ``ValueError``) naming what was wrong.
"""

from __future__ import annotations

import re

GAME = "gomoku"  # the one game the protocol is for
RULE_EXACT_FIVE = 1
RULE_CONTINUOUS = 2
RULE_RENJU = 4
RULE_CARO = 8
NO_LIMIT_MS = 2147483647  # ``time_left`` when the match has no time limit (piskvork's "infinite")
OWN, OPPONENT, WINNING = 1, 2, 3  # the field of a BOARD line: whose stone, or the winning line
NOTES = ("MESSAGE", "DEBUG")  # lines a brain may write at any time, for the log
REFUSALS = ("ERROR", "UNKNOWN")  # lines a brain writes in place of an answer
_POINT = re.compile(r"\s*([0-9]{1,3})\s*,\s*([0-9]{1,3})\s*")
_BOARD_LINE = re.compile(r"\s*([0-9]{1,3})\s*,\s*([0-9]{1,3})\s*,\s*([0-9])\s*")
_ABOUT_FIELD = re.compile(r'\s*([A-Za-z_]+)\s*=\s*"([^"]*)"\s*,?')


class WireError(ValueError):
    """A line that is not what the protocol says (a point that is no ``x,y``, a bad BOARD line)."""


def rule_of(exact_five: bool) -> int:
    """The ``INFO rule`` value of Arbiter's Gomoku rules."""
    return RULE_EXACT_FIVE if exact_five else 0


def exact_five_of(rule: int) -> bool:
    """``exact_five`` of an ``INFO rule`` value; ``WireError`` for a rule Arbiter does not play
    (renju, caro). The continuous bit is the manager's business (when a game ends) and ignored."""
    if rule < 0 or rule & ~(RULE_EXACT_FIVE | RULE_CONTINUOUS):
        names = [name for bit, name in ((RULE_RENJU, "renju"), (RULE_CARO, "caro")) if rule & bit]
        raise WireError(
            f"rule {rule} ({' and '.join(names) or 'unknown bits'}) is not supported: "
            "Arbiter plays rule 0 (freestyle) and rule 1 (exactly five)"
        )
    return bool(rule & RULE_EXACT_FIVE)


def point(action: int, size: int) -> str:
    """Arbiter's Gomoku ``action`` on a ``size`` board as ``x,y``."""
    row, column = divmod(int(action), size)
    return f"{column},{row}"


def read_point(text: str, size: int) -> int:
    """The action ``x,y`` names on a ``size`` board; ``WireError`` for anything else or a point
    off the board."""
    match = _POINT.fullmatch(text)
    if match is None:
        raise WireError(f"{text[:40]!r} is not a point: expected x,y (column and row from 0)")
    x, y = int(match.group(1)), int(match.group(2))
    if not (x < size and y < size):
        raise WireError(f"{x},{y} is off the {size}x{size} board (x and y run from 0 to {size - 1})")
    return y * size + x


def board_line(action: int, size: int, field: int) -> str:
    """One line of a BOARD command: ``x,y,field``."""
    return f"{point(action, size)},{field}"


def read_board_line(text: str, size: int) -> tuple[int, int]:
    """``(action, field)`` of one BOARD line ``x,y,field``; ``WireError`` otherwise."""
    match = _BOARD_LINE.fullmatch(text)
    if match is None:
        raise WireError(f"BOARD line {text[:40]!r}: expected x,y,field (field 1 own, 2 opponent)")
    field = int(match.group(3))
    if field not in (OWN, OPPONENT, WINNING):
        raise WireError(f"BOARD line {text.strip()!r}: field {field} is none of 1 (own), 2 (opponent), 3")
    return read_point(f"{match.group(1)},{match.group(2)}", size), field


def split(line: str) -> tuple[str, str]:
    """``(keyword upper-case, the rest)`` of a line: ``"TURN 7,7"`` gives ``("TURN", "7,7")``."""
    head, _, rest = line.strip().partition(" ")
    return head.upper(), rest.strip()


def about(fields: dict[str, str]) -> str:
    """The ``ABOUT`` answer: ``name="...", version="...", ...`` (a quote in a value becomes ``'``)."""
    return ", ".join(f'{key}="{str(value).replace(chr(34), chr(39))}"' for key, value in fields.items())


def read_about(text: str) -> dict[str, str]:
    """The fields of an ``ABOUT`` answer (those written ``key="value"``; others are skipped)."""
    return {key.lower(): value for key, value in _ABOUT_FIELD.findall(text)}
