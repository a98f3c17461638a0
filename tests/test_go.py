"""Go: position tests written as text boards, notation, bad input, and a replay of every OpenSpiel
golden Go record (legal-move sets at every ply, boards, returns and Tromp-Taylor scores)."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core import IllegalActionError, NotationError, ParameterError, TextBoardError
from envs.core import kernel as C
from envs.core import rng as R
from envs.go import _kernel as K

GOLDEN = Path(__file__).parent / "data" / "golden"


def play(game, state, *moves):
    for move in moves:
        state = game.apply(state, game.str_to_action(state, move))
    return state


def stones(game, state):
    n = game.size
    return state[C.HEADER : C.HEADER + n * n].reshape(n, n)


# -- captures ---------------------------------------------------------------------------------------
SINGLE = """
5 . . . . .
4 . . x . .
3 . x o . .
2 . . x . .
1 . . . . .
  a b c d e
to_move=x ply=4 passes=0 ko=-
"""

MULTI = """
5 . . . . .
4 . x x . .
3 x o o . .
2 . x x . .
1 . . . . .
  a b c d e
to_move=x ply=8 passes=0 ko=-
"""


def test_single_stone_capture():
    game = envs.make_game("go", size=5)
    after = play(game, game.from_text(SINGLE), "D3")
    assert stones(game, after)[2, 2] == 0  # c3 taken
    assert (stones(game, after) == 2).sum() == 0


def test_multi_stone_capture():
    game = envs.make_game("go", size=5)
    after = play(game, game.from_text(MULTI), "d3")
    assert (stones(game, after) == 2).sum() == 0
    assert (stones(game, after) == 1).sum() == 6
    assert game.score(after) == 25 - 7.5  # every empty point now reaches only Black


def test_a_stone_without_liberties_is_legal_when_it_captures():
    game = envs.make_game("go", size=5)
    state = game.from_text("""
5 . o x . .
4 o x . . .
3 x . . . .
2 . . . . .
1 . . . . .
  a b c d e
to_move=x ply=6 passes=0 ko=-
""")
    after = play(game, state, "A5")  # takes b5 and a4, two one-stone chains
    assert stones(game, after)[0, 0] == 1
    assert (stones(game, after) == 2).sum() == 0


# -- ko and superko ---------------------------------------------------------------------------------
KO = """
5 . . . . .
4 . x o . .
3 x o . o .
2 . x o . .
1 . . . . .
  a b c d e
to_move=x ply=8 passes=0 ko=-
"""


@pytest.mark.parametrize("superko", ["illegal", "draw"])
def test_ko_cannot_be_retaken_at_once(superko):
    game = envs.make_game("go", size=5, superko=superko)
    taken = play(game, game.from_text(KO), "c3")
    assert stones(game, taken)[2, 1] == 0  # b3 captured
    with pytest.raises(NotationError, match="not legal"):
        game.str_to_action(taken, "b3")
    assert game.str_to_action(taken, "pass") == 25
    assert game.to_text(taken).endswith("ko=b3\n")
    read = game.from_text(game.to_text(taken))  # the ko survives the text, as en passant in FEN
    assert not game.is_legal(read, 11) and read[C.H_HASH] == taken[C.H_HASH]
    # After a ko threat and its answer the whole board is new, so retaking is legal again.
    later = play(game, taken, "e5", "e1", "b3")
    assert stones(game, later)[2, 2] == 0 and stones(game, later)[2, 1] == 2


def _superko_records():
    records = []
    for path in sorted(GOLDEN.glob("go_*.jsonl.gz")):
        with gzip.open(path, "rt") as f:
            records += [r for r in map(json.loads, f) if r["end_reason"] == "positional_superko"]
    return records


def _action(n, move):
    return n * n if move == "pass" else move[0] * n + move[1]


def test_golden_records_include_superko_repetitions():
    assert len(_superko_records()) >= 5


@pytest.mark.parametrize("record", _superko_records(), ids=lambda r: r["id"])
def test_positional_superko_both_variants(record):
    """OpenSpiel's repetitions: legal and a drawn end under "draw", illegal under "illegal"."""
    cfg = record["config"]
    n = cfg["board_size"]
    kwargs = dict(size=n, komi=cfg["komi"], max_moves=cfg["max_game_length"])
    actions = [_action(n, m) for m in record["moves"]]
    for superko in ("illegal", "draw"):
        game = envs.make_game("go", superko=superko, **kwargs)
        state = game.initial_state()
        for a in actions[:-1]:
            state = game.apply(state, a)
        if superko == "illegal":
            assert not game.is_legal(state, actions[-1])
            assert actions[-1] not in game.legal_actions(state)
            assert game.observation(state, 0)[3].ravel()[actions[-1]] == 1.0
        else:
            end = game.apply(state, actions[-1])
            assert game.is_terminal(end) and end[C.H_REASON] == K.SUPERKO
            assert list(game.returns(end)) == [0.0, 0.0]


# -- suicide ----------------------------------------------------------------------------------------
SUICIDE = """
5 . . . . .
4 . . . . .
3 o o . . .
2 x x o . .
1 . x o . o
  a b c d e
to_move=x ply=8 passes=0 ko=-
"""


