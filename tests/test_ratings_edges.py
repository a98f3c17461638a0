"""Ratings, LOS and P(best) at the edges, checked against computations written here apart from
``tournaments.analysis.ratings``: the first-move advantage and the draw parameter against a coordinate-wise
maximisation of BayesElo's likelihood written per game in Elo, the model's LOS and P(best) against
the exact posterior integrated on a grid, an agent that scored 0 of 8, cutechess's head-to-head
LOS, and records matched by the names they carry."""

import html
import math

import numpy as np
import pytest
from test_statistics import record as statistics_record

from tournaments.analysis import ratings
from tournaments.analysis.statistics import RatingsError, head_to_head, statistics
from tournaments.referee.trust import Trust

PRIOR_SD = 5.0  # the documented prior: every parameter N(0, 5²) on the natural scale


def record(index, names, black, white, result):
    """A journal record of one game (test_statistics' helper, with the names first)."""
    return statistics_record(index, black, white, result, names)


def games(names, plan):
    """Records from ``plan``: (black, white, [results...]) with agents as indices."""
    out = []
    for black, white, results in plan:
        for result in results:
            out.append(record(len(out), names, black, white, result))
    return out


def simulated(seed=5):
    """Four agents, each ordered pair 12 games, drawn from BayesElo's model with a first-move
    advantage of 60 Elo and a drawelo of 150 (a fixed record set: the seed fixes it)."""
    names = ["a", "b", "c", "d"]
    truth = np.array([150.0, 40.0, -30.0, -160.0])
    rng = np.random.default_rng(seed)
    plan = []
    for i in range(4):
        for j in range(4):
            if i != j:
                x = truth[i] - truth[j] + 60.0
                p_black = 1 / (1 + 10 ** (-(x - 150.0) / 400))
                p_white = 1 / (1 + 10 ** (-(-x - 150.0) / 400))
                u = rng.random(12)
                plan.append(
                    (i, j, ["1-0" if v < p_black else "0-1" if v < p_black + p_white else "1/2-1/2" for v in u])
                )
    return names, games(names, plan)


# -- the fit against an independent one -----------------------------------------------------------
def independent_fit(names, records):
    """BayesElo's model written per game in Elo: P(Black wins) = f(Rb - Rw + adv - drawelo),
    P(White wins) = f(Rw - Rb - adv - drawelo), f(x) = 1 / (1 + 10^(-x/400)), with the same weak
    Gaussian prior, maximised one coordinate at a time by Newton steps on finite differences.
    Returns (ratings centred on 0, advantage, drawelo), all in Elo."""
    n = len(names)
    black = np.array([names.index(r["black"]) for r in records])
    white = np.array([names.index(r["white"]) for r in records])
    result = np.array([r["result"] for r in records])
    sd = PRIOR_SD * 400 / math.log(10)

    def f(x):
        return 1 / (1 + 10 ** (-x / 400))

    def log_posterior(q):
        r, adv, drawelo = q[:n], q[n], q[n + 1]
        if drawelo <= 0:
            return -math.inf
        x = r[black] - r[white] + adv
        pb, pw = f(x - drawelo), f(-x - drawelo)
        p = np.where(result == "1-0", pb, np.where(result == "0-1", pw, 1 - pb - pw))
        return float(np.log(p).sum() - 0.5 * ((q / sd) ** 2).sum())

    q = np.zeros(n + 2)
    q[n + 1] = 100.0
    h = 0.01
    for _ in range(2000):
        biggest = 0.0
        for k in range(n + 2):
            e = np.zeros(n + 2)
            e[k] = h
            f0, fp, fm = log_posterior(q), log_posterior(q + e), log_posterior(q - e)
            d1, d2 = (fp - fm) / (2 * h), (fp - 2 * f0 + fm) / h**2
            step = -d1 / d2 if d2 < 0 else math.copysign(10.0, d1)
            while log_posterior(q + step * np.eye(n + 2)[k]) < f0 - 1e-12:
                step /= 2
            q[k] += step
            biggest = max(biggest, abs(step))
        if biggest < 1e-7:
            break
    return q[:n] - q[:n].mean(), q[n], q[n + 1]


