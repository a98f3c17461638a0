"""The Gomocup protocol both ways, with real processes: our ``gomocup`` agent playing ``arbiter
pbrain`` through the referee, ``arbiter pbrain`` driven by a second process as a manager drives
it, and brains that refuse, hang, crash or answer nonsense ending in forfeits and clear errors."""

import io
import os
import re
import shutil
import subprocess
import sys
import time

import pytest
from said import said

import agents
import envs
from agents.gomocup import GomocupError, GomocupRefused, GomocupTimeout, serve
from agents.gomocup.protocol import WireError, exact_five_of, point, read_point
from tournaments.referee.play import play_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PBRAIN = [sys.executable, "-m", "tournaments.cli", "pbrain"]  # what `arbiter pbrain` runs
PENTAZEN = shutil.which("pbrain-pentazen")  # an open-source brain built from its source (docs/tournaments.md)
C_GOMOKU_CLI = shutil.which("c-gomoku-cli")  # an open-source Gomocup manager
MCTS = "mcts:simulations=100"

# A scripted brain: it keeps the board from TURN/BOARD and answers its first empty point, unless
# its MODE says to misbehave at its first move; every line it reads goes to LOG when one is set.
FAKE_BRAIN = """
import sys, time
MODE, LOG, START = {mode!r}, {log!r}, {start!r}
n, stones = 15, set()
def move():
    if MODE == "hang": print("MESSAGE thinking"); print("depth 3 no move yet"); sys.stdout.flush(); time.sleep(60)
    if MODE == "crash": sys.stderr.write("segfault in search"); sys.exit(139)
    if MODE == "garbage": return "seven,seven"
    if MODE == "offboard": return f"{{n}},0"
    if MODE == "occupied" and stones: return "%d,%d" % min(stones)
    x, y = next((x, y) for y in range(n) for x in range(n) if (x, y) not in stones)
    stones.add((x, y))
    return f"{{x}},{{y}}"
log = open(LOG, "a") if LOG else None
board = False
for line in sys.stdin:
    line = line.strip()
    if log: log.write(line + "\\n"); log.flush()
    word = line.split(" ")[0].upper()
    if board and word != "DONE":
        x, y, _ = map(int, line.split(",")); stones.add((x, y)); continue
    if word == "START":
        n = int(line.split()[1]); stones = set()
        print(START if int(line.split()[1]) <= 13 else "ERROR only boards up to 13x13")
    elif word == "RESTART": stones = set(); print("UNKNOWN RESTART" if MODE == "old" else "OK")
    elif word == "INFO" and MODE == "no-exact" and line == "INFO rule 1": print("ERROR rule 1 is not supported")
    elif word == "ABOUT": print('name="fake", version="1.0", author="tests"')
    elif word == "BOARD": board, stones = True, set()
    elif word == "DONE": board = False; print("MESSAGE thinking"); print(move())
    elif word == "TURN":
        x, y = map(int, line.split()[1].split(",")); stones.add((x, y)); print("DEBUG depth 1"); print(move())
    elif word == "BEGIN": print(move())
    elif word == "END": break
    sys.stdout.flush()
"""


def fake(mode="play", log="", start="OK"):
    return [sys.executable, "-c", FAKE_BRAIN.format(mode=mode, log=str(log), start=start)]


def gomoku(size=9, **params):
    return envs.make_game("gomoku", size=size, **params)


# -- our agent against arbiter pbrain, both in real processes -------------------------------------


def test_gomocup_agent_plays_arbiter_pbrain_through_the_referee():
    game = gomoku(9)
    brain = agents.make("gomocup", command=PBRAIN + ["--agent", MCTS, "--seed", "1"], move_time=60)
    try:
        brain.check_ready(game)  # starts it, START 9, INFO rule 0, ABOUT, and ends it
        assert brain._brain is None
        for seats in ([brain, agents.make("mcts", simulations=100, seed=2)], [agents.make("random", seed=3), brain]):
            outcome = play_game(game, seats, clock="60+0.5")
            assert outcome.reason == "normal", outcome.detail  # a five, or a full board
        # from an opening the brain's first message is a BOARD of the moves so far
        outcome = play_game(game, [agents.make("random", seed=4), brain], opening=[40, 41, 31])
        assert outcome.reason == "normal" and outcome.moves[:3] == ("e5", "f5", "e6")
        process = brain._brain._process._proc
    finally:
        brain.close()
    assert process.poll() is not None  # END, and it is gone


