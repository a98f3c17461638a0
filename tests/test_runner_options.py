"""What a tournament's report says as engine authors expect it: the game's parameters in the
header, standings aligned whatever the specs' length, one agent order in the standings and the
crosstable, and games that repeat exactly counted and warned of (the table and the trust line).
SIGTERM and a replayed game's line are in tests/test_faults.py."""

import pytest

import tournaments
from agents.base import with_options
from agents.clock import GameClock, TimeControl
from envs import ParameterError
from tournaments.cli import main
from tournaments.referee import records

GAME = {"game": "othello", "size": 6}
LONG = "alphabeta:depth=1,tt_bits=16,resign=true,endgame=0"


@pytest.fixture(scope="module")
def result():
    return tournaments.round_robin(["random", "greedy", LONG], games=2, seed=2, workers=0, progress=False, **GAME)


def test_the_header_names_the_game_with_its_parameters(result):
    assert result.table().startswith("round_robin on othello (size=6): 6 games\n")
    plain = tournaments.round_robin(["random", "greedy"], game="othello", workers=0, progress=False)
    assert plain.table().startswith("round_robin on othello: 2 games\n")  # played as it comes


def test_standings_stay_aligned_with_a_long_spec(result):
    lines = result.table().split("\n\n")[1].splitlines()
    head, rows = lines[0], lines[1:]
    assert len(rows) == 3 and any(LONG in row for row in rows)
    for row in rows:  # every column ends where its heading ends
        for column in ("points", "games", "W-D-L", "forfeits"):
            end = head.index(column) + len(column)
            assert row[end - 1] != " " and (end == len(row) or row[end] == " "), (column, row)


def test_the_crosstable_follows_the_standings_order(result):
    table = result.table()
    standings = [line.split()[1] for line in table.split("\n\n")[1].splitlines()[1:]]
    cross = table.split("Crosstable")[1].splitlines()[2:]
    assert [row.split()[1] for row in cross] == standings
    assert [int(row.split()[0]) for row in cross] == [1, 2, 3]
    matrix = result.crosstable()
    for k, row in enumerate(cross):  # the cells are the points of the row's agent against the column's
        i = result.names.index(standings[k])
        cells = row.split()[2:]
        for m, name in enumerate(standings):
            j = result.names.index(name)
            assert cells[m] == ("." if i == j else f"{matrix[i, j]:g}")


def test_games_that_repeat_exactly_are_warned_of_and_counted_in_the_trust_line(tmp_path):
    suite = tmp_path / "three.txt"
    suite.write_text("c2 b4\nd5 e3 f2\nb3 b2\n")
    agents = ["greedy", "alphabeta:depth=1", "minimax:depth=1"]
    cycled = tournaments.round_robin(agents, games=8, openings=suite, workers=0, progress=False, **GAME)
    repeats = cycled.repeats()
    assert repeats and all(i > j for i, j in repeats)
    for i, j in repeats:
        a, b = (next(g for g in cycled.games if g["index"] == k) for k in (i, j))
        assert (a["black"], a["white"], a["moves"]) == (b["black"], b["white"], b["moves"])
    assert f"Warning: {len(repeats)} of 24 games repeat an earlier game move for move" in cycled.table()
    trust = cycled.trust(championships=50)
    assert trust.repeats == len(repeats)
    assert f"Repeated games: {len(repeats)} of 24 repeat an earlier game" in " ".join(str(trust).split())
    fresh = tournaments.round_robin(agents, games=2, openings=suite, workers=0, progress=False, **GAME)
    assert fresh.repeats() == [] and "Warning" not in fresh.table()
    assert fresh.trust(championships=50).repeats == 0 and "Repeated" not in str(fresh.trust(championships=50))


# -- moves per period: --tc MOVES/BASE+INC --------------------------------------------------------
def test_a_moves_per_period_clock_gives_the_base_again_after_each_period():
    tc = TimeControl.parse("3/10+0.5")
    assert (tc.moves, tc.base, tc.increment, str(tc)) == (3, 10.0, 0.5, "3/10+0.5")
    assert TimeControl.from_config(tc.to_config()) == tc and tc.to_config()["moves"] == 3
    assert "moves" not in TimeControl.parse("10+0.5").to_config()  # earlier journals' clocks resume
    clock = GameClock(tc)
    seen = []
    for _ in range(7):
        left = clock.view(0)
        seen.append((round(left.seconds, 6), left.moves_left))
        assert clock.charge(0, 2.0) is None
    # 10, then 2 s off and 0.5 s back per move; after the 3rd move another 10 s, and so on
    assert seen == [(10.0, 3), (8.5, 2), (7.0, 1), (15.5, 3), (14.0, 2), (12.5, 1), (21.0, 3)]
    assert clock.view(1).seconds == 10.0  # the other side's clock is its own
    late = GameClock(TimeControl.parse("2/1"))
    assert late.charge(0, 0.6) is None and "took 0.500 s with 0.400 s left" in late.charge(0, 0.5)


def test_the_share_of_a_period_spreads_the_time_over_the_moves_left_in_it():
    left = GameClock(TimeControl.parse("4/8")).view(0)
    assert left.share(30) == pytest.approx(0.8 * 2.0)  # 8 s over the 4 moves left, not over 30
    last = GameClock(TimeControl.parse("1/8")).view(0)
    assert last.moves_left == 1 and last.share(30) == pytest.approx(0.8 * 8)  # the time comes back after it
    assert GameClock(TimeControl.parse("8")).view(0).share(30) == pytest.approx(0.8 * 8 / 30)


