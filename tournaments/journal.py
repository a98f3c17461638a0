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
"""

from __future__ import annotations

import json
import os
import sqlite3

try:
    import fcntl
except ImportError:  # Windows: no advisory lock; one process per journal is then up to the user
    fcntl = None

FORMAT = "arbiter-tournament-journal/1"


class JournalError(RuntimeError):
    """A journal that cannot be used: corrupt, foreign, or in the way of a fresh run."""


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
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise JournalError(f"{path} is in use: another tournament has it open; "
                           "wait for it to finish or stop it, then --resume") from None
    _LOCKS.add(fd)
    return fd


class Journal:
    def __init__(self, path, config: dict, resume: bool):
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
            self.done = {idx: json.loads(rec) for idx, rec in self.db.execute("SELECT idx, record FROM games")}
        except (sqlite3.DatabaseError, json.JSONDecodeError) as e:
            raise JournalError(f"{self.path} is not a readable tournament journal ({e})") from None
        if self.done and not resume:
            raise JournalError(
                f"{self.path} already holds {len(self.done)} finished games of this tournament: "
                "pass resume=True (--resume) to continue it, or choose a new journal file")

    def _create(self):
        # one explicit transaction: Python's sqlite3 would run the CREATEs outside any, and a
        # process killed between them would leave a journal without its configuration
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            self.db.execute("CREATE TABLE games (idx INTEGER PRIMARY KEY, record TEXT NOT NULL)")
            self.db.executemany("INSERT INTO meta VALUES (?, ?)",
                                [("format", FORMAT), ("config", self.config_json)])

    def _check(self):
        meta = dict(self.db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT:
            raise JournalError(f"{self.path} is not an Arbiter tournament journal "
                               f"(format {meta.get('format')!r}, expected {FORMAT!r})")
        if meta.get("config") != self.config_json:
            theirs, ours = json.loads(meta["config"]), json.loads(self.config_json)
            diff = ", ".join(f"{k}: journal {theirs.get(k)!r} vs now {ours.get(k)!r}"
                             for k in sorted(set(theirs) | set(ours)) if theirs.get(k) != ours.get(k))
            raise JournalError(f"{self.path} belongs to another tournament ({diff})")

    def append(self, record: dict) -> None:
        """Store one finished game durably (one transaction per game)."""
        with self.db:
            self.db.execute("INSERT INTO games VALUES (?, ?)", (record["index"], json.dumps(record)))
        self.done[record["index"]] = record

    def _unlock(self) -> None:
        if self.lock is not None:
            _LOCKS.discard(self.lock)
            os.close(self.lock)  # releases the flock
            self.lock = None

    def close(self) -> None:
        self.db.close()
        self._unlock()
