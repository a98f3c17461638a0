"""Connect Four on a board of ``columns`` x ``rows`` (7 x 6 by default), ``connect`` in a row wins.

## Description
Two players alternately drop a disc of their colour into a column that is not full; it falls to
the lowest free cell. The first to make an unbroken line of ``connect`` discs (horizontal,
vertical or diagonal; longer lines count too) wins. The first player (seat 0, ``x``) moves
first. A full board with no line is a draw.

## Action Space
``Discrete(columns)``: action ``c`` drops a disc into column ``c`` (0 = column a). There is no
pass. Notation: the column letter, ``a``, ``b``, ...; on the standard board ``d`` is the centre.

## Observation Space
``Box(0, 1, (3, rows, columns), float32)`` from the observing seat's view, row 0 the top row:

| channel | meaning |
|---|---|
| 0 | the seat's own discs |
| 1 | the opponent's discs |
| 2 | all ones if the seat is to move, else zeros |

## Rewards
At the end only: +1 to the player who made the line, -1 to the other, 0 to both for a draw.

## Episode End
A line, or a full board (draw). ``max_moves`` is ``columns * rows``, which the board reaches first.

## Arguments
``make_game("connect_four", columns=7, rows=6, connect=4)``; ``connect`` may not exceed both sides.
"""

import numpy as np

from envs import render as R
from envs.core import ParameterError
from envs.core import kernel as C
from envs.game import Game

from . import _kernel as K

BOARD_BLUE = (30, 80, 190)
HOLE = (235, 235, 240)


class ConnectFour(Game):
    end_reasons = {K.LINE: "line", K.FULL: "board_full"}

    def _configure(self, params):
        """Each parameter is already in its range; check the one rule that ties them together."""
        columns, rows, connect = params["columns"], params["rows"], params["connect"]
        if connect > max(columns, rows):
            raise ParameterError(f"connect={connect!r}: no line of {connect} fits on {columns} x {rows}")
        self.columns, self.rows, self.connect = columns, rows, connect
        cells = columns * rows
        # kernel params after the common ones, num_actions, state_len, max_moves
        return [columns, rows, connect], columns, C.HEADER + cells + columns, cells

    def _observation_shape(self):
        return (3, self.rows, self.columns)


def render(game, state, previous=None):
    """An ``(H, W, 3) uint8`` picture: the blue board with its holes and discs, coordinates in the
    notation's terms and a red dot on the last disc dropped (the spec's ``render`` hook; the
    generic ``envs.render.board`` draws square placement boards only)."""
    rows, columns = game.rows, game.columns
    cell = max(18, min(40, 440 // max(rows, columns)))
    margin = 22
    height, width = rows * cell, columns * cell
    img = np.empty((height + 2 * margin, width + 2 * margin, 3), dtype=np.uint8)
    img[:] = R.MARGIN_BG
    area = img[margin : margin + height, margin : margin + width]
    area[:] = BOARD_BLUE
    grid = state[C.HEADER : C.HEADER + rows * columns].reshape(rows, columns)
    for r in range(rows):
        for c in range(columns):
            cx, cy = c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2
            R.disc(area, cx, cy, cell * 0.42, R.INK if grid[r, c] else HOLE)
            if grid[r, c]:
                R.disc(area, cx, cy, cell * 0.42 - 1.2, R.BLACK_STONE if grid[r, c] == 1 else R.WHITE_STONE)
    last = int(state[C.H_LAST])
    if 0 <= last < columns:
        r = rows - int(state[C.HEADER + rows * columns + last])  # the top disc of that column
        R.disc(area, last * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2, cell * 0.14, R.RED)
    for c, label in enumerate("abcdefghij"[:columns]):
        x = margin + c * cell + (cell - R.text_width(label)) // 2
        R.draw_text(img, label, x, 6)
        R.draw_text(img, label, x, margin + height + 6)
    for r in range(rows):
        label = str(rows - r)
        y = margin + r * cell + (cell - 10) // 2
        R.draw_text(img, label, (margin - R.text_width(label)) // 2, y)
        R.draw_text(img, label, margin + width + (margin - R.text_width(label)) // 2, y)
    return img
