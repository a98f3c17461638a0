"""What a running tournament (or the study) tells the person waiting for it, on stderr.

On a terminal a tqdm bar: games played of the total, rate, time left, and the current leader. In
a pipe or a log, where a redrawn bar would be noise, a plain line every ``every`` seconds and one
at the end (never the same line twice). A resumed run counts the journaled games and says so; one
with nothing left to play says it is complete. Before the first game, a one-line notice when
numba's cache lacks the game's compiled code, because that first compile is the only long
silence of a run. The study's cells use the same counting (``Progress.status``), weighted by
their expected cost, for the time left on each line it prints.

Every ``ratings_every`` games a tournament also prints its rating table so far (Bradley–Terry Elo
with margins, games, score, draw rate, LOS and P(best): ``tournaments.statistics``), between the
progress lines (above the bar on a terminal), so a long run shows how the field is settling
without waiting for the end; ``default_ratings_every`` sizes it to a tenth of the run.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

from tqdm import tqdm

from envs.core import compiling
from envs.core.outcome import Outcome
from envs.game import is_cached
from envs.registry import GameSpec

from ..analysis.statistics import statistics


def compile_notice(spec: GameSpec, out: TextIO | None = None) -> bool:
    """Print that the game's code is about to be compiled (first run only); True if printed."""
    out = out or sys.stderr
    if is_cached(spec) is not False:
        return False
    out.write(
        f"compiling the numba code of {spec.name} and the agents: first run only, "
        "about 15-75 s on a quiet 2-core machine, up to 3 min on a busy one; later runs load it from the cache\n"
    )
    out.flush()
    compiling.quiet(spec.name)  # this line says it all: no more lines per compiled part
    return True


def default_ratings_every(total: int | None) -> int:
    """Games between rating tables when none is asked for: a tenth of the run, at least 50 (a
    short run gets its table at the end only)."""
    return max(50, math.ceil(total / 10)) if total else 50


