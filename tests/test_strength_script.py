"""examples/strength.py: an interrupted table resumes from its game records, game for game."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def strength():
    spec = importlib.util.spec_from_file_location("strength_script", ROOT / "examples" / "strength.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def run(strength, tmp_path, records, out, *extra):
    argv = ["--games", "4", "--workers", "1", "--only", "greedy vs random on Othello",
            "--records", str(records), "--out", str(out), *extra]
    assert strength.main(argv) == 0
    return [json.loads(line) for line in records.read_text().splitlines()]


def row_line(path):
    return next(line for line in path.read_text().splitlines() if line.startswith("| greedy | random |"))


def test_resume_plays_only_the_missing_games_and_matches_an_uninterrupted_run(strength, tmp_path):
    full = run(strength, tmp_path, tmp_path / "full.jsonl", tmp_path / "full.md")
    assert sorted(r["game"] for r in full) == [0, 1, 2, 3]

    # An interruption after two games, with the third record cut off mid-line.
    cut = tmp_path / "cut.jsonl"
    lines = (tmp_path / "full.jsonl").read_text().splitlines(keepends=True)
    cut.write_text("".join(lines[:2]) + lines[2][:25])
    resumed = run(strength, tmp_path, cut, tmp_path / "resumed.md", "--resume")

    assert len(resumed) == 4  # the cut line was dropped, not glued to the next record
    key = lambda r: r["game"]
    assert [r["moves"] for r in sorted(resumed, key=key)] == [r["moves"] for r in sorted(full, key=key)]
    a, b = row_line(tmp_path / "full.md").split("|"), row_line(tmp_path / "resumed.md").split("|")
    assert a[:7] == b[:7]  # same N, outcome and W/D/L (seconds may differ)
    assert "2 more games were read back" in (tmp_path / "resumed.md").read_text()


def test_resume_refuses_records_of_other_options(strength, tmp_path):
    records = tmp_path / "r.jsonl"
    run(strength, tmp_path, records, tmp_path / "a.md")
    with pytest.raises(SystemExit, match="other options"):
        run(strength, tmp_path, records, tmp_path / "b.md", "--resume", "--seed", "1")


def test_grhino_levels_choose_the_engine_rows(strength, tmp_path):
    rows = strength.table_rows(4, 4, 16, (5, 3))
    grhino = [(r.agent, r.opponent, r.games) for r in rows if r.opponent.startswith("grhino")]
    assert grhino == [("mcts", "grhino-5", 16), ("alphabeta", "grhino-5", 16),
                      ("mcts", "grhino-3", 16), ("alphabeta", "grhino-3", 16)]
    assert strength.engine_command("grhino-5")[1:] == ["-l", "5"]
    default = [r.opponent for r in strength.table_rows(4, 4, 4) if r.opponent.startswith("grhino")]
    assert sorted(set(default)) == ["grhino-1", "grhino-2", "grhino-3"]  # the table's rows as before
    with pytest.raises(SystemExit):
        strength.main(["--grhino-levels", "6", "--out", str(tmp_path / "x.md")])


def test_setup_time_bounds_an_agents_warm_up(strength, tmp_path):
    sys.path.insert(0, str(ROOT / "tests"))
    import fault_agents  # noqa: F401  (registers "warmhang", whose warm-up never ends)

    records = run(strength, tmp_path, tmp_path / "r.jsonl", tmp_path / "r.md",
                  "--agent", "greedy=warmhang", "--setup-time", "1")
    assert len(records) == 4
    assert {(r["reason"], r["detail"]) for r in records} == {
        ("forfeit-timeout", "warm-up did not finish within setup_time=1.0s")}
    with pytest.raises(SystemExit):
        strength.main(["--setup-time", "0", "--out", str(tmp_path / "x.md")])
