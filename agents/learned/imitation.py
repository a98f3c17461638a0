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

**Value targets from the teacher's search** (``value_weight`` > 0). A game's result is a noisy
target for a position early in it (5% of the moves are random, and one slip decides the game),
and a search with a few dozen simulations leans on its value head. A search agent scores every
position it plays from (``last_stats["score"]``, the mover's view): the target becomes
``(1 - value_weight) * result + value_weight * v``, where ``v`` is +-1 for a proven win or loss
(a score beyond ``WIN_BOUND``) and ``tanh(score / scale)`` otherwise. The scale turns the
evaluation's units into an expected result: it is the one that best predicts these games'
results from their scores (least squares over a geometric grid), fitted per board size, since
an evaluation's units need not be a game's. The teacher must then report a score (``alphabeta``,
``minimax``); one that does not is refused by ``check_teacher``.

**Workers.** ``workers`` > 1 plays the games in that many processes, in chunks of
``CHUNK`` games, each chunk with its own teacher and generator seeded from ``rng``: the samples
depend on the seed and the number of games, not on the number of workers (but differ from
one process's, whose single teacher and generator run through all the games in turn).
"""

from __future__ import annotations

import multiprocessing

import numpy as np

import envs

from .. import base
from ..evaluation import WIN_BOUND
from . import puct
from .selfplay import Samples, final_ownership

CHUNK = 16  # games per task when the teacher plays in several processes
SCALES = np.geomspace(1.0, 1e6, 121)  # the candidate scales of a search score (``value_scale``)


def check_teacher(teacher: str, games, scores: bool = False) -> None:
    """Build ``teacher`` (its spec as written, its own seed included) and have it play one move on
    the start of the first of ``games`` after ``check_ready`` on each: an agent that cannot teach
    (an option or weights of another game, a bad spec value, an engine that does not start) is one
    ``AgentError`` naming the spec before a run's start-up work, not a traceback after it. With
    ``scores`` the teacher must also report its search's score (value targets, module doc)."""
    agent = None
    try:
        seeded = "seed" in base.parse_spec(teacher)[1]
        agent = base.make(teacher) if seeded else base.make(teacher, seed=0)
        for game in games:
            agent.check_ready(game)
        agent.act(games[0], games[0].initial_state(seed=0))
        if scores and not isinstance(getattr(agent, "last_stats", {}).get("score"), (int, np.integer)):
            raise base.AgentError("reports no search score (value targets need a search agent: alphabeta, minimax)")
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
    value_weight: float = 0.0,
    workers: int = 1,
) -> Samples:
    """``games`` games of ``teacher`` against itself on ``game`` as training samples (module doc)."""
    if not 0.0 <= value_weight <= 1.0:
        raise base.AgentError(f"value_weight={value_weight!r}: expected a weight in [0, 1]")
    if workers <= 1:
        parts = [_play(teacher, game, games, rng, encoding, opening_plies, epsilon)]
    else:
        seeds = [int(s) for s in rng.integers(2**62, size=-(-games // CHUNK))]
        tasks = [
            (teacher, game, min(CHUNK, games - i * CHUNK), seed, encoding, opening_plies, epsilon)
            for i, seed in enumerate(seeds)
        ]
        with multiprocessing.get_context("spawn").Pool(min(workers, len(tasks))) as pool:
            parts = pool.starmap(_play_chunk, tasks)
    planes, policy, value, owner, results, scores = (np.concatenate([p[i] for p in parts]) for i in range(6))
    if value_weight > 0:
        value = (1.0 - value_weight) * value + value_weight * search_value(scores, value)
    return Samples(
        planes,
        policy,
        np.ones(len(value), dtype=np.float32),
        value.astype(np.float32),
        owner,
        game.board_size,
        results,
        0,
    )


def value_scale(scores: np.ndarray, results: np.ndarray) -> float:
    """The scale whose ``tanh(score / scale)`` best predicts ``results`` (least squares over
    ``SCALES``) from the scores of positions not proven won or lost. A handful of games whose
    scores' signs all match their results is fitted best by the smallest scale (every value
    then +-1): the fit needs games enough to disagree with their scores, as a run's thousands do."""
    open_ = np.abs(scores) <= WIN_BOUND
    if not open_.any():
        return float(SCALES[0])
    s, r = scores[open_].astype(np.float64), results[open_].astype(np.float64)
    errors = [np.mean((np.tanh(s / scale) - r) ** 2) for scale in SCALES]
    return float(SCALES[int(np.argmin(errors))])


def search_value(scores: np.ndarray, results: np.ndarray) -> np.ndarray:
    """The teacher's search scores as values in [-1, 1]: +-1 where proven, else ``tanh`` of the
    score over the ``value_scale`` fitted to ``results`` (module doc)."""
    scale = value_scale(scores, results)
    return np.where(np.abs(scores) > WIN_BOUND, np.sign(scores), np.tanh(scores / scale)).astype(np.float32)


def _play_chunk(teacher, game, games, seed, encoding, opening_plies, epsilon):
    """One worker's share: ``games`` games from a generator of its own ``seed``."""
    return _play(teacher, game, games, np.random.default_rng(seed), encoding, opening_plies, epsilon)


def _play(teacher, game, games, rng, encoding, opening_plies, epsilon) -> tuple:
    """The teacher's games as arrays: planes, one-hot policies, results for the mover, final
    ownerships, the games' results for seat 0, and the teacher's search scores (0 for an agent
    that reports none)."""
    agent = base.make(teacher, seed=int(rng.integers(2**31)))
    planes, policy, value, owner, results, scores = [], [], [], [], [], []
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
            score = getattr(agent, "last_stats", {}).get("score", 0)
            record.append((puct.encode(game, state, encoding), move, game.current_player(state), score))
            played = int(rng.choice(legal)) if rng.random() < epsilon else move
            state = game.apply(state, played)
        returns = game.returns(state)
        results.append(returns[0])
        owners = final_ownership(game, state)
        for obs, move, mover, score in record:
            target = np.zeros(game.num_actions, dtype=np.float32)
            target[move] = 1.0
            planes.append(obs.astype(np.uint8))
            policy.append(target)
            value.append(returns[mover])
            owner.append(owners[mover])
            scores.append(score)
    return (
        np.stack(planes),
        np.stack(policy),
        np.asarray(value, dtype=np.float32),
        np.stack(owner),
        np.asarray(results),
        np.asarray(scores, dtype=np.int64),
    )
