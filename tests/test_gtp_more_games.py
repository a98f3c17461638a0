"""GTP for Lines of Action and Gomoku, both ways: ``arbiter gtp`` serving them in each game's
notation (LOA's from-to moves ``B1-B3``, Gomoku's points ``H8``), and the ``gtp`` client agent
playing them against a real ``arbiter gtp`` process through the referee."""

import io
import re
import sys

import pytest

import agents
import envs
from agents.gtp import GTPEngineError, serve
from agents.gtp.protocol import Refusal, read_vertex, vertex
from tournaments.referee.play import play_game

SERVER = [sys.executable, "-m", "tournaments.cli", "gtp"]  # what `arbiter gtp` runs
LOA_MOVE = re.compile(r"[A-H][1-8][-X][A-H][1-8]")


def talk(game, agent, commands):
    out = io.StringIO()
    serve(game, agent, io.StringIO("\n".join(commands) + "\n"), out)
    blocks = out.getvalue().split("\n\n")
    return [(block[0] == "=", block[1:].strip()) for block in blocks[:-1]]


def test_loa_is_served_in_its_from_to_notation():
    game = envs.make_game("loa")
    replies = talk(
        game,
        agents.make("random", seed=0),
        [
            "play b b1b3",  # the squares alone
            "play w A7-C7",  # any case
            "genmove b",
            "undo",
            "play b b3-b4",  # two pieces on the b-file: the piece moves exactly two squares
            "play b c1xa3",  # a capture
            "play w zz",
            "play w b1-b3",  # no piece on b1 any more
            "final_score",
            "showboard",
        ],
    )
    assert replies[:2] == [(True, ""), (True, "")]
    ok, move = replies[2]
    assert ok and LOA_MOVE.fullmatch(move), move
    assert replies[3] == (True, "")
    assert replies[4] == (False, "invalid color or coordinate")
    assert replies[5] == (True, "")
    assert replies[6] == replies[7] == (False, "invalid color or coordinate")
    assert replies[8] == (False, "cannot score")
    board = replies[9][1].splitlines()
    rank3 = next(line for line in board if line.startswith("3 "))
    assert board[-1] == "to_move=o ply=3" and rank3.startswith("3 x x")  # a3 Black's now, b3 too


def test_loa_lets_any_colour_play_its_from_to_moves():
    # White moves first here: its piece on a2 moves along rank 2 (two pieces: two squares)
    replies = talk(envs.make_game("loa"), agents.make("random", seed=0), ["play w a2-c2", "genmove w", "showboard"])
    assert replies[0] == (True, "") and LOA_MOVE.fullmatch(replies[1][1])
    assert "to_move=x" in replies[2][1]


def test_loa_captures_are_written_with_x_and_read_in_every_form():
    game = envs.make_game("loa")
    state, rng = game.initial_state(), agents.make("random", seed=5)
    for _ in range(200):  # a random game until a capture is legal
        captures = [int(a) for a in game.legal_actions(state) if "x" in game.action_to_str(state, int(a))]
        if captures:
            break
        state = game.apply(state, rng.act(game, state))
    a = captures[0]
    text = vertex(game, state, a)
    assert re.fullmatch(r"[A-H][1-8]X[A-H][1-8]", text), text
    for form in (text, text.lower(), text.replace("X", ":"), text.replace("X", "")):
        assert read_vertex(game, state, form) == a, form
    with pytest.raises(Refusal, match="invalid color or coordinate"):
        read_vertex(game, state, text.replace("X", "-"))  # a capture written as a plain move


def test_gomoku_is_served_as_points():
    game = envs.make_game("gomoku", size=9)
    replies = talk(
        game,
        agents.make("random", seed=0),
        ["boardsize 7", "boardsize 20", "boardsize 9", "play b E5", "play w e5", "genmove w", "final_score"],
    )
    assert replies[0] == (True, "") and replies[1] == (False, "unacceptable size")
    assert replies[3] == (True, "") and replies[4] == (False, "illegal move")  # e5 is taken
    ok, point = replies[5]
    assert ok and re.fullmatch(r"[A-I][1-9]", point) and point != "E5"
    assert replies[6] == (False, "cannot score")


def test_gomoku_five_is_scored():
    game = envs.make_game("gomoku", size=9)
    commands = []
    for i in range(4):
        commands += [f"play b {'abcd'[i]}5", f"play w {'abcd'[i]}1"]
    replies = talk(
        game, agents.make("random", seed=0), commands + ["play b e5", "final_score", "play w f1", "genmove w"]
    )
    assert all(ok for ok, _ in replies[:9])
    assert replies[9] == (True, "B+")
    assert replies[10] == (False, "illegal move") and replies[11] == (True, "pass")  # the game is over


@pytest.mark.parametrize("name, params, extra", [("loa", {}, []), ("gomoku", {"size": 9}, ["--size", "15"])])
def test_client_plays_loa_and_gomoku_against_arbiter_gtp(name, params, extra):
    game = envs.make_game(name, **params)
    engine = agents.make(
        "gtp", command=SERVER + ["--game", name, "--agent", "random", "--seed", "1", *extra], move_time=60
    )
    try:
        for seats in ([agents.make("random", seed=2), engine], [engine, agents.make("random", seed=3)]):
            outcome = play_game(game, seats)
            assert outcome.reason in ("normal", "draw", "max_moves", "repetition"), outcome.detail
            assert len(outcome.moves) > 8
        # from an opening: the engine is shown the moves with set_history (play commands)
        opening = [int(game.legal_actions(game.initial_state())[0])]
        outcome = play_game(game, [agents.make("random", seed=4), engine], opening=opening)
        assert not outcome.forfeit, outcome.detail
    finally:
        engine.close()


def _fake_engine(answer):
    script = (
        "import sys\nfor line in sys.stdin:\n"
        f"    print('= {answer}' if 'genmove' in line else '='); print(); sys.stdout.flush()\n"
    )
    return [sys.executable, "-c", script]


def test_client_reads_an_engines_loa_move_in_any_form_and_refuses_an_illegal_one():
    game = envs.make_game("loa")
    for answer in ("b1b3", "B1-B3"):
        bot = agents.make("gtp", command=_fake_engine(answer))
        try:
            assert game.action_to_str(game.initial_state(), bot.act(game, game.initial_state())) == "b1-b3"
        finally:
            bot.close()
    bot = agents.make("gtp", command=_fake_engine("b1-b4"))
    try:
        with pytest.raises(GTPEngineError, match=r"'b1-b4', not a legal loa move: .*moves exactly 2 squares"):
            bot.act(game, game.initial_state())
    finally:
        bot.close()


def test_every_two_player_game_is_a_gtp_game_and_the_patience_is_not():
    bot = agents.make("gtp", command=["true"])
    assert all(bot.applies_to(envs.make_game(s.name)) == (s.num_players == 2) for s in envs.specs())
