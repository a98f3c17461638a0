"""The checks of a game through the frameworks: the Gymnasium env (Gymnasium's own ``check_env``
and episodes on both opponent paths), the PettingZoo AEC env (PettingZoo's own ``api_test`` and
``seed_test``, in both layouts) and the compiled vector env, each compared with the Game API
position by position.

They build the envs the way users do: through the game's Gymnasium id and PettingZoo module where
its spec names them, else from the env classes with the game's name. Rendering is checked in the
``ansi`` and ``rgb_array`` modes (``rgb_array`` where the game has a picture); ``human`` mode,
which shows one of the two, is left out: where there is a display it opens a window.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

from .. import pettingzoo, pz_env
from ..core.rng import SEED_BOUND
from ..game import Game
from ..gym_env import ArbiterEnv
from ..vector_env import ArbiterVectorEnv
from .contract import Trace

# PettingZoo api_test cycles (halved for seed_test and the classic layout): more
# is slower, hardly stricter, as the episodes below play whole games
API_CYCLES = 60
VECTOR_ENVS = 4
RENDER_STEPS = 4


def _params(game: Game) -> dict:
    """The keyword arguments that rebuild ``game`` in an env."""
    return {**game.params, "rules": game.rules}


def _has_picture(game: Game) -> bool:
    return game.spec.render is not None or game.spec.placement


class UniformRandom:
    """An opponent object (not a spec string), so the Gymnasium env asks it in Python between two
    calls of its stepper rather than playing a compiled opponent; uniform over the legal moves, seeded, and back to its
    first draw at every ``reset`` (the env resets its opponent with each episode), so
    ``check_env``'s determinism checks hold."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, game, state) -> int:
        legal = game.legal_actions(state)
        return int(legal[self.rng.integers(len(legal))])


# -- Gymnasium ---------------------------------------------------------------------------------------


def gymnasium_check(trace: Trace, game: Game, seed: int, games: int) -> None:
    """Gymnasium's ``check_env`` passes with no warning of its own, on the compiled opponent path
    and (two players) with an opponent object asked in Python; the spaces are the
    game's; in episodes (``games`` in all, shared by the paths) every observation is ``game.observation`` of the env's
    position for the learner, the mask its legal actions, and the last step's reward the
    learner's return, ``truncated`` exactly when the game ended at ``max_moves``; the
    ``ansi`` and ``rgb_array`` pictures are a string and an ``(H, W, 3) uint8`` array."""
    opponents = ["random", UniformRandom(seed)] if game.num_players == 2 else [None]
    for path, opponent in enumerate(opponents):
        env = _gym_env(game, opponent)
        _spaces(trace, game, env)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env, skip_render_check=True)
        complaints = [str(w.message) for w in caught if "WARN:" in str(w.message)]
        if complaints:
            raise trace.fail(f"Gymnasium's check_env (opponent {_name(opponent)}) warns: {complaints[0]}")
        seats = "random" if game.num_players == 2 else 0
        episodes = len(range(path, games, len(opponents)))  # the games shared between the paths
        _gym_episodes(trace, game, _gym_env(game, opponent, agent_seat=seats), episodes, opponent)
    for mode in ("ansi", "rgb_array") if _has_picture(game) else ("ansi",):
        env = _gym_env(game, opponents[0], render_mode=mode)
        env.reset(seed=seed)
        trace.begin(0, env.state)
        rng = trace.rng()
        for _ in range(RENDER_STEPS):
            trace.at(env.state)
            _check_picture(trace, f"the Gymnasium env's render() in {mode!r} mode", mode, env.render())
            mask = env.action_masks()
            if env.game.is_terminal(env.state):
                break
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            if terminated or truncated:
                break


def _name(opponent) -> str:
    return repr(opponent) if isinstance(opponent, str) or opponent is None else "object (asked in Python)"


def _gym_env(game, opponent, **kwargs):
    """The raw env of ``game``: through its Gymnasium id where it has one (as users make it)."""
    if opponent is not None:
        kwargs["opponent"] = opponent
    if game.spec.gym_id is not None:
        return gymnasium.make(game.spec.gym_id, **kwargs, **_params(game)).unwrapped
    return ArbiterEnv(game=game.name, **kwargs, **_params(game))


def _spaces(trace, game, env) -> None:
    if repr(env.game) != repr(game):
        raise trace.fail(f"the Gymnasium env plays {env.game!r}")
    if env.action_space != gymnasium.spaces.Discrete(game.num_actions):
        raise trace.fail(f"the Gymnasium action space is {env.action_space}: expected Discrete({game.num_actions})")
    box = env.observation_space
    if (
        box.shape != game.observation_shape
        or box.dtype != np.float32
        or box.low.min() != game.observation_bounds[0]
        or box.high.max() != game.observation_bounds[1]
    ):
        raise trace.fail(
            f"the Gymnasium observation space is {box}: expected float32 {game.observation_shape} "
            f"within {game.observation_bounds}"
        )


