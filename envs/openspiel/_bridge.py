"""The bridge itself: an OpenSpiel ``pyspiel.Game`` and ``pyspiel.State`` over any registered game.

How Arbiter's model maps onto OpenSpiel's:

* *Game type*, from the ``GameSpec``: sequential, terminal rewards, ``num_players`` seats; two
  seats are zero-sum with returns in [-1, 1], one seat is general-sum with returns in [0, 1]
  (the Game protocol's returns: +1/-1/0, and 1 won / 0 lost for a patience).
* *Parameters*: every rule parameter with its default, plus ``rules`` (the preset, default
  ``standard``; a parameter left at its standard default takes the preset's value, since
  OpenSpiel fills in defaults before a game sees its parameters). OpenSpiel has no ``None``: an optional integer parameter whose default is None
  (Go's ``max_moves``) is exposed as 0 meaning None. Bounds are the registry's: a bad value is
  the ``envs.ParameterError`` that ``envs.make_game`` raises, naming it.
* *Chance*: a game with hidden items (``spec.chance_outcomes > 0``) is *explicitly* stochastic.
  The start is a chance node (the deal turns the first item), and so is every position a
  revealing move reaches while more than one item could turn up; the outcome is the slot the
  game's ``revealed`` hook names, with its exact probability (``_chance``). Explicit, not
  sampled, because OpenSpiel's MCTS, ``random_sim_test`` and exact algorithms read
  ``chance_outcomes()`` at chance nodes, while a sampled-stochastic game hides its draws in a
  game-level random state that MCTS cannot search over and that its serialisation must carry.
  Since every turned item is public, the OpenSpiel game has perfect information: the stock
  order never exists for OpenSpiel's algorithms, so none can read it by accident.
* *Observations*: the observation tensor is the game's encoder (``Game.observation``, the
  planes agents and the Gymnasium env see), shaped as ``observation_shape``; the observation
  string is the text board as the player sees it (``envs.render.ansi``: no hidden cards). At a
  chance node both show the position before the event (the start's deal: zeros and a line).
  The information state is the public history (OpenSpiel's observer for perfect-information
  games), with no tensor: the encoder's planes describe a position, not a history, as
  OpenSpiel's own Go and Othello also provide only observation tensors.
* *Actions*: the flat action space of the game, pass included; ``action_to_string`` is the
  game's notation (``b1-b3``, ``d3``, ``C3``, ``K>w3``).

A state holds the position packed as ``envs.State`` packs it (legality checked, one compiled
call a move and its next legal moves). OpenSpiel clones a Python state by a ``deepcopy`` of each attribute;
a state's one attribute is an immutable node of the tree (a move makes a new one), which a
clone shares, so a clone copies no array.
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from .. import registry
from .._game_ops import PACKED_HEADER
from ..core import kernel as C
from ..render import ansi
from . import PREFIX, _chance

_DEAL = -1  # ``_Node.event`` of the start's chance node; a move id (>= 0): that move turns an item
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)
_REGISTERED: dict[str, type] = {}


# -- what OpenSpiel is told about a game ---------------------------------------------------------


def _exposed(param):
    """``param``'s default as an OpenSpiel value, or None where OpenSpiel cannot hold it."""
    default = param.default
    if default is None:  # an optional count from 1 up: 0 stands for None
        return 0 if param.low is not None and param.low >= 1 and param.choices is None else None
    if param.number:
        return float(default)
    return default  # bool, int or str: OpenSpiel's own kinds


def parameter_specification(spec) -> dict:
    """The OpenSpiel parameters of a game and their defaults (see the module docstring)."""
    exposed = {p.name: _exposed(p) for p in spec.params}
    return {"rules": "standard", **{name: value for name, value in exposed.items() if value is not None}}


def game_type(spec):
    n = spec.num_players
    mode = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=PREFIX + spec.name,
        long_name=f"Arbiter {spec.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=mode.EXPLICIT_STOCHASTIC if spec.chance_outcomes else mode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if n == 2 else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=n,
        min_num_players=n,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(spec),
    )


def _arbiter_params(spec, given: dict) -> dict:
    """OpenSpiel parameters -> ``envs.make_game`` keyword arguments. OpenSpiel hands a game every
    parameter, defaults filled in, so a value written out cannot be told from a default: a
    parameter at its standard default is left out, for the ``rules`` preset to set."""
    exposed = parameter_specification(spec)
    out = {}
    for name, value in given.items():
        if name != "rules" and name in exposed and value == exposed[name] and type(value) is type(exposed[name]):
            continue
        param = next((p for p in spec.params if p.name == name), None)
        if param is not None and param.default is None and value == 0:
            value = None  # the stand-in for None (``_exposed``)
        out[name] = value
    return out


