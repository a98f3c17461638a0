"""Lines of Action notation and text boards: files a–h left to right, ranks 1–8 bottom to top.

Moves: ``b1-b3`` (plain move), ``c1xa3`` (capture; ``c1:a3`` is accepted when parsing), ``pass``.
Parsing ignores case and whitespace but is strict about the separator: ``-`` on a capture or
``x`` on a plain move is a NotationError saying which form to write, so a player who misreads the
board learns it instead of having a different move played. Parsing also rejects a wrong distance
(a piece moves exactly as many squares as there are pieces on its line) with the right one.

Text boards (``envs/_board_text.py``) print rank 8 first and end with ``to_move=x ply=N``::

    8 . x x x x x x .
    7 o . . . . . . o
    ...
    1 . x x x x x x .
      a b c d e f g h
    to_move=x ply=0

Like a FEN, a text board holds no history: a position read from text starts a fresh repetition
history, and its end status is recomputed as if the side not to move had just moved. The one end
a board cannot show by itself is a repetition, so a game that ended that way is written with a
third status token, ``end=repetition``, and reads back as ended.
"""

import re

import numpy as np

from .. import _board_text as T
from ..core import IllegalActionError, NotationError, TextBoardError
from ..core import kernel as C
from . import _kernel as K

COLUMNS = T.letters(8)
ROWS = [str(8 - r) for r in range(8)]
_MOVE = re.compile(r"([a-h][1-8])([-x:])([a-h][1-8])")
END_TOKEN = "end=repetition"
_DIRECTION = {(K.DR[d], K.DC[d]): d for d in range(8)}


