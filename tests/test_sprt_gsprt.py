"""The exact pentanomial GSPRT (``tournaments.sprt``, ``method="mle"``) against an independent
implementation written here, and the command-line forms of ``--sprt``.

The module finds each constrained maximum likelihood through its Lagrange multiplier (a 1-D root).
The check here never forms that multiplier: it maximises the log-likelihood directly over the
pentanomial distributions of the required mean by Newton's method in the primal, moving only
along directions that keep the total and the mean fixed (the null space of the constraints), from
a feasible start, with a backtracking line search that keeps every probability positive.
"""

import math
import sqlite3

import numpy as np
import pytest

import envs
import tournaments
from envs.core.outcome import Outcome
from tournaments.analysis import sprt
from tournaments.referee.reading import load_journal

A = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def _null_space(rows: np.ndarray) -> np.ndarray:
    """An orthonormal basis of the vectors orthogonal to every row (by SVD)."""
    _, sv, vt = np.linalg.svd(rows)
    return vt[int((sv > 1e-12).sum()) :].T


def _feasible_start(f: np.ndarray, s: float) -> np.ndarray:
    """A positive distribution of mean ``s``: ``f`` mixed with the point mass beyond ``s``."""
    m = f @ A
    if abs(m - s) < 1e-15:
        return f.copy()
    edge, target = (np.eye(5)[4], 1.0) if m < s else (np.eye(5)[0], 0.0)
    w = (s - m) / (target - m)
    return (1 - w) * f + w * edge


def primal_mle(f: np.ndarray, s: float) -> np.ndarray:
    """argmax sum f log p over distributions p on A of mean s, by primal Newton steps."""
    basis = _null_space(np.vstack([np.ones(5), A]))
    p = _feasible_start(f, s)

    def loglik(q):
        return float(f @ np.log(q))

    for _ in range(500):
        grad = basis.T @ (f / p)
        hess = basis.T @ (basis * (f / p**2)[:, None])
        step = basis @ np.linalg.solve(hess, grad)  # ascent: the Hessian of -loglik is positive
        t = 1.0
        while np.any(p + t * step <= 0) or loglik(p + t * step) < loglik(p):
            t /= 2
            if t < 1e-20:
                return p
        p = p + t * step
        if np.abs(t * step).max() < 1e-15:
            break
    return p


def independent_llr(counts, elo0: float, elo1: float) -> float:
    """fastchess's GSPRT, computed here without a Lagrange multiplier: empty cells count as
    0.001 of a pair, the LLR is N * sum f (log p1 - log p0) at the two constrained maxima."""
    c = np.array(counts, dtype=float)
    c[c == 0] = 1e-3
    n = c.sum()
    f = c / n
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    p0, p1 = primal_mle(f, s0), primal_mle(f, s1)
    assert abs(p0 @ A - s0) < 1e-9 and abs(p1 @ A - s1) < 1e-9 and abs(p0.sum() - 1) < 1e-9
    return float(n * (f @ (np.log(p1) - np.log(p0))))


CASES = [
    ([0, 0, 1, 0, 7], 0, 50),
    ([3, 10, 20, 12, 5], 0, 20),
    ([5, 30, 100, 40, 6], -5, 5),
    ([0, 0, 40, 0, 0], 0, 10),  # every pair a split or two draws
    ([12, 0, 0, 0, 0], 0, 50),  # every pair lost
    ([0, 0, 0, 0, 30], 0, 100),  # every pair won
    ([1, 0, 0, 0, 1], 10, 30),
    ([900, 4100, 9000, 4300, 1000], 0, 2),
]


@pytest.mark.parametrize("counts, elo0, elo1", CASES)
def test_llr_equals_an_independent_maximisation(counts, elo0, elo1):
    ours = sprt.SPRT(elo0, elo1, 0.05, 0.05).llr(counts)
    assert math.isfinite(ours)
    assert ours == pytest.approx(independent_llr(counts, elo0, elo1), abs=0.01)


