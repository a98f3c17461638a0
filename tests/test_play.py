"""``tournaments.play_game`` and ``GameOutcome``: what a caller relies on after one game.

The test agents are plain objects (``act(game, state) -> action``), except where the seeded
``random`` agent shows that the same seeds replay the same game.
"""

import dataclasses
import time

import numpy as np
import pytest

import agents
import envs
import tournaments
from tournaments import GameOutcome, play_game
from tournaments.referee.play import Context, Job, TakeBack

GOMOKU = envs.make_game("gomoku", size=7)


class Lowest:
    name = "lowest"

    def act(self, game, state):
        return int(game.legal_actions(state)[0])


class Highest(Lowest):
    name = "highest"

    def act(self, game, state):
        return int(game.legal_actions(state)[-1])


class Watcher(Lowest):
    """Lowest legal move; remembers the positions it was asked about and the history it was shown."""

    def __init__(self):
        self.seen, self.history, self.resets = [], None, 0

    def reset(self):
        self.resets += 1

    def set_history(self, game, actions):
        self.history = tuple(actions)

    def act(self, game, state):
        self.seen.append(state.copy())
        return super().act(game, state)


class CrashesOnThirdMove(Lowest):
    def __init__(self):
        self.moves = 0

    def reset(self):
        self.moves = 0

    def act(self, game, state):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("boom")
        return super().act(game, state)


class Returns(Lowest):
    def __init__(self, answer):
        self.answer = answer

    def act(self, game, state):
        return self.answer


class Raises(Lowest):
    def __init__(self, exc):
        self.exc = exc

    def act(self, game, state):
        raise self.exc


def replay(game, outcome, seed=None):
    """The last position of ``outcome``'s record played from the start, checking its notation."""
    state = game.initial_state(seed=seed)
    for move, action in zip(outcome.moves, outcome.actions):
        assert game.action_to_str(state, action) == move
        state = game.apply(state, action)
    return state


def test_a_finished_game_agrees_with_the_games_returns():
    outcome = play_game(GOMOKU, [Lowest(), Highest()])
    end = replay(GOMOKU, outcome)
    assert GOMOKU.is_terminal(end) and np.array_equal(end, outcome.state)
    returns = GOMOKU.returns(end)
    assert outcome.returns == tuple(returns) and outcome.reason == "normal" and not outcome.forfeit
    assert outcome.winner == (0 if returns[0] > returns[1] else 1 if returns[1] > returns[0] else None)
    assert outcome.result == {0: "1-0", 1: "0-1", None: "1/2-1/2"}[outcome.winner]
    assert outcome.plies == len(outcome.moves) == len(outcome.actions) > 0 and outcome.opening == 0
    assert outcome.seconds >= 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        outcome.winner = 1  # frozen: an outcome is a fact


def test_a_drawn_game_has_no_winner_and_scores_half_each():
    full = GameOutcome(None, (0.0, 0.0), moves=("a1",), actions=(0,))
    assert full.result == "1/2-1/2" and full.winner is None
    assert (
        tournaments.referee.play.winner_of((0.0, 0.0)) is None and tournaments.referee.play.winner_of((-1.0, 1.0)) == 1
    )


def test_a_crashing_agent_forfeits_and_the_opponent_wins():
    outcome = play_game(GOMOKU, [Lowest(), CrashesOnThirdMove()])
    assert outcome.reason == "forfeit-crash" and outcome.forfeit
    assert "RuntimeError: boom" in outcome.detail and "test_play.py" in outcome.detail
    assert outcome.winner == 0 and outcome.result == "1-0" and outcome.returns == (1.0, -1.0)
    assert outcome.plies == 5  # Black's three moves and White's two before its third


@pytest.mark.parametrize("answer", [-1, 49, True, 1.0, "a1", None])
def test_an_illegal_action_forfeits(answer):
    outcome = play_game(GOMOKU, [Returns(answer), Lowest()])
    assert outcome.reason == "forfeit-illegal" and repr(answer) in outcome.detail
    assert outcome.winner == 1 and outcome.result == "0-1" and outcome.plies == 0


def test_playing_on_an_occupied_point_forfeits():
    outcome = play_game(GOMOKU, [Lowest(), Returns(0)])  # Black took action 0 first
    assert outcome.reason == "forfeit-illegal" and outcome.moves == ("a7",) and outcome.winner == 0


def test_a_slow_move_forfeits_on_time():
    class Slow(Lowest):
        def act(self, game, state):
            time.sleep(0.3)
            return super().act(game, state)

    outcome = play_game(GOMOKU, [Lowest(), Slow()], move_time=0.1)
    assert outcome.reason == "forfeit-timeout" and "> 0.1s" in outcome.detail
    assert outcome.result == "1-0" and outcome.plies == 1


def test_resigning_is_a_loss_not_a_forfeit():
    outcome = play_game(GOMOKU, [Lowest(), Raises(agents.Resign("lost cause"))])
    assert outcome.reason == "resign" and not outcome.forfeit and outcome.detail == "lost cause"
    assert outcome.result == "1-0"


def test_a_takeback_outside_a_takeback_game_forfeits():
    outcome = play_game(GOMOKU, [Raises(TakeBack()), Lowest()])
    assert outcome.reason == "forfeit-illegal" and "not allowed" in outcome.detail


