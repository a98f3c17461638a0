"""Train the size-independent AlphaZero agent by self-play on small boards.

    python examples/train_alphazero.py --game othello --sizes 6 8 --hours 2
    python examples/train_alphazero.py --game gomoku --sizes 7 9 --hours 2
    python examples/train_alphazero.py --game go --sizes 5 7 --hours 2
    python examples/train_alphazero.py --game loa --hours 2                           # 8x8 only
    python examples/train_alphazero.py --game loa --teacher alphabeta:depth=2 --teacher-games 600
    python examples/train_alphazero.py --game othello --init agents/learned/weights/alphazero_othello.pt \
        --teacher alphabeta:depth=6 --teacher-games 3000 --teacher-value 0.5 --iterations 0
    python examples/train_alphazero.py --game othello --executor ray                  # a local Ray
    python examples/train_alphazero.py --game othello --executor ray --address auto --actors 16

Runs self-play/training iterations until the time budget (counted across resumptions) is spent.
After every iteration it saves a resumable checkpoint (``--checkpoint``; run the same command
again to continue) and exports the weights with their JSON sidecar (``--out``, by default
``runs/alphazero_<game>.pt``; replacing the shipped weights takes ``--overwrite-shipped``), so an
interrupted run still leaves usable weights. ``--snapshot-minutes M`` also keeps a copy of the
weights every M minutes of training next to the checkpoint (for learning curves). Evaluate them
with ``examples/evaluate.py``. Uses one torch thread unless ``--threads`` says otherwise.

``--teacher SPEC --teacher-games N`` starts a run from N games per size of one of our own
search agents against itself (the teacher's moves as policy targets, the results as value
targets; ``agents.learned.imitation``), then goes on by self-play; the teacher's time counts in
the budget. A run resumed with a teacher for the first time learns from its games before its
next iteration; a run learns from one teacher once. ``--teacher-value W`` mixes the teacher's
search score into the value targets (weight W, the result keeping 1 - W), ``--teacher-workers K``
plays its games in K processes (the same samples for any K above 1), and ``--init WEIGHTS``
starts the new net from exported weights (a shipped net, fine-tuned) instead of random ones.
``--device cuda`` runs the gradient steps on a GPU; the same command without it gives the same
training on the CPU (floating-point rounding apart).

``--executor ray`` plays the self-play games on Ray actors (one CPU each; ``--actors``, default
the cluster's CPUs) while this process trains, ``--address`` joins a running cluster (the
``distributed`` extra; ``agents.learned.distributed``). A run is reproducible for a fixed
``--seed`` and number of actors.
"""

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tournaments.referee.outputs import check_not_shipped  # noqa: E402

