"""Training the ``ppo`` agent: MaskablePPO (sb3-contrib) on an Arbiter game, resumable, exported
as safe weights with their sidecar.

    config = Config(game="othello", size=6, steps=200_000)
    out, evaluation = train(config, checkpoint="runs/ppo_othello6.zip",
                            out="agents/learned/weights/ppo_othello6.pt", command="...",
                            evaluate=lambda game, path: {...})   # optional; recorded in the sidecar

``examples/train_ppo.py`` is its command line (its docstring gives the figures). Two paths:

* ``opponent="random"`` (the default) or ``"greedy"``: ``envs.sb3.make_vec_env``, ``n_envs``
  games stepped by one compiled call per step against that opponent, which moves inside the
  call, the learner's seat drawn per episode (two-player games); ``opening_plies`` starts each
  training game after random plies (``K`` or ``(FEWEST, MOST)``), so that the policy meets more
  than the standard position.
* ``curriculum=(("random", N), ("greedy", M))``: the vector env against random until ``N``
  steps, then against greedy until ``M`` (the run's ``steps``), in one run that resumes across
  the phase boundary; each phase's env is made when it starts, reseeded like a resumed run.
* ``opponent="pool"``: the earlier, slower path, kept so that the shipped ``ppo_othello6`` can be
  reproduced: one Gymnasium env whose opponent is a pool of random, greedy and up to ``pool``
  frozen copies of the learner (a new copy every ``snapshot_every`` steps), one member drawn per
  episode. ``DEFAULTS`` holds each path's rollout length, batch and epochs, the pool's those of
  that run.

Calculation is a patience whose reward (1 for a completed patience) random play sees about once
in 100,000 deals, so each card put on a foundation also earns ``progress_reward``/48 (the 48
cards to place: a won deal earns the weight once more), pointing the same way as the win. On the
vector env this is ``vec_progress_reward_wrapper``, counting the foundation cards of all games at
once with numpy; on the pool path ``progress_reward_wrapper``.

The run resumes: sb3's own checkpoint (a zip holding a pickle: load only checkpoints you wrote)
is saved every ``snapshot_every`` steps and at the end, and the same call continues up to
``steps`` in total (the pool's frozen copies are not saved; a resumed pool restarts from a copy
of the resumed policy). A resumed run reseeds its envs with ``seed + steps done``, so it does not
replay the same games. Env-steps per second (wall clock, updates included) are printed every
``log_every`` steps. The evaluation is the caller's (the protocol is ``tournaments.referee.baselines``,
a layer above this one): its results go into the weights' sidecar.

``RECIPES`` holds, per game, the best recipe measured against greedy (``docs/learned.md``):
board size, random openings and curriculum. ``recipe_config(game, **options)`` is the ``Config``
that ``examples/train_ppo.py --game GAME`` trains with, the options given overriding the recipe.

Importing this module imports neither torch nor sb3; training does (the ``learn`` extra).
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np

import agents
from envs import make_game
from envs.core.compiling import compile_seconds
from envs.gym_env import ArbiterEnv

from . import ppo, weights

# Hyper-parameters that differ between the two training paths (see the module docstring): the
# pool's are those the shipped ppo_othello6 was trained with.
DEFAULTS = {
    "random": {"n_steps": 256, "batch": 1024, "epochs": 4},
    "greedy": {"n_steps": 256, "batch": 1024, "epochs": 4},
    "pool": {"n_steps": 1024, "batch": 128, "epochs": 10},
}
VECTOR = ("random", "greedy")  # the opponents compiled into the vector env, a curriculum's phases
# The best recipe measured per game against greedy (docs/learned.md, "Default recipes"): a board
# size, random openings (FEWEST, MOST plies) and a curriculum of (opponent, until steps) phases.
# A policy that meets greedy from the first step learns little where it never wins (LOA), so LOA
# and Othello start against random; Go 7x7 learns against greedy from the start.
RECIPES = {
    "othello": {"size": 8, "opening_plies": (0, 6), "curriculum": (("random", 1_000_000), ("greedy", 2_000_000))},
    "go": {"size": 7, "opening_plies": (0, 6), "curriculum": (("greedy", 800_000),)},
    "loa": {"size": None, "opening_plies": (0, 6), "curriculum": (("random", 800_000), ("greedy", 3_200_000))},
}
STEPS = 200_000  # a run's steps without a curriculum or a recipe
POSITIVE = ("steps", "n_envs", "snapshot_every", "n_steps", "batch", "epochs", "log_every", "threads")


@dataclass
class Config:
    """What a PPO training run does (see the module docstring); ``n_steps``, ``batch`` and
    ``epochs`` left None take the ``opponent`` path's ``DEFAULTS``. ``curriculum`` is a sequence
    of ``(opponent, until)`` phases, opponents random or greedy and ``until`` increasing; it
    replaces ``opponent`` (left None: the first phase's) and ends at ``steps`` (left None: the
    last ``until``; ``STEPS`` without a curriculum). A bad value is a ``ConfigError`` naming it."""

    game: str = "othello"
    size: int | None = None  # board size; None: the game's
    opponent: str | None = None  # random, greedy (compiled vector env) or pool; None: random
    steps: int | None = None  # total environment steps, resumptions included
    curriculum: tuple | None = None  # ((opponent, until steps), ...): the opponent by phase
    n_envs: int = 16  # games stepped together (random, greedy)
    opening_plies: int | tuple = 0  # K, or (FEWEST, MOST) drawn per game (random, greedy)
    snapshot_every: int = 20_000  # steps between checkpoints (and pool copies)
    pool: int = 5  # frozen copies kept in the opponent pool
    net: tuple = (128, 128)  # MLP hidden sizes
    n_steps: int | None = None  # rollout length per update, per game
    batch: int | None = None  # minibatch size
    epochs: int | None = None  # passes over each rollout
    lr: float = 3e-4
    ent_coef: float = 0.01  # entropy bonus
    progress_reward: float = 1.0  # Calculation: reward per card put on a foundation, times 1/48
    log_every: int = 50_000  # steps between progress lines
    seed: int = 0
    threads: int = 1  # torch threads

    def __post_init__(self):
        if self.curriculum is not None:
            self.curriculum = _check_curriculum(self.curriculum, self.opponent)
            self.opponent = self.curriculum[0][0]
            last = self.curriculum[-1][1]
            if self.steps is None:
                self.steps = last
            elif self.steps != last:
                _refuse(f"steps={self.steps!r}: a curriculum ends at its last phase's steps, here {last}")
        if self.opponent is None:
            self.opponent = "random"
        if self.steps is None:
            self.steps = STEPS
        if self.opponent not in DEFAULTS:
            _refuse(f"opponent={self.opponent!r}: expected one of {', '.join(DEFAULTS)}")
        for name, value in DEFAULTS[self.opponent].items():
            if getattr(self, name) is None:
                setattr(self, name, value)
        for name in POSITIVE:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                _refuse(f"{name}={value!r}: expected a positive integer")
        if self.opening_plies != 0 and self.opponent == "pool":
            _refuse("opening_plies: only with opponent='random' or 'greedy' (the vector env)")

    def phases(self) -> tuple:
        """``((opponent, until steps), ...)``: the curriculum, or the one opponent until ``steps``."""
        return self.curriculum if self.curriculum is not None else ((self.opponent, self.steps),)

    def phase_at(self, steps: int) -> int:
        """The index of the phase a run that has done ``steps`` steps trains in (the last phase
        once the run is over)."""
        phases = self.phases()
        return next((i for i, (_, until) in enumerate(phases) if steps < until), len(phases) - 1)

    @property
    def params(self) -> dict:
        """The game's rule parameters."""
        return {} if self.size is None else {"size": self.size}

    def tag(self) -> str:
        """What the weights are named by, ``ppo_<tag>.pt``: the game and its board size
        (``othello6``, ``calculation``), the name ``agents.make("ppo")`` looks for."""
        game = make_game(self.game, **self.params)
        return f"{game.name}{game.params.get('size', '')}"


