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

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import _stepper as K
from . import render
from .core import ParameterError, check_int, shown
from .core.specialise import compiled
from .episode import observation_box, opening_range
from .registry import make_game

MAX_ENVS = 2**31  # games in one batch (the kernels index slots with int64; memory runs out first)


class ArbiterVectorEnv(VectorEnv):
    """``num_envs`` games of one kind (see the module docstring); ``**params`` are rule parameters."""

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
        self.game = make_game(game, **params)
        self.opponent = opponent
        seats = (0, 1, "random") if self.game.num_players == 2 and opponent != "self" else (0,)
        if not any(type(agent_seat) is type(s) and agent_seat == s for s in seats):
            raise ParameterError(f"agent_seat={shown(agent_seat)}: expected one of {', '.join(map(repr, seats))}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ParameterError(
                f"render_mode={shown(render_mode)}: expected one of {self.metadata['render_modes']} or None"
            )
        self.num_envs = n = int(num_envs)
        self.agent_seat = agent_seat
        self.render_mode = render_mode
        self.opening_plies = opening_plies
        self._opening = opening_range(opening_plies, self.game)
        self.single_observation_space = observation_box(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        try:
            self.observation_space = batch_space(self.single_observation_space, n)
            self.action_space = batch_space(self.single_action_space, n)
            self._allocate(n, self.game, num_threads)
        except MemoryError:
            g = self.game
            per_game = g.state_len * 8 + int(np.prod(self.single_observation_space.shape)) * 12 + g.num_actions * 2
            raise ParameterError(
                f"num_envs={n}: {n:,} games of about {per_game:,} bytes each do not fit in memory"
            ) from None
        self._seeded = False
        self._packed = None  # a one-game env's buffers packed in one array (``_pack_one``)

    def _allocate(self, n, g, num_threads) -> None:
        """The kernel's constants and the batch's buffers (``n`` games of ``g``)."""
        self._p = g.kernel_params
        self._kernel = compiled(K, g.spec)
        opponent, agent_seat = self.opponent, self.agent_seat
        seat_mode = K.SEAT_SELF if opponent == "self" else K.SEAT_RANDOM if agent_seat == "random" else agent_seat
        self._cfg = np.zeros(K.CFG_SIZE, dtype=np.int64)  # the kernel's batch constants (CFG_*)
        self._cfg[K.CFG_PLAYERS] = g.num_players
        self._cfg[K.CFG_CAP_REASON] = -1 if g.max_moves_reason is None else g.max_moves_reason
        self._cfg[K.CFG_SEAT_MODE] = seat_mode
        self._cfg[K.CFG_OPENING_MIN], self._cfg[K.CFG_OPENING_MAX] = self._opening
        self._cfg[K.CFG_OBSERVE] = 1
        # the greedy opponent's weights (the greedy agent's defaults); None: the random opponent
        self._weights = g.spec.default_weights(g) if opponent == "greedy" else None
        self._states = np.zeros((n, g.state_len), dtype=np.int64)
        self._rngs = np.zeros((n, 1), dtype=np.uint64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros(n, dtype=np.bool_)
        self._obs = np.zeros((n, *self.single_observation_space.shape), dtype=np.float32)
        self._masks = np.zeros((n, g.num_actions), dtype=np.int8)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._all_rewards = np.zeros((n, g.num_players), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._illegal = np.zeros(n, dtype=np.bool_)
        blocks = _blocks(n, num_threads)
        self._legal = np.zeros((blocks, g.num_actions), dtype=np.int64)  # scratch, a row per thread
        self._child = np.zeros((blocks, g.state_len), dtype=np.int64)  # the greedy opponent's scratch

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_kernel")  # compiled functions do not pickle; rebuilt from the game's spec
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._kernel = compiled(K, self.game.spec)

    def _pack_one(self, external: bool = False, observe: bool = True) -> np.ndarray:
        """Move a one-game env's buffers into one int64 array (``_stepper.step_one``) and
        keep views of it as the buffers, so both paths see the same memory. Returns the array.
        ``external``: the opponent is a Python object (``envs.episode.Episode``) instead of the
        compiled one; ``observe=False``: steps write no observation or mask."""
        if self.num_envs != 1:
            raise ParameterError("_pack_one: only a one-game env packs its buffers")
        self._cfg[K.CFG_EXTERNAL] = int(external)
        self._cfg[K.CFG_OBSERVE] = int(observe)
        parts = [
            ("cfg", self._cfg),
            ("seats", self._seats),
            ("rng", self._rngs),
            ("legal", self._legal),
            ("state", self._states),
            ("rewards", self._all_rewards),
            ("weights", np.zeros(0) if self._weights is None else self._weights),
            ("child", self._child),
            ("mask", self._masks),
            ("obs", self._obs),
        ]
        words = [-(-a.nbytes // 8) for _, a in parts]
        one = np.zeros(K.ONE_HEADER + sum(words), dtype=np.int64)
        start = K.ONE_HEADER
        for k, ((_, a), n) in enumerate(zip(parts, words)):
            one[2 * k], one[2 * k + 1] = start, a.size
            view = one[start : start + n].view(a.dtype)[: a.size].reshape(a.shape)
            view[...] = a
            start += n
            parts[k] = view
        (
            self._cfg,
            self._seats,
            self._rngs,
            self._legal,
            self._states,
            self._all_rewards,
            weights,
            self._child,
            self._masks,
            self._obs,
        ) = parts
        self._weights = None if self._weights is None else weights
        self._packed = one
        return one

    def reset(self, *, seed=None, options=None):
        """Reset every slot (or those in ``options["reset_mask"]``); an int seed reseeds all slots."""
        if seed is not None or not self._seeded:
            if seed is not None and (
                isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0
            ):
                raise ParameterError(
                    f"seed={shown(seed)}: expected one integer >= 0 (slot i gets its own derived stream)"
                )
            self._rngs[:, 0] = np.random.SeedSequence(seed).generate_state(self.num_envs, dtype=np.uint64)
            self._seeded = True
        which = np.ones(self.num_envs, dtype=np.bool_)
        if options and "reset_mask" in options:
            which = np.asarray(options["reset_mask"], dtype=np.bool_)
            if which.shape != (self.num_envs,):
                raise ParameterError(f"reset_mask of shape {which.shape}: expected ({self.num_envs},) booleans")
        if self._packed is None:  # the last step's arrays are the caller's now: keep them intact
            self._obs, self._masks = self._obs.copy(), self._masks.copy()
        reset = self._kernel.reset_parallel if self._legal.shape[0] > 1 else self._kernel.reset
        reset(
            self._p,
            self._cfg,
            self._states,
            self._rngs,
            self._seats,
            which,
            self._pending,
            self._obs.reshape(self.num_envs, -1),
            self._masks,
            self._legal,
            self._weights,
            self._child,
        )
        if self._packed is None:
            return self._obs, {"action_mask": self._masks, "agent_seat": self._seats.copy()}
        return self._obs.copy(), {"action_mask": self._masks.copy(), "agent_seat": self._seats.copy()}

    def step(self, actions):
        self._advance(actions, final=None)
        obs, masks = self._obs, self._masks  # the step's own arrays (see _advance)
        if self._packed is not None:
            obs, masks = obs.copy(), masks.copy()
        info = {
            "action_mask": masks,
            "illegal_action": self._illegal.copy(),
            "agent_seat": self._seats.copy(),
            "rewards": self._all_rewards.copy(),
        }
        return obs, self._rewards.copy(), self._terminated.copy(), self._truncated.copy(), info

    def _advance(self, actions, final=None):
        """One compiled step of every slot into the env's buffers; with ``final`` (an (N, obs
        size) float32 array) a finished game restarts in the same step and leaves its last
        observation in ``final`` (stable-baselines3's autoreset, ``envs.sb3``)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ParameterError(
                f"actions of shape {actions.shape} and dtype {actions.dtype}: expected ({self.num_envs},) integers"
            )
        if not self._seeded:
            raise ParameterError("step() before reset(): call reset() first")
        if self._packed is None:
            # Fresh arrays for what a step hands out: the kernel writes every cell of them, so
            # the caller owns the observations and masks returned, without a copy of the batch
            # (Calculation at N=1,024: 10 MB of observations, a third of a step to copy).
            self._obs = np.empty_like(self._obs)
            self._masks = np.empty_like(self._masks)
        flat = self._obs.reshape(self.num_envs, -1)
        step = self._kernel.step_parallel if self._legal.shape[0] > 1 else self._kernel.step
        self._cfg[K.CFG_SAME_STEP] = 0 if final is None else 1
        step(
            self._p,
            self._cfg,
            self._states,
            self._rngs,
            self._seats,
            actions.astype(np.int64, copy=False),
            self._pending,
            flat,
            self._rewards,
            self._all_rewards,
            self._terminated,
            self._truncated,
            self._illegal,
            self._masks,
            self._legal,
            flat if final is None else final,
            self._weights,
            self._child,
        )

    def action_masks(self) -> np.ndarray:
        """(N, A) bool legal-action masks (sb3-contrib convention)."""
        return self._masks.astype(bool)

    def states(self) -> np.ndarray:
        """A copy of the N game states (for inspection with ``self.game``)."""
        return self._states.copy()

    def render(self):
        """A tuple with one picture (or text board) per slot."""
        if self.render_mode == "ansi":
            return tuple(render.ansi(self.game, s) for s in self._states)
        if self.render_mode == "rgb_array":
            return tuple(render.rgb(self.game, s) for s in self._states)
        return None


def _blocks(num_envs: int, num_threads) -> int:
    """How many blocks of games one step runs in parallel (one per thread)."""
    import numba

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
