"""The ``arbiter`` command line: tournament, play (human input scripted), errors."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from said import said

import envs
from agents.human import HumanAgent
from tournaments import cli


class Lowest:
    name = "lowest"

    def act(self, game, state):
        return int(game.legal_actions(state)[0])


def test_tournament_command_prints_standings_ratings_crosstable(tmp_path, capsys):
    journal = tmp_path / "run.db"
    args = [
        "tournament",
        "--game",
        "gomoku",
        "-p",
        "size=7",
        "--system",
        "round_robin",
        "--agents",
        "random",
        "random:seed=5",
        "--workers",
        "0",
        "--journal",
        str(journal),
        "--jsonl",
        str(tmp_path / "g.jsonl"),
    ]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "round_robin" in out and "Bradley–Terry" in out and "Crosstable" in out
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 2
    with pytest.raises(SystemExit) as e:  # the same journal without --resume: a clear error
        cli.main(args)
    assert e.value.code == 2 and "resume" in capsys.readouterr().err
    assert cli.main(args + ["--resume"]) == 0


def test_bad_system_option_is_a_clean_error(capsys):
    with pytest.raises(SystemExit):
        cli.main(
            [
                "tournament",
                "--game",
                "gomoku",
                "--system",
                "olympic",
                "--agents",
                "random",
                "random",
                "random",
                "--workers",
                "0",
            ]
        )
    assert "power-of-two" in capsys.readouterr().err


def test_play_human_with_undo_and_resign():
    game = envs.make_game("gomoku", size=7)
    typed = iter(["undo", "zz9", "moves", "d4", "undo", "c3", "resign"])
    shown = []
    human = HumanAgent(inp=lambda prompt: next(typed), out=shown.append)
    outcome = cli.play(game, [human, Lowest()], out=shown.append)
    assert outcome.result == "0-1" and outcome.reason == "resign" and outcome.winner == 1
    text = "\n".join(map(str, shown))
    assert "You play Black." in text and "nothing to undo" in text
    assert "Black plays d4" in text and "Black plays c3" in text
    assert text.count("White plays a7") == 2  # the reply was taken back with the undo and replayed
    # a resignation still ends with the result line, which says who won and why
    assert shown[-1] == "Result: 0-1, White (lowest) wins: Black (human) resigned"
    assert outcome.moves == ("c3", "a7")  # the record keeps the game as played after the undo


def test_human_playing_white_is_told_so_and_end_of_input_abandons_the_game():
    """The end of input is no move and no resignation: the game ends without a result."""
    from agents.human import Abandoned

    game = envs.make_game("gomoku", size=7)
    shown = []

    def no_more_input(prompt):
        shown.append(prompt)
        raise EOFError

    with pytest.raises(Abandoned, match="end of input at White's move"):
        cli.play(game, [Lowest(), HumanAgent(inp=no_more_input, out=shown.append)], out=shown.append)
    assert "You play White." in shown and "White to move> " in shown
    assert not any(line.startswith("Result") for line in shown)


def test_watch_two_agents_to_the_end():
    game = envs.make_game("gomoku", size=7)
    shown = []
    outcome = cli.play(game, [Lowest(), Lowest()], out=shown.append)
    assert outcome.reason == "normal"
    winner = {"1-0": "Black (lowest) wins", "0-1": "White (lowest) wins"}.get(outcome.result, "a draw")
    assert shown[-1] == f"Result: {outcome.result}, {winner}"  # Gomoku has no margin
    assert sum(line.startswith(("Black plays", "White plays")) for line in shown) == outcome.plies


def test_play_command_builds_agents_from_specs(capsys):
    assert cli.main(["play", "--game", "gomoku", "-p", "size=7", "--black", "random", "--white", "random:seed=3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Black: random, White: random") and "Result: " in out


def test_gtp_subcommand_delegates_to_agents_gtp(monkeypatch, capsys):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("name\nboardsize 5\nquit\n"))
    cli.main(["gtp", "--game", "go", "--size", "5", "--agent", "random"])
    out = capsys.readouterr().out
    assert out.startswith("= ") and out.count("=") == 3


def test_unknown_agent_spec_is_an_error_before_any_game(capsys):
    with pytest.raises(SystemExit):
        cli.main(
            [
                "tournament",
                "--game",
                "gomoku",
                "--system",
                "round_robin",
                "--agents",
                "random",
                "no_such_agent",
                "--workers",
                "0",
            ]
        )
    assert "no_such_agent" in capsys.readouterr().err


# -- forfeits shown with their reason, results that say who won and why ------------------------------
class Crashes:
    name = "crashes"

    def act(self, game, state):
        raise RuntimeError("out of coffee")


@pytest.fixture
def crashing_spec():
    """A registered agent that raises on its first move (``--agents crashes``)."""
    import agents

    @agents.register("crashes")
    class CrashingAgent(agents.Agent):
        def _act(self, game, state):
            raise RuntimeError("out of coffee")

    yield "crashes"
    del agents.REGISTRY["crashes"]


def test_forfeits_are_footnoted_with_their_reason_under_the_standings(capsys, crashing_spec):
    assert (
        cli.main(
            [
                "tournament",
                "--game",
                "gomoku",
                "-p",
                "size=7",
                "--system",
                "round_robin",
                "--agents",
                "random",
                crashing_spec,
                "--workers",
                "0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    standings, footnote = out.split("Forfeits:")
    assert "crashes" in standings.splitlines()[-2] and standings.splitlines()[-2].split()[-1] == "2"
    line = footnote.strip().splitlines()[0]
    assert line.startswith("crashes: 2 games lost by forfeit-crash: RuntimeError: out of coffee")


def test_a_tournament_without_forfeits_has_no_footnote(capsys):
    assert (
        cli.main(
            [
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
                "--workers",
                "0",
            ]
        )
        == 0
    )
    assert "Forfeits" not in capsys.readouterr().out


def test_play_result_line_names_the_forfeit_and_its_reason():
    game = envs.make_game("gomoku", size=7)
    shown = []
    outcome = cli.play(game, [Lowest(), Crashes()], out=shown.append)
    assert outcome.reason == "forfeit-crash"
    assert shown[-1].startswith(
        "Result: 1-0, Black (lowest) wins: White (crashes) forfeited: the agent failed (RuntimeError: out of coffee"
    )


def test_play_result_line_gives_the_margin_where_the_game_has_one():
    class Highest(Lowest):
        name = "highest"

        def act(self, game, state):
            return int(game.legal_actions(state)[-1])

    game = envs.make_game("othello", size=6)
    shown = []
    outcome = cli.play(game, [Lowest(), Highest()], out=shown.append)
    margin = game.margin(outcome.state)
    winner = ["Black (lowest)", "White (highest)"][outcome.winner]
    assert outcome.reason == "normal" and margin > 0
    assert shown[-1] == f"Result: {outcome.result}, {winner} wins by {margin:g}"


def test_the_patience_speaks_to_you_in_the_second_person():
    game = envs.make_game("calculation")
    shown = []
    outcome = cli.play(game, [Lowest()], seed=1, out=shown.append)
    moves = [line for line in shown if line.startswith("You ")]
    assert moves and all(line.startswith("You play ") for line in moves)
    assert shown[-1] == f"Result: {'won' if outcome.winner == 0 else 'lost'}"


def test_a_match_with_a_forfeit_is_one_error_line_naming_the_agent_and_reason(capsys, crashing_spec):
    with pytest.raises(SystemExit) as e:
        cli.main(["match", "--game", "gomoku", "-p", "size=7", "--a", "random", "--b", crashing_spec, "--games", "2"])
    err = said(capsys.readouterr().err)
    assert e.value.code == 1 and len(err) == 1
    assert "'crashes'" in err[0] and "forfeit-crash" in err[0] and "out of coffee" in err[0]


def test_resuming_a_finished_tournament_says_so_and_prints_the_standings(tmp_path, capsys):
    args = [
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
        "--workers",
        "0",
        "--journal",
        str(tmp_path / "run.db"),
    ]
    assert cli.main(args) == 0
    first = capsys.readouterr().out
    assert cli.main(args + ["--resume"]) == 0
    out, err = capsys.readouterr()
    assert said(err) == ["all 2 games are already in the journal: the tournament is complete"]
    assert out == first  # the same standings, nothing replayed


def test_agents_listing_shows_the_values_that_apply_and_a_line_on_each(capsys):
    assert cli.main(["agents", "--game", "othello"]) == 0
    out = capsys.readouterr().out
    assert "alphabeta:depth=64,time=1.0," in out and "endgame=30" in out  # Othello's clock and solver's cap
    assert "mcts:simulations=1000,seconds=None,c=0.1," in out  # Othello's tuning
    assert "None" not in out.split("mcts:")[2].split("seed=")[0].replace("seconds=None", "")
    descriptions = [line for line in out.splitlines() if not line.startswith(" ")]
    assert all(len(line.split(": ", 1)[1]) > 20 and "module docstring" not in line for line in descriptions)
    assert cli.main(["agents"]) == 0
    out = capsys.readouterr().out  # without --game: per game where the values differ
    assert "playout: 'evaluation' on loa, othello, gomoku; 'pattern' on go; 'checked' on calculation" in out
    alphazero = out.split("alphazero:")[1]
    assert "plays: loa, othello, gomoku, go" in alphazero.splitlines()[1]  # shipped weights: not the patience


def test_written_outputs_survive_the_run(tmp_path, capsys):
    args = [
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
        "--workers",
        "0",
        "--csv",
        str(tmp_path / "g.csv"),
        "--sgf",
        str(tmp_path / "sgf"),
    ]
    assert cli.main(args) == 0
    assert len((tmp_path / "g.csv").read_text().splitlines()) == 3
    assert sorted(p.name for p in (tmp_path / "sgf").iterdir()) == ["game00000.sgf", "game00001.sgf"]


def test_ctrl_c_in_play_or_match_ends_quietly_with_status_130(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli.play_command, "play", interrupted)  # arbiter play's module
    assert cli.main(["play", "--game", "gomoku", "-p", "size=7", "--black", "random"]) == 130
    err = capsys.readouterr().err
    assert said(err) == ["arbiter play: interrupted"] and "Traceback" not in err


# -- games per encounter, gauntlets, opening suites ------------------------------------------------
def gauntlet_args(tmp_path, *extra):
    suite = tmp_path / "suite.txt"
    suite.write_text("# three openings\nc2 b4\nd5 e3 f2\nb3 b2\n")
    return [
        "tournament",
        "--game",
        "othello",
        "-p",
        "size=6",
        "--system",
        "gauntlet",
        "--candidates",
        "slow:delay=0.03",
        "random",
        "--agents",
        "slow:delay=0.02",
        "greedy",
        "--games",
        "6",
        "--openings",
        str(suite),
        "--seed",
        "3",
        *extra,
    ]


def timeless(path):
    """A JSONL file's games in game order (they are written as they finish), without the time."""
    return sorted(
        ({k: v for k, v in g.items() if k not in ("seconds", "times")} for g in records(path)), key=lambda g: g["index"]
    )


