"""One family of random numbers, keyed by purpose (``envs.core.rng``; docs/randomness.md): the
same seed and key give the same draws in every form, another key gives other draws, and the
keyed forms are the ones the referee has always used, so seeded runs replay as before."""

import numpy as np
import pytest

from envs.core import rng as R


def test_a_seed_and_key_give_one_stream_in_every_form():
    assert (R.generator(7, 1, 2).integers(0, 2**62, 8) == R.generator(7, 1, 2).integers(0, 2**62, 8)).all()
    assert R.seed_words(7, 1, 2, count=3) == R.seed_words(7, 1, 2, count=3)
    assert R.new_rng(7, 1, 2)[0] == R.new_rng(7, 1, 2)[0]


@pytest.mark.parametrize("other", [(1, 3), (2, 1), (1,), ()])
def test_another_purpose_draws_another_stream(other):
    base = R.generator(7, 1, 2).integers(0, 2**62, 8)
    assert not (R.generator(7, *other).integers(0, 2**62, 8) == base).any()
    assert R.seed_words(7, *other, count=3) != R.seed_words(7, 1, 2, count=3)
    assert R.new_rng(7, *other)[0] != R.new_rng(7, 1, 2)[0]


def test_the_keyed_forms_are_the_sequences_seeded_runs_were_made_with():
    """Journals and figures made before the family had a name replay unchanged."""
    assert (R.generator(5, 0x6F70656E).permutation(40) == np.random.default_rng([5, 0x6F70656E]).permutation(40)).all()
    words = np.random.SeedSequence([3, 1, 0, 2, 4, 5]).generate_state(3)
    assert R.seed_words(3, 1, 0, 2, 4, 5, count=3) == tuple(int(w) for w in words)
    assert R.new_rng(9)[0] == np.random.SeedSequence(9).generate_state(1, dtype=np.uint64)[0]


def test_a_keyed_stream_needs_a_seed():
    with pytest.raises(ValueError, match="seed=None with key"):
        R.generator(None, 1)
    assert R.generator(None).integers(0, 10) in range(10)  # unkeyed: fresh entropy, as numpy's
