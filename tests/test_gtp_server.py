"""The GTP server as GoGui and Sabaki drive it: each command with its exact response, any colour
to move, clocks, scoring and loading records; then full games with GNU Go in both directions
(GNU Go against our server through a relay, our client against GNU Go on a clock)."""

import io
import os
import shutil
import sys
import time

import numpy as np
import pytest

import agents
import envs
from agents.base import resignation_allowed
from agents.gtp import GTPAgent, GTPEngine, serve

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)
GNUGO_CMD = [GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules", "--capture-all-dead", "--positional-superko"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = [sys.executable, "-m", "tournaments.cli", "gtp"]
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")


def talk(agent, commands, game=None):
    """The server's (ok, text) responses to ``commands`` (Go 7x7 unless ``game``)."""
    out = io.StringIO()
    serve(game or envs.make_game("go", size=7, komi=0.5), agent, io.StringIO("\n".join(commands) + "\n"), out)
    blocks = out.getvalue().split("\n\n")
    assert blocks[-1] == ""
    return [(block[0] == "=", block[1:].strip()) for block in blocks[:-1]]


def status(board_text):
    return board_text.splitlines()[-1]


def test_administrative_commands_and_gtp_error_texts():
    replies = talk(
        agents.make("random", seed=0),
        [
            "protocol_version",
            "name",
            "version",
            "list_commands",
            "known_command loadsgf",
            "known_command time_left",
            "known_command kgs-genmove_cleanup",
            "frobnicate",
            "play black Z99",
            "play purple A1",
            "play black",
            "genmove purple",
            "play black C3",
            "play white C3",
            "komi x",
            "boardsize x",
            "boardsize 42",
            "undo",
            "undo",
        ],
    )
    assert replies[0] == (True, "2") and replies[1] == (True, "Arbiter random")
    assert replies[2][0] and replies[2][1].count(".") >= 1
    assert set(replies[3][1].split()) >= {
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "showboard",
        "final_score",
        "final_status_list",
        "time_settings",
        "time_left",
        "loadsgf",
        "quit",
    }
    assert replies[4:7] == [(True, "true"), (True, "true"), (True, "false")]
    assert replies[7] == (False, "unknown command")
    assert replies[8] == replies[9] == (False, "invalid color or coordinate")
    assert replies[10] == (False, "syntax error")
    assert replies[11] == (False, "invalid color or coordinate")
    assert replies[12] == (True, "") and replies[13] == (False, "illegal move")  # occupied
    assert replies[14] == replies[15] == (False, "syntax error")
    assert replies[16] == (False, "unacceptable size")
    assert replies[17] == (True, "") and replies[18] == (False, "cannot undo")


def test_any_colour_may_play_or_generate_at_any_time():
    replies = talk(
        agents.make("random", seed=0),
        [
            "play black C3",
            "play black D4",
            "showboard",  # handicap-style: Black twice
            "genmove black",
            "showboard",  # Black a third time
            "undo",
            "undo",
            "showboard",  # each undo takes one command back
            "play white E5",
            "showboard",  # White's turn anyway
            "play white pass",
            "play white D5",
            "showboard",  # White's pass out of turn: no-op
            "play black pass",
            "play black E4",
            "showboard",  # Black's own pass is taken back
        ],
    )
    assert all(ok for ok, _ in replies)
    assert status(replies[2][1]) == "to_move=o ply=3 passes=0 ko=-"  # B C3, W pass, B D4
    assert replies[3][1] != "pass" and status(replies[4][1]) == "to_move=o ply=5 passes=0 ko=-"
    assert status(replies[7][1]) == "to_move=o ply=1 passes=0 ko=-"
    assert status(replies[9][1]) == "to_move=x ply=2 passes=0 ko=-"
    board = replies[12][1]
    assert status(board) == "to_move=x ply=4 passes=0 ko=-"  # C3 E5, B pass, W D5: no double pass
    assert board.splitlines()[2].split()[4:6] == ["o", "o"]  # row 5: D5 and E5
    assert status(replies[15][1]) == "to_move=o ply=5 passes=0 ko=-"  # C3 E5 pass D5 E4


def test_a_game_without_passes_sets_the_side_to_move_through_its_text_board():
    replies = talk(
        agents.make("random", seed=0), ["genmove white", "showboard", "undo", "showboard"], envs.make_game("loa")
    )
    assert replies[0][0] and status(replies[1][1]) == "to_move=x ply=2"  # ply 1: Black's turn given away
    assert replies[2] == (True, "") and status(replies[3][1]) == "to_move=x ply=0"
    # Othello's and Gomoku's text boards tie the side to move to the stones: not there
    replies = talk(agents.make("random", seed=0), ["play black d3", "play black c4"], envs.make_game("othello"))
    assert replies == [(True, ""), (False, "illegal move")]


def test_final_score_and_final_status_list_under_area_scoring():
    replies = talk(
        agents.make("random", seed=0),
        [
            "play black C3",
            "play white E5",
            "play black D4",
            "final_score",
            "final_status_list alive",
            "final_status_list dead",
            "final_status_list seki",
            "final_status_list bogus",
        ],
    )
    assert replies[3] == (True, "B+0.5")  # 2 black stones, 1 white, the empty region shared
    assert replies[4] == (True, "D4 C3 E5")  # every stone is alive (Black's first, top to bottom)
    assert replies[5] == replies[6] == (True, "")
    assert replies[7] == (False, "syntax error")


def test_time_settings_and_time_left_become_the_agents_move_budget():
    mcts = agents.make("mcts", simulations=20, seed=0)
    replies = talk(mcts, ["time_settings 0 5 1", "genmove black"])
    assert replies[0] == (True, "")
    assert mcts.last_stats["budget"] == pytest.approx(4.0)  # byo-yomi 5 s, 20% margin
    assert mcts.seconds is None and mcts.manage_time is None  # the session over, its own budget again
    mcts = agents.make("mcts", simulations=20, seed=0)
    replies = talk(mcts, ["time_settings 300 0 0", "time_left white 2 1", "genmove white"])
    assert all(ok for ok, _ in replies) and mcts.last_stats["budget"] == pytest.approx(1.6)
    mcts = agents.make("mcts", simulations=20, seconds=0.5, seed=0)
    talk(mcts, ["time_settings 0 5 1", "genmove black"])
    assert mcts.last_stats["budget"] == 0.5  # the clock caps the agent's own budget, never raises it
    mcts = agents.make("mcts", seconds=0.5, seed=0)  # Go: time management by default
    talk(mcts, ["time_settings 0 0.3 1", "genmove black"])
    assert mcts.last_stats["budget"] == pytest.approx(0.24)  # the clock's share, not the game phase's
    assert mcts.seconds == 0.5 and mcts.manage_time is None
    mcts = agents.make("mcts", seconds=0.5, seed=0)
    talk(mcts, ["genmove black"])  # no clock: the agent's own management (the opening's share)
    assert mcts.manage_time is None and mcts.last_stats["budget"] == pytest.approx(0.5 * 0.6)
    ab = agents.make("alphabeta", depth=1, seed=0)
    talk(ab, ["time_settings 100 0 0", "time_left black 100 0", "genmove black"])
    # 100 s over the 25 moves to come (50 legal // 2)
    assert ab.last_stats["budget"] == pytest.approx(0.8 * 100 / 25)
    assert ab.time == 0  # its own budget (depth 1) again
    replies = talk(
        agents.make("random", seed=0),
        [
            "time_settings 60 x 0",
            "time_left purple 5 0",
            "time_left black 5",
            "time_settings 60 0 0",
            "time_left black 5 0",
            "genmove black",
        ],
    )
    assert replies[:3] == [(False, "syntax error"), (False, "invalid color or coordinate"), (False, "syntax error")]
    assert all(ok for ok, _ in replies[3:])  # an agent without a budget option ignores the clock


SGF = "(;GM[1]FF[4]SZ[5]KM[2.5]AB[cc][dd]AW[bb];W[ee];B[ac];W[ca])\n"


def test_loadsgf_sets_size_komi_setup_and_moves(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text(SGF)
    replies = talk(
        agents.make("random", seed=0),
        [
            f"loadsgf {path}",
            "showboard",
            "final_score",
            "undo",
            f"loadsgf {path} 2",
            "showboard",
            f"loadsgf {tmp_path / 'missing.sgf'}",
            "showboard",
            "loadsgf",
            "genmove white",
        ],
    )
    assert replies[0] == (True, "")
    assert replies[1][1].splitlines() == [
        "5 . . o . .",
        "4 . o . . .",
        "3 x . x . .",
        "2 . . . x .",
        "1 . . . . o",
        "  a b c d e",
        "to_move=x ply=6 passes=0 ko=-",
    ]  # 3 setup stones (+1: White moves first)
    assert replies[2] == (True, "W+2.5")  # 3 stones each, no territory, komi 2.5
    assert replies[3] == (False, "cannot undo")  # a loaded record is where undo stops
    assert status(replies[5][1]) == "to_move=x ply=4 passes=0 ko=-"  # before move 2: W E1 only
    assert replies[6][0] is False and replies[6][1].startswith("cannot load file")
    assert replies[7] == replies[5]  # a failed load leaves the position alone
    assert replies[8] == (False, "syntax error")
    assert replies[9][0]
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]FF[4]SZ[5];B[cc];W[cc])\n")
    assert talk(agents.make("random", seed=0), [f"loadsgf {bad}"]) == [
        (False, "cannot load file: move 2 (W[cc]) is illegal")
    ]