def test_client_speaks_begin_turn_board_restart_and_the_rule(tmp_path):
    log = tmp_path / "brain.log"
    game = gomoku(9, exact_five=True)
    brain = agents.make("gomocup", command=fake(log=log), move_time=7)
    try:
        play_game(game, [brain, agents.make("random", seed=0)])
        play_game(game, [agents.make("random", seed=0), brain], opening=[0, 80])
    finally:
        brain.close()
    lines = log.read_text().splitlines()
    assert lines[:4] == ["START 9", "INFO rule 1", "INFO max_memory 0", "INFO game_type 1"]
    assert lines[4:8] == ["INFO timeout_turn 7000", "INFO timeout_match 0", "INFO time_left 2147483647", "BEGIN"]
    assert lines[8:11] == lines[4:7] and lines[11].startswith("TURN ")  # the brain answered 0,0
    # the second game: RESTART, then the opening and Black's move as a BOARD in their order
    # (action 0 is a9, the point 0,0: Black's, the opponent's; 80 is i1, 8,8: the brain's own)
    at = lines.index("RESTART")
    assert lines[at + 4 : at + 6] == ["BOARD", "0,0,2"] and lines[at + 6] == "8,8,1"
    assert lines[at + 7].endswith(",2") and lines[at + 8] == "DONE"
    assert lines[-1] == "END"


def test_a_brain_without_restart_is_started_afresh_for_each_game(tmp_path):
    log = tmp_path / "brain.log"
    brain = agents.make("gomocup", command=fake(mode="old", log=log), move_time=5)
    try:
        for _ in range(2):
            assert not play_game(gomoku(9), [brain, agents.make("random", seed=0)]).forfeit
    finally:
        brain.close()
    lines = log.read_text().splitlines()
    assert lines.count("START 9") == 2 and lines.count("RESTART") == 1 and lines.count("END") == 2


def test_arbiter_pbrain_driven_by_a_second_process_as_a_manager_drives_it():
    commands = [
        "ABOUT",
        "START 9",
        "INFO timeout_turn 300",  # the agent's 30 s per move give way to the turn's 0.3 s
        "INFO timeout_match 0",
        "INFO rule 1",
        "BEGIN",
        "TURN 0,0",
        "TURN 0,0",  # occupied
        "TURN 9,1",  # off the board
        "TURN a,b",
        "TAKEBACK 3,3",
        "BOARD",
        "4,4,2",
        "0,0,1",
        "1,1,2",
        "DONE",
        "INFO rule 4",
        "RECTSTART 9,10",
        "START 25",
        "SWAP2BOARD",
        "RESTART",
        "END",
        "ABOUT",  # never read: END ended the brain
    ]
    start = time.monotonic()
    proc = subprocess.run(
        PBRAIN + ["--agent", "mcts:seconds=30", "--seed", "2"],
        input="\n".join(commands) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0].startswith('name="Arbiter mcts:seconds=30", version="') and 'author="Arbiter"' in out[0]
    assert out[1] == "OK"
    first, second = read_point(out[2], 9), read_point(out[3], 9)
    assert first != second and 0 not in (first, second)
    assert out[4] == "ERROR 0,0 is occupied"
    assert out[5].startswith("ERROR 9,1 is off the 9x9 board")
    assert out[6].startswith("ERROR 'a,b' is not a point")
    assert out[7] == "ERROR TAKEBACK 3,3: only the last move can be taken back"
    assert read_point(out[8], 9) not in (read_point(p, 9) for p in ("4,4", "0,0", "1,1"))
    assert out[9].startswith("ERROR rule 4 (renju) is not supported")
    assert out[10] == "ERROR RECTSTART 9,10: only square boards are played"
    assert out[11].startswith("ERROR size=25")
    assert out[12].startswith("UNKNOWN SWAP2BOARD")
    assert out[13] == "OK" and len(out) == 14
    assert time.monotonic() - start < 60  # three 0.3 s moves, not three 30 s ones


