"""What a failed check reports: ``ContractError``, and the ``Trace`` of play it is built from.

A check plays games; when one breaks a rule, the author needs to see that position, not just the
rule. So every check keeps a ``Trace`` of the game it is playing (which of its games, the start
position, the actions since) and a failure is raised from it: the error names the check, the
game with its parameters, the seed, the moves in the game's notation and the text board of the
position, and ends with the call that repeats the check.
"""

from __future__ import annotations

import zlib

import numpy as np

from ..game import Game


class ContractError(AssertionError):
    """A game broke its contract: raised by ``envs.testing.check_game`` and each check.

    An ``AssertionError``, as Gymnasium's ``check_env`` and PettingZoo's and pgx's ``api_test``
    raise (test runners report it as a failed assertion), but raised explicitly, so it is not
    lost under ``python -O``. Its attributes say what broke where:

    * ``check``: the check's name (a key of ``envs.testing.CHECKS``);
    * ``game``: the game it ran on, as ``repr`` writes it (``make_game('go', size=5)``);
    * ``seed``: the seed the check was given (the same seed plays the same games);
    * ``episode``: which of the check's games (1 = the first), or None;
    * ``moves``: the moves from that game's start to the position, in notation where the
      game can write them, else as action ids;
    * ``position``: that position's text board (None where there is none);
    * ``reason``: the rule that broke, in words.
    """

    def __init__(self, check, game, seed, reason, *, episode=None, moves=(), position=None):
        self.check, self.game, self.seed, self.reason = check, game, seed, reason
        self.episode, self.moves, self.position = episode, tuple(moves), position
        super().__init__(self._message())

    def _message(self) -> str:
        where = f"{self.game}, seed {self.seed}"
        if self.episode is not None:
            where += f", game {self.episode} after {len(self.moves)} plies"
        lines = [f"{self.check} check failed for {where}: {self.reason}"]
        if self.moves:
            lines.append("moves: " + " ".join(self.moves))
        if self.position is not None:
            lines.append("position:")
            lines.extend("    " + line for line in self.position.rstrip("\n").splitlines())
        lines.append(f"again: envs.testing.check_game(envs.{self.game}, seed={self.seed}, checks=[{self.check!r}])")
        return "\n".join(lines)

    def __reduce__(self):  # picklable with its fields (pytest-xdist, multiprocessing)
        return (_rebuild, (self.check, self.game, self.seed, self.reason, self.episode, self.moves, self.position))


def _rebuild(check, game, seed, reason, episode, moves, position):
    return ContractError(check, game, seed, reason, episode=episode, moves=moves, position=position)


class Trace:
    """The game a check is playing, kept cheaply (an array and a list of ints) so that a failure
    can show it: ``begin`` at a start position, ``played`` after each action, ``at`` where the
    position under test is not the end of those moves (an env's own position)."""

    def __init__(self, check: str, game: Game, seed: int):
        self.check, self.game, self.seed = check, game, seed
        self.episode = None
        self._start = None
        self._actions: list = []
        self._state = None

    def rng(self) -> np.random.Generator:
        """The check's random stream: from the seed and the check's name, so each check plays
        games of its own and the same seed replays them."""
        return np.random.default_rng([self.seed, zlib.crc32(self.check.encode())])

    def begin(self, episode: int, start) -> None:
        """A new game (``episode`` counts from 0) from ``start``."""
        self.episode = episode
        self._start = np.array(start, copy=True)
        self._actions = []
        self._state = self._start

    def played(self, action: int, state) -> None:
        self._actions.append(int(action))
        self._state = state

    def at(self, state) -> None:
        self._state = state

    def fail(self, reason: str) -> ContractError:
        """The error to raise for ``reason`` at the current position."""
        return ContractError(
            self.check,
            repr(self.game),
            self.seed,
            reason,
            episode=None if self.episode is None else self.episode + 1,
            moves=self._moves(),
            position=self._position(),
        )

    def _moves(self) -> list:
        """The actions from the start, each in notation if the game writes it from the position
        it was played in (a broken game may not: then all are action ids)."""
        if self._start is None:
            return []
        try:
            state, out = self._start, []
            for action in self._actions:
                out.append(self.game.action_to_str(state, action))
                state = self.game.apply(state, action)
            return out
        except Exception:  # noqa: BLE001 - the game under test may be what is broken
            return [str(a) for a in self._actions]

    def _position(self):
        if self._state is None:
            return None
        try:
            return self.game.to_text(self._state)
        except Exception:  # noqa: BLE001 - as above: show the array instead
            return "state array: " + np.array2string(np.asarray(self._state), threshold=10**6, max_line_width=100)
