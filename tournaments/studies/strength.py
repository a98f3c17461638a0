"""The strength table: how strong each classical agent is, measured by playing.

    from tournaments.studies import strength
    rows = strength.table_rows(games=100, search_games=100, engine_games=100)
    strength.run(rows, "docs/strength.md", records="runs/strength.jsonl")

``examples/strength.py`` is its command line (its docstring says what the table holds). Rows are
(agent vs opponent, game): every agent of ``AGENTS`` against the ``BASELINES`` (random, greedy) on
the ``BASELINE_GAMES``, then MCTS and alpha-beta against GNU Go and GRhino. Each row plays its
games in colour pairs from a shared random opening, the agent Black in the first and White in the
second, so deterministic pairs of agents do not replay one game and neither colour is favoured.

Games are played by the tournament machinery (``play_game`` in the worker processes of a
``ProcessExecutor``): one executor per game and board size plays the jobs of all its rows, so the
workers stay busy across row boundaries and each loads the compiled kernels once. A game's seed
and its two agent seeds come from the run's seed, the row and the game number only, so a row
replays identically whatever else is run or how many workers play it; that is what lets
``resume`` read a killed run's records back and play only the missing games, giving the table an
uninterrupted run gives. An engine's ``move_time`` is a safety net (a hung engine forfeits instead
of stalling the run) that also makes every worker warm each agent up with one untimed move, so
just-in-time compilation is not charged to the first game's seconds; a warm-up that outlasts
``setup_time`` forfeits the agent's games.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import shutil
import sys
import time
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numba
import numpy as np

import envs
from agents.gtp import GTPAgent, GTPEngine, GTPEngineError
from agents.openings import random_opening
from envs.core import rng as R
from envs.core.outcome import NORMAL, RESIGN, Outcome

from ..referee.executor import ExecutorError, ProcessExecutor
from ..referee.play import Context, Job
from ..referee.records import RecordError, read_json_lines

if TYPE_CHECKING:
    from envs import Game

# Budgets: chosen so that one game takes seconds, not minutes, on a busy 2-core machine.
AGENTS = {
    "random": "random",
    "greedy": "greedy",
    "minimax": "minimax:depth=2",
    "alphabeta": "alphabeta:depth=4",
    "mcts": "mcts:simulations=1000",
}
BASELINES = ("random", "greedy")
ENGINE_AGENTS = ("mcts", "alphabeta")

# Game label -> (envs game name, rule parameters). Go keeps its default komi (7.5) at both sizes.
GAMES = {
    "LOA 8x8": ("loa", {}),
    "Othello 8x8": ("othello", {"size": 8}),
    "Gomoku 15x15": ("gomoku", {"size": 15}),
    "Go 9x9": ("go", {"size": 9}),
    "Go 7x7": ("go", {"size": 7}),
    "Go 13x13": ("go", {"size": 13}),
    "Go 19x19": ("go", {"size": 19}),
}
GO_SIZES = (7, 9)  # the boards of the table's GNU Go rows; ``--go-sizes`` picks others (7, 9, 13, 19)
BASELINE_GAMES = ("LOA 8x8", "Othello 8x8", "Gomoku 15x15", "Go 9x9")
# The baseline rows that cost seconds per game (MCTS playouts of 100+ plies, depth-4 search on
# wide boards): ``--search-games`` sets their N.
SLOW = {(a, g) for a in ENGINE_AGENTS for g in ("LOA 8x8", "Go 9x9")}


def _binary(name: str) -> str:
    return shutil.which(name) or f"/usr/games/{name}"


GNUGO, GRHINO = _binary("gnugo"), _binary("gtp-rhino")
ENGINE_MOVE_TIME = 60.0  # seconds the GTP agent lets an engine think before calling it dead
# Seconds an agent may take to build and warm up before it forfeits its games: a cold numba
# compile of Go's MCTS takes minutes on a busy machine, and a row forfeited for it is lost work.
SETUP_TIME = 600.0


def engine_command(label: str) -> list[str]:
    """The argv of the external engine an opponent label such as ``gnugo-10`` names."""
    name, level = label.rsplit("-", 1)
    if name == "gnugo":
        # Arbiter scores Go by Tromp-Taylor area (no dead-stone removal): GNU Go must use area
        # rules and capture every dead stone before it passes, or the stones it leaves on the
        # board count as alive; positional superko matches Arbiter's superko rule.
        return [
            GNUGO,
            "--mode",
            "gtp",
            "--level",
            level,
            "--chinese-rules",
            "--capture-all-dead",
            "--positional-superko",
        ]
    return [GRHINO, "-l", level]


def player(label: str, agents: Mapping[str, str] = AGENTS, move_time: float = ENGINE_MOVE_TIME) -> str | GTPAgent:
    """What a worker builds for ``label``: its ``agents.make`` spec in ``agents``, or for an
    engine a GTP agent object that lets the engine think ``move_time`` seconds a move (its
    engine process starts on its first move in the worker; ``agents/__init__.py`` does not
    import ``agents.gtp``, so the spec ``"gtp:..."`` would not resolve in a fresh process)."""
    if label in agents:
        return agents[label]

    return GTPAgent(command=engine_command(label), move_time=move_time)


@dataclass
class Row:
    """One line of the table and, once played, its games' records."""

    agent: str
    opponent: str
    game: str
    games: int
    records: list = field(default_factory=list)
    problem: str = ""  # why the row could not be played, if it could not

    @property
    def key(self) -> str:
        return f"{self.agent} vs {self.opponent} on {self.game}"

    @property
    def engine(self) -> bool:
        """Whether the opponent is an external engine (not one of the ``BASELINES``)."""
        return self.opponent not in BASELINES


