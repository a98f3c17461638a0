"""What a tournament's games say about its agents: the rating table, the likelihood of
superiority, the probability of being the best, and colour pairs counted as pentanomials.

    stats = result.statistics()            # a TournamentResult's games (or statistics(names, records))
    stats.ratings[0].name, stats.ratings[0].elo, stats.ratings[0].margin, stats.ratings[0].p_best
    stats.los_of("a", "b")                 # P(a is stronger than b | the games)
    stats.encounters                       # per pair of agents: games, points, pentanomial, pair Elo
    print(stats.table())                   # the rating table as the CLI prints it

Ratings are ``tournaments.analysis.ratings.fit_model``'s Bradley–Terry fit (Elo, 95% margins) with, by
default, Ordo's first-move (white) advantage and the Rao–Kupper draw model of BayesElo's drawelo,
both reported in Elo with their margins (``Statistics.advantage``, ``Statistics.draw_elo``); Black
moves first in every game here. Records are matched to agents by the names they carry.

Two likelihoods of superiority, not to be confused:

* the model's LOS (``los``): the posterior probability that R_i > R_j given every game, so two
  agents that never met are compared through their common opponents, as BayesElo's LOS matrix
  does. It and ``p_best`` (the probability that an agent is the strongest of all) come from
  seeded weighted draws of the exact posterior (``ratings.Model.sample``, importance sampling), not
  from its normal approximation, which puts mass where the likelihood has none: an agent that lost
  every game has P(best) near 0, as the exact posterior says. The seed is the tournament's unless
  one is passed;
* the head-to-head LOS (``h2h``) as cutechess prints it: Φ((W − L) / √(W + L)) over the two
  agents' own games, draws ignored; undefined (NaN, None) without a decisive game between them.

Colour pairs: two games form a pair when the same two agents play them with colours reversed, in
the same round, from the same opening (the record's first ``opening`` moves, none included), as
engine runners play each opening once with each colour; games are matched in the order they were
played, so repeated encounters form successive pairs. A pair scores 0, 1/2, 1, 3/2 or 2 points for
one side, and the five counts are the pentanomial that ``tournaments.sprt`` reads: a pair, not a
game, is the independent unit when an opening favours one colour, so the pair-based Elo interval
(``sprt.elo_interval``) is the honest one for an encounter of paired games.

``statistics(..., anchors=...)`` fixes agents at a given Elo as Ordo does (``ratings.fit``);
``tournaments.referee.reading.rating_list`` pools the journals and record files of several runs
into one list with it (``arbiter ratings``), refusing files of different games or game parameters,
which share no scale (``RatingsError``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core import ArbiterError, shown
from envs.core.outcome import Outcome

from . import ratings
from .sprt import format_elo, score_interval, score_to_elo

LOS_MATRIX_MAX = 12  # agents up to which ``table`` prints the full LOS matrix
ENCOUNTERS_MAX = 40  # encounters with colour pairs up to which ``table`` lists each


class RatingsError(ArbiterError):
    """Journals that cannot be pooled into one rating list, or an anchor that cannot be placed."""


@dataclass(frozen=True)
class Rating:
    """One agent's line of the rating table: Bradley–Terry Elo and its 95% margin (0 for an
    anchor), games played, points, score (points / games), draw rate, the model's likelihood of
    being stronger than the next agent in the table (None for the last), the head-to-head one
    (cutechess's, over their own games; None for the last or without a decisive game between
    them) and the probability of being the strongest."""

    rank: int
    name: str
    elo: float
    margin: float
    games: int
    points: float
    score: float
    draws: float
    los_next: float | None
    p_best: float
    los_next_h2h: float | None = None


@dataclass(frozen=True)
class Encounter:
    """Two agents' games against each other: ``a``'s points of ``games``, and the colour pairs
    among them as ``a``'s pentanomial (pairs scoring 0, 1/2, 1, 3/2, 2) with the pair-based Elo of
    ``a`` over ``b`` and its 95% interval (``sprt.elo_interval``; infinite bounds where the pairs
    do not bound it; all three 0/-inf/inf without pairs)."""

    a: str
    b: str
    games: int
    points: float
    pentanomial: tuple
    elo: float
    elo_lo: float
    elo_hi: float
    wins: int = 0  # a's wins, draws and losses against b
    draws: int = 0
    losses: int = 0

    @property
    def los_h2h(self) -> float | None:
        """cutechess's head-to-head LOS of ``a`` over ``b`` (None without a decisive game)."""
        return head_to_head(self.wins, self.losses)

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)


