"""The worker's heartbeat and the games that wait in its pipe.

A worker writes its step, seat, deadline and plies where its parent reads them (no message per
move), and cheap games go two to a worker. What a user relies on: a hung move is still killed and
forfeited with the plies played so far; a game waiting behind one that crashes, hangs or is
killed from outside is played all the same, once; a game of an agent ruled out while it waited
is forfeited at once; and the games are the games an inline run plays.
"""

from __future__ import annotations

import os
import signal
import time

import fault_agents  # noqa: F401  (registers "slow", "exit3", "movehang")
import pytest

import envs
import tournaments
from tournaments.referee.executor import ProcessExecutor
from tournaments.referee.play import Context, Job

GAME = {"game": "gomoku", "game_params": {"size": 7}}
ALWAYS = float("inf")  # queue_seconds: games wait in the pipes from the first on


def timeless(games):
    return [{k: v for k, v in g.items() if k not in ("seconds", "times")} for g in games]


def lowest_moves(plies: int) -> list[str]:
    """The first ``plies`` moves of a 7x7 Gomoku game where both sides play the lowest legal action."""
    game = envs.make_game("gomoku", size=7)
    state, moves = game.initial_state(seed=0), []
    for _ in range(plies):
        action = int(game.legal_actions(state)[0])
        moves.append(game.action_to_str(state, action))
        state = game.apply(state, action)
    return moves


class HangsFrom:
    """Plays the lowest action until the board holds ``stones`` stones, then never answers."""

    def __init__(self, stones: int, name: str = "hangs-from"):
        self.stones, self.name = stones, name

    def act(self, game, state):
        if len(game.legal_actions(state)) <= game.num_actions - self.stones:
            time.sleep(1000)
        return int(game.legal_actions(state)[0])


class KilledOnce:
    """Plays the lowest action; the first time any copy of it moves from the fourth ply on, its
    process is SIGKILLed as by the OOM killer (a marker file remembers it across processes)."""

    def __init__(self, marker, name="killed-once"):
        self.marker, self.name = str(marker), name

    def act(self, game, state):
        if len(game.legal_actions(state)) <= game.num_actions - 4 and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return int(game.legal_actions(state)[0])


class SleepsFirst:
    """Sleeps ``seconds`` before its move with two stones on the board (Black's second: not the
    unclocked warm-up move from the start), then plays the lowest action."""

    def __init__(self, seconds: float, name: str = "sleeps-first"):
        self.seconds, self.name = seconds, name

    def act(self, game, state):
        if len(game.legal_actions(state)) == game.num_actions - 2:
            time.sleep(self.seconds)
        return int(game.legal_actions(state)[0])


def test_a_move_that_hangs_mid_game_forfeits_with_the_plies_played_so_far():
    r = tournaments.round_robin(
        [HangsFrom(4), "slow:delay=0"], workers=1, move_time=0.5, setup_time=20, progress=False, **GAME
    )
    assert [g["reason"] for g in r.games] == ["forfeit-timeout"] * 2
    assert all(g["detail"] == "no answer within the time limit; process killed" for g in r.games)
    for g in r.games:  # it hangs at its first move with four stones on the board
        plies = 4 if g["black"] == "hangs-from" else 5
        assert g["plies"] == plies and g["moves"] == lowest_moves(plies)


@pytest.mark.parametrize("crasher", ["exit3", "segfault"])
def test_a_game_waiting_behind_a_crash_is_played_once(crasher):
    field = [crasher, "slow:delay=0", "greedy"]
    queued = tournaments.round_robin(field, executor=ProcessExecutor(1, queue_seconds=ALWAYS), progress=False, **GAME)
    one_by_one = tournaments.round_robin(field, executor=ProcessExecutor(1, queue_seconds=0), progress=False, **GAME)
    assert sorted(g["index"] for g in queued.games) == list(range(6))
    assert all(g["reason"] == "forfeit-crash" for g in queued.games if crasher in (g["black"], g["white"]))
    assert all(g["reason"] == "normal" for g in queued.games if crasher not in (g["black"], g["white"]))
    assert timeless(sorted(queued.games, key=lambda g: g["index"])) == timeless(one_by_one.games)


