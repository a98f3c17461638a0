"""A tournament's configuration: ``TournamentConfig``, one validated value that says everything a
run is (the system, its games, openings, clock, adjudication, executor and outputs).

    import tournaments
    config = tournaments.TournamentConfig.of("swiss", ["random", "greedy", "alphabeta:depth=3"],
                                             "othello", size=6, workers=2, journal="run.db")
    result = tournaments.run(config)

``tournaments.run``, ``round_robin``, ``swiss``, ``olympic``, ``gauntlet`` and ``random_order``
build one from their keywords (``TournamentConfig.of``), and so does ``arbiter tournament``; every
value is checked when it is built (a ``ParameterError``, a ``ValueError``, naming the bad value),
before any game. ``prepare()`` then checks what needs the game itself (the agents can play it,
the openings are legal in it, the adjudication applies to it) and returns the ``Setup`` the
runner plays, whose ``record`` is the configuration's JSON form that the journal stores and a
resumed run compares, field by field (``tournaments.referee.journal``). Those records read exactly as
earlier versions wrote them (an entry at its default is left out), so their journals resume.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Literal

import numpy as np

import envs
from agents.clock import TimeControl

from ..analysis.sprt import SPRT
from .adjudication import Adjudication
from .executor import Executor, InlineExecutor, ProcessExecutor
from .openings import Book, Suite
from .openings import load as load_openings
from .play import Context, check_players
from .ray_executor import RayExecutor
from .systems import configure, swiss_rounds

EXECUTORS = ("process", "inline", "ray")
SYSTEM_OPTIONS = ("k", "recursive", "rounds", "avoid_rematches", "games", "candidates")
RUN_KEYWORDS = (
    "seed, workers, journal, resume, move_time, tc, byoyomi, time_margin, adjudicate, adjudicator, game_params, "
    "executor, progress, setup_time, openings, opening_plies, openings_order, openings_start, "
    "ratings_every, resign"
)


def _label(entry) -> str:
    if isinstance(entry, str):
        return entry
    return getattr(entry, "name", "") or type(entry).__name__


def _identity(entry) -> str:
    """How the journal recognises an agent across runs: its spec, or an agent object's class,
    name and a digest of its pickled state (so an edited object is a different agent)."""
    if isinstance(entry, str):
        return entry
    digest = hashlib.sha256(pickle.dumps(entry)).hexdigest()[:16]
    return f"{type(entry).__module__}.{type(entry).__qualname__}:{_label(entry)}:{digest}"


def display_names(entries) -> tuple:
    """Display names of agent entries (a spec's name is the spec), made unique with ``#2``,
    ``#3`` suffixes: the names a run's standings, records and journal use."""
    names, seen = [], {}
    for e in entries:
        base = _label(e)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return tuple(names)


def make_executor(
    executor: Literal["process", "inline", "ray"] | Executor | None, workers: int | None = None
) -> Executor:
    """An executor object from ``executor``: None (a process pool, or in this process with
    ``workers=0``), a name of ``EXECUTORS`` (``"ray"``: a local Ray, or the cluster Ray is
    connected to; needs the ``distributed`` extra) or an object with ``start``/``run``/``close``."""
    _check_executor(executor)
    if executor is None:
        return InlineExecutor() if workers == 0 else ProcessExecutor(workers)
    if executor == "process":
        return ProcessExecutor(workers)
    if executor == "inline":
        return InlineExecutor()
    if executor == "ray":
        return RayExecutor(workers=workers or None)
    return executor


def _check_executor(executor) -> None:
    if executor is None:
        return
    if isinstance(executor, str):
        if executor not in EXECUTORS:
            raise envs.ParameterError(
                f"executor={executor!r}: expected one of {', '.join(map(repr, EXECUTORS))} or an executor object"
            )
        return
    if not all(callable(getattr(executor, m, None)) for m in ("start", "run", "close")):
        raise envs.ParameterError(f"executor={executor!r}: expected a name or an object with start, run and close")


def _split_options(system, game, options) -> tuple[dict, dict]:
    """(system options, game parameters) of the keywords of ``run``. Users write
    ``tournaments.swiss(agents, game="othello", size=6)`` as they write ``make_game("othello",
    size=6)``; a keyword that is neither a system option nor a parameter of the game is refused
    here, by name, rather than deep inside with a TypeError."""
    ours = {k: v for k, v in options.items() if k in SYSTEM_OPTIONS}
    rest = {k: v for k, v in options.items() if k not in SYSTEM_OPTIONS}
    if rest:
        spec = envs.spec(game)  # an unknown game is a ParameterError listing the games
        known = {p.name for p in spec.params} | {"rules"}
        unknown = sorted(set(rest) - known)
        if unknown:
            params = ", ".join(p.name for p in spec.params) or "none"
            raise envs.ParameterError(
                f"unknown keyword {unknown[0]}={rest[unknown[0]]!r} for a {system} tournament of "
                f"{spec.name}: expected a system option ({', '.join(SYSTEM_OPTIONS)}), a parameter "
                f"of {spec.name} ({params}, rules) or one of run's ({RUN_KEYWORDS})"
            )
    return ours, rest


def make_book(
    game: envs.Game,
    seed: int,
    openings: str | PathLike[str] | Suite | None = None,
    opening_plies: int | Sequence[int] | None = None,
    openings_order: Literal["sequential", "random"] = "sequential",
    openings_start: int = 1,
) -> Book | None:
    """The tournament's ``openings.Book``, every opening checked before the first game, or None
    (no openings: every game starts from the start position)."""
    _check_openings(openings, opening_plies, openings_order, openings_start)
    if openings is None and opening_plies is None:
        return None
    suite = load_openings(openings, game) if openings is not None else None
    return Book(game, suite, order=openings_order, start=openings_start, seed=seed, plies=opening_plies)


def _check_openings(openings, opening_plies, openings_order, openings_start) -> None:
    if openings is not None and opening_plies is not None:
        raise envs.ParameterError("openings= and opening_plies=: a suite of openings or random openings, not both")
    if openings is None and opening_plies is None:
        if openings_order != "sequential" or openings_start != 1:
            raise envs.ParameterError("openings_order= and openings_start= need a suite of openings (openings=)")


def time_control(
    tc: TimeControl | str | float | None = None,
    byoyomi: str | None = None,
    move_time: float | None = None,
    margin: float | None = None,
) -> TimeControl | None:
    """The tournament's game clock from ``run``'s ``tc`` (``"BASE+INC"`` or a ``TimeControl``) and
    ``byoyomi`` (``"PERIODS/SECONDS"``), with ``move_time`` as its cap per move and ``margin``
    (``time_margin=``) the seconds a move may overrun it; None without a clock (``move_time``
    alone then limits each move, as it always has)."""
    if isinstance(tc, TimeControl):
        if byoyomi is not None:
            raise envs.ParameterError("byoyomi= with a TimeControl: give the byo-yomi in the TimeControl")
        if move_time is not None and tc.move_time not in (None, move_time):
            raise envs.ParameterError(f"move_time={move_time!r} and tc={tc}: two different caps per move")
        if margin is not None and tc.margin not in (0.0, margin):
            raise envs.ParameterError(f"time_margin={margin!r} and tc={tc}: two different margins")
        clock = tc if move_time is None else dataclasses.replace(tc, move_time=move_time)
        return clock if margin is None else dataclasses.replace(clock, margin=margin)
    if tc is None and byoyomi is None:
        if margin is not None:
            raise envs.ParameterError(f"time_margin={margin!r}: a margin applies to a game clock (tc= or byoyomi=)")
        return None
    return TimeControl.parse(tc, byoyomi, move_time, 0.0 if margin is None else margin)


def adjudication(
    adjudicate: Adjudication | str | Sequence[str] | None = None, adjudicator: str | None = None
) -> Adjudication | None:
    """The tournament's ``Adjudication`` from ``run``'s ``adjudicate`` (rules as text, or an
    ``Adjudication``) and ``adjudicator`` (the judge's spec); None: no adjudication."""
    if adjudicate is None:
        if adjudicator is not None:
            raise envs.ParameterError(f"adjudicator={adjudicator!r}: needs adjudicate= rules (resign or draw)")
        return None
    if isinstance(adjudicate, Adjudication):
        if adjudicator is not None:
            return dataclasses.replace(adjudicate, judge=adjudicator)
        return adjudicate
    return Adjudication.parse(adjudicate, adjudicator)


def _count(name: str, value: Any, lo: int, none: bool = False) -> None:
    """A ``ParameterError`` unless ``value`` is an integer ``>= lo`` (or None where ``none``)."""
    if value is None and none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        what = "a non-negative integer" if lo == 0 else f"an integer from {lo}"
        raise envs.ParameterError(f"{name}={value!r}: expected {what}" + (" or None" if none else ""))


@dataclass(frozen=True)
class TournamentConfig:
    """Everything a tournament run is, checked when built (``ParameterError`` naming the value).

    The system   ``system`` (``"round_robin"``, ``"swiss"``, ``"olympic"``, ``"gauntlet"``,
                 ``"random_order"``), ``agents`` (specs for ``agents.make``, each game building
                 fresh agents seeded from the game's seed, or picklable players, deep-copied per
                 game), ``game`` with its ``game_params``, the system's ``options`` (``games``
                 per encounter, even, default 2 in a round robin or gauntlet, and olympic's match
                 length instead of first to ``k``; ``k``, ``recursive`` (olympic); ``rounds``,
                 default ``swiss_rounds(len(agents))``, and ``avoid_rematches`` (swiss);
                 ``candidates``, how many of the first agents a gauntlet's candidates are) and
                 ``seed``, the tournament seed: the starting draw, tie orders, every game's seeds.
    The games    ``move_time`` (seconds per move; a slower move forfeits, a hung agent's process
                 is killed), ``setup_time`` (seconds per agent to build it and warm it up),
                 ``resign`` (search agents may resign a lost game), ``swap`` (False: no colour
                 pairs, the agent listed first Black in every game of an encounter: round robin,
                 gauntlet, olympic), ``sprt`` (gauntlet only: ``(elo0, elo1, alpha, beta)`` or a
                 ``tournaments.sprt.SPRT``, a sequential test of each candidate against the field
                 that stops its games once it decides; ``games`` is then the most per encounter).
    Openings     ``openings`` (a suite file, text or ``.sgf``, ``"builtin"`` or an
                 ``openings.Suite``: the two games of a colour pair start from one of its
                 openings, pair t of every encounter from ``openings_start + t`` in
                 ``openings_order``, ``"sequential"`` or ``"random"``, cycling) or
                 ``opening_plies`` (K or (MIN, MAX): seeded random openings).
    The clock    ``clock``, an ``agents.clock.TimeControl`` (``of`` builds it from ``tc``:
                 ``"BASE+INC"``, ``"MOVES/BASE+INC"``, and ``byoyomi``: ``"PERIODS/SECONDS"``);
                 a move that overruns it loses on time; ``move_time`` is its cap per move.
    Adjudication ``adjudicate``, a ``tournaments.adjudication.Adjudication`` (``of`` parses the
                 rules, ``"cap:plies=200,result=score"``, ``"resign:movecount=4,score=600"``,
                 ``"draw:movenumber=40,movecount=8,score=20"``, judged by ``adjudicator``).
    The executor ``workers`` (worker processes, default the CPU count; 0: in this process) and
                 ``executor`` (``"process"``, ``"inline"``, ``"ray"`` or an executor object).
    The outputs  ``journal`` (an SQLite file holding every finished game; ``resume`` continues
                 it), ``progress`` (a bar on a terminal) with a rating table every
                 ``ratings_every`` games (None: a tenth of the run, at least 50; 0: none), and
                 ``jsonl``, ``csv``, ``sgf`` (records written as each game finishes, after the
                 journal), named by ``event`` and ``site``.
    """

    system: str
    agents: tuple
    game: str = "loa"
    game_params: Mapping[str, Any] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    # the games
    move_time: float | None = None
    setup_time: float = 60.0
    resign: bool = True
    swap: bool = True
    sprt: SPRT | None = None
    # openings
    openings: str | PathLike[str] | Suite | None = None
    opening_plies: int | Sequence[int] | None = None
    openings_order: Literal["sequential", "random"] = "sequential"
    openings_start: int = 1
    # the clock and the adjudication
    clock: TimeControl | None = None
    adjudicate: Adjudication | None = None
    # the executor
    workers: int | None = None
    executor: Literal["process", "inline", "ray"] | Executor | None = None
    # the outputs
    journal: str | PathLike[str] | None = None
    resume: bool = False
    progress: bool = True
    ratings_every: int | None = None
    jsonl: str | PathLike[str] | None = None
    csv: str | PathLike[str] | None = None
    sgf: str | PathLike[str] | None = None
    event: str | None = None
    site: str | None = None

    @classmethod
    def of(
        cls,
        system: str,
        agents: Sequence[Any],
        game: str = "loa",
        *,
        game_params: Mapping[str, Any] | None = None,
        tc: TimeControl | str | float | None = None,
        byoyomi: str | None = None,
        time_margin: float | None = None,
        adjudicate: Adjudication | str | Sequence[str] | None = None,
        adjudicator: str | None = None,
        **keywords: Any,
    ) -> TournamentConfig:
        """The configuration of ``run``'s keywords: the fields by name, ``tc``, ``byoyomi`` and
        ``time_margin`` for the ``clock``, ``adjudicate`` and ``adjudicator`` for the adjudication, and any other
        keyword a system option (``games=4``) or a rule parameter of the game (``size=6``), as
        ``envs.make_game`` takes them; a keyword that is neither is a ``ParameterError``."""
        fields = {k: keywords.pop(k) for k in list(keywords) if k in _FIELDS}
        options, extra = _split_options(system, game, keywords)
        params = dict(game_params or {})
        both = sorted(set(extra) & set(params))
        if both:
            raise envs.ParameterError(f"{both[0]}= given both as a keyword and in game_params")
        params.update(extra)
        agents = tuple(agents)
        if system == "swiss" and options.get("rounds") is None:
            options["rounds"] = swiss_rounds(len(agents))
        return cls(
            system,
            agents,
            game,
            params,
            options,
            clock=time_control(tc, byoyomi, fields.get("move_time"), time_margin),
            adjudicate=adjudication(adjudicate, adjudicator),
            **fields,
        )

    def __post_init__(self) -> None:
        object.__setattr__(self, "agents", tuple(self.agents))
        object.__setattr__(self, "game_params", dict(self.game_params))
        object.__setattr__(self, "options", dict(self.options))
        if (
            isinstance(self.setup_time, bool)
            or not isinstance(self.setup_time, (int, float))
            or not self.setup_time > 0
        ):
            raise envs.ParameterError(f"setup_time={self.setup_time!r}: expected a positive number of seconds")
        _count("seed", self.seed, 0)
        if self.ratings_every is not None and (
            isinstance(self.ratings_every, bool)
            or not isinstance(self.ratings_every, (int, np.integer))
            or self.ratings_every < 0
        ):
            raise envs.ParameterError(f"ratings_every={self.ratings_every!r}: expected a number of games (0: no table)")
        self.systems_config()  # the system's options: a ParameterError names a bad one
        if self.sprt is not None:
            if self.system != "gauntlet":
                raise envs.ParameterError(
                    f"sprt={self.sprt!r}: a sequential test applies to a gauntlet (each candidate against the "
                    f"field), not to {self.system}"
                )
            object.__setattr__(self, "sprt", SPRT.of(self.sprt))
        if not self.swap and self.system not in ("round_robin", "gauntlet", "olympic"):
            raise envs.ParameterError(f"swap=False: a {self.system} pairs single games, there are no colours to keep")
        if self.clock is not None and not isinstance(self.clock, TimeControl):
            object.__setattr__(self, "clock", time_control(self.clock, None, self.move_time))
        if self.adjudicate is not None and not isinstance(self.adjudicate, Adjudication):
            object.__setattr__(self, "adjudicate", adjudication(self.adjudicate))
        _check_openings(self.openings, self.opening_plies, self.openings_order, self.openings_start)
        _check_executor(self.executor)

    def systems_config(self):
        """The pairing rules' configuration (``systems.configure``) of this system and options."""
        return configure(self.system, len(self.agents), **self.options)

    def prepare(self) -> Setup:
        """What the run needs, checked against the game itself before the first game: the game,
        the agents (each can play it), the openings (each legal in it), the adjudication (it
        applies), the games' ``Context`` and the journal's ``record`` of this configuration."""
        g = envs.make_game(self.game, **self.game_params)  # validates the game and its parameters now
        if g.num_players != 2:
            raise envs.ParameterError(f"tournaments need a two-player game; {self.game!r} is played alone")
        check_players(self.agents, g)  # a mistyped spec or an agent that cannot play g: an error, not forfeits
        book = make_book(g, self.seed, self.openings, self.opening_plies, self.openings_order, self.openings_start)
        if self.adjudicate is not None:
            self.adjudicate.check(g)  # a rule that cannot apply, a judge without an evaluation
        names = display_names(self.agents)
        ctx = Context(
            g.name,
            self.game_params,
            self.agents,
            names,
            self.move_time,
            self.setup_time,
            spec=g.spec,
            clock=self.clock,
            adjudicate=self.adjudicate,
            resign=bool(self.resign),
        )
        rules = self.systems_config()
        return Setup(self, g, rules, book, ctx, names, self.record(g.name, rules, book))

    def record(self, game: str, rules, book: Book | None) -> dict[str, Any]:
        """The configuration as the journal stores it (JSON-ready) and a resume compares it: an
        entry at its default is absent, as journals of earlier versions wrote it."""
        meta = {
            "game": game,
            "game_params": self.game_params,
            "system": self.system,
            "options": rules.options(),
            "agents": [_identity(e) for e in self.agents],
            "seed": self.seed,
            "move_time": self.move_time,
        }
        if self.clock is not None:
            meta["clock"] = self.clock.to_config()
        if self.adjudicate is not None:
            meta["adjudicate"] = self.adjudicate.to_config(_identity)
        if book is not None:
            meta["openings"] = book.config()
        if not self.resign:
            meta["resign"] = False
        if not self.swap:
            meta["swap"] = False
        if self.sprt is not None:  # a resume must stop candidates where the first run did
            meta["sprt"] = {k: getattr(self.sprt, k) for k in ("elo0", "elo1", "alpha", "beta", "model", "method")}
        return meta


_FIELDS = frozenset(f.name for f in dataclasses.fields(TournamentConfig)) - {
    "system",
    "agents",
    "game",
    "clock",
    "options",
}


@dataclass(frozen=True)
class Setup:
    """A configuration prepared for its run (``TournamentConfig.prepare``): the game, the pairing
    rules' configuration, the openings' ``Book`` (None without), the games' ``Context``, the
    players' display names and the journal's ``record`` of the configuration."""

    config: TournamentConfig
    game: envs.Game
    rules: Any
    book: Book | None
    ctx: Context
    names: tuple
    record: dict