def test_ratings_with_first_move_and_draws_equal_an_independent_fit():
    names, records = simulated()
    stats = statistics(names, records)
    elo, adv, drawelo = independent_fit(names, records)
    fitted = {r.name: r.elo for r in stats.ratings}
    assert max(abs(fitted[name] - elo[k]) for k, name in enumerate(names)) < 1.0
    assert stats.advantage == pytest.approx(adv, abs=1.0) and stats.draw_elo == pytest.approx(drawelo, abs=1.0)
    assert 0 < stats.advantage_margin < 200 and 0 < stats.draw_margin < 200
    assert "Elo" in stats.model_line() and "first-move advantage (Black)" in stats.table()
    # the draws and colours make a difference: the plain fit (draws half a win, no colours) is another
    plain = statistics(names, records, first_move=False, draw_model=False)
    assert plain.advantage is None and plain.draw_elo is None
    assert max(abs(r.elo - fitted[r.name]) for r in plain.ratings) > 1.0


def test_colours_that_cannot_show_an_advantage_leave_it_out():
    names = ["a", "b"]
    records = games(names, [(0, 1, ["1-0"] * 6 + ["0-1"] * 2)])  # a always Black: a's edge or Black's?
    stats = statistics(names, records)
    assert stats.advantage is None and "colours played" in dict(stats.model_note)[ratings.ADVANTAGE]
    assert stats.draw_elo is None and "first-move advantage not fitted" in stats.table()


# -- LOS and P(best) against the exact posterior ------------------------------------------------------
def log_f(x):
    return -np.logaddexp(0.0, -x)


def exact_three(plan, side):
    """The exact posterior of three agents with the first-move term, on a grid over (a - c, b - c,
    eta) where c is agent 2, the mean of the strengths integrated out (the prior is exchangeable:
    the differences have covariance 25 [[2, 1], [1, 2]]); ``side`` +1 where a and b lie above c,
    -1 below (the grid reaches far on that side only). Returns P(best) and LOS by agent index."""
    da = side * (np.arange(-84, 250) + 0.5) * 0.12  # cell midpoints, none on a boundary such as a = c
    eta = (np.arange(-67, 67) + 0.5) * 0.12
    A, B, E = np.meshgrid(da, da, eta, indexing="ij")
    theta = {0: A, 1: B, 2: 0.0}
    logp = np.zeros(A.shape)
    for black, white, results in plan:
        x = theta[black] - theta[white] + E
        for res in results:
            logp += log_f(x) if res == "1-0" else log_f(-x)
    precision = np.linalg.inv(PRIOR_SD**2 * np.array([[2.0, 1.0], [1.0, 2.0]]))
    logp -= 0.5 * (precision[0, 0] * A**2 + 2 * precision[0, 1] * A * B + precision[1, 1] * B**2)
    logp -= 0.5 * E**2 / PRIOR_SD**2
    w = np.exp(logp - logp.max())
    w /= w.sum()
    level = A == B  # the grid's diagonal: a and b level, half to each
    top = 0.5 * w[level & (A > 0)].sum()
    best = [w[(A > 0) & (A > B)].sum() + top, w[(B > 0) & (B > A)].sum() + top, w[(A < 0) & (B < 0)].sum()]
    los = {(0, 1): w[A > B].sum() + 0.5 * w[level].sum(), (0, 2): w[A > 0].sum(), (1, 2): w[B > 0].sum()}
    return best, los


@pytest.mark.parametrize("extreme", ["zero", "perfect"])
def test_los_and_p_best_equal_the_exact_posterior_at_a_zero_or_perfect_score(extreme):
    """Agent 2 lost (or won) all 8 of its games; a and b split theirs 4-2."""
    zero = extreme == "zero"
    names = ["a", "b", "random" if zero else "top"]
    as_white, as_black = ("1-0", "0-1") if zero else ("0-1", "1-0")  # agent 2's games with each colour
    plan = [
        (0, 2, [as_white] * 2),
        (2, 0, [as_black] * 2),
        (1, 2, [as_white] * 2),
        (2, 1, [as_black] * 2),
        (0, 1, ["1-0", "0-1", "1-0"]),
        (1, 0, ["0-1", "1-0", "0-1"]),
    ]
    stats = statistics(names, games(names, plan), seed=11)
    assert {r.name: r.score for r in stats.ratings}[names[2]] == (0.0 if zero else 1.0)
    best, los = exact_three(plan, +1 if zero else -1)
    for r in stats.ratings:
        assert r.p_best == pytest.approx(best[names.index(r.name)], abs=0.01), r.name
    for (x, y), p in los.items():
        assert stats.los_of(names[x], names[y]) == pytest.approx(p, abs=0.01)
        assert stats.los_of(names[y], names[x]) == pytest.approx(1 - p, abs=0.01)
    if zero:
        assert best[2] < 0.001 and stats.ratings[-1].name == "random" and stats.ratings[-1].p_best < 0.005
    else:
        assert best[2] > 0.99 and stats.ratings[0].name == "top"


