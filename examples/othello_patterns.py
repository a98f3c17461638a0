"""Fit the 8x8 Othello pattern table (``envs/othello/patterns.npz``) from self-play.

    nice python examples/othello_patterns.py --workers 2 --positions runs/othello-positions

writes ``runs/patterns.npz``; ``--out envs/othello/patterns.npz --overwrite-shipped`` replaces
the shipped table (itself 2 rounds of 60,000 games, 23 minutes on 2 cores, of which the fits take 2).

1. **Games.** Each game starts from its own opening of 2-12 uniformly random plies, then
   alpha-beta at ``--depth`` plays both sides, a uniformly random move instead with
   probability ``--explore`` (so the positions are not only those the search prefers). At
   ``--exact`` empty squares the endgame solver gives the exact final disc difference under
   perfect play; every earlier position of the game but a pass, from its mover's side, is
   labelled with it.
2. **Rounds.** The first round's games are played with the hand-written evaluation; each
   later round's with the table fitted to all the positions before it, so its labels come from
   better play (``--rounds``, ``--games`` each).
3. **Fit.** Per stage (``patterns.phase``), ridge least squares of the label on the counts and
   the pattern entries (``--ridge`` keeps entries seen rarely near 0), with the positions of
   the neighbouring stages at half weight, by conjugate gradients (``--iterations``). A group
   that a symmetry of the board maps onto itself (an edge read either way) has its reflected
   configurations tied to one entry, so the table scores symmetric positions alike.

Every random choice flows from ``--seed``: game ``g`` of round ``r`` draws from the seed
``(seed, r, g)``, and each job of ``--chunk`` games has its own player, so the same command
writes the same table with any number of workers. Prints the fit's error on held-out games
(every tenth) per stage; ``examples/othello_weights.py`` plays a table against another.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from envs.othello import patterns as PT  # noqa: E402
from tournaments.referee.outputs import check_not_shipped  # noqa: E402

OPENING = (2, 12)


def _mirrors():
    """MIRROR[j]: the entry of a stage that shows entry ``j``'s configuration reflected by the
    symmetry of the board that maps its group onto itself (``j`` itself for a group with none,
    such as ``corner2x5``, whose reflection is another placement). The fit ties the two, so the
    tables come out symmetric."""
    mirror = np.arange(PT.STAGE)
    offset = len(PT.COUNTS)
    for squares in PT.GROUPS.values():
        size = len(squares)
        cells = PT.placed(squares, 0)
        for t in range(1, 8):
            image = PT.placed(squares, t)
            if sorted(image) == sorted(cells) and image != cells:
                to = [cells.index(x) for x in image]  # reading place k goes to place to[k]
                digits = (np.arange(3**size)[:, None] // 3 ** np.arange(size)[None, :]) % 3
                mirror[offset : offset + 3**size] = offset + digits @ (3 ** np.array(to))
                break
        offset += 3**size
    return mirror


def _games(job):
    """Positions of games ``first``.. ``first + count - 1``: pattern indices, counts, stage,
    label and game."""
    first, count, depth, explore, exact, seed, round_, weights = job
    import agents
    import envs
    from agents.openings import random_opening
    from envs.core import kernel as C
    from envs.othello import endgame
    from envs.othello import evaluation as E

    game = envs.make_game("othello", size=8)
    p = game.kernel_params
    player = agents.make("alphabeta", depth=depth, weights=weights, seed=0)
    rows_idx, rows_counts, rows_phase, rows_label, rows_game = [], [], [], [], []
    for g in range(first, first + count):
        rng = np.random.default_rng([seed, round_, g])
        state = game.initial_state(seed=0)
        for a in random_opening(game, rng, *OPENING):
            state = game.apply(state, a)
        seen = []  # (position, its stage)
        while not game.is_terminal(state):
            empties = 64 - sum(game.discs(state))
            if empties <= exact:
                break
            moves = game.legal_actions(state)
            if moves[0] != game.pass_action:
                seen.append((state.copy(), PT.phase(empties)))
            if rng.random() < explore:
                move = int(moves[rng.integers(len(moves))])
            else:
                move = player.act(game, state)
            state = game.apply(state, move)
        if game.is_terminal(state):
            black, white = game.discs(state)
            black_margin = black - white
        else:
            v = int(endgame.disc_difference(state, p)[0])
            black_margin = v if game.current_player(state) == 0 else -v
        for s, stage in seen:
            me = int(s[C.H_PLAYER]) + 1
            squares, my_moves, their_moves, stable, frontier, parity = E.terms(s, p)
            idx = np.empty(PT.PLACED, dtype=np.int64)
            PT.indices(s, me, idx)
            rows_idx.append(idx)
            rows_counts.append((1.0, my_moves, their_moves, stable, frontier, parity))
            rows_phase.append(stage)
            rows_label.append(black_margin if me == 1 else -black_margin)
            rows_game.append(g)
    return (
        np.array(rows_idx, dtype=np.int32).reshape(-1, PT.PLACED),
        np.array(rows_counts, dtype=np.float64),
        np.array(rows_phase, dtype=np.int64),
        np.array(rows_label, dtype=np.float64),
        np.array(rows_game, dtype=np.int64),
    )


@njit(cache=True)
def _product(idx, counts, root, x, out):
    """out = sqrt(weight) * (design . x)"""
    for i in range(idx.shape[0]):
        v = 0.0
        for k in range(counts.shape[1]):
            v += x[k] * counts[i, k]
        for g in range(idx.shape[1]):
            v += x[idx[i, g]]
        out[i] = root[i] * v


@njit(cache=True)
def _transposed(idx, counts, root, r, out):
    """out = design^T (sqrt(weight) * r)"""
    out[:] = 0.0
    for i in range(idx.shape[0]):
        v = root[i] * r[i]
        for k in range(counts.shape[1]):
            out[k] += v * counts[i, k]
        for g in range(idx.shape[1]):
            out[idx[i, g]] += v


def _fit_stage(idx, counts, labels, weight, iterations, ridge):
    """Ridge least squares of one stage by conjugate gradients (CGLS); counts are standardised
    and the bias is not penalised."""
    scale = np.sqrt((counts**2).mean(axis=0)) + 1e-9
    scale[0] = 1.0
    counts = counts / scale
    root = np.sqrt(weight)
    b = root * labels
    penalty = np.full(PT.STAGE, ridge)
    penalty[0] = 0.0
    x = np.zeros(PT.STAGE)
    r = b.copy()
    s = np.empty(PT.STAGE)
    _transposed(idx, counts, root, r, s)
    p = s.copy()
    gamma = s @ s
    q = np.empty_like(b)
    for _ in range(iterations):
        _product(idx, counts, root, p, q)
        alpha = gamma / (q @ q + (penalty * p * p).sum())
        x += alpha * p
        r -= alpha * q
        _transposed(idx, counts, root, r, s)
        s -= penalty * x
        new = s @ s
        p = s + (new / gamma) * p
        gamma = new
    x[: len(scale)] /= scale
    return x


def _predict(idx, counts, w):
    """The table's values (in discs) of the positions."""
    out = np.empty(idx.shape[0])
    _product(idx, counts, np.ones(idx.shape[0]), w, out)
    return out


