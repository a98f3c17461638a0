"""The rating lists: one round robin per game, journaled, fitted and written as a CCRL-style table."""

from __future__ import annotations

import pytest

from tournaments.studies import rating_lists, strength
from tournaments.studies.rating_lists import BEGIN, END, Field, RatingListError

SMALL = Field(
    "Othello 6x6",
    "othello",
    {"size": 6},
    (("random", "random"), ("greedy", "greedy"), ("minimax", "minimax:depth=1")),
)


def test_every_two_player_game_has_a_list_anchored_at_greedy():
    chosen = rating_lists.fields()
    assert [f.label for f in chosen] == ["LOA 8x8", "Othello 8x8", "Gomoku 15x15", "Go 9x9"]
    for f in chosen:
        labels = [label for label, _ in f.players]
        assert labels[:5] == list(strength.AGENTS)
        assert "alphazero" in labels
        assert f.spec_of(f.anchor[0]) == "greedy"
    go = next(f for f in chosen if f.game == "go")
    assert "--level 10" in go.spec_of("gnugo-10") and go.params == {"size": 9}
    assert [f.label for f in rating_lists.fields(["othello"], learned=False, engines=False)] == ["Othello 8x8"]
    assert [label for label, _ in rating_lists.fields(["go"], learned=False, engines=False)[0].players] == list(
        strength.AGENTS
    )


def test_an_unknown_game_or_player_is_refused_by_name():
    with pytest.raises(RatingListError, match="chess"):
        rating_lists.fields(["chess"])
    with pytest.raises(RatingListError, match="'gnugo-1' is not a player"):
        SMALL.spec_of("gnugo-1")


def test_a_pair_plays_colour_pairs_and_a_journal_is_not_overwritten(tmp_path):
    with pytest.raises(RatingListError, match="games=3"):
        rating_lists.play(SMALL, tmp_path / "a.db", games=3, workers=0)
    journal = tmp_path / "a.db"
    journal.write_text("")
    with pytest.raises(RatingListError, match="exists"):
        rating_lists.play(SMALL, journal, games=2, workers=0)


def test_the_list_is_written_between_its_markers_and_regenerated_from_the_journals(tmp_path):
    doc = tmp_path / "strength.md"
    doc.write_text("# Strength\n\nkept above\n")
    meta = rating_lists.run([SMALL], doc, journals=tmp_path / "j", games=4, workers=0, command="cmd")
    assert meta["played"] == 12 and meta["read"] == 0
    text = doc.read_text()
    assert text.startswith("# Strength\n\nkept above\n\n## Rating lists\n\n" + BEGIN)
    assert text.rstrip().endswith(END)
    rows = [line for line in text.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert [r.split(" | ")[1] for r in rows] == ["minimax", "greedy", "random"]  # every pair decided here
    elos = [int(r.split(" | ")[2]) for r in rows]
    assert elos == sorted(elos, reverse=True) and elos[1] == 0
    assert [r.split(" | ")[3] == "anchor" for r in rows] == [False, True, False]
    assert sum(int(r.split(" | ")[7]) for r in rows) == 2 * 12

    # kept text around the block survives; a complete journal is read, not played again
    doc.write_text(doc.read_text() + "\nkept below\n")
    again = rating_lists.run([SMALL], doc, journals=tmp_path / "j", games=4, workers=0, resume=True, command="cmd")
    assert again["played"] == 0 and again["read"] == 12
    new = doc.read_text()
    assert new.count(BEGIN) == 1 and "kept above" in new and new.rstrip().endswith("kept below")
    assert [r for r in new.splitlines() if r.startswith("| ") and r[2].isdigit()] == rows


def test_the_average_opponent_weights_each_opponent_by_games(tmp_path):
    rating_lists.play(SMALL, tmp_path / "a.db", games=2, workers=0, progress=False)
    stats = rating_lists.ratings(SMALL, tmp_path / "a.db")
    elo = {r.name: r.elo for r in stats.ratings}
    # a round robin: every opponent the same number of games, so the plain mean of the others
    for name in elo:
        others = [e for n, e in elo.items() if n != name]
        assert rating_lists.average_opponent(stats, name) == pytest.approx(sum(others) / len(others))
    assert elo["greedy"] == 0.0


def test_a_missing_engine_is_left_out_and_named(tmp_path, monkeypatch):
    monkeypatch.setattr(strength, "GNUGO", str(tmp_path / "no-gnugo"))
    go = Field(
        "Go 7x7",
        "go",
        {"size": 7},
        (("random", "random"), ("greedy", "greedy"), ("gnugo-1", rating_lists.engine_spec("gnugo-1"))),
    )
    assert set(rating_lists.unavailable(go)) == {"gnugo-1"}
    doc = tmp_path / "out.md"
    meta = rating_lists.run([go], doc, journals=tmp_path / "j", games=2, workers=0)
    assert meta["played"] == 2
    text = doc.read_text()
    assert "- `gnugo-1` did not play:" in text and "apt-get install gnugo" in text
    assert "| gnugo-1 |" not in text.split("### Go 7x7", 1)[1]
