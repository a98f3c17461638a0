"""Compiled UCT tree search (numba) over any game, through its hooks (``envs.registry.HOOKS``).

The tree lives in preallocated arrays owned by the caller, so a search can run in several calls
(a time budget checks the clock between them) and the caller can grow the arrays when full:

    links[i, FIRST]   index of node i's first child (children are contiguous), -1 if unexpanded
    links[i, COUNT]   number of children
    links[i, KEY]     the action leading to i (decision edge) or the chance outcome it stands for
    links[i, VISITS]  simulations through i
    links[i, KIND]    DECISION or CHANCE
    value[i]          estimated value of i from the view of the seat that moved into it, in [0, 1]
    amaf[i, 0]        RAVE: simulations through i's parent in which i's action was played later
                      by the same seat (all moves as first, AMAF), and amaf[i, 1] their mean value
    meta[USED]        nodes in use; node 0 is the root
    meta[DEPTH]       deepest tree node reached (plies from the root, chance steps included)

Nodes store no positions: a simulation copies the root state and replays the keys on its path.

Two-player games: every node is a decision node; rewards are mapped to [0, 1] (win 1, draw 1/2,
loss 0) and each node keeps the mean reward of the seat that chose it (values from the mover's
view), as in plain UCT.

RAVE (``rave_k`` > 0, two-player games; Gelly and Silver's rapid action value estimate): every
simulation also credits, at each tree node on its path, the children whose action the seat to
move there played later in the simulation (in the tree or in the playout, first play of the
action counting; the playout reports its moves through the ``traced_playout`` hook). Selection
mixes the two means, ``(1 - beta) * value + beta * amaf`` with ``beta = sqrt(k / (3 n + k))`` for
a child of n visits (the "hand-selected" schedule, k the equivalence parameter), so a move's
AMAF value guides the search until the move has a few hundred simulations of its own; an
unvisited child is rated by its AMAF value with the exploration term of one visit, so good moves
are tried first and bad ones may wait. Shares of the same action from other positions are what
makes AMAF fast and biased; the schedule fades it out.

Leaf values (the game's ``leaf_value`` hook): a playout policy may play no playout at all; the
game's value of the leaf position, in [-1, 1] for the side to move, is backed up instead (as
AlphaZero backs up its net's value), and RAVE learns from the tree's moves alone. Gomoku's
"evaluation" policy is its live-window evaluation: random playouts of a game decided by tactics
say less than the count of the lines each side can still make.

Prior knowledge (``use_priors``; the game's ``priors`` hook): a new node's children start from
virtual simulations the game gives each move (Go: captures, answers to the last move and good
shapes count as wins, own-eye fills and self-ataris as losses; LOA: the evaluation after the
move). With RAVE they start the AMAF statistics, as MoGo's heuristic MC-RAVE does, and real AMAF
counts soon outweigh them; without RAVE (``amaf`` holds them, nothing else writes it) they enter
the child's own mean, ``(n * value + m * prior) / (n + m)`` for m virtual simulations of mean
``prior``, and an unvisited child is rated by its prior with the exploration term of one visit,
so the search tries the moves the knowledge likes first and its own results soon outweigh it
(Gelly and Silver 2007; progressive bias in MC-LOA). A game without the hook gives none, and its
search is the one without priors, move for move.

One-player games with chance (``chance=1``; Calculation, as in the patience study): a decision
node's children are its moves; a move that ``reveals`` a hidden card leads to a CHANCE node whose
children, one slot per possible outcome (the game's ``chance_outcomes``; ``revealed`` says which
slot the position reached), are decision nodes. Each simulation first redraws what the player
cannot see (the ``determinise`` hook), so the card turned after a move is a sample from the cards
the player has not seen, never the true next card. Backup: leaves keep the mean playout result,
chance nodes the visit-weighted mean of their children, decision nodes the max over their visited
children. With ``progress`` > 0 a lost playout is not worth 0 but ``progress`` times the game's
``progress`` hook, the share of the game it got through (Calculation: the cards on the
foundations of 52): where few playouts win, the search still tells the moves that get further
from those that do not, and a win (1) still outweighs any loss.

MCTS-Solver (two-player games; Winands, Bjornsson and Saito 2008): a node whose game result is
known is *proven*, and its value holds the result instead of a mean: ``PROVEN - k`` for a win of
the seat that moved into it in k more plies with best play, ``-PROVEN + k`` for a loss in k plies.
A node that ends the game in the tree is proven at once (a win of its mover in 0 plies; a draw
stays a mean). A backup proves a parent lost for its mover when one child is a proven win (the
seat to move there takes it: a loss one ply later than the child's win), and won for its mover
when every child is a proven loss for the seat to move (it delays the loss as long as it can:
the longest child's plies plus one). Selection takes a proven win at once and never enters a
proven loss while another child is open; a simulation that reaches a proven node backs its exact
result up without a playout, and once the root is proven (a move that wins, or every move loses)
the search stops. Proven values are beyond every mean (``is_proven``), so a reader of ``value``
tells them apart, and ``proven_result`` maps one to the win (1) or loss (0) it stands for.

Every function that touches the game is ``@per_game`` (see ``envs.core.specialise``).
"""

