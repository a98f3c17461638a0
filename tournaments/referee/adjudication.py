"""Adjudication: the referee ends a game the rules have not ended yet, and says why.

    rules = Adjudication.parse(["cap:plies=200,result=score", "resign:movecount=4,score=600",
                                "draw:movenumber=40,movecount=8,score=20"], judge="alphabeta:depth=2")
    tournaments.round_robin(agents, game="othello", adjudicate=rules)
    arbiter tournament ... --adjudicate cap:plies=200,result=score resign:movecount=4,score=600

Three rules, after cutechess-cli's ``-maxmoves``, ``-resign`` and ``-draw`` (moves are counted in
plies, the opening included, as every record counts them):

  cap:plies=N[,result=draw|score]
        a game still going after N plies ends: drawn (``result=draw``, the default), or won by the
        side ahead by the game's own count of the position (``result=score``: Go's area score with
        komi, Othello's discs; a level count is a draw; refused for a game without a score).
  resign:movecount=K,score=S
        the judge's evaluation of the position after each ply, from Black's side, stays at S or
        above (White is lost) or at -S or below (Black is lost) for K plies in a row: the lost side
        loses the game.
  draw:movenumber=N,movecount=K,score=S
        from ply N on, the judge's evaluation stays within ±S for K plies in a row: a draw.

The *judge* (``judge=``, ``--adjudicator``; default ``alphabeta:depth=2``) is an agent that searches
each position after every ply, outside both players' clocks; its evaluation is its ``last_stats``:
alpha-beta's and minimax's ``score`` (the game's evaluation units, forced wins beyond ±999,000) or
MCTS's ``value`` as 2·(win chance) − 1 in [-1, 1]. A judge with a fixed depth or simulation count
gives the same evaluations every time, so an adjudicated tournament resumes to the same results.

An adjudicated game has reason ``"adjudicated"`` (``envs.core.outcome.ADJUDICATED``), its detail
says which rule and with what figures, and a scored cap has the margin. Resignation by an agent
(``agents.Resign``) is another reason, ``"resign"``: the agent gave up; the referee never resigns
for it, and a game ends once, so neither counts twice.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import agents
from agents.base import AgentError, parse_spec
from envs.core import ParameterError

if TYPE_CHECKING:
    import numpy as np

    from envs.game import Game

DEFAULT_JUDGE = "alphabeta:depth=2"
RULES = ("cap", "resign", "draw")
_KEYS = {"cap": ("plies", "result"), "resign": ("movecount", "score"), "draw": ("movenumber", "movecount", "score")}


class AdjudicationError(ParameterError):
    """A rule of ``--adjudicate`` that cannot be read or does not apply to the game."""


def _count(rule, key, value, lo=1) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, bool) or number < lo or (isinstance(value, float) and value != number):
        raise AdjudicationError(f"{rule}: {key}={value}: expected an integer of at least {lo}")
    return number


def _score(rule, value) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) or number < 0:
        raise AdjudicationError(f"{rule}: score={value}: expected a finite number >= 0 (an evaluation)")
    return number


@dataclass(frozen=True)
class Adjudication:
    """The adjudication rules of a tournament (see the module docstring); a rule left None is off.

    cap        (plies, "draw" or "score")
    resign     (movecount, score)
    draw       (movenumber, movecount, score)
    judge      the judging agent's spec (or an agent object), for ``resign`` and ``draw``
    """

    cap: tuple | None = None
    resign: tuple | None = None
    draw: tuple | None = None
    judge: object = DEFAULT_JUDGE

    def __post_init__(self):
        if self.cap is not None:
            plies, result = self.cap
            if result not in ("draw", "score"):
                raise AdjudicationError(f"cap: result={result}: expected draw or score")
            object.__setattr__(self, "cap", (_count("cap", "plies", plies), result))
        if self.resign is not None:
            count, score = self.resign
            score = _score("resign", score)
            if score == 0:  # an even position would be lost by both sides at once
                raise AdjudicationError("resign: score=0: expected an evaluation above 0 (how far lost)")
            object.__setattr__(self, "resign", (_count("resign", "movecount", count), score))
        if self.draw is not None:
            number, count, score = self.draw
            object.__setattr__(
                self,
                "draw",
                (_count("draw", "movenumber", number, 0), _count("draw", "movecount", count), _score("draw", score)),
            )
        if not (isinstance(self.judge, str) or callable(getattr(self.judge, "act", None))):
            raise AdjudicationError(f"judge={self.judge!r}: expected an agent spec or an agent")
        if self.cap is None and self.resign is None and self.draw is None:
            raise AdjudicationError("adjudication without a rule: expected cap:..., resign:... or draw:...")

    @classmethod
    def parse(cls, rules: str | Sequence[str], judge: object = None) -> Adjudication:
        """The rules of ``--adjudicate RULE...`` (``"cap:plies=200,result=score"`` and the like;
        one string or several) with ``judge`` (a spec; None: ``DEFAULT_JUDGE``)."""

        if isinstance(rules, str):
            rules = [rules]
        found: dict = {}
        for text in rules:
            try:
                name, options = parse_spec(text)
            except AgentError as e:
                raise AdjudicationError(f"--adjudicate {text!r}: {e}") from None
            if name not in RULES:
                raise AdjudicationError(f"--adjudicate {text!r}: expected a rule cap:..., resign:... or draw:...")
            if name in found:
                raise AdjudicationError(f"--adjudicate {text!r}: the {name} rule is given twice")
            keys = _KEYS[name]
            unknown = sorted(set(options) - set(keys))
            if unknown:
                raise AdjudicationError(
                    f"--adjudicate {text!r}: {name} has no {unknown[0]}=; expected " + ", ".join(f"{k}=" for k in keys)
                )
            missing = [k for k in keys if k not in options and not (name == "cap" and k == "result")]
            if missing:
                raise AdjudicationError(f"--adjudicate {text!r}: {name} needs {missing[0]}=")
            if name == "cap":
                found[name] = (options["plies"], options.get("result", "draw"))
            else:
                found[name] = tuple(options[k] for k in keys)
        return cls(**found, judge=DEFAULT_JUDGE if judge is None else judge)

    @property
    def needs_judge(self) -> bool:
        return self.resign is not None or self.draw is not None

    def rules(self) -> list[str]:
        """The rules as ``--adjudicate`` writes them."""
        out = []
        if self.cap is not None:
            out.append(f"cap:plies={self.cap[0]},result={self.cap[1]}")
        if self.resign is not None:
            out.append(f"resign:movecount={self.resign[0]},score={self.resign[1]:g}")
        if self.draw is not None:
            out.append(f"draw:movenumber={self.draw[0]},movecount={self.draw[1]},score={self.draw[2]:g}")
        return out

    def to_config(self, identity: Callable[[object], Any] = str) -> dict[str, Any]:
        """The JSON form a journal keeps: the rules and, where one judges, the judge."""
        out = {"rules": self.rules()}
        if self.needs_judge:
            out["judge"] = identity(self.judge)
        return out

    def __str__(self) -> str:
        return " ".join(self.rules()) + (f" (judge {_label(self.judge)})" if self.needs_judge else "")

    def check(self, game: Game) -> None:
        """Raise ``AdjudicationError`` where a rule cannot apply to ``game``, or the judge cannot
        play it or gives no evaluation (it searches the start position once, which also compiles
        its code)."""
        if self.cap is not None and self.cap[1] == "score" and not callable(getattr(game, "score", None)):
            raise AdjudicationError(f"cap:result=score: {game.name} has no score of a position; use result=draw")
        if self.needs_judge:
            judge = self.make_judge()
            check = getattr(judge, "check_ready", None)
            if callable(check):
                check(game)
            start = game.initial_state(seed=0)
            judge.act(game, start)
            if evaluation(judge) is None:
                raise AdjudicationError(
                    f"judge {_label(self.judge)}: reports no evaluation (last_stats "
                    "'score' or 'value'); use a search agent such as alphabeta or mcts"
                )

    def make_judge(self, seed: int = 0) -> Any:
        if isinstance(self.judge, str):
            return agents.make(self.judge, seed=seed)
        return copy.deepcopy(self.judge)

    def start(self, game: Game) -> Referee:
        """The referee of one game under these rules."""
        return Referee(self, game)


def _label(entry) -> str:
    return entry if isinstance(entry, str) else getattr(entry, "name", "") or type(entry).__name__


def evaluation(judge: object) -> float | None:
    """The judge's evaluation of the position it last searched, for the side to move: ``score``,
    or MCTS's ``value`` (win chance) as 2·value − 1; None if it gave none (a NaN included)."""
    stats = getattr(judge, "last_stats", None) or {}
    if "score" in stats:
        value = float(stats["score"])
    elif "value" in stats:
        value = 2.0 * float(stats["value"]) - 1.0
    else:
        return None
    return None if math.isnan(value) else value


