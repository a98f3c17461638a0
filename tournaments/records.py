"""Game records in SGF (FF[4]), written and read with sgfmill, for every game whose spec has an SGF
game number: Go (GM[1]), Othello (GM[2]), Gomoku (GM[4]) and Lines of Action (GM[9]).

    data = records.sgf_bytes(game, record)          # a tournament record (``result.games[i]``)
    game, states = records.read_sgf(data)           # the game, the start and every position after

Placement games write moves as SGF points (column letter, then row letter from the top; a pass is
``B[tt]`` on boards up to 19x19, as sgfmill writes it, which readers take as ``B[]``) and their start position as setup stones (Othello's four discs as ``AB``/``AW``, so that
any SGF viewer shows the right board); other games write their notation's ``sgf_move`` (LOA:
``e1-e3``, ``c1:a3``). The root holds ``GM``, ``SZ``, ``KM`` where the game has komi, ``RU`` (the
rule set and its parameters), ``DT``, ``PB``/``PW`` (escaped by sgfmill), ``GN`` and ``RE``
with the margin where the game has one (``B+3.5``, ``W+12``), ``R`` for a resignation, ``T`` for a
loss on time, ``F`` for any other forfeit, ``0`` for a draw. Reading accepts setup stones
(``AB``/``AW``/``AE``, ``PL``) on the placement games' text boards.

Needs the ``records`` extra (``pip install "arbiter-games[records]"``).
"""

from __future__ import annotations

import datetime
import os

import envs
from envs import ArbiterError

from .play import RESIGN, TIMEOUT

INSTALL_HINT = 'SGF records need sgfmill: pip install "arbiter-games[records]"'


class RecordError(ArbiterError):
    """A record that cannot be written or read: no SGF game number, an unknown GM, a bad move."""


def _sgf():
    try:
        from sgfmill import sgf
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return sgf


def _side(game) -> int:
    return game.observation_shape[-1]


def _stones(game, state):
    """(black points, white points) of a placement game's position, as sgfmill (row, col) with
    row 0 at the bottom."""
    planes = game.observation(state, 0)
    n = _side(game)
    return [[(n - 1 - r, c) for r in range(n) for c in range(n) if planes[k, r, c]] for k in (0, 1)]


def sgf_bytes(game, record, date=None) -> bytes:
    """The SGF of one tournament record (a dict of ``TournamentResult.games``) of ``game``."""
    spec = game.spec
    if spec.sgf is None:
        raise RecordError(f"{spec.name} has no SGF game number: its records cannot be written as SGF")
    sgf = _sgf()
    n = _side(game)
    doc = sgf.Sgf_game(size=n, encoding="UTF-8")
    root = doc.get_root()
    root.set_raw("GM", str(spec.sgf).encode())
    root.set("AP", ("Arbiter", "0.1"))
    root.set("PB", str(record["black"]))
    root.set("PW", str(record["white"]))
    root.set("GN", f"{record['black']} - {record['white']}, game {record.get('index', 0)}")
    root.set("DT", date or datetime.date.today().isoformat())
    params = ", ".join(f"{k}={v}" for k, v in game.params.items())
    root.set("RU", f"{spec.title}, {game.rules} rules" + (f" ({params})" if params else ""))
    if "komi" in game.params:
        root.set("KM", float(game.params["komi"]))
    state = game.initial_state(seed=record.get("seed", 0))
    if spec.placement:
        black, white = _stones(game, state)
        if black or white:
            root.set_setup_stones(black, white)
    for text in record["moves"]:
        action = game.str_to_action(state, text)
        colour = "bw"[game.current_player(state)]
        node = doc.extend_main_sequence()
        if spec.placement:
            r, c = divmod(action, n)
            node.set_move(colour, (n - 1 - r, c) if action < n * n else None)
        else:
            move = spec.notation.sgf_move(game, state, action) if hasattr(spec.notation, "sgf_move") \
                else game.action_to_str(state, action)
            node.set_raw(colour.upper(), move.encode())
        state = game.apply(state, action)
    root.set("RE", _result(game, record, state))
    return doc.serialise()


