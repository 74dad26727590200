"""Retried commands: a command sent again after its room moved is answered, not applied twice.

With several processes a command may reach a room twice: its first reply
was lost (the room's process died, or the room moved) and the sender tries
again wherever the room lives now. So the registry names each such command
with a *command id* and the room's process remembers the *reply* to each of
the room's latest ones; a command it has seen is answered with its reply
again. A room that moves takes the memory along: its full snapshot carries
the ids and replies (``retries``), and each log entry saved after the
snapshot carries the id of the command that made it (``cid``), so that a
room resumed from both knows every command it already applied.

The rooms themselves know nothing of this: ids and replies live here and in
what the registry saves beside each room. With one process a command is
never retried and none of this is used.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

# A reply remembered only as "applied" (a command whose log entry was read
# back, not its answer): the retry gets an empty reply, as an act's ack is.
APPLIED: Any = None


class Replies:
    """The replies to each room's latest commands, by command id (oldest first)."""

    LIMIT = 512  # per room

    def __init__(self) -> None:
        # An OrderedDict drops its oldest in constant time; a dict's first
        # entry lies past every one deleted before it.
        self._rooms: dict[str, OrderedDict[str, Any]] = {}

    def known(self, room_id: str, command_id: str) -> bool:
        replies = self._rooms.get(room_id)
        return replies is not None and command_id in replies

    def reply(self, room_id: str, command_id: str) -> Any:
        return self._rooms[room_id][command_id]

    def remember(self, room_id: str, command_id: str, reply: Any) -> None:
        replies = self._rooms.setdefault(room_id, OrderedDict())
        replies[command_id] = reply
        if len(replies) > self.LIMIT:
            replies.popitem(last=False)

    def saved(self, room_id: str) -> list[list[Any]]:
        """The room's memory as JSON-ready data, for its snapshot."""
        return [[command_id, reply] for command_id, reply in self._rooms.get(room_id, {}).items()]

    def restore(self, room_id: str, saved: list[list[Any]]) -> None:
        """The memory :meth:`saved` gave (replies that were tuples come back as lists)."""
        self._rooms[room_id] = OrderedDict()
        for command_id, reply in saved:
            self.remember(room_id, command_id, tuple(reply) if isinstance(reply, list) else reply)

    def forget(self, room_id: str) -> None:
        self._rooms.pop(room_id, None)
