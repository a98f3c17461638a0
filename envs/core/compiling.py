"""What numba's compiler does in this process: a notice on stderr before a first compile, and the
seconds spent compiling, so that a search can time itself without them.

numba compiles a function the first time it is called with new argument types, unless its disk
cache holds it (then it loads it in milliseconds). A cold start of a game and its agents compiles
for tens of seconds, during a call that looks like any other (``game.legal_actions(s)``,
``bot.act(game, s)``), so the first such compile of each part of the project prints one line on
stderr, as the command line does before a tournament:

    arbiter: compiling go's numba code (agents._mcts_kernel.run_rave and what it calls): first
    use only, can take 10-60 s; numba caches it for later runs

"Part" is a game and the module of the entry point that compiles (the game's rules, MCTS,
alpha-beta...): a first MCTS move after the first legal moves announces itself again, a second
MCTS agent does not. ``quiet(game)`` marks a game as announced by the caller (the command line's
own notice); ``notices(False)`` turns the lines off.

``compile_seconds()`` is the time this process has spent in numba's compiler so far (compiling,
or loading from the cache, whichever thread did it): an agent subtracts what a move added to it
from the move's ``last_stats["seconds"]``, which thus times the search and not the compile.

A compile is also shown to be alive: while one has run for ``FIRST_BEAT`` seconds, a line
``arbiter: still compiling go's numba code: 25 s so far`` follows every ``BEAT`` seconds (a
compile of a cold game is many spells in numba's compiler with short gaps between them; they
count as one until the compiler has been idle for ``GAP`` seconds), so no first run is a long
silence, however busy the machine.

A process that plays for another (a tournament's worker or warm-up helper, whose stderr is a
file) does not print: ``relay(fn)`` hands its notices to ``fn`` and ``watch(fn)`` tells ``fn``
each time the process enters and leaves numba's compiler, so the parent can print the notice
(``announce``), keep the heartbeat (``remote_spell``) and stop the clocks of a setup step or a
move while its worker compiles: a cold cache costs time, never a game.

Nothing here compiles or imports anything of the project: the listeners are numba's own
``numba.core.event`` hooks, installed once when this module is imported.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from numba.core import event

# Code of the games and the agents. The tournaments' own compiled code (the systems' pairings) is
# left to the command line's notice, whose first line a run's log starts with.
_PROJECT = ("envs.", "agents.")

_lock = threading.Lock()
_local = threading.local()
_state = {"seconds": 0.0, "enabled": True, "told": False}  # told: a notice with the estimate was printed
_announced: set = set()  # (game or None, module) pairs announced; (game, None): the whole game
_quiet: set = set()  # games whose compiles the caller announced itself
_watchers: list = []  # fn(inside): told as this process enters (True) and leaves (False) the compiler
_relay: list = []  # [fn(game, module, name)] where notices go instead of stderr, when set

FIRST_BEAT = 5.0  # seconds of compiling before the first "still compiling" line
BEAT = 10.0  # seconds between those lines
GAP = 2.0  # seconds the compiler may be idle within one compile (between two entry points)


def compile_seconds() -> float:
    """Seconds this process has spent in numba's compiler (compiling or loading cached code)."""
    with _lock:
        return _state["seconds"]


def notices(enabled: bool) -> None:
    """Turn the first-compile lines on stderr on (the default) or off."""
    _state["enabled"] = bool(enabled)


def quiet(game: str) -> None:
    """Print no first-compile line for ``game`` (its caller printed its own, which also said
    what to expect: the lines of other parts only name themselves)."""
    with _lock:
        _quiet.add(game)
        _state["told"] = True


def _part(dispatcher):
    """``(game or None, module, function)`` of a dispatcher that belongs to the project or to a
    game: a specialised copy of generic code carries ``__<game>_<digest>`` in its name; a game's
    own kernels are named by their package (``envs.go._kernel``: go)."""
    fn = getattr(dispatcher, "py_func", None)
    if fn is None:
        return None
    module = fn.__module__ or ""
    name, _, tag = fn.__qualname__.partition("__")
    game, _, digest = tag.rpartition("_")
    if not (name and game and len(digest) == 12 and all(c in "0123456789abcdef" for c in digest)):
        name, game = fn.__qualname__, None
    if not game and module.startswith("envs."):
        parts = module.split(".")
        game = parts[1] if len(parts) > 2 and parts[1] != "core" else None
    if not game and not module.startswith(_PROJECT):
        return None
    return game, module, name


def announce(game: str | None, module: str, name: str, ours: bool = True) -> bool:
    """A compile of ``module.name`` (of ``game``'s code when ``game`` is given) has begun: the
    heartbeat now says what compiles, and the first compile of a part of ours (``ours``: the
    games' and agents' code, ``_part``) prints its line, unless its game is quiet or the part was
    announced already in this process; True if printed. A parent calls it with the compiles its
    workers relay, so each part is announced once per run, on the parent's stderr."""
    with _lock:
        _beat.compiled(game, module)
        if not ours or not _state["enabled"] or game in _quiet or (game, module) in _announced:
            return False
        _announced.add((game, module))
        first = not _state["told"]
        _state["told"] = True
    whose = f"{game}'s numba code" if game else "numba code"
    # the first line says what to expect; later parts of the same run only name themselves
    why = (
        ": first use only, about 10-60 s on a quiet 2-core machine, up to 3 min on a busy one; numba "
        "caches it for later runs"
        if first
        else ""
    )
    sys.stderr.write(f"arbiter: compiling {whose} ({module}.{name} and what it calls){why}\n")
    sys.stderr.flush()
    return True


