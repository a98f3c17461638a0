"""Calculation's picture: the four foundations (top card), the face-up card with the number of
face-down cards under it, and the four waste piles fanned downwards, ranks printed on every card;
the pile the last move went to has a red frame. Drawn from ``game.observation`` only, so the
face-down order never shows."""

import numpy as np

from ..core import kernel as C
from ..render import GREEN, INK, RED, draw_text, frame

RANKS = "A23456789TJQK"
CARD_W, CARD_H, FAN = 34, 46, 15
SHOWN = 14  # waste cards drawn per pile; deeper ones are summarised as "+k"


def _card(img, x, y, rank, label_only=False):
    img[y : y + CARD_H, x : x + CARD_W] = INK
    img[y + 1 : y + CARD_H - 1, x + 1 : x + CARD_W - 1] = (250, 250, 250)
    colour = RED if rank in (1, 13) else INK  # Aces and Kings stand out: bases and goals
    draw_text(img, RANKS[rank - 1], x + 4, y + 4, colour)
    if not label_only:
        draw_text(img, RANKS[rank - 1], x + CARD_W - 10, y + CARD_H - 14, colour)


def rgb(game, state, previous=None):
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
            frame(img, x - 3, top - 3, x + CARD_W + 3, top + CARD_H + 3, RED)
    x_up = pad + 4 * (CARD_W + gap) + 30
    unseen = int(obs[5].sum())
    draw_text(img, f"{unseen}", x_up, pad - 2, (255, 255, 255))
    if obs[4].any():
        _card(img, x_up, top, int(np.argmax(obs[4])) + 1)
    else:
        frame(img, x_up, top, x_up + CARD_W, top + CARD_H, (200, 200, 200))
    for w in range(4):
        x = pad + w * (CARD_W + gap)
        rows = obs[6 + 48 * w : 6 + 48 * (w + 1)]
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
            frame(img, x - 3, waste_y - 3, x + CARD_W + 3, y1 + 3, RED)
    return img
