"""What a running tournament prints while the user waits: a notice before a first compile, and
games played of the total with rate, time left and leader (plain lines in a pipe)."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tournaments
from tournaments.referee.progress import Progress
from tournaments.referee.systems import configure, expected_games

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("system, n, options", [("round_robin", 4, {}), ("swiss", 5, {}), ("swiss", 8, {"rounds": 5})])
def test_expected_games_is_what_the_tournament_plays(system, n, options):
    agents = ["random"] * n
    result = tournaments.run(
        system, agents, game="gomoku", game_params={"size": 7}, workers=0, progress=False, seed=3, **options
    )
    config = configure(system, n, **result.config["options"])  # the options the run used
    assert expected_games(config, seed=3) == len(result.games)


def test_olympic_length_is_unknown_in_advance():
    assert expected_games(configure("olympic", 4, k=2)) is None


def test_plain_lines_in_a_pipe_name_the_total_rate_and_leader():
    out = io.StringIO()  # not a terminal: no bar, a line per ``every`` seconds and one at the end
    progress = Progress(True, total=4, out=out, every=0.0)
    for black, white, result in [("a", "b", "1-0"), ("b", "a", "1/2-1/2"), ("a", "c", "1-0"), ("c", "b", "0-1")]:
        progress.tick({"black": black, "white": white, "result": result})
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "playing 4 games; progress every 0 s"  # at once: a log shows the run started
    assert lines[1].startswith("1/4 games,") and "leader a (1 points)" in lines[1]
    assert lines[-1].startswith("4/4 games,") and "leader a (2.5 points)" in lines[-1]
    assert "\r" not in out.getvalue()


def test_a_first_compile_is_announced_and_later_runs_are_quiet(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-m",
        "tournaments.cli",
        "tournament",
        "--game",
        "gomoku",
        "-p",
        "size=7",
        "--system",
        "round_robin",
        "--agents",
        "random",
        "random",
        "--workers",
        "0",
    ]
    runs = [
        subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600) for _ in range(2)
    ]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr
    assert runs[0].stderr.startswith("compiling the numba code of gomoku and the agents: first run only")
    assert "compiling" not in runs[1].stderr and runs[1].stderr.startswith("playing 2 games")
    assert "2/2 games" in runs[1].stderr


def test_the_last_line_is_written_once():
    out = io.StringIO()
    progress = Progress(True, total=2, out=out, every=0.0)
    for result in ("1-0", "0-1"):
        progress.tick({"black": "a", "white": "b", "result": result})
    progress.close()
    assert out.getvalue().count("2/2 games") == 1
    quiet = io.StringIO()  # a line every 10 s: the run ends between lines, so close writes the last
    progress = Progress(True, total=2, out=quiet, every=10.0)
    progress.tick({"black": "a", "white": "b", "result": "1-0"})
    progress.close()
    assert quiet.getvalue().splitlines()[1].startswith("1/2 games")


def test_a_resumed_run_counts_the_journaled_games():
    earlier = [{"black": "a", "white": "b", "result": "0-1"}] * 3
    out = io.StringIO()
    progress = Progress(True, total=4, out=out, every=0.0, earlier=earlier)
    progress.tick({"black": "a", "white": "b", "result": "1-0"})
    progress.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "resuming: 3 of 4 games in the journal; playing 1; progress every 0 s"
    assert lines[1].startswith("4/4 games,") and "leader b (3 points)" in lines[1] and len(lines) == 2
    done = io.StringIO()
    Progress(True, total=3, out=done, earlier=earlier).close()
    assert done.getvalue() == "all 3 games are already in the journal: the tournament is complete\n"


def test_the_study_prints_its_total_and_the_time_left(tmp_path):
    from tournaments.studies import championship as study

    lines = []
    study.write_study(tmp_path, sizes=(8, 16), strengths=(0.75,), championships=200, log=lines.append)
    assert lines[0] == "simulating 20 cells (grid: 4,000 championships); a line per cell with the time left"
    cells = lines[1:]
    assert len(cells) == 20 and all("left]" in line for line in cells)
    assert cells[0].endswith("]") and "[1/20 cells," in cells[0] and "[20/20 cells," in cells[-1]
    assert "about 0 s left" in cells[-1]


def test_the_rating_table_is_printed_every_n_games_between_the_lines():
    out = io.StringIO()
    progress = Progress(True, total=6, out=out, every=1e9, ratings_every=2)
    for black, white, result in [
        ("a", "b", "1-0"),
        ("b", "c", "1-0"),
        ("c", "a", "0-1"),
        ("a", "c", "1/2-1/2"),
        ("b", "a", "0-1"),
        ("c", "b", "1-0"),
    ]:
        progress.tick({"black": black, "white": white, "result": result})
    progress.close()
    text = out.getvalue()
    assert text.count("ratings after") == 2  # after 2 and 4; the end's table is the result's own
    assert "ratings after 2 of 6 games:" in text and "ratings after 4 of 6 games:" in text
    table = text.split("ratings after 4 of 6 games:\n")[1].splitlines()
    header = ["#", "agent", "Elo", "±", "games", "score", "draws", "LOS(model)", "LOS(h2h)", "P(best)"]
    assert table[0].split() == header
    assert table[1].split()[1] == "a" and table[1].split()[4:6] == ["3", "83.3%"]  # a: 2.5 of 3 games
    quiet = io.StringIO()
    progress = Progress(True, total=6, out=quiet, every=1e9)  # by default: no tables from Progress itself
    progress.tick({"black": "a", "white": "b", "result": "1-0"})
    assert "ratings" not in quiet.getvalue()


def test_a_tournament_prints_its_rating_table_every_n_games_and_the_trust_line(capsys):
    from tournaments.cli import main

    base = [
        "tournament",
        "--game",
        "gomoku",
        "-p",
        "size=7",
        "--system",
        "round_robin",
        "--agents",
        "random",
        "greedy",
        "alphabeta:depth=1",
        "--games",
        "4",
        "--workers",
        "0",
    ]
    assert main(base + ["--ratings-every", "5"]) == 0
    captured = capsys.readouterr()
    assert captured.err.count("ratings after") == 2
    assert "ratings after 5 of 12 games:" in captured.err and "ratings after 10 of 12 games:" in captured.err
    assert "P(best)" in captured.out and "Trust: for a round robin (games=4) of 3 agents in 12 games" in captured.out
    assert "To settle it:" in captured.out
    for every in ([], ["--ratings-every", "0"]):  # a 12-game run is shorter than the default 50
        assert main(base + every) == 0
        assert "ratings after" not in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(base + ["--ratings-every", "-1"])
    assert e.value.code == 2 and "--ratings-every -1" in capsys.readouterr().err
