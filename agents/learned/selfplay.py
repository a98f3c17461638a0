"""Self-play: many games of one size advance in lockstep, their searches sharing network batches.

Every position with a real choice becomes a training sample: its input planes from the mover's
view (``puct.encode``), ``pi`` the root visit distribution of the search, ``z`` the final result
for the mover (+1, 0, -1) and the final ownership of every point from the mover's view
(``puct.ownership``; an empty (0, 0) map for a game without one, LOA: ``K.has_ownership``). Forced moves (a lone pass) are played without a search and give no sample.
Moves are drawn in proportion to the visits for the first ``temperature_plies`` plies (opening
variety), then the most visited move is played.

Playout-cap randomisation (KataGo): a move gets a *full* search (``simulations`` walks, Dirichlet
noise at the root, as in AlphaZero) with probability ``full_fraction``, otherwise a *fast* one
(``fast_simulations`` walks, no noise). Only full searches give a policy target (a fast search's
visits say little); every position gives value and ownership targets. Games therefore end sooner
per network call, so results, the scarce signal, come several times faster at the same quality
of policy targets. ``full_fraction=1`` is plain AlphaZero.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import envs
from envs.core import kernel as C

from ..base import AgentError
from . import puct


@dataclass
class Samples:
    planes: np.ndarray  # (S, C, N, N) uint8 (the planes are 0/1)
    policy: np.ndarray  # (S, num_actions) float32
    policy_weight: np.ndarray  # (S,) float32: 1 where ``policy`` comes from a full search, else 0
    value: np.ndarray  # (S,) float32
    ownership: np.ndarray  # (S, N, N) int8; (S, 0, 0) for a game without ownership
    size: int
    results: np.ndarray  # (games,) return of seat 0 per game
    evaluations: int


def make_game(name: str, size: int):
    """Game ``name`` on a ``size`` x ``size`` board: its ``size`` rule where it has one; a game
    of one fixed board (LOA, 8x8) trains on that size only, and another is an ``AgentError``."""
    game = envs.make_game(name)
    if "size" in game.params:
        return envs.make_game(name, size=size)
    if game.board_size != size:
        raise AgentError(f"size={size!r}: {name} is played on {game.board_size}x{game.board_size} only")
    return game


def final_ownership(game, state) -> list:
    """The ownership target of a finished game from each seat's view (``puct.ownership``); for a
    game without one (LOA: ``K.has_ownership``) an empty map, which the ownership head never sees."""
    if puct.K.has_ownership(game):
        return [puct.ownership(game, state, seat) for seat in range(2)]
    return [np.zeros((0, 0), dtype=np.int8)] * 2


def play(
    evaluator,
    game,
    games: int,
    simulations: int,
    rng: np.random.Generator,
    batch: int = 8,
    temperature_plies: int | None = None,
    c_puct: float = 1.5,
    encoding: int = 2,
    fast_simulations: int | None = None,
    full_fraction: float = 1.0,
) -> Samples:
    """Play ``games`` self-play games of ``game``; see the module docstring for the options."""
    n = game.board_size
    if temperature_plies is None:
        temperature_plies = n * n // 4
    search = {  # the searches' options, the same for every move
        "batch": batch,
        "c_puct": c_puct,
        "noise_alpha": 10.0 / (n * n),  # about 10 / typical number of legal moves
        "encoding": encoding,
    }
    budgets = {True: simulations, False: simulations if fast_simulations is None else fast_simulations}
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
        full = rng.random(len(choice)) < full_fraction
        for is_full in (True, False):
            group = [g for g, f in zip(choice, full) if f == is_full]
            if group:
                evaluations += _search_and_play(
                    evaluator, game, states, records, group, is_full, budgets[is_full], rng, temperature_plies, search
                )
    return _samples(game, states, records, evaluations)


def _search_and_play(evaluator, game, states, records, group, is_full, simulations, rng, temperature_plies, search):
    """One search of ``simulations`` walks for each game of ``group`` (all of them sharing the
    network's batches; a full search with root noise), its sample recorded and its move played
    into ``states``. Returns the network evaluations spent."""
    result = puct.search(
        evaluator,
        game,
        [states[g] for g in group],
        simulations,
        noise_rng=rng if is_full else None,
        **search,
    )
    for g, visits, priors in zip(group, result.visits, result.priors):
        state = states[g]
        if visits.sum() == 0:  # one walk only expands the root: play by the network's priors
            visits = priors
        pi = visits / visits.sum()
        records[g].append(
            (puct.encode(game, state, search["encoding"]), pi.astype(np.float32), is_full, game.current_player(state))
        )
        if state[C.H_PLY] < temperature_plies:
            action = int(rng.choice(len(pi), p=pi))
        else:
            best = np.flatnonzero(visits == visits.max())
            action = int(rng.choice(best))
        states[g] = game.apply(state, action)
    return result.evaluations


def _samples(game, states, records, evaluations: int) -> Samples:
    """The finished games' records as training samples, each labelled with its game's result
    and final ownership from its mover's view."""
    planes, policy, weight, value, owner, results = [], [], [], [], [], []
    for g in range(len(states)):
        returns = game.returns(states[g])
        results.append(returns[0])
        owners = final_ownership(game, states[g])
        for obs, pi, is_full, mover in records[g]:
            planes.append(obs.astype(np.uint8))
            policy.append(pi)
            weight.append(1.0 if is_full else 0.0)
            value.append(returns[mover])
            owner.append(owners[mover])
    return Samples(
        np.stack(planes),
        np.stack(policy),
        np.asarray(weight, dtype=np.float32),
        np.asarray(value, dtype=np.float32),
        np.stack(owner),
        game.board_size,
        np.asarray(results),
        evaluations,
    )
