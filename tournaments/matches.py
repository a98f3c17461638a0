"""Evaluation matches: seeded, colour-balanced, with a standard error on the score.

    result = tournaments.match(game, agents.make("alphazero"), agents.make("greedy", seed=1), games=100)
    result.score, result.se, result.wins, result.draws, result.losses, result.beats
    tournaments.solitaire(envs.make_game("calculation"), agents.make("greedy"), games=100)

A match of ``games`` games (even) is played in pairs: both games of a pair start from the same
opening of 2-4 uniformly random plies drawn from ``seed`` (so deterministic agents do not replay
one game), A moving first in one and second in the other, hence half the games with A as first
player. A's score is (wins + draws/2) / games, with standard error sd(per-game score)/sqrt(games);
"A beats B" is claimed only when score - 2 SE > 0.5. A resignation counts as a loss.

Every game is played by ``tournaments.play_game``. A forfeit (a crash, an illegal action) is not
counted as a loss but raises ``MatchError``: a match measures strength, and an agent that breaks
during one has a bug that a lost game would hide.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from agents.openings import random_opening
from envs import ParameterError

from .play import GameOutcome, play_game


class MatchError(RuntimeError):
    """A game of a match or solitaire run ended by an agent's forfeit (its detail says why)."""


@dataclass
class MatchResult:
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    se: float
    seconds: float

    @property
    def beats(self) -> bool:
        return self.score - 2 * self.se > 0.5

    def as_dict(self) -> dict:
        return {**asdict(self), "beats": self.beats}

    def __str__(self) -> str:
        verdict = "beats" if self.beats else "does not beat"
        return (f"score {self.score:.3f} ± {self.se:.3f} (W/D/L {self.wins}/{self.draws}/{self.losses}"
                f" of {self.games}); {verdict} (needs score - 2SE > 0.5)")


def _checked(game, players, outcome: GameOutcome, what: str) -> GameOutcome:
    """``outcome``, unless an agent forfeited: then ``MatchError`` naming the agent and the fault."""
    if outcome.forfeit:
        seat = min(range(len(outcome.returns)), key=lambda s: outcome.returns[s])
        name = getattr(players[seat], "name", "") or type(players[seat]).__name__
        raise MatchError(f"{game.name} {what}: agent {name!r} (seat {seat}) forfeited after "
                         f"{outcome.plies} plies ({outcome.reason}): {outcome.detail}")
    return outcome


def match(game, a, b, games: int = 100, seed: int = 0, min_plies: int = 2, max_plies: int = 4,
          progress=None) -> MatchResult:
    """Play agent ``a`` against agent ``b`` under the protocol of the module docstring.
    ``progress(pairs_done, pairs)`` is called after every colour pair."""
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 2 or games % 2:
        raise ParameterError(f"games={games!r}: expected an even number of at least 2 (colour pairs)")
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    scores = []
    for pair in range(games // 2):
        opening = random_opening(game, rng, min_plies, max_plies)
        for a_seat in (0, 1):
            players = [a, b] if a_seat == 0 else [b, a]
            outcome = play_game(game, players, seed=0, opening=opening)
            _checked(game, players, outcome, f"match, game {2 * pair + a_seat + 1} of {games}")
            scores.append((outcome.returns[a_seat] + 1) / 2)
        if progress is not None:
            progress(pair + 1, games // 2)
    s = np.asarray(scores)
    wins, draws = int((s == 1).sum()), int((s == 0.5).sum())
    return MatchResult(games=len(s), wins=wins, draws=draws, losses=len(s) - wins - draws,
                       score=float(s.mean()), se=_se(s), seconds=round(time.perf_counter() - start, 1))


@dataclass
class SolitaireResult:
    games: int
    won: int
    score: float
    se: float
    cards: float  # mean cards on the foundations at the end (4..52): progress in lost deals too
    cards_se: float
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        return (f"won {self.won} of {self.games} deals: {self.score:.3f} ± {self.se:.3f}; "
                f"cards on foundations {self.cards:.1f} ± {self.cards_se:.1f}")


def solitaire(game, agent, games: int = 100, seed: int = 0) -> SolitaireResult:
    """Win rate of ``agent`` over ``games`` seeded deals of a one-player game (Calculation)."""
    if game.num_players != 1:
        raise ParameterError(f"solitaire: {game.name} has {game.num_players} players; use match() for it")
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    ends = []
    for k in range(games):
        outcome = play_game(game, [agent], seed=int(rng.integers(2**62)))
        ends.append(_checked(game, [agent], outcome, f"solitaire, deal {k + 1} of {games}").state)
    s = np.array([game.returns(end)[0] for end in ends])
    cards = np.array([game.foundation_cards(end) for end in ends], dtype=np.float64)
    return SolitaireResult(games=games, won=int(s.sum()), score=float(s.mean()), se=_se(s),
                           cards=float(cards.mean()), cards_se=_se(cards),
                           seconds=round(time.perf_counter() - start, 1))


def _se(x: np.ndarray) -> float:
    """Standard error of the mean of ``x`` (0 for a single value)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0