DEFAULT_SIZES = {"othello": [6, 8], "gomoku": [7, 9], "go": [5, 7], "loa": [8]}  # LOA's board is 8x8


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(DEFAULT_SIZES), default="othello")
    parser.add_argument("--sizes", type=int, nargs="+", help="training board sizes (default per game)")
    parser.add_argument("--hours", type=float, default=2.0, help="training time budget, resumptions included")
    parser.add_argument("--iterations", type=int, default=None, help="stop after this many iterations in total")
    parser.add_argument("--simulations", type=int, default=64, help="PUCT walks of a full self-play search")
    parser.add_argument(
        "--fast-simulations",
        type=int,
        default=16,
        help="PUCT walks of a fast search (no policy target; playout-cap randomisation)",
    )
    parser.add_argument(
        "--full-fraction",
        type=float,
        default=0.25,
        help="share of moves searched in full (1: every move, plain AlphaZero)",
    )
    parser.add_argument("--games", type=int, default=32, help="self-play games per size per iteration")
    parser.add_argument("--reuse", type=float, default=6.0, help="gradient-step uses of each new position")
    parser.add_argument("--buffer", type=int, default=50000, help="positions kept per board size")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument(
        "--encoding",
        type=int,
        default=2,
        choices=[1, 2],
        help="input planes: 2 adds the legal moves to the observation planes",
    )
    parser.add_argument(
        "--ownership-weight", type=float, default=1.0, help="0 turns the ownership head off (LOA has none: no target)"
    )
    parser.add_argument("--no-augment", action="store_true", help="no random board symmetries in training")
    parser.add_argument(
        "--snapshot-minutes",
        type=float,
        default=None,
        help="keep a copy of the weights every this many minutes of training",
    )
    parser.add_argument(
        "--teacher", help="agent spec whose games start a new run (e.g. alphabeta:depth=2); see --teacher-games"
    )
    parser.add_argument("--teacher-games", type=int, default=0, help="teacher games per size before self-play")
    parser.add_argument(
        "--teacher-value",
        type=float,
        default=0.0,
        help="weight of the teacher's search score in the value targets (0: the games' results only)",
    )
    parser.add_argument(
        "--teacher-workers", type=int, default=1, help="processes playing the teacher's games (1: this one)"
    )
    parser.add_argument("--init", type=Path, help="exported AlphaZero weights the new net starts from")
    parser.add_argument(
        "--device", default="cpu", help="where gradient steps run: cpu, or cuda (self-play stays on the CPU)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 on a shared machine)")
    parser.add_argument("--checkpoint", type=Path, help="default: runs/alphazero_<game>.ckpt")
    parser.add_argument("--out", type=Path, help="default: runs/alphazero_<game>.pt")
    parser.add_argument(
        "--overwrite-shipped",
        action="store_true",
        help="allow --out to replace weights shipped in the package (agents/learned/weights/)",
    )
    parser.add_argument(
        "--executor",
        choices=["local", "ray"],
        default="local",
        help="where self-play runs: this process, or Ray actors",
    )
    parser.add_argument(
        "--address", help="with --executor ray: a running Ray cluster ('auto', 'host:6379'); default: start a local Ray"
    )
    parser.add_argument(
        "--actors", type=int, help="with --executor ray: self-play actors (default: the cluster's CPUs)"
    )
    args = parser.parse_args(argv)
    if args.executor != "ray" and (args.address or args.actors is not None):
        parser.error("--address and --actors need --executor ray")
    if args.out is not None:  # the shipped weights are replaced on purpose only
        try:
            check_not_shipped(args.out, "--out", args.overwrite_shipped)
        except ValueError as e:
            parser.error(str(e))
    if bool(args.teacher) != (args.teacher_games > 0):
        parser.error("--teacher and --teacher-games go together (a spec and a positive number of games)")
    if not 0.0 <= args.teacher_value <= 1.0 or (args.teacher_value > 0 and not args.teacher):
        parser.error(f"--teacher-value {args.teacher_value}: expected a weight in [0, 1], with --teacher")
    if args.teacher_workers < 1:
        parser.error(f"--teacher-workers {args.teacher_workers}: expected at least 1")

    from agents.base import AgentError
    from agents.learned import imitation, selfplay
    from envs import ArbiterError

    sizes = args.sizes or DEFAULT_SIZES[args.game]
    if args.teacher:  # built and made to move before torch, Ray or the net start
        try:
            games = [selfplay.make_game(args.game, n) for n in sizes]
            imitation.check_teacher(args.teacher, games, scores=args.teacher_value > 0)
        except ArbiterError as e:
            parser.error(f"--{e}")  # "--teacher SPEC: why"

    from agents.learned import train
    from agents.learned.weights import require_torch

    try:
        torch = require_torch()
    except AgentError as e:
        parser.error(str(e))
    torch.set_num_threads(args.threads)
    config = train.Config(
        game=args.game,
        sizes=sizes,
        channels=args.channels,
        blocks=args.blocks,
        simulations=args.simulations,
        fast_simulations=args.fast_simulations,
        full_fraction=args.full_fraction,
        games=args.games,
        reuse=args.reuse,
        buffer=args.buffer,
        lr=args.lr,
        encoding=args.encoding,
        ownership_weight=args.ownership_weight,
        augment=not args.no_augment,
        seed=args.seed,
        teacher=args.teacher,
        teacher_games=args.teacher_games,
        teacher_value=args.teacher_value,
        teacher_workers=args.teacher_workers,
        init=None if args.init is None else str(args.init),
        device=args.device,
    )
    checkpoint = args.checkpoint or ROOT / "runs" / f"alphazero_{args.game}.ckpt"
    out = args.out or ROOT / "runs" / f"alphazero_{args.game}.pt"
    command = "python examples/train_alphazero.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    executor = "local"
    try:
        if args.executor == "ray":
            from agents.learned.distributed import RaySelfPlay

            executor = RaySelfPlay(address=args.address, actors=args.actors)
        trainer = train.Trainer(config, checkpoint=checkpoint, executor=executor)
    except AgentError as e:  # a bad option, a checkpoint of another net, Ray not installed
        parser.error(str(e))
    with trainer:
        run(trainer, args, checkpoint, out, command)


def run(trainer, args, checkpoint, out, command):
    if trainer.iterations:
        print(f"resumed {checkpoint} at iteration {trainer.iterations}, {trainer.seconds:.0f} s trained")
    budget = args.hours * 3600
    if trainer.needs_teaching:
        entry = trainer.teach()
        trainer.save_checkpoint()
        trainer.export(out, command)
        print(" ".join(f"{k}={v}" for k, v in entry.items()), flush=True)
    while trainer.seconds < budget and (args.iterations is None or trainer.iterations < args.iterations):
        before = trainer.seconds
        entry = trainer.iteration()
        trainer.save_checkpoint()
        trainer.export(out, command)
        if args.snapshot_minutes and int(trainer.seconds / 60 / args.snapshot_minutes) > int(
            before / 60 / args.snapshot_minutes
        ):
            minutes = int(trainer.seconds / 60 / args.snapshot_minutes) * args.snapshot_minutes
            trainer.export(checkpoint.with_name(f"{checkpoint.stem}_{minutes:g}min.pt"), command)
        print(" ".join(f"{k}={v}" for k, v in entry.items()), flush=True)
    print(f"done: {trainer.iterations} iterations, {trainer.seconds / 60:.1f} min, weights in {out}")


if __name__ == "__main__":
    main()
