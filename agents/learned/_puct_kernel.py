"""Compiled PUCT tree (numba) over the board-game kernels, with batched leaf evaluation.

One search step is split in three so that a neural network can evaluate many leaves at once:

    select(...)   numba: walk down from the root up to K times by PUCT, adding a virtual loss on
                  every node walked, and write each leaf's observation planes and legal mask;
                  finished games are backed up on the spot (their value is known)
    (Python)      one torch forward pass over the K observations -> policy logits, values
    expand(...)   numba: give each leaf its children with softmax priors over its legal moves,
                  remove the virtual losses and back the value up the path

Arrays (owned by the caller, grown by the caller when ``select`` reports it is out of room):

    links[i, FIRST]   first child of node i (children are contiguous), -1 while unexpanded
    links[i, COUNT]   number of children
    links[i, KEY]     the action leading to node i
    links[i, VISITS]  visits of node i, virtual visits included
    links[i, MOVER]   the seat that played KEY (whose view ``wsum[i]`` takes)
    links[i, PENDING] 1 while node i waits in the current batch for its evaluation
    wsum[i]           sum of values of node i from MOVER's view (+1 win .. -1 loss)
    prior[i]          the network's probability of KEY in the parent position
    meta[USED]        nodes in use (node 0 is the root)

Nodes store no positions: a walk copies the root state and replays the keys on its path, which
keeps a node at 7 int64 + 2 float64 and the tree cheap to grow.

Observation planes (``encoding``; a weights sidecar records which one its net reads):

    1  the planes of ``game.observation(state, mover)``, written by the game's own ``encode``
       hook: for the placement games the mover's stones, the opponent's stones, a plane of ones
       (the mover is to move; it also marks the board inside the zero padding of the
       convolutions), and for Go a fourth plane of empty points where the mover may not play.
    2  encoding 1 plus a plane of the cells the mover's legal moves start from. Mobility decides
       Othello, and a flip can reach across the whole board: on 16x16 that is further than a
       small net sees, so the kernels' own move generation is handed to it (for Gomoku the plane
       is the empty points; for Go the empty points the mover may play). In LOA it is the
       squares holding a piece that can move: a move's length is the count of pieces on a whole
       line, which a 3x3 tower sees only after many layers, and a blocked piece is what LOA's
       evaluation calls poor mobility. A 0/1 plane rather than the number of moves per square
       (scaled to [0, 1]): the replay buffer stores planes as uint8 0/1, and the policy head
       already spreads each square's logits over its directions.

Actions and policy planes (``policy_planes``): a game the nets play numbers its actions
``cell * P + plane`` on an N x N board, plus at most one last action (the pass), and the policy
head writes P logits per cell in that order. A placement game has P = 1 (the cell is the move);
LOA has P = 8, the compass directions (``COMPASS``): the line fixes the distance, so
(from-square, direction) names every move, on any board size.

"""

import numpy as np
from numba import njit

from envs.core import kernel as C
from envs.core.generic import per_game

G = None  # the game's hook namespace, bound per game by envs.core.specialise

FIRST, COUNT, KEY, VISITS, MOVER, PENDING = 0, 1, 2, 3, 4, 5
NUM_FIELDS = 6
USED = 0


def new_tree(capacity: int):
    """Empty tree arrays of ``capacity`` nodes holding just the unexpanded root."""
    links = np.zeros((capacity, NUM_FIELDS), dtype=np.int64)
    links[0, FIRST] = -1
    links[0, MOVER] = -1
    wsum = np.zeros(capacity, dtype=np.float64)
    prior = np.zeros(capacity, dtype=np.float64)
    meta = np.array([1], dtype=np.int64)
    return links, wsum, prior, meta


ENCODINGS = (1, 2)


def num_planes(game, encoding: int) -> int:
    """Input planes of ``encoding`` for ``game`` (see the module docstring)."""
    if encoding not in ENCODINGS:
        raise ValueError(f"encoding={encoding!r}: expected one of {ENCODINGS}")
    return game.observation_shape[0] + (1 if encoding >= 2 else 0)


# What the policy planes of a cell mean, by their number P (``policy_planes``): a symmetry of the
# board must move the planes along with the cells. One plane is the cell itself; eight are the
# compass directions as (row, column) steps, 0 N (towards row 0), then clockwise: 1 NE, 2 E,
# 3 SE, 4 S, 5 SW, 6 W, 7 NW (LOA's numbering, ``envs/loa/_kernel.py``).
COMPASS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
PLANE_LAYOUTS = {1: None, len(COMPASS): COMPASS}