def relay(fn: Callable[[str | None, str, str, bool], object] | None) -> None:
    """Hand this process's compiles to ``fn(game, module, name, ours)`` (``announce``'s
    arguments) instead of announcing them here (a worker sends them to its parent); None
    announces them here again."""
    with _lock:
        _relay[:] = [fn] if fn is not None else []


def watch(fn: Callable[[bool], object]) -> Callable[[], None]:
    """Call ``fn(True)`` each time this process enters numba's compiler (to compile, or to load
    cached code) and ``fn(False)`` when it leaves; returns a function that stops the calls."""
    with _lock:
        _watchers.append(fn)

    def stop():
        with _lock:
            if fn in _watchers:
                _watchers.remove(fn)

    return stop


def remote_spell(inside: bool) -> None:
    """Another process that works for this one (a worker) entered (True) or left (False) numba's
    compiler: the heartbeat counts its compile as this process's own."""
    with _lock:
        _beat.spell(inside)


class _Heartbeat:
    """The "still compiling" lines: a daemon thread, started by the first spell in the compiler,
    that prints while a compile (in this process or a worker's) has gone on for ``FIRST_BEAT``
    seconds. A spell that only loads cached code is no compile; compiles with less than ``GAP``
    seconds between them are one (a cold game compiles entry point after entry point)."""

    def __init__(self):
        self.inside = 0  # spells in the compiler now running, here or in workers
        self.real = False  # whether one of them compiles (rather than loads cached code)
        self.since = None  # when the compile under way began (None: none is)
        self.left = 0.0  # when the last spell that compiled ended
        self.what = "numba code"  # what compiles
        self.said = 0.0  # when the last line was printed
        self.thread = None

    def spell(self, inside: bool) -> None:  # under _lock
        now = time.monotonic()
        if inside:
            if self.inside == 0:
                self.real = False
            self.inside += 1
            if self.thread is None and _state["enabled"]:
                self.thread = threading.Thread(target=self._run, name="arbiter-compile-heartbeat", daemon=True)
                self.thread.start()
            return
        self.inside = max(0, self.inside - 1)
        if self.inside == 0 and self.real:
            self.left, self.real = now, False

    def compiled(self, game, module) -> None:  # under _lock: a compile began in a spell
        now = time.monotonic()
        if self.since is None or (not self.real and now - self.left > GAP):
            self.since = self.said = now
        self.real = True
        self.what = f"{game}'s numba code" if game else f"numba code ({module})"

    def _run(self):
        while True:
            time.sleep(0.5)
            with _lock:
                now = time.monotonic()
                if not self.real:
                    if self.since is not None and now - self.left > GAP:
                        self.since = None  # that compile is over
                    continue
                if not self.inside or not _state["enabled"] or _relay:
                    continue
                if now - self.since < FIRST_BEAT or now - self.said < (BEAT if self.said > self.since else FIRST_BEAT):
                    continue
                self.said = now
                line = f"arbiter: still compiling {self.what}: {now - self.since:.0f} s so far\n"
            try:
                sys.stderr.write(line)
                sys.stderr.flush()
            except (OSError, ValueError):  # stderr closed at exit: nothing to tell
                return


_beat = _Heartbeat()


class _Notice(event.Listener):
    """Announces the outermost compile (numba nests the compiles of the functions a function
    calls inside its own), or relays it to the process this one works for."""

    def on_start(self, ev):
        depth = getattr(_local, "compiling", 0)
        _local.compiling = depth + 1
        if depth:
            return
        dispatcher = ev.data.get("dispatcher")
        part = _part(dispatcher)
        fn = getattr(dispatcher, "py_func", None)
        begun = (
            (*part, True)
            if part
            else (None, getattr(fn, "__module__", None) or "?", getattr(fn, "__qualname__", "?"), False)
        )
        with _lock:
            relayed = _relay[0] if _relay else None
            if relayed is not None and begun[3]:  # a part of ours: relayed once per process
                if (begun[0], begun[1]) in _announced:
                    begun = (*begun[:3], False)
                _announced.add((begun[0], begun[1]))
        if relayed is not None:
            relayed(*begun)
        else:
            announce(*begun)

    def on_end(self, ev):
        _local.compiling = getattr(_local, "compiling", 1) - 1


class _Clock(event.Listener):
    """Adds up the outermost spells in numba's compiler lock, per thread, and tells the
    watchers and the heartbeat as each begins and ends."""

    def on_start(self, ev):
        depth = getattr(_local, "locked", 0)
        _local.locked = depth + 1
        if depth == 0:
            _local.since = time.perf_counter()
            self._tell(True)

    def on_end(self, ev):
        _local.locked = getattr(_local, "locked", 1) - 1
        if _local.locked == 0:
            spent = time.perf_counter() - _local.since
            with _lock:
                _state["seconds"] += spent
            self._tell(False)

    @staticmethod
    def _tell(inside):
        with _lock:
            _beat.spell(inside)
            watchers = list(_watchers)
        for fn in watchers:
            fn(inside)


event.register("numba:compile", _Notice())
event.register("numba:compiler_lock", _Clock())
