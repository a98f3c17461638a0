"""Plot a net's score against greedy over its training hours, from the snapshots of its run.

    python examples/train_alphazero.py --game go --sizes 7 9 --hours 2 --snapshot-minutes 20
    python examples/learning_curve.py --game go --sizes 7 9 13 --games 100 --out docs/learning_go.png

``train_alphazero.py --snapshot-minutes M`` keeps a copy of the weights every M minutes of
training next to its checkpoint (``runs/alphazero_<game>_<minutes>min.pt`` with its sidecar). This
plays each snapshot, and the final weights if ``--final`` names them, against ``--opponent``
(default greedy) at every size, ``--games`` games in colour pairs from seeded random openings
(``tournaments.match``), and draws the score with its 95% interval against the hours of training
the sidecar records, one line per board size (the ``plot`` extra, matplotlib). Results are kept
in a JSON-lines file (``--results``, default next to the plot), so a second run plays only the
snapshots it has not seen. ``--batch`` sets the search's leaves a network call (default: the
agent's for ``--simulations``); results written before the option existed were played in
batches of 8 and are read as such.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def snapshots(directory: Path, stem: str) -> list[Path]:
    """The snapshot weights of a run, in training order: ``<stem>_<minutes>min.pt``."""
    found = []
    for path in directory.glob(f"{stem}_*min.pt"):
        match = re.fullmatch(re.escape(stem) + r"_(\d+(?:\.\d+)?)min\.pt", path.name)
        if match:
            found.append((float(match.group(1)), path))
    return [path for _, path in sorted(found)]


def evaluate(
    path: Path, game_name: str, sizes, opponent: str, games: int, simulations: int, batch: int, seed: int
) -> list:
    """One result per size of the net at ``path`` against ``opponent``."""
    import agents
    import tournaments
    from agents.learned import weights
    from tournaments.referee.baselines import sized_game

    meta = weights.read_meta(path)
    hours = float(meta["training"]["seconds"]) / 3600
    rows = []
    for size in sizes:
        player = agents.make("alphazero", path=str(path), simulations=simulations, batch=batch, seed=seed)
        r = tournaments.match(
            sized_game(game_name, size), player, agents.make(opponent, seed=seed + 1), games=games, seed=seed
        )
        rows.append(
            {
                "weights": path.name,
                "sha256": meta["sha256"],
                "hours": hours,
                "size": size,
                "opponent": opponent,
                "simulations": simulations,
                "batch": batch,
                **r.as_dict(),
            }
        )
        print(f"{path.name} ({hours:.2f} h) on {size}x{size}: {r}", flush=True)
    return rows


def plot(rows: list, game_name: str, opponent: str, out: Path) -> None:
    from tournaments.studies.championship.plots import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for size in sorted({r["size"] for r in rows}):
        points = sorted((r["hours"], r["score"], *r["interval"]) for r in rows if r["size"] == size)
        hours = [p[0] for p in points]
        score = [p[1] for p in points]
        errors = [[p[1] - p[2] for p in points], [p[3] - p[1] for p in points]]
        ax.errorbar(hours, score, yerr=errors, marker="o", capsize=3, label=f"{size}x{size}")
    ax.axhline(0.75, color="grey", linestyle="--", linewidth=0.8)
    ax.axhline(0.5, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xlabel("hours of training (2-core machine, one torch thread)")
    ax.set_ylabel(f"score against {opponent} (95% interval)")
    ax.set_ylim(0, 1)
    ax.set_title(f"AlphaZero {game_name}: score over training")
    ax.legend(title="board")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True, choices=["othello", "gomoku", "go", "loa"])
    parser.add_argument("--sizes", type=int, nargs="+", required=True)
    parser.add_argument("--runs", type=Path, default=ROOT / "runs", help="where the snapshots are")
    parser.add_argument("--stem", help="snapshot names' stem (default: alphazero_<game>, the checkpoint's)")
    parser.add_argument("--final", type=Path, help="the run's final weights, plotted last")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--games", type=int, default=100, help="games per snapshot and size (even)")
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--batch", type=int, help="leaves a network call (default: the agent's for --simulations)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--results", type=Path, help="JSON-lines cache (default: the PNG's name, .jsonl)")
    args = parser.parse_args(argv)

    import agents
    from agents.learned.weights import read_meta, require_torch

    try:
        import matplotlib  # noqa: F401 (checked before any game is played)
    except ImportError:
        parser.error('plotting needs matplotlib: pip install "arbiter-games[plot]"')
    try:  # the agent checks the budget and resolves the default batch, before any game is played
        batch = agents.make("alphazero", simulations=args.simulations, batch=args.batch).batch
    except ValueError as exc:
        parser.error(str(exc))
    require_torch().set_num_threads(1)
    paths = snapshots(args.runs, args.stem or f"alphazero_{args.game}")
    if args.final:
        paths.append(args.final)
    if not paths:
        parser.error(f"no snapshots named {args.stem or f'alphazero_{args.game}'}_<minutes>min.pt in {args.runs}")
    results = args.results or args.out.with_suffix(".jsonl")
    rows = [json.loads(line) for line in results.read_text().splitlines() if line.strip()] if results.exists() else []
    for r in rows:
        r.setdefault("batch", 8)  # the agent's only batch before the option existed

    def setting(r):
        return r["opponent"], r["simulations"], r["batch"], r["games"]

    chosen = (args.opponent, args.simulations, batch, args.games)
    seen = {(r["sha256"], r["size"], *setting(r)) for r in rows}
    hashes = {path: read_meta(path)["sha256"] for path in paths}  # a file replaced is played again
    for path in paths:
        sizes = [s for s in args.sizes if (hashes[path], s, *chosen) not in seen]
        if not sizes:
            continue
        new = evaluate(path, args.game, sizes, args.opponent, args.games, args.simulations, batch, args.seed)
        with open(results, "a") as f:
            f.writelines(json.dumps(r) + "\n" for r in new)
        rows += new
        seen |= {(r["sha256"], r["size"], *setting(r)) for r in new}
    wanted = set(hashes.values())
    plot(
        [r for r in rows if r["sha256"] in wanted and r["size"] in args.sizes and setting(r) == chosen],
        args.game,
        args.opponent,
        args.out,
    )
    print(f"wrote {args.out} ({len(paths)} weights, sizes {args.sizes}); results in {results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
