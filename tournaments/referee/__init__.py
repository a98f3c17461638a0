"""Refereeing: playing and scheduling games between agents.

``play`` is the one game loop (``play_game``); ``_systems`` holds the compiled pairing and placing
rules and ``systems`` their Python face (``Referee``); ``runner`` drives a tournament through an
executor (``executor``, ``ray_executor``), writing every finished game to the ``journal`` and the
``records`` (JSONL, CSV, SGF); ``matches`` plays evaluation matches; ``adjudication`` ends games the
rules have not ended; ``openings`` reads opening suites.
"""
