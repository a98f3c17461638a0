"""Text and RGB pictures of any Arbiter position, drawn with numpy alone (no GUI library).

``ansi(game, state, last_move)`` is the game's own text board (``game.to_text``) plus a line
naming the last move. ``rgb(game, state, previous)`` returns an ``(H, W, 3) uint8`` image:

* board games: the board in the game's usual look (wooden grid for Go and Gomoku, green squares
  for Othello, a checkerboard for LOA), stones or pieces, coordinates in the game's own notation
  (Go skips the letter I, Othello counts rows from the top), and the last move marked with a red
  dot (LOA: a red frame on the square the piece left and a dot on the piece that moved);
* Calculation: the four foundations (top card), the face-up card with the number of face-down
  cards under it, and the four waste piles fanned downwards, ranks printed on every card in a
  tiny built-in bitmap font; the pile the last move went to has a red frame.

Everything is read through the Game protocol: stones from ``game.observation(state, 0)`` (planes
0 and 1 are Black's and White's for seat 0) and the last move from the header cell ``H_LAST``,
whose action ids are board cells in Go, Gomoku and Othello and ``from_cell*8 + direction`` in LOA.
Image sizes depend only on the game and its parameters, never on the position (video-friendly).
"""

from __future__ import annotations

import numpy as np

from . import _common as C

# 3x5 glyphs: one string of 15 bits per character, row by row.
_GLYPHS = {
    "0": "111101101101111", "1": "010110010010111", "2": "111001111100111", "3": "111001111001111",
    "4": "101101111001001", "5": "111100111001111", "6": "111100111101111", "7": "111001010010010",
    "8": "111101111101111", "9": "111101111001111", "A": "010101111101101", "B": "110101110101110",
    "C": "011100100100011", "D": "110101101101110", "E": "111100110100111", "F": "111100110100100",
    "G": "011100101101011", "H": "101101111101101", "I": "111010010010111", "J": "001001001101010",
    "K": "101101110101101", "L": "100100100100111", "M": "101111111101101", "N": "110101101101101",
    "O": "010101101101010", "P": "110101110100100", "Q": "010101101110011", "R": "110101110101101",
    "S": "011100010001110", "T": "111010010010010", "U": "101101101101111", "V": "101101101101010",
    "W": "101101111111101", "X": "101101010101101", "Y": "101101010010010", "Z": "111001010100111",
    "+": "000010111010000", "-": "000000111000000", " ": "000000000000000",
}
_FONT = {ch: np.array([int(b) for b in bits], dtype=bool).reshape(5, 3) for ch, bits in _GLYPHS.items()}

WOOD = (222, 184, 108)
GREEN = (32, 128, 72)
LIGHT, DARK = (238, 220, 180), (181, 136, 99)
MARGIN_BG = (245, 240, 230)
INK = (30, 30, 30)
BLACK_STONE, WHITE_STONE = (25, 25, 25), (245, 245, 245)
RED = (220, 30, 30)
RANKS = "A23456789TJQK"


# -- primitives ------------------------------------------------------------------------------------

def draw_text(img, text, x, y, colour=INK, scale=2):
    """Write ``text`` (upper-cased) with its top-left corner at pixel (x, y)."""
    for i, ch in enumerate(text.upper()):
        glyph = np.kron(_FONT[ch], np.ones((scale, scale), dtype=bool))
        x0 = x + i * 4 * scale
        h, w = glyph.shape
        region = img[y:y + h, x0:x0 + w]
        region[glyph[:region.shape[0], :region.shape[1]]] = colour


def text_width(text, scale=2):
    return len(text) * 4 * scale - scale


def _disc(img, cx, cy, radius, colour):
    y0, y1 = max(0, int(cy - radius)), int(cy + radius) + 1
    x0, x1 = max(0, int(cx - radius)), int(cx + radius) + 1
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= radius**2
    img[y0:y1, x0:x1][inside] = colour


