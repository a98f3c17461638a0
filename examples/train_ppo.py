"""Train a MaskablePPO baseline (sb3-contrib) on an Arbiter game, then evaluate it.

    python examples/train_ppo.py --game othello       # the recipe: 8x8, random then greedy, 2M steps
    python examples/train_ppo.py --game loa --curriculum random:800000 greedy:1600000
    python examples/train_ppo.py --game calculation --steps 1000000
    python examples/train_ppo.py --game othello --size 6 --steps 160000 --opponent pool

With no other option, ``--game othello``, ``go`` and ``loa`` train the best recipe measured for
that game against greedy (``RECIPES`` in ``agents.learned.ppo_training``; ``docs/learned.md``,
"Default recipes"): Othello 8x8 and LOA with ``--opening-plies 0 6`` and ``--curriculum
random:1000000 greedy:2000000`` (LOA ``random:800000 greedy:3200000``), Go 7x7 with
``--opening-plies 0 6`` against greedy for 800,000 steps. Options given override the recipe:
``--opponent`` or ``--curriculum`` replaces its curriculum, ``--steps`` alone ends it at that
step (cutting or lengthening its last phase), ``--opening-plies`` replaces its openings, and
another ``--size`` (or ``--opponent pool``) trains without it. Other games have no recipe: one
opponent (random unless ``--opponent``) for 200,000 steps unless ``--steps``.

``--curriculum OPPONENT:STEPS ...`` trains against each opponent (random or greedy) until its
steps, in one command: the phase switches at the first update past its steps, the checkpoint
resumes in the phase its steps are in (its ``.phase.json`` records the curriculum, the phase and
where each finished phase ended), and the last phase's steps are the run's ``--steps``.

``--opponent random`` (the default without a recipe) trains on ``envs.sb3.make_vec_env``: ``--n-envs`` games
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
path=...)``; ``runs/ppo_<game><size>.pt`` unless ``--out`` says otherwise: replacing the
shipped weights takes ``--overwrite-shipped`` as well) and evaluated with the protocol of ``examples/evaluate.py``: against random and
greedy (two players) or over seeded deals (Calculation); the results go to the console and into
the weights' sidecar.

The training is ``agents.learned.ppo_training`` and the evaluation ``tournaments.referee.baselines``;
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
from agents.learned.ppo_training import DEFAULTS, RECIPES, STEPS  # noqa: E402
from tournaments.referee.outputs import check_not_shipped  # noqa: E402


def parse(argv=None):
    """The command line's options, and in ``.config`` the ``Config`` they train with (the game's
    recipe filling what they leave out); a bad option exits with status 2, named."""
    recipes = "; ".join(f"{game}: {' '.join(f'{o}:{u}' for o, u in r['curriculum'])}" for game, r in RECIPES.items())
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0]
        + " With no other option, --game othello, go and loa train the best recipe measured for "
        "that game (board size, --opening-plies 0 6, curriculum); options given override it."
    )
    parser.add_argument("--game", default="othello", choices=envs.names())
    parser.add_argument(
        "--size", type=int, default=None, help="board size (default: the recipe's, Go 7; else the game's)"
    )
    parser.add_argument(
        "--opponent",
        default=None,
        choices=sorted(DEFAULTS),
        help="random, greedy: the compiled vector env against that opponent (fast); pool: one "
        "env against random, greedy and frozen copies (default: the recipe's curriculum, else random)",
    )
    parser.add_argument(
        "--curriculum",
        nargs="+",
        default=None,
        metavar="OPPONENT:STEPS",
        help="phases of the run: against each opponent (random or greedy) until its steps, "
        f"increasing, the last the run's --steps; replaces --opponent (recipes: {recipes})",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=None,
        help=f"total environment steps (default: the recipe's, else {STEPS}; with a recipe's "
        "curriculum, where it ends)",
    )
    parser.add_argument("--n-envs", type=int, default=16, help="games stepped together (--opponent random or greedy)")
    parser.add_argument(
        "--opening-plies",
        type=int,
        nargs="+",
        default=None,
        metavar="K",
        help="random plies each training game opens with: K, or FEWEST MOST (a count drawn per "
        "game); default: the recipe's 0 6, else 0, the standard start (vector env only)",
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
    parser.add_argument("--out", type=Path, help="default: runs/ppo_<game><size>.pt")
    parser.add_argument(
        "--overwrite-shipped",
        action="store_true",
        help="allow --out to replace weights shipped in the package (agents/learned/weights/)",
    )
    args = parser.parse_args(argv)
    for name in ("steps", "n_envs", "snapshot_every", "n_steps", "batch", "epochs", "log_every", "threads"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')}={getattr(args, name)}: expected a positive integer")
    if args.opening_plies is not None:
        if len(args.opening_plies) > 2:
            parser.error(f"--opening-plies {' '.join(map(str, args.opening_plies))}: expected K or FEWEST MOST")
        if args.opening_plies != [0] and args.opponent == "pool":
            parser.error("--opening-plies: only with --opponent random or greedy (the vector env)")
        args.opening_plies = args.opening_plies[0] if len(args.opening_plies) == 1 else tuple(args.opening_plies)
    try:
        curriculum = None if args.curriculum is None else ppo_training.parse_curriculum(args.curriculum)
        args.config = ppo_training.recipe_config(
            args.game,
            size=args.size,
            opponent=args.opponent,
            curriculum=curriculum,
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
        if args.out is not None:  # the shipped weights are replaced on purpose only
            check_not_shipped(args.out, "--out", args.overwrite_shipped)
    except ValueError as error:  # ConfigError: the option and its bad value; OutputPathError
        parser.error(str(error))
    return args


def main(argv=None):
    args = parse(argv)
    command = "python examples/train_ppo.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    config = args.config
    tag = config.tag()
    checkpoint = args.checkpoint or ROOT / "runs" / f"ppo_{tag}.zip"
    out = args.out or ROOT / "runs" / f"ppo_{tag}.pt"

    def evaluate(game, path):
        import agents
        from tournaments.referee.baselines import against_baselines

        return against_baselines(game, agents.make("ppo", path=str(path), seed=args.seed), args.eval_games, args.seed)

    ppo_training.train(config, checkpoint=checkpoint, out=out, command=command, evaluate=evaluate)


if __name__ == "__main__":
    main()
