"""The tournament journal: every finished game, in SQLite, committed one game at a time.

A journal belongs to exactly one tournament: its configuration (game, parameters, system and
options, agents, seed, clock) is stored when the journal is created and compared on every reopen,
so a journal is never silently reused for another tournament. Because pairings depend only on the
seed and earlier results, resuming replays the journaled results through the referee and plays
only the games that are missing.

One journal serves one process at a time: opening it takes an advisory ``flock`` on the journal
file, and a second process opening the same file gets ``JournalError`` ("in use") instead of
interleaving its games with the first one's. The operating system drops the lock when the holder
closes the journal or dies (even of SIGKILL), so a crashed run never leaves a stale lock behind.
Forked children (tournament workers) close their inherited copy of the locked descriptor, so the
lock is never kept alive by a worker that outlives its tournament.

A journal is checked in full when it is opened: its configuration row and every game record
(``check_record``: the fields a resume and a report read, with their types and ranges, and the
outcome, read by ``envs.core.outcome.Outcome.from_record``), so an edited or damaged journal is a
``JournalError`` naming the bad row, never a ``KeyError`` deep in a resume or a game replayed
over a record it could not read.

A game record (``tournaments.referee.play.job_record`` writes it) holds the pairing (``index``,
``round``, ``match``, ``game``, ``black``/``white`` names and ids, ``seed``, ``opening``), the
outcome (``winner``, ``returns``, ``reason``, ``detail``, ``end_reason``, ``margin``: an
``Outcome``'s record form), the referee's ``code`` and the ``result`` text derived from it, the
``moves``, ``plies`` and ``seconds``, and each move's ``times`` and the movers' ``evaluations``
(records of earlier versions have neither). Records of earlier versions have no ``winner``, ``returns``,
``end_reason`` or ``margin``: their ``code`` and ``reason`` say the outcome, and they load and
resume as they are (the format is the same; a journal holds the records of both).
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Mapping
from typing import Any

import envs
from envs.core import shown
from envs.core.outcome import Outcome, OutcomeError

try:
    import fcntl
except ImportError:  # Windows: no advisory lock; one process per journal is then up to the user
    fcntl = None

FORMAT = "arbiter-tournament-journal/1"


class JournalError(RuntimeError):
    """A journal that cannot be used: corrupt, foreign, or in the way of a fresh run."""


class JournalHoldsGames(JournalError):
    """A fresh run given a journal that already holds games of its tournament: ``count`` of
    them. Its own class so that a command line can say it in its own words (``--resume``)."""

    def __init__(self, path: str, count: int) -> None:
        self.path, self.count = path, count
        super().__init__(
            f"{path} already holds {count} finished game{'s' * (count != 1)} of this tournament: "
            "pass resume=True to continue it, or choose a new journal file"
        )


class JournalWriteError(JournalError):
    """A finished game the journal could not store (a full disk): the games stored before it are
    safe, and the run resumes from them once there is room."""


# the fields of a game record and their types (``tournaments.referee.play.job_record`` writes them): those a
# resume or a report reads must be there; the others, if there, must have their type. The outcome's
# fields (code, result, winner, returns, reason, detail, end_reason, margin) are Outcome.from_record's.
FIELDS = {
    "index": int,
    "black": str,
    "white": str,
    "black_id": int,
    "white_id": int,
    "seed": int,
    "code": int,
    "result": str,
    "reason": str,
    "moves": list,
}
OPTIONAL = {
    "round": int,
    "match": int,
    "game": int,
    "plies": int,
    "seconds": float,
    "opening": int,
    "times": list,
    "evaluations": list,
}


def _problem(record, players: int) -> str | None:
    """What is wrong with a game record, in words, or None."""
    if not isinstance(record, dict):
        return f"expected a JSON object, found {json.dumps(record)[:40]}"
    if players is None:  # not a tournament's journal (no agents configured): its records' index only
        index = record.get("index")
        return None if isinstance(index, int) and not isinstance(index, bool) else f"index={index!r}: expected an int"
    for key, kind in {**FIELDS, **OPTIONAL}.items():
        if key not in record:
            if key in OPTIONAL:
                continue
            return f"no {key!r} field"
        value = record[key]
        ok = isinstance(value, (int, float)) and math.isfinite(value) if kind is float else isinstance(value, kind)
        if isinstance(value, bool) or not ok:
            return f"{key}={value!r}: expected {'a number' if kind is float else kind.__name__}"
    for key in ("black_id", "white_id"):
        if not 0 <= record[key] < players:
            return f"{key}={record[key]!r}: expected a player from 0 to {players - 1}"
    if record["black_id"] == record["white_id"]:
        return f"black_id = white_id = {record['black_id']}: a player cannot meet itself"
    try:
        Outcome.from_record(record)  # and its code and result agree with it: a two-player outcome
    except OutcomeError as exc:
        return str(exc)
    if not all(isinstance(m, str) for m in record["moves"]):
        return "moves: expected a list of moves in the game's notation"
    for key, none in (("times", False), ("evaluations", True)):
        values = record.get(key, [])
        if not all((v is None and none) or _finite(v) for v in values):
            return f"{key}: expected a list of {'numbers or nulls' if none else 'seconds'}, one per move"
    return None


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_record(path: str | os.PathLike[str], idx: int, text: str, players: int | None) -> dict[str, Any]:
    """The game record stored as ``text`` in row ``idx`` of the journal at ``path`` (a tournament
    of ``players`` players; None: a journal of other records, whose ``index`` alone is checked),
    or ``JournalError`` naming the row and what is wrong with it."""
    try:
        record = json.loads(text)
    except (TypeError, RecursionError, json.JSONDecodeError) as exc:  # RecursionError: nested too deep
        raise JournalError(
            f"{path}: game row {idx!r} is not a JSON record ({exc}); the journal was edited or damaged"
        ) from None
    problem = _problem(record, players)
    if problem is None and record["index"] != idx:
        problem = f"index={record['index']!r} in the row of game {idx!r}"
    if problem is not None:
        raise JournalError(f"{path}: game row {idx!r}: {problem}; the journal was edited or damaged")
    return record


def check_config(path: str | os.PathLike[str], meta: Mapping[str, Any]) -> dict[str, Any]:
    """The tournament configuration of a journal's ``meta`` rows, or ``JournalError``."""
    if meta.get("format") != FORMAT:
        raise JournalError(
            f"{path} is not an Arbiter tournament journal (format {meta.get('format')!r}, expected {FORMAT!r})"
        )
    if "config" not in meta:
        raise JournalError(f"{path}: the journal has no configuration row; it was edited or damaged")
    try:
        config = json.loads(meta["config"])
    except (TypeError, RecursionError, json.JSONDecodeError):
        config = None
    kinds = {"game": str, "game_params": dict, "system": str, "options": dict, "agents": list, "seed": int}
    bad = next(
        (
            k
            for k, kind in kinds.items()
            if not isinstance(config, dict) or not isinstance(config.get(k), kind) or isinstance(config.get(k), bool)
        ),
        None,
    )
    if bad is not None:
        text = meta["config"] if isinstance(meta["config"], str) else repr(meta["config"])
        raise JournalError(
            f"{path}: the configuration row is not a tournament's ({bad!r} missing or of the "
            f"wrong type in {text[:60]!r}); the journal was edited or damaged"
        )

    if config["game"] not in envs.GAMES:  # a resume, a report or a rating list plays or reads its games
        raise JournalError(
            f"{path}: the configuration names game {shown(config['game'])}, which is not a registered "
            f"game ({', '.join(sorted(envs.GAMES))}); the journal was edited, or its game's module is not imported"
        )
    if len(config["agents"]) < 2:
        raise JournalError(
            f"{path}: the configuration names {len(config['agents'])} agents; the journal was edited or damaged"
        )
    return config


