"""The Python face of the championship systems: option checking and a step-by-step referee.

``Referee`` drives the compiled rules of ``_systems`` one batch at a time, so that real games of a
batch can be played anywhere (worker processes, another machine) before their results come back::

    ref = Referee("swiss", 8, seed=1)
    while batch := ref.next_games():          # [Pairing(index, round, match, game, black, white)]
        ref.record([play(p) for p in batch])  # an envs.core.outcome.Outcome (or its code) per pairing
    ref.places()                              # [(lo, hi)] aggregate place of each player

Pairings depend only on the seed and the results recorded so far, so a driver that replays the
recorded results of an interrupted run gets exactly the same pairings again (that is how resuming
works).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np

from envs.core import ParameterError
from envs.core import rng as R
from envs.core.outcome import Outcome

from . import _systems as S
from ._systems import BLACK_WINS, DOUBLE_FORFEIT, DRAW, WHITE_WINS  # noqa: F401  (re-exported result codes)


@dataclass(frozen=True)
class Config:
    """A validated system with its options, in the form the kernels take."""

    system: str
    n_players: int
    k: int = 1
    recursive: bool = False
    avoid_rematches: bool = True
    rounds: int = 0
    depth: int = 0
    games: int = 0  # games per encounter (round robin, gauntlet: 2 unless given; olympic: 0, first to k)
    candidates: int = 0  # gauntlet: players 0..candidates-1 are the candidates, the others the field

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if self.system in ("round_robin", "gauntlet"):
            length = self.games // 2  # per ordered match: each colour plays half of the encounter
        else:
            length = self.games if self.system == "olympic" else -1
        return S.new_arrays(
            S.SYSTEMS[self.system],
            self.n_players,
            self.k,
            self.recursive,
            self.avoid_rematches,
            self.rounds,
            self.depth,
            length,
            self.candidates,
        )

    def options(self) -> dict:
        """The options that matter for this system (for journals and reports); a default that
        earlier versions did not record (two games per round-robin encounter) is left out, so
        their journals still resume."""
        if self.system == "olympic":
            if self.games:
                return {"games": self.games, "recursive": self.recursive}
            return {"k": self.k, "recursive": self.recursive}
        if self.system == "swiss":
            return {"rounds": self.rounds, "avoid_rematches": self.avoid_rematches}
        if self.system == "gauntlet":
            return {"candidates": self.candidates, "games": self.games}
        if self.system == "round_robin" and self.games != 2:
            return {"games": self.games}
        return {}

    def pair(self, pairing: Pairing) -> int:
        """Which colour pair of its encounter ``pairing`` belongs to, from 0: the two games of a
        pair share an opening (see ``_systems``). Round robin and gauntlet: game g of the match
        (a, b) and game g of (b, a); olympic: games 2t and 2t+1 of a match; Swiss, one game per
        encounter: the round, so every game of a round shares one."""
        if self.system == "olympic":
            return pairing.game // 2
        if self.system == "swiss":
            return pairing.round - 1
        return pairing.game

    def label(self) -> str:
        opts = ", ".join(f"{k}={v}" for k, v in self.options().items())
        return f"{self.system}({opts})" if opts else self.system


def swiss_rounds(n_players: int) -> int:
    """A real Swiss tournament's default length, as chess arbiters size it: ceil(log2 Np) rounds,
    the fewest after which a single player can have won every game; with the rematch-free pairing
    nobody meets the same opponent twice in that many rounds (more rounds eventually force
    rematches: 4 players have only 3 rematch-free rounds)."""
    return max(1, math.ceil(math.log2(max(n_players, 1))))


def study_swiss_rounds(n_players: int) -> int:
    """The study's Sw table for 8/16/32/64 players, else ceil(log2 Np) + 2: the default of
    ``configure`` (the simulator's), so the study's tables keep their number of rounds."""
    return S.SWISS_ROUNDS.get(n_players, math.ceil(math.log2(max(n_players, 1))) + 2)


MAX_GAMES = 10_000  # games per encounter
# the tournament systems (``_systems.SYSTEMS``)
System = Literal["round_robin", "olympic", "swiss", "random_order", "gauntlet"]


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def configure(
    system: System,
    n_players: int,
    *,
    k: int = 1,
    recursive: bool = False,
    avoid_rematches: bool = True,
    rounds: int | None = None,
    games: int | None = None,
    candidates: int | None = None,
) -> Config:
    """Validate a system name and its options for ``n_players``; raise ``ParameterError``.

    ``rounds=None`` is the study's table (``study_swiss_rounds``), which the simulator relies on;
    real tournaments (``tournaments.swiss``, ``arbiter tournament``) pass ``swiss_rounds(n)``.
    ``games``: games per encounter, even (each opening once with each colour): round robin and
    gauntlet (default 2), olympic (a match of that many games instead of first to ``k``).
    ``candidates``: the gauntlet's number of candidates, the first players; the rest is the field."""
    if system not in S.SYSTEMS:
        raise ParameterError(f"system={system!r}: expected one of {', '.join(S.SYSTEMS)}")
    if not isinstance(n_players, (int, np.integer)) or n_players < 2:
        raise ParameterError(f"{n_players!r} agent{'s' * (n_players != 1)}: a tournament needs at least 2")
    n = int(n_players)
    if not _is_int(k) or not 1 <= k <= 100:
        raise ParameterError(f"k={k!r}: expected an integer from 1 to 100 (first to k wins)")
    if system != "olympic" and (k != 1 or recursive):
        raise ParameterError(f"k= and recursive= apply to the olympic system, not {system!r}")
    if system != "swiss" and rounds is not None:
        raise ParameterError(f"rounds= applies to the swiss system, not {system!r}")
    if games is not None:
        if system not in ("round_robin", "olympic", "gauntlet"):
            raise ParameterError(
                f"games= applies to round_robin, olympic and gauntlet, not {system!r} (one game per pairing)"
            )
        if not _is_int(games) or not 2 <= games <= MAX_GAMES or games % 2:
            raise ParameterError(
                f"games={games!r}: expected an even number of games per encounter from 2 to "
                f"{MAX_GAMES} (each opening is played once with each colour)"
            )
        if system == "olympic" and k != 1:
            raise ParameterError(
                f"k={k} and games={games}: an olympic match is first to k wins or a match "
                "of a number of games, not both"
            )
    if system == "gauntlet":
        if not _is_int(candidates) or not 1 <= candidates < n:
            raise ParameterError(
                f"candidates={candidates!r}: a gauntlet needs from 1 to {n - 1} candidates "
                f"among its {n} players, and a field of at least one opponent"
            )
    elif candidates is not None:
        raise ParameterError(f"candidates= applies to the gauntlet system, not {system!r}")
    depth = 0
    if system == "olympic":
        depth = n.bit_length() - 1
        if n != 1 << depth:
            raise ParameterError(f"olympic needs a power-of-two field (2, 4, 8, ...), got {n} players")
    if system == "swiss":
        rounds = study_swiss_rounds(n) if rounds is None else rounds
        if not isinstance(rounds, (int, np.integer)) or isinstance(rounds, bool) or rounds < 1:
            raise ParameterError(f"rounds={rounds!r}: expected a positive integer")
    if games is None:
        games = 2 if system in ("round_robin", "gauntlet") else 0
    return Config(
        system,
        n,
        int(k),
        bool(recursive),
        bool(avoid_rematches),
        int(rounds or 0),
        depth,
        int(games),
        int(candidates or 0),
    )


@dataclass(frozen=True)
class Pairing:
    """One game to play: its running index in the championship, round, match and game in match."""

    index: int
    round: int
    match: int
    game: int
    black: int
    white: int


def expected_games(config: Config, seed: int = 0) -> int | None:
    """How many games the championship plays, for a progress bar: round robin and Swiss play a
    number fixed by their pairing rules (counted by pairing a copy to the end with every game
    drawn), and so does a gauntlet; olympic matches last until someone wins, so None."""
    if config.system not in ("round_robin", "swiss", "gauntlet"):
        return None
    return sum(len(batch) for batch in drawn_batches(config, seed))


def drawn_batches(config: Config, seed: int = 0) -> Iterator[list[Pairing]]:
    """The batches a copy of the championship pairs when every game is drawn: for a round robin
    or a gauntlet, whose pairings no result changes, its schedule."""
    referee = Referee(config, seed)
    while batch := referee.next_games():
        yield batch
        referee.record([DRAW] * len(batch))


class Referee:
    """One championship, stepped batch by batch (see the module docstring)."""

    def __init__(self, config: Config, seed: int = 0) -> None:
        self.config = config
        self._T, self._met, self._mt, self._out = config.arrays()
        self._rng = R.new_rng(seed)
        S.reset(self._T, self._met, self._mt, self._rng)
        self._n = 0
        self._played = 0
        self.byes: list[tuple[int, int]] = []  # (round, player)

    def next_games(self) -> list[Pairing]:
        """The next batch of games (empty when the championship is over)."""
        if self._n:
            raise RuntimeError("record() the results of the previous batch first")
        round_before = int(self._T[S.T_ROUND])
        n = int(S.next_games(self._T, self._met, self._mt, self._rng, self._out))
        rnd = int(self._T[S.T_ROUND])
        if rnd != round_before and self._T[S.T_BYE] >= 0:
            self.byes.append((rnd, int(self._T[S.T_BYE])))
        self._n = n
        batch = []
        for i in range(n):
            m, black, white = (int(v) for v in self._out[i])
            batch.append(Pairing(self._played + i, rnd, m, int(self._mt[m, S.M_GAMES]), black, white))
        return batch

    def record(self, results: Iterable[Outcome | int]) -> None:
        """Results of the last batch, in its order: each an ``Outcome`` of the game (Black is seat
        0) or its ``code``, BLACK_WINS, WHITE_WINS, DRAW or DOUBLE_FORFEIT."""
        results = [r.code if isinstance(r, Outcome) else r for r in results]
        codes = (BLACK_WINS, WHITE_WINS, DRAW, DOUBLE_FORFEIT)
        if len(results) != self._n or not all(isinstance(r, (int, np.integer)) and r in codes for r in results):
            raise ValueError(f"expected {self._n} results in {{{', '.join(map(str, codes))}}}, got {results!r}")
        res = np.asarray(results, dtype=np.int64)
        S.record(self._T, self._met, self._mt, self._out, res, self._n, self._rng)
        self._played += self._n
        self._n = 0

    def stop(self, player: int) -> int:
        """End every undecided match of ``player`` in the current round, between batches: its
        remaining games are not played (a gauntlet candidate whose sequential test has decided);
        returns how many games that leaves out. The points already scored stand; the matches are
        marked drawn (no system of one round reads that mark). Round robin and gauntlet only: a
        knock-out match needs a winner, and a Swiss round would pair the player again."""
        if self._n:
            raise RuntimeError("record() the results of the previous batch first")
        if self.config.system not in ("round_robin", "gauntlet"):
            raise ValueError(f"stop: only round robin and gauntlet stop a player's matches, not {self.config.system}")
        mt = self._mt[: int(self._T[S.T_NMATCH])]
        open_ = (mt[:, S.M_WINNER] == S.UNDECIDED) & ((mt[:, S.M_A] == player) | (mt[:, S.M_B] == player))
        mt[open_, S.M_WINNER] = S.DRAWN
        return int((self._T[S.T_LEN] - mt[open_, S.M_GAMES]).sum())

    @property
    def finished(self) -> bool:
        return bool(self._T[S.T_DONE])

    def points(self) -> np.ndarray:
        """Points per player (``Outcome.points``: win 1, draw 1/2; a bye 1)."""
        return S.blk(self._T, S.B_PTS) / 2.0

    def places(self) -> list[tuple[int, int]]:
        """Aggregate place interval (lo, hi) of every player, 1 = first."""
        n = self.config.n_players
        lo, hi = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        S.places(self._T, lo, hi)
        return list(zip(lo.tolist(), hi.tolist()))
