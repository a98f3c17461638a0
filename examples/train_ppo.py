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
"""

import argparse
import copy
import shlex
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Hyper-parameters that differ between the two training paths (see the module docstring): the
# pool's are those the shipped ppo_othello6 was trained with.
DEFAULTS = {
    "random": {"n_steps": 256, "batch": 1024, "epochs": 4},
    "greedy": {"n_steps": 256, "batch": 1024, "epochs": 4},
    "pool": {"n_steps": 1024, "batch": 128, "epochs": 10},
}


def parse(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="othello", choices=["othello", "gomoku", "go", "loa", "calculation"])
    parser.add_argument("--size", type=int, default=None, help="board size (default: the game's)")
    parser.add_argument("--opponent", default="random", choices=sorted(DEFAULTS),
                        help="random, greedy: the compiled vector env against that opponent (fast); pool: one "
                             "env against random, greedy and frozen copies")
    parser.add_argument("--steps", type=int, default=200_000, help="total environment steps")
    parser.add_argument("--n-envs", type=int, default=16, help="games stepped together (--opponent random or greedy)")
    parser.add_argument("--opening-plies", type=int, nargs="+", default=[0], metavar="K",
                        help="random plies each training game opens with: K, or FEWEST MOST (a count drawn per "
                             "game); default 0, the standard start (--opponent random or greedy)")
    parser.add_argument("--snapshot-every", type=int, default=20_000,
                        help="steps between checkpoints (and pool copies)")
    parser.add_argument("--pool", type=int, default=5, help="frozen copies kept in the opponent pool")
    parser.add_argument("--net", type=int, nargs="+", default=[128, 128], help="MLP hidden sizes")
    parser.add_argument("--n-steps", type=int, default=None,
                        help="rollout length per update, per game (default 256 on the vector env, 1024 with the pool)")
    parser.add_argument("--batch", type=int, default=None, help="minibatch size (default 1024, pool 128)")
    parser.add_argument("--epochs", type=int, default=None, help="passes over each rollout (default 4, pool 10)")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    parser.add_argument("--eval-games", type=int, default=100, help="games per evaluation matchup (even)")
    parser.add_argument("--progress-reward", type=float, default=1.0,
                        help="Calculation: reward per card put on a foundation, times 1/48 (0: win/loss only)")
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


def train(args, command: str):
    """Train (or resume) as configured by ``args``; return (weights path, evaluation dict)."""
    from agents.learned.weights import require_torch

    torch = require_torch()
    torch.set_num_threads(args.threads)
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    from agents.learned import ppo, weights
    from envs import make_game

    params = {} if args.size is None else {"size": args.size}
    game = make_game(args.game, **params)
    tag = f"{game.name}{game.params.get('size', '')}"  # the name agents.make("ppo") looks for
    checkpoint = args.checkpoint or ROOT / "runs" / f"ppo_{tag}.zip"
    out = args.out or ROOT / "agents" / "learned" / "weights" / f"ppo_{tag}.pt"
    two_players = game.num_players == 2
    vector = args.opponent != "pool"
    if vector:
        env, pool = _vector_env(args, game, params), None
    else:
        env, pool = _pool_env(args, game, params)
    if checkpoint.is_file():
        model = MaskablePPO.load(checkpoint, env=env, device="cpu")
        print(f"resumed {checkpoint} at {model.num_timesteps} steps", flush=True)
    else:
        model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=args.batch, n_epochs=args.epochs,
                            learning_rate=args.lr, ent_coef=args.ent_coef, gamma=0.99, seed=args.seed,
                            device="cpu", verbose=0, policy_kwargs={"net_arch": list(args.net)})
    # SB3's default logger makes a fresh SB3-<date> folder in the temp directory on every
    # learn(); this script reports for itself, so it logs nowhere.
    model.set_logger(Logger(folder=None, output_formats=[]))
    if vector:
        env.seed(args.seed + model.num_timesteps)  # a resumed run does not replay the same games
    else:
        env.reset(seed=args.seed + model.num_timesteps)

    def save_checkpoint():
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        model.save(checkpoint)

    _Progress, _Checkpoints, _PoolSnapshots = _callbacks()
    callbacks = [_Progress(args.log_every, two_players)]
    if vector:
        callbacks.append(_Checkpoints(args.snapshot_every, save_checkpoint))
    else:
        callbacks.append(_PoolSnapshots(args.snapshot_every, pool, game, args.seed, save_checkpoint))
        if model.num_timesteps:
            callbacks[-1].snapshot(model)
    start, first = time.perf_counter(), model.num_timesteps
    remaining = args.steps - model.num_timesteps
    if remaining > 0:
        model.learn(total_timesteps=remaining, callback=callbacks, reset_num_timesteps=False)
        save_checkpoint()
    seconds = time.perf_counter() - start
    rate = (model.num_timesteps - first) / seconds if seconds > 0 else 0.0
    architecture = {"policy": "MaskableActorCriticPolicy", "net_arch": list(args.net)}
    training = {"command": command, "steps": int(model.num_timesteps), "seconds_this_run": round(seconds, 1),
                "steps_per_second_this_run": round(rate), "torch_threads": torch.get_num_threads(),
                "opponents": ("random, greedy, frozen copies" if args.opponent == "pool" else
                              f"{args.opponent} (compiled vector env, {args.n_envs} games)") if two_players else None,
                "hyper_parameters": {"n_envs": args.n_envs if vector else 1, "n_steps": args.n_steps,
                                     "batch": args.batch, "epochs": args.epochs, "lr": args.lr,
                                     "ent_coef": args.ent_coef, "opening_plies": args.opening_plies,
                                     "progress_reward": None if two_players else args.progress_reward}}
    weights.save(out, model.policy.state_dict(), ppo.policy_meta(game, architecture, training))
    print(f"trained {model.num_timesteps} steps ({seconds:.0f} s this run, {rate:.0f} env-steps/s); "
          f"weights in {out}", flush=True)
    evaluation = evaluate(game, out, args.eval_games, args.seed)
    weights.update_meta(out, evaluation=evaluation)
    return out, evaluation


def _vector_env(args, game, params):
    """The SB3 VecEnv of ``args.n_envs`` games against the compiled ``--opponent``, with episode
    statistics (``VecMonitor``) and, for Calculation, the progress reward."""
    from stable_baselines3.common.vec_env import VecMonitor

    from envs.sb3 import make_vec_env

    seat = {"agent_seat": "random"} if game.num_players == 2 else {}
    env = VecMonitor(make_vec_env(game.name, n_envs=args.n_envs, seed=args.seed, opponent=args.opponent,
                                  opening_plies=args.opening_plies, **seat, **params))
    if game.num_players == 1 and args.progress_reward:
        env = _vec_progress_reward_wrapper()(env, args.progress_reward)
    return env


def _pool_env(args, game, params):
    """One Gymnasium env whose opponent is the pool (two players), or the plain env (Calculation)."""
    import agents
    from agents.learned import ppo
    from envs.gym_env import ArbiterEnv

    if game.num_players == 2:
        pool = ppo.OpponentPool([agents.make("random", seed=args.seed + 1), agents.make("greedy", seed=args.seed + 2)],
                                max_copies=args.pool, seed=args.seed + 3)
        return ArbiterEnv(game.name, opponent=pool, agent_seat="random", **params), pool
    env = ArbiterEnv(game.name, **params)
    if args.progress_reward:
        env = _progress_reward_wrapper()(env, args.progress_reward)
    return env, None


def _callbacks():
    """The training callbacks (classes made here so that sb3 is imported only to train)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class _Progress(BaseCallback):
        """Prints, every ``every`` steps, the env-steps per second since learning started (wall
        clock, updates included) and the mean game result of the last 100 episodes."""

        def __init__(self, every: int, two_players: bool):
            super().__init__()
            self.every, self.two_players = every, two_players

        def _on_training_start(self) -> None:
            self.start, self.first = time.perf_counter(), self.num_timesteps
            self.next = (self.num_timesteps // self.every + 1) * self.every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += self.every
                elapsed = time.perf_counter() - self.start
                rate = (self.num_timesteps - self.first) / elapsed
                episodes = [e["r"] for e in self.model.ep_info_buffer]
                result = ""
                if episodes:
                    r = np.asarray(episodes, dtype=np.float64)
                    result = (f", last {len(r)} games vs the opponent: {np.mean(r > 0):.0%} won, "
                              f"{np.mean(r < 0):.0%} lost"
                              if self.two_players else f", last {len(r)} episodes: return {r.mean():.3f}")
                print(f"{self.num_timesteps} steps, {elapsed:.0f} s, {rate:.0f} env-steps/s{result}", flush=True)
            return True


    class _Checkpoints(BaseCallback):
        """Saves the checkpoint at the first rollout start (just after an update) past every
        multiple of ``every`` steps, so a resumed run never counts steps it did not learn from."""

        def __init__(self, every: int, save):
            super().__init__()
            self.every, self.save = every, save

        def _on_training_start(self) -> None:
            self.next = (self.num_timesteps // self.every + 1) * self.every

        def _on_rollout_start(self) -> None:
            if self.num_timesteps >= self.next:
                self.next = (self.num_timesteps // self.every + 1) * self.every
                self.save()

        def _on_step(self) -> bool:
            return True


    class _PoolSnapshots(BaseCallback):
        """The pool path's schedule, unchanged since ppo_othello6 was trained: every ``every``
        steps a frozen copy joins the pool and the checkpoint is saved."""

        def __init__(self, every: int, pool, game, seed: int, save):
            super().__init__()
            self.every, self.pool, self.game, self.seed, self.save = every, pool, game, seed, save

        def snapshot(self, model) -> None:
            from agents.learned import ppo

            if self.pool is not None:
                frozen = copy.deepcopy(model.policy)
                self.pool.add_copy(ppo.PPOAgent.from_policy(frozen, self.game, seed=self.seed + model.num_timesteps))

        def _on_step(self) -> bool:
            if self.num_timesteps % self.every == 0:
                self.snapshot(self.model)
                self.save()
            return True

    return _Progress, _Checkpoints, _PoolSnapshots


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


def _vec_progress_reward_wrapper():
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from envs.calculation import _kernel as K

    # Foundation k+1 holds the first n cards of k+1, 2(k+1), ... (mod 13), a permutation of the
    # ranks, so its top card's rank tells n: COUNT[k, rank - 1] = n.
    n = np.arange(1, 14)
    COUNT = np.zeros((K.NF, 13), dtype=np.int64)
    for k in range(K.NF):
        COUNT[k, (n * (k + 1) - 1) % 13] = n

    class VecProgressReward(VecEnvWrapper):
        """Adds ``weight``/48 to each game's reward for every card its step put on a foundation.

        The cards on the foundations of all N games are summed from the state array at once
        (``Calculation.foundation_cards`` for a batch). A game that ended in the step has already
        been replaced by the next deal (SB3's same-step autoreset), so its final count is read
        from ``infos[i]["terminal_observation"]``, whose first four rows are the foundation tops.
        """

        def __init__(self, venv, weight: float):
            super().__init__(venv)
            self.weight = weight
            self._cards = np.zeros(self.num_envs, dtype=np.int64)

        def reset(self):
            observation = self.venv.reset()
            self._cards = self.foundation_cards()
            return observation

        def step_wait(self):
            observation, rewards, dones, infos = self.venv.step_wait()
            cards = self.foundation_cards()
            ended = cards.copy()
            done = np.flatnonzero(dones)
            if len(done):
                final = np.stack([infos[i]["terminal_observation"] for i in done])
                ended[done] = self.observed_foundation_cards(final)
            rewards = rewards + (self.weight * (ended - self._cards) / 48).astype(rewards.dtype)
            self._cards = cards
            return observation, rewards, dones, infos

        def foundation_cards(self) -> np.ndarray:
            """(N,) the cards on the foundations of every game now in the env."""
            states = self.venv.unwrapped.vec.states()
            return states[:, K.FOUND:K.FOUND + K.NF].sum(axis=1)

        @staticmethod
        def observed_foundation_cards(observations: np.ndarray) -> np.ndarray:
            """(M,) the cards on the foundations of M Calculation observations (M, rows, 13)."""
            tops = observations[:, :K.NF, :].argmax(axis=2)
            return COUNT[np.arange(K.NF), tops].sum(axis=1)

    return VecProgressReward


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
            print(f"{name}: {r}", flush=True)
        for name in ("random", "greedy"):  # deal by deal on the same deals: the luck of the deal cancels
            r = tournaments.duplicate(game, player, agents.make(name, seed=seed), games=games, seed=seed)
            results[f"duplicate vs {name}"] = r.as_dict()
            print(f"ppo vs {name}, same deals: {r}", flush=True)
        return results
    for name in ("random", "greedy"):
        r = tournaments.match(game, player, agents.make(name, seed=seed + 1), games=games, seed=seed)
        results[f"vs {name} size={game.params.get('size')}"] = r.as_dict()
        print(f"ppo vs {name} on {game!r}: {r}", flush=True)
    return results


def main(argv=None):
    args = parse(argv)
    command = "python examples/train_ppo.py " + shlex.join(sys.argv[1:] if argv is None else argv)
    train(args, command)


if __name__ == "__main__":
    main()
