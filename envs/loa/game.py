"""Lines of Action (LOA) on 8x8: connect all of your pieces into one group.

## Description
Black (seat 0, 'x') starts on b1–g1 and b8–g8, White (seat 1, 'o') on a2–a7 and h2–h7; Black moves
first. A piece moves in a straight line (8 directions) exactly as many squares as there are pieces
of either colour on that whole line, itself included. It may jump its own pieces but not enemy
ones, may not land on its own piece, and captures an enemy piece it lands on. A side whose pieces
form one 8-connected group (a single piece counts) wins. After each move: if both sides are
connected the game is drawn (``simultaneous="draw"``, Olympiad rule) or won by the mover
(``"mover"``, Sackson's 2nd edition and OpenSpiel); else the connected side wins (the opponent can
only become connected through a capture of its pieces).

## Action Space
``Discrete(513)``: action ``from_cell*8 + direction``, where ``from_cell = r*8 + c`` (r = 0 is
rank 8, c = 0 is file a) and the direction is 0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW (N is
toward rank 8, E toward file h). The distance is fixed by the line, so each (from, direction) pair
is at most one move. Action 512 is ``pass``, legal only under ``no_move="pass"`` when the mover has
no other move. Cells (see the diagram in ``_kernel.py``): a8 = 0, h8 = 7, a1 = 56, h1 = 63; so
from the start b1 (57) has b1-b3 = 456 (N), b1-d3 = 457 (NE), b1-h1 = 458 (E).
Notation: ``b1-b3``, capture ``c1xa3`` (``c1:a3`` accepted), ``pass``; ``-`` for a capture or ``x``
for a plain move is rejected with the right form in the message.

## Observation Space
``Box(0, 1, (3, 8, 8), float32)`` from the observing seat's view, row 0 = rank 8:

| channel | meaning |
|---|---|
| 0 | the seat's own pieces |
| 1 | the opponent's pieces |
| 2 | all ones if the seat is to move, else zeros |

## Rewards
At the end only: +1 to the winner, -1 to the loser, 0 to both for a draw.

## Episode End
* connection (above);
* repetition: ``repetition="threefold"`` draws on the third occurrence of a position with the same
  side to move; ``"first_board"`` (OpenSpiel) draws as soon as a piece placement recurs, whoever
  is to move (so a pass, which leaves the board as it was, draws at once);
* the cap: after ``max_moves`` plies (passes count) the game is drawn. A connecting move on the
  last ply still wins with ``win_at_cap="stands"``; with ``"draw"`` (OpenSpiel) it is a draw;
* no move: a player without a move passes (``no_move="pass"``) or loses (``"lose"``, OpenSpiel).
``H_REASON`` in the state records which (codes in ``_kernel.py``).

## Arguments
``make_game("loa", simultaneous="draw", no_move="pass", repetition="threefold", max_moves=1000,
win_at_cap="stands")``. ``rules="openspiel"`` sets ``simultaneous="mover", no_move="lose",
repetition="first_board", win_at_cap="draw", max_moves=1000`` (checked move by move against
OpenSpiel's ``lines_of_action`` records). ``max_moves`` is 1 to 10000; the state carries one
repetition-hash slot per ply, so its length is about ``max_moves + 60``.

## Version History
* v0: initial release.
"""

from ..game import Game
from . import _kernel

MAX_MOVES_LIMIT = 10000
CHOICES = {
    "simultaneous": ("draw", "mover"),
    "no_move": ("pass", "lose"),
    "repetition": ("threefold", "first_board"),
    "win_at_cap": ("stands", "draw"),
}


class LinesOfAction(Game):
    end_reasons = {
        _kernel.CONNECTED: "connected",
        _kernel.OPPONENT_CONNECTED: "opponent_connected",
        _kernel.BOTH_CONNECTED: "both_connected",
        _kernel.REPETITION: "repetition",
        _kernel.MAX_MOVES: "max_moves",
        _kernel.NO_MOVE: "no_move",
    }
    board_size = 8  # always 8x8: GTP's boardsize, SGF's SZ (no size parameter to read it from)

    def _configure(self, params):
        codes = [options.index(params[key]) for key, options in CHOICES.items()]
        max_moves = params["max_moves"]
        return codes, _kernel.NUM_ACTIONS, _kernel.state_len(max_moves), max_moves

    def _observation_shape(self):
        return (3, 8, 8)
