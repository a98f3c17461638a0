"""Random openings: a few uniformly random legal moves from the start, as a tuple of action ids,
shared by everything that plays an agent against another: the tournaments' matches and their
opening suites (``tournaments.openings.Book(game, plies=K)``, re-exported as
``tournaments.random_opening``) and the tools that fit, tune or compare evaluations by playing
(``examples/tune_loa.py``, ``examples/othello_weights.py``, ``examples/othello_patterns.py``).

An opening gives two deterministic agents different games to play: each colour pair of a match
starts from its own opening, drawn from the match's seed, and plays it once with each colour.
It lives with the agents, not the tournaments, because the tuners draw openings too and must
need no referee. The one openings module of each layer, each with its own name: this one (a
named opening, replayable with both colours and recorded); the envs' ``envs.policies.random_plies``
(random plies played in place inside a compiled step, passes allowed, for training positions);
the tournaments' suites (``tournaments.openings``: books of openings read from files).
"""

from __future__ import annotations

import numpy as np

from envs import Game, ParameterError

# Random openings drawn before giving up: an opening longer than the game can last (60 plies of
# Gomoku on 7x7) ends the game at every try, and must be an error rather than a loop without end.
OPENING_TRIES = 1000


def random_opening(game: Game, rng: np.random.Generator, min_plies: int = 2, max_plies: int = 4) -> tuple[int, ...]:
    """``min_plies``..``max_plies`` uniformly random legal moves from the start (the number drawn
    uniformly too) that leave the game unfinished, as a tuple of action ids; the deal, if any, is
    ``initial_state(seed=0)``. Positions that end the game are redrawn from scratch, up to
    ``OPENING_TRIES`` times; then a ``ParameterError`` says the plies are more than the game lasts.

    An opening never passes while another move is legal: in Go a pass among the first plies
    hands the game to the side that passes next (two passes end it, and one stone owns the
    empty board), so the game would be decided before the agents play."""
    if not 0 <= min_plies <= max_plies:
        raise ParameterError(f"opening plies {min_plies}..{max_plies}: expected 0 <= min <= max")
    passing = game.pass_action
    for _ in range(OPENING_TRIES):
        state, moves = game.initial_state(seed=0), []
        plies = min_plies if min_plies == max_plies else int(rng.integers(min_plies, max_plies + 1))
        for _ in range(plies):
            legal = game.legal_actions(state)
            if len(legal) > 1:
                legal = [a for a in legal if a != passing] or legal
            moves.append(int(legal[rng.integers(len(legal))]))
            state = game.apply(state, moves[-1])
            if game.is_terminal(state):
                break
        if not game.is_terminal(state):
            return tuple(moves)
    plies = str(min_plies) if min_plies == max_plies else f"{min_plies}..{max_plies}"
    raise ParameterError(
        f"opening plies {plies}: {OPENING_TRIES} random openings of {game.name} all ended the game "
        "before their last ply (the game does not last that long); ask for fewer plies"
    )
