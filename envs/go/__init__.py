from .game import Go

__all__ = ["Go"]
