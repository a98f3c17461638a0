"""envs.testing catches what it claims to: each check fails on a game broken its way.

Every broken game here is Connect Four (tests/connect_four) or Calculation with one method of its
Python facade (or one spec field) changed, registered under the game's own name, so it reuses the
compiled code of the real game. The working games passing every check is tests/test_contract.py
and tests/test_new_game.py.
"""

import dataclasses
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import connect_four
import numpy as np
import pytest
from connect_four.game import ConnectFour

import envs
from envs import testing
from envs.calculation.game import Calculation

ROOT = Path(__file__).resolve().parent.parent


class DescendingLegalActions(ConnectFour):
    def legal_actions(self, state):
        return super().legal_actions(state)[::-1].copy()


class ApplyInPlace(ConnectFour):
    def apply(self, state, action):
        after = super().apply(state, action)
        state[:] = after  # the caller's state moves on too
        return after


class TextWithoutSideToMove(ConnectFour):
    def to_text(self, state):
        return super().to_text(state).replace("to_move=o", "to_move=x")


class ObservationOutOfBounds(ConnectFour):
    observation_bounds = (0.0, 0.5)  # the planes hold 1.0


class FloatActionsAccepted(ConnectFour):
    def check_action(self, action):
        if isinstance(action, float) and action.is_integer():
            return int(action)
        return super().check_action(action)


class StartFromACounter(ConnectFour):
    calls = 0

    def initial_state(self, seed=None):
        type(self).calls += 1
        start = super().initial_state(seed)
        return self.apply(start, type(self).calls % self.columns)


class PlayoutsIgnoreTheSeed(ConnectFour):
    def random_playouts(self, n_games, seed=None):
        return super().random_playouts(n_games, seed=None)


class Unpicklable(ConnectFour):
    def _configure(self, params):
        self.lock = threading.Lock()
        return super()._configure(params)


class LastColumnHidden(ConnectFour):
    """The Python API never offers column g; compiled code (perft, envs.State, the envs) does."""

    def legal_actions(self, state):
        legal = super().legal_actions(state)
        return legal[legal != self.columns - 1]

    def is_legal(self, state, action):
        return action != self.columns - 1 and super().is_legal(state, action)


class PlanesSwapped(ConnectFour):
    """Each seat is shown the other's view: the compiled observation (the envs') disagrees."""

    def observation(self, state, seat):
        return super().observation(state, 1 - seat) if seat in (0, 1) else super().observation(state, seat)


class EveryoneWins(ConnectFour):
    def returns(self, state):
        out = super().returns(state)
        return np.abs(out) if self.is_terminal(state) else out


class LeakyCalculation(Calculation):
    """Cell 0 of the observation reads the parity of the whole state, face-down stock included."""

    def observation(self, state, seat):
        obs = super().observation(state, seat)
        obs.flat[0] = float((np.asarray(state) * np.arange(len(state))).sum() % 2)
        return obs


def _float_picture(game, state, previous=None):
    return np.zeros((8, 8, 3))  # float64, not uint8


def broken(game, **changes):
    """Connect Four's spec with its facade class (or other fields) replaced."""
    return dataclasses.replace(connect_four.SPEC, game=game, **changes)


# (broken spec, the check that must fail, whether it is check_game's first failure)
BROKEN = {
    "descending-legal-actions": (broken(DescendingLegalActions), "protocol", True),
    "apply-in-place": (broken(ApplyInPlace), "protocol", True),
    "returns-both-win": (broken(EveryoneWins), "protocol", True),
    "text-without-side-to-move": (broken(TextWithoutSideToMove), "notation", True),
    "observation-out-of-bounds": (broken(ObservationOutOfBounds), "observation", True),
    "observation-leaks-the-stock": (
        dataclasses.replace(envs.spec("calculation"), game=LeakyCalculation),
        "observation",
        True,
    ),
    "float-actions-accepted": (broken(FloatActionsAccepted), "errors", True),
    "start-from-a-counter": (broken(StartFromACounter), "seeding", True),
    "playouts-ignore-the-seed": (broken(PlayoutsIgnoreTheSeed), "playouts", True),
    "unpicklable": (broken(Unpicklable), "pickling", True),
    "picture-of-floats": (broken(ConnectFour, render=_float_picture), "gymnasium", True),
    "last-column-hidden-perft": (broken(LastColumnHidden), "perft", False),
    "out-of-bounds-pettingzoo": (broken(ObservationOutOfBounds), "pettingzoo", False),
    "planes-swapped-vector": (broken(PlanesSwapped), "vector", False),
}


def test_every_check_has_a_broken_game():
    assert {check for _, check, _ in BROKEN.values()} == set(testing.CHECKS)


@pytest.mark.parametrize("case", BROKEN)
def test_the_check_fails_on_the_broken_game(case, registry):
    spec, check, first = BROKEN[case]
    registry.add(spec)
    with pytest.raises(testing.ContractError) as failed:
        testing.CHECKS[check](spec.name)
    assert failed.value.check == check and isinstance(failed.value, AssertionError)
    if first:  # and check_game reports it, every check before it passing
        with pytest.raises(testing.ContractError) as reported:
            testing.check_game(spec.name)
        assert reported.value.check == check, str(reported.value)


