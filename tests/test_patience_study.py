"""examples/patience_study.py: the game's default playouts, and a killed run resumed deal for deal."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("patience_study_script", ROOT / "examples" / "patience_study.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(study, records, *extra):
    argv = ["--deals", "3", "--playouts", "30", "--workers", "1", "--records", str(records), *extra]
    assert study.main(argv) == 0
    return [json.loads(line) for line in records.read_text().splitlines()]


def test_default_playout_is_the_games_default_the_agents_default(study, tmp_path):
    records = run(study, tmp_path / "r.jsonl")
    assert {r["playout"] for r in records} == {envs.spec("calculation").default_playout}


def test_resume_plays_only_the_missing_deals_and_matches_an_uninterrupted_run(study, tmp_path, capsys):
    full = run(study, tmp_path / "full.jsonl")
    assert sorted(r["deal"] for r in full) == [0, 1, 2]
    row = capsys.readouterr().out.splitlines()[-1].split()

    # Killed after one deal, with the second record cut off mid-line.
    cut = tmp_path / "cut.jsonl"
    lines = (tmp_path / "full.jsonl").read_text().splitlines(keepends=True)
    cut.write_text(lines[0] + lines[1][:20])
    resumed = run(study, cut, "--resume")

    assert len(resumed) == 3  # the cut line was dropped, not glued to the next record
    assert resumed[0] == json.loads(lines[0])  # read back, not played again
    key = lambda r: r["deal"]
    same = lambda r: (r["deal"], r["won"], r["moves"], r["cards"])
    assert list(map(same, sorted(resumed, key=key))) == list(map(same, sorted(full, key=key)))
    out = capsys.readouterr().out
    assert "1 finished deals read back" in out
    assert out.splitlines()[-1].split()[:6] == row[:6]  # same deals, wins, interval and cards


def test_resume_refuses_records_of_other_options(study, tmp_path):
    records = tmp_path / "r.jsonl"
    run(study, records)
    with pytest.raises(SystemExit, match="other options"):
        run(study, records, "--resume", "--playout", "foundation-first")


def test_existing_records_are_not_overwritten_without_resume(study, tmp_path):
    records = tmp_path / "r.jsonl"
    run(study, records)
    before = records.read_text()
    with pytest.raises(SystemExit):
        run(study, records)
    assert records.read_text() == before