GRHINO_LEVELS = (1, 2, 3)  # the table's default GRhino rows; ``--grhino-levels`` picks others (1-5)


def table_rows(
    games: int,
    search_games: int,
    engine_games: int,
    grhino_levels: Iterable[int] = GRHINO_LEVELS,
    go_sizes: Iterable[int] = GO_SIZES,
) -> list[Row]:
    """Every row of the table, in the order the document prints them. ``search_games``
    applies to the search agents on the games where their games take seconds (``SLOW``);
    ``grhino_levels`` are the GRhino levels played (level 5 takes minutes per game) and
    ``go_sizes`` the Go boards of the GNU Go rows (a 19x19 game at 2 s a move takes about 8 minutes)."""
    rows = [
        Row(a, b, g, search_games if (a, g) in SLOW else games)
        for g in BASELINE_GAMES
        for b in BASELINES
        for a in AGENTS
    ]
    for n in go_sizes:
        if f"Go {n}x{n}" not in GAMES:
            raise ValueError(f"no Go {n}x{n} rows: go_sizes are some of 7, 9, 13, 19")
        rows += [Row(a, f"gnugo-{lv}", f"Go {n}x{n}", engine_games) for lv in (1, 10) for a in ENGINE_AGENTS]
    rows += [Row(a, f"grhino-{lv}", "Othello 8x8", engine_games) for lv in grhino_levels for a in ENGINE_AGENTS]
    return rows


# -- playing ---------------------------------------------------------------------------------------


def engine_problem(label: str) -> tuple[str, str]:
    """``("", "name version")`` when the engine of ``label`` answers GTP, else ``(why, "")``."""

    command = engine_command(label)
    if not os.path.exists(command[0]):
        package = "gnugo" if label.startswith("gnugo") else "grhino"
        return f"{command[0]} is not installed (apt-get install {package})", ""
    try:
        engine = GTPEngine(command)
        try:
            return "", f"{engine.send('name')} {engine.send('version')}".strip()
        finally:
            engine.close()
    except GTPEngineError as exc:
        return f"engine does not answer GTP: {exc}", ""