def test_the_failure_names_the_game_the_seed_the_moves_and_the_position(registry):
    registry.add(broken(EveryoneWins))
    with pytest.raises(testing.ContractError) as failed:
        testing.check_protocol("connect_four", seed=5, games=2)
    error = failed.value
    assert (error.check, error.game, error.seed, error.episode) == ("protocol", "make_game('connect_four')", 5, 1)
    assert "a two-player game ends +1/-1 or 0/0" in error.reason
    game = envs.make_game("connect_four")
    state = game.initial_state()
    for move in error.moves:  # the moves of the game, in notation, replay to the position shown
        state = game.apply(state, game.str_to_action(state, move))
    assert game.is_terminal(state) and game.to_text(state) == error.position
    text = str(error)
    assert text.startswith("protocol check failed for make_game('connect_four'), seed 5, game 1 after ")
    assert "moves: " + " ".join(error.moves) in text and error.position.splitlines()[0] in text
    assert text.endswith("again: envs.testing.check_game(envs.make_game('connect_four'), seed=5, checks=['protocol'])")
    assert str(pickle.loads(pickle.dumps(error))) == text


def test_an_exception_from_the_game_is_a_failure_at_its_position(registry):
    registry.add(broken(TextWithoutSideToMove))
    with pytest.raises(testing.ContractError, match="TextBoardError") as failed:
        testing.check_notation("connect_four")
    assert len(failed.value.moves) == 1 and isinstance(failed.value.__cause__, envs.TextBoardError)


def test_the_same_seed_plays_the_same_games(registry):
    registry.add(broken(EveryoneWins))
    reports = []
    for seed in (3, 3, 4):
        with pytest.raises(testing.ContractError) as failed:
            testing.check_protocol("connect_four", seed=seed)
        reports.append(failed.value.moves)
    assert reports[0] == reports[1] != reports[2]


def test_bad_arguments_are_parameter_errors():
    with pytest.raises(envs.ParameterError, match="'chess'"):
        testing.check_game("chess")
    with pytest.raises(envs.ParameterError, match="'no_such_check'"):
        testing.check_game("othello", checks=["no_such_check"])
    with pytest.raises(envs.ParameterError, match="not registered"):
        testing.check_game(broken(ConnectFour))
    with pytest.raises(envs.ParameterError, match="parameters already"):
        testing.check_game(envs.make_game("othello"), params={"size": 6})
    with pytest.raises(envs.ParameterError, match="seed"):
        testing.check_seeding("othello", seed=-1)
    with pytest.raises(envs.ParameterError, match="size=7"):
        testing.check_game("othello", params={"size": 7})


def test_variants_come_from_the_spec():
    assert testing.variants("go") == [{}, {"rules": "openspiel"}, {"size": 5}, {"superko": "draw", "suicide": True}]
    assert testing.variants("othello") == [{}, {"size": 6}]  # its openspiel preset sets nothing new
    assert testing.variants("loa") == [{}, {"rules": "openspiel"}]  # max_moves=1: no episode to play
    assert testing.variants(connect_four.SPEC) == [{}, {"columns": 4}, {"rows": 4}, {"connect": 3}]
    assert [testing.variant_id(p) for p in testing.variants("gomoku")] == ["standard", "size=7", "exact_five=True"]


def test_small_params_take_each_integer_parameter_to_its_smallest_playable_value(registry):
    built_in = {name: testing.small_params(name) for name in ("loa", "othello", "gomoku", "go", "calculation")}
    # max_moves (LOA's, Go's) at its lowest, 1, would end every game at once: it keeps its default
    assert built_in == {"loa": {}, "othello": {"size": 6}, "gomoku": {"size": 7}, "go": {"size": 5}, "calculation": {}}
    assert testing.small_params(envs.make_game("go", size=13)) == {"size": 5}  # the game's spec, not its size
    registry.add(connect_four.SPEC)
    assert testing.small_params(connect_four.SPEC) == {"columns": 4, "rows": 4, "connect": 3}
    envs.make_game("connect_four", **testing.small_params("connect_four"))
    with pytest.raises(envs.ParameterError, match="not registered"):
        testing.small_params(dataclasses.replace(connect_four.SPEC, name="connect_four_copy"))


# -- the command line ------------------------------------------------------------------------------


def test_command_line_prints_each_check_and_exits_1_on_a_failure(registry, capsys):
    from envs.testing.__main__ import main

    registry.add(broken(PlayoutsIgnoreTheSeed))
    assert main(["connect_four", "--check", "playouts", "--check", "seeding", "--param", "columns=5"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "make_game('connect_four', columns=5) [columns=5]"
    assert out[1].split()[:2] == ["seeding", "ok"] and out[2].split()[:2] == ["playouts", "FAIL"]
    assert out[3].strip().startswith("playouts check failed for make_game('connect_four', columns=5), seed 0")
    assert out[-1] == "1 passed, 1 failed"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["chess"], "unknown game 'chess'"),
        (["go", "--param", "size=4"], "size=4"),
        (["go", "--param", "size"], "NAME=VALUE"),
        (["go", "--check", "nothing"], "invalid choice"),
        (["go", "--module", "no_such_module"], "no_such_module"),
        (["go", "--variants", "--param", "size=5"], "--variants"),
        (["go", "--games", "0"], "games=0"),
    ],
)
def test_command_line_usage_errors_exit_2(argv, message, capsys):
    from envs.testing.__main__ import main

    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2 and message in capsys.readouterr().err


def test_python_dash_m_registers_the_spec_of_a_game_package():
    """As a user runs it: a fresh interpreter, the package importable, its SPEC registered by
    ``--module``; every check's line and exit status 0."""
    command = [
        sys.executable,
        "-m",
        "envs.testing",
        "connect_four",
        "--module",
        "connect_four",
        "--check",
        "seeding",
        "--check",
        "errors",
    ]
    done = subprocess.run(
        command,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests")},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "make_game('connect_four') [standard]"
    assert [line.split()[:2] for line in lines[1:3]] == [["seeding", "ok"], ["errors", "ok"]]
    assert lines[-1] == "2 passed, 0 failed"
