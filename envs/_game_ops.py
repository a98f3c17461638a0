"""The entry points behind the ``Game`` facade and ``envs.State``, as generic compiled code:
legal moves, checked apply, observation, random playouts, perft. A game holds its compiled copy
as ``Game._ops`` (hence the name); the ``@per_game`` mark itself is ``envs.core.generic``'s.

Every function here is ``@per_game``: ``envs.core.specialise.compiled(_game_ops, spec)`` jits a
copy for one game whose ``G`` is that game's hook namespace (``envs.core.hooks.HOOKS`` says
what each hook does).
"""

import numpy as np

from .core import kernel as C
from .core.generic import per_game

G = None  # the game's hook namespace, bound per game by envs.core.specialise


# -- entry points of the Game facade ----------------------------------------------------------------


@per_game
def legal_array(s, p, num_actions):
    """The legal actions as a new trimmed array: one compiled call for ``Game.legal_actions``."""
    out = np.empty(num_actions, dtype=np.int64)
    if s[C.H_STATUS] != C.ONGOING:
        return out[:0].copy()
    n = G.legal_actions(s, p, out)
    return out[:n].copy()


@per_game
def _invalid(code):
    """The one-cell answer ``[-code]`` of a checked entry point for a state ``validate`` refuses
    (no legal-action list and no state has one negative cell)."""
    out = np.empty(1, dtype=np.int64)
    out[0] = -code
    return out


@per_game
def checked_legal(s, p, num_actions):
    """``validate`` then ``legal_array`` in one compiled call (``Game.legal_actions`` is on every
    Python game loop, and a second call into numba would cost ~0.3 us): the legal actions, or
    ``[-code]`` if the state is invalid."""
    e = G.validate(s, p)
    if e:
        return _invalid(e)
    return legal_array(s, p, num_actions)


@per_game
def checked_apply(s, p, a):
    """A copy of ``s`` after action ``a``, an empty array if ``a`` is not legal in ``s``, or
    ``[-code]`` if ``s`` is not a valid state (``validate``).

    Validation, copy and move in one compiled call: ``Game.apply`` is on every Python game loop,
    and each call into numba costs about as much as the move itself.
    """
    e = G.validate(s, p)
    if e:
        return _invalid(e)
    return play(s, p, a)


@per_game
def advance(s, p, a, legal):
    """Play ``a`` in ``s`` in place and list the next legal actions into ``legal``: the one
    compiled call of ``State.apply_action``. Returns how many legal actions follow (0 once the
    game is over), or -1 (``s`` untouched) if ``a`` is not legal. ``s`` is a state this module's
    own calls produced, so it is not validated again; ``a`` must lie in the action space."""
    if s[C.H_STATUS] != C.ONGOING or not G.is_legal(s, p, a):
        return -1
    G.apply(s, p, a)
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    return G.legal_actions(s, p, legal)


# ``State``'s buffer: ``[len(s), len(p), s..., p..., legal...]`` in one int64 array, so a move is
# a call of two arguments (numba type-checks every argument of every call from Python).
PACKED_HEADER = 2


@per_game
def advance_packed(buf, a):
    """``advance`` on the state, parameters and legal list packed in ``buf`` (``State``)."""
    ls, lp = buf[0], buf[1]
    start = PACKED_HEADER + ls
    return advance(buf[PACKED_HEADER:start], buf[start : start + lp], a, buf[start + lp :])


@per_game
def list_legal(s, p, legal):
    """The legal actions of a validated ``s`` into ``legal``; how many (0 once the game is over)."""
    if s[C.H_STATUS] != C.ONGOING:
        return 0
    return G.legal_actions(s, p, legal)


@per_game(inline=True)
def play(s, p, a):
    """``checked_apply`` for a state the caller's own compiled calls produced (an env's current
    position): the action is checked, the state is not validated again. A copy of ``s`` after
    ``a``, or an empty array if ``a`` is not legal."""
    if s[C.H_STATUS] != C.ONGOING or not G.is_legal(s, p, a):
        return np.empty(0, dtype=np.int64)
    t = s.copy()
    G.apply(t, p, a)
    return t


@per_game
def observe_masked(s, p, seat, to_move, out, mask):
    """An env's observation of its own position in one call: ``seat``'s planes into the flat
    float32 ``out`` and, if ``to_move``, the legal actions into the int8 ``mask`` (else zeros)."""
    legal = np.empty(mask.shape[0], dtype=np.int64)
    n = G.legal_actions(s, p, legal) if s[C.H_STATUS] == C.ONGOING else 0
    G.encode(s, p, seat, legal, n, out)
    mask[:] = 0
    if to_move:
        for j in range(n):
            mask[legal[j]] = 1


@per_game
def observe(s, p, seat, num_actions, out):
    """``Game.observation(s, seat)`` into the flat float32 ``out``."""
    legal = np.empty(num_actions, dtype=np.int64)
    n = G.legal_actions(s, p, legal) if s[C.H_STATUS] == C.ONGOING else 0
    G.encode(s, p, seat, legal, n, out)


@per_game
def random_playouts(p, state_len, num_actions, num_players, rng, returns, lengths):
    """Fill ``returns[g]`` and ``lengths[g]`` with uniformly random games from a fresh start."""
    s = np.zeros(state_len, dtype=np.int64)
    moves = np.zeros(num_actions, dtype=np.int64)
    for g in range(returns.shape[0]):
        G.init(s, p, rng)
        G.random_playout(s, p, rng, moves)
        C.fill_returns(s, num_players, returns[g])
        lengths[g] = s[C.H_PLY]


@per_game
def perft(s0, p, depth, num_actions):
    """Number of move sequences of length ``depth`` from ``s0`` (a finished game counts as a leaf).

    Iterative with an explicit stack of states and move lists, so it needs no recursion.
    """
    if depth == 0 or s0[C.H_STATUS] != C.ONGOING:
        return 1
    states = np.zeros((depth + 1, s0.shape[0]), dtype=np.int64)
    moves = np.zeros((depth, num_actions), dtype=np.int64)
    count = np.zeros(depth, dtype=np.int64)
    index = np.zeros(depth, dtype=np.int64)
    states[0, :] = s0
    count[0] = G.legal_actions(states[0], p, moves[0])
    level = 0
    total = 0
    while level >= 0:
        if index[level] == count[level]:
            level -= 1
            continue
        child = states[level + 1]
        child[:] = states[level]
        G.apply(child, p, moves[level, index[level]])
        index[level] += 1
        if level + 1 == depth or child[C.H_STATUS] != C.ONGOING:
            total += 1
        else:
            level += 1
            count[level] = G.legal_actions(child, p, moves[level])
            index[level] = 0
    return total
