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
        self.links, self.wsum, self.prior, self.meta = K.new_tree(capacity)

    def grow(self) -> None:
        used = int(self.meta[K.USED])
        links, wsum, prior, _ = K.new_tree(2 * self.links.shape[0])
        links[:used], wsum[:used], prior[:used] = self.links[:used], self.wsum[:used], self.prior[:used]
        self.links, self.wsum, self.prior = links, wsum, prior

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
    p = game.kernel_params
    n = game.board_size
    planes = K.num_planes(game, encoding)
    select = compiled(K, game.spec).select
    num_actions = game.num_actions
    trees = [Tree() for _ in roots]
    done = np.zeros(len(roots), dtype=np.int64)
    noised = np.zeros(len(roots), dtype=bool)
    depth_cap = game.max_moves + 2
    rows = len(roots) * batch
    obs = np.zeros((rows, planes, n, n), dtype=np.float32)
    masks = np.zeros((rows, num_actions), dtype=np.int8)
    leaves = np.zeros(rows, dtype=np.int64)
    paths = np.zeros((rows, depth_cap), dtype=np.int64)
    depths = np.zeros(rows, dtype=np.int64)
    movers = np.zeros(rows, dtype=np.int64)
    evaluations = 0
    while (done < simulations).any():
        if deadline is not None and evaluations and time.perf_counter() >= deadline:
            break
        spans = []
        used = 0
        for r, tree in enumerate(trees):
            if done[r] >= simulations:
                continue
            want = int(min(batch, simulations - done[r]))
            while True:
                sl = slice(used, used + want)
                picked, walks = select(
                    p,
                    roots[r],
                    n,
                    encoding,
                    tree.links,
                    tree.wsum,
                    tree.prior,
                    tree.meta,
                    want,
                    c_puct,
                    fpu,
                    obs[sl],
                    masks[sl],
                    leaves[sl],
                    paths[sl],
                    depths[sl],
                    movers[sl],
                )
                if walks > 0 or picked > 0:
                    break
                tree.grow()
            done[r] += walks
            spans.append((r, used, picked))
            used += picked
        if used:
            logits, values = evaluator(obs[:used])
            evaluations += used
        for r, start, picked in spans:
            if picked == 0:
                continue
            sl = slice(start, start + picked)
            tree = trees[r]
            K.expand(
                tree.links,
                tree.wsum,
                tree.prior,
                tree.meta,
                picked,
                logits[sl],
                values[sl],
                masks[sl],
                leaves[sl],
                paths[sl],
                depths[sl],
                movers[sl],
            )
            if noise_rng is not None and not noised[r] and tree.links[0, K.FIRST] >= 0:
                tree.add_noise(noise_rng, noise_alpha, noise_fraction)
                noised[r] = True
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
