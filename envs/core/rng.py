"""Where every random choice comes from: the user's seed, through numpy's ``SeedSequence``.

One family, keyed by purpose. A seed the user passes (an integer, or integers) becomes a
``SeedSequence`` of that seed and a *key* naming what the draws are for (a tournament's pairing,
its opening order, game 3 of round 2...), so no two purposes share a stream and adding one
changes no other. From the sequence come, by where the draws happen:

* ``new_rng(seed, *key)``: a SplitMix64 stream for compiled code (deals, playouts, random
  plies, the vector env's opponents, tie breaks, the tournament systems' pairings and the
  study's simulator). Tiny, fast in numba, and the same stream on every platform, so a seed
  replays identically everywhere (numba's own ``np.random`` is per-thread global state that a
  caller could not isolate);
* ``generator(seed, *key)``: a numpy ``Generator`` for draws made in Python (an opening suite's
  order, random openings, a match's openings, the ratings' posterior draws);
* ``seed_words(seed, *key, count=)``: integer seeds for things seeded in their turn (a
  tournament game's deal and its two agents).

``docs/randomness.md`` lists every purpose and its key. Imported as ``R`` by convention.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

# A seed as users pass it: what ``np.random.SeedSequence`` takes (an integer or integers); None,
# where a parameter allows it, draws fresh entropy.
SeedLike = int | Sequence[int]
SEED_BOUND = 2**63 - 1  # seeds drawn for sub-streams (an episode's deal, an opponent) lie below it


def _sequence(seed: SeedLike | None, key: tuple) -> np.random.SeedSequence:
    if not key:
        return np.random.SeedSequence(seed)
    if seed is None:
        raise ValueError(f"seed=None with key {key!r}: a keyed stream needs the seed it is keyed under")
    return np.random.SeedSequence([*np.atleast_1d(seed).tolist(), *key])


def new_rng(seed: SeedLike | None, *key: int) -> np.ndarray:
    """A SplitMix64 state for compiled code from any seed numpy accepts (None draws fresh OS
    entropy), under ``key`` (integers naming the purpose; none: the seed's own stream)."""
    value = _sequence(seed, key).generate_state(1, dtype=np.uint64)
    return np.array(value, dtype=np.uint64)


def generator(seed: SeedLike | None, *key: int) -> np.random.Generator:
    """A numpy ``Generator`` for draws made in Python, from ``seed`` under ``key`` (as
    ``np.random.default_rng([seed, *key])``)."""
    return np.random.Generator(np.random.PCG64(_sequence(seed, key)))


def seed_words(seed: SeedLike, *key: int, count: int) -> tuple[int, ...]:
    """``count`` 32-bit seeds from ``seed`` under ``key``, for things that seed themselves in
    turn (a game's deal, an agent)."""
    return tuple(int(w) for w in _sequence(seed, key).generate_state(count))


@njit(cache=True, inline="always")
def next_u64(rng):
    """Advance the SplitMix64 state ``rng[0]`` and return the next 64-bit output."""
    rng[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def randint(rng, n):
    """Uniform integer in ``[0, n)`` (n > 0). Lemire's multiply-shift; bias < n / 2**32."""
    r = next_u64(rng) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def uniform(rng):
    """Uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