def jobs_for(
    game: Game, rows: list[Row], players: list[str], seed: int, first_index: int, plies: Sequence[int] = (2, 4)
) -> tuple[list[Job], dict[int, Row]]:
    """The ``Job``s of ``rows`` (colour pairs sharing an opening) and a map from job index to row."""

    jobs, owner = [], {}
    for row in rows:
        me, them = players.index(row.agent), players.index(row.opponent)
        row_id = zlib.crc32(row.key.encode())
        for k in range(row.games):
            if k % 2 == 0:
                opening = random_opening(game, R.generator(seed, row_id, k // 2), *plies)
            black, white = (me, them) if k % 2 == 0 else (them, me)
            game_seed, black_seed, white_seed = R.seed_words(seed, row_id, k, count=3)
            index = first_index + len(jobs)
            jobs.append(Job(index, 0, row_id, k, black, white, game_seed, (black_seed, white_seed), opening))
            owner[index] = row
    return jobs, owner


def group_jobs(
    game_label: str, rows: list[Row], seed: int, first_index: int, plies: Sequence[int] = (2, 4)
) -> tuple[list[str], list[Job], dict[int, Row]]:
    """The players (sorted labels), jobs and job-to-row map of ``rows``, all of one game label."""

    name, params = GAMES[game_label]
    players = sorted({p for r in rows for p in (r.agent, r.opponent)})
    jobs, owner = jobs_for(envs.make_game(name, **params), rows, players, seed, first_index, plies)
    return players, jobs, owner


def play_group(
    game_label: str,
    rows: list[Row],
    seed: int,
    workers: int,
    first_index: int,
    log: IO[str] | None,
    plies: Sequence[int] = (2, 4),
    setup_time: float = SETUP_TIME,
    agents: Mapping[str, str] = AGENTS,
    move_time: float = ENGINE_MOVE_TIME,
) -> None:
    """Play every row of one game and board size in one process pool; fill ``row.records``.
    Games a row already holds (read back by ``resume``) are not played again. ``agents``
    holds the spec of each agent label, ``move_time`` is an engine's time per move."""

    players, jobs, owner = group_jobs(game_label, rows, seed, first_index, plies)
    done = {(row.key, r["game"]) for row in rows for r in row.records}
    jobs = [j for j in jobs if (owner[j.index].key, j.game) not in done]
    if not jobs:
        return
    name, params = GAMES[game_label]
    ctx = Context(
        name,
        params,
        tuple(player(p, agents, move_time) for p in players),
        tuple(players),
        move_time=2 * move_time,
        setup_time=setup_time,
    )
    executor = ProcessExecutor(workers)
    executor.start(ctx)
    try:
        for record in executor.run(jobs):
            row = owner[record["index"]]
            row.records.append(record)
            if log:
                log.write(json.dumps({"row": row.key, **record}) + "\n")
                log.flush()
            if len(row.records) == row.games:
                print(f"  {row.key}: {summary(row)['score']}", file=sys.stderr, flush=True)
    except ExecutorError as exc:
        for row in rows:
            if len(row.records) < row.games:
                row.problem = f"the worker failed: {str(exc).strip().splitlines()[-1]}"
    finally:
        executor.close()


def resume(rows: list[Row], path: Path, seed: int, plies: tuple) -> int:
    """Attach the games recorded in ``path`` to their rows; return how many were read back.

    A record is taken only if it is the game this run would play: same row, same game number,
    same game seed and same opening length, so records of a run with other options are refused
    (a ``RecordError`` naming the line) instead of silently mixed in."""
    if not path.exists():
        return 0
    by_key = {r.key: r for r in rows}
    expected = {}
    for game_label in GAMES:
        group = [r for r in rows if r.game == game_label]
        if not group:
            continue
        _, jobs, owner = group_jobs(game_label, group, seed, 0, plies)
        expected.update({(owner[j.index].key, j.game): (j.seed, len(j.opening)) for j in jobs})
    read = 0
    for n, record in read_json_lines(path, "a strength run"):
        key, k = record.get("row"), record.get("game")
        if key not in by_key:
            continue  # a row this run does not play (e.g. left out by --only)
        if expected.get((key, k)) != (record.get("seed"), record.get("opening")):
            raise RecordError(
                f"{path}:{n}: game {k} of {key!r} was played with other options "
                "(seed, --seed or --opening-plies); resume with the original command"
            )
        row = by_key[key]
        if k < row.games and all(r["game"] != k for r in row.records):
            row.records.append(record)
            read += 1
    return read


# -- statistics and the document -------------------------------------------------------------------


def outcome(row: Row, record: dict) -> float:
    """The row agent's result in one game: 1 win, 0.5 draw, 0 loss."""
    agent_seat = record["game"] % 2  # colours alternate, the agent Black first (see jobs_for)
    return Outcome.from_record(record).points(agent_seat)


def resigned(record: dict) -> bool:
    """A resignation: reason ``"resign"`` (``agents.Resign``, a GTP engine's ``resign`` too), or
    in records written before GTP resignations were results, a forfeit whose error says so."""
    played = Outcome.from_record(record)
    return played.reason == RESIGN or (played.reason != NORMAL and "resigned" in played.detail)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (a draw counts half a win): unlike mean ± 2 SE it
    stays inside [0, 1] and is honest for 16 games at a rate near 0 or 1."""
    if n == 0:
        return float("nan"), float("nan")
    rate = wins / n
    centre = (rate + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summary(row: Row) -> dict:
    """Mean outcome ± standard error, W/D/L, per-game and per-move times and forfeits of a
    played row (a move's seconds: both sides' thinking over the plies after the opening)."""
    x = np.array([outcome(row, r) for r in row.records])
    n = len(x)
    se = float(np.std(x, ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    forfeits = [r for r in row.records if Outcome.from_record(r).reason != NORMAL and not resigned(r)]
    return {
        "n": n,
        "score": f"{x.mean():.3f} ± {se:.3f}",
        "wilson": "{:.2f}-{:.2f}".format(*wilson(float(x.sum()), n)),
        "wdl": f"{int((x == 1).sum())}/{int((x == 0.5).sum())}/{int((x == 0).sum())}",
        "seconds": float(np.median([r["seconds"] for r in row.records])),
        "move_seconds": sum(r["seconds"] for r in row.records)
        / max(sum(r["plies"] - r.get("opening", 0) for r in row.records), 1),
        "plies": float(np.mean([r["plies"] for r in row.records])),
        "distinct": len({tuple(r["moves"]) for r in row.records}),
        "resigned": sum(map(resigned, row.records)),
        "forfeits": forfeits,
    }


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| agent | opponent | game | N | mean outcome ± SE | 95% Wilson | W/D/L | s/game | s/move | plies/game "
        "| distinct games |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        head = f"| {row.agent} | {row.opponent} | {row.game} | {row.games} |"
        if row.problem:
            lines.append(f"{head} not run: {row.problem} | | | | | | |")
        elif len(row.records) < row.games:
            lines.append(f"{head} not played yet ({len(row.records)} of {row.games} games) | | | | | | |")
        else:
            s = summary(row)
            lines.append(
                f"{head} {s['score']} | {s['wilson']} | {s['wdl']} | {s['seconds']:.2f} | "
                f"{s['move_seconds']:.2g} | {s['plies']:.0f} | "
                f"{s['distinct']} |"
            )
    return lines


def notes(rows: list[Row]) -> list[str]:
    """Resignations and forfeits, row by row (a forfeit is never silently a plain loss)."""
    out = []
    for row in rows:
        if row.problem or len(row.records) < row.games:
            continue
        s = summary(row)
        if s["resigned"]:
            mine = sum(resigned(r) and outcome(row, r) == 0 for r in row.records)
            for who, n in ((row.agent, mine), (row.opponent, s["resigned"] - mine)):
                if n:
                    out.append(f"- {row.key}: {who} resigned {n} game(s) (counted as its losses).")
        for r in s["forfeits"]:
            loser = Outcome.from_record(r).loser
            side = (r["black"], r["white"])[loser] if loser is not None else f"{r['black']} and {r['white']}"
            out.append(f"- {row.key}, game {r['game']}: {side} forfeited ({r['reason']}): {r['detail']}")
    return out


def environment() -> dict:
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {
        "cpu": f"{model}, {os.cpu_count()} logical cores",
        "python": platform.python_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "os": platform.platform(),
    }


def render(rows: list[Row], meta: Mapping[str, Any]) -> str:
    """The markdown document of ``rows`` and the run's ``meta`` (see ``run``)."""
    return "\n".join([*_introduction(meta), *_budgets(meta), *_results(rows), *_run_section(meta)])


def _introduction(meta: Mapping[str, Any]) -> list[str]:
    """The title, the command that made the table, and how to read it."""
    return [
        "# Strength table",
        "",
        "Every classical agent against random and greedy on every two-player game,",
        "and MCTS / alpha-beta against GNU Go and GRhino. Generated by `examples/strength.py`:",
        "",
        "```",
        meta["command"],
        "```",
        "",
        "Each row plays N games in colour pairs: both games of a pair start from the same opening of",
        f"{meta['plies'][0]}-{meta['plies'][1]} uniformly random plies (seeded by the row and the pair), the agent Black in the",
        "first and White in the second. **Mean outcome** is the row agent's average result (win 1,",
        "draw 0.5, loss 0) ± its standard error (sample standard deviation / √N), with the 95% Wilson",
        "score interval of that rate (a draw counts half a win); W/D/L are the",
        "agent's wins, draws and losses, s/game the median wall-clock seconds of a game (both",
        "players' thinking, on the machine below; the median leaves out each worker's one-off",
        "warm-up), s/move the row's seconds over its moves after the openings (both players),",
        "plies/game includes the opening, and *distinct games* counts different move",
        "sequences among the N (where it is far below N, the standard error overstates the precision).",
        "Games are played with Arbiter's rules (`docs/games/`):",
        "Go uses area scoring with komi 7.5 at both sizes, Gomoku is 15x15 freestyle (five or more",
        "wins).",
        "",
    ]


def _budgets(meta: Mapping[str, Any]) -> list[str]:
    """Each agent's spec, and the external engines' commands and versions."""
    engines = "\n".join(f"- `{label}`: {version or 'not available'}" for label, version in meta["engines"].items())
    budgets = "\n".join(f"| {label} | `{spec}` |" for label, spec in meta["agents"].items())
    return [
        "## Budgets",
        "",
        "| agent | spec (`agents.make`) |",
        "|---|---|",
        budgets,
        "",
        (
            f"External engines are driven through `agents.gtp.GTPAgent(command=[...], move_time={meta['engine_move_time']:g})`:"
            " `gnugo-N` is `gnugo --mode gtp --level N --chinese-rules --capture-all-dead --positional-superko`"
            " (area rules, and every dead stone captured before GNU Go passes: Arbiter scores the final"
            " position by Tromp-Taylor, without dead-stone removal), `grhino-N` is `gtp-rhino -l N`."
        ),
        "",
        engines,
        "",
    ]


def _results(rows: list[Row]) -> list[str]:
    """The two tables (against the baselines, against the engines) and the resignations and forfeits."""
    baseline = [r for r in rows if not r.engine]
    external = [r for r in rows if r.engine]
    return [
        "## Against random and greedy",
        "",
        *table(baseline),
        "",
        "## Against GNU Go and GRhino",
        "",
        *table(external),
        "",
        "## Resignations and forfeits",
        "",
        *(notes(rows) or ["None."]),
        "",
    ]


def _run_section(meta: Mapping[str, Any]) -> list[str]:
    """The machine, its load and the wall time of the run (or how far an unfinished run got)."""
    done = meta.get("wall")
    resumed = meta.get("resumed_games", 0)
    return [
        "## Run",
        "",
        (
            f"- Hardware: {meta['env']['cpu']}; {meta['env']['os']}; Python {meta['env']['python']}, "
            f"numba {meta['env']['numba']}, numpy {meta['env']['numpy']}."
        ),
        (
            f"- Load: the machine is shared; 1-minute load average {meta['load_start']:.1f} at the start"
            + (f" and {meta['load_end']:.1f} at the end" if done else "")
            + f", run at nice {meta['nice']} with {meta['workers']} worker processes."
        ),
        (
            f"- Wall time: {done / 60:.1f} minutes for {meta['games_played'] - resumed} games"
            if done
            else f"- Incomplete: {meta['games_played']} games played so far"
        )
        + (
            f"; {resumed} more games were read back from the records of an interrupted run "
            "(`--resume`; their seconds are from that run)."
            if resumed
            else "."
        ),
        "",
    ]


# Everything of the document from this line on is written by hand (measurements the table does
# not make: other budgets, other engines' top levels); a run keeps it when it rewrites the tables.
KEPT = "<!-- The generated tables end here; what follows is kept when they are rewritten. -->"


def _write(out: Path, text: str) -> None:
    """Write the generated part, keeping the hand-written part of an existing document."""
    path = Path(out)
    old = path.read_text() if path.exists() else ""
    kept = old[old.index(KEPT) :] if KEPT in old else ""
    path.write_text(text + ("\n" + kept if kept else ""))


def run(
    rows: list[Row],
    out: Path,
    *,
    records: str | os.PathLike[str] | None = None,
    resume_records: bool = False,
    seed: int = 0,
    workers: int = 2,
    plies: Sequence[int] = (2, 4),
    setup_time: float = SETUP_TIME,
    agents: Mapping[str, str] = AGENTS,
    engine_move_time: float = ENGINE_MOVE_TIME,
    command: str = "",
) -> dict:
    """Play ``rows`` and write the table to ``out`` (rewritten after every game group, so an
    interrupted run leaves the rows it finished); return the run's ``meta``. Whatever ``out``
    holds from its ``KEPT`` line on is kept below the tables.

    A row whose engine does not answer GTP is kept with the reason instead of a result. With
    ``records`` (a path) every game record is appended to it as a JSON line; ``resume_records``
    first reads back the games already there (``resume``) and plays only the missing ones.
    ``agents`` maps each agent label to its ``agents.make`` spec; ``engine_move_time`` is what an
    engine may think on a move; ``command`` is how the run was started, for the document."""
    start = time.monotonic()
    engines = {}
    for label in sorted({r.opponent for r in rows if r.engine}):
        problem, version = engine_problem(label)
        engines[label] = version
        for r in rows:
            if r.opponent == label and problem:
                r.problem = problem
    nice = os.nice(0)
    meta = {
        "command": (f"nice -n {nice} " if nice else "") + command,
        "engines": engines,
        "env": environment(),
        "load_start": os.getloadavg()[0],
        "nice": nice,
        "workers": workers,
        "games_played": 0,
        "plies": tuple(plies),
        "agents": dict(agents),
        "engine_move_time": engine_move_time,
    }
    if resume_records:
        meta["resumed_games"] = resume(rows, Path(records), seed, tuple(plies))
        meta["games_played"] = sum(len(r.records) for r in rows)
    mode = "a" if resume_records else "w"
    with open(records, mode) if records else contextlib.nullcontext() as log:
        first = 0
        for game_label in GAMES:
            group = [r for r in rows if r.game == game_label and not r.problem]
            if not group:
                continue
            todo = sum(r.games - len(r.records) for r in group)
            print(f"{game_label}: {len(group)} rows, {todo} games to play", file=sys.stderr)
            play_group(game_label, group, seed, workers, first, log, tuple(plies), setup_time, agents, engine_move_time)
            first += sum(r.games for r in group)
            meta["games_played"] = sum(len(r.records) for r in rows)
            _write(out, render(rows, meta))
    meta.update(wall=time.monotonic() - start, load_end=os.getloadavg()[0])
    _write(out, render(rows, meta))
    return meta
