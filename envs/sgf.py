"""SGF (FF[4]) records of the games that have an SGF game number: Go (GM[1]), Othello (GM[2]),
Gomoku (GM[4]) and Lines of Action (GM[9]), written and read with sgfmill.

    data = envs.sgf.write(game, actions, root={"PB": "mcts"}, outcome=game.outcome(end))  # RE[B+3.5]
    record = envs.sgf.parse(data)              # the game, its start and the main line's moves
    game, states = envs.sgf.read(data)         # ... played out: the start and every position after

The format lives here, below agents and tournaments, because both read it, and only here: every
SGF that Arbiter writes or reads is encoded and decoded by this module. A tournament's record
files (``tournaments.referee.records``) add a run's game information to the root it writes, and
the GTP server's ``loadsgf`` (``agents.gtp.loadsgf``) replays the record it parses into a
session; neither encodes a move or a property itself.

What the root says, and how it is read back:

* ``GM`` picks the game (absent: 1, Go, as FF[4] says). ``SZ`` is the board side and ``KM`` the
  komi where the game has one.
* ``RU`` holds every rule parameter, so a record rebuilds exactly the game it was played under:
  ``RU[Gomoku, standard rules (size=9, exact_five=True)]``, the game's title, its rule preset and
  each parameter as ``name=value``. FF[4] leaves RU free text; a viewer shows it as written, and a
  RU of another program (``RU[Japanese]``) is left alone: the game's defaults (with SZ and KM)
  apply. Where RU and SZ or KM disagree the record is refused.
* Placement games write their moves as SGF points (column letter, then row letter from the top;
  a pass is ``B[tt]`` on boards up to 19x19, as sgfmill writes it, which readers take as
  ``B[]``) and their start position as setup stones (Othello's four discs as ``AB``/``AW``, so
  any SGF viewer shows the right board); other games write their notation's ``sgf_move`` (LOA:
  ``e1-e3``, ``c1:a3``).
* Setup stones (``AB``/``AW``/``AE``) are read for placement games: the start is the empty board
  with those stones, and the side to move is ``PL``, else the colour of the first move (a
  handicap game's White), else the game's own. A point named by two of them is refused.

A record of more than ``MAX_BYTES`` bytes or ``MAX_NODES`` nodes is refused before it is parsed. Every error is a
``RecordError`` that names the property and the value it could not use
(``B[zz]``, ``PL[x]``, ``KM[nan]``), and for a move its number in the main line.
"""

from __future__ import annotations

import math
import re

from sgfmill import sgf, sgf_grammar, sgf_properties

from . import registry
from .core import ArbiterError


class RecordError(ArbiterError):
    """A record that cannot be written or read: no SGF game number, an unknown GM, a bad property
    or move (named with its value)."""


# No game here lasts longer than LOA's longest cap of 10,000 plies: a record of many more nodes is
# refused before sgfmill builds them (700,000 nodes, 4 MB, take it half a minute and 350 MB).
MAX_NODES = 50_000
# sgfmill holds about 100 bytes per byte of a property value while it parses (a 20 MB comment
# peaked at 2.6 GB), so a record's size is bounded before it sees it: 1 MiB holds LOA's longest
# game ten times over, comments included, and keeps a parse under about 100 MB.
MAX_BYTES = 1 << 20
_VALUES = re.compile(rb"\[(?:[^\]\\]|\\.)*\]", re.DOTALL)  # property values, escapes included
# FF[4]'s board size for a record without SZ, where it differs from the game's own default
# (Go's 19x19; Othello's 8x8 and Gomoku's 15x15 are the games' defaults too).
_FF4_SIZES = {1: 19}
_RULES = re.compile(r"(?P<title>.+), (?P<rules>[A-Za-z0-9_]+) rules(?: \((?P<params>[^()]*)\))?\Z")


def side(game) -> int:
    """The board side SGF's ``SZ`` gives: the last dimension of the observation planes."""
    return game.observation_shape[-1]


def point_action(game, row, col) -> int:
    """The placement action of sgfmill's point ``(row, col)`` (row 0 at the bottom, as in GTP):
    ``r*N + c`` with ``r`` counted from the top."""
    n = side(game)
    return (n - 1 - row) * n + col


