"""The third round of careless and hostile input: files that are no files (a device, a FIFO),
files and records too big to read, openings longer than the game, a full disk under the journal,
agent options the game refuses, spec and clock values that only looked like numbers, poisoned
weights and journals, and the Python API's judge, CSV and scoring. Each is one line naming the bad
value, before any game where it is an option (``refused`` from the first round's tests)."""

import csv
import io
import json
import math
import os
import resource
import shutil
import sqlite3
import subprocess
import sys

import pytest
from said import said
from test_hostile_input import TOURNAMENT, no_games, refused  # noqa: F401 (no_games: a fixture used by name)

import agents
import envs
import tournaments
from agents.base import Agent
from agents.clock import TimeControl
from tournaments import cli
from tournaments.referee.progress import Progress

OTHELLO6 = ["tournament", "--game", "othello", "-p", "size=6", "--system", "round_robin", "--workers", "0"]


# -- opening suites and SGF records: bounded reads --------------------------------------------------
@pytest.mark.usefixtures("no_games")
def test_openings_from_a_device_or_a_fifo_are_refused_before_reading(capsys, tmp_path):
    fifo = tmp_path / "suite.txt"
    os.mkfifo(fifo)  # nobody writes to it: reading it would wait for ever
    refused(capsys, [*TOURNAMENT, "--openings", "/dev/zero"], "/dev/zero", "not a regular file")
    refused(capsys, [*TOURNAMENT, "--openings", str(fifo)], str(fifo), "not a regular file")


@pytest.mark.usefixtures("no_games")
def test_an_openings_file_past_the_size_limit_is_refused_unread(capsys, tmp_path):
    from tournaments.referee.openings import MAX_SUITE_BYTES

    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as f:
        f.truncate(MAX_SUITE_BYTES + 1)  # sparse: no disk, and reading it would take its size in memory
    refused(capsys, [*TOURNAMENT, "--openings", str(huge)], str(huge), f"limit of {MAX_SUITE_BYTES}")


@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize("suffix, record", [(".txt", b"d4\n"), (".sgf", b"(;GM[4]SZ[7];B[dd])\n")])
def test_a_suite_of_too_many_openings_is_refused_before_they_are_checked(capsys, tmp_path, suffix, record):
    from tournaments.referee.openings import MAX_OPENINGS

    path = tmp_path / f"many{suffix}"
    path.write_bytes(record * (MAX_OPENINGS + 1))
    refused(capsys, [*TOURNAMENT, "--openings", str(path)], str(path), f"{MAX_OPENINGS + 1} openings")


@pytest.mark.usefixtures("no_games")
def test_an_sgf_record_past_the_size_limit_is_refused_before_sgfmill_parses_it(capsys, tmp_path):
    """A 20 MB comment took sgfmill 2.6 GB; a record past ``envs.sgf.MAX_BYTES`` is never parsed,
    so checking it costs about its own size in memory."""
    path = tmp_path / "comment.sgf"
    path.write_bytes(b"(;GM[4]SZ[7]C[" + b"x" * (3 << 20) + b"];B[dd])")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    refused(capsys, [*TOURNAMENT, "--openings", str(path)], str(path), f"more than the {envs.sgf.MAX_BYTES}")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB: under 100 MB more


def test_gtp_loadsgf_of_a_record_past_the_size_limit_is_refused_unparsed(tmp_path):
    from test_gtp_server import talk

    path = tmp_path / "long.sgf"
    path.write_bytes(b"(;GM[1]SZ[7]C[" + b"x" * (3 << 20) + b"];B[dd])")
    replies = talk(agents.make("random", seed=0), [f"loadsgf {path}", "showboard"])
    assert replies[0][0] is False and f"more than the {envs.sgf.MAX_BYTES}" in replies[0][1]
    assert replies[1][1].splitlines()[-1].startswith("to_move=x ply=0")  # the position as it was


def test_an_openings_file_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffd4 c3\n# a comment\ne5\n".encode())
    suite = tournaments.openings.load(str(path), envs.make_game("gomoku", size=7))
    assert len(suite) == 2 and suite.lines == (1, 3)