def openings_text(book: dict) -> str:
    """A journal's ``openings`` entry in words (``openings.Book.config``)."""
    if "random_plies" in book:
        lo, hi = book["random_plies"]
        return f"random, {lo if lo == hi else f'{lo}-{hi}'} plies"
    return f"{book['suite']} ({book['count']} openings, {book['order']} from {book['start']})"


def _setting(key: str, value: Any) -> str:
    """A configuration entry in words, for a resume refused because it differs: openings as
    a tournament's header shows them, other tables as ``key=value`` pairs, absence as "none"."""
    if value is None:
        return "none"
    if key == "openings" and isinstance(value, dict):
        try:
            return openings_text(value)
        except (KeyError, TypeError, ValueError):
            pass
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_setting(k, v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_setting(key, v) for v in value) + "]"
    return str(value)


_LOCKS: set[int] = set()  # descriptors holding a journal lock in this process


def _close_inherited_locks() -> None:
    """In a forked child: close the copies of the parent's lock descriptors (closing a copy does
    not release the parent's lock; keeping it would keep the lock alive after the parent died)."""
    for fd in list(_LOCKS):
        try:
            os.close(fd)
        except OSError:
            pass
    _LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_close_inherited_locks)


def _lock(path: str) -> int | None:
    """Open ``path`` (created if missing) and take an exclusive advisory lock on it, or raise."""
    if fcntl is None:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise JournalError(f"{path}: cannot open the journal ({exc.strerror or type(exc).__name__})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise JournalError(
            f"{path} is in use: another tournament has it open; wait for it to finish or stop it, then --resume"
        ) from None
    _LOCKS.add(fd)
    return fd


