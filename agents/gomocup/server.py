"""Any Arbiter Gomoku agent as a Gomocup brain, for piskvork, c-gomoku-cli or a referee.

``serve(game, agent, infile, outfile)`` speaks the brain's side of the protocol
(``agents.gomocup.protocol``) on two text streams; ``arbiter pbrain`` (``agents.gomocup.cli``)
runs it on stdin and stdout. It answers:

* ``START n`` (``RECTSTART n,n``): ``OK`` for a board the game and the agent play (7 to 19),
  ``ERROR`` with the reason otherwise; ``RESTART``: ``OK``, an empty board;
* ``INFO``: ``timeout_turn``, ``timeout_match`` and ``time_left`` hold the agent to its time
  (``agents.gomocup.clock``: an agent with a time option, MCTS ``seconds`` or alpha-beta
  ``time``, searches for its share; others play as configured), ``rule`` 0 or 1 sets freestyle
  or exactly five (renju and caro: an ``ERROR`` line, the rule unchanged), ``max_memory``,
  ``game_type``, ``evaluate`` and ``folder`` are noted and change nothing, unknown keys are
  ignored, as the protocol asks;
* ``BEGIN``, ``TURN x,y``, ``BOARD`` ... ``DONE``: the agent's move as ``x,y``; ``PLAY x,y``: the
  brain's own move is ``x,y`` (swap openings), echoed; ``TAKEBACK x,y``: the last move, at
  ``x,y``, taken back (``OK``);
* ``ABOUT``: ``name="...", version="...", author="Arbiter"``;
* ``END`` (or the end of input): the brain exits;
* anything else: ``UNKNOWN``; a malformed point, an occupied one, a move after the game ended,
  or an agent failing: one ``ERROR`` line, and the brain waits for the next command with the
  position as it was. A ``TURN`` that ends the game is kept (a ``TAKEBACK`` may follow) and
  answered ``ERROR``: there is no move to make.

No input can end or exhaust the brain: lines are read bounded (``agents.gtp.protocol``'s reader)
and a fault of ours inside a command is an ``ERROR`` answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import TextIO

import envs
from envs.core import ArbiterError

from ..base import Agent
from ..clock import held_to, moves_to_go
from ..gtp.protocol import MAX_LINE, command_lines
from .clock import TurnClock
from .protocol import GAME, OPPONENT, OWN, WireError, about, exact_five_of, point, read_board_line, read_point, split

MAX_BOARD_LINES = 19 * 19  # a BOARD cannot hold more stones than the largest board
TOO_LONG = "\x00"  # stands for a line longer than MAX_LINE, read and dropped unheld


class Refusal(Exception):
    """A command the brain will not carry out: answered ``ERROR message`` (or ``UNKNOWN``)."""

    def __init__(self, message: str, keyword: str = "ERROR") -> None:
        super().__init__(message)
        self.keyword = keyword


class BrainSession:
    """The brain's game: the rules, the moves played (in order) and the agent that answers."""

    def __init__(self, game: envs.Game, agent: Agent, name: str | None = None) -> None:
        agent.check_game(game)
        self.game, self.agent = game, agent
        self.name = name or agent.name
        self.moves: list[int] = []
        self.state = game.initial_state()
        self.clock = TurnClock()
        self.warm = False

    def remake(self, **changes: object) -> None:
        """The same game with other parameters (``size``, ``exact_five``) and an empty board."""
        params = {**self.game.params, **changes}
        try:
            game = envs.make_game(GAME, rules=self.game.rules, **params)
            self.agent.check_game(game)
        except ArbiterError as exc:
            raise Refusal(" ".join(str(exc).split())) from None
        self.game = game
        self.clear()

    def clear(self) -> None:
        self.moves, self.state = [], self.game.initial_state()
        self.agent.reset()

    def replay(self, moves: list[int]) -> None:
        """The position after ``moves`` from the empty board; ``Refusal`` (position unchanged)
        when they are not a legal game."""
        state = self.game.initial_state()
        for i, a in enumerate(moves):
            if self.game.is_terminal(state) or not self.game.is_legal(state, a):
                raise Refusal(f"move {i + 1}, {point(a, self.game.board_size)}, is not legal there")
            state = self.game.apply(state, a)
        self.moves, self.state = list(moves), state

    def opponent_moves(self, action: int) -> None:
        """The opponent's ``action``; ``Refusal`` if the game is over or the point taken."""
        game, state = self.game, self.state
        where = point(action, game.board_size)
        if game.is_terminal(state):
            raise Refusal(f"{where}: the game is over")
        if not game.is_legal(state, action):
            raise Refusal(f"{where} is occupied")
        self.moves.append(action)
        self.state = game.apply(state, action)

    def genmove(self) -> str:
        """The agent's move in the position, played, as ``x,y``."""
        game, state = self.game, self.state
        if game.is_terminal(state):
            raise Refusal("the game is over: no move to make")
        with held_to(self.agent, self.clock.share(moves_to_go(game, state))):
            start = time.perf_counter()
            try:
                action = self.agent.act(game, state)
            finally:
                self.clock.spend(time.perf_counter() - start)
        self.moves.append(action)
        self.state = game.apply(state, action)
        return point(action, game.board_size)


