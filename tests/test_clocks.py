"""Game clocks (base + increment, byo-yomi; agents read their time; GTP engines are told it) and
adjudication (move cap, judge's evaluation), through play_game and tournaments.

The slow agent sleeps a fixed time per move; every clock is sized so that the rule under test
decides with at least 0.2 s to spare either way."""

import sqlite3
import sys
import time

import pytest

import agents
import envs
import tournaments
from agents.base import Agent
from agents.clock import GameClock, TimeControl
from envs import ParameterError
from envs.core.outcome import ADJUDICATED, NORMAL, TIMEOUT
from tournaments.referee.adjudication import Adjudication, AdjudicationError


class Sleeper(Agent):
    """Plays the lowest legal action after ``delay`` seconds; records what its clock said."""

    name = "sleeper"

    def __init__(self, delay=0.0, seed=None):
        super().__init__(seed=seed)
        self.delay = delay
        self.seen = []

    def _act(self, game, state):
        self.seen.append(None if self.clock is None else (round(self.clock.seconds, 1), self.clock.periods))
        time.sleep(self.delay)
        return int(game.legal_actions(state)[0])


def _gomoku():
    return envs.make_game("gomoku", size=9)


# -- the rules of the clock, without timing -----------------------------------------------------
def test_time_control_texts_parse_and_bad_ones_name_the_value():
    tc = TimeControl.parse("10+0.1")
    assert (tc.base, tc.increment, tc.periods) == (10.0, 0.1, 0)
    assert str(tc) == "10+0.1"
    tc = TimeControl.parse("60", byoyomi="5/10")
    assert (tc.base, tc.periods, tc.period) == (60.0, 5, 10.0)
    assert TimeControl.parse(None, byoyomi="3/30").base == 0
    assert TimeControl.from_config(tc.to_config()) == tc
    for tc, byo, word in [
        ("10+", None, "10+"),
        ("x", None, "x"),
        ("-1+1", None, "-1"),
        ("0", None, "0"),
        ("10+1", "5/10", "not both"),
        ("10", "5", "5"),
        ("10", "0/3", "0/3"),
    ]:
        with pytest.raises(ParameterError, match=word):
            TimeControl.parse(tc, byo)


def test_fischer_clock_adds_the_increment_after_a_move_in_time_and_loses_past_zero():
    clock = GameClock(TimeControl(1.0, 0.5))
    assert clock.charge(0, 0.8) is None
    assert clock.view(0).seconds == pytest.approx(0.7)  # 1 - 0.8 + 0.5
    assert clock.view(1).seconds == 1.0  # the other side's clock did not run
    assert clock.charge(0, 0.6) is None
    assert "0.600 s left" in clock.charge(0, 0.7)  # 0.6 left: lost


def test_byoyomi_keeps_a_period_made_in_time_and_uses_up_the_ones_overrun():
    clock = GameClock(TimeControl(1.0, periods=3, period=2.0))
    assert clock.charge(0, 2.5) is None  # main time over, 1.5 s into the first period: kept
    assert (clock.view(0).seconds, clock.view(0).periods) == (0.0, 3)
    assert clock.view(0).in_byoyomi and clock.view(0).limit == 6.0
    assert clock.charge(0, 4.5) is None  # two periods overrun, the third holds the move
    assert clock.view(0).periods == 1
    assert clock.charge(0, 1.9) is None  # within the period: kept
    assert "1 byo-yomi period of 2 s" in clock.charge(0, 2.1)


def test_a_time_margin_forgives_a_small_overrun_and_stops_the_clock_at_zero():
    """cutechess-cli's and fastchess's timemargin: over by no more than the margin, the move is in
    time, its side's clock stands at zero and gains the increment; further over, it loses."""
    clock = GameClock(TimeControl(1.0, 0.5, margin=0.1))
    assert clock.charge(0, 1.05) is None and clock.view(0).seconds == 0.5  # 0.05 s over: 0, then +0.5
    assert clock.view(0).limit == 0.5 and clock.view(0).deadline == pytest.approx(0.6)
    assert "took 0.700 s with 0.500 s left" in clock.charge(0, 0.7)  # 0.2 s over: lost
    assert GameClock(TimeControl(1.0)).charge(0, 1.05) is not None  # no margin, no mercy
    byo = GameClock(TimeControl(0.0, periods=1, period=1.0, margin=0.1))
    assert byo.charge(0, 1.05) is None and byo.view(0).periods == 1  # the period is kept
    assert byo.charge(0, 1.2) is not None


