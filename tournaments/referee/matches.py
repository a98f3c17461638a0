"""Evaluation matches: seeded, colour-balanced, with a standard error on the score.

    result = tournaments.match(game, agents.make("alphazero"), agents.make("greedy", seed=1), games=100)
    result.score, result.se, result.wins, result.draws, result.losses, result.beats
    result = tournaments.match("greedy", "random", game="gomoku", game_params={"size": 9},
                               sprt=(0, 50, 0.05, 0.05), games=400)     # sequential: stops early
    result.sprt.decision, result.sprt.llr, result.pentanomial
    tournaments.solitaire(envs.make_game("calculation"), agents.make("greedy"), games=100)
    tournaments.duplicate(envs.make_game("calculation"), "ppo", "random", games=100)  # same deals

A match of ``games`` games (even) is played in pairs: both games of a pair start from the same
opening of 2-4 uniformly random plies drawn from ``seed`` (so deterministic agents do not replay
one game), A moving first in one and second in the other, hence half the games with A as first
player. A's score is (wins + draws/2) / games, with standard error sd(per-game score)/sqrt(games)
and a 95% ``interval`` from the pairs (``sprt.score_interval``: Wilson-style, so twelve games all
won give [0.61, 1], not a standard error of 0); "A beats B" is claimed only when that interval
lies above 0.5. A resignation counts as a loss.

With ``sprt=(elo0, elo1, alpha, beta)`` the match is sequential (``tournaments.sprt``): after every
pair the pentanomial LLR is compared with the test's bounds, and the match stops as soon as it
accepts H0 or H1; ``games`` is then the maximum, reached only by an undecided match.

Every game is played by ``tournaments.play_game``. An agent that cannot play the game here (it
does not apply, has no weights for it, lacks an extra: its ``check_ready``) is an ``AgentError``
before the first game. A forfeit (a crash, an illegal action) is not counted as a loss but
raises ``MatchError``: a match measures strength, and an agent that breaks during one has a bug
that a lost game would hide.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass

import numpy as np

import agents
import envs
from agents.openings import random_opening
from envs import ParameterError
from envs.core import rng as R

from ..analysis.sprt import SPRT, SPRTStatus, elo_interval, format_elo, score_interval
from .play import GameOutcome, check_players, play_game


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
    pentanomial: tuple = ()  # pairs in which A scored 0, 0.5, 1, 1.5, 2 points
    sprt: SPRTStatus | None = None  # the sequential test's final state (a match with sprt=)
    interval: tuple = ()  # (lo, hi): 95% interval of the score (``sprt.score_interval``)
    move_seconds: float = 0.0  # mean wall seconds of a move, both agents, openings left out

    @property
    def beats(self) -> bool:
        """Whether A is shown stronger: the score's 95% interval lies above 0.5 (without one,
        for a result built by hand, score - 2 SE > 0.5)."""
        if self.interval:
            return self.interval[0] > 0.5
        return self.score - 2 * self.se > 0.5

    def as_dict(self) -> dict:
        out = {
            **asdict(self),
            "beats": self.beats,
            "pentanomial": list(self.pentanomial),
            "interval": list(self.interval),
        }
        out["sprt"] = self.sprt.as_dict() if self.sprt is not None else None
        return out

    def __str__(self) -> str:
        verdict = "beats" if self.beats else "does not beat"
        if self.interval:
            spread, rule = f"[{self.interval[0]:.3f}, {self.interval[1]:.3f}] (95%)", "its 95% interval above 0.5"
        else:
            spread, rule = f"± {self.se:.3f}", "score - 2SE > 0.5"
        text = (
            f"score {self.score:.3f} {spread} (W/D/L {self.wins}/{self.draws}/{self.losses}"
            f" of {self.games}); {verdict} (needs {rule})"
        )
        return text if self.sprt is None else text + "\n" + str(self.sprt)


def _checked(game, players, outcome: GameOutcome, what: str) -> GameOutcome:
    """``outcome``, unless an agent forfeited: then ``MatchError`` naming the agent and the fault."""
    if outcome.forfeit:
        seat = outcome.loser
        name = getattr(players[seat], "name", "") or type(players[seat]).__name__
        raise MatchError(
            f"{game.name} {what}: agent {name!r} (seat {seat}) forfeited after "
            f"{outcome.plies} plies ({outcome.reason}): {outcome.detail}"
        )
    return outcome


def _resolve_players(args, game, kwargs):
    """(game, a, b, rest) from ``match``'s two call forms: ``match(game, a, b, games, seed, ...)``
    and ``match(a, b, game=..., ...)``."""
    args = list(args)
    if game is None:
        if len(args) < 3:
            raise ParameterError(
                f"match: expected match(game, a, b, ...) or match(a, b, game=...), "
                f"got {len(args)} positional arguments and no game="
            )
        game, args = args[0], args[1:]
    if len(args) < 2:
        raise ParameterError(f"match: expected two agents, got {len(args)}")
    a, b, rest = args[0], args[1], args[2:]
    names = ("games", "seed", "min_plies", "max_plies", "progress")
    if len(rest) > len(names):
        raise ParameterError(f"match: too many positional arguments ({len(args) + 1})")
    for name, value in zip(names, rest):
        if name in kwargs:
            raise ParameterError(f"match: {name} given both by position and as {name}=")
        kwargs[name] = value
    return game, a, b


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed={seed!r}: expected a non-negative integer")


def _agent(entry, seed: int):
    """An agent object, or a spec string made into one with ``seed``."""
    if isinstance(entry, str):
        return agents.make(entry, seed=seed)
    if not callable(getattr(entry, "act", None)):
        raise ParameterError(f"agent {entry!r}: expected an agent spec or an object with act(game, state)")
    return entry


def match(*args, game=None, game_params=None, sprt=None, **kwargs) -> MatchResult:
    """Play agent ``a`` against agent ``b`` under the protocol of the module docstring.

    Called as ``match(game, a, b, games=100, seed=0, min_plies=2, max_plies=4, progress=None)``
    or ``match(a, b, game=..., ...)``. ``game`` is a Game or a registered name made with
    ``game_params``; ``a`` and ``b`` are agents or specs for ``agents.make`` (seeded ``seed`` and
    ``seed + 1``). ``sprt``: ``(elo0, elo1, alpha, beta)`` or a ``tournaments.sprt.SPRT`` makes
    the match sequential, ``games`` its maximum. ``progress(pairs_done, pairs)`` is called after
    every colour pair, with a third argument, the ``SPRTStatus``, in a sequential match (so a
    caller can print the LLR as the match goes). ``lines(text)`` is called after every colour
    pair with the running line cutechess-cli and fastchess print (``score_line``).
    """
    unknown = set(kwargs) - {"games", "seed", "min_plies", "max_plies", "progress", "lines"}
    if unknown:
        raise ParameterError(f"match: unexpected argument(s) {', '.join(sorted(unknown))}")
    game, a, b = _resolve_players(args, game, kwargs)
    games, seed = kwargs.get("games", 100), kwargs.get("seed", 0)
    min_plies, max_plies = kwargs.get("min_plies", 2), kwargs.get("max_plies", 4)
    progress, lines = kwargs.get("progress"), kwargs.get("lines")
    labels = [_display(x) for x in (a, b)]
    if isinstance(game, str):
        game = envs.make_game(game, **dict(game_params or {}))
    elif game_params:
        raise ParameterError(f"game_params={game_params!r}: only with a game name, not a Game object")
    if game.num_players != 2:
        raise ParameterError(
            f"match: {game.name} has {game.num_players} player(s); use solitaire() or duplicate() for it"
        )
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 2 or games % 2:
        raise ParameterError(f"games={games!r}: expected an even number of at least 2 (colour pairs)")
    test = SPRT.of(sprt) if sprt is not None else None
    _check_seed(seed)
    a, b = _agent(a, seed), _agent(b, seed + 1)
    check_players([a, b], game)  # an agent that cannot play the game here: an error before the first game
    rng = R.generator(seed)  # the match's openings, pair by pair
    start = time.perf_counter()
    scores = []
    penta = [0] * 5
    status = None
    thought, moved = 0.0, 0
    for pair in range(games // 2):
        opening = random_opening(game, rng, min_plies, max_plies)
        points = 0.0
        for a_seat in (0, 1):
            players = [a, b] if a_seat == 0 else [b, a]
            outcome = play_game(game, players, seed=0, opening=opening)
            _checked(game, players, outcome, f"match, game {2 * pair + a_seat + 1} of {games}")
            thought, moved = thought + outcome.seconds, moved + outcome.plies - outcome.opening
            scores.append(outcome.points(a_seat))
            points += scores[-1]
        penta[int(round(points * 2))] += 1
        if test is not None:
            status = test.status(penta)
        if progress is not None:
            progress(pair + 1, games // 2, *(() if test is None else (status,)))
        if lines is not None:
            s = np.asarray(scores)
            lines(score_line(*labels, int((s == 1).sum()), int((s == 0).sum()), int((s == 0.5).sum()), penta, status))
        if status is not None and status.decision != "undecided":
            break
    s = np.asarray(scores)
    wins, draws = int((s == 1).sum()), int((s == 0.5).sum())
    _, lo, hi = score_interval(penta)
    return MatchResult(
        games=len(s),
        wins=wins,
        draws=draws,
        losses=len(s) - wins - draws,
        score=float(s.mean()),
        se=_se(s),
        seconds=round(time.perf_counter() - start, 1),
        pentanomial=tuple(penta),
        sprt=status,
        interval=(lo, hi),
        move_seconds=thought / max(moved, 1),
    )


def _display(entry) -> str:
    """An agent's name in a line: its spec, or an agent object's ``name``."""
    return entry if isinstance(entry, str) else getattr(entry, "name", "") or type(entry).__name__


def score_line(a: str, b: str, wins: int, losses: int, draws: int, pentanomial, status=None) -> str:
    """The running line of a match as cutechess-cli prints it, ``Score of A vs B: W - L - D
    [score] N``, then the Elo of A over B with its 95% interval from the colour pairs
    (``sprt.elo_interval``: where the pairs do not bound it, a one-sided bound, never a
    zero-width "± 0") and, in a sequential match, the LLR between its bounds, as fastchess
    reports it."""
    n = wins + losses + draws
    score = (wins + draws / 2) / n if n else 0.5
    text = f"Score of {a} vs {b}: {wins} - {losses} - {draws} [{score:.3f}] {n}, Elo {format_elo(*elo_interval(pentanomial))}"
    if status is not None:
        text += f", LLR {status.llr:+.2f} ({status.lower:.2f}, {status.upper:.2f})"
        if status.decision != "undecided":
            text += f", {status.decision} accepted"
    return text


@dataclass
class SolitaireResult:
    games: int
    won: int
    score: float
    se: float
    cards: float  # mean cards on the foundations at the end (4..52): progress in lost deals too
    cards_se: float
    seconds: float
    interval: tuple = ()  # (lo, hi): Wilson's 95% interval of the win rate

    def as_dict(self) -> dict:
        return {**asdict(self), "interval": list(self.interval)}

    def __str__(self) -> str:
        spread = f"[{self.interval[0]:.3f}, {self.interval[1]:.3f}] (95%)" if self.interval else f"± {self.se:.3f}"
        return (
            f"won {self.won} of {self.games} deals: {self.score:.3f} {spread}; "
            f"cards on foundations {self.cards:.1f} ± {self.cards_se:.1f}"
        )


def solitaire(game, agent, games: int = 100, seed: int = 0) -> SolitaireResult:
    """Win rate of ``agent`` over ``games`` seeded deals of a one-player game (Calculation)."""
    if game.num_players != 1:
        raise ParameterError(f"solitaire: {game.name} has {game.num_players} players; use match() for it")
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 1:
        raise ParameterError(f"games={games!r}: expected a positive number of deals")
    _check_seed(seed)
    check_players([agent], game)
    rng = R.generator(seed)  # the match's openings, pair by pair
    start = time.perf_counter()
    ends, points = [], []
    for k in range(games):
        outcome = play_game(game, [agent], seed=int(rng.integers(2**62)))
        ends.append(_checked(game, [agent], outcome, f"solitaire, deal {k + 1} of {games}").state)
        points.append(outcome.points(0))
    s = np.array(points)
    cards = np.array([game.foundation_cards(end) for end in ends], dtype=np.float64)
    won = int(s.sum())
    _, lo, hi = score_interval([games - won, won], scores=[0.0, 1.0])
    return SolitaireResult(
        games=games,
        won=won,
        score=float(s.mean()),
        se=_se(s),
        cards=float(cards.mean()),
        cards_se=_se(cards),
        seconds=round(time.perf_counter() - start, 1),
        interval=(lo, hi),
    )


def duplicate(game, a, b, games: int = 100, seed: int = 0) -> MatchResult:
    """Compare two agents of a one-player game on the same deals (duplicate scoring).

    Both agents play each of ``games`` seeded deals (agents built from specs are seeded ``seed``
    and ``seed + 1``); on each deal A wins if it won the deal and B did not, or both won or both
    lost and A put more cards on the foundations; equal results are a draw. The result reads like
    a match's: score = (wins + draws/2) / games with its standard error and 95% interval (the
    deals are independent: ``score_interval`` of the per-deal scores), and "A beats B" when that
    interval lies above 0.5. Comparing on the same deals removes the luck of the deal, which decides
    most of a patience's outcome, so far fewer deals tell two agents apart than two
    ``solitaire`` runs would.
    """
    if game.num_players != 1:
        raise ParameterError(f"duplicate: {game.name} has {game.num_players} players; use match() for it")
    if not isinstance(games, (int, np.integer)) or isinstance(games, bool) or games < 1:
        raise ParameterError(f"games={games!r}: expected a positive number of deals")
    _check_seed(seed)
    a, b = _agent(a, seed), _agent(b, seed + 1)
    check_players([a, b], game)
    rng = R.generator(seed)  # the match's openings, pair by pair
    start = time.perf_counter()
    scores = []
    for k in range(games):
        deal = int(rng.integers(2**62))
        results = []
        for agent in (a, b):
            outcome = play_game(game, [agent], seed=deal)
            end = _checked(game, [agent], outcome, f"duplicate, deal {k + 1} of {games}").state
            results.append((outcome.points(0), game.foundation_cards(end)))
        scores.append(0.5 if results[0] == results[1] else float(results[0] > results[1]))
    s = np.asarray(scores)
    wins, draws = int((s == 1).sum()), int((s == 0.5).sum())
    _, lo, hi = score_interval([len(s) - wins - draws, draws, wins], scores=[0.0, 0.5, 1.0])
    return MatchResult(
        games=len(s),
        wins=wins,
        draws=draws,
        losses=len(s) - wins - draws,
        score=float(s.mean()),
        se=_se(s),
        seconds=round(time.perf_counter() - start, 1),
        interval=(lo, hi),
    )


def _se(x: np.ndarray) -> float:
    """Standard error of the mean of ``x`` (0 for a single value)."""
    return float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0
