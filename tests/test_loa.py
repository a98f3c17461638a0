"""Lines of Action: perft, position tests written as text boards, notation, bad input, and a
move-by-move replay of OpenSpiel's records and of fresh games against pyspiel itself."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core import (
    IllegalActionError,
    NotationError,
    ParameterError,
    StateError,
    TextBoardError,
)
from envs.core import kernel as C
from envs.game import perft
from envs.loa import LinesOfAction, notation
from envs.loa import _kernel as K

GOLDEN = Path(__file__).parent / "data" / "golden"

START = """
8 . x x x x x x .
7 o . . . . . . o
6 o . . . . . . o
5 o . . . . . . o
4 o . . . . . . o
3 o . . . . . . o
2 o . . . . . . o
1 . x x x x x x .
  a b c d e f g h
to_move=x ply=0
"""

# x e1xe3 captures the lone o on e3: x joins d4-d5, and o's a8-b8 is left connected too.
SIMULTANEOUS = """
8 o o . . . . . .
7 . . . . . . . .
6 . . . . . . . .
5 . . . x . . . .
4 . . . x . . . .
3 . . . . o . . .
2 . . . . . . . .
1 . . . . x . . .
  a b c d e f g h
to_move=x ply=40
"""

# x e1xe3 connects x (d4-d5-e3); o keeps h1 apart from a8-b8, so only x is connected.
CONNECT = SIMULTANEOUS.replace("1 . . . . x . . .", "1 . . . . x . . o")

# CONNECT after e1xe3, as a text board: x is connected and o is to move.
WON = (
    CONNECT.replace("1 . . . . x . . o", "1 . . . . . . . o")
    .replace("3 . . . . o . . .", "3 . . . . x . . .")
    .replace("to_move=x ply=40", "to_move=o ply=41")
)

# x h3xh1 captures o's only stray piece: x stays split, o's a8-b8 is all that is left.
CAPTURE_CONNECTS_OPPONENT = """
8 o o . . . . . .
7 . . . . . . . .
6 . . . . . . . .
5 . . . . . . . .
4 . . . . . . . .
3 . . . . . . . x
2 . . . . . . . .
1 x . . . . . . o
  a b c d e f g h
to_move=x ply=40
"""

# x on a1 and h8 is walled in: every line it could move along jumps an o piece.
BLOCKED = """
8 . . . . . . o x
7 . . . . . . o o
6 . . . . . . . .
5 . . . . . . . .
4 . . . . . . . .
3 . . . . . . . .
2 o o . . . . . .
1 x o . . . . . .
  a b c d e f g h
