"""An agent measured against the baseline agents, random and greedy: the evaluation a training run
records in its weights' sidecar (``agents.learned.ppo_training.train(..., evaluate=...)``).

    results = baselines.against_baselines(game, agents.make("ppo", path=...), games=100, seed=0)

Two players: a colour-balanced ``match`` against each baseline (keys ``vs random size=6``,
``vs greedy size=6``). One player (a patience): the agent and both baselines over the same seeded
deals (``solitaire``; keys ``ppo size=-``, ``random size=-``, ``greedy size=-``), then the agent
deal for deal against each baseline (``duplicate``: the luck of the deal cancels; keys
``duplicate vs random``, ``duplicate vs greedy``). Each value is the result's ``as_dict()``, and
each result is printed as it comes. The baselines are seeded from ``seed``, so a call replays.
"""

from __future__ import annotations

from typing import Any

import agents
import envs
from agents.base import Agent
from envs.game import Game

from .matches import duplicate, match, solitaire

BASELINES = ("random", "greedy")


def sized_game(name: str, size: int) -> Game:
    """``make_game(name, size=size)``, or the game as it is where it has one board (LOA, 8x8):
    an evaluation over board sizes names every game's board the same way."""
    game = envs.make_game(name)
    if "size" in game.params:
        return envs.make_game(name, size=size)
    if size != game.board_size:
        raise envs.ParameterError(
            f"size={size}: {name} is played on its one board, {game.board_size}x{game.board_size}"
        )
    return game


def against_baselines(game: Game, player: Agent, games: int, seed: int = 0) -> dict[str, dict[str, Any]]:
    """``player``'s results against the ``BASELINES`` on ``game`` (see the module docstring),
    ``games`` games (or deals) per result."""
    name = player.name
    size = game.params.get("size")
    results = {}
    if game.num_players == 1:
        for label, agent in ((name, player), *((b, agents.make(b, seed=seed)) for b in BASELINES)):
            r = solitaire(game, agent, games=games, seed=seed)
            results[f"{label} size={game.params.get('size', '-')}"] = r.as_dict()
            print(f"{label}: {r}", flush=True)
        for baseline in BASELINES:  # deal by deal on the same deals: the luck of the deal cancels
            r = duplicate(game, player, agents.make(baseline, seed=seed), games=games, seed=seed)
            results[f"duplicate vs {baseline}"] = r.as_dict()
            print(f"{name} vs {baseline}, same deals: {r}", flush=True)
        return results
    for baseline in BASELINES:
        r = match(game, player, agents.make(baseline, seed=seed + 1), games=games, seed=seed)
        results[f"vs {baseline} size={size}"] = r.as_dict()
        print(f"{name} vs {baseline} on {game!r}: {r}", flush=True)
    return results
