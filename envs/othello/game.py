"""Othello (Reversi) on an N x N board, N even from 6 to 16.

## Description
Black (seat 0, ``x``) and White (seat 1, ``o``) start with two discs each on the four centre
squares (on 8x8: d4 and e5 White, d5 and e4 Black; other sizes scale to their centre). Black moves
first. A placement must outflank at least one straight line (any of the 8 directions) of opponent
discs ending in one of the mover's own discs; every outflanked line is flipped. A player with no
placement must pass, and may pass only then. The game ends when neither side can place (this
includes a full board and a side losing all its discs); more discs wins, equal counts draw.

## Action Space
``Discrete(N*N + 1)``: action ``r*N + c`` places a disc on row ``r`` (0 = top row, printed as
row 1) and column ``c`` (0 = column a); action ``N*N`` is the pass (64 on 8x8), the only legal
action of a seat without a placement. Notation: column letter a… and row number 1… counted from
the TOP (a1 is the top-left corner, as in Othello literature and OpenSpiel): ``d3`` is action 19
on 8x8; ``pass``.

## Observation Space
``Box(0, 1, (3, N, N), float32)`` from the observing seat's view:

| channel | meaning |
|---|---|
| 0 | the seat's own discs |
| 1 | the opponent's discs |
| 2 | all ones if the seat is to move, else zeros |

## Rewards
At the end only: +1 to the seat with more discs, -1 to the other, 0 to both for equal counts.
The size of a win (``margin``, ``score``, records' ``RE``) counts by the world rules: the disc
difference, with any empty squares left at the end given to the winner.

## Episode End
When neither side can place: a full board, or empty squares no one can take (which covers a side
being wiped out). The game is finite: each placement adds a disc and a pass is always followed by
a placement, so it lasts at most 2*(N*N - 4) plies; ``max_moves`` is set to 2*N*N, a bound that
is never reached (there is no length cap to configure).

## Arguments
``make_game("othello", size=8)``. ``rules="openspiel"`` is identical to the standard rules
(checked against OpenSpiel's game records: explicit passes, the game ends as soon as neither side
can place, no double pass needed).

## Version History
* v0: initial release.
"""

from ..core import kernel as C
from ..game import Game
from . import _kernel


class Othello(Game):
    end_reasons = {_kernel.FULL: "board_full", _kernel.NO_MOVES: "no_moves"}

    def _configure(self, params):
        self.size = n = params["size"]
        kernel_params = _kernel.kernel_params(n)
        state_len = _kernel.state_length(n, fast=bool(kernel_params[1]))
        return kernel_params, n * n + 1, state_len, 2 * n * n

    def _observation_shape(self):
        return (3, self.size, self.size)

    def margin(self, state):
        """The winner's lead by the world rules: the disc difference, with the empty squares of
        a game that ended before the board was full counted for the winner (``score``)."""
        return abs(self.score(state))

    def score(self, state) -> int:
        """Black's discs minus White's (> 0: Black leads): the count a move cap scores. Once the
        game is over it is the final score by the World Othello Federation's rules, as the FFO
        figures and Othello programs count it: the empty squares go to the winner (33-30 with
        one square empty scores +4), and a draw stays 0. The winner is the same either way."""
        black, white = self.discs(state)
        lead = black - white
        if lead and self.is_terminal(state):
            empty = self.size * self.size - black - white
            lead += empty if lead > 0 else -empty
        return lead

    def discs(self, state) -> tuple[int, int]:
        """Disc counts ``(black, white)``."""
        x = C.HEADER + self.size * self.size + _kernel.S_COUNT
        state = self.check_state(state)
        return int(state[x]), int(state[x + 1])
