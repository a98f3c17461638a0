"""The ``arbiter`` command line: tournament, play (human input scripted), errors."""

import pytest

import envs
from tournaments import cli
from tournaments.human import HumanAgent


class Lowest:
    name = "lowest"

    def act(self, game, state):
        return int(game.legal_actions(state)[0])


def test_tournament_command_prints_standings_ratings_crosstable(tmp_path, capsys):
    journal = tmp_path / "run.db"
    args = ["tournament", "--game", "gomoku", "-p", "size=7", "--system", "round_robin",
            "--agents", "random", "random:seed=5", "--workers", "0", "--journal", str(journal),
            "--jsonl", str(tmp_path / "g.jsonl")]
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
        cli.main(["tournament", "--game", "gomoku", "--system", "olympic", "--agents", "random",
                  "random", "random", "--workers", "0"])
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
    assert "Black plays d4" in text and "Black plays c3" in text and "Black resigns" in text
    assert text.count("White plays a7") == 2  # the reply was taken back with the undo and replayed
    assert shown[-1] == "Result: 0-1"  # a resignation still ends with the result line
    assert outcome.moves == ("c3", "a7")  # the record keeps the game as played after the undo


def test_human_playing_white_is_told_so_and_end_of_input_resigns():
    game = envs.make_game("gomoku", size=7)
    shown = []

    def no_more_input(prompt):
        shown.append(prompt)
        raise EOFError

    outcome = cli.play(game, [Lowest(), HumanAgent(inp=no_more_input, out=shown.append)], out=shown.append)
    assert "You play White." in shown and "White to move> " in shown
    assert outcome.reason == "resign" and outcome.result == "1-0" and shown[-1] == "Result: 1-0"


def test_watch_two_agents_to_the_end():
    game = envs.make_game("gomoku", size=7)
    shown = []
    outcome = cli.play(game, [Lowest(), Lowest()], out=shown.append)
    assert outcome.reason == "normal"
    assert shown[-1] == f"Result: {outcome.result}"
    assert sum(line.startswith(("Black plays", "White plays")) for line in shown) == outcome.plies


def test_play_command_builds_agents_from_specs(capsys):
    assert cli.main(["play", "--game", "gomoku", "-p", "size=7", "--black", "random",
                     "--white", "random:seed=3"]) == 0
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
        cli.main(["tournament", "--game", "gomoku", "--system", "round_robin", "--agents", "random",
                  "no_such_agent", "--workers", "0"])
    assert "no_such_agent" in capsys.readouterr().err