def _result(game, record, state) -> str:
    if record["result"] == "1/2-1/2":
        return "0"
    winner = "B" if record["result"] == "1-0" else "W"
    reason = record.get("reason")
    if reason == RESIGN:
        return f"{winner}+R"
    if reason == TIMEOUT:
        return f"{winner}+T"
    if reason not in (None, "normal"):
        return f"{winner}+F"
    margin = game.margin(state) if game.is_terminal(state) else None
    return f"{winner}+{margin:g}" if margin else f"{winner}+"


def read_sgf(data: bytes, **game_params):
    """``(game, states)`` of an SGF record: the game from its GM (and SZ, KM), ``states[0]`` the
    start (the setup stones, if any) and ``states[i]`` the position after move ``i``. Extra
    ``game_params`` (such as Go's ``superko``) complete what SGF does not say."""
    sgf = _sgf()
    try:
        doc = sgf.Sgf_game.from_bytes(data)
        root = doc.get_root()
        gm = int(root.get_raw("GM")) if root.has_property("GM") else 1
    except (ValueError, KeyError) as exc:
        raise RecordError(f"not a readable SGF record: {exc}") from None
    spec = next((s for s in envs.specs() if s.sgf == gm), None)
    if spec is None:
        raise RecordError(f"SGF game GM[{gm}]: no registered game has that SGF game number")
    names = {p.name for p in spec.params}
    if "size" in names and "size" not in game_params:
        game_params["size"] = doc.get_size()
    if "komi" in names and "komi" not in game_params and root.has_property("KM"):
        komi = float(root.get("KM"))
        game_params["komi"] = int(komi) if komi == int(komi) else komi
    game = envs.make_game(spec.name, **game_params)
    state = _setup(game, root)
    states = [state]
    n = _side(game)
    for number, node in enumerate(doc.get_main_sequence()[1:], start=1):
        colour = "b" if node.has_property("B") else ("w" if node.has_property("W") else None)
        if colour is None:
            continue
        try:
            if spec.placement:
                point = node.get_move()[1]
                action = n * n if point is None else (n - 1 - point[0]) * n + point[1]
            else:
                action = game.str_to_action(state, node.get_raw(colour.upper()).decode())
            if "bw".index(colour) != game.current_player(state):
                raise RecordError("it is the other side's turn")
            state = game.apply(state, action)
        except (ArbiterError, ValueError) as exc:
            raise RecordError(f"move {number} ({colour.upper()}) of the record: {exc}") from None
        states.append(state)
    return game, states


def _setup(game, root):
    """The start position: the game's own, or for a placement game with setup stones its text
    board with those stones (and ``PL``'s side to move)."""
    start = game.initial_state(seed=0)
    if not any(root.has_property(p) for p in ("AB", "AW", "AE")):
        return start
    if not game.spec.placement:
        raise RecordError(f"setup stones (AB/AW/AE) are read for placement games only, not {game.name}")
    black, white, empty = root.get_setup_stones()
    n = _side(game)
    own = _stones(game, start)
    if set(black) == set(own[0]) and set(white) == set(own[1]) and not empty \
            and not root.has_property("PL"):
        return start
    lines = game.to_text(start).splitlines()
    grid = [line.split(" ") for line in lines[:n]]
    for r in range(n):
        for c in range(n):
            grid[r][c + 1] = "."
    for points, mark in ((black, "x"), (white, "o")):
        for row, col in points:
            grid[n - 1 - row][col + 1] = mark
    stones = len(black) + len(white) - len(own[0]) - len(own[1])
    seat = 0 if (root.get("PL") if root.has_property("PL") else "b") == "b" else 1
    ply = max(stones, 0)
    ply += (ply % 2) != seat
    status = lines[-1].split()
    status = [f"to_move={'xo'[seat]}" if f.startswith("to_move=") else
              (f"ply={ply}" if f.startswith("ply=") else f) for f in status]
    text = "\n".join([" ".join(row) for row in grid] + lines[n:-1] + [" ".join(status)]) + "\n"
    try:
        return game.from_text(text)
    except ArbiterError as exc:
        raise RecordError(f"the record's setup stones are not a position of {game.name}: {exc}") from None


def write_sgf(result, directory) -> list[str]:
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


def read_json_lines(path, what: str):
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

