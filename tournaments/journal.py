"""The tournament journal: every finished game, in SQLite, committed one game at a time.

A journal belongs to exactly one tournament: its configuration (game, parameters, system and
options, agents, seed, clock) is stored when the journal is created and compared on every reopen,
so a journal is never silently reused for another tournament. Because pairings depend only on the
seed and earlier results, resuming replays the journaled results through the referee and plays
only the games that are missing.
"""

from __future__ import annotations

import json
import os
import sqlite3

FORMAT = "arbiter-tournament-journal/1"


class JournalError(RuntimeError):
    """A journal that cannot be used: corrupt, foreign, or in the way of a fresh run."""


class Journal:
    def __init__(self, path, config: dict, resume: bool):
        self.path = os.fspath(path)
        self.config_json = json.dumps(config, sort_keys=True)
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
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
        with self.db:
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

    def close(self) -> None:
        self.db.close()
