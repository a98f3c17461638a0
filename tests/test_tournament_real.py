"""Real tournaments on Gomoku 7x7 with small test agents: forfeits, journal, resume, ratings, export.

The agents below are plain picklable objects (``act(game, state) -> int`` and ``name``), so these
tests do not depend on the ``agents`` package.
"""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import envs
import tournaments
from envs.core.kernel import H_PLY
from tournaments import JournalError, bradley_terry

GAME = {"game": "gomoku", "game_params": {"size": 7}}
HERE = os.path.dirname(os.path.abspath(__file__))


def timeless(games):
    """Game records without their wall-clock durations (the only field that may differ)."""
    return [{k: v for k, v in g.items() if k not in ("seconds", "times")} for g in games]


class Lowest:
    """Plays the lowest legal action; ``delay`` seconds per move (to make a run slow on purpose)."""

    def __init__(self, name="lowest", delay=0.0):
        self.name, self.delay = name, delay

    def act(self, game, state):
        time.sleep(self.delay)
        return int(game.legal_actions(state)[0])


class Highest(Lowest):
    def act(self, game, state):
        time.sleep(self.delay)
        return int(game.legal_actions(state)[-1])


class Seeded:
    """A random mover with a fixed seed (every game starts from the same stream)."""

    def __init__(self, name, seed):
        self.name, self.seed = name, seed
        self.reset()

    def reset(self):
        self.rng = np.random.default_rng(self.seed)

    def act(self, game, state):
        return int(self.rng.choice(game.legal_actions(state)))


class Crasher(Lowest):
    def act(self, game, state):
        if state[H_PLY] >= 2:  # from the third ply on
            raise RuntimeError("boom")
        return super().act(game, state)


class Dier(Lowest):
    def act(self, game, state):
        os._exit(3)  # the process vanishes without a word


class Hanger(Lowest):
    def act(self, game, state):
        if state[H_PLY] >= 2:
            time.sleep(1000)
        return super().act(game, state)


class Illegal(Lowest):
    def act(self, game, state):
        return -1


def test_round_robin_records_every_game_with_notation():
    agents = [Lowest(), Highest("highest"), Seeded("seeded", 1)]
    r = tournaments.round_robin(agents, workers=0, **GAME)
    assert len(r.games) == 6
    assert {(g["black"], g["white"]) for g in r.games} == {
        (a, b) for a in ("lowest", "highest", "seeded") for b in ("lowest", "highest", "seeded") if a != b
    }
    g = r.games[0]
    assert g["reason"] == "normal" and g["result"] in ("1-0", "0-1", "1/2-1/2")
    assert all(isinstance(m, str) and m[0] in "abcdefg" for m in g["moves"])
    assert sum(s.points for s in r.standings()) == pytest.approx(6)
    cross = r.crosstable()
    assert np.isnan(cross[0, 0]) and np.nansum(cross) == pytest.approx(6)
    text = str(r)
    assert "Bradley–Terry" in text and "lowest" in text


def test_results_do_not_depend_on_worker_count():
    agents = [Seeded("a", 1), Seeded("b", 2), Seeded("c", 3), Seeded("d", 4)]
    one = tournaments.swiss(agents, seed=7, workers=0, **GAME)
    two = tournaments.swiss(agents, seed=7, workers=2, **GAME)
    assert [(g["black"], g["white"], g["moves"]) for g in one.games] == [
        (g["black"], g["white"], g["moves"]) for g in two.games
    ]
    assert one.places == two.places


@pytest.mark.parametrize(
    "bad,reason",
    [(Crasher("crasher"), "forfeit-crash"), (Dier("dier"), "forfeit-crash"), (Illegal("illegal"), "forfeit-illegal")],
)
def test_bad_agents_forfeit_and_the_tournament_goes_on(bad, reason):
    r = tournaments.round_robin([Lowest(), bad, Highest("highest")], workers=2, **GAME)
    assert len(r.games) == 6
    theirs = [g for g in r.games if bad.name in (g["black"], g["white"])]
    assert all(g["reason"] == reason for g in theirs)
    assert all((g["result"] == "0-1") == (g["black"] == bad.name) for g in theirs)
    assert all(g["reason"] == "normal" for g in r.games if g not in theirs)
    assert r.standings()[-1].name == bad.name and r.standings()[-1].forfeits == 4


