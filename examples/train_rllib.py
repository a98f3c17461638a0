"""Train a policy by self-play with RLlib's PPO on an Arbiter PettingZoo env, illegal moves masked.

    python examples/train_rllib.py --game othello --size 6 --iterations 50
    python examples/train_rllib.py --game gomoku --size 7 --iterations 50 --env-runners 2
    python examples/train_rllib.py --address auto --env-runners 16 ...     # a running Ray cluster

The env is ``envs.pettingzoo.<game>_v0.raw_env`` behind RLlib's ``PettingZooEnv`` wrapper (RLlib's
new API stack: ``RLModule``, ``EnvRunner``, ``Learner``). Both seats map to one shared module, so
the policy plays itself. The module (``MaskedPolicy``) reads the env's observation dict: a small
convolutional trunk over the ``"observation"`` planes gives one logit per action and a value, and
every action the ``"action_mask"`` marks illegal gets the lowest finite logit, so it is never
sampled (the masking RLModule of RLlib's examples, for our observation keys and board planes).

Two guards make an illegal move impossible to miss: the raw env raises ``IllegalActionError`` on
one (the training run stops), and a callback (``MaskAudit``) checks every sampled action of every
finished episode against the mask its agent saw and reports ``actions_checked`` and
``illegal_actions`` with the iteration's metrics. ``--log FILE`` writes those metrics, one JSON
line per iteration.

Needs the ``rllib`` extra (``pip install "arbiter-games[rllib]"``, which is Ray's ``rllib`` extra
plus the ``learn`` extra's torch). RLlib pins an older gymnasium than Arbiter is tested with; see
the extras table in the README.
"""

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

INSTALL_HINT = 'this example needs RLlib and torch: pip install "arbiter-games[rllib]"'


def two_player_games() -> list:
    """The registered two-player games (self-play needs two seats; Calculation is a patience)."""
    import envs

    return [spec.name for spec in envs.specs() if spec.num_players == 2]


