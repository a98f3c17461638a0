"""The statistics of results, below the referee and importing nothing else of ``tournaments``:
Bradley–Terry ratings (``ratings``), the rating table's numbers (``statistics``) and the
sequential probability ratio test (``sprt``). The referee uses them while it runs (standings,
progress lines, a gauntlet's or a match's SPRT); everything above reads results through them.
"""
