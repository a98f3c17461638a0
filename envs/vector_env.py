"""A batch of N games against the random opponent, stepped by one compiled call per step.

    import gymnasium, envs
    vec = gymnasium.make_vec("Othello-v0", num_envs=256, vectorization_mode="vector_entry_point")
    obs, info = vec.reset(seed=0)                       # obs: (256, 3, 8, 8) float32
    actions = policy(obs, info["action_mask"])          # masks: (256, 65) int8
    obs, rewards, terminated, truncated, info = vec.step(actions)

Each game behaves as one ``envs.gym_env.ArbiterEnv`` with ``opponent="random"`` (same spaces,
rewards, illegal-action rule and truncation), with these differences, all for speed:

* the opponent is ``"random"`` (uniform over the legal moves) or ``"greedy"`` (the greedy agent's
  policy with its default weights), played inside the compiled step, its random draws taken from
  the slot's stream (use ``vectorization_mode="sync"`` for another opponent);
* autoreset is Gymnasium's ``NEXT_STEP`` mode: the step that ends a game returns its final
  observation; the next step starts a new episode in that slot, ignores its action and returns
  reward 0. The mask of a finished slot is all ones (any action is ignored, and masked samplers
  need a non-empty mask), as in ``vectorization_mode="sync"`` and ``"async"``, whose Gymnasium
  env hands out the same mask on its last step; ``info["action_mask"]`` is otherwise the
  legal-action mask;
* randomness comes from one SplitMix64 stream per slot seeded from ``reset(seed=...)``, so slot
  i replays identically whatever the batch size;
* ``opening_plies=k`` (or ``(fewest, most)``, a count drawn per episode) starts every episode
  after that many uniformly random plies from the standard position, drawn from the slot's
  stream, before the seats are dealt: a policy trained from one start position learns lines
  for that position, and random openings make it meet others (an opening that ends the game
  is dealt again). The default, 0, is the standard start.

``num_threads=k`` steps the batch as k blocks of games on numba's threads, each block with its own
scratch, so the games played are the same for every k. It pays for big batches: at 1,024 games on
two cores a step took 1.5-2.7x less time in a loop of steps alone, and 1.0-2.3x less with a
policy evaluated between steps (docs/benchmarks.md). Two costs keep the default at 1. numba's GNU
OpenMP workers spin after each step for milliseconds (through the whole of a 5 ms pause here), so
in a training loop the second core stays busy while the policy runs;
``GOMP_SPINCOUNT=10000`` in the environment before the first threaded step (in the shell, or
``os.environ``) ends the spin within a fraction of a millisecond at the same step times. And GNU
OpenMP is not fork-safe: start worker processes with "spawn" (or before the first threaded
step), and step one vector env per Python thread.

Every step writes into new observation and mask arrays and hands those out, so the caller owns
them (nothing later writes into them) and the batch is never copied.

``info`` holds ``action_mask`` (N, A) int8, ``illegal_action`` (N,) bool, ``agent_seat`` (N,) and
``rewards`` (N, num_players): every seat's reward this step.

Self-play (``opponent="self"``), for training one policy on both seats of two-player games in
batches, as pgx and OpenSpiel's ``rl_environment`` do: there is no opponent, every step plays the
action of the seat to move, ``info["agent_seat"]`` is the seat to move next (whose observation,
from its own point of view, and mask are returned), and the reward is that of the seat that just
moved (its return when its move ended the game, else 0; ``info["rewards"]`` has both seats'). At a
game's end ``agent_seat`` stays the seat that made the last move, so the final observation and the
reward belong to the same seat.
"""

from __future__ import annotations

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import render
from .core import ParameterError, check_int, shown
from .episode import Buffers, check_render_mode, check_seat, observation_box, opening_range, resolve_game, too_many

MAX_ENVS = 2**31  # games in one batch (the kernels index slots with int64; memory runs out first)