def _gym_episodes(trace, game, env, games, opponent) -> None:
    rng = trace.rng()
    path = f"the Gymnasium env (opponent {_name(opponent)})"
    for episode in range(games):
        obs, info = env.reset(seed=int(rng.integers(SEED_BOUND)))
        seat = int(info["agent_seat"])
        trace.begin(episode, env.state)
        reward, over = 0.0, game.is_terminal(env.state)
        while True:
            state = env.state
            trace.at(state)
            _same_view(trace, game, path, state, seat, obs, info["action_mask"], over)
            if not env.observation_space.contains(obs):
                raise trace.fail(f"{path}'s observation is outside its observation space")
            if over:
                break
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            obs, reward, terminated, truncated, info = env.step(action)
            if info["illegal_action"]:
                raise trace.fail(f"{path} called legal action {action} illegal")
            over = terminated or truncated
            if over:
                _same_end(trace, game, path, env.state, seat, reward, terminated, truncated)
            elif reward != 0.0:
                raise trace.fail(f"{path} rewarded {reward} before the end")


def _same_view(trace, game, path, state, seat, obs, mask, over) -> None:
    """What an env shows the learner is what the Game API says of its position."""
    if not np.array_equal(obs, game.observation(state, seat)):
        raise trace.fail(f"{path}'s observation differs from game.observation(state, {seat})")
    expected = np.ones(game.num_actions, dtype=np.int8) if over else game.legal_mask(state).astype(np.int8)
    if mask.dtype != np.int8 or not np.array_equal(mask, expected):
        raise trace.fail(f"{path}'s action mask differs from the legal actions (all ones once it is over)")


def _same_end(trace, game, path, state, seat, reward, terminated, truncated) -> None:
    if not game.is_terminal(state):
        raise trace.fail(f"{path} ended the episode with the game going on")
    by_cap = game.end_reason(state) == "max_moves"
    if (terminated, truncated) != (not by_cap, by_cap):
        raise trace.fail(
            f"{path} reports terminated={terminated}, truncated={truncated} for a game ended by "
            f"{game.end_reason(state)!r} (truncated exactly when ended at max_moves)"
        )
    if reward != game.returns(state)[seat]:
        raise trace.fail(f"{path}'s last reward is {reward}, the learner's return {game.returns(state)[seat]}")


def _check_picture(trace, what, mode, picture) -> None:
    if mode == "ansi" and not (isinstance(picture, str) and picture.strip()):
        raise trace.fail(f"{what} returned {type(picture).__name__}: expected a text board")
    if mode == "rgb_array" and not (
        isinstance(picture, np.ndarray)
        and picture.dtype == np.uint8
        and picture.ndim == 3
        and picture.shape[2] == 3
        and picture.size
    ):
        raise trace.fail(
            f"{what} returned {getattr(picture, 'dtype', type(picture).__name__)} of shape "
            f"{getattr(picture, 'shape', None)}: expected an (H, W, 3) uint8 picture"
        )


# -- PettingZoo ----------------------------------------------------------------------------------------


def pettingzoo_check(trace: Trace, game: Game, seed: int, games: int) -> None:
    """PettingZoo's ``api_test`` and ``seed_test`` pass (``api_test`` in the classic layout too,
    where the spec names a module); in episodes every agent observes ``game.observation`` of the
    env's position, with the legal actions as its mask when it is to move (zeros otherwise),
    and ends with its return, truncated exactly when the game ended at ``max_moves``; the
    ``ansi`` and ``rgb_array`` pictures are a string and an ``(H, W, 3) uint8`` array."""
    from pettingzoo.test import api_test, seed_test  # imports pytest (and pygame): only for this check

    def make(**kwargs):
        return _aec(game, **kwargs)

    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():  # the tests print progress
        # api_test's advice for any Dict observation, PettingZoo classic's own layout with a mask
        warnings.filterwarnings("ignore", "Observation space for each agent probably should be", UserWarning)
        warnings.filterwarnings("ignore", "Observation is not a NumPy array", UserWarning)
        _framework(trace, "PettingZoo's api_test", api_test, make(), num_cycles=API_CYCLES)
        _framework(trace, "PettingZoo's seed_test", seed_test, make, num_cycles=API_CYCLES // 2)
        if game.spec.pettingzoo is not None:
            _framework(
                trace,
                "PettingZoo's api_test in the classic layout",
                api_test,
                make(layout="classic"),
                num_cycles=API_CYCLES // 2,
            )
    _aec_episodes(trace, game, make(), games)
    for mode in ("ansi", "rgb_array") if _has_picture(game) else ("ansi",):
        env = make(render_mode=mode)
        env.reset(seed=seed)
        trace.begin(0, env.unwrapped.state)
        for _ in zip(range(RENDER_STEPS), env.agent_iter()):
            trace.at(env.unwrapped.state)
            _check_picture(trace, f"the PettingZoo env's render() in {mode!r} mode", mode, env.render())
            obs, _, terminated, truncated, _ = env.last()
            env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))


def _framework(trace, what, test, *args, **kwargs) -> None:
    """Run a framework's own test; its assertion becomes this check's failure."""
    try:
        test(*args, **kwargs)
    except AssertionError as error:
        said = str(error)  # its message may print a whole observation: its start says what failed
        raise trace.fail(f"{what} fails: {said if len(said) <= 400 else said[:400] + ' ...'}") from error


