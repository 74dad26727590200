"""A game's ``apply`` run under the purity check every property test wants,
and the checks every refusal passes (a documented reason, no rule id in its
sentence)."""

from __future__ import annotations

import copy
import re
from typing import Any

from engine.errors import GameError
from engine.game import Event, Game
from engine.refusals import REASONS

# A rule id written into a sentence, as refusals used to: "(BR-12)".
_CITED = re.compile(r"\([A-Z]{2}-\d+")


def check_refusal(error: GameError) -> None:
    """A refusal names a catalogued reason and keeps its rule out of its sentence."""
    assert error.message
    assert error.reason in REASONS, f"refusal reason {error.reason!r} is not catalogued"
    assert not _CITED.search(error.message), f"rule id in the sentence: {error.message!r}"


def refusal_text(error: GameError) -> str:
    """"<reason> <rule> <message>": what a rule test looks for in a refusal."""
    check_refusal(error)
    return " ".join(part for part in (error.reason, error.rule, error.message) if part)


def apply_purely(game: Game, state: Any, seat: Any, action: Any,
                 now: int) -> tuple[Any, list[Event]] | None:
    """``game.apply``, checking that it left ``state`` as it was, whether it
    accepted the action or refused it (with a message). None if refused."""
    before = game.snapshot(state)
    deep = copy.deepcopy(state)
    try:
        result = game.apply(state, seat, action, now)
    except GameError as error:
        check_refusal(error)
        assert game.snapshot(state) == before and state == deep, "a refusal changed state"
        return None
    assert game.snapshot(state) == before and state == deep, "apply changed its input"
    return result
