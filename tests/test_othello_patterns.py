"""The 8x8 Othello pattern evaluation: its groups, its indices, the shipped table and the
weights plumbing that makes it the default on 8x8 only."""

from collections import Counter

import numpy as np
import pytest

import agents
import envs
from agents import evaluation as AE
from agents.base import AgentError
from envs.core import kernel as C
from envs.othello import evaluation as EV
from envs.othello import patterns as PT

shipped = pytest.mark.skipif(PT.table() is None, reason="patterns.npz not present")


def random_positions(game, count, seed):
    """Positions of random games (every fifth ply), ongoing and not a pass."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        s, ply = game.initial_state(), 0
        while not game.is_terminal(s) and len(found) < count:
            moves = game.legal_actions(s)
            ply += 1
            if ply % 5 == 3 and moves[0] != game.pass_action:
                found.append(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
    return found


def oriented(game, s, t):
    """``s`` in orientation ``t`` of the board (``PT.orientations``), as a new state."""
    board = s[C.HEADER : C.HEADER + 64].reshape(8, 8)
    image = np.zeros_like(board)
    for r in range(8):
        for c in range(8):
            r2, c2 = PT.orientations(r, c)[t]
            image[r2, c2] = board[r, c]
    lines = game.to_text(s).splitlines()
    rows = [f"{r + 1} " + " ".join(".xo"[v] for v in image[r]) for r in range(8)]
    return game.from_text("\n".join(rows + lines[8:]) + "\n")


def test_groups_are_placed_once_per_distinct_set_of_squares():
    sets = [frozenset(int(x) for x in row if x >= 0) for row in PT.CELLS]
    assert len(sets) == len(set(sets)) == PT.PLACED == 46
    kind_at, offset = {}, len(PT.COUNTS)  # each kind's table offset within a stage
    for name, squares in PT.GROUPS.items():
        kind_at[offset] = name
        offset += 3 ** len(squares)
    per_group = Counter(kind_at[int(base)] for base in PT.BASE)
    # edges, corners and lines come in 4 (or 8) placements, the long diagonal in 2
    assert per_group == {
        "corner3x3": 4,
        "corner2x5": 8,
        "edge2x": 4,
        "line2": 4,
        "line3": 4,
        "line4": 4,
        "diag8": 2,
        "diag7": 4,
        "diag6": 4,
        "diag5": 4,
        "diag4": 4,
    }
    assert PT.STAGE == offset


def test_indices_read_each_group_in_base_three_from_the_movers_side():
    game = envs.make_game("othello")
    for s in random_positions(game, 30, seed=1):
        me = int(s[C.H_PLAYER]) + 1
        out = np.empty(PT.PLACED, dtype=np.int64)
        PT.indices(s, me, out)
        for g, row in enumerate(PT.CELLS):
            digits = [0 if s[C.HEADER + x] == 0 else 1 if s[C.HEADER + x] == me else 2 for x in row if x >= 0]
            assert out[g] == PT.BASE[g] + sum(d * 3**k for k, d in enumerate(digits))


def test_stages_cover_the_game_in_steps_of_four_empty_squares():
    assert [PT.phase(e) for e in (60, 57, 56, 53, 52, 17, 16, 13, 12, 0)] == [0, 0, 1, 1, 2, 10, 11, 11, 11, 11]


def test_evaluate_with_a_table_is_its_stage_counts_and_entries():
    game = envs.make_game("othello")
    p = game.kernel_params
    table = np.random.default_rng(0).normal(size=PT.SIZE)
    for s in random_positions(game, 20, seed=2):
        me = int(s[C.H_PLAYER]) + 1
        counts = [1.0, *EV.terms(s, p)[1:]]
        start = PT.phase(64 - sum(game.discs(s))) * PT.STAGE
        out = np.empty(PT.PLACED, dtype=np.int64)
        PT.indices(s, me, out)
        expected = (table[start : start + 6] @ np.array(counts) + table[start + out].sum()) * PT.SCALE
        assert EV.evaluate(s, p, table) == int(expected)


@shipped
def test_the_shipped_table_scores_the_eight_orientations_of_a_position_alike():
    game = envs.make_game("othello")
    p, table = game.kernel_params, PT.table()
    for s in random_positions(game, 20, seed=3):
        values = {int(EV.evaluate(oriented(game, s, t), p, table)) for t in range(8)}
        assert max(values) - min(values) <= 1, values  # rounding of float sums only


@shipped
def test_the_table_is_the_default_on_8x8_only():
    assert len(AE.default_weights(envs.make_game("othello"))) == PT.SIZE
    for size in (6, 10):
        assert AE.default_weights(envs.make_game("othello", size=size)).tolist() == EV.WEIGHTS.tolist()
    settings = agents.make("alphabeta", depth=2).settings(envs.make_game("othello"))
    assert settings["weights"].startswith(f"table of {PT.SIZE} (sha256 ")


def test_the_hand_written_weights_still_play_8x8():
    game = envs.make_game("othello")
    s = game.initial_state()
    hand = agents.make("alphabeta", depth=2, weights=EV.WEIGHTS.tolist(), seed=0)
    assert game.is_legal(s, hand.act(game, s))
    assert hand.settings(game)["weights"] == EV.WEIGHTS.tolist()
    with pytest.raises(AgentError, match="6 evaluation weights"):
        agents.make("alphabeta", depth=1, weights=np.zeros(PT.SIZE)).act(
            envs.make_game("othello", size=6), envs.make_game("othello", size=6).initial_state()
        )
