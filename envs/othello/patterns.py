"""Pattern evaluation for 8x8 Othello: a value per configuration of each small group of squares,
fitted to game results (as Logistello and Edax evaluate).

A hand-written evaluation sees squares one at a time (a corner is good, the square next to an
empty corner bad) and a few counts; what decides Othello's middle game is how discs sit together
along an edge, a corner region or a diagonal. A pattern is such a group, read as a base-3 number
(empty, the mover's, the opponent's) that indexes a table of values: one lookup scores every
configuration of the group, including the ones no rule of thumb names (an unbalanced edge, a
wedge, a C-square that is safe because the edge is full). The groups, the classic set:

    ``corner3x3``  the 9 squares of a corner region
    ``corner2x5``  two rows of five from a corner, each way round
    ``edge2x``     an edge with its two X-squares
    ``line2``, ``line3``, ``line4``  the second, third and fourth row from an edge
    ``diag8`` ... ``diag4``  the diagonals of 8 down to 4 squares

Each group is placed in all 8 orientations of the board, with its squares read in the
orientation's order, so every orientation shares one table and symmetric positions score alike.
Values depend on the game's stage (``phase``: 4 empty squares per stage, 12 stages) and sit
beside a few counts the patterns cannot see (mobility, stable and frontier discs, region parity:
the terms of ``evaluation.terms``), all in units of final disc difference. The tables are fitted
by least squares to positions of self-play games labelled with the exact result found by the
endgame solver (``examples/othello_patterns.py`` makes them; ``patterns.npz`` holds them).

``evaluation.evaluate`` takes this path when it is given a table (a weight vector of ``SIZE``
entries: the default on 8x8 when ``patterns.npz`` is present) and the hand-written one when it
is given that evaluation's few weights.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from ..core import kernel as C
from . import _kernel as K

N = 8  # the board the patterns are defined on
GROUPS = {  # squares (row, column) of each group at the a1 corner, in reading order
    "corner3x3": [(r, c) for r in range(3) for c in range(3)],
    "corner2x5": [(r, c) for r in range(2) for c in range(5)],
    "edge2x": [(0, c) for c in range(8)] + [(1, 1), (1, 6)],
    "line2": [(1, c) for c in range(8)],
    "line3": [(2, c) for c in range(8)],
    "line4": [(3, c) for c in range(8)],
    "diag8": [(k, k) for k in range(8)],
    "diag7": [(k, k + 1) for k in range(7)],
    "diag6": [(k, k + 2) for k in range(6)],
    "diag5": [(k, k + 3) for k in range(5)],
    "diag4": [(k, k + 4) for k in range(4)],
}
COUNTS = ("bias", "my_moves", "their_moves", "stable", "frontier", "parity")  # per stage, first
PHASES = 12
PHASE_EMPTIES = 4  # empty squares per stage
SCALE = 100  # evaluation units per disc of final difference
MAX_CELLS = 10


def orientations(r, c):
    """The 8 images of square (r, c) under the symmetries of the board."""
    m = N - 1
    return [(r, c), (c, r), (r, m - c), (m - c, r), (m - r, c), (c, m - r), (m - r, m - c), (m - c, m - r)]


def placed(squares, t):
    """The cells (``r * N + c``) of ``squares`` in orientation ``t`` of the board, in order."""
    return tuple(orientations(r, c)[t][0] * N + orientations(r, c)[t][1] for r, c in squares)


def _layout():
    """Every placed group (``CELLS``, padded with -1), its table's offset within a stage
    (``BASE``) and a stage's length."""
    cells, bases, offset = [], [], len(COUNTS)
    for squares in GROUPS.values():
        seen = set()
        for t in range(8):
            image = placed(squares, t)
            if frozenset(image) not in seen:  # a group that maps onto itself is placed once
                seen.add(frozenset(image))
                cells.append(list(image) + [-1] * (MAX_CELLS - len(image)))
                bases.append(offset)
        offset += 3 ** len(squares)
    return np.array(cells, dtype=np.int64), np.array(bases, dtype=np.int64), offset


CELLS, BASE, STAGE = _layout()
SIZE = PHASES * STAGE  # entries of a full table
PLACED = len(CELLS)


@njit(cache=True)
def phase(empties):
    """The stage of a position with ``empties`` empty squares (0 at the start, PHASES - 1 last)."""
    k = (N * N - 4 - empties) // PHASE_EMPTIES
    return min(PHASES - 1, max(0, k))


@njit(cache=True, inline="always")
def _index(s, me, g):
    """The table index (within a stage) of placed group ``g`` of ``s`` as ``me`` sees it: a
    square counts 0 empty, 1 ``me``'s, 2 the opponent's."""
    index = 0
    for k in range(MAX_CELLS - 1, -1, -1):
        cell = CELLS[g, k]
        if cell >= 0:
            v = s[C.HEADER + cell]
            index = 3 * index + (0 if v == 0 else (1 if v == me else 2))
    return BASE[g] + index


@njit(cache=True)
def indices(s, me, out):
    """Write the table index of every placed group of ``s`` as ``me`` sees it into ``out``."""
    for g in range(PLACED):
        out[g] = _index(s, me, g)


@njit(cache=True)
def value(s, me, my_moves, their_moves, stable, frontier, parity, table):
    """The fitted value of ``s`` for ``me`` in evaluation units, given the counts of ``COUNTS``."""
    x = C.HEADER + N * N
    empties = N * N - s[x + K.S_COUNT] - s[x + K.S_COUNT + 1]
    start = phase(empties) * STAGE
    total = (
        table[start]
        + table[start + 1] * my_moves
        + table[start + 2] * their_moves
        + table[start + 3] * stable
        + table[start + 4] * frontier
        + table[start + 5] * parity
    )
    for g in range(PLACED):
        total += table[start + _index(s, me, g)]
    return total * SCALE


PATH = Path(__file__).with_name("patterns.npz")
_loaded: list = []  # [table or None] once read


def table() -> np.ndarray | None:
    """The fitted table (float64, ``SIZE`` entries), or None where ``patterns.npz`` is missing;
    read once per process. Shared by every caller: not to be modified."""
    if not _loaded:
        stored = None
        if PATH.exists():
            with np.load(PATH) as data:
                stored = data["table"].astype(np.float64)
            if stored.shape != (SIZE,):
                raise ValueError(f"{PATH.name}: {stored.shape[0]} entries, the patterns need {SIZE}")
        _loaded.append(stored)
    return _loaded[0]