def test_arbiter_pbrain_refuses_bad_arguments_in_one_line():
    for args, error in (
        (["--agent", "nosuchagent"], "unknown agent 'nosuchagent'"),
        (["--agent", "random", "-p", "size=6"], "size=6"),
        (["--agent", "random", "-p", "komi=7"], "komi"),
        (["--agent", "random", "-p", "size"], "-p size: expected key=value"),
    ):
        proc = subprocess.run(PBRAIN + args, input="", capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        lines = said(proc.stderr)
        assert len(lines) == 1 and lines[0].startswith("arbiter pbrain: error: ") and error in lines[0], proc.stderr


@pytest.mark.skipif(PENTAZEN is None, reason="no pbrain-pentazen on PATH (docs/tournaments.md builds one)")
def test_a_match_against_a_real_brain_on_the_referees_clock():
    game = gomoku(15)
    brain = agents.make("gomocup", command=[PENTAZEN])
    try:
        assert brain.check_ready(game) is None
        for seats in ([brain, agents.make("mcts", seed=1)], [agents.make("mcts", seed=2), brain]):
            outcome = play_game(game, seats, clock="5+0.1", opening=[112])
            assert not outcome.forfeit, outcome.detail
            assert outcome.reason in ("normal", "resign")
    finally:
        brain.close()
    with pytest.raises(GomocupRefused, match="unsupported size"):
        agents.make("gomocup", command=[PENTAZEN]).check_ready(gomoku(9))


@pytest.mark.skipif(C_GOMOKU_CLI is None, reason="no c-gomoku-cli on PATH (docs/tournaments.md builds one)")
def test_arbiter_pbrain_under_a_real_manager(tmp_path):
    brains = []
    for name, agent in (("mcts", MCTS), ("random", "random")):
        script = tmp_path / f"pbrain-{name}"  # managers run one executable; it may change directory
        script.write_text(f"#!/bin/sh\ncd {ROOT} && exec {sys.executable} -m tournaments.cli pbrain --agent {agent}\n")
        script.chmod(0o755)
        brains += ["-engine", f"name={name}", f"cmd={script}"]
    proc = subprocess.run(
        [C_GOMOKU_CLI, "-each", "tc=60/5", *brains, "-rule", "1", "-boardsize", "9", "-games", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    finished = [line for line in proc.stdout.splitlines() if "Finished game" in line]
    assert len(finished) == 2, proc.stdout
    assert all("five connection" in line or "draw" in line.lower() for line in finished), finished


# -- the server in process: the protocol's corners --------------------------------------------------


def brain_talk(commands, agent=None, game=None):
    out = io.StringIO()
    serve(game or gomoku(15), agent or agents.make("random", seed=0), io.StringIO("\n".join(commands) + "\n"), out)
    return out.getvalue().splitlines()


def test_server_reads_board_positions_with_either_side_to_move_and_refuses_impossible_ones():
    replies = brain_talk(
        ["START 7", "BOARD", "3,3,2", "DONE", "BOARD", "0,0,1", "1,1,1", "DONE", "BOARD", "0,0,9", "DONE", "BEGIN"]
    )
    assert replies[0] == "OK" and read_point(replies[1], 7) != 24  # White's answer, off the stone at d4
    assert replies[2].startswith("ERROR BOARD: 2 own and 0 opponent stones")
    assert replies[3].startswith("ERROR BOARD line '0,0,9': field 9")
    assert replies[4] == "ERROR BEGIN on a board with stones: send BOARD for a position"


def test_server_refuses_a_move_after_the_game_is_won_and_keeps_the_position():
    # Black (the manager) has four in a row; the brain's answer is taken back, and PLAY has it
    # play elsewhere instead
    commands = ["START 7", "BOARD", "0,0,2", "6,6,1", "1,0,2", "6,5,1", "2,0,2", "6,4,1", "3,0,2", "DONE"]
    answer = brain_talk(commands)[1]
    replies = brain_talk(
        commands
        + [f"TAKEBACK {answer}", "PLAY 5,5", "TURN 4,0", "TURN 5,0", "TAKEBACK 5,5", "TAKEBACK 4,0", "TURN 5,0"]
    )
    assert replies[:4] == ["OK", answer, "OK", "5,5"]  # the same answer; taken back; PLAY echoed
    assert replies[4] == "ERROR the game is over after 4,0: no move to make"  # Black's five stands
    assert replies[5] == "ERROR 5,0: the game is over"
    assert replies[6] == "ERROR TAKEBACK 5,5: only the last move can be taken back"
    assert replies[7] == "OK"  # the five taken back: the game goes on
    assert read_point(replies[8], 7) not in [read_point(f"{x},0", 7) for x in range(6)] + [36, 41, 34, 27]


def test_server_answers_a_line_too_long_and_goes_on():
    replies = brain_talk(["START 9", "TURN " + "1" * 20000, "TURN 4,4"])
    assert replies[0] == "OK" and replies[1].startswith("ERROR a line longer than")
    assert read_point(replies[2], 9) != 40


def test_points_and_rules():
    assert point(0, 15) == "0,0" and read_point("14,0", 15) == 14 and read_point(" 0 , 14 ", 15) == 210
    assert envs.make_game("gomoku").action_to_str(envs.make_game("gomoku").initial_state(), 0) == "a15"
    with pytest.raises(WireError, match="off the 15x15 board"):
        read_point("15,0", 15)
    with pytest.raises(WireError, match="not a point"):
        read_point("1;2", 15)
    assert exact_five_of(0) is False and exact_five_of(1) is True and exact_five_of(3) is True
    with pytest.raises(WireError, match="renju"):
        exact_five_of(4)


# -- brains that fail: forfeits and clear errors, never a hang -----------------------------------


def test_a_brain_refusing_the_board_or_the_rule_is_one_clear_error_before_the_game():
    with pytest.raises(GomocupRefused, match="only boards up to 13x13.*15x15"):
        agents.make("gomocup", command=fake()).check_ready(gomoku(15))
    with pytest.raises(GomocupRefused, match="rule 1 is not supported"):
        agents.make("gomocup", command=fake(mode="no-exact")).check_ready(gomoku(9, exact_five=True))
    agents.make("gomocup", command=fake(mode="no-exact")).check_ready(gomoku(9))  # freestyle: fine
    with pytest.raises(agents.AgentError, match="does not apply to go"):
        agents.make("gomocup", command=fake()).check_ready(envs.make_game("go", size=9))
    with pytest.raises(GomocupError, match="cannot start Gomocup brain"):
        agents.make("gomocup", command=["/nonexistent/pbrain"]).check_ready(gomoku(9))
    with pytest.raises(GomocupError, match="expected OK"):
        agents.make("gomocup", command=fake(start="HELLO")).check_ready(gomoku(9))
    with pytest.raises(agents.AgentError, match="command="):
        agents.make("gomocup")


@pytest.mark.parametrize(
    "mode, reason, detail",
    [
        ("crash", "forfeit-crash", r"died .*exit code 139.*segfault in search"),
        ("garbage", "forfeit-crash", r"'seven,seven' is not a point"),
        ("offboard", "forfeit-crash", r"9,0 is off the 9x9 board"),
        ("occupied", "forfeit-crash", r"answered TURN 0,0 with '0,0', a9: that point is occupied"),
    ],
)
def test_a_failing_brain_forfeits_its_game(mode, reason, detail):
    game = gomoku(9)
    good, brain = (agents.make("gomocup", command=fake(mode=m), move_time=5) for m in ("play", mode))
    try:
        outcome = play_game(game, [good, brain])
    finally:
        good.close()
        brain.close()
    assert outcome.reason == reason and outcome.loser == 1, outcome.detail
    assert GomocupError.__name__ in outcome.detail
    assert re.search(detail, outcome.detail), outcome.detail


def test_a_hanging_brain_loses_on_time_and_is_ended():
    game = gomoku(9)
    brain = agents.make("gomocup", command=fake(mode="hang"))
    start = time.monotonic()
    try:
        outcome = play_game(game, [brain, agents.make("random", seed=0)], clock="1+0")
        process = brain._brain._process._proc
        assert process.poll() is not None  # the silent brain was ended when its time was up
    finally:
        brain.close()
    assert outcome.reason == "forfeit-timeout" and outcome.loser == 0
    assert GomocupTimeout.__name__ in outcome.detail and "gave no answer to 'BEGIN'" in outcome.detail
    assert "its last notes: MESSAGE thinking | depth 3 no move yet" in outcome.detail
    assert time.monotonic() - start < 15
