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


def from_obf(game, line):
    """Read one position of an Othello test suite in the one-line board format the FFO
    positions are published in: the N*N squares row by row from a1 (``X`` Black, ``O`` White,
    ``-`` empty), a space, the side to move (``X`` or ``O``), then optionally ``;`` and
    ``move:score`` pairs, each ended by ``;`` (the exact final score of that move, by the
    world rules). Returns ``(state, scores)``, ``scores`` a dict from action to score.

    The format has no ply counter: the state gets the fewest plies that fit its discs and its
    side to move (one pass where the parity needs it)."""
    if not isinstance(line, str):
        raise TextBoardError(f"board line {line!r}: expected a string")
    n = game.size
    fields = line.replace(";", " ").split()
    if len(fields) < 2 or len(fields[0]) != n * n or fields[1] not in ("X", "O"):
        raise TextBoardError(
            f"board line {line[:80]!r}: expected {n * n} squares of X, O and -, a space and the side to move (X or O)"
        )
    board, side = fields[0], fields[1]
    if set(board) - set("XO-"):
        raise TextBoardError(f"board line {line[:80]!r}: squares must be X, O or -")
    rows = [" ".join(".xo"["-XO".index(ch)] for ch in board[r * n : (r + 1) * n]) for r in range(n)]
    placements = n * n - board.count("-") - 4
    seat = "XO".index(side)
    ply = placements + (placements % 2 != seat)
    text = "\n".join(f"{r + 1} {row}" for r, row in enumerate(rows))
    state = game.from_text(f"{text}\n  {' '.join(_columns(n))}\nto_move={'xo'[seat]} ply={ply}\n")
    scores = {}
    for pair in fields[2:]:
        move, _, score = pair.partition(":")
        try:
            scores[parse_move(game, state, move.lower())] = int(score)
        except ValueError as error:
            raise TextBoardError(f"board line: {pair!r} is not a move:score pair") from error
    return state, scores