def test_the_controller_may_play_on_after_two_passes():
    # GTP leaves ending the game to the controller: GNU Go plays on after two passes, and so do we
    replies = talk(
        agents.make("random", seed=0),
        [
            "play b c3",
            "play w pass",
            "play b pass",
            "final_score",  # two passes: the game is over
            "play w b2",
            "showboard",
            "final_score",  # ... and goes on all the same
            "undo",
            "showboard",  # back to both passes
            "play b b2",
            "showboard",  # the other colour may too
            "play w pass",
            "play b pass",
            "genmove w",
            "showboard",  # genmove plays on, not pass
        ],
    )
    assert all(ok for ok, _ in replies), replies
    assert replies[3] == (True, "B+48.5")  # one black stone owns the 7x7 board, komi 0.5
    board = replies[5][1]
    assert board.splitlines()[5].split()[2] == "o" and status(board) == "to_move=x ply=2 passes=0 ko=-"
    assert replies[6] == (True, "W+0.5")  # C3 and B2, the rest dame: final_score scores it as it is
    assert status(replies[8][1]) == "to_move=o ply=3 passes=2 ko=-"
    assert status(replies[10][1]) == "to_move=o ply=3 passes=0 ko=-"  # C3, W pass, B2
    assert replies[13][1] not in ("pass", "") and status(replies[14][1]).endswith("passes=0 ko=-")


