"""PUCT search driven from Python: many trees advance together and share one network batch.

    roots = [game.initial_state(), ...]                    # positions of one game and size
    result = search(evaluator, game, roots, simulations=100, batch=8)
    result.visits[r]   # (num_actions,) visit counts of root r's moves
    result.values[r]   # root value from the mover's view

Each round, every unfinished tree picks up to ``batch`` leaves in compiled code
(``_puct_kernel.select``, virtual loss keeps the walks apart), the leaves of all trees go through
the network in one forward pass, and ``_puct_kernel.expand`` backs the values up. Self-play runs
dozens of games at once this way, so the network sees batches of hundreds of positions even at
a handful of leaves per tree. This module needs numpy only; the evaluator is any callable
``planes (B, C, N, N) float32 -> (logits (B, A), values (B,))`` (``Evaluator`` wraps a torch net).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from envs.core import kernel as C
from envs.core.specialise import compiled

from . import _puct_kernel as K

_INITIAL_NODES = 4096


class Evaluator:
    """Wrap a ``PolicyValueNet`` as a numpy callable for ``search`` (inference mode, no grad)."""

    def __init__(self, net, num_actions: int):
        import torch

        self.torch = torch
        self.net = net
        self.num_actions = num_actions

    def __call__(self, planes):
        with self.torch.inference_mode():
            logits, values = self.net(self.torch.from_numpy(planes))
        return logits[:, : self.num_actions].double().numpy(), values.double().numpy()


class Tree:
    """The node arrays of one search; ``grow`` doubles them (nodes keep their indices)."""

    def __init__(self, capacity: int = _INITIAL_NODES):
        # ``arrays``: the node arrays as the kernels take them, one tuple (``K.new_tree``'s)
        self.arrays = self.links, self.wsum, self.prior, self.meta = K.new_tree(capacity)

    def grow(self) -> None:
        used = int(self.meta[K.USED])
        links, wsum, prior, _ = K.new_tree(2 * self.links.shape[0])
        links[:used], wsum[:used], prior[:used] = self.links[:used], self.wsum[:used], self.prior[:used]
        self.links, self.wsum, self.prior = links, wsum, prior
        self.arrays = links, wsum, prior, self.meta

    def root_visits(self, num_actions: int) -> np.ndarray:
        first, count = self.links[0, K.FIRST], self.links[0, K.COUNT]
        visits = np.zeros(num_actions, dtype=np.float64)
        if first >= 0:
            children = slice(first, first + count)
            visits[self.links[children, K.KEY]] = self.links[children, K.VISITS]
        return visits

    def root_priors(self, num_actions: int) -> np.ndarray:
        first, count = self.links[0, K.FIRST], self.links[0, K.COUNT]
        priors = np.zeros(num_actions, dtype=np.float64)
        if first >= 0:
            children = slice(first, first + count)
            priors[self.links[children, K.KEY]] = self.prior[children]
        return priors

    def root_value(self) -> float:
        """Mean value of the root from the view of its mover (children store their movers' view)."""
        first, count = self.links[0, K.FIRST], self.links[0, K.COUNT]
        n = self.links[first : first + count, K.VISITS].sum()
        return float(self.wsum[first : first + count].sum() / n) if n > 0 else 0.0

    def add_noise(self, rng: np.random.Generator, alpha: float, fraction: float) -> None:
        """Mix Dirichlet noise into the root priors (self-play exploration, as in AlphaZero)."""
        first, count = self.links[0, K.FIRST], self.links[0, K.COUNT]
        noise = rng.dirichlet(np.full(count, alpha))
        p = self.prior[first : first + count]
        self.prior[first : first + count] = (1 - fraction) * p + fraction * noise


@dataclass
class SearchResult:
    visits: np.ndarray  # (roots, num_actions)
    priors: np.ndarray  # (roots, num_actions) network policy at the root (noise included)
    values: np.ndarray  # (roots,)
    evaluations: int


def search(
    evaluator,
    game,
    roots,
    simulations: int,
    batch: int = 8,
    c_puct: float = 1.5,
    fpu: float = -0.2,
    noise_rng=None,
    noise_alpha: float = 0.3,
    noise_fraction: float = 0.25,
    encoding: int = K.ENCODINGS[-1],
    deadline: float | None = None,
):
    """Run ``simulations`` PUCT walks from each of ``roots`` (ongoing states of ``game``), or
    fewer when ``deadline`` (a ``time.perf_counter()`` time) comes first: the search stops after
    the first batch that ends past it (so every root gets at least one batch).

    ``fpu`` is the value assumed for an unvisited move (slightly pessimistic, so the search
    deepens good lines before it tries every move); with ``noise_rng`` the root priors get
    Dirichlet noise once the root is expanded. ``encoding`` names the input planes the
    evaluator reads (``_puct_kernel``).
    """
    select = compiled(K, game.spec).select
    options = (game.board_size, encoding, c_puct, fpu)
    trees = [Tree() for _ in roots]
    done = np.zeros(len(roots), dtype=np.int64)
    noised = np.zeros(len(roots), dtype=bool)
    picks = K.new_picks(
        len(roots) * batch, K.num_planes(game, encoding), game.board_size, game.num_actions, game.max_moves + 2
    )
    evaluations = 0
    while (done < simulations).any():
        if deadline is not None and evaluations and time.perf_counter() >= deadline:
            break
        spans = _select_leaves(select, game.kernel_params, roots, trees, picks, done, simulations, batch, options)
        used = sum(picked for _, _, picked in spans)
        if used == 0:
            continue
        logits, values = evaluator(picks[0][:used])
        evaluations += used
        for r, start, picked in spans:
            if picked > 0:
                K.expand(trees[r].arrays, picks, start, picked, logits, values)
        if noise_rng is not None:
            _add_noise(trees, noised, noise_rng, noise_alpha, noise_fraction)
    return _result(trees, game.num_actions, evaluations)


def _select_leaves(select, p, roots, trees, picks, done, simulations, batch, options):
    """Every unfinished tree picks up to ``batch`` leaves (fewer as its simulations run out)
    into consecutive rows of ``picks``, a tree out of room grown until it picks or walks; each
    tree's walks are counted in ``done``. Returns (tree, first row, leaves picked) per tree
    that searched, in order."""
    n, encoding, c_puct, fpu = options
    spans = []
    used = 0
    for r, tree in enumerate(trees):
        if done[r] >= simulations:
            continue
        want = int(min(batch, simulations - done[r]))
        while True:
            picked, walks = select(p, roots[r], tree.arrays, picks, used, n, encoding, want, c_puct, fpu)
            if walks > 0 or picked > 0:
                break
            tree.grow()
        done[r] += walks
        spans.append((r, used, picked))
        used += picked
    return spans


def _add_noise(trees, noised, rng, alpha: float, fraction: float) -> None:
    """Dirichlet noise into the priors of each root the first round that finds it expanded."""
    for r, tree in enumerate(trees):
        if not noised[r] and tree.links[0, K.FIRST] >= 0:
            tree.add_noise(rng, alpha, fraction)
            noised[r] = True


def _result(trees, num_actions: int, evaluations: int) -> SearchResult:
    """The roots' visit counts, priors and values once the search is over."""
    visits = np.stack([t.root_visits(num_actions) for t in trees])
    priors = np.stack([t.root_priors(num_actions) for t in trees])
    values = np.array([t.root_value() for t in trees])
    return SearchResult(visits, priors, values, evaluations)


def is_ongoing(state) -> bool:
    return state[C.H_STATUS] == C.ONGOING


def encode(game, state, encoding: int = K.ENCODINGS[-1]) -> np.ndarray:
    """The input planes of ``state`` from its mover's view, as the search feeds them to the net."""
    n = game.board_size
    out = np.zeros((K.num_planes(game, encoding), n, n), dtype=np.float32)
    compiled(K, game.spec).encode_state(state, game.kernel_params, n, K.policy_planes(game), encoding, out)
    return out


def ownership(game, state, seat: int) -> np.ndarray:
    """(N, N) int8: who owns each point of finished ``state``, from ``seat``'s view (+1/-1/0);
    only for a game that has an ownership target (``K.has_ownership``)."""
    if not K.has_ownership(game):
        raise ValueError(f"{game.name} has no ownership target: its points are not owned at the end")
    n = game.board_size
    out = np.zeros((n, n), dtype=np.int8)
    compiled(K, game.spec).ownership(state, game.kernel_params, n, seat, out)
    return out
