"""Rule parameters from careless or hostile callers: every value a game refuses is a
``ParameterError`` (a ``ValueError``) naming the parameter, in one short line, through every door
(``make_game``, the Gymnasium, vector and PettingZoo envs, the CLI's ``-p``); never an
``OverflowError`` or a message as long as the value."""

import math

import gymnasium
import numpy as np
import pytest
from said import said

import envs
from envs import ParameterError
from envs.pettingzoo import go_v0
from envs.vector_env import ArbiterVectorEnv

HUGE = 10**400  # no float holds it
VAST = 10**5000  # past Python's 4,300-digit limit: even its repr raises
HOSTILE = [
    HUGE,
    -HUGE,
    VAST,
    2**63,
    -(2**63) - 1,
    1e308,
    -1e308,
    math.inf,
    -math.inf,
    math.nan,
    9.0,
    1e3,
    True,
    False,
    np.bool_(True),
    "9",
    "x" * 100_000,
    None,
    [9],
    {"a": 1},
    1 + 2j,
    np.float64(1e308),
    np.longdouble("1e4000"),
    np.uint64(2**64 - 1),
    np.int64(-(2**63)),
]


def _accepted(game, name, value) -> bool:
    """Whether ``value`` is one the parameter takes: the check of the value by itself, from its
    schema (the game may still refuse it with its other parameters)."""
    param = envs.spec(game).param(name)
    if value is None:
        return param.optional
    if param.choices is not None:
        value = bool(value) if isinstance(value, np.bool_) else value
        return any(type(value) is type(c) and value == c for c in param.choices)
    is_bool = isinstance(value, (bool, np.bool_))
    if param.number:
        return (
            not is_bool
            and isinstance(value, (int, float, np.integer, np.floating))
            and abs(float(value) if abs(value) < 10**300 else math.inf) <= 361
        )
    if is_bool or not isinstance(value, (int, np.integer)):
        return False
    low = -math.inf if param.low is None else param.low
    high = math.inf if param.high is None else param.high
    return low <= int(value) <= high and not (param.even and int(value) % 2)


CASES = [(spec.name, p.name) for spec in envs.specs() for p in spec.params]


@pytest.mark.parametrize("game, name", CASES, ids=[f"{g}-{n}" for g, n in CASES])
def test_every_parameter_refuses_hostile_values_with_a_short_typed_error(game, name):
    refused = 0
    for value in HOSTILE:
        try:
            envs.make_game(game, **{name: value})
        except ParameterError as e:
            message = str(e)
            assert message.startswith(f"{name}=") and "\n" not in message, message
            assert len(message) < 300, message[:300]
            refused += 1
        else:
            assert _accepted(game, name, value), f"{game}: {name}={value!r} was accepted"
    assert refused >= len(HOSTILE) - 4


KOMIS = [1e308, -1e308, np.float64(1e308), HUGE, VAST, math.inf, math.nan, 1e-300]


@pytest.mark.parametrize(
    "komi", KOMIS, ids=["1e308", "-1e308", "np1e308", "10**400", "10**5000", "inf", "nan", "1e-300"]
)
def test_go_komi_out_of_range_is_a_parameter_error_through_every_door(komi):
    with pytest.raises(ParameterError, match="komi="):
        envs.make_game("go", komi=komi)
    with pytest.raises(ParameterError, match="komi="):
        gymnasium.make("Go-v0", komi=komi)
    with pytest.raises(ParameterError, match="komi="):
        ArbiterVectorEnv(num_envs=2, game="go", komi=komi)
    with pytest.raises(ParameterError, match="komi="):
        go_v0.env(komi=komi)


def test_go_komi_range_is_checked_before_its_half_points():
    with pytest.raises(ParameterError, match=r"komi=1e\+308: expected at most 81 points"):
        envs.make_game("go", komi=1e308)
    with pytest.raises(ParameterError, match=r"komi=7\.25: expected a multiple of 0\.5"):
        envs.make_game("go", komi=7.25)
    assert envs.make_game("go", komi=-81).params["komi"] == -81
    assert envs.make_game("go", komi=np.float32(6.5)).params["komi"] == 6.5


def test_a_huge_value_is_named_by_its_ends_not_printed_whole():
    with pytest.raises(ParameterError) as caught:
        envs.make_game("go", size=VAST)
    assert "bits" in str(caught.value) and len(str(caught.value)) < 120
    with pytest.raises(ParameterError) as caught:
        envs.make_game("go", komi="7" * 10_000)
    assert "10002 characters" in str(caught.value) and len(str(caught.value)) < 160
    with pytest.raises(ParameterError, match="too large for a float"):
        envs.make_game("go", komi=HUGE)


def test_numpy_bools_count_as_bools_and_no_number_does():
    assert envs.make_game("go", suicide=np.bool_(True)).params["suicide"] is True
    for value in (1, 1.0, np.int64(1), "True"):
        with pytest.raises(ParameterError, match="suicide="):
            envs.make_game("go", suicide=value)


def test_an_unbounded_integer_says_so():
    with pytest.raises(ParameterError, match=r"max_moves=0: expected an integer of at least 1$"):
        envs.make_game("go", max_moves=0)
    with pytest.raises(ParameterError, match=r"max_moves=1000\.0: expected an integer of at least 1$"):
        envs.make_game("go", max_moves=1000.0)


@pytest.mark.parametrize(
    "value",
    ["1e308", "-1e308", "1e400", "nan", "10**400", "'7.5'", "(" * 5000],
    ids=["1e308", "-1e308", "1e400", "nan", "10**400", "string", "parens"],
)
def test_the_clis_game_parameters_end_with_one_line_and_status_2(value, capsys):
    from tournaments import cli

    with pytest.raises(SystemExit) as caught:
        cli.main(["play", "--game", "go", "-p", f"komi={value}", "--black", "random", "--white", "random"])
    assert caught.value.code == 2
    err = said(capsys.readouterr().err)
    assert len(err) == 1 and err[0].startswith("arbiter play: error: komi=") and len(err[0]) < 300