def _random_game(game, seed):
    """The moves of a uniformly random game of ``game``, in its notation, and the final state."""
    rng = np.random.default_rng(seed)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state):
        action = int(rng.choice(game.legal_actions(state)))
        moves.append(("bw"[game.current_player(state)], game.action_to_str(state, action)))
        state = game.apply(state, action)
    return moves, state


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_final_score_of_othello_is_the_disc_count_when_the_game_is_over(seed):
    game = envs.make_game("othello", size=6)
    moves, end = _random_game(game, seed)
    black, white = game.discs(end)
    lead = abs(black - white) + 36 - black - white  # the world rules: empty squares to the winner
    expected = "0" if black == white else f"{'B' if black > white else 'W'}+{lead}"
    plays = [f"play {colour} {move}" for colour, move in moves]
    replies = talk(
        agents.make("random", seed=0),
        plays[:10] + ["final_score"] + plays[10:] + ["final_score", "genmove b", "name"],
        game,
    )
    assert all(ok for ok, _ in replies[:10]) and all(ok for ok, _ in replies[11:-3])
    assert replies[10] == (False, "cannot score")  # as GRhino: a game going on cannot be ended by passes
    assert replies[-3] == (True, expected)
    assert replies[-2] == (True, "pass") and replies[-1] == (True, "Arbiter random")