@dataclass(frozen=True)
class Statistics:
    """The statistics of a set of games (see the module docstring). ``ratings`` are strongest
    first; ``los[i, j]`` is the model's P(ratings[i] is stronger than ratings[j]) in that order,
    ``h2h[i, j]`` the head-to-head LOS (NaN without a decisive game). ``advantage`` and
    ``draw_elo`` (Elo, with 95% margins) are the fitted first-move advantage and draw parameter,
    None where not fitted (``model_note`` says why); ``posterior``: the weighted draws behind
    ``los`` and ``p_best``."""

    ratings: list
    los: np.ndarray
    encounters: list
    games: int
    anchors: dict = field(default_factory=dict)
    seed: int = 0
    note: str = ""  # what a reader of the table must know (agents the games do not connect)
    h2h: np.ndarray | None = None
    advantage: float | None = None
    advantage_margin: float | None = None
    draw_elo: float | None = None
    draw_margin: float | None = None
    model_note: tuple = ()
    posterior: ratings.Posterior | None = field(default=None, repr=False, compare=False)
    order: tuple = ()  # ``ratings``' agents as indices of the names passed

    def los_of(self, a: str, b: str) -> float:
        """The model's P(agent ``a`` is stronger than agent ``b`` | the games)."""
        index = {r.name: i for i, r in enumerate(self.ratings)}
        return float(self.los[index[a], index[b]])

    def h2h_of(self, a: str, b: str) -> float | None:
        """cutechess's head-to-head LOS of ``a`` over ``b`` (None without a decisive game)."""
        index = {r.name: i for i, r in enumerate(self.ratings)}
        value = float(self.h2h[index[a], index[b]])
        return None if math.isnan(value) else value

    def p_best_among(self, names: Iterable[str]) -> dict[str, float]:
        """P(each of ``names`` is the strongest of ``names`` | the games), from the same draws."""
        names = list(names)
        index = dict(zip((r.name for r in self.ratings), self.order))
        return dict(zip(names, (float(p) for p in self.posterior.p_best([index[a] for a in names]))))

    def pentanomial(self) -> tuple:
        """Every colour pair of the games, as the first-named agent's pentanomial: the counts of
        all encounters added."""
        return tuple(int(x) for x in np.sum([e.pentanomial for e in self.encounters] or [[0] * 5], axis=0))

    def as_dict(self) -> dict:
        return {
            "games": self.games,
            "anchors": dict(self.anchors),
            "seed": self.seed,
            "ratings": [vars(r) for r in self.ratings],
            "los": {
                a.name: {b.name: float(self.los[i, j]) for j, b in enumerate(self.ratings) if i != j}
                for i, a in enumerate(self.ratings)
            },
            "los_h2h": {
                a.name: {
                    b.name: None if math.isnan(self.h2h[i, j]) else float(self.h2h[i, j])
                    for j, b in enumerate(self.ratings)
                    if i != j
                }
                for i, a in enumerate(self.ratings)
            },
            "posterior_effective_samples": None if self.posterior is None else self.posterior.effective_samples,
            "first_move_advantage": self.advantage,
            "first_move_advantage_margin": self.advantage_margin,
            "draw_elo": self.draw_elo,
            "draw_elo_margin": self.draw_margin,
            "encounters": [
                {**vars(e), "pentanomial": list(e.pentanomial), "los_h2h": e.los_h2h} for e in self.encounters
            ],
        }

    def model_line(self) -> str:
        """The fitted first-move advantage and draw parameter, in Elo with their margins, or why
        each was left out ("" when the fit had neither asked for)."""
        why = dict(self.model_note)
        parts = []
        if self.advantage is not None:
            shown = round(self.advantage) + 0  # never "-0"
            parts.append(f"first-move advantage (Black) {shown:+d} ± {self.advantage_margin:.0f} Elo")
        elif ratings.ADVANTAGE in why:
            parts.append(f"first-move advantage not fitted ({why[ratings.ADVANTAGE]})")
        if self.draw_elo is not None:
            rate = math.tanh(self.draw_elo / ratings.ELO / 2)
            parts.append(
                f"draw parameter (Rao–Kupper, BayesElo's drawelo) {self.draw_elo:.0f} ± {self.draw_margin:.0f} Elo, "
                f"{100 * rate:.0f}% draws between equals"
            )
        elif ratings.DRAW in why:
            parts.append(f"draw parameter not fitted ({why[ratings.DRAW]}: a draw would count half a win)")
        return "Fitted with the ratings: " + "; ".join(parts) + "." if parts else ""

    def rating_lines(self) -> list[str]:
        """The rating table alone: heading and one line per agent."""
        anchored = ", ".join(f"{name} at {elo:+g}" for name, elo in self.anchors.items())
        scale = f"anchored: {anchored}" if anchored else "mean 0"
        width = max([24] + [len(r.name) for r in self.ratings])
        lines = [
            (
                f"Bradley–Terry ratings (Elo, {scale}; ± 95% margin; LOS(model): the model's posterior "
                "probability of being stronger than the next, from all games; LOS(h2h): cutechess's "
                "head-to-head Φ((W−L)/√(W+L)) over the next, from their own games; P(best): of being "
                "the strongest):"
            ),
            (
                f"  {'#':>3}  {'agent':<{width}} {'Elo':>7} {'±':>5} {'games':>6} {'score':>6} {'draws':>6}"
                f" {'LOS(model)':>10} {'LOS(h2h)':>8} {'P(best)':>7}"
            ),
        ]
        for r in self.ratings:
            los = "" if r.los_next is None else percent(r.los_next)
            h2h = "" if r.los_next is None else "-" if r.los_next_h2h is None else percent(r.los_next_h2h)
            lines.append(
                f"  {r.rank:>3}  {r.name:<{width}} {round(r.elo):>+7d} {r.margin:>5.0f} {r.games:>6} "
                f"{100 * r.score:>5.1f}% {100 * r.draws:>5.1f}% {los:>10} {h2h:>8} {percent(r.p_best):>7}"
            )
        model = self.model_line()
        return lines + ([model] if model else [])

    def table(self) -> str:
        """The rating table, the LOS matrix (up to ``LOS_MATRIX_MAX`` agents) and the colour pairs
        of each encounter (up to ``ENCOUNTERS_MAX``; else every pair of the games added)."""
        lines = self.rating_lines()
        n = len(self.ratings)
        if 2 < n <= LOS_MATRIX_MAX:
            width = max(len(r.name) for r in self.ratings)
            titles = (
                "Likelihood of superiority, the model's: LOS(model) (%, the row agent stronger than the "
                "column agent; the posterior of the ratings, from all games):",
                "Likelihood of superiority head to head, as cutechess computes it: LOS(h2h) (%, "
                "Φ((W−L)/√(W+L)) over the two agents' own games, draws ignored; -: no decisive game between them):",
            )
            for title, matrix in zip(titles, (self.los, self.h2h)):
                lines += ["", title, " " * (width + 6) + " ".join(f"{i + 1:>4}" for i in range(n))]
                for i, r in enumerate(self.ratings):
                    cells = " ".join(
                        "   ."
                        if i == j
                        else "   -"
                        if math.isnan(matrix[i, j])
                        else f"{percent(matrix[i, j], sign=False):>4}"
                        for j in range(n)
                    )
                    lines.append(f"  {i + 1:>2} {r.name:<{width}} {cells}")
        paired = [e for e in self.encounters if e.pairs]
        if paired:
            lines += [
                "",
                (
                    "Colour pairs (two games from one opening, colours reversed; pentanomial: pairs in "
                    "which the first agent scored 0, 1/2, 1, 3/2, 2 points; Elo from the pairs, 95%):"
                ),
            ]
            if len(paired) <= ENCOUNTERS_MAX:
                width = max(len(f"{e.a} vs {e.b}") for e in paired)
                for e in paired:
                    lines.append(
                        f"  {e.a + ' vs ' + e.b:<{width}} {e.pairs:>5} pair{'s' if e.pairs != 1 else ' '}  {list(e.pentanomial)}  "
                        f"Elo {format_elo(e.elo, e.elo_lo, e.elo_hi)}"
                    )
            else:
                lines.append(
                    f"  {len(paired)} encounters, {sum(e.pairs for e in paired)} pairs: "
                    f"{list(self.pentanomial())} (each encounter: Statistics.encounters)"
                )
        if self.note:
            lines += ["", self.note]
        return "\n".join(lines)


