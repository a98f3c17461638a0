"""Make the opening suites shipped in ``tournaments/referee/openings/``: balanced openings for every board game.

    nice python examples/make_openings.py                    # every suite, seed 0, into runs/openings/
    nice python examples/make_openings.py --suites go_9x9 --out /tmp/suites --count 50

For each suite: draw random openings (``--seed``) of a few plies, drop those that pass, end the
game, or reach a position already drawn (up to a symmetry of the board, so the four mirror images
of Othello's first move count once), judge each remaining position with one of our search agents
at a small budget *from both sides* (the side to move searches the position; then the other side
searches the position after the move it chose), and keep the ``--count`` whose judgement is
closest to even (forced wins and losses are dropped), most balanced first, so that a short run,
which plays the first openings of the suite, plays the most balanced ones. Each line of a suite
ends with its judgement as a comment: for an alpha-beta judge the mean of the two searches'
scores in the game's evaluation units, from Black's side; for MCTS (Go) the mean of the two win
chances, minus one half, from Black's side.

Why these choices: engine testers start games from short openings that a strong engine judges
balanced (Othello's XOT openings are 8 random plies that Edax scores within a disc or two of
even; chess books such as "UHO" or "noob" are filtered by engine evaluation the same way). The
random plies are drawn near the centre where that is how the game opens (Gomoku: within a few
lines of the centre, as swap openings place their stones; Go: off the first two lines), else
from every legal move (Othello's moves are all central at first, LOA's are all reasonable).
Judging from both sides averages over the search's horizon parity (an odd-depth search favours
the side that moved last). Each judgement uses a fresh agent seeded 0, so the suites are
reproducible from ``--seed`` alone.

Judges and budgets (``SUITES``): Othello alpha-beta depth 8 (6x6: 10), LOA alpha-beta depth 5,
Gomoku alpha-beta depth 3, Go MCTS 2,000 simulations. Made here with ``nice`` on two cores
shared with other work, all seven suites took 470 s of CPU (7 min 50 s; 13 min 45 s of wall
time), the agents' compiled code already cached: Othello 8x8 48 s, Othello 6x6 55 s, LOA 52 s,
Gomoku 15x15 44 s, Gomoku 9x9 10 s, Go 9x9 170 s, Go 7x7 91 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
import envs  # noqa: E402
from agents import evaluation as E  # noqa: E402
from envs import sgf  # noqa: E402
from tournaments.referee import openings  # noqa: E402
from tournaments.referee.outputs import check_not_shipped  # noqa: E402


@dataclass(frozen=True)
class Plan:
    """How one suite is made: the game and parameters, the judge (an agent spec), the random
    openings' plies (fewest, most), how many distinct candidates to judge, and the window of
    the random moves (Chebyshev distance from the centre; None: every legal move)."""

    game: str
    params: dict = field(default_factory=dict)
    judge: str = "alphabeta:depth=4"
    plies: tuple = (4, 8)
    candidates: int = 400
    window: int | None = None


SUITES = {
    "othello_8x8": Plan("othello", {}, "alphabeta:depth=8", (6, 8), 500),
    "othello_6x6": Plan("othello", {"size": 6}, "alphabeta:depth=10", (4, 6), 400),
    "loa": Plan("loa", {}, "alphabeta:depth=5", (4, 8), 500),
    "gomoku_15x15": Plan("gomoku", {}, "alphabeta:depth=3", (4, 6), 400, window=3),
    "gomoku_9x9": Plan("gomoku", {"size": 9}, "alphabeta:depth=3", (4, 6), 400, window=2),
    "go_9x9": Plan("go", {}, "mcts:simulations=2000", (4, 6), 400, window=2),
    "go_7x7": Plan("go", {"size": 7}, "mcts:simulations=2000", (3, 5), 400, window=2),
}


def _allowed(game, plan: Plan) -> np.ndarray | None:
    """The actions the random plies may use (a window around the centre), or None (all)."""
    if plan.window is None:
        return None
    n = sgf.side(game)
    c = (n - 1) / 2
    return np.array(
        [r * n + col for r in range(n) for col in range(n) if max(abs(r - c), abs(col - c)) <= plan.window + 0.5]
    )


def draw_opening(game, rng, plan: Plan, allowed) -> tuple | None:
    """Random plies within the window, or None when the draw passes or ends the game."""
    state, moves = game.initial_state(seed=0), []
    for _ in range(int(rng.integers(plan.plies[0], plan.plies[1] + 1))):
        legal = game.legal_actions(state)
        if allowed is not None:
            legal = np.intersect1d(legal, allowed)
        if len(legal) == 0:
            return None
        action = int(legal[rng.integers(len(legal))])
        if game.pass_action is not None and action == game.pass_action:
            return None
        moves.append(action)
        state = game.apply(state, action)
        if game.is_terminal(state):
            return None
    return tuple(moves)


def canonical(game, state) -> str:
    """The position's text board, the same for the eight symmetries of the square board."""
    n = sgf.side(game)
    lines = game.to_text(state).splitlines()
    grid = np.array([line.split()[1:] for line in lines[:n]])
    rest = "\n".join(lines[n + 1 :])
    views = []
    for k in range(4):
        turned = np.rot90(grid, k)
        views += ["\n".join(map(" ".join, turned)), "\n".join(map(" ".join, turned[:, ::-1]))]
    return min(views) + "\n" + rest