def policy_planes(game) -> int:
    """The policy planes P per cell of ``game``'s actions, or 0 if its actions are not cells x
    planes (see the module docstring).

    One rule for every game, read off the game itself: its board is N x N (``board_size``),
    its observation planes are N x N, and ``num_actions`` is N*N*P plus 0 or 1 (the pass) for a
    P the symmetries know (``PLANE_LAYOUTS``): Othello and Go N*N + 1, Gomoku N*N, LOA
    64 * 8 + 1."""
    n = game.board_size
    if n is None or tuple(game.observation_shape[1:]) != (n, n):
        return 0
    planes, rest = divmod(game.num_actions, n * n)
    return planes if planes in PLANE_LAYOUTS and rest in (0, 1) else 0


def applies_to(game) -> bool:
    """The nets read N x N board planes and write ``policy_planes`` logits per cell (and the
    pass): two-player games whose actions are cells x planes (the placement games, LOA)."""
    return game.num_players == 2 and policy_planes(game) > 0


def has_ownership(game) -> bool:
    """Whether a finished game says who owns each point (the ownership head's target): in a
    placement game a stone owns its point (in Go, an empty area its colour walls in). LOA is won
    by the shape of the pieces, not by the squares they hold, so it gets no such target rather
    than an invented one."""
    return bool(game.spec.placement)