def test_multi_stone_suicide_is_illegal_by_default():
    game = envs.make_game("go", size=5)
    state = game.from_text(SUICIDE)
    assert not game.is_legal(state, 20)  # a1, the last liberty of a2-b2-b1
    assert 20 not in game.legal_actions(state)
    assert game.observation(state, 0)[3, 4, 0] == 1.0
    with pytest.raises(NotationError, match="'a1' is not legal"):
        game.str_to_action(state, "a1")


def test_multi_stone_suicide_removes_the_chain_when_allowed():
    game = envs.make_game("go", size=5, suicide=True)
    after = play(game, game.from_text(SUICIDE), "A1")
    assert (stones(game, after) == 1).sum() == 0
    assert (stones(game, after) == 2).sum() == 5
    # The hash kept incrementally equals the one computed afresh from the board.
    assert after[C.H_HASH] == game.from_text(game.to_text(after))[C.H_HASH]


CORNER = """
5 . . . . .
4 . . . . .
3 . . . . .
2 o . . . .
1 . o . . .
  a b c d e
to_move=x ply=2 passes=0 ko=-
"""


@pytest.mark.parametrize("suicide", [False, True])
def test_single_stone_suicide_is_always_illegal(suicide):
    """It would leave the board unchanged: a pass in disguise (and a superko repeat)."""
    game = envs.make_game("go", size=5, suicide=suicide)
    corner = game.from_text(CORNER)
    assert not game.is_legal(corner, 20)  # a1
    assert game.is_legal(game.apply(corner, 25), 20)  # White may fill its own eye


# -- scoring and the end of the game ------------------------------------------------------------------
DAME = """
5 . x . o .
4 x x . o o
3 . x . o .
2 x x . o o
1 . x . o .
  a b c d e
to_move=x ply=16 passes=2 ko=-
"""


@pytest.mark.parametrize(
    "komi, score, returns", [(0, 0.0, [0.0, 0.0]), (0.5, -0.5, [-1.0, 1.0]), (-1.5, 1.5, [1.0, -1.0])]
)
def test_area_scoring_with_komi_and_neutral_points(komi, score, returns):
    """10 points each (7 stones + 3 eyes); the c column reaches both colours and counts for no one."""
    game = envs.make_game("go", size=5, komi=komi)
    state = game.from_text(DAME)
    assert game.is_terminal(state) and state[C.H_REASON] == K.TWO_PASSES
    assert tuple(K.area(state, game._p)) == (10, 10)
    assert game.score(state) == score
    assert list(game.returns(state)) == returns


def test_kernel_params_under_another_komi_score_this_games_states_by_it():
    """A search under another komi (MCTS's komi for the score of a lost game) runs this game's states."""
    game = envs.make_game("go", size=5, komi=0.5)
    state = game.from_text(DAME)
    even = game.kernel_params_under(komi=-1.5)
    assert even[C.P_SIG] == game.kernel_params[C.P_SIG] and not even.flags.writeable
    assert K.score(state, even) == 3 and K.score(state, game.kernel_params) == -1  # twice the score
    assert game.komi == 0.5  # the game itself is unchanged
    with pytest.raises(ParameterError, match="size=7: changes the states"):
        game.kernel_params_under(size=7)
    with pytest.raises(ParameterError, match="komi=0.25"):
        game.kernel_params_under(komi=0.25)


def test_two_consecutive_passes_end_the_game():
    game = envs.make_game("go", size=5)
    state = game.apply(game.initial_state(), 25)
    assert not game.is_terminal(state) and "passes=1" in game.to_text(state)
    reset = play(game, state, "c3")
    assert "passes=0" in game.to_text(reset)
    end = game.apply(state, 25)
    assert game.is_terminal(end) and end[C.H_REASON] == K.TWO_PASSES
    assert list(game.returns(end)) == [-1.0, 1.0]  # empty board: White wins by komi
    assert len(game.legal_actions(end)) == 0
    with pytest.raises(IllegalActionError, match="after the game ended"):
        game.apply(end, 25)


def test_max_moves_ends_and_scores_the_game():
    game = envs.make_game("go", size=5, komi=0.5, max_moves=3)
    state = play(game, game.initial_state(), "c3", "a1")
    assert not game.is_terminal(state)
    end = play(game, state, "e5")
    assert game.is_terminal(end) and end[C.H_REASON] == K.MAX_MOVES
    assert game.score(end) == 2 - 1 - 0.5  # every empty point reaches both colours
    assert list(game.returns(end)) == [1.0, -1.0]
    assert envs.make_game("go", size=7).max_moves == 98


# -- notation and text ----------------------------------------------------------------------------------
def test_gtp_notation_round_trip_skips_i():
    game = envs.make_game("go")
    state = game.initial_state()
    names = [game.action_to_str(state, a) for a in range(82)]
    assert names[0] == "A9" and names[8] == "J9" and names[80] == "J1" and names[40] == "E5"
    assert names[81] == "pass"
    assert not any("I" in name for name in names)
    assert [game.str_to_action(state, name) for name in names] == list(range(82))
    assert game.str_to_action(state, "  c3 ") == game.str_to_action(state, "C3") == 6 * 9 + 2
    assert game.str_to_action(state, "PASS") == 81


