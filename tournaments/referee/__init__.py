"""Refereeing: playing, scheduling and judging games between agents, real or simulated.

``play`` is the one game loop (``play_game``); ``_systems`` holds the compiled pairing and placing
rules and ``systems`` their Python face (``Referee``). Two drivers run those rules: ``runner``
plays a tournament of real agents (configured by ``config``) through an executor (``executor``,
``ray_executor``), writing every finished game to the ``journal`` and the ``records`` (JSONL, CSV,
SGF), and ``simulation`` plays thousands of simulated championships, which ``trust`` runs to say
how far a real ranking can be trusted. ``matches`` plays evaluation matches; ``adjudication``
ends games the rules have not ended; ``openings`` reads opening suites; ``reading`` reads a run
back from its files and ``report`` writes it as one HTML page. The referee imports only
``tournaments.analysis`` of the rest of the package.
"""
