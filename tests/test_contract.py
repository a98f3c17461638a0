"""Every registered game keeps the contract ``envs.testing`` checks, in every configuration
``envs.testing.variants`` derives from its spec: one test per game, configuration and check, so a
game added to the registry is checked with no list edited here.

The checks themselves, and that each fails on a game broken its way, are in envs/testing and
tests/test_envs_testing.py; Connect Four, a game registered from outside the package, is checked
in tests/test_new_game.py.
"""

import pytest

import envs
from envs import testing
from envs.core import ParameterError

CASES = [(name, params) for name in envs.names() for params in testing.variants(name)]


@pytest.mark.parametrize("check", testing.CHECKS)
@pytest.mark.parametrize("name, params", CASES, ids=[f"{n}[{testing.variant_id(p)}]" for n, p in CASES])
def test_game_keeps_the_contract(name, params, check):
    testing.CHECKS[check](envs.make_game(name, **params))


def test_unknown_games_and_parameters_are_refused():
    with pytest.raises(ParameterError, match="'chess'"):
        envs.make_game("chess")
    with pytest.raises(ParameterError, match="'sise'"):
        envs.make_game("go", sise=9)
    with pytest.raises(ParameterError, match="'japanese'"):
        envs.make_game("go", rules="japanese")
