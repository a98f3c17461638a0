"""The contract every game must keep, as checks a game's author runs: ``check_game`` and its parts.

    import envs, envs.testing
    envs.register(my_game.SPEC)
    envs.testing.check_game("my_game")                      # every check; raises ContractError
    envs.testing.check_game("my_game", params={"size": 5}, seed=3, games=10)
    envs.testing.check_protocol(envs.make_game("go", size=5))  # one check
    for params in envs.testing.variants("my_game"):         # the configurations the suite checks
        envs.testing.check_game("my_game", params=params)
    envs.make_game("my_game", **envs.testing.small_params("my_game"))  # its smallest board

and from the command line (``--module`` is imported first: a module that registers the game, or a
game package whose ``SPEC`` is then registered):

    python -m envs.testing my_game --module my_package

These are the checks the project's own test suite runs on every registered game and every
configuration ``variants`` derives from its spec, as Gymnasium ships ``check_env``, PettingZoo
``api_test`` and pgx ``api_test``. Each check plays random games of its own through the public API
(the same seed plays the same games) and raises ``ContractError``, an ``AssertionError``, at the first
broken rule, naming the check, the game, the seed, the moves and the text board of the position;
anything the game raises on the way (a ``StateError`` for a state it made itself, an
``IndexError``) is reported the same way. The checks, in the order ``check_game`` runs them
(``CHECKS`` maps each name to its function):

* ``seeding``: the same seed gives the same start position and redraw of hidden information;
* ``protocol``: legal actions, masks, ``is_terminal``, ``apply``, ``returns``, the state header,
  ``envs.State``;
* ``notation``: moves and text boards read back what they write;
* ``observation``: dtype, shape, bounds, and no hidden information in the mover's view;
* ``errors``: bad actions, states, seats, moves, text boards and parameters raise typed errors;
* ``playouts``: compiled random playouts are sound and deterministic per seed;
* ``pickling``: the game and its ``envs.State`` pickle and play on the same;
* ``perft``: compiled perft counts what the Game API plays;
* ``gymnasium``: Gymnasium's ``check_env`` and episodes against the Game API, both opponent paths;
* ``pettingzoo``: PettingZoo's ``api_test`` and ``seed_test``, and episodes against the Game API;
* ``vector``: the compiled vector env, slot by slot, against the Game API.

Importing this module imports no test framework, only the frameworks the envs need anyway.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import make_game
from ..core import ParameterError, check_int
from ..core.rng import SEED_BOUND
from ..game import Game
from ..registry import GameSpec, names, spec
from . import framework_checks as F
from . import game_checks as G
from .contract import ContractError, Trace

GAMES = 2  # random games (or episodes) a check plays by default: each check plays its own


def as_game(game, params: dict | None = None) -> Game:
    """The ``Game`` a check runs on: ``game`` itself, or a registered game's name or spec built
    with ``params``. A spec must be the registered one (the framework checks build their envs by
    name); anything else is a ``ParameterError``."""
    if isinstance(game, Game):
        if params:
            raise ParameterError(f"params={params!r} with a Game: {game!r} has its parameters already")
        if spec(game.name) is not game.spec:
            raise ParameterError(f"{game!r} was built from a spec that is no longer the registered {game.name!r}")
        return game
    if isinstance(game, GameSpec):
        if game.name not in names() or spec(game.name) is not game:
            raise ParameterError(f"game {game.name!r}: this spec is not registered: call envs.register(spec) first")
        game = game.name
    if not isinstance(game, str):
        raise ParameterError(f"{game!r}: expected a registered game's name, its GameSpec or a Game")
    if params is not None and not isinstance(params, dict):
        raise ParameterError(f"params={params!r}: expected a dict of rule parameters")
    return make_game(game, **(params or {}))


def _run(name: str, body: Callable, game, seed: int, games: int) -> None:
    game = as_game(game)
    seed = check_int("seed", seed, 0, SEED_BOUND)
    games = check_int("games", games, 1, 10**6)
    trace = Trace(name, game, seed)
    try:
        body(trace, game, seed, games)
    except ContractError:
        raise
    except Exception as error:  # the game under test raised: a failure at the position reached
        raise trace.fail(f"{type(error).__name__}: {error}") from error


_ARGUMENTS = """

    ``game`` is a ``Game``, or a registered game's name or ``GameSpec`` (built with its standard
    rules); ``seed`` decides the games played (the same seed plays the same games); ``games`` is
    how many random games (or episodes) it plays. Returns None, or raises ``ContractError``.
    """


def _check(name: str, body: Callable) -> Callable:
    def check(game, *, seed: int = 0, games: int = GAMES) -> None:
        _run(name, body, game, seed, games)

    check.__name__ = check.__qualname__ = f"check_{name}"
    check.__doc__ = body.__doc__ + _ARGUMENTS
    return check


# name -> check, in the order ``check_game`` runs them (cheap and basic first)
CHECKS: dict[str, Callable] = {
    name: _check(name, body)
    for name, body in (
        ("seeding", G.seeding),
        ("protocol", G.protocol),
        ("notation", G.notation),
        ("observation", G.observation),
        ("errors", G.errors),
        ("playouts", G.playouts),
        ("pickling", G.pickling),
        ("perft", G.perft_check),
        ("gymnasium", F.gymnasium_check),
        ("pettingzoo", F.pettingzoo_check),
        ("vector", F.vector_check),
    )
}
check_protocol = CHECKS["protocol"]
check_notation = CHECKS["notation"]
check_observation = CHECKS["observation"]
check_errors = CHECKS["errors"]
check_seeding = CHECKS["seeding"]
check_playouts = CHECKS["playouts"]
check_pickling = CHECKS["pickling"]
check_perft = CHECKS["perft"]
check_gymnasium = CHECKS["gymnasium"]
check_pettingzoo = CHECKS["pettingzoo"]
check_vector = CHECKS["vector"]


def check_game(game, *, params: dict | None = None, seed: int = 0, games: int = GAMES, checks=None) -> None:
    """Run every check (or those named in ``checks``, in ``CHECKS``' order) on one configuration
    of a registered game: ``game`` is its name, its ``GameSpec`` or a ``Game``, ``params`` its
    rule parameters (``rules=`` included; not with a ``Game``). Raises ``ContractError`` at the
    first broken rule; returns None when every check passes."""
    game = as_game(game, params)
    names = list(CHECKS) if checks is None else _check_names(checks)
    for name in names:
        CHECKS[name](game, seed=seed, games=games)


def _check_names(checks) -> list:
    if isinstance(checks, str) or not all(isinstance(c, str) for c in checks):
        raise ParameterError(f"checks={checks!r}: expected a list of check names from {', '.join(CHECKS)}")
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ParameterError(f"unknown check {unknown[0]!r}: expected some of {', '.join(CHECKS)}")
    return [c for c in CHECKS if c in checks]


def variants(game) -> list:
    """Configurations of ``game`` (a name, spec or Game) worth checking, as ``params`` dicts for
    ``check_game``, derived from its spec: the standard rules (``{}``), every other preset that
    sets other values, each integer parameter at its lowest value (the smallest board, the
    shortest cap), and every categorical parameter at its first other value, together. Two
    that come to the same parameters are one; where the game is registered, one its
    ``_configure`` refuses is dropped, and so is one whose games cannot last two moves of each
    seat (``max_moves=1``: no episode to check the envs with)."""
    s = game.spec if isinstance(game, Game) else game if isinstance(game, GameSpec) else spec(game)
    candidates = [{}]
    candidates += [{"rules": name} for name in s.presets if name != "standard"]
    candidates += [
        {p.name: p.low}
        for p in s.params
        if p.choices is None and not p.number and p.low is not None and p.low != p.default
    ]
    others = {
        p.name: next(c for c in p.choices if c != p.default)
        for p in s.params
        if p.choices is not None and any(c != p.default for c in p.choices)
    }
    if others:
        candidates.append(others)
    registered = s.name in names() and spec(s.name) is s
    found, seen = [], []
    for params in candidates:
        rules = params.get("rules", "standard")
        merged = {**s.defaults, **s.presets[rules], **{k: v for k, v in params.items() if k != "rules"}}
        if merged in seen:
            continue
        if registered:
            try:
                built = s.game(**params)
            except ParameterError:
                continue
            if built.max_moves < 2 * built.num_players:
                continue  # too short for an episode: Gymnasium's check_env refuses one that ends at once
        seen.append(merged)
        found.append(params)
    return found


def small_params(game) -> dict:
    """The smallest playable configuration of a registered ``game`` (its name, spec or a
    ``Game``), as ``params`` for ``make_game``: every integer parameter at its lowest value (the
    smallest board, the shortest line to win), one after another, each kept only where the game
    accepts it together with those before and its games can still last two moves of each seat.
    So a cap such as ``max_moves`` keeps its default, and a game without such parameters gets
    ``{}``, its standard rules. A test that plays whole games of every registered game plays
    them at these parameters, so a game added to the registry is played small with no list of
    board sizes to edit."""
    s = _registered_spec(game)
    found: dict = {}
    for p in s.params:
        if p.choices is not None or p.number or p.low is None or p.low == p.default:
            continue
        trial = {**found, p.name: p.low}
        try:
            built = s.game(**trial)
        except ParameterError:
            continue
        if built.max_moves >= 2 * built.num_players:
            found = trial
    return found


def _registered_spec(game) -> GameSpec:
    s = game.spec if isinstance(game, Game) else game if isinstance(game, GameSpec) else spec(game)
    if s.name not in names() or spec(s.name) is not s:
        raise ParameterError(f"game {s.name!r}: this spec is not registered: call envs.register(spec) first")
    return s


def variant_id(params: dict) -> str:
    """A short name of a ``variants`` entry, for test ids and reports (``size=5``, ``standard``)."""
    return "-".join(f"{k}={v}" for k, v in params.items()) or "standard"


__all__ = [
    "CHECKS",
    "GAMES",
    "ContractError",
    "as_game",
    "check_errors",
    "check_game",
    "check_gymnasium",
    "check_notation",
    "check_observation",
    "check_perft",
    "check_pettingzoo",
    "check_pickling",
    "check_playouts",
    "check_protocol",
    "check_seeding",
    "check_vector",
    "small_params",
    "variant_id",
    "variants",
]
