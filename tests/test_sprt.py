"""Sequential matches: the pentanomial SPRT's arithmetic, its error rates by simulation, and
``tournaments.match(..., sprt=...)`` / ``arbiter match --sprt`` on real games."""

import math

import numpy as np
import pytest

import agents
import envs
import tournaments
from tournaments import sprt
from tournaments.cli import main


def test_bounds_are_walds():
    t = sprt.SPRT(0, 10, 0.05, 0.1)
    assert t.lower == pytest.approx(math.log(0.1 / 0.95))
    assert t.upper == pytest.approx(math.log(0.9 / 0.05))
    assert t.decide(t.upper) == "H1" and t.decide(t.lower) == "H0" and t.decide(0.0) == "undecided"


def test_llr_is_the_gsprt_normal_approximation_on_pairs():
    counts = np.array([3, 10, 20, 12, 5])
    t = sprt.SPRT(0, 20, 0.05, 0.05)
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


def test_a_one_sided_run_ends_the_test():
    """Every pair won 2-0 has no variance: the prior still lets the test accept H1."""
    t = sprt.SPRT(0, 100, 0.05, 0.05)
    decisions = [t.status([0, 0, 0, 0, k]).decision for k in range(1, 10)]
    assert decisions[0] == "undecided" and decisions[-1] == "H1"
    assert [t.status([k, 0, 0, 0, 0]).decision for k in (1, 9)] == ["undecided", "H0"]


@pytest.mark.parametrize("bad", [dict(elo0=5, elo1=0), dict(alpha=0), dict(beta=1.2), dict(alpha=0.6, beta=0.5),
                                 dict(model="bayes"), dict(elo0=float("nan"))])
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
    result = tournaments.match("greedy", "random", game="gomoku", game_params={"size": 7},
                               sprt=(0, 100, 0.05, 0.05), games=200, seed=2,
                               progress=lambda done, pairs, status: seen.append((done, pairs, status)))
    assert result.sprt.decision == "H1"
    assert result.games < 200 and result.games == 2 * result.sprt.pairs == 2 * sum(result.pentanomial)
    assert [s[0] for s in seen] == list(range(1, result.sprt.pairs + 1)) and seen[0][1] == 100
    assert [s[2].decision for s in seen[:-1]] == ["undecided"] * (len(seen) - 1)
    assert result.sprt.llr >= result.sprt.upper and result.sprt.elo_lo > 0
    assert "H1 accepted" in str(result) and result.as_dict()["sprt"]["decision"] == "H1"


def test_both_call_forms_play_the_same_match():
    game = envs.make_game("gomoku", size=7)
    old = tournaments.match(game, agents.make("random", seed=3), agents.make("random", seed=4), 4, 1)
    new = tournaments.match(agents.make("random", seed=3), agents.make("random", seed=4), game="gomoku",
                            game_params={"size": 7}, games=4, seed=1)
    assert (old.wins, old.draws, old.losses, old.pentanomial) == (new.wins, new.draws, new.losses, new.pentanomial)
    assert old.sprt is None and sum(old.pentanomial) == 2
    with pytest.raises(envs.ParameterError, match="game_params"):
        tournaments.match(game, "random", "random", game_params={"size": 9})
    with pytest.raises(envs.ParameterError, match="solitaire"):
        tournaments.match("random", "random", game="calculation")
    with pytest.raises(envs.ParameterError, match="games given both"):
        tournaments.match(game, "random", "random", 4, games=4)


def test_cli_match_prints_progress_and_the_decision(capsys):
    assert main(["match", "--game", "gomoku", "-p", "size=7", "--a", "greedy", "--b", "random",
                 "--games", "100", "--sprt", "0", "100", "0.05", "0.05", "--seed", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("pair 1/50: pentanomial") and "LLR" in out[0]
    assert "H1 accepted" in out[-1]
