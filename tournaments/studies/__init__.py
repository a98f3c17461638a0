"""Research studies built on the referee: the championship study and its simulator
(``championship``, also ``tournaments.study``), the patience study (``patience``) and the strength
table of the agents (``strength``).
"""