@dataclass(frozen=True)
class Ruling:
    """A game the referee ended: ``winner`` (None: a draw), why in words, and the margin."""

    winner: int | None
    detail: str
    margin: float | None = None


class Referee:
    """Watches one game under ``rules``: ``after(state, plies)`` after every ply."""

    def __init__(self, rules: Adjudication, game: Game) -> None:
        self.rules, self.game = rules, game
        self.judge = rules.make_judge() if rules.needs_judge else None
        if self.judge is not None and callable(getattr(self.judge, "reset", None)):
            self.judge.reset()
        self.streak = [0, 0]  # plies in a row: [a side lost by the resign rule (signed by side), level]
        self.lost_side = None

    def after(self, state: np.ndarray, plies: int) -> Ruling | None:
        """The ruling on ongoing ``state`` reached after ``plies`` plies, or None: play on."""
        game, rules = self.game, self.rules
        if rules.cap is not None and plies >= rules.cap[0]:
            return self._cap(state, plies)
        if self.judge is None:
            return None
        self.judge.act(game, state.copy())
        value = evaluation(self.judge)
        if value is None:  # a forced move without a search: no word on this position
            return None
        black = value if game.current_player(state) == 0 else -value
        if rules.resign is not None:
            count, score = rules.resign
            side = 1 if black >= score else 0 if black <= -score else None  # the lost side
            if side is None or side != self.lost_side:
                self.streak[0] = 0
            self.lost_side = side
            if side is not None:
                self.streak[0] += 1
                if self.streak[0] >= count:
                    return Ruling(
                        1 - side,
                        f"resign rule: the judge ({_label(rules.judge)}) scored "
                        f"{'White' if side else 'Black'} lost by {score:g} or more for "
                        f"{count} plies in a row (last: {black:+g} for Black, ply {plies})",
                    )
        if rules.draw is not None:
            number, count, score = rules.draw
            if plies >= number and abs(black) <= score:
                self.streak[1] += 1
                if self.streak[1] >= count:
                    return Ruling(
                        None,
                        f"draw rule: the judge ({_label(rules.judge)}) scored the game "
                        f"within ±{score:g} for {count} plies in a row from ply {number} on "
                        f"(last: {black:+g} for Black, ply {plies})",
                    )
            else:
                self.streak[1] = 0
        return None

    def _cap(self, state, plies) -> Ruling:
        cap = self.rules.cap[0]
        if self.rules.cap[1] == "draw":
            return Ruling(None, f"move cap: {cap} plies played, a draw")
        lead = self.game.score(state)
        if lead == 0:
            return Ruling(None, f"move cap: {cap} plies played; the score is level, a draw")
        winner = 0 if lead > 0 else 1
        return Ruling(winner, f"move cap: {cap} plies played; scored {'BW'[winner]}+{abs(lead):g}", abs(lead))