def square(cell: int) -> str:
    return T.square_name(cell // 8, cell % 8, COLUMNS, 8, bottom_up=True)


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _bit(bb, cell) -> bool:
    return bool((int(bb) >> cell) & 1)


def _distance(state, cell: int, d: int) -> int:
    """How far the piece on ``cell`` moves along direction ``d``: the pieces on that line."""
    return int(state[K.S_COUNT + K.LINE[cell * 4 + (d & 3)]])


def action_to_str(game, state, action):
    if action == K.PASS:
        return "pass"
    cell, d = divmod(action, 8)
    seat = int(state[C.H_PLAYER])
    if not _bit(state[K.S_BB + seat], cell):
        raise IllegalActionError(f"action {action}: no {'xo'[seat]} piece on {square(cell)} to move")
    target = int(K.TARGET[(cell * 8 + d) * 9 + _distance(state, cell, d)])
    if target < 0:
        raise IllegalActionError(f"action {action}: the piece on {square(cell)} would leave the board")
    sep = "x" if _bit(state[K.S_BB + 1 - seat], target) else "-"
    return f"{square(cell)}{sep}{square(target)}"


def parse_move(game, state, text):
    text = "".join(text.split())
    if text == "pass":
        return K.PASS
    match = _MOVE.fullmatch(text)
    if match is None:
        raise NotationError(f"move {text!r}: expected a move like b1-b3, a capture like c1xa3 (or c1:a3), or pass")
    src, sep, dst = match.groups()
    (r0, c0), (r1, c1) = (T.parse_square(sq, COLUMNS, 8, bottom_up=True) for sq in (src, dst))
    dr, dc = r1 - r0, c1 - c0
    dist = max(abs(dr), abs(dc))
    if dist == 0 or (dr and dc and abs(dr) != abs(dc)):
        raise NotationError(f"move {text!r}: {dst} is not on a line (row, column or diagonal) from {src}")
    cell, d = r0 * 8 + c0, _DIRECTION[(_sign(dr), _sign(dc))]
    seat = int(state[C.H_PLAYER])
    if not _bit(state[K.S_BB + seat], cell):
        raise NotationError(f"move {text!r}: no {'xo'[seat]} piece on {src}")
    need = _distance(state, cell, d)
    if dist != need:
        raise NotationError(
            f"move {text!r}: the piece on {src} moves exactly {need} squares along this line "
            f"(the pieces on it), not {dist}"
        )
    capture = _bit(state[K.S_BB + 1 - seat], r1 * 8 + c1)
    if capture and sep == "-":
        raise NotationError(f"move {text!r} captures on {dst}: write {src}x{dst}")
    if not capture and sep != "-":
        raise NotationError(f"move {text!r} is not a capture: write {src}-{dst}")
    return cell * 8 + d


def grid(state) -> np.ndarray:
    """The board as an (8, 8) array, row 0 = rank 8: 0 empty, 1 Black 'x', 2 White 'o'."""
    cells = np.arange(64, dtype=np.int64)
    black = (state[K.S_BB] >> cells) & 1
    white = (state[K.S_BB + 1] >> cells) & 1
    return (black + 2 * white).reshape(8, 8)


def to_text(game, state):
    status = {"to_move": "xo"[state[C.H_PLAYER]], "ply": int(state[C.H_PLY])}
    if state[C.H_STATUS] == C.TERMINAL and state[C.H_REASON] == K.REPETITION:
        status["end"] = "repetition"
    return T.format_board(grid(state), COLUMNS, ROWS, status)


def _take_end(text):
    """Remove an ``end=repetition`` token from the status line; return (text, whether present)."""
    lines = text.rstrip().splitlines()
    tokens = lines[-1].split() if lines else []
    ends = [tok for tok in tokens if tok.startswith("end=")]
    if not ends:
        return text, False
    if ends != [END_TOKEN]:
        raise TextBoardError(f"status token {ends[-1]!r}: the only end a board records is {END_TOKEN}, once")
    lines[-1] = " ".join(tok for tok in tokens if tok != END_TOKEN)
    return "\n".join(lines), True


def _bitboard(mask: np.ndarray) -> np.int64:
    value = sum(1 << int(i) for i in np.flatnonzero(mask.ravel()))
    return np.int64(K._signed(value))


def from_text(game, text):
    text, repeated = _take_end(text)
    cells, status = T.parse_board(text, COLUMNS, ROWS, ("to_move", "ply"))
    seat = T.parse_seat(status["to_move"])
    ply = T.parse_count("ply", status["ply"], game.max_moves)
    if seat != ply % 2:
        raise TextBoardError(
            f"to_move={'xo'[seat]} with ply={ply}: Black moves first and every ply (passes too) "
            f"alternates, so x is to move at even plies and o at odd ones"
        )
    counts = [int((cells == 1).sum()), int((cells == 2).sum())]
    for side in (0, 1):
        lost, capturer_moves = 12 - counts[side], (ply + side) // 2  # x moves at even plies
        if not 1 <= counts[side] <= 12:
            raise TextBoardError(f"{counts[side]} '{'xo'[side]}' pieces: expected 1 to 12")
        if lost > capturer_moves:
            raise TextBoardError(
                f"{counts[side]} '{'xo'[side]}' pieces at ply={ply}: {lost} captured, but "
                f"'{'xo'[1 - side]}' has made only {capturer_moves} moves"
            )
    s = np.zeros(game.state_len, dtype=np.int64)
    s[C.H_SIG] = game.kernel_params[C.P_SIG]
    s[K.S_BB] = _bitboard(cells == 1)
    s[K.S_BB + 1] = _bitboard(cells == 2)
    s[C.H_PLAYER] = seat
    s[C.H_PLY] = ply
    K.setup(s, game.kernel_params)
    if repeated:
        # repetition is judged before the cap and the no-move rule, but after connection
        if s[C.H_STATUS] == C.TERMINAL and s[C.H_REASON] not in (K.MAX_MOVES, K.NO_MOVE):
            raise TextBoardError(f"{END_TOKEN} on a board where a side is connected: the game ended by connection")
        C.finish(s, C.NO_WINNER, K.REPETITION)
    return s


def sgf_move(game, state, action) -> str:
    """The move as SGF's Lines of Action records write it (GM[9]): ``e1-e3``, a capture with ``:``
    (``c1:a3``), and ``pass``; ``parse_move`` reads all three."""
    return action_to_str(game, state, action).replace("x", ":")