def _aec(game, layout="arbiter", **kwargs):
    """The AEC env of ``game``: from its ``envs.pettingzoo`` module where it has one."""
    if game.spec.pettingzoo is not None:
        if layout == "classic":
            module = getattr(pettingzoo.classic, game.spec.classic or game.spec.pettingzoo)
        else:
            module = getattr(pettingzoo, game.spec.pettingzoo)
        return module.env(**kwargs, **_params(game))
    return pz_env.env(game.name, layout=layout, **kwargs, **_params(game))


def _aec_episodes(trace, game, env, games) -> None:
    rng = trace.rng()
    path = "the PettingZoo env"
    for episode in range(games):
        env.reset(seed=int(rng.integers(SEED_BOUND)))
        trace.begin(episode, env.unwrapped.state)
        ended = {}
        for agent in env.agent_iter():
            state = env.unwrapped.state
            trace.at(state)
            seat = env.possible_agents.index(agent)
            obs, reward, terminated, truncated, _ = env.last()
            over = game.is_terminal(state)
            if not np.array_equal(obs["observation"], game.observation(state, seat)):
                raise trace.fail(f"{path}'s observation of {agent} differs from game.observation(state, {seat})")
            to_move = not over and game.current_player(state) == seat
            expected = game.legal_mask(state) if to_move else np.zeros(game.num_actions, dtype=bool)
            if not np.array_equal(obs["action_mask"], expected.astype(np.int8)):
                raise trace.fail(
                    f"{path}'s action mask of {agent} differs from its legal actions (zeros when not to move)"
                )
            if terminated or truncated:
                ended[agent] = (reward, terminated, truncated)
                env.step(None)
                continue
            if not to_move:
                raise trace.fail(f"{path} selects {agent}, who is not to move")
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        state = env.unwrapped.state
        trace.at(state)
        if set(ended) != set(env.possible_agents):
            raise trace.fail(f"{path} ended the game without every agent's last turn: {sorted(ended)}")
        for agent, (reward, terminated, truncated) in ended.items():
            _same_end(
                trace, game, f"{path} ({agent})", state, env.possible_agents.index(agent), reward, terminated, truncated
            )


# -- the vector env ------------------------------------------------------------------------------------


def vector_check(trace: Trace, game: Game, seed: int, games: int) -> None:
    """The compiled vector env (``vector_entry_point``) plays what the Game API plays: against the
    random opponent from random seats, and in self-play (two players), every slot's
    observation is ``game.observation`` of its position for its seat and inside the
    observation space, its mask the legal actions (all ones once over), its last reward the
    seat's return, ``truncated`` exactly when the game ended at ``max_moves``; until every slot
    has finished a game (at least ``games`` games)."""
    modes = [("random", "random"), ("self", 0)] if game.num_players == 2 else [("random", 0)]
    for opponent, seat in modes:
        vec = _vector_env(game, opponent=opponent, agent_seat=seat)
        path = f"the vector env (opponent {opponent!r})"
        rng = trace.rng()
        obs, info = vec.reset(seed=seed)
        finished = np.zeros(vec.num_envs, dtype=np.int64)
        over = np.zeros(vec.num_envs, dtype=bool)
        for _ in range(2 * game.max_moves + 2):
            states = vec.states()
            if not vec.observation_space.contains(obs):
                raise trace.fail(f"{path}'s observations are outside its observation space")
            for i in range(vec.num_envs):
                trace.at(states[i])
                _same_view(
                    trace,
                    game,
                    f"{path}, slot {i}",
                    states[i],
                    int(info["agent_seat"][i]),
                    obs[i],
                    info["action_mask"][i],
                    bool(over[i]),
                )
            if finished.min() >= 1 and finished.sum() >= games:
                break
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in info["action_mask"]], dtype=np.int64)
            obs, reward, terminated, truncated, info = vec.step(actions)
            if info["illegal_action"].any():
                raise trace.fail(f"{path} called a legal action illegal")
            over = terminated | truncated
            if reward[~over].any():
                raise trace.fail(f"{path} rewarded a slot before the end of its game")
            states = vec.states()
            for i in np.flatnonzero(over):
                trace.at(states[i])
                _same_end(
                    trace,
                    game,
                    f"{path}, slot {i}",
                    states[i],
                    int(info["agent_seat"][i]),
                    reward[i],
                    bool(terminated[i]),
                    bool(truncated[i]),
                )
            finished += over
        else:
            raise trace.fail(f"{path}: a slot played no game to its end in {2 * game.max_moves + 2} steps")


def _vector_env(game, **kwargs):
    if game.spec.gym_id is not None:
        return gymnasium.make_vec(
            game.spec.gym_id, num_envs=VECTOR_ENVS, vectorization_mode="vector_entry_point", **kwargs, **_params(game)
        )
    return ArbiterVectorEnv(num_envs=VECTOR_ENVS, game=game.name, **kwargs, **_params(game))