# -- random openings longer than the game lasts ------------------------------------------------------
@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    "command, plies",
    [(TOURNAMENT, "60"), (["tournament", *OTHELLO6[1:], "--agents", "random", "greedy"], "40")],
)
def test_random_openings_longer_than_the_game_are_an_error_not_a_loop(capsys, command, plies):
    refused(capsys, [*command, "--opening-plies", plies], f"opening plies {plies}", "ask for fewer plies")


# -- a full disk under the journal --------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (root and mount permitted), unmounted afterwards."""
    where = tmp_path / "disk"
    where.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def _fill(directory) -> None:
    """Take every free byte of the file system of ``directory``."""
    with open(os.path.join(directory, "filler"), "wb", buffering=0) as f:
        for size in (1 << 16, 4096, 512, 1):
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError:
                pass


def test_a_full_disk_under_the_journal_is_one_line_and_the_resume_hint(capsys, small_disk):
    path = small_disk / "run.db"
    argv = [*TOURNAMENT, "--journal", str(path), "--seed", "3"]
    assert cli.main(argv) == 0
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM games WHERE idx = (SELECT MAX(idx) FROM games)")  # as if stopped before it
    db.close()
    capsys.readouterr()
    _fill(small_disk)
    assert cli.main([*argv, "--resume"]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    error = next(line for line in lines if line.startswith("arbiter tournament: error: "))
    assert str(path) in error and "full" in error and "Traceback" not in err
    assert f"the journal {path} holds 1 finished game. Resume with:" in err
    assert lines[-1].strip().endswith("--resume")
    db = sqlite3.connect(path)
    assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1  # nothing finished lost
    db.close()


# -- agent options the game refuses: before the first game -----------------------------------------------
@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    "spec, named",
    [
        ("mcts:progress_reward=0.5", "progress_reward=0.5"),
        ("mcts:filter_moves=on", "filter_moves=True"),
        ("alphabeta:weights=[1,2]", "weights=[1.0, 2.0]"),
    ],
)
def test_an_option_the_game_refuses_is_refused_before_the_first_game(capsys, spec, named):
    refused(capsys, [*OTHELLO6, "--agents", "random", spec], named, "othello")


@pytest.mark.usefixtures("no_games")
def test_rave_on_the_patience_is_refused_before_the_game(capsys):
    refused(capsys, ["play", "--game", "calculation", "--black", "mcts:rave=100"], "rave=100.0", "calculation")


@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    "spec, named",
    [
        ("alphabeta:weights=[[1]]", "weights=[[1]]"),
        ("alphabeta:weights=abc", "weights='abc'"),
        ("greedy:weights=[nan,1,1,1,1,1]", "weights="),
        ("alphabeta:weights=[1e400,1,1,1,1,1]", "weights=[inf, 1, 1, 1, 1, 1]"),
        ("greedy:weights=[1e300,1,1,1,1,1]", "weights=[1e+300"),
        ("random:seed=-1", "seed=-1"),
        ("mcts:seconds=1e300", "seconds=1e+300"),
        ("alphabeta:time=1e300", "time=1e+300"),
    ],
)
def test_spec_values_that_are_no_usable_number(capsys, spec, named):
    refused(capsys, [*OTHELLO6, "--agents", "random", spec], named)


@pytest.mark.parametrize(
    "game, spec, named",
    [("go", "random:seed=-1", "seed=-1"), ("othello", "mcts:progress_reward=0.5", "progress_reward=0.5")],
)
def test_gtp_refuses_a_spec_before_the_first_command(capsys, game, spec, named):
    from agents import gtp

    assert gtp.main(["--game", game, "--agent", spec]) == 2
    err = capsys.readouterr().err
    lines = said(err)
    assert len(lines) == 1 and lines[0].startswith(f"arbiter gtp: error: {named}"), err


