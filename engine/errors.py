"""Domain errors raised by the rules.

A rule that refuses an action raises one of these *before* it changes
anything, so the caller can report it to the player and carry on with the
state it had. A refusal says what went wrong three ways:

- ``code``: the broad class a program acts on (``illegal_action``,
  ``not_your_turn``), as the wire contract names it;
- ``reason``: a stable snake_case key naming the exact refusal
  (``draw_first``, ``card_just_taken``), with ``params``, the few facts its
  sentence needs (card ids as ids, seats as numbers): a client turns the two
  into a sentence in its player's language (:mod:`engine.refusals` lists
  every reason with its English sentence);
- ``rule``: the written rule it enforces (``"BR-12"``, ``"IR-6, IR-7"``) or
  None, and ``message``: the English sentence, without the rule id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.refusals import sentence


class GameError(ValueError):
    """An action that the rules refuse. ``code`` goes on the wire."""

    code = "illegal_action"

    def __init__(self, message: str | None = None, *, reason: str | None = None,
                 rule: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        # Without a reason the refusal is unnamed: the client shows the message.
        self.reason = reason or self.code
        self.rule = rule
        self.params: dict[str, Any] = dict(params or {})
        self.message = message if message is not None else sentence(self.reason, self.params)
        super().__init__(self.message)

    @classmethod
    def of(cls, reason: str, rule: str | None = None, **params: Any) -> GameError:
        """The refusal ``reason`` (its English sentence from the catalog)."""
        return cls(reason=reason, rule=rule, params=params)


class IllegalAction(GameError):
    """The action is malformed or breaks a rule."""

    code = "illegal_action"


class NotYourTurn(GameError):
    """The seat acted out of turn."""

    code = "not_your_turn"


class BadOptions(ValueError):
    """Room options or a scenario that a game cannot accept (HTTP 422).

    The message says what is wrong in plain words; like a refusal, the written
    rule behind it travels apart (``rule``), never in the message. A
    ``reason`` of :mod:`engine.refusals` (with its ``params``) lets a client
    say it in its player's language; without one the reason is
    ``bad_options`` and the message is the detail.
    """

    def __init__(self, message: str | None = None, *, reason: str | None = None,
                 rule: str | None = None, params: Mapping[str, Any] | None = None) -> None:
        self.reason = reason or "bad_options"
        self.rule = rule
        self.params: dict[str, Any] = dict(params or {})
        self.message = message if message is not None else sentence(self.reason, self.params)
        super().__init__(self.message)
