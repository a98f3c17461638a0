"""Compiled core of the vector env: step, reset and observe a whole batch of games in one call.

Every game of the batch is a row of ``states`` (int64, the game's own state layout) with its own
SplitMix64 stream ``rngs[i]``, so a game's trajectory depends only on its seed and its actions,
never on the batch size or the other games. Rules are reached through ``envs._dispatch`` by game
id; the uniformly random opponent's replies, the autoreset and the observation encoding happen in
the same call, so Python runs a constant number of operations per batch, not per game.

Observation encoders reproduce ``game.observation(state, seat)`` bit for bit (a test compares
them on random positions) and write into one flat float32 row per game (``obs.reshape(n, -1)``),
so one compiled function serves every game whatever its observation shape:

    board games   plane 0 = seat's stones, 1 = opponent's, 2 = ones if seat to move
                  (+ Go plane 3 = empty points the mover may not play), cell = r*N + c
    calculation   13 columns per row: rows 0..3 foundation tops one-hot, 4 face-up card,
                  5 unseen counts per rank, 6 + 48w + d waste pile w, d cards below its top
"""

import numpy as np
from numba import njit

from . import _common as C
from . import _dispatch as D
from .calculation import _kernel as calc
from .loa import _kernel as loa

SEAT_RANDOM = -1  # ``agent_seat="random"``: a fresh seat per episode, drawn from the game's stream


# -- observation encoders (must match each game's ``_observation``) -----------------------------------

@njit(cache=True)
def _encode_cells(s, seat, n, out):
    """Planes 0..2 of the board games whose cell ``k`` is ``s[HEADER + k]`` (Othello, Gomoku, Go)."""
    nn = n * n
    own, other = seat + 1, 2 - seat
    for k in range(nn):
        v = s[C.HEADER + k]
        out[k] = 1.0 if v == own else 0.0
        out[nn + k] = 1.0 if v == other else 0.0
    to_move = 1.0 if s[C.H_PLAYER] == seat else 0.0
    for k in range(nn):
        out[2 * nn + k] = to_move


@njit(cache=True)
def _encode_loa(s, seat, out):
    """LOA planes from its two bitboards (bit = cell = r*8 + c)."""
    own, other = s[loa.S_BB + seat], s[loa.S_BB + 1 - seat]
    to_move = 1.0 if s[C.H_PLAYER] == seat else 0.0
    for k in range(64):
        out[k] = np.float32((own >> k) & 1)
        out[64 + k] = np.float32((other >> k) & 1)
        out[128 + k] = to_move


@njit(cache=True)
def _encode_go_illegal(s, n, legal, n_legal, out):
    """Go plane 3: empty points the side to move may not play (ko, suicide, superko)."""
    nn = n * n
    base = 3 * nn
    for k in range(nn):
        out[base + k] = 0.0
    if s[C.H_STATUS] != C.ONGOING:
        return
    for k in range(nn):
        if s[C.HEADER + k] == 0:
            out[base + k] = 1.0
    for j in range(n_legal):
        if legal[j] < nn:
            out[base + legal[j]] = 0.0


@njit(cache=True)
def _encode_calculation(s, out):
    out[:] = 0.0
    for k in range(calc.NF):
        out[k * 13 + calc.card_on_foundation(k, s[calc.FOUND + k]) - 1] = 1.0
    pos = s[calc.POS]
    if pos < calc.NSTOCK:
        out[4 * 13 + s[calc.STOCK + pos] - 1] = 1.0
    for i in range(pos + 1, calc.NSTOCK):  # only counts of the face-down cards, never their order
        out[5 * 13 + s[calc.STOCK + i] - 1] += 1.0
    for w in range(calc.NW):
        n = s[calc.WLEN + w]
        for d in range(n):
            card = s[calc.WASTE + w * calc.NSTOCK + n - 1 - d]
            out[(6 + w * calc.NSTOCK + d) * 13 + card - 1] = 1.0


