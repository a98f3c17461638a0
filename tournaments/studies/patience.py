"""The patience study: UCT-MCTS with chance nodes on Calculation, deal by deal, resumable.

    from tournaments.studies import patience
    results = patience.run(range(0, 200), playouts=[1000, 10000])            # prints the table
    patience.run(range(0, 100), [100000], records="run.jsonl")               # one line per deal
    patience.run(range(0, 100), [100000], records="run.jsonl", resume=True)  # after a kill

``examples/patience_study.py`` is its command line. Each playout budget plays the same deals:
deal ``i`` is ``initial_state(seed=i)`` and the agent's seed is ``i`` too, so a deal's result
depends only on its seeds, not on what else is played or on how many workers play it. That is
what makes a resumed run give the table of an uninterrupted one: with ``records``, every
finished deal is written (and flushed to disk) as soon as it finishes, so a killed run loses only
the deals in progress, and ``resume`` reads the finished deals back and plays only the missing
ones. Records played with other options (playout policy, C, threshold, filtered moves, progress
reward) are refused rather than mixed in.

A row of the table: the wins with their 95% Wilson interval, the wins per 100 deals the original
study reports at that budget (``STUDY``), the mean cards on the foundations, and the search
seconds (wall) and CPU seconds per move.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, TextIO

import agents
import envs
from agents.mcts import DEFAULT_THRESHOLD
from agents.tuning import tuned

from ..referee.records import RecordError, read_json_lines

# The study's wins per 100 deals at each playout budget (its table), shown next to ours.
STUDY = {
    1000: 17,
    2000: 28,
    5000: 40,
    10000: 53,
    15000: 59,
    20000: 65,
    30000: 72,
    40000: 69,
    50000: 77,
    100000: 80,
    200000: 86,
}
# What a record must share with the run that resumes it.
OPTIONS = ("playout", "c", "threshold", "filter_moves", "progress_reward")
# Records written before ``filter_moves`` existed were played with every legal move in the tree,
# those before ``progress_reward`` with lost playouts worth 0.
LEGACY = {"filter_moves": False, "progress_reward": 0.0}
C = 0.5  # the study's UCT exploration constant


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion (sound at 0 or n successes too)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_deal(job: tuple[int, int, float, int, str, bool, float]) -> dict[str, Any]:
    """One deal to the end, as a record: won, moves, search seconds (wall), the deal's CPU
    seconds (``time.process_time`` of this worker) and the cards on the foundations.
    ``job`` is ``(deal, playouts, c, threshold, playout, filter_moves, progress_reward)`` (one
    picklable argument, for a pool)."""
    deal, playouts, c, threshold, playout, filter_moves, progress_reward = job
    game = envs.make_game("calculation")
    state = game.initial_state(seed=deal)
    bot = agents.make(
        "mcts",
        simulations=playouts,
        c=c,
        threshold=threshold,
        playout=playout,
        filter_moves=filter_moves,
        progress_reward=progress_reward,
        seed=deal,
    )
    moves, seconds = 0, 0.0
    cpu = time.process_time()
    while not game.is_terminal(state):
        state = game.apply(state, bot.act(game, state))
        moves += 1
        seconds += bot.last_stats["seconds"]
    return {
        "deal": deal,
        "playouts": playouts,
        "playout": playout,
        "c": c,
        "threshold": threshold,
        "filter_moves": filter_moves,
        "progress_reward": progress_reward,
        "won": bool(game.returns(state)[0] == 1.0),
        "moves": moves,
        "seconds": seconds,
        "cpu_seconds": time.process_time() - cpu,
        "cards": game.foundation_cards(state),
    }


def read_records(path: str | os.PathLike[str], options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The finished deals in ``path`` (a ``records`` file), for ``resume``; none if it does not
    exist. A last line cut short by the interruption is dropped from the file, so the next record
    starts a line of its own. A record played with other ``options`` (playout policy, C,
    threshold, filtered moves, progress reward) is a ``RecordError`` naming its line, as is a
    line that is not a record."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for n, record in read_json_lines(path, "a patience study"):
        theirs = {k: record.get(k, LEGACY.get(k)) for k in OPTIONS}
        if theirs != options:
            raise RecordError(
                f"{path}:{n}: deal {record.get('deal')} was played with other options "
                f"({theirs}, this run: {options}); resume with the original command"
            )
        records.append(record)
    return records


HEADER = (
    f"{'playouts':>9} {'deals':>6} {'wins':>5} {'win %':>6} {'95% interval':>15} "
    f"{'study /100':>10} {'cards':>6} {'s/move':>8} {'cpu s/move':>9}"
)


def row(playouts: int, results: list[dict], partial: bool = False) -> str:
    """One table row: wins, their Wilson interval, the study's figure, mean cards on the
    foundations, time per move."""
    wins = sum(r["won"] for r in results)
    moves = max(sum(r["moves"] for r in results), 1)
    cards = sum(r["cards"] for r in results) / len(results)
    lo, hi = wilson(wins, len(results))
    return (
        f"{playouts:>9} {len(results):>6} {wins:>5} {100 * wins / len(results):>6.1f} "
        f"{f'{100 * lo:.1f}-{100 * hi:.1f}':>15} {STUDY.get(playouts, ''):>10} {cards:>6.1f} "
        f"{sum(r['seconds'] for r in results) / moves:>8.3f} "
        f"{sum(r['cpu_seconds'] for r in results) / moves:>9.3f}{'  (so far)' if partial else ''}"
    )


def run(
    deals: range,
    playouts: Iterable[int],
    *,
    c: float = C,
    threshold: int | None = None,
    playout: str | None = None,
    filter_moves: bool | None = None,
    progress_reward: float | None = None,
    workers: int = 2,
    progress: int = 0,
    records: str | os.PathLike[str] | None = None,
    resume: bool = False,
    out: TextIO | None = None,
) -> dict[int, list[dict[str, Any]]]:
    """Play ``deals`` at every budget of ``playouts`` on ``workers`` processes, printing the
    table to ``out`` (default: standard output) a row per budget (and a running row every
    ``progress`` deals); return ``{playouts: [record, ...]}``. ``threshold``, ``playout``,
    ``filter_moves`` (the tree tries only the moves of the game's ``filter_moves``) and
    ``progress_reward`` (what a lost playout is worth per card share on the foundations) default
    to the game's, ``agents.make("mcts")``'s. With ``records`` (a path) every finished
    deal is appended to it as a JSON line; ``resume`` first reads the deals already there and
    plays only the missing ones (``RecordError`` for records of other options)."""
    threshold = tuned("mcts", "calculation", "threshold", DEFAULT_THRESHOLD) if threshold is None else threshold
    playout = tuned("mcts", "calculation", "playout", "random") if playout is None else playout
    if filter_moves is None:
        filter_moves = tuned("mcts", "calculation", "filter_moves", False)
    if progress_reward is None:
        progress_reward = float(tuned("mcts", "calculation", "progress_reward", 0.0))
    out = sys.stdout if out is None else out
    options = {
        "playout": playout,
        "c": c,
        "threshold": threshold,
        "filter_moves": filter_moves,
        "progress_reward": progress_reward,
    }
    done = {(r["playouts"], r["deal"]): r for r in read_records(records, options)} if resume else {}
    print(
        f"Calculation, UCT with chance nodes: C={c}, threshold={threshold}, "
        f"{playout} playouts, {'filtered' if filter_moves else 'all legal'} moves in the tree, "
        f"lost playouts worth {progress_reward:g} x the share of cards up, "
        f"deals {deals.start}..{deals.stop - 1}",
        file=out,
        flush=True,
    )
    if done:
        print(f"({len(done)} finished deals read back from {records})", file=out, flush=True)
    print(HEADER, file=out, flush=True)
    table = {}
    log = open(records, "a") if records is not None else None
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for budget in playouts:
                results = [done[budget, d] for d in deals if (budget, d) in done]
                futures = [
                    pool.submit(play_deal, (d, budget, c, threshold, playout, filter_moves, progress_reward))
                    for d in deals
                    if (budget, d) not in done
                ]
                for future in as_completed(futures):
                    record = future.result()
                    if log is not None:
                        log.write(json.dumps(record) + "\n")
                        log.flush()
                        os.fsync(log.fileno())
                    results.append(record)
                    if progress and len(results) % progress == 0 and len(results) < len(deals):
                        print(row(budget, results, partial=True), file=out, flush=True)
                print(row(budget, results), file=out, flush=True)
                table[budget] = results
    finally:
        if log is not None:
            log.close()
    return table