def test_a_hanging_agent_is_killed_and_forfeits_on_time():
    t = time.perf_counter()
    r = tournaments.round_robin([Lowest(), Hanger("hanger")], workers=2, move_time=0.5, **GAME)
    assert time.perf_counter() - t < 30
    assert [g["reason"] for g in r.games] == ["forfeit-timeout"] * 2
    # the moves played before the hang are kept: it hangs on its first move from ply 2 on
    assert all(g["plies"] == (2 if g["black"] == "hanger" else 3) for g in r.games)
    assert r.standings()[0].name == "lowest"


def test_slow_move_over_the_clock_is_a_timeout_forfeit():
    r = tournaments.round_robin([Lowest(delay=0.6), Highest("highest")], workers=0, move_time=0.2, **GAME)
    assert all(g["reason"] == "forfeit-timeout" and g["plies"] == (0 if g["black"] == "lowest" else 1) for g in r.games)


def test_olympic_and_random_order_on_real_agents():
    agents = [Seeded(f"s{i}", i) for i in range(4)]
    r = tournaments.olympic(agents, k=2, recursive=True, workers=0, **GAME)
    assert sorted((s.place, s.tied) for s in r.standings()) == [(1, False), (2, False), (3, False), (4, False)]
    r = tournaments.random_order(agents, workers=0, **GAME)
    assert r.games == [] and sorted(s.place for s in r.standings()) == [1, 2, 3, 4]
    r = tournaments.olympic(agents * 2, workers=0, **GAME)
    assert [(s.place, s.tied) for s in r.standings()][4:] == [(5, True)] * 4
    assert [line.split()[0] for line in r.table().splitlines()[3:11]] == ["1", "2", "3", "4"] + ["5="] * 4


def test_swiss_with_an_odd_field_gives_byes_shown_in_standings_and_crosstable():
    r = tournaments.swiss([Seeded(f"s{i}", i) for i in range(5)], rounds=3, workers=0, **GAME)
    assert len(r.byes) == 3 and len(r.games) == 6
    rows = r.standings()
    assert sum(s.byes for s in rows) == 3 and all(s.byes <= 1 for s in rows)
    for s in rows:  # a bye is a point without a game
        assert s.points == pytest.approx(s.wins + s.draws / 2 + s.byes)
        assert s.games == s.wins + s.draws + s.losses
    text = r.table()
    assert "byes" in text.splitlines()[2] and text.splitlines()[0].endswith("6 games, 3 byes")
    cross = text[text.index("Crosstable") :].splitlines()
    assert cross[1].split()[-1] == "bye"
    by_name = {s.name: s.byes for s in rows}
    for line in cross[2:]:
        name, last = line.split()[1], line.split()[-1]
        assert last == (str(by_name[name]) if by_name[name] else ".")


def test_default_swiss_is_ceil_log2_rounds_without_rematches():
    r = tournaments.swiss([Seeded(f"s{i}", i) for i in range(4)], workers=0, **GAME)
    assert r.config["options"]["rounds"] == 2 and len(r.games) == 4
    assert len({frozenset((g["black"], g["white"])) for g in r.games}) == 4


def test_game_parameters_as_keywords():
    agents = [Lowest(), Highest("highest")]
    r = tournaments.round_robin(agents, game="gomoku", size=7, workers=0)
    assert r.config["game_params"] == {"size": 7} and len(r.games) == 2
    assert timeless(r.games) == timeless(tournaments.round_robin(agents, workers=0, **GAME).games)
    r = tournaments.swiss(agents, game="othello", size=6, workers=0)
    assert r.config["game_params"] == {"size": 6} and r.config["options"]["rounds"] == 1
    r = tournaments.olympic(agents, game="gomoku", size=7, k=2, workers=0)
    assert r.config["game_params"] == {"size": 7} and r.config["options"]["k"] == 2
    with pytest.raises(envs.ParameterError, match=r"unknown keyword sise=6 .*othello \(size, rules\)"):
        tournaments.swiss(agents, game="othello", sise=6, workers=0)
    with pytest.raises(envs.ParameterError, match="size= given both"):
        tournaments.swiss(agents, game="othello", size=6, game_params={"size": 8}, workers=0)
    with pytest.raises(envs.ParameterError, match="rounds= applies to the swiss system"):
        tournaments.round_robin(agents, game="othello", rounds=3, workers=0)


def test_result_repr_is_one_short_line_and_the_table_is_one_call_away():
    agents = [Seeded(f"s{i}", i) for i in range(6)]
    r = tournaments.round_robin(agents, workers=0, **GAME)
    text = repr(r)
    leader = r.standings()[0]
    assert "\n" not in text and len(text) < 200
    assert (
        text == (f"TournamentResult(system='round_robin', game='gomoku', players=6, games=30, leader={leader.name!r})")
        or leader.tied
    )
    assert str(r) == r.table() and r.table().startswith("round_robin on gomoku (size=7): 30 games")
    assert len(r.table()) > 10 * len(text)


