"""Root tactics the two-player search agents share: a win in one, a move that loses at once, and
the game's threat-space search (its ``threats`` hook; Gomoku's VCF and VCT).

A search of a few hundred simulations, or a net's prior, can miss a five in a row or leave one
open; these checks cannot. ``mcts``, ``alphabeta`` and ``alphazero`` run them at the root, before
and after their own search, on positions ``Agent.act`` has already checked (hence
``game.unchecked``). The threat-space search is compiled once per game here, whichever agents a
process uses.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from envs.core import kernel as C
from envs.core.generic import per_game
from envs.core.specialise import compiled

G = None  # the game's hook namespace, bound per game by envs.core.specialise
THREAT_DEPTH = 16  # attacker moves a threat-space search may chain
ROOT_SHARE = 0.5  # of a move's clock the root's threat-space searches may use (a win, the defences)


@per_game
def threats_root(s, p, seat, limit, deadline, out):
    """The game's threat-space search for ``seat`` on ``s`` (``threats`` hook; Gomoku's VCF and VCT)."""
    return G.threats(s, p, seat, limit, deadline, out)


OUT_OF_TIME = "out of time"  # what ``_threat`` returns when the clock stopped the search


class ForcedWin(NamedTuple):
    """A forced win found by the threat-space search: its first ``move``, the attacker's
    ``moves`` in the sequence, the ``nodes`` searched, and whether every attacker move forces
    the only answer (``forcing``: Gomoku's VCF) or one is a threat with many answers (VCT)."""

    move: int
    moves: int
    nodes: int
    forcing: bool = True


def has_threats(game) -> bool:
    """Whether ``game`` has a threat-space search (a ``threats`` hook)."""
    return getattr(game.spec.evaluation, "threats", None) is not None


def wins_at_once(game, state, legal):
    """A legal move that ends the game won for the side to move, or None."""
    rules = game.unchecked
    me = rules.current_player(state)
    for a in legal:
        child = rules.apply(state, int(a))
        if rules.is_terminal(child) and rules.returns(child)[me] > 0:
            return int(a)
    return None


def loses_at_once(game, state, action) -> bool:
    """Whether after ``action`` the opponent has a move that ends the game won for it (in Go:
    after our pass, passing ends the game, and the position is counted as it stands, dead
    stones and all). A tree of a few thousand simulations usually sees this, but a robust-child
    choice among nearly equal moves late in a won game can still pick such a pass."""
    rules = game.unchecked
    me = rules.current_player(state)
    child = rules.apply(state, action)
    if rules.is_terminal(child):
        return rules.returns(child)[me] < 0
    for reply in rules.legal_actions(child):
        after = rules.apply(child, int(reply))
        if rules.is_terminal(after) and rules.returns(after)[me] < 0:
            return True
    return False


def forced_win(game, state, seat=None, hint=None, deep=False, deadline: float = 0.0):
    """The ``ForcedWin`` of ``seat`` (default: the side to move, as if to move) found by the
    game's threat-space search, or None (also when the game has none, or ``deadline`` came
    first). ``hint``: a move the search tries first (a forced win found in a nearly equal
    position); ``deep``: also wins with two threats (Gomoku's VCT2: tens of times slower);
    ``deadline``: a ``time.perf_counter`` time (0: none)."""
    found = _threat(game, state, seat, hint, deep, deadline)
    return found if isinstance(found, ForcedWin) else None


def _threat(game, state, seat, hint, deep, deadline):
    """``forced_win``'s search: its ``ForcedWin``, None when it found none, or ``OUT_OF_TIME``
    when ``deadline`` stopped it first (a search of many threats can take seconds)."""
    if not has_threats(game):
        return None
    out = np.array([-1 if hint is None else hint, 0, 0, 2 if deep else 1], dtype=np.int64)
    if seat is None:
        seat = game.unchecked.current_player(state)
    kind = compiled(__name__, game.spec).threats_root(state, game.kernel_params, seat, THREAT_DEPTH, deadline, out)
    if kind < 0:
        return OUT_OF_TIME
    if not kind:
        return None
    return ForcedWin(int(out[0]), int(out[1]), int(out[2]), kind == 1)


def defences(game, state, legal, limit: float = 0.0):
    """Against a forced win of the opponent, the legal moves that stop it; None when the
    opponent has none, or when the choice does not narrow the moves (the search decides).

    A move stops it when the opponent has no forced win of either kind after it: the double
    three coming is met before it is made, and of the blocks of an open three the one that
    leaves no other threat is taken. Where no move does that, against a win by fours (VCF:
    every move forces the answer) the moves that leave only a slower win by a threat (VCT) are
    kept, and the search weighs them: the game may be lost, but not at once. Blocking an open
    three at the end that left a VCT, where the other end left none, lost games to the one-ply
    greedy player.

    ``limit`` (a ``time.perf_counter`` time; 0: none) bounds the search on a clock, each
    threat-space search included: the moves nearest the win's first move are tried first, and
    at the limit the safe moves found so far are the defences (with none found, or the
    opponent's win not found in time, the search decides). Trying every legal move took 13 to
    31 s in positions of games at 0.2 s a move, and one search for the opponent's win up to 2 s."""
    if not has_threats(game):
        return None
    rules = game.unchecked
    them = 1 - rules.current_player(state)
    threat = forced_win(game, state, them, deadline=limit)
    if threat is None:
        return None
    legal = [int(a) for a in legal]
    if limit > 0.0:
        legal = nearest_first(game, legal, threat.move)
    safe, slower = [], []
    for a in legal:
        if limit > 0.0 and time.perf_counter() > limit:
            return safe or None
        # most moves leave the opponent's first move winning: trying it first makes them cheap
        after = _threat(game, rules.apply(state, a), them, threat.move, False, limit)
        if after is OUT_OF_TIME:  # the clock stopped it: not known to stop the win
            return safe or None
        if after is None:
            safe.append(a)
        elif threat.forcing and not after.forcing:
            slower.append(a)
    stops = safe or slower
    return stops if 0 < len(stops) < len(legal) else None


def nearest_first(game, moves, move):
    """``moves`` sorted by their distance (in king steps) from ``move``: the stops of a threat
    lie near its first move, so on a clock they are tried first."""
    n = game.kernel_params[C.P_GAME]
    r0, c0 = divmod(move, n)
    return sorted(moves, key=lambda a: max(abs(a // n - r0), abs(a % n - c0)))


def hands_a_forced_win(game, state, action, deadline: float = 0.0) -> bool:
    """Whether after ``action`` the opponent has a forced win, two threats deep (``deep``
    above), found before ``deadline`` (a ``time.perf_counter`` time; 0: none). A move can lose
    this way without losing at once (a block of one three that leaves another, a move elsewhere
    while the opponent's threat needs only one more), and a search of a thousand simulations
    spread over a hundred moves does not read the replies that far."""
    if not has_threats(game):
        return False
    rules = game.unchecked
    child = rules.apply(state, action)
    if rules.is_terminal(child):
        return False
    return forced_win(game, child, rules.current_player(child), deep=True, deadline=deadline) is not None


def root_tactics(game, state, legal, deadline: float = 0.0):
    """``(winning move or None, defences or None)`` at the root: a win in one, else a forced win
    of the threat-space search; when neither, the moves that stop the opponent's forced win.
    ``deadline`` (a ``time.perf_counter`` time; 0: none) bounds the searches (``defences``)."""
    win = wins_at_once(game, state, legal)
    if win is not None:
        return win, None
    found = forced_win(game, state, deadline=deadline)
    if found is not None:
        return found.move, None
    return None, defences(game, state, legal, deadline)
