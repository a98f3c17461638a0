"""Real tournaments: the referee of ``referee.py`` pairs, an executor plays, a journal remembers.

    import tournaments
    result = tournaments.swiss(["random", "greedy", "alphabeta:depth=3"], game="othello", size=6,
                               workers=2, journal="run.db")
    result                             # TournamentResult(system='swiss', ..., leader='greedy')
    print(result.table())              # standings, ratings, crosstable (also ``print(result)``)

Each game is seeded from the tournament seed and its pairing only, so the games (and therefore the
standings) do not depend on the number of workers or on which game finishes first: results of a
batch are handed to the referee in pairing order once the whole batch is done.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import pickle
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

import envs
from agents.clock import TimeControl
from envs.core.outcome import Outcome

from ..analysis.ratings import bradley_terry
from ..analysis.sprt import SPRT, UNDECIDED, SPRTStatus
from . import precompile
from .adjudication import Adjudication
from .executor import Executor, InlineExecutor, ProcessExecutor
from .journal import Journal, JournalError
from .openings import Book, Suite
from .openings import load as load_openings
from .play import AgentEntry, Context, Job, check_players, forfeit_lines
from .progress import Progress, compile_notice, default_ratings_every
from .records import RecordFiles
from .systems import Pairing, Referee, System, configure, expected_games, swiss_rounds

if TYPE_CHECKING:
    from ..analysis.statistics import Statistics
    from ..analysis.trust import Trust


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


def _names(entries) -> tuple:
    """Display names, made unique with ``#2``, ``#3`` suffixes."""
    names, seen = [], {}
    for e in entries:
        base = _label(e)
        seen[base] = seen.get(base, 0) + 1
        names.append(base if seen[base] == 1 else f"{base}#{seen[base]}")
    return tuple(names)


def _seeds(seed: int, p) -> tuple[int, tuple]:
    """(game seed, (Black's agent seed, White's)) from the tournament seed and the pairing."""
    s = np.random.SeedSequence([seed, p.round, p.match, p.game, p.black, p.white]).generate_state(3)
    return int(s[0]), (int(s[1]), int(s[2]))


def openings_text(book: dict) -> str:
    """A journal's ``openings`` entry in words (``openings.Book.config``)."""
    if "random_plies" in book:
        lo, hi = book["random_plies"]
        return f"random, {lo if lo == hi else f'{lo}-{hi}'} plies"
    return f"{book['suite']} ({book['count']} openings, {book['order']} from {book['start']})"


def conditions_lines(config: dict) -> list[str]:
    """The clock and the adjudication rules of a journal's configuration, a line each (none where
    the run had neither)."""
    lines = []
    if config.get("clock"):
        lines.append(
            f"Clock: {TimeControl.from_config(config['clock'])} ("
            + (
                f"moves/seconds: the seconds again for every {config['clock']['moves']} moves"
                if config["clock"].get("moves")
                else "seconds per game"
            )
            + (" + increment per move" if config["clock"].get("increment") else "")
            + (", then byo-yomi periods/seconds" if config["clock"].get("periods") else "")
            + ")"
        )
    if config.get("swap") is False:
        lines.append("Colours: not swapped (the agent listed first is Black in every game of an encounter)")
    if config.get("adjudicate"):
        adj = config["adjudicate"]
        judge = f" (judge {adj['judge']})" if adj.get("judge") else ""
        lines.append("Adjudication: " + " ".join(adj["rules"]) + judge)
    return lines


def game_text(config: Mapping[str, Any]) -> str:
    """The game of a run's configuration with the parameters it was given: ``othello (size=6)``,
    ``go (size=9, komi=6.5)``; the game alone where it was played as it comes (``othello``)."""
    params = ", ".join(f"{k}={v}" for k, v in (config.get("game_params") or {}).items())
    return config["game"] + (f" ({params})" if params else "")


def place_text(place: int, tied: bool) -> str:
    """A place as crosstables print it: ``2`` alone, ``2=`` when shared."""
    return f"{place}=" if tied else str(place)


@dataclass
class Standing:
    """One player's line of the standings. ``place`` is the best place the player shares (an
    int, 1 = first) and ``tied`` says whether others share it (equal points, or a knock-out
    bracket that did not play the places off); ``points`` include byes, ``games`` and W-D-L
    count games actually played, ``byes`` the rounds sat out for a point."""

    place: int
    tied: bool
    name: str
    points: float
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int
    byes: int = 0


