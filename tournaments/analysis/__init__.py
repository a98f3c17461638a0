"""Reading results: Bradley–Terry ratings (``ratings``), the rating table's statistics
(``statistics``), the sequential probability ratio test (``sprt``), how far to trust a ranking
(``trust``) and a journal as one HTML page (``report``).
"""