def parse_curriculum(words) -> tuple:
    """``("random:1000000", "greedy:2000000")`` (the command line's ``--curriculum``) as the
    ``Config.curriculum`` ``(("random", 1000000), ("greedy", 2000000))``; a word that is not
    ``OPPONENT:STEPS`` is a ``ConfigError`` naming it (the rest is checked by ``Config``)."""
    phases = []
    for word in words:
        opponent, colon, until = str(word).partition(":")
        if not colon or not until.strip().lstrip("-").isdigit():
            _refuse(f"curriculum phase {word!r}: expected OPPONENT:STEPS, e.g. random:1000000")
        phases.append((opponent.strip(), int(until)))
    return tuple(phases)


def _check_curriculum(curriculum, opponent) -> tuple:
    """The curriculum as a tuple of ``(opponent, until)`` pairs, or a ``ConfigError`` naming the
    bad phase: the vector env's opponents only, positive and increasing steps, no ``opponent``
    beside it (the phases name theirs)."""
    if opponent is not None:
        _refuse(
            f"opponent={opponent!r} with a curriculum: the curriculum names each phase's opponent"
            + (" (the pool has no curriculum: it is its own mix of opponents)" if opponent == "pool" else "")
        )
    phases = tuple(tuple(phase) for phase in curriculum)
    if not phases:
        _refuse("curriculum=(): expected at least one (opponent, until steps) phase")
    previous = 0
    for phase in phases:
        if len(phase) != 2:
            _refuse(f"curriculum phase {phase!r}: expected (opponent, until steps)")
        name, until = phase
        if name not in VECTOR:
            _refuse(f"curriculum opponent {name!r}: expected one of {', '.join(VECTOR)}")
        if not isinstance(until, int) or isinstance(until, bool) or until <= previous:
            _refuse(
                f"curriculum phase {name}:{until}: its steps must be an integer above the last phase's ({previous})"
            )
        previous = until
    return phases