def judge_once(game, state, spec):
    """(Black's view of the judge's value, the move it chose, whether the value is a forced
    result) of ``state``, searched by a fresh agent."""
    agent = agents.make(spec, seed=0)
    move = agent.act(game, state)
    stats = agent.last_stats
    black = game.current_player(state) == 0
    if "score" in stats:
        score = float(stats["score"])
        return (score if black else -score), move, abs(score) > E.WIN_BOUND
    value = float(stats["value"])  # MCTS: the mover's win chance
    return (value if black else 1.0 - value) - 0.5, move, False


def judge(game, state, spec) -> float | None:
    """The mean of two searches from Black's side: the side to move's, then the other side's
    after the move chosen; None for a forced result."""
    first, move, forced = judge_once(game, state, spec)
    child = game.apply(state, move)
    if forced or game.is_terminal(child):
        return None
    second, _, forced = judge_once(game, child, spec)
    return None if forced else (first + second) / 2


def make_suite(name: str, plan: Plan, seed: int, count: int) -> tuple[list, dict]:
    """The suite's kept openings as ``(estimate, action ids)``, most balanced first, and what
    making it took."""
    game = envs.make_game(plan.game, **plan.params)
    rng = np.random.default_rng([seed, *name.encode()])
    allowed = _allowed(game, plan)
    seen, judged, draws = set(), [], 0
    start = time.process_time()
    while len(judged) < plan.candidates and draws < 100 * plan.candidates:
        draws += 1
        moves = draw_opening(game, rng, plan, allowed)
        if moves is None:
            continue
        state = game.initial_state(seed=0)
        for a in moves:
            state = game.apply(state, a)
        key = canonical(game, state)
        if key in seen:
            continue
        seen.add(key)
        estimate = judge(game, state, plan.judge)
        if estimate is not None:
            judged.append((estimate, moves))
    judged.sort(key=lambda e: (abs(e[0]), e[1]))
    kept = judged[:count]
    return kept, {"judged": len(judged), "draws": draws, "cpu": time.process_time() - start, "game": game}


def suite_text(name, plan, kept, info, seed) -> str:
    game = info["game"]
    params = ", ".join(f"{k}={v}" for k, v in plan.params.items())
    unit = (
        "Black's win chance minus 1/2 (MCTS)"
        if plan.judge.startswith("mcts")
        else "Black's alpha-beta score (evaluation units)"
    )
    worst = max(abs(e) for e, _ in kept)
    lines = [
        f"# Arbiter opening suite {name}: {game.spec.title}"
        + (f" ({params})" if params else "")
        + f", {len(kept)} openings",
        f"# made by examples/make_openings.py --seed {seed}: random openings of {plan.plies[0]}-"
        f"{plan.plies[1]} plies"
        + (f" within {plan.window} lines of the centre" if plan.window else "")
        + f", the {len(kept)} of {info['judged']} distinct positions judged closest to even by "
        f"{plan.judge} from both sides (|estimate| <= {worst:.3g}), most balanced first",
        f"# each line: the moves, then the estimate: {unit}",
        "# play it with: arbiter tournament --game "
        + game.name
        + "".join(f" -p {k}={v}" for k, v in plan.params.items())
        + " --openings builtin ...",
    ]
    for estimate, moves in kept:
        state, words = game.initial_state(seed=0), []
        for a in moves:
            words.append(game.action_to_str(state, a))
            state = game.apply(state, a)
        lines.append(f"{' '.join(words):<40} # {estimate:+.3g}")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--suites", nargs="+", choices=sorted(SUITES), default=list(SUITES), help="which suites to make (default: all)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the random openings (default %(default)s)")
    parser.add_argument("--count", type=int, default=100, help="openings per suite (default %(default)s)")
    parser.add_argument("--out", default=ROOT / "runs" / "openings", help="directory of the suites")
    parser.add_argument(
        "--overwrite-shipped", action="store_true", help="allow --out to be the package's own suites' directory"
    )
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count {args.count}: expected a positive number of openings")
    try:  # the shipped suites are replaced on purpose only
        out = Path(check_not_shipped(args.out, "--out", args.overwrite_shipped))
    except ValueError as e:
        parser.error(str(e))
    out.mkdir(parents=True, exist_ok=True)
    total = 0.0
    for name in args.suites:
        plan = SUITES[name]
        kept, info = make_suite(name, plan, args.seed, args.count)
        path = out / f"{name}.txt"
        path.write_text(suite_text(name, plan, kept, info, args.seed))
        openings.load(path, info["game"])  # the suite loads: every opening legal and unfinished
        total += info["cpu"]
        print(
            f"{name}: {len(kept)} of {info['judged']} judged openings ({info['draws']} draws), "
            f"|estimate| <= {max(abs(e) for e, _ in kept):.3g}, {info['cpu']:.0f} s CPU -> {path}",
            flush=True,
        )
    print(f"total {total:.0f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main())
