"""The error hierarchy: every error Arbiter raises for bad input is an ``ArbiterError``, a
``ValueError``, so one ``except ValueError`` (or ``except envs.ArbiterError``) catches what a
caller can fix, and each subclass says which kind of input was wrong. The agents' and the
referee's errors derive from it too.
"""


class ArbiterError(ValueError):
    """Base class of every error Arbiter raises for bad input."""


class ParameterError(ArbiterError):
    """An unknown game or rule set, or a parameter value outside what the game supports."""


class StateError(ArbiterError):
    """Something that is not a state of this game (wrong type, length, or another game's state)."""


class IllegalActionError(ArbiterError):
    """An action outside the action space, or one that is not legal in the given state."""


class NotationError(ArbiterError):
    """A move string that does not parse in the game's notation, or names an illegal move."""


class TextBoardError(ArbiterError):
    """A text board that ``from_text`` cannot read as a legal position of the game."""
