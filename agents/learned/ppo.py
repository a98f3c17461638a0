"""Play a saved MaskablePPO policy (sb3-contrib) on the Game protocol; helpers for training it.

    bot = agents.make("ppo", path="agents/learned/weights/ppo_othello6.pt")
    action = bot.act(make_game("othello", size=6), state)

A PPO policy is tied to the game and the parameters it was trained on (its MLP reads the
flattened observation of one board size); the sidecar records both and the agent refuses any
other game. The weights file holds only the policy's tensors (``weights.save``, never sb3's
pickled zip): the policy is rebuilt from the sidecar's architecture and loaded with
``weights_only=True``. The move is the most probable legal action (``deterministic=True``) or a
draw from the masked distribution with the agent's seeded generator.

Importing this module does not import torch; it is needed at the first move.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
from gymnasium import spaces

from envs import make_game
from envs.core import rng as R
from envs.episode import observation_box
from envs.game import Game

from ..base import Agent, AgentError, check_option, register
from . import weights as W


def build_policy(game, architecture: dict):
    """An untrained ``MaskableActorCriticPolicy`` for ``game`` with the given ``net_arch``."""
    W.require_torch()
    try:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:
        raise AgentError(f"the ppo agent needs sb3-contrib, which is not installed: {W.INSTALL_HINT}") from None
    return MaskableActorCriticPolicy(
        observation_box(game),
        spaces.Discrete(game.num_actions),
        lr_schedule=lambda _: 0.0,
        net_arch=list(architecture["net_arch"]),
    )


def policy_meta(game, architecture: dict, training: dict) -> dict:
    """The sidecar fields of a PPO policy for ``game`` (see ``weights``)."""
    return {
        "kind": "ppo",
        "game": game.name,
        "params": dict(game.params),
        "architecture": architecture,
        "observation_encoding": 1,  # game.observation as the Gymnasium env gives it
        "observation_shape": list(game.observation(game.initial_state(seed=0), 0).shape),
        "training": training,
        "evaluation": {},
    }


@register("ppo")
class PPOAgent(Agent):
    """A MaskablePPO policy. Options: ``path`` (default: the shipped ``ppo_<game><size>.pt``),
    ``deterministic`` (most probable move, else sampled), torch ``threads``."""

    plays = "the game and parameters its weights were trained on (shipped or path=)"
    summary = "a MaskablePPO policy network, for the game and size its weights were trained on"

    def __init__(self, path=None, deterministic: bool = True, threads: int = 1, seed=None):
        super().__init__(seed=seed)
        if path is not None and not isinstance(path, str) and not hasattr(path, "__fspath__"):
            raise AgentError(f"path={path!r}: expected a path to a .pt weights file or None")
        if not isinstance(deterministic, (bool, np.bool_)):
            raise AgentError(f"deterministic={deterministic!r}: expected True or False")
        self.path = None if path is None else str(path)
        self.deterministic = bool(deterministic)
        self.threads = check_option("threads", threads, int, 1)
        self._policy = None
        self._meta = None

    @classmethod
    def from_policy(cls, policy, game, deterministic: bool = False, seed=None) -> PPOAgent:
        """Wrap a live policy (a frozen copy in a training pool) without going through a file."""
        agent = cls(deterministic=deterministic, seed=seed)
        agent._policy = policy
        agent._meta = {"game": game.name, "params": dict(game.params)}
        return agent

    def __getstate__(self):
        state = self.__dict__.copy()
        if self.path is not None:
            state["_policy"] = state["_meta"] = None  # rebuilt from the file where it is used
        return state

    def _load(self, game):
        torch = W.require_torch()
        torch.set_num_threads(self.threads)
        tag = f"{game.name}{game.params.get('size', '')}"  # shipped as ppo_othello6.pt, ppo_calculation.pt
        path = self.path if self.path is not None else W.shipped(tag, kind="ppo")
        tensors, meta = W.load(path, kind="ppo")
        try:
            trained = make_game(meta.get("game"), **meta.get("params", {}))
        except (TypeError, ValueError) as exc:
            raise W.WeightsError(f"weights {str(path)!r}: the sidecar names no playable game ({exc})") from None
        arch = W.architecture(path, meta)
        try:
            policy = build_policy(trained, arch)
        except (TypeError, ValueError, RuntimeError) as exc:
            if isinstance(exc, AgentError):
                raise
            raise W.WeightsError(f"weights {str(path)!r}: cannot build the architecture {arch!r}: {exc}") from None
        try:
            policy.load_state_dict(tensors)
        except RuntimeError as exc:
            raise W.WeightsError(f"weights {str(path)!r} do not fit their architecture: {exc}") from None
        policy.set_training_mode(False)
        self._policy, self._meta = policy, meta

    def _path_for(self, game):
        """The weights file this agent would play ``game`` with: ``path``, or the shipped one."""
        if self.path is not None:
            return self.path
        return str(W.WEIGHTS_DIR / f"ppo_{game.name}{game.params.get('size', '')}.pt")

    def _trained_on(self, game):
        """``(game name, params)`` the weights were trained on, from the loaded policy or else
        the sidecar alone (no torch); an unreadable or missing file raises ``WeightsError``."""
        if self._meta is not None:
            return self._meta["game"], self._meta["params"]
        path = self._path_for(game)
        if not os.path.isfile(path) and self.path is not None:
            raise W.WeightsError(f"weights file {path!r} does not exist")
        if not os.path.isfile(path):
            raise W.WeightsError(
                f"no shipped ppo weights for {game.name} {dict(game.params)} (expected "
                f"{os.path.basename(path)}); train some and pass path="
            )
        meta = W.read_meta(path)
        return meta.get("game"), meta.get("params")

    def applies_to(self, game) -> bool:
        """Whether the weights (shipped for ``game``'s name and size, or ``path``) were trained
        on exactly this game and parameters: a PPO policy reads one board size."""
        try:
            trained = self._trained_on(game)
        except W.WeightsError:
            return False
        return trained == (game.name, dict(game.params))

    def check_game(self, game) -> None:
        if isinstance(game, Game) and not self.applies_to(game):
            name, params = self._trained_on(game)  # a missing or unreadable file raises here
            raise AgentError(f"ppo policy trained on {name} {params} cannot play {game!r}")
        super().check_game(game)

    def check_ready(self, game) -> None:
        """``check_game``, and PyTorch and sb3-contrib importable (without importing them)."""
        self.check_game(game)
        if importlib.util.find_spec("torch") is None:
            W.require_torch()
        if importlib.util.find_spec("sb3_contrib") is None:
            raise AgentError(f"the ppo agent needs sb3-contrib, which is not installed: {W.INSTALL_HINT}")

    def settings(self, game):
        return {**super().settings(game), "path": self._path_for(game)}

    def _check_trained(self, game) -> None:
        if not self.applies_to(game):
            raise AgentError(f"ppo policy trained on {self._meta['game']} {self._meta['params']} cannot play {game!r}")

    def _act(self, game, state) -> int:
        if self._policy is None:
            self._load(game)
            self._check_trained(game)
        import torch

        seat = game.current_player(state)
        obs = torch.from_numpy(game.observation(state, seat)[None])
        mask = game.legal_mask(state)[None]
        with torch.no_grad():
            dist = self._policy.get_distribution(obs, action_masks=mask).distribution
            probs = dist.probs[0].double().numpy()
        legal = np.flatnonzero(mask[0])
        if self.deterministic:
            return int(legal[np.argmax(probs[legal])])
        cumulative = np.cumsum(probs[legal])
        u = R.uniform(self.rng) * cumulative[-1]
        return int(legal[min(np.searchsorted(cumulative, u, side="right"), len(legal) - 1)])


class OpponentPool(Agent):
    """A training opponent that becomes a random member of its pool at every ``reset`` (a new
    episode): fixed agents (random, greedy) and frozen copies of the learner added over time.
    The newest ``max_copies`` copies are kept."""

    name = "pool"

    def __init__(self, members, max_copies: int = 5, seed=None):
        super().__init__(seed=seed)
        self.fixed = list(members)
        self.copies: list = []
        self.max_copies = max_copies
        self.current = self.fixed[0]

    def add_copy(self, agent) -> None:
        self.copies = (self.copies + [agent])[-self.max_copies :]

    def reset(self) -> None:
        members = self.fixed + self.copies
        self.current = members[R.randint(self.rng, len(members))]
        self.current.reset()

    def _act(self, game, state) -> int:
        return self.current.act(game, state)
