"""``arbiter match`` with a run's options plays through the tournament runner (a gauntlet of A
against B): clocks, openings, adjudication, workers, a journal that resumes and record files,
with cutechess-cli's score line; a plain match is the in-process ``tournaments.match`` as before."""

import json

from tournaments.cli import main

MATCH = ["match", "--game", "gomoku", "-p", "size=7", "-a", "greedy", "-b", "random"]


def test_a_match_with_a_clock_and_records_runs_through_the_runner(tmp_path, capsys):
    records = tmp_path / "m.jsonl"
    argv = [*MATCH, "--games", "4", "--tc", "5+0.1", "--adjudicate", "cap:plies=30", "--workers", "0"]
    assert main([*argv, "--jsonl", str(records), "--seed", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Score of greedy vs random: ") and "] 4, Elo" in out[0]
    assert "Clock: 5+0.1" in "\n".join(out) and "Adjudication: cap:plies=30" in "\n".join(out)
    games = [json.loads(line) for line in records.read_text().splitlines()]
    assert len(games) == 4 and {g["black"] for g in games} == {"greedy", "random"}


def test_a_sequential_match_in_a_journal_resumes_to_the_same_score(tmp_path, capsys):
    journal = str(tmp_path / "m.db")
    argv = [*MATCH, "--games", "60", "--sprt", "0,100,0.05,0.05", "--workers", "1", "--journal", journal]
    assert main(argv) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "H1 accepted" in first and "LLR" in first
    assert main([*argv, "--resume"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == first


def test_a_plain_match_plays_in_process_as_before(capsys):
    assert main([*MATCH, "--games", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("greedy vs random on gomoku: score ")
    assert any(line.startswith("Score of greedy vs random: ") for line in out)
