"""Self-play: many games of one size advance in lockstep, their searches sharing network batches.

Every position with a real choice becomes a training sample ``(planes, pi, z)``: the planes of
``game.observation`` from the mover's view, ``pi`` the root visit distribution of the search, and
``z`` the final result for the mover (+1, 0, -1). Forced moves (a lone pass) are played without a
search and give no sample. Moves are drawn in proportion to the visits for the first
``temperature_plies`` plies (opening variety), then the most visited move is played; the root
priors always get Dirichlet noise, as in AlphaZero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs import _common as C

from . import puct


@dataclass
class Samples:
    planes: np.ndarray  # (S, C, N, N) float32
    policy: np.ndarray  # (S, num_actions) float32
    value: np.ndarray  # (S,) float32
    size: int
    results: np.ndarray  # (games,) return of seat 0 per game
    evaluations: int


def play(evaluator, game, games: int, simulations: int, rng: np.random.Generator, batch: int = 8,
         temperature_plies: int | None = None, c_puct: float = 1.5) -> Samples:
    """Play ``games`` self-play games of ``game`` with ``simulations`` walks per move."""
    if temperature_plies is None:
        temperature_plies = game.size * game.size // 4
    alpha = 10.0 / (game.size * game.size)  # about 10 / typical number of legal moves
    states = [game.initial_state(seed=int(rng.integers(2**62))) for _ in range(games)]
    records: list[list[tuple]] = [[] for _ in range(games)]
    evaluations = 0
    while True:
        live = [g for g in range(games) if puct.is_ongoing(states[g])]
        if not live:
            break
        choice = [g for g in live if len(game.legal_actions(states[g])) > 1]
        for g in set(live) - set(choice):
            states[g] = game.apply(states[g], int(game.legal_actions(states[g])[0]))
        if not choice:
            continue
        result = puct.search(evaluator, game, [states[g] for g in choice], simulations, batch=batch,
                             c_puct=c_puct, noise_rng=rng, noise_alpha=alpha)
        evaluations += result.evaluations
        for g, visits in zip(choice, result.visits):
            state = states[g]
            mover = game.current_player(state)
            pi = visits / visits.sum()
            records[g].append((game.observation(state, mover), pi.astype(np.float32), mover))
            if state[C.H_PLY] < temperature_plies:
                action = int(rng.choice(len(pi), p=pi))
            else:
                best = np.flatnonzero(visits == visits.max())
                action = int(rng.choice(best))
            states[g] = game.apply(state, action)
    planes, policy, value, results = [], [], [], []
    for g in range(games):
        returns = game.returns(states[g])
        results.append(returns[0])
        for obs, pi, mover in records[g]:
            planes.append(obs)
            policy.append(pi)
            value.append(returns[mover])
    return Samples(np.stack(planes), np.stack(policy), np.asarray(value, dtype=np.float32),
                   game.size, np.asarray(results), evaluations)
