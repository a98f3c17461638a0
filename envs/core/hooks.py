"""The hooks: what a game's kernel and evaluation modules provide, by name, to generic compiled
code (``G.legal_actions(...)``), and the defaults of the optional ones.

``HOOKS`` is the contract between a game and everything generic (the Game facade, playouts,
search, the vector env): each hook's signature and meaning, and which module of a ``GameSpec``
provides it. The defaults are what a game gets when it does not provide a hook: a perfect
information game has nothing to determinise and no chance events; a game without an evaluation
module gets the evaluation that knows nothing (0 everywhere), so search still plays exact wins
and losses and is otherwise uniform. They are generic code themselves (``@per_game``),
specialised with the game's own hooks by ``envs.core.specialise.hooks``.
"""

import numpy as np

from . import kernel as C
from . import rng as R
from .generic import per_game

G = None  # the game's hook namespace, bound per game by envs.core.specialise
REJECTION_TRIES = 4  # random action ids tried per playout move before listing the legal ones

# Hooks that generic compiled code calls by name, and which module of a spec provides each.
# This module holds a default for every optional one.
HOOKS = {
    # rules (``kernel``; the first five are required)
    "init": "kernel",  # init(s, p, rng): fill a start position (rng: SplitMix64, for deals)
    "legal_actions": "kernel",  # legal_actions(s, p, out) -> n: legal ids ascending into out[:n]
    "is_legal": "kernel",  # is_legal(s, p, a) -> bool, for a in range(num_actions)
    "apply": "kernel",  # apply(s, p, a): play legal action a in place
    # encode(s, p, seat, legal, n_legal, out): observation, flat float32,
    # every cell of ``out`` written (it may hold anything before)
    "encode": "kernel",
    "random_playout": "kernel",  # random_playout(s, p, rng, moves): finish s with uniform legal moves
    "determinise": "kernel",  # determinise(s, p, rng): redraw what the mover cannot see
    "reveals": "kernel",  # reveals(s, p, a) -> bool: playing a turns up a hidden card
    "revealed": "kernel",  # revealed(s, p) -> slot in [0, chance_outcomes): what turned up
    "owners": "kernel",  # owners(s, p, out): final owner of each cell, 0/1/2 (board games)
    # progress(s, p) -> float in [0, 1]: how far a one-player game in ``s``
    # got (Calculation: the share of the cards on the foundations), what MCTS's
    # ``progress_reward`` credits a lost playout with (default 0)
    "progress": "kernel",
    # validate(s, p) -> 0 or C.error(code, cell): every invariant the
    # kernel relies on (default: the common header, C.check_header)
    "validate": "kernel",
    # search knowledge (``evaluation``)
    "evaluate": "evaluation",  # evaluate(s, p, w) -> int: static value for the side to move
    "hint": "evaluation",  # hint(s, p, a) -> int: move ordering, higher searched first
    "tactical": "evaluation",  # tactical(s, child, p, a, w) -> float: greedy score of move a
    "live_length": "evaluation",  # live_length(s) -> int: leading cells a search copy must carry
    "filter_moves": "evaluation",  # filter_moves(s, p, moves, n) -> n': moves search considers
    "playout": "evaluation",  # playout(s, p, rng, moves, policy): finish s with a named policy
    # traced_playout(s, p, rng, moves, policy, trace) -> n: the same,
    # writing the moves that earn AMAF credit and their movers into
    # trace[i, 0], trace[i, 1] (RAVE; Go leaves its passes out)
    "traced_playout": "evaluation",
    # leaf_value(s, p, policy) -> float: the value, in [-1, 1] for the side
    # to move, of ongoing ``s`` that stands for a playout of ``policy`` (a
    # policy that plays none: MCTS backs it up as AlphaZero backs up its
    # net's value); NaN: play the playout (the default)
    "leaf_value": "evaluation",
    # priors(s, p, moves, n, out): prior knowledge of the n legal moves for a
    # new MCTS node, as virtual simulations out[i, 0] of mean value
    # out[i, 1] for the mover (RAVE starts from them; default none: 0)
    "priors": "evaluation",
    # solve(s, p, limit, deadline, out) -> 1 solved (out[0]: 1 won, 0
    # drawn, -1 lost for the mover; out[1]: a move that does it), 0 not
    # attempted (more than ``limit`` left to play), -1 out of time;
    # out[2]: nodes; out[3]: when lost, the margin of the move out[1]
    # that loses least, 0 if unknown (an exact endgame solver; alpha-beta's
    # ``endgame``)
    "solve": "evaluation",
    # threats(s, p, seat, limit, deadline, out) -> 1 if ``seat``, as if to
    # move, wins by forcing moves within ``limit`` of its own (every one
    # forcing the only answer), 2 if by a threat that leaves many answers,
    # all losing, 3 if by two such threats (only with out[3] = 2 on entry, an
    # ``out`` of four: a deeper, slower search) (out[0]: its first move,
    # out[1]: its moves in the line, out[2]: nodes), 0 none found, -1 none
    # found before ``deadline`` (``now()`` seconds; 0.0: none), unfinished;
    # out[0] >= 0 on entry: a move to try first (Gomoku's VCF, VCT and VCT2;
    # alpha-beta's, MCTS's and AlphaZero's attack and defence at the root)
    "threats": "evaluation",
}
REQUIRED_HOOKS = ("init", "legal_actions", "is_legal", "apply", "encode")


# -- the uniformly random move, which the default playout plays ---------------------------------


@per_game(inline=True)
def uniform_move(s, p, rng, moves):
    """A uniformly random legal move of ongoing ``s``. A uniform action id that happens to be
    legal is a uniform legal move, and on open boards trying a few saves listing all moves; when
    they miss, the legal moves are listed (also uniform)."""
    num_actions = moves.shape[0]
    a = -1
    for _ in range(REJECTION_TRIES):
        b = R.randint(rng, num_actions)
        if G.is_legal(s, p, b):
            a = b
            break
    if a < 0:
        n = G.legal_actions(s, p, moves)
        a = moves[R.randint(rng, n)]
    return a


# -- defaults of the optional hooks -----------------------------------------------------------------


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
def default_progress(s, p):
    """No measure of progress: a lost game got nowhere."""
    return 0.0


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


@per_game(inline=True)
def default_leaf_value(s, p, policy):
    """Every policy plays its playout: no value stands for one."""
    return np.nan


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


@per_game
def default_threats(s, p, seat, limit, deadline, out):
    """No threat-space search: nothing found."""
    out[0], out[1], out[2] = -1, 0, 0
    return 0
