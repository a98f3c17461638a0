"""A human at the terminal as an agent: ``act`` asks for a move, so a person plays through the
same ``play_game`` as every program (``arbiter play --black human``).

Besides a move in the game's notation the human may type ``moves`` (the legal moves), ``hint``
(what the ``hint`` agent, greedy by default, would play), ``help``,
``resign`` (raises ``agents.Resign``: the game is lost, not crashed) and ``undo``, which raises ``TakeBack``: ``play_game(..., takebacks=True)`` then returns to the
human's previous turn, taking back the human's last move and the replies to it. The end of
input (Ctrl-D, a file of moves run out) raises ``Abandoned``: the person left, which is no move
and no resignation, so the game ends without a result.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import agents
from agents.base import Player, Resign, TakeBack
from envs import ArbiterError, Game

HELP = "Enter a move in the game's notation, or: undo, resign, moves, hint, help."


class Abandoned(BaseException):
    """The end of input at a human's prompt: the game is abandoned, not lost. A ``BaseException``
    like ``KeyboardInterrupt`` (which it resembles: the person stopped), so that ``play_game``,
    which turns an agent's every ``Exception`` into a forfeit, lets it through unscored."""


def seat_name(game: Game, seat: int) -> str:
    """How a seat is called to a person: Black and White (the first player is Black in every
    two-player game here), or "You" alone at a patience."""
    if game.num_players == 1:
        return "You"
    return ("Black", "White")[seat]


class HumanAgent(Player):
    """Moves typed at the terminal. ``inp`` and ``out`` replace ``input`` and ``print`` (tests,
    other front ends)."""

    name = "human"

    def __init__(
        self, inp: Callable[[str], str] = input, out: Callable[[str], object] = print, hint: str = "greedy"
    ) -> None:
        self.inp, self.out = inp, out
        self.hint_spec = hint
        self._hint = None
        self.reset()

    def reset(self) -> None:
        """A new game: nothing to take back, and the human is told the colour again."""
        self._turns: list[bytes] = []  # the positions this human was asked to move in, in order

    def act(self, game: Game, state: np.ndarray) -> int:
        seat = game.current_player(state)
        if not self._turns and game.num_players > 1:
            self.out(f"You play {seat_name(game, seat)}.")
        here = state.tobytes()  # unique within a game: the state counts its plies
        if here in self._turns:  # back here after a takeback: later turns are gone
            del self._turns[self._turns.index(here) :]
        self._turns.append(here)
        while True:
            try:
                text = self.inp(f"{seat_name(game, seat)} to move> ").strip()
            except EOFError:
                raise Abandoned(f"end of input at {seat_name(game, seat)}'s move") from None
            command = text.lower()
            if command == "resign":
                raise Resign(f"{seat_name(game, seat)} resigns")
            if command == "undo":
                if len(self._turns) < 2:
                    self.out("nothing to undo")
                    continue
                raise TakeBack()
            if command in ("help", "?"):
                self.out(HELP)
            elif command == "hint":
                if self._hint is None:
                    self._hint = agents.make(self.hint_spec, seed=0)
                action = self._hint.act(game, state)
                self.out(f"hint ({self.hint_spec}): {game.action_to_str(state, action)}")
            elif command == "moves":
                self.out(" ".join(game.action_to_str(state, a) for a in game.legal_actions(state)))
            elif text:
                try:
                    return game.str_to_action(state, text)
                except ArbiterError as e:
                    self.out(f"{e}. {HELP}")
