"""How a game ended: ``Outcome``, one value from the kernel's header to the journal, the game
record and the report, with its points and its result text defined here and nowhere else.

    outcome = game.outcome(state)        # a finished state: winner, returns, end_reason, margin
    outcome.winner, outcome.returns      # 1 (White won), (-1.0, 1.0)
    outcome.points(0), outcome.result    # 0.0, "0-1"
    outcome.sgf_result                   # "W+3.5": SGF's RE, GTP's final_score
    Outcome.from_record(outcome.to_record()) == outcome

The fields:

  winner      the seat that won; None for a draw and a double forfeit. A one-player game
              (Calculation) has no draw: ``winner`` is 0 when the game was won and None when it
              was lost, as its returns are 1 and 0.
  returns     per seat, the game's ``returns`` (+1 win, -1 loss, 0 draw; alone 1 won, 0 lost);
              a seat that loses by the referee's ruling gets the loss (-1, the others +1; 0 alone).
              A *double forfeit* (``Outcome.double_forfeit``: both agents were at fault before
              the game could be played, e.g. both ruled out of a tournament) gives every seat the
              loss, -1: no one won, and it is no draw.
  reason      how the game was decided, one of ``REASONS``: ``NORMAL`` (the rules ended it),
              ``RESIGN`` (the loser gave up: a result, not a fault), the forfeits ``CRASH``,
              ``TIMEOUT`` and ``ILLEGAL`` (an agent's fault: it raised or died, overran its clock,
              or played what is not a legal move), or ``ADJUDICATED`` (the referee scored a game
              the rules had not ended). These are the words tournament journals have always
              stored, so records of every version read alike.
  detail      what happened, in words (a forfeit's exception and where it was raised).
  end_reason  which rule ended a ``NORMAL`` game, by the game's own name for it
              (``Game.end_reasons``: ``"five"``, ``"two_passes"``, ``"max_moves"``, ...); None for
              any other reason, and where it was not recorded (records of older versions).
  margin      by how much the winner won, in the game's unit (Go: points, Othello: discs), where
              the rules or an adjudication decided the game and the game measures a win
              (``Game.margin``); None otherwise (a draw, a resignation, a forfeit).

Two levels, as PGN's ``Termination`` tag and its result comment: ``reason`` is what a referee,
a rating or a forfeit footnote acts on, ``end_reason`` what a reader of one game wants to know.

Points (``points``): a win 1, a draw 1/2, a loss 0, whatever the reason (a resignation or a
forfeit is a loss like any other; a double forfeit is a loss for both, as FIDE scores it). The
two-player result texts: ``result`` is the score, as PGN and cutechess write it (``1-0``,
``0-1``, ``1/2-1/2``, and FIDE's ``0-0`` for a double forfeit); ``sgf_result`` is SGF's ``RE``,
which GTP's ``final_score`` answers too (``B+3.5``, ``W+`` without a margin, ``B+R``
resignation, ``B+T`` time, ``B+F`` any other forfeit, ``0`` a draw, ``Void`` no result: a
double forfeit). ``code`` is the compact form the championship kernels and the journal keep
(``BLACK_WINS``, ``WHITE_WINS``, ``DRAW``, ``DOUBLE_FORFEIT``). A double forfeit tells nothing of
the two agents' strength, so ratings and statistics of play leave it out; standings count it
as the loss it is for each.

It is part of the shared core: it reads only the common header of a state
(``envs.core.kernel``), so every layer may import it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .errors import ArbiterError
from .kernel import H_STATUS, H_WINNER, NO_WINNER, TERMINAL

NORMAL = "normal"
RESIGN = "resign"
CRASH = "forfeit-crash"
TIMEOUT = "forfeit-timeout"
ILLEGAL = "forfeit-illegal"
ADJUDICATED = "adjudicated"
REASONS = (NORMAL, RESIGN, CRASH, TIMEOUT, ILLEGAL, ADJUDICATED)
FORFEITS = (CRASH, TIMEOUT, ILLEGAL)
SCORED = (NORMAL, ADJUDICATED)  # the reasons under which a game may have a margin

# how a person is told why the loser lost (``describe``)
LOST = {
    RESIGN: "resigned",
    TIMEOUT: "lost on time",
    CRASH: "forfeited: the agent failed",
    ILLEGAL: "forfeited: an illegal move",
    ADJUDICATED: "lost by adjudication",
}

# the two-player result codes of the championship kernels and the journal: the winner's seat, or
# DRAW, or DOUBLE_FORFEIT (both seats lost without a game: no points for either)
BLACK_WINS, WHITE_WINS, DRAW, DOUBLE_FORFEIT = 0, 1, 2, 3
CODES = (BLACK_WINS, WHITE_WINS, DRAW, DOUBLE_FORFEIT)

WIN, HALF, LOSS = 1.0, 0.5, 0.0  # points

SCORES = {0: "1-0", 1: "0-1", None: "1/2-1/2"}  # ``result`` by winner
VOID = "0-0"  # ``result`` of a double forfeit (FIDE's notation)
RESULTS = (*SCORES.values(), VOID)
_WINNER = {BLACK_WINS: 0, WHITE_WINS: 1, DRAW: None, "1-0": 0, "0-1": 1, "1/2-1/2": None}  # an older record's
_RETURNS = {0: (1.0, -1.0), 1: (-1.0, 1.0), None: (0.0, 0.0)}  # a two-player game's, by winner
_SGF_LOSS = {RESIGN: "R", TIMEOUT: "T", CRASH: "F", ILLEGAL: "F"}  # RE[B+R], RE[W+T], RE[B+F]


class OutcomeError(ArbiterError):
    """Something that is not an outcome: a winner that is no seat, returns that contradict it, an
    unknown reason, a record with a field of the wrong type. The message names the field."""


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_number(value) -> bool:
    return (
        isinstance(value, (int, float, np.integer, np.floating))
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(value)
    )


def winner_of(returns) -> int | None:
    """The seat with the strictly highest return (None on a tie); alone, seat 0 if it won (a
    positive return), else None."""
    if type(returns) is not tuple:
        returns = tuple(map(float, returns))
    best = max(returns)
    if returns.count(best) > 1 or (len(returns) == 1 and best <= 0):
        return None
    return returns.index(best)


@dataclass(frozen=True)
class Outcome:
    """How one game ended; see the module docstring for the fields. Frozen: an outcome is a fact.

    ``winner``, ``returns``, ``reason`` and ``detail`` may be given by position (``Outcome(None,
    (0.0, 0.0))`` is a draw); ``end_reason`` and ``margin`` by keyword. The constructor checks the
    fields agree (the winner is the seat with the highest return, a margin only for a scored
    game, an end reason only for a normal end) and raises ``OutcomeError`` otherwise.
    """

    winner: int | None
    returns: tuple
    reason: str = NORMAL
    detail: str = ""
    end_reason: str | None = field(default=None, kw_only=True)
    margin: int | float | None = field(default=None, kw_only=True)

    def __post_init__(self):
        returns = self.returns
        if type(returns) is not tuple or not all(type(r) is float for r in returns):  # (a tuple of floats: as is)
            if isinstance(returns, np.ndarray):
                returns = returns.tolist()
            if not isinstance(returns, (tuple, list)) or not all(_is_number(r) for r in returns):
                raise OutcomeError(f"returns={returns!r}: expected one finite number per seat")
            returns = tuple(map(float, returns))
            object.__setattr__(self, "returns", returns)
        if not returns or not all(map(math.isfinite, returns)):
            raise OutcomeError(f"returns={returns!r}: expected one finite number per seat")
        winner = self.winner
        if winner is not None:
            if type(winner) is not int:
                if not _is_int(winner):
                    raise OutcomeError(f"winner={winner!r}: expected None or a seat from 0 to {len(returns) - 1}")
                winner = int(winner)
                object.__setattr__(self, "winner", winner)
            if not 0 <= winner < len(returns):
                raise OutcomeError(f"winner={winner!r}: expected None or a seat from 0 to {len(returns) - 1}")
        if winner != winner_of(returns):
            raise OutcomeError(
                f"winner={winner!r} with returns={list(returns)}: the winner is the seat with "
                f"the highest return ({winner_of(returns)!r})"
            )
        if self.reason not in REASONS:
            raise OutcomeError(f"reason={self.reason!r}: expected one of {', '.join(REASONS)}")
        if len(returns) > 1 and max(returns) < 0 and self.reason not in FORFEITS:
            raise OutcomeError(
                f"returns={list(returns)} with reason={self.reason!r}: every seat loses only in a "
                f"double forfeit, whose reason is one of {', '.join(FORFEITS)}"
            )
        if not isinstance(self.detail, str):
            raise OutcomeError(f"detail={self.detail!r}: expected a string")
        if self.end_reason is not None and (not isinstance(self.end_reason, str) or self.reason != NORMAL):
            raise OutcomeError(
                f"end_reason={self.end_reason!r}: expected None, or a rule's name for a "
                f"{NORMAL!r} end (reason={self.reason!r})"
            )
        margin = self.margin
        if margin is not None:
            if not _is_number(margin) or margin < 0 or self.reason not in SCORED or winner is None:
                raise OutcomeError(
                    f"margin={margin!r}: expected None, or a finite number >= 0 for a game "
                    f"won under the rules or by adjudication (reason={self.reason!r}, "
                    f"winner={winner!r})"
                )
            object.__setattr__(self, "margin", int(margin) if _is_int(margin) else float(margin))

    # -- constructors ------------------------------------------------------------------------------
    @classmethod
    def from_state(cls, state, returns, *, end_reason=None, margin=None) -> Outcome | None:
        """The outcome the rules gave finished ``state`` (None while the game goes on): the winner
        from its header (``NO_WINNER``: a draw, or a lost patience), the game's ``returns`` for it
        and what the game says of the end. ``Game.outcome(state)`` is the usual way in."""
        if int(state[H_STATUS]) != TERMINAL:
            return None
        winner = int(state[H_WINNER])
        return cls(None if winner == NO_WINNER else winner, returns, NORMAL, end_reason=end_reason, margin=margin)

    @classmethod
    def loss(cls, seat: int, reason: str, detail: str = "", *, num_players: int = 2, **more):
        """The outcome of a game that ``seat`` lost by ``reason`` (any of ``REASONS`` but
        ``NORMAL``): a resignation, a forfeit or an adjudication. ``more``: a subclass's fields."""
        if reason not in REASONS or reason == NORMAL:
            raise OutcomeError(f"reason={reason!r}: a loss is by one of {', '.join(REASONS[1:])}")
        if not _is_int(num_players) or num_players < 1:
            raise OutcomeError(f"num_players={num_players!r}: expected a positive integer")
        if not _is_int(seat) or not 0 <= seat < num_players:
            raise OutcomeError(f"seat={seat!r}: expected a seat from 0 to {num_players - 1}")
        returns = (0.0,) if num_players == 1 else tuple(-1.0 if s == seat else 1.0 for s in range(num_players))
        return cls(winner_of(returns), returns, reason, detail, **more)

    @classmethod
    def double_forfeit(cls, reason: str, detail: str = "", *, num_players: int = 2, **more):
        """The outcome of a game every seat lost by ``reason`` (one of ``FORFEITS``) before it
        could be played: both agents were ruled out of a tournament, say. Each seat gets the
        loss (-1) and no points; there is no winner and it is no draw (``void``)."""
        if reason not in FORFEITS:
            raise OutcomeError(f"reason={reason!r}: a double forfeit is by one of {', '.join(FORFEITS)}")
        if not _is_int(num_players) or num_players < 2:
            raise OutcomeError(f"num_players={num_players!r}: a double forfeit needs two or more players")
        return cls(None, (-1.0,) * num_players, reason, detail, **more)

    # -- what it means -----------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        return len(self.returns)

    @property
    def void(self) -> bool:
        """Whether every seat lost (a double forfeit): a game with no result to rate."""
        return self.num_players > 1 and max(self.returns) < 0

    @property
    def draw(self) -> bool:
        """Whether no one won a game of two or more players that was played to a result (a lost
        patience and a double forfeit are no draws)."""
        return self.winner is None and self.num_players > 1 and not self.void

    @property
    def loser(self) -> int | None:
        """The seat that lost: in a two-player game the winner's opponent (None for a draw);
        alone, 0 if the game was lost."""
        if self.num_players == 1:
            return None if self.winner == 0 else 0
        low = min(self.returns)
        seats = [s for s, r in enumerate(self.returns) if r == low]
        return seats[0] if len(seats) == 1 and self.winner is not None else None

    @property
    def forfeit(self) -> bool:
        """Whether an agent's fault (a crash, a timeout, an illegal action) ended the game."""
        return self.reason in FORFEITS

    def points(self, seat: int) -> float:
        """What the game is worth to ``seat``: 1 for a win, 1/2 for a draw, 0 for a loss."""
        if not (type(seat) is int or _is_int(seat)) or not 0 <= seat < len(self.returns):
            raise OutcomeError(f"seat={seat!r}: expected a seat from 0 to {self.num_players - 1}")
        if self.winner is None:
            return HALF if self.draw else LOSS
        return WIN if self.winner == seat else LOSS

    def _two_players(self, what: str) -> None:
        if self.num_players != 2:
            raise OutcomeError(f"{what}: a two-player result needs two players, this game had {self.num_players}")

    @property
    def code(self) -> int:
        """``BLACK_WINS``, ``WHITE_WINS``, ``DRAW`` or ``DOUBLE_FORFEIT``: the form the
        championship kernels take."""
        self._two_players("code")
        if self.void:
            return DOUBLE_FORFEIT
        return DRAW if self.winner is None else self.winner

    @property
    def result(self) -> str:
        """``"1-0"`` (the first seat, Black, won), ``"0-1"``, ``"1/2-1/2"`` or ``"0-0"`` (a double
        forfeit): the score."""
        self._two_players("result")
        return VOID if self.void else SCORES[self.winner]

    @property
    def sgf_result(self) -> str:
        """SGF's ``RE`` (and GTP's ``final_score``): ``0`` for a draw, else the winner's colour and
        ``+`` with the margin (``B+3.5``; nothing after ``+`` without one), ``R`` for a
        resignation, ``T`` for a loss on time, ``F`` for any other forfeit (``W+R``, ``B+T``);
        ``Void`` (SGF's "no result") for a double forfeit."""
        self._two_players("sgf_result")
        if self.void:
            return "Void"
        if self.winner is None:
            return "0"
        colour = "BW"[self.winner]
        if self.reason in _SGF_LOSS:
            return f"{colour}+{_SGF_LOSS[self.reason]}"
        return f"{colour}+{self.margin:g}" if self.margin else f"{colour}+"

    def describe(self, labels) -> str:
        """The result in words, for a person: ``labels[seat]`` names each seat (``"White
        (mcts)"``). Two players: ``"0-1, White (mcts) wins by 12"``, ``"1/2-1/2, a draw"``,
        ``"1-0, Black (a) wins: White (b) resigned"``, and a forfeit's detail in brackets; alone:
        ``"won"``, ``"lost"`` or ``"lost: you resigned"`` (``labels = ["you"]``)."""
        labels = list(labels)
        if len(labels) != self.num_players:
            raise OutcomeError(f"labels={labels!r}: expected one per seat ({self.num_players})")
        detail = f" ({self.detail})" if self.forfeit and self.detail else ""
        if self.num_players == 1:
            text = "won" if self.winner == 0 else "lost"
            return text if self.reason == NORMAL else f"{text}: {labels[0]} {LOST[self.reason]}{detail}"
        if self.void:
            return f"{self.result}, both forfeited{detail}"
        if self.winner is None:
            return f"{self.result}, a draw"
        text = f"{self.result}, {labels[self.winner]} wins"
        if self.reason == NORMAL:
            return text + (f" by {self.margin:g}" if self.margin else "")
        return f"{text}: {labels[self.loser]} {LOST[self.reason]}{detail}"

    # -- the record form ---------------------------------------------------------------------------
    def to_record(self) -> dict:
        """The outcome as a JSON-ready dict: ``winner``, ``returns`` (a list), ``reason``,
        ``detail``, ``end_reason`` and ``margin``; ``from_record`` reads it back equal."""
        return {
            "winner": self.winner,
            "returns": list(self.returns),
            "reason": self.reason,
            "detail": self.detail,
            "end_reason": self.end_reason,
            "margin": self.margin,
        }

    @classmethod
    def from_record(cls, record) -> Outcome:
        """The outcome of a record: the form ``to_record`` writes (any other keys are ignored), or
        a two-player game record of an older tournament journal, which has no ``winner`` and
        ``returns`` but the ``code`` (``BLACK_WINS``/``WHITE_WINS``/``DRAW``) or the ``result``
        (``"1-0"``...). Without ``reason`` the rules ended the game (``NORMAL``), without
        ``detail`` it is empty. Where a record has ``code`` or ``result`` too, they must agree
        with its winner. A field missing or of the wrong type is an ``OutcomeError``."""
        if not isinstance(record, dict):
            raise OutcomeError(f"expected a record (a dict), got {type(record).__name__}")
        code, result = record.get("code"), record.get("result")
        if "code" in record and (not _is_int(code) or code not in CODES):
            raise OutcomeError(f"code={code!r}: expected one of {list(CODES)}")
        if "result" in record and result not in RESULTS:
            raise OutcomeError(f"result={result!r}: expected one of {', '.join(RESULTS)}")
        if "winner" in record or "returns" in record:
            missing = next((k for k in ("winner", "returns") if k not in record), None)
            if missing:
                raise OutcomeError(f"no {missing!r} field beside {'returns' if missing == 'winner' else 'winner'!r}")
            winner, returns = record["winner"], record["returns"]
            if type(returns) is list:  # as JSON has it
                returns = tuple(returns)
        elif "code" in record or "result" in record:  # an older journal's two-player record
            if (code if "code" in record else result) in (DOUBLE_FORFEIT, VOID):
                raise OutcomeError(
                    f"code={code!r}, result={result!r}: a double forfeit's record has 'winner' and 'returns'"
                )
            winner = _WINNER[code if "code" in record else result]
            returns = _RETURNS[winner]
        else:
            raise OutcomeError("no 'winner' and 'returns' (nor an older record's 'code' or 'result') field")
        outcome = cls(
            winner,
            returns,
            record.get("reason", NORMAL),
            record.get("detail", ""),
            end_reason=record.get("end_reason"),
            margin=record.get("margin"),
        )
        if "code" in record and code != outcome.code:
            raise OutcomeError(f"code={code!r} does not match winner={outcome.winner!r}")
        if "result" in record and result != outcome.result:
            raise OutcomeError(
                f"result={result!r} does not match "
                + (f"code={code!r}" if "code" in record else f"winner={outcome.winner!r}")
            )
        return outcome
