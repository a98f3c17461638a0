"""SGF records of the board games: written with sgfmill, opened by sgfmill, read back into the
same positions and the same rules; setup stones; the result, names and rules in the root; every
bad record a typed error naming the property and its value."""

import numpy as np
import pytest
from sgfmill import sgf

import envs
import tournaments
from envs.testing import small_params
from tournaments.cli import main
from tournaments.referee import records

# every registered game with an SGF game number, on its smallest board
GAMES = [(spec.name, small_params(spec)) for spec in envs.specs() if spec.sgf is not None]


@pytest.mark.parametrize("name, params", GAMES, ids=[g for g, _ in GAMES])
def test_records_open_in_sgfmill_and_replay_to_the_same_position(name, params, tmp_path):
    result = tournaments.round_robin(
        ["random", "greedy"], game=name, game_params=params, seed=2, workers=0, progress=False
    )
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
    record = {
        "black": "a]b\\c",
        "white": "white",
        "moves": ["C3", "pass", "pass"],
        "result": "1-0",
        "reason": "normal",
        "index": 0,
        "seed": 0,
    }
    data = records.sgf_bytes(game, record, date="2026-11-23")
    root = sgf.Sgf_game.from_bytes(data).get_root()
    assert root.get("PB") == "a]b\\c" and root.get("KM") == 0.5 and root.get("DT") == "2026-11-23"
    assert root.get("RE") == "B+24.5"  # Black owns all 25 points, White has komi
    assert (
        records.sgf_bytes(game, {**record, "reason": "resign"}).endswith(b")\n")
        and sgf.Sgf_game.from_bytes(records.sgf_bytes(game, {**record, "reason": "resign"})).get_root().get("RE")
        == "B+R"
    )


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
    with pytest.raises(records.RecordError, match=r"move 2 \(B\[dd\]\) of the record: it is White's turn"):
        records.read_sgf(b"(;FF[4]GM[1]SZ[5];B[cc];B[dd])")  # Black twice: not its turn
    with pytest.raises(records.RecordError, match="calculation has no SGF game number"):
        records.sgf_bytes(envs.make_game("calculation"), {"black": "", "white": "", "moves": []})


def test_arbiter_export_writes_a_journal_as_sgf(tmp_path, capsys):
    journal = tmp_path / "run.db"
    tournaments.round_robin(
        ["random", "greedy"],
        game="othello",
        game_params={"size": 6},
        seed=1,
        workers=0,
        journal=str(journal),
        progress=False,
    )
    assert main(["export", str(journal), "--sgf", str(tmp_path / "sgf")]) == 0
    assert "wrote 2 SGF files" in capsys.readouterr().out
    assert len(list((tmp_path / "sgf").glob("*.sgf"))) == 2