def records(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_a_killed_gauntlet_resumes_without_losing_a_game(tmp_path, run_script):
    """A gauntlet run through the command line, SIGKILLed mid-run, then resumed: the journaled
    games are kept as they were, and the games and standings are those of an uninterrupted run."""
    journal = tmp_path / "run.db"
    fault_agents = os.path.join(os.path.dirname(__file__), "fault_agents.py")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(__file__)), os.path.dirname(__file__)]),
    }
    proc = subprocess.Popen(
        [sys.executable, fault_agents, *gauntlet_args(tmp_path, "--workers", "2", "--journal", str(journal))],
        start_new_session=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    finished, deadline = 0, time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.1)
        try:
            db = sqlite3.connect(journal)
            finished = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            db.close()
        except sqlite3.Error:
            continue
        if finished >= 3:
            break
    assert proc.poll() is None, "the run ended before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    total = 2 * 2 * 6
    assert 3 <= finished < total
    db = sqlite3.connect(journal)
    before = {idx: json.loads(rec) for idx, rec in db.execute("SELECT idx, record FROM games")}
    db.close()
    resumed = run_script(
        fault_agents,
        *gauntlet_args(
            tmp_path,
            "--workers",
            "2",
            "--journal",
            str(journal),
            "--resume",
            "--jsonl",
            str(tmp_path / "resumed.jsonl"),
        ),
    )
    clean = run_script(
        fault_agents, *gauntlet_args(tmp_path, "--workers", "2", "--jsonl", str(tmp_path / "clean.jsonl"))
    )
    assert resumed.returncode == 0 and clean.returncode == 0, resumed.stderr + clean.stderr
    games = {g["index"]: g for g in records(tmp_path / "resumed.jsonl")}  # the journal's fields and the run's
    assert len(games) == total and all({k: games[idx][k] for k in rec} == rec for idx, rec in before.items())
    assert timeless(tmp_path / "resumed.jsonl") == timeless(tmp_path / "clean.jsonl")
    standings = [out.stdout.split("\n\n")[1:3] for out in (resumed, clean)]
    assert standings[0] == standings[1] and "Candidates, by points against the field" in standings[0][0]


