"""The championship study's simulator beyond the reference model: draws, a first-move advantage,
Elo strengths, ratings-based placing, round-robin cycles, the equal-budget tables and the plots."""

import csv
import os

import numpy as np
import pytest

from envs.core import ParameterError
from envs.core import rng as R
from tournaments.analysis.ratings import bradley_terry
from tournaments.cli import main
from tournaments.referee import _systems as S
from tournaments.referee.simulation import kernels
from tournaments.referee.systems import configure
from tournaments.studies import championship as study

DOCS = os.path.join(os.path.dirname(__file__), os.pardir, "docs")


def reference_series(system, n, A, championships, seed, **options):
    """The study's model written out in Python over the referee's kernels: strengths uniform and
    rescaled (one uniform per player), one uniform per game, Black wins if it is below
    0.5 + (A - 0.5)(F_black - F_white); sums of every metric. One chunk (championships <= CHUNK)."""
    assert championships <= study.CHUNK
    T, met, mt, out = configure(system, n, **options).arrays()
    master = R.new_rng(seed)
    rng = np.array([R.next_u64(master)], dtype=np.uint64)
    res = np.zeros(out.shape[0], dtype=np.int64)
    lo, hi = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    sums = np.zeros((5, 2))
    for _ in range(championships):
        F = np.array([R.uniform(rng) for _ in range(n)])
        F = (F - F.min()) / (F.max() - F.min())
        S.reset(T, met, mt, rng)
        while (count := S.next_games(T, met, mt, rng, out)) > 0:
            for i in range(count):
                p = 0.5 + (A - 0.5) * (F[out[i, 1]] - F[out[i, 2]])
                res[i] = S.BLACK_WINS if R.uniform(rng) < p else S.WHITE_WINS
            S.record(T, met, mt, out, res, count, rng)
        S.places(T, lo, hi)
        true = np.argsort(-F)
        mid = 0.5 * (lo + hi)
        vals = [
            1.0 / (hi[true[0]] - lo[true[0]] + 1) if lo[true[0]] == 1 else 0.0,
            sum(abs(mid[p] - (t + 1)) for t, p in enumerate(true)),
            mid[true[0]],
            mid[true[:3]].sum() - 6.0,
            T[S.T_GAMES],
        ]
        for j, v in enumerate(vals):
            sums[j] += v, v * v
    return sums


@pytest.mark.parametrize(
    "system,options", [("swiss", {"avoid_rematches": False}), ("olympic", {"k": 2}), ("swiss", {})]
)
def test_the_default_model_is_the_study_model_bit_for_bit(system, options):
    sums = reference_series(system, 8, 0.75, 40, seed=7, **options)
    name = "swiss_study" if options == {"avoid_rematches": False} else system
    got = study.simulate(name, 8, 0.75, 40, seed=7, **{k: v for k, v in options.items() if k != "avoid_rematches"})
    explicit = study.simulate(
        name,
        8,
        0.75,
        40,
        seed=7,
        strengths="study",
        draw=0.0,
        first_move_advantage=0.0,
        placing="points",
        cycles=1,
        **{k: v for k, v in options.items() if k != "avoid_rematches"},
    )
    assert got == explicit
    for j, m in enumerate(study.METRICS[:5]):
        assert got[m][0] == sums[j, 0] / 40  # the same numbers, not merely close ones


def test_the_reference_grid_is_reproduced_within_three_standard_errors():
    with open(os.path.join(DOCS, "study_grid.csv")) as f:
        ref = {(r["system"], int(r["n"]), float(r["A"])): r for r in csv.DictReader(f)}
    for label, system, options in [
        ("round robin", "round_robin", {}),
        ("olympic k=2", "olympic", {"k": 2}),
        ("swiss (study)", "swiss_study", {}),
        ("swiss (no rematches)", "swiss", {}),
    ]:
        got = study.simulate(system, 16, 0.75, 6000, seed=11, **options)
        cell = ref[label, 16, 0.75]
        for m in ("win", "d", "mid", "tri", "games"):
            se = (got[m][1] ** 2 + float(cell[m + "_se"]) ** 2) ** 0.5
            assert abs(got[m][0] - float(cell[m])) <= 3 * se + 1e-9, (label, m)


def test_swiss_names_say_which_pairing():
    study_rule = study.simulate("swiss_study", 8, 0.75, 3000, seed=2)
    assert study_rule == study.simulate("swiss", 8, 0.75, 3000, seed=2, avoid_rematches=False)  # old spelling
    assert study_rule != study.simulate("swiss", 8, 0.75, 3000, seed=2)  # rematches avoided
    with pytest.raises(ParameterError, match="swiss_study"):
        study.simulate("swiss_study", 8, 0.75, 100, avoid_rematches=True)
    with pytest.raises(ParameterError, match="'swiss-study'"):
        study.simulate("swiss-study", 8, 0.75, 100)