def test_los_with_colours_and_draws_equals_the_exact_posterior():
    """Two agents with draws: a grid over (a - b, eta, delta > 0), the difference's prior N(0, 2 x 25)."""
    names = ["a", "b"]
    plan = [(0, 1, ["1-0", "1-0", "1/2-1/2", "0-1", "1/2-1/2"]), (1, 0, ["1/2-1/2", "0-1", "1-0", "0-1", "0-1"])]
    records = games(names, plan)
    stats = statistics(names, records, seed=2)
    assert stats.advantage is not None and stats.draw_elo is not None
    d = (np.arange(-134, 134) + 0.5) * 0.06  # cell midpoints: none on the boundary a = b
    eta = (np.arange(-100, 100) + 0.5) * 0.06
    delta = (np.arange(0, 100) + 0.5) * 0.06
    D, E, T = np.meshgrid(d, eta, delta, indexing="ij")
    theta = {0: D, 1: 0.0}
    logp = -0.5 * D**2 / (2 * PRIOR_SD**2) - 0.5 * (E**2 + T**2) / PRIOR_SD**2
    for black, white, results in plan:
        x = theta[black] - theta[white] + E
        pb, pw = np.exp(log_f(x - T)), np.exp(log_f(-x - T))
        for res in results:
            logp += np.log(pb if res == "1-0" else pw if res == "0-1" else 1 - pb - pw)
    w = np.exp(logp - logp.max())
    w /= w.sum()
    exact = w[D > 0].sum()
    assert stats.los_of("a", "b") == pytest.approx(exact, abs=0.01)
    best = {r.name: r.p_best for r in stats.ratings}
    assert best["a"] == pytest.approx(exact, abs=0.01) and best["b"] == pytest.approx(1 - exact, abs=0.01)


def gauntlet():
    """Two candidates against three opponents, 4 games each with colours alternating; ``random``
    scores 0 of 8, ``weak`` 1 of 8."""
    names = ["cand1", "cand2", "field", "weak", "random"]
    score = {(0, 2): 3, (0, 3): 4, (0, 4): 4, (1, 2): 2, (1, 3): 3, (1, 4): 4}  # the candidate's wins of 4
    plan = []
    for (c, f), won in score.items():
        for k in range(4):
            black, white = (c, f) if k % 2 == 0 else (f, c)
            plan.append((black, white, ["1-0" if (black == c) == (k < won) else "0-1"]))
    return names, games(names, plan)


def test_an_agent_that_scored_0_of_8_is_not_a_contender():
    names, records = gauntlet()
    stats = statistics(names, records, seed=3)
    row = {r.name: r for r in stats.ratings}
    assert row["random"].score == 0 and row["random"].games == 8 and row["random"].p_best < 0.001
    assert stats.ratings[-1].name == "random"
    # the normal approximation of the same fit is what gave such an agent a chance
    fit = ratings.fit_model(*matrices(names, records))
    normal = ratings.Fit(fit.elo, fit.cov).p_best(seed=3)
    assert normal[names.index("random")] > 0.005 > row["random"].p_best
    assert sum(r.p_best for r in stats.ratings) == pytest.approx(1.0)
    among = stats.p_best_among(["cand1", "cand2"])
    assert sum(among.values()) == pytest.approx(1.0) and among["cand1"] > among["cand2"]


def matrices(names, records):
    n = len(names)
    wins, draws, losses = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    for r in records:
        b, w = names.index(r["black"]), names.index(r["white"])
        {"1-0": wins, "0-1": losses, "1/2-1/2": draws}[r["result"]][b, w] += 1
    return wins, draws, losses


def test_p_best_and_los_are_seeded_and_fast_enough_to_print_live():
    names, records = simulated()
    first, again = statistics(names, records, seed=4), statistics(names, records, seed=4)
    assert [r.p_best for r in first.ratings] == [r.p_best for r in again.ratings]
    assert np.array_equal(first.los, again.los) and first.posterior.effective_samples > 5000
    other = statistics(names, records, seed=5)
    assert [r.p_best for r in other.ratings] != [r.p_best for r in first.ratings]


