"""The WebSocket gateway: one :class:`Connection` per socket at ``/ws``.

A connection authenticates once (``?token=``; without one it may only
watch), then turns each incoming frame into a room command. It never touches
game state: it validates, enqueues on the room's actor, and replies with
``ack`` or ``error``. Room output reaches it through this process's feeds
(:mod:`app.feeds`), on the channel of its audience (its seat, or the
spectators). Served by
``python -m app`` (:mod:`app.wsprotocol`), frames go out on the socket's
direct frame path: framed at once, written once per loop turn. On any other
ASGI server they go through a bounded outgoing queue drained by a writer task.

Abuse handling, in the order it bites:

- a frame larger than ``max_frame_bytes`` (its UTF-8 bytes) closes the socket (1009);
- the *flood level* rises by one per message (a ``join`` or ``leave`` by
  ``join_cost``: each one sends frames to every member of the room) and
  drains at ``flood_rate`` per second; above ``flood_refuse_level`` messages
  are refused with ``rate_limited``, above ``flood_close_level`` the socket
  is closed (1008);
- a client that does not read fast enough (more than ``send_buffer_bytes``
  waiting on the direct path, ``send_queue_size`` frames on the queue) is
  dropped (1013) instead of being buffered forever; on the direct path, so
  is one whose socket takes nothing for ``write_stall_s`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.websockets import WebSocketState

from app import frames
from app.actions import check_action, json_depth_over
from app.feeds import Feeds
from app.messages import (
    ActMessage,
    AddBotMessage,
    ChatMessage,
    ClientMessage,
    JoinMessage,
    LeaveMessage,
    PingMessage,
    RematchMessage,
    RemoveBotMessage,
    StartMessage,
    validate_message,
)
from app.rooms import RoomRegistry, now_ms
from app.settings import Settings
from app.store import PlayerRecord
from app.wsprotocol import Receiver, frame_path, unwire, wire
from engine.game import Game
from engine.games import find_game
from engine.room import (
    Act,
    AddBot,
    Chat,
    Command,
    History,
    Join,
    Leave,
    Rematch,
    RemoveBot,
    RoomError,
    Snapshot,
    Start,
)

log = logging.getLogger("kartu.gateway")

CLOSE_TOO_BIG = 1009
CLOSE_POLICY = 1008
CLOSE_TOO_SLOW = 1013
CLOSE_TRY_LATER = 1013  # also: too many sockets from one address (app/main.py)
CLOSE_BAD_TOKEN = 4401


@dataclass(slots=True)
class Membership:
    """This connection's place in one room: its seat (None: watching) and feed."""

    seat: int | None
    channel: str
    feed: int | None = None  # handle of this connection's attachment to the channel's feed
    floor: int = -1  # frames at or below this version are older than the snapshot sent
    receiver: Receiver | None = None  # the attachment, on the direct frame path
    game: Game | None = None  # the room's game, whose action schema an act is checked against

    def set_floor(self, version: int) -> None:
        self.floor = version
        if self.receiver is not None:
            self.receiver.floor = version


