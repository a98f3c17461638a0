"""``envs.core.outcome.Outcome``: how a game ended, its points and result texts, its record form, and
``Game.outcome`` reading it from a finished state of every registered game."""

import json
import re

import numpy as np
import pytest

import envs
from envs.core import kernel as C
from envs.core.outcome import (
    ADJUDICATED,
    BLACK_WINS,
    CRASH,
    DOUBLE_FORFEIT,
    DRAW,
    ILLEGAL,
    NORMAL,
    RESIGN,
    TIMEOUT,
    WHITE_WINS,
    Outcome,
    OutcomeError,
)

BLACK_WON = Outcome(0, (1.0, -1.0), end_reason="two_passes", margin=3.5)
WHITE_WON = Outcome(1, (-1.0, 1.0), end_reason="no_moves", margin=12)
DRAWN = Outcome(None, (0.0, 0.0), end_reason="board_full")
GOMOKU_WIN = Outcome(0, (1.0, -1.0), end_reason="five")  # a win without a size
WHITE_RESIGNED = Outcome.loss(1, RESIGN, "lost cause")
BLACK_TIMED_OUT = Outcome.loss(0, TIMEOUT, "move 3 took 2.1s > 1s")
BLACK_CRASHED = Outcome.loss(0, CRASH, "RuntimeError: boom at bot.py:3")
WHITE_PLAYED_ILLEGAL = Outcome.loss(1, ILLEGAL, "move 7: 99 is not a legal action")
ADJUDICATED_WIN = Outcome(0, (1.0, -1.0), ADJUDICATED, margin=2)
PATIENCE_WON = Outcome(0, (1.0,), end_reason="won")
PATIENCE_LOST = Outcome(None, (0.0,), end_reason="stuck")
PATIENCE_RESIGNED = Outcome.loss(0, RESIGN, num_players=1)

TWO_PLAYER = [
    BLACK_WON,
    WHITE_WON,
    DRAWN,
    GOMOKU_WIN,
    WHITE_RESIGNED,
    BLACK_TIMED_OUT,
    BLACK_CRASHED,
    WHITE_PLAYED_ILLEGAL,
    ADJUDICATED_WIN,
]
ALL = TWO_PLAYER + [PATIENCE_WON, PATIENCE_LOST, PATIENCE_RESIGNED]


@pytest.mark.parametrize(
    "outcome, score, sgf",
    [
        (BLACK_WON, "1-0", "B+3.5"),
        (WHITE_WON, "0-1", "W+12"),
        (DRAWN, "1/2-1/2", "0"),
        (GOMOKU_WIN, "1-0", "B+"),
        (WHITE_RESIGNED, "1-0", "B+R"),
        (BLACK_TIMED_OUT, "0-1", "W+T"),
        (BLACK_CRASHED, "0-1", "W+F"),
        (WHITE_PLAYED_ILLEGAL, "1-0", "B+F"),
        (ADJUDICATED_WIN, "1-0", "B+2"),
    ],
)
def test_every_result_text(outcome, score, sgf):
    assert outcome.result == score and outcome.sgf_result == sgf
    assert outcome.code == {"1-0": BLACK_WINS, "0-1": WHITE_WINS, "1/2-1/2": DRAW}[score]


def test_points_are_one_half_and_nothing_whatever_ended_the_game():
    assert [(o.points(0), o.points(1)) for o in TWO_PLAYER] == [
        (1, 0),
        (0, 1),
        (0.5, 0.5),
        (1, 0),
        (1, 0),
        (0, 1),
        (0, 1),
        (1, 0),
        (1, 0),
    ]
    assert PATIENCE_WON.points(0) == 1 and PATIENCE_LOST.points(0) == PATIENCE_RESIGNED.points(0) == 0
    with pytest.raises(OutcomeError, match="seat=2"):
        BLACK_WON.points(2)


def test_a_resignation_is_a_loss_and_no_forfeit():
    assert WHITE_RESIGNED.winner == 0 and WHITE_RESIGNED.loser == 1 and not WHITE_RESIGNED.forfeit
    assert WHITE_RESIGNED.returns == (1.0, -1.0) and WHITE_RESIGNED.margin is None
    assert WHITE_RESIGNED.describe(["Black (a)", "White (b)"]) == "1-0, Black (a) wins: White (b) resigned"


def test_a_forfeit_is_a_loss_that_names_the_fault():
    for outcome in (BLACK_TIMED_OUT, BLACK_CRASHED, WHITE_PLAYED_ILLEGAL):
        assert outcome.forfeit and outcome.points(outcome.loser) == 0 and outcome.end_reason is None
    assert (
        BLACK_CRASHED.describe(["Black (x)", "White (y)"])
        == "0-1, White (y) wins: Black (x) forfeited: the agent failed (RuntimeError: boom at bot.py:3)"
    )
    assert BLACK_TIMED_OUT.describe(["B", "W"]) == "0-1, W wins: B lost on time (move 3 took 2.1s > 1s)"


