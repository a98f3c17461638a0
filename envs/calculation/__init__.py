from .game import Calculation

__all__ = ["Calculation"]
