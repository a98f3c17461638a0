"""Go on an N x N board, N from 5 to 19, Tromp-Taylor area scoring.

## Description
Black (seat 0) and White (seat 1) alternately place a stone on an empty point or pass. After a
placement, enemy chains left without liberties are removed, then (only with ``suicide=True``)
the mover's own chain if it has none. **Positional superko**: a placement may not recreate any
whole-board position seen earlier in the game (``superko="illegal"``). OpenSpiel's variant
(``superko="draw"``) only forbids retaking a single-stone ko at once; any other repetition is
allowed and ends the game drawn. Single-stone suicide is illegal in every setting: it leaves the
board unchanged (a pass in disguise that would also repeat the current position).

Area scoring (Tromp-Taylor): a player's area is their stones plus the empty regions that reach
only their colour; regions reaching both (dame, liberties shared in seki) count for nobody. Black's
score is ``black area - white area - komi``; ``score(state)`` returns it at any time.

## Action Space
``Discrete(N*N + 1)``: action ``r*N + c`` plays at row ``r`` (0 = top row as printed = GTP row
N) and column ``c`` (0 = GTP column A); action ``N*N`` passes. Notation is GTP: columns A…
skipping I, rows 1… bottom to top, so on 9x9 ``A9`` = 0, ``J1`` = 80, ``E5`` = 40, ``pass`` = 81.

## Observation Space
``Box(0, 1, (4, N, N), float32)`` from the observing seat's view:

| channel | meaning |
|---|---|
| 0 | the seat's own stones |
| 1 | the opponent's stones |
| 2 | all ones if the seat is to move, else zeros |
| 3 | empty points where the side to move may not play (suicide, ko, superko); zeros at the end |

## Rewards
At the end only: +1 to the player with the higher Tromp-Taylor score, -1 to the other, 0 to
both for a tie (possible with a whole-number komi) or a superko repetition under ``"draw"``.

## Episode End
Two consecutive passes; ``max_moves`` plies (passes count; default 2*N*N), after which the
board is scored; or, under ``superko="draw"``, a placement that repeats an earlier position.

## Text boards
``to_text`` / ``from_text`` (see ``notation.py``): the grid, then ``to_move=x ply=12 passes=0
ko=-``. Like a FEN (whose en passant square ``ko`` mirrors), a text board has no history: the
position read starts a fresh superko history, so a repetition longer than a simple ko that the
original game bars can be legal in the position read back.

## Arguments
``make_game("go", size=9, komi=7.5, superko="illegal", suicide=False, max_moves=None)``.
``komi`` is a finite multiple of 0.5 with ``|komi| <= N*N``; ``max_moves`` is 1..8*N*N (None =
2*N*N). ``rules="openspiel"`` sets ``superko="draw"`` and ``suicide=False``; its other defaults
(komi 7.5, 2*N*N plies) already equal OpenSpiel's.

## Version History
* v0: initial release.
"""

import math

from ..core import ParameterError, check_int
from ..core import kernel as C
from ..game import Game
from . import _kernel, evaluation


class Go(Game):
    end_reasons = {_kernel.TWO_PASSES: "two_passes", _kernel.MAX_MOVES: "max_moves", _kernel.SUPERKO: "superko"}

    def _configure(self, params):
        self.size = n = params["size"]
        komi2 = _komi2(params["komi"], n)
        max_moves = params["max_moves"]
        max_moves = 2 * n * n if max_moves is None else check_int("max_moves", max_moves, 1, 8 * n * n)
        history, words = max_moves + 1, _kernel.filter_words(max_moves)
        kernel_params = [
            n,
            komi2,
            ("illegal", "draw").index(params["superko"]),
            int(params["suicide"]),
            history,
            words,
            *_kernel.neighbour_table(n),
        ]
        state_len = C.HEADER + (1 + _kernel.CHAIN_FIELDS) * n * n + _kernel.O_HIST + history + words
        return kernel_params, n * n + 1, state_len, max_moves

    def _observation_shape(self):
        return (4, self.size, self.size)

    def summary(self, state) -> str:
        score = self.score(state)
        lead = "even" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"
        return f"{super().summary(state)}; area score now {lead} (komi included)"

    def margin(self, state):
        """The winner's lead on the board (Tromp-Taylor points, komi included)."""
        return abs(self.score(state))

    def _self_harm(self, state, a) -> bool:
        """Filling one of the mover's own true eyes (``evaluation.is_eye``): a group that keeps two
        eyes lives, one that fills them dies, and no capture or threat is worth that at the root."""
        if a >= self.size * self.size or state[C.HEADER + a] != 0:
            return False
        return bool(evaluation.is_eye(state, self._p, a, state.item(C.H_PLAYER) + 1))

    def score(self, state) -> float:
        """Tromp-Taylor score now: Black's area minus White's area minus komi (> 0: Black leads)."""
        return _kernel.score(self.check_state(state), self._p) / 2


def _komi2(komi, n):
    """Twice ``komi`` as an int, after checking it is a finite multiple of 0.5 within ±N*N."""
    value = float(komi)  # a finite number: checked by its Param
    # the range first: doubling a float near its maximum (1e308) overflows to inf
    if abs(value) > n * n:
        raise ParameterError(f"komi={komi!r}: expected at most {n * n} points either way on {n}x{n}")
    if value * 2 != math.floor(value * 2):
        raise ParameterError(f"komi={komi!r}: expected a multiple of 0.5 (scores are whole points)")
    return int(value * 2)
