"""Replaying a game from its record: options, seed and the action log.

A *record* is what the replay endpoint serves (see
:meth:`engine.room.RoomCore.replay_record`). Because the rules take their
chance from the seed and their time from each entry's ``at``, replaying the
log through the same game gives exactly the same states.
"""

from __future__ import annotations

from typing import Any

from engine.games import find_game


def replay(record: dict[str, Any]) -> Any:
    """The final state reached by replaying ``record``; raises if a step is refused."""
    game = find_game(record["game"])
    if game is None:
        raise ValueError(f"unknown game {record['game']!r}")
    state = game.setup(record["options"], record["players"], record["seed"],
                       record.get("started_at") or 0)
    for entry in record["actions"]:
        if entry.get("timeout"):
            state, _ = game.on_timeout(state, entry["at"])
        else:
            state, _ = game.apply(state, entry["seat"], entry["action"], entry["at"])
    return state
