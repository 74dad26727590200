"""The bot registry: every game has a bot, found by the game's name, and the
rules never reach for it (bots live beside the games, not inside them)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.bots import bot_games, find_bot, seedless
from engine.bots.basic_rummy import choose as basic_rummy_choose
from engine.bots.remmi_demmi import choose as remmi_demmi_choose
from engine.game import Game, View
from engine.games import all_games, find_game
from engine.rng import Rng
from tests.games import known_game

GAMES = Path(__file__).resolve().parents[2] / "engine" / "games"


def test_every_game_has_a_bot_and_every_bot_a_game() -> None:
    assert sorted(bot_games()) == sorted(game.name for game in all_games())
    for name in bot_games():
        assert find_game(name) is not None


def test_a_game_without_a_bot_is_refused_by_name() -> None:
    with pytest.raises(LookupError, match="no bot plays 'checkers'"):
        find_bot("checkers")


@pytest.mark.parametrize("rules", all_games(), ids=lambda g: g.name)
def test_each_bot_plays_from_its_seat_s_view_of_a_new_game(rules: Game) -> None:
    # The registry hands the room a bot that answers a fresh deal's view
    # with something the rules accept (or waits, as a non-dealer in Remmi
    # Demmi does), for whichever seat is to act.
    players = rules.min_players
    state = rules.setup(rules.validate_options({}, players), players, 7, 0)
    bot = find_bot(rules.name)
    moved = False
    for seat in range(players):
        view = rules.view(state, seat)
        view["server_time"] = 0
        action = bot(view, 11)
        assert action == bot(view, 11)  # same view and seed, same action
        if action is not None:
            rules.apply(state, seat, action, 0)  # raises if the rules refuse it
            moved = True
    assert moved


def test_seedless_bots_are_the_games_own_choose() -> None:
    seen: list[View] = []

    def choose(view: View) -> None:
        seen.append(view)

    bot = seedless(choose)
    assert bot({"you": 0}, 1) is None and bot({"you": 1}, 2) is None
    assert seen == [{"you": 0}, {"you": 1}]
    game = known_game("basic_rummy")
    view = game.view(game.setup(game.validate_options({}, 2), 2, 3, 0), 0)
    assert find_bot("basic_rummy")(view, Rng(5).below(1000)) == basic_rummy_choose(view)
    assert find_bot("remmi_demmi") is remmi_demmi_choose


@pytest.mark.parametrize("path", sorted(GAMES.rglob("*.py")), ids=lambda p: p.name)
def test_no_game_module_imports_a_bot(path: Path) -> None:
    # Counting imports inside functions too: a lazy import is still a cycle
    # between a game and its bot, which imports the game for its rules.
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            names = []
        for name in names:
            assert not name.startswith("engine.bots"), f"{path.name} imports {name}"