def _sgf_point(n, point) -> str:
    """sgfmill's ``(row, col)`` as SGF writes it (``cc``)."""
    row, col = point
    return chr(97 + col) + chr(97 + n - 1 - row)


def stones(game, state):
    """``(black, white)``: the points of a placement game's stones, as sgfmill ``(row, col)`` with
    row 0 at the bottom (read from the observation planes, seat 0's view)."""
    planes = game.observation(state, 0)
    n = side(game)
    return [[(n - 1 - r, c) for r in range(n) for c in range(n) if planes[k, r, c]] for k in (0, 1)]


# -- RU: the rule parameters ----------------------------------------------------------------------


def rules_text(game) -> str:
    """``RU``: ``"<title>, <preset> rules (name=value, ...)"`` with every parameter of ``game``."""
    params = ", ".join(f"{k}={v}" for k, v in game.params.items())
    return f"{game.spec.title}, {game.rules} rules" + (f" ({params})" if params else "")


def parse_rules(spec, text: str):
    """``{"rules": preset, **params}`` from a ``RU`` that ``rules_text`` wrote for ``spec``'s game,
    or None if ``text`` is some other program's rule name. ``RecordError`` for a RU in this
    format whose preset or parameters the game does not have."""
    match = _RULES.match(text.strip())
    if match is None or match["title"] != spec.title:
        return None
    if match["rules"] not in spec.presets:
        raise RecordError(
            f"RU[{text}]: {spec.name} has no rule preset {match['rules']!r}: expected one of {', '.join(spec.presets)}"
        )
    found = {"rules": match["rules"]}
    for item in filter(None, (part.strip() for part in (match["params"] or "").split(","))):
        name, eq, value = item.partition("=")
        names = [p.name for p in spec.params]
        if not eq or name not in names:
            raise RecordError(
                f"RU[{text}]: {item!r} is not a parameter of {spec.name} "
                f"(expected name=value with a name among {', '.join(names)})"
            )
        found[name] = _param_value(spec.param(name), value, text)
    return found


def _param_value(param, text: str, ru: str):
    """The value ``text`` stands for in parameter ``param`` (as ``str`` wrote it)."""
    if text == "None" and param.optional:
        return None
    if param.choices is not None:
        for choice in param.choices:
            if str(choice) == text:
                return choice
        raise RecordError(f"RU[{ru}]: {param.name}={text}: expected one of {', '.join(str(c) for c in param.choices)}")
    try:
        value = float(text) if param.number else int(text)
    except ValueError:
        raise RecordError(
            f"RU[{ru}]: {param.name}={text}: expected {'a number' if param.number else 'an integer'}"
        ) from None
    if param.number and math.isfinite(value) and value == int(value):
        value = int(value)
    return value


# -- writing --------------------------------------------------------------------------------------


def write(game, actions, *, seed=0, root=None, outcome=None, comments=None) -> bytes:
    """The SGF of ``game`` played from ``initial_state(seed)`` through ``actions``.

    The root gets ``GM``, ``SZ``, ``KM`` (where the game has komi), ``RU`` and setup stones for a
    placement game's start; ``root`` adds more properties (``{"PB": "mcts", "DT": "2024-05-01"}``,
    written by sgfmill's typed setters, which escape text). ``outcome`` (an
    ``envs.core.outcome.Outcome``) writes ``RE`` as its ``sgf_result`` says (``B+3.5``, ``W+R``, ``0``).
    ``comments``: a text or None per action, written as the move's ``C``."""
    spec = game.spec
    if spec.sgf is None:
        raise RecordError(f"{spec.name} has no SGF game number: its records cannot be written as SGF")
    n = side(game)
    doc = sgf.Sgf_game(size=n, encoding="UTF-8")
    node = doc.get_root()
    node.set_raw("GM", str(spec.sgf).encode())
    node.set("RU", rules_text(game))
    if "komi" in game.params:
        node.set("KM", float(game.params["komi"]))
    for ident, value in (root or {}).items():
        node.set(ident, value)
    if outcome is not None:
        node.set("RE", outcome.sgf_result)
    state = game.initial_state(seed=seed)
    if spec.placement:
        black, white = stones(game, state)
        if black or white:
            node.set_setup_stones(black, white)
    comments = list(comments or ())
    for i, action in enumerate(actions):
        action = int(action)
        colour = "bw"[game.current_player(state)]
        node = doc.extend_main_sequence()
        if i < len(comments) and comments[i]:
            node.set("C", str(comments[i]))
        if spec.placement:
            r, c = divmod(action, n)
            node.set_move(colour, (n - 1 - r, c) if action < n * n else None)
        else:
            notation = spec.notation
            move = (
                notation.sgf_move(game, state, action)
                if hasattr(notation, "sgf_move")
                else game.action_to_str(state, action)
            )
            node.set_raw(colour.upper(), move.encode())
        state = game.apply(state, action)
    return doc.serialise()


