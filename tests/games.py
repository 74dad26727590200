"""The games the tests play, by name: :func:`engine.games.find_game` for a
game the registry is known to hold, typed as the game it finds."""

from __future__ import annotations

from engine.game import Game
from engine.games import find_game


def known_game(name: str) -> Game:
    """The registered game ``name``; fails (AssertionError) if there is none."""
    game = find_game(name)
    assert game is not None, f"no game {name!r} in engine.games"
    return game
