"""What a tournament's games say and how far to trust its ranking: the rating table (LOS, P(best),
colour pairs), anchored ratings pooled from journals (``arbiter ratings``), and the trust line,
which must be the study's simulator asked about the run."""

import math
import shutil
import sqlite3

import numpy as np
import pytest
from said import said

import tournaments
from tournaments.analysis import ratings, sprt
from tournaments.analysis.statistics import RatingsError, colour_pairs, statistics
from tournaments.cli import main
from tournaments.referee.reading import rating_list
from tournaments.referee.runner import TournamentResult
from tournaments.referee.trust import SETTLE_GRID, fitted_model
from tournaments.studies.championship import simulate

CODES = {"1-0": 0, "0-1": 1, "1/2-1/2": 2}
GAME = {"game": "gomoku", "size": 7}


def record(index, black, white, result, names, round=1, moves=(), opening=0):
    return {
        "index": index,
        "round": round,
        "black": names[black],
        "white": names[white],
        "black_id": black,
        "white_id": white,
        "seed": 0,
        "code": CODES[result],
        "result": result,
        "reason": "normal",
        "moves": list(moves),
        "opening": opening,
    }


def result_of(system, names, records, **options):
    n = len(names)
    return TournamentResult(
        {"system": system, "game": "gomoku", "game_params": {"size": 7}, "options": options, "seed": 0},
        tuple(names),
        [(1, n)] * n,
        [0.0] * n,
        records,
    )