@pytest.mark.parametrize("text", ["I3", "i3", "A0", "A10", "K1", "C", "3C", "pas", "", "C3x"])
def test_malformed_moves_raise_notation_error_naming_them(text):
    game = envs.make_game("go")
    with pytest.raises(NotationError, match=repr(text.strip().lower())):
        game.str_to_action(game.initial_state(), text)


def test_occupied_point_is_illegal_notation():
    game = envs.make_game("go", size=5)
    state = play(game, game.initial_state(), "c3")
    with pytest.raises(NotationError, match="not legal"):
        game.str_to_action(state, "C3")


def test_text_round_trip_and_fresh_history():
    game = envs.make_game("go", size=7, suicide=True)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    for _ in range(60):
        legal = game.legal_actions(state)
        state = game.apply(state, int(rng.choice(legal[:-1] if len(legal) > 1 else legal)))
    again = game.from_text(game.to_text(state))
    assert game.to_text(again) == game.to_text(state)
    assert again[C.H_HASH] == state[C.H_HASH]
    assert again[K.fields(game._p) + K.O_COUNT] == 1  # history restarts with this position alone


@pytest.mark.parametrize(
    "text, match",
    [
        ("hello", "non-empty lines"),
        (DAME.replace("ply=16", "ply=15"), "to_move=x with ply=15"),
        (DAME.replace("ply=16", "ply=14"), "14 stones and passes=2 after ply=14"),
        (DAME.replace("passes=2", "passes=3"), "passes='3'"),
        (DAME.replace("ply=16", "ply=60"), "ply='60'"),
        (DAME.replace("5 . x . o .", "5 o x . o .").replace("ply=16", "ply=18"), "chain at A5 has no liberties"),
        (DAME.replace("a b c d e", "a b c d i"), "column line"),
        (DAME.replace(" passes=2", ""), "missing passes"),
        (DAME.replace("ko=-", "ko=z9"), "ko='z9': expected - or a point"),
        (KO.replace("ko=-", "ko=d4"), "ko='d4': expected the empty point where o just took"),
        (KO.replace("ko=-", "ko=c3").replace("passes=0", "passes=1"), "ko='c3'"),
        (KO.replace("ko=-", "ko=e5"), "ko='e5'"),
    ],
)
def test_bad_text_boards_raise_text_board_error(text, match):
    game = envs.make_game("go", size=5)
    with pytest.raises(TextBoardError, match=match):
        game.from_text(text)


def test_observation_planes():
    game = envs.make_game("go", size=5)
    state = game.from_text(CORNER)
    obs = game.observation(state, 1)
    assert obs.shape == (4, 5, 5) and obs.dtype == np.float32
    assert obs[0].sum() == 2 and obs[1].sum() == 0 and obs[2].sum() == 0
    assert obs[3].sum() == 1 and obs[3, 4, 0] == 1  # a1 is suicide for Black, to move
    assert game.observation(state, 0)[2].sum() == 25


# -- parameters -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, match",
    [
        ({"komi": float("nan")}, "komi=nan"),
        ({"komi": float("inf")}, "komi=inf"),
        ({"komi": 7.3}, r"komi=7.3: expected a multiple of 0.5"),
        ({"komi": "7.5"}, "komi='7.5'"),
        ({"komi": 100.5}, "komi=100.5"),
        ({"size": 4}, "size=4"),
        ({"size": 20}, "size=20"),
        ({"rules": "aga"}, "rules='aga'"),
        ({"superko": "situational"}, "superko='situational'"),
        ({"suicide": 1}, "suicide=1"),
        ({"max_moves": 0}, "max_moves=0"),
    ],
)
def test_bad_parameters_raise_parameter_error(params, match):
    with pytest.raises(ParameterError, match=match):
        envs.make_game("go", **params)


def test_openspiel_preset_and_defaults():
    game = envs.make_game("go", rules="openspiel")
    assert game.params["superko"] == "draw" and game.params["suicide"] is False
    assert game.params["komi"] == 7.5 and game.max_moves == 162 and game.num_actions == 82
    reverse = envs.make_game("go", komi=-3)
    assert reverse.score(reverse.initial_state()) == 3.0


# -- invariants over random play ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "params, games",
    [
        ({"size": 5}, 4),
        ({"size": 6, "suicide": True}, 4),
        ({"size": 5, "rules": "openspiel"}, 4),
        ({"size": 19}, 1),
        ({"size": 13, "suicide": True, "rules": "openspiel"}, 1),
    ],
)
def test_random_play_invariants(params, games):
    """legal_actions (row masks) agrees with is_legal (point by point) everywhere, on boards up to
    19 wide; the incremental hash with a fresh one."""
    game = envs.make_game("go", **params)
    rng = np.random.default_rng(7)
    for _ in range(games):
        state = game.initial_state()
        while not game.is_terminal(state):
            legal = game.legal_actions(state)
            assert list(legal) == [a for a in range(game.num_actions) if game.is_legal(state, a)]
            assert legal[-1] == game.num_actions - 1  # pass is always legal
            state = game.apply(state, int(rng.choice(legal)))
            assert state[C.H_HASH] == game.from_text(game.to_text(state))[C.H_HASH]
        assert state[C.H_REASON] in (K.TWO_PASSES, K.MAX_MOVES, K.SUPERKO)


