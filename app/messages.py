"""Client-to-server WebSocket messages, validated at the edge.

Every frame is a JSON object with a ``type``; pydantic checks it against the
tagged union below before anything else sees it. ``ref`` is the client's own
number for a request (a JSON integer or string) and is echoed in the ``ack``
or ``error`` it causes.
Server-to-client frames are built by :mod:`app.frames`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

RoomId = Annotated[str, Field(min_length=1, max_length=64)]
Ref = int | str | None


class _Message(BaseModel):
    # Strict: a field's JSON type is its type (``true`` is no seat, ``"1"`` no
    # ref), so what is echoed or acted on is what the client sent.
    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)
    ref: Ref = None


class JoinMessage(_Message):
    type: Literal["join"]
    room: RoomId
    role: Literal["player", "spectator"] = "player"


class LeaveMessage(_Message):
    type: Literal["leave"]
    room: RoomId


class AddBotMessage(_Message):
    type: Literal["add_bot"]
    room: RoomId


class StartMessage(_Message):
    type: Literal["start"]
    room: RoomId


class ActMessage(_Message):
    type: Literal["act"]
    room: RoomId
    action: dict[str, Any]


class PingMessage(_Message):
    type: Literal["ping"]


class RemoveBotMessage(_Message):
    type: Literal["remove_bot"]
    room: RoomId
    seat: int


class RematchMessage(_Message):
    type: Literal["rematch"]
    room: RoomId


class ChatMessage(_Message):
    """A chat line: ``text`` (the room caps its length) or an ``emote`` key."""

    type: Literal["chat"]
    room: RoomId
    # Bounded here too, so that a long line is refused before it is copied on.
    text: Annotated[str, Field(max_length=2000)] | None = None
    emote: Annotated[str, Field(max_length=32)] | None = None


ClientMessage = Annotated[
    JoinMessage | LeaveMessage | AddBotMessage | StartMessage | ActMessage | PingMessage
    | RemoveBotMessage | RematchMessage | ChatMessage,
    Field(discriminator="type"),
]

client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
# The adapter's validator itself: ``client_message.validate_python`` passes
# every one of its keyword arguments on, defaults included, which costs
# about as much again as validating an ``act``.
validate_message: Callable[[Any], ClientMessage] = client_message.validator.validate_python
