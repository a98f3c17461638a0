"""The episode rules every framework env shares, the Python side of the compiled stepper
(``envs._stepper``): the game an env is given, its seat and render checks, the observation
space, the action mask, when a game is cut off rather than ended, the random opening an episode
starts from, ``Buffers`` (the stepper's buffers of N games) and ``Episode`` (one game of them).

The Gymnasium env, the vector env, PettingZoo's AEC envs and ``envs.sb3`` all expose a game as
episodes and all step them in the stepper; what an episode is (its spaces, its mask, its
truncation, its opening, its rewards, an illegal action) is written there and here once, so the
frameworks cannot drift apart. The envs compose through these pieces, not through each other:
each takes the ``Game`` it is given (its parameters validated once, by ``envs.make_game``), and
the Gymnasium and AEC envs step an ``Episode`` of a one-game ``Buffers``, the type the vector
env steps N games in.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from . import _stepper as K
from .core import ParameterError, shown
from .core import kernel as C
from .core.specialise import compiled
from .game import Game
from .registry import make_game


def resolve_game(game, params) -> Game:
    """The env's game: ``game`` itself when it is a ``Game`` (its parameters were validated when
    it was made, so none may be given again), else ``envs.make_game(game, **params)``."""
    if isinstance(game, Game):
        if params:
            raise ParameterError(
                f"{', '.join(f'{k}=' for k in params)}: game={game.name!r} is already made; its rule "
                "parameters go to envs.make_game, or pass the game's name with them"
            )
        return game
    return make_game(game, **params)


def check_seat(agent_seat, game, self_play: bool = False):
    """``agent_seat`` if the learner can sit there: 0, 1 or ``"random"`` in a two-player game
    against an opponent; only 0 in a one-player game or in self-play (the policy plays every
    seat). Else a ``ParameterError`` listing the seats."""
    seats = (0, 1, "random") if game.num_players == 2 and not self_play else (0,)
    if not any(type(agent_seat) is type(s) and agent_seat == s for s in seats):
        raise ParameterError(f"agent_seat={shown(agent_seat)}: expected one of {', '.join(map(repr, seats))}")
    return agent_seat


def check_render_mode(render_mode, modes):
    """``render_mode`` if it is one of the env's ``modes`` (its ``metadata["render_modes"]``) or
    None, else a ``ParameterError`` listing them."""
    if render_mode is not None and render_mode not in modes:
        raise ParameterError(f"render_mode={shown(render_mode)}: expected one of {modes} or None")
    return render_mode


def observation_box(game) -> spaces.Box:
    """The ``Box`` holding ``game.observation``: shape and dtype from a sample, bounds from the game.

    ``game.observation_bounds`` gives ``(low, high)`` where a plane is not 0/1 (Calculation
    counts unseen copies of a rank, 0..4); binary planes need nothing.
    """
    sample = game.observation(game.initial_state(seed=0), 0)
    low, high = game.observation_bounds
    return spaces.Box(low=low, high=high, shape=sample.shape, dtype=sample.dtype)


def action_mask(game, state) -> np.ndarray:
    """Legal actions of ``state`` as an int8 0/1 vector; all ones when the game is over (the
    action that follows the end is never played: see the module docstring)."""
    if game.is_terminal(state):
        return np.ones(game.num_actions, dtype=np.int8)
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[game.legal_actions(state)] = 1
    return mask


def ended_by_max_moves(game, state) -> bool:
    """Whether the game was cut off by ``game.max_moves`` rather than ended by its rules."""
    return game.end_reason(state) == "max_moves"


def opening_range(opening_plies, game) -> tuple:
    """``opening_plies`` (k, or (fewest, most)) as (fewest, most) random plies, checked: an
    opening must end before the game's ``max_moves``."""

    def count(x):
        return isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0

    pair = tuple(opening_plies) if isinstance(opening_plies, (tuple, list)) else None
    if count(opening_plies):
        lo = hi = int(opening_plies)
    elif pair is not None and len(pair) == 2 and all(count(x) for x in pair) and pair[0] <= pair[1]:
        lo, hi = (int(x) for x in pair)
    else:
        raise ParameterError(
            f"opening_plies={shown(opening_plies)}: expected a count of random plies >= 0, "
            "or a pair (fewest, most) with 0 <= fewest <= most"
        )
    cap = int(game.kernel_params[C.P_MAX_MOVES])
    if hi >= cap:
        raise ParameterError(
            f"opening_plies={shown(opening_plies)}: an opening must be shorter than the game's max_moves={cap}"
        )
    return lo, hi


