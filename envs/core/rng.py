"""Random streams for compiled code: SplitMix64 over a one-cell ``uint64`` array.

Tiny, fast in numba, and the same stream on every platform, so a seed replays identically
everywhere (numba's own ``np.random`` is per-thread global state that a caller could not
isolate). Every random choice in Arbiter's compiled code (deals, playouts, random openings, the
vector env's opponents, tie breaks, the tournament systems and the study's simulator) draws from
a stream made by ``new_rng`` from a seed the user can pass. Imported as ``R`` by convention.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

# A seed as users pass it: what ``np.random.SeedSequence`` takes (an integer or integers); None,
# where a parameter allows it, draws fresh entropy.
SeedLike = int | Sequence[int]
SEED_BOUND = 2**63 - 1  # seeds drawn for sub-streams (an episode's deal, an opponent) lie below it


def new_rng(seed: SeedLike | None) -> np.ndarray:
    """A SplitMix64 state from any seed numpy accepts (None draws fresh OS entropy)."""
    value = np.random.SeedSequence(seed).generate_state(1, dtype=np.uint64)
    return np.array(value, dtype=np.uint64)


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
