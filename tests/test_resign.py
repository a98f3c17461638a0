"""Losing like an engine: search agents resign a lost game where the runner records it, never a
won one nor in the first moves; a Go agent keeps its living groups (it never fills its own true
eye); alpha-beta and minimax resign a proven loss, or play the move that delays it longest."""

import io

import numpy as np
import pytest
from sgfmill import sgf

import agents
import envs
from agents.base import RESIGN_PLY, Resign, resignation, resignation_allowed
from agents.gtp import serve
from envs.core import kernel as C
from envs.core.outcome import NORMAL, RESIGN
from tournaments.referee import records
from tournaments.referee.play import play_game

# Black's group at the top left lives with two true eyes (a7, c7) and nothing else: every other
# empty point is one of White's eyes, where a Black stone would be suicide. White leads by 33
# points on the board (41 against 8), so Black is lost whatever happens, and Black's only legal
# moves are filling its own eyes (after which White captures the group) or passing.
LOST = """
7 . x . x o . o
6 x x x x o o o
5 o o o o o . o
4 o . o . o o o
3 o o o o o . o
2 o . o . o o o
1 o o o o o . o
  a b c d e f g
to_move={mover} ply={ply} passes=0 ko=-
"""
WHITE_FILLS = ["f7", "f5", "b4", "d4", "f3"]  # White's harmless moves: it keeps eyes to spare


def go(**params):
    return envs.make_game("go", size=7, **params)


class Script:
    """White's moves from a list, then passes: a fixed opponent for a fixed position."""

    name = "script"

    def __init__(self, moves):
        self.moves = list(moves)

    def act(self, game, state):
        return game.str_to_action(state, self.moves.pop(0)) if self.moves else game.pass_action

    def reset(self):
        pass


def test_go_eye_is_self_harm_and_other_moves_are_not():
    game = go()
    state = game.from_text(LOST.format(mover="x", ply=40))
    named = {game.action_to_str(state, int(a)): game.self_harm(state, int(a)) for a in game.legal_actions(state)}
    assert named == {"A7": True, "C7": True, "pass": False}
    white = game.from_text(LOST.format(mover="o", ply=41))
    assert game.self_harm(white, game.str_to_action(white, "f7"))  # White's own eyes are its own
    opened = game.from_text(LOST.format(mover="o", ply=41).replace("6 x x x x o o o", "6 x x x x o . o"))
    assert not game.self_harm(opened, game.str_to_action(opened, "f7"))  # no eye: f6 is empty


def test_mcts_resigns_a_lost_go_game_within_its_resign_moves():
    game = go()
    state = game.from_text(LOST.format(mover="x", ply=40))
    bot = agents.make("mcts", simulations=100, seed=0)
    assert (bot.resign, bot.resign_moves) == (0.05, 3)  # the defaults
    outcome = play_game(game, [bot, Script(WHITE_FILLS)], state=state)
    assert outcome.reason == RESIGN and outcome.winner == 1
    black_moves = outcome.moves[0::2]
    assert len(black_moves) == 2 and set(black_moves) == {"pass"}  # resigned at its third lost move
    assert "Black resigns" in outcome.detail and outcome.sgf_result == "W+R"


def test_mcts_with_resign_off_plays_on_and_keeps_its_eyes():
    game = go()
    state = game.from_text(LOST.format(mover="x", ply=40))
    for bot, resign in (
        (agents.make("mcts", simulations=100, resign=0, seed=0), True),
        (agents.make("mcts", simulations=100, seed=0), False),
    ):
        outcome = play_game(game, [bot, Script(WHITE_FILLS)], state=state, resign=resign)
        assert outcome.reason == NORMAL and outcome.winner == 1
        assert "A7" not in outcome.moves and "C7" not in outcome.moves
        assert game.score(outcome.state) == -33 - 7.5  # Black keeps its 8 points: the group lives


# The same lost game, Black's group now with a straight three for its eye space (a7, b7, c7): b7
# makes two eyes; after any other move, a pass included, White takes b7 and the group dies.
THREE = LOST.replace("7 . x . x o . o", "7 . . . x o . o")


def test_mcts_losing_a_go_game_plays_for_its_score_and_saves_its_group():
    game = go()
    state = game.from_text(THREE.format(mover="x", ply=40))
    for seed in range(3):
        bot = agents.make("mcts", simulations=200, resign=0, seed=seed)
        assert game.action_to_str(state, bot.act(game, state)) == "B7"
        assert bot.last_stats["value"] < 0.05  # lost under the game's own komi, 7.5
        # searched again under a komi that Black beats by keeping its group (8 points to 41),
        # and not by losing it (0 to 49)
        assert -49 < bot.last_stats["komi"] < -33
    outcome = play_game(game, [agents.make("mcts", simulations=200, resign=0, seed=0), TakesB7()], state=state)
    assert outcome.reason == NORMAL and outcome.moves[0] == "B7"
    assert game.score(outcome.state) == -33 - 7.5  # the group lives: Black keeps its 8 points


class TakesB7(Script):
    """White takes b7, the vital point of Black's eye space in ``THREE``, if Black leaves it."""

    def __init__(self):
        super().__init__([])

    def act(self, game, state):
        b7 = game.str_to_action(game.initial_state(), "b7")
        return b7 if game.is_legal(state, b7) else game.pass_action