def recipe_config(game: str = "othello", **options) -> Config:
    """The ``Config`` of ``examples/train_ppo.py --game GAME`` with ``options`` (``Config``
    fields; None counts as not given): the game's ``RECIPES`` entry fills what is not given.

    The recipe was measured on its board size, so another ``size`` (or the pool path, which has
    neither openings nor phases) trains without it. ``opponent`` or ``curriculum`` replaces the
    recipe's curriculum (an ``opponent`` alone runs to ``steps``, else the recipe's steps);
    ``steps`` alone fits the recipe's curriculum to it: the phases that end before it are kept
    and the next one runs until ``steps``, so ``--steps`` can shorten or lengthen a recipe's run.
    """
    options = {name: value for name, value in options.items() if value is not None}
    recipe = RECIPES.get(game)
    if recipe is not None and (
        ("size" in options and options["size"] != recipe["size"]) or options.get("opponent") == "pool"
    ):
        recipe = None
    if recipe is not None:
        options.setdefault("size", recipe["size"])
        options.setdefault("opening_plies", recipe["opening_plies"])
        if "opponent" in options:
            options.setdefault("steps", recipe["curriculum"][-1][1])
        elif "curriculum" not in options:
            options["curriculum"] = _fit(recipe["curriculum"], options.pop("steps", None))
    return Config(game=game, **options)


def _fit(curriculum: tuple, steps: int | None) -> tuple:
    """``curriculum`` ending at ``steps``: the phases that end before it, then the next (or the
    last) phase running until it."""
    if steps is None:
        return curriculum
    kept = tuple(phase for phase in curriculum if phase[1] < steps)
    following = curriculum[len(kept)] if len(kept) < len(curriculum) else curriculum[-1]
    if kept and kept[-1][0] == following[0]:
        kept = kept[:-1]
    return (*kept, (following[0], steps))


def _refuse(message: str):
    from .train import ConfigError  # imports torch: only on the way to an error

    raise ConfigError(message)


