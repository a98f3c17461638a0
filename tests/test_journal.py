"""Tournament journals and game records through ``envs.core.outcome.Outcome``: a journal written by an
earlier version (``tests/data/journals``, stored row by row as that version wrote it, before
records carried ``winner``, ``returns``, ``end_reason`` and ``margin``) loads, reports and
resumes; older records with a resignation, forfeits and a draw count as they always did; a
resignation is a loss from the game to the journal, the standings, the ratings and the SGF."""

import json
import sqlite3
from pathlib import Path

from sgfmill import sgf

import agents
import envs
import tournaments
from envs.core.outcome import Outcome
from tournaments.referee import reading, records, report

OLD = json.loads((Path(__file__).parent / "data" / "journals" / "go_round_robin_v1.json").read_text())
CONFIG = json.loads(OLD["meta"]["config"])
GAME = envs.make_game(CONFIG["game"], **CONFIG["game_params"])


def _journal(path, rows):
    """A journal file holding the stored configuration and ``rows`` ((idx, record text) pairs),
    byte for byte as the earlier version wrote them."""
    db = sqlite3.connect(path)
    with db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE games (idx INTEGER PRIMARY KEY, record TEXT NOT NULL)")
        db.executemany("INSERT INTO meta VALUES (?, ?)", list(OLD["meta"].items()))
        db.executemany("INSERT INTO games VALUES (?, ?)", [tuple(r) for r in rows])
    db.close()
    return path


def _run(path, resume):
    return tournaments.round_robin(
        CONFIG["agents"],
        game=CONFIG["game"],
        game_params=CONFIG["game_params"],
        seed=CONFIG["seed"],
        workers=0,
        journal=path,
        resume=resume,
        progress=False,
    )


def test_the_stored_journal_is_of_the_older_form():
    for _, text in OLD["games"]:
        assert {"code", "result", "reason"} <= set(json.loads(text)) and "winner" not in json.loads(text)


def test_an_older_journal_reports_its_standings(tmp_path):
    result = reading.load_journal(_journal(tmp_path / "old.db", OLD["games"]))
    assert result.config["finished"] and result.points == OLD["points"]
    assert [list(p) for p in result.places] == OLD["places"]
    assert result.games == [json.loads(text) for _, text in OLD["games"]]  # read as written
    page = report.render_html(result)
    assert '"result":"0-1","reason":"normal","ending":"0-1, normal"' in page  # no end reason, no margin recorded


def test_an_older_journal_resumes_and_ends_as_a_fresh_run(tmp_path):
    kept = OLD["games"][:3]
    resumed = _run(_journal(tmp_path / "old.db", kept), resume=True)
    fresh = _run(tmp_path / "new.db", resume=False)
    assert resumed.games[:3] == [json.loads(text) for _, text in kept]  # the old records, untouched
    assert resumed.points == fresh.points == OLD["points"]
    assert resumed.places == fresh.places and [list(p) for p in fresh.places] == OLD["places"]
    assert resumed.table() == fresh.table()
    for old, new in zip(resumed.games, fresh.games):  # the same games, each in its version's form
        assert Outcome.from_record(old).result == new["result"] and old["moves"] == new["moves"]
    for new in resumed.games[3:]:
        assert new == {**new, **Outcome.from_record(new).to_record()}
        assert new["end_reason"] in GAME.end_reasons.values() and new["margin"] > 0
    # the journal, half old and half new, opens again: the whole tournament is in it
    assert _run(tmp_path / "old.db", resume=True).games == resumed.games


def test_a_new_record_carries_the_outcome_an_old_one_gets_from_its_moves(tmp_path):
    result = _run(tmp_path / "new.db", resume=False)
    new = result.games
    page = report.render_html(result)
    for record in new:  # the report's caption of the last ply: the score, the rule, the margin
        assert f'"ending":"{record["result"]}, {record["end_reason"]}, by {record["margin"]:g}"' in page
    for old_text, record in zip((t for _, t in OLD["games"]), new):
        old = json.loads(old_text)
        end = GAME.initial_state()
        for move in record["moves"]:
            end = GAME.apply(end, GAME.str_to_action(end, move))
        assert Outcome.from_record(record) == GAME.outcome(end)
        assert record["margin"] == GAME.margin(end) > 0
        # the SGF of the older record names the same result: its margin comes from the last position
        assert _re(old) == _re(record) == GAME.outcome(end).sgf_result


def _re(record) -> str:
    return sgf.Sgf_game.from_bytes(records.sgf_bytes(GAME, record, date="2020-01-01")).get_root().get("RE")


