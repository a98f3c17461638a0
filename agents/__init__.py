"""Arbiter's agents: every player behind one protocol, ``agents.Player`` (see ``agents.base``;
``agents.as_player`` adapts any other object once, see ``agents.players``).

    import agents
    bot = agents.make("alphabeta:depth=6,time=1.5", seed=1)
    action = bot.act(game, state)

Importing this package registers every agent module listed below; a new agent module registers
itself with ``@register("name")`` (see ``agents.base``) and is added to this import list.
"""

from . import alphabeta, gomocup, greedy, gtp, learned, mcts, minimax, openspiel, random_agent  # noqa: F401  (registration side effects)
from .base import REGISTRY, Agent, AgentError, Player, PlayerError, Resign, TakeBack, make, parse_spec, register
from .players import as_player
from .tuning import tune

__all__ = [
    "make",
    "register",
    "tune",
    "parse_spec",
    "Agent",
    "AgentError",
    "Player",
    "PlayerError",
    "as_player",
    "Resign",
    "TakeBack",
    "REGISTRY",
]