def train(
    config: Config, *, checkpoint, out, command: str, evaluate: Callable[..., dict] | None = None
) -> tuple[Path, dict]:
    """Train (or resume from ``checkpoint``) as ``config`` says, export the policy to ``out``
    with the training in its sidecar (``command`` is how the run was started), then, with
    ``evaluate(game, out)``, record its results as the sidecar's ``evaluation``. Returns
    ``(out, evaluation)`` (``{}`` without ``evaluate``)."""
    torch = weights.require_torch()
    torch.set_num_threads(config.threads)

    checkpoint, out = Path(checkpoint), Path(out)
    game = make_game(config.game, **config.params)
    model, env, pool, ends = _model(config, game, checkpoint)
    start, first = time.perf_counter(), model.num_timesteps
    _learn_phases(config, game, model, env, pool, ends, checkpoint)
    seconds = time.perf_counter() - start
    rate = (model.num_timesteps - first) / seconds if seconds > 0 else 0.0
    architecture = {"policy": "MaskableActorCriticPolicy", "net_arch": list(config.net)}
    training = _training_record(config, game, model, ends, command, seconds, rate, torch.get_num_threads())
    weights.save(out, model.policy.state_dict(), ppo.policy_meta(game, architecture, training))
    print(
        f"trained {model.num_timesteps} steps ({seconds:.0f} s this run, {rate:.0f} env-steps/s); weights in {out}",
        flush=True,
    )
    evaluation = {}
    if evaluate is not None:
        evaluation = evaluate(game, out)
        weights.update_meta(out, evaluation=evaluation)
    return out, evaluation


