"""Records written as games finish: ``--jsonl``, ``--csv`` and ``--sgf`` hold every finished game
of an interrupted run, a resumed run completes them without a duplicate and with the content of
an uninterrupted run, the CSV reads back to the JSONL's fields, SGF carries the game information,
and ``arbiter ratings`` rates journals, JSONL and CSV alike."""

import json
import os
import re
import signal
import time

import pytest
from sgfmill import sgf as sgfmill

import agents
import envs
import tournaments
from tournaments.cli import main
from tournaments.referee import records, runner
from tournaments.referee.executor import InlineExecutor
from tournaments.referee.reading import load_journal, rating_list

GAME = {"game": "othello", "size": 6}
AGENTS = ["random", "greedy", "alphabeta:depth=1"]
TIMED = ("seconds", "times")  # measurements: they differ between two runs of the same games


class Interrupting(InlineExecutor):
    """Plays inline and raises KeyboardInterrupt (Ctrl-C) once ``after`` games have finished,
    as the runner hands the next job out: every finished game has been journaled by then."""

    def __init__(self, after):
        self.after, self.done = after, 0

    def run(self, jobs):
        for record in super().run(jobs):
            yield record
            self.done += 1
            if self.done == self.after:
                raise KeyboardInterrupt


def _run(tmp_path, executor=None, resume=False, **kwargs):
    return tournaments.round_robin(
        AGENTS,
        games=4,
        seed=5,
        executor=executor,
        workers=0,
        progress=False,
        journal=tmp_path / "run.db",
        resume=resume,
        jsonl=tmp_path / "games.jsonl",
        csv=tmp_path / "games.csv",
        sgf=tmp_path / "sgf",
        event="Live Cup",
        site="here",
        **GAME,
        **kwargs,
    )


def _games(path):
    """The records of a file by game index, without the measured time."""
    return {r["index"]: {k: v for k, v in r.items() if k not in TIMED} for r in records.read_records(path)}


def untimed(path):
    """An SGF file's text without the seconds in its move comments (a measurement)."""
    return re.sub(rb"C\[[0-9.]+ s", b"C[", open(path, "rb").read())


def _sgf_indexes(directory):
    return sorted(int(name[4:9]) for name in os.listdir(directory) if name.endswith(".sgf"))


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """An uninterrupted run's files."""
    d = tmp_path_factory.mktemp("whole")
    result = _run(d)
    return d, result


def test_an_interrupted_run_leaves_exactly_its_finished_games_in_every_file(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, executor=Interrupting(5))
    journaled = sorted(load_journal(tmp_path / "run.db").games, key=lambda g: g["index"])
    assert len(journaled) == 5
    indexes = [g["index"] for g in journaled]
    jsonl = [json.loads(line) for line in open(tmp_path / "games.jsonl")]
    assert [r["index"] for r in jsonl] == indexes  # one line per finished game, none twice
    assert sorted(_games(tmp_path / "games.csv")) == indexes
    assert _sgf_indexes(tmp_path / "sgf") == indexes
    assert [r["moves"] for r in jsonl] == [g["moves"] for g in journaled]


def test_a_resumed_run_completes_the_files_as_an_uninterrupted_run_wrote_them(tmp_path, whole):
    with pytest.raises(KeyboardInterrupt):
        _run(tmp_path, executor=Interrupting(7))
    with open(tmp_path / "games.jsonl", "a") as f:  # a kill in the middle of a line
        f.write('{"index": 7, "black": "gre')
    result = _run(tmp_path, resume=True)
    reference, complete = whole
    assert len(result.games) == len(complete.games) == 12
    for name in ("games.jsonl", "games.csv"):
        lines = open(tmp_path / name).read().splitlines()
        assert len(lines) == 12 + (name == "games.csv")  # the CSV's header
        assert _games(tmp_path / name) == _games(reference / name)
    assert _sgf_indexes(tmp_path / "sgf") == list(range(12))
    for index in range(12):  # the same records but for the moves' measured times in their comments
        name = f"game{index:05d}.sgf"
        assert untimed(tmp_path / "sgf" / name) == untimed(reference / "sgf" / name)


