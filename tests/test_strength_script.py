"""The strength table (``tournaments.studies.strength``, run by examples/strength.py): an interrupted table
resumes from its game records, game for game; its rows; an agent's warm-up bounded; the command
line."""

import json

import pytest

from tournaments.referee.records import RecordError
from tournaments.studies import strength

ONLY = "greedy vs random on Othello"


def run(tmp_path, records, out, **options):
    rows = [r for r in strength.table_rows(4, 4, 4) if r.key.startswith(ONLY)]
    strength.run(rows, out, records=records, workers=1, command="test", **options)
    return [json.loads(line) for line in records.read_text().splitlines()]


def row_line(path):
    return next(line for line in path.read_text().splitlines() if line.startswith("| greedy | random |"))


def test_resume_plays_only_the_missing_games_and_matches_an_uninterrupted_run(tmp_path):
    full = run(tmp_path, tmp_path / "full.jsonl", tmp_path / "full.md")
    assert sorted(r["game"] for r in full) == [0, 1, 2, 3]

    # An interruption after two games, with the third record cut off mid-line.
    cut = tmp_path / "cut.jsonl"
    lines = (tmp_path / "full.jsonl").read_text().splitlines(keepends=True)
    cut.write_text("".join(lines[:2]) + lines[2][:25])
    resumed = run(tmp_path, cut, tmp_path / "resumed.md", resume_records=True)

    assert len(resumed) == 4  # the cut line was dropped, not glued to the next record
    key = lambda r: r["game"]
    assert [r["moves"] for r in sorted(resumed, key=key)] == [r["moves"] for r in sorted(full, key=key)]
    a, b = row_line(tmp_path / "full.md").split("|"), row_line(tmp_path / "resumed.md").split("|")
    assert a[:7] == b[:7]  # same N, outcome and W/D/L (seconds may differ)
    assert "2 more games were read back" in (tmp_path / "resumed.md").read_text()


def test_rewriting_the_tables_keeps_the_hand_written_sections(tmp_path):
    out = tmp_path / "strength.md"
    out.write_text("# old tables\n| stale | row |\n\n" + strength.KEPT + "\n\n## Measured by hand\n\nkept text\n")
    run(tmp_path, tmp_path / "r.jsonl", out)
    text = out.read_text()
    assert "stale" not in text and text.count("## Measured by hand") == 1 and text.endswith("kept text\n")
    assert text.index("| greedy | random |") < text.index(strength.KEPT)
    cells = row_line(out).split("|")
    assert float(cells[9]) > 0  # seconds per move after the opening


def test_resume_refuses_records_of_other_options(tmp_path):
    records = tmp_path / "r.jsonl"
    run(tmp_path, records, tmp_path / "a.md")
    with pytest.raises(RecordError, match="other options"):
        run(tmp_path, records, tmp_path / "b.md", resume_records=True, seed=1)


def test_grhino_levels_choose_the_engine_rows():
    rows = strength.table_rows(4, 4, 16, (5, 3))
    grhino = [(r.agent, r.opponent, r.games) for r in rows if r.opponent.startswith("grhino")]
    assert grhino == [
        ("mcts", "grhino-5", 16),
        ("alphabeta", "grhino-5", 16),
        ("mcts", "grhino-3", 16),
        ("alphabeta", "grhino-3", 16),
    ]
    assert all(r.engine for r in rows if r.opponent.startswith(("gnugo", "grhino")))
    assert not any(r.engine for r in rows if r.opponent in strength.BASELINES)
    assert strength.engine_command("grhino-5")[1:] == ["-l", "5"]
    default = [r.opponent for r in strength.table_rows(4, 4, 4) if r.opponent.startswith("grhino")]
    assert sorted(set(default)) == ["grhino-1", "grhino-2", "grhino-3"]  # the table's rows as before


def test_go_sizes_choose_the_gnu_go_boards():
    rows = strength.table_rows(4, 4, 16, go_sizes=(13,))
    gnugo = {(r.agent, r.opponent, r.game) for r in rows if r.opponent.startswith("gnugo")}
    assert gnugo == {(a, f"gnugo-{lv}", "Go 13x13") for a in ("mcts", "alphabeta") for lv in (1, 10)}
    default = {r.game for r in strength.table_rows(4, 4, 4) if r.opponent.startswith("gnugo")}
    assert default == {"Go 7x7", "Go 9x9"}
    with pytest.raises(ValueError, match="Go 11x11"):
        strength.table_rows(4, 4, 4, go_sizes=(11,))


def test_setup_time_bounds_an_agents_warm_up(tmp_path):
    import fault_agents  # noqa: F401  (registers "warmhang", whose warm-up never ends)

    records = run(
        tmp_path,
        tmp_path / "r.jsonl",
        tmp_path / "r.md",
        setup_time=1,
        agents={**strength.AGENTS, "greedy": "warmhang"},
    )
    assert len(records) == 4
    assert {(r["reason"], r["detail"]) for r in records} == {  # ruled out once, for the whole run
        ("forfeit-timeout", "ruled out: setup timed out after 1 s (its warm-up)")
    }
    assert "| greedy | `warmhang` |" in (tmp_path / "r.md").read_text()  # the budgets table says so


def test_the_command_line_plays_the_rows_asked_for(tmp_path, run_script):
    done = run_script(
        "examples/strength.py",
        "--games",
        "2",
        "--workers",
        "1",
        "--only",
        ONLY,
        "--records",
        tmp_path / "r.jsonl",
        "--out",
        tmp_path / "t.md",
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 2
    assert row_line(tmp_path / "t.md").split("|")[4].strip() == "2"
    assert "python examples/strength.py --games 2 --workers 1 --only" in (tmp_path / "t.md").read_text()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--grhino-levels", "6"], "GRhino's levels are 1 to 5"),
        (["--setup-time", "0"], "--setup-time must be positive"),
        (["--agent", "chess=random"], "expected LABEL=SPEC with LABEL one of"),
        (["--resume"], "--resume needs the --records file"),
    ],
)
def test_bad_options_are_usage_errors(argv, message, tmp_path, run_script):
    done = run_script("examples/strength.py", *argv, "--out", tmp_path / "x.md")
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "x.md").exists()


def test_notes_say_which_side_resigned():
    def record(game, result):
        return {"game": game, "result": result, "reason": "resign", "detail": "", "seconds": 1.0, "plies": 30}

    # the agent is Black in even games: it resigned game 0 and its opponent game 1 and game 2
    row = strength.Row("mcts", "gnugo-10", "Go 9x9", 3, [record(0, "0-1"), record(1, "0-1"), record(2, "1-0")])
    row.records[0]["moves"] = row.records[1]["moves"] = row.records[2]["moves"] = []
    assert strength.notes([row]) == [
        "- mcts vs gnugo-10 on Go 9x9: mcts resigned 1 game(s) (counted as its losses).",
        "- mcts vs gnugo-10 on Go 9x9: gnugo-10 resigned 2 game(s) (counted as its losses).",
    ]