# -- reading --------------------------------------------------------------------------------------


class Move:
    """One move of a record's main line: its ``number`` (1 for the first move), ``colour``
    (``"B"`` or ``"W"``), ``seat`` (0 or 1) and the raw ``value`` of its property."""

    __slots__ = ("colour", "number", "seat", "value")

    def __init__(self, number, colour, value):
        self.number, self.colour, self.seat, self.value = number, colour, "BW".index(colour), value

    def __str__(self) -> str:
        return f"{self.colour}[{self.value}]"

    def __repr__(self) -> str:
        return f"Move({self.number}, {self.colour!r}, {self.value!r})"


class Record:
    """A parsed record: ``game`` (built from GM, RU, SZ, KM and the caller's parameters),
    ``start`` (its first position, setup stones included) and ``moves`` (the main line)."""

    def __init__(self, game, start, moves):
        self.game, self.start, self.moves = game, start, moves


def parse(data: bytes, game=None, defaults=None, **game_params) -> Record:
    """The game, start position and main-line moves of the SGF record ``data`` (see the module
    docstring). ``game``: the name of the game the caller plays; a record of another game is
    refused. ``defaults``: game parameters for what the record does not say (a GTP engine's
    komi for a record without KM), else the game's own defaults apply. ``game_params`` (such as
    Go's ``superko``, or ``rules``) override what the record says. Nothing is played yet:
    ``decode`` reads each move in its position, ``read`` plays the whole line."""
    if not isinstance(data, (bytes, bytearray)):
        raise RecordError(f"SGF data: expected bytes, got {type(data).__name__}")
    if len(data) > MAX_BYTES:
        raise RecordError(f"the record has {len(data)} bytes, more than the {MAX_BYTES} (1 MiB) a record may have")
    nodes = _VALUES.sub(b"", data).count(b";")  # every ';' outside a property value opens a node
    if nodes > MAX_NODES:
        raise RecordError(f"the record has {nodes} nodes, more than the {MAX_NODES} any game here can fill")
    try:
        coarse = sgf_grammar.parse_sgf_game(bytes(data))
    except ValueError as exc:
        raise RecordError(f"not a readable SGF record: {exc}") from None
    raw_root = coarse.sequence[0]
    gm = _single(raw_root, "GM")
    try:
        number = 1 if gm is None else int(gm)
    except ValueError:
        raise RecordError(f"GM[{_text(gm)}]: expected an SGF game number") from None
    spec = next((s for s in registry.specs() if s.sgf == number), None)
    if spec is None:
        raise RecordError(f"GM[{number}]: no registered game has that SGF game number")
    if game is not None and spec.name != game:
        raise RecordError(f"GM[{number}]: a record of {spec.name}, not of {game}")
    size = _single(raw_root, "SZ")
    if size is not None and not re.fullmatch(rb"\s*\d{1,3}\s*", size):
        raise RecordError(f"SZ[{_text(size)}]: expected a square board's side (SZ[n])")
    try:
        doc = sgf.Sgf_game.from_coarse_game_tree(coarse)
    except ValueError as exc:
        which = "SZ" if "size" in str(exc) else "CA" if "encoding" in str(exc) else None
        where = f"{which}[{_text(_single(raw_root, which))}]: " if which else ""
        raise RecordError(f"not a readable SGF record: {where}{exc}") from None
    root = doc.get_root()
    stated = _root_params(spec, root)
    try:
        built = registry.spec(spec.name).game(**{**(defaults or {}), **stated, **game_params})
    except ArbiterError as exc:
        raise RecordError(f"{_source(root, str(exc))}: {exc}") from None
    if root.has_property("SZ") and root.get("SZ") != side(built):
        raise RecordError(f"SZ[{root.get('SZ')}]: {spec.name} is played on {side(built)}x{side(built)}")
    moves = _main_line(doc)
    return Record(built, _start(built, root, moves), moves)


