"""The GTP server as GoGui and Sabaki drive it: each command with its exact response, any colour
to move, clocks, scoring and loading records; then full games with GNU Go in both directions
(GNU Go against our server through a relay, our client against GNU Go on a clock)."""

import io
import os
import shutil
import sys

import pytest

import agents
import envs
from agents.gtp import GTPAgent, GTPEngine, serve

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)
GNUGO_CMD = [GNUGO, "--mode", "gtp", "--level", "1", "--chinese-rules", "--capture-all-dead",
             "--positional-superko"]
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
    replies = talk(agents.make("random", seed=0), [
        "protocol_version", "name", "version", "list_commands", "known_command loadsgf",
        "known_command time_left", "known_command kgs-genmove_cleanup", "frobnicate",
        "play black Z99", "play purple A1", "play black", "genmove purple", "play black C3",
        "play white C3", "komi x", "boardsize x", "boardsize 42", "undo", "undo",
    ])
    assert replies[0] == (True, "2") and replies[1] == (True, "Arbiter random")
    assert replies[2][0] and replies[2][1].count(".") >= 1
    assert set(replies[3][1].split()) >= {
        "protocol_version", "name", "version", "known_command", "list_commands", "boardsize",
        "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score",
        "final_status_list", "time_settings", "time_left", "loadsgf", "quit"}
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
    replies = talk(agents.make("random", seed=0), [
        "play black C3", "play black D4", "showboard",           # handicap-style: Black twice
        "genmove black", "showboard",                             # Black a third time
        "undo", "undo", "showboard",                              # each undo takes one command back
        "play white E5", "showboard",                             # White's turn anyway
        "play white pass", "play white D5", "showboard",          # White's pass out of turn: no-op
        "play black pass", "play black E4", "showboard",          # Black's own pass is taken back
    ])
    assert all(ok for ok, _ in replies)
    assert status(replies[2][1]) == "to_move=o ply=3 passes=0 ko=-"  # B C3, W pass, B D4
    assert replies[3][1] != "pass" and status(replies[4][1]) == "to_move=o ply=5 passes=0 ko=-"
    assert status(replies[7][1]) == "to_move=o ply=1 passes=0 ko=-"
    assert status(replies[9][1]) == "to_move=x ply=2 passes=0 ko=-"
    board = replies[12][1]
    assert status(board) == "to_move=x ply=4 passes=0 ko=-"  # C3 E5, B pass, W D5: no double pass
    assert board.splitlines()[2].split()[4:6] == ["o", "o"]    # row 5: D5 and E5
    assert status(replies[15][1]) == "to_move=o ply=5 passes=0 ko=-"  # C3 E5 pass D5 E4


def test_a_game_without_passes_sets_the_side_to_move_through_its_text_board():
    replies = talk(agents.make("random", seed=0), ["genmove white", "showboard", "undo", "showboard"],
                   envs.make_game("loa"))
    assert replies[0][0] and status(replies[1][1]) == "to_move=x ply=2"  # ply 1: Black's turn given away
    assert replies[2] == (True, "") and status(replies[3][1]) == "to_move=x ply=0"
    # Othello's and Gomoku's text boards tie the side to move to the stones: not there
    replies = talk(agents.make("random", seed=0), ["play black d3", "play black c4"], envs.make_game("othello"))
    assert replies == [(True, ""), (False, "illegal move")]


def test_final_score_and_final_status_list_under_area_scoring():
    replies = talk(agents.make("random", seed=0), [
        "play black C3", "play white E5", "play black D4", "final_score", "final_status_list alive",
        "final_status_list dead", "final_status_list seki", "final_status_list bogus",
    ])
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
    replies = talk(agents.make("random", seed=0), ["time_settings 60 x 0", "time_left purple 5 0",
                                                    "time_left black 5", "time_settings 60 0 0",
                                                    "time_left black 5 0", "genmove black"])
    assert replies[:3] == [(False, "syntax error"), (False, "invalid color or coordinate"),
                           (False, "syntax error")]
    assert all(ok for ok, _ in replies[3:])  # an agent without a budget option ignores the clock


SGF = "(;GM[1]FF[4]SZ[5]KM[2.5]AB[cc][dd]AW[bb];W[ee];B[ac];W[ca])\n"


def test_loadsgf_sets_size_komi_setup_and_moves(tmp_path):
    pytest.importorskip("sgfmill")
    path = tmp_path / "game.sgf"
    path.write_text(SGF)
    replies = talk(agents.make("random", seed=0), [
        f"loadsgf {path}", "showboard", "final_score", "undo", f"loadsgf {path} 2", "showboard",
        f"loadsgf {tmp_path / 'missing.sgf'}", "showboard", "loadsgf", "genmove white",
    ])
    assert replies[0] == (True, "")
    assert replies[1][1].splitlines() == [
        "5 . . o . .", "4 . o . . .", "3 x . x . .", "2 . . . x .", "1 . . . . o",
        "  a b c d e", "to_move=x ply=6 passes=0 ko=-"]  # 3 setup stones (+1: White moves first)
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
        (False, "cannot load file: move 2 (W C3) is illegal")]


def test_loadsgf_without_sgfmill_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sgfmill", None)
    path = tmp_path / "game.sgf"
    path.write_text(SGF)
    replies = talk(agents.make("random", seed=0), [f"loadsgf {path}"])
    assert replies == [(False, "cannot load file: loadsgf needs sgfmill: pip install 'arbiter-games[records]'")]


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
def test_gnugo_plays_a_full_game_against_our_server():
    ours = GTPEngine(SERVER + ["--game", "go", "--size", "7", "--agent", "mcts:simulations=200"],
                     timeout=300)  # a cold numba cache compiles on the first commands
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
