"""Playing one game between two agents, with forfeits instead of exceptions.

This is what a worker process runs. Everything that can go wrong with an agent ends the game as a
forfeit of that agent, with the reason recorded, so one bad agent never stops a tournament:

  forfeit-crash    the agent raised (or could not be built, or its process died);
  forfeit-timeout  a move took longer than ``move_time`` (measured here; a move that never
                   returns is caught by the executor, which kills the process);
  forfeit-illegal  the agent returned something that is not a legal action.

A job may start from an *opening*: moves played for both sides before the agents take over, as
chess tournament tools play a book opening (and a colour pair plays it once with each colour,
so deterministic agents do not replay one game). The record's ``moves`` include the opening and
``opening`` says how many plies it took; agents that keep their own board, such as GTP engines,
are shown the opening through their ``set_history``.

``report`` is called with heartbeats ``("build", seat)``, ``("warm", seat)`` and
``("move", seat, previous_move)`` before each step, so a supervisor that has to kill a hung game
knows whose fault it was and which moves were played.
"""

from __future__ import annotations

import copy
import time
import traceback
from dataclasses import dataclass

import numpy as np

import envs
from agents.openings import random_opening  # noqa: F401  (re-exported: tournaments draw openings here)

NORMAL, CRASH, TIMEOUT, ILLEGAL = "normal", "forfeit-crash", "forfeit-timeout", "forfeit-illegal"
RESULT_TEXT = {0: "1-0", 1: "0-1", 2: "1/2-1/2"}


@dataclass(frozen=True)
class Context:
    """What every game of a tournament shares: the game, the agents, the clock."""

    game: str
    game_params: dict
    agents: tuple          # spec strings or picklable agent objects
    names: tuple
    move_time: float | None = None
    setup_time: float = 300.0


@dataclass(frozen=True)
class Job:
    """One game: the pairing (players by index) and the seeds derived from it."""

    index: int
    round: int
    match: int
    game: int
    black: int
    white: int
    seed: int
    agent_seeds: tuple
    opening: tuple = ()    # action ids played from the start before the agents move


def build_agent(entry, seed):
    """A fresh agent for one game: a spec goes through ``agents.make`` with the game's seed;
    an agent object is deep-copied (its own seed applies) and ``reset()`` if it has one."""
    if isinstance(entry, str):
        import agents

        return agents.make(entry, seed=seed)
    agent = copy.deepcopy(entry)
    if hasattr(agent, "reset"):
        agent.reset()
    return agent


def _describe(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {frames[-1].filename}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def forfeit_record(ctx: Context, job: Job, seat: int, reason: str, detail: str, moves=(), seconds=0.0):
    """The record of a game lost by ``seat`` for ``reason``."""
    return _record(ctx, job, 1 if seat == 0 else 0, reason, list(moves), seconds, detail)


def _record(ctx, job, code, reason, moves, seconds, detail=""):
    return {
        "opening": len(job.opening),
        "index": job.index, "round": job.round, "match": job.match, "game": job.game,
        "black": ctx.names[job.black], "white": ctx.names[job.white],
        "black_id": job.black, "white_id": job.white, "seed": job.seed,
        "code": code, "result": RESULT_TEXT[code], "reason": reason, "detail": detail,
        "moves": moves, "plies": len(moves), "seconds": round(seconds, 4),
    }


def play_game(ctx: Context, job: Job, game=None, report=lambda *msg: None, warmed=None) -> dict:
    """Play ``job`` to the end and return its record (a plain dict, JSON-ready).

    ``warmed`` (a set kept by a worker) lists players whose agent already made one untimed move in
    this process: with a clock, each agent first moves once unclocked so that just-in-time
    compilation is not charged to its first real move.
    """
    game = game or envs.make_game(ctx.game, **ctx.game_params)
    start = time.perf_counter()
    seats = (job.black, job.white)
    players = []
    for seat, player in enumerate(seats):
        report("build", seat)
        try:
            players.append(build_agent(ctx.agents[player], job.agent_seeds[seat]))
        except Exception as e:  # noqa: BLE001 - any failure of agent code is that agent's forfeit
            return forfeit_record(ctx, job, seat, CRASH, "building the agent: " + _describe(e))
    state = game.initial_state(seed=job.seed)
    if ctx.move_time is not None and warmed is not None:
        for seat, player in enumerate(seats):
            if player in warmed:
                continue
            report("warm", seat)
            try:
                build_agent(ctx.agents[player], 0).act(game, state.copy())
            except Exception as e:  # noqa: BLE001
                return forfeit_record(ctx, job, seat, CRASH, "warm-up move: " + _describe(e))
            warmed.add(player)
    moves: list[str] = []
    for action in job.opening:
        moves.append(game.action_to_str(state, action))
        state = game.apply(state, action)
    for seat, player in enumerate(players):
        if job.opening and hasattr(player, "set_history"):
            try:
                player.set_history(game, job.opening)
            except Exception as e:  # noqa: BLE001
                return forfeit_record(ctx, job, seat, CRASH, "showing it the opening: " + _describe(e), moves)
    while not game.is_terminal(state):
        seat = game.current_player(state)
        report("move", seat, moves[-1] if moves else None)
        t = time.perf_counter()
        try:
            action = players[seat].act(game, state.copy())
        except Exception as e:  # noqa: BLE001
            return forfeit_record(ctx, job, seat, CRASH, _describe(e), moves, time.perf_counter() - start)
        spent = time.perf_counter() - t
        if ctx.move_time is not None and spent > ctx.move_time:
            return forfeit_record(ctx, job, seat, TIMEOUT, f"move {len(moves) + 1} took {spent:.3f}s "
                                  f"> {ctx.move_time}s", moves, time.perf_counter() - start)
        if not isinstance(action, (int, np.integer)) or isinstance(action, bool) \
                or not game.is_legal(state, int(action)):
            return forfeit_record(ctx, job, seat, ILLEGAL, f"move {len(moves) + 1}: {action!r} is not a "
                                  "legal action", moves, time.perf_counter() - start)
        moves.append(game.action_to_str(state, int(action)))
        state = game.apply(state, int(action))
    r = game.returns(state)
    code = 0 if r[0] > r[1] else (1 if r[1] > r[0] else 2)
    return _record(ctx, job, code, NORMAL, moves, time.perf_counter() - start)