def frame_size(text: str) -> int:
    """The bytes ``text`` took on the wire (UTF-8): its length when it is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class Connection:
    _serial = 0  # numbers this process's connections
    # One per open socket, most of them idle: slots keep each smaller than
    # its attribute dict would (bench.load --shape idle).
    __slots__ = (
        "_close_task", "_close_with", "_closing", "_flood_at", "_flood_level",
        "conn_id", "feeds", "memberships", "outgoing", "path", "player", "player_id",
        "registry", "settings", "ws",
    )

    def __init__(self, websocket: WebSocket, player: PlayerRecord | None, settings: Settings,
                 registry: RoomRegistry, feeds: Feeds) -> None:
        self.ws = websocket
        self.player = player
        self.player_id = player.id if player else None
        self.settings = settings
        self.registry = registry
        self.feeds = feeds
        self.path = frame_path(websocket.scope) if hasattr(websocket, "scope") else None
        if self.path is not None:
            # What the kernel holds counts too: keep it small, and drop a
            # client whose socket stops taking anything, however quiet its rooms.
            self.path.limit_writes(settings.write_stall_s, settings.socket_send_buffer)
        # The queue path's outgoing frames; the direct path needs no queue (and
        # an idle socket is mostly what it keeps, so it does not make one).
        self.outgoing: asyncio.Queue[bytes | None] | None = (
            None if self.path is not None else asyncio.Queue(settings.send_queue_size))
        self.memberships: dict[str, Membership] = {}
        self._flood_level = 0.0
        self._flood_at = time.monotonic()
        Connection._serial += 1
        self.conn_id = f"{registry.process_id}:{Connection._serial}"
        self._closing = False
        self._close_with: tuple[int, str] | None = None
        self._close_task: asyncio.Task[None] | None = None

    # --- sending -------------------------------------------------------------

    def send(self, frame: bytes) -> None:
        if self.path is not None:
            self.send_wire(wire(frame))
            return
        if self._closing:
            return
        assert self.outgoing is not None
        try:
            self.outgoing.put_nowait(frame)
        except asyncio.QueueFull:
            self._too_slow()

    def send_wire(self, data: bytes | memoryview) -> None:
        """Direct frame path only: frames already framed (:func:`app.wsprotocol.wire`)."""
        assert self.path is not None
        if not self._closing and not self.path.send_wire(data, self.settings.send_buffer_bytes):
            self._too_slow()

    def _stop_receiving(self) -> None:
        """Closing: the feeds send this connection nothing more."""
        self._closing = True
        for membership in self.memberships.values():
            if membership.receiver is not None:
                membership.receiver.gone = True

    def _too_slow(self) -> None:
        self.close_soon(CLOSE_TOO_SLOW, "too slow: messages were piling up", drain=False)

    async def _write_forever(self) -> None:
        """The queue path's writer (servers without the direct frame path)."""
        assert self.outgoing is not None
        while True:
            frame = await self.outgoing.get()
            if frame is None:  # a close was asked for after the frames before it
                await self._close()
                return
            await self.ws.send_text(frame.decode())

    def close_soon(self, code: int, reason: str, *, drain: bool = True) -> None:
        """Closes the socket; with ``drain``, after the frames already queued (errors)."""
        if self._close_with is not None:
            return
        self._stop_receiving()
        self._close_with = (code, reason)
        log.info("connection_closed", extra={"fields": {"player": self.player_id, "code": code,
                                                        "reason": reason}})
        if drain and self.outgoing is not None:
            try:
                self.outgoing.put_nowait(None)
                return
            except asyncio.QueueFull:
                pass
        self._close_task = asyncio.get_running_loop().create_task(self._close())

    async def _close(self) -> None:
        code, reason = self._close_with or (1000, "")
        with contextlib.suppress(Exception):
            await self.ws.close(code=code, reason=reason)

    # --- receiving -----------------------------------------------------------

    async def serve(self) -> None:
        # On the direct path frames are already in order on the socket: no writer.
        writer = (None if self.path is not None
                  else asyncio.get_running_loop().create_task(self._write_forever()))
        try:
            receive: Callable[[], Awaitable[Mapping[str, Any]]] = (
                self.path.receive if self.path is not None else self.ws.receive)
            while not self._closing:
                message = await receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if not isinstance(text, str):
                    self.send(frames.error("bad_message", reason="not_text"))
                    continue
                if frame_size(text) > self.settings.max_frame_bytes:
                    self.close_soon(CLOSE_TOO_BIG, "message too big")
                    break
                if not self._admit(text):
                    continue
                await self._dispatch(text)
                if self.path is not None:
                    self.path.flush_all()
        except WebSocketDisconnect:
            pass
        finally:
            self._stop_receiving()
            await self._leave_all()
            if self._close_task is not None:  # the close asked for goes out first
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(self._close_task), 2)
            if writer is not None:
                if self._close_with is not None and not writer.done():
                    # Let the writer send what was queued before the close, briefly.
                    with contextlib.suppress(asyncio.TimeoutError, Exception):
                        await asyncio.wait_for(asyncio.shield(writer), 2)
                writer.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await writer

    def _admit(self, text: str) -> bool:
        """Flood control: False if this message is refused (or the socket closed)."""
        now = time.monotonic()
        self._flood_level = max(
            0.0, self._flood_level - (now - self._flood_at) * self.settings.flood_rate
        ) + 1
        self._flood_at = now
        if self._flood_level > self.settings.flood_close_level:
            self.close_soon(CLOSE_POLICY, "flooding: too many messages")
            return False
        if self._flood_level > self.settings.flood_refuse_level:
            # With the ref of the message refused, so that a client waiting
            # for its answer gets one and may send it again later.
            self.send(frames.error("rate_limited", None, _ref_of(text)))
            return False
        return True

    def _admit_costly(self, ref: int | str | None) -> bool:
        """Flood control for a join or leave, counted as ``join_cost`` messages
        (one of them counted already by :meth:`_admit`): False if refused."""
        self._flood_level += max(0.0, self.settings.join_cost - 1)
        if self._flood_level > self.settings.flood_close_level:
            self.close_soon(CLOSE_POLICY, "flooding: too many joins and leaves")
            return False
        if self._flood_level > self.settings.flood_refuse_level:
            self.send(frames.error("rate_limited", "slow down: too many joins and leaves", ref))
            return False
        return True

    async def _dispatch(self, text: str) -> None:
        if json_depth_over(text, self.settings.max_json_depth):
            # Refused unparsed: nothing deeper ever reaches a recursive parser,
            # validator or serialiser (an action's log entry, a reply).
            self.send(frames.error(
                "bad_message", f"JSON nested deeper than {self.settings.max_json_depth} levels",
                _ref_of(text), reason="too_deep",
                params={"limit": self.settings.max_json_depth}))
            return
        try:
            raw = orjson.loads(text)
        except orjson.JSONDecodeError:
            self.send(frames.error("bad_message", reason="not_json"))
            return
        try:
            msg: ClientMessage = validate_message(raw)
        except ValidationError as err:
            first = err.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "message"
            # The field without the message type pydantic puts first ("join.room").
            field = ".".join(str(p) for p in first["loc"][1:]) or where
            self.send(frames.error("bad_message", f"{where}: {first['msg']}", _ref_in(raw),
                                   reason="bad_field",
                                   params={"field": field, "problem": first["msg"]}))
            return
        try:
            await self._handle(msg)
        except RoomError as err:
            self.send(frames.refusal(err, msg.ref))

    async def _call(self, room_id: str, command: Command) -> Any:
        # The room counts connections; which one joined or left is the registry's
        # to note (app.members).
        conn = self.conn_id if isinstance(command, Join | Leave) else None
        return await self.registry.call(room_id, command, conn)

    async def _handle(self, msg: ClientMessage) -> None:
        if isinstance(msg, ActMessage):  # first: nearly every message is one
            membership = self.memberships.get(msg.room)
            if membership is None or membership.seat is None:
                raise RoomError.of("forbidden", "join_first")
            # Checked against the game's schema before the room sees it: only
            # the fields the action's kind reads reach the room and its log.
            action = (check_action(membership.game, msg.action) if membership.game is not None
                      else msg.action)
            await self.registry.call(msg.room, Act(self.player_id, membership.seat, action))
            self.send(frames.ack(msg.ref))
        elif isinstance(msg, PingMessage):
            self.send(frames.dumps({"type": "pong", "ref": msg.ref, "server_time": now_ms()}))
        elif isinstance(msg, JoinMessage):
            if self._admit_costly(msg.ref):
                await self._join(msg)
        elif isinstance(msg, LeaveMessage):
            if self._admit_costly(msg.ref):
                await self._leave(msg.room)
                self.send(frames.ack(msg.ref))
        elif isinstance(msg, AddBotMessage):
            seat = await self._call(msg.room, AddBot(self.player_id))
            self.send(frames.ack(msg.ref, seat=seat))
        elif isinstance(msg, StartMessage):
            await self._call(msg.room, Start(self.player_id))
            self.send(frames.ack(msg.ref))
        else:
            await self._handle_table(msg)

    # A chat line weighs this many messages in the flood bucket: a table
    # may talk, not scroll everyone's chat away.
    CHAT_WEIGHT = 4

    async def _handle_table(self, msg: ClientMessage) -> None:
        """The table's own messages: remove_bot, rematch, chat."""
        if isinstance(msg, RemoveBotMessage):
            await self._call(msg.room, RemoveBot(self.player_id, msg.seat))
            self.send(frames.ack(msg.ref, seat=msg.seat))
        elif isinstance(msg, RematchMessage):
            await self._call(msg.room, Rematch(self.player_id, secrets.randbits(63)))
            self.send(frames.ack(msg.ref))
        elif isinstance(msg, ChatMessage):
            membership = self.memberships.get(msg.room)
            if membership is None:
                raise RoomError.of("forbidden", "join_first")
            self._flood_level += self.CHAT_WEIGHT - 1
            if self._flood_level > self.settings.flood_refuse_level:
                raise RoomError.of("rate_limited", "rate_limited")
            name = self.player.name if self.player else None
            line = await self._call(msg.room, Chat(self.player_id, membership.seat, name,
                                                   msg.text, msg.emote))
            self.send(frames.ack(msg.ref, id=line["id"]))

    async def _send_history(self, room_id: str, seat: int | None) -> None:
        """What a joiner missed: the table log so far and the chat it may read."""
        history = await self._call(room_id, History(seat))
        self.send(frames.dumps({"type": "log", "room": room_id, "version": history["version"],
                                "game": history["game"], "entries": history["entries"]}))
        self.send(frames.dumps({"type": "chat_history", "room": room_id,
                                "lines": history["chat"]}))

    async def _join(self, msg: JoinMessage) -> None:
        current = self.memberships.get(msg.room)
        if current is not None:
            await self._join_again(msg, current)
            return
        name = self.player.name if self.player else None
        seat = await self._call(msg.room, Join(self.player_id, name, msg.role))
        await self._attach(msg, seat)

    async def _join_again(self, msg: JoinMessage, current: Membership) -> None:
        """A join for a room this connection is in already: a refusal changes nothing.

        A seated player (either role asked) or a spectator asking to watch
        again gets the current state again (a resync), never a leave: a
        leave in a running ranked daily game would abandon it. A spectator
        asking for a seat takes it only if the room gives one; until then
        it keeps watching, and a refusal leaves it watching.
        """
        if current.seat is not None or msg.role == "spectator":
            version, view = await self._call(msg.room, Snapshot(current.seat))
            current.set_floor(max(current.floor, version))
            self.send(frames.state(msg.room, version, view))
            self.send(frames.ack(msg.ref, seat=current.seat,
                                 role="player" if current.seat is not None else "spectator"))
            return
        name = self.player.name if self.player else None
        seat = await self._call(msg.room, Join(self.player_id, name, "player"))
        # Seated: the spectator's feed and place give way to the seat's.
        await self._leave(msg.room)
        await self._attach(msg, seat)

    async def _attach(self, msg: JoinMessage, seat: int | None) -> None:
        """Opens the feed of the audience ``seat`` (None: watching) and sends the snapshot."""
        channel = frames.audience_channel(msg.room, seat)
        membership = Membership(seat, channel)
        # Every change of the room reaches this connection through the feed:
        # on the direct path the feed corks it on the socket itself.
        attachment: Receiver | Callable[[int, bytes | memoryview], None]
        if self.path is not None:
            attachment = membership.receiver = self.path.receiver(
                self.settings.send_buffer_bytes, self._too_slow)
        else:
            def attachment(version: int, data: bytes | memoryview) -> None:
                if version > membership.floor:
                    for frame in unwire(bytes(data)):
                        self.send(frame)

        try:
            membership.feed = await self.feeds.attach(channel, attachment)
        except (TimeoutError, ConnectionError, OSError) as err:
            # Without a feed the join is useless: undo it and say so.
            await self._call(msg.room, Leave(self.player_id, seat, True))
            raise RoomError("busy", "the server could not open this room's feed; "
                                    "try again", reason="busy") from err
        self.memberships[msg.room] = membership
        if self._closing:  # it closed while the feed was opening
            self._stop_receiving()
        # The snapshot is taken after subscribing, so nothing falls in between;
        # frames the broker already delivered that are older are skipped.
        version, view = await self._call(msg.room, Snapshot(seat))
        membership.set_floor(version)
        membership.game = find_game(str(view.get("game")))
        self.send(frames.state(msg.room, version, view))
        await self._send_history(msg.room, seat)
        self.send(frames.ack(msg.ref, seat=seat, role=msg.role))

    async def _leave(self, room_id: str, *, disconnect: bool = False) -> None:
        membership = self.memberships.pop(room_id, None)
        if membership is None:
            if not disconnect:
                raise RoomError.of("illegal_action", "not_in_room")
            return
        if membership.feed is not None:
            await self.feeds.detach(membership.channel, membership.feed)
        with contextlib.suppress(RoomError):
            await self._call(room_id, Leave(self.player_id, membership.seat, disconnect))

    async def _leave_all(self) -> None:
        for room_id in list(self.memberships):
            with contextlib.suppress(Exception):
                await self._leave(room_id, disconnect=True)


async def serve_socket(websocket: WebSocket, player: PlayerRecord | None, token_given: bool,
                       settings: Settings, registry: RoomRegistry, feeds: Feeds) -> None:
    await websocket.accept()
    if token_given and player is None:
        await websocket.close(code=CLOSE_BAD_TOKEN, reason="unknown token")
        return
    connection = Connection(websocket, player, settings, registry, feeds)
    await connection.serve()
    if websocket.client_state == WebSocketState.CONNECTED:
        with contextlib.suppress(Exception):
            await websocket.close()


def _ref_in(raw: Any) -> int | str | None:
    """A parsed message's ``ref``, if it has a usable one, to answer with."""
    ref = raw.get("ref") if isinstance(raw, dict) else None
    return ref if isinstance(ref, int | str) and not isinstance(ref, bool) else None


def _ref_of(text: str) -> int | str | None:
    """The ``ref`` of a message refused unread (flood control)."""
    try:
        return _ref_in(orjson.loads(text))
    except orjson.JSONDecodeError:
        return None