def _model(config: Config, game, checkpoint: Path):
    """The model to train: resumed from ``checkpoint`` when it exists (without an env, unless
    the run plays the pool), else a new ``MaskablePPO`` on the first phase's vector env (or the
    pool's env). Returns ``(model, env, pool, ends)``: ``env`` None until a phase makes one,
    ``pool`` the pool's opponents (None for a vector run), ``ends`` the steps at which the
    finished phases ended (kept in the checkpoint's sidecar)."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger

    phases = config.phases()
    # The vector env is made per phase (its opponent is compiled in), once the steps done say
    # which phase the run is in; a resumed model is loaded without one.
    env, pool = (None, None) if config.opponent != "pool" else _pool_env(config, game)
    ends = []
    if checkpoint.is_file():
        model = MaskablePPO.load(checkpoint, env=env, device="cpu")
        ends = _read_phase_ends(checkpoint, phases)
        where = ""
        if len(phases) > 1:
            index = config.phase_at(model.num_timesteps)
            where = f", phase {index + 1}/{len(phases)} (against {phases[index][0]})"
        print(f"resumed {checkpoint} at {model.num_timesteps} steps{where}", flush=True)
    else:
        if config.opponent != "pool":
            env = _vector_env(config, game, phases[0][0])
        model = MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=config.n_steps,
            batch_size=config.batch,
            n_epochs=config.epochs,
            learning_rate=config.lr,
            ent_coef=config.ent_coef,
            gamma=0.99,
            seed=config.seed,
            device="cpu",
            verbose=0,
            policy_kwargs={"net_arch": list(config.net)},
        )
    # SB3's default logger makes a fresh SB3-<date> folder in the temp directory on every
    # learn(); the run reports for itself, so it logs nowhere.
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model, env, pool, ends


def _learn_phases(config: Config, game, model, env, pool, ends: list, checkpoint: Path) -> None:
    """Learn every phase the model has not finished, each against its opponent (a vector env
    made for it; the pool's env stays), seeded by the steps done so that a resumed run does not
    replay the same games; checkpoints while it learns and at each phase's end (appended to
    ``ends``)."""
    phases = config.phases()
    vector = config.opponent != "pool"
    two_players = game.num_players == 2
    env_opponent = phases[0][0] if env is not None else None  # whom the model's env plays

    def save_checkpoint():
        checkpoint.parent.mkdir(parents=True, exist_ok=True)
        model.save(checkpoint)
        _write_phase_ends(checkpoint, config, int(model.num_timesteps), ends)

    Progress, Checkpoints, PoolSnapshots = _callbacks()
    for phase, (opponent, until) in enumerate(phases):
        if model.num_timesteps >= until:
            continue
        if vector and (env is None or opponent != env_opponent):
            if env is not None:
                env.close()
            env = _vector_env(config, game, opponent)
            model.set_env(env)  # resets the env at the next learn()
            if model.ep_info_buffer is not None:
                model.ep_info_buffer.clear()  # the progress lines report this phase's games
        env_opponent = opponent
        if vector:
            env.seed(config.seed + model.num_timesteps)  # a resumed run does not replay the same games
        else:
            env.reset(seed=config.seed + model.num_timesteps)
        callbacks = [Progress(config.log_every, two_players)]
        if vector:
            callbacks.append(Checkpoints(config.snapshot_every, save_checkpoint))
        else:
            callbacks.append(PoolSnapshots(config.snapshot_every, pool, game, config.seed, save_checkpoint))
            if model.num_timesteps:
                callbacks[-1].snapshot(model)
        if len(phases) > 1:
            print(f"phase {phase + 1}/{len(phases)}: against {opponent} until {until} steps", flush=True)
        model.learn(total_timesteps=until - model.num_timesteps, callback=callbacks, reset_num_timesteps=False)
        ends.append(int(model.num_timesteps))
        save_checkpoint()


def _training_record(
    config: Config, game, model, ends: list, command: str, seconds: float, rate: float, threads: int
) -> dict:
    """The sidecar's ``training``: how the run was started, its steps and speed, its opponents
    and hyper-parameters."""
    two_players = game.num_players == 2
    vector = config.opponent != "pool"
    return {
        "command": command,
        "steps": int(model.num_timesteps),
        "seconds_this_run": round(seconds, 1),
        "steps_per_second_this_run": round(rate),
        "torch_threads": threads,
        "opponents": (
            "random, greedy, frozen copies"
            if config.opponent == "pool"
            else f"{_describe(config.phases(), ends)} (compiled vector env, {config.n_envs} games)"
        )
        if two_players
        else None,
        "hyper_parameters": {
            "n_envs": config.n_envs if vector else 1,
            "n_steps": config.n_steps,
            "batch": config.batch,
            "epochs": config.epochs,
            "lr": config.lr,
            "ent_coef": config.ent_coef,
            "opening_plies": config.opening_plies,
            "curriculum": None if config.curriculum is None else [list(phase) for phase in config.curriculum],
            "progress_reward": None if two_players else config.progress_reward,
        },
    }


def _describe(phases, ends) -> str:
    """The opponents of a run in words: ``random`` or ``random to 1003520 steps, then greedy``
    (a phase's end as run, where known, else as planned)."""
    words = [
        f"{opponent} to {ends[i] if i < len(ends) else until} steps" if i < len(phases) - 1 else opponent
        for i, (opponent, until) in enumerate(phases)
    ]
    return ", then ".join(words)


def _phase_file(checkpoint: Path) -> Path:
    return checkpoint.with_suffix(".phase.json")


def _write_phase_ends(checkpoint: Path, config, steps: int, ends: list) -> None:
    """Next to the checkpoint, the run's curriculum, the phase it is in and where the finished
    phases ended: sb3's zip has no room for them, and a resumed run reports them."""
    phases, phase = config.phases(), config.phase_at(steps)
    record = {
        "steps": steps,
        "phase": phase + 1,
        "opponent": phases[phase][0],
        "curriculum": [list(p) for p in phases],
        "phase_ends": ends,
    }
    _phase_file(checkpoint).write_text(json.dumps(record, indent=1) + "\n")


def _read_phase_ends(checkpoint: Path, phases) -> list:
    """The phase ends a checkpoint's sidecar recorded, kept while its phases are this run's (a run
    resumed with a longer last phase or another curriculum keeps the ends of the phases before)."""
    path = _phase_file(checkpoint)
    if not path.is_file():
        return []
    record = json.loads(path.read_text())
    kept = []
    for end, was, now in zip(record.get("phase_ends", []), record.get("curriculum", []), phases):
        if tuple(was) != tuple(now):
            break
        kept.append(int(end))
    return kept


def _vector_env(config, game, opponent):
    """The SB3 VecEnv of ``config.n_envs`` games against the compiled ``opponent``, with episode
    statistics (``VecMonitor``) and, for Calculation, the progress reward."""
    from stable_baselines3.common.vec_env import VecMonitor

    from envs.sb3 import make_vec_env  # imports sb3 (and torch) at its top: only to train

    seat = {"agent_seat": "random"} if game.num_players == 2 else {}
    env = VecMonitor(
        make_vec_env(
            game.name,
            n_envs=config.n_envs,
            seed=config.seed,
            opponent=opponent,
            opening_plies=config.opening_plies,
            **seat,
            **config.params,
        )
    )
    if game.num_players == 1 and config.progress_reward:
        env = vec_progress_reward_wrapper()(env, config.progress_reward)
    return env


def _pool_env(config, game):
    """One Gymnasium env whose opponent is the pool (two players), or the plain env (Calculation)."""
    if game.num_players == 2:
        pool = ppo.OpponentPool(
            [agents.make("random", seed=config.seed + 1), agents.make("greedy", seed=config.seed + 2)],
            max_copies=config.pool,
            seed=config.seed + 3,
        )
        return ArbiterEnv(game.name, opponent=pool, agent_seat="random", **config.params), pool
    env = ArbiterEnv(game.name, **config.params)
    if config.progress_reward:
        env = progress_reward_wrapper()(env, config.progress_reward)
    return env, None


def _callbacks():
    """The training callbacks (classes made here so that sb3 is imported only to train)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        """Prints, every ``every`` steps, the env-steps per second since learning started (wall
        clock, updates included, numba's compile time left out: a first run's compile is no
        training speed) and the mean game result of the last 100 episodes."""

        def __init__(self, every: int, two_players: bool):
            super().__init__()
            self.every, self.two_players = every, two_players

        def _on_training_start(self) -> None:
            self.start, self.first = time.perf_counter(), self.num_timesteps
            self.compiled = compile_seconds()
            self.next = (self.num_timesteps // self.every + 1) * self.every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next:
                self.next += self.every
                elapsed = time.perf_counter() - self.start
                compiling = compile_seconds() - self.compiled
                rate = (self.num_timesteps - self.first) / max(elapsed - compiling, 1e-9)
                took = f"{elapsed:.0f} s" + (f" ({compiling:.0f} s of it compiling)" if compiling >= 0.5 else "")
                episodes = [e["r"] for e in self.model.ep_info_buffer]
                result = ""
                if episodes:
                    r = np.asarray(episodes, dtype=np.float64)
                    result = (
                        f", last {len(r)} games vs the opponent: {np.mean(r > 0):.0%} won, {np.mean(r < 0):.0%} lost"
                        if self.two_players
                        else f", last {len(r)} episodes: return {r.mean():.3f}"
                    )
                print(f"{self.num_timesteps} steps, {took}, {rate:.0f} env-steps/s{result}", flush=True)
            return True

    class Checkpoints(BaseCallback):
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

    class PoolSnapshots(BaseCallback):
        """The pool path's schedule, unchanged since ppo_othello6 was trained: every ``every``
        steps a frozen copy joins the pool and the checkpoint is saved."""

        def __init__(self, every: int, pool, game, seed: int, save):
            super().__init__()
            self.every, self.pool, self.game, self.seed, self.save = every, pool, game, seed, save

        def snapshot(self, model) -> None:
            if self.pool is not None:
                frozen = copy.deepcopy(model.policy)
                self.pool.add_copy(ppo.PPOAgent.from_policy(frozen, self.game, seed=self.seed + model.num_timesteps))

        def _on_step(self) -> bool:
            if self.num_timesteps % self.every == 0:
                self.snapshot(self.model)
                self.save()
            return True

    return Progress, Checkpoints, PoolSnapshots


def progress_reward_wrapper():
    """The Gymnasium wrapper class ``ProgressReward(env, weight)``: Calculation's progress reward on
    one env (a factory, as ``vec_progress_reward_wrapper`` is, whose sb3 base must wait to train)."""

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


def vec_progress_reward_wrapper():
    """The SB3 ``VecEnvWrapper`` class ``VecProgressReward(venv, weight)`` (made here so that sb3
    is imported only to train): Calculation's progress reward on a vector env of N games."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

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
                ended[done] = self.venv.unwrapped.vec.game.observed_foundation_cards(final)
            rewards = rewards + (self.weight * (ended - self._cards) / 48).astype(rewards.dtype)
            self._cards = cards
            return observation, rewards, dones, infos

        def foundation_cards(self) -> np.ndarray:
            """(N,) the cards on the foundations of every game now in the env."""
            vec = self.venv.unwrapped.vec
            return vec.game.foundation_cards_of(vec.states())

    return VecProgressReward