def one_championship(system, n, model_kwargs, seed=0, **options):
    """Points (half-points) and games of one championship under ``model_kwargs``."""
    config = study.system_config(system, n, **options)
    model, elo = study.make_model(n, **model_kwargs, system=config.system).arrays(n)
    T, met, mt, out = config.arrays()
    res = np.zeros(out.shape[0], dtype=np.int64)
    W = np.zeros((n, n), dtype=np.int64)
    rng = R.new_rng(seed)
    games, _ = kernels.championship(T, met, mt, out, res, elo.copy(), model, W, rng)
    return S.blk(T, S.B_PTS).copy(), games


def test_draws_are_half_a_point_each():
    points, games = one_championship("round_robin", 6, {"strengths": [0.0] * 6, "draw": 1.0})
    assert games == 30 and (points == 2 * 5).all()  # 10 games each, every one a draw: 5 points
    r = study.simulate("round_robin", 6, None, 50, strengths=[0.0] * 6, draw=1.0)
    assert r["mid"] == (3.5, 0.0) and r["win"][0] == pytest.approx(1 / 6)  # one shared place
    # a knock-out match of drawn games is decided after 4k games: 4 games for each of 8 matches
    assert study.simulate("olympic", 8, 0.75, 50, draw=1.0)["games"] == (32.0, 0.0)
    # draws halve the decisive games: the first mover's points share stays 1/2 + (1 - draw) shift
    r = study.simulate("round_robin", 8, None, 2000, strengths=[0.0] * 8, draw=0.4, first_move_advantage=0.1)
    assert abs(r["black"][0] - 0.56) < 4 * r["black"][1]


def test_draws_cost_accuracy_in_a_round_robin():
    plain = study.simulate("round_robin", 8, 0.75, 3000, seed=4)
    drawn = study.simulate("round_robin", 8, 0.75, 3000, seed=4, draw=0.5)
    assert drawn["d"][0] > plain["d"][0] + 5 * drawn["d"][1]


def test_first_move_advantage_favours_the_first_mover():
    equal = [0.0] * 8
    fair = study.simulate("round_robin", 8, None, 2000, strengths=equal)
    up = study.simulate("round_robin", 8, None, 2000, strengths=equal, first_move_advantage=0.1)
    down = study.simulate("round_robin", 8, None, 2000, strengths=equal, first_move_advantage=-0.1)
    assert abs(fair["black"][0] - 0.5) < 4 * fair["black"][1]
    assert abs(up["black"][0] - 0.6) < 4 * up["black"][1] and up["black"][0] > 0.58
    assert abs(down["black"][0] - 0.4) < 4 * down["black"][1]
    shifted = study.simulate("swiss", 16, 0.75, 2000, first_move_advantage=0.05)
    assert shifted["black"][0] > 0.5 + 10 * shifted["black"][1]


def test_huge_elo_gaps_give_near_perfect_accuracy():
    elo = [4000.0 * i for i in range(8)]  # an upset has probability 1e-10
    rr = study.simulate("round_robin", 8, None, 500, strengths=elo)
    assert rr["win"] == (1.0, 0.0) and rr["d"] == (0.0, 0.0) and rr["mid"] == (1.0, 0.0) and rr["tri"] == (0.0, 0.0)
    assert study.simulate("olympic", 8, None, 500, strengths=elo)["win"] == (1.0, 0.0)
    # a knock-out puts the second strongest wherever the draw sends it, even without upsets
    assert study.simulate("olympic", 8, None, 500, strengths=elo, recursive=True)["d"][0] > 1
    drawn = study.simulate("round_robin", 8, None, 2000, strengths=("normal", 50_000))
    assert drawn["win"][0] > 0.99 and drawn["d"][0] < 0.1
    close = study.simulate("round_robin", 8, None, 2000, strengths=("normal", 100))
    assert close["d"][0] > 5  # and small differences are hard to rank


def test_ratings_placing_on_a_tiny_example():
    # 0 beat 1 and 2; 2 beat 3; 3 beat 1. Points tie 2 and 3 (one win each), but 2 lost only to
    # the leader and beat 3, so the Bradley-Terry fit ranks 2 above 3.
    scores = np.zeros((4, 4))
    for winner, loser in [(0, 1), (0, 2), (2, 3), (3, 1)]:
        scores[winner, loser] = 1
    games = scores + scores.T
    assert study.rating_places(scores, games) == [(1, 1), (4, 4), (2, 2), (3, 3)]
    elo, _ = bradley_terry(scores, games)
    assert list(np.argsort(-elo)) == [0, 2, 3, 1]
    # the same pairs all drawn: one shared place
    assert study.rating_places(games / 2, games) == [(1, 4)] * 4
    with pytest.raises(ParameterError, match="scores"):
        study.rating_places(scores, games * 2)


def test_the_compiled_fit_is_the_ratings_module_fit():
    rng = np.random.default_rng(3)
    n = 12
    games = np.zeros((n, n), dtype=np.int64)
    half = np.zeros((n, n), dtype=np.int64)
    for _ in range(40):
        i, j = rng.choice(n, 2, replace=False)
        r = int(rng.integers(3))
        games[i, j] += 1
        games[j, i] += 1
        half[i, j] += r
        half[j, i] += 2 - r
    theta = kernels.fit_ratings(half, games)
    elo, _ = bradley_terry(half / 2, games)
    assert np.allclose(theta * 400 / np.log(10), elo, atol=1e-6)


