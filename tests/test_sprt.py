"""Sequential matches: the pentanomial SPRT's arithmetic, its error rates by simulation, and
``tournaments.match(..., sprt=...)`` / ``arbiter match --sprt`` on real games."""

import math

import numpy as np
import pytest

import agents
import envs
import tournaments
from tournaments.analysis import sprt
from tournaments.cli import main


def test_bounds_are_walds():
    t = sprt.SPRT(0, 10, 0.05, 0.1)
    assert t.lower == pytest.approx(math.log(0.1 / 0.95))
    assert t.upper == pytest.approx(math.log(0.9 / 0.05))
    assert t.decide(t.upper) == "H1" and t.decide(t.lower) == "H0" and t.decide(0.0) == "undecided"


def test_llr_is_the_gsprt_normal_approximation_on_pairs():
    counts = np.array([3, 10, 20, 12, 5])
    t = sprt.SPRT(0, 20, 0.05, 0.05, method="normal")
    c = counts + sprt.PRIOR
    x = np.array([0, 0.25, 0.5, 0.75, 1])
    n = c.sum()
    m = (c * x).sum() / n
    v = (c * x * x).sum() / n - m * m
    s0, s1 = 0.5, 1 / (1 + 10 ** (-20 / 400))
    assert t.llr(counts) == pytest.approx((s1 - s0) * (2 * m - s0 - s1) / (2 * v / n))
    assert t.llr([0, 0, 0, 0, 0]) == 0.0
    # vectorised over leading axes, as the simulation uses it
    many = np.stack([counts, counts[::-1]])
    assert t.llr(many) == pytest.approx([t.llr(counts), t.llr(counts[::-1])])
    assert t.llr(counts[::-1]) < 0 < t.llr(counts)


@pytest.mark.parametrize("method", ["mle", "normal"])
def test_a_one_sided_run_ends_the_test(method):
    """Every pair won 2-0 has no variance: the regularised empty cells (exact GSPRT) or the prior
    (normal approximation) still let the test accept H1, and the LLR grows with every pair."""
    t = sprt.SPRT(0, 100, 0.05, 0.05, method=method)
    llrs = [t.llr([0, 0, 0, 0, k]) for k in range(1, 16)]
    assert np.all(np.isfinite(llrs)) and np.all(np.diff(llrs) > 0)
    decisions = [t.status([0, 0, 0, 0, k]).decision for k in range(1, 16)]
    assert decisions[0] == "undecided" and decisions[-1] == "H1"
    assert [t.status([k, 0, 0, 0, 0]).decision for k in (1, 15)] == ["undecided", "H0"]


@pytest.mark.parametrize(
    "bad",
    [
        dict(elo0=5, elo1=0),
        dict(alpha=0),
        dict(beta=1.2),
        dict(alpha=0.6, beta=0.5),
        dict(model="bayes"),
        dict(elo0=float("nan")),
    ],
)
def test_bad_tests_name_the_value(bad):
    args = {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, **bad}
    with pytest.raises(envs.ParameterError, match=list(bad)[0]):
        sprt.SPRT(**args)
    with pytest.raises(ValueError, match="sprt="):
        sprt.SPRT.of((0, 10))


def test_elo_interval_brackets_the_estimate():
    elo, lo, hi = sprt.elo_interval([5, 10, 20, 15, 10])
    assert lo < elo < hi and elo > 0
    assert sprt.elo_interval([10, 10, 10, 10, 10])[0] == pytest.approx(0.0)


def test_pentanomial_probabilities():
    p = sprt.pentanomial_probabilities(0, 0.3)
    assert p.sum() == pytest.approx(1) and p == pytest.approx(p[::-1])
    p = sprt.pentanomial_probabilities(100, 0.2)
    assert p @ sprt.PAIR_SCORES == pytest.approx(sprt.logistic_score(100))
    with pytest.raises(envs.ParameterError, match="draw_rate"):
        sprt.pentanomial_probabilities(400, 0.5)


