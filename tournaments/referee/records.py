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
``exact_five=True``). ``sgf_root`` adds the game information of a run (event, site, round, time
control, how the game ended) and ``move_comments`` each move's time and its mover's evaluation.

The files a run writes for outside use, game by game as they finish (``--jsonl``, ``--csv``,
``--sgf``), are ``RecordFiles``; ``read_records`` reads a JSONL or CSV file back into the same
records, and ``load_games`` any of them, or a journal, for ``arbiter ratings``.

    files = RecordFiles(game, config, jsonl="games.jsonl", csv="games.csv", sgf="sgf/")
    files.start(journal.done.values())      # a resumed run: the journal's games first
    files.append(record)                    # every game as it finishes
"""

from __future__ import annotations

import csv
import dataclasses
import datetime
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import envs
from envs import sgf
from envs.core import shown
from envs.core.outcome import NORMAL, Outcome, OutcomeError
from envs.sgf import RecordError

if TYPE_CHECKING:
    import numpy as np

    from .play import GameOutcome
    from .runner import TournamentResult

__all__ = ["RecordError", "csv_cell", "game_sgf", "read_json_lines", "read_sgf", "sgf_bytes", "write_sgf"]

# What a spreadsheet reads as the start of a formula (OWASP's CSV injection list): a cell of text
# starting so (an agent named ``=HYPERLINK(...)``) is written with a leading apostrophe, which
# spreadsheets show as text and do not evaluate. Text that starts with an apostrophe gets one
# more, so that reading a cell back is exact: one leading apostrophe is dropped, always.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def csv_cell(value: Any) -> Any:
    """``value`` as a CSV cell: text that a spreadsheet would take for a formula (or that starts
    with ``'``) gets a leading ``'``; numbers and other text are written as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def sgf_bytes(
    game: envs.Game, record: Mapping[str, Any], date: str | None = None, root: Mapping[str, Any] | None = None
) -> bytes:
    """The SGF of one tournament record (a dict of ``TournamentResult.games``) of ``game``;
    ``root`` adds game information (``sgf_root``: event, round, time control, the ending)."""
    if game.spec.sgf is None:
        raise RecordError(f"{game.name} has no SGF game number: its records cannot be written as SGF")
    seed = record.get("seed", 0)
    state = game.initial_state(seed=seed)
    actions = []
    for text in record["moves"]:
        actions.append(game.str_to_action(state, text))
        state = game.apply(state, actions[-1])
    info = {
        "AP": ("Arbiter", "0.1"),
        "PB": str(record["black"]),
        "PW": str(record["white"]),
        "GN": f"{record['black']} - {record['white']}, game {record.get('index', 0)}",
        "DT": date or datetime.date.today().isoformat(),
        **(root or {}),
    }
    comments = move_comments(record)
    return sgf.write(game, actions, seed=seed, root=info, outcome=_outcome(game, record, state), comments=comments)


def move_comments(record: Mapping[str, Any]) -> list[str | None]:
    """A comment per ply of a record for its SGF (``C``): the seconds the move took and the
    mover's evaluation where it gave one (``0.412 s, evaluation +35``), from the record's
    ``times`` and ``evaluations`` (the plies after the opening); None for the opening's plies
    and for records without them."""
    opening = record.get("opening") or 0
    times, evaluations = record.get("times") or [], record.get("evaluations") or []
    comments: list[str | None] = [None] * opening
    for k, seconds in enumerate(times):
        value = evaluations[k] if k < len(evaluations) else None
        comments.append(f"{seconds:.3f} s" + (f", evaluation {value:+g}" if value is not None else ""))
    return comments


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
    write_records(result, sgf=directory)
    return [os.path.join(directory, f"game{record['index']:05d}.sgf") for record in result.games]


def write_records(result: TournamentResult, **paths: Any) -> None:
    """Every game of ``result`` into the files ``RecordFiles`` takes (``jsonl=``, ``csv=``,
    ``sgf=``, ``event=``, ``site=``), as a run writes them game by game."""
    game = envs.make_game(result.config["game"], **result.config["game_params"])
    files = RecordFiles(game, result.config, **paths)
    try:
        files.start(result.games)
    finally:
        files.close()


def read_json_lines(path: str | os.PathLike[str], what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line number, record)`` for every record of the JSON-lines file ``path``, the
    ``--records`` file a resumable script appends one finished game or deal to at a time.

    A last line cut short by an interruption is dropped from the file first, so the next record
    starts a line of its own; a line that is not JSON is a ``RecordError`` naming ``what`` the
    file should have been."""

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


# -- records for outside use, written as games finish ---------------------------------------------

# Every field of a ``--jsonl`` line and a ``--csv`` row, in the CSV's column order (the same in
# every file): the pairing, the outcome, the moves, the time (the game's and each move's) and the
# movers' evaluations, then the run's own fields: ``event``
# and ``site`` (as given, or None), ``game_name`` and ``game_params`` (what was played: files of
# other rules are never rated together) and ``tournament``, a digest of the run's configuration,
# which tells a game of this run from the same game number of another when files are pooled.
FIELDS = (
    "index",
    "round",
    "match",
    "game",
    "black",
    "white",
    "black_id",
    "white_id",
    "seed",
    "opening",
    "opening_number",
    "code",
    "result",
    "winner",
    "returns",
    "reason",
    "detail",
    "end_reason",
    "margin",
    "plies",
    "seconds",
    "moves",
    "times",
    "evaluations",
    "event",
    "site",
    "game_name",
    "game_params",
    "tournament",
)
# how a CSV cell reads back: the rest are text (an empty cell: None, except ``detail``, "")
_INTS = {"index", "round", "match", "game", "black_id", "white_id", "seed", "opening", "opening_number", "code"}
_INTS |= {"winner", "plies"}
_NUMBERS = {"margin", "seconds"}
_JSON = {"returns", "game_params", "times", "evaluations"}


class RecordWriteError(RecordError):
    """A finished game that could not be written to ``--jsonl``, ``--csv`` or ``--sgf`` (a full
    disk): the journal holds it, and a resumed run writes the files again from the journal."""


def tournament_id(config: Mapping[str, Any]) -> str:
    """A digest of a run's configuration (a journal's ``meta``: game, parameters, system,
    options, agents, seed): equal for the journal and the files of one run, different for any
    other run, so pooled files never count a game twice nor confuse two runs' game numbers."""

    keys = ("game", "game_params", "system", "options", "agents", "seed")
    text = json.dumps({k: config.get(k) for k in keys}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def file_record(
    record: Mapping[str, Any], config: Mapping[str, Any], event: str | None = None, site: str | None = None
) -> dict[str, Any]:
    """The ``--jsonl``/``--csv`` form of a journal's game ``record`` of the run ``config``: every
    field of ``FIELDS`` in that order, None where the record has none (a journal of an earlier
    version), its outcome written out in full by ``Outcome`` (so a record without ``winner``
    gets the one its ``code`` says) and the run's fields added."""
    try:
        outcome = Outcome.from_record(dict(record)).to_record()
    except OutcomeError as e:
        raise RecordError(f"record {record.get('index')}: {e}") from None
    extra = {
        "event": event or None,
        "site": site or None,
        "game_name": config["game"],
        "game_params": dict(config.get("game_params") or {}),
        "tournament": tournament_id(config),
    }
    full = {**record, **outcome, **extra}
    return {k: full.get(k) for k in FIELDS}


def _csv_text(name: str, value: Any) -> Any:
    """A field as its CSV cell: None empty, the moves space-separated, lists and parameters as
    JSON, text made safe for spreadsheets (``csv_cell``)."""
    if value is None:
        return ""
    if name == "moves":
        return " ".join(value)
    if name in _JSON:
        return json.dumps(value)
    return csv_cell(value)


def _csv_value(name: str, text: str, where: str) -> Any:
    """A CSV cell read back into the field ``_csv_text`` wrote (``where`` names it in errors)."""

    if text == "":
        return "" if name == "detail" else ([] if name == "moves" else None)
    try:
        if name in _INTS:
            return int(text)
        if name in _NUMBERS:
            return int(text) if text.lstrip("-").isdigit() else float(text)
        if name in _JSON:
            return json.loads(text)
    except ValueError:
        raise RecordError(f"{where}: {name}={shown(text)}: not a value of that column") from None
    if name == "moves":
        return text.split(" ")
    return text[1:] if text.startswith("'") else text


def sgf_root(record: Mapping[str, Any], config: Mapping[str, Any], event=None, site=None) -> dict[str, Any]:
    """The SGF game information of a tournament record: the event (``EV``) and site (``PC``),
    the round (``RO``: the round, from 1, and the game of its encounter after the first), the time control
    (``TM``, the main time, and ``OT``, what follows it) and, in ``GC``, how the game ended where
    the result alone does not say it: the adjudication rule with its figures, the time loss, the
    resignation or forfeit, in the record's words."""
    root: dict[str, Any] = {}
    if event:
        root["EV"] = str(event)
    if site:
        root["PC"] = str(site)
    if record.get("round") is not None:
        root["RO"] = f"{record['round']}" + (f" (game {record['game'] + 1})" if record.get("game") else "")
    clock = config.get("clock")
    if clock:
        root["TM"] = float(clock["base"])
        overtime = _overtime(clock)
        if overtime:
            root["OT"] = overtime
    reason, detail = record.get("reason") or NORMAL, record.get("detail") or ""
    if reason != NORMAL or detail:
        root["GC"] = f"{reason}: {detail}" if detail else reason
    return root


def _overtime(clock: Mapping[str, Any]) -> str:
    """SGF's ``OT`` for a journal's clock: moves per period, Fischer increment, byo-yomi, a cap
    per move."""
    parts = []
    if clock.get("moves"):
        parts.append(f"{clock['base']:g} s more after every {clock['moves']} moves")
    if clock.get("increment"):
        parts.append(f"{clock['increment']:g} s added per move (Fischer)")
    if clock.get("periods"):
        parts.append(f"{clock['periods']}x{clock['period']:g} byo-yomi")
    if clock.get("move_time"):
        parts.append(f"at most {clock['move_time']:g} s per move")
    return ", ".join(parts)


MAX_LABEL = 200  # characters of an event's or a site's name


def run_label(value: str | None, what: str, paths: Mapping[str, Any]) -> str | None:
    """``event=`` or ``site=`` checked: None, or one line of printable text of at most
    ``MAX_LABEL`` characters for files that are written (``paths``); else a ``ParameterError``
    naming the value, before any game is played."""
    if value is None:
        return None
    if not any(p is not None for p in paths.values()):
        raise envs.ParameterError(
            f"{what}={shown(value)}: names the run in --jsonl, --csv or --sgf records; none is written"
        )
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_LABEL or not value.isprintable():
        raise envs.ParameterError(
            f"{what}={shown(value)}: expected one line of printable text of 1 to {MAX_LABEL} characters"
        )
    return value


def _replace(path: str, write) -> None:
    """Write ``path`` whole through ``write(file)`` into a temporary file beside it, then move it
    in place: a run killed meanwhile leaves the old file as it was, never half of the new one."""

    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".arbiter-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            write(f)
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class RecordFiles:
    """The ``--jsonl``, ``--csv`` and ``--sgf`` records of one run, written as its games finish.

        files = RecordFiles(game, config, jsonl="games.jsonl", csv="games.csv", sgf="sgf/")
        files.start(journal_games)     # the games finished before (a resumed run), or none
        files.append(record)           # every game as it finishes: one line, one row, one file
        files.close()

    ``start`` writes the files afresh from the games the journal holds, each file whole into a
    temporary file and then moved in place: the journal is the run's one authority (a game is
    journaled before it is written here), so a resumed run's files hold exactly the journal's
    games, none twice, whatever an interruption left in them (a last line cut short, a game the
    journal stored just before the kill, a file deleted or edited since). Reading the old files
    and appending what they miss would have to trust them instead. ``append`` then adds a game to
    each file and flushes it, so a killed run leaves every finished game in them. Every write
    that fails is a ``RecordWriteError`` (the journal keeps the game; resuming writes it)."""

    def __init__(
        self,
        game: envs.Game,
        config: Mapping[str, Any],
        jsonl: str | os.PathLike[str] | None = None,
        csv: str | os.PathLike[str] | None = None,
        sgf: str | os.PathLike[str] | None = None,
        event: str | None = None,
        site: str | None = None,
    ) -> None:
        if sgf is not None and game.spec.sgf is None:
            raise RecordError(f"{game.name} has no SGF game number: its records cannot be written as SGF")
        self.paths = {"jsonl": jsonl, "csv": csv, "sgf": sgf}
        self.event, self.site = run_label(event, "event", self.paths), run_label(site, "site", self.paths)
        self.game, self.config = game, dict(config)
        self._files: dict[str, Any] = {}
        self._csv = None

    def check_apart(self, journal: str | os.PathLike[str] | None) -> None:
        """A ``ParameterError`` if two outputs of the run (the files and the ``journal``) are one
        file: writing the records there would overwrite the journal or each other."""
        named = {"journal": journal, **self.paths}
        seen: dict[str, str] = {}
        for option, path in named.items():
            if path is None:
                continue
            real = os.path.realpath(os.fspath(path))
            if real in seen:
                raise envs.ParameterError(
                    f"--{option} {os.fspath(path)}: the same file as --{seen[real]}; each output needs a file of its own"
                )
            seen[real] = option

    def __bool__(self) -> bool:
        return any(p is not None for p in self.paths.values())

    def start(self, done: Iterable[Mapping[str, Any]] = ()) -> None:
        """Write the files afresh holding the games ``done`` (in game order), then keep the
        JSONL and CSV files open for ``append``."""
        done = sorted(done, key=lambda r: r["index"])
        rows = [file_record(r, self.config, self.event, self.site) for r in done]
        with self._writing("start"):
            if self.paths["jsonl"] is not None:
                path = os.fspath(self.paths["jsonl"])
                _replace(path, lambda f: f.writelines(_json_line(row) for row in rows))
                self._files["jsonl"] = open(path, "a", encoding="utf-8")
            if self.paths["csv"] is not None:
                path = os.fspath(self.paths["csv"])
                _replace(path, lambda f: _csv_writer(f).writerows([FIELDS, *map(_csv_row, rows)]))
                self._files["csv"] = open(path, "a", newline="", encoding="utf-8")
                self._csv = _csv_writer(self._files["csv"])
            if self.paths["sgf"] is not None:
                os.makedirs(self.paths["sgf"], exist_ok=True)
                for record in done:
                    self._write_sgf(record)

    def append(self, record: Mapping[str, Any]) -> None:
        """Add one finished game to every file, flushed before this returns."""
        row = file_record(record, self.config, self.event, self.site)
        with self._writing(f"game {record['index']}"):
            if "jsonl" in self._files:
                self._files["jsonl"].write(_json_line(row))
                self._files["jsonl"].flush()
            if "csv" in self._files:
                self._csv.writerow(_csv_row(row))
                self._files["csv"].flush()
            if self.paths["sgf"] is not None:
                self._write_sgf(record)

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()

    def _write_sgf(self, record: Mapping[str, Any]) -> None:
        path = os.path.join(os.fspath(self.paths["sgf"]), f"game{record['index']:05d}.sgf")
        data = sgf_bytes(self.game, record, root=sgf_root(record, self.config, self.event, self.site))
        _replace(path, lambda f: f.write(data.decode("utf-8")))

    def _writing(self, what: str):
        return _write_errors(self.paths, what)


class _write_errors:
    """Turns an ``OSError`` while writing the record files into a ``RecordWriteError``."""

    def __init__(self, paths, what):
        self.paths, self.what = paths, what

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, OSError):
            named = ", ".join(f"--{k} {os.fspath(p)}" for k, p in self.paths.items() if p is not None)
            raise RecordWriteError(
                f"{named}: cannot write {self.what} ({exc.strerror or type(exc).__name__}); the journal keeps "
                "every finished game and a resumed run writes them again"
            ) from None
        return False