def dominant(games_per_pair=20):
    """Agent "top" wins every game; the three others draw every game among themselves."""
    names = ["top", "a", "b", "c"]
    games = []
    for i in range(4):
        for j in range(4):
            for _ in range(games_per_pair // 2 if i != j else 0):
                result = "1-0" if i == 0 else "0-1" if j == 0 else "1/2-1/2"
                games.append(record(len(games), i, j, result, names))
    return result_of("round_robin", names, games, games=games_per_pair)


# -- ratings, LOS, P(best) ---------------------------------------------------------------------------
def test_a_dominant_agent_is_superior_and_the_best_and_equals_are_coin_tosses():
    stats = dominant().statistics()
    top = stats.ratings[0]
    assert top.name == "top" and top.score == 1.0 and top.games == 60 and top.draws == 0.0
    assert all(stats.los_of("top", other) > 0.99 for other in "abc")
    assert top.p_best > 0.99 and sum(r.p_best for r in stats.ratings) == pytest.approx(1.0)
    for x in "abc":
        for y in "abc":
            if x != y:
                # posterior draws: a coin toss within their Monte Carlo error (a standard error below 0.4 points)
                assert stats.los_of(x, y) == pytest.approx(0.5, abs=0.012)
    assert np.allclose(stats.los + stats.los.T, 1.0)
    assert [r.draws for r in stats.ratings[1:]] == [2 / 3] * 3  # 20 draws of 30 games each
    text = stats.table()
    assert "LOS" in text and "P(best)" in text and ">99%" in text


def test_p_best_is_seeded_and_the_interval_agrees_with_the_covariance():
    fit = ratings.fit(np.array([[0, 6, 5], [4, 0, 6], [5, 4, 0]], float), np.full((3, 3), 10.0) - 10 * np.eye(3))
    assert np.array_equal(fit.p_best(seed=3), fit.p_best(seed=3))
    assert np.allclose(fit.half, 1.96 * np.sqrt(np.diag(fit.cov)))
    elo, half = ratings.bradley_terry(
        np.array([[0, 6, 5], [4, 0, 6], [5, 4, 0]], float), np.full((3, 3), 10.0) - 10 * np.eye(3)
    )
    assert np.allclose(elo, fit.elo) and np.allclose(half, fit.half) and abs(fit.elo.mean()) < 1e-9


def test_one_anchor_shifts_the_scale_exactly_and_several_are_fixed():
    rng = np.random.default_rng(1)
    games = np.triu(rng.integers(1, 8, (5, 5)), 1)
    games = games + games.T
    scores = np.zeros((5, 5))
    for i in range(5):
        for j in range(i + 1, 5):
            scores[i, j] = rng.integers(0, 2 * games[i, j] + 1) / 2
            scores[j, i] = games[i, j] - scores[i, j]
    free = ratings.fit(scores, games)
    one = ratings.fit(scores, games, {2: 1500.0})
    assert np.allclose(one.elo, free.elo - free.elo[2] + 1500.0) and one.half[2] == 0
    assert np.allclose(one.los(), free.los())  # differences and their uncertainty do not move
    two = ratings.fit(scores, games, {0: 1000.0, 4: 1200.0})
    assert two.elo[0] == 1000.0 and two.elo[4] == 1200.0 and two.half[0] == two.half[4] == 0
    assert list(np.argsort(-two.elo[1:4])) == list(np.argsort(-free.elo[1:4]))


# -- colour pairs ------------------------------------------------------------------------------------
def test_colour_pairs_share_an_opening_and_count_as_pentanomials():
    names = ["x", "y", "z"]
    games = [
        record(0, 0, 1, "1-0", names, moves=["a1", "b2", "c3"], opening=2),
        record(1, 1, 0, "1-0", names, moves=["a1", "b2", "d4"], opening=2),  # x lost with White: 1 of 2
        record(2, 0, 1, "1-0", names, moves=["c3", "d4", "a1"], opening=2),
        record(3, 1, 0, "0-1", names, moves=["c3", "d4"], opening=2),  # x won both: 2 of 2
        record(4, 0, 2, "1-0", names, moves=["a1", "b2"], opening=2),
        record(5, 2, 0, "1-0", names, moves=["c3", "d4"], opening=2),  # another opening: no pair
        record(6, 1, 0, "1-0", names, moves=["e5", "b2"], opening=2, round=2),
    ]  # alone in its round
    pairs = colour_pairs(games)
    assert [(a["index"], b["index"]) for a, b in pairs] == [(0, 1), (2, 3)]
    stats = statistics(names, games)
    xy = next(e for e in stats.encounters if {e.a, e.b} == {"x", "y"})
    counts = xy.pentanomial if xy.a == "x" else tuple(reversed(xy.pentanomial))
    assert counts == (0, 0, 1, 0, 1) and xy.games == 5
    assert (xy.elo, xy.elo_lo, xy.elo_hi) == sprt.elo_interval(xy.pentanomial)
    assert all(e.pairs == 0 for e in stats.encounters if {e.a, e.b} != {"x", "y"})
    assert stats.pentanomial() == xy.pentanomial


def test_a_round_robin_with_openings_counts_each_encounter_in_pairs():
    r = tournaments.round_robin(
        ["random", "greedy", "random:seed=7"], games=4, opening_plies=2, workers=0, progress=False, seed=2, **GAME
    )
    stats = r.statistics()
    assert len(stats.encounters) == 3 and all(e.pairs == 2 and e.games == 4 for e in stats.encounters)
    for e in stats.encounters:  # the pairs' points are the encounter's points
        assert sum(k / 2 * c for k, c in enumerate(e.pentanomial)) == pytest.approx(e.points)
    assert "Colour pairs" in r.table() and "Likelihood of superiority" in r.table()


# -- the trust line ----------------------------------------------------------------------------------
def test_the_trust_line_is_the_simulators_estimate_for_the_same_inputs():
    r = dominant(games_per_pair=6)
    trust = r.trust()
    sim = trust.simulation
    assert sim["system"] == "round_robin" and sim["n_players"] == 4 and sim["games"] == 6
    assert sim["strengths"] == ("normal", trust.spread) and trust.spread > 0
    assert sim["draw"] == trust.draw == pytest.approx(18 / 36)
    metrics = simulate(**sim)
    assert metrics["win"][0] == trust.win and metrics["d"][0] / 4 == pytest.approx(trust.displacement)
    assert trust.chance_win == 0.25 and trust.chance_displacement == pytest.approx(15 / 12)
    # the games per pairing that settle it: the simulator reaches the target there, not one step before
    settle = trust.settle_simulation
    assert settle["games"] == trust.games_per_pairing and not trust.at_least
    assert simulate(**settle)["win"][0] == trust.settle_win >= 0.9
    step = SETTLE_GRID.index(trust.games_per_pairing)
    if step:
        fewer = {**settle, "games": SETTLE_GRID[step - 1]}
        fewer["championships"] = tournaments.trust._championships(
            tournaments.trust._expected_games("round_robin", 4, {"games": fewer["games"]})
        )
        assert simulate(**fewer)["win"][0] < 0.9
    assert str(trust).startswith("Trust: for a round robin (games=6) of 4 agents in 36 games")
    assert r.trust().as_dict() == trust.as_dict()  # seeded: the same numbers again


def test_a_short_swiss_is_called_a_coin_toss_with_the_games_that_would_settle_it():
    # the README's quick start: a Swiss of 4 agents, 2 rounds, 4 games, one consistent order
    names = ["random", "greedy", "alphabeta", "mcts"]
    games = [
        record(0, 1, 0, "1-0", names),
        record(1, 2, 3, "1-0", names, round=1),
        record(2, 2, 1, "1-0", names, round=2),
        record(3, 3, 0, "1-0", names, round=2),
    ]
    r = result_of("swiss", names, games, rounds=2, avoid_rematches=True)
    assert fitted_model(names, games)["spread"] == 0.0  # 2-1-1-0 is what chance gives
    trust = r.trust()
    assert trust.verdict == "close to a coin toss" and trust.win == pytest.approx(0.25, abs=0.03)
    assert trust.at_least and trust.games_per_pairing in SETTLE_GRID and trust.settle_win >= 0.9
    assert trust.settle_simulation["system"] == "round_robin"  # a Swiss has no games per pairing
    text = " ".join(str(trust).split())
    assert "close to a coin toss" in text and f"at least {trust.games_per_pairing} games per pairing" in text


def test_first_move_advantage_and_draws_are_fitted_beyond_chance():
    names = ["a", "b", "c"]
    games = [
        record(k, i, j, "1-0", names)
        for k, (i, j) in enumerate([(i, j) for i in range(3) for j in range(3) if i != j] * 10)
    ]
    model = fitted_model(names, games)  # Black won all 60 games
    assert model["first_move_advantage"] == pytest.approx(0.5) and model["draw"] == 0 and model["spread"] == 0
    drawn = [{**g, "result": "1/2-1/2", "code": 2} for g in games]
    model = fitted_model(names, drawn)
    assert model["draw"] == 1.0 and model["first_move_advantage"] == 0 and model["rating_spread"] == 0
    trust = result_of("round_robin", names, drawn, games=20).trust()
    assert trust.games_per_pairing is None and "no difference of strength" in str(trust)


def test_a_gauntlet_is_trusted_on_its_candidates():
    names = ["cand1", "cand2", "f1", "f2"]
    games = []
    for c, wins in ((0, 7), (1, 6)):  # cand1 scores 7 of 10 against each opponent, cand2 6 of 10
        for f in (2, 3):
            for k in range(10):
                won = k < wins
                black, white = (c, f) if k % 2 == 0 else (f, c)
                games.append(record(len(games), black, white, ("1-0" if (black == c) == won else "0-1"), names))
    r = result_of("gauntlet", names, games, candidates=2, games=10)
    trust = r.trust()
    assert trust.win is None and "cand1 is the best of the 2 candidates" in " ".join(str(trust).split())
    needed = int(str(trust).split("about ")[1].split()[0])
    assert needed % 2 == 0 and needed > 10
    # with that many games per encounter and the same gap, the lead's likelihood would reach 90%
    stats = r.statistics()
    assert stats.los_of("cand1", "cand2") < 0.9
    n = len(names)
    scores, played = np.zeros((n, n)), np.zeros((n, n))
    for g in games:
        b, w = g["black_id"], g["white_id"]
        played[b, w] += 1
        played[w, b] += 1
        scores[b, w] += g["result"] == "1-0"
        scores[w, b] += g["result"] == "0-1"
    fit = ratings.fit(scores, played)
    gap = fit.elo[0] - fit.elo[1]
    sd = math.sqrt(fit.cov[0, 0] + fit.cov[1, 1] - 2 * fit.cov[0, 1])

    def los(per):  # the posterior's sd shrinks as the square root of the games
        return 0.5 * (1 + math.erf(gap / (sd * math.sqrt(10 / per)) / math.sqrt(2)))

    assert los(needed) >= 0.9 > los(needed - 2)


# -- pooled journals: arbiter ratings ----------------------------------------------------------------
@pytest.fixture(scope="module")
def journals(tmp_path_factory):
    """A round robin of 12 games in one journal, and the same games split over two journals."""
    d = tmp_path_factory.mktemp("ratings")
    tournaments.round_robin(
        ["random", "greedy", "alphabeta:depth=1"],
        games=4,
        journal=d / "full.db",
        workers=0,
        progress=False,
        seed=4,
        **GAME,
    )
    for name, keep in (("first.db", "idx < 6"), ("second.db", "idx >= 6")):
        shutil.copy(d / "full.db", d / name)
        db = sqlite3.connect(d / name)
        db.execute(f"DELETE FROM games WHERE NOT ({keep})")
        db.commit()
        db.close()
    return d


def test_ratings_of_two_journals_equal_one_journal_holding_both(journals, capsys):
    assert main(["ratings", str(journals / "first.db"), str(journals / "second.db")]) == 0
    split = capsys.readouterr().out.splitlines()
    assert main(["ratings", str(journals / "full.db")]) == 0
    whole = capsys.readouterr().out.splitlines()
    assert split[0] == "2 journals, 12 games, 3 agents" and whole[0] == "1 journal, 12 games, 3 agents"
    assert split[1:] == whole[1:] and "Colour pairs" in "\n".join(whole)
    pooled = rating_list([journals / "first.db", journals / "second.db"])
    assert [vars(r) for r in pooled.ratings] == [vars(r) for r in rating_list([journals / "full.db"]).ratings]


def test_anchors_shift_the_scale_exactly(journals, capsys):
    free = {r.name: r for r in rating_list([journals / "full.db"]).ratings}
    anchored = {r.name: r for r in rating_list([journals / "full.db"], anchors={"random": 1000}).ratings}
    shift = 1000 - free["random"].elo
    assert anchored["random"].elo == 1000 and anchored["random"].margin == 0
    for name, row in free.items():
        assert anchored[name].elo == pytest.approx(row.elo + shift, abs=1e-6)
    assert (
        main(["ratings", str(journals / "full.db"), "--anchor", "greedy=1500", "--anchor", "alphabeta:depth=1=1600"])
        == 0
    )
    out = capsys.readouterr().out
    assert "anchored: greedy at +1500, alphabeta:depth=1 at +1600" in out
    rows = {line.split()[1]: line.split()[2] for line in out.splitlines() if line[:6].strip().isdigit()}
    assert rows["greedy"] == "+1500" and rows["alphabeta:depth=1"] == "+1600"


def test_the_rating_model_terms_can_be_left_out(journals, capsys):
    """``--no-first-move`` and ``--no-draw-model`` fit the plain model, as the API's
    ``first_move=False, draw_model=False``; by default both terms are fitted and said."""
    path = str(journals / "full.db")
    assert main(["ratings", path]) == 0
    both = capsys.readouterr().out
    assert "first-move advantage (Black)" in both
    assert main(["ratings", path, "--no-first-move", "--no-draw-model"]) == 0
    plain = capsys.readouterr().out
    assert "first-move advantage" not in plain
    fitted = rating_list([journals / "full.db"], first_move=False, draw_model=False)
    rows = {line.split()[1]: int(line.split()[2]) for line in plain.splitlines() if line[:6].strip().isdigit()}
    assert rows == {r.name: round(r.elo) for r in fitted.ratings}
    assert [vars(r) for r in fitted.ratings] != [vars(r) for r in rating_list([journals / "full.db"]).ratings]


def test_journals_of_other_agents_pool_on_one_scale(tmp_path):
    a = tournaments.round_robin(["random", "greedy"], journal=tmp_path / "a.db", workers=0, progress=False, **GAME)
    b = tournaments.round_robin(
        ["greedy", "alphabeta:depth=1"], journal=tmp_path / "b.db", workers=0, progress=False, **GAME
    )
    pooled = rating_list([tmp_path / "a.db", tmp_path / "b.db"])
    names = ["random", "greedy", "alphabeta:depth=1"]
    ids = {"random": 0, "greedy": 1, "alphabeta:depth=1": 2}
    games = [{**g, "black_id": ids[g["black"]], "white_id": ids[g["white"]]} for g in a.games + b.games]
    assert [vars(r) for r in pooled.ratings] == [vars(r) for r in statistics(names, games).ratings]
    assert {r.name: r.games for r in pooled.ratings} == {"random": 2, "greedy": 4, "alphabeta:depth=1": 2}


def test_bad_journals_and_anchors_are_one_line_errors(journals, tmp_path, capsys):
    tournaments.round_robin(
        ["random", "greedy"], game="othello", size=6, journal=tmp_path / "othello.db", workers=0, progress=False
    )
    full = str(journals / "full.db")
    cases = [
        ([full, str(tmp_path / "othello.db")], "othello (size=6) games, but"),
        ([full, full], "given twice"),
        ([full, str(journals / "first.db")], "also in"),
        ([str(tmp_path / "missing.db")], "no such tournament journal"),
        ([full, "--anchor", "random"], "expected SPEC=ELO"),
        ([full, "--anchor", "random=high"], "expected SPEC=ELO"),
        ([full, "--anchor", "random=inf"], "expected SPEC=ELO"),
        ([full, "--anchor", "random=1", "--anchor", "random=2"], "anchored twice"),
        ([full, "--anchor", "mcts=0"], "no agent 'mcts'"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as e:
            main(["ratings", *argv])
        err = capsys.readouterr().err
        assert e.value.code == 2 and message in err and len(said(err)) == 1, (argv, err)
    with pytest.raises(RatingsError, match="played no game"):
        statistics(["a", "b"], [], anchors={"a": 0})


def test_the_ratings_table_says_when_games_leave_agents_unconnected(tmp_path):
    tournaments.round_robin(["random", "greedy"], journal=tmp_path / "a.db", workers=0, progress=False, **GAME)
    tournaments.round_robin(
        ["alphabeta:depth=1", "minimax:depth=1"], journal=tmp_path / "b.db", workers=0, progress=False, **GAME
    )
    text = rating_list([tmp_path / "a.db", tmp_path / "b.db"], anchors={"random": 0}).table()
    assert "2 groups that never met" in text and "1 group without an anchor" in text
    assert math.isfinite(rating_list([tmp_path / "a.db", tmp_path / "b.db"]).ratings[0].elo)