def _frame(img, x0, y0, x1, y1, colour, width=2):
    img[y0:y0 + width, x0:x1] = colour
    img[y1 - width:y1, x0:x1] = colour
    img[y0:y1, x0:x0 + width] = colour
    img[y0:y1, x1 - width:x1] = colour


# -- text ------------------------------------------------------------------------------------------

def ansi(game, state, last_move=None) -> str:
    """The text board with coordinates, then the last move (``last_move``: its notation)."""
    text = game.to_text(state)
    if last_move is not None:
        text += f"last move: {last_move}\n"
    return text


# -- board games -----------------------------------------------------------------------------------

def _labels(game, n):
    """Column and row labels in the game's notation, read from the names of the first row/column."""
    if game.name == "loa":  # LOA action ids are moves, not cells; its files and ranks are standard
        return list("abcdefgh"), [str(8 - r) for r in range(8)]
    s = game.initial_state(seed=0)
    names = [game.action_to_str(s, a) for a in range(n * n)]
    columns = [names[c].rstrip("0123456789") for c in range(n)]
    rows = [names[r * n][len(columns[0]):] for r in range(n)]
    return columns, rows


def _cell_size(n):
    return max(18, min(40, 440 // n))


def _board(game, state, previous=None):
    obs = game.observation(state, 0)
    n = obs.shape[-1]
    cell = _cell_size(n)
    margin = 22
    size = n * cell
    img = np.empty((size + 2 * margin, size + 2 * margin, 3), dtype=np.uint8)
    img[:] = MARGIN_BG
    board = img[margin:margin + size, margin:margin + size]
    intersections = game.name in ("go", "gomoku")
    if game.name == "loa":
        for r in range(n):
            for c in range(n):
                board[r * cell:(r + 1) * cell, c * cell:(c + 1) * cell] = LIGHT if (r + c) % 2 == 0 else DARK
    else:
        board[:] = WOOD if intersections else GREEN
        line = INK if intersections else (10, 60, 30)
        for i in range(n + (0 if intersections else 1)):
            at = i * cell + (cell // 2 if intersections else 0)
            at = min(at, size - 1)
            lo, hi = (cell // 2, size - cell // 2) if intersections else (0, size)
            board[at, lo:hi] = line
            board[lo:hi, at] = line
    for r in range(n):
        for c in range(n):
            cx, cy = c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2
            if obs[0, r, c] or obs[1, r, c]:
                black = bool(obs[0, r, c])
                _disc(board, cx, cy, cell * 0.44, INK)
                _disc(board, cx, cy, cell * 0.44 - 1.2, BLACK_STONE if black else WHITE_STONE)
    _mark_last(game, state, previous, board, cell, n)
    columns, rows = _labels(game, n)
    for c, label in enumerate(columns):
        x = margin + c * cell + (cell - text_width(label)) // 2
        draw_text(img, label, x, 6)
        draw_text(img, label, x, margin + size + 6)
    for r, label in enumerate(rows):
        y = margin + r * cell + (cell - 10) // 2
        draw_text(img, label, (margin - text_width(label)) // 2, y)
        draw_text(img, label, margin + size + (margin - text_width(label)) // 2, y)
    return img


def _mark_last(game, state, previous, board, cell, n):
    last = int(state[C.H_LAST])
    if last < 0:
        return
    if game.name == "loa":
        if last >= n * n * 8:  # a pass
            return
        origin = last // 8
        r, c = divmod(origin, n)
        _frame(board, c * cell, r * cell, (c + 1) * cell, (r + 1) * cell, RED, width=max(2, cell // 12))
        if previous is not None:  # the destination: the one square the mover's piece newly holds
            mover = 0 if state[C.H_PLAYER] == 1 else 1
            before = game.observation(previous, 0)[mover]
            after = game.observation(state, 0)[mover]
            for r, c in zip(*np.nonzero((after > 0) & (before == 0))):
                _disc(board, c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2, cell * 0.12, RED)
        return
    if last < n * n:
        r, c = divmod(last, n)
        _disc(board, c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2, cell * 0.14, RED)


# -- Calculation -----------------------------------------------------------------------------------

CARD_W, CARD_H, FAN = 34, 46, 15
SHOWN = 14  # waste cards drawn per pile; deeper ones are summarised as "+k"


def _card(img, x, y, rank, label_only=False):
    img[y:y + CARD_H, x:x + CARD_W] = INK
    img[y + 1:y + CARD_H - 1, x + 1:x + CARD_W - 1] = (250, 250, 250)
    colour = RED if rank in (1, 13) else INK  # Aces and Kings stand out: bases and goals
    draw_text(img, RANKS[rank - 1], x + 4, y + 4, colour)
    if not label_only:
        draw_text(img, RANKS[rank - 1], x + CARD_W - 10, y + CARD_H - 14, colour)


def _calculation(game, state):
    obs = game.observation(state, 0)
    pad, gap = 14, 12
    width = 2 * pad + 5 * CARD_W + 4 * gap + 30
    top = pad + 14
    waste_y = top + CARD_H + 30
    height = waste_y + (SHOWN - 1) * FAN + CARD_H + pad
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = GREEN
    last = int(state[C.H_LAST])
    target = None  # ("f" | "w", index) the last move put a card on
    if last >= 0:
        target = ("w", last) if last < 4 else ("f", (last - 4) % 4 if last < 8 else (last - 8) % 4)
    for k in range(4):
        x = pad + k * (CARD_W + gap)
        draw_text(img, f"F{k + 1}", x, pad - 2, (255, 255, 255))
        _card(img, x, top, int(np.argmax(obs[k])) + 1)
        if target == ("f", k):
            _frame(img, x - 3, top - 3, x + CARD_W + 3, top + CARD_H + 3, RED)
    x_up = pad + 4 * (CARD_W + gap) + 30
    unseen = int(obs[5].sum())
    draw_text(img, f"{unseen}", x_up, pad - 2, (255, 255, 255))
    if obs[4].any():
        _card(img, x_up, top, int(np.argmax(obs[4])) + 1)
    else:
        _frame(img, x_up, top, x_up + CARD_W, top + CARD_H, (200, 200, 200))
    for w in range(4):
        x = pad + w * (CARD_W + gap)
        rows = obs[6 + 48 * w:6 + 48 * (w + 1)]
        depth = int(rows.any(axis=1).sum())  # row d is the card d places below the top
        draw_text(img, f"W{w + 1}", x, waste_y - 14, (255, 255, 255))
        shown = min(depth, SHOWN)
        for i in range(shown):  # bottom of the shown part first, the top card last
            d = shown - 1 - i
            _card(img, x, waste_y + i * FAN, int(np.argmax(rows[d])) + 1, label_only=d > 0)
        if depth > SHOWN:
            draw_text(img, f"+{depth - SHOWN}", x + 14, waste_y + 4, (90, 90, 90))
        if target == ("w", w):
            y1 = waste_y + max(shown - 1, 0) * FAN + CARD_H
            _frame(img, x - 3, waste_y - 3, x + CARD_W + 3, y1 + 3, RED)
    return img


def rgb(game, state, previous=None) -> np.ndarray:
    """An ``(H, W, 3) uint8`` picture of ``state``; ``previous`` (the state one ply earlier) lets
    LOA also mark where the last piece landed."""
    game.check_state(state)
    if game.num_players == 1:
        return _calculation(game, state)
    return _board(game, state, previous)


def png_bytes(img: np.ndarray) -> bytes:
    """Encode an ``(H, W, 3) uint8`` image as PNG with the standard library (no imaging package)."""
    import struct
    import zlib

    h, w, _ = img.shape
    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8), img.reshape(h, w * 3)], axis=1).tobytes()

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