class Journal:
    def __init__(self, path: str | os.PathLike[str], config: Mapping[str, Any], resume: bool) -> None:
        self.path = os.fspath(path)
        self.config_json = json.dumps(config, sort_keys=True)
        if os.path.isdir(self.path):
            raise JournalError(f"{self.path} is a directory, not a journal file")
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        self.lock = _lock(self.path)
        self.db = None
        try:
            self._open(exists, resume)
        except BaseException:
            if self.db is not None:
                self.db.close()
            self._unlock()
            raise

    def _open(self, exists, resume):
        try:
            self.db = sqlite3.connect(self.path)
            if exists:
                self._check()
            else:
                self._create()
            agents = json.loads(self.config_json).get("agents")
            players = len(agents) if isinstance(agents, list) else None
            self.done = {
                idx: check_record(self.path, idx, rec, players)
                for idx, rec in self.db.execute("SELECT idx, record FROM games")
            }
        except sqlite3.DatabaseError as e:
            raise JournalError(f"{self.path} is not a readable tournament journal ({e})") from None
        if self.done and not resume:
            raise JournalHoldsGames(self.path, len(self.done))

    def _create(self):
        # one explicit transaction: Python's sqlite3 would run the CREATEs outside any, and a
        # process killed between them would leave a journal without its configuration
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self.db.execute("CREATE TABLE games (idx INTEGER PRIMARY KEY, record TEXT NOT NULL)")
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", [("format", FORMAT), ("config", self.config_json)])

    def _check(self) -> None:
        """Check an existing journal's format and configuration against this run's."""
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT:
            raise JournalError(
                f"{self.path} is not an Arbiter tournament journal (format {meta.get('format')!r}, expected {FORMAT!r})"
            )
        if "config" not in meta:
            raise JournalError(f"{self.path}: the journal has no configuration row; it was edited or damaged")
        if meta["config"] != self.config_json:
            ours = json.loads(self.config_json)
            try:
                theirs = json.loads(meta["config"])
            except (TypeError, RecursionError, json.JSONDecodeError):
                theirs = None
            if not isinstance(theirs, dict):
                text = meta["config"] if isinstance(meta["config"], str) else repr(meta["config"])
                raise JournalError(
                    f"{self.path}: the configuration row is not a tournament's "
                    f"({text[:60]!r}); the journal was edited or damaged"
                )
            diff = "; ".join(
                f"{k}: the journal's {_setting(k, theirs.get(k))}, now {_setting(k, ours.get(k))}"
                for k in sorted(set(theirs) | set(ours))
                if theirs.get(k) != ours.get(k)
            )
            raise JournalError(f"{self.path} belongs to another tournament ({diff})")

    def append(self, record: Mapping[str, Any]) -> None:
        """Store one finished game durably (one transaction per game); ``JournalWriteError`` when
        SQLite cannot (a full disk), the transaction rolled back and the games before it kept."""
        try:
            with self.db:
                self.db.execute("INSERT INTO games VALUES (?, ?)", (record["index"], json.dumps(record)))
        except sqlite3.Error as e:
            raise JournalWriteError(
                f"{self.path}: cannot store game {record['index']} ({e}); the {len(self.done)} "
                f"game{'s' * (len(self.done) != 1)} stored before it are kept"
            ) from None
        self.done[record["index"]] = record

    def _unlock(self) -> None:
        if self.lock is not None:
            _LOCKS.discard(self.lock)
            os.close(self.lock)  # releases the flock
            self.lock = None

    def close(self) -> None:
        self.db.close()
        self._unlock()
