"""A Gomocup brain as an Arbiter agent: any ``pbrain-*`` engine in our referee and matches.

    bot = agents.make("gomocup:command=./pbrain-embryo,move_time=5")
    bot = agents.make("gomocup", command=["arbiter", "pbrain", "--agent", "mcts:seconds=1"])
    action = bot.act(envs.make_game("gomoku", size=15), state)

The brain is started at its first move with ``START size`` (``ERROR`` there: a board it does not
play, ``GomocupRefused``) and told the rules with ``INFO rule`` (0 freestyle, 1 exactly five, from
the game's ``exact_five``). A new game on the same board is ``RESTART`` (a brain that does not
know it, answering ``UNKNOWN`` or nothing within 5 s, is ended and started again); another size
or rule starts a new brain.

A brain keeps its own board, but an Arbiter state carries no move list, so the agent keeps the
position it last showed the brain: when the new state is that position and one opponent stone,
the brain gets ``TURN x,y``; the empty board as Black is ``BEGIN``; any other position (a game
from an opening, a resumed game, a position set by hand) is sent whole with ``BOARD``, in the
order the moves were played where the agent knows it (``set_history``) and else Black's and
White's stones alternately. A game without captures makes every position one ``BOARD`` away.

Before each move the brain is told its time with ``INFO timeout_turn``, ``timeout_match`` and
``time_left`` (milliseconds). On a referee's game clock (``tournaments.play_game(...,
clock=...)``, ``arbiter tournament --tc``) the turn's limit and the time left are the most the
clock allows for this move and the match time is the clock's base; the agent waits for the
move that long and a second more, so the referee, not the pipe, rules on a late move. Without a
clock the brain gets ``move_time`` per move, no match limit, and a second's grace.

``check_ready`` (which tournaments and matches call before the first game) starts the brain,
sends ``START`` and ``INFO rule`` and asks ``ABOUT``: a command that does not start, a brain
that refuses the board or the rule, or one that does not answer is one clear error before any
game. Every failure during a game (the brain dies, hangs, answers ``ERROR``, a point that is no
``x,y``, off the board or occupied; a line without a comma is no answer but a note, as
``MESSAGE`` lines are) raises a ``GomocupError`` (an ``AgentError``), so a
tournament forfeits that game and goes on. The brain process is ended (``END``, then killed
after a second) by ``close``, when the agent is collected, or when its owner exits.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Iterable, Sequence

import numpy as np

from envs.game import Game

from ..base import Agent, AgentError, check_option, register
from .brain import Brain, GomocupError, GomocupRefused, GomocupTimeout
from .protocol import (
    GAME,
    NO_LIMIT_MS,
    OPPONENT,
    OWN,
    WireError,
    board_line,
    point,
    read_point,
    rule_of,
)

GRACE = 1.0  # seconds a move may take past what the brain was told, before the pipe gives up
RESTART_TIMEOUT = 5.0  # seconds for RESTART's OK; a brain silent that long is started afresh


@register("gomocup")
class GomocupAgent(Agent):
    """A Gomocup (piskvork) brain as an Arbiter agent (see the module docstring).

    ``command``: the brain's argv (a list, or one string split like a shell would);
    ``move_time``: seconds per move without a game clock (``INFO timeout_turn``);
    ``max_memory``: bytes the brain may use (``INFO max_memory``; 0: no limit).
    The brain's own randomness is its own: the protocol has no seed.
    """

    games = (GAME,)
    time_option = "move_time"  # a controller's clock (arbiter gtp, pbrain) sets the brain's turn time
    summary = "an external Gomoku engine over the Gomocup (piskvork) protocol; command= is its argv"

    def __init__(
        self,
        command: str | Sequence[str] | None = None,
        move_time: float = 30.0,
        max_memory: int = 0,
        seed: int | None = None,
    ) -> None:
        super().__init__(seed=seed)
        if isinstance(command, str):
            command = shlex.split(command)
        if not command or not all(isinstance(part, str) for part in command):
            raise AgentError(f"command={command!r}: expected the brain's argv, e.g. ['./pbrain-embryo']")
        self.command = list(command)
        self.move_time = check_option("move_time", move_time, float, 0.001)
        self.max_memory = check_option("max_memory", max_memory, int, 0)
        self._brain: Brain | None = None
        self._setup: tuple[int, bool] | None = None  # (size, exact_five) the brain was STARTed for
        self._known: np.ndarray | None = None  # the position on the brain's board; None: unknown
        self._order: list[int] = []  # the moves that led to it, in order
        self._history: list[int] = []  # the moves of the current game, as set_history gave them

    # Agents travel to worker processes by pickling; the brain process does not travel.
    def __getstate__(self):
        d = dict(self.__dict__)
        d.update(_brain=None, _setup=None, _known=None, _order=[])
        return d

    def check_ready(self, game: Game) -> None:
        """Start the brain and set it up for ``game`` (``START``, ``INFO rule``), then ask
        ``ABOUT``: any refusal or silence is an error here, before the first game."""
        self.check_game(game)
        try:
            self._start(game)
            self._brain.about()  # a brain refusing the rule answers ERROR before this
        finally:
            self.close()

    def _act(self, game, state) -> int:
        start = time.perf_counter()
        if self._brain is None or not self._brain.alive or self._setup != _setup_of(game):
            self._start(game)
        n = game.board_size
        known, order = self._known, self._order
        step = None if known is None else _one_move(game, known, state)
        if step is not None:
            command, body = f"TURN {point(step, n)}", ()
            order = order + [step]
        else:
            if known is None or np.any(game.observation(known, 0)[:2]):
                self._restart(game)
            order = self._order_of(game, state)
            if order:
                seat = game.current_player(state)
                body = [board_line(a, n, OWN if (i % 2 == 0) == (seat == 0) else OPPONENT) for i, a in enumerate(order)]
                command, body = "BOARD", [*body, "DONE"]
            else:
                command, body = "BEGIN", ()
        self._known = None  # until the brain has answered
        reply = self._brain.ask(command, self._tell_time(), body, answers=lambda line: "," in line)
        try:
            action = read_point(reply, n)
        except WireError as exc:
            raise GomocupError(f"Gomocup brain {self._brain.name} answered {command}: {exc}") from None
        if not game.is_legal(state, action):
            raise GomocupError(
                f"Gomocup brain {self._brain.name} answered {command} with {reply!r}, "
                f"{game.action_to_str(state, action)}: that point is occupied"
            )
        self._known, self._order = game.apply(state, action), order + [action]
        self.last_stats = {"seconds": time.perf_counter() - start}
        return action

    def set_history(self, game: Game, actions: Iterable[int]) -> None:
        """The moves of the game so far, in order: a ``BOARD`` sends them so (the brain is told
        at its next move)."""
        self.check_game(game)
        self._history = [int(a) for a in actions]

    def reset(self) -> None:
        """A new game is coming: the brain's board is cleared (``RESTART``) at its first move."""
        self._history = []
        if self._known is not None and len(self._order):
            self._known = None

    def close(self) -> None:
        """End the brain process (a new one is started at the next move)."""
        if self._brain is not None:
            self._brain.close()
        self._brain, self._setup, self._known, self._order = None, None, None, []

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing left to report to
            pass

    # -- the brain's match, game and clock --------------------------------------------------------
    def _start(self, game) -> None:
        """A fresh brain set up for ``game``: ``START size``, the rule and memory, an empty board."""
        self.close()
        self._brain = Brain(self.command)
        size, exact_five = _setup_of(game)
        try:
            answer = self._brain.ask(f"START {size}")
        except GomocupRefused as exc:
            self.close()
            raise GomocupRefused(f"{exc}: it does not play Gomoku on {size}x{size}") from None
        if answer.upper() != "OK":
            self.close()
            raise GomocupError(f"Gomocup brain answered {answer[:80]!r} to 'START {size}': expected OK")
        self._brain.tell(f"INFO rule {rule_of(exact_five)}")
        self._brain.tell(f"INFO max_memory {self.max_memory}")
        self._brain.tell("INFO game_type 1")  # its opponent is a program
        self._setup, self._known, self._order = (size, exact_five), game.initial_state(), []

    def _restart(self, game) -> None:
        """An empty board for a new game: ``RESTART``, or a new brain if it does not know it
        (it answers ``UNKNOWN``, or, as brains older than the command may, nothing)."""
        try:
            if self._brain.ask("RESTART", RESTART_TIMEOUT).upper() == "OK":
                self._known, self._order = game.initial_state(), []
                return
        except (GomocupRefused, GomocupTimeout):
            pass
        self._start(game)

    def _tell_time(self) -> float:
        """Tell the brain its time for this move (``INFO``, milliseconds); return how long to
        wait for the move."""
        if self.clock is not None:
            limit = self.clock.limit
            turn, match, left = limit, self.clock.control.base, limit
        else:
            turn, match, left = self.move_time, 0.0, None
        self._brain.tell(f"INFO timeout_turn {max(1, _ms(turn))}")
        self._brain.tell(f"INFO timeout_match {_ms(match)}")
        self._brain.tell(f"INFO time_left {NO_LIMIT_MS if left is None else _ms(left)}")
        return turn + GRACE

    def _order_of(self, game, state) -> list[int]:
        """The moves that lead to ``state``: the game's history where it leads there, else
        Black's and White's stones alternately (any order reaches a position without captures)."""
        replay = game.initial_state()
        try:
            for a in self._history:
                replay = game.apply(replay, a)
            if np.array_equal(replay, state):
                return list(self._history)
        except ValueError:  # a history of another position: not this one's order
            pass
        planes = game.observation(state, 0)
        black, white = (np.flatnonzero(planes[k].ravel()).tolist() for k in (0, 1))
        order = [a for pair in zip(black, white) for a in pair]
        return order + black[len(white) :]


def _setup_of(game) -> tuple[int, bool]:
    return int(game.board_size), bool(game.params.get("exact_five", False))


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


def _one_move(game, known, state) -> int | None:
    """The one move that leads from ``known`` to ``state``, or None."""
    if game.is_terminal(known):
        return None
    new = np.flatnonzero((game.observation(state, 0)[:2] - game.observation(known, 0)[:2]).any(axis=0).ravel())
    if len(new) != 1 or not game.is_legal(known, int(new[0])):
        return None
    after = game.apply(known, int(new[0]))
    return int(new[0]) if np.array_equal(after, state) else None