to_move=x ply=40
"""


def _play(game, state, *moves):
    for move in moves:
        state = game.apply(state, game.str_to_action(state, move))
    return state


def _moves(game, state):
    return [game.action_to_str(state, a) for a in game.legal_actions(state)]


def _without_last(state):
    """Header, bitboards and line counts without H_LAST, which a text board does not carry."""
    return np.delete(state[: K.S_NHIST], C.H_LAST)


def _outcome(game, state):
    return game.is_terminal(state), list(game.returns(state)), int(state[C.H_REASON])


# -- set-up, actions, perft ---------------------------------------------------------------------
def test_start_position_and_b1_moves():
    game = envs.make_game("loa")
    state = game.initial_state()
    assert isinstance(game, LinesOfAction) and game.num_actions == 513
    assert game.to_text(state) == START.lstrip("\n")
    assert np.array_equal(game.from_text(START), state)
    b1 = [m for m in _moves(game, state) if m.startswith("b1")]
    assert b1 == ["b1-b3", "b1-d3", "b1-h1"]
    assert [game.str_to_action(state, m) for m in b1] == [57 * 8 + 0, 57 * 8 + 1, 57 * 8 + 2]


@pytest.mark.parametrize("rules", ["standard", "openspiel"])
def test_perft_to_depth_4(rules):
    game = envs.make_game("loa", rules=rules)
    state = game.initial_state()
    assert [perft(game, state, d) for d in range(1, 5)] == [36, 1244, 44952, 1563208]


def _four_ply_returns(game):
    """4-ply lines from the start that end on the start board: x undoes its move, o undoes its.

    These are the only games that can end within five plies (by first_board repetition)."""
    count = 0
    start = game.initial_state()
    for a in game.legal_actions(start):
        one = game.apply(start, a)
        m1 = game.action_to_str(start, a)
        for b in game.legal_actions(one):
            two = game.apply(one, b)
            m2 = game.action_to_str(one, b)
            try:
                four = _play(game, two, f"{m1[3:]}-{m1[:2]}", f"{m2[3:]}-{m2[:2]}")
            except NotationError:
                continue
            count += game.is_terminal(four)
    return count


def test_first_board_ends_784_games_at_ply_4():
    assert _four_ply_returns(envs.make_game("loa", rules="openspiel")) == 784
    assert _four_ply_returns(envs.make_game("loa")) == 0


@pytest.mark.slow
@pytest.mark.parametrize("rules, expected", [("standard", 55963132), ("openspiel", 55934908 + 784)])
def test_perft_depth_5(rules, expected):
    """55934908 (RULES.md, OpenSpiel) counts a game that ended before depth 5 as no leaf; our perft
    counts it as one leaf, which adds the 784 games drawn at ply 4. (55963132 - 55934908 is
    exactly 784 * 36: each of those games would otherwise have had the start's 36 moves.)"""
    game = envs.make_game("loa", rules=rules)
    assert perft(game, game.initial_state(), 5) == expected


def test_connected_matches_a_plain_flood_fill():
    rng = np.random.default_rng(7)

    def reference(cells):
        todo, seen = [cells[0]], {cells[0]}
        while todo:
            r, c = divmod(todo.pop(), 8)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    nb = (r + dr) * 8 + c + dc
                    if 0 <= r + dr < 8 and 0 <= c + dc < 8 and nb in cells and nb not in seen:
                        seen.add(nb)
                        todo.append(nb)
        return len(seen) == len(cells)

    verdicts = set()
    for _ in range(3000):
        k = int(rng.integers(1, 13))
        centre = rng.integers(0, 8, size=2)
        spread = int(rng.integers(1, 5))  # small spreads make connected sets common
        rc = np.clip(centre + rng.integers(-spread, spread + 1, size=(k, 2)), 0, 7)
        cells = sorted({int(r * 8 + c) for r, c in rc})
        bb = np.int64(K._signed(sum(1 << c for c in cells)))
        expected = reference(cells)
        verdicts.add(expected)
        assert K.connected(bb) == expected, cells
    assert verdicts == {True, False}


# -- end of game ---------------------------------------------------------------------------------
def test_simultaneous_connection_is_a_draw_by_default():
    game = envs.make_game("loa")
    end = _play(game, game.from_text(SIMULTANEOUS), "e1xe3")
    assert _outcome(game, end) == (True, [0.0, 0.0], K.BOTH_CONNECTED)
    assert len(game.legal_actions(end)) == 0


@pytest.mark.parametrize("params", [{"simultaneous": "mover"}, {"rules": "openspiel"}])
def test_simultaneous_connection_won_by_the_mover(params):
    game = envs.make_game("loa", **params)
    end = _play(game, game.from_text(SIMULTANEOUS), "e1xe3")
    assert _outcome(game, end) == (True, [1.0, -1.0], K.BOTH_CONNECTED)


def test_mover_connecting_wins():
    game = envs.make_game("loa")
    end = _play(game, game.from_text(CONNECT), "e1xe3")
    assert _outcome(game, end) == (True, [1.0, -1.0], K.CONNECTED)


@pytest.mark.parametrize("rules", ["standard", "openspiel"])
def test_capture_that_leaves_the_opponent_connected_loses(rules):
    game = envs.make_game("loa", rules=rules)
    state = game.from_text(CAPTURE_CONNECTS_OPPONENT)
    assert "h3xh1" in _moves(game, state)
    end = _play(game, state, "h3xh1")
    assert _outcome(game, end) == (True, [-1.0, 1.0], K.OPPONENT_CONNECTED)


def test_forced_pass():
    game = envs.make_game("loa")
    state = game.from_text(BLOCKED)
    assert list(game.legal_actions(state)) == [K.PASS]
    assert game.action_to_str(state, K.PASS) == "pass" and game.str_to_action(state, " PASS ") == K.PASS
    after = game.apply(state, K.PASS)
    assert not game.is_terminal(after) and game.current_player(after) == 1 and after[C.H_PLY] == 41
    assert after[C.H_HASH] == state[C.H_HASH] ^ K.SIDE_KEY
    assert not game.is_legal(game.initial_state(), K.PASS)
    assert K.PASS not in game.legal_actions(after)


def test_blocked_side_loses_with_no_move_lose():
    for game in (envs.make_game("loa", no_move="lose"), envs.make_game("loa", rules="openspiel")):
        state = game.from_text(BLOCKED)
        assert _outcome(game, state) == (True, [-1.0, 1.0], K.NO_MOVE)
        assert not game.is_legal(state, K.PASS)
    # the same rule when the block arises from a move: o's h6-g7 walls x in completely
    game = envs.make_game("loa", no_move="lose")
    state = game.from_text(
        BLOCKED.replace("7 . . . . . . o o", "7 . . . . . . . o")
        .replace("6 . . . . . . . .", "6 . . . . . . . o")
        .replace("to_move=x ply=40", "to_move=o ply=41")
    )
    assert _outcome(game, state)[0] is False
    assert _outcome(game, _play(game, state, "h6-g7")) == (True, [-1.0, 1.0], K.NO_MOVE)


# BLOCKED plus a spare o on d5 that moves one square up and down without touching x's lines.
BLOCKED_WITH_SPARE = BLOCKED.replace("5 . . . . . . . .", "5 . . . o . . . .")

SHUFFLE = ("b1-b3", "a2-c2", "b3-b1", "c2-a2")  # four plies back to the start position


def test_threefold_repetition_draws_on_the_third_occurrence():
    game = envs.make_game("loa")
    state = game.from_text(START)
    twice = _play(game, state, *SHUFFLE)
    assert not game.is_terminal(twice) and twice[C.H_HASH] == state[C.H_HASH]
    assert np.array_equal(twice[K.S_BB : K.S_NHIST], state[K.S_BB : K.S_NHIST])
    almost = _play(game, twice, *SHUFFLE[:3])
    assert not game.is_terminal(almost)
    assert _outcome(game, _play(game, almost, SHUFFLE[3])) == (True, [0.0, 0.0], K.REPETITION)
    # a text board holds no history: read back, the twice-seen position counts as new
    fresh = game.from_text(game.to_text(twice))
    assert not game.is_terminal(_play(game, fresh, *SHUFFLE))
    # but a game that ended by repetition says so, and reads back as ended
    drawn = _play(game, almost, SHUFFLE[3])
    assert game.to_text(drawn).splitlines()[-1] == "to_move=x ply=8 end=repetition"
    assert _outcome(game, game.from_text(game.to_text(drawn))) == (True, [0.0, 0.0], K.REPETITION)


def test_first_board_repetition_draws_at_once():
    game = envs.make_game("loa", repetition="first_board")
    state = game.initial_state()
    assert not game.is_terminal(_play(game, state, *SHUFFLE[:3]))
    assert _outcome(game, _play(game, state, *SHUFFLE)) == (True, [0.0, 0.0], K.REPETITION)
    # a pass leaves the piece placement as it was, so under first_board it repeats the board
    blocked = game.from_text(BLOCKED)
    assert _outcome(game, game.apply(blocked, K.PASS)) == (True, [0.0, 0.0], K.REPETITION)


def test_threefold_needs_the_same_side_to_move():
    """x is walled in and passes while o shuffles d5-d6-d5: the board recurs every four plies
    but with x to move only every fourth ply, so the third same-side occurrence is at ply 8
    (a board-only count would reach three at ply 4)."""
    game = envs.make_game("loa")
    start = game.from_text(BLOCKED_WITH_SPARE)
    seven = _play(game, start, "pass", "d5-d6", "pass", "d6-d5", "pass", "d5-d6", "pass")
    assert not game.is_terminal(seven)
    assert _outcome(game, _play(game, seven, "d6-d5")) == (True, [0.0, 0.0], K.REPETITION)


def test_max_moves_cap_draws():
    game = envs.make_game("loa", max_moves=4)
    state = _play(game, game.initial_state(), *SHUFFLE[:3])
    assert not game.is_terminal(state)
    assert _outcome(game, _play(game, state, "h7-f7")) == (True, [0.0, 0.0], K.MAX_MOVES)
    with pytest.raises(TextBoardError, match="ply='5'"):
        game.from_text(START.replace("ply=0", "ply=5").replace("to_move=x", "to_move=o"))
    at_cap = game.from_text(START.replace("ply=0", "ply=4"))
    assert _outcome(game, at_cap) == (True, [0.0, 0.0], K.MAX_MOVES)


@pytest.mark.parametrize(
    "win_at_cap, expected",
    [
        ("stands", (True, [1.0, -1.0], K.CONNECTED)),
        ("draw", (True, [0.0, 0.0], K.MAX_MOVES)),
    ],
)
def test_winning_move_on_the_last_ply(win_at_cap, expected):
    game = envs.make_game("loa", max_moves=41, win_at_cap=win_at_cap)
    end = _play(game, game.from_text(CONNECT), "e1xe3")
    assert _outcome(game, end) == expected


def test_connected_text_board_is_over_on_reading():
    game = envs.make_game("loa")
    won = game.from_text(WON)
    assert _outcome(game, won) == (True, [1.0, -1.0], K.CONNECTED)
    assert len(game.legal_actions(won)) == 0


# -- notation --------------------------------------------------------------------------------
def test_notation_round_trip_over_random_games():
    game = envs.make_game("loa")
    rng = np.random.default_rng(3)
    for _ in range(5):
        state = game.initial_state()
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            assert np.all(np.diff(legal) > 0) and len(legal) > 0
            for a in legal:
                assert game.str_to_action(state, game.action_to_str(state, a)) == a
            if game.current_player(state) == 0:  # is_legal agrees with legal_actions everywhere
                assert np.array_equal(np.flatnonzero([game.is_legal(state, a) for a in range(513)]), legal)
            state = game.apply(state, int(rng.choice(legal)))
            if not game.is_terminal(state):  # incremental bitboards, counts and hash = a fresh read
                assert np.array_equal(_without_last(game.from_text(game.to_text(state))), _without_last(state))
        assert len(game.legal_actions(state)) == 0


@pytest.mark.parametrize("text", ["c8xa6", "C8:A6", " c8 x a6 ", "c8 : a6"])
def test_parsing_accepts_case_colon_and_whitespace(text):
    game = envs.make_game("loa")
    state = game.initial_state()
    assert game.str_to_action(state, text) == 2 * 8 + 5  # c8 = cell 2, south-west
    assert game.action_to_str(state, 2 * 8 + 5) == "c8xa6"


@pytest.mark.parametrize(
    "text, message",
    [
        ("c8-a6", "write c8xa6"),
        ("b1xb3", "write b1-b3"),
        ("b1-b4", "exactly 2 squares"),
        ("b1-c4", "c4 is not on a line"),
        ("a1-a3", "no x piece on a1"),
        ("a2-c2", "no x piece on a2"),
        ("b1-b1", "not on a line"),
        ("z9-b3", "expected a move like b1-b3"),
        ("b1b3", "expected a move like b1-b3"),
        ("", "expected a move like b1-b3"),
        ("resign", "expected a move like b1-b3"),
        ("pass", "not legal"),
    ],
)
def test_malformed_or_illegal_notation(text, message):
    game = envs.make_game("loa")
    with pytest.raises(NotationError, match=message):
        game.str_to_action(game.initial_state(), text)


def test_well_formed_move_jumping_an_enemy_is_illegal():
    game = envs.make_game("loa")
    state = game.from_text(BLOCKED)
    with pytest.raises(NotationError, match="'a1-a3' is not legal"):
        game.str_to_action(state, "a1-a3")
    with pytest.raises(NotationError, match="expected a string"):
        game.str_to_action(state, 456)


def test_illegal_actions_raise():
    game = envs.make_game("loa")
    state = game.initial_state()
    for bad in (-1, 513, 1.5, True, "456"):
        with pytest.raises(IllegalActionError, match="outside the action space"):
            game.apply(state, bad)
    with pytest.raises(IllegalActionError, match="not legal"):
        game.apply(state, 0)  # a8 is empty
    with pytest.raises(IllegalActionError, match="no x piece on a8"):
        game.action_to_str(state, 0)
    with pytest.raises(IllegalActionError, match="would leave the board"):
        game.action_to_str(state, 57 * 8 + 6)  # b1 west
    with pytest.raises(StateError):
        game.apply(envs.make_game("loa", max_moves=999).initial_state(), 456)


# -- parameters and text boards --------------------------------------------------------------
@pytest.mark.parametrize(
    "params, value",
    [
        ({"simultaneous": "both"}, "'both'"),
        ({"no_move": "skip"}, "'skip'"),
        ({"repetition": 3}, "3"),
        ({"win_at_cap": True}, "True"),
        ({"max_moves": 0}, "0"),
        ({"max_moves": 10001}, "10001"),
        ({"max_moves": "1000"}, "'1000'"),
        ({"rules": "olympiad"}, "'olympiad'"),
        ({"size": 9}, "'size'"),
    ],
)
def test_bad_parameters(params, value):
    with pytest.raises(ParameterError, match=value):
        envs.make_game("loa", **params)


def test_openspiel_preset_values():
    game = envs.make_game("loa", rules="openspiel")
    assert dict(game.params) == {
        "simultaneous": "mover",
        "no_move": "lose",
        "repetition": "first_board",
        "max_moves": 1000,
        "win_at_cap": "draw",
    }
    assert game.state_len == K.state_len(1000)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.replace("ply=0", "ply=1"), "to_move=x with ply=1"),
        (lambda t: t.replace("ply=0", "ply=-3"), "ply='-3'"),
        (lambda t: t.replace("ply=0", "ply=1001"), "ply='1001'"),
        (lambda t: t.replace(" ply=0", ""), "missing ply"),
        (lambda t: t.replace("to_move=x", "to_move=b"), "to_move='b'"),
        (lambda t: t.replace("3 o . .", "3 o x ."), "13 'x' pieces"),
        (lambda t: t.replace(" o", " ."), "0 'o' pieces"),
        (lambda t: t.replace("5 o .", "5 . ."), "11 'o' pieces at ply=0: 1 captured"),
        (lambda t: t.replace("4 o . .", "4 o ? ."), "'\\?'"),
        (lambda t: t.replace("2 o . . . . . . o\n", ""), "non-empty lines"),
        (lambda t: t.replace("1 . x x x x x x .", "1 . x x x x x x . ."), "1 . x x x x x x . ."),
        (lambda t: "garbage", "non-empty lines"),
        (lambda t: t.replace("ply=0", "ply=0 end=connection"), "'end=connection'"),
        (lambda t: t.replace("ply=0", "ply=0 end=repetition end=repetition"), "'end=repetition'"),
        (lambda t: WON.replace("ply=41", "ply=41 end=repetition"), "where a side is connected"),
    ],
)
def test_bad_text_boards(edit, message):
    game = envs.make_game("loa")
    with pytest.raises(TextBoardError, match=message):
        game.from_text(edit(START))