MAX_ANCHOR = 10_000.0  # |Elo| of an anchor: every rating scale in use spans a few thousand


def check_anchor(name: str, elo: Any, label: str = "anchor") -> float:
    """An anchor's Elo as a float, or ``RatingsError`` naming it: a finite number within
    ``MAX_ANCHOR`` (an anchor at 1e308 overflowed the fit and ranked a 0% agent first)."""
    ok = isinstance(elo, (int, float, np.integer, np.floating)) and not isinstance(elo, bool)
    if not ok or not -MAX_ANCHOR <= elo <= MAX_ANCHOR:
        raise RatingsError(
            f"{label} {name}={shown(elo)}: expected an Elo from {-MAX_ANCHOR:g} to {MAX_ANCHOR:g}, e.g. {label} random=0"
        )
    return float(elo)


def percent(p: float, sign: bool = True) -> str:
    """A probability as a whole percentage that never rounds a doubt away: ``>99%``, ``<1%``."""
    if p > 0.995:
        return ">99%" if sign else ">99"
    if p < 0.005:
        return "<1%" if sign else "<1"
    return f"{100 * p:.0f}%" if sign else f"{100 * p:.0f}"


def head_to_head(wins: float, losses: float) -> float | None:
    """cutechess's likelihood of superiority from one encounter: Φ((W − L) / √(W + L)), the normal
    approximation of the sign test on the decisive games (draws ignored); None when no game was
    decisive."""
    if wins + losses <= 0:
        return None
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def colour_pairs(records: Iterable[dict[str, Any]]) -> list[tuple[dict, dict]]:
    """The colour pairs among ``records`` (see the module docstring), each ``(first, second)`` in
    the order played. Records of several runs carry a ``source`` so no pair spans two runs."""
    waiting: dict = {}
    out = []
    for r in records:
        opening = tuple(r.get("moves", ())[: r.get("opening", 0)])
        key = (r.get("source"), r.get("round"), frozenset((r["black_id"], r["white_id"])), opening)
        queue = waiting.setdefault(key, [])
        partner = next((k for k, other in enumerate(queue) if other["black_id"] == r["white_id"]), None)
        if partner is None:
            queue.append(r)
        else:
            out.append((queue.pop(partner), r))
    return out