def test_places_are_integers_and_ties_are_marked():
    r = tournaments.round_robin([Lowest("a"), Lowest("b"), Lowest("c")], workers=0, **GAME)
    rows = r.standings()
    for s in rows:
        assert isinstance(s.place, int)
        equal = [t for t in rows if t.points == s.points]
        assert s.tied == (len(equal) > 1) and s.place == 1 + sum(t.points > s.points for t in rows)
    shown = {line.split()[1]: line.split()[0] for line in r.table().splitlines()[3:6]}
    assert shown == {s.name: f"{s.place}=" if s.tied else str(s.place) for s in rows}


# -- journal --------------------------------------------------------------------------------------
def test_journal_resume_replays_nothing_and_matches(tmp_path):
    agents = [Seeded("a", 1), Seeded("b", 2), Seeded("c", 3)]
    path = tmp_path / "j.db"
    full = tournaments.round_robin(agents, workers=0, journal=path, **GAME)
    with pytest.raises(JournalError, match="resume"):
        tournaments.round_robin(agents, workers=0, journal=path, **GAME)
    db = sqlite3.connect(path)
    with db:
        db.execute("DELETE FROM games WHERE idx >= 3")
    db.close()
    played = []

    class Spy(tournaments.InlineExecutor):
        def run(self, jobs):
            played.extend(j.index for j in jobs)
            yield from super().run(jobs)

    again = tournaments.round_robin(agents, workers=0, journal=path, resume=True, executor=Spy(), **GAME)
    assert played == [3, 4, 5]
    assert timeless(again.games) == timeless(full.games) and again.places == full.places


def test_foreign_and_corrupt_journals_are_refused(tmp_path):
    agents = [Seeded("a", 1), Seeded("b", 2)]
    path = tmp_path / "j.db"
    tournaments.round_robin(agents, workers=0, journal=path, seed=1, **GAME)
    with pytest.raises(JournalError, match="another tournament.*seed"):
        tournaments.round_robin(agents, workers=0, journal=path, seed=2, resume=True, **GAME)
    with pytest.raises(JournalError, match="another tournament.*system"):
        tournaments.swiss(agents, workers=0, journal=path, seed=1, resume=True, **GAME)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(JournalError, match="not a readable tournament journal"):
        tournaments.round_robin(agents, workers=0, journal=junk, resume=True, **GAME)
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO meta VALUES ('format', 'something else')")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not an Arbiter tournament journal"):
        tournaments.round_robin(agents, workers=0, journal=other, resume=True, **GAME)


KILL_SCRIPT = textwrap.dedent("""
    import sys
    sys.path[:0] = [{here!r}, {root!r}]
    import tournaments
    from test_tournament_real import Lowest, Highest, Seeded
    agents = [Lowest("lowest", delay={delay}), Highest("highest", delay={delay}), Seeded("a", 1), Seeded("b", 2)]
    tournaments.round_robin(agents, game="gomoku", game_params={{"size": 7}}, workers=2,
                            journal={path!r}, resume=True, seed=3, progress=False)
""")


# seconds a move, sleeping, not computing: the run lasts several seconds even on a loaded machine,
# so the kill lands mid-run and not after the last game (the journal knows its agents by their
# settings, so the resumed run plays them with the same delay)
KILL_DELAY = 0.05


def test_sigkill_mid_run_loses_no_finished_game(tmp_path):
    path = str(tmp_path / "killed.db")
    script = KILL_SCRIPT.format(here=HERE, root=os.path.dirname(HERE), path=path, delay=KILL_DELAY)
    proc = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    finished = 0
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if os.path.exists(path):
            try:
                db = sqlite3.connect(path)
                finished = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                db.close()
            except sqlite3.OperationalError:
                continue
            if finished >= 3:
                break
    os.killpg(proc.pid, signal.SIGKILL)  # the tournament and its workers, mid-run
    proc.wait()
    assert 3 <= finished < 12
    db = sqlite3.connect(path)
    before = dict(db.execute("SELECT idx, record FROM games"))
    db.close()
    agents = [Lowest("lowest", delay=KILL_DELAY), Highest("highest", delay=KILL_DELAY), Seeded("a", 1), Seeded("b", 2)]
    kw = dict(workers=2, seed=3, progress=False, **GAME)
    resumed = tournaments.round_robin(agents, journal=path, resume=True, **kw)
    clean = tournaments.round_robin(agents, **kw)
    assert all(json.loads(rec) == resumed.games[idx] for idx, rec in before.items())
    assert timeless(resumed.games) == timeless(clean.games)
    assert [vars(s) for s in resumed.standings()] == [vars(s) for s in clean.standings()]


