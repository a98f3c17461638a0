"""Careless and hostile input to the ``arbiter`` command line, one test per attack: every bad
value is refused with exit status 2 and one line on stderr that names it, before any game is
played (no standings, no progress line, ``play_game`` never called), never with a traceback."""

import json
import os
import sqlite3
import sys

import pytest
from said import said

import agents
import envs
import tournaments
from agents.learned.weights import WEIGHTS_DIR
from tournaments import cli

SMALL = ["--game", "gomoku", "-p", "size=7", "--system", "round_robin", "--workers", "0"]
TOURNAMENT = ["tournament", *SMALL, "--agents", "random", "greedy"]
UNWRITABLE = "/sys/arbiter-test"  # sysfs refuses new files, even to root


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if any game starts (in this process: ``--workers 0`` and ``arbiter play``)."""

    def refuse(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(tournaments.referee.play, "play_game", refuse)
    monkeypatch.setattr(cli.play_command, "play_game", refuse)  # arbiter play's module


def refused(capsys, argv, *named) -> str:
    """Run ``arbiter argv``; assert exit 2, one stderr line naming every one of ``named``, no stdout."""
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    out, err = capsys.readouterr()
    lines = said(err)
    assert e.value.code == 2, err
    assert len(lines) == 1 and lines[0].startswith(f"arbiter {argv[0]}: error: "), err
    assert "Traceback" not in err and out == ""
    for text in named:
        assert text in lines[0], lines[0]
    return lines[0]


needs_sysfs = pytest.mark.skipif(not os.path.isdir("/sys/kernel"), reason="needs Linux's /sys")


# -- option values ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        TOURNAMENT,
        ["play", *SMALL[:4], "--black", "random"],
        ["match", *SMALL[:4], "--a", "random", "--b", "random"],
        ["study", "--championships", "2"],
    ],
)
def test_negative_seed(capsys, no_games, command):
    refused(capsys, [*command, "--seed", "-1"], "--seed -1")


def test_negative_workers(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "--workers", "-1"], "--workers -1")


@pytest.mark.parametrize(
    "option, value",
    [
        ("--move-time", "-1"),
        ("--move-time", "nan"),
        ("--setup-time", "0"),
        ("--setup-time", "inf"),
        ("--k", "0"),
        ("--rounds", "0"),
    ],
)
def test_bad_clock_and_system_values(capsys, no_games, option, value):
    refused(capsys, [*TOURNAMENT, option, value], f"{option} {value}")


def test_game_parameter_without_a_value(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "-p", "size"], "-p size")


def test_resume_without_a_journal(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "--resume"], "--resume")


def test_address_without_ray(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "--address", "auto"], "--address auto")


def test_match_of_an_odd_number_of_games(capsys, no_games):
    refused(capsys, ["match", *SMALL[:4], "--a", "random", "--b", "random", "--games", "3"], "games=3")


def test_sprt_with_an_impossible_error_rate(capsys, no_games):
    refused(
        capsys, ["match", *SMALL[:4], "--a", "random", "--b", "random", "--sprt", "0", "10", "0", "0.05"], "alpha=0.0"
    )


def test_unknown_agent(capsys, no_games):
    refused(capsys, ["tournament", *SMALL, "--agents", "random", "randm"], "'randm'")


# -- agents that cannot play the game here ---------------------------------------------------------
OTHELLO_NET = f"alphazero:path={WEIGHTS_DIR / 'alphazero_othello.pt'}"  # weights of another game


@pytest.mark.parametrize(
    "command",
    [
        ["tournament", "--game", "go", "--workers", "0", "--agents", "random", OTHELLO_NET],
        ["match", "--game", "go", "--a", OTHELLO_NET, "--b", "random"],
        ["play", "--game", "go", "--black", OTHELLO_NET, "--white", "random"],
    ],
)
def test_an_agent_without_weights_for_the_game(capsys, no_games, command):
    refused(capsys, command, "alphazero", "trained for 'othello', not go")


def test_an_agent_for_another_kind_of_game(capsys, no_games):
    # the shipped PPO policies are each for one board; none is for Gomoku on 7x7
    refused(capsys, ["tournament", *SMALL, "--agents", "random", "ppo"], "ppo", "gomoku")


def test_learned_agent_without_torch(capsys, no_games, monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)  # as if the learn extra were not installed
    refused(
        capsys,
        ["tournament", "--game", "othello", "--workers", "0", "--agents", "random", "alphazero"],
        "PyTorch",
        "arbiter-games[learn]",
    )


def test_ray_executor_without_ray(capsys, no_games, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    refused(capsys, [*TOURNAMENT, "--executor", "ray"], "--executor ray")


def test_study_plots_without_matplotlib(capsys, no_games, monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    refused(
        capsys, ["study", "--out", str(tmp_path / "out"), "--plot", str(tmp_path / "plots")], "--plot", "matplotlib"
    )


# -- output paths: refused before the first game ---------------------------------------------------
@needs_sysfs
def test_journal_in_an_unwritable_place(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "--journal", f"{UNWRITABLE}.db"], f"--journal {UNWRITABLE}.db")


def test_journal_that_is_a_directory(capsys, no_games, tmp_path):
    refused(capsys, [*TOURNAMENT, "--journal", str(tmp_path)], str(tmp_path), "directory")


@needs_sysfs
@pytest.mark.parametrize("option", ["--jsonl", "--csv"])
def test_records_file_in_an_unwritable_place(capsys, no_games, option):
    refused(capsys, [*TOURNAMENT, option, UNWRITABLE], f"{option} {UNWRITABLE}")


@pytest.mark.parametrize("option", ["--jsonl", "--csv"])
def test_records_file_that_is_a_directory(capsys, no_games, option, tmp_path):
    refused(capsys, [*TOURNAMENT, option, str(tmp_path)], f"{option} {tmp_path}", "directory")


def test_records_file_in_a_missing_directory(capsys, no_games, tmp_path):
    path = tmp_path / "nowhere" / "games.jsonl"
    refused(capsys, [*TOURNAMENT, "--jsonl", str(path)], f"--jsonl {path}", "does not exist")


def test_sgf_directory_that_is_a_file(capsys, no_games, tmp_path):
    file = tmp_path / "passwd"
    file.write_text("root:x:0:0\n")
    refused(capsys, [*TOURNAMENT, "--sgf", str(file)], f"--sgf {file}", "is a file")
    assert file.read_text() == "root:x:0:0\n"


@needs_sysfs
def test_sgf_directory_in_an_unwritable_place(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "--sgf", UNWRITABLE], f"--sgf {UNWRITABLE}")


def test_sgf_for_a_game_without_sgf(capsys, no_games, tmp_path):
    refused(
        capsys,
        ["play", "--game", "calculation", "--black", "random", "--save", str(tmp_path / "x.sgf")],
        "--save",
        "calculation",
    )


@needs_sysfs
def test_play_save_in_an_unwritable_place(capsys, no_games):
    refused(
        capsys, ["play", *SMALL[:4], "--black", "random", "--save", f"{UNWRITABLE}.sgf"], f"--save {UNWRITABLE}.sgf"
    )


def test_play_save_to_a_directory(capsys, no_games, tmp_path):
    refused(capsys, ["play", *SMALL[:4], "--black", "random", "--save", str(tmp_path)], f"--save {tmp_path}")


def test_study_output_that_is_a_file(capsys, no_games, tmp_path):
    file = tmp_path / "out"
    file.write_text("")
    refused(capsys, ["study", "--out", str(file), "--championships", "2"], f"--out {file}", "is a file")


def test_study_from_a_missing_csv(capsys, tmp_path):
    refused(
        capsys,
        ["study", "--out", str(tmp_path / "o"), "--from-csv", str(tmp_path / "none.csv")],
        "--from-csv",
        "none.csv",
    )


# -- journals: unwritable reports and exports, edited journals ----------------------------------------
@pytest.fixture(scope="module")
def journal_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("journal") / "run.db"
    argv = [*TOURNAMENT, "--journal", str(path), "--seed", "3"]
    assert cli.main(argv) == 0
    return path


@pytest.fixture
def journal(journal_file, tmp_path):
    """A fresh copy of a finished 2-game journal, and the command line that resumes it."""
    copy = tmp_path / "run.db"
    copy.write_bytes(journal_file.read_bytes())
    return copy, [*TOURNAMENT, "--journal", str(copy), "--seed", "3", "--resume"]


@needs_sysfs
def test_report_to_an_unwritable_place(capsys, journal):
    path, _ = journal
    refused(capsys, ["report", str(path), "-o", f"{UNWRITABLE}.html"], f"-o {UNWRITABLE}.html")


def test_report_to_a_directory(capsys, journal, tmp_path):
    path, _ = journal
    refused(capsys, ["report", str(path), "-o", str(tmp_path)], f"-o {tmp_path}", "directory")


def test_export_into_a_file(capsys, journal, tmp_path):
    path, _ = journal
    refused(capsys, ["export", str(path), "--sgf", str(path)], f"--sgf {path}", "is a file")


def test_export_into_proc(capsys, journal):
    path, _ = journal
    refused(capsys, ["export", str(path), "--sgf", "/proc/x"], "--sgf /proc/x")


def _edit(path, sql, *args):
    db = sqlite3.connect(path)
    with db:
        db.execute(sql, args)
    db.close()


def _rows(path):
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT idx, record FROM games ORDER BY idx").fetchall()
    finally:
        db.close()


@pytest.mark.parametrize(
    "sql, args, named",
    [
        ("DELETE FROM meta WHERE key = 'config'", (), "no configuration row"),
        ("UPDATE meta SET value = ? WHERE key = 'config'", ("[1, 2]",), "configuration row"),
        ("UPDATE meta SET value = ? WHERE key = 'config'", ("not json",), "configuration row"),
        ("UPDATE games SET record = ? WHERE idx = 1", ('{"foo": 1}',), "game row 1: no 'index' field"),
        ("UPDATE games SET record = ? WHERE idx = 1", ("null",), "game row 1: expected a JSON object"),
        ("UPDATE games SET record = ? WHERE idx = 1", ("{",), "game row 1 is not a JSON record"),
    ],
)
@pytest.mark.parametrize("command", ["resume", "report", "export"])
def test_an_edited_journal(capsys, journal, tmp_path, sql, args, named, command):
    path, resume = journal
    _edit(path, sql, *args)
    before = _rows(path)
    argv = {
        "resume": resume,
        "report": ["report", str(path), "-o", str(tmp_path / "r.html")],
        "export": ["export", str(path), "--sgf", str(tmp_path / "sgf")],
    }[command]
    refused(capsys, argv, str(path), named)
    assert _rows(path) == before  # nothing replayed over the bad row, nothing appended


def test_a_record_edited_into_another_game(capsys, journal):
    path, resume = journal
    record = json.loads(_rows(path)[0][1])
    _edit(path, "UPDATE games SET record = ? WHERE idx = ?", json.dumps({**record, "black_id": 7}), record["index"])
    refused(capsys, resume, f"game row {record['index']}", "black_id=7")


# -- the agent registry ----------------------------------------------------------------------------
def test_registered_names_are_case_insensitive():
    @agents.register("MyBot")
    class MyBot(agents.Agent):
        def _act(self, game, state):
            return int(game.legal_actions(state)[0])

    try:
        game = envs.make_game("gomoku", size=7)
        for spec in ("MyBot", "mybot", "MYBOT:seed=3"):
            bot = agents.make(spec)
            assert isinstance(bot, MyBot) and bot.name == "mybot"
            assert game.is_legal(game.initial_state(), bot.act(game, game.initial_state()))
        with pytest.raises(agents.AgentError, match="'mybot' is already registered"):
            agents.register("MYBOT")(type("Other", (agents.Agent,), {}))
    finally:
        del agents.REGISTRY["mybot"]


@pytest.mark.parametrize("name", ["", "my bot", "a:b", "x,y", "k=v", None])
def test_names_a_spec_cannot_hold_are_refused(name):
    with pytest.raises(agents.AgentError, match="register"):
        agents.register(name)


# -- the same values through the Python API ------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: tournaments.round_robin(
            ["random", "random"], game="gomoku", size=7, seed=-1, workers=0, progress=False
        ),
        lambda: tournaments.match("random", "random", game="gomoku", game_params={"size": 7}, seed=-1, games=2),
        lambda: tournaments.solitaire(envs.make_game("calculation"), agents.make("random"), games=2, seed=-1),
        lambda: tournaments.duplicate(envs.make_game("calculation"), "random", "greedy", games=2, seed=True),
    ],
)
def test_a_negative_or_odd_seed_is_a_parameter_error(no_games, call):
    with pytest.raises(envs.ParameterError, match="seed="):
        call()


def test_a_tournament_refuses_an_agent_that_cannot_play_before_any_game(no_games):
    with pytest.raises(agents.AgentError, match="trained for 'othello', not go"):
        tournaments.round_robin(["random", OTHELLO_NET], game="go", workers=0, progress=False)


@pytest.mark.parametrize("text", ["-" * 100_000 + "1", "(" * 5_000 + "1" + ")" * 5_000, "9" * 5_000])
def test_a_huge_value_is_a_typed_error_named_by_its_ends(text):
    """A value no parameter needs is refused by the checks, never by the parser running out of
    memory or recursion (ast.literal_eval of 100,000 minus signs raised MemoryError)."""
    with pytest.raises(envs.ParameterError, match=r"\.\.\..*characters"):
        envs.make_game("go", komi=envs.core.literal(text))
    with pytest.raises(agents.AgentError, match=r"simulations=.*\.\.\..*characters"):
        agents.make("mcts:simulations=" + text)


def test_a_huge_parameter_on_the_command_line(capsys, no_games):
    refused(capsys, [*TOURNAMENT, "-p", "size=" + "-" * 100_000 + "1"], "size=", "characters")
