"""A game's ``apply`` run under the purity check every property test wants."""

from __future__ import annotations

import copy
from typing import Any

from engine.errors import GameError
from engine.game import Event, Game


def apply_purely(game: Game, state: Any, seat: Any, action: Any,
                 now: int) -> tuple[Any, list[Event]] | None:
    """``game.apply``, checking that it left ``state`` as it was, whether it
    accepted the action or refused it (with a message). None if refused."""
    before = game.snapshot(state)
    deep = copy.deepcopy(state)
    try:
        result = game.apply(state, seat, action, now)
    except GameError as error:
        assert error.message
        assert game.snapshot(state) == before and state == deep, "a refusal changed state"
        return None
    assert game.snapshot(state) == before and state == deep, "apply changed its input"
    return result
