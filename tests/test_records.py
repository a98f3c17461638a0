"""SGF records of the board games: written with sgfmill, opened by sgfmill, read back into the
same positions; setup stones; the result, names and rules in the root."""

import pytest

sgf = pytest.importorskip("sgfmill.sgf", reason='needs the records extra: pip install "arbiter-games[records]"')

import envs  # noqa: E402
import tournaments  # noqa: E402
from tournaments import records  # noqa: E402
from tournaments.cli import main  # noqa: E402

GAMES = [("go", {"size": 5}), ("othello", {"size": 6}), ("gomoku", {"size": 7}), ("loa", {"max_moves": 60})]


@pytest.mark.parametrize("name, params", GAMES, ids=[g for g, _ in GAMES])
def test_records_open_in_sgfmill_and_replay_to_the_same_position(name, params, tmp_path):
    result = tournaments.round_robin(["random", "greedy"], game=name, game_params=params, seed=2,
                                     workers=0, progress=False)
    paths = result.to_sgf(tmp_path)
    assert len(paths) == len(result.games) == 2
    game = envs.make_game(name, **params)
    for path, record in zip(paths, result.games):
        data = open(path, "rb").read()
        doc = sgf.Sgf_game.from_bytes(data)  # sgfmill reads it
        root = doc.get_root()
        assert root.get("GM") == game.spec.sgf and root.get("PB") == record["black"]
        assert root.has_property("DT") and root.has_property("RU")
        assert len(doc.get_main_sequence()) - 1 == record["plies"]
        read, states = records.read_sgf(data, **{k: v for k, v in params.items() if k != "size"})
        state = game.initial_state()
        for move in record["moves"]:
            state = game.apply(state, game.str_to_action(state, move))
        assert read.name == name and len(states) == record["plies"] + 1
        assert read.to_text(states[-1]) == game.to_text(state)
        result_text = root.get("RE")
        if record["result"] == "1/2-1/2":
            assert result_text == "0"
        else:
            assert result_text.startswith("B+" if record["result"] == "1-0" else "W+")


def test_go_results_carry_the_margin_komi_and_escaped_names(tmp_path):
    game = envs.make_game("go", size=5, komi=0.5)
    record = {"black": "a]b\\c", "white": "white", "moves": ["C3", "pass", "pass"], "result": "1-0",
              "reason": "normal", "index": 0, "seed": 0}
    data = records.sgf_bytes(game, record, date="2026-11-23")
    root = sgf.Sgf_game.from_bytes(data).get_root()
    assert root.get("PB") == "a]b\\c" and root.get("KM") == 0.5 and root.get("DT") == "2026-11-23"
    assert root.get("RE") == "B+24.5"  # Black owns all 25 points, White has komi
    assert records.sgf_bytes(game, {**record, "reason": "resign"}).endswith(b")\n") and \
        sgf.Sgf_game.from_bytes(records.sgf_bytes(game, {**record, "reason": "resign"})).get_root().get("RE") == "B+R"


def test_setup_stones_are_read_into_the_start_position():
    data = b"(;FF[4]GM[1]SZ[5]KM[0.5]AB[bb][dd]AW[cc]PL[W];W[ee];B[aa])"
    game, states = records.read_sgf(data)
    assert game.params["size"] == 5 and game.params["komi"] == 0.5
    start = game.to_text(states[0]).splitlines()
    assert start[1].split()[2] == "x" and start[2].split()[3] == "o" and start[3].split()[4] == "x"
    assert game.current_player(states[0]) == 1 and len(states) == 3


def test_bad_records_are_typed_errors():
    with pytest.raises(records.RecordError, match="GM\\[3\\]"):
        records.read_sgf(b"(;FF[4]GM[3]SZ[8])")
    with pytest.raises(records.RecordError, match="move 2 \\(B\\) of the record: it is the other side's turn"):
        records.read_sgf(b"(;FF[4]GM[1]SZ[5];B[cc];B[dd])")  # Black twice: not its turn
    with pytest.raises(records.RecordError, match="calculation has no SGF game number"):
        records.sgf_bytes(envs.make_game("calculation"), {"black": "", "white": "", "moves": []})


def test_arbiter_export_writes_a_journal_as_sgf(tmp_path, capsys):
    journal = tmp_path / "run.db"
    tournaments.round_robin(["random", "greedy"], game="othello", game_params={"size": 6}, seed=1, workers=0,
                            journal=str(journal), progress=False)
    assert main(["export", str(journal), "--sgf", str(tmp_path / "sgf")]) == 0
    assert "wrote 2 SGF files" in capsys.readouterr().out
    assert len(list((tmp_path / "sgf").glob("*.sgf"))) == 2


def test_arbiter_play_shows_counts_gives_hints_and_saves_the_game(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    saved = tmp_path / "game.sgf"
    run = subprocess.run([sys.executable, "-m", "tournaments.cli", "play", "--game", "gomoku", "-p", "size=7",
                          "--black", "human", "--white", "random", "--save", str(saved)],
                         input="hint\nd4\nresign\n", capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": str(root)}, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "You play Black." in out and "hint (greedy): " in out
    assert "Black plays d4" in out and "last move: d4" in out and "pieces: x 1, o 0" in out
    assert "Black resigns." in out and "Result: 0-1" in out
    root_node = sgf.Sgf_game.from_bytes(saved.read_bytes()).get_root()
    assert root_node.get("RE") == "W+R" and root_node.get("PB") == "human" and root_node.get("GM") == 4


def test_setup_stones_of_a_moving_game_are_refused():
    with pytest.raises(records.RecordError, match="placement games only, not loa"):
        records.read_sgf(b"(;FF[4]GM[9]SZ[8]AB[aa])")
