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
import inspect
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

import envs
from agents.clock import TimeControl
from envs.core import rng as R
from envs.core.outcome import Outcome

from ..analysis.ratings import bradley_terry
from ..analysis.sprt import SPRT, UNDECIDED, SPRTStatus
from ..analysis.statistics import statistics
from . import precompile
from .adjudication import Adjudication
from .config import (  # noqa: F401  (make_book, time_control, adjudication, ...: their home before config)
    EXECUTORS,
    RUN_KEYWORDS,
    SYSTEM_OPTIONS,
    Setup,
    TournamentConfig,
    adjudication,
    display_names,
    make_book,
    make_executor,
    time_control,
)
from .executor import Executor
from .journal import Journal, JournalError, openings_text
from .openings import Suite
from .play import AgentEntry, Job, forfeit_lines
from .progress import Progress, compile_notice, default_ratings_every
from .records import RecordFiles, write_records, write_sgf
from .systems import Pairing, Referee, System, drawn_batches, expected_games
from .trust import trust

if TYPE_CHECKING:
    from ..analysis.statistics import Statistics
    from .trust import Trust


def _seeds(seed: int, p) -> tuple[int, tuple]:
    """(game seed, (Black's agent seed, White's)) from the tournament seed and the pairing."""
    game_seed, black, white = R.seed_words(seed, p.round, p.match, p.game, p.black, p.white, count=3)
    return game_seed, (black, white)


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

    def _matrix(self, outcomes, rated: bool = False):
        """(points i took from j, games between them); ``rated``: only the games a rating reads,
        without the double forfeits, which tell nothing of the two agents' strength."""
        n = len(self.names)
        scores, played = np.zeros((n, n)), np.zeros((n, n))
        for g, outcome in zip(self.games, outcomes):
            if rated and outcome.void:
                continue
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
                elif o.forfeit and (o.loser == seat or o.void):
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
        return self._ratings(self._matrix(self.outcomes(), rated=True))

    def _ratings(self, matrix) -> list[tuple[str, float, float]]:
        scores, played = matrix
        elo, half = bradley_terry(scores, played)
        return sorted(zip(self.names, elo.tolist(), half.tolist()), key=lambda r: -r[1])

    def statistics(self, seed: int | None = None) -> Statistics:
        """The rating table's numbers (``tournaments.statistics.Statistics``): Bradley–Terry Elo
        with margins, games, score, draw rate, the likelihood of superiority of every pair, the
        probability of being the best (posterior draws seeded by ``seed``, default the
        tournament's) and the colour pairs of each encounter as pentanomials."""

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

        write_records(self, jsonl=path)

    def to_csv(self, path: str | PathLike[str]) -> None:
        """Every game as a CSV row, every field of the JSONL (``tournaments.referee.records.FIELDS``)."""

        write_records(self, csv=path)

    def to_sgf(self, directory: str | PathLike[str]) -> list[str]:
        """One SGF file per game into ``directory`` (``tournaments.referee.records``: games with an SGF
        game number, the ``records`` extra); returns the paths written."""

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