# -- clock values -----------------------------------------------------------------------------------------
@pytest.mark.usefixtures("no_games")
@pytest.mark.parametrize(
    "option, value, named",
    [
        pytest.param("--byoyomi", "9" * 5000 + "/1", "--byoyomi '999", id="--byoyomi-of-5000-digits"),
        ("--tc", "1e300", "--tc 1e300"),
        ("--tc", "1_0", "--tc 1_0"),
        ("--tc", "١٠", "--tc ١٠"),  # Arabic-Indic digits: float() reads them, no clock syntax does
        ("--byoyomi", "٥/10", "--byoyomi ٥/10"),
        ("--move-time", "1_0", "--move-time 1_0"),
        ("--setup-time", "1e300", "--setup-time 1e300"),
    ],
)
def test_clock_values_past_a_day_or_in_another_syntax(capsys, option, value, named):
    refused(capsys, [*TOURNAMENT, option, value], named)


@pytest.mark.usefixtures("no_games")
def test_a_move_time_that_this_process_could_not_enforce_is_refused(capsys):
    refused(capsys, [*TOURNAMENT, "--move-time", "1"], "--move-time 1 with --workers 0")


def test_time_controls_through_the_api_are_bounded_too():
    with pytest.raises(envs.ParameterError, match="base=1e"):
        TimeControl(base=1e300)
    with pytest.raises(envs.ParameterError, match="periods"):
        TimeControl(base=1.0, periods=10**6, period=1.0)


# -- weights full of NaN -----------------------------------------------------------------------------------
def test_alphazero_weights_holding_nan_are_refused_at_load(tmp_path):
    torch = pytest.importorskip("torch", reason='needs the learn extra: pip install "arbiter-games[learn]"')
    from agents.learned import weights as W
    from agents.learned.weights import WEIGHTS_DIR

    shipped = WEIGHTS_DIR / "alphazero_othello.pt"
    tensors, meta = W.load(shipped, kind="alphazero")
    poisoned = {k: torch.full_like(v, math.nan) if v.is_floating_point() else v for k, v in tensors.items()}
    path = W.save(tmp_path / "nan.pt", poisoned, {k: v for k, v in meta.items() if k not in ("sha256", "format")})
    with pytest.raises(W.WeightsError, match="NaN or infinite"):
        W.load(path, kind="alphazero")


# -- arbiter ratings -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    path = tmp_path_factory.mktemp("rated") / "run.db"
    assert cli.main([*TOURNAMENT, "--journal", str(path), "--seed", "5"]) == 0
    return path


@pytest.fixture
def rated_copy(rated, tmp_path):
    copy = tmp_path / "run.db"
    copy.write_bytes(rated.read_bytes())
    return copy


def test_ratings_of_a_record_nested_too_deep(capsys, rated_copy):
    db = sqlite3.connect(rated_copy)
    with db:
        db.execute("UPDATE games SET record = ? WHERE idx = 1", ("[" * 100_000 + "]" * 100_000,))
    db.close()
    refused(capsys, ["ratings", str(rated_copy)], str(rated_copy), "game row 1 is not a JSON record")


def test_ratings_of_a_journal_of_an_unknown_game(capsys, rated_copy):
    db = sqlite3.connect(rated_copy)
    config = json.loads(db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    with db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps({**config, "game": "chess"}),))
    db.close()
    refused(capsys, ["ratings", str(rated_copy)], "game 'chess'", "not a registered game")


@pytest.mark.parametrize(
    "anchor, named",
    [("greedy=1e308", "greedy=1e+308"), ("greedy=-20000", "greedy=-20000"), ("greedy=1_0", "greedy=1_0")],
)
def test_ratings_with_an_anchor_past_any_scale(capsys, rated, anchor, named):
    refused(capsys, ["ratings", str(rated), "--anchor", anchor], f"--anchor {named}")


