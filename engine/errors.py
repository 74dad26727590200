"""Domain errors raised by the rules.

A rule that refuses an action raises one of these *before* it changes
anything, so the caller can report ``code`` and ``message`` to the player and
carry on with the state it had.
"""


class GameError(ValueError):
    """An action that the rules refuse. ``code`` goes on the wire."""

    code = "illegal_action"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class IllegalAction(GameError):
    """The action is malformed or breaks a rule."""

    code = "illegal_action"


class NotYourTurn(GameError):
    """The seat acted out of turn."""

    code = "not_your_turn"


class BadOptions(ValueError):
    """Room options or a scenario that a game cannot accept (HTTP 422)."""
