"""Arbiter's referee: playing games between agents, evaluation matches, championship systems for
real agents, and the study of their accuracy.

    import tournaments
    outcome = tournaments.play_game(game, [agent_a, agent_b], seed=0)   # one game: GameOutcome
    tournaments.match(game, agent_a, agent_b, games=100)           # score ± SE, colour-balanced
    tournaments.match("greedy", "random", game="othello", sprt=(0, 50, 0.05, 0.05))  # sequential
    result = tournaments.swiss(["random", "greedy", "alphabeta:depth=3"], game="loa", workers=2)
    print(result.table())                           # standings, Bradley–Terry ratings, crosstable
    tournaments.report.write_report("run.db", "report.html")   # a journal as one HTML page
    tournaments.study.simulate("swiss", 16, 0.75, 100_000, avoid_rematches=False)

The package has four parts, each importing only the ones before it: ``analysis`` (ratings,
statistics, the SPRT: numbers only), ``referee`` (playing and judging games, real or simulated:
the game loop, the systems' rules, the runner, executors, journal, matches, adjudication, opening
suites, game records, the simulator, the trust line, the HTML report), ``studies`` (the
championship study, the patience study, the strength table) and ``cli`` (the ``arbiter``
command). This module gathers the public names of all but the command line.

Every game, in a tournament worker, a match or ``arbiter play``, is played by ``play_game``.
Systems (one implementation each in ``_systems``, shared by real tournaments and the study):
``round_robin`` (``games=``), ``olympic`` (``k=`` or ``games=``, ``recursive=``), ``swiss``
(``rounds=``, ``avoid_rematches=``), ``gauntlet(candidates, opponents, games=)`` and
``random_order`` (the study's "no rules"); every one takes an opening suite (``openings=``,
``tournaments.openings``), a game clock (``tc=``, ``byoyomi=``: ``agents.clock``) and adjudication
(``adjudicate=``: ``tournaments.adjudication``).
"""

from agents.human import HumanAgent, TakeBack

from .analysis import sprt, statistics
from .analysis.ratings import bradley_terry
from .referee import adjudication, openings, report, trust
from .referee.adjudication import Adjudication
from .referee.config import TournamentConfig
from .referee.executor import ExecutorError, InlineExecutor, ProcessExecutor
from .referee.journal import JournalError
from .referee.matches import MatchError, MatchResult, SolitaireResult, duplicate, match, solitaire
from .referee.play import (
    ADJUDICATED,
    CRASH,
    ILLEGAL,
    NORMAL,
    RESIGN,
    TIMEOUT,
    GameOutcome,
    play_game,
    random_opening,
)
from .referee.runner import TournamentResult, gauntlet, olympic, random_order, round_robin, run, swiss
from .referee.systems import Referee, configure, study_swiss_rounds, swiss_rounds
from .studies import championship as study

__all__ = [
    "play_game",
    "TournamentConfig",
    "GameOutcome",
    "TakeBack",
    "HumanAgent",
    "random_opening",
    "match",
    "solitaire",
    "duplicate",
    "MatchResult",
    "SolitaireResult",
    "MatchError",
    "round_robin",
    "olympic",
    "swiss",
    "random_order",
    "gauntlet",
    "run",
    "TournamentResult",
    "Referee",
    "configure",
    "swiss_rounds",
    "study_swiss_rounds",
    "bradley_terry",
    "study",
    "sprt",
    "report",
    "statistics",
    "trust",
    "InlineExecutor",
    "ProcessExecutor",
    "ExecutorError",
    "JournalError",
    "NORMAL",
    "RESIGN",
    "CRASH",
    "TIMEOUT",
    "ILLEGAL",
    "ADJUDICATED",
    "adjudication",
    "Adjudication",
    "openings",
]