def test_text_board_round_trip_mid_game():
    game = envs.make_game("loa")
    state = _play(game, game.initial_state(), "b1-b3", "a2-c2", "c1xa3")
    text = game.to_text(state)
    assert text.splitlines()[-1] == "to_move=o ply=3"
    back = game.from_text(text)
    assert game.to_text(back) == text
    assert np.array_equal(_without_last(back), _without_last(state))


def test_observation_planes():
    game = envs.make_game("loa")
    state = _play(game, game.initial_state(), "b1-b3")
    for seat in (0, 1):
        obs = game.observation(state, seat)
        assert obs.shape == (3, 8, 8) and obs.dtype == np.float32
        assert obs[0].sum() == 12 and obs[1].sum() == 12 and not (obs[0] * obs[1]).any()
        assert obs[2].all() == (seat == 1) and obs[2].any() == (seat == 1)
    x_view = game.observation(state, 0)
    assert x_view[0, 5, 1] == 1 and x_view[0, 7, 1] == 0  # b3 (row 5) occupied, b1 (row 7) empty
    assert np.array_equal(x_view[0], game.observation(state, 1)[1])


def test_random_playouts_are_seeded_and_finish():
    game = envs.make_game("loa")
    a, b = game.random_playouts(50, seed=11), game.random_playouts(50, seed=11)
    assert np.array_equal(a["returns"], b["returns"]) and np.array_equal(a["lengths"], b["lengths"])
    assert np.all(a["lengths"] <= 1000) and np.all(np.abs(a["returns"].sum(axis=1)) == 0)