def _openspiel_params(game) -> dict:
    """The OpenSpiel parameters of an ``envs.Game``: ``rules`` and every exposed parameter."""
    out = {"rules": game.rules}
    for param in game.spec.params:
        value = game.params[param.name]
        if _exposed(param) is None:
            continue
        out[param.name] = 0 if value is None else float(value) if param.number else value
    return out


# -- registering and loading --------------------------------------------------------------------------


def register() -> tuple[str, ...]:
    for spec in registry.specs():
        name = PREFIX + spec.name
        if _REGISTERED.get(name) is None or _REGISTERED[name].spec is not spec:
            cls = type(f"Arbiter{spec.name.title().replace('_', '')}Game", (ArbiterGame,), {"spec": spec})
            pyspiel.register_game(game_type(spec), cls)
            _REGISTERED[name] = cls
    return tuple(_REGISTERED)


def load_string(game) -> str:
    params = _openspiel_params(game)
    return f"{PREFIX}{game.name}(" + ",".join(f"{k}={params[k]}" for k in sorted(params)) + ")"


def load(game):
    register()
    return pyspiel.load_game(PREFIX + game.name, _openspiel_params(game))


def from_array(openspiel_game, array):
    if not isinstance(openspiel_game, ArbiterGame):
        raise TypeError(f"from_array needs a game of envs.openspiel, got {type(openspiel_game).__name__}")
    state = openspiel_game.new_initial_state()
    state._node = openspiel_game._shared.node(openspiel_game.arbiter.check_state(array))
    return state


# -- the game --------------------------------------------------------------------------------------


class _Shared:
    """What every state of one game reads and none may copy: the Arbiter game, its compiled
    move, its start. ``deepcopy`` returns the holder itself; ``pickle`` (OpenSpiel's
    serialisation of a Python state) carries the game, whose own pickling rebuilds it checked."""

    def __init__(self, game):
        self.game = game
        self.advance = game._ops.advance_packed
        self.chance = game.spec.chance_outcomes > 0
        if self.chance:  # the deal: a chance node before any position
            self.start = _Node(self, None, 0, _DEAL, game.initial_state(seed=0))
        else:
            self.start = self.node(game.initial_state())

    def node(self, array: np.ndarray) -> _Node:
        """The node of a position (a state the game made or checked), packed as ``envs.State``
        packs its own: ``[len(s), len(p), s..., p..., legal...]``, so that one compiled call
        (``advance_packed``) plays a move and lists the next legal moves."""
        game, p = self.game, self.game._p
        buf = np.empty(PACKED_HEADER + array.size + p.size + game.num_actions, dtype=np.int64)
        buf[0], buf[1] = array.size, p.size
        at = PACKED_HEADER + array.size
        buf[PACKED_HEADER:at] = array
        buf[at : at + p.size] = p
        n = game._ops.list_legal(buf[PACKED_HEADER:at], p, buf[at + p.size :])
        return _Node(self, buf, n)

    def __deepcopy__(self, memo):
        return self

    def __getstate__(self):
        return {"game": self.game}

    def __setstate__(self, state):
        self.__init__(state["game"])


class _Node:
    """One node of the game tree, never changed once made: a move makes a new node, so a clone
    (OpenSpiel's ``deepcopy`` of a state's attributes) shares it instead of copying a position.

    ``buf`` is the position packed with its legal moves (``_Shared.node``; at a chance node the
    position before the event, None before the deal), ``n`` how many legal moves; ``event`` None
    at a player or terminal node, else what the chance node resolves (``_DEAL`` or the revealing
    move just played), ``reached`` an array that event could have reached (what its
    distribution is read from); ``player`` OpenSpiel's player id."""

    __slots__ = ("shared", "buf", "n", "event", "reached", "player")

    def __init__(self, shared, buf, n, event=None, reached=None):
        self.shared, self.buf, self.n, self.event, self.reached = shared, buf, n, event, reached
        if event is not None:
            self.player = int(pyspiel.PlayerId.CHANCE)
        elif buf.item(PACKED_HEADER + C.H_STATUS) == C.TERMINAL:
            self.player = _TERMINAL
        else:
            self.player = buf.item(PACKED_HEADER + C.H_PLAYER)

    def __deepcopy__(self, memo):
        return self

    @property
    def view(self):
        """The Game API's array of the position (a view: not to be written), None before the deal."""
        return None if self.buf is None else self.buf[PACKED_HEADER : PACKED_HEADER + self.buf.item(0)]

    @property
    def array(self):
        """A copy of ``view``."""
        return None if self.buf is None else self.view.copy()

    def legal(self) -> list:
        at = PACKED_HEADER + self.buf.item(0) + self.buf.item(1)
        return self.buf[at : at + self.n].tolist()

    def after(self, action: int) -> _Node:
        shared = self.shared
        game = shared.game
        if self.event == _DEAL:
            return shared.node(_chance.deal(game, action))
        if self.event is not None:
            return shared.node(_chance.turn(game, self.view, self.event, action))
        buf = self.buf.copy()
        n = shared.advance(buf, game.check_action(action))
        if n < 0:
            game.apply(self.view, action)  # raises the IllegalActionError that says why
        node = _Node(shared, buf, n)
        if shared.chance and _chance.reveals(game, self.view, action):
            reached = node.view
            if len(_chance.distribution(game, reached)) > 1:
                return _Node(shared, self.buf, self.n, action, reached)
        return node  # no hidden item turned, or only one could: no chance node


