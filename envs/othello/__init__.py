from .game import Othello

__all__ = ["Othello"]