def test_the_cli_interrupted_leaves_the_files_and_resumes_them(tmp_path, monkeypatch, capsys):
    argv = ["tournament", "--game", "othello", "-p", "size=6", "--system", "round_robin", "--agents", *AGENTS]
    argv += ["--games", "2", "--workers", "0", "--seed", "3", "--journal", str(tmp_path / "run.db")]
    argv += ["--jsonl", str(tmp_path / "g.jsonl"), "--csv", str(tmp_path / "g.csv"), "--sgf", str(tmp_path / "sgf")]
    argv += ["--event", "CLI Cup", "--site", "a laptop"]
    make = runner.make_executor
    monkeypatch.setattr(runner, "make_executor", lambda executor, workers: Interrupting(2))
    assert main(argv) == 130
    assert "holds 2 finished games" in capsys.readouterr().err
    assert len(records.read_records(tmp_path / "g.jsonl")) == len(records.read_records(tmp_path / "g.csv")) == 2
    monkeypatch.setattr(runner, "make_executor", make)
    assert main([*argv, "--resume"]) == 0
    games = records.read_records(tmp_path / "g.jsonl")
    assert sorted(g["index"] for g in games) == list(range(6))
    assert {(g["event"], g["site"]) for g in games} == {("CLI Cup", "a laptop")}
    root = sgfmill.Sgf_game.from_bytes(open(tmp_path / "sgf" / "game00004.sgf", "rb").read()).get_root()
    assert root.get("EV") == "CLI Cup" and root.get("PC") == "a laptop"


def test_the_csv_carries_every_field_of_the_jsonl_and_reads_back_equal(tmp_path):
    tricky = agents.make("random", seed=1)
    tricky.name = '\'=HYPERLINK("x")'  # a spreadsheet formula, behind an apostrophe
    result = tournaments.round_robin(
        [tricky, "greedy"],
        games=2,
        workers=0,
        progress=False,
        openings="builtin",
        adjudicate=["cap:plies=10,result=score"],
        jsonl=tmp_path / "g.jsonl",
        csv=tmp_path / "g.csv",
        **GAME,
    )
    jsonl, csv = records.read_records(tmp_path / "g.jsonl"), records.read_records(tmp_path / "g.csv")
    assert jsonl == csv and len(jsonl) == len(result.games) == 2
    header = open(tmp_path / "g.csv").readline().strip().split(",")
    assert tuple(header) == records.FIELDS and all(tuple(r) == records.FIELDS for r in jsonl)
    for field in ("opening", "opening_number", "margin", "end_reason", "detail", "returns", "winner"):
        assert field in header
    assert jsonl[0]["black"] == tricky.name and jsonl[0]["opening_number"] == 1
    assert "''=HYPERLINK" in open(tmp_path / "g.csv").read()  # the cell starts with an apostrophe more
    result.to_csv(tmp_path / "again.csv")  # the export after the fact writes the same columns
    assert records.read_records(tmp_path / "again.csv") == [{**r, "event": None, "site": None} for r in csv]


def test_sgf_game_information_says_the_event_round_clock_and_ending(tmp_path):
    result = tournaments.round_robin(
        ["greedy", "random"],
        games=2,
        workers=0,
        progress=False,
        tc="5+0.25",
        adjudicate=["cap:plies=8,result=score"],
        sgf=tmp_path,
        event="Info Cup",
        site="the lab",
        **GAME,
    )
    for record in result.games:
        root = sgfmill.Sgf_game.from_bytes(open(tmp_path / f"game{record['index']:05d}.sgf", "rb").read()).get_root()
        assert root.get("EV") == "Info Cup" and root.get("PC") == "the lab"
        assert root.get("RO") == str(record["round"]) and root.get("TM") == 5
        assert root.get("OT") == "0.25 s added per move (Fischer)"
        assert root.get("GC") == f"adjudicated: {record['detail']}" and "move cap: 8 plies" in root.get("GC")
        assert root.get("RE") == envs.core.outcome.Outcome.from_record(record).sgf_result


def test_every_move_comment_says_its_time_and_the_movers_evaluation(tmp_path):
    result = tournaments.round_robin(
        ["greedy", "alphabeta:depth=1"], games=2, workers=0, progress=False, opening_plies=2, sgf=tmp_path, **GAME
    )
    for record in result.games:
        assert len(record["times"]) == len(record["evaluations"]) == record["plies"] - 2
        assert all(isinstance(t, float) and t >= 0 for t in record["times"])
        searcher = 0 if record["black"] == "alphabeta:depth=1" else 1  # greedy reports no evaluation
        mine = [e for k, e in enumerate(record["evaluations"]) if k % 2 == searcher]
        theirs = [e for k, e in enumerate(record["evaluations"]) if k % 2 != searcher]
        assert all(isinstance(e, float) for e in mine) and set(theirs) == {None}
        nodes = sgfmill.Sgf_game.from_bytes(open(tmp_path / f"game{record['index']:05d}.sgf", "rb").read())
        moves = nodes.get_main_sequence()[1:]
        assert [n.has_property("C") for n in moves[:2]] == [False, False]  # the opening's plies
        for node, seconds, value in zip(moves[2:], record["times"], record["evaluations"]):
            expected = f"{seconds:.3f} s" + (f", evaluation {value:+g}" if value is not None else "")
            assert node.get("C") == expected


