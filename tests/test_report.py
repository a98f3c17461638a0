"""``arbiter report``: a journal becomes one self-contained HTML page. The page is checked twice:
as text (the journal replays to the run's standings, nothing is fetched from the network) and,
when Debian's chromium and playwright are installed, in a headless browser (no script errors, the
standings shown are the journal's, stepping a game redraws the board) for every board game."""

import html
import os
import shutil
import sqlite3
from html.parser import HTMLParser

import pytest

import envs
import tournaments
from envs.testing import small_params
from tournaments.cli import main
from tournaments.referee import reading, report
from tournaments.referee.journal import JournalError
from tournaments.referee.runner import place_text

# every registered board game (two players: a round robin's games), on its smallest board
GAMES = {spec.name: small_params(spec) for spec in envs.specs() if spec.num_players == 2}
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    """One finished round robin journal per board game: (path, the run's TournamentResult);
    Gomoku's has a third player, for the tests of a bigger table."""
    out = {}
    for name, params in GAMES.items():
        path = tmp_path_factory.mktemp(name) / "run.db"
        agents = ["random", "greedy", "alphabeta:depth=1"] if name == "gomoku" else ["random", "greedy"]
        result = tournaments.round_robin(
            agents, game=name, game_params=params, seed=3, workers=0, journal=path, progress=False
        )
        out[name] = (path, result)
    return out


class _Standings(HTMLParser):
    """The rows of the page's ``#standings`` table, as lists of cell texts."""

    def __init__(self):
        super().__init__()
        self.rows, self.inside, self.cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and dict(attrs).get("id") == "standings":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag == "td":
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag == "td":
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def expected_rows(result):
    return [
        [
            place_text(s.place, s.tied),
            s.name,
            f"{s.points:g}",
            str(s.games),
            f"{s.wins}-{s.draws}-{s.losses}",
            str(s.forfeits),
        ]
        for s in result.standings()
    ]


def test_a_journal_replays_to_the_runs_result(journals):
    for name, (path, result) in journals.items():
        back = reading.load_journal(path)
        assert (back.names, back.places, back.points, back.games) == (
            result.names,
            result.places,
            result.points,
            result.games,
        ), name
        assert back.config["finished"] is True


@pytest.mark.parametrize("system, options", [("swiss", {}), ("olympic", {"k": 2})])
def test_swiss_and_olympic_journals_replay(system, options, tmp_path):
    """Byes (an odd Swiss field) and first-to-k matches come back as the run had them."""
    field = ["random", "greedy", "alphabeta:depth=1"] + (["random"] if system == "olympic" else [])
    result = tournaments.run(
        system,
        field,
        game="gomoku",
        game_params={"size": 7},
        seed=5,
        workers=0,
        journal=tmp_path / "j.db",
        progress=False,
        **options,
    )
    back = reading.load_journal(tmp_path / "j.db")
    assert (back.names, back.places, back.points, back.games, back.byes) == (
        result.names,
        result.places,
        result.points,
        result.games,
        result.byes,
    )
    assert bool(back.byes) == (system == "swiss") and back.names[-1] == (
        "random#2" if system == "olympic" else "alphabeta:depth=1"
    )


def test_the_page_is_self_contained_and_shows_the_standings(journals, tmp_path):
    path, result = journals["gomoku"]
    out = report.write_report(path, tmp_path / "r.html")
    page = open(out, encoding="utf-8").read()
    parser = _Standings()
    parser.feed(page)
    assert [r for r in parser.rows if r] == expected_rows(result)
    assert "<link" not in page and " src=" not in page and "@import" not in page  # nothing fetched
    assert page.count("<svg") == 1 and "id='crosstable'" in page and "Black's score" in page
    assert open(report.write_report(result, tmp_path / "same.html"), encoding="utf-8").read() == page


def test_the_page_shows_the_rating_table_los_pairs_and_the_trust_line(tmp_path):
    result = tournaments.round_robin(
        ["random", "greedy", "alphabeta:depth=1"],
        game="gomoku",
        size=7,
        games=4,
        opening_plies=2,
        seed=3,
        workers=0,
        progress=False,
    )
    page = open(report.write_report(result, tmp_path / "r.html"), encoding="utf-8").read()
    stats, trust = result.statistics(), result.trust()
    table = page.split("id='rating-table'")[1].split("</table>")[0]
    for r in stats.ratings:  # every agent with its rounded Elo, margin and P(best), strongest first
        assert f"<td class='name'>{r.name}</td><td>{round(r.elo):+d}</td><td>{r.margin:.0f}</td>" in table
    assert [line.split("<td class='name'>")[1].split("<")[0] for line in table.split("<tr>")[2:]] == [
        r.name for r in stats.ratings
    ]
    assert "id='los'" in page and "id='pairs'" in page and page.count("<td class='name'>") >= 3
    shown = [html.unescape(p.split(">", 1)[1]) for p in page.split("<p class='trust'")[1:]]
    assert [p.split("</p>")[0] for p in shown] == trust.sentences()


