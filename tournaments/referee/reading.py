"""Reading a run back from its files: a journal as the ``TournamentResult`` that ``run`` returned
(``load_journal``), the games of a journal, a ``--jsonl`` or a ``--csv`` file alike
(``load_games``), and one rating list pooled from several of them (``rating_list``, what
``arbiter ratings`` prints). It sits above the runner and the record files, whose results it
rebuilds, so that neither the HTML report nor the record files need the other.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import replace

import envs
from envs.core.outcome import Outcome

from ..analysis.statistics import RatingsError, Statistics, statistics
from .config import display_names
from .journal import JournalError, check_config, check_record
from .records import RecordError, read_records, records_kind, tournament_id
from .runner import CandidateTests, TournamentResult
from .systems import Referee, configure

CONDITIONS = ("game", "game_params")  # what journals must share to be rated on one scale


def load_journal(path: str | os.PathLike[str]) -> TournamentResult:
    """The tournament recorded in the journal at ``path``, as ``run`` would have returned it. If
    the run was interrupted, ``config["finished"]`` is False and the result holds the games
    played, with places by points so far (the referee's own places exist only at the end).
    Raises ``JournalError`` for a missing, foreign or inconsistent file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise JournalError(f"{path}: no such tournament journal")
    if os.path.getsize(path) == 0:
        raise JournalError(f"{path}: an empty file, not a tournament journal (no game was ever stored in it)")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta"))
            rows = list(db.execute("SELECT idx, record FROM games ORDER BY idx"))
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        raise JournalError(f"{path} is not a readable tournament journal ({e})") from None
    config = check_config(path, meta)
    n = len(config["agents"])
    records = [check_record(path, idx, text, n) for idx, text in rows]
    try:
        configure(config["system"], n, **config["options"])
    except (envs.ArbiterError, TypeError) as e:
        raise JournalError(
            f"{path}: the configuration's system {config['system']!r} with options "
            f"{config['options']!r} is not one Arbiter plays ({e})"
        ) from None
    names = list(display_names(config["agents"]))  # a spec's name is the spec; objects: from the records
    for g in records:
        names[g["black_id"]], names[g["white_id"]] = g["black"], g["white"]
    referee = Referee(configure(config["system"], n, **config["options"]), config["seed"])
    tests = CandidateTests.of(config)  # a gauntlet with sprt: its candidates stop where the run stopped them
    done = {g["index"]: g for g in records}
    played = []
    while batch := referee.next_games():
        if not all(p.index in done for p in batch):
            break
        for p in batch:
            g = done[p.index]
            if (g["black_id"], g["white_id"]) != (p.black, p.white):
                raise JournalError(
                    f"{path}: game {p.index} in the journal is not the game the pairing "
                    "asks for (a journal from another version, or edited)"
                )
            played.append(g)
        outcomes = [Outcome.from_record(done[p.index]) for p in batch]
        referee.record(outcomes)
        for c in tests.add(batch, outcomes) if tests is not None else ():
            referee.stop(c)
    byes = [(r, names[p]) for r, p in referee.byes]
    points = referee.points()
    if referee.finished:
        places = referee.places()
    else:  # the referee stops at the first incomplete batch: add the games journaled beyond it
        seen = {g["index"] for g in played}
        for g in records:
            if g["index"] not in seen:
                played.append(g)
                outcome = Outcome.from_record(g)
                points[g["black_id"]] += outcome.points(0)
                points[g["white_id"]] += outcome.points(1)
        places = [(int((points > p).sum()) + 1, int((points >= p).sum())) for p in points]
    config = {**config, "finished": referee.finished}
    sprt = {names[c]: s for c, s in sorted(tests.status.items())} if tests is not None else {}
    return TournamentResult(config, tuple(names), places, points.tolist(), played, byes, sprt=sprt)


def load_games(path: str | os.PathLike[str]) -> TournamentResult:
    """The games of a journal, a ``--jsonl`` or a ``--csv`` file as a ``TournamentResult``
    (``records_kind`` tells them apart), ``config["tournament"]`` the run's ``tournament_id``. A
    file's agents are the names its records carry, numbered as they first appear in game order."""
    kind = records_kind(path)
    if kind == "journal":
        result = load_journal(path)
        result.config["tournament"] = tournament_id(result.config)
        return result
    games = read_records(path)
    if not games:
        raise RecordError(f"{path}: no game in it")
    first = games[0]
    names: list[str] = []
    for g in games:
        if (g.get("game_name"), g.get("game_params")) != (first.get("game_name"), first.get("game_params")):
            raise RecordError(f"{path}: game {g['index']} is of other rules than game {first['index']}")
        names += [n for n in (g["black"], g["white"]) if n not in names]
    games = [{**g, "black_id": names.index(g["black"]), "white_id": names.index(g["white"])} for g in games]
    config = {
        "game": first["game_name"],
        "game_params": first.get("game_params") or {},
        "agents": names,
        "tournament": first.get("tournament") or os.path.realpath(path),
    }
    points = [0.0] * len(names)
    return TournamentResult(config, tuple(names), [(1, len(names))] * len(names), points, games)


def rating_list(
    journals: Iterable[str | os.PathLike[str]],
    anchors: Mapping[str, float] | None = None,
    seed: int = 0,
    first_move: bool = True,
    draw_model: bool = True,
) -> Statistics:
    """One rating list from the games of every journal in ``journals`` (paths: tournament
    journals, ``--jsonl`` or ``--csv`` files alike, ``records.load_games``). An agent is the
    same agent in every journal where its spec is the same; ``anchors``: ``{spec: Elo}``;
    ``first_move``, ``draw_model``: the rating model's terms (``statistics.statistics``).
    Raises ``RatingsError`` for journals of different games or game parameters, a journal given
    twice, or a game found in two journals (a copy: it would count twice); a journal that cannot
    be read is ``JournalError``."""
    paths = _distinct_paths(journals)
    identities, names, records = _pooled(paths)
    unique = _unique_names(names)
    named = _anchored(anchors, dict(zip(identities, unique)), unique)
    records = [{**r, "black": unique[r["black_id"]], "white": unique[r["white_id"]]} for r in records]
    stats = statistics(unique, records, anchors=named, seed=seed, first_move=first_move, draw_model=draw_model)
    return _with_groups_note(stats, unique, records, named)


def _distinct_paths(journals: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The paths as strings; ``RatingsError`` for none, or for a file given twice (under any
    name: its games would count twice)."""
    paths = [os.fspath(p) for p in journals]
    if not paths:
        raise RatingsError("no journal given")
    seen: dict = {}
    for p in paths:
        real = os.path.realpath(p)
        if real in seen:
            raise RatingsError(
                f"{p}: given twice{f' (as {seen[real]})' if seen[real] != p else ''}; each game would count twice"
            )
        seen[real] = p
    return paths


def _conditions_text(c) -> str:
    params = ", ".join(f"{key}={value}" for key, value in (c["game_params"] or {}).items())
    return c["game"] + (f" ({params})" if params else "")


def _pooled(paths: list[str]) -> tuple[list, list[str], list[dict]]:
    """(agent identities, their names, every game) of all ``paths``, the games' agent ids
    renumbered over the pool (an agent is one agent wherever its spec is the same) and each
    game's ``source`` the index of its file. ``RatingsError`` for files of other games or rules
    than the first, and for a game found in two files."""
    identities: list = []
    names: list[str] = []
    records: list[dict] = []
    first = None
    games_seen: dict = {}
    for k, path in enumerate(paths):
        result = load_games(path)
        config = result.config
        conditions = {c: config.get(c) for c in CONDITIONS}
        if first is None:
            first = (path, conditions)
        elif conditions != first[1]:
            raise RatingsError(
                f"{path}: {_conditions_text(conditions)} games, but {first[0]} holds {_conditions_text(first[1])} "
                "games; ratings of different games or rules share no scale (rate each apart)"
            )
        run = config["tournament"]  # one run's journal and its files hold the same games
        ids = []
        for identity, name in zip(config["agents"], result.names):
            if identity not in identities:
                identities.append(identity)
                names.append(name)
            ids.append(identities.index(identity))
        for g in result.games:
            key = (run, g["index"])
            if key in games_seen:
                raise RatingsError(
                    f"{path}: game {g['index']} of this tournament is also in {games_seen[key]}; "
                    "a copy of a journal would count its games twice"
                )
            games_seen[key] = path
            records.append({**g, "black_id": ids[g["black_id"]], "white_id": ids[g["white_id"]], "source": k})
    return identities, names, records


def _unique_names(names: list[str]) -> list[str]:
    """The names, two agent objects with one display name told apart (``name#2``)."""
    unique = []
    for i, name in enumerate(names):
        clash = sum(other == name for other in names[:i])
        unique.append(name if not clash else f"{name}#{clash + 1}")
    return unique


def _anchored(anchors: Mapping[str, float] | None, by_spec: dict[str, str], unique: list[str]) -> dict[str, float]:
    """The anchors by the pooled names (an anchor may name a spec or a shown name);
    ``RatingsError`` for an agent in none of the files."""
    named = {}
    for spec, elo in (anchors or {}).items():
        if spec not in by_spec and spec not in unique:
            raise RatingsError(
                f"--anchor {spec}={elo:g}: no agent {spec!r} in these journals (agents: {', '.join(unique)})"
            )
        named[by_spec.get(spec, spec)] = elo
    return named


def _with_groups_note(stats: Statistics, unique: list[str], records: list[dict], named: dict) -> Statistics:
    """``stats`` with a note when the games split the agents into groups that never met."""
    groups = _groups(len(unique), records)
    if len(groups) > 1:
        parts = "; ".join(", ".join(unique[i] for i in g) for g in groups)
        anchored = {i for i, name in enumerate(unique) if name in named}
        loose = sum(1 for g in groups if not anchored & set(g))
        stats = replace(
            stats,
            note=f"Note: the games split the agents into {len(groups)} groups that never met "
            f"({parts}); ratings compare across groups only through the prior"
            + (f", and {loose} group{'s' * (loose != 1)} without an anchor float" if named and loose else "")
            + ".",
        )
    return stats


def _groups(n, records) -> list[list[int]]:
    """The agents in groups connected by games (union-find), each group in index order."""
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for r in records:
        parent[root(r["black_id"])] = root(r["white_id"])
    groups: dict = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return sorted(groups.values())
