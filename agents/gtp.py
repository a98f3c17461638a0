"""GTP both ways: play through an external engine, and serve any Arbiter agent to GTP tools.

Client — an external engine as an agent (Go through GNU Go, Othello through GRhino)::

    bot = agents.make("gtp", command=["/usr/games/gnugo", "--mode", "gtp", "--level", "1",
                                      "--chinese-rules", "--capture-all-dead", "--positional-superko"])
    bot = agents.make("gtp:command=/usr/games/gtp-rhino -l 1,move_time=5")
    action = bot.act(game, state)

GNU Go's defaults are Japanese-style: it passes with dead stones still on the board, which
Tromp-Taylor area scoring then counts as alive; the three rule flags make it play to ours.

A GTP engine keeps its own board, but an Arbiter state carries no move list, so the agent keeps
the position it last showed the engine and, on each call, finds the moves that lead from there
to the new state by trying every legal move (one or two plies deep: the opponent's reply, or a
replied pass). A new game (the start position, or a different board size or komi) resets the
engine with ``boardsize`` / ``clear_board`` / ``komi``. Callers that know the whole move list
(a tournament replaying a journal) can instead hand it over with ``set_history``. A position
the agent cannot explain raises ``GTPSyncError`` instead of letting the boards drift apart.

Moves are written in the game's own notation, which is GTP's for Go (``C3``, columns skip I)
and GRhino's for Othello (``d3``, rows top to bottom). Every engine failure — it dies, answers
garbage or an illegal move, or exceeds ``move_time`` — raises a ``GTPEngineError`` (an
``AgentError``), so a tournament can forfeit the game instead of hanging. A resignation raises
``GTPResigned``, both a ``GTPEngineError`` and an ``agents.Resign``: the game is the engine's
loss by resignation, not a forfeit.

Server — ``serve(game, agent, infile, outfile)`` speaks GTP version 2 on two text streams;
``main(argv)`` is the command line behind ``arbiter gtp --game go --size 9 --agent
mcts:simulations=5000``, usable from GoGui or Sabaki. It answers the commands those tools send:
``protocol_version name version known_command list_commands boardsize clear_board komi play
genmove undo showboard final_score final_status_list time_settings time_left loadsgf quit``,
failing with GTP's own texts (``unknown command``, ``syntax error``, ``invalid color or
coordinate``, ``illegal move``, ``cannot undo``, ``unacceptable size``, ``cannot load file``).

* Any colour may ``play`` or ``genmove`` at any time, as GTP allows (handicap stones are
  several Black moves in a row): in Go the side to move passes first, so the ply count includes
  that pass, and a pass by the side not to move changes nothing; in a game without passes the
  side to move is set through the text board where the game's allows it (LOA; not Othello or
  Gomoku, whose text boards tie the side to move to the stones), else ``illegal move`` (see
  ``_Session.give_turn``).
* ``time_settings``/``time_left`` become a per-move budget (a byo-yomi period over its stones,
  or the main time over the moves to come) for an agent with a ``seconds`` (MCTS) or ``time``
  (alpha-beta) option, capping its own setting; other agents ignore the clock.
* ``final_status_list``: Tromp-Taylor area scoring counts every stone on the board, so every
  stone is ``alive`` and the ``dead`` and ``seki`` lists are empty.
* ``loadsgf file [move_number]`` reads a Go record (SZ, KM, AB/AW/PL, the main line's B/W)
  with ``sgfmill``, an optional dependency: ``pip install 'arbiter-games[records]'``.
* ``undo`` takes back one ``play``/``genmove`` at a time, back to the last ``clear_board``,
  ``boardsize`` or ``loadsgf``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import select
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np

import envs
from envs.core import ArbiterError

from .base import Agent, AgentError, Resign, check_option, register

COLOURS = ("black", "white")


class GTPEngineError(AgentError):
    """The external engine died, broke the protocol, refused a command, or resigned."""


class GTPTimeout(GTPEngineError):
    """The external engine did not answer within its time limit."""


class GTPResigned(GTPEngineError, Resign):
    """The external engine answered ``genmove`` with ``resign``: a result, not a fault, so
    ``tournaments.play_game`` scores the game as the engine's loss by resignation (reason
    ``"resign"``), as it does for any agent that raises ``Resign``."""


class GTPSyncError(AgentError):
    """The position handed to a GTP agent does not follow from the one its engine knows."""


# -- the engine process --------------------------------------------------------------------------

class GTPEngine:
    """One external GTP engine process: send a command, get the answer or a ``GTPEngineError``.

    Responses are read with ``select`` against a deadline, so a silent engine cannot block the
    caller; the engine's stderr goes to a temporary file whose tail explains a crash.
    """

    def __init__(self, command, timeout: float = 10.0):
        self.command = list(command)
        self.timeout = timeout
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                bufsize=0,
            )
        except OSError as exc:
            raise GTPEngineError(f"cannot start GTP engine {self.command!r}: {exc}") from None
        self._buffer = b""

    def send(self, command: str, timeout: float | None = None) -> str:
        """Send one command; return the text of a success answer (``= text``).

        A failure answer (``? text``) raises ``GTPEngineError`` carrying the engine's message.
        """
        ok, text = self.ask(command, timeout)
        if not ok:
            raise GTPEngineError(f"GTP engine {self._name()} refused {command!r}: {text}")
        return text

    def ask(self, command: str, timeout: float | None = None) -> tuple[bool, str]:
        """Send one command; return ``(success, text)`` without raising on a failure answer."""
        try:
            self._proc.stdin.write(command.encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died(command) from None
        answer = self._read(command, self.timeout if timeout is None else timeout)
        if answer[:1] not in (b"=", b"?"):
            raise GTPEngineError(
                f"GTP engine {self._name()} answered {answer[:80]!r} to {command!r}: "
                "expected a response starting with '=' or '?'"
            )
        ok = answer[:1] == b"="
        text = answer[1:].decode(errors="replace").strip()
        return ok, text

    def _read(self, command: str, timeout: float) -> bytes:
        """The next response (up to the empty line that ends it), within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        fd = self._proc.stdout.fileno()
        while True:
            self._buffer = self._buffer.lstrip(b"\n")
            end = self._buffer.find(b"\n\n")
            if end >= 0:
                answer, self._buffer = self._buffer[:end], self._buffer[end + 2:]
                return answer
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                raise GTPTimeout(f"GTP engine {self._name()} gave no answer to {command!r} "
                                 f"within {timeout:g} s")
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise self._died(command)
                self._buffer += chunk.replace(b"\r", b"")

    def _died(self, command: str) -> GTPEngineError:
        try:
            code = self._proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        self._stderr.seek(0)
        tail = self._stderr.read()[-300:].decode(errors="replace").strip()
        self.close()
        detail = f" (exit code {code})" if code is not None else ""
        detail += f"; its stderr ends: {tail!r}" if tail else ""
        return GTPEngineError(f"GTP engine {self._name()} died while answering {command!r}{detail}")

    def _name(self) -> str:
        return os.path.basename(self.command[0]) if self.command else "?"

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def close(self) -> None:
        """Ask the engine to quit, then make sure it is gone."""
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write(b"quit\n")
                self._proc.stdin.flush()
                self._proc.wait(timeout=1.0)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        for stream in (self._proc.stdin, self._proc.stdout, self._stderr):
            try:
                stream.close()
            except OSError:
                pass


