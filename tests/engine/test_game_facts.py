"""What each game declares about itself, for the server to ask instead of
knowing games by name: its default table, its short game, which score wins."""

from __future__ import annotations

import pytest

from engine.game import Game
from engine.games import all_games
from tests.games import known_game


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_the_default_table_is_one_the_game_allows(game: Game) -> None:
    assert game.min_players <= game.default_seats <= game.max_players


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_the_short_game_is_a_valid_set_of_options(game: Game) -> None:
    options = game.validate_options(dict(game.short_options), game.default_seats)
    assert {k: options[k] for k in game.short_options} == dict(game.short_options)


def test_which_end_of_the_scores_wins() -> None:
    lowest = {game.name for game in all_games() if game.lowest_wins}
    assert lowest == {"traditional_remi"}  # TR-13: totals are penalty points


def test_the_short_games_the_daily_deal_plays() -> None:
    rummy, demmi = known_game("basic_rummy"), known_game("remmi_demmi")
    assert rummy.short_options == {"deals": 3}
    assert demmi.short_options == {"rounds": 3, "speed": "lightning"}