def _older(record: dict, **changes) -> str:
    """``record`` (an older version's) with its outcome changed, in the older form."""
    return json.dumps({**record, **changes})


def test_older_records_of_a_resignation_forfeits_and_a_draw_count_as_they_always_did(tmp_path):
    rows = [json.loads(text) for _, text in OLD["games"]]
    # Black - White: game 0 random - greedy, 1 random - alphabeta, 2 greedy - random, 3 greedy - alphabeta
    edited = [
        (
            0,
            _older(
                rows[0], code=0, result="1-0", reason="resign", detail="lost cause", moves=rows[0]["moves"][:6], plies=6
            ),
        ),
        (
            1,
            _older(
                rows[1],
                code=1,
                result="0-1",
                reason="forfeit-crash",
                detail="RuntimeError: boom",
                moves=rows[1]["moves"][:3],
                plies=3,
            ),
        ),
        (2, _older(rows[2], code=2, result="1/2-1/2", reason="normal", moves=rows[2]["moves"][:8], plies=8)),
        (
            3,
            _older(
                rows[3],
                code=0,
                result="1-0",
                reason="forfeit-timeout",
                detail="move 2 took 3s > 1s",
                moves=rows[3]["moves"][:1],
                plies=1,
            ),
        ),
        *[(i, text) for i, text in OLD["games"][4:]],
    ]
    result = reading.load_journal(_journal(tmp_path / "old.db", edited))
    standings = {s.name: s for s in result.standings()}
    outcomes = result.outcomes()
    assert [o.reason for o in outcomes[:4]] == ["resign", "forfeit-crash", "normal", "forfeit-timeout"]
    assert [_re(g) for g in result.games[:4]] == ["B+R", "W+F", "0", "B+T"]
    for i, name in enumerate(result.names):  # points: wins and half the draws, whatever the reason
        mine = [
            (0 if g["black_id"] == i else 1, o)
            for g, o in zip(result.games, outcomes)
            if i in (g["black_id"], g["white_id"])
        ]
        s = standings[name]
        assert result.points[i] == s.points == s.wins + s.draws / 2
        assert (s.wins, s.draws, s.losses) == (
            sum(o.winner == seat for seat, o in mine),
            sum(o.draw for _, o in mine),
            sum(o.loser == seat for seat, o in mine),
        )
        assert s.forfeits == sum(o.forfeit and o.loser == seat for seat, o in mine)
    # greedy resigned game 0 (no forfeit), random crashed in game 1, alphabeta timed out in game 3
    assert [standings[n].forfeits for n in ("random", "greedy", "alphabeta:depth=1")] == [1, 0, 1]
    assert standings["random"].draws == standings["greedy"].draws == 1 and standings["greedy"].losses == 2
    lines = tournaments.referee.play.forfeit_lines(result.games)
    assert lines[1:] == [
        "Forfeits:",
        "  alphabeta:depth=1: 1 game lost by forfeit-timeout: move 2 took 3s > 1s",
        "  random: 1 game lost by forfeit-crash: RuntimeError: boom",
    ]


class Resigns(agents.Agent):
    """Resigns at its first move: a result, not a fault."""

    name = "resigns"

    def act(self, game, state):
        raise agents.Resign("no chance")


def test_a_resignation_is_a_loss_from_the_game_to_the_journal_ratings_and_sgf(tmp_path):
    path = tmp_path / "resign.db"
    result = tournaments.round_robin(
        [Resigns(), "random"], game="go", size=5, seed=1, workers=0, journal=path, progress=False
    )
    assert [(g["reason"], g["result"], g["detail"], g["plies"]) for g in result.games] == [
        ("resign", "0-1", "no chance", 0),
        ("resign", "1-0", "no chance", 1),
    ]
    assert [Outcome.from_record(g) for g in result.games] == [
        Outcome.loss(0, "resign", "no chance"),
        Outcome.loss(1, "resign", "no chance"),
    ]
    resigner = next(s for s in result.standings() if s.name == "resigns")
    assert (resigner.points, resigner.losses, resigner.forfeits) == (0.0, 2, 0)
    assert result.crosstable()[0, 1] == 0 and result.crosstable()[1, 0] == 2
    assert {n: e for n, e, _ in result.ratings()}["resigns"] < 0
    assert tournaments.referee.play.forfeit_lines(result.games) == []
    assert [_re(g) for g in result.games] == ["W+R", "B+R"]
    again = reading.load_journal(path)
    assert again.games == result.games and again.points == result.points