@dataclass
class TournamentResult:
    """Everything a finished tournament produced. Its repr is one line (system, game, games,
    leader); ``table()`` (also ``str()``) is the full report: standings, ratings, crosstable."""

    config: dict
    names: tuple
    places: list
    points: list
    games: list = field(default_factory=list)  # every game record (dicts), in pairing order
    byes: list = field(default_factory=list)  # (round, name)
    warm_up: dict = field(default_factory=dict)  # name -> the time its warm-up took, or what went wrong
    sprt: dict = field(default_factory=dict)  # gauntlet with sprt=: candidate name -> its final SPRTStatus

    def outcomes(self) -> list[Outcome]:
        """The outcome of every game of ``games``, in their order (Black is seat 0)."""
        return [Outcome.from_record(g) for g in self.games]

    def _matrix(self, outcomes):
        n = len(self.names)
        scores, played = np.zeros((n, n)), np.zeros((n, n))
        for g, outcome in zip(self.games, outcomes):
            b, w = g["black_id"], g["white_id"]
            played[b, w] += 1
            played[w, b] += 1
            scores[b, w] += outcome.points(0)
            scores[w, b] += outcome.points(1)
        return scores, played

    def crosstable(self) -> np.ndarray:
        """``[i, j]`` = points player i scored against player j (NaN where they never met)."""
        return self._crosstable(self._matrix(self.outcomes()))

    @staticmethod
    def _crosstable(matrix) -> np.ndarray:
        scores, played = matrix
        return np.where(played > 0, scores, np.nan)

    def _byes(self) -> list[int]:
        count = dict.fromkeys(self.names, 0)
        for _, name in self.byes:
            count[name] += 1
        return [count[name] for name in self.names]

    def standings(self) -> list[Standing]:
        """One ``Standing`` per player, best place first."""
        return self._standings(self.outcomes())

    def _standings(self, outcomes) -> list[Standing]:
        n = len(self.names)
        games, won, drawn, lost_forfeit = [0] * n, [0] * n, [0] * n, [0] * n
        for g, o in zip(self.games, outcomes):
            for seat, i in enumerate((g["black_id"], g["white_id"])):
                games[i] += 1
                if o.winner == seat:
                    won[i] += 1
                elif o.draw:
                    drawn[i] += 1
                elif o.forfeit and o.loser == seat:
                    lost_forfeit[i] += 1
        rows = []
        byes = self._byes()
        for i, name in enumerate(self.names):
            lo, hi = self.places[i]
            rows.append(
                Standing(
                    int(lo),
                    hi > lo,
                    name,
                    self.points[i],
                    games[i],
                    won[i],
                    drawn[i],
                    games[i] - won[i] - drawn[i],
                    lost_forfeit[i],
                    byes[i],
                )
            )
        order = sorted(range(len(rows)), key=lambda i: (self.places[i][0], -self.points[i], i))
        return [rows[i] for i in order]

    def repeats(self) -> list[tuple[int, int]]:
        """``(index, earlier)`` for every game that repeats an earlier game of the run move for
        move, with the same agents in the same colours: deterministic agents given the same
        opening (a short suite cycled, or none) play the same game again, and a rating that
        counts it as a new, independent result is surer than the games allow."""
        first: dict[tuple, int] = {}
        found = []
        for g in sorted(self.games, key=lambda g: g["index"]):
            key = (g["black"], g["white"], tuple(g["moves"]))
            if key in first:
                found.append((g["index"], first[key]))
            else:
                first[key] = g["index"]
        return found

    def _repeats_lines(self) -> list[str]:
        repeats = self.repeats()
        if not repeats:
            return []
        shown = ", ".join(f"{i} = {j}" for i, j in repeats[:5]) + (", ..." if len(repeats) > 5 else "")
        return [
            "",
            f"Warning: {len(repeats)} of {len(self.games)} games repeat an earlier game move for move, with the "
            f"same agents in the same colours (game {shown}); the ratings count each as an independent result. "
            "More openings than colour pairs (--openings, --opening-plies) or agents that vary their play "
            "make every game new.",
        ]

    def against_field(self) -> dict:
        """A gauntlet's results: ``{candidate: {opponent: (points, games)}}``, each candidate's
        points and games against each opponent of the field."""
        if self.config["system"] != "gauntlet":
            raise ValueError(f"against_field: a gauntlet's results, not a {self.config['system']}'s")
        scores, played = self._matrix(self.outcomes())
        c = self.config["options"]["candidates"]
        return {
            self.names[i]: {self.names[j]: (float(scores[i, j]), int(played[i, j])) for j in range(c, len(self.names))}
            for i in range(c)
        }

    def _against_field(self, matrix, c, order) -> list[str]:
        """A gauntlet's candidates (rows) against the field (columns), both in ``order``, the
        standings' order: row k is the candidate in place k."""
        scores, played = matrix
        rows, columns = [i for i in order if i < c], [j for j in order if j >= c]
        width = max(6, *(len(self.names[i]) for i in rows))
        cell = max(9, *(len(self.names[j]) for j in columns))
        lines = [
            "Results against the field (the candidate's points/games against each opponent):",
            " " * (width + 3) + " ".join(f"{self.names[j]:>{cell}}" for j in columns),
        ]
        for k, i in enumerate(rows):
            cells = " ".join(f"{f'{scores[i, j]:g}/{int(played[i, j])}':>{cell}}" for j in columns)
            lines.append(f"{k + 1:>2} {self.names[i]:<{width}} " + cells)
        return lines

    def ratings(self) -> list[tuple[str, float, float]]:
        """(name, Elo, 95% half-width) per player, strongest first (Bradley–Terry)."""
        return self._ratings(self._matrix(self.outcomes()))

    def _ratings(self, matrix) -> list[tuple[str, float, float]]:
        scores, played = matrix
        elo, half = bradley_terry(scores, played)
        return sorted(zip(self.names, elo.tolist(), half.tolist()), key=lambda r: -r[1])

    def statistics(self, seed: int | None = None) -> Statistics:
        """The rating table's numbers (``tournaments.statistics.Statistics``): Bradley–Terry Elo
        with margins, games, score, draw rate, the likelihood of superiority of every pair, the
        probability of being the best (posterior draws seeded by ``seed``, default the
        tournament's) and the colour pairs of each encounter as pentanomials."""
        from ..analysis.statistics import statistics

        return statistics(self.names, self.games, seed=self.config.get("seed", 0) if seed is None else seed)

    def trust(
        self,
        target: float = 0.9,
        seed: int | None = None,
        championships: int | None = None,
        announce: Callable[[], object] | None = None,
    ) -> Trust:
        """How far to trust this ranking (``tournaments.trust.Trust``; ``print`` it for the trust
        line): the study's simulator run on this system, field and fitted spread of strength,
        and the games per pairing that would find the true best ``target`` of the time."""
        from ..analysis.trust import trust

        return trust(self, target=target, seed=seed, championships=championships, announce=announce)

    # -- export --------------------------------------------------------------------------------
    def _sprt_lines(self) -> list[str]:
        """Each candidate's sequential test against the field (a gauntlet run with ``sprt``)."""
        if not self.sprt:
            return []
        width = max(len(name) for name in self.sprt)
        return ["", "SPRT of each candidate against the field:"] + [
            f"  {name:<{width}}  {status}" for name, status in self.sprt.items()
        ]

    def to_jsonl(self, path: str | PathLike[str]) -> None:
        """Every game as a line of JSON (``tournaments.referee.records.FIELDS``), as ``--jsonl`` writes."""
        from .records import write_records

        write_records(self, jsonl=path)

    def to_csv(self, path: str | PathLike[str]) -> None:
        """Every game as a CSV row, every field of the JSONL (``tournaments.referee.records.FIELDS``)."""
        from .records import write_records

        write_records(self, csv=path)

    def to_sgf(self, directory: str | PathLike[str]) -> list[str]:
        """One SGF file per game into ``directory`` (``tournaments.referee.records``: games with an SGF
        game number, the ``records`` extra); returns the paths written."""
        from .records import write_sgf

        return write_sgf(self, directory)

    def __repr__(self) -> str:
        first = [s.name for s in self.standings() if s.place == 1]
        leader = first[0] if len(first) == 1 else " = ".join(first)
        return (
            f"TournamentResult(system={self.config['system']!r}, game={self.config['game']!r}, "
            f"players={len(self.names)}, games={len(self.games)}, leader={leader!r})"
        )

    def __str__(self) -> str:
        return self.table()

    def table(self) -> str:
        """The printable report: standings (shared places as ``2=``; byes counted in the points
        and shown), the rating table (``statistics()``: Bradley–Terry Elo with margins, LOS,
        P(best), colour pairs), and the crosstable (with a bye column when any). The trust line
        is ``trust()``, apart: it runs the study's simulator."""
        options = ", ".join(f"{k}={v}" for k, v in self.config["options"].items())
        lines = [
            f"{self.config['system']}"
            + (f" ({options})" if options else "")
            + f" on {game_text(self.config)}: {len(self.games)} game{'s' * (len(self.games) != 1)}"
            + (f", {len(self.byes)} byes" if self.byes else "")
        ]
        if self.config.get("openings"):
            lines.append("Openings: " + openings_text(self.config["openings"]))
        lines += conditions_lines(self.config)
        lines.append("")
        agent = max(24, *(len(n) for n in self.names))  # the longest spec sets the column: rows stay aligned
        head = f"{'place':>6}  {'agent':<{agent}} {'points':>7} {'games':>5} {'W-D-L':>9} {'forfeits':>8}" + (
            f" {'byes':>4}" if self.byes else ""
        )
        outcomes = self.outcomes()
        standings = self._standings(outcomes)
        gauntlet = self.config["system"] == "gauntlet"
        candidates = self.names[: self.config["options"]["candidates"]] if gauntlet else ()
        if gauntlet:
            lines += ["Candidates, by points against the field:", head + f" {'score':>6}"]
        else:
            lines.append(head)
        field_shown = False
        for s in standings:  # a gauntlet's candidates hold places 1..C, its field the places after
            if gauntlet and s.name not in candidates and not field_shown:
                lines += ["", "The field, by points against the candidates:", head + f" {'score':>6}"]
                field_shown = True
            lines.append(
                f"{place_text(s.place, s.tied):>6}  {s.name:<{agent}} {s.points:>7g} {s.games:>5} "
                f"{f'{s.wins}-{s.draws}-{s.losses}':>9} {s.forfeits:>8}"
                + (f" {s.byes:>4}" if self.byes else "")
                + (f" {100 * s.points / max(s.games, 1):>5.1f}%" if gauntlet else "")
            )
        lines += forfeit_lines(self.games, outcomes=outcomes)
        lines += self._repeats_lines()
        troubles = {n: w for n, w in self.warm_up.items() if not w.endswith("s")}
        if troubles:
            lines += ["", "Warm-up: " + "; ".join(f"{n} {w}" for n, w in troubles.items())]
        lines += ["", self.statistics().table()]  # ratings, margins, LOS, P(best), colour pairs
        matrix = self._matrix(outcomes)
        if gauntlet:
            field = self._against_field(matrix, len(candidates), self._order(standings))
            return "\n".join(lines + [""] + field + self._sprt_lines())
        cross = self._crosstable(matrix)
        byes = self._byes()
        width = max(6, *(len(n) for n in self.names))
        order = self._order(standings)  # the standings' order: row k is the k-th agent of the table above
        lines += [
            "",
            "Crosstable (points of the row against the column, in the standings' order"
            + ("; bye: points from byes" if self.byes else "")
            + "):",
            " " * (width + 3) + " ".join(f"{k + 1:>5}" for k in range(len(order))) + ("   bye" if self.byes else ""),
        ]
        for k, i in enumerate(order):
            cells = " ".join("    ." if np.isnan(cross[i, j]) else f"{cross[i, j]:>5g}" for j in order)
            if self.byes:
                cells += f" {byes[i]:>5}" if byes[i] else "     ."
            lines.append(f"{k + 1:>2} {self.names[i]:<{width}} " + cells)
        return "\n".join(lines)

    def _order(self, standings: Sequence[Standing]) -> list[int]:
        """The players' indexes in the order of the standings, which every table follows."""
        return [self.names.index(s.name) for s in standings]


