"""Room options: the ones every game shares, then the game's own.

Common options (all optional):

- ``seed``: int, makes the deals reproducible (otherwise the server picks one);
- ``bot_delay_ms``: a bot's think time, 0-10000 (default 800);
- ``fill_bots``: bool, empty seats get bots when the game starts (default:
  the game's ``fill_bots_by_default``);
- ``scenario``: a fixed first deal, for tests (the server may refuse it);
- ``turn_clock_s``: turn-based games only, seconds a player has for a turn
  before a bot plays it for them (default 60, 0 = no clock).
"""

from __future__ import annotations

from typing import Any

from engine.errors import BadOptions
from engine.game import Game

DEFAULT_BOT_DELAY_MS = 800
DEFAULT_TURN_CLOCK_S = 60


def common_defaults(game: Game) -> dict[str, Any]:
    defaults: dict[str, Any] = {"bot_delay_ms": DEFAULT_BOT_DELAY_MS,
                                "fill_bots": game.fill_bots_by_default}
    if game.turn_based:
        defaults["turn_clock_s"] = DEFAULT_TURN_CLOCK_S
    return defaults


def check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` if it is a whole number in ``low..high``; BadOptions otherwise."""
    # bool is an int in Python; `true` is no number of deals.
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadOptions(f"{name} must be a whole number from {low} to {high}")
    return value


def validate_room_options(game: Game, options: dict[str, Any], players: int) -> dict[str, Any]:
    """All options of a new room, defaults filled in; raises BadOptions."""
    if not isinstance(options, dict):
        raise BadOptions("options must be an object")
    if not game.min_players <= players <= game.max_players:
        raise BadOptions(
            f"{game.title} is for {game.min_players} to {game.max_players} players"
        )
    merged = {**common_defaults(game), **options}
    if "seed" in merged:
        check_int("seed", merged["seed"], 0, 2**63 - 1)
    check_int("bot_delay_ms", merged["bot_delay_ms"], 0, 10_000)
    if not isinstance(merged["fill_bots"], bool):
        raise BadOptions("fill_bots must be true or false")
    if game.turn_based:
        check_int("turn_clock_s", merged["turn_clock_s"], 0, 3600)
    common: dict[str, Any] = {
        k: merged.pop(k) for k in ("seed", "bot_delay_ms", "fill_bots", "turn_clock_s")
        if k in merged
    }
    return {**common, **game.validate_options(merged, players)}
