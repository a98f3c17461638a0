"""Game-generic compiled code: the defaults of the optional hooks, and the entry points behind the
``Game`` facade (legal moves, checked apply, observation, random playouts, perft).

Every function here is ``@per_game``: ``envs._specialise.compiled(_generic, spec)`` jits a copy
for one game whose ``G`` is that game's hook namespace (see ``envs.registry.HOOKS`` for what
each hook does). The defaults are what a game gets when it does not provide a hook: a perfect
information game has nothing to determinise and no chance events; a game without an evaluation
module gets the evaluation that knows nothing (0 everywhere), so search still plays exact wins
and losses and is otherwise uniform.
"""

import numpy as np

from . import _common as C
from ._specialise import per_game

G = None  # the game's hook namespace, bound per game by envs._specialise
REJECTION_TRIES = 4  # random action ids tried per playout move before listing the legal ones


# -- defaults of the optional hooks ---------------------------------------------------------------

@per_game(inline=True)
def uniform_move(s, p, rng, moves):
    """A uniformly random legal move of ongoing ``s``. A uniform action id that happens to be
    legal is a uniform legal move, and on open boards trying a few saves listing all moves; when
    they miss, the legal moves are listed (also uniform)."""
    num_actions = moves.shape[0]
    a = -1
    for _ in range(REJECTION_TRIES):
        b = C.randint(rng, num_actions)
        if G.is_legal(s, p, b):
            a = b
            break
    if a < 0:
        n = G.legal_actions(s, p, moves)
        a = moves[C.randint(rng, n)]
    return a


OPENING_TRIES = 16  # random openings dealt before ``random_opening`` keeps the plain start


@per_game
def random_opening(s, p, rng, lo, hi, moves):
    """Play a random opening on the start position ``s`` in place (the envs' ``opening_plies``):
    a number of plies drawn uniformly from ``lo..hi``, each uniform over the legal moves. An
    opening that ends the game is dealt again from a new start (``OPENING_TRIES`` times, then
    ``s`` keeps the plain start), so an episode never begins finished. ``moves``: scratch of
    ``num_actions`` cells."""
    for _ in range(OPENING_TRIES):
        for _ in range(lo + C.randint(rng, hi - lo + 1)):
            if s[C.H_STATUS] != C.ONGOING:
                break
            G.apply(s, p, uniform_move(s, p, rng, moves))
        if s[C.H_STATUS] == C.ONGOING:
            return
        G.init(s, p, rng)


# scores of a move that ends the game, above and below every tactical score
WIN, DRAW, LOSS = 1e18, -1e17, -1e18


@per_game(inline=True)
def greedy_move(s, p, w, rng, moves, child):
    """The greedy policy (``agents.make("greedy")``, and the vector env's ``opponent="greedy"``):
    the best move of ongoing ``s`` by its one-ply outcome (a win taken, a loss or a draw avoided
    when anything else is available), then by the game's ``tactical`` score with weights ``w``;
    ties broken uniformly from ``rng`` (reservoir sampling). ``child`` is a state-sized scratch."""
    n = G.legal_actions(s, p, moves)
    mover = s[C.H_PLAYER]
    best = -np.inf
    choice = moves[0]
    ties = 0
    for i in range(n):
        a = moves[i]
        C.copy(child, s, s.shape[0])
        G.apply(child, p, a)
        if child[C.H_STATUS] != C.ONGOING:
            winner = child[C.H_WINNER]
            score = WIN if winner == mover else (DRAW if winner == C.NO_WINNER else LOSS)
        else:
            score = G.tactical(s, child, p, a, w)
        if score > best:
            best = score
            choice = a
            ties = 1
        elif score == best:
            ties += 1
            if C.randint(rng, ties) == 0:
                choice = a
    return choice


@per_game
def greedy(s, p, w, rng, moves, child):
    """``greedy_move`` as an entry point of its own (the greedy agent's one compiled call)."""
    return greedy_move(s, p, w, rng, moves, child)


@per_game
def default_random_playout(s, p, rng, moves):
    """Finish ``s`` with uniformly random legal moves (``uniform_move``)."""
    while s[C.H_STATUS] == C.ONGOING:
        G.apply(s, p, uniform_move(s, p, rng, moves))


@per_game
def default_determinise(s, p, rng):
    """Perfect information: nothing is hidden, nothing to redraw."""
    return


@per_game
def default_reveals(s, p, a):
    return False


@per_game
def default_revealed(s, p):
    return 0


@per_game
def default_owners(s, p, out):
    """A placement game's cells own themselves: ``s[HEADER + k]`` (0 empty, 1 Black, 2 White)."""
    for k in range(out.shape[0]):
        out[k] = s[C.HEADER + k]


@per_game
def default_validate(s, p):
    """A game without a ``validate`` hook gets the common header checked (seat, ply, status,
    winner, reason, last action); its own fields are its kernel's business, so a game whose
    kernel indexes memory by a state value should provide ``validate`` (see docs/adding-a-game.md)."""
    return C.check_header(s, p)


@per_game
def default_evaluate(s, p, w):
    return 0


@per_game
def default_hint(s, p, a):
    return 0


@per_game
def default_tactical(s, child, p, a, w):
    """The static evaluation of the position after ``a``, from the mover's view."""
    v = G.evaluate(child, p, w)
    return float(v if child[C.H_PLAYER] == s[C.H_PLAYER] else -v)


@per_game
def default_live_length(s):
    return s.shape[0]


@per_game
def default_filter_moves(s, p, moves, n):
    return n


@per_game
def default_playout(s, p, rng, moves, policy):
    """Only the uniform random policy (code 0) exists without an evaluation module."""
    G.random_playout(s, p, rng, moves)


@per_game
def default_traced_playout(s, p, rng, moves, policy, trace):
    """Uniformly random moves drawn as ``default_random_playout`` draws them, each written with its
    mover into ``trace`` while there is room; returns how many were written. A game's own policy
    (``policy`` > 0) without a traced version of its own is played untraced (returns 0: RAVE then
    learns only from the tree's moves)."""
    if policy != 0:
        G.playout(s, p, rng, moves, policy)
        return 0
    length = 0
    while s[C.H_STATUS] == C.ONGOING:
        a = uniform_move(s, p, rng, moves)
        if length < trace.shape[0]:
            trace[length, 0] = a
            trace[length, 1] = s[C.H_PLAYER]
            length += 1
        G.apply(s, p, a)
    return length


@per_game
def default_priors(s, p, moves, n, out):
    """No prior knowledge: no virtual simulations for any move (MCTS then searches as it would
    without the hook)."""
    for i in range(n):
        out[i, 0] = 0.0
        out[i, 1] = 0.0


@per_game
def default_solve(s, p, limit, deadline, out):
    """No exact solver: never attempted (search alone decides)."""
    out[2] = 0
    return 0


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
    return advance(buf[PACKED_HEADER:start], buf[start:start + lp], a, buf[start + lp:])


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
