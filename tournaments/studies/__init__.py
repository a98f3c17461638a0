"""Research built on the referee: the championship study's grids, tables and plots
(``championship``, also ``tournaments.study``; its simulator is ``tournaments.referee.simulation``),
the patience study (``patience``) and the strength table of the agents (``strength``).
"""
