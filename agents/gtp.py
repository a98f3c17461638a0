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
genmove undo showboard final_score final_status_list time_settings kgs-time_settings time_left
loadsgf quit``, failing with GTP's own texts (``unknown command``, ``syntax error``, ``invalid
color or coordinate``, ``illegal move``, ``cannot undo``, ``unacceptable size``, ``cannot load
file``, ``cannot score``).

* Any colour may ``play`` or ``genmove`` at any time, as GTP allows (handicap stones are
  several Black moves in a row): in Go the side to move passes first, so the ply count includes
  that pass, and a pass by the side not to move changes nothing; in a game without passes the
  side to move is set through the text board where the game's allows it (LOA; not Othello or
  Gomoku, whose text boards tie the side to move to the stones), else ``illegal move`` (see
  ``_Session.give_turn``).
* GTP leaves ending the game to the controller: after two passes, which end a Go game under its
  rules, ``play`` and ``genmove`` go on from the position before the last pass (same board, same
  superko history; ``_Session.reopen``), as GNU Go does. After any other end (five in a row,
  Othello's full board) ``play`` is ``illegal move`` and ``genmove`` passes.
* ``final_score`` is the result the rules give the game ended now, as SGF's ``RE`` writes it:
  Go ends by passes, so its Tromp-Taylor score of the board as it stands (``B+3.5``); Othello's
  disc count once the game is over (``W+28``); a winner without a margin (``B+``) for Gomoku and
  LOA; ``0`` for a draw; ``cannot score`` while a game that cannot be ended by passes goes on.
* ``time_settings``, ``kgs-time_settings`` and ``time_left`` give a search agent its time move
  by move (``_Clock``): a byo-yomi period over its stones, or the main time over the moves to
  come, less a fifth for the controller's overhead. An agent with a ``seconds`` (MCTS) or
  ``time`` (alpha-beta) option searches for that share, capped by its own setting if it has
  one; MCTS's default 1,000 simulations, which apply only to an MCTS given no time, give way to
  the clock, while a count set on purpose caps it. The engine takes each ``genmove``'s time off
  its own clock between ``time_left`` commands. Other agents play as configured.
* ``final_status_list``: Tromp-Taylor area scoring counts every stone on the board, so every
  stone is ``alive`` and the ``dead`` and ``seki`` lists are empty.
* ``loadsgf file [move_number]`` reads a record of the engine's game with ``envs.sgf`` (size
  and komi from the record, setup stones, the main line) from a regular file of at most
  ``MAX_RECORD_BYTES``; a record of another game (an Othello record on a Go engine) is refused.
* ``undo`` takes back one ``play``/``genmove`` at a time, back to the last ``clear_board``,
  ``boardsize`` or ``loadsgf``.
* No command can end or exhaust the engine: a line longer than ``MAX_LINE`` characters is
  refused without being held, numbers are bounded before they are converted, a komi that is
  not a finite number is refused, and a fault inside a command is answered
  (``? internal error: ...``) with the position put back as it was.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import select
import shlex
import stat
import subprocess
import sys
import tempfile
import time

import numpy as np

import envs
from envs import sgf as sgf_format
from envs.core import ArbiterError

from .base import Agent, AgentError, Resign, check_option, register
from .mcts import DEFAULT_SIMULATIONS, MCTSAgent

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


# Bounds that keep any one command from taking the engine down (a controller may be buggy, and
# ``arbiter gtp`` may sit behind a socket): a longer command line is refused without being held
# in memory, and ``loadsgf`` reads only regular files up to MAX_RECORD_BYTES (a 19x19 game's
# record is about 10 KB).
MAX_LINE = 16384              # characters; the longest real command is loadsgf with a long path
MAX_RECORD_BYTES = 4 << 20
MIN_MOVE_SECONDS = 0.05       # a move's time when the clock has none left
CLOCK_MARGIN = 0.8            # the share of a move's time the agent thinks (the rest: overhead)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # GTP: dropped, except HT and LF
_DIGITS = re.compile(r"[0-9]+")