def _positions(args, round_, weights):
    """The positions of one round's games (cached in ``--positions``' folder if given)."""
    cache = args.positions / f"round{round_}.npz" if args.positions else None
    if cache is not None and cache.exists():
        with np.load(cache) as data:
            return tuple(data[k] for k in ("idx", "counts", "phase", "label", "game"))
    job = (args.depth, args.explore, args.exact, args.seed, round_, weights)
    jobs = [(g, min(args.chunk, args.games - g), *job) for g in range(0, args.games, args.chunk)]
    _games((0, 1, *job))  # compile before the workers start
    with ProcessPoolExecutor(args.workers) as pool:
        parts = list(pool.map(_games, jobs))
    out = tuple(np.concatenate([part[k] for part in parts]) for k in range(5))
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.savez(cache, idx=out[0], counts=out[1], phase=out[2], label=out[3], game=out[4])
    return out


def _fit(idx, counts, phases, labels, games, args):
    """The table fitted to the positions, stage by stage; prints each stage's errors."""
    tied = np.minimum(np.arange(PT.STAGE), _mirrors())
    idx = tied[idx]
    held = games % 10 == 0
    table = np.zeros(PT.SIZE)
    for k in range(PT.PHASES):
        near = (np.abs(phases - k) <= 1) & ~held
        weight = np.where(phases[near] == k, 1.0, 0.5)
        w = _fit_stage(idx[near], counts[near], labels[near], weight, args.iterations, args.ridge)
        w = w[tied]  # a reflected configuration reads its tied entry
        table[k * PT.STAGE : (k + 1) * PT.STAGE] = w
        test, train = (phases == k) & held, (phases == k) & ~held
        err_test = np.sqrt(np.mean((_predict(idx[test], counts[test], w) - labels[test]) ** 2))
        err_train = np.sqrt(np.mean((_predict(idx[train], counts[train], w) - labels[train]) ** 2))
        print(
            f"  stage {k:2d}: {train.sum():7d} positions, rms error train {err_train:5.2f} "
            f"held-out {err_test:5.2f} (labels' spread {labels[test].std():5.2f})",
            flush=True,
        )
    return table


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=60000, help="games per round")
    parser.add_argument("--depth", type=int, default=4, help="alpha-beta depth of the self-play")
    parser.add_argument("--explore", type=float, default=0.03, help="share of uniformly random moves")
    parser.add_argument("--exact", type=int, default=12, help="empty squares at which the solver labels a game")
    parser.add_argument("--iterations", type=int, default=100, help="conjugate-gradient steps per stage")
    parser.add_argument("--ridge", type=float, default=2.0, help="penalty on squared pattern entries")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=1000, help="games per job")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of games, each played with the last fit")
    parser.add_argument("--positions", type=Path, help="a folder to cache each round's positions in, and reuse")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "patterns.npz", help="the table to write")
    parser.add_argument(
        "--overwrite-shipped", action="store_true", help=f"allow --out to replace the shipped table ({PT.PATH.name})"
    )
    args = parser.parse_args(argv)
    try:
        check_not_shipped(args.out, "--out", args.overwrite_shipped)
    except ValueError as e:
        parser.error(str(e))
    args.out.parent.mkdir(parents=True, exist_ok=True)

    from envs.othello import evaluation

    start = time.time()
    weights, parts = evaluation.WEIGHTS, []
    for round_ in range(args.rounds):
        parts.append(_positions(args, round_, weights))
        data = [np.concatenate([part[k] for part in parts]) for k in range(5)]
        print(f"round {round_}: {len(data[3])} positions in all, {time.time() - start:.0f} s", flush=True)
        weights = _fit(*data, args)
    np.savez_compressed(args.out, table=weights.astype(np.float32))
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
