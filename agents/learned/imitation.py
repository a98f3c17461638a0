"""A warm start for AlphaZero: games of one of our own search agents, the *teacher*, as samples.

Self-play from a random net spends its first hours learning what any search agent already knows
(in LOA: keep your pieces together, capture the stragglers). Expert iteration (Anthony et al.,
2017) and AlphaGo's supervised stage start the net from an expert's moves instead. Here the
teacher is any agent spec (``alphabeta:depth=2``): it plays both seats of ``games`` games, and
every position where it had a choice becomes a sample in the layout of ``selfplay.Samples``:

- the policy target is the teacher's move, one-hot (a search agent gives one move, not a
  distribution);
- the value target is the game's result for the mover, as in self-play;
- the ownership target (Go) is the final ownership from the mover's view.

Games vary by a random opening of 0 to ``opening_plies`` uniform moves (not samples) and by a
uniform random move instead of the teacher's with probability ``epsilon`` (the position still
gives the teacher's move as its target). The teacher is built with a ``seed`` drawn from ``rng``,
so the samples follow from the trainer's seed. Games are played out: outside a referee's
``resignation()`` block no agent resigns.
"""

from __future__ import annotations

import numpy as np

from .. import base
from . import puct
from .selfplay import Samples, final_ownership


def teach(
    teacher: str,
    game,
    games: int,
    rng: np.random.Generator,
    encoding: int = 2,
    opening_plies: int = 4,
    epsilon: float = 0.05,
) -> Samples:
    """``games`` games of ``teacher`` against itself on ``game`` as training samples (module doc)."""
    agent = base.make(teacher, seed=int(rng.integers(2**31)))
    planes, policy, value, owner, results = [], [], [], [], []
    for _ in range(games):
        state = game.initial_state(seed=int(rng.integers(2**62)))
        for _ in range(int(rng.integers(opening_plies + 1))):
            if not puct.is_ongoing(state):
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        record = []
        while puct.is_ongoing(state):
            legal = game.legal_actions(state)
            if len(legal) == 1:
                state = game.apply(state, int(legal[0]))
                continue
            move = int(agent.act(game, state))
            record.append((puct.encode(game, state, encoding), move, game.current_player(state)))
            played = int(rng.choice(legal)) if rng.random() < epsilon else move
            state = game.apply(state, played)
        returns = game.returns(state)
        results.append(returns[0])
        owners = final_ownership(game, state)
        for obs, move, mover in record:
            target = np.zeros(game.num_actions, dtype=np.float32)
            target[move] = 1.0
            planes.append(obs.astype(np.uint8))
            policy.append(target)
            value.append(returns[mover])
            owner.append(owners[mover])
    return Samples(
        np.stack(planes),
        np.stack(policy),
        np.ones(len(value), dtype=np.float32),
        np.asarray(value, dtype=np.float32),
        np.stack(owner),
        game.board_size,
        np.asarray(results),
        0,
    )