class _Clock:
    """The controller's clock for both colours and the engine's own account of it.

    ``time_settings``/``kgs-time_settings`` set main time and Canadian byo-yomi (``byo_time``
    seconds for ``byo_stones`` moves); ``time_left`` says where a colour stands (seconds left,
    and the stones left in the period, 0 in main time). Between ``time_left`` commands each
    ``genmove``'s thinking time is taken off its colour's clock here, so a controller that never
    sends ``time_left`` still gets an engine that spends its time and no more.
    """

    def __init__(self):
        self.main = None                      # None: no time_settings (or "no time limits")
        self.byo_time, self.byo_stones = 0.0, 0
        self.left = [None, None]              # per seat: (seconds, stones) from time_left or spent

    def set(self, main, byo_time=0.0, byo_stones=0) -> None:
        self.main, self.byo_time, self.byo_stones = main, float(byo_time), int(byo_stones)
        self.left = [None, None]

    def tell(self, seat, seconds, stones) -> None:
        self.left[seat] = (seconds, stones)

    def _now(self, seat):
        """``(seconds, stones)`` left to ``seat``; None where nothing limits it."""
        if self.left[seat] is not None:
            return self.left[seat]
        if self.main is None:
            return None
        if self.main > 0 or self.byo_stones == 0:
            return self.main, 0
        return self.byo_time, self.byo_stones

    def spend(self, seat, seconds) -> None:
        """Take ``seconds`` of thinking off ``seat``'s clock: main time, then byo-yomi periods."""
        if self._now(seat) is None:
            return
        left, stones = self._now(seat)
        left -= seconds
        if stones == 0 and left < 0 and self.byo_stones > 0:  # main time over: the first period
            left, stones = self.byo_time + left, self.byo_stones
        elif stones > 0:
            stones -= 1
            if stones == 0:  # the period's moves made in time: a new period
                left, stones = self.byo_time, self.byo_stones
        self.left[seat] = (max(left, 0.0), stones)

    def share(self, seat, moves_to_go):
        """Seconds for ``seat``'s next move (None: no clock): a period's time over its stones, or
        the main time over the moves still to come plus a byo-yomi move's time, less a margin
        for the controller's overhead; at least MIN_MOVE_SECONDS."""
        if self._now(seat) is None:
            return None
        left, stones = self._now(seat)
        if stones > 0:
            seconds = left / stones
        elif left > 0:
            seconds = left / moves_to_go + (self.byo_time / self.byo_stones if self.byo_stones else 0.0)
        elif self.byo_stones > 0:
            seconds = self.byo_time / self.byo_stones
        else:
            seconds = 0.0  # out of time: move at once
        return max(MIN_MOVE_SECONDS, CLOCK_MARGIN * seconds)