RUNS = 2000
MARGIN = 3 * math.sqrt(0.05 * 0.95 / RUNS)  # three binomial standard errors at 5%


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_simulated_error_rates_are_within_alpha_and_beta(model):
    """2,000 simulated sequential matches at each hypothesis' true Elo: the test accepts H1 at
    elo0 at most alpha of the time and fails to accept it at elo1 at most beta of the time."""
    test = sprt.SPRT(0, 10, 0.05, 0.05, model=model)
    rates = sprt.error_rates(test, draw_rate=0.3, runs=RUNS, seed=0)
    assert rates["type1"] <= 0.05 + MARGIN
    assert rates["type2"] <= 0.05 + MARGIN
    assert rates["at_elo0"]["undecided"] == 0 and rates["at_elo1"]["undecided"] == 0
    assert rates["at_elo0"]["mean_pairs"] > 100  # a 10 Elo question takes many pairs to settle


def test_simulation_is_seeded():
    a = sprt.simulate((0, 20, 0.05, 0.05), 10, runs=200, seed=4)
    assert a == sprt.simulate((0, 20, 0.05, 0.05), 10, runs=200, seed=4)
    assert a != sprt.simulate((0, 20, 0.05, 0.05), 10, runs=200, seed=5)


def test_sequential_match_stops_when_the_test_decides():
    seen = []
    result = tournaments.match(
        "greedy",
        "random",
        game="gomoku",
        game_params={"size": 7},
        sprt=(0, 100, 0.05, 0.05),
        games=200,
        seed=2,
        progress=lambda done, pairs, status: seen.append((done, pairs, status)),
    )
    assert result.sprt.decision == "H1"
    assert result.games < 200 and result.games == 2 * result.sprt.pairs == 2 * sum(result.pentanomial)
    assert [s[0] for s in seen] == list(range(1, result.sprt.pairs + 1)) and seen[0][1] == 100
    assert [s[2].decision for s in seen[:-1]] == ["undecided"] * (len(seen) - 1)
    assert result.sprt.llr >= result.sprt.upper and result.sprt.elo_lo > 0
    assert "H1 accepted" in str(result) and result.as_dict()["sprt"]["decision"] == "H1"


def test_both_call_forms_play_the_same_match():
    game = envs.make_game("gomoku", size=7)
    old = tournaments.match(game, agents.make("random", seed=3), agents.make("random", seed=4), 4, 1)
    new = tournaments.match(
        agents.make("random", seed=3),
        agents.make("random", seed=4),
        game="gomoku",
        game_params={"size": 7},
        games=4,
        seed=1,
    )
    assert (old.wins, old.draws, old.losses, old.pentanomial) == (new.wins, new.draws, new.losses, new.pentanomial)
    assert old.sprt is None and sum(old.pentanomial) == 2
    with pytest.raises(envs.ParameterError, match="game_params"):
        tournaments.match(game, "random", "random", game_params={"size": 9})
    with pytest.raises(envs.ParameterError, match="solitaire"):
        tournaments.match("random", "random", game="calculation")
    with pytest.raises(envs.ParameterError, match="games given both"):
        tournaments.match(game, "random", "random", 4, games=4)