def test_a_time_margin_is_kept_by_the_journal_and_named_when_it_makes_no_sense():
    tc = TimeControl.parse("10+0.1", margin=0.05)
    assert str(tc) == "10+0.1, 0.05 s margin" and TimeControl.from_config(tc.to_config()) == tc
    assert "margin" not in TimeControl.parse("10+0.1").to_config()  # a journal without one resumes as before
    with pytest.raises(ParameterError, match="margin=-1"):
        TimeControl(1.0, margin=-1)
    with pytest.raises(ParameterError, match="time_margin=0.1: a margin applies to a game clock"):
        tournaments.round_robin(["random", "greedy"], game="gomoku", size=7, workers=0, time_margin=0.1)
    config = tournaments.TournamentConfig.of("round_robin", ["random", "greedy"], "gomoku", tc="1+0.1", time_margin=0.2)
    assert config.clock.margin == 0.2


def test_share_plans_the_main_time_and_never_spends_a_whole_clock():
    tc = TimeControl(10.0, 0.1)
    left = GameClock(tc).view(0)
    assert left.share(20) == pytest.approx(0.8 * (10 / 20 + 0.1))
    assert GameClock(TimeControl(0.1, 5.0)).view(0).share(10) <= 0.05  # half the main time at most
    byo = GameClock(TimeControl(0.0, periods=2, period=3.0)).view(0)
    assert byo.share(10) == pytest.approx(0.8 * 3.0)


# -- clocks in play_game --------------------------------------------------------------------------
def test_a_slow_agent_loses_on_time_once_its_base_time_is_spent():
    slow = Sleeper(delay=0.3)
    outcome = tournaments.play_game(_gomoku(), [Sleeper(), slow], clock="1")
    assert outcome.reason == TIMEOUT and outcome.winner == 0
    # 0.3 s a move: three moves leave 0.1 s, the fourth runs out (White's 4th move is ply 8)
    assert outcome.plies == 7 and "lost on time: move 8" in outcome.detail
    assert [s for s, _ in slow.seen] == [1.0, 0.7, 0.4, 0.1]
    assert slow.clock is None  # the game is over: no clock any more


def test_an_increment_larger_than_the_move_keeps_the_slow_agent_in_time():
    cap = "cap:plies=14"
    lost = tournaments.play_game(_gomoku(), [Sleeper(), Sleeper(delay=0.25)], clock="0.6", adjudicate=cap)
    assert lost.reason == TIMEOUT and lost.winner == 0  # 7 moves of 0.25 s on 0.6 s: lost
    kept = tournaments.play_game(_gomoku(), [Sleeper(), Sleeper(delay=0.25)], clock="0.6+0.5", adjudicate=cap)
    assert kept.reason == ADJUDICATED and kept.plies == 14  # +0.5 s a move: never short of time


def test_byoyomi_periods_are_used_up_by_moves_that_overrun_them():
    slow = Sleeper(delay=0.7)
    outcome = tournaments.play_game(_gomoku(), [Sleeper(), slow], clock=TimeControl.parse("0.5", "2/0.5"))
    # move 1 ends 0.2 s into the first period (kept), move 2 overruns one (1 left), move 3 the last
    assert [p for _, p in slow.seen] == [2, 2, 1]
    assert outcome.reason == TIMEOUT and outcome.winner == 0 and "move 6" in outcome.detail


def test_search_agents_are_held_to_their_share_of_the_clock_and_get_their_options_back():
    game = envs.make_game("othello", size=6)
    mcts = agents.make("mcts", seed=1)  # 1,000 simulations by default: the clock replaces them
    agents.make("mcts", seconds=0.05, seed=1).act(game, game.initial_state())  # compiled off the clock
    outcome = tournaments.play_game(game, [mcts, Sleeper()], clock="5+0.2", adjudicate="cap:plies=4")
    assert outcome.reason == ADJUDICATED, outcome.detail
    budget = mcts.last_stats["budget"]  # its share: 0.8 (5 s / 10 moves to go + 0.2 s), less what it spent
    assert 0 < budget <= 0.8 * (5 / 10 + 0.2) and mcts.seconds is None and mcts.simulations == 1000


def test_clock_and_move_time_together_cap_each_move():
    outcome = tournaments.play_game(_gomoku(), [Sleeper(), Sleeper(delay=0.4)], clock="10", move_time=0.2)
    assert outcome.reason == TIMEOUT and "> 0.2s" in outcome.detail


# -- GTP engines are told the clock -----------------------------------------------------------------
_LOGGING_ENGINE = """
import sys
log = open(sys.argv[1], 'a')
for line in sys.stdin:
    log.write(line); log.flush()
    word = line.split()[0] if line.split() else ''
    refuse = word in sys.argv[2:]
    print(('? no' if refuse else '= pass' if word == 'genmove' else '=') + '\\n'); sys.stdout.flush()
    if word == 'quit':
        break
"""