def test_the_opening_is_played_before_the_agents_move_and_is_recorded():
    opening = tournaments.random_opening(GOMOKU, np.random.default_rng(1), 3, 3)
    black, white = Watcher(), Watcher()
    outcome = play_game(GOMOKU, [black, white], opening=opening)
    assert outcome.opening == 3 and outcome.actions[:3] == opening
    start = GOMOKU.initial_state()
    for action in opening:
        start = GOMOKU.apply(start, action)
    # after three plies White is to move: its first position is the one after the opening
    assert np.array_equal(white.seen[0], start)
    assert np.array_equal(black.seen[0], GOMOKU.apply(start, outcome.actions[3]))
    assert black.history == white.history == opening and black.resets == 1
    replay(GOMOKU, outcome)
    with pytest.raises(envs.IllegalActionError, match=r"opening\[1\]=3 is not a legal action"):
        play_game(GOMOKU, [Lowest(), Lowest()], opening=(3, 3))


def test_the_same_seeds_give_the_same_game():
    def game(deal, seeds):
        return play_game(GOMOKU if deal is None else calc, [agents.make("random", seed=s) for s in seeds], seed=deal)

    calc = envs.make_game("calculation")
    first, again = game(None, (1, 2)), game(None, (1, 2))
    assert first == again and first.moves == again.moves
    assert game(None, (1, 3)).moves != first.moves
    deal = game(5, (7,))
    assert deal == game(5, (7,)) and deal.moves != game(6, (7,)).moves
    assert deal.winner == (0 if deal.returns[0] > 0 else None)
    with pytest.raises(ValueError, match="two players"):
        _ = deal.result


def test_start_from_a_position_and_watch_every_ply():
    start = GOMOKU.apply(GOMOKU.initial_state(), 24)
    before = start.copy()
    shown = []
    outcome = play_game(
        GOMOKU, [Lowest(), Highest()], state=start, watch=lambda state, seat, move: shown.append((seat, move))
    )
    assert shown[0] == (None, None) and [m for _, m in shown[1:]] == list(outcome.moves)
    assert [s for s, _ in shown[1:]][:2] == [1, 0]  # White (highest) moves first from there
    assert np.array_equal(start, before) and outcome.moves[0] == "g1"  # the caller's state is not touched


def test_bad_arguments_are_typed_errors_naming_the_value():
    with pytest.raises(envs.ParameterError, match="needs 2"):
        play_game(GOMOKU, [Lowest()])
    with pytest.raises(envs.ParameterError, match=r"agents\[1\]='random'"):
        play_game(GOMOKU, [Lowest(), "random"])
    with pytest.raises(envs.ParameterError, match="move_time=0"):
        play_game(GOMOKU, [Lowest(), Lowest()], move_time=0)
    with pytest.raises(envs.ParameterError, match="seed=3"):
        play_game(GOMOKU, [Lowest(), Lowest()], seed=3, state=GOMOKU.initial_state())


def test_heartbeats_carry_every_ply_once():
    beats = []
    outcome = play_game(GOMOKU, [Lowest(), Highest()], opening=(24, 25), report=lambda *msg: beats.append(msg))
    assert all(kind == "move" for kind, *_ in beats)
    assert beats[0][2] == (("d4", 24), ("e4", 25))  # the opening comes with the first heartbeat
    reported = [ply for _, _, plies in beats for ply in plies]
    assert reported == list(zip(outcome.moves, outcome.actions))[: len(reported)]
    assert len(reported) == outcome.plies - 1  # the last ply ends the game: no heartbeat after it


class HangsAfterOpening(Lowest):
    """Moves at the start (the worker's untimed warm-up move), hangs in the game proper."""

    name = "hangs"

    def act(self, game, state):
        if np.array_equal(state, game.initial_state()):
            return super().act(game, state)
        time.sleep(1000)


def test_a_killed_game_keeps_its_opening_in_the_record():
    ctx = Context(
        "gomoku", {"size": 7}, (Lowest(), HangsAfterOpening()), ("lowest", "hangs"), move_time=0.3, setup_time=30
    )
    executor = tournaments.ProcessExecutor(1)
    executor.start(ctx)
    try:
        [record] = list(executor.run([Job(0, 0, 0, 0, 0, 1, 0, (0, 0), opening=(24, 25))]))
    finally:
        executor.close()
    # the worker was killed while White thought: the plies come from its heartbeats
    assert record["reason"] == "forfeit-timeout" and record["result"] == "1-0" and record["code"] == 0
    assert record["moves"] == ["d4", "e4", "a7"] and record["opening"] == 2 and record["plies"] == 3


def test_forfeit_lines_say_who_forfeited_how_often_and_why():
    records = [
        {"black": "a", "white": "b", "result": "1-0", "reason": "forfeit-crash", "detail": "boom"},
        {"black": "b", "white": "a", "result": "0-1", "reason": "forfeit-crash", "detail": "boom"},
        {"black": "b", "white": "a", "result": "1-0", "reason": "forfeit-timeout", "detail": "move 3 took 2s"},
        {"black": "a", "white": "b", "result": "1-0", "reason": "resign", "detail": "lost cause"},
        {"black": "a", "white": "b", "result": "1/2-1/2", "reason": "normal", "detail": ""},
    ]
    lines = tournaments.referee.play.forfeit_lines(records)
    assert lines == [
        "",
        "Forfeits:",
        "  a: 1 game lost by forfeit-timeout: move 3 took 2s",
        "  b: 2 games lost by forfeit-crash: boom",
    ]
    assert tournaments.referee.play.forfeit_lines(records[3:]) == []  # a resignation is no forfeit


def test_check_players_refuses_an_agent_that_cannot_play_before_any_game():
    with pytest.raises(agents.AgentError, match="does not apply to calculation"):
        tournaments.referee.play.check_players(["random", "alphabeta:depth=1"], envs.make_game("calculation"))
    with pytest.raises(agents.AgentError, match="unknown agent"):
        tournaments.referee.play.check_players(["nope"], GOMOKU)
    tournaments.referee.play.check_players(["random", Lowest()], GOMOKU)  # plain objects are taken as they are
