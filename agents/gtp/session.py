"""The GTP server's game: the rules, the position, the clock and the agent that answers ``genmove``.

GTP lets a controller do what a referee would not: any colour may move at any time, ``komi`` and
``boardsize`` change the rules in the middle of a session, ``undo`` goes back any number of
moves, play goes on after the game ended. ``Session`` keeps a position all of that can be done
to exactly; the commands that do it are in ``agents.gtp.server``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

import envs
from envs.core import ArbiterError

from ..base import Agent, AgentError
from ..clock import held_to, moves_to_go
from .clock import Clock
from .protocol import Refusal

# what ``Session.checkpoint`` saves: the game, the start, the moves and the undo snapshots
Checkpoint = tuple[envs.Game, str | None, list[int], list[tuple[str | None, list[int]]]]


class Session:
    """The GTP server's game: the current rule set, the position and the agent to ask.

    The position is a *start* (the game's initial position, or a text board for positions no
    move sequence explains: SGF setup stones, a side to move set by hand in a game without
    passes) plus the *moves* played from it, so ``komi`` can rebuild the same position under
    other rules and ``undo`` can restore any earlier position exactly (``snapshots``).
    """

    def __init__(self, game: envs.Game, agent: Agent) -> None:
        if game.num_players != 2:
            raise AgentError(f"GTP needs a two-player game, not {game.name}")
        agent.check_game(game)
        self.game, self.agent = game, agent
        self.start_text: str | None = None
        self.moves: list[int] = []
        self.snapshots: list[tuple[str | None, list[int]]] = []
        self.state = game.initial_state()
        self.clock = Clock()
        self.resign = True  # a search agent may answer genmove with resign (``serve``'s ``resign``)

    @contextmanager
    def budget(self, seat: int) -> Iterator[float | None]:
        """The agent holds to the clock's share of time for ``seat``'s move while this lasts: it
        is given the options its ``clock_options`` names for that share (none without a clock,
        or for an agent without a time option), and its own values back afterwards, so it
        leaves the session configured as it came."""
        share = self.clock.share(seat, self.moves_to_go())
        with held_to(self.agent, share):  # as a tournament's referee holds agents to its clock
            yield share

    def moves_to_go(self) -> int:
        """The moves the side to move still expects to make: half the legal moves, at least 10."""
        return moves_to_go(self.game, self.state)

    def _start(self, game: envs.Game) -> np.ndarray:
        return game.initial_state() if self.start_text is None else game.from_text(self.start_text)

    def replay(self, game: envs.Game | None = None) -> None:
        """Recompute the state from the start and the moves (in ``game``, default the current)."""
        game = self.game if game is None else game
        state = self._start(game)
        for a in self.moves:
            state = game.apply(state, a)
        self.game, self.state = game, state

    def rebuild(self, **changes: object) -> None:
        """Switch to the same game with other parameters, replaying the moves so far."""
        game = envs.make_game(self.game.name, rules=self.game.rules, **{**self.game.params, **changes})
        self.agent.check_game(game)
        self.replay(game)

    def clear(self, start_text: str | None = None) -> None:
        self.start_text, self.moves, self.snapshots = start_text, [], []
        self.state = self._start(self.game)
        self.agent.reset()

    def checkpoint(self) -> Checkpoint:
        """Everything a command may change in the position, for ``rollback``."""
        return self.game, self.start_text, list(self.moves), list(self.snapshots)

    def rollback(self, saved: Checkpoint) -> None:
        game, self.start_text, moves, snapshots = saved
        self.moves, self.snapshots = list(moves), list(snapshots)
        self.replay(game)

    def undo(self) -> None:
        self.start_text, self.moves = self.snapshots.pop()
        self.replay()

    def push(self, action: int) -> None:
        self.state = self.game.apply(self.state, action)
        self.moves.append(action)

    def play(self, seat: int, action: int) -> None:
        """Play ``action`` for ``seat`` whoever is to move (see ``give_turn``, and ``reopen`` after
        a game that two passes ended); one undo step. ``illegal move`` if it is not legal then."""
        saved = self.start_text, list(self.moves)
        game, state = self.game, self.state
        if action == game.pass_action and seat != game.current_player(state) and not game.is_terminal(state):
            # The pass of the side to move that this implies and this pass cancel out: nothing
            # changes (rather than two passes in a row ending the game).
            self.snapshots.append(saved)
            return
        try:
            self.reopen()
            self.give_turn(seat)
            if self.game.is_terminal(self.state) or not self.game.is_legal(self.state, action):
                raise Refusal("illegal move")
        except Refusal:
            self.start_text, self.moves = saved
            self.replay()
            raise
        self.snapshots.append(saved)
        self.push(action)

    def reopen(self) -> bool:
        """Take back the pass that ended the game by two passes; whether it did.

        Under the rules two passes end a Go game, but GTP leaves ending the game to the
        controller, which may go on playing (GNU Go does): a move after the passes is played
        in the position before the last pass, the same board with the same superko history,
        and ``give_turn`` then gives the move to whichever colour the controller names. The
        position keeps its stones; what changes is that the game is not over. ``undo`` still
        returns to the position after both passes.
        """
        npass = self.game.pass_action
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
            raise Refusal("illegal move")
        npass = self.game.pass_action
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
            raise Refusal("illegal move") from None
        if game.current_player(state) != seat or game.is_terminal(state):
            raise Refusal("illegal move")
        self.start_text, self.moves, self.state = flipped, [], state
