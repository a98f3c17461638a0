"""Gomoku notation and text boards: columns a… left to right (no letter skipped), rows 1… bottom
to top, so ``h8`` is the centre of 15x15."""

import numpy as np

from .. import _board_text as T
from ..core import NotationError, TextBoardError
from ..core import kernel as C
from . import _kernel as K


def _columns(n):
    return T.letters(n)


def _rows(n):
    return [str(n - r) for r in range(n)]


def action_to_str(game, state, action):
    n = game.size
    return T.square_name(action // n, action % n, _columns(n), n, bottom_up=True)


def parse_move(game, state, text):
    n = game.size
    square = T.parse_square(text, _columns(n), n, bottom_up=True)
    if square is None:
        raise NotationError(f"move {text!r}: expected a point a1..{_columns(n)[-1]}{n}")
    return square[0] * n + square[1]


def to_text(game, state):
    n = game.size
    grid = state[C.HEADER : C.HEADER + n * n].reshape(n, n)
    return T.format_board(grid, _columns(n), _rows(n), {"to_move": "xo"[state[C.H_PLAYER]]})


def from_text(game, text):
    n = game.size
    grid, status = T.parse_board(text, _columns(n), _rows(n), ("to_move",))
    seat = T.parse_seat(status["to_move"])
    black, white = int((grid == 1).sum()), int((grid == 2).sum())
    if black - white != seat:
        raise TextBoardError(
            f"{black} black and {white} white stones with {'xo'[seat]} to move: "
            "Black moves first, so black stones must equal white (x to move) or exceed by one (o to move)"
        )
    s = game.initial_state()
    s[C.HEADER : C.HEADER + n * n] = grid.ravel()
    s[C.H_PLAYER] = seat
    s[C.H_PLY] = black + white
    stones = np.flatnonzero(grid.ravel())
    s[C.H_HASH] = np.bitwise_xor.reduce(K.ZOBRIST[2 * stones + grid.ravel()[stones] - 1]) if len(stones) else 0
    if seat == 1:
        s[C.H_HASH] ^= K.SIDE_KEY
    winners = set()
    for a in stones:
        r, c = divmod(int(a), n)
        colour = int(grid[r, c])
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            length = K._run(s, n, r, c, dr, dc, colour)
            if length == 5 or (length > 5 and not game.params["exact_five"]):
                winners.add(colour - 1)
    if len(winners) > 1:
        raise TextBoardError("both colours have a winning line: not a reachable position")
    if winners:
        winner = winners.pop()
        if winner != 1 - seat:
            raise TextBoardError(f"{'xo'[winner]} has a winning line but is the side to move")
        C.finish(s, winner, K.FIVE)
    elif black + white == n * n:
        C.finish(s, C.NO_WINNER, K.FULL)
    return s