def statistics(
    names: Iterable[str],
    records: Sequence[Mapping[str, Any]],
    anchors: Mapping[str, float] | None = None,
    seed: int = 0,
    first_move: bool = True,
    draw_model: bool = True,
) -> Statistics:
    """The statistics of game ``records``, matched to ``names`` by the names they carry (``black``
    and ``white``; a record without them by ``black_id``/``white_id``); ``anchors``: ``{name:
    Elo}`` (``ratings.fit``); ``seed`` seeds the posterior draws behind the LOS and ``p_best``;
    ``first_move``, ``draw_model``: fit the first-move advantage and the draw parameter
    (``ratings.fit_model``; off, a draw counts half a win for each side). A name not among
    ``names``, or ``names`` with a name twice, is a ``RatingsError``."""
    names, index = _distinct(names)
    # a double forfeit (both agents ruled out) was never played: it tells nothing of strength
    records = [r for r in _by_name(names, index, records) if not Outcome.from_record(r).void]
    anchors = dict(anchors or {})
    n = len(names)
    wins, drawn, losses, games, points, draws, black_points = _counts(records, n)
    anchors = _checked_anchors(anchors, index, games, names)
    result = ratings.fit_model(
        wins, drawn, losses, {index[a]: float(e) for a, e in anchors.items()}, advantage=first_move, draw=draw_model
    )
    posterior = result.posterior(seed=seed)
    p_best = posterior.p_best()
    order = sorted(range(n), key=lambda i: (-result.elo[i], i))
    los = posterior.los()[np.ix_(order, order)]
    decisive_w = wins + losses.T  # i's wins and losses against j, both colours
    decisive_l = losses + wins.T
    h2h = np.array([[head_to_head(decisive_w[i, j], decisive_l[i, j]) for j in order] for i in order], dtype=float)
    rows = _rating_rows(names, order, result, (games, points, draws), los, p_best, h2h)
    scores = wins + drawn / 2 + (losses + drawn / 2).T
    played = wins + drawn + losses
    played = played + played.T
    return Statistics(
        rows,
        los,
        _encounters(names, records, black_points, scores, played, order, (decisive_w, drawn + drawn.T, decisive_l)),
        len(records),
        anchors,
        seed,
        h2h=h2h,
        advantage=result.advantage,
        advantage_margin=result.advantage_margin,
        draw_elo=result.draw_elo,
        draw_margin=result.draw_margin,
        model_note=result.why,
        posterior=posterior,
        order=tuple(order),
    )


