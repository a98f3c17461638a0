"""The Calculation solver (stock order known): its wins play out, its verdicts match an
exhaustive enumeration of every line, and bad input is refused."""

import json

import numpy as np
import pytest

import agents
import envs
from envs.calculation import _kernel as K
from envs.calculation.solver import Solution, solve
from envs.core import ParameterError, StateError

GAME = envs.make_game("calculation")


def _wins_somehow(state, memo):
    """Whether any sequence of legal moves from ``state`` wins (plain recursion over every move)."""
    key = state.tobytes()
    if key not in memo:
        if GAME.is_terminal(state):
            memo[key] = bool(GAME.returns(state)[0] == 1.0)
        else:
            memo[key] = any(_wins_somehow(GAME.apply(state, int(a)), memo) for a in GAME.legal_actions(state))
    return memo[key]


def _late_positions(n, cards_left):
    """``n`` ongoing positions the greedy agent reaches with ``cards_left`` stock cards to turn."""
    out, deal = [], 0
    while len(out) < n:
        state, bot = GAME.initial_state(seed=deal), agents.make("greedy", seed=deal)
        while not GAME.is_terminal(state) and state[K.POS] < K.NSTOCK - cards_left:
            state = GAME.apply(state, bot.act(GAME, state))
        if not GAME.is_terminal(state):
            out.append(state)
        deal += 1
    return out


def _plays_out(state, moves):
    for a in moves:
        assert GAME.is_legal(state, a)
        state = GAME.apply(state, a)
    return GAME.is_terminal(state) and GAME.returns(state)[0] == 1.0


def test_solver_agrees_with_every_line_enumerated():
    """Near the end of a deal both searches finish: wins and losses must match, and each win
    the solver reports must play out move by move."""
    verdicts = []
    for state in _late_positions(12, 5):
        truth = _wins_somehow(state, {})
        solution = solve(state)
        assert solution.result == ("won" if truth else "lost")
        if truth:
            assert _plays_out(state, solution.moves)
        verdicts.append(truth)
    assert 0 < sum(verdicts) < len(verdicts)  # both kinds of position were checked


def test_solver_wins_a_fresh_deal_with_a_line_that_plays_out():
    state = GAME.initial_state(seed=2)
    solution = solve(state)
    assert solution.result == "won" and 0 < solution.nodes <= 20_000_000
    assert len(solution.moves) >= 48  # every stock card is played
    assert _plays_out(state, solution.moves)


def test_solver_reads_the_stock_order():
    """The same visible position with the face-down cards in another order is another puzzle:
    among a few late positions, some can be won or lost depending on that order alone."""
    for state in _late_positions(10, 6):
        results = {}
        for seed in range(8):
            redrawn = GAME.sample_hidden(state, np.random.default_rng(seed))
            assert GAME.observation(redrawn, 0).tobytes() == GAME.observation(state, 0).tobytes()
            solution = solve(redrawn)
            results[solution.result] = (redrawn, solution)
        if set(results) == {"won", "lost"}:
            redrawn, solution = results["won"]
            assert _plays_out(redrawn, solution.moves)
            return
    pytest.fail("no late position whose result depends on the stock order")


def test_solver_stops_at_its_node_limit():
    solution = solve(GAME.initial_state(seed=0), node_limit=50)
    assert solution == Solution("unknown", (), solution.nodes) and solution.nodes <= 50


def test_solver_on_finished_deals():
    state = _late_positions(1, 3)[0]
    while not GAME.is_terminal(state):
        state = GAME.apply(state, int(GAME.legal_actions(state)[0]))
    expected = "won" if GAME.returns(state)[0] == 1.0 else "lost"
    assert solve(state) == Solution(expected, (), 0)


@pytest.mark.parametrize("limit", [0, -5, 2.5, True, "many"])
def test_solver_refuses_a_bad_node_limit(limit):
    with pytest.raises(ParameterError, match="node_limit"):
        solve(GAME.initial_state(seed=0), node_limit=limit)


def test_solver_refuses_a_state_that_is_not_calculation():
    state = GAME.initial_state(seed=0).copy()
    state[K.POS] = 60
    with pytest.raises(StateError):
        solve(state)
    with pytest.raises(StateError):
        solve(envs.make_game("othello").initial_state())


def test_the_command_line_solves_deals_and_reads_a_study(tmp_path, run_script):
    """Deals 1 and 2 (both won with the stock known), against a study that lost deal 2."""
    study = tmp_path / "study.jsonl"
    study.write_text("".join(json.dumps({"deal": d, "playouts": 1000, "won": d == 1}) + "\n" for d in (1, 2)))
    done = run_script("examples/patience_solver.py", "--seed", "1", "--deals", "2", "--workers", "1", "--study", study)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[1:3]] == [["1", "won"], ["2", "won"]]
    assert lines[3].startswith("deals 1..2: 2 won") and "0 lost, 0 unknown" in lines[3]
    assert lines[4] == "the study at 1000 playouts lost 1 of 2; with the stock known: 2 won"
    bad = run_script("examples/patience_solver.py", "--node-limit", "1.5")
    assert bad.returncode == 2 and "--node-limit 1.5" in bad.stderr