# -- ratings and export ---------------------------------------------------------------------------
def test_bradley_terry_recovers_known_strengths_with_calibrated_intervals():
    rng = np.random.default_rng(0)
    elo = np.array([400.0, 200.0, 0.0, -150.0, -450.0])
    n, covered, trials = len(elo), 0, 40
    for _ in range(trials):
        scores, games = np.zeros((n, n)), np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1, n):
                w = rng.binomial(200, 1 / (1 + 10 ** ((elo[j] - elo[i]) / 400)))
                scores[i, j], scores[j, i] = w, 200 - w
                games[i, j] = games[j, i] = 200
        fit, half = bradley_terry(scores, games)
        assert list(np.argsort(-fit)) == [0, 1, 2, 3, 4]
        assert np.all((half > 15) & (half < 80))
        covered += int((np.abs(fit - (elo - elo.mean())) < half).sum())
    assert 0.88 <= covered / (trials * n) <= 0.99  # the 95% intervals cover the truth ~95% of the time


def test_perfect_scores_give_finite_ratings():
    scores = np.array([[0, 4], [0, 0]], dtype=float)
    fit, half = bradley_terry(scores, np.array([[0, 4], [4, 0]]))
    assert np.all(np.isfinite(fit)) and fit[0] > fit[1] and np.all(np.isfinite(half))


def test_exports(tmp_path):
    r = tournaments.round_robin([Lowest(), Highest("highest")], workers=0, **GAME)
    r.to_jsonl(tmp_path / "g.jsonl")
    lines = (tmp_path / "g.jsonl").read_text().splitlines()
    assert [{k: json.loads(x)[k] for k in g} for x, g in zip(lines, r.games)] == r.games  # and the run's fields
    r.to_csv(tmp_path / "g.csv")
    rows = (tmp_path / "g.csv").read_text().splitlines()
    assert rows[0].startswith("index,round,match") and len(rows) == 3
    paths = r.to_sgf(tmp_path / "sgf")  # any placement game with an SGF game number
    assert len(paths) == 2 and f"GM[{envs.spec(GAME['game']).sgf}]" in open(paths[0]).read()
    loa = tournaments.round_robin([Lowest(), Highest("highest")], game="loa", game_params={"max_moves": 20}, workers=0)
    assert "GM[9]" in open(loa.to_sgf(tmp_path / "sgf-loa")[0]).read()  # Lines of Action records too


def test_go_games_export_to_sgf(tmp_path):
    r = tournaments.round_robin([Lowest(), Highest("highest")], game="go", game_params={"size": 5}, workers=0)
    paths = r.to_sgf(tmp_path / "sgf")
    assert len(paths) == 2
    text = open(paths[0]).read()
    assert all(p in text for p in ("GM[1]", "FF[4]", "SZ[5]", "KM[7.5]", "PB[lowest]", "PW[highest]", "RE["))
    first = r.games[0]["moves"][0]  # lowest legal action on an empty board: A5, the top-left point
    assert first == "A5" and ";B[aa]" in text
    from sgfmill import sgf

    assert len(sgf.Sgf_game.from_bytes(text.encode()).get_main_sequence()) - 1 == r.games[0]["plies"]


def test_a_job_can_start_from_an_opening_played_for_both_sides():
    import envs
    from agents.openings import random_opening
    from tournaments.referee.play import Context, Job, play_job

    game = envs.make_game("gomoku", size=7)
    opening = random_opening(game, np.random.default_rng(4), 3, 3)
    assert len(opening) == 3 and opening == random_opening(game, np.random.default_rng(4), 3, 3)
    ctx = Context("gomoku", {"size": 7}, (Lowest(), Highest()), ("lowest", "highest"))
    pair = [play_job(ctx, Job(k, 0, 0, k, k, 1 - k, 0, (0, 0), opening)) for k in (0, 1)]
    for record in pair:
        assert record["opening"] == 3 and record["reason"] == "normal"
        replay = game.initial_state()
        for i, move in enumerate(record["moves"]):  # the record replays from the start
            action = game.str_to_action(replay, move)
            assert i >= 3 or action == opening[i]
            replay = game.apply(replay, action)
        assert game.is_terminal(replay)
    assert pair[0]["moves"] != pair[1]["moves"]  # colours swapped: a different game
    with pytest.raises(ValueError, match="opening plies 3..2"):
        random_opening(game, np.random.default_rng(0), 3, 2)