def serve(
    game: envs.Game, agent: Agent, infile: TextIO | None = None, outfile: TextIO | None = None, name: str | None = None
) -> None:
    """Answer Gomocup commands from ``infile`` on ``outfile`` until ``END`` or end of input.

    ``game``: the Gomoku rules to start with (``START`` sets the size, ``INFO rule`` the rule);
    ``agent`` makes the moves; ``name``: what ``ABOUT`` calls it (default the agent's name).
    Both streams are text; defaults stdin/stdout.
    """
    infile = sys.stdin if infile is None else infile
    outfile = sys.stdout if outfile is None else outfile
    session = BrainSession(game, agent, name)
    lines = (line if complete else TOO_LONG for line, complete in command_lines(infile))
    for line in lines:
        keyword, rest = split(line)
        if not keyword:
            continue
        if keyword == "END":
            return
        try:
            if line is TOO_LONG:
                raise Refusal(f"a line longer than {MAX_LINE} characters")
            reply = answer(session, keyword, rest, lines)
        except Refusal as exc:
            reply = f"{exc.keyword} {exc}"
        except ArbiterError as exc:  # the agent failed: an answer too, the brain goes on
            reply = f"ERROR {type(exc).__name__}: {' '.join(str(exc).split())}"
        except Exception as exc:  # noqa: BLE001 - a fault of ours: answered, and the brain goes on
            reply = f"ERROR internal error: {type(exc).__name__}: {exc}"
        if reply is not None:
            outfile.write(reply + "\n")
            outfile.flush()


def _genmove_or_back_to(session: BrainSession, saved: list) -> str:
    """The brain's move in the position the command set up; if the agent fails, the board goes
    back to ``saved`` (the moves before the command), so the manager's next command meets the
    board it knows."""
    try:
        return session.genmove()
    except Exception:
        session.replay(saved)
        raise


