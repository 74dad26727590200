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

from app.wsprotocol import unwire, wire, wire_header
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


def _view_parts_json(own: bytes, shared: bytes) -> list[bytes | memoryview]:
    """The JSON of the view ``{**shared, **own}``, in pieces, from its two parts'.

    Their keys are disjoint (:meth:`engine.game.Game.view_parts`), so the
    view's members are the two objects' joined; ``shared`` comes without its
    opening brace (it is serialised once for every audience).
    """
    if len(shared) <= 1:  # "}": nothing shared
        return [own]
    if len(own) <= 2:  # "{}"
        return [b"{", shared]
    return [memoryview(own)[:-1], b",", shared]
def envelope(version: int, *frames: bytes) -> bytes:
    return b"%d\n%s" % (version, b"".join([wire(frame) for frame in frames]))


def open_envelope(message: bytes) -> tuple[int, memoryview]:
    """The version and the wire bytes of an envelope's frames (a view of them,
    not a copy: a change's envelope goes to every connection of its audience)."""
    cut = message.index(b"\n")
    return int(message[:cut]), memoryview(message)[cut + 1:]


def envelope_frames(message: bytes) -> tuple[int, list[bytes]]:
    """The version and the frames (JSON payloads) of an envelope."""
    version, data = open_envelope(message)
    return version, unwire(bytes(data))


def seat_channel(room_id: str, seat: int) -> str:
    return f"room:{room_id}:seat:{seat}"


def watch_channel(room_id: str) -> str:
    return f"room:{room_id}:watch"


def room_channels(room_id: str, seats: int) -> list[str]:
    """Every channel a room of ``seats`` seats publishes on."""
    return [*(seat_channel(room_id, seat) for seat in range(seats)), watch_channel(room_id)]


def change_messages(change: Change) -> list[tuple[str, bytes]]:
    """The (channel, envelope) pairs that carry one change to every audience: one each.

    The events are the same for every audience: serialised and framed once,
    and so is the shared part of the views. Each envelope is put together
    with one copy: a change goes to every audience as about a kilobyte each.
    """
    head = b"%d\n" % change.version
    events = b"".join([
        wire(dumps({"type": "event", "room": change.room_id, "version": change.version,
                    "event": event}))
        for event in change.events
    ])
    state_head = b'{"type":"state","room":%s,"version":%d,"view":' % (
        dumps(change.room_id), change.version)
    shared = dumps(change.shared)[1:]
    out: list[tuple[str, bytes]] = []
    for audience, own in change.own.items():
        channel = (watch_channel(change.room_id) if audience is None
                   else seat_channel(change.room_id, audience))
        view = _view_parts_json(own if isinstance(own, bytes) else dumps(own), shared)
        length = len(state_head) + sum(map(len, view)) + 1
        out.append((channel, b"".join([head, events, wire_header(length), state_head, *view,
                                       b"}"])))
    return out
