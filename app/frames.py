"""Server-to-client frames, serialised once and shared.

A *frame* is one JSON text message as sent on a WebSocket. A room's change is
turned into frames once per audience (a seat, or the spectators), never once
per connection. On the broker a change travels to each audience as one
*envelope*: the room version on a line of its own, then the change's frames
(its events, then the state) as WebSocket wire bytes
(:func:`app.wsprotocol.wire`). A connection can drop frames older than the
snapshot it was sent without parsing JSON, and the frames are framed once,
by the room's process, for every connection of every process.
"""

from __future__ import annotations

from typing import Any

import orjson

from app.wsprotocol import unwire, wire
from engine.room import Change


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


def error(code: str, message: str, ref: Any = None) -> bytes:
    frame: dict[str, Any] = {"type": "error", "code": code, "message": message}
    if ref is not None:
        frame["ref"] = ref
    return dumps(frame)


def ack(ref: Any, **extra: Any) -> bytes:
    return dumps({"type": "ack", "ref": ref, **extra})


def state(room_id: str, version: int, view: dict[str, Any]) -> bytes:
    return dumps({"type": "state", "room": room_id, "version": version, "view": view})


def _state_of_parts(room_json: bytes, version: int, own: bytes, shared: bytes) -> bytes:
    """:func:`state` of the view ``{**shared, **own}``, from the two parts' JSON.

    Their keys are disjoint (:meth:`engine.game.Game.view_parts`), so the
    view's JSON is the two objects' members joined: the shared part is
    serialised once for every audience.
    """
    if len(shared) > 2:  # not "{}"
        own = own[:-1] + b"," + shared[1:] if len(own) > 2 else shared
    return b'{"type":"state","room":%s,"version":%d,"view":%s}' % (room_json, version, own)


def envelope(version: int, *frames: bytes) -> bytes:
    return b"%d\n%s" % (version, b"".join([wire(frame) for frame in frames]))


def open_envelope(message: bytes) -> tuple[int, bytes]:
    """The version and the wire bytes of an envelope's frames."""
    head, _, data = message.partition(b"\n")
    return int(head), data


def envelope_frames(message: bytes) -> tuple[int, list[bytes]]:
    """The version and the frames (JSON payloads) of an envelope."""
    version, data = open_envelope(message)
    return version, unwire(data)


def seat_channel(room_id: str, seat: int) -> str:
    return f"room:{room_id}:seat:{seat}"


def watch_channel(room_id: str) -> str:
    return f"room:{room_id}:watch"


def change_messages(change: Change) -> list[tuple[str, bytes]]:
    """The (channel, envelope) pairs that carry one change to every audience: one each.

    The events are the same for every audience: serialised and framed once,
    and so is the shared part of the views.
    """
    head = b"%d\n" % change.version
    events = b"".join([
        wire(dumps({"type": "event", "room": change.room_id, "version": change.version,
                    "event": event}))
        for event in change.events
    ])
    room_json = dumps(change.room_id)
    shared = dumps(change.shared)
    out: list[tuple[str, bytes]] = []
    for audience, own in change.own.items():
        channel = (watch_channel(change.room_id) if audience is None
                   else seat_channel(change.room_id, audience))
        frame = _state_of_parts(room_json, change.version, dumps(own), shared)
        out.append((channel, head + events + wire(frame)))
    return out