def test_a_game_waiting_behind_a_hung_one_is_played_once():
    field = [HangsFrom(4), "slow:delay=0", "greedy"]
    executor = ProcessExecutor(1, queue_seconds=ALWAYS)
    r = tournaments.round_robin(field, executor=executor, move_time=0.5, setup_time=20, progress=False, **GAME)
    assert sorted(g["index"] for g in r.games) == list(range(6))
    theirs = [g for g in r.games if "hangs-from" in (g["black"], g["white"])]
    assert len(theirs) == 4 and all(g["reason"] == "forfeit-timeout" for g in theirs)
    assert all(g["reason"] == "normal" for g in r.games if g not in theirs)


def test_a_game_waiting_behind_a_killed_worker_is_played_once_and_the_killed_one_replayed(tmp_path):
    field = [KilledOnce(tmp_path / "marker"), "slow:delay=0", "greedy"]
    r = tournaments.round_robin(
        field, executor=ProcessExecutor(1, queue_seconds=ALWAYS), seed=4, progress=False, **GAME
    )
    assert os.path.exists(tmp_path / "marker")  # a worker was killed mid-game, with a game behind it
    assert sorted(g["index"] for g in r.games) == list(range(6))
    assert all(g["reason"] == "normal" for g in r.games)
    clean = tournaments.round_robin(
        [KilledOnce(tmp_path / "marker"), "slow:delay=0", "greedy"], workers=0, seed=4, progress=False, **GAME
    )
    assert timeless(sorted(r.games, key=lambda g: g["index"])) == timeless(clean.games)


def test_queued_games_are_the_games_an_inline_run_plays():
    field = ["random", "greedy", "random:seed=3", "greedy:seed=4"]
    queued = tournaments.round_robin(
        field, executor=ProcessExecutor(2, queue_seconds=ALWAYS), seed=9, progress=False, **GAME
    )
    inline = tournaments.round_robin(field, workers=0, seed=9, progress=False, **GAME)
    assert timeless(sorted(queued.games, key=lambda g: g["index"])) == timeless(inline.games)


def test_a_game_waiting_in_a_pipe_when_its_agent_is_ruled_out_is_forfeited_at_once():
    """Worker A plays a long game with a game of ``movehang`` waiting behind it; worker B's game
    of ``movehang`` times out at setup and rules it out. A then forfeits the waiting game at
    once (told through shared memory), instead of hanging another setup_time on it."""
    names = ("movehang", "sleeps-first", "greedy", "random")
    ctx = Context(
        game="gomoku",
        game_params={"size": 7},
        agents=("movehang", SleepsFirst(6.0), "greedy", "random"),
        names=names,
        move_time=10.0,
        setup_time=2.0,
    )
    jobs = [
        Job(0, 1, 0, 0, 1, 2, 11, (1, 2)),  # A: sleeps-first - greedy, over 6 s
        Job(1, 1, 1, 0, 0, 2, 12, (3, 4)),  # B: movehang - greedy, ruled out after 2 s
        Job(2, 1, 2, 0, 0, 3, 13, (5, 6)),  # waits behind game 0
        Job(3, 1, 3, 0, 2, 3, 14, (7, 8)),  # waits behind game 1
    ]
    executor = ProcessExecutor(2, queue_seconds=ALWAYS)
    executor.start(ctx)
    try:
        records = {r["index"]: r for r in executor.run(jobs)}
    finally:
        executor.close()
    assert sorted(records) == [0, 1, 2, 3]
    assert records[0]["reason"] == records[3]["reason"] == "normal"
    assert records[1]["reason"] == "forfeit-timeout" and "ruled out for the rest of the run" in records[1]["detail"]
    assert records[2]["reason"] == "forfeit-timeout" and records[2]["plies"] == 0
    assert records[2]["detail"] == "ruled out: setup timed out after 2 s (warm-up move, game 1)"
