"""The random-legal baseline: any game, a uniformly chosen legal action.

It reads the full state through ``game.legal_actions`` rather than a view, so
it is a yardstick for benchmarks and tests, never a player the room seats.
"""

from __future__ import annotations

from typing import Any

from engine.game import Action, Game
from engine.rng import Rng


def choose_random(game: Game, state: Any, seat: int, rng: Rng) -> Action:
    """One of ``seat``'s legal actions, each equally likely; ValueError if there is none."""
    actions = game.legal_actions(state, seat)
    if not actions:
        raise ValueError(f"seat {seat} has no legal action")
    return rng.choice(actions)
