from .game import LinesOfAction

__all__ = ["LinesOfAction"]
