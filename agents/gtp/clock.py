"""The controller's clock, as the GTP server keeps it for both colours.

GTP's ``time_settings`` (and KGS's ``kgs-time_settings``) set main time and Canadian byo-yomi,
``time_left`` says where a colour stands; ``Clock.share`` turns that into the seconds the
engine's next move may take, which the server hands the agent through its ``clock_options``.
"""

from __future__ import annotations

MIN_MOVE_SECONDS = 0.05  # a move's time when the clock has none left
CLOCK_MARGIN = 0.8  # the share of a move's time the agent thinks (the rest: overhead)


class Clock:
    """The controller's clock for both colours and the engine's own account of it.

    ``time_settings``/``kgs-time_settings`` set main time and Canadian byo-yomi (``byo_time``
    seconds for ``byo_stones`` moves); ``time_left`` says where a colour stands (seconds left,
    and the stones left in the period, 0 in main time). Between ``time_left`` commands each
    ``genmove``'s thinking time is taken off its colour's clock here, so a controller that never
    sends ``time_left`` still gets an engine that spends its time and no more.
    """

    def __init__(self) -> None:
        self.main: float | None = None  # None: no time_settings (or "no time limits")
        self.byo_time, self.byo_stones = 0.0, 0
        self.left: list[tuple[float, int] | None] = [None, None]  # per seat: (seconds, stones) from time_left or spent

    def set(self, main: float | None, byo_time: float = 0.0, byo_stones: int = 0) -> None:
        self.main, self.byo_time, self.byo_stones = main, float(byo_time), int(byo_stones)
        self.left = [None, None]

    def tell(self, seat: int, seconds: float, stones: int) -> None:
        self.left[seat] = (seconds, stones)

    def _now(self, seat: int) -> tuple[float, int] | None:
        """``(seconds, stones)`` left to ``seat``; None where nothing limits it."""
        if self.left[seat] is not None:
            return self.left[seat]
        if self.main is None:
            return None
        if self.main > 0 or self.byo_stones == 0:
            return self.main, 0
        return self.byo_time, self.byo_stones

    def spend(self, seat: int, seconds: float) -> None:
        """Take ``seconds`` of thinking off ``seat``'s clock: main time, then byo-yomi periods."""
        if self._now(seat) is None:
            return
        left, stones = self._now(seat)
        left -= seconds
        if stones == 0 and left < 0 and self.byo_stones > 0:  # main time over: the first period
            left, stones = self.byo_time + left, self.byo_stones
        elif stones > 0:
            stones -= 1
            if stones == 0:  # the period's moves made in time: a new period
                left, stones = self.byo_time, self.byo_stones
        self.left[seat] = (max(left, 0.0), stones)

    def share(self, seat: int, moves_to_go: int) -> float | None:
        """Seconds for ``seat``'s next move (None: no clock): a period's time over its stones, or
        the main time over the moves still to come plus a byo-yomi move's time, less a margin
        for the controller's overhead; at least MIN_MOVE_SECONDS."""
        if self._now(seat) is None:
            return None
        left, stones = self._now(seat)
        if stones > 0:
            seconds = left / stones
        elif left > 0:
            seconds = left / moves_to_go + (self.byo_time / self.byo_stones if self.byo_stones else 0.0)
        elif self.byo_stones > 0:
            seconds = self.byo_time / self.byo_stones
        else:
            seconds = 0.0  # out of time: move at once
        return max(MIN_MOVE_SECONDS, CLOCK_MARGIN * seconds)
