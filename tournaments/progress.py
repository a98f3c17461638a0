"""What a running tournament tells the person waiting for it, on stderr.

On a terminal a tqdm bar: games played of the total, rate, time left, and the current leader. In
a pipe or a log, where a redrawn bar would be noise, a plain line every ``every`` seconds and one
at the end. Before the first game, a one-line notice when numba's cache lacks the game's compiled
code, because that first compile is the only long silence of a run.
"""

from __future__ import annotations

import sys
import time

from envs._specialise import is_cached


def compile_notice(spec, out=None) -> bool:
    """Print that the game's code is about to be compiled (first run only); True if printed."""
    out = out or sys.stderr
    if is_cached(spec) is not False:
        return False
    out.write(f"compiling the numba code of {spec.name} and the agents: first run only, "
              "about 15-40 s; later runs load it from the cache\n")
    out.flush()
    return True


class Progress:
    """Progress of one tournament (see the module docstring); ``tick`` after each finished game."""

    def __init__(self, enabled: bool, total: int | None = None, out=None, every: float = 10.0):
        self.out = out or sys.stderr
        self.enabled = enabled
        self.total = total
        self.every = every
        self.done = 0
        self.points: dict = {}
        self.start = self.last = time.monotonic()
        self.bar = None
        if enabled and self.out.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="game", file=self.out, dynamic_ncols=True, leave=True)
        elif enabled:  # a pipe or a log hears at once that the run started, then every ``every`` s
            self.out.write(f"playing {total if total else 'the'} games; progress every {every:g} s\n")
            self.out.flush()

    def tick(self, record) -> None:
        self.done += 1
        score = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0)}.get(record["result"], (0.5, 0.5))
        for name, points in zip((record["black"], record["white"]), score):
            self.points[name] = self.points.get(name, 0.0) + points
        if not self.enabled:
            return
        leader = max(self.points, key=self.points.get)
        if self.bar is not None:
            self.bar.set_postfix_str(f"leader {leader} {self.points[leader]:g}", refresh=False)
            self.bar.update(1)
        elif time.monotonic() - self.last >= self.every:
            self._line(leader)

    def _line(self, leader) -> None:
        elapsed = time.monotonic() - self.start
        rate = self.done / elapsed if elapsed > 0 else 0.0
        of = f"/{self.total}" if self.total else ""
        left = ""
        if self.total and rate > 0:
            left = f", about {max(self.total - self.done, 0) / rate:.0f} s left"
        self.out.write(f"{self.done}{of} games, {rate:.2f} games/s{left}; leader {leader} "
                       f"({self.points[leader]:g} points)\n")
        self.out.flush()
        self.last = time.monotonic()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.done:
            self._line(max(self.points, key=self.points.get))
