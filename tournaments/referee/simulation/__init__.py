"""Simulated championships: the systems' compiled rules (``.._systems``) played by simulated
players of known strength, many thousands of championships at a time, to measure how often a
system places the truly best player first. It is the second driver of the rules beside the
real-game runner (``..runner``), so the two cannot disagree; the trust line of a real result
(``..trust``) runs it, and the championship study (``tournaments.studies.championship``, also
``tournaments.study``) is built on it.

``kernels`` holds the compiled loop, ``model`` the players' strengths and placing, ``simulator``
the public ``simulate`` and its executors, ``distributed`` the Ray executor (the distributed extra).
"""
