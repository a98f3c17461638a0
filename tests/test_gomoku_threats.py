"""Gomoku threat-space search (victory by continuous fours, VCF, and by a threat then fours, VCT)
and its use by the search agents: a forced win found and played beyond the search horizon, a
forced defence found. Positions are text boards; a VCF found is checked by playing it out
against every defender reply that does not lose at once (there must be exactly one: the block),
a VCT by proving it against every defender reply (``proves``)."""

import time

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


def threats(state, seat, limit=16, deep=False, deadline=0.0):
    out = np.array([-1, 0, 0, 2 if deep else 1], dtype=np.int64)
    found = E.threats(state, GAME.kernel_params, seat, limit, deadline, out)
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


def five_point(state, seat):
    """Whether ``seat`` could complete five at once (a line of one move)."""
    found, out = threats(state, seat, limit=1)
    return found == 1 and out[1] == 1


def proves(state, seat, limit=16, deep=False):
    """Whether the search's moves win for ``seat`` (to move) against every defence: each
    defender reply that does not lose at once is tried; a defender's five-point is blocked
    first (its only answer), then the defender replies again."""
    them = 1 - seat
    found, out = threats(state, seat, limit, deep)
    if not found:
        if not five_point(state, them):
            return False
        blocks = [int(a) for a in GAME.legal_actions(state) if not five_point(GAME.apply(state, int(a)), them)]
        if len(blocks) != 1:
            return False
        after = GAME.apply(state, blocks[0])
    else:
        after = GAME.apply(state, int(out[0]))
    if GAME.is_terminal(after):
        return GAME.returns(after)[seat] == 1.0
    replies = [int(a) for a in GAME.legal_actions(after) if not five_point(GAME.apply(after, int(a)), seat)]
    return all(proves(GAME.apply(after, r), seat, limit, deep) for r in replies)


def test_vcf_found_and_forced():
    state = GAME.from_text(VCF3)
    found, out = threats(state, 0)
    assert found == 1 and GAME.action_to_str(state, int(out[0])) == "e5" and out[1] == 4
    assert play_out_vcf(state, 0) == 4  # three fours, then the five
    assert threats(state, 0, limit=4)[0] == 1 and threats(state, 1)[0] == 0
    # three moves allow no VCF here, but a threat (e4: e2-e3-e4 and the b5-d5 row) then fours
    found, out = threats(state, 0, limit=3)
    assert found == 2 and out[1] == 3 and not five_point(GAME.apply(state, int(out[0])), 0)
    assert proves(state, 0, limit=3) and threats(state, 0, limit=2)[0] == 0


# x: f5 makes two open threes (d5-e5-f5 and f3-f4-f5); o has nothing near.
DOUBLE_THREE = """
9 o . . . . . . . o
8 . . . . . . . . .
7 . . . . . . . . .
6 . . . . . . . . .
5 . . . x x . . . .
4 . . . . . x . . .
3 . . . . . x . . .
2 . . . . . . . . .
1 o . . . . . . . o
  a b c d e f g h i
to_move=x
"""


def test_vct_finds_a_double_three_and_proves_it():
    state = GAME.from_text(DOUBLE_THREE)
    found, out = threats(state, 0)
    assert found == 2 and GAME.action_to_str(state, int(out[0])) == "f5" and out[1] == 3
    assert not five_point(GAME.apply(state, int(out[0])), 0)  # a threat, not a four
    assert proves(state, 0)
    assert threats(state, 1)[0] == 0  # o's four corner stones threaten nothing


def test_no_fours_but_a_three_is_a_vct():
    state = GAME.from_text(NONE)  # no four can be made: no VCF, but d3 makes an open three
    found, out = threats(state, 0)
    assert found == 2 and not five_point(GAME.apply(state, int(out[0])), 0)
    assert proves(state, 0)


def random_positions(seed, count=300):
    """Ongoing positions after 8 to 29 random moves, with the side to move."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = GAME.initial_state()
        for _ in range(int(rng.integers(8, 30))):
            if GAME.is_terminal(state):
                break
            moves = GAME.legal_actions(state)
            state = GAME.apply(state, int(moves[rng.integers(len(moves))]))
        if not GAME.is_terminal(state):
            yield state, GAME.current_player(state)


def test_every_vct_found_in_random_positions_is_a_proof():
    proven = 0
    for state, seat in random_positions(7):
        found, out = threats(state, seat)
        if found == 2:
            assert not five_point(GAME.apply(state, int(out[0])), seat)  # a threat, not a four
            assert proves(state, seat)
            proven += 1
    assert proven >= 5


# x to move: no VCF and no single threat wins, but e4 (the e2-e3-e4 three) does, with one more
# threat after any defence (a position the search found among random ones).
TWO_THREATS = """
9 . . . . o . o . .
8 . x o . . . x . .
7 . . . . . . o . .
6 . . x . . . o . .
5 . o . . . . . . .
4 o . . . . o . x .
3 . . . . x . x . o
2 . x . . x . . . .
1 o . . x . . . . x
  a b c d e f g h i