def _engine_log(tmp_path, clock, refuse=()):
    path = tmp_path / "gtp.log"
    command = [sys.executable, "-c", _LOGGING_ENGINE, str(path), *refuse]
    game = envs.make_game("go", size=5)
    players = [agents.make("gtp", command=command), agents.make("gtp", command=command)]
    tournaments.play_game(game, players)  # Go's code compiled, off the clock
    path.write_text("")
    outcome = tournaments.play_game(game, players, clock=clock)
    for p in players:
        p.close()
    assert outcome.reason == NORMAL and outcome.moves == ("pass", "pass")
    return [line.strip() for line in path.read_text().splitlines()]


def test_gtp_engines_get_time_settings_and_time_left(tmp_path):
    lines = _engine_log(tmp_path, "30+2")
    assert "time_settings 30 0 0" in lines
    assert lines.index("time_settings 30 0 0") < lines.index("time_left black 30 0") < lines.index("genmove black")
    assert "time_left white 30 0" in lines  # White's own clock, untouched by Black's move


def test_gtp_engines_get_japanese_byoyomi_or_its_canadian_equivalent(tmp_path):
    lines = _engine_log(tmp_path, TimeControl.parse(None, "5/10"))
    assert "kgs-time_settings byoyomi 0 10 5" in lines and "time_left black 10 5" in lines
    refusing = tmp_path / "refusing"
    refusing.mkdir()
    lines = _engine_log(refusing, TimeControl.parse(None, "5/10"), refuse=("kgs-time_settings",))
    assert "time_settings 0 10 1" in lines and "time_left black 10 1" in lines


# -- adjudication ------------------------------------------------------------------------------------
def test_adjudication_rules_parse_and_refuse_what_they_cannot_read():
    rules = Adjudication.parse(
        ["cap:plies=200,result=score", "resign:movecount=4,score=600", "draw:movenumber=40,movecount=8,score=20"]
    )
    assert rules.cap == (200, "score") and rules.resign == (4, 600.0) and rules.draw == (40, 8, 20.0)
    assert Adjudication.parse(rules.rules()) == rules
    assert rules.judge == "alphabeta:depth=2"
    for bad, word in [
        ("cap:plies=0", "plies=0"),
        ("cap:plies=9,result=win", "result=win"),
        ("resign:score=3", "movecount"),
        ("resign:movecount=2,score=-1", "score"),
        ("resign:movecount=2,score=0", "above 0"),
        ("nap:plies=3", "nap"),
        ("draw:movecount=2,score=1,turns=3", "turns"),
    ]:
        with pytest.raises(AdjudicationError, match=word):
            Adjudication.parse(bad)
    with pytest.raises(AdjudicationError, match="no score"):
        Adjudication.parse("cap:plies=30,result=score").check(_gomoku())


def test_move_cap_scores_the_position_or_draws():
    game = envs.make_game("othello", size=6)
    players = [agents.make("greedy", seed=1), agents.make("random", seed=2)]
    scored = tournaments.play_game(game, players, adjudicate="cap:plies=10,result=score")
    black, white = game.discs(scored.state)
    assert scored.reason == ADJUDICATED and scored.plies == 10
    assert scored.winner == (0 if black > white else 1) and scored.margin == abs(black - white)
    assert scored.sgf_result == f"{'BW'[scored.winner]}+{abs(black - white)}"
    drawn = tournaments.play_game(game, players, adjudicate="cap:plies=10")
    assert drawn.reason == ADJUDICATED and drawn.draw and "move cap: 10 plies" in drawn.detail


def test_resign_rule_ends_a_lost_game_by_the_judges_evaluation():
    game = envs.make_game("othello", size=6)

    def players():
        return [agents.make("alphabeta:depth=3", seed=1), agents.make("random", seed=2)]

    rules = Adjudication.parse("resign:movecount=3,score=150", judge="alphabeta:depth=1")
    outcome = tournaments.play_game(game, players(), adjudicate=rules)
    free = tournaments.play_game(game, players())
    assert free.reason == NORMAL and free.winner == 0
    assert outcome.reason == ADJUDICATED and outcome.winner == 0 and outcome.plies < free.plies
    assert "resign rule" in outcome.detail and "White lost" in outcome.detail
    again = tournaments.play_game(game, players(), adjudicate=rules)
    assert again == outcome  # a judge of fixed depth rules the same way every time


def test_draw_rule_needs_the_evaluation_level_for_movecount_plies_after_movenumber():
    game = envs.make_game("othello", size=6)
    players = [agents.make("greedy", seed=1), agents.make("greedy", seed=2)]
    level = tournaments.play_game(game, players, adjudicate="draw:movenumber=4,movecount=2,score=100000")
    assert level.reason == ADJUDICATED and level.draw and level.plies == 5  # plies 4 and 5 level
    never = tournaments.play_game(game, players, adjudicate="draw:movenumber=4,movecount=2,score=0.0001")
    assert never.reason != ADJUDICATED or never.winner is not None