def test_the_lopsided_match_continues_as_fastchess_does():
    """8 pairs, 7 won 2-0 and one split, H0 0 Elo against H1 50 Elo: the exact GSPRT gives +1.07
    and plays on (the normal approximation gives +3.20 and would stop, accepting H1); with every
    further pair won it accepts H1 at pair 23, not before."""
    test = sprt.SPRT(0, 50, 0.05, 0.05)
    status = test.status([0, 0, 1, 0, 7])
    assert status.llr == pytest.approx(1.07, abs=0.005) and status.decision == "undecided"
    assert sprt.SPRT(0, 50, 0.05, 0.05, method="normal").llr([0, 0, 1, 0, 7]) == pytest.approx(3.20, abs=0.005)
    decided = [k + 1 for k in range(7, 40) if test.status([0, 0, 1, 0, k]).decision == "H1"]
    assert decided[0] == 23


def test_bounds_are_fastchess_bounds():
    test = sprt.SPRT(0, 5, 0.05, 0.1)
    assert (test.lower, test.upper) == (math.log(0.1 / 0.95), math.log(0.9 / 0.05))


def test_llr_is_vectorised_zero_before_the_first_pair_and_antisymmetric():
    test = sprt.SPRT(-10, 10, 0.05, 0.05)
    rows = np.array([[3, 10, 20, 12, 5], [5, 12, 20, 10, 3], [0, 0, 0, 0, 0]])
    out = test.llr(rows)
    assert out.shape == (3,) and out[2] == 0.0
    assert out[0] == pytest.approx(test.llr(rows[0])) and out[0] == pytest.approx(-out[1])


def test_normalized_elo_maximum_meets_its_constraint_and_beats_its_neighbours():
    """Normalized Elo (fastchess's default model): the maximum found satisfies
    (mu - 1/2) / sigma = t and no feasible distribution near it has a higher likelihood."""
    counts = np.array([3.0, 10, 20, 12, 5])
    f = counts / counts.sum()
    t = math.sqrt(2) * 20 / sprt.NELO
    p = np.zeros(5)
    sprt._normalized_mle(f, A, t, p)
    mu = p @ A
    sigma = math.sqrt(p @ (A - mu) ** 2)
    assert p.sum() == pytest.approx(1) and (mu - 0.5) / sigma == pytest.approx(t, abs=1e-9)
    best = f @ np.log(p)
    rng = np.random.default_rng(0)
    for _ in range(300):
        q = p * np.exp(rng.normal(0, 0.05, 5))
        q /= q.sum()
        # walk q back onto the constraint along the mean direction (mix with a point mass)
        lo, hi = 0.0, 1.0
        edge = np.eye(5)[4] if (q @ A - 0.5) / math.sqrt(q @ (A - q @ A) ** 2) < t else np.eye(5)[0]
        for _ in range(100):
            w = (lo + hi) / 2
            r = (1 - w) * q + w * edge
            m = r @ A
            g = (m - 0.5) / math.sqrt(r @ (A - m) ** 2) - t
            lo, hi = (w, hi) if (g < 0) == (edge[4] == 1) else (lo, w)
        assert abs(g) < 1e-9  # r is feasible
        assert f @ np.log(r) <= best + 1e-12
    llr = sprt.SPRT(0, 20, model="normalized").llr(counts)
    assert math.isfinite(llr) and llr > sprt.SPRT(0, 20, model="normalized").llr(counts[::-1])


@pytest.mark.parametrize("words", [["0,50,0.05,0.05"], ["0", "50", "0.05", "0.05"], ["0,50", "0.05", "0.05"]])
def test_parse_takes_the_comma_and_the_space_forms(words):
    assert sprt.SPRT.parse(words) == sprt.SPRT(0, 50, 0.05, 0.05)


@pytest.mark.parametrize(
    "words, named", [(["0,50,0.05"], "--sprt"), (["0,x,0.05,0.05"], "elo1"), (["50,0,0.05,0.05"], "elo0")]
)
def test_parse_names_the_bad_value(words, named):
    with pytest.raises(envs.ParameterError, match=named):
        sprt.SPRT.parse(words)


def test_bad_method_and_degenerate_hypotheses_are_named():
    with pytest.raises(envs.ParameterError, match="method"):
        sprt.SPRT(0, 10, method="bayes")
    with pytest.raises(envs.ParameterError, match="elo1"):
        sprt.SPRT(0, 1e5)  # an expected score of 1: only all-won pairs have that mean
    with pytest.raises(envs.ParameterError, match="counts"):
        sprt.SPRT(0, 10).llr([1, 2, 3])


