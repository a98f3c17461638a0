"""Gomoku threat-space search (victory by continuous fours, VCF) and its use by alpha-beta: a
forced win found and played beyond the search horizon, a forced defence found. Positions are
text boards; a win found is checked by playing it out against every defender reply that does
not lose at once (there must be exactly one: the block)."""

import numpy as np
import pytest

import agents
import envs
from envs.gomoku import evaluation as E

# x: e5 (four on row 5, o blocks f5), e4 (four on column e, o blocks e6), c6 (c6-f3 open four).
VCF3 = """
9 o . . . . . . o o
8 . . . . . . . . o
7 . . . . . . . . .
6 . . . . . . . . .
5 o x x x . . . . .
4 . . . . . . . . .
3 . . . . x x . . .
2 . . . . x . . . .
1 . . . . o . . . .
  a b c d e f g h i
to_move=x
"""
# The same threat with o to move (one more x stone, out of the way): o must break the line.
DEFEND = VCF3.replace("to_move=x", "to_move=o").replace("9 o . . .", "9 o x . .")
DEFENCES = {"c6", "e6", "e5", "f5", "e4"}
# Row 5 blocked at both ends: no four can be made anywhere, so no VCF.
NONE = VCF3.replace("5 o x x x . . . . .", "5 o x x x . o . . .").replace("8 . . . . . . . . o", "8 . . . . . . . . .")

GAME = envs.make_game("gomoku", size=9)


def threats(state, seat, limit=16):
    out = np.zeros(3, dtype=np.int64)
    found = E.threats(state, GAME.kernel_params, seat, limit, out)
    return found, out


def play_out_vcf(state, seat):
    """Follow the VCF from ``state``: the attacker plays the search's move, the defender its only
    reply that does not lose at once; return the attacker moves played until the game is won."""
    moves = 0
    while not GAME.is_terminal(state):
        found, out = threats(state, seat)
        assert found == 1
        state = GAME.apply(state, int(out[0]))
        moves += 1
        if GAME.is_terminal(state):
            break
        replies = [
            int(a)
            for a in GAME.legal_actions(state)
            if not any(
                GAME.is_terminal(GAME.apply(GAME.apply(state, int(a)), int(b)))
                for b in GAME.legal_actions(GAME.apply(state, int(a)))
            )
        ]
        if len(replies) == 0:  # an open four: every reply loses at once
            state = GAME.apply(state, int(GAME.legal_actions(state)[0]))
            continue
        assert len(replies) == 1
        state = GAME.apply(state, replies[0])
    assert GAME.returns(state)[seat] == 1.0
    return moves


def test_vcf_found_and_forced():
    state = GAME.from_text(VCF3)
    found, out = threats(state, 0)
    assert found == 1 and GAME.action_to_str(state, int(out[0])) == "e5" and out[1] == 4
    assert play_out_vcf(state, 0) == 4  # three fours, then the five
    assert threats(state, 0, limit=4)[0] == 1 and threats(state, 0, limit=3)[0] == 0
    assert threats(state, 1)[0] == 0


def test_no_vcf_without_fours():
    state = GAME.from_text(NONE)
    assert threats(state, 0)[0] == 0


def test_a_five_point_is_a_line_of_one_and_the_opponents_stops_the_search():
    state = GAME.from_text(VCF3.replace("5 o x x x . . . . .", "5 o x x x x . . . .").replace("9 o . . .", "9 o o . ."))
    found, out = threats(state, 0)
    assert found == 1 and GAME.action_to_str(state, int(out[0])) == "f5" and out[1] == 1
    assert threats(state, 1)[0] == 0  # o must answer x's four first


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "alphabeta:depth=4"])
def test_alphabeta_plays_a_forced_win_beyond_its_horizon(spec):
    state = GAME.from_text(VCF3)
    bot = agents.make(spec, seed=0)
    assert GAME.action_to_str(state, bot.act(GAME, state)) == "e5"
    assert bot.last_stats["score"] > 0 and bot.last_stats["threat"] == "win"


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "alphabeta:depth=4", "mcts"])
def test_forced_defence_found(spec):
    state = GAME.from_text(DEFEND)
    bot = agents.make(spec, seed=0)
    move = GAME.action_to_str(state, bot.act(GAME, state))
    assert move in DEFENCES
    assert threats(GAME.apply(state, GAME.str_to_action(state, move)), 0)[0] == 0


def _needs_torch(spec):
    marks = []
    if spec.startswith("alphazero"):
        import importlib.util

        if importlib.util.find_spec("torch") is None:
            marks = [pytest.mark.skip(reason='needs the learn extra: pip install "arbiter-games[learn]"')]
    return pytest.param(spec, marks=marks)


@pytest.mark.parametrize("spec", [_needs_torch(s) for s in ["mcts:simulations=16", "alphazero:simulations=1"]])
def test_a_forced_win_is_played_without_a_search(spec):
    state = GAME.from_text(VCF3)
    bot = agents.make(spec, seed=0)
    assert GAME.action_to_str(state, bot.act(GAME, state)) == "e5"
    assert bot.last_stats["simulations"] == 0 and bot.last_stats["value"] == 1.0


@pytest.mark.parametrize("spec", [_needs_torch(s) for s in ["alphazero:simulations=1", "alphazero:simulations=32"]])
def test_alphazero_stops_a_forced_win_of_the_opponent(spec):
    state = GAME.from_text(DEFEND)
    move = GAME.action_to_str(state, agents.make(spec, seed=0).act(GAME, state))
    assert move in DEFENCES


@pytest.mark.parametrize("spec", [_needs_torch(s) for s in ["alphazero:simulations=1", "alphabeta:depth=1"]])
def test_threats_off_gives_the_plain_search(spec):
    state = GAME.from_text(VCF3)  # a forced win, but no five in one
    bot = agents.make(spec + ",threats=False", seed=0)
    bot.act(GAME, state)
    assert "threat" not in bot.last_stats
    assert bot.last_stats.get("simulations", 1) == 1 and bot.last_stats["nodes"] > 0
    with pytest.raises(ValueError, match="threats"):
        agents.make(spec.split(":")[0] + ":threats=2")