import numpy as np
from numba import njit

from envs.core import kernel as C
from envs.core import rng as R
from envs.core.generic import per_game

G = None  # the game's hook namespace, bound per game by envs.core.specialise

FIRST, COUNT, KEY, VISITS, KIND = 0, 1, 2, 3, 4
NUM_FIELDS = 5
DECISION, CHANCE = 0, 1
USED, DEPTH = 0, 1
RANDOM = 0  # playout policy code of uniform random moves; other codes are the game's (its spec)
PROVEN = 1.0e6  # MCTS-Solver: a proven win of the node's mover in k plies is PROVEN - k
PROVEN_AT = 1.0e5  # |value| beyond this is a proof, never a mean (means lie in [0, 1])


@njit(cache=True)
def is_proven(v):
    """Whether a node value is an MCTS-Solver proof rather than a mean."""
    return v >= PROVEN_AT or v <= -PROVEN_AT


@njit(cache=True)
def proven_plies(v):
    """Plies to the end of a proven value: k of ``PROVEN - k`` or ``-PROVEN + k``."""
    return PROVEN - v if v > 0 else v + PROVEN


def new_tree(capacity: int):
    """Empty tree arrays of ``capacity`` nodes holding just the unexpanded root."""
    links = np.zeros((capacity, NUM_FIELDS), dtype=np.int64)
    links[0, FIRST] = -1
    value = np.zeros(capacity, dtype=np.float64)
    amaf = np.zeros((capacity, 2), dtype=np.float64)
    meta = np.array([1, 0], dtype=np.int64)
    return links, value, amaf, meta


@njit(cache=True)
def extract(links, value, amaf, node, new_links, new_value, new_amaf):
    """Copy the subtree under ``node`` into the empty arrays ``new_*`` as a tree of its own, rooted
    at 0, and return its node count (tree reuse: the search after the next two plies starts from
    what this one learnt about them). Breadth first, so each node's children stay contiguous."""
    old = np.empty(new_links.shape[0], dtype=np.int64)  # the old index of each copied node
    new_links[0, :] = links[node, :]
    new_value[0] = value[node]
    new_amaf[0, :] = amaf[node, :]
    old[0] = node
    used, head = 1, 0
    while head < used:
        o = old[head]
        first, count = links[o, FIRST], links[o, COUNT]
        if first >= 0:
            new_links[head, FIRST] = used
            for i in range(count):
                new_links[used + i, :] = links[first + i, :]
                new_value[used + i] = value[first + i]
                new_amaf[used + i, :] = amaf[first + i, :]
                old[used + i] = first + i
            used += count
        head += 1
    return used


@per_game
def search_moves(s, p, moves, filtered):
    """The moves a decision node of ``s`` is expanded with, into ``moves``; returns how many: the
    legal moves, or with ``filtered`` those the game's ``filter_moves`` keeps (Calculation: only
    the moves that play a card up, when there are any). The agent asks it at the root too, so a
    move that is the only one kept is played without a search."""
    n = G.legal_actions(s, p, moves)
    if filtered:
        n = G.filter_moves(s, p, moves, n)
    return n