def test_time_losses_resignations_and_forfeits_are_said_in_re_and_gc():
    game = envs.make_game("othello", size=6)
    base = {"black": "a", "white": "b", "moves": ["c2"], "index": 3, "seed": 0, "round": 2, "game": 1}
    cases = [
        ("forfeit-timeout", 0, "lost on time: move 2 took 0.301 s with 0.100 s left", "B+T"),
        ("resign", 1, "Black resigns: win rate 1.2% under 5% for 3 moves", "W+R"),
        ("forfeit-crash", 0, "RuntimeError: boom", "B+F"),
    ]
    for reason, winner, detail, result in cases:
        returns = [1.0, -1.0] if winner == 0 else [-1.0, 1.0]
        record = {**base, "reason": reason, "winner": winner, "returns": returns, "detail": detail}
        root = sgfmill.Sgf_game.from_bytes(
            records.sgf_bytes(game, record, root=records.sgf_root(record, {}, event="E"))
        ).get_root()
        assert root.get("RE") == result and root.get("GC") == f"{reason}: {detail}"
        assert root.get("RO") == "2 (game 2)" and root.get("EV") == "E"


def test_ratings_read_journals_jsonl_and_csv_alike(whole, capsys, tmp_path):
    d, _ = whole
    tables = {}
    for name in ("run.db", "games.jsonl", "games.csv"):
        assert main(["ratings", str(d / name), "--anchor", "random=0"]) == 0
        tables[name] = capsys.readouterr().out.splitlines()
    assert tables["run.db"][0] == "1 journal, 12 games, 3 agents"
    assert tables["games.csv"][0] == "1 record file, 12 games, 3 agents"
    assert tables["run.db"][1:] == tables["games.jsonl"][1:] == tables["games.csv"][1:]
    by_journal = [vars(r) for r in rating_list([d / "run.db"]).ratings]
    assert [vars(r) for r in rating_list([d / "games.csv"]).ratings] == by_journal
    # one run's journal and its JSONL hold the same games: pooled, each would count twice
    with pytest.raises(SystemExit) as e:
        main(["ratings", str(d / "run.db"), str(d / "games.jsonl")])
    assert e.value.code == 2 and "also in" in capsys.readouterr().err
    (tmp_path / "notes.txt").write_text("hello\n")
    with pytest.raises(SystemExit) as e:
        main(["ratings", str(tmp_path / "notes.txt")])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "notes.txt: neither a tournament journal nor a --jsonl or --csv file" in err


@pytest.mark.parametrize(
    "option, value, message",
    [("--event", "two\nlines", "printable text"), ("--site", "", "printable text"), ("--event", "x" * 201, "1 to 200")],
)
def test_bad_event_and_site_are_refused_before_any_game(option, value, message, tmp_path, capsys):
    argv = ["tournament", "--game", "othello", "-p", "size=6", "--agents", "random", "greedy", "--workers", "0"]
    with pytest.raises(SystemExit) as e:
        main([*argv, "--jsonl", str(tmp_path / "g.jsonl"), option, value])
    assert e.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "g.jsonl").exists()
    with pytest.raises(envs.ParameterError, match="none is written"):
        tournaments.round_robin(["random", "greedy"], workers=0, progress=False, event="Cup", **GAME)


@pytest.mark.parametrize("option", ["--jsonl", "--csv"])
def test_a_record_file_over_the_journal_is_refused_before_any_game(option, tmp_path, capsys):
    journal = tmp_path / "run.db"
    argv = ["tournament", "--game", "othello", "-p", "size=6", "--agents", "random", "greedy", "--workers", "0"]
    assert main([*argv, "--journal", str(journal)]) == 0
    held = load_journal(journal).games
    with pytest.raises(SystemExit) as e:
        main([*argv, "--journal", str(journal), "--resume", option, str(journal)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and f"{option} {journal}: the same file as --journal" in err
    assert load_journal(journal).games == held  # nothing finished is lost
    with pytest.raises(envs.ParameterError, match="the same file as --jsonl"):
        tournaments.round_robin(["random", "greedy"], jsonl=tmp_path / "g", csv=tmp_path / "g", workers=0, **GAME)


def test_an_interrupt_while_a_game_is_stored_comes_once_it_is_stored():
    """Ctrl-C between the journal and the record files would leave the files a game short: the
    runner holds it back until the game is everywhere, then raises it."""
    from tournaments.referee.runner import _uninterrupted

    stored = []
    with pytest.raises(KeyboardInterrupt):
        with _uninterrupted():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the signal has arrived; its KeyboardInterrupt waits
            stored.append("journal")
            stored.append("files")
    assert stored == ["journal", "files"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is back
