"""Server-to-client frames, serialised once and shared.

A *frame* is one JSON text message as sent on a WebSocket. A room's change is
turned into frames once per audience (a seat, or the spectators), never once
per connection: the change's events, then the audience's state (its view:
the change's public part joined with the audience's own,
:class:`engine.room.OwnParts`), as
WebSocket wire bytes (:func:`app.wsprotocol.wire`), framed once by the
room's process for every connection of every process
(:class:`RoomFrames`). The room's own process hands them to its
connections as they are (:meth:`app.feeds.Feeds.send`); to other processes
they travel on the broker as one *envelope* per audience: the room version
on a line of its own, then the frames (:func:`envelope_of`). Either way a
connection can drop frames older than the snapshot it was sent without
parsing JSON.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import orjson

from app.wsprotocol import wire, wire_header
from engine.room import Change, RoomError


def dumps(obj: Any) -> bytes:
    """``obj`` as compact JSON."""
    return orjson.dumps(obj)


def kept(obj: Any) -> bytes:
    """``obj`` as compact JSON in bytes of their own size, for JSON that is
    kept (a log entry, an own part sent again and again). orjson's bytes keep
    the buffer they were written into, about 4 KB whatever their length: fine
    for a frame sent and dropped, not for JSON kept as long as a room."""
    return bytes(memoryview(orjson.dumps(obj)))


def loads(data: bytes | str) -> Any:
    """The value of JSON ``data``."""
    return orjson.loads(data)


def error(code: str, message: str | None = None, ref: Any = None, *,
          reason: str | None = None, rule: str | None = None,
          params: dict[str, Any] | None = None) -> bytes:
    """A refusal: ``code`` (what a program acts on), ``reason`` and ``params``
    (the exact refusal, which a client says in its player's language), the
    ``rule`` it enforces and the English ``message`` (:mod:`engine.refusals`)."""
    frame: dict[str, Any] = {"type": "error", **RoomError(
        code, message, reason=reason, rule=rule, params=params).wire()}
    if ref is not None:
        frame["ref"] = ref
    return dumps(frame)


def refusal(err: RoomError, ref: Any = None) -> bytes:
    """The error frame of a refused command."""
    return error(err.code, err.message, ref, reason=err.reason, rule=err.rule,
                 params=err.params)


def ack(ref: Any, **extra: Any) -> bytes:
    return dumps({"type": "ack", "ref": ref, **extra})


def state(room_id: str, version: int, view: dict[str, Any]) -> bytes:
    return dumps({"type": "state", "room": room_id, "version": version, "view": view})


def spectators(room_id: str, version: int, count: int) -> bytes:
    """How many watch a room, as of its ``version`` (a spectator coming or going
    is no change of the room's version: no state is sent for it)."""
    return dumps({"type": "spectators", "room": room_id, "version": version, "count": count})


def envelope_of(version: int, data: bytes) -> bytes:
    """The envelope of frames already framed (``data``: wire bytes)."""
    return b"%d\n%s" % (version, data)


def open_envelope(message: bytes) -> tuple[int, memoryview]:
    """The version and the wire bytes of an envelope's frames (a view of them,
    not a copy: a change's envelope goes to every connection of its audience)."""
    cut = message.index(b"\n")
    return int(message[:cut]), memoryview(message)[cut + 1:]


def audience_channel(room_id: str, audience: int | None) -> str:
    """The channel of one audience of a room: a seat, or None (the spectators)."""
    return watch_channel(room_id) if audience is None else seat_channel(room_id, audience)


def seat_channel(room_id: str, seat: int) -> str:
    return f"room:{room_id}:seat:{seat}"


def watch_channel(room_id: str) -> str:
    return f"room:{room_id}:watch"


def room_channels(room_id: str, seats: int) -> list[str]:
    """Every channel a room of ``seats`` seats publishes on."""
    return [*(seat_channel(room_id, seat) for seat in range(seats)), watch_channel(room_id)]


class RoomFrames:
    """How one room's changes are framed, for every audience at once.

    A state frame is the change's public part, serialised once, joined with
    the audience's own part (:class:`engine.room.OwnParts`). Each audience's
    own part is kept as JSON with the key it was made for
    (:meth:`engine.game.Game.own_key`) and made again only when the key
    moved: in Remmi Demmi an offer touches one or two traders' parts.
    For speed only: 16 % less CPU an offer in bench.load's realtime shape.
    """

    __slots__ = ("own",)

    def __init__(self) -> None:
        # audience -> (the key its own part was made for, that part's JSON)
        self.own: dict[int | None, tuple[Hashable, bytes]] = {}

    def frames(self, change: Change) -> list[tuple[str, bytes]]:
        """The (channel, frames) pairs that carry ``change`` to every audience:
        one each, the frames as wire bytes: the change's events (the same for
        every audience, serialised once), then the audience's state."""
        room_id, version = change.room_id, change.version
        events = b"".join([
            wire(dumps({"type": "event", "room": room_id, "version": version, "event": event}))
            for event in change.events])
        # The frame :func:`state` makes of the whole view, laid out from its
        # parts: both are JSON objects, never empty, so "{public,own}" is it.
        head = b'{"type":"state","room":%s,"version":%d,"view":%s,' % (
            dumps(room_id), version, dumps(change.public)[:-1])
        out = []
        for audience in change.audiences:
            own = self.own_part(change, audience)
            frame = b"".join((events, wire_header(len(head) + len(own)), head,
                              memoryview(own)[1:], b"}"))
            out.append((audience_channel(room_id, audience), frame))
        return out

    def own_part(self, change: Change, audience: int | None) -> bytes:
        """The JSON of ``audience``'s own part of ``change``'s view."""
        key = change.own.key(audience)
        if key is not None:
            made = self.own.get(audience)
            if made is not None and made[0] == key:
                return made[1]
        if key is None:
            return dumps(change.own.view(audience))
        data = kept(change.own.view(audience))
        self.own[audience] = (key, data)
        return data