EXECUTORS = ("process", "inline", "ray")


def make_executor(
    executor: Literal["process", "inline", "ray"] | Executor | None, workers: int | None = None
) -> Executor:
    """An executor object from ``executor``: None (a process pool, or in this process with
    ``workers=0``), a name of ``EXECUTORS`` (``"ray"``: a local Ray, or the cluster Ray is
    connected to; needs the ``distributed`` extra) or an object with ``start``/``run``/``close``."""
    if executor is None:
        return InlineExecutor() if workers == 0 else ProcessExecutor(workers)
    if isinstance(executor, str):
        if executor == "process":
            return ProcessExecutor(workers)
        if executor == "inline":
            return InlineExecutor()
        if executor == "ray":
            from .ray_executor import RayExecutor

            return RayExecutor(workers=workers or None)
        raise envs.ParameterError(
            f"executor={executor!r}: expected one of {', '.join(map(repr, EXECUTORS))} or an executor object"
        )
    if not all(callable(getattr(executor, m, None)) for m in ("start", "run", "close")):
        raise envs.ParameterError(f"executor={executor!r}: expected a name or an object with start, run and close")
    return executor


SYSTEM_OPTIONS = ("k", "recursive", "rounds", "avoid_rematches", "games", "candidates")
RUN_KEYWORDS = (
    "seed, workers, journal, resume, move_time, tc, byoyomi, adjudicate, adjudicator, game_params, "
    "executor, progress, setup_time, openings, opening_plies, openings_order, openings_start, "
    "ratings_every, resign"
)


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
    if openings is not None and opening_plies is not None:
        raise envs.ParameterError("openings= and opening_plies=: a suite of openings or random openings, not both")
    if openings is None and opening_plies is None:
        if openings_order != "sequential" or openings_start != 1:
            raise envs.ParameterError("openings_order= and openings_start= need a suite of openings (openings=)")
        return None
    suite = load_openings(openings, game) if openings is not None else None
    return Book(game, suite, order=openings_order, start=openings_start, seed=seed, plies=opening_plies)


