"""How far to trust a tournament's ranking: the championship study's question asked of one run.

    trust = result.trust()          # a TournamentResult; or tournaments.trust.trust(result, target=0.9)
    print(trust)                    # the trust line: accuracy, verdict, games per pairing to settle it
    trust.win, trust.displacement, trust.games_per_pairing, trust.simulation

The study's simulator (``tournaments.study``) measures how often a system puts the truly best
player first and how far its places fall from the true order, for a number of players and a
spread of strength; it runs the very pairing and placing rules of real tournaments
(``_systems``). The trust line asks it about this run: the same system with the same options
(rounds, games per encounter, k), the same number of agents, and a player model fitted to the
run's results:

* strengths: Elo ratings drawn N(0, σ²) for every simulated championship (the study's
  ``strengths=("normal", σ)``), where σ is the spread of the agents' strengths *beyond chance*:
  the variance of their Bradley–Terry ratings less the variance the games' own noise puts into
  them (the mean squared standard error, from the fit's covariance), a moment estimate
  truncated at 0. Ratings of a short run spread widely by chance alone (four games give margins
  of ±700 Elo); only the spread beyond that says the agents differ. A run whose results are what
  chance gives has σ = 0, and no system can then find a true best better than by lot;
* draws: the run's draw rate (the study's ``draw``);
* first-move advantage: how far Black's score departs from 1/2, as the study's additive shift of
  Black's win probability, taken beyond chance in the same way (its square less its variance);
* placing by points, as the run's standings are.

It simulates ``championships`` seeded championships (a few seconds at most: the count shrinks
as the field's games grow) and reports the study's metrics: ``win``, the share of championships
whose first place is the true best (shared first places count 1/s), and ``displacement``, the
mean distance of an agent's place from its true place (the study's D divided by the number of
agents), each beside chance (a random order). Then the games per pairing that would reach
``target`` (90% by default): the smallest number of games per encounter, searched on a grid, with
which the same system (a round robin for a Swiss or a random order, which have no games per
pairing) finds the true best that often. When the results show no spread beyond chance, that
search runs at the spread of the ratings themselves, which chance inflates, so the count is a
lower bound ("at least"): closer agents need more games.

Nothing is cached: each call simulates afresh, and the same inputs and seed give the same
numbers (``Trust.simulation`` and ``Trust.settle_simulation`` are the exact ``simulate``
arguments, so anyone can rerun them).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core import ParameterError
from envs.core.outcome import Outcome

from ..analysis import ratings
from ..analysis.statistics import by_name, statistics
from . import precompile
from .simulation.simulator import simulate

if TYPE_CHECKING:
    from .runner import TournamentResult

TARGET = 0.9
BUDGET = 2_000_000  # simulated games per simulation (about a third of a second on one core)
CHAMPIONSHIPS = (200, 2000)  # the fewest and most championships a simulation runs
SETTLE_FEWEST = 50  # below this many championships, a games-per-pairing estimate is noise: stop searching
SETTLE_GRID = (
    2,
    4,
    6,
    8,
    10,
    12,
    16,
    20,
    24,
    30,
    40,
    50,
    60,
    80,
    100,
    120,
    160,
    200,
    250,
    300,
    400,
    500,
    600,
    800,
    1000,
)  # games per pairing tried when searching for the target
WIDTH = 100  # the printed trust line's width
TINY = 1e-6  # the simulator's Elo spread for "no spread" (it needs a positive scale)
# how the words follow the win rate: (win - chance) / (1 - chance) below each bound
VERDICTS = ((0.2, "close to a coin toss"), (0.5, "a rough guide"), (1.01, "fairly reliable"))
PAIRED = {"round_robin", "olympic"}  # the simulated systems with a number of games per encounter


@dataclass(frozen=True)
class Trust:
    """The trust line's numbers (see the module docstring). Accuracy fields are None where the
    study's simulator has no model of the run (two agents, no games, a system it does not
    simulate): ``note`` says why."""

    system: str
    players: int
    games: int
    spread: float  # σ beyond chance, Elo
    rating_spread: float  # the standard deviation of the ratings themselves, Elo
    draw: float
    first_move_advantage: float
    target: float
    win: float | None = None
    win_se: float | None = None
    displacement: float | None = None
    displacement_se: float | None = None
    chance_win: float | None = None
    chance_displacement: float | None = None
    verdict: str | None = None
    games_per_pairing: int | None = None  # to reach ``target``; None: not found (see settle_note)
    settle_system: str | None = None
    settle_games: int | None = None  # games the settling championship plays
    settle_win: float | None = None
    settle_spread: float | None = None
    at_least: bool = False  # the count is a lower bound (searched at rating_spread)
    settle_note: str = ""
    simulation: dict | None = None
    settle_simulation: dict | None = None
    note: str = ""
    repeats: int = 0  # games that repeat an earlier one move for move (``TournamentResult.repeats``)

    def as_dict(self) -> dict:
        return dict(vars(self))

    def __str__(self) -> str:
        return "\n".join(textwrap.fill(line, WIDTH, subsequent_indent="  ") for line in self.sentences())

    def sentences(self) -> list[str]:
        """The trust line's sentences, unwrapped: what it found, and what would settle it."""
        lines = []
        if self.win is None:
            lines.append(f"Trust: {self.note}")
        else:
            model = [f"σ ≈ {self.spread:.0f} Elo"]
            if self.draw:
                model.append(f"draws {100 * self.draw:.0f}%")
            if abs(self.first_move_advantage) >= 0.005:
                model.append(
                    f"first-move advantage {100 * self.first_move_advantage:+.1f} percentage points of Black's "
                    "win probability"
                )
            lines.append(
                f"Trust: for a {self.system} of {self.players} agents in {self.games} games, at the spread of "
                f"strength these results show beyond chance ({'; '.join(model)}), the study's simulator "
                f"({self.simulation['championships']:,} seeded championships) puts the true best first "
                f"{_pct(self.win)} of the time (chance {_pct(self.chance_win)}) and an agent "
                f"{self.displacement:.2f} places from its true place on average (chance "
                f"{self.chance_displacement:.2f}): this ranking is {self.verdict}."
            )
        if self.games_per_pairing is not None:
            where = (
                f"if the agents are as far apart as their ratings say (σ ≈ {self.settle_spread:.0f} Elo); "
                "closer agents need more"
                if self.at_least
                else "at that spread"
            )
            lines.append(
                f"To settle it: {self.settle_system} with {'at least ' if self.at_least else ''}"
                f"{self.games_per_pairing} games per pairing ({self.settle_games:,} games) finds the "
                f"true best {_pct(self.settle_win)} of the time, {where}."
            )
        elif self.settle_note:
            lines.append(f"To settle it: {self.settle_note}")
        if self.repeats:
            lines.append(
                f"Repeated games: {self.repeats} of {self.games} repeat an earlier game move for move; counted "
                "as independent, they make the ranking look surer than it is."
            )
        return lines


