"""An external GTP engine as an Arbiter agent: Go through GNU Go, Othello through GRhino.

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
engine with ``boardsize`` / ``clear_board`` / ``komi``, as the game declares them
(``Game.board_size``, ``Game.komi``). Callers that know the whole move list (a tournament
replaying a journal) can instead hand it over with ``set_history``. A position the agent cannot
explain raises ``GTPSyncError`` instead of letting the boards drift apart.

On a referee's game clock (``set_clock``: ``tournaments.play_game(..., clock=...)``, ``arbiter
tournament --tc``) the engine is told the time control with ``time_settings`` (main time, no
byo-yomi: an increment comes back through ``time_left``), or for Japanese byo-yomi with
``kgs-time_settings byoyomi MAIN PERIOD PERIODS`` (an engine that refuses it gets ``time_settings
MAIN PERIOD 1``: one stone per Canadian period is one Japanese period), and before every
``genmove`` its time with ``time_left COLOUR SECONDS STONES`` (main time: stones 0; byo-yomi: the
period and the periods left, as KGS sends them). Seconds are whole (GTP's integers, rounded down,
at least 1). The engine may then think until the clock runs out (``move_time`` does not cut it
short); the referee judges a loss on time. Without a clock it gets ``move_time`` per move as a
byo-yomi period of one stone.

Moves are written in the game's own notation, which is GTP's for Go (``C3``, columns skip I)
and GRhino's for Othello (``d3``, rows top to bottom), a point for Gomoku (``h8``) and a
from-to move for Lines of Action (``b1-b3``, a capture ``c1xa3``; an engine's ``b1b3`` is read
too): the wire forms of ``agents.gtp.protocol``, which ``arbiter gtp`` speaks for every
two-player game. Every engine failure (it dies, answers garbage or an illegal move, or
exceeds ``move_time``) raises a ``GTPEngineError`` (an ``AgentError``), so a tournament can
forfeit the game instead of hanging. A resignation raises ``GTPResigned``, both a
``GTPEngineError`` and an ``agents.Resign``: the game is the engine's loss by resignation, not a
forfeit.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterable, Sequence

import numpy as np

from envs.core import ArbiterError
from envs.core import rng as R
from envs.game import Game

from ..base import Agent, AgentError, check_option, register
from .engine import GTPEngine, GTPEngineError, GTPResigned, GTPSyncError
from .protocol import COLOURS, Refusal, read_vertex


@register("gtp")
class GTPAgent(Agent):
    """An external GTP engine as an Arbiter agent (see the module docstring).

    ``command``: the engine's argv (a list, or one string split like a shell would);
    ``move_time``: seconds the engine may take per move (any other command gets 10 s).
    Given a ``seed``, the agent sends the engine ``set_random_seed`` at every new game with a
    number drawn from it, so an engine with a random stream of its own (GNU Go, which otherwise
    seeds itself from the clock unless started with ``--seed``) replays a seeded match move for
    move; an engine without the command (GRhino) refuses it and plays on. Without a seed the
    engine's randomness is left as it is.
    """

    plays = "two-player games (Go, Othello, Gomoku, Lines of Action), in each game's notation"
    summary = "an external engine over the Go Text Protocol (GNU Go, GRhino); command= is its argv"

    def applies_to(self, game: Game) -> bool:
        return game.num_players == 2

    def __init__(
        self, command: str | Sequence[str] | None = None, move_time: float = 30.0, seed: int | None = None
    ) -> None:
        super().__init__(seed=seed)
        if isinstance(command, str):
            command = shlex.split(command)
        if not command or not all(isinstance(part, str) for part in command):
            raise AgentError(
                f"command={command!r}: expected the engine's argv, e.g. ['/usr/games/gnugo', '--mode', 'gtp']"
            )
        self.command = list(command)
        self.move_time = check_option("move_time", move_time, float, 0.001)
        self._engine: GTPEngine | None = None
        self._setup = None  # (game name, params) the engine's board was set up for
        self._known = None  # the state the engine's board shows
        self._told = None  # the TimeControl the engine was given with time_settings
        self._japanese = False  # whether it took kgs-time_settings byoyomi

    # Agents travel to worker processes by pickling; the engine process does not travel.
    def __getstate__(self):
        d = dict(self.__dict__)
        d.update(_engine=None, _setup=None, _known=None, _told=None)
        return d

    def _act(self, game, state) -> int:
        start = time.perf_counter()
        self._sync(game, state)
        seat = game.current_player(state)
        timeout = self.move_time
        if self.clock is not None:
            timeout = self._tell_clock(COLOURS[seat], self.clock)
        else:
            self._engine.ask(f"time_left {COLOURS[seat]} {self._clock_seconds()} 1")
        reply = self._engine.send(f"genmove {COLOURS[seat]}", timeout=timeout).lower()
        if reply == "resign":
            raise GTPResigned(f"GTP engine {self.command[0]} resigned as {COLOURS[seat]}")
        action = self._read_move(game, state, reply)
        self._known = game.apply(state, action)
        self.last_stats = {"seconds": time.perf_counter() - start}
        return action

    def _read_move(self, game, state, reply: str) -> int:
        """The legal action ``reply`` names (the game's wire form, ``agents.gtp.protocol``);
        anything else is the engine's fault: ``GTPEngineError`` with the game's own reason."""
        try:
            action = read_vertex(game, state, reply)
            if game.is_legal(state, action):
                return action
        except Refusal:
            pass
        self._forget()
        try:
            game.str_to_action(state, reply)  # raises, saying what is wrong with the move
            why = "not a legal move here"
        except ArbiterError as exc:
            why = str(exc)
        raise GTPEngineError(
            f"GTP engine {self.command[0]} answered genmove with {reply!r}, not a legal {game.name} move: {why}"
        )

    def _tell_clock(self, colour, left) -> float:
        """Give the engine the game's time control (once a game) and ``colour``'s time ``left``
        (an ``agents.clock.TimeLeft``); return how long to wait for its move: the most the
        clock allows and a second more, so the referee, not the pipe, rules on a late move."""
        control = left.control
        if self._told != control:
            base = int(control.base)
            if control.periods:
                period = max(1, int(control.period))
                self._japanese, _ = self._engine.ask(f"kgs-time_settings byoyomi {base} {period} {control.periods}")
                if not self._japanese:
                    self._engine.ask(f"time_settings {base} {period} 1")
            else:
                self._engine.ask(f"time_settings {max(1, base)} 0 0")
            self._told = control
        if left.in_byoyomi:
            stones = left.periods if self._japanese else 1
            self._engine.ask(f"time_left {colour} {max(1, int(left.period))} {stones}")
        else:
            self._engine.ask(f"time_left {colour} {max(1, int(left.seconds))} 0")
        return left.limit + 1.0

    def _clock_seconds(self) -> int:
        """``move_time`` as the whole seconds a GTP clock takes, rounded down, at least 1
        (the engine gets slightly less than the deadline it is held to)."""
        return max(1, int(self.move_time))

    def set_history(self, game: Game, actions: Iterable[int]) -> None:
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
        self._engine.send(f"boardsize {game.board_size}")
        self._engine.send("clear_board")
        if game.komi is not None:
            self._engine.send(f"komi {game.komi}")
        if self.seed is not None:  # unseeded, the engine keeps its own (e.g. its --seed option)
            self._engine.ask(f"set_random_seed {R.randint(self.rng, 2**31)}")
        # The engine plans its time for our clock: no main time, a byo-yomi period of move_time
        # per move (whole seconds: GNU Go reads only integers). An engine without clocks may
        # refuse; it is then held to move_time by the read deadline alone.
        self._engine.ask(f"time_settings 0 {self._clock_seconds()} 1")
        self._told = None  # a game clock, if any, is given before the first genmove
        self._setup = (game.name, dict(game.params))
        self._known = game.initial_state()

    def _tell(self, game, state, action):
        """Play ``action`` on the engine's board; return the state after it."""
        colour = COLOURS[game.current_player(state)]
        move = game.action_to_str(state, action)
        ok, text = self._engine.ask(f"play {colour} {move}")
        # Some engines (GRhino) pass for a blocked player by themselves and reject "pass".
        if not ok and action != game.pass_action:
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
