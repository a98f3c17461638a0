"""Game clocks: a time control, the clock a referee runs with it, and what an agent reads of it.

    tc = TimeControl.parse("10+0.1")                  # 10 s per game, 0.1 s added after each move
    tc = TimeControl.parse("60", byoyomi="5/10")      # 60 s, then 5 byo-yomi periods of 10 s
    clock = GameClock(tc)
    left = clock.view(seat)                           # TimeLeft: what the mover may spend
    lost = clock.charge(seat, spent)                  # None, or why the move lost on time

The rules are those of engine runners and Go servers:

* Fischer (``BASE+INC``, cutechess-cli's ``tc=``): each side starts with BASE seconds; a move's
  time comes off its side's clock and INC seconds are added after every move made in time. A move
  that takes more than the time left loses the game on time.
* Japanese byo-yomi (``PERIODS/SECONDS``, Go's usual overtime): once the main time (BASE) is
  spent, every move has SECONDS; a move that takes longer uses up a period, and one that overruns
  the last period loses on time. A move made within its period keeps it. Byo-yomi goes with main
  time only (no increment).
* Moves per period (``MOVES/BASE+INC``, cutechess-cli's ``tc=40/60+0.5``, chess's classical
  controls): BASE seconds for the first MOVES moves of each side; once a side has made them,
  another BASE is added to what it has left, for the next MOVES, and so on (time saved carries
  over). An increment, if any, is added after every move as in Fischer. Not with byo-yomi.
* ``move_time`` beside it (``--move-time``) caps every move on its own, as before.
* A time margin (``--time-margin``, cutechess-cli's and fastchess's ``timemargin``, here in
  seconds): a move may overrun the time left by up to ``margin`` seconds without losing on time;
  its side's clock then stands at zero (and gains the increment). It forgives the few
  milliseconds a process switch or a pipe costs an external engine that plays to the last tick.

An agent sees its time through ``TimeLeft`` (``agents.Agent.set_clock`` gives it one before each
of its moves, its ``clock`` attribute holds it): the main time left, the increment, the byo-yomi
periods left and their length, the most the move may take (``limit``) and a share of it for this
move (``share``), which the referee hands to search agents through their ``clock_options``, as
the GTP server does with a controller's clock.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numpy.typing import ArrayLike

from envs.core import ParameterError, shown

from .base import MAX_SECONDS, Player

if TYPE_CHECKING:
    from envs.game import Game

CLOCK_MARGIN = 0.8  # the share of a move's time an agent is told to think (the rest: overhead)
MIN_SHARE = 0.01  # the least a move's share is, even with no time left


# A number of seconds as a command line writes it: ASCII digits, a point, an exponent. Python's
# ``float`` also reads ``1_0`` and other scripts' digits, which no clock syntax means.
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
MAX_PERIODS = 1000  # byo-yomi periods: Go servers use a handful
MAX_MOVES = 1000  # moves per period: chess's classical controls use 40


def _named(text) -> str:
    """A command-line value as an error names it: whole, or by its ends when it is huge."""
    text = str(text)
    return text if len(text) <= 60 else shown(text)


def seconds(text: str, what: str, positive: bool = False) -> float:
    """``text`` as a number of seconds from 0 (above 0 if ``positive``) to ``MAX_SECONDS`` (a
    day); a ``ParameterError`` naming ``what`` for anything else: a time past a day is no time
    control (``--tc 1e300`` never ended a move), and text in another syntax is a typo."""
    text = str(text).strip()
    value = float(text) if len(text) <= 40 and _NUMBER.fullmatch(text) else math.nan
    if not 0 <= value <= MAX_SECONDS or (positive and value == 0):
        low = "above 0" if positive else "from 0"
        raise ParameterError(
            f"{what}: expected a number of seconds {low} to {MAX_SECONDS:g} (a day), got {shown(text)}"
        )
    return value


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: ``base`` seconds per side, ``increment`` after each move, or
    ``periods`` byo-yomi periods of ``period`` seconds after the base; ``moves``: ``base`` is for
    that many moves and comes again after them (0: for the game); ``move_time`` caps each move
    (None: no cap); ``margin``: the seconds a move may overrun the clock without losing on time.
    ``str`` writes it as it is given (``10+0.1``, ``60 5/10``, ``40/60+0.5``)."""

    base: float = 0.0
    increment: float = 0.0
    periods: int = 0
    period: float = 0.0
    move_time: float | None = None
    moves: int = 0
    margin: float = 0.0

    def __post_init__(self) -> None:
        for name in ("base", "increment", "period", "margin"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_SECONDS:
                raise ParameterError(f"{name}={shown(value)}: expected a number of seconds from 0 to {MAX_SECONDS:g}")
            object.__setattr__(self, name, float(value))
        if isinstance(self.periods, bool) or not isinstance(self.periods, int) or not 0 <= self.periods <= MAX_PERIODS:
            raise ParameterError(f"periods={self.periods!r}: expected a number of byo-yomi periods >= 0")
        if (self.periods > 0) != (self.period > 0):
            raise ParameterError(
                f"byo-yomi {self.periods}/{self.period:g}: expected both a number of periods and their seconds above 0"
            )
        if self.periods and self.increment:
            raise ParameterError(
                f"increment={self.increment:g} with byo-yomi {self.periods}/{self.period:g}: "
                "a clock has either an increment or byo-yomi, not both"
            )
        if self.base == 0 and not self.periods:
            raise ParameterError("base=0 without byo-yomi: a game clock needs some time (BASE+INC or byo-yomi)")
        if isinstance(self.moves, bool) or not isinstance(self.moves, int) or not 0 <= self.moves <= MAX_MOVES:
            raise ParameterError(f"moves={shown(self.moves)}: expected 0 (one period) to {MAX_MOVES} moves per period")
        if self.moves and (self.periods or self.base == 0):
            raise ParameterError(
                f"moves={self.moves} per period: needs a base time, and goes with an increment or nothing, not byo-yomi"
            )
        if self.move_time is not None and (isinstance(self.move_time, bool) or not 0 < self.move_time <= MAX_SECONDS):
            raise ParameterError(f"move_time={self.move_time!r}: expected a positive number of seconds or None")

    @classmethod
    def parse(
        cls,
        tc: str | float | None = None,
        byoyomi: str | None = None,
        move_time: float | None = None,
        margin: float = 0.0,
    ) -> TimeControl:
        """A time control from the command line's texts: ``tc`` is ``BASE``, ``BASE+INC`` or
        ``MOVES/BASE+INC`` (seconds; None: no main time, byo-yomi only), ``byoyomi`` is
        ``PERIODS/SECONDS``; ``margin`` the seconds a move may overrun the clock."""
        base = increment = period = 0.0
        periods = moves = 0
        if tc is not None:
            match = re.fullmatch(r"\s*(?:([0-9]{1,4})\s*/\s*)?([^+/\s]+)\s*(?:\+\s*([^+\s]+))?\s*", str(tc))
            if not match or (match[1] is not None and not 1 <= int(match[1]) <= MAX_MOVES):
                raise ParameterError(
                    f"--tc {_named(tc)}: expected BASE+INC in seconds, e.g. 10+0.1 (or BASE alone), or "
                    f"MOVES/BASE+INC with 1 to {MAX_MOVES} moves per period, e.g. 40/60+0.5"
                )
            moves = int(match[1]) if match[1] is not None else 0
            base = seconds(match[2], f"--tc {_named(tc)}")
            increment = seconds(match[3], f"--tc {_named(tc)}") if match[3] is not None else 0.0
            if base == 0:
                raise ParameterError(f"--tc {tc}: expected a base time above 0 seconds")
        if byoyomi is not None:
            match = re.fullmatch(r"\s*([0-9]{1,4})\s*/\s*(\S+)\s*", str(byoyomi))
            if not match or not 1 <= int(match[1]) <= MAX_PERIODS:
                raise ParameterError(
                    f"--byoyomi {_named(byoyomi)}: expected PERIODS/SECONDS with 1 to {MAX_PERIODS} periods, "
                    "e.g. 5/10 (5 periods of 10 s)"
                )
            periods, period = int(match[1]), seconds(match[2], f"--byoyomi {_named(byoyomi)}")
            if period == 0:
                raise ParameterError(f"--byoyomi {byoyomi}: expected periods of more than 0 seconds")
            if increment:
                raise ParameterError(
                    f"--tc {tc} and --byoyomi {byoyomi}: a clock has either an increment or byo-yomi, not both"
                )
            if moves:
                raise ParameterError(
                    f"--tc {tc} and --byoyomi {byoyomi}: moves per period or byo-yomi after the base, not both"
                )
        return cls(base, increment, periods, period, move_time, moves, margin)

    def to_config(self) -> dict[str, float | None]:
        """The JSON form journals keep (``from_config`` reads it back); ``moves`` and
        ``margin`` only where set, so a journal of an earlier version resumes on the same clock."""
        config = {
            "base": self.base,
            "increment": self.increment,
            "periods": self.periods,
            "period": self.period,
            "move_time": self.move_time,
        }
        if self.moves:
            config["moves"] = self.moves
        if self.margin:
            config["margin"] = self.margin
        return config

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TimeControl:
        return cls(**config)

    def __str__(self) -> str:
        text = (
            (f"{self.moves}/" if self.moves else "")
            + f"{self.base:g}"
            + (f"+{self.increment:g}" if self.increment else "")
        )
        if self.periods:
            text += f" {self.periods}/{self.period:g}"
        text += f", {self.move_time:g} s per move at most" if self.move_time else ""
        return text + (f", {self.margin:g} s margin" if self.margin else "")


@dataclass(frozen=True)
class TimeLeft:
    """What the side to move has on its clock, as the agent sees it before its move.

    seconds    main time left (0 in byo-yomi)
    increment  seconds added after this move (Fischer)
    periods    byo-yomi periods left; ``period`` the seconds of each
    move_time  the cap on every move, None without
    control    the ``TimeControl`` of the game
    moves_left with moves per period: the moves, this one included, that ``seconds`` must last
               until the base comes again (0: the rest of the game)
    """

    seconds: float
    increment: float
    periods: int
    period: float
    move_time: float | None
    control: TimeControl
    moves_left: int = 0

    @property
    def in_byoyomi(self) -> bool:
        return self.seconds <= 0 and self.periods > 0

    @property
    def limit(self) -> float:
        """The most this move may take without losing on time: the main time and every period
        left (each period overrun is used up), capped by ``move_time``."""
        most = self.seconds + self.periods * self.period
        return most if self.move_time is None else min(most, self.move_time)

    @property
    def deadline(self) -> float:
        """When the referee rules the move lost on time: ``limit`` and the clock's margin (an
        agent plans by ``limit`` and ``share``; the margin is the referee's tolerance)."""
        return self.limit + self.control.margin

    def share(self, moves_to_go: int = 30) -> float:
        """Seconds to spend on this move, as time managers plan it: the main time over the moves
        still to come plus what comes back after it (the increment, or one byo-yomi period that
        the move may use without losing it), never more than half the main time when nothing
        comes back, and a period in byo-yomi; ``CLOCK_MARGIN`` of that (the rest is overhead),
        at least ``MIN_SHARE``. With moves per period the main time need last only the moves
        left in the period, and it may be spent whole on the period's last move."""
        moves_to_go = max(1, int(moves_to_go))
        if self.moves_left:
            moves_to_go = min(moves_to_go, self.moves_left)
            if moves_to_go == 1:  # the base comes again after this move: the main time is this move's
                seconds = self.seconds + self.increment
                seconds = seconds if self.move_time is None else min(seconds, self.move_time)
                return max(MIN_SHARE, CLOCK_MARGIN * seconds)
        if self.in_byoyomi:
            seconds = self.period
        elif self.periods:
            seconds = self.seconds / moves_to_go + self.period
        else:
            seconds = min(self.seconds / moves_to_go + self.increment, self.seconds / 2)
        if self.move_time is not None:
            seconds = min(seconds, self.move_time)
        return max(MIN_SHARE, CLOCK_MARGIN * seconds)


class GameClock:
    """Both sides' clocks in one game under ``control`` (see the module docstring)."""

    def __init__(self, control: TimeControl, seats: int = 2) -> None:
        self.control = control
        self.seconds = [control.base] * seats
        self.periods = [control.periods] * seats
        self.made = [0] * seats  # moves made in time, for moves per period

    def view(self, seat: int) -> TimeLeft:
        c = self.control
        left = c.moves - self.made[seat] % c.moves if c.moves else 0
        return TimeLeft(self.seconds[seat], c.increment, self.periods[seat], c.period, c.move_time, c, left)

    def charge(self, seat: int, spent: float) -> str | None:
        """Take a move of ``spent`` seconds off ``seat``'s clock; return why it lost on time, or
        None when the move was in time (the increment is then added)."""
        c = self.control
        left, periods = self.seconds[seat], self.periods[seat]
        if spent <= left + c.margin:  # in time, or over by no more than the margin: the clock stops at 0
            self.seconds[seat] = max(left - spent, 0.0) + c.increment
            self.made[seat] += 1
            if c.moves and self.made[seat] % c.moves == 0:  # the period's moves are made: its time again
                self.seconds[seat] += c.base
            return None
        over = spent - left - c.margin
        self.seconds[seat] = 0.0
        if periods:
            used = math.ceil(over / c.period) - 1  # periods overrun, the one the move ended in kept
            if used < periods:
                self.periods[seat] = periods - used
                return None
            return (
                f"took {spent:.3f} s with {left:.3f} s of main time and {periods} byo-yomi "
                f"period{'s' * (periods != 1)} of {c.period:g} s left (clock {c})"
            )
        return f"took {spent:.3f} s with {left:.3f} s left on its clock (clock {c})"


def moves_to_go(game: Game, state: ArrayLike) -> int:
    """The moves the side to move still expects to make, for sharing out its time: half the legal
    moves, at least 10 (the GTP server's estimate too)."""
    return max(10, len(game.legal_actions(state)) // 2)


@contextmanager
def held_to(agent: Player, seconds: float | None) -> Iterator[None]:
    """While this lasts, ``agent`` (an ``agents.base.Player``) plays its move in at most
    ``seconds`` (None: as configured): it is given the options its ``clock_options`` names for
    that time (none for an agent without a time option), and its own values back afterwards."""
    options: dict[str, object] = {}
    if seconds is not None:
        options = agent.clock_options(seconds)
    own = {name: getattr(agent, name) for name in options}
    try:
        for name, value in options.items():
            setattr(agent, name, value)
        yield
    finally:
        for name, value in own.items():
            setattr(agent, name, value)