def test_final_score_of_a_game_without_a_margin_names_the_winner():
    replies = talk(
        agents.make("random", seed=0),
        [
            "play b c3",
            "play w c4",
            "play b d3",
            "play w d4",
            "play b e3",
            "play w e4",
            "final_score",
            "play b f3",
            "play w f4",
            "play b g3",
            "final_score",
        ],
        envs.make_game("gomoku", size=9),
    )
    assert replies[6] == (False, "cannot score") and all(ok for ok, _ in replies[:6] + replies[7:10])
    assert replies[10] == (True, "B+")  # five in a row: a win with no size, as SGF's RE writes it


class _Spy(agents.mcts.MCTSAgent):
    """MCTS that notes the budget it searches with."""

    def _act(self, game, state):
        start = time.perf_counter()
        self.seen = {"simulations": self.simulations, "seconds": self.seconds, "manage_time": self.manage_time}
        try:
            return super()._act(game, state)
        finally:
            self.spent = getattr(self, "spent", []) + [time.perf_counter() - start]


def test_a_clock_replaces_mcts_default_simulation_count_and_is_kept_between_time_left():
    # `arbiter gtp --agent mcts` under `time_settings 30 0 0` used to stop at its 1000 simulations
    spy = _Spy(seed=0)
    game = envs.make_game("go", size=5)
    replies = talk(spy, ["time_settings 3 0 0", "genmove b"], game)
    assert all(ok for ok, _ in replies)
    share = 0.8 * 3 / 13  # 3 s over the 13 moves to come (26 legal // 2), 20% kept back
    assert spy.seen == {"simulations": None, "seconds": pytest.approx(share), "manage_time": False}
    assert spy.last_stats["seconds"] >= share  # it thought for its whole share
    assert spy.simulations == 1000 and spy.seconds is None  # its own budget again afterwards
    # no time_left from the controller: the engine takes its own thinking off its clock
    spy = _Spy(seed=0)
    talk(spy, ["time_settings 3 0 0", "genmove b", "genmove w", "genmove b"], game)
    assert spy.seen["seconds"] == pytest.approx(0.8 * (3 - spy.spent[0]) / 12, abs=0.01)  # 24 legal
    # a count set on purpose caps the clock's share, as an engine's visit limit does
    spy = _Spy(simulations=20, seed=0)
    talk(spy, ["time_settings 3 0 0", "genmove b"], game)
    assert spy.seen["simulations"] == 20 and spy.last_stats["simulations"] <= 20


def test_kgs_time_settings():
    game = envs.make_game("go", size=5)
    cases = {
        "kgs-time_settings canadian 0 10 5": 0.8 * 10 / 5,
        "kgs-time_settings byoyomi 0 3 5": 0.8 * 3,
        "kgs-time_settings absolute 2.6": 0.8 * 2.6 / 13,
        "kgs-time_settings none": None,
    }
    for command, share in cases.items():
        spy = _Spy(seconds=5, manage_time=False, seed=0)
        replies = talk(spy, [command, "genmove b"], game)
        assert all(ok for ok, _ in replies), (command, replies)
        assert spy.seen["seconds"] == (pytest.approx(share) if share else 5), command
    spy = _Spy(seconds=5, manage_time=False, seed=0)  # time_left alone limits only its colour
    talk(spy, ["time_left white 2 1", "genmove b"], game)
    assert spy.seen["seconds"] == 5
    talk(spy, ["time_left white 2 1", "genmove w"], game)
    assert spy.seen["seconds"] == pytest.approx(1.6)
    replies = talk(
        agents.make("random", seed=0),
        [
            "kgs-time_settings",
            "kgs-time_settings absolute",
            "kgs-time_settings canadian 1 2 x",
            "known_command kgs-time_settings",
        ],
    )
    assert replies == [(False, "syntax error")] * 3 + [(True, "true")]