def test_gauntlet_command_prints_candidates_field_and_results_against_the_field(tmp_path, capsys):
    import fault_agents  # noqa: F401  (registers slow)

    assert cli.main(gauntlet_args(tmp_path, "--workers", "0", "--jsonl", str(tmp_path / "g.jsonl"))) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "gauntlet (candidates=2, games=6) on othello (size=6): 24 games\nOpenings: suite.txt (3 openings, sequential from 1)\n"
    )
    assert "The field, by points against the candidates:" in out
    table = out.split("Results against the field")[1].splitlines()
    candidates = out.split("Candidates, by points against the field:\n")[1].split("\n\n")[0].splitlines()[1:]
    field = out.split("The field, by points against the candidates:\n")[1].split("\n\n")[0].splitlines()[1:]
    # the table follows the standings' order: candidates by place down, the field by place across
    assert table[1].split() == [line.split()[1] for line in field if "%" in line]
    assert [row.split()[1] for row in table[2:4]] == [line.split()[1] for line in candidates]
    assert sorted(table[1].split()) == ["greedy", "slow:delay=0.02"]
    assert sorted(row.split()[1] for row in table[2:4]) == ["random", "slow:delay=0.03"]
    assert all(cell.endswith("/6") for row in table[2:4] for cell in row.split()[2:])
    games = records(tmp_path / "g.jsonl")
    met = {frozenset((g["black"], g["white"])) for g in games}
    assert met == {frozenset((c, o)) for c in ("slow:delay=0.03", "random") for o in ("slow:delay=0.02", "greedy")}


