"""The compiled episode stepper: the one place where an episode's rules are written.

Every framework env steps its games here: the Gymnasium env (one slot, on every opponent path),
the PettingZoo AEC env (one slot, self-play: each ply is the mover's), the vector env and
``envs.sb3`` (a batch). A step is one compiled call: the action checked (an illegal one ends the
episode with -1), played, the compiled opponent's replies (random or greedy), the rewards, the
termination or truncation at ``max_moves``, the autoreset, and the observation and mask written
into preallocated buffers. An opponent that is a Python object (an agent) cannot run in compiled
code: the step stops with the opponent to move (``AWAIT``), the env asks the agent, and
``reply_one`` plays its answer and finishes the step by the same rules. ``envs.episode`` is the
Python side (spaces, masks, the packed one-game buffers).

States here are the envs' own: made by ``G.init`` and advanced only by this module's calls, so
they are never validated again; only actions are checked.

Every game of the batch is a row of ``states`` (int64, the game's own state layout) with its own
SplitMix64 stream ``rngs[i]``, so a game's trajectory depends only on its seed and its actions,
never on the batch size or the other games. Rules are reached through the game's hooks; the
compiled opponent's replies, the autoreset and the observation encoding happen in the same call,
so Python runs a constant number of operations per batch, not per game.

Observations come from the game's own ``encode`` hook (the one ``game.observation`` uses), written
into one flat float32 row per game (``obs.reshape(n, -1)``). Every function here is ``@per_game``
(see ``envs.core.specialise``): the env of a game compiles that game only.
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
SEAT_SELF = -2  # ``opponent="self"``: the policy plays every seat; ``seats[i]`` follows the mover


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
        policies.random_plies(s, p, rng, cfg[CFG_OPENING_MIN], cfg[CFG_OPENING_MAX], legal)
    seat_mode = cfg[CFG_SEAT_MODE]
    if seat_mode == SEAT_SELF:
        seats[i] = s[C.H_PLAYER]
    else:
        seats[i] = R.randint(rng, 2) if seat_mode == SEAT_RANDOM else seat_mode
    if cfg[CFG_EXTERNAL] == 0:
        _opponent_moves(s, p, seats[i], rng, legal, w, child)


@per_game
def _observe(p, cfg, s, seat, pending, legal, obs_row, mask_row):
    """Observation and mask of one game; a finished game gets an all-ones mask (see step).
    With ``CFG_OBSERVE`` 0 (the AEC env, which observes for the agent asking) nothing is written."""
    if cfg[CFG_OBSERVE] == 0:
        return
    n_legal = G.legal_actions(s, p, legal) if s[C.H_STATUS] == C.ONGOING else 0
    G.encode(s, p, seat, legal, n_legal, obs_row)
    if pending:
        mask_row[:] = 1
    else:
        mask_row[:] = 0
        for j in range(n_legal):
            mask_row[legal[j]] = 1


@per_game
def reset(p, cfg, *buffers):
    """Start a new episode in every game ``i`` with ``which[i]``; observe every such game.

    ``buffers``, the batch's arrays, in this order: ``states, rngs, seats, which, pending, obs,
    masks, legal, w, child`` (numba packs them into one tuple, which travels to the blocks as one
    value: a new buffer is named at the call and where ``_reset_block`` unpacks it, in no
    signature). The games are cut into ``legal.shape[0]`` contiguous blocks, each with its own
    row of scratch ``legal`` and ``child``, run one after the other here and on numba's threads
    by ``reset_parallel``; a game's result never depends on its block."""
    for b in range(buffers[_RESET_LEGAL].shape[0]):
        _reset_block(p, cfg, buffers, b)


@per_game(parallel=True)
def reset_parallel(p, cfg, *buffers):
    for b in prange(buffers[_RESET_LEGAL].shape[0]):
        _reset_block(p, cfg, buffers, b)


_RESET_LEGAL = 7  # where ``legal`` (a scratch row per block) is in ``reset``'s buffers