@per_game
def encode(s, p, n, per_cell, encoding, moves, k, out):
    """Write the planes of ``encoding`` for ``s`` from the mover's view into ``out`` (C, n, n);
    ``moves[:k]`` are the mover's legal actions, ``cell * per_cell + plane`` (a pass, id
    n*n*per_cell, has no cell)."""
    flat = out.reshape(-1)
    nn = n * n
    planes = out.shape[0] - (1 if encoding >= 2 else 0)
    G.encode(s, p, s[C.H_PLAYER], moves, k, flat[: planes * nn])
    if encoding >= 2:
        base = planes * nn
        flat[base:] = 0.0
        for j in range(k):
            if moves[j] < nn * per_cell:
                flat[base + moves[j] // per_cell] = 1.0


@per_game
def encode_state(s, p, n, per_cell, encoding, out):
    """``encode`` for a lone state: finds the legal moves itself (self-play's training planes)."""
    moves = np.empty(n * n * per_cell + 1, dtype=np.int64)
    k = G.legal_actions(s, p, moves) if s[C.H_STATUS] == C.ONGOING else 0
    encode(s, p, n, per_cell, encoding, moves, k, out)


@per_game
def ownership(s, p, n, seat, out):
    """The final owner of every point of finished game ``s`` from ``seat``'s view into ``out``
    (n, n): +1 the seat's, -1 the opponent's, 0 nobody's (the game's ``owners`` hook: a stone
    owns its point; in Go an empty region reaching stones of one colour only is that colour's,
    Tromp-Taylor). The ownership head learns to predict it: a target per point, where the
    result is one number per game."""
    owner = np.empty(n * n, dtype=np.int64)
    G.owners(s, p, owner)
    for i in range(n * n):
        out[i // n, i % n] = 0 if owner[i] == 0 else (1 if owner[i] == seat + 1 else -1)


@njit(cache=True)
def _select_child(links, wsum, prior, node, c_puct, fpu):
    """The child of ``node`` maximising Q + c * P * sqrt(N) / (1 + n); unvisited children get
    Q = ``fpu`` (first-play urgency, from the mover's view)."""
    first = links[node, FIRST]
    sqrt_n = np.sqrt(max(links[node, VISITS], 1))
    best, best_u = first, -np.inf
    for i in range(first, first + links[node, COUNT]):
        n = links[i, VISITS]
        q = wsum[i] / n if n > 0 else fpu
        u = q + c_puct * prior[i] * sqrt_n / (1.0 + n)
        if u > best_u:
            best, best_u = i, u
    return best


@njit(cache=True)
def _backup(links, wsum, path, depth, value, seat, undo):
    """Add ``value`` (from ``seat``'s view) to every node of the path; ``undo`` removes the
    virtual loss (-1, one visit) the selection added, otherwise the visit is counted here."""
    for d in range(depth, -1, -1):
        nd = path[d]
        if undo == 0:
            links[nd, VISITS] += 1
        mover = links[nd, MOVER]
        v = value if mover == seat else -value
        if mover < 0:
            continue
        wsum[nd] += v + (1.0 if undo == 1 else 0.0)


def new_picks(rows: int, planes: int, n: int, num_actions: int, depth_cap: int):
    """The rows of ``rows`` leaves picked for the network, one tuple (``select`` writes them,
    ``expand`` reads them; each tree of a search its own span of rows): each leaf's ``obs``
    planes (planes, n, n) float32 and legal ``masks`` (int8), its node in ``leaves``, the nodes
    of its walk in ``paths`` (up to ``depth_cap``) and its ``depths``, and the seat to move there
    in ``movers``. The tree's arrays travel as ``new_tree``'s tuple: a new array is added where
    it is made and where it is unpacked, in no signature."""
    obs = np.zeros((rows, planes, n, n), dtype=np.float32)
    masks = np.zeros((rows, num_actions), dtype=np.int8)
    leaves = np.zeros(rows, dtype=np.int64)
    paths = np.zeros((rows, depth_cap), dtype=np.int64)
    depths = np.zeros(rows, dtype=np.int64)
    movers = np.zeros(rows, dtype=np.int64)
    return obs, masks, leaves, paths, depths, movers


@per_game
def select(p, root, tree, picks, start, n, encoding, batch, c_puct, fpu):
    """Pick up to ``batch`` leaves of ``tree`` (``new_tree``'s arrays) for evaluation into the
    rows of ``picks`` (``new_picks``) from row ``start`` on; return (leaves picked, walks made).

    A walk that ends in a finished game is backed up at once and picks no leaf. The batch stops
    early at a leaf already pending (more walks would pile up on it) or when the arrays might
    not hold the children of the leaves picked so far (``walks`` < ``batch`` then tells the
    caller to grow the tree when nothing was picked).
    """
    links, wsum, prior, meta = tree
    obs, masks, leaves, paths, depths, movers = picks
    num_actions = masks.shape[1]
    per_cell = num_actions // (n * n)
    s = np.empty_like(root)
    moves = np.empty(num_actions, dtype=np.int64)
    ret = np.zeros(2, dtype=np.float64)
    picked = 0
    walks = 0
    reserve = meta[USED]
    while walks < batch:
        if reserve + num_actions > links.shape[0]:
            break
        row = start + picked
        s[:] = root
        node = 0
        depth = 0
        paths[row, 0] = 0
        while links[node, FIRST] >= 0 and s[C.H_STATUS] == C.ONGOING:
            node = _select_child(links, wsum, prior, node, c_puct, fpu)
            G.apply(s, p, links[node, KEY])
            depth += 1
            paths[row, depth] = node
        if links[node, PENDING] == 1:
            break
        walks += 1
        if s[C.H_STATUS] != C.ONGOING:
            C.fill_returns(s, 2, ret)
            _backup(links, wsum, paths[row], depth, ret[0], 0, 0)
            continue
        for d in range(depth + 1):  # virtual loss: the walk counts as a visit that lost
            nd = paths[row, d]
            links[nd, VISITS] += 1
            if links[nd, MOVER] >= 0:
                wsum[nd] -= 1.0
        links[node, PENDING] = 1
        k = G.legal_actions(s, p, moves)
        encode(s, p, n, per_cell, encoding, moves, k, obs[row])
        masks[row, :] = 0
        for j in range(k):
            masks[row, moves[j]] = 1
        leaves[row] = node
        depths[row] = depth
        movers[row] = s[C.H_PLAYER]
        reserve += k
        picked += 1
    return picked, walks


@njit(cache=True)
def expand(tree, picks, start, count, logits, values):
    """Expand the ``count`` evaluated leaves of ``picks`` from row ``start`` on in ``tree`` with
    softmax priors and back their values up.

    ``values[i]`` is the network's value of leaf i from the view of the seat to move there
    (``movers[i]``); ``logits[i]`` are its policy logits over the whole action space.
    """
    links, wsum, prior, meta = tree
    obs, masks, leaves, paths, depths, movers = picks
    num_actions = masks.shape[1]
    for i in range(start, start + count):
        node = leaves[i]
        seat = movers[i]
        top = -np.inf
        for a in range(num_actions):
            if masks[i, a] == 1 and logits[i, a] > top:
                top = logits[i, a]
        total = 0.0
        for a in range(num_actions):
            if masks[i, a] == 1:
                total += np.exp(logits[i, a] - top)
        base = meta[USED]
        k = 0
        for a in range(num_actions):
            if masks[i, a] == 1:
                row = base + k
                links[row, FIRST] = -1
                links[row, COUNT] = 0
                links[row, KEY] = a
                links[row, VISITS] = 0
                links[row, MOVER] = seat
                links[row, PENDING] = 0
                wsum[row] = 0.0
                prior[row] = np.exp(logits[i, a] - top) / total
                k += 1
        links[node, FIRST] = base
        links[node, COUNT] = k
        links[node, PENDING] = 0
        meta[USED] = base + k
        _backup(links, wsum, paths[i], depths[i], values[i], seat, 1)