def time_control(
    tc: TimeControl | str | float | None = None, byoyomi: str | None = None, move_time: float | None = None
) -> TimeControl | None:
    """The tournament's game clock from ``run``'s ``tc`` (``"BASE+INC"`` or a ``TimeControl``) and
    ``byoyomi`` (``"PERIODS/SECONDS"``), with ``move_time`` as its cap per move; None without a
    clock (``move_time`` alone then limits each move, as it always has)."""
    if isinstance(tc, TimeControl):
        if byoyomi is not None:
            raise envs.ParameterError("byoyomi= with a TimeControl: give the byo-yomi in the TimeControl")
        if move_time is not None and tc.move_time not in (None, move_time):
            raise envs.ParameterError(f"move_time={move_time!r} and tc={tc}: two different caps per move")
        return tc if move_time is None else dataclasses.replace(tc, move_time=move_time)
    if tc is None and byoyomi is None:
        return None
    return TimeControl.parse(tc, byoyomi, move_time)


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


def run(
    system: System,
    agents: Iterable[AgentEntry],
    game: str = "loa",
    seed: int = 0,
    workers: int | None = None,
    journal: str | PathLike[str] | None = None,
    resume: bool = False,
    move_time: float | None = None,
    game_params: Mapping[str, Any] | None = None,
    executor: Literal["process", "inline", "ray"] | Executor | None = None,
    progress: bool = True,
    setup_time: float = 60.0,
    openings: str | PathLike[str] | Suite | None = None,
    opening_plies: int | Sequence[int] | None = None,
    openings_order: Literal["sequential", "random"] = "sequential",
    openings_start: int = 1,
    ratings_every: int | None = None,
    tc: TimeControl | str | float | None = None,
    byoyomi: str | None = None,
    adjudicate: Adjudication | str | Sequence[str] | None = None,
    adjudicator: str | None = None,
    resign: bool = True,
    sprt: SPRT | Sequence[float] | None = None,
    swap: bool = True,
    jsonl: str | PathLike[str] | None = None,
    csv: str | PathLike[str] | None = None,
    sgf: str | PathLike[str] | None = None,
    event: str | None = None,
    site: str | None = None,
    **options: Any,
) -> TournamentResult:
    """Play a tournament of ``system`` among ``agents`` at ``game`` and return its result.

    agents       specs for ``agents.make`` (``"alphabeta:depth=3"``; each game builds fresh agents
                 seeded from the game's seed) or picklable objects with ``act(game, state)`` and
                 ``name`` (deep-copied per game and ``reset()`` if they have it).
    seed         the tournament seed: the starting draw, tie orders and every game's seeds.
    workers      worker processes (default: CPU count); 0 plays in this process.
    journal      SQLite file that records every finished game; ``resume=True`` continues it.
    move_time    seconds per move (None: unlimited); a slower move forfeits, a hung agent's
                 process is killed. ``setup_time`` (seconds, per agent) bounds building an agent and
                 its warm-up; a hung warm-up loses on time (``TournamentResult.warm_up`` reports it).
    tc           the game clock: ``"BASE+INC"`` seconds per game and increment per move (``"10+0.1"``),
                 ``"MOVES/BASE+INC"`` BASE seconds for every MOVES moves (``"40/60+0.5"``)
                 or an ``agents.clock.TimeControl``; ``byoyomi``: ``"PERIODS/SECONDS"`` of Japanese
                 byo-yomi after the base time (Go's overtime). A move that overruns its clock loses
                 on time; every agent reads its time left (``Agent.clock``) and search agents are
                 held to a share of it per move. ``move_time``, if given too, caps every move.
    adjudicate   rules by which the referee ends a game early (``"cap:plies=200,result=score"``,
                 ``"resign:movecount=4,score=600"``, ``"draw:movenumber=40,movecount=8,score=20"``;
                 one string, a list, or a ``tournaments.adjudication.Adjudication``), judged by
                 ``adjudicator`` (an agent spec, default ``alphabeta:depth=2``); none by default.
    game_params  rule parameters for ``envs.make_game``; ``executor`` replaces the process pool
                 (see ``tournaments.referee.executor``); ``progress`` shows a bar on a terminal.
    ratings_every  with ``progress``: games between the rating tables printed as the run goes
                 (None: a tenth of the run, at least 50 games; 0: none).
    resign       search agents may resign a lost game (their ``resign`` option; default on, as
                 engines do in tournaments); False: every game is played out.
    swap         False: no colour pairs, every game of an encounter with the agent listed first as
                 Black (cutechess-cli's ``-noswap``; round robin, gauntlet and olympic).
    jsonl, csv, sgf  files of the games for outside use (``tournaments.referee.records.RecordFiles``): a
                 JSON line and a CSV row per game, one SGF file per game in the directory ``sgf``,
                 written as each game finishes (after the journal), so an interrupted run leaves
                 every finished game in them; a resumed run rewrites them from the journal first.
                 ``event`` and ``site`` name the run in them (SGF's ``EV`` and ``PC``).
    sprt         gauntlet only: ``(elo0, elo1, alpha, beta)`` or a ``tournaments.sprt.SPRT``, a
                 sequential test of each candidate against the field (its colour pairs against
                 every opponent pooled, as fastchess tests an engine against several): after
                 every batch the candidate's pentanomial LLR is compared with the bounds, and a
                 candidate whose test has decided plays no more games; ``games`` is then the
                 most per encounter. ``TournamentResult.sprt`` holds each candidate's test.
    openings     a suite file (text or ``.sgf``), ``"builtin"`` (the suite shipped for the game) or
                 an ``openings.Suite``: the two games of each colour pair start from one of its
                 openings, pair t of every encounter from opening ``openings_start + t`` in
                 ``openings_order`` (``"sequential"`` or ``"random"``: shuffled by ``seed``),
                 cycling; or ``opening_plies`` = K or (MIN, MAX): seeded random openings. Checked
                 before the first game (``openings.OpeningError``); see ``tournaments.openings``.
    options      the system's: ``games`` (per encounter, even: round robin and gauntlet, default
                 2; olympic: a match of that many games instead of first to ``k``), ``k``,
                 ``recursive`` (olympic), ``rounds`` (default ``swiss_rounds(len(agents))`` =
                 ceil(log2 N)), ``avoid_rematches`` (swiss), ``candidates`` (gauntlet: how many of
                 the first agents are candidates; ``gauntlet()`` counts them for you); any other
                 keyword is a rule parameter of the game (``size=6``), as in ``make_game``.
                 A keyword that is neither is a ``ParameterError`` naming it.
    """
    options, extra = _split_options(system, game, options)
    game_params = dict(game_params or {})
    both = sorted(set(extra) & set(game_params))
    if both:
        raise envs.ParameterError(f"{both[0]}= given both as a keyword and in game_params")
    game_params.update(extra)
    agents = list(agents)
    if isinstance(setup_time, bool) or not isinstance(setup_time, (int, float)) or not setup_time > 0:
        raise envs.ParameterError(f"setup_time={setup_time!r}: expected a positive number of seconds")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise envs.ParameterError(f"seed={seed!r}: expected a non-negative integer")
    if ratings_every is not None and (
        isinstance(ratings_every, bool) or not isinstance(ratings_every, (int, np.integer)) or ratings_every < 0
    ):
        raise envs.ParameterError(f"ratings_every={ratings_every!r}: expected a number of games (0: no table)")
    if system == "swiss" and options.get("rounds") is None:
        options["rounds"] = swiss_rounds(len(agents))
    config = configure(system, len(agents), **options)
    test = _gauntlet_test(system, sprt)
    g = envs.make_game(game, **game_params)  # validates the game and its parameters now
    if g.num_players != 2:
        raise envs.ParameterError(f"tournaments need a two-player game; {game!r} is played alone")
    check_players(agents, g)  # a mistyped spec or an agent that cannot play g: an error, not forfeits
    book = make_book(g, seed, openings, opening_plies, openings_order, openings_start)
    clock = time_control(tc, byoyomi, move_time)
    rules = adjudication(adjudicate, adjudicator)
    if rules is not None:
        rules.check(g)  # a rule that cannot apply, a judge without an evaluation: before the first game
    names = _names(agents)
    ctx = Context(
        g.name,
        game_params,
        tuple(agents),
        names,
        move_time,
        setup_time,
        spec=g.spec,
        clock=clock,
        adjudicate=rules,
        resign=bool(resign),
    )
    meta = {
        "game": g.name,
        "game_params": game_params,
        "system": system,
        "options": config.options(),
        "agents": [_identity(e) for e in agents],
        "seed": seed,
        "move_time": move_time,
    }
    if clock is not None:  # absent without, so journals of earlier versions still resume
        meta["clock"] = clock.to_config()
    if rules is not None:
        meta["adjudicate"] = rules.to_config(_identity)
    if book is not None:  # absent without openings, so journals of earlier versions still resume
        meta["openings"] = book.config()
    if not resign:  # absent when on (the default), so journals of earlier versions still resume
        meta["resign"] = False
    if not swap:  # absent when on (the default), so journals of earlier versions still resume
        if system not in ("round_robin", "gauntlet", "olympic"):
            raise envs.ParameterError(f"swap=False: a {system} pairs single games, there are no colours to keep")
        meta["swap"] = False
    if test is not None:  # a resume must stop candidates where the first run did
        meta["sprt"] = {k: getattr(test, k) for k in ("elo0", "elo1", "alpha", "beta", "model", "method")}
    files = RecordFiles(g, meta, jsonl=jsonl, csv=csv, sgf=sgf, event=event, site=site)
    files.check_apart(journal)  # a record file over the journal would lose its games
    log = Journal(journal, meta, resume) if journal is not None else None
    if files:
        try:
            files.start(log.done.values() if log else ())
        except BaseException:
            if log:
                log.close()
            raise
    # a first run compiles the pairing rules in a helper process while the agents warm up
    precompile.start(("systems",))
    executor = make_executor(executor, workers)
    if progress:
        compile_notice(g.spec)
    bar = None
    try:
        executor.start(ctx)
        precompile.wait("systems")
        referee = Referee(config, seed)
        total = expected_games(config, seed)
        every = default_ratings_every(total) if ratings_every is None else ratings_every
        records, bar = [], Progress(progress, total, earlier=log.done.values() if log else (), ratings_every=every)
        if hasattr(executor, "announce"):  # a worker killed from outside: its game's replay is said
            executor.announce = bar.note
        tests = _CandidateTests.of(meta)
        while batch := referee.next_games():
            jobs, results, numbers = [], {}, {}
            for p in batch:
                game_seed, agent_seeds = _seeds(seed, p)
                number, opening = book.opening(config.pair(p)) if book is not None else (0, ())
                numbers[p.index] = number
                black, white = _colours(p, swap)
                if black != p.black:  # each agent keeps its own seed
                    agent_seeds = agent_seeds[::-1]
                job = Job(p.index, p.round, p.match, p.game, black, white, game_seed, agent_seeds, opening)
                old = log.done.get(p.index) if log else None
                if old is None:
                    jobs.append(job)
                elif (old["black_id"], old["white_id"], old["seed"], old.get("opening", 0)) != (
                    black,
                    white,
                    game_seed,
                    len(opening),
                ):
                    raise JournalError(
                        f"{journal}: game {p.index} in the journal is not the game the "
                        "pairing asks for (a journal from another version or edited)"
                    )
                else:
                    results[p.index] = old
            for record in executor.run(jobs):
                if book is not None:  # which opening of the suite: its plies are the record's first moves
                    record["opening_number"] = numbers[record["index"]]
                with _uninterrupted():  # a finished game is in the journal and every record file, or in none
                    if log:
                        log.append(record)
                    if files:  # after the journal: a resumed run rewrites the files from it
                        files.append(record)
                results[record["index"]] = record
                bar.tick(record)
            ordered = [results[p.index] for p in batch]
            records.extend(ordered)
            outcomes = [_as_paired(p, Outcome.from_record(r), r) for p, r in zip(batch, ordered)]
            referee.record(outcomes)
            for c in tests.add(batch, outcomes) if tests is not None else ():
                referee.stop(c)  # the same batch ends it in a resumed run: the journal holds its games
                bar.note(f"SPRT {names[c]} against the field: {tests.status[c]}")
    finally:
        if bar is not None:
            bar.close()
        executor.close()
        files.close()
        if log:
            log.close()
    byes = [(r, names[p]) for r, p in referee.byes]
    return TournamentResult(
        meta,
        names,
        referee.places(),
        referee.points().tolist(),
        records,
        byes,
        dict(getattr(executor, "warm_up_report", {})),
        {names[c]: s for c, s in sorted(tests.status.items())} if tests is not None else {},
    )


