"""One PettingZoo AEC environment for every Arbiter game, in the style of PettingZoo's classic envs.

    from envs.pettingzoo import go_v0
    env = go_v0.env(render_mode="ansi", size=9, komi=7.5)
    env.reset(seed=42)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(observation["action_mask"])
        env.step(action)

Agents are ``"player_0"`` (Black, seat 0, moves first) and ``"player_1"``; Calculation has only
``"player_0"``. ``observe(agent)`` is ``{"observation": game.observation(state, seat),
"action_mask": int8}``; the mask is all zero for the agent not to move and after the game ends.
Rewards are given only at the end: each seat's return (+1 / -1 / 0; Calculation 1 won, 0 lost).
A game that ends by reaching ``max_moves`` (LOA, Go) sets ``truncations`` instead of
``terminations``, as the Gymnasium env does. A ply is one call of the compiled stepper the
Gymnasium and vector envs step with (``envs._stepper``, in self-play), so the rules of an
episode (the action's check, the rewards, the end) are theirs. A game over at ``reset`` (a
game whose start position is already finished) ends there: every agent terminated (or
truncated) with its return as reward, its mask zero, and each takes its dead step.

Illegal moves are handled exactly as PettingZoo classic does, whose ``env()`` wraps its raw env
in ``TerminateIllegalWrapper(illegal_reward=-1)`` (the offender gets -1, the others 0, the game
ends), ``AssertOutOfBoundsWrapper`` and ``OrderEnforcingWrapper``: ours does the same in one layer,
``ClassicWrapper`` (an ``OrderEnforcingWrapper``), with a typed error for an action outside the
action space (``envs.IllegalActionError``). ``raw_env`` itself raises ``envs.IllegalActionError``
on an illegal action.

After the game each agent takes one dead step, ``step(None)`` (another action is PettingZoo's
``ValueError``); a step once every agent has taken it logs PettingZoo's warning and changes
nothing, in ``raw_env`` too, as PettingZoo's ``OrderEnforcingWrapper`` does.

``reset(seed=...)`` determines the deal (Calculation); the board games have no chance.

``layout="classic"`` (the modules of ``envs.pettingzoo.classic``) follows PettingZoo's classic envs
instead, for scripts written for them: agents ``"black_0"`` and ``"white_0"``, observation planes
channels-last ``(H, W, C)``, PettingZoo's parameter names and defaults (the spec's
``classic_params`` and ``classic_defaults``: Go's ``board_size``, 19 by default) and its
``screen_height`` (the rows of the ``rgb_array`` picture, scaled to them; 800 for Go, as there).
Where PettingZoo has the game its observation is PettingZoo's: ``go_v5`` observes
``Box(False, True, (N, N, 17), bool)``, the last 8 boards as two planes each and a colour plane
(``ArbiterAEC._stacked`` says which plane holds what), so a policy trained on
``pettingzoo.classic.go_v5`` reads ours (tests/test_pettingzoo.py plays the same moves in both and
compares every observation). Where the two differ, it is the rules (ours: positional superko by
default, OpenSpiel's with ``rules="openspiel"``; a game scored even is a draw, where go_v5 gives
it to White; ``max_moves``) and the mask after the end, all zeros here where go_v5 offers the
pass to the agent selected.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from . import _game_ops, render
from ._stepper import ILLEGAL, TERMINATED, TRUNCATED
from .core import IllegalActionError, ParameterError, check_int, shown
from .core import kernel as C
from .core.specialise import compiled
from .episode import Buffers, Episode, check_render_mode, observation_box, resolve_game
from .game import Game
from .registry import spec as game_spec
from .render import HumanView

LAYOUTS = ("arbiter", "classic")


class ArbiterAEC(AECEnv, EzPickle):
    """AEC env of any Arbiter game; ``game`` is a ``Game``, or its name with its rule parameters
    as ``**params`` (in the classic layout, PettingZoo's names and defaults: ``_classic_params``)."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": False, "render_fps": 4}

    def __init__(self, game="gomoku", render_mode=None, layout="arbiter", **params):
        EzPickle.__init__(self, game, render_mode, layout, **params)
        super().__init__()
        if layout not in LAYOUTS:
            raise ParameterError(f"layout={shown(layout)}: expected one of {', '.join(map(repr, LAYOUTS))}")
        spec = game.spec if isinstance(game, Game) else game_spec(game)
        self.classic = layout == "classic"
        self._screen_height = None
        if self.classic:
            params = _classic_params(spec, params, made=isinstance(game, Game))
            self._screen_height = params.pop("screen_height")
        self.game = resolve_game(game, params)
        module = (spec.classic or spec.pettingzoo) if self.classic else spec.pettingzoo
        self.metadata = {**self.metadata, "name": module or f"{self.game.name}_v0"}
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        if self.classic and self.game.num_players == 2:
            self.possible_agents = ["black_0", "white_0"]
        else:
            self.possible_agents = [f"player_{seat}" for seat in range(self.game.num_players)]
        self.agents = self.possible_agents[:]
        board = observation_box(self.game)
        self._history = None  # the classic layout's board frames (go_v5), newest first
        if self.classic and spec.classic_frames:
            if len(board.shape) != 3 or board.shape[0] < 2:
                raise ParameterError(
                    f"game {spec.name!r}: classic_frames needs board planes (own stones, the "
                    f"opponent's, ...), not an observation of shape {board.shape}"
                )
            _, rows, columns = board.shape
            self._history = np.zeros((2 * spec.classic_frames, rows, columns), dtype=bool)
            self._frame = np.empty(board.shape, dtype=np.float32)
            # as PettingZoo's go_v5 declares it: Box(False, True, (N, N, 17), bool)
            board = spaces.Box(low=0, high=1, shape=(rows, columns, 2 * spec.classic_frames + 1), dtype=bool)
        elif self.classic and len(board.shape) == 3:
            board = spaces.Box(low=board.low.transpose(1, 2, 0), high=board.high.transpose(1, 2, 0), dtype=board.dtype)
        mask = spaces.Box(0, 1, shape=(self.game.num_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": board, "action_mask": mask}) for a in self.agents}
        self.action_spaces = {a: spaces.Discrete(self.game.num_actions) for a in self.agents}
        self.np_random, _ = seeding.np_random(None)
        self._ops, self._p = compiled(_game_ops, self.game.spec), self.game.kernel_params
        # the compiled stepper of one game in self-play (each ply the mover's), observing nothing
        # itself: ``observe`` answers the agent that asks
        self._episode = Episode(Buffers(self.game, 1, opponent="self"), observe=False)
        self._state = None  # the stepper's position (a view) once reset
        self._previous = None
        self._last_action = None

    @property
    def state(self):
        """A copy of the current position (None before the first reset): the env steps its own
        position without validating it again, so it never hands out the array itself."""
        return None if self._state is None else self._state.copy()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = self.possible_agents.index(agent)
        to_move = (
            agent == self.agent_selection
            and not self.terminations.get(agent, True)
            and not self.truncations.get(agent, True)
        )
        planes = np.empty(self.game.observation_shape, dtype=np.float32)
        mask = np.empty(self.game.num_actions, dtype=np.int8)
        # the env's own position: observed without validating it again (reset and step made it)
        self._ops.observe_masked(self._state, self._p, seat, to_move, planes.reshape(-1), mask)
        if self._history is not None:
            planes = self._stacked(seat)
        elif self.classic and planes.ndim == 3:
            planes = np.ascontiguousarray(planes.transpose(1, 2, 0))
        return {"observation": planes, "action_mask": mask}

    def _stacked(self, seat) -> np.ndarray:
        """PettingZoo go_v5's observation, plane for plane (its ``observe``): the last
        ``classic_frames`` boards, newest first, each as two planes written when its move was
        played, the mover's stones then the other side's (so, for the side to move, the newest
        pair is its opponent's stones then its own); then a plane of ``seat``: zeros for
        ``black_0``, ones for ``white_0`` (go_v5's code; its docs say the reverse). The same for
        both agents but the last plane, as there."""
        history = self._history
        out = np.empty((*history.shape[1:], history.shape[0] + 1), dtype=bool)
        out[:, :, :-1] = history.transpose(1, 2, 0)
        out[:, :, -1] = seat == 1
        return out

    def _push_frame(self, seat, state) -> None:
        """Record the board after ``seat``'s move as go_v5 does: the mover's stones, the other
        side's, in front of the older frames (a pass records the unchanged board)."""
        self._ops.observe(state, self._p, seat, self.game.num_actions, self._frame.reshape(-1))
        history = self._history
        history[2:] = history[:-2].copy()
        history[0] = self._frame[0] > 0
        history[1] = self._frame[1] > 0

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        e = self._episode
        start = self.game.initial_state(seed=int(self.np_random.integers(0, 2**63 - 1)))
        e.start(start, start.item(C.H_PLAYER))
        self._state = e.state
        self._previous = self._last_action = None
        if self._history is not None:
            self._history[:] = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._state.item(C.H_PLAYER)]
        if self._state.item(C.H_STATUS) != C.ONGOING:
            # a game over from the start (a deal with no move): every agent is done at once, with
            # its return, and steps out with ``step(None)``; the masks are zero, as after any end
            self._end(None)
            self._accumulate_rewards()
        self._render_human()

    def step(self, action):
        if self._state is not None and not self.agents:  # every agent has taken its dead step
            EnvLogger.warn_step_after_terminated_truncated()
            return None
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        action = self.game.check_action(action)
        if not self._play(agent, action):
            raise IllegalActionError(f"action {action} ({self._describe(action)}) is not legal here")

    def _play(self, agent, action: int) -> bool:
        """Play ``agent``'s in-range ``action``; False (and nothing changed) if it is illegal."""
        # one call of the compiled stepper (self-play): ``reset`` and earlier steps made
        # ``self._state``, so only the action is checked; the rewards and the end are its
        if self.render_mode is not None:
            previous = self._state.copy()  # for the last move's picture and text
        done = self._episode.step(action)
        if done & ILLEGAL:
            return False  # the position is unchanged
        if self.render_mode is not None:
            self._previous = previous
        self._last_action = action
        self._cumulative_rewards[agent] = 0.0
        if self._history is not None:
            self._push_frame(self.possible_agents.index(agent), self._state)
        if done & (TERMINATED | TRUNCATED):
            self._end(bool(done & TRUNCATED))
            # as in PettingZoo classic, the next seat sees the final rewards first
            seat = self.possible_agents.index(agent)
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.possible_agents[self._state.item(C.H_PLAYER)]
        self._accumulate_rewards()
        self._render_human()
        return True

    def _end(self, truncated) -> None:
        """The game is over: every seat's return as its reward (the stepper's), every agent
        terminated, or truncated if ``max_moves`` cut the game off; ``truncated`` None: a game
        over at reset, read from the position as the stepper reads it."""
        rewards = self._episode.rewards
        if truncated is None:
            s, reason = self._state, self.game.max_moves_reason
            truncated = reason is not None and s.item(C.H_REASON) == reason and s.item(C.H_PLY) >= self.game.max_moves
            C.fill_returns(s, self.game.num_players, rewards)
        self.rewards = {a: float(rewards[i]) for i, a in enumerate(self.possible_agents)}
        ended = self.truncations if truncated else self.terminations
        for a in self.agents:
            ended[a] = True

    def render(self):
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            self._render_human()
            return None
        if self.render_mode == "ansi":
            return render.ansi(self.game, self._state, self._last_move())
        picture = render.rgb(self.game, self._state, self._previous)
        return picture if self._screen_height is None else _scaled(picture, self._screen_height)

    def _last_move(self):
        """The last move in the game's notation (written when shown, not on every step)."""
        if self._last_action is None:
            return None
        return self.game.action_to_str(self._previous, self._last_action)

    def _describe(self, action) -> str:
        try:
            return self.game.action_to_str(self._state, action)
        except ValueError:
            return "no such move"

    def close(self):
        view = getattr(self, "_view", None)
        if view is not None:
            view.close()

    def _render_human(self):
        if self.render_mode == "human" and self._state is not None:
            if getattr(self, "_view", None) is None:
                self._view = HumanView(self.metadata["render_fps"])
            self._view.show(self.game, self._state, self._previous, self._last_move())


def _classic_params(spec, params, made: bool = False) -> dict:
    """The classic layout's keyword arguments as ours: PettingZoo's names mapped to ours, its
    defaults (``classic_defaults``) where the caller gave none (``made``: the game is made
    already, so none), and ``screen_height`` (every PettingZoo classic env takes it: the rows of
    the ``rgb_array`` picture; None: its own size)."""
    ours = {}
    for name, value in params.items():
        key = spec.classic_params.get(name, name)
        if key in ours:
            raise ParameterError(f"{key}= given twice (as {name!r} and under PettingZoo's name)")
        ours[key] = value
    for name, value in () if made else spec.classic_defaults.items():
        ours.setdefault(spec.classic_params.get(name, name), value)
    height = ours.setdefault("screen_height", None)
    if height is not None:
        check_int("screen_height", height, 8, 8192)
    return ours


def _scaled(picture: np.ndarray, height: int) -> np.ndarray:
    """``picture`` resized to ``height`` rows and the width in proportion (nearest pixel)."""
    rows, columns = picture.shape[:2]
    width = max(1, round(columns * height / rows))
    return picture[(np.arange(height) * rows) // height][:, (np.arange(width) * columns) // width]


def raw_env(game, render_mode=None, layout="arbiter", **params) -> ArbiterAEC:
    """The unwrapped AEC env (raises on illegal actions) of ``game``, a ``Game`` or a name."""
    return ArbiterAEC(game, render_mode=render_mode, layout=layout, **params)


class ClassicWrapper(wrappers.OrderEnforcingWrapper):
    """What PettingZoo classic's three wrappers do, in one layer over ``raw_env``.

    ``OrderEnforcingWrapper`` (it is one: errors for calls before ``reset``, ``agent_iter``'s
    checks), ``AssertOutOfBoundsWrapper`` with a typed error (an action outside the action space
    raises ``envs.IllegalActionError``, a ``ValueError``, where the classic wrapper's bare
    ``assert`` raises ``AssertionError`` and vanishes under ``python -O``) and
    ``TerminateIllegalWrapper`` (an illegal action ends the game: the offender gets
    ``illegal_reward``, the others 0, every agent is terminated and truncated, as there).

    One layer because each wrapper reaches the env's attributes through ``__getattr__``: three
    layers of it cost several times the move itself.
    """

    def __init__(self, env: ArbiterAEC, illegal_reward: float = -1.0):
        super().__init__(env)
        self._illegal_reward = float(illegal_reward)
        self._terminated = False  # ended by an illegal action

    def reset(self, seed=None, options=None):
        self._terminated = False
        super().reset(seed=seed, options=options)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action):
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self.env
        self._has_updated = True
        if not raw.agents:  # as OrderEnforcingWrapper: a warning, the action ignored
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        done = raw.terminations[agent] or raw.truncations[agent]
        if not (action is None and done):
            action = raw.game.check_action(action)  # IllegalActionError outside the action space
        if done:
            raw.step(action)
        elif not raw._play(agent, action):
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = self._illegal_reward
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True


def env(game, render_mode=None, layout="arbiter", **params):
    """The AEC env wrapped as PettingZoo classic envs are (``ClassicWrapper``: order enforcing,
    an out-of-range action a typed error, an illegal action ends the game with -1)."""
    return ClassicWrapper(raw_env(game, render_mode=render_mode, layout=layout, **params), illegal_reward=-1)