def test_cli_match_prints_progress_and_the_decision(capsys):
    assert (
        main(
            [
                "match",
                "--game",
                "gomoku",
                "-p",
                "size=7",
                "--a",
                "greedy",
                "--b",
                "random",
                "--games",
                "100",
                "--sprt",
                "0",
                "100",
                "0.05",
                "0.05",
                "--seed",
                "2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("Score of greedy vs random: ") and "LLR" in out[0] and "] 2, Elo " in out[0]
    assert "H1 accepted" in out[-1]


# -- intervals that stay honest at extreme scores ------------------------------------------------------
def _wilson(wins, n, z=sprt.Z95):
    p = wins / n
    centre, half = p + z * z / (2 * n), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


@pytest.mark.parametrize("wins, pairs", [(6, 6), (0, 6), (7, 10), (1, 40)])
def test_pairs_that_are_only_won_or_lost_give_wilsons_interval(wins, pairs):
    m, lo, hi = sprt.score_interval([pairs - wins, 0, 0, 0, wins])
    assert m == pytest.approx(wins / pairs)
    assert (lo, hi) == pytest.approx(_wilson(wins, pairs))


@pytest.mark.parametrize(
    "counts", [[0, 0, 0, 0, 6], [6, 0, 0, 0, 0], [0, 0, 6, 0, 0], [0, 0, 0, 3, 0], [0, 1, 0, 0, 0]]
)
def test_the_interval_never_collapses_to_a_point(counts):
    """Six pairs all won 2-0 (greedy against random on Othello) are no proof of infinite strength:
    the interval keeps a width that only more pairs shrink."""
    m, lo, hi = sprt.score_interval(counts)
    assert lo <= m <= hi and hi - lo > 0.25
    assert sprt.score_interval([10 * c for c in counts])[2] - sprt.score_interval([10 * c for c in counts])[1] < hi - lo


def test_elo_of_a_clean_sweep_is_a_lower_bound_not_a_number():
    elo, lo, hi = sprt.elo_interval([0, 0, 0, 0, 6])
    assert elo == math.inf and hi == math.inf and 50 < lo < 100
    assert sprt.format_elo(elo, lo, hi) == f"> {lo:+.1f} (95%)"
    assert sprt.format_elo(*sprt.elo_interval([6, 0, 0, 0, 0])).startswith("< -")
    assert sprt.format_elo(10.0, -5.0, math.inf) == "+10.0 [-5.0, +inf]"
    status = sprt.SPRT(0, 50, 0.05, 0.05).status([0, 0, 0, 0, 6])
    assert "1199" not in str(status) and "> +" in str(status)


def test_the_interval_covers_the_true_score_at_least_as_often_as_it_claims():
    """20,000 simulated matches per row, pairs drawn from the pentanomial at a known Elo: the 95%
    interval holds the true score at least about 95% of the time, also at lopsided scores where
    mean ± 1.96 standard errors holds it a third of the time or less."""
    rng = np.random.default_rng(0)
    for elo, draw, pairs in [(0, 0.3, 6), (0, 0.3, 100), (100, 0.6, 20), (400, 0.0, 20), (800, 0.0, 100)]:
        p = sprt.pentanomial_probabilities(elo, draw)
        counts = rng.multinomial(pairs, p, size=20_000)
        m, lo, hi = sprt.score_interval(counts)
        truth = p @ sprt.PAIR_SCORES
        assert ((lo <= truth) & (truth <= hi)).mean() >= 0.93, (elo, draw, pairs)


def test_a_match_result_prints_its_interval_and_claims_strength_only_when_it_is_above_half():
    sweep = tournaments.MatchResult(
        games=4,
        wins=4,
        draws=0,
        losses=0,
        score=1.0,
        se=0.0,
        seconds=0.0,
        pentanomial=(0, 0, 0, 0, 2),
        interval=sprt.score_interval([0, 0, 0, 0, 2])[1:],
    )
    assert "± 0.000" not in str(sweep) and "[0.3" in str(sweep) and not sweep.beats  # two pairs prove little
    many = tournaments.MatchResult(
        games=40,
        wins=40,
        draws=0,
        losses=0,
        score=1.0,
        se=0.0,
        seconds=0.0,
        pentanomial=(0, 0, 0, 0, 20),
        interval=sprt.score_interval([0, 0, 0, 0, 20])[1:],
    )
    assert many.beats and many.as_dict()["interval"][1] == 1.0


def test_cli_sequential_match_never_prints_a_zero_width_interval(capsys):
    assert (
        main(
            [
                "match",
                "--game",
                "othello",
                "-p",
                "size=6",
                "--a",
                "greedy",
                "--b",
                "random",
                "--games",
                "40",
                "--sprt",
                "0",
                "50",
                "0.05",
                "0.05",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "± 0.000" not in out and "1199" not in out
    for line in out.splitlines():
        if "Elo " in line and "[" in line.split("Elo ")[1]:
            lo, hi = line.split("Elo ")[1].split("[")[1].split("]")[0].split(", ")
            assert lo != hi, line