@njit(cache=True)
def encode(gid, s, seat, n, legal, n_legal, out):
    """``game.observation(s, seat)`` flattened into ``out``; ``legal[:n_legal]`` are s's legal actions."""
    if gid == D.CALCULATION:
        _encode_calculation(s, out)
    elif gid == D.LOA:
        _encode_loa(s, seat, out)
    else:
        _encode_cells(s, seat, n, out)
        if gid == D.GO:
            _encode_go_illegal(s, n, legal, n_legal, out)


# -- episodes ------------------------------------------------------------------------------------

@njit(cache=True)
def _opponent_moves(gid, s, p, seat, rng, legal):
    """The random opponent plays until ``seat`` is to move or the game is over."""
    while s[C.H_STATUS] == C.ONGOING and s[C.H_PLAYER] != seat:
        n = D.legal_actions(gid, s, p, legal)
        D.apply(gid, s, p, legal[C.randint(rng, n)])


@njit(cache=True)
def _new_episode(gid, p, s, rng, seat_mode, seats, i, legal):
    D.init(gid, s, p, rng)
    seats[i] = C.randint(rng, 2) if seat_mode == SEAT_RANDOM else seat_mode
    _opponent_moves(gid, s, p, seats[i], rng, legal)


@njit(cache=True)
def _observe(gid, p, s, seat, n, pending, legal, obs_row, mask_row):
    """Observation and mask of one game; a finished game gets an all-ones mask (see step)."""
    n_legal = D.legal_actions(gid, s, p, legal)
    encode(gid, s, seat, n, legal, n_legal, obs_row)
    if pending:
        mask_row[:] = 1
    else:
        mask_row[:] = 0
        for j in range(n_legal):
            mask_row[legal[j]] = 1


@njit(cache=True)
def reset(gid, p, n, states, rngs, seat_mode, seats, which, pending, obs, masks, legal):
    """Start a new episode in every game ``i`` with ``which[i]``; observe every such game."""
    for i in range(states.shape[0]):
        if which[i]:
            _new_episode(gid, p, states[i], rngs[i], seat_mode, seats, i, legal)
            pending[i] = False
            _observe(gid, p, states[i], seats[i], n, False, legal, obs[i], masks[i])


@njit(cache=True)
def step(gid, p, n, num_players, cap_reason, states, rngs, seat_mode, seats, actions, pending,
         obs, rewards, terminated, truncated, illegal, masks, legal, returns):
    """One step of every game (NEXT_STEP autoreset).

    A game that ended on the previous step (``pending``) starts a new episode and ignores its
    action (reward 0, not done). Otherwise the learner's action is checked (an illegal one ends
    the episode with -1), played, and the random opponent replies until the learner is to move.
    A finished game's mask is all ones: its next action is ignored, and a masked policy must still
    be able to sample one.
    """
    num_actions = masks.shape[1]
    for i in range(states.shape[0]):
        s = states[i]
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        illegal[i] = False
        if pending[i]:
            _new_episode(gid, p, s, rngs[i], seat_mode, seats, i, legal)
            pending[i] = False
        else:
            a = actions[i]
            if a < 0 or a >= num_actions or s[C.H_STATUS] != C.ONGOING or not D.is_legal(gid, s, p, a):
                rewards[i] = -1.0
                terminated[i] = True
                illegal[i] = True
            else:
                D.apply(gid, s, p, a)
                _opponent_moves(gid, s, p, seats[i], rngs[i], legal)
                if s[C.H_STATUS] != C.ONGOING:
                    C.fill_returns(s, num_players, returns)
                    rewards[i] = returns[seats[i]]
                    if s[C.H_REASON] == cap_reason and s[C.H_PLY] >= p[C.P_MAX_MOVES]:
                        truncated[i] = True
                    else:
                        terminated[i] = True
            pending[i] = terminated[i] or truncated[i]
        _observe(gid, p, s, seats[i], n, pending[i], legal, obs[i], masks[i])