@contextlib.contextmanager
def _uninterrupted() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM back while a finished game is stored: a signal that comes meanwhile
    is acted on (its handler called, or its default action taken) once the game is in the journal
    and in every record file (an SGF's first write may load the game's compiled code), so a
    stopped run leaves no file short of a game the journal holds. The handlers are swapped, not
    the signal mask: any thread of the process may receive a signal, but Python runs its handlers
    in the main thread, the one that stores games. Elsewhere nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    held = [sig for sig in _HELD if signal.getsignal(sig) is not None]  # None: a handler set outside Python
    before = {sig: signal.signal(sig, lambda signum, frame: pending.append(signum)) for sig in held}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if pending:
            handler = before[pending[0]]
            if callable(handler):
                handler(pending[0], None)  # KeyboardInterrupt, the command's Terminated, ...
            elif handler == signal.SIG_DFL:
                signal.raise_signal(pending[0])


_HELD = (signal.SIGINT, signal.SIGTERM)


def _colours(p: Pairing, swap: bool) -> tuple[int, int]:
    """(Black, White) of a pairing's game: as paired, or without swapping (``swap=False``, as
    cutechess-cli's ``-noswap``) the agent listed first always Black."""
    return (p.black, p.white) if swap else (min(p.black, p.white), max(p.black, p.white))


