"""The player model of a simulation: how strong the players are, how a game between two of them
ends, and how the championship's places are read. Validated here, before anything reaches the
compiled simulator; bad values raise ``envs.ParameterError`` (a ``ValueError``) naming them.

Strengths (``strengths=``):
  ``"study"``           the study's model (default): Np strengths uniform, rescaled so the weakest
                        is 0 and the strongest 1, drawn afresh for every championship;
                        P(n beats m) = 0.5 + (A - 0.5)(F_n - F_m), with A in [0.5, 1];
  a sequence of Elo     fixed Bradley–Terry/Elo strengths, one per player (the starting draw
                        still shuffles them into the bracket);
                        P(n beats m) = 1 / (1 + 10 ** ((R_m - R_n) / 400));
  ``("normal", sd)``    Elo ratings drawn N(0, sd²) for every championship, same formula;
  ``("uniform", width)`` Elo ratings drawn uniform on [0, width] for every championship.
Players of equal strength are ranked by index for the metrics' "true place".

Games: with probability ``draw`` a game is drawn (half a point each, as in real tournaments; a
drawn game does not count towards an olympic match's k); otherwise Black, who moves first, wins
with probability p + ``first_move_advantage``, clipped to [0, 1]. The defaults (0, 0) are the
study's model. Black's expected score is then 0.5 + (1 - draw)(p + shift - 0.5).

Placing (``placing=``): ``"points"`` (the system's own placing: points, or the knock-out's
aggregate places) or ``"ratings"`` (a Bradley–Terry fit on every game of the championship;
ratings closer than 1e-9 share their places).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from envs.core import ParameterError

from . import kernels as K

DISTRIBUTIONS = {"normal": K.ELO_NORMAL, "uniform": K.ELO_UNIFORM}
PLACINGS = {"points": K.POINTS, "ratings": K.RATINGS}
# how a championship's places are decided (``PLACINGS``)
Placing = Literal["points", "ratings"]
# the players' strengths: the study's (from ``A``), a (distribution of ``DISTRIBUTIONS``, scale in
# Elo) pair, or one Elo rating per player
Strengths = Literal["study"] | tuple[Literal["normal", "uniform"], float] | Sequence[float]


def _number(name, value, lo, hi):
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or not lo <= value <= hi
    ):
        raise ParameterError(f"{name}={value!r}: expected a number in [{lo:g}, {hi:g}]")
    return float(value)


@dataclass(frozen=True)
class Model:
    """A validated player model (see the module docstring)."""

    kind: int
    A: float | None
    draw: float
    first_move_advantage: float
    scale: float
    placing: str
    cycles: int
    elo: tuple

    def arrays(self, n_players: int) -> tuple[np.ndarray, np.ndarray]:
        """(model, elo) as the kernels take them."""
        model = np.zeros(K.MODEL_SIZE)
        model[K.MODEL_KIND] = self.kind
        model[K.MODEL_A] = 0.5 if self.A is None else self.A
        model[K.MODEL_DRAW] = self.draw
        model[K.MODEL_FMA] = self.first_move_advantage
        model[K.MODEL_SCALE] = self.scale
        model[K.MODEL_PLACING] = PLACINGS[self.placing]
        model[K.MODEL_CYCLES] = self.cycles
        elo = np.array(self.elo, dtype=np.float64) if self.elo else np.zeros(n_players)
        return model, elo


def make_model(
    n_players: int,
    A: float | None = None,
    *,
    strengths: Strengths = "study",
    draw: float = 0.0,
    first_move_advantage: float = 0.0,
    placing: Placing = "points",
    cycles: int = 1,
    system: str = "round_robin",
) -> Model:
    """Check every parameter of the model; raise ``ParameterError`` naming a bad one."""
    draw = _number("draw", draw, 0.0, 1.0)
    shift = _number("first_move_advantage", first_move_advantage, -1.0, 1.0)
    if placing not in PLACINGS:
        raise ParameterError(f"placing={placing!r}: expected one of {', '.join(PLACINGS)}")
    if isinstance(cycles, bool) or not isinstance(cycles, (int, np.integer)) or not 1 <= cycles <= 100:
        raise ParameterError(f"cycles={cycles!r}: expected an integer from 1 to 100")
    if cycles != 1 and system != "round_robin":
        raise ParameterError(f"cycles= applies to round_robin, not {system!r}")
    scale, elo = 0.0, ()
    if isinstance(strengths, str) and strengths == "study":
        if A is None:
            raise ParameterError("A=None: the study's strengths need A, a number in [0.5, 1]")
        A = _number("A", A, 0.5, 1.0)
        return Model(K.STUDY, A, draw, shift, 0.0, placing, int(cycles), ())
    if A is not None:
        raise ParameterError(
            f"A={A!r} applies to the study's strengths only; Elo strengths set the "
            "win probabilities themselves (pass A=None)"
        )
    if isinstance(strengths, tuple) and len(strengths) == 2 and isinstance(strengths[0], str):
        name, scale = strengths
        if name not in DISTRIBUTIONS:
            raise ParameterError(f"strengths=({name!r}, ...): expected one of {', '.join(DISTRIBUTIONS)}")
        scale = _number(f"strengths=({name!r}, scale)", scale, 1e-9, 1e5)
        return Model(DISTRIBUTIONS[name], None, draw, shift, scale, placing, int(cycles), ())
    if isinstance(strengths, str):
        raise ParameterError(
            f"strengths={strengths!r}: expected 'study', a (distribution, scale) pair "
            f"with a distribution in {', '.join(DISTRIBUTIONS)}, or {n_players} Elo ratings"
        )
    try:
        elo = np.asarray(strengths, dtype=np.float64)
    except (TypeError, ValueError):
        raise ParameterError(f"strengths={strengths!r}: expected {n_players} Elo ratings") from None
    if elo.shape != (n_players,) or not np.isfinite(elo).all():
        raise ParameterError(f"strengths={strengths!r}: expected {n_players} finite Elo ratings, one per player")
    return Model(K.ELO_FIXED, None, draw, shift, 0.0, placing, int(cycles), tuple(elo.tolist()))


def rating_places(scores: ArrayLike, games: ArrayLike) -> list[tuple[int, int]]:
    """Places ``[(lo, hi)]`` from a Bradley–Terry fit: ``scores[i, j]`` points i took from j (a
    draw half a point), ``games[i, j]`` games between them; the compiled fit behind
    ``placing="ratings"`` (``tournaments.analysis.ratings.bradley_terry``'s model and prior)."""
    s = np.asarray(scores, dtype=np.float64)
    g = np.asarray(games, dtype=np.int64)
    n = s.shape[0] if s.ndim == 2 else -1
    if s.shape != (n, n) or g.shape != (n, n) or n < 1:
        raise ParameterError(f"scores {s.shape} and games {g.shape}: expected two square arrays of one size")
    half = np.rint(2 * s).astype(np.int64)
    if not np.allclose(half, 2 * s) or (g < 0).any() or (half < 0).any() or (half + half.T != 2 * g).any():
        raise ParameterError("scores: expected half-points with scores[i, j] + scores[j, i] == games[i, j]")
    lo, hi = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    K.rating_places(half, g, lo, hi)
    return list(zip(lo.tolist(), hi.tolist()))