def _source(root, message: str) -> str:
    """The root properties a game parameter named at the start of ``message`` came from."""
    name = re.match(r"\w*", message)[0]
    named = [
        f"{ident}[{_text(root.get_raw(ident))}]"
        for ident, param in (("SZ", "size"), ("KM", "komi"))
        if param == name and root.has_property(ident)
    ]
    if root.has_property("RU"):
        named.append(f"RU[{_text(root.get_raw('RU'))}]")
    return " / ".join(named) or "the record's game parameters"


def _single(raw_node: dict, ident):
    values = raw_node.get(ident) if ident else None
    return None if not values else values[0]


def _text(raw) -> str:
    return raw.decode("utf-8", errors="replace") if isinstance(raw, (bytes, bytearray)) else str(raw)


def _root_params(spec, root) -> dict:
    """The game parameters the root states: RU's, checked against SZ and KM (or SZ and KM
    alone)."""
    names = {p.name for p in spec.params}
    ru = _text(root.get_raw("RU")) if root.has_property("RU") else ""
    params = (parse_rules(spec, ru) if ru else None) or {}
    if "size" in names and root.has_property("SZ"):
        size = root.get("SZ")
        if "size" in params and params["size"] != size:
            raise RecordError(f"SZ[{size}] and RU[{ru}] disagree on the board size")
        params["size"] = size
    elif "size" in names and "size" not in params and spec.sgf in _FF4_SIZES:
        params["size"] = _FF4_SIZES[spec.sgf]
    if "komi" in names and root.has_property("KM"):
        raw = root.get_raw("KM")
        try:
            komi = float(raw)
        except ValueError:
            komi = math.nan
        if not math.isfinite(komi):
            raise RecordError(f"KM[{_text(raw)}]: expected a finite number")
        komi = int(komi) if komi == int(komi) else komi
        if "komi" in params and params["komi"] != komi:
            raise RecordError(f"KM[{_text(raw)}] and RU[{ru}] disagree on the komi")
        params["komi"] = komi
    return params


def _main_line(doc) -> list:
    moves = []
    for node in doc.get_main_sequence()[1:]:
        colours = [c for c in "BW" if node.has_property(c)]
        if len(colours) == 2:
            raise RecordError(
                f"move {len(moves) + 1}: one node holds both B[{_text(node.get_raw('B'))}] "
                f"and W[{_text(node.get_raw('W'))}]"
            )
        if colours:
            moves.append(Move(len(moves) + 1, colours[0], _text(node.get_raw(colours[0]))))
    return moves


def _colour(root):
    """``PL``'s seat, or None."""
    if not root.has_property("PL"):
        return None
    raw = _text(root.get_raw("PL"))
    if raw.strip().upper() not in ("B", "W"):
        raise RecordError(f"PL[{raw}]: expected B or W")
    return "BW".index(raw.strip().upper())


def _setup_points(root, n):
    """``{"AB": points, "AW": ..., "AE": ...}``, each property's values (points, or rectangles
    ``aa:cc``) read as sgfmill points of the ``n`` x ``n`` board; a point that two of them name is
    refused."""
    found = {}
    for ident in ("AB", "AW", "AE"):
        points = set()
        for raw in root.get_raw_list(ident) if root.has_property(ident) else []:
            corners = [_point(part, n) for part in raw.split(b":")]
            if None in corners or len(corners) > 2 or corners[-1][0] > corners[0][0] or corners[-1][1] < corners[0][1]:
                raise RecordError(
                    f"{ident}[{_text(raw)}]: not a point (or a rectangle of points, "
                    f"top-left:bottom-right) of the {n}x{n} board"
                )
            (top, left), (bottom, right) = corners[0], corners[-1]
            points |= {(r, c) for r in range(bottom, top + 1) for c in range(left, right + 1)}
        found[ident] = points
    for a, b in (("AB", "AW"), ("AB", "AE"), ("AW", "AE")):
        both = sorted(found[a] & found[b])
        if both:
            named = "".join(f"[{_sgf_point(n, p)}]" for p in both)
            raise RecordError(f"{a} and {b} both name {named}: a point holds one stone or none")
    return found


