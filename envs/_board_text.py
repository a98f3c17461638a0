"""Text boards shared by the four board games: a grid with coordinates and one status line.

    8 . x x x x x x .
    7 o . . . . . . o
    ...
      a b c d e f g h
    to_move=x ply=0

The grid is printed top row first. Row labels and column letters come from the game's notation
(LOA and Gomoku count rows bottom to top, Othello top to bottom; Go skips the letter i), so the
text a human reads matches the moves they type. The status line is ``key=value`` tokens; each
game says which keys it writes and requires. Parsing is strict: anything unexpected raises
``TextBoardError`` naming the line and what was expected.
"""

from __future__ import annotations

import numpy as np

from .core import TextBoardError

SYMBOLS = ".xo"  # empty, seat 0 (Black), seat 1 (White)


def format_board(grid: np.ndarray, columns: str, row_labels: list[str], status: dict) -> str:
    """``grid`` is (N, N) with 0 empty, 1 seat 0, 2 seat 1 (plus optional extra symbols)."""
    width = max(len(label) for label in row_labels)
    lines = []
    for r, label in enumerate(row_labels):
        cells = " ".join(SYMBOLS[v] for v in grid[r])
        lines.append(f"{label.rjust(width)} {cells}")
    lines.append(" " * width + " " + " ".join(columns))
    lines.append(" ".join(f"{k}={v}" for k, v in status.items()))
    return "\n".join(lines) + "\n"


def parse_board(text: str, columns: str, row_labels: list[str], keys: tuple[str, ...]):
    """Inverse of ``format_board``: returns ``(grid, status)`` or raises ``TextBoardError``.

    ``keys`` lists the status keys that must be present (others are rejected).
    """
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    n = len(row_labels)
    if len(lines) != n + 2:
        raise TextBoardError(
            f"text board has {len(lines)} non-empty lines: expected {n} board rows, a column line and a status line"
        )
    grid = np.zeros((n, n), dtype=np.int64)
    for r, label in enumerate(row_labels):
        parts = lines[r].split()
        if len(parts) != n + 1 or parts[0] != label:
            raise TextBoardError(f"board line {lines[r]!r}: expected row label {label!r} and {n} cells")
        for c, sym in enumerate(parts[1:]):
            if len(sym) != 1 or sym.lower() not in SYMBOLS:
                raise TextBoardError(f"board line {lines[r]!r}: cell {sym!r} is not one of {' '.join(SYMBOLS)}")
            grid[r, c] = SYMBOLS.index(sym.lower())
    if lines[n].split() != list(columns):
        raise TextBoardError(f"column line {lines[n]!r}: expected {' '.join(columns)}")
    status = {}
    for token in lines[n + 1].split():
        key, sep, value = token.partition("=")
        if not sep or key not in keys or key in status:
            raise TextBoardError(f"status token {token!r}: expected each of {', '.join(keys)} once as key=value")
        status[key] = value
    missing = [k for k in keys if k not in status]
    if missing:
        raise TextBoardError(f"status line {lines[n + 1]!r}: missing {', '.join(missing)}")
    return grid, status


def parse_seat(value: str) -> int:
    if value not in ("x", "o"):
        raise TextBoardError(f"to_move={value!r}: expected x or o")
    return "xo".index(value)


def parse_count(key: str, value: str, hi: int) -> int:
    if not value.isdigit() or int(value) > hi:
        raise TextBoardError(f"{key}={value!r}: expected an integer from 0 to {hi}")
    return int(value)


def letters(n: int, skip_i: bool = False) -> str:
    """Column letters a, b, c, ... (Go skips i, as GTP does)."""
    alphabet = "abcdefghjklmnopqrstuvwxyz" if skip_i else "abcdefghijklmnopqrstuvwxyz"
    return alphabet[:n]


def parse_square(text: str, columns: str, n: int, bottom_up: bool):
    """``(row, col)`` of a square like ``h8`` (row 0 = top), or None if it does not parse."""
    if len(text) < 2 or text[0] not in columns or not text[1:].isdigit() or text[1] == "0":
        return None
    number = int(text[1:])
    if not 1 <= number <= n:
        return None
    row = n - number if bottom_up else number - 1
    return row, columns.index(text[0])


def square_name(row: int, col: int, columns: str, n: int, bottom_up: bool) -> str:
    return f"{columns[col]}{n - row if bottom_up else row + 1}"