def _distinct(names: Iterable[str]) -> tuple[list[str], dict[str, int]]:
    """The names as a list and each one's index; ``RatingsError`` for a name given twice."""
    names = list(names)
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        twice = sorted({name for name in names if names.count(name) > 1})
        raise RatingsError(f"names: {', '.join(map(repr, twice))} given twice; records could not tell them apart")
    return names, index


def _counts(records: Sequence[Mapping[str, Any]], n: int) -> tuple:
    """(wins, draws, losses) of Black against White as n x n matrices, then each agent's games,
    points and draws, and Black's points in every game, in order."""
    wins, drawn, losses = np.zeros((n, n)), np.zeros((n, n)), np.zeros((n, n))
    games, points, draws = np.zeros(n, dtype=np.int64), np.zeros(n), np.zeros(n, dtype=np.int64)
    black_points = []
    for r in records:
        outcome = Outcome.from_record(r)
        b, w = r["black_id"], r["white_id"]
        black = outcome.points(0)
        black_points.append(black)
        (wins if black == 1 else losses if black == 0 else drawn)[b, w] += 1
        for seat, i in enumerate((b, w)):
            games[i] += 1
            points[i] += outcome.points(seat)
            draws[i] += outcome.draw
    return wins, drawn, losses, games, points, draws, black_points


def _checked_anchors(anchors, index, games, names) -> dict[str, float]:
    """The anchors checked (``check_anchor``), each an agent that played a game."""
    anchors = {name: check_anchor(name, elo) for name, elo in anchors.items()}
    for name in anchors:
        if name not in index:
            raise RatingsError(f"anchor {name}: no such agent (agents: {', '.join(names)})")
        if games[index[name]] == 0:
            raise RatingsError(f"anchor {name}: the agent played no game, so nothing places it on the scale")
    return anchors