class Buffers:
    """The compiled stepper's buffers of ``num_envs`` games of ``game``, and the calls that step
    them: the one buffer type of the vector env (N games), the Gymnasium env and the AEC env (one
    game each, its buffers packed by ``pack_one``). ``sb3``, the envs and tests read them as
    attributes: ``states`` (N, state_len) int64, ``seats`` (N,), ``obs`` (N, *observation
    shape) float32, ``masks`` (N, A) int8, ``rewards`` (N,) the learner's, ``all_rewards`` (N,
    seats), ``terminated``, ``truncated``, ``illegal``, ``pending`` (N,) bool, ``rngs`` (N, 1)
    uint64 (a SplitMix64 stream per game); ``legal`` and ``child`` are scratch, a row per block
    of games stepped on a thread of its own (``blocks``).

    ``opponent``: ``"random"`` or ``"greedy"`` (compiled into the step) or ``"self"`` (every seat
    the learner's); ``agent_seat`` checked by ``check_seat``; ``opening``: ``(fewest, most)``
    random plies (``opening_range``).
    """

    def __init__(self, game: Game, num_envs: int, opponent="random", agent_seat=0, opening=(0, 0), blocks: int = 1):
        n, g = num_envs, game
        self.game = game
        self.p = g.kernel_params
        self.kernel = compiled(K, g.spec)
        seat_mode = K.SEAT_SELF if opponent == "self" else K.SEAT_RANDOM if agent_seat == "random" else agent_seat
        self.cfg = np.zeros(K.CFG_SIZE, dtype=np.int64)  # the kernel's batch constants (CFG_*)
        self.cfg[K.CFG_PLAYERS] = g.num_players
        self.cfg[K.CFG_CAP_REASON] = -1 if g.max_moves_reason is None else g.max_moves_reason
        self.cfg[K.CFG_SEAT_MODE] = seat_mode
        self.cfg[K.CFG_OPENING_MIN], self.cfg[K.CFG_OPENING_MAX] = opening
        self.cfg[K.CFG_OBSERVE] = 1
        # the greedy opponent's weights (the greedy agent's defaults); None: the random opponent
        self.weights = g.spec.default_weights(g) if opponent == "greedy" else None
        self.states = np.zeros((n, g.state_len), dtype=np.int64)
        self.rngs = np.zeros((n, 1), dtype=np.uint64)
        self.seats = np.zeros(n, dtype=np.int64)
        self.pending = np.zeros(n, dtype=np.bool_)
        self.obs = np.zeros((n, *g.observation_shape), dtype=np.float32)
        self.masks = np.zeros((n, g.num_actions), dtype=np.int8)
        self.rewards = np.zeros(n, dtype=np.float64)
        self.all_rewards = np.zeros((n, g.num_players), dtype=np.float64)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.illegal = np.zeros(n, dtype=np.bool_)
        self.legal = np.zeros((blocks, g.num_actions), dtype=np.int64)  # scratch, a row per thread
        self.child = np.zeros((blocks, g.state_len), dtype=np.int64)  # the greedy opponent's scratch
        self.one = None  # a one-game env's buffers packed in one array (``pack_one``)

    @property
    def num_envs(self) -> int:
        return self.states.shape[0]

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["kernel"]  # compiled functions do not pickle; rebuilt from the game's spec
        state["one"] = None  # the views travel as separate arrays: ``Episode`` packs them again
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.kernel = compiled(K, self.game.spec)

    def seed(self, seed) -> None:
        """One stream per game from ``seed`` (an int >= 0, or None: fresh entropy), game i's the
        same whatever the batch size."""
        if seed is not None and (
            isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0
        ):
            raise ParameterError(f"seed={shown(seed)}: expected one integer >= 0 (slot i gets its own derived stream)")
        self.rngs[:, 0] = np.random.SeedSequence(seed).generate_state(self.num_envs, dtype=np.uint64)

    def reset(self, which: np.ndarray) -> None:
        """A new episode in every game where ``which`` (N bools) is set: its observation and mask
        into ``obs`` and ``masks``."""
        reset = self.kernel.reset_parallel if self.legal.shape[0] > 1 else self.kernel.reset
        reset(
            self.p,
            self.cfg,
            self.states,
            self.rngs,
            self.seats,
            which,
            self.pending,
            self.obs.reshape(self.num_envs, -1),
            self.masks,
            self.legal,
            self.weights,
            self.child,
        )

    def step(self, actions: np.ndarray, final: np.ndarray | None = None) -> None:
        """One compiled step of every game (``actions``: N int64); with ``final`` (N, obs size)
        float32, a finished game restarts in the same step and leaves its last observation there."""
        flat = self.obs.reshape(self.num_envs, -1)
        step = self.kernel.step_parallel if self.legal.shape[0] > 1 else self.kernel.step
        self.cfg[K.CFG_SAME_STEP] = 0 if final is None else 1
        step(
            self.p,
            self.cfg,
            self.states,
            self.rngs,
            self.seats,
            actions,
            self.pending,
            flat,
            self.rewards,
            self.all_rewards,
            self.terminated,
            self.truncated,
            self.illegal,
            self.masks,
            self.legal,
            flat if final is None else final,
            self.weights,
            self.child,
        )

    def pack_one(self, external: bool = False, observe: bool = True) -> np.ndarray:
        """Move a one-game env's buffers into one int64 array (``_stepper.step_one``) and keep
        views of it as the buffers, so both paths see the same memory. Returns the array.
        ``external``: the opponent is a Python object (``Episode``) instead of the compiled one;
        ``observe=False``: steps write no observation or mask."""
        if self.num_envs != 1:
            raise ParameterError(f"pack_one: only a one-game env packs its buffers, not {self.num_envs}")
        self.cfg[K.CFG_EXTERNAL] = int(external)
        self.cfg[K.CFG_OBSERVE] = int(observe)
        names = ("cfg", "seats", "rngs", "legal", "states", "all_rewards", "weights", "child", "masks", "obs")
        parts = [getattr(self, name) for name in names]
        parts[6] = np.zeros(0) if self.weights is None else self.weights
        words = [-(-a.nbytes // 8) for a in parts]
        one = np.zeros(K.ONE_HEADER + sum(words), dtype=np.int64)
        start = K.ONE_HEADER
        for k, (a, n) in enumerate(zip(parts, words)):
            one[2 * k], one[2 * k + 1] = start, a.size
            view = one[start : start + n].view(a.dtype)[: a.size].reshape(a.shape)
            view[...] = a
            start += n
            if names[k] != "weights" or self.weights is not None:
                setattr(self, names[k], view)
        self.one = one
        return one


def too_many(game: Game, n: int) -> ParameterError:
    """The error of a batch of ``n`` games of ``game`` that does not fit in memory."""
    per_game = game.state_len * 8 + int(np.prod(game.observation_shape)) * 12 + game.num_actions * 2
    return ParameterError(f"num_envs={n}: {n:,} games of about {per_game:,} bytes each do not fit in memory")


class Episode:
    """One game of the compiled stepper (``envs._stepper``), as the Gymnasium and AEC envs play it.

    ``buffers`` are a one-game ``Buffers``, packed into one array, so a step is one compiled
    call of three arguments (numba spends 0.1-0.2 us on each argument of a call), and ``state``,
    ``rewards`` (every seat's, this step), ``mask`` and ``obs`` are views of what the stepper
    writes. ``external``: the opponent is a Python object, so a step stops with it to move
    (``AWAIT`` in the bits returned) and ``reply`` plays its answer by the same rules.
    ``observe=False``: steps write no observation or mask (the AEC env observes for the agent
    asking). The position is the env's own: the stepper never validates it again.
    """

    def __init__(self, buffers: Buffers, external: bool = False, observe: bool = True):
        self.buffers = buffers
        self.external = external
        self.observe_steps = observe
        self._bind()

    def _bind(self) -> None:
        b = self.buffers
        self.one = b.pack_one(external=self.external, observe=self.observe_steps)
        self.state, self.rewards, self.mask, self.obs = b.states[0], b.all_rewards[0], b.masks[0], b.obs[0]
        self.seats = b.seats
        kernel, self._p = b.kernel, b.p
        self._step = kernel.step_one if b.weights is None else kernel.step_one_greedy
        self._reply, self._observe = kernel.reply_one, kernel.observe_one

    def __getstate__(self):
        return {"buffers": self.buffers, "external": self.external, "observe_steps": self.observe_steps}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._bind()  # the buffers travelled as separate arrays: packed into one again

    @property
    def seat(self) -> int:
        """The learner's seat (self-play: the seat to move)."""
        return self.seats.item(0)

    def reset(self, seed: int) -> None:
        """A new episode by the stepper's own rules (the compiled opponent's paths): the deal, the
        seat, the opening and the opponent's first replies drawn from a stream seeded ``seed``."""
        b = self.buffers
        b.seed(seed)
        b.reset(np.ones(1, dtype=np.bool_))

    def start(self, state: np.ndarray, seat: int) -> None:
        """Begin an episode at ``state`` (the env's own making: ``initial_state`` and a compiled
        opening) with the learner in ``seat``; ``observe`` or ``reply`` follows."""
        self.state[:] = state
        self.seats[0] = seat
        self.rewards[:] = 0.0

    def step(self, action: int) -> int:
        """The learner's ``action`` (-1: an illegal one); the step's bits (``envs._stepper``)."""
        return self._step(self._p, self.one, action)

    def reply(self, action: int) -> int:
        """The Python opponent's ``action`` after ``AWAIT``; the step's bits, -1 if not legal."""
        return self._reply(self._p, self.one, action)

    def awaiting(self) -> bool:
        """Whether the opponent is to move in a game still going on."""
        s = self.state
        return s.item(C.H_STATUS) == C.ONGOING and s.item(C.H_PLAYER) != self.seats.item(0)

    def observe(self) -> None:
        """The learner's observation and mask of the position (all-ones mask once it is over)."""
        self._observe(self._p, self.one)
