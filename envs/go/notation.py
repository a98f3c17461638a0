"""Go notation and text boards.

Moves are GTP vertices: column letters A… left to right **skipping I**, row numbers 1… bottom to
top, so on 9x9 ``A9`` is the top-left point (action 0) and ``J1`` the bottom-right (action 80);
``pass`` is action N*N. Parsing is case-insensitive; ``action_to_str`` writes capitals like GTP.

Text boards (``envs/_board_text.py``) print rows N..1 top to bottom under lower-case column
letters, with the status line ``to_move=x ply=12 passes=0 ko=-`` (``passes`` = consecutive passes
just played; ``ko`` = the point the side to move may not retake at once, e.g. ``ko=c3``, or ``-``).
Like a FEN, a text board carries no history: the position read starts a fresh superko history
holding only itself, so only cycles longer than a simple ko may differ from the original game.
"""

import numpy as np

from .. import _board_text as T
from ..core import NotationError, TextBoardError
from ..core import kernel as C
from . import _kernel as K


def _columns(n):
    return T.letters(n, skip_i=True)


def _rows(n):
    return [str(n - r) for r in range(n)]


def action_to_str(game, state, action):
    n = game.size
    if action == n * n:
        return "pass"
    return T.square_name(action // n, action % n, _columns(n), n, bottom_up=True).upper()


def parse_move(game, state, text):
    n = game.size
    if text == "pass":
        return n * n
    square = T.parse_square(text, _columns(n), n, bottom_up=True)
    if square is None:
        last = _columns(n)[-1].upper()
        raise NotationError(f"move {text!r}: expected a GTP point A1..{last}{n} (columns skip I) or 'pass'")
    return square[0] * n + square[1]


def to_text(game, state):
    n = game.size
    grid = state[C.HEADER : C.HEADER + n * n].reshape(n, n)
    g = K.fields(game._p)
    ko = state[g + K.O_KO]
    status = {
        "to_move": "xo"[state[C.H_PLAYER]],
        "ply": int(state[C.H_PLY]),
        "passes": int(state[g + K.O_PASSES]),
        "ko": "-" if ko < 0 else T.square_name(ko // n, ko % n, _columns(n), n, bottom_up=True),
    }
    return T.format_board(grid, _columns(n), _rows(n), status)


def from_text(game, text):
    n = game.size
    columns = _columns(n)
    grid, status = T.parse_board(text, columns, _rows(n), ("to_move", "ply", "passes", "ko"))
    seat = T.parse_seat(status["to_move"])
    ply = T.parse_count("ply", status["ply"], game.max_moves)
    passes = T.parse_count("passes", status["passes"], 2)
    stones = int((grid != 0).sum())
    if seat != ply % 2:
        raise TextBoardError(f"to_move={'xo'[seat]} with ply={ply}: Black moves on even plies, White on odd")
    if stones + passes > ply:
        raise TextBoardError(
            f"{stones} stones and passes={passes} after ply={ply}: each ply adds at most one stone, "
            "and the last passes added none"
        )
    ko = _parse_ko(status["ko"], grid, seat, passes, columns)
    s = game.initial_state()
    s[C.HEADER : C.HEADER + n * n] = grid.ravel()
    K.rebuild_chains(s, game._p)
    _check_liberties(grid, s[C.HEADER : C.HEADER + n * n].reshape(n, n), columns)
    g = K.fields(game._p)
    s[C.H_PLAYER] = seat
    s[C.H_PLY] = ply
    s[g + K.O_PASSES] = passes
    s[g + K.O_KO] = ko
    K.reset_history(s, game._p)
    K.rehash(s, game._p)
    if passes == 2:
        K.finish_scored(s, game._p, K.TWO_PASSES)
    elif ply >= game.max_moves:
        K.finish_scored(s, game._p, K.MAX_MOVES)
    return s


def _check_liberties(grid, rebuilt, columns):
    """Reject a chain without liberties: no sequence of legal moves leaves one on the board.

    Rebuilding the chains places the stones one by one; a chain can only lose liberties as
    stones are added, so it captures or suicides exactly the chains that had none in ``grid``.
    """
    n = len(grid)
    dead = np.argwhere(grid != rebuilt)
    if len(dead):
        r, c = dead[0]
        point = T.square_name(r, c, columns, n, bottom_up=True).upper()
        raise TextBoardError(f"the chain at {point} has no liberties: not a reachable position")


def _parse_ko(value, grid, seat, passes, columns):
    """The ko point of the status line (``-`` or a point), checked against the board.

    A ko point is where the previous mover just took one stone with a stone played into an
    eye: the point is empty, every neighbour is the taker's, one of them a stone whose other
    neighbours are all the opponent's, and no pass has been played since.
    """
    if value == "-":
        return -1
    n = len(grid)
    square = T.parse_square(value, columns, n, bottom_up=True)
    if square is None:
        raise TextBoardError(f"ko={value!r}: expected - or a point a1..{columns[-1]}{n}")
    taker = 2 - seat  # the colour that moved last

    def around(r, c):
        return [
            (r + dr, c + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)) if 0 <= r + dr < n and 0 <= c + dc < n
        ]

    def took_it(r, c):
        return all(grid[q] == 3 - taker for q in around(r, c) if q != square)

    if (
        passes
        or grid[square] != 0
        or any(grid[q] != taker for q in around(*square))
        or not any(took_it(*q) for q in around(*square))
    ):
        raise TextBoardError(
            f"ko={value!r}: expected the empty point where {'xo'[taker - 1]} just took a single "
            "stone (its neighbours all theirs, one of them in atari there) with passes=0"
        )
    return square[0] * n + square[1]