# -- the client agent ---------------------------------------------------------------------------

@register("gtp")
class GTPAgent(Agent):
    """An external GTP engine as an Arbiter agent (see the module docstring).

    ``command``: the engine's argv (a list, or one string split like a shell would);
    ``move_time``: seconds the engine may take per move (any other command gets 10 s).
    The engine's own randomness is its business: ``seed`` only labels the agent.
    """

    plays = "games whose spec says they speak GTP (Go, Othello)"
    summary = "an external engine over the Go Text Protocol (GNU Go, GRhino); command= is its argv"

    def applies_to(self, game) -> bool:
        return game.spec.gtp

    def __init__(self, command=None, move_time: float = 30.0, seed=None):
        super().__init__(seed=seed)
        if isinstance(command, str):
            command = shlex.split(command)
        if not command or not all(isinstance(part, str) for part in command):
            raise AgentError(f"command={command!r}: expected the engine's argv, "
                             "e.g. ['/usr/games/gnugo', '--mode', 'gtp']")
        self.command = list(command)
        self.move_time = check_option("move_time", move_time, float, 0.001)
        self._engine: GTPEngine | None = None
        self._setup = None          # (game name, params) the engine's board was set up for
        self._known = None          # the state the engine's board shows

    # Agents travel to worker processes by pickling; the engine process does not travel.
    def __getstate__(self):
        d = dict(self.__dict__)
        d.update(_engine=None, _setup=None, _known=None)
        return d

    def _act(self, game, state) -> int:
        start = time.perf_counter()
        self._sync(game, state)
        seat = game.current_player(state)
        self._engine.ask(f"time_left {COLOURS[seat]} {self._clock_seconds()} 1")
        reply = self._engine.send(f"genmove {COLOURS[seat]}", timeout=self.move_time).lower()
        if reply == "resign":
            raise GTPResigned(f"GTP engine {self.command[0]} resigned as {COLOURS[seat]}")
        try:
            action = game.str_to_action(state, reply)
        except ArbiterError as exc:
            self._forget()
            raise GTPEngineError(f"GTP engine {self.command[0]} answered genmove with "
                                 f"{reply!r}, not a legal {game.name} move: {exc}") from None
        self._known = game.apply(state, action)
        self.last_stats = {"seconds": time.perf_counter() - start}
        return action

    def _clock_seconds(self) -> int:
        """``move_time`` as the whole seconds a GTP clock takes, rounded down, at least 1
        (the engine gets slightly less than the deadline it is held to)."""
        return max(1, int(self.move_time))

    def set_history(self, game, actions) -> None:
        """Show the engine the game from its start through ``actions`` (clearing its board)."""
        self.check_game(game)
        self._new_game(game)
        state = game.initial_state()
        for a in actions:
            state = self._tell(game, state, int(a))
        self._known = state

    def reset(self) -> None:
        """A new game is coming: the next call sets the engine up from scratch."""
        self._known = None

    def close(self) -> None:
        """Stop the engine process (it is restarted on the next move)."""
        if self._engine is not None:
            self._engine.close()
        self._engine = None
        self._forget()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to report to
            pass

    # -- keeping the engine's board equal to the state ---------------------------------------
    def _sync(self, game, state) -> None:
        if self._engine is None or not self._engine.alive:
            self._engine = GTPEngine(self.command)
            self._forget()
        if self._setup == (game.name, dict(game.params)) and self._known is not None:
            path = _path_between(game, self._known, state)
            if path is not None:
                for a in path:
                    self._known = self._tell(game, self._known, a)
                return
        start = game.initial_state()
        path = _path_between(game, start, state)
        if path is None:
            self._forget()
            raise GTPSyncError(
                f"gtp agent: cannot tell which moves led to this {game.name} position from the "
                "one its engine knows (it must see every position where it moves, or be given "
                "the moves with set_history)"
            )
        self._new_game(game)
        self._known = start
        for a in path:
            self._known = self._tell(game, self._known, a)

    def _new_game(self, game) -> None:
        if self._engine is None or not self._engine.alive:
            self._engine = GTPEngine(self.command)
        self._forget()
        self._engine.send(f"boardsize {game.size}")
        self._engine.send("clear_board")
        if "komi" in game.params:
            self._engine.send(f"komi {game.params['komi']}")
        # The engine plans its time for our clock: no main time, a byo-yomi period of move_time
        # per move (whole seconds: GNU Go reads only integers). An engine without clocks may
        # refuse; it is then held to move_time by the read deadline alone.
        self._engine.ask(f"time_settings 0 {self._clock_seconds()} 1")
        self._setup = (game.name, dict(game.params))
        self._known = game.initial_state()

    def _tell(self, game, state, action):
        """Play ``action`` on the engine's board; return the state after it."""
        colour = COLOURS[game.current_player(state)]
        move = game.action_to_str(state, action)
        ok, text = self._engine.ask(f"play {colour} {move}")
        # Some engines (GRhino) pass for a blocked player by themselves and reject "pass".
        if not ok and move != "pass":
            self._forget()
            raise GTPEngineError(f"GTP engine {self.command[0]} refused 'play {colour} {move}': {text}")
        return game.apply(state, action)

    def _forget(self) -> None:
        self._setup = None
        self._known = None


