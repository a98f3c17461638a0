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

import envs

from .. import base
from . import puct
from .selfplay import Samples, final_ownership


def check_teacher(teacher: str, games) -> None:
    """Build ``teacher`` (its spec as written, its own seed included) and have it play one move on
    the start of the first of ``games`` after ``check_ready`` on each: an agent that cannot teach
    (an option or weights of another game, a bad spec value, an engine that does not start) is one
    ``AgentError`` naming the spec before a run's start-up work, not a traceback after it."""
    agent = None
    try:
        seeded = "seed" in base.parse_spec(teacher)[1]
        agent = base.make(teacher) if seeded else base.make(teacher, seed=0)
        for game in games:
            agent.check_ready(game)
        agent.act(games[0], games[0].initial_state(seed=0))
    except (base.AgentError, envs.ArbiterError) as e:
        raise base.AgentError(f"teacher {teacher}: {' '.join(str(e).split())}") from None
    except Exception as e:  # noqa: BLE001 - any failure of the teacher's own code is its refusal
        raise base.AgentError(f"teacher {teacher}: its first move failed ({type(e).__name__}: {e})") from None
    finally:
        if callable(getattr(agent, "close", None)):  # an engine's process
            agent.close()


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
