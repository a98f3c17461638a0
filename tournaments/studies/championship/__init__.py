"""The championship study: how accurate is each system, and at what cost in games.

Player model (the study's, the default): Np strengths drawn uniformly and rescaled so the weakest
is 0 and the strongest 1; one game between n and m is won by n with probability
0.5 + (A - 0.5)(F_n - F_m); no draws; the starting draw is a random permutation. Draws, a
first-move advantage and Bradley–Terry/Elo strengths are options (``tournaments.referee.simulation.model``).
The championship itself is run by the very same compiled pairing and placing rules as real
tournaments (``_systems``), with the player model as the game.

Metrics per championship, averaged over a series (a player on an aggregate place counts the
interval's midpoint, so places 5–8 count 6.5):
  win    the strongest player's credit for first place: 1/s if it shares first place with s-1
         others (s = 1: alone), else 0;
  d      total discrepancy sum_i |place_i - i| (i = true place);
  mid    the strongest player's place;
  tri    place_1 + place_2 + place_3 - 6 for the three truly strongest;
  games  the number of games played;
  black  the first mover's share of the points (0.5 without a first-move advantage).

Modules here: ``grid`` (grids and their tables), ``plots`` (figures, the plot extra) and
``writing`` (``write_study``: the tables and figures written out). The simulator they run lives
in ``tournaments.referee.simulation`` (``simulator``: ``simulate``, chunks and seeds, the local
executor; ``kernels``: the compiled championship and Bradley–Terry fit; ``model``: player-model
parameters; ``distributed``: Ray, the distributed extra), since a real tournament's trust line
runs it too; ``simulate`` and its neighbours are re-exported here.
"""

from ...referee.simulation.model import make_model, rating_places
from ...referee.simulation.simulator import CHUNK, METRICS, SYSTEMS, LocalExecutor, plan, simulate, system_config
from .grid import (
    ACCURACY,
    GRID_A,
    GRID_N,
    LOWER_IS_BETTER,
    MODELS,
    PARTS,
    best_systems,
    budget_specs,
    budget_systems,
    budget_table,
    efficiency,
    grid_specs,
    grid_systems,
    model_specs,
    models_table,
    pareto,
    placing_specs,
    placing_table,
    read_csv,
    run_grid,
    run_specs,
    swiss_rounds_curve,
    to_csv,
    to_markdown,
)
from .writing import write_study

__all__ = [
    "simulate",
    "plan",
    "system_config",
    "SYSTEMS",
    "METRICS",
    "CHUNK",
    "LocalExecutor",
    "make_model",
    "rating_places",
    "GRID_N",
    "GRID_A",
    "ACCURACY",
    "LOWER_IS_BETTER",
    "MODELS",
    "grid_systems",
    "grid_specs",
    "run_specs",
    "run_grid",
    "to_csv",
    "read_csv",
    "to_markdown",
    "best_systems",
    "efficiency",
    "pareto",
    "model_specs",
    "models_table",
    "placing_specs",
    "placing_table",
    "budget_systems",
    "budget_specs",
    "budget_table",
    "swiss_rounds_curve",
    "write_study",
    "PARTS",
]