def _as_paired(p: Pairing, outcome: Outcome, record: Mapping[str, Any]) -> Outcome:
    """The outcome of a game as the referee paired it: seats swapped back where the game was
    played in the other colours (``swap=False``), so the referee scores the right agents."""
    if record["black_id"] == p.black:
        return outcome
    winner = None if outcome.winner is None else 1 - outcome.winner
    return dataclasses.replace(outcome, winner=winner, returns=tuple(reversed(outcome.returns)))


def _gauntlet_test(system: str, sprt) -> SPRT | None:
    """``run``'s ``sprt`` as a test, or None; a ``ParameterError`` outside a gauntlet."""
    if sprt is None:
        return None
    if system != "gauntlet":
        raise envs.ParameterError(
            f"sprt={sprt!r}: a sequential test applies to a gauntlet (each candidate against the field), "
            f"not to {system}"
        )
    return SPRT.of(sprt)


class _CandidateTests:
    """The sequential test of each gauntlet candidate against the field. A colour pair is game g
    of the match (candidate, opponent) and game g of (opponent, candidate); both are in one
    batch (``_systems``), so after every batch each candidate has whole pairs only, and its
    pentanomial counts pool the pairs against every opponent."""

    def __init__(self, test: SPRT, candidates: int) -> None:
        self.test = test
        self.candidates = candidates
        self.pentanomial = [[0] * 5 for _ in range(candidates)]
        self.status: dict[int, SPRTStatus] = {}
        self._half: dict[tuple, float] = {}  # (candidate, opponent, game) -> the pair's first game's points

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> _CandidateTests | None:
        """The tests of a run's configuration (a journal's): None without an ``sprt`` entry. A
        replay of the journal (``report.load_journal``) stops the candidates where the run did."""
        if not config.get("sprt"):
            return None
        return cls(SPRT(**config["sprt"]), config["options"]["candidates"])

    def add(self, batch: Sequence[Pairing], outcomes: Sequence[Outcome]) -> list[int]:
        """Count one batch; the candidates whose test decided with it."""
        seen = set()
        for p, outcome in zip(batch, outcomes):
            seat = 0 if p.black < self.candidates else 1
            c, opponent = (p.black, p.white) if seat == 0 else (p.white, p.black)
            key = (c, opponent, p.game)
            points = outcome.points(seat)
            if key in self._half:
                self.pentanomial[c][round(2 * (self._half.pop(key) + points))] += 1
            else:
                self._half[key] = points
            seen.add(c)
        decided = []
        for c in sorted(seen):
            self.status[c] = self.test.status(self.pentanomial[c])
            if self.status[c].decision != UNDECIDED:
                decided.append(c)
        return decided


