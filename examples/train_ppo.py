"""Train a MaskablePPO baseline (sb3-contrib) on an Arbiter Gymnasium env, then evaluate it.

    python examples/train_ppo.py --game othello --size 6 --steps 200000
    python examples/train_ppo.py --game calculation --steps 200000

Two-player games: the learner's seat is drawn per episode and the opponent is a pool (random,
greedy and up to ``--pool`` frozen copies of the learner, a new copy every ``--snapshot-every``
steps); each episode faces a random member. Masks come from the env's ``action_masks()``.
Calculation is a patience and trains directly; its reward (1 for a completed patience) is so sparse
that random play sees it about once in 100,000 deals, so by default each card put on a foundation
also earns ``--progress-reward``/48 (the 48 cards to place: a won deal earns the weight once
more). The bonus grows with what winning needs, so it points the same way as the win. The run is resumable: a checkpoint (sb3's own zip,
which is a pickle: load only checkpoints you wrote) is saved every ``--snapshot-every`` steps and
at the end, and the same command continues up to ``--steps`` in total (the frozen copies are not
saved; a resumed pool restarts from a copy of the resumed policy). At the end the policy is
exported as safe weights (``agents.make("ppo", path=...)``) and evaluated with the protocol of
``examples/evaluate.py``: against random and greedy (two players) or over seeded deals
(Calculation); the results go to the console and into the weights' sidecar.
"""

import argparse
import copy
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="othello", choices=["othello", "gomoku", "go", "loa", "calculation"])
    parser.add_argument("--size", type=int, default=None, help="board size (default: the game's)")
    parser.add_argument("--steps", type=int, default=200_000, help="total environment steps")
    parser.add_argument("--snapshot-every", type=int, default=20_000, help="steps between pool copies and checkpoints")
    parser.add_argument("--pool", type=int, default=5, help="frozen copies kept in the opponent pool")
    parser.add_argument("--net", type=int, nargs="+", default=[128, 128], help="MLP hidden sizes")
    parser.add_argument("--n-steps", type=int, default=1024, help="rollout length per update")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--eval-games", type=int, default=100, help="games per evaluation matchup (even)")
    parser.add_argument("--progress-reward", type=float, default=1.0,
                        help="Calculation: reward per card put on a foundation, times 1/48 (0: win/loss only)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--checkpoint", type=Path, help="default: runs/ppo_<game><size>.zip")
    parser.add_argument("--out", type=Path, help="default: agents/learned/weights/ppo_<game><size>.pt")
    return parser.parse_args(argv)


