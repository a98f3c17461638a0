"""GTP both ways: the server driven by GTP text (in process and as a subprocess), the client
agent against GNU Go, GRhino and our own server, and clean errors from broken engines."""

import io
import os
import shutil
import subprocess
import sys

import pytest
from said import said

import agents
import envs
from agents.gtp import GTPEngineError, GTPSyncError, GTPTimeout, serve

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)
GNUGO_RULES = ["--chinese-rules", "--capture-all-dead", "--positional-superko"]  # our scoring
GRHINO = shutil.which("gtp-rhino") or ("/usr/games/gtp-rhino" if os.path.exists("/usr/games/gtp-rhino") else None)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SERVER = [sys.executable, "-m", "tournaments.cli", "gtp"]  # what `arbiter gtp` runs


def talk(game, agent, commands):
    """Run the server in process on ``commands``; return the list of (ok, text) responses."""
    out = io.StringIO()
    serve(game, agent, io.StringIO("\n".join(commands) + "\n"), out)
    blocks = out.getvalue().split("\n\n")
    assert blocks[-1] == ""
    return [(block[0] == "=", block[1:].strip()) for block in blocks[:-1]]


def test_server_answers_the_administrative_commands():
    game = envs.make_game("go", size=9)
    bot = agents.make("mcts", simulations=50, seed=0)
    replies = talk(
        game,
        bot,
        [
            "protocol_version",
            "1 name",
            "version",
            "known_command genmove",
            "known_command frobnicate",
            "list_commands",
            "frobnicate",
            "quit",
            "name",
        ],
    )
    assert replies[0] == (True, "2")
    assert replies[1] == (True, "1 Arbiter mcts")  # "=1 Arbiter mcts": the id is echoed
    assert replies[3] == (True, "true") and replies[4] == (True, "false")
    assert {"play", "genmove", "undo", "final_score", "showboard", "komi"} <= set(replies[5][1].split())
    assert replies[6] == (False, "unknown command")
    assert len(replies) == 8  # nothing is answered after quit


def test_server_ids_are_echoed():
    out = io.StringIO()
    serve(envs.make_game("go", size=5), agents.make("random", seed=0), io.StringIO("7 protocol_version\n"), out)
    assert out.getvalue() == "=7 2\n\n"


def test_server_plays_undoes_and_scores_go():
    game = envs.make_game("go", size=9)
    bot = agents.make("mcts", simulations=200, seed=1)
    replies = talk(
        game,
        bot,
        [
            "boardsize 5",
            "clear_board",
            "komi 0.5",
            "play black C3",
            "play black D4",
            "play white Z9",
            "genmove white",
            "undo",
            "undo",
            "undo",
            "undo",
            "showboard",
            "play b c3",
            "play w pass",
            "play b pass",
            "final_score",
            "boardsize 42",
        ],
    )
    assert all(ok for ok, _ in replies[:5])  # Black twice: White passed in between
    assert replies[5] == (False, "invalid color or coordinate")
    ok, vertex = replies[6]
    assert ok and (vertex == "pass" or vertex[0] in "ABCDE")
    assert replies[7:10] == [(True, "")] * 3  # genmove, D4 (with its pass), C3 taken back
    assert replies[10] == (False, "cannot undo")
    grid = [line.split()[1:] for line in replies[11][1].splitlines() if line[:1].isdigit()]
    assert len(grid) == 5 and {cell for row in grid for cell in row} == {"."}  # empty again
    assert all(ok for ok, _ in replies[12:15])
    assert replies[15] == (True, "B+24.5")  # one black stone owns the 5x5 board, komi 0.5
    assert replies[16] == (False, "unacceptable size")


def test_server_refuses_size_changes_for_a_fixed_board_and_one_player_games():
    replies = talk(envs.make_game("loa"), agents.make("random", seed=0), ["boardsize 8", "boardsize 9"])
    assert replies == [(True, ""), (False, "unacceptable size")]
    with pytest.raises(agents.AgentError, match="two-player"):
        serve(envs.make_game("calculation"), agents.make("random"), io.StringIO(""), io.StringIO())