def _naive_after(board, n, a, colour, suicide):
    """Reference rules by flood fill: the board after a stone, or None if it is a barred suicide."""
    b = list(board)
    b[a] = colour

    def neighbours(i):
        r, c = divmod(i, n)
        return [
            rr * n + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if 0 <= rr < n and 0 <= cc < n
        ]

    def chain(start):
        todo, seen, free = [start], {start}, False
        while todo:
            for t in neighbours(todo.pop()):
                free |= b[t] == 0
                if b[t] == b[start] and t not in seen:
                    seen.add(t)
                    todo.append(t)
        return seen, free

    for t in neighbours(a):
        if b[t] == 3 - colour and not chain(t)[1]:
            for q in chain(t)[0]:
                b[q] = 0
    own, free = chain(a)
    if not free:
        if not suicide or len(own) == 1:
            return None
        for q in own:
            b[q] = 0
    return tuple(b)


@pytest.mark.parametrize("suicide", [False, True])
def test_positional_superko_and_suicide_match_a_flood_fill_reference(suicide):
    """Random 5x5 games (few passes, so boards fill and repeat) against naive reference rules."""
    game = envs.make_game("go", size=5, suicide=suicide, max_moves=120)
    rng = np.random.default_rng(11)
    repeats_barred = 0
    for _ in range(6):
        state = game.initial_state()
        history = {tuple(stones(game, state).ravel())}
        while not game.is_terminal(state):
            board = tuple(stones(game, state).ravel())
            colour = game.current_player(state) + 1
            after = {a: _naive_after(board, 5, a, colour, suicide) for a in range(25) if board[a] == 0}
            expected = sorted(a for a, b in after.items() if b is not None and b not in history) + [25]
            repeats_barred += sum(b in history for b in after.values())
            legal = game.legal_actions(state)
            assert list(legal) == expected
            action = int(rng.choice(legal[:-1])) if len(legal) > 1 and rng.random() < 0.97 else 25
            state = game.apply(state, action)
            history.add(tuple(stones(game, state).ravel()))
            if action < 25:
                assert tuple(stones(game, state).ravel()) == after[action]
    assert repeats_barred > 0  # the games did reach superko situations


def test_random_playouts_are_seeded_and_bounded():
    game = envs.make_game("go", size=5)
    a = game.random_playouts(20, seed=1)
    b = game.random_playouts(20, seed=1)
    assert np.array_equal(a["returns"], b["returns"]) and np.array_equal(a["lengths"], b["lengths"])
    assert a["lengths"].max() <= game.max_moves
    assert set(np.abs(a["returns"]).sum(axis=1)) <= {0.0, 2.0}


def test_compiled_playouts_draw_like_a_uniform_choice_among_legal_moves():
    """The compiled playouts sample from a list of empty points (rejecting illegal ones), not
    from ``legal_actions``; both must give one distribution. Game length and Black's score
    of 3000 compiled games against 3000 games choosing uniformly from ``legal_actions``."""
    game = envs.make_game("go", size=5)
    fast = game.random_playouts(3000, seed=7)
    rng = np.random.default_rng(7)
    lengths, black = [], []
    for _ in range(3000):
        s = game.initial_state()
        while not game.is_terminal(s):
            moves = game.legal_actions(s)
            s = game.apply(s, int(moves[rng.integers(len(moves))]))
        lengths.append(s[C.H_PLY])
        black.append(game.returns(s)[0])
    for ours, reference in ((fast["lengths"], np.array(lengths)), (fast["returns"][:, 0], np.array(black))):
        se = np.sqrt(ours.var() / len(ours) + reference.var() / len(reference))
        assert abs(ours.mean() - reference.mean()) < 4 * se


# -- golden records -------------------------------------------------------------------------------------
def _golden():
    for path in sorted(GOLDEN.glob("go_*.jsonl.gz")):
        with gzip.open(path, "rt") as f:
            yield from map(json.loads, f)


RECORDS = list(_golden())
REASONS = {"two_passes": K.TWO_PASSES, "max_length": K.MAX_MOVES, "positional_superko": K.SUPERKO}


def test_all_golden_go_records_present():
    assert len(RECORDS) == 130  # per tests/data/golden/README.md


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_golden_replay(record):
    cfg = record["config"]
    n = cfg["board_size"]
    game = envs.make_game("go", rules="openspiel", size=n, komi=cfg["komi"], max_moves=cfg["max_game_length"])
    state = game.initial_state()
    for k, move in enumerate(record["moves"]):
        assert not game.is_terminal(state), f"ply {k}: ended early"
        expected = sorted(_action(n, m) for m in record["legal"][k])
        assert list(game.legal_actions(state)) == expected, f"ply {k}: legal moves differ"
        state = game.apply(state, _action(n, move))
        board = "/".join("".join(".xo"[v] for v in row) for row in stones(game, state))
        assert board == record["boards"][k], f"ply {k}: board differs"
    assert game.is_terminal(state) and state[C.H_REASON] == REASONS[record["end_reason"]]
    assert list(game.returns(state)) == record["returns"]
    assert tuple(K.area(state, game._p)) == tuple(record["info"]["area"])
    assert game.score(state) == pytest.approx(record["info"]["tt_score"])