def rule_params(args) -> dict:
    """``--size`` where the game has a board size parameter (LOA's board is 8x8 only)."""
    import envs

    return {"size": args.size} if any(p.name == "size" for p in envs.spec(args.game).params) else {}


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=two_player_games(), default="othello")
    parser.add_argument("--size", type=int, default=6, help="board size (a game without one, LOA, ignores it)")
    parser.add_argument("--iterations", type=int, default=20, help="PPO training iterations")
    parser.add_argument("--batch", type=int, default=2000, help="environment steps per iteration")
    parser.add_argument("--minibatch", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=4, help="passes over each iteration's samples")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--channels", type=int, default=32, help="width of the convolutional trunk")
    parser.add_argument(
        "--env-runners", type=int, default=0, help="Ray actors that sample episodes (0: sample in this process)"
    )
    parser.add_argument("--address", help="a running Ray cluster ('auto', 'host:6379'); default: a local Ray")
    parser.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray (default: this machine's)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path, help="write each iteration's metrics here as a JSON line")
    args = parser.parse_args(argv)
    for name in ("iterations", "batch", "minibatch", "epochs", "channels"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}={getattr(args, name)}: expected a positive number")
    if args.env_runners < 0:
        parser.error(f"--env-runners={args.env_runners}: expected 0 or more")
    if args.minibatch > args.batch:
        parser.error(f"--minibatch={args.minibatch} is larger than --batch={args.batch}")
    if args.address and args.num_cpus is not None:
        parser.error("--num-cpus sizes a local Ray; a cluster at --address has its own")
    try:
        import ray  # noqa: F401
        import torch  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError as e:
        parser.error(f"{INSTALL_HINT} ({e})")
    import envs

    try:  # the rule parameters are checked before Ray starts
        envs.make_game(args.game, **rule_params(args))
    except envs.ParameterError as e:
        parser.error(str(e))
    return args


def build(args):
    """The PPO algorithm: the env, the shared masked module, the audit callback."""
    import numpy as np
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis import ValueFunctionAPI
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from ray.tune.registry import register_env
    from torch import nn

    import envs.pettingzoo  # noqa: F401  (makes the per-game modules)
    from envs import pz_env

    class MaskedPolicy(TorchRLModule, ValueFunctionAPI):
        """Conv trunk -> action logits (illegal ones pushed to the lowest float) and a value."""

        def setup(self):
            channels = self.model_config.get("channels", 32)
            planes, rows, cols = self.observation_space["observation"].shape
            self.trunk = nn.Sequential(
                nn.Conv2d(planes, channels, 3, padding=1),
                nn.ReLU(),
                nn.Conv2d(channels, channels, 3, padding=1),
                nn.ReLU(),
                nn.Flatten(),
            )
            self.logits = nn.Linear(channels * rows * cols, self.action_space.n)
            self.value = nn.Linear(channels * rows * cols, 1)

        def _features(self, batch):
            return self.trunk(batch[Columns.OBS]["observation"].float())

        def _forward(self, batch, **kwargs):
            features = self._features(batch)
            legal = batch[Columns.OBS]["action_mask"] > 0
            logits = self.logits(features).masked_fill(~legal, FLOAT_MIN)
            return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: features}

        def compute_values(self, batch, embeddings=None):
            if embeddings is None:
                embeddings = self._features(batch)
            return self.value(embeddings).squeeze(-1)

    class MaskAudit(RLlibCallback):
        """Checks every sampled action of a finished episode against its agent's mask."""

        def on_episode_end(self, *, episode, metrics_logger=None, **kwargs):
            checked = illegal = 0
            for agent_episode in episode.agent_episodes.values():
                observations = agent_episode.get_observations()
                actions = np.asarray(agent_episode.get_actions())
                masks = (
                    observations["action_mask"]
                    if isinstance(observations, dict)
                    else np.stack([o["action_mask"] for o in observations])
                )
                for t, action in enumerate(actions):
                    checked += 1
                    illegal += int(masks[t][int(action)] == 0)
            metrics_logger.log_value("actions_checked", checked, reduce="sum")
            metrics_logger.log_value("illegal_actions", illegal, reduce="sum")

    params = rule_params(args)
    name = f"arbiter_{args.game}"
    register_env(name, lambda _: PettingZooEnv(pz_env.raw_env(args.game, **params)))
    module = RLModuleSpec(module_class=MaskedPolicy, model_config={"channels": args.channels})
    config = (
        PPOConfig()
        # RLlib's env check steps random, unmasked actions, which the strict raw env refuses
        .environment(name, disable_env_checking=True)
        .framework("torch")
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"shared": module}))
        .training(
            train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch, num_epochs=args.epochs, lr=args.lr
        )
        .callbacks(MaskAudit)
        .debugging(seed=args.seed)
    )
    return config.build_algo()


def main(argv=None):
    args = parse(argv)
    import ray

    from agents import ray_cluster

    try:
        started = ray_cluster.connect(args.address, args.num_cpus)
    except ConnectionError as e:  # --address auto with no cluster running, say
        sys.exit(f"train_rllib.py: error: {e}")
    log = args.log.open("w") if args.log else None
    try:
        algo = build(args)
        try:
            for _ in range(args.iterations):
                result = algo.train()
                runners = result["env_runners"]
                learner = result["learners"]["shared"]
                entry = {
                    "iteration": result["training_iteration"],
                    "env_steps": int(
                        result.get("num_env_steps_sampled_lifetime", runners.get("num_env_steps_sampled_lifetime", 0))
                    ),
                    "episodes": int(runners.get("num_episodes_lifetime", runners.get("num_episodes", 0))),
                    "episode_length": round(float(runners.get("episode_len_mean", float("nan"))), 1),
                    "actions_checked": int(runners.get("actions_checked", 0)),
                    "illegal_actions": int(runners.get("illegal_actions", 0)),
                    "policy_loss": round(float(learner["policy_loss"]), 4),
                    "value_loss": round(float(learner["vf_loss"]), 4),
                    "entropy": round(float(learner["entropy"]), 4),
                }
                print(" ".join(f"{k}={v}" for k, v in entry.items()), flush=True)
                if log:
                    log.write(json.dumps(entry) + "\n")
                    log.flush()
        finally:
            algo.stop()
    finally:
        if log:
            log.close()
        if started:
            ray.shutdown()
    print(f"done: {args.iterations} iterations of self-play PPO on {args.game}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
