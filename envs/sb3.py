"""stable-baselines3 ``VecEnv`` of any registered game, stepped by one compiled call per step.

    from sb3_contrib import MaskablePPO
    from envs.sb3 import make_vec_env

    venv = make_vec_env("Othello-v0", n_envs=16, size=6)               # float32 planes
    MaskablePPO("MlpPolicy", venv, seed=0).learn(100_000)
    venv = make_vec_env("Go-v0", n_envs=16, observation="image", size=7)
    MaskablePPO("CnnPolicy", venv, seed=0).learn(100_000)              # uint8 channels-last

Named after SB3's own ``make_vec_env``, it returns what SB3 algorithms take with no wrapper: a
``VecEnv`` whose games run in the compiled vector env of ``envs.vector_env`` (the learner against
the uniformly random or the greedy opponent, the same rewards, illegal-action rule and truncation as the
Gymnasium env), with SB3's conventions:

* autoreset in the same step: a finished game's last observation is in
  ``infos[i]["terminal_observation"]`` and ``infos[i]["TimeLimit.truncated"]`` says whether it was
  cut off by ``max_moves``; the returned observation already starts the next episode;
* ``action_masks()`` (N, A) bool, the legal moves, which sb3-contrib's maskable algorithms read
  through ``env_method("action_masks")``;
* ``observation="planes"``: ``game.observation`` as float32, channels first (for ``MlpPolicy``);
  ``observation="image"``: the same planes as uint8 0/255 (Calculation's counts scaled to 0..255),
  channels last, each cell drawn as a k x k block with the smallest k that makes both sides at
  least 36 pixels, because SB3's ``CnnPolicy`` (NatureCNN: an 8x8 convolution of stride 4, then
  4x4 stride 2, then 3x3) needs that much.

Importing this module needs stable-baselines3 (the ``learn`` extra).
"""

from __future__ import annotations

import math

import numpy as np
from gymnasium import spaces

from . import render
from .core import ParameterError
from .framework_ids import gym_ids
from .registry import spec
from .vector_env import ArbiterVectorEnv

try:
    from stable_baselines3.common.vec_env import VecEnv
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    # Still a ModuleNotFoundError naming the missing package, so ``except ImportError`` and
    # tools that skip modules whose optional dependency is absent both see what it is.
    raise ModuleNotFoundError(
        'envs.sb3 needs stable-baselines3: pip install "arbiter-games[learn]"', name=exc.name
    ) from exc

OBSERVATIONS = ("planes", "image")
OPPONENTS = ("random", "greedy")  # compiled into the vector env's step
MIN_IMAGE_SIDE = 36  # NatureCNN's three convolutions need at least this many pixels a side


def make_vec_env(
    env_id,
    n_envs: int = 16,
    observation: str = "planes",
    seed=None,
    agent_seat=0,
    opponent="random",
    opening_plies=0,
    **game_params,
) -> ArbiterSB3VecEnv:
    """An SB3 ``VecEnv`` of ``n_envs`` games of ``env_id`` (a Gymnasium id such as ``"Go-v0"``,
    or a game name) against ``opponent``, ``"random"`` or ``"greedy"`` (the greedy agent, compiled
    into the step), every episode opening with ``opening_plies`` random plies (k or
    ``(fewest, most)``; 0: the standard start); ``game_params`` are the game's parameters, and
    ``num_threads`` among them is the vector env's (``envs.vector_env``)."""
    if opponent not in OPPONENTS:
        raise ParameterError(f"opponent={opponent!r}: expected one of {', '.join(map(repr, OPPONENTS))}")
    ids = gym_ids()
    name = ids.get(env_id, env_id)
    spec(name)  # ParameterError listing the registered games if unknown
    return ArbiterSB3VecEnv(name, n_envs, observation, seed, agent_seat, game_params, opponent, opening_plies)


class ArbiterSB3VecEnv(VecEnv):
    """See the module docstring; build it with ``make_vec_env``."""

    def __init__(self, game, n_envs, observation, seed, agent_seat, game_params, opponent="random", opening_plies=0):
        if observation not in OBSERVATIONS:
            raise ParameterError(f"observation={observation!r}: expected one of {', '.join(map(repr, OBSERVATIONS))}")
        self.vec = ArbiterVectorEnv(
            num_envs=n_envs,
            game=game,
            opponent=opponent,
            agent_seat=agent_seat,
            opening_plies=opening_plies,
            **game_params,
        )
        self.game = self.vec.game
        self.observation = observation
        planes = self.vec.single_observation_space
        if observation == "planes":
            space = planes
        else:
            shape = planes.shape if len(planes.shape) == 3 else (1, *planes.shape)
            self._scale = 255.0 / float(np.max(planes.high))
            self._block = max(1, math.ceil(MIN_IMAGE_SIDE / min(shape[1], shape[2])))
            image = (shape[1] * self._block, shape[2] * self._block, shape[0])
            space = spaces.Box(0, 255, shape=image, dtype=np.uint8)
        self.render_mode = None  # pictures come from get_images(); SB3 asks for the attribute
        super().__init__(n_envs, space, self.vec.single_action_space)
        self._final = np.zeros((n_envs, int(np.prod(planes.shape))), dtype=np.float32)
        self._actions = None
        self._seed = seed

    # -- the VecEnv protocol ------------------------------------------------------------------------
    def reset(self):
        seed = self._seeds[0] if self._seeds[0] is not None else self._seed
        self._seed = None
        obs, _ = self.vec.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return self._convert(obs, copy=False)  # the vector env hands its arrays out

    def step_async(self, actions) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        if self._actions is None:
            raise ParameterError("step_wait() without step_async(): call step(actions)")
        self.vec.advance(self._actions.astype(np.int64, copy=False), final=self._final)
        self._actions = None
        b = self.vec.buffers
        done = b.terminated | b.truncated
        infos = [{} for _ in range(self.num_envs)]
        shape = self.vec.single_observation_space.shape
        for i in np.flatnonzero(done):
            infos[i]["terminal_observation"] = self._convert(self._final[i].reshape(1, *shape))[0]
            infos[i]["TimeLimit.truncated"] = bool(b.truncated[i] and not b.terminated[i])
            infos[i]["illegal_action"] = bool(b.illegal[i])
        return self._convert(b.obs, copy=False), b.rewards.astype(np.float32), done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """(N, A) bool: the legal actions of every game's current position."""
        return self.vec.action_masks()

    def close(self) -> None:
        self.vec.close()

    def get_attr(self, attr_name, indices=None):
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        """Per-game results of a method: ``action_masks`` gives each game's mask (what
        sb3-contrib's ``get_action_masks`` stacks); any other method of this env is called once
        and its result repeated."""
        idx = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._indices(indices))

    def get_images(self):
        return [render.rgb(self.game, s) for s in self.vec.buffers.states]

    # -- helpers ----------------------------------------------------------------------------------
    def _indices(self, indices):
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def _convert(self, obs: np.ndarray, copy: bool = True) -> np.ndarray:
        """Planes as they are (a copy unless ``copy=False``: a step's observations are a fresh
        array already), or the uint8 channels-last image of the module docstring."""
        if self.observation == "planes":
            return obs.copy() if copy else obs
        planes = obs if obs.ndim == 4 else obs[:, None]
        image = np.clip(np.rint(planes * self._scale), 0, 255).astype(np.uint8).transpose(0, 2, 3, 1)
        k = self._block
        return image.repeat(k, axis=1).repeat(k, axis=2) if k > 1 else np.ascontiguousarray(image)
