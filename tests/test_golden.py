"""Replay every OpenSpiel game record in tests/data/golden with ``rules="openspiel"``.

At every ply the set of legal moves (in our notation) must equal the record's, the move played
must parse, and the board after the move must match; at the end the game must be over with the
record's returns. The records' format and coordinate mapping are in tests/data/golden/README.md.
"""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

import envs

GOLDEN = Path(__file__).parent / "data" / "golden"
GO_COLUMNS = "ABCDEFGHJKLMNOPQRST"


def _records():
    for path in sorted(GOLDEN.glob("*.jsonl.gz")):
        with gzip.open(path, "rt") as f:
            for line in f:
                yield json.loads(line)


RECORDS = list(_records())


def _game(record):
    cfg = record["config"]
    kind = record["game"]
    if kind == "lines_of_action":
        return envs.make_game("loa", rules="openspiel", max_moves=cfg["max_game_length"])
    if kind == "othello":
        return envs.make_game("othello", rules="openspiel", size=cfg.get("size", 8))
    if kind == "gomoku":
        assert cfg["connect"] == 5 and not cfg["anti"] and not cfg["wrap"]
        return envs.make_game("gomoku", rules="openspiel", size=cfg["size"])
    if kind == "go":
        return envs.make_game(
            "go", rules="openspiel", size=cfg["board_size"], komi=cfg["komi"], max_moves=cfg["max_game_length"]
        )
    raise AssertionError(f"unexpected game {kind}")


def _square(kind, n, rc):
    r, c = rc
    if kind == "lines_of_action":
        return f"{'abcdefgh'[c]}{8 - r}"
    if kind == "othello":
        return f"{'abcdefghijklmnop'[c]}{r + 1}"
    if kind == "gomoku":
        return f"{'abcdefghijklmnopqrs'[c]}{n - r}"
    return f"{GO_COLUMNS[c]}{n - r}".lower()


def _neutral(kind, n, move):
    """A record's neutral move in our notation, lower case, LOA captures written with '-'."""
    if move == "pass":
        return "pass"
    if kind == "lines_of_action":
        return f"{_square(kind, n, move['from'])}-{_square(kind, n, move['to'])}"
    return _square(kind, n, move)


def _ours(game, state, action):
    return (
        game.action_to_str(state, action).lower().replace("x", "-")
        if game.name == "loa"
        else (game.action_to_str(state, action).lower())
    )


def _board(game, state, n):
    """Rows of x / o / . from seat 0's observation planes (channel 0 own, channel 1 opponent)."""
    obs = game.observation(state, 0)
    grid = np.where(obs[0] > 0, "x", np.where(obs[1] > 0, "o", "."))
    return ["".join(row) for row in grid]


def test_all_records_present():
    assert len(RECORDS) == 252


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_replay(record):
    kind = record["game"]
    game = _game(record)
    n = int(np.sqrt(game.observation(game.initial_state(), 0)[0].size))
    state = game.initial_state()
    for k, move in enumerate(record["moves"]):
        assert not game.is_terminal(state), f"ply {k}: our game ended early"
        ours = {_ours(game, state, a) for a in game.legal_actions(state)}
        theirs = {_neutral(kind, n, m) for m in record["legal"][k]}
        assert ours == theirs, f"ply {k}: legal moves differ: ours-only {ours - theirs}, theirs-only {theirs - ours}"
        text = record["action_strings"][k] if kind == "lines_of_action" else _neutral(kind, n, move)
        state = game.apply(state, game.str_to_action(state, text))
        assert _board(game, state, n) == record["boards"][k].split("/"), f"ply {k}: board differs"
    assert game.is_terminal(state), "record ended but our game goes on"
    assert list(game.returns(state)) == record["returns"]
    assert _board(game, state, n) == record["final_board"]