def test_no_resignation_outside_a_runner_or_when_winning():
    game = go()
    lost = game.from_text(LOST.format(mover="x", ply=40))
    assert not resignation_allowed()
    bot = agents.make("mcts", simulations=100, seed=0)
    for _ in range(4):  # a script, a Gymnasium or PettingZoo opponent: games are played out
        assert game.action_to_str(lost, bot.act(game, lost)) == "pass"
        lost = game.from_text(LOST.format(mover="x", ply=int(lost[C.H_PLY]) + 2))
    with resignation():
        with pytest.raises(Resign):  # the same agent, inside a runner: three lost moves in a row
            bot.act(game, lost)
        winner = agents.make("mcts", simulations=100, seed=0)
        for ply in range(41, 53, 2):  # White, far ahead, is asked again and again: it passes
            won = game.from_text(LOST.format(mover="o", ply=ply))
            assert game.action_to_str(won, winner.act(game, won)) == "pass"
        assert winner.last_stats["value"] > 0.9


def test_resign_option_is_checked_and_listed():
    bot = agents.make("mcts:resign=0.1,resign_moves=5")
    assert bot.settings(go())["resign"] == 0.1 and bot.settings(go())["resign_moves"] == 5
    for bad in ("mcts:resign=0.9", "mcts:resign=-1", "mcts:resign_moves=0", "alphabeta:resign=maybe"):
        with pytest.raises(agents.AgentError, match="resign"):
            agents.make(bad)


# -- alpha-beta and minimax: a proven loss ---------------------------------------------------------
# O has a closed four (b2-e2, a2 taken by X; O wins at f2) and an open three (g6-g8): X must
# block f2, after which O makes an open four (g5) and wins. X's own stones make no threat.
# Blocking at f2 delays the loss to ply 4; anything else loses at ply 2.
EARLY = [
    ". . . . . . . . .",
    ". . . . . . o . .",
    ". . . . . . o . .",
    ". x . . . . o . .",
    ". . . . . . . . .",
    ". . x . . . . . x",
    ". . . . . . . . .",
    "x o o o o . . . x",
    ". x . . . . x . .",
]
LATE = ["o . o . o . . . x", "x . . . . . o . .", *EARLY[2:]]  # 3 stones more each: ply 20
LATE[3] = "x x . . . . o . ."


def gomoku(rows):
    game = envs.make_game("gomoku", size=9)
    text = "\n".join(f"{9 - i} {row}" for i, row in enumerate(rows)) + "\n  a b c d e f g h i\nto_move=x\n"
    return game, game.from_text(text)


def test_alphabeta_and_minimax_resign_a_proven_loss_and_otherwise_delay_it():
    game, state = gomoku(EARLY)
    later = gomoku(LATE)[1]
    assert int(state[C.H_PLY]) < RESIGN_PLY <= int(later[C.H_PLY])
    for spec in ("alphabeta:depth=4", "minimax:depth=4"):
        bot = agents.make(spec, seed=0)
        with resignation():
            with pytest.raises(Resign, match="forced loss in 4 plies"):
                bot.act(game, later)
            assert game.action_to_str(state, bot.act(game, state)) == "f2"  # the first moves: never
        with resignation(False):
            assert game.action_to_str(later, bot.act(game, later)) == "f2"  # the longest delay
        off = agents.make(spec, resign=False, seed=0)
        with resignation():
            assert game.action_to_str(later, off.act(game, later)) == "f2"


def test_alphabeta_never_resigns_a_position_it_wins():
    game, won = gomoku([row.replace("o", "O").replace("x", "o").replace("O", "x") for row in LATE])
    with resignation():
        bot = agents.make("alphabeta:depth=4", seed=0)
        assert game.action_to_str(won, bot.act(game, won)) == "f2" and bot.last_stats["score"] > 0


# -- records and GTP ------------------------------------------------------------------------------
def test_a_resignation_is_recorded_as_one_in_sgf_and_read_back():
    game = go()
    state = game.from_text(LOST.format(mover="x", ply=40))
    outcome = play_game(game, [agents.make("mcts", simulations=100, seed=0), Script(WHITE_FILLS)], state=state)
    # the game began from a text board, so the record keeps its result and leaves out its moves
    record = {"black": "mcts", "white": "script", "moves": [], "index": 0, **outcome.to_record()}
    assert sgf.Sgf_game.from_bytes(records.sgf_bytes(game, record)).get_root().get("RE") == "W+R"


def gtp_position(mover_lost=True):
    """``play`` commands that set up ``LOST`` on an empty 7x7 board (GTP inserts the passes)."""
    game = go()
    state = game.from_text(LOST.format(mover="x", ply=40))
    board = state[C.HEADER : C.HEADER + 49]
    blacks = [game.action_to_str(state, i) for i in np.flatnonzero(board == 1)]
    whites = [game.action_to_str(state, i) for i in np.flatnonzero(board == 2)]
    return [f"play b {m}" for m in blacks] + [f"play w {m}" for m in whites]


def talk(commands, resign=True, spec="mcts:simulations=100"):
    out = io.StringIO()
    serve(go(komi=0.5), agents.make(spec, seed=0), io.StringIO("\n".join(commands) + "\n"), out, resign=resign)
    blocks = out.getvalue().split("\n\n")[:-1]
    return [(block[0] == "=", block[1:].strip()) for block in blocks]


def test_gtp_genmove_answers_resign_and_the_game_goes_on_if_declined():
    setup = gtp_position()
    lost = [
        "genmove b",
        "play w f7",
        "genmove b",
        "play w f5",
        "genmove b",
        "final_score",
        "final_status_list dead",
        "genmove b",
    ]
    replies = talk(setup + lost)[len(setup) :]
    assert [r[1] for r in replies[:5]] == ["pass", "", "pass", "", "resign"]
    assert replies[5] == (True, "W+33.5")  # the position stands as it was: a controller may go on
    assert replies[6] == (True, "")
    assert replies[7] == (True, "resign")  # still lost
    replies = talk(setup + lost, resign=False)[len(setup) :]
    assert "resign" not in [r[1] for r in replies] and replies[5] == (True, "W+33.5")