@per_game(inline=True)
def _add_children(s, p, links, value, amaf, meta, parent, keys, n, chance, prior):
    """Append ``n`` unexpanded children of ``parent`` with the given keys (kinds from the keys),
    their AMAF statistics starting from ``prior[i]`` (virtual simulations, mean value)."""
    base = meta[USED]
    for i in range(n):
        row = base + i
        links[row, FIRST] = -1
        links[row, COUNT] = 0
        links[row, KEY] = keys[i]
        links[row, VISITS] = 0
        kind = DECISION
        if chance == 1 and links[parent, KIND] == DECISION and G.reveals(s, p, keys[i]):
            kind = CHANCE
        links[row, KIND] = kind
        value[row] = 0.0
        amaf[row, 0] = prior[i, 0]
        amaf[row, 1] = prior[i, 1]
    links[parent, FIRST] = base
    links[parent, COUNT] = n
    meta[USED] = base + n


@njit(cache=True)
def _select(links, value, amaf, node, c, rave_k):
    """UCB1 child of decision ``node``: without RAVE an unvisited child first (children are in
    random order); with RAVE the mixed value (module docstring) plus the exploration term."""
    first = links[node, FIRST]
    log_n = np.log(max(links[node, VISITS], 1))
    best, best_u = first, -np.inf
    for i in range(first, first + links[node, COUNT]):
        n = links[i, VISITS]
        if value[i] >= PROVEN_AT:
            return i  # a proven win for the seat to move here: nothing else matters
        if value[i] <= -PROVEN_AT:
            continue  # a proven loss: only if every child is one (then ``best`` stays first)
        if rave_k > 0.0:
            q = value[i]
            if amaf[i, 0] > 0.0:
                beta = np.sqrt(rave_k / (3.0 * n + rave_k))
                q = (1.0 - beta) * q + beta * amaf[i, 1]
            elif n == 0:
                q = 1.0  # nothing known: try it
            u = q + c * np.sqrt(2.0 * log_n / max(n, 1))
        elif amaf[i, 0] > 0.0:
            # prior knowledge without RAVE: virtual simulations in the child's own mean
            m = amaf[i, 0]
            q = (n * value[i] + m * amaf[i, 1]) / (n + m)
            u = q + c * np.sqrt(2.0 * log_n / max(n, 1))
        else:
            if n == 0:
                return i
            u = value[i] + c * np.sqrt(2.0 * log_n / n)
        if u > best_u:
            best, best_u = i, u
    return best


@njit(cache=True)
def _credit_amaf(links, amaf, path, movers, depth, trace, traced, first_by, ret):
    """RAVE backup of one simulation: at each tree node of ``path`` (deepest first), credit the
    children whose action the seat to move there played first among the later moves (the tree's
    below it, then the playout's ``trace[:traced]``). ``first_by[a]`` is the seat that played
    action ``a`` first from the current point on (-1: nobody), built from the end backwards."""
    first_by[:] = -1
    for j in range(traced - 1, -1, -1):
        first_by[trace[j, 0]] = trace[j, 1]
    for d in range(depth - 1, -1, -1):
        first_by[links[path[d + 1], KEY]] = movers[d]
        nd = path[d]
        first = links[nd, FIRST]
        if first < 0:
            continue
        seat = movers[d]
        reward = 0.5 * (ret[seat] + 1.0)
        for i in range(first, first + links[nd, COUNT]):
            if first_by[links[i, KEY]] == seat:
                amaf[i, 0] += 1.0
                amaf[i, 1] += (reward - amaf[i, 1]) / amaf[i, 0]


@njit(cache=True)
def _prove_parent(links, value, parent, child):
    """MCTS-Solver's backup of the proven ``child`` into its unproven ``parent`` (the module
    docstring): a won child proves the parent lost, a lost one proves it won when every sibling
    is lost too (by the longest of the losses). A proof stays; a parent left open keeps its mean."""
    if is_proven(value[parent]):
        return
    if value[child] >= PROVEN_AT:
        value[parent] = -value[child] + 1.0  # lost one ply after the child's win
        return
    longest = -np.inf
    first = links[parent, FIRST]
    for i in range(first, first + links[parent, COUNT]):
        if value[i] > -PROVEN_AT:
            return
        longest = max(longest, value[i])
    value[parent] = -longest - 1.0


