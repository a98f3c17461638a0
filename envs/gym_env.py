"""One Gymnasium environment for every Arbiter game, built only on the Game protocol.

    import gymnasium, envs
    env = gymnasium.make("Go-v0", size=9, komi=7.5, opponent="random", agent_seat="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))

A two-player game becomes a single-agent environment: the learner plays ``agent_seat`` and an
``opponent`` answers inside ``step`` until the learner is to move again (or the game is over).
Calculation is a patience and needs no opponent.

Spaces. ``action_space = Discrete(game.num_actions)`` in the game's flat action ids (each game's
module docstring and ``docs/games/`` give the table); ``observation_space`` is a ``Box`` of
``game.observation(state, agent_seat)``, planes from the learner's point of view.
``info["action_mask"]`` (``np.int8``, 1 = legal) and ``action_masks()`` follow sb3-contrib's
MaskablePPO convention. On the step that ends the episode the mask is all ones: no action of it
will be played (the next call must be ``reset``), and in a Gymnasium vector env of this env
(``vectorization_mode="sync"`` or ``"async"``, autoreset ``NEXT_STEP``) the action sampled from
that mask is the one the autoreset step ignores, so the mask must let any masked sampler draw
(an empty one makes ``rng.choice`` raise and a masked softmax divide by zero). The compiled
vector env (``"vector_entry_point"``) hands out the same all-ones mask for a finished slot, so
one sampling line works in all three modes.

Rewards. 0 on every step but the last; then the learner's return (+1 win, -1 loss, 0 draw; in
Calculation 1 won, 0 lost). An illegal action (out of range, or not legal in the position) ends
the episode with -1 and ``info["illegal_action"] = True``, so random-action checkers can drive
the env; ``illegal_action="raise"`` raises ``envs.IllegalActionError`` instead.

Episode end. ``terminated`` when the game ends by its rules. ``truncated`` when it ends because it
reached ``game.max_moves`` plies (LOA and Go have such a cap): the ply count is not part of the
observation, so for the learner the cap is a time limit, exactly what truncation means. The
reward is still the game's result at the cap (Go scores the board, LOA calls it a draw).
A game can be over before the learner's first move (``agent_seat=1`` and ``max_moves=1``: the
opponent's opening move reaches the cap). ``reset`` then hands out the finished game's all-ones
mask, and the first step ends the episode as any last step does (``terminated`` or
``truncated``, the learner's return as reward), its action ignored and not called illegal.

Determinism. ``reset(seed=s)`` seeds ``self.np_random``; from it come the deal, the learner's seat
(``agent_seat="random"``), the random opening (``opening_plies``) and the opponent's seed, so the
same seed gives the same episode for the same learner actions. An opponent given as a spec string (``"alphabeta:depth=3"``) is
rebuilt with ``agents.make(spec, seed=...)`` at every reset; an opponent given as an object keeps
its own random stream (it is only ``reset()``).

Speed. Every step is the compiled stepper's (``envs._stepper``, the one the vector and AEC envs
use): the learner's move, the opponent's replies, the reward, the next observation and the mask,
written into preallocated buffers in one call. With ``opponent="random"`` or ``"greedy"`` (and
in Calculation, which has no opponent) the replies are compiled too, their random draws (the
random move, the greedy player's ties) taken from the episode's own SplitMix64 stream; the
greedy replies are the greedy agent's moves (``agents.make("greedy")``, default weights). Any
other opponent (an agent object, another spec string, a greedy player with other weights) is
asked in Python between two compiled calls, with a copy of the position; the env never
validates its own position again, so a step validates it at most once: in the opponent's
``act``, where an agent's input is checked.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from . import policies, render
from ._stepper import AWAIT, TERMINATED, TRUNCATED
from .core import IllegalActionError, ParameterError, shown
from .core import kernel as C
from .core import rng as R
from .core.rng import SEED_BOUND
from .core.specialise import compiled
from .episode import Buffers, Episode, check_render_mode, check_seat, observation_box, opening_range, resolve_game
from .render import HumanView


def resolve_agent(opponent, seed):
    """An agent object from an agent object (returned as is) or a spec string for ``agents.make``.

    The layers import in one direction, ``envs`` <- ``agents`` <- ``tournaments``, and this is the
    one deliberate exception: a spec string can only become an agent through the registry in
    ``agents``, so ``agents`` is imported here, when a spec string must be resolved, never when
    ``envs`` is imported (``agents.learned.ppo`` imports ``envs.gym_env``). Passing an agent object
    needs no import at all.
    """
    if isinstance(opponent, str):
        import agents  # the documented late binding (see above); tests/test_layers.py allows only this one

        return agents.make(opponent, seed=seed)
    if callable(getattr(opponent, "act", None)):
        return opponent
    raise ParameterError(
        f"opponent={shown(opponent)}: expected an agent spec string such as 'random' or "
        "an object with act(game, state) -> action"
    )


class ArbiterEnv(gym.Env):
    """Single-agent Gymnasium env of any Arbiter game (see the module docstring).

    Args:
        game: a ``Game`` (``envs.make_game("go", size=9)``), or a game name for ``envs.make_game``
            (``"loa"``, ``"othello"``, ``"gomoku"``, ``"go"``, ``"calculation"``) with its rule
            parameters as ``**params``.
        opponent: agent spec string or agent object playing the other seat (two-player games).
        agent_seat: 0, 1 or ``"random"`` (drawn per episode from the reset seed).
        opening_plies: random plies (uniform over the legal moves) played from the start position
            at every reset before the learner's first move, k or ``(fewest, most)`` (a count
            drawn per episode); 0, the default, is the standard start. An opening that ends the
            game is dealt again.
        illegal_action: ``"lose"`` (end the episode with reward -1) or ``"raise"``.
        render_mode: ``"ansi"``, ``"rgb_array"``, ``"human"`` or None.
        **params: the game's rule parameters (``size=9, komi=7.5``, ``rules="openspiel"``, ...).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}

    def __init__(
        self,
        game="gomoku",
        opponent="random",
        agent_seat=0,
        illegal_action="lose",
        render_mode=None,
        opening_plies=0,
        **params,
    ):
        self.game = resolve_game(game, params)
        self.opening_plies = opening_plies
        self._opening = opening_range(opening_plies, self.game)
        two_players = self.game.num_players == 2
        self.agent_seat = check_seat(agent_seat, self.game)
        if illegal_action not in ("lose", "raise"):
            raise ParameterError(f"illegal_action={shown(illegal_action)}: expected 'lose' or 'raise'")
        self.illegal_action = illegal_action
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = observation_box(self.game)
        self._state = None  # a view of the stepper's buffers (``_episode.state``) once reset
        self._seat = 0
        self._done = True
        self._previous = None
        self._opponent_spec = None
        self._next_opponent = None  # set mid-episode: takes over at the next reset
        self._episode = None
        if two_players:
            self.set_opponent(opponent)
        else:
            self._fuse()

    # -- opponents ---------------------------------------------------------------------------
    def set_opponent(self, opponent) -> None:
        """Replace the opponent from the next ``reset`` on (self-play pools swap opponents here)."""
        if self.game.num_players == 1:
            raise ParameterError(f"{self.game.name} is a one-player game: it has no opponent")
        self._next_opponent = (resolve_agent(opponent, seed=None), opponent)  # fails now, not at reset
        if self._done:  # no episode under way: nothing to finish first
            self._switch_opponent()

    def _switch_opponent(self) -> None:
        agent, opponent = self._next_opponent
        self._next_opponent = None
        self._opponent = agent
        self._opponent_spec = opponent if isinstance(opponent, str) else None
        compiled_reply = isinstance(opponent, str) and opponent in ("random", "greedy")
        kind = opponent if compiled_reply else None
        if self._episode is None or self._kind != kind:  # one agent object for another: same stepper
            self._fuse(kind)

    def _fuse(self, opponent="random") -> None:
        """The compiled stepper of one game (see Speed in the module docstring); ``opponent``
        None: an opponent object, asked in Python."""
        buffers = Buffers(self.game, 1, opponent or "random", self.agent_seat, self._opening)
        self._episode = Episode(buffers, external=opponent is None)
        self._kind = opponent

    @property
    def opponent(self):
        return self._opponent if self.game.num_players == 2 else None

    @property
    def state(self):
        """A copy of the current position as a Game-protocol state (None before the first
        reset): what wrappers and agents need to look past the observation."""
        return None if self._state is None else self._state.copy()

    # -- the Gymnasium API -------------------------------------------------------------------
    def __getstate__(self):
        state = self.__dict__.copy()
        state["_view"] = None  # a window does not travel
        state["_state"] = self._state is not None  # a view of the stepper's buffers: rebound
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._state = self._episode.state if state["_state"] else None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if self._next_opponent is not None:
            self._switch_opponent()
        e = self._episode
        if not e.external:
            e.reset(int(self.np_random.integers(0, SEED_BOUND)))
        else:
            deal_seed, opponent_seed = (int(x) for x in self.np_random.integers(0, SEED_BOUND, size=2))
            seat = int(self.np_random.integers(2)) if self.agent_seat == "random" else self.agent_seat
            e.start(self.game.initial_state(seed=deal_seed), seat)
            if self._opening[1] > 0:
                self._play_opening(e.state)
            if self._opponent_spec is not None:
                self._opponent = resolve_agent(self._opponent_spec, seed=opponent_seed)
            if callable(getattr(self._opponent, "reset", None)):
                self._opponent.reset()
        self._state = e.state  # a view: the stepper plays in place; ``state`` hands out copies
        self._seat = e.seat
        self._done = False
        self._previous = None
        if e.external:
            if e.awaiting():
                self._replies()
            else:
                e.observe()
        self._render_human()
        return e.obs.copy(), {"action_mask": e.mask.copy(), "agent_seat": self._seat}

    def step(self, action):
        if self._state is None or self._done:
            raise gym.error.ResetNeeded("step() called on a finished episode: call reset() first")
        e = self._episode
        mask = e.mask
        if type(action) is int or (isinstance(action, np.integer) and not isinstance(action, np.bool_)):
            legal = 0 <= action < mask.shape[0] and mask.item(action) == 1  # .item: no numpy scalar
        else:
            legal = False
        if not legal and self.illegal_action == "raise":
            raise IllegalActionError(
                f"action {action!r} is not legal here: legal actions are {np.flatnonzero(mask).tolist()}"
            )
        if self.render_mode is not None:
            self._previous = self._state.copy()
        done = e.step(int(action) if legal else -1)
        if done & AWAIT:
            done = self._replies()
        elif self._previous is not None and self._state[C.H_PLY] > self._previous[C.H_PLY] + 1:
            # the compiled opponent replied in the same call: the last move came after the learner's
            self._previous = self.game.unchecked.apply(self._previous, int(action))
        terminated, truncated = (done & TERMINATED) != 0, (done & TRUNCATED) != 0
        self._done = terminated or truncated
        if self.render_mode == "human":
            self._render_human()
        # a finished game's mask from the stepper is all ones already (see the module docstring)
        info = {"action_mask": mask.copy(), "illegal_action": not legal}
        return e.obs.copy(), e.rewards.item(self._seat), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Legal actions as a bool vector (sb3-contrib MaskablePPO calls this); all ones before
        the first reset and once the episode is over (see the module docstring)."""
        if self._state is None:
            return np.ones(self.game.num_actions, dtype=bool)
        if self._done:
            return np.ones(self.game.num_actions, dtype=bool)
        return self._episode.mask.astype(bool)

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to gymnasium.make")
            return None
        if self.render_mode == "human":
            self._render_human()
            return None
        if self.render_mode == "ansi":
            return render.ansi(self.game, self._state, self._last_move())
        return render.rgb(self.game, self._state, self._previous)

    # -- internals ---------------------------------------------------------------------------
    def _play_opening(self, state) -> None:
        """The random opening of ``opening_plies`` in ``state``, in place: the compiled one of the
        stepper (``envs.policies.random_plies``), its draws seeded from ``np_random``."""
        game, (lo, hi) = self.game, self._opening
        rng = R.new_rng(int(self.np_random.integers(0, SEED_BOUND)))
        scratch = np.empty(game.num_actions, dtype=np.int64)
        compiled(policies, game.spec).random_plies(state, game.kernel_params, rng, lo, hi, scratch)

    def _replies(self) -> int:
        """Ask the opponent object for its moves until the learner is to move or the game is
        over, each played by the stepper (``reply``), which finishes the step; its bits."""
        e, game = self._episode, self.game
        while True:
            action = self._opponent.act(game, self._state.copy())  # a copy: the position is the env's
            if self.render_mode is not None:
                self._previous = self._state.copy()
            done = e.reply(game.check_action(action))
            if done < 0:
                raise IllegalActionError(
                    f"the opponent {self._opponent!r} played action {action!r}, which is not "
                    f"legal here ({game.to_text(self._state)!r})"
                )
            if not done & AWAIT:
                return done

    def _last_move(self):
        """Notation of the last ply, written from the position it was played in (for ``ansi``)."""
        if self._previous is None:
            return None
        return self.game.action_to_str(self._previous, int(self._state[C.H_LAST]))

    def _render_human(self) -> None:
        if self.render_mode == "human" and self._state is not None:
            if getattr(self, "_view", None) is None:
                self._view = HumanView(self.metadata["render_fps"])
            self._view.show(self.game, self._state, self._previous, self._last_move())

    def close(self):
        view = getattr(self, "_view", None)
        if view is not None:
            view.close()
        super().close()
