"""LOA's picture: a checkerboard with the standard files and ranks. Action ids are moves
(``from_cell*8 + direction``), not cells, so the last move is marked by a red frame on the square
the piece left and, given the previous state, a dot on the square it newly holds."""

import numpy as np

from .. import render
from ..core import kernel as C

FILES, RANKS = list("abcdefgh"), [str(8 - r) for r in range(8)]


def rgb(game, state, previous=None):
    def mark_last(board, cell, n):
        last = int(state[C.H_LAST])
        if last < 0 or last >= n * n * 8:  # nothing played yet, or a pass
            return
        r, c = divmod(last // 8, n)
        render.frame(board, c * cell, r * cell, (c + 1) * cell, (r + 1) * cell, render.RED, width=max(2, cell // 12))
        if previous is not None:
            mover = 0 if state[C.H_PLAYER] == 1 else 1
            before = game.observation(previous, 0)[mover]
            after = game.observation(state, 0)[mover]
            for r, c in zip(*np.nonzero((after > 0) & (before == 0))):
                render.disc(board, c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2, cell * 0.12, render.RED)

    return render.board(game, state, previous, style="checker", labels=(FILES, RANKS), mark_last=mark_last)