def _count_yields_to_clock(agent) -> bool:
    """Whether the agent's search count is only the default of an agent given no time: MCTS
    runs 1000 simulations when given no ``seconds``, so under a clock, which gives it seconds,
    that count no longer applies (a count set on purpose caps the clock's share, as an engine's
    visit limit does; one set to exactly the default cannot be told from it)."""
    return isinstance(agent, MCTSAgent) and agent.seconds is None and agent.simulations == DEFAULT_SIMULATIONS


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
        self.clock = _Clock()
        # The agent's own budget, which a GTP clock replaces move by move (and ``restore`` gives
        # back): its time option (MCTS ``seconds``, alpha-beta ``time``) caps the clock's share;
        # MCTS's default simulation count gives way to it; an agent's own time management (MCTS
        # ``manage_time``) would spend more than a move's share, so it is off under a clock.
        self.time_option = next((o for o in ("seconds", "time") if hasattr(agent, o)), None)
        names = (self.time_option, "simulations", "manage_time") if self.time_option else ()
        self.own = {name: getattr(agent, name) for name in names if hasattr(agent, name)}
        self.lift_count = _count_yields_to_clock(agent)

    def restore(self) -> None:
        """Give the agent back the budget it came with (``genmove`` sets it from the clock)."""
        for name, value in self.own.items():
            setattr(self.agent, name, value)

    def set_budget(self, seat: int):
        """Set the agent's budget for ``seat``'s move from the clock; return the clock's share
        of seconds (None: no clock, the agent's own budget)."""
        share = self.clock.share(seat, self.moves_to_go())
        if self.time_option is None:
            return share  # an agent without a time option plays as configured
        self.restore()
        if share is not None:
            own = self.own[self.time_option]
            setattr(self.agent, self.time_option, min(own, share) if own else share)
            if self.lift_count:
                self.agent.simulations = None
            if "manage_time" in self.own:
                self.agent.manage_time = False
        return share

    def moves_to_go(self) -> int:
        """The moves the side to move still expects to make: half the legal moves, at least 10."""
        return max(10, len(self.game.legal_actions(self.state)) // 2)

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

    def checkpoint(self) -> tuple:
        """Everything a command may change in the position, for ``rollback``."""
        return self.game, self.start_text, list(self.moves), list(self.snapshots)

    def rollback(self, saved) -> None:
        game, self.start_text, moves, snapshots = saved
        self.moves, self.snapshots = list(moves), list(snapshots)
        self.replay(game)

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

    def reopen(self) -> bool:
        """Take back the pass that ended the game by two passes; whether it did.

        Under the rules two passes end a Go game, but GTP leaves ending the game to the
        controller, which may go on playing (GNU Go does): a move after the passes is played
        in the position before the last pass, the same board with the same superko history,
        and ``give_turn`` then gives the move to whichever colour the controller names. The
        position keeps its stones; what changes is that the game is not over. ``undo`` still
        returns to the position after both passes.
        """
        npass = self.pass_action()
        if self.game.end_reason(self.state) != "two_passes" or not self.moves or self.moves[-1] != npass:
            return False
        self.moves.pop()
        self.replay()
        return True

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


def _number(text) -> float:
    """A finite, non-negative number of seconds; ``syntax error`` otherwise."""
    try:
        value = float(text)
    except ValueError:
        raise _Refusal("syntax error") from None
    if value < 0 or not math.isfinite(value):
        raise _Refusal("syntax error")
    return value


def _count(text, most: int = 10**9) -> int:
    """A whole number written in ASCII digits, at most ``most``; ``syntax error`` otherwise (so
    no digit string is ever long enough to cost time to convert)."""
    digits = text.lstrip("0") or "0"
    if not _DIGITS.fullmatch(text) or len(digits) > len(str(most)) or int(digits) > most:
        raise _Refusal("syntax error")
    return int(digits)


def _cmd_boardsize(session, args):
    if len(args) != 1 or not _DIGITS.fullmatch(args[0]):
        raise _Refusal("syntax error")
    digits = args[0].lstrip("0") or "0"
    if len(digits) > 3:
        raise _Refusal("unacceptable size")
    size = int(digits)
    if "size" not in session.game.params:
        if size != session.game.observation_shape[-1]:  # a fixed board (LOA's 8x8)
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


def _komi_param(value: float):
    """``value`` as a game's ``komi`` parameter: an int when whole (``komi=7``), else the float."""
    return int(value) if math.isfinite(value) and value == int(value) else value


def _cmd_komi(session, args):
    if len(args) != 1:
        raise _Refusal("syntax error")
    try:
        komi = float(args[0])
    except ValueError:
        raise _Refusal("syntax error") from None
    if not math.isfinite(komi):
        raise _Refusal(f"syntax error: komi {args[0]} is not a finite number")
    if "komi" in session.game.params:
        try:
            session.rebuild(komi=_komi_param(komi))
        except (ArbiterError, ArithmeticError) as exc:
            raise _Refusal(f"unacceptable komi {args[0]}: {exc}") from None
    return ""


def _play(session, seat, action) -> None:
    """Play ``action`` for ``seat`` whoever is to move (see ``give_turn``, and ``reopen`` after a
    game that two passes ended); one undo step."""
    saved = session.start_text, list(session.moves)
    game, state = session.game, session.state
    if (action == session.pass_action() and seat != game.current_player(state)
            and not game.is_terminal(state)):
        # The pass of the side to move that this implies and this pass cancel out: nothing
        # changes (rather than two passes in a row ending the game).
        session.snapshots.append(saved)
        return
    try:
        session.reopen()
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
    """``genmove colour``: the agent's move for ``colour``, played. After a game that two passes
    ended the agent plays on (``reopen``), as GNU Go does; after any other end it passes."""
    if len(args) != 1:
        raise _Refusal("syntax error")
    seat = _colour(args[0])
    saved = session.start_text, list(session.moves)
    session.reopen()
    if session.game.is_terminal(session.state):
        return "pass"  # GTP controllers may ask after the end; passing changes nothing
    try:
        session.give_turn(seat)
    except _Refusal:
        session.start_text, session.moves = saved
        session.replay()
        raise
    game = session.game
    session.set_budget(seat)
    start = time.perf_counter()
    try:
        action = session.agent.act(game, session.state)
    except Resign:
        session.start_text, session.moves = saved
        session.replay()
        return "resign"
    except ArbiterError:
        session.start_text, session.moves = saved
        session.replay()
        raise
    finally:
        session.clock.spend(seat, time.perf_counter() - start)
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
    """``final_score``: the result the rules give the game ended now, in SGF's ``RE`` form
    (``B+3.5``, ``W+12``; ``B+`` where a win has no size; ``0`` for a draw).

    A game still going on is ended the way the controller ends it, by passes (Go's Tromp-Taylor
    score of the board as it stands); one that passes cannot end (Othello with moves left,
    LOA, Gomoku) answers ``cannot score``, as GRhino does."""
    game, state = session.game, session.state
    npass = session.pass_action()
    for _ in range(game.num_players):
        if game.is_terminal(state) or npass is None or not game.is_legal(state, npass):
            break
        state = game.apply(state, npass)
    if not game.is_terminal(state):
        raise _Refusal("cannot score")
    returns = game.returns(state)
    if returns[0] == returns[1]:
        return "0"
    margin = game.margin(state)
    return f"{'B' if returns[0] > returns[1] else 'W'}+" + (f"{margin:g}" if margin else "")


def _cmd_final_status_list(session, args):
    """Tromp-Taylor area scoring counts every stone on the board as alive (the players remove
    dead stones by capturing them before the end), so ``alive`` lists every stone and ``dead``
    and ``seki`` are empty: ``final_score`` and this list always agree. Every placement game
    scores its stones where they stand, so the list is theirs too."""
    if len(args) != 1 or args[0].lower() not in ("alive", "dead", "seki"):
        raise _Refusal("syntax error")
    game, state = session.game, session.state
    if not game.spec.placement:
        raise _Refusal(f"final_status_list is not available for {game.name}")
    if args[0].lower() != "alive":
        return ""
    planes = game.observation(state, 0)  # seat 0's view: Black's stones, then White's
    n = planes.shape[-1]
    return " ".join(_vertex(game, state, r * n + c) for k in (0, 1)
                    for r in range(n) for c in range(n) if planes[k, r, c])


def _cmd_time_settings(session, args):
    if len(args) != 3:
        raise _Refusal("syntax error")
    main, byo_time, byo_stones = _number(args[0]), _number(args[1]), _count(args[2])
    if byo_time > 0 and byo_stones == 0:  # GTP's way of saying: no time limits
        session.clock.set(None)
    else:
        session.clock.set(main, byo_time, byo_stones)
    return ""


def _cmd_kgs_time_settings(session, args):
    """``kgs-time_settings none | absolute main | byoyomi main period periods | canadian main
    period stones`` (KGS, GoGui): Japanese byo-yomi is kept as its periods' time per move (the
    spare periods are a reserve the share never plans to use)."""
    kind = args[0].lower() if args else ""
    shapes = {"none": 1, "absolute": 2, "byoyomi": 4, "canadian": 4}
    if kind not in shapes or len(args) != shapes[kind]:
        raise _Refusal("syntax error")
    if kind == "none":
        session.clock.set(None)
    elif kind == "absolute":
        session.clock.set(_number(args[1]))
    elif kind == "byoyomi":
        main, period, periods = _number(args[1]), _number(args[2]), _count(args[3])
        session.clock.set(main, period if periods else 0.0, 1 if periods else 0)
    else:
        main, period, stones = _number(args[1]), _number(args[2]), _count(args[3])
        session.clock.set(main, period if stones else 0.0, stones)
    return ""


def _cmd_time_left(session, args):
    if len(args) != 3:
        raise _Refusal("syntax error")
    seat = _colour(args[0])
    session.clock.tell(seat, _number(args[1]), _count(args[2]))
    return ""


def _read_record(path: str) -> bytes:
    """The bytes of the SGF file ``path``: a regular file of at most MAX_RECORD_BYTES (a
    device, pipe or directory is refused before anything is read from it)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, ValueError) as exc:
        raise _Refusal(f"cannot load file: {path}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _Refusal(f"cannot load file: {path}: not a regular file")
        if info.st_size > MAX_RECORD_BYTES:
            raise _Refusal(f"cannot load file: {path}: {info.st_size} bytes, more than the "
                           f"{MAX_RECORD_BYTES} an SGF record may have here")
        with os.fdopen(os.dup(fd), "rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_RECORD_BYTES:  # it grew while we read
        raise _Refusal(f"cannot load file: {path}: more than {MAX_RECORD_BYTES} bytes")
    return data


def _cmd_loadsgf(session, args):
    """``loadsgf file [move_number]``: the position of a record of the engine's game before
    move ``move_number`` (default: after its last move), read by ``envs.sgf``: size and komi
    from the record (as ``boardsize`` and ``komi`` would set them), the engine's own rules
    otherwise, setup stones, then the main line played as ``play`` plays (any colour may move).
    A record of another game, or one with a bad property, is refused naming it."""
    if len(args) not in (1, 2):
        raise _Refusal("syntax error")
    last = None if len(args) == 1 else _count(args[1])
    data = _read_record(args[0])
    game = session.game
    own = {k: v for k, v in game.params.items() if k not in ("size", "komi")}
    try:
        keep = {"komi": game.params["komi"]} if "komi" in game.params else {}  # a record without KM
        record = sgf_format.parse(data, game=game.name, defaults=keep, rules=game.rules, **own)
        session.agent.check_game(record.game)
    except ArbiterError as exc:
        raise _Refusal(f"cannot load file: {exc}") from None
    moves = record.moves if last is None else record.moves[:max(0, last - 1)]
    if len(moves) > record.game.max_moves:  # more than the rules' plies: no game of them
        raise _Refusal(f"cannot load file: {len(moves)} moves, more than the {record.game.max_moves} "
                       f"plies a game of {record.game.name} lasts here")
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
                _play(session, move.seat, action)
            except _Refusal:
                raise _Refusal(f"cannot load file: move {move.number} ({move}) is illegal") from None
    except (_Refusal, ArbiterError) as exc:
        session.rollback(saved)
        raise exc if isinstance(exc, _Refusal) else _Refusal(f"cannot load file: {exc}") from None
    session.snapshots = []
    return ""


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
    "kgs-time_settings": _cmd_kgs_time_settings,
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


def _lines(infile):
    """``(line, complete)`` for each line of ``infile``; a line longer than MAX_LINE comes as its
    first characters with ``complete`` False, the rest read and dropped, never held whole."""
    while True:
        line = infile.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) <= MAX_LINE or line.endswith("\n"):
            yield line, True
            continue
        while True:
            rest = infile.readline(MAX_LINE)
            if not rest or rest.endswith("\n"):
                break
        yield line[:64], False


def _answer(session, infile, outfile) -> None:
    """``serve``'s command loop. No command ends it but ``quit``: a refusal is a ``?`` answer,
    and so is anything unforeseen inside a command (the position is put back as it was)."""
    for line, complete in _lines(infile):
        words = _CONTROL.sub("", line.split("#", 1)[0]).replace("\t", " ").split()
        if not words:
            continue
        ident = ""
        if _DIGITS.fullmatch(words[0]):
            ident, words = words[0], words[1:]
            if not words:
                continue
        name, args = words[0].lower(), words[1:]
        if not complete:
            ok, text = False, f"command line too long (more than {MAX_LINE} characters)"
        elif name not in COMMANDS:
            ok, text = False, "unknown command"
        else:
            saved = session.checkpoint()
            try:
                ok, text = True, COMMANDS[name](session, args)
            except _Refusal as exc:
                ok, text = False, str(exc)
            except ArbiterError as exc:  # an agent failing (e.g. a GTP engine behind it) is an answer too
                ok, text = False, f"{type(exc).__name__}: {exc}"
            except Exception as exc:  # noqa: BLE001 - a fault of ours: answered, and the engine goes on
                session.rollback(saved)
                ok, text = False, f"internal error: {type(exc).__name__}: {exc}"
        outfile.write(f"{'=' if ok else '?'}{ident} {text}".rstrip(" ") + "\n\n")
        outfile.flush()
        if name == "quit" and complete:
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
        params["komi"] = _komi_param(args.komi)
    import agents

    if hasattr(sys.stdin, "reconfigure"):  # a controller's stray bytes are not a crash
        sys.stdin.reconfigure(errors="replace")
    try:
        try:
            game = envs.make_game(args.game, **params)
        except ArithmeticError as exc:  # a komi too large for the game's arithmetic
            raise envs.ParameterError(f"komi={args.komi!r}: {exc}") from None
        options = agents.parse_spec(args.agent)[1]
        agent = agents.make(args.agent, **({} if "seed" in options else {"seed": args.seed}))
        agent.check_game(game)  # before the first command, not at the first genmove
        serve(game, agent, sys.stdin, sys.stdout)
    except ArbiterError as exc:  # bad input: one line, status 2, as the other commands
        print(f"arbiter gtp: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the controller went away: nothing left to answer, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0
