"""Evaluate an agent against reference opponents with the evaluation protocol of ``tournaments.match``.

    python examples/evaluate.py --game othello --agent alphazero:simulations=64 \
        --opponents random greedy mcts:simulations=64 --sizes 6 8 12 16
    python examples/evaluate.py --game othello --agent "ppo:path=agents/learned/weights/ppo_othello6.pt" --sizes 6

The baseline ladder, and the table docs/learned.md shows:

    python examples/evaluate.py --game gomoku --agent alphazero:simulations=64 --ladder \
        --sizes 9 15 19 --games 200 --json runs/eval.jsonl --table docs/learned.md

Per matchup: ``--games`` games (100 by default), half with the agent moving first, in colour
pairs from the same seeded opening of 2-4 random plies (``tournaments/referee/matches.py``). Prints
score = (W + D/2)/games with its 95% interval (Wilson-style, from the colour pairs) and W/D/L,
and whether "agent beats opponent" (the interval above 0.5). ``--ladder`` plays the baseline
ladder: random, greedy, the default ``mcts`` and ``alphabeta``, and the external engines of the
game where they are installed (GNU Go levels 1 and 10 on Go, GRhino levels 1 and 5 on Othello).
``--json`` appends every result to a JSON-lines file; ``--table FILE`` then rewrites the table of
every result in that file between the ``<!-- evaluate: begin -->`` and ``<!-- evaluate: end -->``
lines of FILE (appended if FILE has none), one row per agent, opponent and size, the latest
result of each; ``--table-only`` rewrites the table from the results file and plays nothing.
``--record`` also stores the results in the sidecar of the agent's weights (its
``path`` option or the shipped file). Opponents are built with seeds derived from ``--seed``, so
a run replays exactly.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.referee.outputs import check_not_shipped  # noqa: E402

BEGIN, END = "<!-- evaluate: begin -->", "<!-- evaluate: end -->"
HEADER = (
    "| agent | opponent | game | N | score | 95% interval | W/D/L | s/move (both sides) | beats? |\n"
    "|---|---|---|---:|---:|---|---|---:|---|"
)
ENGINES = {"go": ("gnugo-1", "gnugo-10"), "othello": ("grhino-1", "grhino-5")}


def ladder(game: str) -> list[str]:
    """The baseline ladder of ``game``: random, greedy, the default search agents, and the
    game's external engines that are installed (checked before any game is played)."""
    import shutil

    from tournaments.studies import strength

    rungs = ["random", "greedy", "mcts", "alphabeta"]
    for label in ENGINES.get(game, ()):
        binary = strength.engine_command(label)[0]
        if shutil.which(binary):
            rungs.append(label)
        else:
            print(f"skipping {label}: {binary} is not installed", file=sys.stderr)
    return rungs


def markdown_row(r: dict) -> str:
    """One result as a row of the table in docs/learned.md."""
    verdict = "**yes**" if r["beats"] else "no"
    lo, hi = r["interval"]
    return (
        f"| `{r['agent']}` | `{r['opponent']}` | {r['game']} {r['size']}x{r['size']} | {r['games']} "
        f"| {r['score']:.3f} | {lo:.3f}-{hi:.3f} | {r['wins']}/{r['draws']}/{r['losses']} "
        f"| {r.get('move_seconds', float('nan')):.3f} | {verdict} |"
    )


def write_table(results: Path, path: Path) -> int:
    """Rewrite the generated table of ``path`` from the JSON lines of ``results`` (the latest
    result per agent, opponent, game and size); returns the number of rows."""
    latest = {}
    for line in results.read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            latest[(r["agent"], r["opponent"], r["game"], r["size"])] = r
    rows = [markdown_row(latest[k]) for k in sorted(latest, key=lambda k: (k[2], k[0], k[3], k[1]))]
    block = "\n".join([BEGIN, HEADER, *rows, END])
    text = path.read_text() if path.exists() else ""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + block + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    path.write_text(text)
    return len(rows)


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
    parser.add_argument(
        "--overwrite-shipped", action="store_true", help="with --record: allow writing a shipped weights' sidecar"
    )
    parser.add_argument("--markdown", action="store_true", help="end with the results as markdown table rows")
    parser.add_argument("--ladder", action="store_true", help="play the baseline ladder (replaces --opponents)")
    parser.add_argument("--table", type=Path, help="rewrite the generated table of this file from --json's results")
    parser.add_argument(
        "--table-only", action="store_true", help="play nothing: only rewrite --table from --json's results"
    )
    args = parser.parse_args(argv)
    if args.table and not args.json:
        parser.error("--table needs --json (the results file the table is made from)")
    if args.table_only:
        if not args.table:
            parser.error("--table-only needs --table and --json")
        print(f"{write_table(args.json, args.table)} rows written to the table of {args.table}")
        return
    opponents = ladder(args.game) if args.ladder else args.opponents

    import agents
    import tournaments
    from agents.learned import weights
    from tournaments.referee.baselines import sized_game
    from tournaments.studies import strength

    try:
        torch = weights.require_torch()
        torch.set_num_threads(args.threads)
    except agents.AgentError:
        pass  # evaluating classical agents needs no torch
    try:  # every board checked before the first game
        boards = {size: sized_game(args.game, size) for size in args.sizes}
    except ValueError as e:
        parser.error(str(e))
    record_path = None
    if args.record:  # the sidecar it will write, checked before the first game: a shipped one only on purpose
        try:
            probe = agents.make(args.agent, seed=args.seed)
            record_path = getattr(probe, "path", None) or weights.shipped(args.game, kind=probe.name)
            check_not_shipped(weights.sidecar_path(record_path), "--record", args.overwrite_shipped)
        except ValueError as e:  # an agent without weights, a missing extra, a shipped sidecar
            parser.error(f"--record: {e}")
    results = {}
    for size, game in boards.items():
        player = agents.make(args.agent, seed=args.seed)
        for k, spec in enumerate(opponents):
            opponent = strength.player(spec, agents={}) if spec in ENGINES.get(args.game, ()) else spec
            opponent = agents.make(opponent, seed=args.seed + 1 + k) if isinstance(opponent, str) else opponent
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
        print("\n" + HEADER)
        for r in results.values():
            print(markdown_row(r))
    if args.table:
        print(f"{write_table(args.json, args.table)} rows written to the table of {args.table}")
    if record_path is not None:
        meta = weights.read_meta(record_path)
        weights.update_meta(record_path, evaluation={**meta.get("evaluation", {}), **results})
        print(f"recorded {len(results)} results in {weights.sidecar_path(record_path)}")


if __name__ == "__main__":
    main()