@per_game
def _reset_block(p, cfg, buffers, b):
    states, rngs, seats, which, pending, obs, masks, legal, w, child = buffers
    n, blocks = states.shape[0], legal.shape[0]
    for i in range(b * n // blocks, (b + 1) * n // blocks):
        if which[i]:
            _new_episode(p, cfg, states[i], rngs[i], seats, i, legal[b], w, child[b])
            pending[i] = False
            # a game over before the learner's first move (the opponent's opening reply ended it):
            # the finished game's all-ones mask, and the next step reports the end (``_step_game``)
            _observe(p, cfg, states[i], seats[i], states[i][C.H_STATUS] != C.ONGOING, legal[b], obs[i], masks[i])


# ``cfg``, the batch's constants: number of players, the reason code of a game cut off by
# max_moves (-1: none), the seat mode (a seat, SEAT_RANDOM or SEAT_SELF), 1 for SAME_STEP
# autoreset, the fewest and most random plies an episode opens with (0, 0: none), 1 when the
# opponent is a Python object (a step stops with it to move: ``AWAIT``), 1 to observe (0: the
# step writes no observation or mask)
(
    CFG_PLAYERS,
    CFG_CAP_REASON,
    CFG_SEAT_MODE,
    CFG_SAME_STEP,
    CFG_OPENING_MIN,
    CFG_OPENING_MAX,
    CFG_EXTERNAL,
    CFG_OBSERVE,
    CFG_SIZE,
) = range(9)
# what a step did to one game, as bits; AWAIT: stopped with the Python opponent to move
TERMINATED, TRUNCATED, ILLEGAL, PENDING, AWAIT = 1, 2, 4, 8, 16


@per_game
def step(p, cfg, *buffers):
    """One step of every game.

    NEXT_STEP autoreset (Gymnasium's): a game that ended on the previous step (``pending``)
    starts a new episode and ignores its action (reward 0, not done). Otherwise the learner's
    action is checked (an illegal one ends the episode with -1), played, and the random opponent
    replies until the learner is to move. A finished game's mask is all ones: its next action is
    ignored, and a masked policy must still be able to sample one. A game that is over before
    the learner's first move (an opponent's reply at the start ended it, at ``max_moves=1``
    say) shows that mask from its reset on, and its first step reports the end as any last step
    does (the learner's return, terminated or truncated), its action ignored, not illegal.

    Self-play (seat mode ``SEAT_SELF``): no opponent; the action is the mover's, ``seats[i]``
    becomes the next mover (it stays the last mover when the game ends), ``rewards[i]`` is the
    return of the seat that moved and ``all_rewards[i]`` every seat's (in both modes).

    SAME_STEP autoreset (stable-baselines3's): the step that ends a game writes its final
    observation into ``final[i]``, starts the next episode at once and returns that episode's
    first observation and mask; no step is ever ignored.

    ``buffers``, the batch's arrays, in this order: ``states, rngs, seats, actions, pending,
    obs, rewards, all_rewards, terminated, truncated, illegal, masks, legal, final, w, child``
    (one tuple, as in ``reset``: ``_step_block`` unpacks it). Blocks of games as in ``reset``
    (``step_parallel`` runs them on numba's threads); ``legal`` and ``child`` hold one scratch
    row per block; ``w`` is None (random opponent) or the greedy opponent's weights
    (``_opponent_moves``).
    """
    for b in range(buffers[_STEP_LEGAL].shape[0]):
        _step_block(p, cfg, buffers, b)


@per_game(parallel=True)
def step_parallel(p, cfg, *buffers):
    for b in prange(buffers[_STEP_LEGAL].shape[0]):
        _step_block(p, cfg, buffers, b)


_STEP_LEGAL = 12  # where ``legal`` (a scratch row per block) is in ``step``'s buffers


@per_game
def _step_block(p, cfg, buffers, b):
    (
        states,
        rngs,
        seats,
        actions,
        pending,
        obs,
        rewards,
        all_rewards,
        terminated,
        truncated,
        illegal,
        masks,
        legal,
        final,
        w,
        child,
    ) = buffers
    n, blocks = states.shape[0], legal.shape[0]
    for i in range(b * n // blocks, (b + 1) * n // blocks):
        mover = seats[i]
        done = _step_game(
            p,
            cfg,
            states[i],
            rngs[i],
            seats,
            i,
            actions[i],
            pending[i],
            obs[i],
            all_rewards[i],
            masks[i],
            legal[b],
            final[i],
            w,
            child[b],
        )
        rewards[i] = all_rewards[i, mover]
        terminated[i] = (done & TERMINATED) != 0
        truncated[i] = (done & TRUNCATED) != 0
        illegal[i] = (done & ILLEGAL) != 0
        pending[i] = (done & PENDING) != 0


# ``one``: a one-game env's buffers packed in one int64 array (``envs.episode.Buffers.pack_one``), so
# a step is a call of three arguments (numba spends ~0.1-0.2 us on each). Its first cells give
# where each buffer starts (in int64 words) and its length in its own dtype.
(
    ONE_CFG,
    ONE_SEATS,
    ONE_RNG,
    ONE_LEGAL,
    ONE_STATE,
    ONE_REWARDS,
    ONE_WEIGHTS,
    ONE_CHILD,
    ONE_MASK,
    ONE_OBS,
    ONE_HEADER,
) = range(0, 22, 2)


@per_game(inline=True)
def _one_views(one):
    """The int64, uint64, float64, int8 and float32 views of ``one``'s buffers."""
    cfg = one[one[ONE_CFG] : one[ONE_CFG] + one[ONE_CFG + 1]]
    seats = one[one[ONE_SEATS] : one[ONE_SEATS] + 1]
    rng = one[one[ONE_RNG] : one[ONE_RNG] + 1].view(np.uint64)
    legal = one[one[ONE_LEGAL] : one[ONE_LEGAL] + one[ONE_LEGAL + 1]]
    s = one[one[ONE_STATE] : one[ONE_STATE] + one[ONE_STATE + 1]]
    rewards = one[one[ONE_REWARDS] : one[ONE_REWARDS] + one[ONE_REWARDS + 1]].view(np.float64)
    w = one[one[ONE_WEIGHTS] : one[ONE_WEIGHTS] + one[ONE_WEIGHTS + 1]].view(np.float64)
    child = one[one[ONE_CHILD] : one[ONE_CHILD] + one[ONE_CHILD + 1]]
    mask = one[one[ONE_MASK] : one[ONE_OBS]].view(np.int8)[: one[ONE_MASK + 1]]
    obs = one[one[ONE_OBS] :].view(np.float32)[: one[ONE_OBS + 1]]
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
def _step_game(p, cfg, s, rng, seats, i, a, pending, obs_row, rewards_row, mask_row, legal, final_row, w, child):
    """One step of game ``i`` (see ``step``): every seat's reward into ``rewards_row``, what
    happened as bits (``TERMINATED``, ``TRUNCATED``, ``ILLEGAL``, ``PENDING``, ``AWAIT``)."""
    rewards_row[:] = 0.0
    done = 0
    if pending:
        _new_episode(p, cfg, s, rng, seats, i, legal, w, child)
        _observe(p, cfg, s, seats[i], s[C.H_STATUS] != C.ONGOING, legal, obs_row, mask_row)
        return 0
    if s[C.H_STATUS] != C.ONGOING:  # over before the learner's first move: the end, reported now
        done = _ended(p, cfg, s, rewards_row)
    elif a < 0 or a >= p[C.P_NUM_ACTIONS] or not G.is_legal(s, p, a):
        rewards_row[seats[i]] = -1.0
        done = TERMINATED | ILLEGAL
    else:
        G.apply(s, p, a)
        if cfg[CFG_SEAT_MODE] == SEAT_SELF:
            if s[C.H_STATUS] == C.ONGOING:
                seats[i] = s[C.H_PLAYER]
        elif cfg[CFG_EXTERNAL] == 0:
            _opponent_moves(s, p, seats[i], rng, legal, w, child)
        elif s[C.H_STATUS] == C.ONGOING and s[C.H_PLAYER] != seats[i]:
            return AWAIT
        if s[C.H_STATUS] != C.ONGOING:
            done = _ended(p, cfg, s, rewards_row)
    return _finish(p, cfg, s, rng, seats, i, done, obs_row, mask_row, legal, final_row, w, child)


@per_game(inline=True)
def _ended(p, cfg, s, rewards_row):
    """The finished game's returns into ``rewards_row``; TRUNCATED if ``max_moves`` cut it off."""
    C.fill_returns(s, cfg[CFG_PLAYERS], rewards_row)
    if s[C.H_REASON] == cfg[CFG_CAP_REASON] and s[C.H_PLY] >= p[C.P_MAX_MOVES]:
        return TRUNCATED
    return TERMINATED


@per_game
def _finish(p, cfg, s, rng, seats, i, done, obs_row, mask_row, legal, final_row, w, child):
    """The end of a step: the observation and mask, and the autoreset of a finished game."""
    ended = (done & (TERMINATED | TRUNCATED)) != 0
    _observe(p, cfg, s, seats[i], ended, legal, obs_row, mask_row)
    if cfg[CFG_SAME_STEP] == 1 and ended:
        final_row[:] = obs_row
        _new_episode(p, cfg, s, rng, seats, i, legal, w, child)
        _observe(p, cfg, s, seats[i], s[C.H_STATUS] != C.ONGOING, legal, obs_row, mask_row)
        return done
    return (done | PENDING) if ended else done


@per_game
def reply_one(p, one, a):
    """The Python opponent's answer ``a`` in a one-game env stopped by ``AWAIT``: played, then
    the step finished by ``step``'s rules (``AWAIT`` again while the opponent is to move).
    Returns the step's bits, or -1 (nothing played) if ``a`` is not legal."""
    cfg, seats, rng, legal, s, rewards, w, child, mask, obs = _one_views(one)
    if a < 0 or a >= p[C.P_NUM_ACTIONS] or s[C.H_STATUS] != C.ONGOING or not G.is_legal(s, p, a):
        return -1
    G.apply(s, p, a)
    if s[C.H_STATUS] == C.ONGOING and s[C.H_PLAYER] != seats[0]:
        return AWAIT
    done = _ended(p, cfg, s, rewards) if s[C.H_STATUS] != C.ONGOING else 0
    return _finish(p, cfg, s, rng, seats, 0, done, obs, mask, legal, obs, None, child)


@per_game
def observe_one(p, one):
    """Observe a one-game env's position (after a reset made in Python): the learner's
    observation and mask, all ones if the game is already over."""
    cfg, seats, rng, legal, s, rewards, w, child, mask, obs = _one_views(one)
    rewards[:] = 0.0
    _observe(p, cfg, s, seats[0], s[C.H_STATUS] != C.ONGOING, legal, obs, mask)