def round_robin(agents: Iterable[AgentEntry], game: str = "loa", games: int = 2, **kwargs: Any) -> TournamentResult:
    """Every pair of agents plays ``games`` games (even; default 2), half with each colour, in
    colour pairs that share an opening. Keywords are ``run``'s, and game parameters:
    ``round_robin(agents, game="gomoku", size=7, games=10, openings="builtin")``."""
    return run("round_robin", agents, game, games=games, **kwargs)


def olympic(
    agents: Iterable[AgentEntry],
    game: str = "loa",
    k: int = 1,
    recursive: bool = False,
    games: int | None = None,
    **kwargs: Any,
) -> TournamentResult:
    """Knock-out for a power-of-two field plus a third-place match, colours alternating within a
    match; ``k``: first-to-k matches (draws do not count); or ``games``: a match of that many
    games (even), ended as soon as the leader cannot be caught at the end of a colour pair, and
    extended pair by pair while level (cutechess-cli's knock-out encounters); ``recursive``:
    eliminated players play off their shared places."""
    return run("olympic", agents, game, k=k, recursive=recursive, games=games, **kwargs)


def gauntlet(
    candidates: Iterable[AgentEntry],
    opponents: Iterable[AgentEntry],
    game: str = "loa",
    games: int = 2,
    **kwargs: Any,
) -> TournamentResult:
    """Each of ``candidates`` plays each of ``opponents`` (the field) ``games`` games (even;
    default 2), half with each colour, in colour pairs that share an opening; candidates do not
    play each other, nor do the opponents (fastchess's gauntlet with seeds; cutechess-cli's
    with one). Every candidate meets the same field with the same openings, so their scores
    compare directly: the standings rank the candidates by points against the field, then the
    field, and show each candidate's result against each opponent. Keywords are ``run``'s."""
    candidates, opponents = list(candidates), list(opponents)
    return run("gauntlet", candidates + opponents, game, games=games, candidates=len(candidates), **kwargs)


def swiss(
    agents: Iterable[AgentEntry],
    game: str = "loa",
    rounds: int | None = None,
    avoid_rematches: bool = True,
    **kwargs: Any,
) -> TournamentResult:
    """Swiss system: ``rounds`` (default ceil(log2 N), ``swiss_rounds``) of pairings within score
    groups, no rematch while one can be avoided (a backtracking search, bye included), colours
    balanced, a bye (one point, shown in the standings) for an odd field."""
    return run("swiss", agents, game, rounds=rounds, avoid_rematches=avoid_rematches, **kwargs)


def random_order(agents: Iterable[AgentEntry], game: str = "loa", **kwargs: Any) -> TournamentResult:
    """The study's "no rules": a uniformly random order of places, no games."""
    return run("random_order", agents, game, **kwargs)
