"""The hot paths of every layer, measured through the public API only, so that one script can
time any two commits of Arbiter in the same run.

    python benchmarks/hot_paths.py                    # this tree
    python benchmarks/hot_paths.py --against de6c2ca  # this tree and another commit, side by side
    python benchmarks/hot_paths.py --against de6c2ca --metrics vector,"mcts plain"  # some metrics only

Measured per game (Othello 8x8, Go 9x9, Gomoku 15x15, LOA):

- ``gym random``: one Gymnasium ``step`` against ``opponent="random"`` (the compiled path);
- ``gym object``: the same against an opponent given as an agent object of the user's own (a
  class with ``act`` that asks ``agents.make("random")``), so the env must call Python for the
  reply;
- ``aec``: one PettingZoo AEC ply;
- ``vector``: steps per second of the vector env with 64 games (each game's step counts);
- ``mcts plain``: simulations per second of plain UCT (``mcts:playout=random,rave=0``, uniform
  playouts) from the start position: the same search on any commit;
- ``mcts``: the same for the default ``mcts``, whose knowledge (playouts, priors, tactics) may
  differ between commits: a change here is the price of that knowledge as much as speed;
- ``alphabeta``: nodes per second of ``alphabeta:depth=3`` (LOA, Go, Gomoku) or ``depth=5``
  (Othello) over six seeded positions 10 plies into a game.

Every figure is per CPU second of this process (``time.process_time`` around the timed call
alone: choosing actions and resets are not timed), after a warm-up, the best of ``--repeats`` runs, so other jobs on the machine distort it little. With ``--against REV`` the
script checks REV out into a temporary git worktree and runs itself there (``PYTHONPATH`` set to
that tree) and here, alternately, ``--rounds`` times; the table gives each side's best figure and
the ratio (here / there).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
GAMES = [("othello", {}), ("go", {"size": 9}), ("gomoku", {}), ("loa", {})]
GYM_IDS = {"othello": "Othello-v0", "go": "Go-v0", "gomoku": "Gomoku-v0", "loa": "LOA-v0"}
METRICS = ["gym random", "gym object", "aec", "vector", "mcts plain", "mcts", "alphabeta"]
PLAIN = {"playout": "random", "rave": 0}  # plain UCT with uniform playouts: the same search on every commit


def _best(fn, repeats):
    fn()  # warm-up: compile and fill caches
    return max(fn() for _ in range(repeats))


def _per_cpu_second(run, count):
    """``run(count)`` returns the steps it did and the CPU seconds its timed calls took."""
    done, spent = run(count)
    return done / spent


class _UserAgent:
    """An opponent object as a user would write one: Python ``act`` over the Game protocol."""

    def __init__(self, seed):
        import agents

        self._inner = agents.make("random", seed=seed)

    def act(self, game, state):
        return self._inner.act(game, state)


def gym_steps(name, params, opponent, steps=2000):
    import gymnasium
    import numpy as np

    from envs import register_envs

    register_envs()
    env = gymnasium.make(GYM_IDS[name], opponent=opponent, **params)
    rng = np.random.default_rng(0)
    info = env.reset(seed=0)[1]

    def run(count):
        nonlocal info
        spent = 0.0
        for _ in range(count):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            t0 = time.process_time()
            _, _, terminated, truncated, info = env.step(action)
            spent += time.process_time() - t0
            if terminated or truncated:
                info = env.reset()[1]
        return count, spent

    return lambda: _per_cpu_second(run, steps)


def aec_plies(name, params, plies=2000):
    import numpy as np

    from envs import pz_env

    env = pz_env.env(name, **params)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def run(count):
        done, spent = 0, 0.0
        while done < count:
            if not env.agents:
                env.reset()
                continue
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            t0 = time.process_time()
            env.step(action)
            spent += time.process_time() - t0
            done += 1
        return done, spent

    return lambda: _per_cpu_second(run, plies)


def vector_steps(name, params, num_envs=64, calls=100):
    import gymnasium
    import numpy as np

    from envs import register_envs

    register_envs()
    vec = gymnasium.make_vec(GYM_IDS[name], num_envs=num_envs, vectorization_mode="vector_entry_point", **params)
    rng = np.random.default_rng(0)
    info = vec.reset(seed=0)[1]

    def run(count):
        nonlocal info
        spent = 0.0
        for _ in range(count):
            masks = info["action_mask"]
            # one random legal action per game: the argmax of noise over the legal entries
            actions = np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)
            t0 = time.process_time()
            info = vec.step(actions)[4]
            spent += time.process_time() - t0
        return count * num_envs, spent

    return lambda: _per_cpu_second(run, calls)


def mcts_sims(name, params, simulations=5000, options=None):
    import agents
    import envs

    game = envs.make_game(name, **params)
    state = game.initial_state()
    seeds = iter(range(1000))

    def once():
        bot = agents.make("mcts", simulations=simulations, seed=next(seeds), **(options or {}))
        t0 = time.process_time()
        bot.act(game, state)
        return bot.last_stats["simulations"] / (time.process_time() - t0)

    return once


def alphabeta_nodes(name, params, positions=6):
    import numpy as np

    import agents
    import envs

    game = envs.make_game(name, **params)
    rng = np.random.default_rng(7)
    states = []
    while len(states) < positions:
        state = game.initial_state()
        for _ in range(10):
            if game.is_terminal(state):
                break
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        if not game.is_terminal(state):
            states.append(state)
    depth = 5 if name == "othello" else 3

    def once():
        nodes, spent = 0, 0.0
        for state in states:
            bot = agents.make("alphabeta", depth=depth, seed=0)
            t0 = time.process_time()
            bot.act(game, state)
            spent += time.process_time() - t0
            nodes += bot.last_stats["nodes"]
        return nodes / spent

    return once


def measure(repeats, metrics=METRICS):
    """``{game: {metric: rate}}`` of the tree this process imports, for ``metrics`` only."""
    cells = {  # metric: (the function that builds the timed run, its extra arguments)
        "gym random": (gym_steps, ("random",)),
        "gym object": (gym_steps, (_UserAgent(0),)),
        "aec": (aec_plies, ()),
        "vector": (vector_steps, ()),
        "mcts plain": (mcts_sims, (5000, PLAIN)),
        "mcts": (mcts_sims, ()),
        "alphabeta": (alphabeta_nodes, ()),
    }
    out = {}
    for name, params in GAMES:
        label = name + (f" {params['size']}x{params['size']}" if "size" in params else "")
        out[label] = {}
        for metric in metrics:
            build, extra = cells[metric]
            out[label][metric] = _best(build(name, params, *extra), repeats)
    return out


def _run_in(tree, repeats, metrics):
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run(
        [
            sys.executable,
            str(Path(__file__).resolve()),
            "--json",
            "--repeats",
            str(repeats),
            "--metrics",
            ",".join(metrics),
        ],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _merge(best, new):
    for game, row in new.items():
        for metric, rate in row.items():
            best.setdefault(game, {})[metric] = max(rate, best.get(game, {}).get(metric, 0.0))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="another commit to measure in the same run")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per cell (best counts)")
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the two trees with --against")
    parser.add_argument(
        "--metrics", default=",".join(METRICS), help="the metrics to time, comma-separated (default: all)"
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    metrics = [m.strip() for m in args.metrics.split(",")]
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        parser.error(f"--metrics: unknown {', '.join(map(repr, unknown))}; expected some of {', '.join(METRICS)}")
    if args.json:
        print(json.dumps(measure(args.repeats, metrics)))
        return 0
    if args.against is None:
        here = measure(args.repeats, metrics)
        print(f"{'game':<14} " + " ".join(f"{m:>12}" for m in metrics))
        for game, row in here.items():
            print(f"{game:<14} " + " ".join(f"{row[m]:>12,.0f}" for m in metrics))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        there_tree = Path(tmp) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(there_tree), args.against],
            cwd=HERE,
            check=True,
            capture_output=True,
        )
        try:
            here, there = {}, {}
            for _ in range(args.rounds):
                _merge(there, _run_in(there_tree, args.repeats, metrics))
                _merge(here, _run_in(HERE, args.repeats, metrics))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(there_tree)], cwd=HERE, check=False)
    print(f"per CPU second; {args.against} -> this tree (ratio = this tree / {args.against})")
    print(f"{'game':<14} {'metric':<11} {args.against:>14} {'this tree':>14} {'ratio':>7}")
    for game in here:
        for metric in metrics:
            a, b = there[game][metric], here[game][metric]
            print(f"{game:<14} {metric:<11} {a:>14,.0f} {b:>14,.0f} {b / a:>6.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