def _path_between(game, start, target, max_plies: int = 2):
    """Actions leading from ``start`` to exactly ``target`` in at most ``max_plies``, or None."""
    if np.array_equal(start, target):
        return []
    frontier = [(start, [])]
    for _ in range(max_plies):
        nxt = []
        for state, path in frontier:
            if game.is_terminal(state):
                continue
            for a in game.legal_actions(state):
                child = game.apply(state, int(a))
                if np.array_equal(child, target):
                    return path + [int(a)]
                nxt.append((child, path + [int(a)]))
        frontier = nxt
    return None


# -- the server ----------------------------------------------------------------------------------

class _Refusal(Exception):
    """A GTP failure response (``? message``)."""


class _Session:
    """The GTP server's game: the current rule set, the position and the agent to ask.

    The position is a *start* (the game's initial position, or a text board for positions no
    move sequence explains: SGF setup stones, a side to move set by hand in a game without
    passes) plus the *moves* played from it, so ``komi`` can rebuild the same position under
    other rules and ``undo`` can restore any earlier position exactly (``snapshots``).
    """

    def __init__(self, game, agent):
        if game.num_players != 2:
            raise AgentError(f"GTP needs a two-player game, not {game.name}")
        agent.check_game(game)
        self.game, self.agent = game, agent
        self.start_text: str | None = None
        self.moves: list[int] = []
        self.snapshots: list[tuple] = []
        self.state = game.initial_state()
        self.clock = {"main": None, "byo_time": 0.0, "byo_stones": 0, "left": [None, None]}
        self.budget_option = next((o for o in ("seconds", "time") if hasattr(agent, o)), None)
        self.configured = getattr(agent, self.budget_option) if self.budget_option else None
        # An agent's own time management (MCTS's ``manage_time``) may spend more than a move's
        # share; under a GTP clock the clock's allocation replaces it, so no move overruns.
        self.manages_time = hasattr(agent, "manage_time")
        self.configured_management = getattr(agent, "manage_time", None)

    def restore(self) -> None:
        """Give the agent back the budget and time management it came with (``genmove`` sets
        them from the clock)."""
        if self.budget_option is not None:
            setattr(self.agent, self.budget_option, self.configured)
        if self.manages_time:
            self.agent.manage_time = self.configured_management

    def _start(self, game):
        return game.initial_state() if self.start_text is None else game.from_text(self.start_text)

    def replay(self, game=None) -> None:
        """Recompute the state from the start and the moves (in ``game``, default the current)."""
        game = self.game if game is None else game
        state = self._start(game)
        for a in self.moves:
            state = game.apply(state, a)
        self.game, self.state = game, state

    def rebuild(self, **changes) -> None:
        """Switch to the same game with other parameters, replaying the moves so far."""
        game = envs.make_game(self.game.name, rules=self.game.rules, **{**self.game.params, **changes})
        self.agent.check_game(game)
        self.replay(game)

    def clear(self, start_text=None) -> None:
        self.start_text, self.moves, self.snapshots = start_text, [], []
        self.state = self._start(self.game)
        self.agent.reset()

    def snapshot(self) -> None:
        self.snapshots.append((self.start_text, list(self.moves)))

    def undo(self) -> None:
        self.start_text, self.moves = self.snapshots.pop()
        self.replay()

    def push(self, action) -> None:
        self.state = self.game.apply(self.state, action)
        self.moves.append(action)

    def parse(self, text) -> int:
        """The action a GTP vertex names (legal or not); ``invalid color or coordinate`` if none."""
        try:
            return int(self.game.spec.notation.parse_move(self.game, self.state, text.strip().lower()))
        except ArbiterError:
            raise _Refusal("invalid color or coordinate") from None

    def pass_action(self):
        """The game's pass action, or None if it has none (or the notation has no word for it)."""
        try:
            return int(self.game.spec.notation.parse_move(self.game, self.state, "pass"))
        except ArbiterError:
            return None

    def give_turn(self, seat: int) -> None:
        """Make ``seat`` the side to move, as GTP lets any colour play at any time.

        In a game with passes the side to move passes first (so the ply count includes that
        pass); if the last ply was ``seat``'s own pass, that pass is taken back instead (the
        same board and side to move, without ending the game on two passes). In a game without
        passes the position is re-read from its text board with the other side to move (and
        the ply count one higher), which forgets nothing such games remember. ``illegal move``
        when neither works (the game is over, or the position cannot have that side to move).
        """
        game = self.game
        if game.current_player(self.state) == seat:
            return
        if game.is_terminal(self.state):
            raise _Refusal("illegal move")
        npass = self.pass_action()
        if npass is not None and self.moves and self.moves[-1] == npass:
            self.moves.pop()
            self.replay()
            return
        if npass is not None and game.is_legal(self.state, npass):
            after = game.apply(self.state, npass)
            if not game.is_terminal(after):
                self.push(npass)
                return
        text = game.to_text(self.state)
        flipped = re.sub(r"to_move=([xo])", lambda m: "to_move=" + "xo"[seat], text)
        flipped = re.sub(r"ply=(\d+)", lambda m: f"ply={int(m.group(1)) + 1}", flipped)
        try:
            state = game.from_text(flipped)
        except ArbiterError:
            raise _Refusal("illegal move") from None
        if game.current_player(state) != seat or game.is_terminal(state):
            raise _Refusal("illegal move")
        self.start_text, self.moves, self.state = flipped, [], state

    def budget(self, seat: int):
        """Seconds for the next move from the GTP clock (None: no clock): a byo-yomi period's
        time over its stones, or the main time over the moves still to come (about half the
        legal moves, at least 10), with a 20% margin for the controller's overhead."""
        clock = self.clock
        if clock["main"] is None:
            return None
        left = clock["left"][seat]
        time_left, stones = left if left is not None else (clock["main"], 0)
        if stones > 0:
            seconds = time_left / stones
        elif time_left > 0:
            moves_left = max(10, len(self.game.legal_actions(self.state)) // 2)
            seconds = time_left / moves_left
            if clock["byo_stones"] > 0:
                seconds += clock["byo_time"] / clock["byo_stones"]
        elif clock["byo_stones"] > 0:
            seconds = clock["byo_time"] / clock["byo_stones"]
        else:
            return None
        return max(0.05, 0.8 * seconds)


def _colour(text: str) -> int:
    text = text.lower()
    if text in ("b", "black"):
        return 0
    if text in ("w", "white"):
        return 1
    raise _Refusal("invalid color or coordinate")


def _vertex(game, state, action) -> str:
    move = game.action_to_str(state, action)
    return "pass" if move.lower() == "pass" else move.upper()


def _number(text, kind=float):
    try:
        value = kind(text)
    except ValueError:
        raise _Refusal("syntax error") from None
    if value < 0 or not math.isfinite(value):
        raise _Refusal("syntax error")
    return value


def _cmd_boardsize(session, args):
    if len(args) != 1 or not args[0].isdigit():
        raise _Refusal("syntax error")
    size = int(args[0])
    if "size" not in session.game.params:
        if size != getattr(session.game, "size", 8):  # a game without a size parameter: LOA, 8x8
            raise _Refusal("unacceptable size")
    else:
        saved = session.start_text, session.moves
        session.start_text, session.moves = None, []
        try:
            session.rebuild(size=size)
        except ArbiterError:
            session.start_text, session.moves = saved
            raise _Refusal("unacceptable size") from None
    session.clear()
    return ""


def _cmd_komi(session, args):
    if len(args) != 1:
        raise _Refusal("syntax error")
    try:
        komi = float(args[0])
    except ValueError:
        raise _Refusal("syntax error") from None
    if "komi" in session.game.params:
        try:
            session.rebuild(komi=int(komi) if komi == int(komi) else komi)
        except ArbiterError as exc:
            raise _Refusal(f"unacceptable komi: {exc}") from None
    return ""


def _play(session, seat, action) -> None:
    """Play ``action`` for ``seat`` whoever is to move (see ``give_turn``); one undo step."""
    saved = session.start_text, list(session.moves)
    game, state = session.game, session.state
    if (action == session.pass_action() and seat != game.current_player(state)
            and not game.is_terminal(state)):
        # The pass of the side to move that this implies and this pass cancel out: nothing
        # changes (rather than two passes in a row ending the game).
        session.snapshots.append(saved)
        return
    try:
        session.give_turn(seat)
        if session.game.is_terminal(session.state) or not session.game.is_legal(session.state, action):
            raise _Refusal("illegal move")
    except _Refusal:
        session.start_text, session.moves = saved
        session.replay()
        raise
    session.snapshots.append(saved)
    session.push(action)


def _cmd_play(session, args):
    if len(args) != 2:
        raise _Refusal("syntax error")
    seat = _colour(args[0])
    _play(session, seat, session.parse(args[1]))
    return ""


def _cmd_genmove(session, args):
    if len(args) != 1:
        raise _Refusal("syntax error")
    seat = _colour(args[0])
    game = session.game
    if game.is_terminal(session.state):
        return "pass"  # GTP controllers may ask after the end; passing changes nothing
    saved = session.start_text, list(session.moves)
    try:
        session.give_turn(seat)
    except _Refusal:
        session.start_text, session.moves = saved
        session.replay()
        raise
    option, budget = session.budget_option, session.budget(seat)
    if option is not None:  # the clock caps the agent's own budget, never raises it
        configured = session.configured
        setattr(session.agent, option, configured if budget is None
                else budget if not configured else min(configured, budget))
    if session.manages_time:
        session.agent.manage_time = session.configured_management if budget is None else False
    try:
        action = session.agent.act(game, session.state)
    except ArbiterError:
        session.start_text, session.moves = saved
        session.replay()
        raise
    vertex = _vertex(game, session.state, action)
    session.snapshots.append(saved)
    session.push(action)
    return vertex


def _cmd_undo(session, args):
    if not session.snapshots:
        raise _Refusal("cannot undo")
    session.undo()
    return ""


def _cmd_final_score(session, args):
    if not hasattr(session.game, "score"):
        raise _Refusal(f"final_score is not available for {session.game.name}")
    score = session.game.score(session.state)
    return "0" if score == 0 else f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def _stones(game, state) -> list[list[str]]:
    """The vertices of Black's and of White's stones, read from the text board."""
    lines = game.to_text(state).splitlines()
    columns = next(line.split() for line in lines if line.split() and all(w.isalpha() for w in line.split()))
    found = [[], []]
    for line in lines:
        words = line.split()
        if words and words[0].isdigit() and len(words) == len(columns) + 1:
            for col, cell in zip(columns, words[1:]):
                if cell in "xo":
                    found["xo".index(cell)].append(f"{col.upper()}{words[0]}")
    return found


def _cmd_final_status_list(session, args):
    """Tromp-Taylor area scoring counts every stone on the board as alive (the players remove
    dead stones by capturing them before the end), so ``alive`` lists every stone and ``dead``
    and ``seki`` are empty: ``final_score`` and this list always agree."""
    if len(args) != 1 or args[0].lower() not in ("alive", "dead", "seki"):
        raise _Refusal("syntax error")
    if not hasattr(session.game, "score") or not session.game.spec.placement:
        raise _Refusal(f"final_status_list is not available for {session.game.name}")
    if args[0].lower() != "alive":
        return ""
    black, white = _stones(session.game, session.state)
    return " ".join(black + white)


def _cmd_time_settings(session, args):
    if len(args) != 3 or not args[2].isdigit():
        raise _Refusal("syntax error")
    main, byo_time, byo_stones = _number(args[0]), _number(args[1]), int(args[2])
    if byo_time > 0 and byo_stones == 0:  # GTP's way of saying: no time limits
        session.clock.update(main=None, byo_time=0.0, byo_stones=0, left=[None, None])
    else:
        session.clock.update(main=main, byo_time=byo_time, byo_stones=byo_stones, left=[None, None])
    return ""


def _cmd_time_left(session, args):
    if len(args) != 3 or not args[2].isdigit():
        raise _Refusal("syntax error")
    seat = _colour(args[0])
    session.clock["left"][seat] = (_number(args[1]), int(args[2]))
    if session.clock["main"] is None:  # time_left without time_settings: a clock all the same
        session.clock["main"] = 0.0
    return ""


def _cmd_loadsgf(session, args):
    """``loadsgf file [move_number]``: the position of a Go record before move ``move_number``
    (default: after its last move): SZ, KM, setup stones AB/AW (and PL) and the main line's
    B/W moves, read with sgfmill (``pip install 'arbiter-games[records]'``)."""
    if len(args) not in (1, 2) or (len(args) == 2 and not args[1].isdigit()):
        raise _Refusal("syntax error")
    if session.game.spec.sgf != 1:  # the record format of SGF's GM[1] (setup stones, passes, ko)
        raise _Refusal(f"cannot load file: loadsgf reads Go records (SGF GM[1]), not {session.game.name}")
    try:
        from sgfmill import sgf
    except ImportError:
        raise _Refusal("cannot load file: loadsgf needs sgfmill: pip install 'arbiter-games[records]'") from None
    try:
        with open(args[0], "rb") as f:
            record = sgf.Sgf_game.from_bytes(f.read())
        root = record.get_root()
        black, white, _ = root.get_setup_stones()
        moves = [node.get_move() for node in record.get_main_sequence()[1:]]
        komi = record.get_komi()
        turn = root.get("PL") if root.has_property("PL") else None
    except (OSError, ValueError, KeyError) as exc:
        raise _Refusal(f"cannot load file: {exc}") from None
    last = len(moves) + 1 if len(args) == 1 else int(args[1])
    saved = session.game, session.start_text, list(session.moves), list(session.snapshots)
    try:
        session.start_text, session.moves = None, []
        session.rebuild(size=record.get_size(), komi=int(komi) if komi == int(komi) else komi)
        setup = None
        if black or white:
            n = session.game.size
            first = next((colour for colour, _ in moves if colour is not None), "b")
            seat = 0 if (turn or first) == "b" else 1  # PL, else whoever moves first
            text = session.game.to_text(session.game.initial_state())
            rows = text.splitlines()
            for colour, points in (("x", black), ("o", white)):
                for row, col in points:  # sgfmill: row 0 is the bottom row, as in GTP
                    rows[n - 1 - row] = _set_cell(rows[n - 1 - row], col, colour)
            ply = len(black) + len(white)
            ply += (ply % 2) != seat
            rows[-1] = f"to_move={'xo'[seat]} ply={ply} passes=0 ko=-"
            setup = "\n".join(rows) + "\n"
        session.clear(setup)
        for colour, point in moves[:max(0, last - 1)]:
            if colour is None:
                continue
            action = session.game.size ** 2 if point is None else point_action(session.game, *point)
            try:
                _play(session, "bw".index(colour), action)
            except _Refusal:
                vertex = _vertex(session.game, session.state, action)
                raise _Refusal(f"cannot load file: move {len(session.snapshots) + 1} "
                               f"({colour.upper()} {vertex}) is illegal") from None
    except (_Refusal, ArbiterError) as exc:
        game, session.start_text, session.moves, session.snapshots = saved
        session.replay(game)
        raise exc if isinstance(exc, _Refusal) else _Refusal(f"cannot load file: {exc}") from None
    session.snapshots = []
    return ""


def point_action(game, row, col) -> int:
    """Go's action for sgfmill's ``(row, col)`` (row 0 at the bottom): ``r*N + c``, r from the top."""
    n = game.size
    return (n - 1 - row) * n + col


def _set_cell(line: str, col: int, colour: str) -> str:
    """The text-board row ``line`` ("7 . . x ...") with column ``col`` set to ``colour``."""
    label, cells = re.match(r"(\s*\d+ )(.*)", line).groups()
    cells = cells.split(" ")
    cells[col] = colour
    return label + " ".join(cells)


COMMANDS = {
    "protocol_version": lambda session, args: "2",
    "name": lambda session, args: f"Arbiter {session.agent.name}",
    "version": lambda session, args: _version(),
    "known_command": lambda session, args: str(bool(args) and args[0] in COMMANDS).lower(),
    "list_commands": lambda session, args: "\n".join(COMMANDS),
    "boardsize": _cmd_boardsize,
    "clear_board": lambda session, args: session.clear() or "",
    "komi": _cmd_komi,
    "play": _cmd_play,
    "genmove": _cmd_genmove,
    "undo": _cmd_undo,
    "showboard": lambda session, args: "\n" + session.game.to_text(session.state).rstrip("\n"),
    "final_score": _cmd_final_score,
    "final_status_list": _cmd_final_status_list,
    "time_settings": _cmd_time_settings,
    "time_left": _cmd_time_left,
    "loadsgf": _cmd_loadsgf,
    "quit": lambda session, args: "",
}


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("arbiter-games")
    except Exception:  # running from a source tree that was never installed
        return "0.1.0"


def serve(game, agent, infile=None, outfile=None) -> None:
    """Answer GTP version 2 commands from ``infile`` on ``outfile`` until ``quit`` or end of input.

    ``game`` sets the game and its rules (``boardsize`` and ``komi`` change only those
    parameters); ``agent`` answers ``genmove``. Both streams are text; defaults stdin/stdout.
    A GTP clock sets the agent's time budget move by move; when the session ends the agent
    gets its own budget back, so it can serve again or play elsewhere as it was configured.
    """
    infile = sys.stdin if infile is None else infile
    outfile = sys.stdout if outfile is None else outfile
    session = _Session(game, agent)
    try:
        _answer(session, infile, outfile)
    finally:
        session.restore()


def _answer(session, infile, outfile) -> None:
    """``serve``'s command loop."""
    for line in infile:
        words = line.split("#", 1)[0].replace("\t", " ").split()
        if not words:
            continue
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
            if not words:
                continue
        name, args = words[0].lower(), words[1:]
        if name not in COMMANDS:
            ok, text = False, "unknown command"
        else:
            try:
                ok, text = True, COMMANDS[name](session, args)
            except _Refusal as exc:
                ok, text = False, str(exc)
            except ArbiterError as exc:  # an agent failing (e.g. a GTP engine behind it) is an answer too
                ok, text = False, f"{type(exc).__name__}: {exc}"
        outfile.write(f"{'=' if ok else '?'}{ident} {text}".rstrip(" ") + "\n\n")
        outfile.flush()
        if name == "quit":
            return


def main(argv=None) -> int:
    """Command line: ``arbiter gtp --game go --size 9 --agent mcts:simulations=5000``."""
    parser = argparse.ArgumentParser(
        prog="arbiter gtp", description="Serve an Arbiter agent over GTP on stdin/stdout.")
    parser.add_argument("--game", required=True,
                        choices=sorted(s.name for s in envs.specs() if s.num_players == 2),
                        help="the game to play (GTP tools know Go; Othello works with GRhino's conventions)")
    parser.add_argument("--size", type=int, help="board size (the game's default if omitted)")
    parser.add_argument("--komi", type=float, help="komi for Go")
    parser.add_argument("--rules", default="standard", help="rule preset, e.g. 'openspiel'")
    parser.add_argument("--agent", default="mcts:seconds=5",
                        help="agent spec (default %(default)s); 'arbiter agents --game G' lists those that play G")
    parser.add_argument("--seed", type=int, default=0, help="agent seed unless the spec sets one")
    args = parser.parse_args(argv)
    params = {"rules": args.rules}
    if args.size is not None:
        params["size"] = args.size
    if args.komi is not None:
        params["komi"] = int(args.komi) if args.komi == int(args.komi) else args.komi
    import agents

    try:
        game = envs.make_game(args.game, **params)
        name, options = agents.parse_spec(args.agent)
        agent = agents.make(args.agent, **({} if "seed" in options else {"seed": args.seed}))
        agent.check_game(game)  # before the first command, not at the first genmove
        serve(game, agent, sys.stdin, sys.stdout)
    except ArbiterError as exc:
        print(f"arbiter gtp: {exc}", file=sys.stderr)
        return 2
    return 0
