"""Gomoku (five in a row) on an N x N board, N from 7 to 19.

## Description
Two players alternately place a stone of their colour on an empty point. The first to make an
unbroken line of five stones (horizontal, vertical or diagonal) wins. Black (seat 0) moves first.
Freestyle (default, also OpenSpiel's rule): five or more in a row wins. ``exact_five=True``
(standard Gomoku): only exactly five wins; an overline (six or more) does not end the game.
A full board with no winner is a draw.

## Action Space
``Discrete(N*N)``: action ``r*N + c`` places a stone on row ``r`` (0 = top row as printed) and
column ``c`` (0 = column a). There is no pass. Notation: column letter a… (no letter skipped) and
row number 1… counted from the bottom, so on 15x15 ``h8`` is the centre (action 112).

## Observation Space
``Box(0, 1, (3, N, N), float32)`` from the observing seat's view:

| channel | meaning |
|---|---|
| 0 | the seat's own stones |
| 1 | the opponent's stones |
| 2 | all ones if the seat is to move, else zeros |

## Rewards
At the end only: +1 to the player who made the line, -1 to the other, 0 to both for a draw.

## Episode End
A winning line, or a full board (draw). ``max_moves`` is N*N, which the board reaches first.

## Arguments
``make_game("gomoku", size=15, exact_five=False)``; ``rules="openspiel"`` is freestyle too.

## Version History
* v0: initial release.
"""

from ..core import kernel as C
from ..game import Game
from . import _kernel


class Gomoku(Game):
    end_reasons = {_kernel.FIVE: "five", _kernel.FULL: "board_full"}

    def _configure(self, params):
        self.size = n = params["size"]
        return [n, int(params["exact_five"])], n * n, C.HEADER + n * n, n * n

    def _observation_shape(self):
        return (3, self.size, self.size)