class ArbiterGame(pyspiel.Game):
    """An Arbiter game as a ``pyspiel.Game``; ``register`` makes one subclass per registered game."""

    spec = None  # the GameSpec, set on each game's subclass

    def __init__(self, params=None):
        given = dict(params or {})
        arbiter = registry.make_game(self.spec.name, **_arbiter_params(self.spec, given))
        n = self.spec.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=arbiter.num_actions,
            max_chance_outcomes=self.spec.chance_outcomes,
            num_players=n,
            min_utility=-1.0 if n == 2 else 0.0,
            max_utility=1.0,
            utility_sum=0.0 if n == 2 else None,
            max_game_length=arbiter.max_moves,
        )
        super().__init__(game_type(self.spec), info, given)
        self.arbiter = arbiter
        self._shared = _Shared(arbiter)

    def new_initial_state(self):
        return ArbiterState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters {params!r}: the Arbiter games take none")
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return _Observer(self.arbiter)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class ArbiterState(pyspiel.State):
    """A position of an Arbiter game as a ``pyspiel.State`` (see the module docstring); its one
    attribute is the current ``_Node``."""

    def __init__(self, game: ArbiterGame):
        super().__init__(game)
        self._node = game._shared.start

    # -- reading -------------------------------------------------------------------------------
    def current_player(self):
        return self._node.player

    def is_terminal(self):
        return self._node.player == _TERMINAL

    def returns(self):
        node = self._node
        if node.player != _TERMINAL:
            return [0.0] * node.shared.game.num_players
        return node.shared.game.unchecked.returns(node.view).tolist()

    def chance_outcomes(self):
        node = self._node
        return [] if node.event is None else _chance.distribution(node.shared.game, node.reached)

    def _legal_actions(self, player):
        node = self._node
        if player != node.player or node.player == _TERMINAL:
            return []
        if node.event is not None:
            return [slot for slot, _ in self.chance_outcomes()]
        return node.legal()

    # OpenSpiel answers these from C++, which calls back into the methods above; a Python caller
    # (OpenSpiel's Python MCTS and ``evaluate_bots``) gets the same answers here directly. A list
    # of legal moves crossing pybind11 both ways costs about 8 us on 9x9 Go, more than a move.
    def legal_actions(self, player=None):
        return self._legal_actions(self._node.player if player is None else player)

    def is_chance_node(self):
        return self._node.event is not None

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"chance: slot {action} turns up"
        node = self._node
        return node.shared.game.action_to_str(node.reached if node.buf is None else node.view, action)

    def arbiter_array(self) -> np.ndarray:
        """A copy of the position as the Game API's array (None before the deal)."""
        return self._node.array

    def __str__(self):
        node = self._node
        if node.buf is None:
            return "the deal: the first item is about to turn up\n"
        game, array = node.shared.game, node.view
        text = ansi(game, array)
        if node.event is not None:
            text += f"to turn up: what {game.action_to_str(array, node.event)} reveals\n"
        return text

    # -- playing -------------------------------------------------------------------------------
    def _apply_action(self, action):
        self._node = self._node.after(int(action))


class _Observer:
    """OpenSpiel's observer over the game's encoder (``tensor``, ``dict``, ``string_from``)."""

    def __init__(self, game):
        self._game = game
        self.tensor = np.zeros(int(np.prod(game.observation_shape)), dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(game.observation_shape)}

    def set_from(self, state, player):
        array = state._node.view
        if array is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self._game.observation(array, player).ravel()

    def string_from(self, state, player):
        array = state._node.view
        return str(state) if array is None else ansi(self._game, array)
