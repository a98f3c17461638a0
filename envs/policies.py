"""The move policies compiled into the environments and shared with the agents: the random plies
an episode starts after (``opening_plies``) and the greedy player (the uniformly random move is
``envs.core.hooks.uniform_move``, the default playout's own).

``random_plies`` is not the tournaments' ``random_opening`` (``tournaments.openings``): it plays
its plies in place inside a compiled step, from the episode's own stream, and any legal move may
be drawn, a pass included, where a tournament's opening is a list of action ids drawn in Python
from a match's seed that never passes while another move is legal (so a Go game is not handed to
one side before the agents play). A learner meets more positions from either; a referee needs
openings it can name, repeat with both colours and record.

The vector env's and the Gymnasium env's built-in opponents (``opponent="random"`` or
``"greedy"``) play these inside the compiled step, drawing from the episode's own stream, and
``agents.make("random")``/``agents.make("greedy")`` run the same code, so the opponent a learner
trains against is exactly the agent it is later evaluated against. Generic code (``@per_game``),
specialised per game.
"""

import numpy as np

from .core import hooks as H
from .core import kernel as C
from .core import rng as R
from .core.generic import per_game

G = None  # the game's hook namespace, bound per game by envs.core.specialise

OPENING_TRIES = 16  # random starts dealt before ``random_plies`` keeps the plain start


@per_game
def random_plies(s, p, rng, lo, hi, moves):
    """Play random plies on the start position ``s`` in place (the envs' ``opening_plies``): a
    number of plies drawn uniformly from ``lo..hi``, each uniform over the legal moves. Plies
    that end the game are dealt again from a new start (``OPENING_TRIES`` times, then ``s`` keeps
    the plain start), so an episode never begins finished. ``moves``: scratch of ``num_actions``
    cells."""
    for _ in range(OPENING_TRIES):
        for _ in range(lo + R.randint(rng, hi - lo + 1)):
            if s[C.H_STATUS] != C.ONGOING:
                break
            G.apply(s, p, H.uniform_move(s, p, rng, moves))
        if s[C.H_STATUS] == C.ONGOING:
            return
        G.init(s, p, rng)


# scores of a move that ends the game, above and below every tactical score
WIN, DRAW, LOSS = 1e18, -1e17, -1e18


@per_game(inline=True)
def greedy_move(s, p, w, rng, moves, child):
    """The greedy policy (``agents.make("greedy")``, and the vector env's ``opponent="greedy"``):
    the best move of ongoing ``s`` by its one-ply outcome (a win taken, a loss or a draw avoided
    when anything else is available), then by the game's ``tactical`` score with weights ``w``;
    ties broken uniformly from ``rng`` (reservoir sampling). ``child`` is a state-sized scratch."""
    n = G.legal_actions(s, p, moves)
    mover = s[C.H_PLAYER]
    best = -np.inf
    choice = moves[0]
    ties = 0
    for i in range(n):
        a = moves[i]
        C.copy(child, s, s.shape[0])
        G.apply(child, p, a)
        if child[C.H_STATUS] != C.ONGOING:
            winner = child[C.H_WINNER]
            score = WIN if winner == mover else (DRAW if winner == C.NO_WINNER else LOSS)
        else:
            score = G.tactical(s, child, p, a, w)
        if score > best:
            best = score
            choice = a
            ties = 1
        elif score == best:
            ties += 1
            if R.randint(rng, ties) == 0:
                choice = a
    return choice


@per_game
def greedy(s, p, w, rng, moves, child):
    """``greedy_move`` as an entry point of its own (the greedy agent's one compiled call)."""
    return greedy_move(s, p, w, rng, moves, child)
