"""Arbiter's games as OpenSpiel games: every game of the registry, loadable by OpenSpiel's tools.

    import pyspiel
    import envs.openspiel

    envs.openspiel.register()                      # every registered game, as arbiter_<name>
    game = pyspiel.load_game("arbiter_go(size=9,komi=7.5)")
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])

``register()`` derives each OpenSpiel ``GameType`` and ``GameInfo`` from the game's ``GameSpec``
and rule parameters (no game is named here: a game added to the registry later is registered by
the next call), so OpenSpiel's own algorithms (MCTS, ``evaluate_bots``, its tests) run on the
games' numba kernels. How a game maps onto OpenSpiel's model is in ``envs.openspiel._bridge``;
the Calculation patience's hidden stock becomes explicit chance nodes (``_chance``).

OpenSpiel is optional (the ``openspiel`` extra): importing this module does not import it, and
``register()`` without it raises ``ImportError`` saying how to install it.
"""

from __future__ import annotations

from importlib import import_module

PREFIX = "arbiter_"  # OpenSpiel's name of an Arbiter game: arbiter_loa, arbiter_go, ...
INSTALL_HINT = 'pip install "arbiter-games[openspiel]"'


def _module():
    try:
        return import_module(f"{__name__}._bridge")
    except ModuleNotFoundError as exc:
        if exc.name != "pyspiel":
            raise
        raise ImportError(f"OpenSpiel (pyspiel) is not installed; {INSTALL_HINT}") from exc


def register() -> tuple[str, ...]:
    """Register every game of Arbiter's registry with OpenSpiel (``pyspiel.register_game``) under
    ``arbiter_<name>``; returns the OpenSpiel names. Calling it again registers only games added
    to the registry since."""
    return _module().register()


def openspiel_name(game) -> str:
    """The ``pyspiel.load_game`` string of an ``envs.Game``, its parameters included
    (``arbiter_go(komi=7.5,rules=standard,size=9,...)``)."""
    return _module().load_string(game)


def load(game):
    """The OpenSpiel game of an ``envs.Game`` (same rules and parameters), registering first."""
    return _module().load(game)


def from_array(openspiel_game, array):
    """An OpenSpiel state of ``openspiel_game`` (one ``load`` or ``pyspiel.load_game`` made)
    at the Arbiter position ``array`` (checked as ``Game.check_state`` checks it); its history
    starts there. Hidden items in ``array`` stay hidden: the next one turned is a chance node."""
    return _module().from_array(openspiel_game, array)


__all__ = ["PREFIX", "INSTALL_HINT", "register", "openspiel_name", "load", "from_array"]