def test_ratings_placing_in_simulations():
    # a complete round robin: the fit orders players exactly as their points do
    assert study.simulate("round_robin", 8, 0.75, 1000, placing="ratings") == study.simulate(
        "round_robin", 8, 0.75, 1000
    )
    # no games: every rating is 0 and everybody shares every place
    r = study.simulate("random_order", 8, 0.75, 100, placing="ratings")
    assert r["mid"] == (4.5, 0.0) and r["d"] == (16.0, 0.0)
    # a Swiss: ratings split the ties of equal points, so the places differ
    assert study.simulate("swiss", 16, 0.75, 1000, placing="ratings") != study.simulate("swiss", 16, 0.75, 1000)


def test_round_robin_cycles():
    one = study.simulate("round_robin", 8, 0.75, 2000)
    two = study.simulate("round_robin", 8, 0.75, 2000, cycles=2)
    assert two["games"] == (112.0, 0.0)
    assert two["d"][0] < one["d"][0] - 10 * two["d"][1]


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"draw": 1.5}, "draw=1.5"),
        ({"draw": "0.3"}, "draw='0.3'"),
        ({"draw": float("nan")}, "draw=nan"),
        ({"first_move_advantage": 2}, "first_move_advantage=2"),
        ({"A": 0.3}, "A=0.3"),
        ({"A": None}, "A=None"),
        ({"A": None, "strengths": [0, 1]}, "8 finite Elo ratings"),
        ({"strengths": [0.0] * 8}, "A=0.75 applies"),
        ({"A": None, "strengths": ("cauchy", 100)}, "cauchy"),
        ({"A": None, "strengths": ("normal", -1)}, "scale"),
        ({"A": None, "strengths": "elo"}, "strengths='elo'"),
        ({"placing": "elo"}, "placing='elo'"),
        ({"cycles": 2, "system": "swiss"}, "cycles= applies to round_robin"),
        ({"cycles": 0}, "cycles=0"),
        ({"championships": 1}, "championships=1"),
        ({"executor": "spark"}, "executor='spark'"),
        ({"n_players": 2}, "2 players"),
        ({"system": "swiss", "k": 2}, "k= and recursive="),
    ],
)
def test_bad_parameters_raise_typed_errors(kwargs, match):
    args = {"system": "round_robin", "n_players": 8, "A": 0.75, "championships": 100, **kwargs}
    with pytest.raises(ParameterError, match=match.replace("(", r"\(").replace("[", r"\[")):
        study.simulate(**args)


def test_pareto_front():
    rows = [
        {"system": s, "games": g, "d": d, "win": w}
        for s, g, d, w in [("a", 10, 50.0, 0.1), ("b", 20, 55.0, 0.3), ("c", 20, 40.0, 0.2), ("d", 40, 41.0, 0.25)]
    ]
    assert [r["system"] for r in study.pareto(rows, "d")] == ["a", "c"]
    assert [r["system"] for r in study.pareto(rows, "win")] == ["a", "b"]


def test_budget_and_placing_tables(tmp_path):
    assert ("round robin", 2, "round_robin", {"cycles": 2}) in study.budget_systems(8)
    assert max(p for f, p, *_ in study.budget_systems(8) if f == "swiss (no rematches)") == 7
    study.write_study(tmp_path, sizes=(8,), championships=60, parts=("budget", "placing"), log=lambda s: None)
    budget = (tmp_path / "budget.md").read_text()
    assert "on the front by" in budget and "| round robin cycles=3 | 168.0 |" in budget
    assert "| round robin | 56.0 |" in (tmp_path / "placing.md").read_text()
    rows = study.read_csv(tmp_path / "budget.csv")
    assert len(rows) == len(study.budget_systems(8)) and rows[0]["n"] == 8


def test_arbiter_study_plot_writes_png_and_svg(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    with open(os.path.join(DOCS, "study_grid.csv")) as f:  # the stored grid's Np = 8 cells
        lines = [line for i, line in enumerate(f) if i == 0 or line.split(",")[1] == "8"]
    (tmp_path / "grid8.csv").write_text("".join(lines))
    assert (
        main(
            [
                "study",
                "--from-csv",
                str(tmp_path / "grid8.csv"),
                "--out",
                str(tmp_path / "tables"),
                "--plot",
                str(tmp_path / "plots"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "study",
                "--parts",
                "budget",
                "--sizes",
                "8",
                "--championships",
                "20",
                "--out",
                str(tmp_path / "tables"),
                "--plot",
                str(tmp_path / "plots"),
            ]
        )
        == 0
    )
    for name in ("study_metrics", "study_budget"):
        png = (tmp_path / "plots" / f"{name}.png").read_bytes()
        svg = (tmp_path / "plots" / f"{name}.svg").read_text()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    grid = (tmp_path / "tables" / "grid.md").read_text()
    assert "### Np = 8 (1,000,000 championships per cell)" in grid  # the tables came from the CSV
    assert "study_metrics.svg" in capsys.readouterr().out
