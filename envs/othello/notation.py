"""Othello notation and text boards: columns a… left to right, rows 1… TOP to bottom (a1 is the
top-left corner, as in Othello literature and OpenSpiel), so ``d3`` is row 3 from the top; the
pass is written ``pass``.

Text boards (``envs/_board_text.py``) carry the status ``to_move=x ply=12``. The side to move is
not implied by the discs (a pass adds none), and ``ply`` restores the ply counter; its parity must
agree with ``to_move``. No pass history is needed: whether the game goes on depends only on the
board and the side to move (see ``_kernel.settle``).
"""

import numpy as np

from .. import _board_text as T
from ..core import NotationError, TextBoardError
from ..core import kernel as C
from . import _kernel as K


def _columns(n):
    return T.letters(n)


def _rows(n):
    return [str(r + 1) for r in range(n)]


def action_to_str(game, state, action):
    n = game.size
    if action == n * n:
        return "pass"
    return T.square_name(action // n, action % n, _columns(n), n, bottom_up=False)


def parse_move(game, state, text):
    n = game.size
    if text == "pass":
        return n * n
    square = T.parse_square(text, _columns(n), n, bottom_up=False)
    if square is None:
        raise NotationError(f"move {text!r}: expected a square a1..{_columns(n)[-1]}{n} or 'pass'")
    return square[0] * n + square[1]


def to_text(game, state):
    n = game.size
    grid = state[C.HEADER : C.HEADER + n * n].reshape(n, n)
    status = {"to_move": "xo"[state[C.H_PLAYER]], "ply": int(state[C.H_PLY])}
    return T.format_board(grid, _columns(n), _rows(n), status)


def from_text(game, text):
    """Read a text board; reject positions no game can reach by the checks that are cheap and sure:
    the centre four squares are never emptied, plies alternate the side to move, and each
    placement adds one disc while a pass is always followed by a placement, so a game with
    ``discs - 4`` placements has played from ``discs - 4`` to ``2 * (discs - 4)`` plies."""
    n = game.size
    grid, status = T.parse_board(text, _columns(n), _rows(n), ("to_move", "ply"))
    seat = T.parse_seat(status["to_move"])
    ply = T.parse_count("ply", status["ply"], game.max_moves)
    m = n // 2
    if not grid[m - 1 : m + 1, m - 1 : m + 1].all():
        centre = " ".join(action_to_str(game, None, r * n + c) for r in (m - 1, m) for c in (m - 1, m))
        raise TextBoardError(f"centre squares {centre} must all hold a disc: they are never emptied")
    if ply % 2 != seat:
        raise TextBoardError(f"to_move={'xo'[seat]} with ply={ply}: Black moves at even plies, White at odd")
    placements = int(np.count_nonzero(grid)) - 4
    if not placements <= ply <= 2 * placements:
        raise TextBoardError(
            f"ply={ply} with {placements + 4} discs: expected {placements} (no passes) to "
            f"{2 * placements} (a pass before every placement)"
        )
    s = np.zeros(game.state_len, dtype=np.int64)
    s[C.H_SIG] = game._p[C.P_SIG]
    s[C.H_PLAYER] = seat
    s[C.H_PLY] = ply
    s[C.H_WINNER] = C.NO_WINNER
    s[C.H_LAST] = -1  # unknown from a text board
    s[C.H_HASH] = K.SIDE_KEY if seat else 0
    for cell in np.flatnonzero(grid.ravel()):
        K._set(s, game._p, int(cell), int(grid.flat[cell]) - 1)
    K.setup(s, game._p)
    return s