def _json_line(row: Mapping[str, Any]) -> str:
    return json.dumps(row) + "\n"


def _csv_writer(f):
    return csv.writer(f, lineterminator="\n")


def _csv_row(row: Mapping[str, Any]) -> list[Any]:
    return [_csv_text(k, row[k]) for k in FIELDS]


def read_csv_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The game records of a ``--csv`` file, each field back as the JSONL has it; a file whose
    header is not ``FIELDS`` or a cell that is not its column's kind is a ``RecordError``."""

    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or tuple(rows[0]) != FIELDS:
        raise RecordError(
            f"{path}: not a --csv file of arbiter tournament (its header is not {','.join(FIELDS[:4])},...)"
        )
    records = []
    for n, row in enumerate(rows[1:], 2):
        if len(row) != len(FIELDS):
            raise RecordError(f"{path}:{n}: {len(row)} cells, expected {len(FIELDS)}")
        records.append({k: _csv_value(k, v, f"{path}:{n}") for k, v in zip(FIELDS, row)})
    return records


def read_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The game records of a ``--jsonl`` or ``--csv`` file (``records_kind`` tells which)."""
    if records_kind(path) == "csv":
        return read_csv_records(path)
    records = []
    for n, record in _json_lines(path):
        if not isinstance(record, dict) or any(k not in record for k in ("index", "black", "white", "game_name")):
            raise RecordError(f"{path}:{n}: not a game record of arbiter tournament --jsonl")
        records.append(record)
    return records


def _json_lines(path):
    """``(line number, value)`` of a JSON-lines file, read only (a last line cut short: skipped)."""

    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield n, json.loads(line)
        except json.JSONDecodeError:
            if n == len(lines):  # an interrupted writer's last line, without its newline
                return
            raise RecordError(f"{path}:{n}: not a JSON record of arbiter tournament --jsonl") from None


_SQLITE = b"SQLite format 3\x00"


def records_kind(path: str | os.PathLike[str]) -> str:
    """``"journal"``, ``"jsonl"`` or ``"csv"``: what the file at ``path`` holds, by its first bytes
    (an SQLite header, a JSON object, the CSV header; a name's extension says nothing of what a
    file holds); anything else, an empty file included, is a ``RecordError`` naming the file."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise RecordError(f"{path}: no such tournament journal or --jsonl/--csv file")
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError as e:
        raise RecordError(f"{path}: cannot read it ({e.strerror or type(e).__name__})") from None
    if head.startswith(_SQLITE):
        return "journal"
    if head.lstrip().startswith(b"{"):
        return "jsonl"
    if head.startswith(FIELDS[0].encode() + b","):
        return "csv"
    if not head.strip():
        raise RecordError(
            f"{path}: an empty file, not a tournament journal nor records (no game was ever stored in it)"
        )
    raise RecordError(
        f"{path}: neither a tournament journal nor a --jsonl or --csv file of arbiter tournament "
        f"(it starts {shown(head.decode('latin-1'))})"
    )