def test_described_for_a_person():
    labels = ["Black (greedy)", "White (mcts)"]
    assert WHITE_WON.describe(labels) == "0-1, White (mcts) wins by 12"
    assert GOMOKU_WIN.describe(labels) == "1-0, Black (greedy) wins"
    assert DRAWN.describe(labels) == "1/2-1/2, a draw" and DRAWN.draw and DRAWN.loser is None
    assert ADJUDICATED_WIN.describe(labels) == "1-0, Black (greedy) wins: White (mcts) lost by adjudication"
    with pytest.raises(OutcomeError, match="one per seat"):
        DRAWN.describe(["you"])


def test_a_one_player_game_is_won_or_lost_never_drawn():
    assert PATIENCE_WON.winner == 0 and PATIENCE_WON.returns == (1.0,) and PATIENCE_WON.loser is None
    assert PATIENCE_LOST.winner is None and PATIENCE_LOST.returns == (0.0,) and PATIENCE_LOST.loser == 0
    assert not PATIENCE_LOST.draw and not PATIENCE_WON.draw
    assert PATIENCE_RESIGNED == Outcome(None, (0.0,), RESIGN)
    assert [o.describe(["you"]) for o in (PATIENCE_WON, PATIENCE_LOST, PATIENCE_RESIGNED)] == [
        "won",
        "lost",
        "lost: you resigned",
    ]
    for what in ("result", "sgf_result", "code"):
        with pytest.raises(OutcomeError, match="needs two players"):
            getattr(PATIENCE_WON, what)


@pytest.mark.parametrize("outcome", ALL, ids=lambda o: f"{o.reason}-{o.winner}-{o.num_players}")
def test_the_record_form_round_trips_through_json(outcome):
    record = json.loads(json.dumps(outcome.to_record()))
    assert Outcome.from_record(record) == outcome
    assert set(record) == {"winner", "returns", "reason", "detail", "end_reason", "margin"}


def test_a_record_of_an_older_journal_reads_from_its_code_or_result():
    assert Outcome.from_record({"code": 2, "result": "1/2-1/2", "reason": "normal", "detail": ""}) == Outcome(
        None, (0, 0)
    )
    assert Outcome.from_record({"code": 0, "result": "1-0", "reason": "resign", "detail": "x"}) == Outcome.loss(
        1, RESIGN, "x"
    )
    assert Outcome.from_record({"result": "0-1", "reason": "forfeit-crash"}) == Outcome.loss(0, CRASH)
    assert Outcome.from_record({"result": "1-0"}) == Outcome(0, (1, -1))  # no reason: the rules ended it
    # a record with both forms: they must agree
    both = {"code": 1, "result": "0-1", **WHITE_WON.to_record()}
    assert Outcome.from_record(both) == WHITE_WON


@pytest.mark.parametrize(
    "record, named",
    [
        ({"code": 3, "reason": "normal"}, "code=3"),
        ({"code": True, "reason": "normal"}, "code=True"),
        ({"code": 0, "result": "0-1", "reason": "normal"}, "result='0-1' does not match code=0"),
        ({"result": "2-0"}, "result='2-0'"),
        ({"code": 0, "reason": "gave up"}, "reason='gave up'"),
        ({"code": 1, **BLACK_WON.to_record()}, "code=1 does not match winner=0"),
        ({"winner": 0, "reason": "normal"}, "no 'returns'"),
        ({"winner": 1, "returns": [1.0, -1.0]}, "winner=1 with returns"),
        ({"winner": 0, "returns": "won"}, "returns='won'"),
        ({"winner": 0, "returns": [1.0, float("nan")]}, "returns="),
        ({"reason": "normal"}, "no 'winner'"),
        ({"code": 0, "reason": "resign", "margin": 3}, "margin=3"),
        ({"code": 0, "reason": "resign", "end_reason": "five"}, "end_reason='five'"),
        ({"code": 0, "reason": "normal", "detail": 7}, "detail=7"),
        ([1, 0], "expected a record"),
    ],
)
def test_a_bad_record_is_an_error_that_names_the_field(record, named):
    with pytest.raises(OutcomeError) as e:
        Outcome.from_record(record)
    assert named in str(e.value)
    assert isinstance(e.value, ValueError)