def answer(session: BrainSession, keyword: str, rest: str, lines: Iterator[str]) -> str | None:
    """The answer line to one command (None: the command has none, ``INFO``); ``Refusal`` for
    one the brain will not carry out. ``lines``: the input, for the body of ``BOARD``."""
    if keyword == "START":
        return _start(session, rest)
    if keyword == "RECTSTART":
        width, _, height = rest.partition(",")
        if width.strip() != height.strip():
            raise Refusal(f"RECTSTART {rest}: only square boards are played")
        return _start(session, width)
    if keyword == "RESTART":
        session.clear()
        return "OK"
    if keyword == "INFO":
        _info(session, rest)
        return None
    if keyword == "BEGIN":
        if session.moves:
            raise Refusal("BEGIN on a board with stones: send BOARD for a position")
        return session.genmove()
    if keyword == "TURN":
        saved = list(session.moves)
        session.opponent_moves(_point(session, rest))  # kept if it ends the game: TAKEBACK may follow
        if session.game.is_terminal(session.state):
            raise Refusal(f"the game is over after {rest.strip()}: no move to make")
        return _genmove_or_back_to(session, saved)
    if keyword == "PLAY":
        action = _point(session, rest)
        session.opponent_moves(action)  # the brain's own move, as the manager chose it
        return point(action, session.game.board_size)
    if keyword == "BOARD":
        saved = list(session.moves)
        _board(session, lines)
        return _genmove_or_back_to(session, saved)
    if keyword == "TAKEBACK":
        action = _point(session, rest)
        if not session.moves or session.moves[-1] != action:
            raise Refusal(f"TAKEBACK {rest}: only the last move can be taken back")
        session.replay(session.moves[:-1])
        return "OK"
    if keyword == "ABOUT":
        return about({"name": f"Arbiter {session.name}", "version": envs.__version__, "author": "Arbiter"})
    raise Refusal(f"{keyword} is not a command this brain knows", keyword="UNKNOWN")


def _point(session: BrainSession, text: str) -> int:
    try:
        return read_point(text, session.game.board_size)
    except WireError as exc:
        raise Refusal(str(exc)) from None


def _start(session: BrainSession, text: str) -> str:
    text = text.strip()
    if not (text.isdigit() and len(text) <= 3):
        raise Refusal(f"START {text[:20]}: expected a board size")
    session.remake(size=int(text))
    if not session.warm:  # compile (or load) the agent's code now, not in its first move's time
        session.agent.warm_up(session.game)
        session.warm = True
    return "OK"


def _info(session: BrainSession, text: str) -> None:
    key, _, value = text.strip().partition(" ")
    key, value = key.lower(), value.strip()
    if key in ("timeout_turn", "timeout_match", "time_left", "rule"):
        if not (value.isdigit() and len(value) <= 12):
            raise Refusal(f"INFO {key} {value[:20]}: expected a whole number")
        number = int(value)
        if key == "rule":
            try:
                exact_five = exact_five_of(number)
            except WireError as exc:
                raise Refusal(str(exc)) from None
            if exact_five != session.game.params["exact_five"]:
                moves = list(session.moves)
                session.remake(exact_five=exact_five)
                session.replay(moves)
        elif key == "timeout_turn":
            session.clock.turn = number / 1000
        elif key == "timeout_match":
            session.clock.match = number / 1000
        else:
            session.clock.left = number / 1000
    # max_memory, game_type, evaluate, folder and keys the protocol may add: nothing to do


def _board(session: BrainSession, lines: Iterator[str]) -> None:
    """Read a BOARD's lines up to DONE and set the position they describe, the brain to move:
    as many stones of its own as of the opponent's (it is Black) or one fewer (White)."""
    n = session.game.board_size
    stones, error = [], None
    for count, line in enumerate(lines):
        if split(line)[0] == "DONE":
            break
        if count >= MAX_BOARD_LINES:
            error = error or f"BOARD: more than {MAX_BOARD_LINES} lines before DONE"
            continue
        try:
            stones.append(read_board_line(line, n))
        except WireError as exc:
            error = error or str(exc)
    if error:
        raise Refusal(error)
    own = [a for a, field in stones if field == OWN]
    theirs = [a for a, field in stones if field == OPPONENT]
    if len(own) + len(theirs) != len(stones):
        raise Refusal("BOARD: field 3 (a continuous game's winning line) is not played here")
    if len(own) == len(theirs):
        black, white = own, theirs
    elif len(own) + 1 == len(theirs):
        black, white = theirs, own
    else:
        raise Refusal(
            f"BOARD: {len(own)} own and {len(theirs)} opponent stones: the brain must be to move "
            "(as many stones as the opponent, or one fewer)"
        )
    order = [a for pair in zip(black, white) for a in pair] + black[len(white) :]
    session.agent.reset()
    session.replay(order)