@njit(cache=True)
def _backed_up(links, value, node):
    """Value of an expanded one-player node from its children: max (decision) or mean (chance)."""
    first = links[node, FIRST]
    if links[node, KIND] == CHANCE:
        total, weight = 0.0, 0
        for i in range(first, first + links[node, COUNT]):
            total += links[i, VISITS] * value[i]
            weight += links[i, VISITS]
        return total / weight if weight > 0 else value[node]
    best = -1.0
    for i in range(first, first + links[node, COUNT]):
        if links[i, VISITS] > 0 and value[i] > best:
            best = value[i]
    return best if best >= 0.0 else value[node]


@njit(cache=True, inline="always")
def _value_returns(v, mover, num_players, ret):
    """Returns from a leaf value ``v`` in [-1, 1] for the seat ``mover`` to move: as a two-player
    game's +1/-1, or a one-player game's 1/0 (its win probability)."""
    if num_players == 1:
        ret[0] = 0.5 * (v + 1.0)
    else:
        ret[mover] = v
        ret[1 - mover] = -v


@per_game(inline=True)
def _playout(s, p, moves, rng, policy, trace, traced):
    """Finish the game in ``s`` with the playout ``policy``. ``traced`` (a constant of the entry
    point: RAVE's ``run_rave``) has the game's ``traced_playout`` play and record the moves into
    ``trace``; returns how many it recorded. Otherwise RANDOM plays uniformly random legal moves
    (the study's playouts; the game's ``random_playout``) and another code one of the game's own
    policies (its ``playout`` hook; Calculation's "checked", "greedy" and "foundation-first")."""
    if traced:
        return G.traced_playout(s, p, rng, moves, policy, trace)
    if policy == RANDOM:
        G.random_playout(s, p, rng, moves)
    else:
        G.playout(s, p, rng, moves, policy)
    return 0


# ``settings``: one search's constants, one tuple (``search_settings`` builds it), read by these
# indices. With the tree's arrays as one tuple too (``new_tree``'s), the entry points take six
# arguments and a new setting is added here and in ``search_settings``, in no signature. A plain
# tuple: numba types it from Python about as fast as separate arguments (a namedtuple costs ~1 us).
(
    S_NUM_ACTIONS,
    S_NUM_PLAYERS,
    S_CHANCE,
    S_NUM_OUTCOMES,
    S_C,
    S_THRESHOLD,
    S_MAX_NODES,
    S_POLICY,
    S_RAVE_K,
    S_USE_PRIORS,
    S_FILTERED,
    S_PROGRESS,
) = range(12)


def search_settings(
    *,
    num_actions,
    num_players,
    chance,
    num_outcomes,
    c,
    threshold,
    max_nodes,
    policy,
    rave_k,
    use_priors,
    filtered,
    progress,
) -> tuple:
    """The ``settings`` of ``run`` and ``run_rave``: the game's sizes (``chance`` 1: a one-player
    game against chance, ``num_outcomes`` its chance node's slots), the exploration constant
    ``c``, the expansion ``threshold`` (visits before a leaf is expanded), ``max_nodes`` (the
    most nodes the caller lets the tree grow to), the playout ``policy`` code, RAVE's ``rave_k``,
    ``use_priors`` and ``filtered`` (0 or 1), the lost playout's ``progress`` reward. Each is cast
    to the one type the kernel is compiled for, so every caller hits the same compiled search."""
    return (
        int(num_actions),
        int(num_players),
        int(chance),
        int(num_outcomes),
        float(c),
        int(threshold),
        int(max_nodes),
        int(policy),
        float(rave_k),
        int(use_priors),
        int(filtered),
        float(progress),
    )


@per_game(nogil=True)  # the agent's ``threads`` run one tree each, side by side
def run(p, root, tree, settings, n_sims, rng):
    """Run up to ``n_sims`` simulations from ``root`` on ``tree`` (``new_tree``'s arrays) with
    plain UCT (``_simulate``; with ``use_priors`` the game's prior knowledge in new nodes' means,
    with ``filtered`` only the moves the game's ``filter_moves`` keeps); return how many ran."""
    return _simulate(p, root, tree, settings, n_sims, rng, False)