def test_an_outcome_checks_its_fields_agree():
    with pytest.raises(OutcomeError, match="winner=0 with returns"):
        Outcome(0, (0.0, 0.0))
    with pytest.raises(OutcomeError, match="winner=True"):
        Outcome(True, (-1.0, 1.0))
    with pytest.raises(OutcomeError, match="margin=1"):
        Outcome(None, (0.0, 0.0), margin=1)  # a draw has no margin
    with pytest.raises(OutcomeError, match="margin=-2"):
        Outcome(0, (1.0, -1.0), margin=-2)
    with pytest.raises(OutcomeError, match="a loss is by one of"):
        Outcome.loss(0, NORMAL)
    with pytest.raises(OutcomeError, match="seat=2"):
        Outcome.loss(2, RESIGN)
    assert Outcome(np.int64(1), np.array([-1.0, 1.0]), margin=np.float64(2.5)).to_record() == {
        "winner": 1,
        "returns": [-1.0, 1.0],
        "reason": NORMAL,
        "detail": "",
        "end_reason": None,
        "margin": 2.5,
    }


def _finished(game, seed):
    """A finished state of ``game`` after uniformly random play."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(seed=seed)
    while not game.is_terminal(state):
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    return state


@pytest.mark.parametrize("name", envs.registry.names())
def test_a_finished_state_gives_the_outcome_its_header_says(name):
    game = envs.make_game(name)
    assert game.outcome(game.initial_state(seed=0)) is None  # the game goes on
    for seed in range(3):
        end = _finished(game, seed)
        outcome = game.outcome(end)
        header = int(end[C.H_WINNER])
        assert outcome.winner == (None if header == C.NO_WINNER else header)
        assert outcome.returns == tuple(game.returns(end)) and outcome.reason == NORMAL
        assert outcome.end_reason == game.end_reason(end) and outcome.end_reason in game.end_reasons.values()
        assert outcome.margin == (game.margin(end) if outcome.winner is not None else None)
        assert Outcome.from_record(json.loads(json.dumps(outcome.to_record()))) == outcome


def test_go_and_othello_outcomes_carry_the_margin_into_the_texts():
    for game in (envs.make_game("go", size=5), envs.make_game("othello", size=6)):
        end = next(e for e in (_finished(game, s) for s in range(20)) if game.outcome(e).winner is not None)
        outcome = game.outcome(end)
        colour = "BW"[outcome.winner]
        assert outcome.margin == game.margin(end) > 0
        assert outcome.sgf_result == f"{colour}+{game.margin(end):g}"


def test_a_header_without_a_winner_is_a_draw_or_a_lost_patience():
    state = np.zeros(C.HEADER, dtype=np.int64)
    state[C.H_STATUS], state[C.H_WINNER] = C.TERMINAL, C.NO_WINNER
    assert Outcome.from_state(state, (0.0, 0.0)).draw
    assert Outcome.from_state(state, (0.0,)) == Outcome(None, (0.0,))
    state[C.H_STATUS] = C.ONGOING
    assert Outcome.from_state(state, (0.0, 0.0)) is None


def test_a_double_forfeit_is_a_loss_for_both_and_no_draw():
    """Two agents that both failed before their game (both ruled out of a tournament) lose it
    both, as FIDE scores a double forfeit 0-0: no points, no winner, and not a draw a rating
    would read as an even game."""
    both = Outcome.double_forfeit(TIMEOUT, "both ruled out")
    assert both.winner is None and both.returns == (-1.0, -1.0) and both.loser is None
    assert both.void and not both.draw and both.forfeit
    assert (both.points(0), both.points(1)) == (0.0, 0.0)
    assert (both.code, both.result, both.sgf_result) == (DOUBLE_FORFEIT, "0-0", "Void")
    assert both.describe(["a", "b"]) == "0-0, both forfeited (both ruled out)"
    record = json.loads(json.dumps({**both.to_record(), "code": both.code, "result": both.result}))
    assert Outcome.from_record(record) == both
    assert not DRAWN.void and DRAWN.points(0) == 0.5


@pytest.mark.parametrize(
    "make, named",
    [
        (lambda: Outcome.double_forfeit(RESIGN), "reason='resign'"),
        (lambda: Outcome.double_forfeit(CRASH, num_players=1), "num_players=1"),
        (lambda: Outcome(None, (-1.0, -1.0)), "double forfeit"),
        (lambda: Outcome.from_record({"code": DOUBLE_FORFEIT}), "code=3"),
        (lambda: Outcome.from_record({"winner": None, "returns": [0.0, 0.0], "result": "0-0"}), "result='0-0'"),
    ],
)
def test_a_double_forfeit_needs_a_fault_and_its_full_record(make, named):
    with pytest.raises(OutcomeError, match=re.escape(named)):
        make()