to_move=x
"""


def test_a_win_with_two_threats_is_found_deep_and_is_a_proof():
    state = GAME.from_text(TWO_THREATS)
    assert threats(state, 0)[0] == 0
    found, out = threats(state, 0, deep=True)
    assert found == 3 and GAME.action_to_str(state, int(out[0])) == "e4"
    assert not five_point(GAME.apply(state, int(out[0])), 0)  # a threat, not a four
    assert proves(state, 0, deep=True)
    assert threats(state, 1, deep=True)[0] == 0


def test_every_two_threat_win_found_in_random_positions_is_a_proof():
    proven = 0
    for state, seat in random_positions(11):
        found, out = threats(state, seat, deep=True)
        if found == 3:
            assert threats(state, seat)[0] == 0  # only the deep search finds it
            assert proves(state, seat, deep=True)
            proven += 1
    assert proven >= 3


def test_a_search_stopped_by_its_deadline_says_so_and_proves_nothing():
    # A search of many threats can take seconds, longer than a move's clock: past its deadline
    # it stops and answers -1 (unfinished), not 0 (no win) and not a win it has not proven.
    past = time.perf_counter() - 1.0
    assert threats(GAME.from_text(TWO_THREATS), 0, deep=True, deadline=past)[0] == -1
    assert threats(GAME.from_text(DOUBLE_THREE), 0, deadline=past)[0] == -1


def test_a_deadline_that_does_not_bind_changes_nothing():
    later = time.perf_counter() + 3600.0
    for state, seat in random_positions(7, count=60):
        for deep in (False, True):
            found, out = threats(state, seat, deep=deep)
            timed, timed_out = threats(state, seat, deep=deep, deadline=later)
            assert (found, list(out[:2])) == (timed, list(timed_out[:2]))


def test_past_the_deadline_the_tactics_leave_the_choice_to_the_search():
    from agents import tactics

    state = GAME.from_text(DEFEND)
    past = time.perf_counter() - 1.0
    assert tactics.forced_win(GAME, state, 0) is not None
    assert tactics.forced_win(GAME, GAME.from_text(DOUBLE_THREE), 0, deadline=past) is None
    assert tactics.defences(GAME, state, GAME.legal_actions(state), past) is None
    stops = {GAME.action_to_str(state, a) for a in tactics.defences(GAME, state, GAME.legal_actions(state))}
    assert stops <= DEFENCES  # with no clock, the stops are found as before


GAME15 = envs.make_game("gomoku", size=15)
# From a game MCTS lost to greedy (15x15). o to move against x's open three i9-i10-i11: i8 blocks
# it and leaves x a VCT (l10 after the i12-i13 four), i12 blocks it and leaves x no VCF or VCT.
OPEN_THREE_TWO_BLOCKS = """
15 . . . . . . . . . . . . . . .
14 . . . . . . . . . . . . . . .
13 . . . . . . . . . . . . . . .
12 . . . . . . . . . . . o . o .
11 . . . . . . . . x . x . . . .
10 . . . . . . . . x x . . . . .
 9 . . . . . . . o x o . . . . .
 8 . . . . . . . x . . . . . . .
 7 . . . . . . o . . . . . . . .
 6 . . . . . . . . . . . . . . .
 5 . . . . . . . . . . . . . . .
 4 . . . . . . . . . . . . . . .
 3 . . . . . . . . . . . . . . .
 2 . . . . . . . . . . . . . . .
 1 . . . . . . . . . . . . . . .
   a b c d e f g h i j k l m n o
to_move=o
"""


def test_of_the_blocks_of_an_open_three_the_one_that_leaves_no_threat_is_chosen():
    from agents import tactics

    state = GAME15.from_text(OPEN_THREE_TWO_BLOCKS)
    i8, i12 = (GAME15.str_to_action(state, m) for m in ("i8", "i12"))
    after = {a: tactics.forced_win(GAME15, GAME15.apply(state, a), 0) for a in (i8, i12)}
    assert after[i8] is not None and not after[i8].forcing and after[i12] is None
    assert tactics.defences(GAME15, state, GAME15.legal_actions(state)) == [i12]
    assert agents.make("mcts", seed=0).act(GAME15, state) == i12


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


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "mcts"])
def test_a_double_three_coming_is_stopped(spec):
    # o to move (one more x stone, out of the way): x threatens the double three
    state = GAME.from_text(DOUBLE_THREE.replace("to_move=x", "to_move=o").replace("8 . . .", "8 . x ."))
    assert threats(state, 0)[0] == 2
    bot = agents.make(spec, seed=0)
    move = bot.act(GAME, state)
    assert threats(GAME.apply(state, move), 0)[0] == 0


@pytest.mark.parametrize("spec", ["alphabeta:depth=2", "alphabeta:depth=4", "mcts"])
def test_forced_defence_found(spec):
    state = GAME.from_text(DEFEND)
    bot = agents.make(spec, seed=0)
    move = GAME.action_to_str(state, bot.act(GAME, state))
    assert move in DEFENCES  # x's VCF is stopped (a slower VCT of x remains: o is lost)


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