def _point(raw: bytes, n):
    """sgfmill's ``(row, col)`` of an SGF point on the ``n`` x ``n`` board; None if it is none
    (a pass, or off the board)."""
    try:
        return sgf_properties.interpret_go_point(raw, n)
    except ValueError:
        return None


def _start(game, root, moves):
    """The record's first position (see the module docstring)."""
    start = game.initial_state(seed=0)
    seat = _colour(root)
    has_setup = any(root.has_property(p) for p in ("AB", "AW", "AE"))
    if not has_setup:
        if seat is None or seat == game.current_player(start):
            return start
        return _with_stones(game, start, None, seat, f"PL[{'BW'[seat]}]")
    if not game.spec.placement:
        raise RecordError(f"setup stones (AB/AW/AE) are read for placement games only, not {game.name}")
    n = side(game)
    points = _setup_points(root, n)
    if seat is None:
        seat = moves[0].seat if moves else 0
    black, white = points["AB"], points["AW"]
    own = stones(game, start)
    if black == set(own[0]) and white == set(own[1]) and seat == game.current_player(start):
        return start
    return _with_stones(game, start, (black, white), seat, "the setup stones (AB/AW/AE, PL)")


def _with_stones(game, start, setup, seat, what):
    """``start``'s text board with ``setup``'s stones (None: its own) and ``seat`` to move."""
    n = side(game)
    lines = game.to_text(start).splitlines()
    rows = []
    for r, line in enumerate(lines[:n]):
        label, cells = re.match(r"(\s*\S+ )(.*)", line).groups()
        cells = cells.split(" ")
        if setup is not None:
            cells = ["." for _ in cells]
            for mark, points in zip("xo", setup):
                for row, col in points:
                    if n - 1 - row == r:
                        cells[col] = mark
        rows.append(label + " ".join(cells))
    placed = len(setup[0]) + len(setup[1]) if setup is not None else 0
    own = stones(game, start)
    ply = max(placed - len(own[0]) - len(own[1]), 0)
    ply += (ply % 2) != seat
    status = [
        f"to_move={'xo'[seat]}" if f.startswith("to_move=") else f"ply={ply}" if f.startswith("ply=") else f
        for f in lines[-1].split()
    ]
    text = "\n".join(rows + lines[n:-1] + [" ".join(status)]) + "\n"
    try:
        return game.from_text(text)
    except ArbiterError as exc:
        raise RecordError(f"{what}: not a position of {game.name}: {exc}") from None


def decode(game, state, move: Move) -> int:
    """The action ``move`` names in ``state`` (legal or not: playing it is the caller's part)."""
    if game.spec.placement:
        n = side(game)
        value = move.value.encode()
        point = _point(value, n)
        if point is None and value not in (b"", b"tt"):
            raise RecordError(f"move {move.number} ({move}) of the record: not a point of the {n}x{n} board")
        return n * n if point is None else point_action(game, *point)
    try:
        return int(game.spec.notation.parse_move(game, state, move.value.strip().lower()))
    except ArbiterError as exc:
        raise RecordError(f"move {move.number} ({move}) of the record: {exc}") from None


def read(data: bytes, **game_params):
    """``(game, states)`` of the SGF record ``data``: ``states[0]`` the start, ``states[i]`` the
    position after move ``i``. Moves alternate strictly (a move of the side not to move is
    refused); ``game_params`` as in ``parse``."""
    record = parse(data, **game_params)
    game, state = record.game, record.start
    states = [state]
    for move in record.moves:
        action = decode(game, state, move)
        if move.seat != game.current_player(state):
            raise RecordError(
                f"move {move.number} ({move}) of the record: it is "
                f"{('Black', 'White')[game.current_player(state)]}'s turn"
            )
        try:
            state = game.apply(state, action)
        except ArbiterError as exc:
            raise RecordError(f"move {move.number} ({move}) of the record: {exc}") from None
        states.append(state)
    return game, states