class ArbiterVectorEnv(VectorEnv):
    """``num_envs`` games of one kind (see the module docstring): ``game`` is a ``Game`` or a
    game's name with its rule parameters as ``**params``. The batch's arrays are ``buffers``
    (``envs.episode.Buffers``), the type the one-game envs step too."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "rgb_array"]}

    def __init__(
        self,
        num_envs=64,
        game="gomoku",
        opponent="random",
        agent_seat=0,
        render_mode=None,
        num_threads=1,
        opening_plies=0,
        **params,
    ):
        check_int("num_envs", num_envs, 1, MAX_ENVS)
        if opponent not in ("random", "greedy", "self"):
            raise ParameterError(
                f"opponent={shown(opponent)}: the vector env plays the compiled 'random' or 'greedy' opponent or "
                "'self' (self-play); use gymnasium.make_vec(..., vectorization_mode='sync') for other opponents"
            )
        self.game = resolve_game(game, params)
        self.opponent = opponent
        self.agent_seat = check_seat(agent_seat, self.game, self_play=opponent == "self")
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.num_envs = n = int(num_envs)
        self.opening_plies = opening_plies
        opening = opening_range(opening_plies, self.game)
        self.single_observation_space = observation_box(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        try:
            self.observation_space = batch_space(self.single_observation_space, n)
            self.action_space = batch_space(self.single_action_space, n)
            self.buffers = Buffers(self.game, n, opponent, agent_seat, opening, _blocks(n, num_threads))
        except MemoryError:
            raise too_many(self.game, n) from None
        self._seeded = False

    def reset(self, *, seed=None, options=None):
        """Reset every slot (or those in ``options["reset_mask"]``); an int seed reseeds all slots."""
        b = self.buffers
        if seed is not None or not self._seeded:
            b.seed(seed)
            self._seeded = True
        which = np.ones(self.num_envs, dtype=np.bool_)
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], dtype=np.bool_)
            if which.shape != (self.num_envs,):
                raise ParameterError(f"reset_mask of shape {which.shape}: expected ({self.num_envs},) booleans")
        b.obs, b.masks = b.obs.copy(), b.masks.copy()  # the last step's arrays are the caller's now
        b.reset(which)
        return b.obs, {"action_mask": b.masks, "agent_seat": b.seats.copy()}

    def step(self, actions):
        self.advance(actions)
        b = self.buffers
        info = {
            "action_mask": b.masks,  # the step's own arrays (see ``advance``)
            "illegal_action": b.illegal.copy(),
            "agent_seat": b.seats.copy(),
            "rewards": b.all_rewards.copy(),
        }
        return b.obs, b.rewards.copy(), b.terminated.copy(), b.truncated.copy(), info

    def advance(self, actions, final=None) -> None:
        """One compiled step of every slot into ``buffers``, whose ``obs`` and ``masks`` are new
        arrays; with ``final`` (an (N, obs size) float32 array) a finished game restarts in the
        same step and leaves its last observation in ``final`` (stable-baselines3's autoreset,
        ``envs.sb3``)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ParameterError(
                f"actions of shape {actions.shape} and dtype {actions.dtype}: expected ({self.num_envs},) integers"
            )
        if not self._seeded:
            raise ParameterError("step() before reset(): call reset() first")
        b = self.buffers
        # Fresh arrays for what a step hands out: the kernel writes every cell of them, so the
        # caller owns the observations and masks returned, without a copy of the batch
        # (Calculation at N=1,024: 10 MB of observations, a third of a step to copy).
        b.obs = np.empty_like(b.obs)
        b.masks = np.empty_like(b.masks)
        b.step(actions.astype(np.int64, copy=False), final)

    def action_masks(self) -> np.ndarray:
        """(N, A) bool legal-action masks (sb3-contrib convention)."""
        return self.buffers.masks.astype(bool)

    def states(self) -> np.ndarray:
        """A copy of the N game states (for inspection with ``self.game``)."""
        return self.buffers.states.copy()

    def render(self):
        """A tuple with one picture (or text board) per slot."""
        if self.render_mode == "ansi":
            return tuple(render.ansi(self.game, s) for s in self.buffers.states)
        if self.render_mode == "rgb_array":
            return tuple(render.rgb(self.game, s) for s in self.buffers.states)
        return None


def _blocks(num_envs: int, num_threads) -> int:
    """How many blocks of games one step runs in parallel (one per thread)."""
    available = numba.config.NUMBA_NUM_THREADS
    if (
        not isinstance(num_threads, (int, np.integer))
        or isinstance(num_threads, bool)
        or not 1 <= num_threads <= available
    ):
        raise ParameterError(
            f"num_threads={shown(num_threads)}: expected an integer from 1 to {available} "
            "(numba's thread count, NUMBA_NUM_THREADS)"
        )
    return min(int(num_threads), num_envs)