def _pct(p: float) -> str:
    return f"{100 * p:.0f}%"


def _system_label(system: str, options: dict) -> str:
    shown = {k: v for k, v in options.items() if not (k == "avoid_rematches" and v)}
    words = {"round_robin": "round robin", "random_order": "random order"}.get(system, system)
    return words + (" (" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")" if shown else "")


def fitted_model(names: Sequence[str], records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The player model of the module docstring, fitted to game ``records``: ``spread`` (σ beyond
    chance), ``rating_spread``, ``draw``, ``first_move_advantage``, all floats."""
    n = len(names)
    scores, played, black = _matrices(names, records)
    fit = ratings.fit(scores, played)
    centred = fit.elo - fit.elo.mean()
    total = float((centred**2).sum())
    noise = float(np.diag(fit.cov).sum())
    spread = math.sqrt(max(total - noise, 0.0) / (n - 1)) if n > 1 else 0.0
    rating_spread = math.sqrt(total / (n - 1)) if n > 1 else 0.0
    black = np.asarray(black, dtype=np.float64)
    draw = float(np.mean(black == 0.5)) if black.size else 0.0
    shift = 0.0
    if black.size > 1 and draw < 1:
        x = (black.mean() - 0.5) / (1 - draw)
        var = black.var(ddof=1) / black.size / (1 - draw) ** 2
        shift = math.copysign(math.sqrt(max(x * x - var, 0.0)), x)
    return {
        "spread": spread,
        "rating_spread": rating_spread,
        "draw": draw,
        "first_move_advantage": float(np.clip(shift, -1.0, 1.0)),
    }


def _championships(games_per_championship: float) -> int:
    lo, hi = CHAMPIONSHIPS
    return int(min(hi, max(lo, BUDGET // max(int(games_per_championship), 1))))


def _expected_games(system, n, options) -> float:
    """Games of one championship, before simulating it (for its cost): exact for the systems of a
    fixed length, an estimate for knock-out matches (they stop when decided)."""
    games = options.get("games") or 2
    if system == "round_robin":
        return n * (n - 1) / 2 * games
    if system == "gauntlet":
        c = options.get("candidates", 1)
        return c * (n - c) * games
    if system in ("swiss", "swiss_study"):
        return (n // 2) * options.get("rounds", 1)
    if system == "olympic":
        return n * (options.get("games") or 2 * options.get("k", 1))
    return 0.0


def _simulate(kwargs) -> dict:
    return simulate(**kwargs)


def trust(
    result: TournamentResult,
    target: float = TARGET,
    seed: int | None = None,
    championships: int | None = None,
    announce: Callable[[], object] | None = None,
) -> Trust:
    """The trust of ``result`` (a ``TournamentResult``), see the module docstring. ``seed``:
    the simulations' (default: the tournament's); ``championships``: a fixed count instead of
    the budgeted one; ``announce``: called once before the first simulation when the simulator's
    compiled code is not in numba's cache yet (a command line says "compiling" there)."""
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target < 1:
        raise ParameterError(f"target={target!r}: expected a probability between 0 and 1")
    if championships is not None and (
        isinstance(championships, bool) or not isinstance(championships, int) or championships < 2
    ):
        raise ParameterError(f"championships={championships!r}: expected an integer >= 2")
    config = result.config
    system, options = config["system"], dict(config.get("options", {}))
    seed = int(config.get("seed", 0) if seed is None else seed)
    n, games = len(result.names), len(result.games)
    model = fitted_model(result.names, result.games)
    label = _system_label(system, options)
    base = dict(system=label, players=n, games=games, target=float(target), repeats=len(result.repeats()), **model)
    if n < 3:
        return Trust(
            **base,
            note="two agents: the study's accuracy metrics need three or more; the "
            "likelihood of superiority in the rating table says how sure the order is",
        )
    if not games:
        return Trust(**base, note="no games were played: the order is drawn by lot")
    if system == "gauntlet":
        return _gauntlet(result, base, options, seed, target)
    kwargs = dict(
        system=system,
        n_players=n,
        A=None,
        seed=seed,
        strengths=("normal", max(model["spread"], TINY)),
        draw=model["draw"],
        first_move_advantage=model["first_move_advantage"],
        **options,
    )
    kwargs["championships"] = championships or _championships(_expected_games(system, n, options))
    if announce is not None and precompile.cached("simulator") is False:
        announce()
    precompile.wait("simulator")  # the command line has a helper compile it during the games
    try:
        metrics = _simulate(kwargs)
    except ParameterError as e:
        return Trust(**base, note=f"the study's simulator does not model this run ({e})")
    win, win_se = metrics["win"]
    d, d_se = metrics["d"]
    chance = 1.0 / n
    skill = (win - chance) / (1 - chance)
    verdict = "reliable" if win >= target else next(words for bound, words in VERDICTS if skill < bound)
    found = _settle(system, n, options, model, seed, target, championships)
    return Trust(
        **base,
        win=win,
        win_se=win_se,
        displacement=d / n,
        displacement_se=d_se / n,
        chance_win=chance,
        chance_displacement=(n * n - 1) / (3 * n),
        verdict=verdict,
        simulation=kwargs,
        **found,
    )


