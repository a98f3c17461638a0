"""Game records in SGF (FF[4]) for every game whose spec has an SGF game number: Go (GM[1]),
Othello (GM[2]), Gomoku (GM[4]) and Lines of Action (GM[9]); the format itself (moves, setup
stones, the rules in ``RU``, reading back) is ``envs.sgf``.

    data = records.sgf_bytes(game, record)          # a tournament record (``result.games[i]``)
    game, states = records.read_sgf(data)           # the game, the start and every position after

A tournament record adds to the game's root ``DT``, ``AP``, ``PB``/``PW`` (escaped by sgfmill),
``GN`` and ``RE``, the record's outcome as ``Outcome.sgf_result`` writes it: the margin where the
game has one (``B+3.5``, ``W+12``, by ``Game.margin``; a record of an older version, which has no
margin, gets it from its last position), ``R`` for a resignation, ``T`` for a loss on time, ``F``
for any other forfeit, ``0`` for a draw. ``RU`` holds every rule parameter, so ``read_sgf``
rebuilds the game the record was played under (an exact-five Gomoku comes back with
``exact_five=True``).
"""

from __future__ import annotations

import dataclasses
import datetime
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import envs
from envs import sgf
from envs.core.outcome import NORMAL, Outcome, OutcomeError
from envs.sgf import RecordError

if TYPE_CHECKING:
    import numpy as np

    from .play import GameOutcome
    from .runner import TournamentResult

__all__ = ["RecordError", "csv_cell", "game_sgf", "read_json_lines", "read_sgf", "sgf_bytes", "write_sgf"]

# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list): a cell of text
# starting so (an agent named ``=HYPERLINK(...)``) is written with a leading apostrophe, which
# spreadsheets show as text and do not evaluate.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell: text that a spreadsheet would take for a formula gets a leading
    ``'``; numbers and other text are written as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def sgf_bytes(game: envs.Game, record: Mapping[str, Any], date: str | None = None) -> bytes:
    """The SGF of one tournament record (a dict of ``TournamentResult.games``) of ``game``."""
    if game.spec.sgf is None:
        raise RecordError(f"{game.name} has no SGF game number: its records cannot be written as SGF")
    seed = record.get("seed", 0)
    state = game.initial_state(seed=seed)
    actions = []
    for text in record["moves"]:
        actions.append(game.str_to_action(state, text))
        state = game.apply(state, actions[-1])
    root = {
        "AP": ("Arbiter", "0.1"),
        "PB": str(record["black"]),
        "PW": str(record["white"]),
        "GN": f"{record['black']} - {record['white']}, game {record.get('index', 0)}",
        "DT": date or datetime.date.today().isoformat(),
    }
    return sgf.write(game, actions, seed=seed, root=root, outcome=_outcome(game, record, state))


def game_sgf(game: envs.Game, outcome: GameOutcome, black: str, white: str, index: int = 0, seed: int = 0) -> bytes:
    """The SGF of one game played outside a tournament (``play_game``'s ``outcome``: its moves
    and result), the players named ``black`` and ``white``."""
    record = {
        "black": black,
        "white": white,
        "moves": list(outcome.moves),
        "index": index,
        **outcome.to_record(),
        "seed": seed,
    }
    return sgf_bytes(game, record)


def _outcome(game, record, state) -> Outcome:
    """The record's outcome; one of an older version (no ``margin`` field) that the rules ended
    gets its margin from the last position, as the record's ``RE`` always had it."""
    try:
        outcome = Outcome.from_record(record)
    except OutcomeError as e:
        raise RecordError(f"record {record.get('index', 0)}: {e}") from None
    if "margin" not in record and outcome.reason == NORMAL and outcome.winner is not None and game.is_terminal(state):
        outcome = dataclasses.replace(outcome, margin=game.margin(state))
    return outcome


def read_sgf(data: bytes, **game_params: Any) -> tuple[envs.Game, list[np.ndarray]]:
    """``(game, states)`` of an SGF record: the game from its GM, RU, SZ and KM, ``states[0]`` the
    start (the setup stones, if any) and ``states[i]`` the position after move ``i``. Extra
    ``game_params`` override what the record says (``envs.sgf.read``). A bad record is a
    ``RecordError`` naming the property and its value."""
    return sgf.read(data, **game_params)


def write_sgf(result: TournamentResult, directory: str | os.PathLike[str]) -> list[str]:
    """One SGF file per game of a ``TournamentResult`` into ``directory``; the paths written."""
    game = envs.make_game(result.config["game"], **result.config["game_params"])
    if game.spec.sgf is None:
        raise RecordError(f"{game.name} has no SGF game number: its records cannot be written as SGF")
    os.makedirs(directory, exist_ok=True)
    paths = []
    for record in result.games:
        path = os.path.join(directory, f"game{record['index']:05d}.sgf")
        with open(path, "wb") as f:
            f.write(sgf_bytes(game, record))
        paths.append(path)
    return paths


def read_json_lines(path: str | os.PathLike[str], what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, record)`` for every record of the JSON-lines file ``path``, the
    ``--records`` file a resumable script appends one finished game or deal to at a time.

    A last line cut short by an interruption is dropped from the file first, so the next record
    starts a line of its own; a line that is not JSON is a ``RecordError`` naming ``what`` the
    file should have been."""
    import json

    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        with open(path, "r+b") as f:
            f.truncate(data.rfind(b"\n") + 1)
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError:
                raise RecordError(f"{path}:{n}: not a JSON record; is this the --records file of {what}?") from None
