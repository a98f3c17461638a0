"""Text and RGB pictures of any Arbiter position, drawn with numpy alone (no GUI library).

``ansi(game, state, last_move)`` is the game's own text board as a player sees it (its notation's
``public_text`` where the state holds hidden information, else ``game.to_text``) plus a line
naming the last move. ``rgb(game, state, previous)`` returns an ``(H, W, 3) uint8`` image drawn by
the game's own ``render`` (its spec's) or, for a placement game, by ``board``: the board in the
given style (``"intersections"``: a wooden grid as in Go and Gomoku; ``"squares"``: green squares
as in Othello; ``"checker"``), stones from ``game.observation(state, 0)`` (planes 0 and 1 are
Black's and White's for seat 0), coordinates in the game's own notation and the last move (the
header cell ``H_LAST``, a cell id) marked with a red dot. This module holds the drawing
primitives game folders use for their own pictures. Image sizes depend only on the game and its
parameters, never on the position (video-friendly).
"""

from __future__ import annotations

import importlib.util
import os
import struct
import zlib

import numpy as np

from .core import kernel as C

# 3x5 glyphs: one string of 15 bits per character, row by row.
_GLYPHS = {
    "0": "111101101101111",
    "1": "010110010010111",
    "2": "111001111100111",
    "3": "111001111001111",
    "4": "101101111001001",
    "5": "111100111001111",
    "6": "111100111101111",
    "7": "111001010010010",
    "8": "111101111101111",
    "9": "111101111001111",
    "A": "010101111101101",
    "B": "110101110101110",
    "C": "011100100100011",
    "D": "110101101101110",
    "E": "111100110100111",
    "F": "111100110100100",
    "G": "011100101101011",
    "H": "101101111101101",
    "I": "111010010010111",
    "J": "001001001101010",
    "K": "101101110101101",
    "L": "100100100100111",
    "M": "101111111101101",
    "N": "110101101101101",
    "O": "010101101101010",
    "P": "110101110100100",
    "Q": "010101101110011",
    "R": "110101110101101",
    "S": "011100010001110",
    "T": "111010010010010",
    "U": "101101101101111",
    "V": "101101101101010",
    "W": "101101111111101",
    "X": "101101010101101",
    "Y": "101101010010010",
    "Z": "111001010100111",
    "+": "000010111010000",
    "-": "000000111000000",
    " ": "000000000000000",
}
_FONT = {ch: np.array([int(b) for b in bits], dtype=bool).reshape(5, 3) for ch, bits in _GLYPHS.items()}

WOOD = (222, 184, 108)
GREEN = (32, 128, 72)
LIGHT, DARK = (238, 220, 180), (181, 136, 99)
MARGIN_BG = (245, 240, 230)
INK = (30, 30, 30)
BLACK_STONE, WHITE_STONE = (25, 25, 25), (245, 245, 245)
RED = (220, 30, 30)


# -- primitives ------------------------------------------------------------------------------------


def draw_text(img, text, x, y, colour=INK, scale=2):
    """Write ``text`` (upper-cased) with its top-left corner at pixel (x, y)."""
    for i, ch in enumerate(text.upper()):
        glyph = np.kron(_FONT[ch], np.ones((scale, scale), dtype=bool))
        x0 = x + i * 4 * scale
        h, w = glyph.shape
        region = img[y : y + h, x0 : x0 + w]
        region[glyph[: region.shape[0], : region.shape[1]]] = colour


def text_width(text, scale=2):
    return len(text) * 4 * scale - scale


def disc(img, cx, cy, radius, colour):
    y0, y1 = max(0, int(cy - radius)), int(cy + radius) + 1
    x0, x1 = max(0, int(cx - radius)), int(cx + radius) + 1
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= radius**2
    img[y0:y1, x0:x1][inside] = colour


def frame(img, x0, y0, x1, y1, colour, width=2):
    img[y0 : y0 + width, x0:x1] = colour
    img[y1 - width : y1, x0:x1] = colour
    img[y0:y1, x0 : x0 + width] = colour
    img[y0:y1, x1 - width : x1] = colour


# -- text ------------------------------------------------------------------------------------------


def ansi(game, state, last_move=None) -> str:
    """The text board with coordinates, then the last move (``last_move``: its notation)."""
    public = getattr(game.spec.notation, "public_text", None)
    text = public(game, game.check_state(state)) if public is not None else game.to_text(state)
    if last_move is not None:
        text += f"last move: {last_move}\n"
    return text


# -- board games -----------------------------------------------------------------------------------


def _labels(game, n):
    """Column and row labels in the game's notation, read from the names of the first row/column
    (a placement game's action ``r*N + c`` is cell (r, c))."""
    s = game.initial_state(seed=0)
    names = [game.action_to_str(s, a) for a in range(n * n)]
    columns = [names[c].rstrip("0123456789") for c in range(n)]
    rows = [names[r * n][len(columns[0]) :] for r in range(n)]
    return columns, rows


