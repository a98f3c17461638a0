"""Evaluate an agent against reference opponents with the evaluation protocol of ``tournaments.match``.

    python examples/evaluate.py --game othello --agent alphazero:simulations=64 \
        --opponents random greedy mcts:simulations=64 --sizes 6 8 12 16
    python examples/evaluate.py --game othello --agent "ppo:path=agents/learned/weights/ppo_othello6.pt" --sizes 6

Per matchup: ``--games`` games (100 by default), half with the agent moving first, in colour
pairs from the same seeded opening of 2-4 random plies (``tournaments/matches.py``). Prints
score = (W + D/2)/games ± standard error and W/D/L, and whether "agent beats opponent"
(score - 2 SE > 0.5). ``--json`` appends every result to a JSON-lines file; ``--record`` also
stores them in the sidecar of the agent's weights (its ``path`` option or the shipped file).
Opponents are built with seeds derived from ``--seed``, so a run replays exactly.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def markdown_row(r: dict) -> str:
    """One result as a row of the tables in docs/learned.md."""
    verdict = "**yes**" if r["beats"] else "no"
    return (
        f"| `{r['agent']}` | `{r['opponent']}` | {r['size']}x{r['size']} | {r['score']:.3f} ± {r['se']:.3f} "
        f"| {r['wins']}/{r['draws']}/{r['losses']} | {verdict} |"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="othello")
    parser.add_argument("--agent", default="alphazero:simulations=64", help="agent spec for agents.make")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy"], help="agent specs")
    parser.add_argument("--sizes", type=int, nargs="+", default=[8], help="board sizes")
    parser.add_argument("--games", type=int, default=100, help="games per matchup (even)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--json", type=Path, help="append results to this JSON-lines file")
    parser.add_argument("--record", action="store_true", help="store results in the weights' sidecar")
    parser.add_argument("--markdown", action="store_true", help="end with the results as markdown table rows")
    args = parser.parse_args(argv)

    import agents
    import tournaments
    from agents.learned import weights
    from envs import make_game

    try:
        torch = weights.require_torch()
        torch.set_num_threads(args.threads)
    except agents.AgentError:
        pass  # evaluating classical agents needs no torch
    results = {}
    for size in args.sizes:
        game = make_game(args.game, size=size)
        player = agents.make(args.agent, seed=args.seed)
        for k, spec in enumerate(args.opponents):
            opponent = agents.make(spec, seed=args.seed + 1 + k)
            r = tournaments.match(game, player, opponent, games=args.games, seed=args.seed)
            key = f"{args.agent} vs {spec} on {args.game} {size}x{size}"
            results[key] = {
                **r.as_dict(),
                "game": args.game,
                "size": size,
                "agent": args.agent,
                "opponent": spec,
                "seed": args.seed,
            }
            print(f"{key}: {r} [{r.seconds:.0f} s]", flush=True)
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(results[key]) + "\n")
    if args.markdown:
        print("\n| agent | opponent | board | score ± SE | W/D/L | beats? |\n|---|---|---|---|---|---|")
        for r in results.values():
            print(markdown_row(r))
    if args.record:
        path = getattr(player, "path", None) or weights.shipped(args.game, kind=player.name)
        meta = weights.read_meta(path)
        weights.update_meta(path, evaluation={**meta.get("evaluation", {}), **results})
        print(f"recorded {len(results)} results in {weights.sidecar_path(path)}")


if __name__ == "__main__":
    main()