@pytest.mark.parametrize(
    "extra,message",
    [
        (["--system", "gauntlet"], "--system gauntlet needs --candidates"),
        (["--system", "round_robin", "--candidates", "random"], "--candidates: applies to --system gauntlet"),
        (["--system", "swiss", "--games", "4"], "--games: applies to round_robin, olympic and gauntlet"),
        (["--system", "round_robin", "--games", "5"], "--games 5: expected an even number"),
        (["--system", "olympic", "--games", "4", "--k", "2"], "--games 4 and --k 2"),
        (["--system", "round_robin", "--openings-order", "random"], "--openings-order: needs --openings"),
        (["--system", "round_robin", "--openings", "builtin", "--opening-plies", "4"], "a suite or random openings"),
        (["--system", "round_robin", "--opening-plies", "4", "2"], "--opening-plies 4 2: expected 0 < K <= MAX"),
        (["--system", "round_robin", "--openings", "builtin", "--openings-start", "101"], "has 100 openings"),
        (
            ["--system", "round_robin", "-p", "size=10", "--openings", "builtin"],
            "no suite is shipped for othello_10x10",
        ),
    ],
)
def test_bad_encounter_and_opening_options_are_one_line_errors(capsys, extra, message):
    with pytest.raises(SystemExit) as e:
        cli.main(["tournament", "--game", "othello", "--agents", "random", "greedy", "--workers", "0", *extra])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and len(said(err)) == 1


def test_round_robin_and_olympic_games_per_encounter_through_the_command_line(tmp_path, capsys):
    base = ["tournament", "--game", "othello", "-p", "size=6", "--agents", "random", "greedy", "--workers", "0"]
    assert (
        cli.main(
            base
            + ["--system", "round_robin", "--games", "4", "--opening-plies", "2", "--jsonl", str(tmp_path / "rr.jsonl")]
        )
        == 0
    )
    games = records(tmp_path / "rr.jsonl")
    assert len(games) == 4 and sorted(g["black"] for g in games) == ["greedy", "greedy", "random", "random"]
    assert {g["opening"] for g in games} == {2}
    assert (
        cli.main(
            base
            + ["--system", "olympic", "--games", "4", "--openings", "builtin", "--jsonl", str(tmp_path / "ko.jsonl")]
        )
        == 0
    )
    games = records(tmp_path / "ko.jsonl")
    assert len(games) % 2 == 0 and len(games) >= 4
    assert [g["opening_number"] for g in games] == [1 + t // 2 for t in range(len(games))]
    assert "olympic (games=4, recursive=False)" in capsys.readouterr().out