def _cell_size(n):
    return max(18, min(40, 440 // n))


def board(game, state, previous=None, style="squares", labels=None, mark_last=None):
    """A board game's picture (see the module docstring). ``labels`` = (columns, rows) overrides
    the labels read from the notation; ``mark_last(board, cell, n)`` overrides the red dot on
    the last move's cell."""
    obs = game.observation(state, 0)
    n = obs.shape[-1]
    cell = _cell_size(n)
    margin = 22
    size = n * cell
    img = np.empty((size + 2 * margin, size + 2 * margin, 3), dtype=np.uint8)
    img[:] = MARGIN_BG
    area = img[margin : margin + size, margin : margin + size]
    intersections = style == "intersections"
    if style == "checker":
        for r in range(n):
            for c in range(n):
                area[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell] = LIGHT if (r + c) % 2 == 0 else DARK
    else:
        area[:] = WOOD if intersections else GREEN
        line = INK if intersections else (10, 60, 30)
        for i in range(n + (0 if intersections else 1)):
            at = i * cell + (cell // 2 if intersections else 0)
            at = min(at, size - 1)
            lo, hi = (cell // 2, size - cell // 2) if intersections else (0, size)
            area[at, lo:hi] = line
            area[lo:hi, at] = line
    for r in range(n):
        for c in range(n):
            cx, cy = c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2
            if obs[0, r, c] or obs[1, r, c]:
                black = bool(obs[0, r, c])
                disc(area, cx, cy, cell * 0.44, INK)
                disc(area, cx, cy, cell * 0.44 - 1.2, BLACK_STONE if black else WHITE_STONE)
    if mark_last is not None:
        mark_last(area, cell, n)
    else:
        last = int(state[C.H_LAST])
        if 0 <= last < n * n:
            r, c = divmod(last, n)
            disc(area, c * cell + (cell - 1) / 2, r * cell + (cell - 1) / 2, cell * 0.14, RED)
    columns, rows = labels if labels is not None else _labels(game, n)
    for c, label in enumerate(columns):
        x = margin + c * cell + (cell - text_width(label)) // 2
        draw_text(img, label, x, 6)
        draw_text(img, label, x, margin + size + 6)
    for r, label in enumerate(rows):
        y = margin + r * cell + (cell - 10) // 2
        draw_text(img, label, (margin - text_width(label)) // 2, y)
        draw_text(img, label, margin + size + (margin - text_width(label)) // 2, y)
    return img


def rgb(game, state, previous=None) -> np.ndarray:
    """An ``(H, W, 3) uint8`` picture of ``state``; ``previous`` (the state one ply earlier) lets
    a game mark more of its last move (LOA: where the piece landed)."""
    state = game.check_state(state)
    if previous is not None:  # read by the game's picture too: validated like the state
        previous = game.check_state(previous)
    spec = game.spec
    if spec.render is not None:
        return spec.render(game, state, previous)
    if not spec.placement:
        raise NotImplementedError(f"{spec.name} has no picture: its spec names no render function")
    return board(game, state, previous, style=spec.board_style)


def png_bytes(img: np.ndarray) -> bytes:
    """Encode an ``(H, W, 3) uint8`` image as PNG with the standard library (no imaging package)."""
    h, w, _ = img.shape
    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8), img.reshape(h, w * 3)], axis=1).tobytes()

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


# -- render_mode="human" ---------------------------------------------------------------------------


def can_open_window() -> bool:
    """Whether ``render_mode="human"`` can show a window: pygame is installed (the ``bench`` extra
    has it) and there is a display (X11, Wayland, or an SDL video driver chosen explicitly)."""
    if importlib.util.find_spec("pygame") is None:
        return False
    return any(os.environ.get(v) for v in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"))


class HumanView:
    """What ``render_mode="human"`` shows, as PettingZoo's classic envs do: the ``rgb`` picture in
    a pygame window where a window can be opened, else the ``ansi`` text board on stdout."""

    def __init__(self, fps: float = 4.0):
        self.fps = fps
        self.window = None
        self.clock = None
        self.mode = None

    def show(self, game, state, previous=None, last_move=None) -> None:
        if self.mode is None:
            self.mode = "window" if can_open_window() else "text"
        if self.mode == "text":
            print(ansi(game, state, last_move))
            return
        import pygame

        frame = rgb(game, state, previous)
        if self.window is None:
            pygame.init()
            pygame.display.set_caption(f"Arbiter: {game.spec.title}")
            self.window = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
            self.clock = pygame.time.Clock()
        self.window.blit(pygame.surfarray.make_surface(frame.swapaxes(0, 1)), (0, 0))
        pygame.event.pump()
        pygame.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        if self.window is not None:
            import pygame

            pygame.display.quit()
            pygame.quit()
            self.window = None
