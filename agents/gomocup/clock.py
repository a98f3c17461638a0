"""The brain's clock as a Gomocup manager sets it, and the time it gives each move.

The manager says ``INFO timeout_turn`` (the most one move may take; 0: as fast as possible),
``INFO timeout_match`` (the whole match; 0: no limit) and, before a move, ``INFO time_left`` (of
the match), all in milliseconds. ``TurnClock.share`` turns that into the seconds the agent may
think on its next move, which the server hands the agent through its ``clock_options``, as the
GTP server does with a GTP clock and the referee with a game clock.
"""

from __future__ import annotations

from ..clock import CLOCK_MARGIN, MIN_SHARE


class TurnClock:
    """What the manager said of the time (seconds; None where it said nothing)."""

    def __init__(self) -> None:
        self.turn: float | None = None
        self.match: float | None = None
        self.left: float | None = None

    def share(self, moves_to_go: int) -> float | None:
        """Seconds for the next move (None: nothing limits it): the turn's limit, or the match
        time left over the moves still to come where that is less, ``CLOCK_MARGIN`` of it (the
        rest is the pipe's and the manager's overhead), at least ``MIN_SHARE``."""
        limits = []
        if self.turn is not None:
            limits.append(self.turn)
        if self.left is not None and self.match != 0:  # timeout_match 0: no limit on the match
            limits.append(self.left / max(1, moves_to_go))
        if not limits:
            return None
        return max(MIN_SHARE, CLOCK_MARGIN * min(limits))

    def spend(self, seconds: float) -> None:
        """Take a move's ``seconds`` off the match time left, until the manager says it again."""
        if self.left is not None:
            self.left = max(0.0, self.left - seconds)