def _gtp_subprocess(args, commands, timeout=120):
    proc = subprocess.run(
        SERVER + args, input="\n".join(commands) + "\n", capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return [(b[0] == "=", b[1:].strip()) for b in proc.stdout.split("\n\n")[:-1]]


def test_command_line_server_in_a_subprocess():
    replies = _gtp_subprocess(
        ["--game", "go", "--size", "5", "--agent", "mcts:simulations=100", "--seed", "3"],
        ["protocol_version", "play black C3", "genmove white", "showboard", "quit"],
    )
    assert replies[0] == (True, "2") and replies[1] == (True, "")
    assert replies[2][0] and replies[3][0] and "to_move=x" in replies[3][1]


@pytest.mark.parametrize("komi", ["nan", "inf", "-inf", "1e400", "1e308"])
def test_command_line_refuses_a_komi_that_is_not_a_finite_number_in_one_line(komi):
    proc = subprocess.run(
        SERVER + ["--game", "go", f"--komi={komi}", "--agent", "random"],
        input="name\n",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    err = said(proc.stderr)
    assert len(err) == 1 and err[0].startswith("arbiter gtp: error: komi="), proc.stderr


def test_command_line_server_answers_hostile_input_and_goes_on():
    # stray bytes that are no UTF-8, a komi that is no number, an endless file, a huge line
    commands = (
        b"1 komi nan\n2 komi 1e400\n3 loadsgf /dev/zero\n\xff\xfe bogus\n4 play b "
        + b"c" * 100_000
        + b"\n5 play b c3\n6 showboard\n7 quit\n"
    )
    proc = subprocess.run(
        SERVER + ["--game", "go", "--size", "5", "--agent", "random"],
        input=commands,
        capture_output=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    replies = proc.stdout.decode().split("\n\n")[:-1]
    assert [r[:2] for r in replies] == ["?1", "?2", "?3", "? ", "?4", "=5", "=6", "=7"]
    assert replies[2] == "?3 cannot load file: /dev/zero: not a regular file"
    assert replies[6].endswith("to_move=o ply=1 passes=0 ko=-") and said(proc.stderr) == []


def test_command_line_rejects_bad_agent_specs():
    proc = subprocess.run(
        SERVER + ["--game", "go", "--agent", "nosuchagent"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 2 and "unknown agent 'nosuchagent'" in proc.stderr


def play_match(game, bots, first=0):
    """One game; ``bots[i]`` plays seat ``(i + first) % 2``. Returns the final state."""
    s = game.initial_state()
    for bot in bots:
        bot.reset()
    while not game.is_terminal(s):
        seat = game.current_player(s)
        s = game.apply(s, bots[(seat - first) % 2].act(game, s))
    return s


def test_client_plays_our_own_server():
    # GTP both ways at once: an agent behind the server, reached through the client.
    game = envs.make_game("go", size=5)
    served = agents.make(
        "gtp", command=SERVER + ["--game", "go", "--size", "9", "--agent", "random", "--seed", "1"], move_time=60
    )
    try:
        s = play_match(game, [agents.make("random", seed=2), served])
        assert game.is_terminal(s)
    finally:
        served.close()


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_match_against_gnugo_level_1_on_5x5_completes():
    game = envs.make_game("go", size=5)
    gnugo = agents.make("gtp", command=[GNUGO, "--mode", "gtp", "--level", "1", *GNUGO_RULES], move_time=30)
    try:
        for first in (0, 1):
            try:
                s = play_match(game, [agents.make("mcts", simulations=300, seed=first), gnugo], first)
            except GTPEngineError as exc:  # GNU Go resigns a game it has lost: that ends it too
                assert "resigned" in str(exc)
                continue
            assert game.is_terminal(s) and sorted(game.returns(s)) in ([-1.0, 1.0], [0.0, 0.0])
    finally:
        gnugo.close()


@pytest.mark.skipif(GRHINO is None, reason="GRhino is not installed (apt-get install grhino)")
def test_match_against_grhino_on_othello_completes():
    game = envs.make_game("othello")
    rhino = agents.make("gtp", command=[GRHINO, "-l", "1"], move_time=30)
    try:
        s = play_match(game, [agents.make("random", seed=0), rhino])
        assert game.is_terminal(s)
    finally:
        rhino.close()


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_engine_game_from_an_opening_completes_in_a_tournament_job():
    # four plies are more than the client can work out by itself: play_game hands them over
    from tournaments.referee.play import Context, Job, play_job

    game = envs.make_game("go", size=5)
    s, opening = game.initial_state(), []
    for move in ["C3", "C4", "D3", "D4"]:
        opening.append(game.str_to_action(s, move))
        s = game.apply(s, opening[-1])
    engine = agents.gtp.GTPAgent(command=[GNUGO, "--mode", "gtp", "--level", "1", *GNUGO_RULES], move_time=30)
    ctx = Context("go", {"size": 5}, ("mcts:simulations=200", engine), ("mcts", "gnugo"), move_time=60)
    for k in (0, 1):
        record = play_job(ctx, Job(k, 0, 0, k, k, 1 - k, 0, (1, 2), tuple(opening)))
        assert record["reason"] in ("normal", "resign"), record  # either side may resign a lost game
        assert record["opening"] == 4 and record["moves"][:4] == ["C3", "C4", "D3", "D4"]


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (apt-get install gnugo)")
def test_client_follows_history_and_refuses_unexplained_positions():
    game = envs.make_game("go", size=5)
    gnugo = agents.make("gtp", command=[GNUGO, "--mode", "gtp", "--level", "1", *GNUGO_RULES])
    try:
        s = game.initial_state()
        for move in ["C3", "C4", "D3"]:
            s = game.apply(s, game.str_to_action(s, move))
        gnugo.set_history(game, [game.str_to_action(game.initial_state(), "C3")])
        a = gnugo.act(game, s)  # two plies (C4, D3) found by diffing from the history
        assert game.is_legal(s, a)
        far = s
        for move in ["A1", "E5", "A5"]:
            far = game.apply(far, game.str_to_action(far, move))
        with pytest.raises(GTPSyncError, match="cannot tell"):
            gnugo.act(game, far)
    finally:
        gnugo.close()


def _fake_engine(script):
    return [sys.executable, "-c", script]


def test_engine_random_stream_follows_the_agent_seed(tmp_path):
    # A seeded agent sends set_random_seed, drawn from its seed, at each new game: the same seed
    # sends the same numbers (a seeded match replays), a new game a new number (games differ).
    log = tmp_path / "commands"
    script = (
        f"import sys\nlog = open({str(log)!r}, 'a')\nfor line in sys.stdin:\n"
        "    log.write(line); log.flush()\n"
        "    print('= C3' if 'genmove' in line else '='); print(); sys.stdout.flush()\n"
    )
    game = envs.make_game("go", size=5)
    sent = []
    for seed in (7, 7, 8, None):
        log.write_text("")
        bot = agents.make("gtp", command=_fake_engine(script), seed=seed)
        try:
            for _ in range(2):
                bot.reset()
                bot.act(game, game.initial_state())
        finally:
            bot.close()
        sent.append([line.split()[1] for line in log.read_text().splitlines() if line.startswith("set_random_seed")])
    assert len(sent[0]) == 2 and sent[0][0] != sent[0][1]
    assert sent[0] == sent[1] and sent[2] != sent[0]
    assert sent[3] == []  # unseeded: the engine's own stream (GNU Go's --seed) is left alone


def test_engine_that_dies_raises_a_clean_error():
    bot = agents.make("gtp", command=_fake_engine("import sys; sys.stderr.write('boom'); sys.exit(3)"))
    game = envs.make_game("go", size=5)
    with pytest.raises(GTPEngineError, match=r"died .*exit code 3.*boom"):
        bot.act(game, game.initial_state())


def test_engine_answering_garbage_raises_a_clean_error():
    script = "import sys\nfor line in sys.stdin:\n    print('hello there'); print(); sys.stdout.flush()\n"
    bot = agents.make("gtp", command=_fake_engine(script))
    game = envs.make_game("go", size=5)
    with pytest.raises(GTPEngineError, match="expected a response starting with"):
        bot.act(game, game.initial_state())


def test_engine_answering_an_illegal_move_raises_a_clean_error():
    script = "import sys\nfor line in sys.stdin:\n    print('= Z99' if 'genmove' in line else '='); print(); sys.stdout.flush()\n"
    bot = agents.make("gtp", command=_fake_engine(script))
    game = envs.make_game("go", size=5)
    with pytest.raises(GTPEngineError, match="'z99', not a legal go move"):
        bot.act(game, game.initial_state())


def test_engine_resignation_is_a_result_not_a_forfeit():
    from tournaments.referee.play import play_game

    script = "import sys\nfor line in sys.stdin:\n    print('= resign' if 'genmove' in line else '='); print(); sys.stdout.flush()\n"
    bot = agents.make("gtp", command=_fake_engine(script))
    game = envs.make_game("go", size=5)
    try:
        outcome = play_game(game, [agents.make("random", seed=0), bot])
    finally:
        bot.close()
    assert outcome.reason == "resign" and "resigned as white" in outcome.detail
    assert list(outcome.returns) == [1.0, -1.0]


def test_engine_that_hangs_times_out():
    script = (
        "import sys, time\nfor line in sys.stdin:\n    if 'genmove' in line: time.sleep(60)\n"
        "    print('='); print(); sys.stdout.flush()\n"
    )
    bot = agents.make("gtp", command=_fake_engine(script), move_time=0.5)
    game = envs.make_game("go", size=5)
    with pytest.raises(GTPTimeout, match="within 0.5 s"):
        bot.act(game, game.initial_state())
    bot.close()


def test_bad_client_options():
    with pytest.raises(agents.AgentError, match="command="):
        agents.make("gtp")
    with pytest.raises(agents.AgentError, match="does not apply to calculation"):
        patience = envs.make_game("calculation")
        agents.make("gtp", command=["true"]).act(patience, patience.initial_state(seed=0))


def test_spec_strings_build_the_client():
    bot = agents.make("gtp:command=['/usr/games/gnugo','--mode','gtp'],move_time=2.5")
    assert bot.command == ["/usr/games/gnugo", "--mode", "gtp"] and bot.move_time == 2.5
    bot = agents.make("gtp:command=gnugo --mode gtp --level 1")
    assert bot.command == ["gnugo", "--mode", "gtp", "--level", "1"]
