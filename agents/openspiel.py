"""OpenSpiel's bots as Arbiter agents: ``openspiel_mcts``, ``openspiel_random`` and ``BotAgent``.

    import agents
    bot = agents.make("openspiel_mcts:simulations=400,seed=1")   # OpenSpiel's MCTSBot
    action = bot.act(game, state)

A bot plays through the bridge of ``envs.openspiel``: each move, the position becomes a state of
the game's OpenSpiel twin (``arbiter_<name>``, same rules and parameters) and the bot's ``step``
answers it. So an OpenSpiel bot is ranked by the referee like any agent (journals, clocks,
forfeits, SGF), and in the patience it meets the hidden stock as OpenSpiel's chance nodes: it
never sees the order of the face-down cards.

``BotAgent(bot_factory)`` wraps any ``pyspiel.Bot``, for example one built from OpenSpiel's
AlphaZero or a trained policy: ``bot_factory(openspiel_game, seat, seed)`` returns the bot that
plays ``seat``; it is called once per game and seat, with a seed drawn from the agent's own, so
the same agent seed gives the same bots. Bots are asked with a fresh state at each move (its
history starts at that position), so a bot that keeps its own record of the game through
``inform_action`` sees none. Agents pickle without their bots, which are rebuilt where they
play (a tournament's worker processes). A tournament pickles every agent, to name it in the
journal and to ship it, so a factory there must pickle: a module-level function or class.

OpenSpiel is the ``openspiel`` extra; without it these agents import, list and refuse to play
with the install hint (``check_ready``, before a tournament's first game).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

import envs.openspiel as bridge
from envs import Game
from envs.core import kernel as C
from envs.core import rng as R

from .base import Agent, AgentError, check_option, register

_SEEDS = 2**31 - 1  # numpy's RandomState takes seeds below 2**32; OpenSpiel's C++ bots an int


class _BotPlayer(Agent):
    """What every OpenSpiel bot agent shares: the game's OpenSpiel twin, one bot per game and
    seat (seeded from the agent's stream), a fresh OpenSpiel state per move."""

    def __init__(self, seed: int | None = None):
        super().__init__(seed=seed)
        self._games: dict[str, Any] = {}
        self._bots: dict[tuple[str, int], Any] = {}

    def make_bot(self, openspiel_game, seat: int, seed: int):
        """The bot that plays ``seat`` of ``openspiel_game``, its randomness from ``seed``."""
        raise NotImplementedError

    def openspiel_game(self, game: Game):
        """The OpenSpiel twin of ``game`` (registered and loaded once per game and parameters)."""
        try:
            key = bridge.openspiel_name(game)
        except ImportError:
            raise AgentError(f"agent {self.name!r} needs OpenSpiel: {bridge.INSTALL_HINT}") from None
        if key not in self._games:
            self._games[key] = bridge.load(game)
        return self._games[key]

    def check_ready(self, game: Game) -> None:
        super().check_ready(game)
        self.openspiel_game(game)

    def warm_up(self, game: Game) -> None:
        self.openspiel_game(game)

    def _act(self, game: Game, state: np.ndarray) -> int:
        openspiel_game = self.openspiel_game(game)
        seat = int(state[C.H_PLAYER])
        key = (str(openspiel_game), seat)
        if key not in self._bots:
            self._bots[key] = self.make_bot(openspiel_game, seat, int(R.randint(self.rng, _SEEDS)))
        position = bridge.from_array(openspiel_game, state)
        start = time.perf_counter()
        action = int(self._bots[key].step(position))
        self.last_stats = self._stats(time.perf_counter() - start)
        return action

    def _stats(self, seconds: float) -> dict[str, Any]:
        return {"seconds": seconds}

    def __getstate__(self):
        out = dict(self.__dict__)
        out["_games"], out["_bots"] = {}, {}  # rebuilt where the agent plays
        return out


class BotAgent(_BotPlayer):
    """Any ``pyspiel.Bot`` as an agent: ``bot_factory(openspiel_game, seat, seed) -> bot``."""

    name = "openspiel_bot"
    summary = "a pyspiel.Bot built by a factory, playing through envs.openspiel"

    def __init__(self, bot_factory: Callable[[Any, int, int], Any], name: str | None = None, seed: int | None = None):
        super().__init__(seed=seed)
        if not callable(bot_factory):
            raise AgentError(f"bot_factory={bot_factory!r}: expected a callable (openspiel_game, seat, seed) -> bot")
        if name is not None:
            if not isinstance(name, str) or not name.strip():
                raise AgentError(f"name={name!r}: expected a non-empty string")
            self.name = name.strip()
        self.bot_factory = bot_factory

    def make_bot(self, openspiel_game, seat: int, seed: int):
        return self.bot_factory(openspiel_game, seat, seed)

    def settings(self, game: Game) -> dict[str, Any]:
        factory = self.bot_factory
        return {"bot_factory": getattr(factory, "__qualname__", repr(factory))}

    def __repr__(self) -> str:
        return f"BotAgent({self.bot_factory!r}, name={self.name!r}, seed={self.seed!r})"


@register("openspiel_mcts")
class OpenSpielMCTS(_BotPlayer):
    """OpenSpiel's MCTSBot (UCT, random rollouts), playing through envs.openspiel.

    ``simulations`` per move, exploration constant ``uct_c`` (OpenSpiel's examples use 2),
    ``rollouts`` random playouts per leaf, ``solve`` OpenSpiel's MCTS-Solver (proven wins and
    losses back up as such)."""

    summary = "OpenSpiel's MCTSBot (UCT with random rollouts) through the envs.openspiel bridge"

    def __init__(
        self,
        simulations: int = 1000,
        uct_c: float = 2.0,
        rollouts: int = 1,
        solve: bool = True,
        seed: int | None = None,
    ):
        super().__init__(seed=seed)
        self.simulations = check_option("simulations", simulations, int, 1, 10**9)
        self.uct_c = check_option("uct_c", uct_c, float, 0.0, 1e6)
        self.rollouts = check_option("rollouts", rollouts, int, 1, 10**6)
        if not isinstance(solve, bool):
            raise AgentError(f"solve={solve!r}: expected true or false")
        self.solve = solve

    def make_bot(self, openspiel_game, seat, seed):
        from open_spiel.python.algorithms import mcts

        rng = np.random.RandomState(seed)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=self.rollouts, random_state=rng)
        return mcts.MCTSBot(
            openspiel_game,
            self.uct_c,
            self.simulations,
            evaluator,
            solve=self.solve,
            random_state=rng,
        )

    def _stats(self, seconds: float) -> dict[str, Any]:
        return {"seconds": seconds, "simulations": self.simulations}


@register("openspiel_random")
class OpenSpielRandom(_BotPlayer):
    """OpenSpiel's UniformRandomBot: a uniformly random legal move, drawn by OpenSpiel."""

    summary = "OpenSpiel's UniformRandomBot through the envs.openspiel bridge"

    def __init__(self, seed: int | None = None):
        super().__init__(seed=seed)

    def make_bot(self, openspiel_game, seat, seed):
        from open_spiel.python.bots import uniform_random

        return uniform_random.UniformRandomBot(seat, np.random.RandomState(seed))