# -- head-to-head LOS ---------------------------------------------------------------------------------
def test_head_to_head_los_is_cutechess_and_labelled_apart_from_the_models():
    assert head_to_head(8, 0) == pytest.approx(0.5 * (1 + math.erf(8 / math.sqrt(8) / math.sqrt(2))))
    assert round(100 * head_to_head(8, 0), 1) == 99.8 and head_to_head(0, 0) is None
    names = ["mcts", "alphabeta", "random"]
    plan = [(0, 1, ["1-0"] * 4 + ["1/2-1/2"]), (1, 0, ["0-1"] * 4 + ["1/2-1/2"]), (0, 2, ["1/2-1/2"] * 2)]
    stats = statistics(names, games(names, plan))
    assert stats.h2h_of("mcts", "alphabeta") == pytest.approx(head_to_head(8, 0))
    assert stats.h2h_of("alphabeta", "mcts") == pytest.approx(1 - head_to_head(8, 0))
    assert stats.h2h_of("mcts", "random") is None and stats.h2h_of("alphabeta", "random") is None
    encounter = next(e for e in stats.encounters if {e.a, e.b} == {"mcts", "alphabeta"})
    assert (encounter.wins, encounter.draws, encounter.losses) in ((8, 2, 0), (0, 2, 8))
    text = stats.table()
    assert "LOS(model)" in text and "LOS(h2h)" in text and "cutechess" in text
    assert stats.as_dict()["los_h2h"]["mcts"]["random"] is None


# -- records matched by name --------------------------------------------------------------------------
def test_records_are_matched_by_the_names_they_carry():
    names, records = gauntlet()
    forward = {r.name: (r.elo, r.games, r.points) for r in statistics(names, records).ratings}
    backward = {r.name: (r.elo, r.games, r.points) for r in statistics(names[::-1], records).ratings}
    assert forward.keys() == backward.keys()
    for name in names:
        assert backward[name][1:] == forward[name][1:] and backward[name][0] == pytest.approx(
            forward[name][0], abs=1e-6
        )
    assert forward["random"][2] == 0 and forward["cand1"][0] > 0
    with pytest.raises(RatingsError, match="'random' is not one of the agents"):
        statistics(["cand1", "cand2", "field", "weak", "rand0m"], records)
    with pytest.raises(RatingsError, match="given twice"):
        statistics(["cand1", "cand1", "field", "weak", "random"], records)
    nameless = [{k: v for k, v in r.items() if k not in ("black", "white")} for r in records]
    assert [r.name for r in statistics(names, nameless).ratings] == [r.name for r in statistics(names, records).ratings]
    with pytest.raises(RatingsError, match="black_id=7"):
        statistics(names, [{**nameless[0], "black_id": 7}])


# -- the trust line's first-move advantage has a unit -------------------------------------------------
def test_the_trust_lines_first_move_advantage_says_its_unit():
    trust = Trust(
        system="round robin",
        players=5,
        games=100,
        spread=80.0,
        rating_spread=100.0,
        draw=0.1,
        first_move_advantage=0.05,
        target=0.9,
        win=0.5,
        win_se=0.01,
        displacement=0.8,
        displacement_se=0.01,
        chance_win=0.2,
        chance_displacement=1.6,
        verdict="a rough guide",
        simulation={"championships": 200},
    )
    text = " ".join(str(trust).split())
    assert "+5.0 percentage points of Black's win probability" in text and "+0.05" not in text


def test_the_html_report_labels_both_kinds_of_los(tmp_path):
    from tournaments.referee import report
    from tournaments.referee.runner import TournamentResult

    names, records = gauntlet()
    n = len(names)
    config = {"system": "round_robin", "game": "gomoku", "game_params": {"size": 7}, "options": {}, "seed": 0}
    result = TournamentResult(config, tuple(names), [(1, n)] * n, [0.0] * n, records)
    page = open(report.write_report(result, tmp_path / "r.html"), encoding="utf-8").read()
    head = page.split("id='rating-table'")[1].split("</thead>")[0]
    assert ">LOS(model)</th>" in head and ">LOS(h2h)</th>" in head
    assert "id='los'" in page and "id='los-h2h'" in page and "cutechess" in page
    stats = result.statistics()
    assert f"<p id='model'>{html.escape(stats.model_line())}</p>" in page
