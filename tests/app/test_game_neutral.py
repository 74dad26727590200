"""The server names no game: what differs between games, each game declares
(:class:`engine.game.Game`), and app/ asks it through the registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.games import all_games

APP = Path(__file__).resolve().parents[2] / "app"


@pytest.mark.parametrize("path", sorted(APP.rglob("*.py")), ids=lambda p: p.name)
def test_no_server_module_names_a_game(path: Path) -> None:
    text = path.read_text()
    for game in all_games():
        assert game.name not in text, f"{path.name} names {game.name}"