@per_game(nogil=True)
def run_rave(p, root, tree, settings, n_sims, rng):
    """``run`` with RAVE (``rave_k`` > 0, two-player games only: the caller's business): traced
    playouts, and with ``use_priors`` the game's prior knowledge for new nodes."""
    return _simulate(p, root, tree, settings, n_sims, rng, True)


@njit(cache=True, inline="always")
def _chance(settings, rave):
    """1 for a one-player search against chance; RAVE's entry point is never one (a constant
    there, so it compiles none of the chance nodes' code into its loop)."""
    return 0 if rave else settings[S_CHANCE]


@njit(cache=True, inline="always")
def _solver(settings, rave):
    """Whether MCTS-Solver proves nodes: two-player games without chance."""
    return _chance(settings, rave) == 0 and settings[S_NUM_PLAYERS] == 2


@per_game(inline=True)
def _simulate(p, root, tree, settings, n_sims, rng, rave):
    """Run up to ``n_sims`` simulations from ``root``; return how many ran. ``rave`` (a constant
    of each entry point, so each compiles only the playouts it plays) turns RAVE on with
    equivalence parameter ``rave_k``, and with it ``use_priors`` the game's prior knowledge for
    new nodes (the ``priors`` hook: virtual AMAF simulations). ``filtered`` expands a decision
    node with only the moves the game's ``filter_moves`` keeps (``search_moves``).

    A simulation walks down (``_descend``), values the leaf (``_leaf_returns``) and backs the
    returns up (``_back_up``). They stay one loop body: split into inlined functions, each
    unpacking the tree and scratch tuples per simulation, the search ran ~5% slower where
    simulations are cheapest (Othello's default search, measured), so the parts are marked
    by comments instead. Returns early when an expansion needs more nodes than the arrays hold
    (the caller grows them and calls again), unless they hold ``max_nodes`` already: then
    leaves stop being expanded.
    """
    links, value, amaf, meta = tree
    s, moves, slots, path, movers, ret, trace, first_by, prior = _scratch(p, root, settings, rave)
    chance, solver = _chance(settings, rave), _solver(settings, rave)
    num_players, num_outcomes = settings[S_NUM_PLAYERS], settings[S_NUM_OUTCOMES]
    room = max(settings[S_NUM_ACTIONS], num_outcomes)
    c, threshold, policy = settings[S_C], settings[S_THRESHOLD], settings[S_POLICY]
    rave_k = settings[S_RAVE_K] if rave else 0.0
    progress = 0.0 if rave else settings[S_PROGRESS]
    grows = links.shape[0] < settings[S_MAX_NODES]
    for sim in range(n_sims):
        if solver and is_proven(value[0]):
            return sim  # the root is proven: a move wins, or every move loses (caller stops)
        # _descend: down the tree from a copy of the root, expanding the node it meets
        C.copy(s, root, root.shape[0])
        if chance == 1:
            G.determinise(s, p, rng)  # redraw what the player cannot see
        node, depth = np.int64(0), 0  # not the literal 0: numba would compile _select for it too
        path[0] = 0
        while s[C.H_STATUS] == C.ONGOING:
            if solver and node != 0 and is_proven(value[node]):
                break  # its result is known: back it up without a playout
            if links[node, FIRST] < 0:
                is_leaf = links[node, KIND] == DECISION and node != 0 and links[node, VISITS] < threshold
                if is_leaf:
                    break
                if meta[USED] + room > links.shape[0]:
                    if grows:
                        return sim  # the caller grows the arrays
                    break
                if links[node, KIND] == CHANCE:
                    _add_children(s, p, links, value, amaf, meta, node, slots, num_outcomes, chance, prior)
                else:
                    n = search_moves(s, p, moves, settings[S_FILTERED])
                    for i in range(n - 1, 0, -1):  # random child order: unbiased first visits
                        j = R.randint(rng, i + 1)
                        moves[i], moves[j] = moves[j], moves[i]
                    if settings[S_USE_PRIORS] != 0:
                        G.priors(s, p, moves, n, prior)
                    _add_children(s, p, links, value, amaf, meta, node, moves, n, chance, prior)
            movers[depth] = s[C.H_PLAYER]
            if links[node, KIND] == CHANCE:
                node = links[node, FIRST] + G.revealed(s, p)
            else:
                node = _select(links, value, amaf, node, c, rave_k)
                G.apply(s, p, links[node, KEY])
            depth += 1
            path[depth] = node
        meta[DEPTH] = max(meta[DEPTH], depth)
        # _leaf_returns: a proven leaf's exact result, else the game's leaf value, else a playout
        leaf = path[depth]
        traced = 0
        if solver and depth > 0 and is_proven(value[leaf]):
            # a proven node: its mover's result is exact
            won = value[leaf] > 0
            ret[movers[depth - 1]] = 1.0 if won else -1.0
            ret[1 - movers[depth - 1]] = -1.0 if won else 1.0
        else:
            if solver and depth > 0 and s[C.H_STATUS] != C.ONGOING and s[C.H_WINNER] != C.NO_WINNER:
                # the game ended in the tree: a proof (of a win, as a move can only end the game
                # for its mover in these games, or of a loss where a move hands the opponent it)
                value[leaf] = PROVEN if s[C.H_WINNER] == movers[depth - 1] else -PROVEN
            v = G.leaf_value(s, p, policy) if s[C.H_STATUS] == C.ONGOING else np.nan
            if v == v:  # the game's value stands for the playout
                _value_returns(v, s[C.H_PLAYER], num_players, ret)
            else:
                traced = _playout(s, p, moves, rng, policy, trace, rave)
                C.fill_returns(s, num_players, ret)
                if num_players == 1 and progress > 0.0 and ret[0] < 1.0:
                    ret[0] = progress * G.progress(s, p)  # a lost game: credit for how far it got
        # _back_up: RAVE's AMAF credit, then visits and means (or the one-player backup)
        if rave:
            _credit_amaf(links, amaf, path, movers, depth, trace, traced, first_by, ret)
        links[0, VISITS] += 1
        if chance == 0:
            for d in range(depth, 0, -1):
                nd = path[d]
                links[nd, VISITS] += 1
                if not is_proven(value[nd]):
                    reward = 0.5 * (ret[movers[d - 1]] + 1.0)
                    value[nd] += (reward - value[nd]) / links[nd, VISITS]
                elif solver:
                    _prove_parent(links, value, path[d - 1], nd)
        else:
            leaf = path[depth]
            if leaf != 0:
                links[leaf, VISITS] += 1
            value[leaf] += (ret[0] - value[leaf]) / links[leaf, VISITS]
            for d in range(depth - 1, -1, -1):
                nd = path[d]
                if nd != 0:
                    links[nd, VISITS] += 1
                value[nd] = _backed_up(links, value, nd)
    return n_sims


@njit(cache=True, inline="always")
def _scratch(p, root, settings, rave):
    """A search's scratch arrays, made once per call: the simulated position ``s``, the expanded
    ``moves``, the chance slots, the ``path`` of nodes and the ``movers`` on it, the returns
    ``ret``, RAVE's playout ``trace`` and ``first_by``, and the new children's ``prior``."""
    num_actions, num_outcomes = settings[S_NUM_ACTIONS], settings[S_NUM_OUTCOMES]
    s = np.empty_like(root)
    moves = np.empty(num_actions, dtype=np.int64)
    slots = np.arange(max(num_outcomes, 1))
    path = np.empty(2 * p[C.P_MAX_MOVES] + 4, dtype=np.int64)
    movers = np.empty_like(path)
    ret = np.zeros(settings[S_NUM_PLAYERS], dtype=np.float64)
    trace = np.empty((p[C.P_MAX_MOVES] + 1 if rave else 0, 2), dtype=np.int64)
    first_by = np.empty(num_actions, dtype=np.int64)
    prior = np.zeros((max(num_actions, num_outcomes), 2), dtype=np.float64)  # stays zero without priors
    return s, moves, slots, path, movers, ret, trace, first_by, prior