def _settle(system, n, options, model, seed, target, championships) -> dict:
    """The smallest games per pairing on ``SETTLE_GRID`` reaching ``target`` (a binary search:
    the win rate grows with the games), with the simulation that showed it."""
    spread, at_least = model["spread"], False
    if spread <= 0:
        spread, at_least = model["rating_spread"], True
    if spread <= 0:
        return {
            "settle_note": "the results show no difference of strength at all, so nothing says how "
            "many games would tell these agents apart"
        }
    paired = system in PAIRED
    settle_system = system if paired else "round_robin"
    keep = {k: v for k, v in options.items() if k != "k"} if paired else {}

    def kwargs_for(games):
        opts = {**keep, "games": games}
        return dict(
            system=settle_system,
            n_players=n,
            A=None,
            seed=seed,
            strengths=("normal", spread),
            draw=model["draw"],
            first_move_advantage=model["first_move_advantage"],
            championships=championships or _championships(_expected_games(settle_system, n, opts)),
            **opts,
        )

    def affordable(games):
        return (
            championships is not None
            or BUDGET // _expected_games(settle_system, n, {**keep, "games": games}) >= SETTLE_FEWEST
        )

    grid = [g for g in SETTLE_GRID if affordable(g)]
    name = {"round_robin": "a round robin", "olympic": "olympic matches"}[settle_system]
    lo, hi, best = -1, len(grid), None  # grid[lo] misses the target, grid[hi] reaches it
    while hi - lo > 1:
        mid = (lo + hi) // 2
        kwargs = kwargs_for(grid[mid])
        metrics = _simulate(kwargs)
        if metrics["win"][0] >= target:
            hi, best = mid, (grid[mid], kwargs, metrics)
        else:
            lo = mid
    found = {"settle_spread": spread, "at_least": at_least, "settle_system": name}
    if best is None:
        needs = (
            f"{name} needs more than {grid[-1] if grid else 0} games per pairing to find the true best "
            f"{_pct(target)} of the time at σ ≈ {spread:.0f} Elo"
        )
        if len(grid) < len(SETTLE_GRID):
            why = "; larger counts cost more to simulate than the trust line spends"
        else:
            why = ": these agents are too close to tell apart by games alone"
        return {**found, "settle_note": needs + why}
    games, kwargs, metrics = best
    return {
        **found,
        "games_per_pairing": games,
        "settle_games": round(metrics["games"][0]),
        "settle_win": metrics["win"][0],
        "settle_simulation": kwargs,
    }