def test_arbiter_play_shows_counts_gives_hints_and_saves_the_game(tmp_path, run_script):
    saved = tmp_path / "game.sgf"
    run = run_script(
        "-m",
        "tournaments.cli",
        "play",
        "--game",
        "gomoku",
        "-p",
        "size=7",
        "--black",
        "human",
        "--white",
        "random",
        "--save",
        saved,
        input="hint\nd4\nresign\n",
        timeout=300,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "You play Black." in out and "hint (greedy): " in out
    assert "Black plays d4" in out and "last move: d4" in out and "pieces: x 1, o 0" in out
    assert "Result: 0-1" in out and "resign" in out
    root_node = sgf.Sgf_game.from_bytes(saved.read_bytes()).get_root()
    assert root_node.get("RE") == "W+R" and root_node.get("PB") == "human" and root_node.get("GM") == 4


def test_setup_stones_of_a_moving_game_are_refused():
    with pytest.raises(records.RecordError, match="placement games only, not loa"):
        records.read_sgf(b"(;FF[4]GM[9]SZ[8]AB[aa])")


def _variants(spec):
    """Parameter sets of ``spec``'s game, one parameter off its default at a time, then each
    rule preset: every value a choice takes, a board size's ends, komi and caps."""
    sets = [{"rules": preset} for preset in spec.presets]
    for param in spec.params:
        values = []
        if param.choices is not None:
            values = [c for c in param.choices if c != param.default]
        elif param.number:
            values = [0, -3.5, 6.5]
        elif param.name == "size":
            values = [v for v in (param.low, param.high) if v != param.default]
        else:
            values = [20]
        if param.optional and param.default is not None:
            values.append(None)
        sets += [{param.name: v} for v in values]
    return sets


SGF_GAMES = [(spec.name, params) for spec in envs.specs() if spec.sgf is not None for params in _variants(spec)]


@pytest.mark.parametrize("name, params", SGF_GAMES, ids=[f"{g}-{p}" for g, p in SGF_GAMES])
def test_every_rule_parameter_survives_the_round_trip(name, params):
    game = envs.make_game(name, **params)
    rng = np.random.default_rng(0)
    state, moves = game.initial_state(), []
    while not game.is_terminal(state) and len(moves) < 12:
        action = int(rng.choice(game.legal_actions(state)))
        moves.append(game.action_to_str(state, action))
        state = game.apply(state, action)
    record = {"black": "a", "white": "b", "moves": moves, "result": "1/2-1/2", "seed": 0}
    read, states = records.read_sgf(records.sgf_bytes(game, record))  # nothing but the record
    assert (read.name, read.rules, dict(read.params)) == (name, game.rules, dict(game.params))
    assert read.to_text(states[-1]) == game.to_text(state) and len(states) == len(moves) + 1


def test_an_exact_five_gomoku_comes_back_with_its_rule():
    game = envs.make_game("gomoku", size=9, exact_five=True)
    data = records.sgf_bytes(game, {"black": "a", "white": "b", "moves": ["e5"], "result": "1-0"})
    root = sgf.Sgf_game.from_bytes(data).get_root()
    assert root.get("RU") == "Gomoku, standard rules (size=9, exact_five=True)"
    read, _ = records.read_sgf(data)
    assert read.params["exact_five"] is True and read.params["size"] == 9
    # the caller may still override what the record says
    assert records.read_sgf(data, exact_five=False)[0].params["exact_five"] is False


def test_a_record_without_sz_has_sgfs_default_board():
    assert records.read_sgf(b"(;FF[4]GM[1];B[pd])")[0].params["size"] == 19  # FF[4]: Go is 19x19
    game, states = records.read_sgf(b"(;FF[4]GM[2];B[dc])")  # Othello 8x8
    assert game.params["size"] == 8 and len(states) == 2
    assert records.read_sgf(b"(;FF[4]GM[4];B[hh])")[0].params["size"] == 15  # Gomoku 15x15


def test_a_rule_text_of_another_program_leaves_the_game_defaults():
    game, states = records.read_sgf(b"(;FF[4]GM[1]SZ[9]KM[6.5]RU[Japanese];B[ee])")
    assert dict(game.params) == {**envs.make_game("go").params, "size": 9, "komi": 6.5} and len(states) == 2


@pytest.mark.parametrize(
    "data, message",
    [
        (b"(;FF[4]GM[1]SZ[5];B[zz])", "move 1 (B[zz]) of the record: not a point of the 5x5 board"),
        (b"(;FF[4]GM[2]SZ[8];B[cc];W[])", "move 1 (B[cc]) of the record: action 18 (c3) is not legal here"),
        (b"(;FF[4]GM[1]SZ[5]PL[x];B[aa])", "PL[x]: expected B or W"),
        (b"(;FF[4]GM[1]SZ[5]AB[aa][bb]AW[bb])", "AB and AW both name [bb]: a point holds one stone or none"),
        (b"(;FF[4]GM[1]SZ[5]AB[aa:cc]AE[bb])", "AB and AE both name [bb]"),
        (b"(;FF[4]GM[1]SZ[5]AB[zz])", "AB[zz]: not a point"),
        (b"(;FF[4]GM[1]SZ[5]AB[cc:aa])", "AB[cc:aa]: not a point (or a rectangle"),
        (b"(;FF[4]GM[1]SZ[5]KM[nan])", "KM[nan]: expected a finite number"),
        (b"(;FF[4]GM[1]SZ[5]KM[1e400])", "KM[1e400]: expected a finite number"),
        (b"(;FF[4]GM[1]SZ[5]KM[x])", "KM[x]: expected a finite number"),
        (b"(;FF[4]GM[1]SZ[5]KM[0.3])", "KM[0.3]: komi=0.3: expected a multiple of 0.5"),
        (b"(;FF[4]GM[x]SZ[5])", "GM[x]: expected an SGF game number"),
        (b"(;FF[4]GM[1]SZ[x])", "SZ[x]: expected a square board's side"),
        (b"(;FF[4]GM[1]SZ[42])", "SZ[42]: size out of range: 42"),
        (b"(;FF[4]GM[1]SZ[20])", "SZ[20]: size=20: expected an integer from 5 to 19"),
        (b"(;FF[4]GM[9]SZ[9])", "SZ[9]: loa is played on 8x8"),
        (b"(;FF[4]GM[1]SZ[5]RU[Go, standard rules (size=7)])", "SZ[5] and RU[Go, standard rules (size=7)] disagree"),
        (
            b"(;FF[4]GM[1]SZ[5]KM[1]RU[Go, standard rules (komi=2)])",
            "KM[1] and RU[Go, standard rules (komi=2)] disagree",
        ),
        (b"(;FF[4]GM[1]RU[Go, fancy rules])", "RU[Go, fancy rules]: go has no rule preset 'fancy'"),
        (
            b"(;FF[4]GM[1]RU[Go, standard rules (ko=1)])",
            "RU[Go, standard rules (ko=1)]: 'ko=1' is not a parameter of go",
        ),
        (b"(;FF[4]GM[1]RU[Go, standard rules (superko=maybe)])", "superko=maybe: expected one of illegal, draw"),
        (b"(;FF[4]GM[1]RU[Go, standard rules (max_moves=lots)])", "max_moves=lots: expected an integer"),
        (b"(;FF[4]GM[1]SZ[5];B[cc]W[dd])", "move 1: one node holds both B[cc] and W[dd]"),
        (b"(;FF[4]GM[9]SZ[8];B[e1-e9])", "move 1 (B[e1-e9]) of the record: move 'e1-e9'"),
        (b"(;FF[4]GM[1]SZ[5];B[];W[];B[cc])", "move 3 (B[cc]) of the record: action 12 played after the game ended"),
        (b"not sgf", "not a readable SGF record"),
        (b"(;GM[1]C[;;;]" + b";B[]" * 50_000 + b")", "the record has 50001 nodes, more than the 50000"),
    ],
    ids=lambda value: value[:40].decode(errors="replace") if isinstance(value, bytes) else None,
)
def test_every_bad_record_names_the_property_and_its_value(data, message):
    with pytest.raises(records.RecordError) as info:
        records.read_sgf(data)
    assert message in str(info.value)


def test_a_handicap_record_starts_with_white_and_pl_sets_the_side_to_move():
    game, states = records.read_sgf(b"(;FF[4]GM[1]SZ[9]AB[cc][gg];W[ee])")  # no PL: White moves first
    assert game.current_player(states[0]) == 1 and len(states) == 2
    game, states = records.read_sgf(b"(;FF[4]GM[1]SZ[9]PL[W];W[ee];B[cc])")  # PL alone: no stones
    assert game.current_player(states[0]) == 1 and len(states) == 3
    game, states = records.read_sgf(b"(;FF[4]GM[1]SZ[13]AB[aa][mm]AW[am]PL[B])")  # two-digit rows
    rows = game.to_text(states[0]).splitlines()
    assert rows[0].split()[1] == "x" and rows[12].split()[1:] == ["o"] + ["."] * 11 + ["x"]
