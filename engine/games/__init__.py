"""The game registry: every game kartu serves, found by its wire name.

A new game is a module in this package with a class implementing
:class:`engine.game.Game`, added to ``_GAMES`` below.
"""

from __future__ import annotations

from engine.game import Game
from engine.games.basic_rummy import BasicRummy
from engine.games.indonesian_remi import IndonesianRemi
from engine.games.remmi_demmi import RemmiDemmi
from engine.games.traditional_remi import TraditionalRemi

_GAMES: dict[str, Game] = {
    game.name: game
    for game in (BasicRummy(), RemmiDemmi(), TraditionalRemi(), IndonesianRemi())
}


def find_game(name: str) -> Game | None:
    return _GAMES.get(name)


def all_games() -> list[Game]:
    return list(_GAMES.values())
