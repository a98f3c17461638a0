"""Opening suites: the openings a tournament's colour pairs start from, as engine runners play a book.

    suite = tournaments.openings.load("my_openings.txt", game)   # or an .sgf collection, or "builtin"
    book = tournaments.openings.Book(game, suite, order="random", start=1, seed=0)
    book.opening(0)      # (number in the suite, action ids) of the first colour pair
    tournaments.openings.shipped()   # {suite name: path} of the suites shipped with Arbiter

Why: two deterministic agents replay one game forever, and a game's first moves can favour one
colour; engine testers answer both with a suite of balanced openings, each played once with each
colour (cutechess-cli's ``-openings`` with ``-repeat``, fastchess's ``-openings``). A tournament
(``arbiter tournament --openings FILE``) gives the two games of every colour pair the same
opening: pair t of every encounter plays the suite's opening ``start + t`` (counted from 1, in
file order, or in a shuffled order with ``order="random"``), cycling when the encounter has more
pairs than the suite has openings. Every encounter plays the same openings, as fastchess plays
one opening per round, so the scores of a gauntlet's candidates against the field are a paired
comparison.

Suite files:

* text: one opening per line, its moves in the game's notation separated by spaces
  (``f5 d6 c3``; LOA ``b1-b3 a2-c2``; Go ``E5 pass``); ``#`` starts a comment, blank lines are
  skipped;
* SGF (a file ending in ``.sgf``): a collection of game trees, one opening each, the main line's
  moves from the game's own start position (setup stones that change it are refused), read by
  ``envs.sgf``; its game (GM) and board size must be the tournament's.

A suite is a regular file of at most ``MAX_SUITE_BYTES`` (4 MiB) holding at most ``MAX_OPENINGS``
openings, each SGF record at most ``envs.sgf.MAX_BYTES``: far more than any book needs, and
bounds on the memory and time its checks take. A text file may start with a UTF-8 byte-order mark.

Every opening is checked before the first game: a move that does not parse or is not legal, an
opening that ends the game, or a file without one is an ``OpeningError`` (a ``ParameterError``:
exit status 2 through the command line) naming the file, the line and the move.

``builtin`` names the suite shipped for the game being played at its board size
(``othello_8x8.txt``, ``go_9x9.txt``, ...; ``shipped()`` lists them): about a hundred openings
each, the random openings that a search agent judged closest to even, made by
``examples/make_openings.py``.

Random openings (``Book(game, plies=K)`` or ``(MIN, MAX)``; ``--opening-plies``) are an endless
suite drawn from the tournament seed: opening t is ``agents.openings.random_opening`` with its
own generator, so pair t of every encounter plays the same random opening, as with a file.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from agents.openings import random_opening
from envs import ArbiterError, Game, ParameterError
from envs import sgf as envs_sgf
from envs.core import rng as R
from envs.core.checks import read_bounded

HERE = os.path.dirname(os.path.abspath(__file__))
BUILTIN = "builtin"
ORDERS = ("sequential", "random")
MAX_PLIES = 200  # a random opening's plies: an opening, not a game
MAX_SUITE_BYTES = 4 << 20  # a suite file: the shipped suites are 2-10 KB
MAX_OPENINGS = 10_000  # openings in a suite: the shipped ones hold about a hundred
_SHUFFLE, _RANDOM = 0x6F70656E, 0x72616E64  # seed-sequence tags: the suite's order, random openings


class OpeningError(ParameterError):
    """An opening suite that cannot be used: a file that cannot be read, a move that does not
    parse or is not legal, an opening that ends the game (named by file, line and move)."""


@dataclass(frozen=True)
class Suite:
    """Checked openings: ``openings[i]`` the action ids of the i-th, ``lines[i]`` the line of its
    file where it starts; ``source`` what it was loaded from (a path, or ``builtin:NAME``)."""

    openings: tuple
    lines: tuple
    source: str

    def __len__(self) -> int:
        return len(self.openings)

    def digest(self) -> str:
        """A digest of the openings themselves (not the file's name or comments): a journal
        keeps it, so a run is resumed only with the suite it began with."""
        text = "\n".join(" ".join(map(str, o)) for o in self.openings)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def suite_name(game: Game) -> str:
    """The name of ``game``'s shipped suite: the game's name, with its board size where it has a
    size parameter (``othello_8x8``, ``go_9x9``; ``loa``)."""
    params = {p.name for p in game.spec.params}
    if "size" not in params:
        return game.name
    n = envs_sgf.side(game)
    return f"{game.name}_{n}x{n}"


def shipped() -> dict[str, str]:
    """``{suite name: path}`` of the suites shipped in this package."""
    return {
        os.path.splitext(f)[0]: os.path.join(HERE, f) for f in sorted(os.listdir(HERE)) if f.endswith((".txt", ".sgf"))
    }


def load(source: str | os.PathLike[str] | Suite, game: Game) -> Suite:
    """The suite of ``source`` for ``game``, every opening checked: a path to a text file or an
    ``.sgf`` collection, or ``"builtin"`` (the game's shipped suite). ``OpeningError`` otherwise."""
    if isinstance(source, Suite):
        return source
    if not isinstance(source, (str, os.PathLike)):
        raise OpeningError(f"openings={source!r}: expected a file of openings or {BUILTIN!r}")
    path, shown = os.fspath(source), os.fspath(source)
    if path == BUILTIN:
        name = suite_name(game)
        suites = shipped()
        if name not in suites:
            raise OpeningError(
                f"openings {BUILTIN}: no suite is shipped for {name} "
                f"(shipped: {', '.join(suites) or 'none'}); pass a file of openings"
            )
        path, shown = suites[name], f"{BUILTIN}:{name}"
    data = read_bounded(path, MAX_SUITE_BYTES, f"openings {shown}", OpeningError)
    if path.lower().endswith(".sgf"):
        openings, lines = _read_sgf(data, game, shown)
    else:
        try:
            text = data.decode("utf-8-sig")  # a byte-order mark, as Windows editors write, is no move
        except UnicodeDecodeError as e:
            raise OpeningError(f"openings {shown}: not a UTF-8 text file ({e.reason} at byte {e.start})") from None
        openings, lines = _read_text(text, game, shown)
    if not openings:
        raise OpeningError(f"openings {shown}: no openings in it (every line is blank or a comment)")
    return Suite(tuple(openings), tuple(lines), shown)


def parse_line(game: Game, moves: str) -> tuple[int, ...]:
    """The action ids of one opening written in ``game``'s notation, checked (see ``load``)."""
    return _play(game, moves.split(), "opening")


def _play(game, tokens, where) -> tuple:
    state = game.initial_state(seed=0)
    actions = []
    for i, token in enumerate(tokens, 1):
        try:
            action = int(game.str_to_action(state, token))
        except ArbiterError as e:  # NotationError: not a move of the game, or not legal here
            raise OpeningError(f"{where}, move {i}: {e}") from None
        state = game.apply(state, action)
        actions.append(action)
        if game.is_terminal(state):
            raise OpeningError(
                f"{where}, move {i} {token!r}: the game ends there (an opening must leave a game to play)"
            )
    return tuple(actions)


def _check_count(count: int, shown: str) -> None:
    if count > MAX_OPENINGS:
        raise OpeningError(f"openings {shown}: {count} openings, more than the {MAX_OPENINGS} a suite may hold")


def _read_text(text, game, shown):
    openings, lines = [], []
    moves = [(number, line.split("#", 1)[0].split()) for number, line in enumerate(text.splitlines(), 1)]
    moves = [(number, tokens) for number, tokens in moves if tokens]
    _check_count(len(moves), shown)
    for number, tokens in moves:
        openings.append(_play(game, tokens, f"openings {shown}, line {number}"))
        lines.append(number)
    return openings, lines


def _trees(data: bytes):
    """``(offset, bytes)`` of each top-level game tree of an SGF collection: parentheses outside
    property values (``[...]``, with ``\\`` escapes)."""
    trees, depth, start, inside, i = [], 0, 0, False, 0
    while i < len(data):
        c = data[i]
        if inside:
            if c == 0x5C:  # backslash: the next byte is escaped
                i += 1
            elif c == 0x5D:  # ]
                inside = False
        elif c == 0x5B:  # [
            inside = True
        elif c == 0x28:  # (
            if depth == 0:
                start = i
            depth += 1
        elif c == 0x29 and depth > 0:  # )
            depth -= 1
            if depth == 0:
                trees.append((start, data[start : i + 1]))
        i += 1
    if depth > 0 or inside:
        trees.append((start, data[start:]))  # unterminated: the parser says what is wrong
    return trees


def _read_sgf(data: bytes, game, shown):
    openings, lines = [], []
    n = envs_sgf.side(game)
    start_text = game.to_text(game.initial_state(seed=0))
    trees = _trees(data)
    _check_count(len(trees), shown)
    for offset, tree in trees:
        line = data.count(b"\n", 0, offset) + 1
        where = f"openings {shown}, line {line}"
        try:
            record = envs_sgf.parse(tree, game=game.name)
        except envs_sgf.RecordError as e:
            raise OpeningError(f"{where}: {e}") from None
        if envs_sgf.side(record.game) != n:
            raise OpeningError(
                f"{where}: a record of {record.game.name} on {envs_sgf.side(record.game)}x"
                f"{envs_sgf.side(record.game)}, not on the tournament's {n}x{n} board"
            )
        if record.game.to_text(record.start) != start_text:
            raise OpeningError(
                f"{where}: the record starts from another position (setup stones or PL); "
                f"an opening starts from {game.name}'s own start"
            )
        state, actions = game.initial_state(seed=0), []
        for move in record.moves:
            label = f"{where}, move {move.number} {str(move)!r}"
            try:
                action = envs_sgf.decode(game, state, move)
            except envs_sgf.RecordError as e:
                raise OpeningError(f"{label}: {e}") from None
            if move.seat != game.current_player(state):
                raise OpeningError(f"{label}: it is {('Black', 'White')[game.current_player(state)]}'s turn")
            if not game.is_legal(state, action):
                raise OpeningError(f"{label}: not a legal move here")
            state = game.apply(state, action)
            actions.append(action)
            if game.is_terminal(state):
                raise OpeningError(f"{label}: the game ends there (an opening must leave a game to play)")
        openings.append(tuple(actions))
        lines.append(line)
    return openings, lines


def check_plies(plies: int | Sequence[int]) -> tuple[int, int]:
    """``(min, max)`` of random openings' plies from ``K`` or ``(MIN, MAX)``, or ``ParameterError``."""
    pair = (plies, plies) if isinstance(plies, (int, np.integer)) and not isinstance(plies, bool) else plies
    try:
        lo, hi = pair
    except (TypeError, ValueError):
        lo = hi = None
    if (
        not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in (lo, hi))
        or not 0 < lo <= hi <= MAX_PLIES
    ):
        raise ParameterError(f"opening_plies={plies!r}: expected K or (MIN, MAX) plies, 0 < MIN <= MAX <= {MAX_PLIES}")
    return int(lo), int(hi)


class Book:
    """Which opening each colour pair plays (see the module docstring): a checked ``Suite`` taken
    in ``order`` from its ``start``-th opening (1 = the first), or seeded random openings of
    ``plies`` = K or (MIN, MAX) plies. ``opening(t)`` is pair t's ``(number, action ids)``,
    ``number`` counting from 1 in the suite's own order (the k-th opening of its file)."""

    def __init__(
        self,
        game: Game,
        suite: Suite | None = None,
        *,
        order: Literal["sequential", "random"] = "sequential",
        start: int = 1,
        seed: int = 0,
        plies: int | Sequence[int] | None = None,
    ) -> None:
        if (suite is None) == (plies is None):
            raise ParameterError("a book takes a suite of openings or random openings' plies, one of them")
        if order not in ORDERS:
            raise ParameterError(f"openings order {order!r}: expected one of {', '.join(ORDERS)}")
        if not isinstance(start, (int, np.integer)) or isinstance(start, bool) or start < 1:
            raise ParameterError(f"openings start {start!r}: expected a positive integer (1 = the first opening)")
        if suite is not None and start > len(suite):
            raise ParameterError(f"openings start {start}: the suite {suite.source} has {len(suite)} openings")
        if plies is not None and (order != "sequential" or start != 1):
            raise ParameterError("openings order and start apply to a suite of openings, not to random openings")
        self.game, self.suite, self.order, self.start, self.seed = game, suite, order, int(start), int(seed)
        self.plies = None if plies is None else check_plies(plies)
        self._random: dict = {}
        if self.plies is not None:  # plies the game cannot last: an error now, not at the first game's draw
            self.opening(0)
        if suite is not None:
            self._sequence = (
                R.generator(self.seed, _SHUFFLE).permutation(len(suite)) if order == "random" else np.arange(len(suite))
            )

    def opening(self, pair: int) -> tuple[int, tuple]:
        """``(number, action ids)`` of the opening of colour pair ``pair`` (from 0)."""
        if self.suite is None:
            if pair not in self._random:
                rng = R.generator(self.seed, _RANDOM, pair)
                self._random[pair] = random_opening(self.game, rng, *self.plies)
            return pair + 1, self._random[pair]
        i = int(self._sequence[(self.start - 1 + pair) % len(self.suite)])
        return i + 1, self.suite.openings[i]

    def config(self) -> dict:
        """What a journal keeps of the book: the suite's file name (not its directory: a run may
        be resumed from elsewhere), size and digest, order and start, or the random openings' plies."""
        if self.suite is None:
            return {"random_plies": list(self.plies)}
        return {
            "suite": os.path.basename(self.suite.source),
            "count": len(self.suite),
            "digest": self.suite.digest(),
            "order": self.order,
            "start": self.start,
        }

    def __repr__(self) -> str:
        if self.suite is None:
            lo, hi = self.plies
            return f"random openings of {lo if lo == hi else f'{lo}-{hi}'} plies"
        return f"{self.suite.source} ({len(self.suite)} openings, {self.order}, from {self.start})"
