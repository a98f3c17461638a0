"""Compiled core of the vector env: step, reset and observe a whole batch of games in one call.

Every game of the batch is a row of ``states`` (int64, the game's own state layout) with its own
SplitMix64 stream ``rngs[i]``, so a game's trajectory depends only on its seed and its actions,
never on the batch size or the other games. Rules are reached through the game's hooks; the uniformly random opponent's replies, the autoreset and the observation encoding happen in
the same call, so Python runs a constant number of operations per batch, not per game.

Observations come from the game's own ``encode`` hook (the one ``game.observation`` uses), written
into one flat float32 row per game (``obs.reshape(n, -1)``). Every function here is ``@per_game``
(see ``envs.core.specialise``): the vector env of a game compiles that game only.
"""

import numpy as np
from numba import prange

from . import policies
from .core import hooks as H
from .core import kernel as C
from .core import rng as R
from .core.generic import per_game

G = None  # the game's hook namespace, bound per game by envs.core.specialise

SEAT_RANDOM = -1  # ``agent_seat="random"``: a fresh seat per episode, drawn from the game's stream
SEAT_SELF = -2    # ``opponent="self"``: the policy plays every seat; ``seats[i]`` follows the mover


# -- episodes ------------------------------------------------------------------------------------

@per_game
def _opponent_moves(s, p, seat, rng, legal, w, child):
    """The opponent plays until ``seat`` is to move or the game is over.

    ``w`` None: the random opponent, which draws each move as the random playouts draw theirs
    (``uniform_move``: a few random action ids tried before listing the legal ones), which on open
    boards spares most of a legal-move listing per step. ``w`` the greedy player's weights: the
    greedy opponent (``greedy_move``; ``child`` is its scratch state), its ties drawn from the
    game's own stream. The choice is made by type, when numba compiles: a batch against the
    random opponent never compiles the greedy one (its game's ``tactical`` code is a good part of
    a cold start)."""
    while s[C.H_STATUS] == C.ONGOING and s[C.H_PLAYER] != seat:
        if w is None:
            G.apply(s, p, H.uniform_move(s, p, rng, legal))
        else:
            G.apply(s, p, policies.greedy_move(s, p, w, rng, legal, child))


@per_game
def _new_episode(p, cfg, s, rng, seats, i, legal, w, child):
    G.init(s, p, rng)
    if cfg[CFG_OPENING_MAX] > 0:
        policies.random_opening(s, p, rng, cfg[CFG_OPENING_MIN], cfg[CFG_OPENING_MAX], legal)
    seat_mode = cfg[CFG_SEAT_MODE]
    if seat_mode == SEAT_SELF:
        seats[i] = s[C.H_PLAYER]
    else:
        seats[i] = R.randint(rng, 2) if seat_mode == SEAT_RANDOM else seat_mode
    _opponent_moves(s, p, seats[i], rng, legal, w, child)


@per_game
def _observe(p, s, seat, pending, legal, obs_row, mask_row):
    """Observation and mask of one game; a finished game gets an all-ones mask (see step)."""
    n_legal = G.legal_actions(s, p, legal)
    G.encode(s, p, seat, legal, n_legal, obs_row)
    if pending:
        mask_row[:] = 1
    else:
        mask_row[:] = 0
        for j in range(n_legal):
            mask_row[legal[j]] = 1


@per_game
def reset(p, cfg, states, rngs, seats, which, pending, obs, masks, legal, w, child):
    """Start a new episode in every game ``i`` with ``which[i]``; observe every such game.

    The games are cut into ``legal.shape[0]`` contiguous blocks, each with its own row of scratch
    ``legal`` and ``child``, run one after the other here and on numba's threads by
    ``reset_parallel``; a game's result never depends on its block."""
    for b in range(legal.shape[0]):
        _reset_block(p, cfg, states, rngs, seats, which, pending, obs, masks, legal, w, child, b)


@per_game(parallel=True)
def reset_parallel(p, cfg, states, rngs, seats, which, pending, obs, masks, legal, w, child):
    for b in prange(legal.shape[0]):
        _reset_block(p, cfg, states, rngs, seats, which, pending, obs, masks, legal, w, child, b)


