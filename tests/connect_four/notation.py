"""Connect Four notation and text boards.

A move is the letter of its column, ``a`` (left) to ``d`` (the centre of the standard board) and
on; the disc drops to the lowest free cell of that column. Text boards print the top row first,
rows numbered 1 (bottom) upwards, then the column letters and the status line ``to_move=x``:

    6 . . . . . . .
    5 . . . . . . .
    4 . . . . . . .
    3 . . . o . . .
    2 . . . x o . .
    1 . . x x o . .
      a b c d e f g
    to_move=x

``x`` is the first player (seat 0), ``o`` the second. Reading a board checks what any reachable
position satisfies: no disc floats above an empty cell, ``x`` has as many discs as ``o`` (x to
move) or one more (o to move), at most one colour has a line, the side with a line is the one
that just moved, and one of its top discs completes every line it has (its last move).
"""

import numpy as np

import envs
from envs.core import kernel as C

from . import _kernel as K

SYMBOLS = ".xo"  # empty, seat 0, seat 1


def _columns(game):
    return "abcdefghij"[: game.columns]


def _row_labels(game):
    return [str(game.rows - r) for r in range(game.rows)]


def action_to_str(game, state, action):
    return _columns(game)[action]


def parse_move(game, state, text):
    """The column of ``text`` (already stripped and lower-cased by the facade)."""
    columns = _columns(game)
    if len(text) != 1 or text not in columns:
        raise envs.NotationError(f"move {text!r}: expected a column letter a..{columns[-1]}")
    return columns.index(text)


def to_text(game, state):
    rows, columns = game.rows, game.columns
    grid = state[C.HEADER : C.HEADER + rows * columns].reshape(rows, columns)
    labels = _row_labels(game)
    width = max(len(label) for label in labels)
    lines = [f"{label.rjust(width)} " + " ".join(SYMBOLS[v] for v in row) for label, row in zip(labels, grid)]
    lines.append(" " * width + " " + " ".join(_columns(game)))
    lines.append(f"to_move={SYMBOLS[1 + state[C.H_PLAYER]]}")
    return "\n".join(lines) + "\n"


def _parse_grid(game, text):
    """``(grid, seat)`` of a text board, or TextBoardError naming the line that is wrong."""
    rows, columns = game.rows, game.columns
    labels, letters = _row_labels(game), _columns(game)
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) != rows + 2:
        raise envs.TextBoardError(
            f"text board has {len(lines)} non-empty lines: expected {rows} board rows, a column line and a status line"
        )
    grid = np.zeros((rows, columns), dtype=np.int64)
    for r, label in enumerate(labels):
        parts = lines[r].split()
        if len(parts) != columns + 1 or parts[0] != label:
            raise envs.TextBoardError(f"board line {lines[r]!r}: expected row label {label!r} and {columns} cells")
        for c, sym in enumerate(parts[1:]):
            if len(sym) != 1 or sym.lower() not in SYMBOLS:
                raise envs.TextBoardError(f"board line {lines[r]!r}: cell {sym!r} is not one of {' '.join(SYMBOLS)}")
            grid[r, c] = SYMBOLS.index(sym.lower())
    if lines[rows].split() != list(letters):
        raise envs.TextBoardError(f"column line {lines[rows]!r}: expected {' '.join(letters)}")
    status = lines[rows + 1].split()
    if len(status) != 1 or status[0] not in ("to_move=x", "to_move=o"):
        raise envs.TextBoardError(f"status line {lines[rows + 1]!r}: expected to_move=x or to_move=o")
    return grid, "xo".index(status[0][-1])


def from_text(game, text):
    rows, columns = game.rows, game.columns
    grid, seat = _parse_grid(game, text)
    letters = _columns(game)
    for c in range(columns):
        filled = grid[:, c] != 0
        height = int(filled.sum())
        if filled[rows - height :].sum() != height:  # the discs of a column are its lowest cells
            raise envs.TextBoardError(f"column {letters[c]}: a disc floats above an empty cell")
    x, o = int((grid == 1).sum()), int((grid == 2).sum())
    if x - o != seat:
        raise envs.TextBoardError(
            f"{x} x and {o} o discs with {'xo'[seat]} to move: x moves first, so x must equal o "
            "(x to move) or exceed it by one (o to move)"
        )
    s = game.initial_state()
    p = game.kernel_params
    s[C.HEADER : C.HEADER + rows * columns] = grid.ravel()
    s[C.HEADER + rows * columns : C.HEADER + rows * columns + columns] = (grid != 0).sum(axis=0)
    s[C.H_PLAYER] = seat
    s[C.H_PLY] = x + o
    cells = np.flatnonzero(grid.ravel())
    keys = K.ZOBRIST[2 * cells + grid.ravel()[cells] - 1]
    s[C.H_HASH] = (np.bitwise_xor.reduce(keys) if len(cells) else 0) ^ (K.SIDE_KEY if seat else 0)
    lines = {colour: _line_cells(s, p, rows, columns, colour) for colour in (1, 2)}
    if lines[1] and lines[2]:
        raise envs.TextBoardError("both x and o have a line: the game ended at the first one")
    for colour, cells_on_lines in lines.items():
        if not cells_on_lines:
            continue
        if colour - 1 == seat:
            raise envs.TextBoardError(f"{'xo'[colour - 1]} has a line but is the side to move")
        if not _last_move_exists(s, p, grid, colour):
            raise envs.TextBoardError(
                f"{'xo'[colour - 1]} has lines that no single last move made: the game ended at the first one"
            )
        C.finish(s, colour - 1, K.LINE)
    if s[C.H_STATUS] == C.ONGOING and x + o == rows * columns:
        C.finish(s, C.NO_WINNER, K.FULL)
    return s


def _line_cells(s, p, rows, columns, colour):
    """The cells of ``colour`` that lie on a winning line."""
    return [
        (r, c)
        for r in range(rows)
        for c in range(columns)
        if s[C.HEADER + r * columns + c] == colour and K.wins_at(s, p, r, c)
    ]


def _last_move_exists(s, p, grid, colour):
    """Whether some top disc of ``colour`` is on every line of ``colour``: taking it back leaves
    no line, so the position arose from one without a line by that move."""
    rows, columns = grid.shape
    for c in range(columns):
        height = int((grid[:, c] != 0).sum())
        r = rows - height
        if height and grid[r, c] == colour:
            t = s.copy()
            t[C.HEADER + r * columns + c] = 0
            if not _line_cells(t, p, rows, columns, colour):
                return True
    return False