@pytest.mark.parametrize("size, komi", [(5, 0.0), (7, 7.5)])
def test_random_games_match_pyspiel(size, komi):
    """Beyond the golden records: fresh random games against OpenSpiel itself, when installed."""
    pyspiel = pytest.importorskip("pyspiel")
    game = envs.make_game("go", rules="openspiel", size=size, komi=komi)
    spiel = pyspiel.load_game("go", {"board_size": size, "komi": komi})
    assert spiel.max_game_length() == game.max_moves

    def theirs(a):  # OpenSpiel numbers rows from the bottom (a1 = 0)
        return a if a == size * size else (size - 1 - a // size) * size + a % size

    rng = np.random.default_rng(size)
    for _ in range(8):
        ours, state = game.initial_state(), spiel.new_initial_state()
        while not state.is_terminal():
            legal = game.legal_actions(ours)
            assert sorted(theirs(a) for a in legal) == sorted(state.legal_actions())
            action = int(rng.choice(legal))
            ours = game.apply(ours, action)
            state.apply_action(theirs(action))
        assert game.is_terminal(ours) and list(game.returns(ours)) == state.returns()


# -- the light playout policy (MCTS's default for Go) ----------------------------------------------
from envs.go import evaluation as E  # noqa: E402


# -- the static evaluation (alpha-beta's leaf value) -----------------------------------------------
def _value(rows, to_move, **weights):
    """``evaluate`` of a 5x5 position (komi 0) in points from the mover's view, with only the named
    terms weighted 1: ``area`` (0), ``atari`` (6), ``short`` (7)."""
    game = envs.make_game("go", size=5, komi=0)
    lines = [f"{5 - r} " + " ".join(row.split()) for r, row in enumerate(rows)]
    ply = 40 if to_move == "x" else 41
    state = game.from_text("\n".join(lines) + f"\n  a b c d e\nto_move={to_move} ply={ply} passes=0 ko=-\n")
    w = np.zeros_like(E.WEIGHTS)
    for name, index in (("area", 0), ("atari", 6), ("short", 7)):
        w[index] = weights.get(name, 0.0)
    return E.evaluate(state, game.kernel_params, w) / 10.0


ATARI = (". x o . .", ". . x . .", ". . . . .", ". . . . .", ". . . . .")


def test_evaluation_counts_a_chain_in_atari_for_the_side_that_can_take_it():
    assert _value(ATARI, "x", atari=1) == 1.0  # White's stone on C5, one liberty: Black takes it
    assert _value(ATARI, "o", atari=1) == -1.0  # White to move: its own stone is in danger
    assert _value(ATARI, "x", area=1) == 1.0  # stones only: two Black, one White; no region is one colour's


TWO_EYES = (". x . x o", "x x x x o", "o o o o o", ". . . . .", ". . . . .")
ONE_EYE = (". x . o o", "x x x x o", "o o o o o", ". . . . .", ". . . . .")


def test_evaluation_calls_a_two_liberty_chain_without_two_eyes_short_of_liberties():
    # Black's chain has two liberties either way; with both on true eyes (A5, C5) it lives.
    assert _value(TWO_EYES, "x", short=1) == 0.0
    # C5 is no eye once White holds D5: the five stones are short of liberties, and that is
    # Black's weakness from either side's view.
    assert _value(ONE_EYE, "x", short=1) == -5.0
    assert _value(ONE_EYE, "o", short=1) == 5.0


def _light_choices(game, state, draws=60):
    """Every move the light policy picks in ``state`` over ``draws`` random streams."""
    p, nn = game.kernel_params, game.size * game.size
    rng = R.new_rng(0)
    picked = set()
    for _ in range(draws):
        empty, where, cands = (np.empty(nn, dtype=np.int64) for _ in range(3))
        n = K._list_empty(state, p, empty, where)
        picked.add(game.action_to_str(state, int(E.light_move(state.copy(), p, rng, empty, where, n, cands))))
    return picked


EYES = """
5 . x . x x
4 x x x x x
3 x x x x .
2 x x x x x
1 x x x . x
  a b c d e
to_move=x ply=40 passes=0 ko=-
"""


def test_light_playouts_pass_rather_than_fill_their_own_eyes():
    game = envs.make_game("go", size=5)
    state = game.from_text(EYES)
    assert {"A5", "C5", "E3", "D1"} <= {game.action_to_str(state, int(a)) for a in game.legal_actions(state)}
    assert _light_choices(game, state) == {"pass"}


@pytest.mark.parametrize(
    "rows, point, eye",
    [
        ((". x .", "x x .", ". . ."), "A5", True),  # corner, no enemy diagonal
        ((". x .", "x o .", ". . ."), "A5", False),  # corner, one enemy diagonal: false eye
        ((". . .", "x x .", ". . ."), "A5", False),  # an empty orthogonal neighbour: not an eye
        ((". . . .", "o x . .", "x . x .", ". x . ."), "B3", True),  # middle, one enemy diagonal
        ((". . . .", "o x o .", "x . x .", ". x . ."), "B3", False),  # middle, two: false eye
    ],
)
def test_true_single_point_eyes(rows, point, eye):
    game = envs.make_game("go", size=5)
    lines = [f"{5 - r} " + " ".join((row.split() + ["."] * 5)[:5]) for r, row in enumerate(rows)]
    lines += [f"{5 - r} . . . . ." for r in range(len(rows), 5)]
    state = game.from_text("\n".join(lines) + "\n  a b c d e\nto_move=x ply=20 passes=0 ko=-\n")
    a = game.str_to_action(game.initial_state(), point)
    assert E.is_eye(state, game.kernel_params, a, 1) == eye


def test_light_playouts_capture_a_chain_the_last_move_left_in_atari():
    game = envs.make_game("go", size=5)
    before = game.from_text(
        ".\n".join(["5 . . . . ", "4 . . x . ", "3 . x . . ", "2 . . x . ", "1 . . . . "])
        + ".\n  a b c d e\nto_move=o ply=5 passes=0 ko=-\n"
    )
    state = play(game, before, "C3")  # White plays into atari; its one liberty is D3
    assert _light_choices(game, state) == {"D3"}


def test_light_playouts_extend_out_of_atari_when_that_gains_liberties():
    game = envs.make_game("go", size=5)
    before = game.from_text(
        ".\n".join(["5 . . . . ", "4 . . o . ", "3 . o x . ", "2 . . . . ", "1 . . . . "])
        + ".\n  a b c d e\nto_move=o ply=3 passes=0 ko=-\n"
    )
    state = play(game, before, "C2")  # Black's C3 in atari: D3 makes it three liberties
    assert _light_choices(game, state) == {"D3"}


def test_light_playouts_refuse_self_atari_of_two_stones_or_more():
    game = envs.make_game("go", size=5)
    state = game.from_text(
        "5 . x o . .\n4 . o . . .\n3 . . . . .\n2 . . . . .\n1 . . . . .\n  a b c d e\nto_move=x ply=4 passes=0 ko=-\n"
    )
    p = game.kernel_params
    a5, a4 = (game.str_to_action(state, v) for v in ("A5", "A4"))
    assert E.liberties_after(state, p, a5, 1, 2) == (1, 2)  # A5 joins B5: two stones, one liberty
    assert E.liberties_after(state, p, a4, 1, 2)[0] == 2
    assert game.is_legal(state, a5)
    choices = _light_choices(game, state, draws=300)
    assert "A5" not in choices and len(choices) > 15


# White's E5 between Black's E6, D5 and F4: after Black's F5, White's only liberty is E4, and
# extending there leaves two liberties that Black takes away one atari at a time down to the
# lower left corner (a ladder), unless a White stone stands on the way.
LADDER = (
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . x . . . .",
    ". . . x o . . . .",
    ". . . . . x . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . . . . . . . .",
)


def _ladder(breaker=None):
    """The LADDER position with Black to play (F5 starts the ladder), a White stone on
    ``breaker`` if given."""
    game = envs.make_game("go", size=9)
    rows = [row.split() for row in LADDER]
    if breaker:
        rows[9 - int(breaker[1:])]["abcdefghj".index(breaker[0].lower())] = "o"
    text = "\n".join(f"{9 - r} " + " ".join(row) for r, row in enumerate(rows))
    return game, game.from_text(text + "\n  a b c d e f g h j\nto_move=x ply=20 passes=0 ko=-\n")


@pytest.mark.parametrize(
    "breaker, escapes",
    [
        (None, False),  # the ladder runs to the corner
        ("C2", True),  # a White stone on its path: the chain reaches three liberties
        ("B3", True),
        ("G2", False),  # a White stone off its path changes nothing
    ],
)
def test_ladder_reading(breaker, escapes):
    game, before = _ladder(breaker)
    state = play(game, before, "F5")
    e4 = game.str_to_action(state, "E4")
    kept = state.copy()
    assert E.ladder_escapes(state, game.kernel_params, e4) == escapes
    assert np.array_equal(state, kept)  # the reading plays on copies


def test_light_playouts_do_not_run_into_a_ladder():
    game, before = _ladder()
    assert "E4" not in _light_choices(game, play(game, before, "F5"))
    game, before = _ladder("C2")
    assert _light_choices(game, play(game, before, "F5")) == {"E4"}


def test_priors_start_ladders_that_work_and_refuse_to_run_in_them():
    game, before = _ladder()
    start = {move: v for move, (_, v) in _priors(game, before).items()}
    assert max(start, key=start.get) == "F5"  # the atari that captures in the ladder
    run = {move: v for move, (_, v) in _priors(game, play(game, before, "F5")).items()}
    assert run["E4"] < 0.5
    game, before = _ladder("C2")
    start_broken = {move: v for move, (_, v) in _priors(game, before).items()}
    assert start_broken["F5"] < start["F5"]
    run = _priors(game, play(game, before, "F5"))
    assert max((move for move in run if move != "pass"), key=lambda move: run[move][1]) == "E4"


@pytest.mark.parametrize("policy", [0, E.LIGHT])
def test_traced_playouts_record_the_game_they_play(policy):
    # RAVE learns from the trace: every move but the passes, so replaying it from the start,
    # with a pass wherever the trace's next mover is not the side to move and at the end, must
    # give the same game.
    game = envs.make_game("go", size=7)
    p = game.kernel_params
    start = play(game, game.initial_state(), "D4", "C3")
    for seed in range(5):
        s = start.copy()
        trace = np.empty((p[C.P_MAX_MOVES] + 1, 2), dtype=np.int64)
        n = E.traced_playout(s, p, R.new_rng(seed), np.empty(game.num_actions, dtype=np.int64), policy, trace)
        assert game.is_terminal(s) and 0 < n < s[C.H_PLY] - start[C.H_PLY]  # it ends with two passes
        assert game.pass_action not in trace[:n, 0]
        replay = start
        for a, seat in trace[:n]:
            if game.current_player(replay) != seat:
                replay = game.apply(replay, game.pass_action)
            assert game.current_player(replay) == seat
            replay = game.apply(replay, int(a))
        while not game.is_terminal(replay):
            replay = game.apply(replay, game.pass_action)
        assert np.array_equal(replay, s)


def test_light_playouts_are_seeded_and_end_with_only_eyes_left():
    # Uniform playouts pass at random and fill their own eyes, so their final boards say little
    # about who owns what; light ones play on until (nearly) every empty point is a true eye.
    game = envs.make_game("go", size=9)
    p = game.kernel_params
    moves = np.empty(game.num_actions, dtype=np.int64)
    eye_share = {}
    for policy in (0, E.LIGHT):
        rng = R.new_rng(4)
        eyes = empty = 0
        for k in range(200):
            s = game.initial_state()
            E.playout(s, p, rng, moves, policy)
            if k == 0:
                again = game.initial_state()
                E.playout(again, p, R.new_rng(4), moves, policy)
                assert np.array_equal(again, s)
            for a in np.flatnonzero(s[C.HEADER : C.HEADER + 81] == 0):
                empty += 1
                eyes += E.is_eye(s, p, a, 1) or E.is_eye(s, p, a, 2)
        eye_share[policy] = eyes / empty
    assert eye_share[E.LIGHT] > 0.95 and eye_share[0] < 0.5


# -- MoGo's 3x3 patterns and the pattern playout policy -----------------------------------------------


def _random_positions(game, count, seed):
    """Positions from seeded random games, some plies in."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        s = game.initial_state()
        for _ in range(int(rng.integers(5, 40))):
            if game.is_terminal(s):
                break
            s = game.apply(s, int(rng.choice(game.legal_actions(s))))
        if not game.is_terminal(s):
            out.append(s)
    return out


def test_pattern_shapes_hold_in_every_rotation_reflection_and_colouring():
    game = envs.make_game("go", size=7)
    p = game.kernel_params
    matched = 0
    for s in _random_positions(game, 40, seed=3):
        board = s[C.HEADER : C.HEADER + 49].reshape(7, 7)
        variants = [board, board.T, board[::-1], board[:, ::-1], np.rot90(board, 2), np.where(board > 0, 3 - board, 0)]
        for a in np.flatnonzero(board.ravel() == 0):
            r, c = divmod(int(a), 7)
            expect = E.PATTERN_TABLE[E.shape(s, p, a)]
            matched += expect
            for k, v in enumerate(variants):
                t = s.copy()
                t[C.HEADER : C.HEADER + 49] = v.ravel()
                rr, cc = [(r, c), (c, r), (6 - r, c), (r, 6 - c), (6 - r, 6 - c), (r, c)][k]
                assert E.PATTERN_TABLE[E.shape(t, p, rr * 7 + cc)] == expect
    assert matched > 20


@pytest.mark.parametrize(
    "rows, match",
    [
        (("x o x", ". . .", ". . ."), True),  # enclosing hane
        (("x o .", ". . .", ". . ."), True),  # non-cutting hane
        (("x o .", "o . .", ". . ."), True),  # cut
        ((". x .", "x . .", ". . ."), False),  # stones of one colour only: no pattern holds
        ((". . .", ". . .", ". . ."), False),  # nothing around
    ],
)
def test_pattern_shapes(rows, match):
    # The 3x3 rows around C3 of an otherwise empty 5x5 board, Black to move.
    game = envs.make_game("go", size=5)
    lines = ["5 . . . . ."] + [f"{4 - r} . {row} ." for r, row in enumerate(rows)] + ["1 . . . . ."]
    state = game.from_text("\n".join(lines) + "\n  a b c d e\nto_move=x ply=20 passes=0 ko=-\n")
    a = game.str_to_action(state, "C3")
    assert bool(E.PATTERN_TABLE[E.shape(state, game.kernel_params, a)]) == match


def test_pattern_playouts_answer_the_last_move_with_a_shape():
    # White's D4 touches Black's C3 diagonally; the points around D4 that make a pattern shape
    # (hane, cut, attachment) are what the pattern policy plays, the light one plays anywhere.
    game = envs.make_game("go", size=7)
    before = play(game, game.initial_state(), "C3")
    state = play(game, before, "D4")
    p, nn = game.kernel_params, 49
    around = {a for a in range(nn) if max(abs(a // 7 - 3), abs(a % 7 - 3)) == 1 and state[C.HEADER + a] == 0}
    shapes = {a for a in around if E.PATTERN_TABLE[E.shape(state, p, a)]}
    assert shapes and shapes < around
    rng = R.new_rng(0)
    picked = {"pattern": set(), "light": set()}
    for _ in range(60):
        for name, move in (("pattern", E.pattern_move), ("light", E.light_move)):
            empty, where, cands = (np.empty(nn, dtype=np.int64) for _ in range(3))
            n = K._list_empty(state, p, empty, where)
            picked[name].add(int(move(state.copy(), p, rng, empty, where, n, cands)))
    assert picked["pattern"] == shapes
    assert len(picked["light"]) > 20


def test_pattern_playouts_are_seeded_and_keep_their_eyes():
    game = envs.make_game("go", size=9)
    p = game.kernel_params
    moves = np.empty(game.num_actions, dtype=np.int64)
    ends = []
    for _ in range(2):
        s = play(game, game.initial_state(), "E5")
        E.playout(s, p, R.new_rng(8), moves, E.PATTERN)
        ends.append(s)
        empty = np.flatnonzero(s[C.HEADER : C.HEADER + 81] == 0)
        assert game.is_terminal(s)
        assert sum(E.is_eye(s, p, a, 1) or E.is_eye(s, p, a, 2) for a in empty) >= len(empty) - 1
    assert np.array_equal(ends[0], ends[1])


# -- prior knowledge for MCTS's tree -----------------------------------------------------------------


def _priors(game, state):
    """Go's priors of every legal move of ``state``: {move text: (virtual simulations, value)}."""
    legal = game.legal_actions(state)
    out = np.zeros((len(legal), 2))
    E.priors(state, game.kernel_params, legal, len(legal), out)
    return {game.action_to_str(state, int(a)): tuple(out[i]) for i, a in enumerate(legal)}


CAPTURE = """
5 . x . . .
4 x x o x .
3 . . x . .
2 . . . . .
1 . . . o .
  a b c d e
to_move=x ply=8 passes=0 ko=-
"""


def test_priors_favour_the_capture_and_never_the_own_eye_fill():
    game = envs.make_game("go", size=5)
    state = game.from_text(CAPTURE)
    prior = _priors(game, state)
    value = {move: v for move, (_, v) in prior.items() if move != "pass"}
    assert max(value, key=value.get) == "C5"  # captures C4
    assert min(value, key=value.get) == "A5"  # Black's own true eye
    assert value["A5"] < 0.1 and value["C5"] > 0.7
    assert all(n >= E.PRIOR_EVEN for move, (n, _) in prior.items() if move != "pass")


OWN_EYES_ONLY = """
5 x x x x x
4 x . x x x
3 x x x x x
2 x x x . x
1 x x x x x
  a b c d e
to_move=x ply=46 passes=0 ko=-
"""


def test_priors_keep_the_pass_for_the_end_of_the_game():
    # A pass hands the opponent a free move (it need not pass back): while moves are left to
    # play it starts as virtual losses, so RAVE's search does not pass in a middle game.
    game = envs.make_game("go", size=5)
    state = game.from_text(CAPTURE)
    assert _priors(game, state)["pass"] == (E.PRIOR_PASS, 0.0)
    # After the opponent's pass, passing ends the game: no knowledge, its simulations judge it.
    after_pass = play(game, play(game, state, "C5"), "pass")
    assert _priors(game, after_pass)["pass"] == (0.0, 0.0)
    # Nothing but own eyes to fill: passing is what a player does.
    eyes = _priors(game, game.from_text(OWN_EYES_ONLY))
    assert eyes["pass"] == (0.0, 0.0) and eyes["B4"][1] < 0.1


def test_priors_save_a_chain_in_atari_and_refuse_self_atari():
    game = envs.make_game("go", size=5)
    before = game.from_text(
        ".\n".join(["5 . . . . ", "4 . . o . ", "3 . o x . ", "2 . . . . ", "1 . . . . "])
        + ".\n  a b c d e\nto_move=o ply=3 passes=0 ko=-\n"
    )
    state = play(game, before, "C2")  # Black's C3 in atari: D3 saves it
    value = {move: v for move, (_, v) in _priors(game, state).items() if move != "pass"}
    assert max(value, key=value.get) == "D3"
    selfish = game.from_text(
        "5 . x o . .\n4 . o . . .\n3 . . . . .\n2 . . . . .\n1 . . . . .\n  a b c d e\nto_move=x ply=4 passes=0 ko=-\n"
    )
    value = {move: v for move, (_, v) in _priors(game, selfish).items() if move != "pass"}
    assert value["A5"] < 0.5 and value["A5"] < value["A4"]  # A5: two stones, one liberty


def test_priors_penalise_lonely_first_and_second_line_moves():
    game = envs.make_game("go", size=9)
    prior = _priors(game, game.initial_state())
    assert prior["A1"][1] < prior["B2"][1] < prior["C3"][1] == prior["E5"][1] == 0.5
    near = play(game, game.initial_state(), "C3", "G7")
    assert _priors(game, near)["B2"][1] >= 0.5  # a stone close by: no penalty
