"""Members: which connection holds which place in the rooms this process runs.

A room only counts its connections, per seat and spectators
(:class:`engine.room.RoomCore`). The *connection ids* behind the counts
(``"<process>:<n>"``, :class:`app.gateway.Connection`) are the app's: the
registry notes each join and leave it saves, and keeps a room's *members*
(pairs of a connection id and the seat it holds, None for a spectator) in
the room's snapshot, so that a process taking a room over from a dead one
can tell which connections died with it (:meth:`app.rooms.RoomRegistry.take_over`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from engine.room import Join, Leave, RoomCore

Member = tuple[str, int | None]  # a connection id and its seat (None: watching)


class Members:
    """Each room's members, as its last kept save holds them."""

    def __init__(self) -> None:
        self._rooms: dict[str, set[Member]] = {}

    def after(self, core: RoomCore, conn: str, command: object) -> set[Member] | None:
        """The room's members once ``command`` by ``conn`` is kept; None if it
        changes none (it is not a join or a leave). Not kept yet: see :meth:`keep`."""
        if isinstance(command, Join):
            seat = None if command.role == "spectator" else core.seat_of(command.player_id)
            return self._rooms.get(core.room_id, set()) | {(conn, seat)}
        if isinstance(command, Leave):
            return self._rooms.get(core.room_id, set()) - {(conn, command.seat)}
        return None

    def keep(self, room_id: str, members: set[Member]) -> None:
        self._rooms[room_id] = members

    def saved(self, room_id: str, members: set[Member] | None = None) -> list[list[Any]]:
        """How a room's members (by default its kept ones) go into its snapshot."""
        chosen = self._rooms.get(room_id, set()) if members is None else members
        return sorted(([conn, seat] for conn, seat in chosen),
                      key=lambda m: (m[0], -1 if m[1] is None else m[1]))

    def restore(self, room_id: str, snapshot: dict[str, Any]) -> None:
        """The members a room's snapshot holds (format 1 kept the ids in the room's part)."""
        if "members" in snapshot:
            members: Iterable[Member] = ((conn, seat) for conn, seat in snapshot["members"])
        else:
            members = [*((conn, seat["index"]) for seat in snapshot.get("seats", ())
                         if isinstance(seat.get("connections"), list)
                         for conn in seat["connections"]),
                       *((conn, None) for conn in snapshot.get("watchers", ()))]
        self._rooms[room_id] = set(members)

    def drop(self, room_id: str, alive: Callable[[str], bool]) -> list[int | None]:
        """Forgets the room's members whose connection is not ``alive``; the
        seat (None: a spectator) of each, for the room to count them gone."""
        members = self._rooms.get(room_id, set())
        lost = {m for m in members if not alive(m[0])}
        self._rooms[room_id] = members - lost
        return [seat for _, seat in sorted(lost, key=lambda m: m[0])]

    def forget(self, room_id: str) -> None:
        self._rooms.pop(room_id, None)