def test_a_komi_that_is_not_a_finite_number_is_refused_and_the_engine_goes_on():
    replies = talk(
        agents.make("random", seed=0),
        [
            "play b c3",
            "komi nan",
            "komi inf",
            "komi -inf",
            "komi 1e400",
            "komi 1e308",
            "komi x",
            "komi 0.3",
            "final_score",
            "name",
        ],
    )
    assert [ok for ok, _ in replies] == [True, False, False, False, False, False, False, False, True, True]
    assert replies[1] == (False, "syntax error: komi nan is not a finite number")
    assert replies[4] == (False, "syntax error: komi 1e400 is not a finite number")
    assert replies[5][1].startswith("unacceptable komi 1e308")
    assert replies[7][1].startswith("unacceptable komi 0.3: komi=0.3: expected a multiple of 0.5")
    assert replies[8] == (True, "B+48.5")  # the komi is still 0.5, the stone still there


def test_loadsgf_reads_only_regular_files_of_bounded_size(tmp_path):
    from agents.gtp import MAX_RECORD_BYTES

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading must not wait
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;GM[1]SZ[5]C[" + b"x" * MAX_RECORD_BYTES + b"])")
    replies = talk(
        agents.make("random", seed=0),
        [
            "play b c3",
            "loadsgf /dev/zero",
            f"loadsgf {fifo}",
            f"loadsgf {tmp_path}",
            f"loadsgf {big}",
            "loadsgf /nonexistent/x.sgf",
            "showboard",
        ],
    )
    assert replies[1] == (False, "cannot load file: /dev/zero: not a regular file")
    assert replies[2] == (False, f"cannot load file: {fifo}: not a regular file")
    assert replies[3] == (False, f"cannot load file: {tmp_path}: not a regular file")
    assert replies[4][1].startswith(f"cannot load file: {big}: {MAX_RECORD_BYTES + 16} bytes, more than")
    assert replies[5] == (False, "cannot load file: /nonexistent/x.sgf: No such file or directory")
    assert status(replies[6][1]) == "to_move=o ply=1 passes=0 ko=-"  # the position as it was


@pytest.mark.parametrize(
    "record, error",
    [
        ("(;GM[2]FF[4]SZ[8];B[dc])", "GM[2]: a record of othello, not of go"),
        ("(;GM[1]FF[4]SZ[5];B[zz])", "move 1 (B[zz]) of the record: not a point of the 5x5 board"),
        ("(;GM[1]FF[4]SZ[5]PL[x];B[cc])", "PL[x]: expected B or W"),
        ("(;GM[1]FF[4]SZ[5]AB[cc]AW[cc][dd])", "AB and AW both name [cc]: a point holds one stone or none"),
        ("(;GM[1]FF[4]SZ[5]KM[nan])", "KM[nan]: expected a finite number"),
        ("(;GM[1]FF[4]SZ[42])", "SZ[42]: size out of range: 42"),
        ("(;GM[1]FF[4]SZ[5]RU[Go, standard rules (size=7)])", "SZ[5] and RU[Go, standard rules (size=7)] disagree"),
    ],
)
def test_loadsgf_refuses_another_games_record_and_names_bad_properties(tmp_path, record, error):
    path = tmp_path / "r.sgf"
    path.write_text(record)
    replies = talk(agents.make("random", seed=0), ["play b c3", f"loadsgf {path}", "showboard"])
    assert replies[1][0] is False and replies[1][1].startswith("cannot load file") and error in replies[1][1]
    assert status(replies[2][1]) == "to_move=o ply=1 passes=0 ko=-"


