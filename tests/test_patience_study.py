"""The patience study (``tournaments.studies.patience``, run by examples/patience_study.py): the game's
default playouts, a killed run resumed deal for deal, and the command line."""

import json

import pytest

from agents.tuning import tuned
from tournaments.referee.records import RecordError
from tournaments.studies import patience


def run(records, **options):
    patience.run(range(3), [30], workers=1, records=records, **options)
    return [json.loads(line) for line in records.read_text().splitlines()]


def test_default_playout_is_the_games_default_the_agents_default(tmp_path):
    records = run(tmp_path / "r.jsonl")
    assert {r["playout"] for r in records} == {tuned("mcts", "calculation", "playout", "random")}
    assert {r["filter_moves"] for r in records} == {True}
    assert {r["progress_reward"] for r in records} == {tuned("mcts", "calculation", "progress_reward", 0.0)} != {0.0}


def test_records_from_before_filtered_moves_resume_only_unfiltered(tmp_path):
    # A record without the key was played with every legal move in the tree.
    records = tmp_path / "r.jsonl"
    run(records, filter_moves=False)
    old = [json.loads(line) for line in records.read_text().splitlines()]
    for record in old:
        del record["filter_moves"]
    records.write_text("".join(json.dumps(r) + "\n" for r in old[:2]))
    assert len(run(records, resume=True, filter_moves=False)) == 3
    with pytest.raises(RecordError, match="other options"):
        run(records, resume=True)


def test_records_from_before_the_progress_reward_resume_only_without_it(tmp_path):
    # A record without the key was played with lost playouts worth nothing.
    records = tmp_path / "r.jsonl"
    run(records, progress_reward=0.0)
    old = [json.loads(line) for line in records.read_text().splitlines()]
    for record in old:
        del record["progress_reward"]
    records.write_text("".join(json.dumps(r) + "\n" for r in old[:2]))
    assert len(run(records, resume=True, progress_reward=0.0)) == 3
    with pytest.raises(RecordError, match="other options"):
        run(records, resume=True)


def test_resume_plays_only_the_missing_deals_and_matches_an_uninterrupted_run(tmp_path, capsys):
    full = run(tmp_path / "full.jsonl")
    assert sorted(r["deal"] for r in full) == [0, 1, 2]
    row = capsys.readouterr().out.splitlines()[-1].split()

    # Killed after one deal, with the second record cut off mid-line.
    cut = tmp_path / "cut.jsonl"
    lines = (tmp_path / "full.jsonl").read_text().splitlines(keepends=True)
    cut.write_text(lines[0] + lines[1][:20])
    resumed = run(cut, resume=True)

    assert len(resumed) == 3  # the cut line was dropped, not glued to the next record
    assert resumed[0] == json.loads(lines[0])  # read back, not played again
    key = lambda r: r["deal"]
    same = lambda r: (r["deal"], r["won"], r["moves"], r["cards"])
    assert list(map(same, sorted(resumed, key=key))) == list(map(same, sorted(full, key=key)))
    out = capsys.readouterr().out
    assert "1 finished deals read back" in out
    assert out.splitlines()[-1].split()[:6] == row[:6]  # same deals, wins, interval and cards


def test_resume_refuses_records_of_other_options(tmp_path):
    records = tmp_path / "r.jsonl"
    run(records)
    with pytest.raises(RecordError, match="other options"):
        run(records, resume=True, playout="foundation-first")


def test_the_command_line_plays_and_never_overwrites_records_without_resume(tmp_path, run_script):
    records = tmp_path / "r.jsonl"
    argv = ["--deals", "2", "--playouts", "20", "--workers", "1", "--records", str(records)]
    done = run_script("examples/patience_study.py", *argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].split()[:2] == ["20", "2"] and len(records.read_text().splitlines()) == 2
    before = records.read_text()
    again = run_script("examples/patience_study.py", *argv)
    assert again.returncode == 2 and "already holds records: pass --resume" in again.stderr
    assert records.read_text() == before
    bad = run_script("examples/patience_study.py", "--deals", "1", "--progress-reward", "2")
    assert bad.returncode == 2 and "--progress-reward 2.0: expected a number from 0 to 1" in bad.stderr