# -- tournaments: records, journal, resume --------------------------------------------------------
def test_tournament_records_clock_and_adjudication_and_resumes_to_the_same_results(tmp_path):
    journal = tmp_path / "run.db"
    kwargs = dict(
        game="othello",
        size=6,
        games=2,
        seed=3,
        workers=0,
        progress=False,
        journal=str(journal),
        tc="30+0.5",
        adjudicate=["cap:plies=12,result=score"],
    )
    players = ["greedy", "random", "alphabeta:depth=1"]
    first = tournaments.round_robin(players, **kwargs)
    assert first.config["clock"]["base"] == 30 and first.config["adjudicate"]["rules"] == ["cap:plies=12,result=score"]
    assert all(g["reason"] == ADJUDICATED and g["plies"] == 12 for g in first.games)
    assert "Clock: 30+0.5" in first.table() and "Adjudication: cap:plies=12" in first.table()
    again = tournaments.round_robin(players, resume=True, **kwargs)  # every game from the journal
    assert [g["result"] for g in again.games] == [g["result"] for g in first.games]
    # a run cut short: its last games are played again on resume, and adjudicated the same way
    judged = {
        **kwargs,
        "journal": str(tmp_path / "judged.db"),
        "tc": None,
        "adjudicator": "alphabeta:depth=1",
        "adjudicate": ["resign:movecount=2,score=100", "cap:plies=12,result=score"],
    }
    whole = tournaments.round_robin(players, **judged)
    assert any("resign rule" in g["detail"] for g in whole.games)
    db = sqlite3.connect(judged["journal"])
    with db:
        db.execute("DELETE FROM games WHERE idx >= 3")
    db.close()
    resumed = tournaments.round_robin(players, resume=True, **judged)
    keys = ("result", "reason", "detail", "moves", "margin")
    assert [[g[k] for k in keys] for g in resumed.games] == [[g[k] for k in keys] for g in whole.games]
    with pytest.raises(tournaments.JournalError, match="adjudicate"):
        tournaments.round_robin(players, resume=True, **{**kwargs, "adjudicate": "cap:plies=14"})


def test_report_shows_the_clock_and_the_adjudication(tmp_path):
    from tournaments.referee.report import write_report

    journal = tmp_path / "run.db"
    tournaments.round_robin(
        ["greedy", "random"],
        game="othello",
        size=6,
        workers=0,
        progress=False,
        journal=str(journal),
        tc="20+1",
        adjudicate="cap:plies=6",
    )
    page = open(write_report(str(journal), str(tmp_path / "r.html"))).read()
    assert "Clock: 20+1" in page and "Adjudication: cap:plies=6,result=draw" in page
    assert "move cap: 6 plies played, a draw" in page  # every game's reason and detail


@pytest.mark.slow
def test_a_hung_move_on_a_clock_is_killed_soon_after_its_time_is_up():
    import fault_agents  # noqa: F401  (registers "slow")

    r = tournaments.round_robin(
        ["slow:delay=4", "greedy"], game="othello", size=6, workers=1, progress=False, tc="1", setup_time=10
    )
    assert [g["reason"] for g in r.games] == [TIMEOUT, TIMEOUT]
    assert [(g["black"], g["white"])[1 - g["winner"]] for g in r.games] == ["slow:delay=4"] * 2
    # killed at its clock's 1 s and a margin (2 s), before its 4 s move could come back late
    assert all(g["detail"] == "no answer within the time limit; process killed" for g in r.games)


def test_cli_takes_tc_byoyomi_and_adjudicate(tmp_path, capsys):
    from tournaments.cli import main

    code = main(
        [
            "tournament",
            "--game",
            "othello",
            "-p",
            "size=6",
            "--system",
            "round_robin",
            "--agents",
            "greedy",
            "random",
            "--workers",
            "0",
            "--tc",
            "20+1",
            "--time-margin",
            "0.05",
            "--adjudicate",
            "cap:plies=8",
            "--jsonl",
            str(tmp_path / "g.jsonl"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "Clock: 20+1, 0.05 s margin" in out and "Adjudication: cap:plies=8,result=draw" in out
    assert '"reason": "adjudicated"' in (tmp_path / "g.jsonl").read_text()
    for argv, word in [
        (["--tc", "ten"], "--tc ten"),
        (["--time-margin", "-1"], "--time-margin -1"),
        (["--byoyomi", "5"], "--byoyomi 5"),
        (["--adjudicate", "cap:plies=-1"], "plies"),
        (["--adjudicator", "random"], "needs --adjudicate"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main(["tournament", "--game", "othello", "--agents", "greedy", "random", *argv])
        assert exit_.value.code == 2
        assert word in capsys.readouterr().err