def _rating_rows(names, order, result, tallies, los, p_best, h2h) -> list[Rating]:
    """A ``Rating`` per agent in rank order; the LOS columns compare each with the next."""
    games, points, draws = tallies
    n, half = len(names), result.half
    rows = []
    for rank, i in enumerate(order):
        last = rank + 1 == n
        rows.append(
            Rating(
                rank + 1,
                names[i],
                float(result.elo[i]),
                float(half[i]),
                int(games[i]),
                float(points[i]),
                float(points[i] / games[i]) if games[i] else 0.0,
                float(draws[i] / games[i]) if games[i] else 0.0,
                None if last else float(los[rank, rank + 1]),
                float(p_best[i]),
                None if last or math.isnan(h2h[rank, rank + 1]) else float(h2h[rank, rank + 1]),
            )
        )
    return rows


def by_name(names: Iterable[str], records: Iterable[Mapping[str, Any]]) -> list[dict]:
    """``records`` with ``black_id``/``white_id`` set from the agent names they carry, checked
    against ``names`` (a record without names keeps its ids, checked): a table built from them
    credits every game to the agent that played it, whatever order the names come in.
    ``RatingsError`` for a name that is not one of ``names``."""
    names, index = _distinct(names)
    return _by_name(names, index, records)


def _by_name(names, index, records) -> list[dict]:
    """``records`` with ``black_id``/``white_id`` set from the names they carry, or checked
    against ``names`` where a record carries none."""
    out = []
    for k, r in enumerate(records):
        ids = []
        for seat in ("black", "white"):
            name = r.get(seat)
            if isinstance(name, str):
                if name not in index:
                    raise RatingsError(
                        f"record {r.get('index', k)}: {seat} {name!r} is not one of the agents ({', '.join(names)})"
                    )
                ids.append(index[name])
                continue
            i = r.get(f"{seat}_id")
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < len(names):
                raise RatingsError(
                    f"record {r.get('index', k)}: no {seat} name and {seat}_id={i!r}: expected one of the "
                    f"agents ({', '.join(names)}) or an index from 0 to {len(names) - 1}"
                )
            ids.append(int(i))
        out.append({**r, "black_id": ids[0], "white_id": ids[1]})
    return out


def _encounters(names, records, black_points, scores, played, order, results) -> list[Encounter]:
    """Every pair of agents that met, the stronger (earlier in ``order``) first; ``black_points``:
    Black's points in each of ``records``; ``results``: i's wins, draws and losses against j."""
    rank = {i: k for k, i in enumerate(order)}
    position = {id(r): k for k, r in enumerate(records)}
    penta: dict = {}
    for first, second in colour_pairs(records):
        a, b = sorted((first["black_id"], first["white_id"]), key=rank.get)
        got = sum(
            black_points[position[id(g)]] if g["black_id"] == a else 1 - black_points[position[id(g)]]
            for g in (first, second)
        )
        penta.setdefault((a, b), [0] * 5)[round(2 * got)] += 1
    met = [(a, b) for k, a in enumerate(order) for b in order[k + 1 :] if played[a, b] > 0]
    counts = np.array([penta.get(pair, [0] * 5) for pair in met], dtype=np.int64).reshape(-1, 5)
    mean, lo, hi = score_interval(counts) if len(met) else ((), (), ())
    out = []
    for k, (a, b) in enumerate(met):  # the pairs' Elo interval, as sprt.elo_interval reads it
        pairs = int(counts[k].sum())
        elo = (score_to_elo(mean[k]), score_to_elo(lo[k]), score_to_elo(hi[k])) if pairs else (0.0, -np.inf, np.inf)
        out.append(
            Encounter(
                names[a],
                names[b],
                int(played[a, b]),
                float(scores[a, b]),
                tuple(int(c) for c in counts[k]),
                *(float(x) for x in elo),
                *(int(m[a, b]) for m in results),
            )
        )
    return out
