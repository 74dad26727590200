"""Server-to-client frames, serialised once and shared.

A *frame* is one JSON text message as sent on a WebSocket. A room's change is
turned into frames once per audience (a seat, or the spectators), never once
per connection. On the broker a frame travels as an *envelope*: the room
version, a newline, then the frame, so that a connection can drop frames
older than the snapshot it was sent without parsing JSON.
"""

from __future__ import annotations

from typing import Any

import orjson

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


def envelope(version: int, frame: bytes) -> bytes:
    return b"%d\n%s" % (version, frame)


def open_envelope(message: bytes) -> tuple[int, bytes]:
    head, _, frame = message.partition(b"\n")
    return int(head), frame


def seat_channel(room_id: str, seat: int) -> str:
    return f"room:{room_id}:seat:{seat}"


def watch_channel(room_id: str) -> str:
    return f"room:{room_id}:watch"


def change_messages(change: Change) -> list[tuple[str, bytes]]:
    """The (channel, envelope) pairs that carry one change to every audience."""
    events = [
        dumps({"type": "event", "room": change.room_id, "version": change.version,
               "event": event})
        for event in change.events
    ]
    out: list[tuple[str, bytes]] = []
    for audience, view in change.views.items():
        channel = (watch_channel(change.room_id) if audience is None
                   else seat_channel(change.room_id, audience))
        for frame in events:
            out.append((channel, envelope(change.version, frame)))
        out.append((channel, envelope(change.version, state(change.room_id, change.version,
                                                             view))))
    return out