def duration(seconds: float) -> str:
    """A time span as a person reads it: ``45 s``, ``8 min``, ``1.5 h``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class Progress:
    """Progress of a run of ``total`` items (games of a tournament, cells of the study); ``tick``
    after each finished one (see the module docstring).

    ``earlier`` are the game records finished before this run (a resumed tournament's journaled
    games): they count towards the total and the leader's points, not towards the rate. ``work``
    is the total work when items differ in cost (the study's cells: championships x players),
    each ``tick`` adding its item's share, so the time left is the work left at the rate so far;
    by default every item is one unit. ``status()`` is the line's text without the leader, for
    callers that print their own lines. ``ratings_every`` (games; None or 0: never) prints the
    rating table of every game so far each time that many more are done.
    """

    def __init__(
        self,
        enabled: bool,
        total: int | None = None,
        out: TextIO | None = None,
        every: float = 10.0,
        *,
        unit: str = "game",
        earlier: Iterable[Mapping[str, Any]] = (),
        work: float | None = None,
        ratings_every: int | None = None,
    ) -> None:
        self.out = out or sys.stderr
        self.enabled = enabled
        self.total = total
        self.every = every
        self.unit = unit
        self.work = work
        self.worked = 0.0
        self.points: dict = {}
        self.done = 0
        self.ratings_every = ratings_every or 0
        self.records: list = []  # every game record so far (earlier ones too): the rating table's games
        for record in earlier:
            self._count(record)
        self.resumed = done = self.done
        self.start = self.last = time.monotonic()
        self.shown = -1  # ``done`` when the last plain line was written
        self.bar = None
        units = f"{unit}s"

        def counted(n: int) -> str:  # "1 game", "2 games"
            return f"{n} {unit if n == 1 else units}"

        if enabled and total is not None and done >= total:
            self.out.write(f"all {counted(total)} are already in the journal: the tournament is complete\n")
            self.out.flush()
            self.enabled = False
        elif enabled and self.out.isatty():
            self.bar = tqdm(total=total, initial=done, unit=unit, file=self.out, dynamic_ncols=True, leave=True)
        elif enabled:  # a pipe or a log hears at once that the run started, then every ``every`` s
            if done:
                left = f"playing {total - done}" if total is not None else "playing the rest"
                held = f"{done} of {counted(total)}" if total is not None else counted(done)
                self.out.write(f"resuming: {held} in the journal; {left}; progress every {every:g} s\n")
            else:
                playing = counted(total) if total else f"the {units}"
                self.out.write(f"playing {playing}; progress every {every:g} s\n")
            self.out.flush()

    def tick(self, record: Mapping[str, Any] | None = None, work: float = 1.0) -> None:
        """One more item finished: a game ``record`` (its points make the leader), or ``None``."""
        self.worked += work
        self._count(record)
        if not self.enabled:
            return
        if self.bar is not None:
            if self.points:
                leader = max(self.points, key=self.points.get)
                self.bar.set_postfix_str(f"leader {leader} {self.points[leader]:g}", refresh=False)
            self.bar.update(1)
        elif time.monotonic() - self.last >= self.every:
            self._line()
        if (
            record is not None
            and self.ratings_every
            and self.done % self.ratings_every == 0
            and (self.total is None or self.done < self.total)
        ):
            self._ratings()

    def _count(self, record) -> None:
        self.done += 1
        if record is not None:
            outcome = Outcome.from_record(record)
            for seat, name in enumerate((record["black"], record["white"])):
                self.points[name] = self.points.get(name, 0.0) + outcome.points(seat)
            if self.ratings_every:
                self.records.append(record)

    def _ratings(self) -> None:
        """The rating table of every game so far, between the progress lines."""

        names = list(dict.fromkeys(name for r in self.records for name in (r["black"], r["white"])))
        ids = {name: i for i, name in enumerate(names)}
        games = [{**r, "black_id": ids[r["black"]], "white_id": ids[r["white"]]} for r in self.records]
        of = f" of {self.total}" if self.total else ""
        text = "\n".join([f"ratings after {self.done}{of} {self.unit}s:", *statistics(names, games).rating_lines()[1:]])
        if self.bar is not None:
            self.bar.write(text, file=self.out)
        else:
            self.out.write(text + "\n")
            self.out.flush()

    def note(self, text: str) -> None:
        """A line of news between the progress lines (above the bar on a terminal)."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(text, file=self.out)
        else:
            self.out.write(text + "\n")
            self.out.flush()

    def drop(self, items: int) -> None:
        """``items`` of the total will not be played after all (a gauntlet candidate whose
        sequential test decided): the total, the bar and the time left shrink with it."""
        if self.total is None or items <= 0:
            return
        self.total -= items
        if self.bar is not None:
            self.bar.total = self.total
            self.bar.refresh()

    def status(self) -> str:
        """``12/200 cells, 0.52 cells/s, about 8 min left``: done of the total, rate, time left."""
        elapsed = time.monotonic() - self.start
        played = self.done - self.resumed
        rate = played / elapsed if elapsed > 0 else 0.0
        of = f"/{self.total}" if self.total else ""
        left = ""
        if self.total and played:
            if self.work:
                remaining = max(self.work - self.worked, 0.0) * elapsed / max(self.worked, 1e-12)
            else:
                remaining = max(self.total - self.done, 0) / rate
            left = f", about {duration(remaining)} left"
        return f"{self.done}{of} {self.unit}s, {rate:.2f} {self.unit}s/s{left}"

    def _line(self) -> None:
        leader = ""
        if self.points:
            best = max(self.points, key=self.points.get)
            leader = f"; leader {best} ({self.points[best]:g} points)"
        self.out.write(self.status() + leader + "\n")
        self.out.flush()
        self.last = time.monotonic()
        self.shown = self.done

    def close(self) -> None:
        """The last line (unless the last one written already says it all); the bar closed."""
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.done > self.resumed and self.shown != self.done:
            self._line()
        elif self.enabled and self.resumed and self.done == self.resumed:
            self.out.write(f"no {self.unit} left to play: the journal holds the whole tournament\n")
            self.out.flush()
