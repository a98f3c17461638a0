"""The GTP server's ``loadsgf`` command: read a record file safely, replay it into a session.

The record format itself is ``envs.sgf``'s, the one SGF module: it writes and reads the moves,
the setup stones and the rules (a tournament's record files call it too, adding their game
information). What is here is what a GTP engine adds to it: the
file is opened as a controller names it (a regular file of at most ``MAX_RECORD_BYTES``, so a
device, a pipe or a huge file cannot stop the engine), the engine's own rules fill in what the
record does not say, and the main line is played as ``play`` plays it (any colour may move), so
a record GTP tools wrote loads as they meant it.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

import numpy as np

from envs import sgf as sgf_format
from envs.core import ArbiterError

from .protocol import Refusal

if TYPE_CHECKING:
    from .session import Session

MAX_RECORD_BYTES = 4 << 20  # a 19x19 game's record is about 10 KB


def read_record(path: str) -> bytes:
    """The bytes of the SGF file ``path``: a regular file of at most MAX_RECORD_BYTES (a
    device, pipe or directory is refused before anything is read from it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        raise Refusal(f"cannot load file: {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refusal(f"cannot load file: {path}: not a regular file")
        if info.st_size > MAX_RECORD_BYTES:
            raise Refusal(
                f"cannot load file: {path}: {info.st_size} bytes, more than the "
                f"{MAX_RECORD_BYTES} an SGF record may have here"
            )
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_RECORD_BYTES:  # it grew while we read
        raise Refusal(f"cannot load file: {path}: more than {MAX_RECORD_BYTES} bytes")
    return data


def load(session: Session, path: str, last: int | None = None) -> None:
    """Set ``session`` to the position of the record at ``path`` before move ``last`` (None:
    after its last move): the record's size and komi (as ``boardsize`` and ``komi`` would set
    them), the engine's own rules otherwise, its setup stones, then its main line. A record of
    another game, one with a bad property or an illegal move is refused (``cannot load file``,
    naming it) with the session as it was; a loaded record is where ``undo`` stops."""
    data = read_record(path)
    game = session.game
    own = {k: v for k, v in game.params.items() if k not in ("size", "komi")}  # SGF's SZ and KM set those
    try:
        keep = {} if game.komi is None else {"komi": game.komi}  # for a record without KM
        record = sgf_format.parse(data, game=game.name, defaults=keep, rules=game.rules, **own)
        session.agent.check_game(record.game)
    except ArbiterError as exc:
        raise Refusal(f"cannot load file: {exc}") from None
    moves = record.moves if last is None else record.moves[: max(0, last - 1)]
    if len(moves) > record.game.max_moves:  # more than the rules' plies: no game of them
        raise Refusal(
            f"cannot load file: {len(moves)} moves, more than the {record.game.max_moves} "
            f"plies a game of {record.game.name} lasts here"
        )
    saved = session.checkpoint()
    try:
        session.game = record.game
        start = record.game.initial_state()
        session.clear(None if np.array_equal(record.start, start) else record.game.to_text(record.start))
        for move in moves:
            try:
                try:  # a placement is a point whoever plays it; a moving game's move is read
                    action = sgf_format.decode(session.game, session.state, move)
                except ArbiterError:  # in its mover's position
                    if move.seat == session.game.current_player(session.state):
                        raise
                    session.give_turn(move.seat)
                    action = sgf_format.decode(session.game, session.state, move)
                session.play(move.seat, action)
            except Refusal:
                raise Refusal(f"cannot load file: move {move.number} ({move}) is illegal") from None
    except (Refusal, ArbiterError) as exc:
        session.rollback(saved)
        raise exc if isinstance(exc, Refusal) else Refusal(f"cannot load file: {exc}") from None
    session.snapshots = []
