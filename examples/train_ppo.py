"""Train a MaskablePPO baseline (sb3-contrib) on an Arbiter game, then evaluate it.

    python examples/train_ppo.py --game othello --steps 1000000            # 8x8, the fast default
    python examples/train_ppo.py --game calculation --steps 1000000
    python examples/train_ppo.py --game othello --size 6 --steps 160000 --opponent pool

``--opponent random`` (the default) trains on ``envs.sb3.make_vec_env``: ``--n-envs`` games
stepped by one compiled call per step against the uniformly random opponent, which moves inside
that call, with the learner's seat drawn per episode (two-player games); ``--opponent greedy`` is
the same against the greedy agent, also compiled into the step; ``--opening-plies`` starts each
training game after random plies, so that the policy meets more than the standard position.
Their defaults (rollouts of 256 steps per game, batches of 1024, 4 epochs, one torch thread) keep
updates short enough that training runs at over 1,000 env-steps per second on two cores
(``docs/learned.md``).
``--opponent pool`` is the earlier, slower path (about 100 steps per second), kept so that the
shipped ``ppo_othello6`` can be reproduced: one Gymnasium env whose opponent is a pool of random,
greedy and up to ``--pool`` frozen copies of the learner (a new copy every ``--snapshot-every``
steps), one member drawn per episode; its hyper-parameter defaults are those of that run.

Calculation is a patience; its reward (1 for a completed patience) is so sparse that random play
sees it about once in 100,000 deals, so by default each card put on a foundation also earns
``--progress-reward``/48 (the 48 cards to place: a won deal earns the weight once more). The bonus
grows with what winning needs, so it points the same way as the win. On the vector env it is a
``VecEnvWrapper`` that counts the foundation cards of all games at once with numpy.

Env-steps per second (wall clock, updates included) are printed every ``--log-every`` steps. The
run is resumable: a checkpoint (sb3's own zip, which is a pickle: load only checkpoints you wrote)
is saved every ``--snapshot-every`` steps and at the end, and the same command continues up to
``--steps`` in total (the pool's frozen copies are not saved; a resumed pool restarts from a copy
of the resumed policy). At the end the policy is exported as safe weights (``agents.make("ppo",
path=...)``) and evaluated with the protocol of ``examples/evaluate.py``: against random and
greedy (two players) or over seeded deals (Calculation); the results go to the console and into
the weights' sidecar.

The training is ``agents.learned.ppo_training`` and the evaluation ``tournaments.baselines``;
this is their command line.
"""

import argparse
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import envs  # noqa: E402
from agents.learned import ppo_training  # noqa: E402
from agents.learned.ppo_training import DEFAULTS, Config  # noqa: E402


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="othello", choices=envs.names())
    parser.add_argument("--size", type=int, default=None, help="board size (default: the game's)")
    parser.add_argument(
        "--opponent",
        default="random",
        choices=sorted(DEFAULTS),
        help="random, greedy: the compiled vector env against that opponent (fast); pool: one "
        "env against random, greedy and frozen copies",
    )
    parser.add_argument("--steps", type=int, default=200_000, help="total environment steps")
    parser.add_argument("--n-envs", type=int, default=16, help="games stepped together (--opponent random or greedy)")
    parser.add_argument(
        "--opening-plies",
        type=int,
        nargs="+",
        default=[0],
        metavar="K",
        help="random plies each training game opens with: K, or FEWEST MOST (a count drawn per "
        "game); default 0, the standard start (--opponent random or greedy)",
    )
    parser.add_argument(
        "--snapshot-every", type=int, default=20_000, help="steps between checkpoints (and pool copies)"
    )
    parser.add_argument("--pool", type=int, default=5, help="frozen copies kept in the opponent pool")
    parser.add_argument("--net", type=int, nargs="+", default=[128, 128], help="MLP hidden sizes")
    parser.add_argument(
        "--n-steps",
        type=int,
        default=None,
        help="rollout length per update, per game (default 256 on the vector env, 1024 with the pool)",
    )
    parser.add_argument("--batch", type=int, default=None, help="minibatch size (default 1024, pool 128)")
    parser.add_argument("--epochs", type=int, default=None, help="passes over each rollout (default 4, pool 10)")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    parser.add_argument("--eval-games", type=int, default=100, help="games per evaluation matchup (even)")
    parser.add_argument(
        "--progress-reward",
        type=float,
        default=1.0,
        help="Calculation: reward per card put on a foundation, times 1/48 (0: win/loss only)",
    )
    parser.add_argument("--log-every", type=int, default=50_000, help="steps between progress lines")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--checkpoint", type=Path, help="default: runs/ppo_<game><size>.zip")
    parser.add_argument("--out", type=Path, help="default: agents/learned/weights/ppo_<game><size>.pt")
    args = parser.parse_args(argv)
    for name, value in DEFAULTS[args.opponent].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    for name in ("steps", "n_envs", "snapshot_every", "n_steps", "batch", "epochs", "log_every", "threads"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}={getattr(args, name)}: expected a positive integer")
    if len(args.opening_plies) > 2:
        parser.error(f"--opening-plies {' '.join(map(str, args.opening_plies))}: expected K or FEWEST MOST")
    if args.opening_plies != [0] and args.opponent == "pool":
        parser.error("--opening-plies: only with --opponent random or greedy (the vector env)")
    args.opening_plies = args.opening_plies[0] if len(args.opening_plies) == 1 else tuple(args.opening_plies)
    return args


def main(argv=None):
    args = parse(argv)
    command = "python examples/train_ppo.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    config = Config(
        game=args.game,
        size=args.size,
        opponent=args.opponent,
        steps=args.steps,
        n_envs=args.n_envs,
        opening_plies=args.opening_plies,
        snapshot_every=args.snapshot_every,
        pool=args.pool,
        net=tuple(args.net),
        n_steps=args.n_steps,
        batch=args.batch,
        epochs=args.epochs,
        lr=args.lr,
        ent_coef=args.ent_coef,
        progress_reward=args.progress_reward,
        log_every=args.log_every,
        seed=args.seed,
        threads=args.threads,
    )
    tag = config.tag()
    checkpoint = args.checkpoint or ROOT / "runs" / f"ppo_{tag}.zip"
    out = args.out or ROOT / "agents" / "learned" / "weights" / f"ppo_{tag}.pt"

    def evaluate(game, path):
        import agents
        from tournaments.baselines import against_baselines

        return against_baselines(game, agents.make("ppo", path=str(path), seed=args.seed), args.eval_games, args.seed)

    ppo_training.train(config, checkpoint=checkpoint, out=out, command=command, evaluate=evaluate)


if __name__ == "__main__":
    main()