def run(
    system: System | TournamentConfig,
    agents: Iterable[AgentEntry] | None = None,
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
    time_margin: float | None = None,
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
    """Play a tournament and return its result: ``run(config)`` plays a ``TournamentConfig``;
    ``run(system, agents, game, ...)`` builds one from the keywords (``TournamentConfig.of``,
    which documents each: the fields by name, ``tc``, ``byoyomi`` and ``time_margin`` the clock, ``adjudicate``
    and ``adjudicator`` the adjudication, any other keyword a system option, ``games=4``, or a
    rule parameter of the game, ``size=6``). Every value is checked before the first game (a
    ``ParameterError`` naming it). Each game is seeded from ``seed`` and its pairing only."""
    if isinstance(system, TournamentConfig):
        given = {k: v for k, v in locals().items() if k not in ("system", "options")}
        changed = [k for k, v in given.items() if v is not _RUN_DEFAULTS[k] and v != _RUN_DEFAULTS[k]]
        if changed or options:
            extra = (changed or sorted(options))[0]
            raise envs.ParameterError(f"{extra}=: run(config) takes the configuration alone (set it in the config)")
        return play(system)
    config = TournamentConfig.of(
        system, () if agents is None else agents, game, seed=seed, workers=workers, journal=journal,
        resume=resume, move_time=move_time, game_params=game_params, executor=executor, progress=progress,
        setup_time=setup_time, openings=openings, opening_plies=opening_plies, openings_order=openings_order,
        openings_start=openings_start, ratings_every=ratings_every, tc=tc, byoyomi=byoyomi,
        time_margin=time_margin, adjudicate=adjudicate, adjudicator=adjudicator, resign=resign, sprt=sprt, swap=swap, jsonl=jsonl,
        csv=csv, sgf=sgf, event=event, site=site, **options,
    )  # fmt: skip
    return play(config)


def _defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    return {k: p.default for k, p in inspect.signature(fn).parameters.items() if p.default is not p.empty}


def play(config: TournamentConfig) -> TournamentResult:
    """Play the tournament ``config`` says (see ``run``): the configuration prepared against its
    game, the journal and record files opened, the games played batch by batch."""
    setup = config.prepare()
    files, log = _outputs(config, setup)
    # a first run compiles the pairing rules in a helper process while the agents warm up
    precompile.start(("systems",))
    executor = make_executor(config.executor, config.workers)
    if config.progress:
        compile_notice(setup.game.spec)
    tournament = None
    try:
        executor.start(setup.ctx)
        precompile.wait("systems")
        tournament = _Tournament(setup, executor, log, files)
        tournament.play()
    finally:
        if tournament is not None:
            tournament.bar.close()
        executor.close()
        files.close()
        if log:
            log.close()
    return tournament.result(dict(getattr(executor, "warm_up_report", {})))


def _outputs(config: TournamentConfig, setup: Setup) -> tuple[RecordFiles, Journal | None]:
    """The record files and the journal of a run, opened (a resumed run's files rewritten from
    its journal's games); a record file that would overwrite the journal is refused first."""
    files = RecordFiles(
        setup.game,
        setup.record,
        jsonl=config.jsonl,
        csv=config.csv,
        sgf=config.sgf,
        event=config.event,
        site=config.site,
    )
    files.check_apart(config.journal)  # a record file over the journal would lose its games
    log = Journal(config.journal, setup.record, config.resume) if config.journal is not None else None
    if files:
        try:
            files.start(log.done.values() if log else ())
        except BaseException:
            if log:
                log.close()
            raise
    return files, log


class _Tournament:
    """One run in play: the referee pairs a batch, the journal answers the games it holds, the
    executor plays the rest, each finished game is stored (journal, then record files) and the
    batch scored in pairing order (so the standings do not depend on which game ends first)."""

    def __init__(self, setup: Setup, executor: Executor, log: Journal | None, files: RecordFiles) -> None:
        config = setup.config
        self.setup, self.config, self.executor, self.log, self.files = setup, config, executor, log, files
        self.referee = Referee(setup.rules, config.seed)
        total = expected_games(setup.rules, config.seed)
        every = default_ratings_every(total) if config.ratings_every is None else config.ratings_every
        earlier = log.done.values() if log else ()
        # a resumed gauntlet's candidates whose tests the journal's games decided play no more:
        # the total says so from the start (not "playing N" of games that will never be played)
        self.decided, left_out = self._decided_in_journal(log.done if log else {})
        total = total - left_out if total is not None else None
        self.bar = Progress(config.progress, total, earlier=earlier, ratings_every=every)
        if hasattr(executor, "announce"):  # a worker killed from outside: its game's replay is said
            executor.announce = self.bar.note
        self.tests = CandidateTests.of(setup.record)
        self.records: list[dict] = []

    def play(self) -> None:
        """Every batch the referee pairs, until it pairs none."""
        if self.tests is None and self.setup.rules.system in ("round_robin", "gauntlet"):
            self._play_ahead()
            return
        while batch := self.referee.next_games():
            jobs, results, numbers = self._jobs(batch)
            for record in self.executor.run(jobs):
                self._store(record, numbers, results)
            self._score(batch, [results[p.index] for p in batch])

    def _play_ahead(self) -> None:
        """Round robin and gauntlet without a sequential test: no result changes what is paired
        next (a match lasts its games), so the games of every batch go to the executor at once
        (a match of colour pairs is a batch per pair: its workers would wait for each pair's
        last game) and the batches are scored in order as their last games come in."""
        batches = list(drawn_batches(self.setup.rules, self.config.seed))
        jobs, results, numbers = self._jobs([p for batch in batches for p in batch])
        batch_of = {p.index: b for b, batch in enumerate(batches) for p in batch}
        missing = [sum(p.index not in results for p in batch) for batch in batches]
        scored = self._score_ready(batches, results, missing, 0)
        for record in self.executor.run(jobs):
            self._store(record, numbers, results)
            missing[batch_of[record["index"]]] -= 1
            scored = self._score_ready(batches, results, missing, scored)

    def _score_ready(self, batches, results, missing, scored: int) -> int:
        """Score the batches after the first ``scored`` that miss no game; how many are scored."""
        while scored < len(batches) and missing[scored] == 0:
            batch = self.referee.next_games()
            if [p.index for p in batch] != [p.index for p in batches[scored]]:
                raise RuntimeError(f"the referee paired batch {scored} otherwise than its schedule (an Arbiter bug)")
            self._score(batch, [results[p.index] for p in batch])
            scored += 1
        return scored

    def _store(self, record: dict, numbers: Mapping[int, int], results: dict[int, dict]) -> None:
        """A finished game: into the journal and every record file, then the results and the bar."""
        if self.setup.book is not None:  # which opening of the suite: its plies are the record's first moves
            record["opening_number"] = numbers[record["index"]]
        with _uninterrupted():  # a finished game is in the journal and every record file, or in none
            if self.log:
                self.log.append(record)
            if self.files:  # after the journal: a resumed run rewrites the files from it
                self.files.append(record)
        results[record["index"]] = record
        self.bar.tick(record)

    def _jobs(self, batch: Sequence[Pairing]) -> tuple[list[Job], dict[int, dict], dict[int, int]]:
        """The batch's games to play, the records the journal holds of the others, and each
        game's opening number; a journal game that is not the one paired is a ``JournalError``."""
        jobs, results, numbers = [], {}, {}
        book, seed = self.setup.book, self.config.seed
        for p in batch:
            game_seed, agent_seeds = _seeds(seed, p)
            number, opening = book.opening(self.setup.rules.pair(p)) if book is not None else (0, ())
            numbers[p.index] = number
            black, white = _colours(p, self.config.swap)
            if black != p.black:  # each agent keeps its own seed
                agent_seeds = agent_seeds[::-1]
            job = Job(p.index, p.round, p.match, p.game, black, white, game_seed, agent_seeds, opening)
            old = self.log.done.get(p.index) if self.log else None
            if old is None:
                jobs.append(job)
            elif (old["black_id"], old["white_id"], old["seed"], old.get("opening", 0)) != (
                black,
                white,
                game_seed,
                len(opening),
            ):
                raise JournalError(
                    f"{self.config.journal}: game {p.index} in the journal is not the game the "
                    "pairing asks for (a journal from another version or edited)"
                )
            else:
                results[p.index] = old
        return jobs, results, numbers

    def _score(self, batch: Sequence[Pairing], ordered: list[dict]) -> None:
        """Hand a finished batch to the referee, and to the candidates' sequential tests."""
        self.records.extend(ordered)
        outcomes = [_as_paired(p, Outcome.from_record(r), r) for p, r in zip(batch, ordered)]
        self.referee.record(outcomes)
        tests = self.tests
        for c in tests.add(batch, outcomes) if tests is not None else ():
            left_out = self.referee.stop(c)
            if c not in self.decided:  # (a test the journal decided is out of the total already)
                self.bar.drop(left_out)
            self.bar.note(f"SPRT {self.setup.names[c]} against the field: {tests.status[c]}")

    def _decided_in_journal(self, done: Mapping[int, dict]) -> tuple[set[int], int]:
        """The candidates whose sequential tests the journal's games decide (a resumed run stops
        them as it replays the journal) and the games of the planned total they leave out."""
        tests = CandidateTests.of(self.setup.record)
        if tests is None or not done:
            return set(), 0
        referee, decided, left_out = Referee(self.setup.rules, self.config.seed), set(), 0
        while (batch := referee.next_games()) and all(p.index in done for p in batch):
            outcomes = [_as_paired(p, Outcome.from_record(done[p.index]), done[p.index]) for p in batch]
            referee.record(outcomes)
            for c in tests.add(batch, outcomes):
                decided.add(c)
                left_out += referee.stop(c)
        return decided, left_out

    def result(self, warm_up: dict) -> TournamentResult:
        """The finished run's ``TournamentResult``."""
        names, referee, tests = self.setup.names, self.referee, self.tests
        return TournamentResult(
            self.setup.record,
            names,
            referee.places(),
            referee.points().tolist(),
            self.records,
            [(r, names[p]) for r, p in referee.byes],
            warm_up,
            {names[c]: s for c, s in sorted(tests.status.items())} if tests is not None else {},
        )


_RUN_DEFAULTS = _defaults(run)


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


class CandidateTests:
    """The sequential test of each gauntlet candidate against the field. A colour pair is game g
    of the match (candidate, opponent) and game g of (opponent, candidate); both are in one
    batch (``_systems``), so after every batch each candidate has whole pairs only, and its
    pentanomial counts pool the pairs against every opponent."""

    def __init__(self, test: SPRT, candidates: int) -> None:
        self.test = test
        self.candidates = candidates
        self.pentanomial = [[0] * 5 for _ in range(candidates)]
        self.status: dict[int, SPRTStatus] = {}
        self._half: dict[tuple, float | None] = {}  # (candidate, opponent, game) -> the pair's first game's points

    @classmethod
    def of(cls, config: Mapping[str, Any]) -> CandidateTests | None:
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
            points = None if outcome.void else outcome.points(seat)  # a double forfeit voids its pair
            if key in self._half:
                first = self._half.pop(key)
                if first is not None and points is not None:
                    self.pentanomial[c][round(2 * (first + points))] += 1
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
