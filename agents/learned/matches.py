"""The evaluation protocol of the learned agents (issue 6, STUDY.md §5): seeded, colour-balanced matches.

    result = match(game, agents.make("alphazero"), agents.make("greedy", seed=1), games=100, seed=0)
    result.score, result.se, result.wins, result.draws, result.losses, result.beats

A match of ``games`` games (even) is played in pairs: both games of a pair start from the same
opening of 2-4 uniformly random plies drawn from ``seed`` (so deterministic agents do not replay
one game), A moving first in one and second in the other, hence half the games with A as first
player. A's score is (wins + draws/2) / games, with standard error sd(per-game score)/sqrt(games);
"A beats B" is claimed only when score - 2 SE > 0.5.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

from agents.openings import random_opening
from envs import _common as C


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


def opening(game, rng: np.random.Generator, min_plies: int = 2, max_plies: int = 4):
    """A start position after ``min_plies``..``max_plies`` uniformly random legal moves, still ongoing."""
    state = game.initial_state(seed=0)
    for action in random_opening(game, rng, min_plies, max_plies):
        state = game.apply(state, action)
    return state


def finish(game, players, state) -> np.ndarray:
    """Play ``state`` to the end with ``players[seat]`` moving for each seat; return the end."""
    for player in players:
        player.reset()
    while state[C.H_STATUS] == C.ONGOING:
        state = game.apply(state, players[game.current_player(state)].act(game, state))
    return state


def play_out(game, players, state) -> np.ndarray:
    """The returns of ``state`` played to the end by ``players``."""
    return game.returns(finish(game, players, state))


def match(game, a, b, games: int = 100, seed: int = 0, min_plies: int = 2, max_plies: int = 4,
          progress=None) -> MatchResult:
    """Play agent ``a`` against agent ``b`` under the protocol of the module docstring."""
    if games < 2 or games % 2:
        raise ValueError(f"games={games!r}: expected an even number of at least 2 (colour pairs)")
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    scores = []
    for pair in range(games // 2):
        state = opening(game, rng, min_plies, max_plies)
        for a_seat in (0, 1):
            players = [a, b] if a_seat == 0 else [b, a]
            outcome = play_out(game, players, state)[a_seat]
            scores.append((outcome + 1) / 2)
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
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    ends = [finish(game, [agent], game.initial_state(seed=int(rng.integers(2**62)))) for _ in range(games)]
    s = np.array([game.returns(end)[0] for end in ends])
    cards = np.array([game.foundation_cards(end) for end in ends], dtype=np.float64)
    return SolitaireResult(games=games, won=int(s.sum()), score=float(s.mean()), se=_se(s),
                           cards=float(cards.mean()), cards_se=_se(cards),
                           seconds=round(time.perf_counter() - start, 1))


def _se(x: np.ndarray) -> float:
    """Standard error of the mean of ``x`` (0 for a single value)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0