@pytest.mark.parametrize(
    "tc, message",
    [
        ("0/10", r"MOVES/BASE\+INC with 1 to 1000 moves"),
        ("1001/10", r"MOVES/BASE\+INC with 1 to 1000 moves"),
        ("40/60/3", r"MOVES/BASE\+INC"),
        ("40/0", "base time above 0"),
    ],
)
def test_bad_moves_per_period_clocks_are_named(tc, message, capsys):
    with pytest.raises(ParameterError, match=message):
        TimeControl.parse(tc)
    with pytest.raises(ParameterError, match="moves per period or byo-yomi"):
        TimeControl.parse("40/60", byoyomi="5/10")
    with pytest.raises(SystemExit) as e:
        main(["tournament", "--game", "othello", "-p", "size=6", "--agents", "random", "greedy", "--tc", tc])
    assert e.value.code == 2 and f"--tc {tc}" in capsys.readouterr().err


def test_a_tournament_on_a_moves_per_period_clock_keeps_a_slow_agent_in_time(tmp_path):
    import fault_agents  # noqa: F401  (registers slow)

    # 0.1 s a move: 0.5 s for the game runs out by the 6th move, 0.5 s for every 2 moves never does
    kept = tournaments.round_robin(
        ["slow:delay=0.1", "random"], tc="2/0.5", journal=tmp_path / "j.db", workers=0, progress=False, **GAME
    )
    assert {g["reason"] for g in kept.games} == {"normal"}
    assert "Clock: 2/0.5 (moves/seconds: the seconds again for every 2 moves)" in kept.table()
    lost = tournaments.round_robin(["slow:delay=0.1", "random"], tc="0.5", workers=0, progress=False, **GAME)
    assert {g["reason"] for g in lost.games} == {"forfeit-timeout"}
    again = tournaments.round_robin(
        ["slow:delay=0.1", "random"],
        tc="2/0.5",
        journal=tmp_path / "j.db",
        resume=True,
        workers=0,
        progress=False,
        **GAME,
    )
    assert len(again.games) == 2  # the journal resumes on its own clock
    with pytest.raises(tournaments.JournalError):
        tournaments.round_robin(
            ["slow:delay=0.1", "random"], tc="3/0.5", journal=tmp_path / "j.db", resume=True, workers=0, **GAME
        )


# -- --each KEY=VALUE -------------------------------------------------------------------------------
def test_each_adds_an_option_to_every_agent_its_own_value_winning(tmp_path, capsys):
    argv = ["tournament", "--game", "othello", "-p", "size=6", "--system", "gauntlet", "--workers", "0"]
    argv += ["--candidates", "alphabeta:depth=1", "--agents", "random", "alphabeta:depth=1,seed=9"]
    argv += ["--each", "seed=3", "--jsonl", str(tmp_path / "g.jsonl")]
    assert main(argv) == 0
    names = {g[side] for g in records.read_records(tmp_path / "g.jsonl") for side in ("black", "white")}
    assert names == {"alphabeta:depth=1,seed=3", "random:seed=3", "alphabeta:depth=1,seed=9"}
    assert with_options("openspiel:mcts", {"seed": "1"}) == "openspiel:mcts:seed=1"  # a family member's spelling


@pytest.mark.parametrize(
    "each, message",
    [
        (["depth=2"], "--each depth=2: agent 'random' (random) has no option 'depth'; it has seed"),
        (["seed"], "--each seed: expected KEY=VALUE"),
        (["seed=1", "seed=2"], "--each seed=2: seed is given twice"),
        (["seed=x"], "seed='x': expected a non-negative integer"),
    ],
)
def test_bad_each_options_are_refused_before_any_game(each, message, tmp_path, capsys):
    argv = ["tournament", "--game", "othello", "-p", "size=6", "--agents", "random", "greedy", "--workers", "0"]
    with pytest.raises(SystemExit) as e:
        main([*argv, "--journal", str(tmp_path / "j.db"), "--each", *each])
    err = capsys.readouterr().err
    assert e.value.code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "j.db").exists()


# -- --noswap -------------------------------------------------------------------------------------------
def test_noswap_keeps_the_first_agent_black_and_scores_the_right_agents(tmp_path):
    agents = ["random", "greedy", "alphabeta:depth=1"]
    kw = {"games": 4, "seed": 3, "workers": 0, "progress": False, "journal": tmp_path / "j.db", **GAME}
    result = tournaments.round_robin(agents, swap=False, **kw)
    assert len(result.games) == 12 and all(g["black_id"] < g["white_id"] for g in result.games)
    points = dict.fromkeys(result.names, 0.0)
    for g, outcome in zip(result.games, result.outcomes()):
        points[g["black"]] += outcome.points(0)
        points[g["white"]] += outcome.points(1)
    assert dict(zip(result.names, result.points)) == points  # the referee scored the agents that played
    assert "Colours: not swapped" in result.table()
    again = tournaments.round_robin(agents, swap=False, resume=True, **kw)  # the journal keeps the setting
    assert [g["moves"] for g in again.games] == [g["moves"] for g in result.games]
    with pytest.raises(tournaments.JournalError):
        tournaments.round_robin(agents, resume=True, **kw)
    swapped = tournaments.round_robin(agents, games=4, seed=3, workers=0, progress=False, **GAME)
    assert any(g["black_id"] > g["white_id"] for g in swapped.games)  # by default, colour pairs


def test_noswap_in_a_gauntlet_and_where_it_means_nothing(capsys):
    result = tournaments.gauntlet(
        ["greedy"], ["random", "minimax:depth=1"], games=2, swap=False, workers=0, progress=False, **GAME
    )
    assert {g["black"] for g in result.games} == {"greedy"}
    with pytest.raises(ParameterError, match="swap=False: a swiss pairs single games"):
        tournaments.swiss(["random", "greedy"], swap=False, workers=0, progress=False, **GAME)
