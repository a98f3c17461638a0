"""MCTS with the games' knowledge: MCTS-Solver's proofs, wins in one and forced replies never
missed (Gomoku, LOA), and facing a proven loss the move that delays it longest. Positions are
text boards; every expected move was checked by exhaustive search or by the rules."""

import string

import pytest

import agents
import envs
from agents import _mcts_kernel as K

OPEN_THREE = """
9 . . . . . . . . .
8 . . . . . . . . .
7 . . . . . . . . .
6 . . . . . . . . .
5 . . x x x . . . .
4 . . . o o . . . .
3 . . . . . o . . .
2 . . . . . . . . .
1 . . . . . . . . .
  a b c d e f g h i
to_move=x
"""

# o to move, every move loses (exhaustive search): d5 loses in 4 plies, the other five in 2.
LOST_7X7 = """
7 x x o o o x x
6 x o x x o o o
5 o x x . x o x
4 . o . . x x x
3 x o o o x x x
2 x o o x o . o
1 o x o o . o x
  a b c d e f g
to_move=o
"""

# LOA, o to move: e3xe1 connects x's d4-d5 (o loses at once), and most other moves let x connect
# next ply (e1xe3); only these six do not.
LOA_THREAT = """
8 o o . . . . . .
7 . . . . . . . .
6 . . . . . . . .
5 . . . x . . . .
4 . . . x . . . .
3 . . . . o . . .
2 . . . . . . . .
1 . . . . x . . o
  a b c d e f g h
to_move=o ply=41
"""
LOA_SAFE = {"e3-f4", "e3-f3", "e3-g1", "e3-d2", "e3-d3", "h1-e4"}


def play(spec, game, text, seed=0):
    state = game.from_text(text)
    bot = agents.make(spec, seed=seed)
    action = bot.act(game, state)
    return game.action_to_str(state, action), bot.last_stats


def test_solver_proves_an_open_four_win_with_random_playouts():
    """No game knowledge at all: uniformly random playouts, plain UCT. The open four (b5 or f5)
    wins in three plies; the solver proves it and stops before the budget is spent."""
    game = envs.make_game("gomoku", size=9)
    move, stats = play("mcts:simulations=40000,playout=random,rave=0", game, OPEN_THREE)
    assert move in {"b5", "f5"}
    assert stats["value"] == 1.0
    assert stats["simulations"] < 40000


def test_default_mcts_proves_the_open_four_win_within_its_budget():
    game = envs.make_game("gomoku", size=9)
    move, stats = play("mcts", game, OPEN_THREE)
    assert move in {"b5", "f5"}
    assert stats["value"] == 1.0 and stats["simulations"] < 1000


def test_proven_values_back_up_by_the_solver_rules():
    """A won child proves its parent lost one ply later; a parent whose children are all lost is
    won, by the longest loss plus one; one open child keeps the parent open."""
    links, value, amaf, meta = K.new_tree(8)
    links[0, K.FIRST], links[0, K.COUNT] = 1, 3
    value[1:4] = [-K.PROVEN + 1, -K.PROVEN + 3, 0.4]
    K._prove_parent(links, value, 0, 1)
    assert not K.is_proven(value[0])  # child 3 is still open
    value[3] = -K.PROVEN + 1
    K._prove_parent(links, value, 0, 3)
    assert value[0] == K.PROVEN - 4 and K.proven_plies(value[0]) == 4
    value[0] = 0.5
    value[2] = K.PROVEN - 2
    K._prove_parent(links, value, 0, 2)
    assert value[0] == -K.PROVEN + 3


def test_facing_a_proven_loss_mcts_delays_it_longest():
    game = envs.make_game("gomoku", size=7)
    for spec in ("mcts", "mcts:playout=random,rave=0,simulations=5000"):
        move, stats = play(spec, game, LOST_7X7)
        assert move == "d5" and stats["value"] == 0.0


@pytest.mark.parametrize("size", [9, 15])
def test_gomoku_win_in_one_is_played(size):
    game = envs.make_game("gomoku", size=size)
    rows = [
        " ".join("x" if (r == 4 and 2 <= c <= 5) else "o" if (r == 6 and 2 <= c <= 5) else "." for c in range(size))
        for r in range(size)
    ]
    text = "\n".join(f"{size - r} {row}" for r, row in enumerate(rows))
    text += "\n  " + " ".join(string.ascii_lowercase[:size]) + "\nto_move=x\n"
    state = game.from_text(text)
    bot = agents.make("mcts", seed=3)
    after = game.apply(state, bot.act(game, state))
    assert game.is_terminal(after) and game.returns(after)[0] == 1.0


@pytest.mark.parametrize("seed", [0, 1])
def test_gomoku_forced_replies(seed):
    """A four must be blocked at its open end; an open three at one of its two ends (a far
    point lets it become an open four all the same)."""
    game = envs.make_game("gomoku", size=9)
    four = (
        OPEN_THREE.replace("5 . . x x x . . . .", "5 . . x . . . . . .")
        .replace("4 . . . o o . . . .", "4 . . o o o o x . .")
        .replace("3 . . . . . o . . .", "3 . . . . . x . x .")
    )
    move, _ = play("mcts", game, four, seed)
    assert move == "b4"
    three = OPEN_THREE.replace("to_move=x", "to_move=o").replace("4 . . . o o . . . .", "4 . . . o . . . . .")
    move, _ = play("mcts", game, three, seed)
    assert move in {"b5", "f5"}


def test_loa_win_in_one_and_forced_replies():
    game = envs.make_game("loa")
    won = LOA_THREAT.replace("to_move=o ply=41", "to_move=x ply=40")
    state = game.from_text(won)
    bot = agents.make("mcts", seed=0)
    after = game.apply(state, bot.act(game, state))
    assert game.is_terminal(after) and game.returns(after)[0] == 1.0
    for seed in range(3):
        move, _ = play("mcts", game, LOA_THREAT, seed)
        assert move in LOA_SAFE