@per_game
def _reset_block(p, cfg, states, rngs, seats, which, pending, obs, masks, legal, w, child, b):
    n, blocks = states.shape[0], legal.shape[0]
    for i in range(b * n // blocks, (b + 1) * n // blocks):
        if which[i]:
            _new_episode(p, cfg, states[i], rngs[i], seats, i, legal[b], w, child[b])
            pending[i] = False
            _observe(p, states[i], seats[i], False, legal[b], obs[i], masks[i])


# ``cfg``, the batch's constants: number of players, the reason code of a game cut off by
# max_moves (-1: none), the seat mode (a seat, SEAT_RANDOM or SEAT_SELF), 1 for SAME_STEP
# autoreset, the fewest and most random plies an episode opens with (0, 0: none)
CFG_PLAYERS, CFG_CAP_REASON, CFG_SEAT_MODE, CFG_SAME_STEP, CFG_OPENING_MIN, CFG_OPENING_MAX, CFG_SIZE = range(7)
# what a step did to one game, as bits
TERMINATED, TRUNCATED, ILLEGAL, PENDING = 1, 2, 4, 8


@per_game
def step(p, cfg, states, rngs, seats, actions, pending, obs, rewards, all_rewards, terminated,
         truncated, illegal, masks, legal, final, w, child):
    """One step of every game.

    NEXT_STEP autoreset (Gymnasium's): a game that ended on the previous step (``pending``)
    starts a new episode and ignores its action (reward 0, not done). Otherwise the learner's
    action is checked (an illegal one ends the episode with -1), played, and the random opponent
    replies until the learner is to move. A finished game's mask is all ones: its next action is
    ignored, and a masked policy must still be able to sample one.

    Self-play (seat mode ``SEAT_SELF``): no opponent; the action is the mover's, ``seats[i]``
    becomes the next mover (it stays the last mover when the game ends), ``rewards[i]`` is the
    return of the seat that moved and ``all_rewards[i]`` every seat's (in both modes).

    SAME_STEP autoreset (stable-baselines3's): the step that ends a game writes its final
    observation into ``final[i]``, starts the next episode at once and returns that episode's
    first observation and mask; no step is ever ignored.

    Blocks of games as in ``reset`` (``step_parallel`` runs them on numba's threads); ``legal``
    and ``child`` hold one scratch row per block; ``w`` is None (random opponent) or the greedy
    opponent's weights (``_opponent_moves``).
    """
    for b in range(legal.shape[0]):
        _step_block(p, cfg, states, rngs, seats, actions, pending, obs, rewards, all_rewards,
                    terminated, truncated, illegal, masks, legal, final, w, child, b)


@per_game(parallel=True)
def step_parallel(p, cfg, states, rngs, seats, actions, pending, obs, rewards, all_rewards, terminated,
                  truncated, illegal, masks, legal, final, w, child):
    for b in prange(legal.shape[0]):
        _step_block(p, cfg, states, rngs, seats, actions, pending, obs, rewards, all_rewards,
                    terminated, truncated, illegal, masks, legal, final, w, child, b)


@per_game
def _step_block(p, cfg, states, rngs, seats, actions, pending, obs, rewards, all_rewards, terminated,
                truncated, illegal, masks, legal, final, w, child, b):
    n, blocks = states.shape[0], legal.shape[0]
    for i in range(b * n // blocks, (b + 1) * n // blocks):
        mover = seats[i]
        done = _step_game(p, cfg, states[i], rngs[i], seats, i, actions[i], pending[i], obs[i],
                          all_rewards[i], masks[i], legal[b], final[i], w, child[b])
        rewards[i] = all_rewards[i, mover]
        terminated[i] = (done & TERMINATED) != 0
        truncated[i] = (done & TRUNCATED) != 0
        illegal[i] = (done & ILLEGAL) != 0
        pending[i] = (done & PENDING) != 0


# ``one``: a one-game env's buffers packed in one int64 array (``ArbiterVectorEnv._pack_one``), so
# a step is a call of three arguments (numba spends ~0.1-0.2 us on each). Its first cells give
# where each buffer starts (in int64 words) and its length in its own dtype.
(ONE_CFG, ONE_SEATS, ONE_RNG, ONE_LEGAL, ONE_STATE, ONE_REWARDS, ONE_WEIGHTS, ONE_CHILD, ONE_MASK, ONE_OBS,
 ONE_HEADER) = range(0, 22, 2)


@per_game(inline=True)
def _one_views(one):
    """The int64, uint64, float64, int8 and float32 views of ``one``'s buffers."""
    cfg = one[one[ONE_CFG]:one[ONE_CFG] + one[ONE_CFG + 1]]
    seats = one[one[ONE_SEATS]:one[ONE_SEATS] + 1]
    rng = one[one[ONE_RNG]:one[ONE_RNG] + 1].view(np.uint64)
    legal = one[one[ONE_LEGAL]:one[ONE_LEGAL] + one[ONE_LEGAL + 1]]
    s = one[one[ONE_STATE]:one[ONE_STATE] + one[ONE_STATE + 1]]
    rewards = one[one[ONE_REWARDS]:one[ONE_REWARDS] + one[ONE_REWARDS + 1]].view(np.float64)
    w = one[one[ONE_WEIGHTS]:one[ONE_WEIGHTS] + one[ONE_WEIGHTS + 1]].view(np.float64)
    child = one[one[ONE_CHILD]:one[ONE_CHILD] + one[ONE_CHILD + 1]]
    mask = one[one[ONE_MASK]:one[ONE_OBS]].view(np.int8)[:one[ONE_MASK + 1]]
    obs = one[one[ONE_OBS]:].view(np.float32)[:one[ONE_OBS + 1]]
    return cfg, seats, rng, legal, s, rewards, w, child, mask, obs


@per_game
def step_one(p, one, a):
    """``step`` of a one-game env whose buffers ``one`` packs, against the random opponent: the
    single Gymnasium env's step, where the call itself is most of the cost. Returns the step's
    bits."""
    cfg, seats, rng, legal, s, rewards, w, child, mask, obs = _one_views(one)
    return _step_game(p, cfg, s, rng, seats, 0, a, False, obs, rewards, mask, legal, obs, None, child)


@per_game
def step_one_greedy(p, one, a):
    """``step_one`` against the greedy opponent, whose weights ``one`` packs."""
    cfg, seats, rng, legal, s, rewards, w, child, mask, obs = _one_views(one)
    return _step_game(p, cfg, s, rng, seats, 0, a, False, obs, rewards, mask, legal, obs, w, child)


@per_game
def _step_game(p, cfg, s, rng, seats, i, a, pending, obs_row, rewards_row, mask_row, legal, final_row, w,
               child):
    """One step of game ``i`` (see ``step``): every seat's reward into ``rewards_row``, what
    happened as bits (``TERMINATED``, ``TRUNCATED``, ``ILLEGAL``, ``PENDING``)."""
    seat_mode = cfg[CFG_SEAT_MODE]
    rewards_row[:] = 0.0
    done = 0
    if pending:
        _new_episode(p, cfg, s, rng, seats, i, legal, w, child)
    elif a < 0 or a >= mask_row.shape[0] or s[C.H_STATUS] != C.ONGOING or not G.is_legal(s, p, a):
        rewards_row[seats[i]] = -1.0
        done = TERMINATED | ILLEGAL
    else:
        G.apply(s, p, a)
        if seat_mode == SEAT_SELF:
            if s[C.H_STATUS] == C.ONGOING:
                seats[i] = s[C.H_PLAYER]
        else:
            _opponent_moves(s, p, seats[i], rng, legal, w, child)
        if s[C.H_STATUS] != C.ONGOING:
            C.fill_returns(s, cfg[CFG_PLAYERS], rewards_row)
            if s[C.H_REASON] == cfg[CFG_CAP_REASON] and s[C.H_PLY] >= p[C.P_MAX_MOVES]:
                done = TRUNCATED
            else:
                done = TERMINATED
    ended = (done & (TERMINATED | TRUNCATED)) != 0
    _observe(p, s, seats[i], ended, legal, obs_row, mask_row)
    if cfg[CFG_SAME_STEP] == 1 and ended:
        final_row[:] = obs_row
        _new_episode(p, cfg, s, rng, seats, i, legal, w, child)
        _observe(p, s, seats[i], False, legal, obs_row, mask_row)
        return done
    return (done | PENDING) if ended else done