# -- a gauntlet with a sequential test per candidate ------------------------------------------------
def _gauntlet(**kwargs):
    return tournaments.gauntlet(
        ["greedy", "random"],
        ["random", "alphabeta:depth=1"],
        game="gomoku",
        size=7,
        games=60,
        **{"workers": 0, "progress": False, "seed": 1, **kwargs},
    )


def _pentanomial_from_records(games, c):
    """Candidate ``c``'s colour pairs against the field, rebuilt from game records alone."""
    halves, counts = {}, [0] * 5
    for game in games:
        if c not in (game["black_id"], game["white_id"]):
            continue
        outcome = Outcome.from_record(game)
        seat = 0 if game["black_id"] == c else 1
        key = (game["white_id"] if seat == 0 else game["black_id"], game["game"])
        if key in halves:
            counts[round(2 * (halves.pop(key) + outcome.points(seat)))] += 1
        else:
            halves[key] = outcome.points(seat)
    assert not halves  # whole pairs only
    return counts


def test_a_gauntlet_stops_each_candidate_when_its_test_decides(tmp_path):
    result = _gauntlet(sprt=(0, 100, 0.05, 0.05), journal=str(tmp_path / "run.db"))
    full = _gauntlet()
    assert set(result.sprt) == {"greedy", "random"} and len(result.games) < len(full.games)
    test = sprt.SPRT(0, 100, 0.05, 0.05)
    for name, status in result.sprt.items():
        c = result.names.index(name)
        own = [g for g in result.games if c in (g["black_id"], g["white_id"])]
        assert status.decision in ("H0", "H1") and status.pairs < 2 * 30  # of 30 pairs per opponent
        assert list(status.pentanomial) == _pentanomial_from_records(own, c)
        # it stopped at the first batch that decided: before its last batch (a pair per opponent,
        # four games) the test was still undecided
        assert len(own) == 2 * status.pairs
        assert test.status(_pentanomial_from_records(own[:-4], c)).decision == "undecided"
    assert result.sprt["greedy"].decision == "H1" and result.sprt["random"].decision == "H0"
    assert "SPRT of each candidate against the field:" in result.table()
    # the games played are the full run's games up to the stop: each (match, game) has its seed
    played = {(g["match"], g["game"]): g for g in full.games}
    assert all(_timeless(g, "index") == _timeless(played[g["match"], g["game"]], "index") for g in result.games)


def _timeless(game, *more):
    return {k: v for k, v in game.items() if k not in ("seconds", "times", *more)}


def test_an_interrupted_sequential_gauntlet_resumes_to_the_same_records(tmp_path):
    journal = tmp_path / "run.db"
    whole = _gauntlet(sprt=(0, 100, 0.05, 0.05), journal=str(journal))
    with sqlite3.connect(journal) as db:  # as if killed after the first 30 games
        db.execute("DELETE FROM games WHERE idx >= 30")
    resumed = _gauntlet(sprt=(0, 100, 0.05, 0.05), journal=str(journal), resume=True)
    assert [_timeless(g) for g in resumed.games] == [_timeless(g) for g in whole.games]
    assert resumed.sprt == whole.sprt
    # the report and the rating lists replay the journal: the candidates stop there too
    loaded = load_journal(journal)
    assert [_timeless(g) for g in loaded.games] == [_timeless(g) for g in whole.games]
    assert loaded.sprt == whole.sprt and loaded.config["finished"]
    with pytest.raises(tournaments.JournalError):
        _gauntlet(sprt=(0, 50, 0.05, 0.05), journal=str(journal), resume=True)


def test_a_resumed_gauntlet_counts_only_the_games_it_will_play(tmp_path, capsys):
    """The journal's games decide a candidate's test before the resumed run plays a game: the
    resume line counts only the games left to play, and none once every test has decided."""
    journal = tmp_path / "run.db"
    field = (["greedy", "random:seed=7"], ["random", "random:seed=2"])
    args = {"game": "gomoku", "size": 7, "games": 40, "workers": 0, "seed": 1, "journal": str(journal)}
    args["sprt"] = (0, 200, 0.1, 0.1)
    whole = tournaments.gauntlet(*field, progress=False, **args)
    assert whole.sprt["random:seed=7"].decision == "H0" and whole.sprt["greedy"].decision == "H1"
    capsys.readouterr()
    tournaments.gauntlet(*field, progress=True, resume=True, **args)
    said = capsys.readouterr().err.splitlines()[0]
    assert said == f"all {len(whole.games)} games are already in the journal: the tournament is complete"
    last = max(g["index"] for g in whole.games if "random:seed=7" in (g["black"], g["white"]))
    with sqlite3.connect(journal) as db:  # as if killed after random:seed=7's last game
        db.execute("DELETE FROM games WHERE idx > ?", (last,))
    resumed = tournaments.gauntlet(*field, progress=True, resume=True, **args)
    said = capsys.readouterr().err.splitlines()[0]
    held = [g for g in whole.games if g["index"] <= last]
    greedy_left = 2 * 40 - sum("greedy" in (g["black"], g["white"]) for g in held)  # its planned games
    assert said.startswith(f"resuming: {len(held)} of {len(held) + greedy_left} games in the journal; ")
    assert f"; playing {greedy_left};" in said
    assert [_timeless(g) for g in resumed.games] == [_timeless(g) for g in whole.games]