def test_replay_marks_the_last_move(journals):
    path, result = journals["loa"]
    game = __import__("envs").make_game("loa")
    seen = report.replay(game, result.games[0])
    assert len(seen["boards"]) == len(result.games[0]["moves"]) + 1
    assert seen["boards"][0].count("b") == 12 and seen["boards"][0].count("w") == 12
    dots, frames = seen["marks"][1]
    assert len(dots) == 1 and len(frames) == 1  # LOA: the square reached and the one left


def test_an_unfinished_journal_reports_the_games_so_far(journals, tmp_path):
    path, result = journals["gomoku"]
    cut = tmp_path / "cut.db"
    shutil.copy(path, cut)
    with sqlite3.connect(cut) as db:
        db.execute("DELETE FROM games WHERE idx >= 4")
    back = reading.load_journal(cut)
    assert back.config["finished"] is False and [g["index"] for g in back.games] == [0, 1, 2, 3]
    assert sum(back.points) == 4 and sum(s.games for s in back.standings()) == 8
    best = max(back.points)
    assert [lo for (lo, _), p in zip(back.places, back.points) if p == best] and all(
        lo == 1 for (lo, _), p in zip(back.places, back.points) if p == best
    )
    assert "id='unfinished'" in open(report.write_report(cut, tmp_path / "cut.html")).read()


def test_not_a_journal(tmp_path):
    with pytest.raises(JournalError, match="no such"):
        reading.load_journal(tmp_path / "missing.db")
    bad = tmp_path / "bad.db"
    bad.write_text("not sqlite at all, just text" * 40)
    with pytest.raises(JournalError, match="not a readable"):
        reading.load_journal(bad)


def test_cli_report(journals, tmp_path, capsys):
    path, _ = journals["othello"]
    assert main(["report", str(path), "-o", str(tmp_path / "o.html")]) == 0
    assert os.path.getsize(tmp_path / "o.html") > 1000 and "wrote" in capsys.readouterr().out


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_page_works_in_a_browser(name, journals, browser, tmp_path):
    path, result = journals[name]
    out = report.write_report(path, tmp_path / f"{name}.html")
    page = browser.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto("file://" + os.path.abspath(out))
    rows = page.eval_on_selector_all(
        "#standings tbody tr", "trs => trs.map(tr => [...tr.cells].map(td => td.textContent))"
    )
    assert rows == expected_rows(result)
    board = page.eval_on_selector("#board", "c => c.toDataURL()")
    assert page.text_content("#ply").startswith("ply 0 / ")
    page.click("#next")
    assert page.text_content("#ply").startswith("ply 1 / ")
    assert page.eval_on_selector("#board", "c => c.toDataURL()") != board  # the first move is drawn
    page.keyboard.press("End")
    plies = len(result.games[0]["moves"])
    assert page.text_content("#ply").startswith(f"ply {plies} / {plies}")
    page.keyboard.press("Home")
    assert page.eval_on_selector("#board", "c => c.toDataURL()") == board
    page.click("#games-list tbody tr:nth-child(2)")
    assert page.evaluate("window.arbiterViewer.game") == 1
    assert page.text_content("#game-title").startswith(f"Game {result.games[1]['index'] + 1} ")
    assert errors == []
    page.close()


def test_colour_statistics_and_the_trust_model_credit_games_to_the_agents_they_name():
    """Records read with the agents' names in another order (as ``arbiter ratings`` and the
    report may get them) are credited by the names they carry, not by their positions."""
    import dataclasses

    from tournaments.referee.report import colour_stats
    from tournaments.referee.trust import fitted_model

    result = tournaments.round_robin(
        ["random", "greedy", "minimax:depth=1"], game="othello", size=6, games=4, seed=5, workers=0, progress=False
    )
    shuffled = dataclasses.replace(result, names=tuple(reversed(result.names)))
    by_agent = {a["name"]: a for a in colour_stats(result)["agents"]}
    assert {a["name"]: a for a in colour_stats(shuffled)["agents"]} == by_agent
    assert by_agent["greedy"]["black"] != by_agent["random"]["black"]  # (the check can fail)
    assert fitted_model(shuffled.names, result.games) == pytest.approx(fitted_model(result.names, result.games))
