from .game import Gomoku

__all__ = ["Gomoku"]
