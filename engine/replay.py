"""Replaying a game from its record: options, seed and the action log.

A *record* is what the replay endpoint serves (see
:meth:`engine.room.RoomCore.replay_record`). Because the rules take their
chance from the seed and their time from each entry's ``at``, replaying the
log through the same game gives exactly the same states.

A *step* is one state on the way: step 0 is the first deal as dealt, step
``i`` the state after the ``i``-th entry of the log. The *open view* of a
step shows the whole table with every hand face up, for watching a finished
game: it is built from the game's own views only (the spectator's, and each
seat's own part of its view), never from the state's insides.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from engine.game import Event, Game, View
from engine.games import find_game


def game_of(record: dict[str, Any]) -> Game:
    """The game the record was played with; ValueError if unknown."""
    game = find_game(record["game"])
    if game is None:
        raise ValueError(f"unknown game {record['game']!r}")
    return game


def states(record: dict[str, Any]) -> Iterator[tuple[dict[str, Any] | None, list[Event], Any]]:
    """``(entry, events, state)`` for every step: first ``(None, [], dealt)``,
    then each log entry with the events it caused and the state after it.
    Raises if a step is refused."""
    game = game_of(record)
    state = game.setup(record["options"], record["players"], record["seed"],
                       record.get("started_at") or 0)
    yield None, [], state
    for entry in record["actions"]:
        if entry.get("timeout"):
            state, events = game.on_timeout(state, entry["at"])
        else:
            state, events = game.apply(state, entry["seat"], entry["action"], entry["at"])
        yield entry, events, state


def replay(record: dict[str, Any]) -> Any:
    """The final state reached by replaying ``record``; raises if a step is refused."""
    (_, _, last), = deque(states(record), maxlen=1)
    return last


def open_view(game: Game, state: Any, players: int) -> dict[str, Any]:
    """The whole table with every hand: ``{"table": the spectator's view,
    "own": [what each seat's own view adds to it, by seat]}``."""
    table = game.view(state, None)
    own: list[View] = []
    for seat in range(players):
        view = game.view(state, seat)
        own.append({k: v for k, v in view.items()
                     if k != "you" and (k not in table or table[k] != v)})
    return {"table": table, "own": own}


def steps(record: dict[str, Any], start: int = 0, limit: int | None = None
          ) -> Iterator[dict[str, Any]]:
    """The steps ``start`` to ``start + limit - 1`` (all from ``start`` when
    ``limit`` is None), each ``{"index", "entry", "events", "view"}``: the log
    entry that led to it (None for the deal), the events it caused and its
    open view. Only the steps asked for are viewed."""
    game = game_of(record)
    stop = None if limit is None else start + limit
    for index, (entry, events, state) in enumerate(states(record)):
        if stop is not None and index >= stop:
            break
        if index < start:
            continue
        yield {
            "index": index,
            "entry": None if entry is None else {
                "seat": entry.get("seat"), "action": entry.get("action"),
                "timeout": bool(entry.get("timeout")), "bot": bool(entry.get("bot")),
                "at": entry.get("at"),
            },
            "events": events,
            "view": open_view(game, state, record["players"]),
        }