def test_the_progress_total_shrinks_by_the_games_a_stopped_candidate_leaves_out(capsys):
    """A candidate whose test decided plays no more games, and the progress says so: the last
    line counts the games played of a total that no longer holds the ones left out."""
    result = tournaments.gauntlet(
        ["greedy", "random"],
        ["random", "alphabeta:depth=1"],
        game="gomoku",
        size=7,
        games=60,
        workers=0,
        progress=True,
        seed=1,
        sprt=(0, 100, 0.05, 0.05),
    )
    err = capsys.readouterr().err
    played = len(result.games)
    assert played < 240 and "playing 240 games" in err
    assert f"{played}/{played} games" in err.splitlines()[-1]


def test_stopping_a_player_counts_the_games_it_leaves_out():
    referee = tournaments.Referee(tournaments.configure("gauntlet", 3, games=4, candidates=1))
    batch = referee.next_games()  # game 0 of each of the candidate's four matches
    referee.record([tournaments.referee.systems.DRAW] * len(batch))
    assert len(batch) == 4 and referee.stop(0) == 4 * 2 - len(batch)


def test_only_systems_of_one_round_stop_a_player():
    referee = tournaments.Referee(tournaments.configure("swiss", 4, rounds=2))
    with pytest.raises(ValueError, match="swiss"):
        referee.stop(0)


def test_sprt_outside_a_gauntlet_is_named():
    with pytest.raises(envs.ParameterError, match="sprt="):
        tournaments.round_robin(["random", "greedy"], game="gomoku", size=7, sprt=(0, 50, 0.05, 0.05), workers=0)


# -- the command line ------------------------------------------------------------------------------
def test_cli_gauntlet_with_sprt_reports_each_candidate(capsys):
    from tournaments.cli import main

    argv = ["tournament", "--game", "gomoku", "-p", "size=7", "--system", "gauntlet", "--candidates", "greedy"]
    argv += ["random", "--agents", "random", "alphabeta:depth=1", "--games", "60", "--workers", "0", "--seed", "1"]
    assert main([*argv, "--sprt", "0,100,0.05,0.05"]) == 0
    out = capsys.readouterr().out
    assert "SPRT of each candidate against the field:" in out
    assert "H1 accepted" in out and "H0 accepted" in out
    with pytest.raises(SystemExit):
        main(
            ["tournament", "--game", "gomoku", "--system", "round_robin", "--agents", "random", "greedy"]
            + ["--sprt", "0,50,0.05,0.05"]
        )
    assert "--sprt: applies to --system gauntlet" in capsys.readouterr().err


def test_cli_match_takes_the_comma_form_and_prints_cutechess_lines(capsys):
    from tournaments.cli import main

    argv = ["match", "--game", "gomoku", "-p", "size=7", "-a", "greedy", "-b", "random", "--games", "60"]
    assert main([*argv, "--sprt", "0,100,0.05,0.05", "--seed", "2"]) == 0
    comma = capsys.readouterr().out
    assert main([*argv, "--sprt", "0", "100", "0.05", "0.05", "--seed", "2"]) == 0
    assert capsys.readouterr().out == comma
    lines = comma.splitlines()
    assert lines[0].startswith("Score of greedy vs random: 2 - 0 - 0 [1.000] 2, Elo ")
    assert all(line.startswith("Score of ") and ", LLR " in line for line in lines[:-2])
    assert lines[-3].endswith("H1 accepted") and "H1 accepted" in lines[-1]
