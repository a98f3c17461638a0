"""Real tournaments: the referee of ``referee.py`` pairs, an executor plays, a journal remembers.

    import tournaments
    result = tournaments.swiss(["random", "greedy", "alphabeta:depth=3"], game="loa", workers=2,
                               journal="run.db")
    print(result)                      # standings, ratings, crosstable

Each game is seeded from the tournament seed and its pairing only, so the games (and therefore the
standings) do not depend on the number of workers or on which game finishes first: results of a
batch are handed to the referee in pairing order once the whole batch is done.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import pickle
import sys
from dataclasses import dataclass, field

import numpy as np

import envs

from .executor import InlineExecutor, ProcessExecutor
from .journal import Journal, JournalError
from .play import NORMAL, RESIGN, Context, Job
from .ratings import bradley_terry
from .referee import BLACK_WINS, DRAW, WHITE_WINS, Referee, configure

# points of (Black, White) for each result code of a record
POINTS = {BLACK_WINS: (1.0, 0.0), WHITE_WINS: (0.0, 1.0), DRAW: (0.5, 0.5)}


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


def place_text(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}–{hi}"


@dataclass
class Standing:
    place: str
    name: str
    points: float
    games: int
    wins: int
    draws: int
    losses: int
    forfeits: int


@dataclass
class TournamentResult:
    """Everything a finished tournament produced; ``str()`` gives a printable report."""

    config: dict
    names: tuple
    places: list
    points: list
    games: list = field(default_factory=list)   # every game record (dicts), in pairing order
    byes: list = field(default_factory=list)    # (round, name)
    warm_up: dict = field(default_factory=dict)  # name -> the time its warm-up took, or what went wrong

    def _matrix(self):
        n = len(self.names)
        scores, played = np.zeros((n, n)), np.zeros((n, n))
        for g in self.games:
            b, w = g["black_id"], g["white_id"]
            played[b, w] += 1
            played[w, b] += 1
            scores[b, w] += POINTS[g["code"]][0]
            scores[w, b] += POINTS[g["code"]][1]
        return scores, played

    def crosstable(self) -> np.ndarray:
        """``[i, j]`` = points player i scored against player j (NaN where they never met)."""
        scores, played = self._matrix()
        return np.where(played > 0, scores, np.nan)

    def standings(self) -> list[Standing]:
        rows = []
        for i, name in enumerate(self.names):
            mine = [g for g in self.games if i in (g["black_id"], g["white_id"])]
            won = sum(1 for g in mine if (g["code"], i) in ((BLACK_WINS, g["black_id"]), (WHITE_WINS, g["white_id"])))
            drawn = sum(1 for g in mine if g["code"] == DRAW)
            lost_forfeit = sum(1 for g in mine if g["reason"] not in (NORMAL, RESIGN)
                               and (g["code"], i) in ((WHITE_WINS, g["black_id"]), (BLACK_WINS, g["white_id"])))
            lo, hi = self.places[i]
            rows.append(Standing(place_text(lo, hi), name, self.points[i], len(mine), won, drawn,
                                 len(mine) - won - drawn, lost_forfeit))
        order = sorted(range(len(rows)), key=lambda i: (self.places[i][0], -self.points[i], i))
        return [rows[i] for i in order]

    def ratings(self) -> list[tuple[str, float, float]]:
        """(name, Elo, 95% half-width) per player, strongest first (Bradley–Terry)."""
        scores, played = self._matrix()
        elo, half = bradley_terry(scores, played)
        return sorted(zip(self.names, elo.tolist(), half.tolist()), key=lambda r: -r[1])

    # -- export --------------------------------------------------------------------------------
    def to_jsonl(self, path) -> None:
        with open(path, "w") as f:
            for g in self.games:
                f.write(json.dumps(g) + "\n")

    def to_csv(self, path) -> None:
        cols = ["index", "round", "match", "game", "black", "white", "result", "reason", "plies",
                "seconds", "seed", "detail", "moves"]
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(cols)
            for g in self.games:
                w.writerow([" ".join(g[c]) if c == "moves" else g[c] for c in cols])

    def to_sgf(self, directory) -> list[str]:
        """One SGF file per game, for games whose spec gives an SGF game number (``GameSpec.sgf``:
        Go, Othello, Gomoku); returns the paths written."""
        game = envs.make_game(self.config["game"], **self.config["game_params"])
        if game.spec.sgf is None:
            raise ValueError(f"SGF export needs a game with an SGF game number, not {game.name!r}")
        os.makedirs(directory, exist_ok=True)
        paths = []
        for g in self.games:
            path = os.path.join(directory, f"game{g['index']:05d}.sgf")
            with open(path, "w") as f:
                f.write(_sgf(game, g))
            paths.append(path)
        return paths

    def __str__(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self.config["options"].items())
        lines = [f"{self.config['system']}" + (f" ({options})" if options else "")
                 + f" on {self.config['game']}: {len(self.games)} games"
                 + (f", {len(self.byes)} byes" if self.byes else ""), "",
                 f"{'place':>6}  {'agent':<24} {'points':>7} {'games':>5} {'W-D-L':>9} {'forfeits':>8}"]
        for s in self.standings():
            lines.append(f"{s.place:>6}  {s.name:<24} {s.points:>7g} {s.games:>5} "
                         f"{f'{s.wins}-{s.draws}-{s.losses}':>9} {s.forfeits:>8}")
        troubles = {n: w for n, w in self.warm_up.items() if not w.endswith("s")}
        if troubles:
            lines += ["", "Warm-up: " + "; ".join(f"{n} {w}" for n, w in troubles.items())]
        lines += ["", "Bradley–Terry ratings (Elo, 95% interval):"]
        for name, elo, half in self.ratings():
            lines.append(f"  {name:<24} {elo:+8.0f} ± {half:.0f}")
        cross = self.crosstable()
        width = max(6, *(len(n) for n in self.names))
        lines += ["", "Crosstable (points of the row against the column):",
                  " " * (width + 3) + " ".join(f"{i + 1:>5}" for i in range(len(self.names)))]
        for i, name in enumerate(self.names):
            cells = " ".join("    ." if np.isnan(v) else f"{v:>5g}" for v in cross[i])
            lines.append(f"{i + 1:>2} {name:<{width}} " + cells)
        return "\n".join(lines)


def _sgf(game, g) -> str:
    """A placement game's record in SGF: the moves are read back through the game's notation,
    and action ``r*N + c`` is the point of column ``c`` and row ``r`` (row 0 at the top, as in
    SGF); any other action (a pass) is an empty move."""
    letters = "abcdefghijklmnopqrs"
    n = game.size
    komi = f"KM[{game.params['komi']}]" if "komi" in game.params else ""
    props = [f"GM[{game.spec.sgf}]FF[4]SZ[{n}]{komi}PB[{g['black']}]PW[{g['white']}]",
             "RE[" + {"1-0": "B+", "0-1": "W+", "1/2-1/2": "0"}[g["result"]]
             + ({NORMAL: "", RESIGN: "R"}.get(g["reason"], "F") if g["result"] != "1/2-1/2" else "") + "]"]
    nodes = []
    state = game.initial_state(seed=g["seed"])
    for mv in g["moves"]:
        colour = "BW"[game.current_player(state)]
        action = game.str_to_action(state, mv)
        r, c = divmod(action, n)
        nodes.append(f";{colour}[{letters[c]}{letters[r]}]" if action < n * n else f";{colour}[]")
        state = game.apply(state, action)
    return "(;" + "".join(props) + "".join(nodes) + ")\n"


class _Progress:
    """A one-line progress bar on stderr, only when it is a terminal."""

    def __init__(self, enabled):
        self.enabled = enabled and sys.stderr.isatty()
        self.done = 0

    def tick(self, record):
        self.done += 1
        if self.enabled:
            sys.stderr.write(f"\r{self.done} games played; last: {record['black']} - {record['white']} "
                             f"{record['result']} ({record['reason']})\x1b[K")
            sys.stderr.flush()

    def close(self):
        if self.enabled and self.done:
            sys.stderr.write("\n")


def run(system, agents, game="loa", seed=0, workers=None, journal=None, resume=False,
        move_time=None, game_params=None, executor=None, progress=True, setup_time=60.0,
        **options) -> TournamentResult:
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
    game_params  rule parameters for ``envs.make_game``; ``executor`` replaces the process pool
                 (see ``tournaments.executor``); ``progress`` shows a bar on a terminal.
    options      the system's: ``k``, ``recursive`` (olympic), ``rounds``, ``avoid_rematches`` (swiss).
    """
    agents = list(agents)
    if isinstance(setup_time, bool) or not isinstance(setup_time, (int, float)) or not setup_time > 0:
        raise envs.ParameterError(f"setup_time={setup_time!r}: expected a positive number of seconds")
    for entry in agents:  # a mistyped spec is the caller's error, not every game's forfeit
        if isinstance(entry, str):
            import agents as agent_registry

            agent_registry.make(entry, seed=0)
    config = configure(system, len(agents), **options)
    game_params = dict(game_params or {})
    g = envs.make_game(game, **game_params)  # validates the game and its parameters now
    if g.num_players != 2:
        raise envs.ParameterError(f"tournaments need a two-player game; {game!r} is played alone")
    names = _names(agents)
    ctx = Context(g.name, game_params, tuple(agents), names, move_time, setup_time, spec=g.spec)
    meta = {"game": g.name, "game_params": game_params, "system": system, "options": config.options(),
            "agents": [_identity(e) for e in agents], "seed": seed,
            "move_time": move_time}
    log = Journal(journal, meta, resume) if journal is not None else None
    if executor is None:
        executor = InlineExecutor() if workers == 0 else ProcessExecutor(workers)
    referee = Referee(config, seed)
    records, bar = [], _Progress(progress)
    try:
        executor.start(ctx)
        while batch := referee.next_games():
            jobs, results = [], {}
            for p in batch:
                game_seed, agent_seeds = _seeds(seed, p)
                job = Job(p.index, p.round, p.match, p.game, p.black, p.white, game_seed, agent_seeds)
                old = log.done.get(p.index) if log else None
                if old is None:
                    jobs.append(job)
                elif (old["black_id"], old["white_id"], old["seed"]) != (p.black, p.white, game_seed):
                    raise JournalError(f"{journal}: game {p.index} in the journal is not the game the "
                                       "pairing asks for (a journal from another version or edited)")
                else:
                    results[p.index] = old
            for record in executor.run(jobs):
                if log:
                    log.append(record)
                results[record["index"]] = record
                bar.tick(record)
            ordered = [results[p.index] for p in batch]
            records.extend(ordered)
            referee.record([r["code"] for r in ordered])
    finally:
        bar.close()
        executor.close()
        if log:
            log.close()
    byes = [(r, names[p]) for r, p in referee.byes]
    return TournamentResult(meta, names, referee.places(), referee.points().tolist(), records, byes,
                            dict(getattr(executor, "warm_up_report", {})))


def round_robin(agents, game="loa", **kwargs) -> TournamentResult:
    """Every ordered pair plays once (each pairing with both colours)."""
    return run("round_robin", agents, game, **kwargs)


def olympic(agents, game="loa", k=1, recursive=False, **kwargs) -> TournamentResult:
    """Knock-out for a power-of-two field plus a third-place match; ``k``: first-to-k matches with
    alternating colours; ``recursive``: eliminated players play off their shared places."""
    return run("olympic", agents, game, k=k, recursive=recursive, **kwargs)


def swiss(agents, game="loa", rounds=None, avoid_rematches=True, **kwargs) -> TournamentResult:
    """Swiss system: ``rounds`` (default from the study's table) of score-neighbour pairings,
    rematches avoided when possible, colours balanced, a bye (one point) for an odd field."""
    return run("swiss", agents, game, rounds=rounds, avoid_rematches=avoid_rematches, **kwargs)


def random_order(agents, game="loa", **kwargs) -> TournamentResult:
    """The study's "no rules": a uniformly random order of places, no games."""
    return run("random_order", agents, game, **kwargs)