def train(args, command: str):
    """Train (or resume) as configured by ``args``; return (weights path, evaluation dict)."""
    from agents.learned.weights import require_torch

    torch = require_torch()
    torch.set_num_threads(args.threads)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger

    import agents
    from agents.learned import ppo, weights
    from envs import make_game
    from envs.gym_env import ArbiterEnv

    ProgressReward = _progress_reward_wrapper()

    params = {} if args.size is None else {"size": args.size}
    game = make_game(args.game, **params)
    tag = args.game + ("" if args.size is None else str(args.size))
    checkpoint = args.checkpoint or ROOT / "runs" / f"ppo_{tag}.zip"
    out = args.out or ROOT / "agents" / "learned" / "weights" / f"ppo_{tag}.pt"
    two_players = game.num_players == 2
    pool = None
    if two_players:
        pool = ppo.OpponentPool([agents.make("random", seed=args.seed + 1), agents.make("greedy", seed=args.seed + 2)],
                                max_copies=args.pool, seed=args.seed + 3)
        env = ArbiterEnv(args.game, opponent=pool, agent_seat="random", **params)
    else:
        env = ArbiterEnv(args.game, **params)
        if args.progress_reward:
            env = ProgressReward(env, args.progress_reward)
    if checkpoint.is_file():
        model = MaskablePPO.load(checkpoint, env=env, device="cpu")
        print(f"resumed {checkpoint} at {model.num_timesteps} steps")
    else:
        model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=128, learning_rate=args.lr,
                            ent_coef=0.01, gamma=0.99, seed=args.seed, device="cpu", verbose=0,
                            policy_kwargs={"net_arch": list(args.net)})
    # SB3's default logger makes a fresh SB3-<date> folder in the temp directory on every
    # learn(); this script reports for itself, so it logs nowhere.
    model.set_logger(Logger(folder=None, output_formats=[]))
    env.reset(seed=args.seed + model.num_timesteps)

    def snapshot():
        if pool is not None:
            frozen = copy.deepcopy(model.policy)
            pool.add_copy(ppo.PPOAgent.from_policy(frozen, game, seed=args.seed + model.num_timesteps))

    class Snapshots(BaseCallback):
        def _on_step(self) -> bool:
            if self.num_timesteps % args.snapshot_every == 0:
                snapshot()
                checkpoint.parent.mkdir(parents=True, exist_ok=True)
                model.save(checkpoint)
            return True

    if model.num_timesteps:
        snapshot()
    start = time.perf_counter()
    remaining = args.steps - model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=Snapshots(), reset_num_timesteps=False)
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        model.save(checkpoint)
    seconds = time.perf_counter() - start
    architecture = {"policy": "MaskableActorCriticPolicy", "net_arch": list(args.net)}
    training = {"command": command, "steps": int(model.num_timesteps), "seconds_this_run": round(seconds, 1),
                "torch_threads": torch.get_num_threads(),
                "opponents": "random, greedy, frozen copies" if two_players else None}
    weights.save(out, model.policy.state_dict(), ppo.policy_meta(game, architecture, training))
    print(f"trained {model.num_timesteps} steps ({seconds:.0f} s this run); weights in {out}")
    evaluation = evaluate(game, out, args.eval_games, args.seed)
    weights.update_meta(out, evaluation=evaluation)
    return out, evaluation


def _progress_reward_wrapper():
    import gymnasium

    class ProgressReward(gymnasium.Wrapper):
        """Adds ``weight``/48 to the reward for every card a step puts on a foundation."""

        def __init__(self, env, weight: float):
            super().__init__(env)
            self.weight = weight
            self._cards = 0

        def reset(self, **kwargs):
            observation, info = self.env.reset(**kwargs)
            self._cards = self._foundation_cards()
            return observation, info

        def step(self, action):
            observation, reward, terminated, truncated, info = self.env.step(action)
            cards = self._foundation_cards()
            reward += self.weight * (cards - self._cards) / 48
            self._cards = cards
            return observation, reward, terminated, truncated, info

        def action_masks(self):
            return self.env.unwrapped.action_masks()

        def _foundation_cards(self):
            base = self.env.unwrapped
            return base.game.foundation_cards(base.state)

    return ProgressReward


def evaluate(game, path, games: int, seed: int) -> dict:
    """The protocol of examples/evaluate.py: vs random and greedy, or over deals for Calculation."""
    import agents
    import tournaments

    player = agents.make("ppo", path=str(path), seed=seed)
    results = {}
    if game.num_players == 1:
        for name, agent in (("ppo", player), ("random", agents.make("random", seed=seed)),
                            ("greedy", agents.make("greedy", seed=seed))):
            r = tournaments.solitaire(game, agent, games=games, seed=seed)
            results[f"{name} size={game.params.get('size', '-')}"] = r.as_dict()
            print(f"{name}: {r}")
        return results
    for name in ("random", "greedy"):
        r = tournaments.match(game, player, agents.make(name, seed=seed + 1), games=games, seed=seed)
        results[f"vs {name} size={game.params.get('size')}"] = r.as_dict()
        print(f"ppo vs {name} on {game!r}: {r}")
    return results


def main(argv=None):
    args = parse(argv)
    command = "python examples/train_ppo.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    train(args, command)


if __name__ == "__main__":
    main()