def _gauntlet(result, base, options, seed, target) -> Trust:
    """A gauntlet ranks its candidates against a field, which the study's metrics (the true best
    of the whole field first) do not describe: its trust is read from the games themselves, the
    probability that the leading candidate is the best candidate (posterior draws, seeded) and the
    likelihood that it is stronger than the runner-up, with the games per encounter that would
    raise that likelihood to ``target`` if the gap between them stayed as it is (the posterior's
    variance shrinks as 1/games)."""

    c = options.get("candidates", 1)
    names = list(result.names)
    stats = statistics(names, result.games, seed=seed)
    rows = [r for r in stats.ratings if names.index(r.name) < c]
    if len(rows) < 2:
        return Trust(
            **base,
            note="one candidate: its result against the field is the rating table's "
            "(its LOS over each opponent, the encounters' pairs)",
        )
    fit = ratings.fit(*_matrices(names, result.games)[:2])
    index = [names.index(r.name) for r in rows]
    among = stats.p_best_among([r.name for r in rows])  # the posterior draws of the rating table
    best = [among[r.name] for r in rows]
    leader, second = rows[0], rows[1]
    los = stats.los_of(leader.name, second.name)
    chance = 1.0 / len(rows)
    skill = (best[0] - chance) / (1 - chance)
    verdict = "reliable" if best[0] >= target else next(words for bound, words in VERDICTS if skill < bound)
    note = (
        f"a gauntlet ranks its candidates, which the study's simulator (the true best of a whole field "
        f"first) does not model; from these games, {leader.name} is the best of the {len(rows)} "
        f"candidates with probability {_pct(best[0])} (chance {_pct(chance)}) and stronger than "
        f"{second.name} with likelihood {_pct(los)}: this ranking of the candidates is {verdict}."
    )
    per = options.get("games", 2)
    z = _normal_quantile(target)
    sd = math.sqrt(
        max(fit.cov[index[0], index[0]] + fit.cov[index[1], index[1]] - 2 * fit.cov[index[0], index[1]], 0.0)
    )
    gap = leader.elo - second.elo
    if los >= target:
        settle = (
            f"{leader.name}'s lead over {second.name} already has a likelihood of {_pct(los)}, above {_pct(target)}."
        )
    elif gap <= 0 or sd <= 0:
        settle = f"{leader.name} and {second.name} are level, so nothing says how many games would tell them apart."
    else:
        needed = 2 * math.ceil(per * (z * sd / gap) ** 2 / 2)
        settle = (
            f"about {needed} games per encounter would give {leader.name}'s lead over {second.name} a "
            f"likelihood of {_pct(target)}, if the gap stays at its present {gap:.0f} Elo."
        )
    return Trust(**base, note=note, settle_note=settle)


def _matrices(names, records):
    """(points i took from j, games between them, Black's points in each game) of ``records``,
    each game credited to the agents it names, double forfeits left out (no one played them)."""
    n = len(names)
    scores, played, black = np.zeros((n, n)), np.zeros((n, n)), []
    for r in by_name(names, records):
        outcome = Outcome.from_record(r)
        if outcome.void:
            continue
        b, w = r["black_id"], r["white_id"]
        played[b, w] += 1
        played[w, b] += 1
        scores[b, w] += outcome.points(0)
        scores[w, b] += outcome.points(1)
        black.append(outcome.points(0))
    return scores, played, black


def _normal_quantile(p: float) -> float:
    """The standard normal quantile (bisection on erf: no SciPy needed)."""
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p else (lo, mid)
    return (lo + hi) / 2