# -- OpenSpiel ---------------------------------------------------------------------------------
def _golden():
    for name in ("lines_of_action.jsonl.gz", "lines_of_action_simultaneous.jsonl.gz"):
        with gzip.open(GOLDEN / name, "rt") as f:
            yield from (json.loads(line) for line in f)


RECORDS = list(_golden())


def _rc(square_name):
    return [8 - int(square_name[1]), "abcdefgh".index(square_name[0])]


def test_every_golden_record_replays_exactly():
    """All 46 OpenSpiel records: equal legal-move sets at every ply, equal boards, equal returns."""
    assert len(RECORDS) == 46
    assert {r["end_reason"] for r in RECORDS} >= {"simultaneous_connection", "repetition", "opponent_connected"}
    game = envs.make_game("loa", rules="openspiel")
    mismatches = []
    for record in RECORDS:
        state = game.initial_state()
        for k, text in enumerate(record["action_strings"]):
            ours = sorted((_rc(m[:2]), _rc(m[3:])) for m in _moves(game, state))
            theirs = sorted((m["from"], m["to"]) for m in record["legal"][k])
            if game.is_terminal(state) or ours != theirs:
                mismatches.append((record["id"], k, "legal moves"))
                break
            state = game.apply(state, game.str_to_action(state, text))
            board = "/".join("".join(".xo"[v] for v in row) for row in notation.grid(state))
            if board != record["boards"][k]:
                mismatches.append((record["id"], k, "board"))
                break
        else:
            if not game.is_terminal(state) or list(game.returns(state)) != record["returns"]:
                mismatches.append((record["id"], len(record["moves"]), "end"))
    assert mismatches == []


@pytest.mark.parametrize("cap", [1000, 25])
def test_fresh_random_games_agree_with_pyspiel(cap):
    pyspiel = pytest.importorskip("pyspiel")
    theirs_game = pyspiel.load_game("lines_of_action", {"max_game_length": cap})
    game = envs.make_game("loa", rules="openspiel", max_moves=cap)
    rng = np.random.default_rng(cap)
    for _ in range(8):
        theirs, ours = theirs_game.new_initial_state(), game.initial_state()
        while not theirs.is_terminal():
            legal = {theirs.action_to_string(a): a for a in theirs.legal_actions()}
            assert sorted(legal) == sorted(_moves(game, ours))
            move = sorted(legal)[int(rng.integers(len(legal)))]
            theirs.apply_action(legal[move])
            ours = game.apply(ours, game.str_to_action(ours, move))
        assert game.is_terminal(ours) and list(game.returns(ours)) == list(theirs.returns())
        assert ours[C.H_PLY] == len(theirs.history()) <= cap