def test_loadsgf_refuses_records_longer_than_any_game(tmp_path):
    from envs.sgf import MAX_NODES

    endless = tmp_path / "endless.sgf"
    endless.write_text("(;GM[1]FF[4]SZ[5]" + ";B[];W[]" * (MAX_NODES // 2 + 1) + ")")
    long = tmp_path / "long.sgf"  # pass pairs the controller plays on from, more than 50 plies
    long.write_text("(;GM[1]FF[4]SZ[5];B[cc]" + ";W[];B[]" * 30 + ")")
    replies = talk(
        agents.make("random", seed=0), [f"loadsgf {endless}", f"loadsgf {long}", "name"], envs.make_game("go", size=5)
    )
    assert replies[0] == (
        False,
        (f"cannot load file: the record has {MAX_NODES + 3} nodes, more than the {MAX_NODES} any game here can fill"),
    )
    assert replies[1] == (False, "cannot load file: 61 moves, more than the 50 plies a game of go lasts here")
    assert replies[2][0]


def test_loadsgf_keeps_the_engines_komi_without_km_and_plays_on_after_a_recorded_double_pass(tmp_path):
    path = tmp_path / "r.sgf"
    path.write_text("(;GM[1]FF[4]SZ[5];B[cc];W[];B[];W[bb])")  # W plays on after two passes
    replies = talk(agents.make("random", seed=0), [f"loadsgf {path}", "showboard", "final_score"])
    assert all(ok for ok, _ in replies)
    assert replies[1][1].splitlines()[1:3] == ["4 . o . . .", "3 . . x . ."]
    assert replies[2] == (True, "W+0.5")  # one stone each, all dame: 7x7's komi 0.5 decides


def test_no_command_line_can_exhaust_or_stop_the_engine():
    from agents.gtp import MAX_LINE

    replies = talk(
        agents.make("random", seed=0),
        [
            "7 play b " + "c" * (10 * MAX_LINE),  # refused unread, its id echoed
            "boardsize " + "9" * 5000,
            "boardsize 0005",
            "time_left black 5 " + "1" * 5000,
            "boardsize \u00b2",
            "8 name\x00\x07\r",
            "loadsgf x " + "9" * 5000,
            *["clear_board"] * 2000,
            "play b c3",
            "showboard",
        ],
    )
    assert replies[0] == (False, f"7 command line too long (more than {MAX_LINE} characters)")
    assert replies[1] == (False, "unacceptable size") and replies[2] == (True, "")
    assert replies[3] == replies[4] == replies[6] == (False, "syntax error")
    assert replies[5] == (True, "8 Arbiter random")  # control characters dropped, as GTP says
    assert all(ok for ok, _ in replies[7:]) and status(replies[-1][1]) == "to_move=o ply=1 passes=0 ko=-"


class _Faulty(agents.Agent):
    """An agent whose move raises what no agent should (a bug), or resigns."""

    name = "faulty"

    def __init__(self, error):
        super().__init__()
        self.error = error

    def _act(self, game, state):
        raise self.error


def test_a_fault_inside_a_command_is_an_answer_and_resigning_is_a_move():
    replies = talk(_Faulty(RuntimeError("boom")), ["play b c3", "genmove w", "showboard", "name"])
    assert replies[1] == (False, "internal error: RuntimeError: boom")
    assert status(replies[2][1]) == "to_move=o ply=1 passes=0 ko=-" and replies[3][0]
    replies = talk(_Faulty(agents.Resign()), ["genmove b", "showboard"])
    assert replies[0] == (True, "resign") and status(replies[1][1]) == "to_move=x ply=0 passes=0 ko=-"


class _Resigner(agents.Agent):
    """Resigns wherever its runner allows it, else plays the first legal move."""

    name = "resigner"

    def _act(self, game, state):
        if resignation_allowed():
            raise agents.Resign()
        return int(game.legal_actions(state)[0])


def test_arbiter_resign_turns_resignation_off_and_on():
    commands = ["arbiter-resign", "genmove b", "arbiter-resign off", "genmove b", "arbiter-resign"]
    commands += ["arbiter-resign ON", "genmove w", "arbiter-resign maybe", "arbiter-resign on off"]
    replies = talk(_Resigner(), commands)
    assert replies[:3] == [(True, "on"), (True, "resign"), (True, "off")]
    assert replies[3][0] and replies[3][1] != "resign" and replies[4] == (True, "off")
    assert replies[5:7] == [(True, "on"), (True, "resign")]
    assert replies[7] == replies[8] == (False, "syntax error")
    assert talk(_Resigner(), ["known_command arbiter-resign"]) == [(True, "true")]


def test_version_answers_the_installed_distributions_version():
    from importlib.metadata import version

    assert talk(agents.make("random", seed=0), ["version"]) == [(True, version("arbiter-games"))]


@pytest.fixture
def connect_four():
    """Connect Four (``tests/connect_four``), a game from outside ``envs`` with no square board,
    no komi and no pass, registered for one test."""
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    try:
        import connect_four as package
    finally:
        sys.path.remove(os.path.join(ROOT, "tests"))
    ours = package.SPEC.name not in envs.GAMES
    if ours:
        envs.register(package.SPEC)
    yield envs.make_game(package.SPEC.name)
    if ours:
        envs.unregister(package.SPEC.name)


def test_the_server_asks_the_game_what_it_supports(connect_four):
    assert [
        (envs.make_game(name).board_size, envs.make_game(name).komi, envs.make_game(name).pass_action)
        for name in ("go", "othello", "gomoku", "loa")
    ] == [(9, 7.5, 81), (8, None, 64), (15, None, None), (8, None, 512)]
    assert (connect_four.board_size, connect_four.komi, connect_four.pass_action) == (None, None, None)
    replies = talk(
        agents.make("random", seed=0),
        [
            "boardsize 7",
            "boardsize 6",
            "komi 6.5",
            "play b pass",
            "play b d",
            "genmove w",
            "final_score",
            "final_status_list alive",
        ],
        connect_four,
    )
    # 7 columns and 6 rows are no 7x7 board (the observation's last side once passed for one)
    assert replies[:2] == [(False, "unacceptable size")] * 2
    assert replies[2] == (True, "")  # no komi in this game: accepted and ignored, as GTP engines do
    assert replies[3] == (False, "invalid color or coordinate")  # no pass in this game
    assert replies[4] == (True, "") and replies[5][0] and replies[5][1] in "ABCDEFG"
    assert replies[6] == (False, "cannot score")  # it cannot be ended by passes
    assert replies[7] == (False, "final_status_list is not available for connect_four")


class _Thinker(agents.Agent):
    """An agent that declares ``think`` (seconds per move) its time option, and has an option
    called ``seconds`` that is something else (the GTP server once set any option so named)."""

    name = "thinker"
    time_option = "think"

    def __init__(self, think=0.0, seconds=9.0, seed=None):
        super().__init__(seed=seed)
        self.think, self.seconds = think, seconds

    def _act(self, game, state):
        self.seen = (self.think, self.seconds)
        return int(game.legal_actions(state)[0])


def test_a_clock_reaches_an_agent_through_its_declared_time_option():
    agent = _Thinker()
    talk(agent, ["time_settings 0 5 1", "genmove b"])
    assert agent.seen == (pytest.approx(4.0), 9.0)  # the clock's share, less a fifth; seconds untouched
    assert (agent.think, agent.seconds) == (0.0, 9.0)  # its own again after the move
    agent = _Thinker(think=1.5)
    talk(agent, ["time_settings 0 5 1", "genmove b", "genmove w"])
    assert agent.seen == (1.5, 9.0)  # its own setting is lower: the clock never raises it
    agent = _Thinker(think=1.5)
    talk(agent, ["genmove b"])
    assert agent.seen == (1.5, 9.0)  # no clock: as configured


# -- GNU Go in both directions ---------------------------------------------------------------------
def relay(black: GTPEngine, white: GTPEngine, size: int, komi: float, max_plies: int = 200):
    """A minimal GTP referee: set both engines up, ask the side to move for a move and tell the
    other, until two passes in a row or a resignation. Returns the moves."""
    for engine in (black, white):
        for command in (f"boardsize {size}", "clear_board", f"komi {komi}", "time_settings 0 20 1"):
            engine.send(command)
    moves, players = [], (black, white)
    while len(moves) < max_plies:
        seat = len(moves) % 2
        move = players[seat].send(f"genmove {'bw'[seat]}", timeout=120).upper()
        moves.append(move)
        if move == "RESIGN" or moves[-2:] == ["PASS", "PASS"]:
            break
        players[1 - seat].send(f"play {'bw'[seat]} {move}")
    return moves


@needs_gnugo
def test_after_two_passes_we_accept_what_gnugo_accepts():
    commands = [
        "boardsize 7",
        "clear_board",
        "komi 0.5",
        "play b c3",
        "play w pass",
        "play b pass",
        "play w b2",
        "play b pass",
        "play w pass",
        "play b d4",
        "play w d4",
        "undo",
        "genmove w",
    ]
    ours = talk(agents.make("random", seed=0), commands)
    gnugo = GTPEngine(GNUGO_CMD)
    try:
        theirs = [gnugo.ask(command) for command in commands]
    finally:
        gnugo.close()
    assert [ok for ok, _ in ours] == [ok for ok, _ in theirs]  # every move played, D4 twice refused
    assert ours[-1][1] != "pass" and theirs[-1][1] != "PASS"


@needs_gnugo
def test_gnugo_plays_a_full_game_against_our_server():
    ours = GTPEngine(
        SERVER + ["--game", "go", "--size", "7", "--agent", "mcts:simulations=200"], timeout=300
    )  # a cold numba cache compiles on the first commands
    gnugo = GTPEngine(GNUGO_CMD)
    try:
        for black, white in ((gnugo, ours), (ours, gnugo)):
            moves = relay(black, white, 7, 7.5)
            assert moves[-1] == "RESIGN" or moves[-2:] == ["PASS", "PASS"], moves
            assert len(moves) >= 4
            if moves[-1] != "RESIGN":  # both score the final position alike (area, all alive)
                ours_score = ours.send("final_score")
                assert ours_score == gnugo.send("final_score"), moves
                stones = ours.send("final_status_list alive").split()
                assert ours.send("final_status_list dead") == ""
                board = ours.send("showboard")
                assert len(stones) == board.count(" x") + board.count(" o")
    finally:
        ours.close()
        gnugo.close()


@needs_gnugo
def test_our_client_plays_a_full_game_against_gnugo_on_a_clock(monkeypatch):
    sent = []
    ask = GTPEngine.ask

    def logged(self, command, timeout=None):
        sent.append(command)
        return ask(self, command, timeout)

    monkeypatch.setattr(GTPEngine, "ask", logged)
    game = envs.make_game("go", size=7)
    gnugo = GTPAgent(command=GNUGO_CMD, move_time=5)
    bot = agents.make("mcts", simulations=100, seed=0)
    try:
        s = game.initial_state()
        while not game.is_terminal(s):
            player = gnugo if game.current_player(s) == 1 else bot
            s = game.apply(s, player.act(game, s))
    except agents.AgentError as exc:  # GNU Go may resign a lost game: that is a full game too
        assert "resigned" in str(exc)
    finally:
        gnugo.close()
    assert "time_settings 0 5 1" in sent
    assert sent.index("time_settings 0 5 1") < sent.index("genmove white")
    assert sent.count("time_left white 5 1") == sent.count("genmove white") >= 3