def test_ratings_with_every_agent_anchored_show_no_nan(capsys, rated):
    assert cli.main(["ratings", str(rated), "--anchor", "random=0", "--anchor", "greedy=0"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out.lower() and "50%" in out


def test_ratings_of_an_empty_file(capsys, tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    line = refused(capsys, ["ratings", str(empty)], str(empty), "empty file")
    assert "no such" not in line


# -- the Python API ---------------------------------------------------------------------------------------
class FailingJudge(Agent):
    """A judge that scores the start, then raises from ply 4 on."""

    name = "failing-judge"

    def _act(self, game, state):
        if int(state[envs.core.kernel.H_PLY]) >= 4:
            raise RuntimeError("the judge broke")
        self.last_stats = {"score": 0, "seconds": 0.0, "nodes": 1}
        return int(game.legal_actions(state)[0])


def test_a_judge_that_raises_mid_game_neither_forfeits_a_player_nor_ends_the_tournament():
    result = tournaments.round_robin(
        ["random", "greedy"],
        game="gomoku",
        size=7,
        workers=0,
        progress=False,
        adjudicate="resign:movecount=3,score=150",
        adjudicator=FailingJudge(),
    )
    assert len(result.games) == 2
    for record in result.games:
        assert record["reason"] == "normal" and "the judge failed at ply 4" in record["detail"]


class Formula(Agent):
    """An agent object whose name a spreadsheet would run as a formula."""

    name = '=HYPERLINK("http://example.invalid","x")'

    def _act(self, game, state):
        return int(game.legal_actions(state)[-1])


def test_agent_names_that_look_like_formulas_are_written_to_csv_as_text(tmp_path):
    result = tournaments.round_robin([Formula(seed=0), "random"], game="gomoku", size=7, workers=0, progress=False)
    result.to_csv(tmp_path / "games.csv")
    with open(tmp_path / "games.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert {row["black"] for row in rows} == {"'" + Formula.name, "random"}
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows for cell in row.values())


# -- small things -----------------------------------------------------------------------------------------
def test_counts_of_one_are_singular(capsys):
    out = io.StringIO()
    Progress(True, total=1, out=out, every=1e9).close()
    assert out.getvalue().startswith("playing 1 game;")
    with pytest.raises(envs.ParameterError, match=r"^1 agent: a tournament needs at least 2"):
        tournaments.round_robin(["random"], game="gomoku", size=7, workers=0, progress=False)


def test_match_takes_one_letter_options_with_one_dash(capsys):
    argv = ["match", "--game", "gomoku", "-p", "size=7", "--games", "2"]
    assert cli.main([*argv, "-a", "greedy", "-b", "random"]) == 0
    assert "greedy vs random on gomoku" in capsys.readouterr().out
    assert cli.main([*argv, "--a", "greedy", "--b", "random"]) == 0  # the old spelling still works


def test_end_of_input_at_the_prompt_abandons_the_game_without_a_result(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # input() at its end: EOFError
    save = tmp_path / "game.sgf"
    argv = ["play", "--game", "gomoku", "-p", "size=7", "--white", "mcts:simulations=20", "--save", str(save)]
    assert cli.main(argv) == 1
    out = capsys.readouterr().out
    assert "Black: human, White: mcts:simulations=20" in out  # the header names the options too
    assert "abandoned" in out and "Result" not in out and "resign" not in out
    assert not save.exists()


def test_a_resume_refused_for_other_openings_says_it_in_words(capsys, tmp_path):
    path = tmp_path / "run.db"
    argv = [*TOURNAMENT, "--journal", str(path), "--seed", "3"]
    assert cli.main([*argv, "--opening-plies", "2"]) == 0
    capsys.readouterr()
    line = refused(capsys, [*argv, "--resume"], "openings: the journal's random, 2 plies, now none")
    assert "{" not in line
    line = refused(capsys, [*argv, "--opening-plies", "2"], "--journal", "add --resume")
    assert "resume=True" not in line


def test_one_install_hint_form_everywhere():
    """Every hint in code (an error message, a skipped test's reason) says ``pip install
    "arbiter-games[EXTRA]"``; an editable install is for working on a clone, never a hint."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    offenders = []
    for folder in ("agents", "envs", "tournaments", "tests", "examples"):
        for base, _, files in os.walk(os.path.join(root, folder)):
            for name in files:
                if name.endswith(".py") and name != os.path.basename(__file__):
                    with open(os.path.join(base, name), encoding="utf-8") as f:
                        if 'pip install -e ".[' in f.read():
                            offenders.append(os.path.relpath(os.path.join(base, name), root))
    assert offenders == []


# -- a teacher for AlphaZero's warm start: checked before any start-up work ------------------------------
def _training_script(monkeypatch):
    """``examples/train_alphazero.py`` as a module, with PyTorch made unimportable: what it
    refuses, it refuses before PyTorch is even imported."""
    import importlib.util

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    monkeypatch.chdir(root)
    monkeypatch.setitem(sys.modules, "torch", None)
    script = importlib.util.spec_from_file_location(
        "train_alphazero", os.path.join(root, "examples/train_alphazero.py")
    )
    module = importlib.util.module_from_spec(script)
    script.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "spec, named",
    [
        ("gtp:command=/bin/false", "died"),
        ("ppo:path=agents/learned/weights/ppo_othello6.pt", "cannot play"),
        ("alphabeta:weights=abc", "weights='abc'"),
        ("random:seed=-1", "seed=-1"),
    ],
)
def test_a_teacher_that_cannot_teach_is_refused_before_start_up(capsys, monkeypatch, spec, named):
    module = _training_script(monkeypatch)
    with pytest.raises(SystemExit) as e:
        module.main(["--game", "gomoku", "--sizes", "7", "--teacher", spec, "--teacher-games", "2"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    assert f": error: --teacher {spec}: " in err.splitlines()[-1]  # argparse's line, after its usage
    assert named in err.splitlines()[-1]


@pytest.mark.parametrize(
    "extra, named",
    [
        (["--teacher-value", "0.5"], "--teacher-value 0.5: expected a weight in [0, 1], with --teacher"),
        (["--teacher", "alphabeta:depth=1", "--teacher-games", "2", "--teacher-value", "2"], "--teacher-value 2.0"),
        (["--teacher", "greedy", "--teacher-games", "2", "--teacher-value", "0.5"], "reports no search score"),
        (["--teacher", "greedy", "--teacher-games", "2", "--teacher-workers", "0"], "--teacher-workers 0"),
    ],
)
def test_value_targets_and_teacher_workers_are_checked_before_start_up(capsys, monkeypatch, extra, named):
    module = _training_script(monkeypatch)
    with pytest.raises(SystemExit) as e:
        module.main(["--game", "othello", "--sizes", "6", *extra])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err and named in err.splitlines()[-1]


def test_the_ppo_progress_rate_leaves_the_first_compile_out(monkeypatch, capsys):
    """``train_ppo.py``'s first line counted 31 s of compiling in its rate (12 env-steps/s)."""
    import types

    pytest.importorskip("stable_baselines3", reason='needs the learn extra: pip install "arbiter-games[learn]"')
    from agents.learned import ppo_training
    from envs.core import compiling

    clock = {"now": 100.0}
    monkeypatch.setattr(ppo_training.time, "perf_counter", lambda: clock["now"])
    monkeypatch.setitem(compiling._state, "seconds", 5.0)
    progress = ppo_training._callbacks()[0](every=512, two_players=False)
    progress.model = types.SimpleNamespace(ep_info_buffer=[])
    progress.num_timesteps = 0
    progress._on_training_start()
    clock["now"] += 43.0  # 43 s, 31 of them compiling: 512 steps in 12 s of training
    compiling._state["seconds"] += 31.0
    progress.num_timesteps = 512
    progress._on_step()
    assert capsys.readouterr().out == "512 steps, 43 s (31 s of it compiling), 43 env-steps/s\n"


def test_gtp_plays_lines_of_action_by_default(monkeypatch, capsys):
    from agents import gtp

    monkeypatch.setattr(sys, "stdin", io.StringIO("showboard\nquit\n"))
    assert gtp.main(["--agent", "random"]) == 0
    board = capsys.readouterr().out
    assert "8 . x x x x x x ." in board and "7 o . . . . . . o" in board  # LOA's start on 8x8
