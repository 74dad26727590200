"""kartu's WebSocket protocol for uvicorn: the ASGI one, plus a direct frame path.

``python -m app`` serves WebSockets with :class:`KartuWebSocketProtocol`
(``uvicorn app.main:app --ws app.wsprotocol:KartuWebSocketProtocol`` does the
same by hand). It is uvicorn's sans-I/O ``websockets`` protocol, so every
ASGI application runs on it unchanged; what it adds is offered through the
ASGI scope as the extension ``kartu.frames`` (a :class:`FramePath`), which
the gateway uses when present and does without otherwise.

Terms:

- *corking*: frames sent to a connection are held and written together,
  once: when the gateway is done with the message that caused them
  (:meth:`FramePath.flush_all`), or at the latest on the next turn of the
  event loop. A room change sends a connection its events and its state,
  and the actor its ack in the same turn (the room applies an idle room's
  command in the gateway's own task): one ``write`` instead of three.
- *wire bytes*: a text message framed for sending (RFC 6455: FIN + text
  opcode, the payload length, the payload; a server never masks). Without
  an extension such as per-message compression they are the same for every
  connection, so a frame sent to many sockets is framed once
  (:func:`wire`) and the bytes are shared.
- *backlog*: bytes handed to this connection and not yet taken by the
  kernel (corked plus the transport's buffer, as of the last write). Past
  ``limit`` the client counts as too slow, and the gateway drops it rather
  than buffering.

Receiving is uvicorn's, except that:

- once the handshake is done, incoming bytes are cut into whole frames here
  (*splitting*). A final, unfragmented, masked text frame, which is what
  clients send, goes to the app at once; any other frame (control frames,
  fragments, anything wrong) is handed to the ``websockets`` protocol
  whole, on its own, so that its parser is always at a frame boundary and
  judges it exactly as before. Its generator-based parser costs several
  times more per message than the few slices here.
- reading pauses only when ``READ_AHEAD`` messages wait unread instead of
  after every message (each pause and resume is a system call pair);
- the receive queue and the "writable" flag are :class:`_Inbox` and
  :class:`_Flag`: an idle connection is mostly what it keeps, and asyncio's
  Queue and Event hold four and one deques of about 600 bytes each from the
  start.
"""

from __future__ import annotations

import asyncio
import random
import struct
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State
from websockets.speedups import apply_mask

EXTENSION = "kartu.frames"
READ_AHEAD = 16  # messages queued for the app before reading pauses


_HEADER = struct.Struct(">BB").pack
# (0x817E, length): the head of a frame of 126 to 65535 bytes, a state's usual size.
HEADER_16 = struct.Struct(">HH").pack
_HEADER_64 = struct.Struct(">HQ").pack


def wire_header(length: int) -> bytes:
    """The head of an unmasked, final text frame of ``length`` payload bytes."""
    if length < 126:
        return _HEADER(0x81, length)
    if length < 65536:
        return HEADER_16(0x817E, length)
    return _HEADER_64(0x817F, length)


def wire(payload: bytes) -> bytes:
    """``payload`` (UTF-8 JSON) as one unmasked, final text frame."""
    return wire_header(len(payload)) + payload


def unwire(data: bytes) -> list[bytes]:
    """The payloads of frames made by :func:`wire`, joined (the inverse)."""
    payloads: list[bytes] = []
    at = 0
    while at < len(data):
        n = data[at + 1]
        at += 2
        if n == 126:
            n, at = int.from_bytes(data[at:at + 2], "big"), at + 2
        elif n == 127:
            n, at = int.from_bytes(data[at:at + 8], "big"), at + 8
        payloads.append(data[at:at + n])
        at += n
    return payloads


class FramePath:
    """The direct way out for one connection: synchronous, corked, bounded.

    ``send_wire`` queues wire bytes (one or more frames, from :func:`wire`)
    and returns False, sending nothing, when the backlog is past ``limit``
    (the caller decides what too slow means).
    """

    __slots__ = ("_protocol", "receive", "send_wire")

    def __init__(self, protocol: KartuWebSocketProtocol) -> None:
        self._protocol = protocol
        # The protocol's own methods: a frame fanned out to a room's
        # connections is handed to each with one call, not a chain of them,
        # and every message read is one coroutine less deep.
        self.send_wire: Callable[[bytes | memoryview, int], bool] = protocol.send_corked
        # The next ASGI receive event, as the app's ``receive`` would give it.
        self.receive: Callable[[], Awaitable[ASGIReceiveEvent]] = protocol.receive

    def receiver(self, limit: int, too_slow: Callable[[], None]) -> Receiver:
        """A new attachment of this connection to a feed (:class:`Receiver`)."""
        return Receiver(self._protocol, limit, too_slow)

    def flush_all(self) -> None:
        """Writes now what this connection, then every other one of this loop, has corked.

        For a caller that knows a burst is over (the gateway, once a
        message's command has been applied and fanned out): its frames go
        out at once instead of after everything else ready on the loop, and
        the connection that sent the message hears first.
        """
        self._protocol.flush()
        self._protocol._flusher.flush()



class Receiver:
    """One connection's attachment to a feed on the direct frame path.

    A feed hands a change's wire bytes to all its receivers in one loop
    (:func:`cork_all`) rather than calling each connection: this runs for
    every connection a change goes to, and the calls were most of its cost.
    ``floor``: frames at or below this version are older than the snapshot
    the connection was sent, and skipped. ``gone``: the connection is closing;
    nothing more for it. ``too_slow`` is called when its backlog is past
    ``limit`` (the frame is not corked).
    """

    __slots__ = ("floor", "gone", "limit", "protocol", "too_slow")

    def __init__(self, protocol: KartuWebSocketProtocol, limit: int,
                 too_slow: Callable[[], None]) -> None:
        self.protocol = protocol
        self.limit = limit
        self.too_slow = too_slow
        self.floor = -1
        self.gone = False


def cork_all(receivers: tuple[Receiver, ...], version: int, data: bytes | memoryview) -> None:
    """Corks ``data`` (one change's frames, wire bytes) for every receiver that wants it.

    :meth:`KartuWebSocketProtocol.send_corked`, written out for the common
    case (a backlog well under the limit); anything else goes through it.
    """
    size = len(data)
    for receiver in receivers:
        if version <= receiver.floor or receiver.gone:
            continue
        protocol = receiver.protocol
        if protocol.close_sent:
            continue
        if protocol._corked_bytes + protocol._buffered + size > receiver.limit:
            if not protocol.send_corked(data, receiver.limit):
                receiver.too_slow()
            continue
        corked = protocol._corked
        if not corked:
            flusher = protocol._flusher
            if not flusher.dirty:
                flusher.loop.call_soon(flusher.flush)
            flusher.dirty.append(protocol)
        corked.append(data)
        protocol._corked_bytes += size


class _Flusher:
    """Writes every corked connection of one event loop on the loop turn after
    the first frame was corked: one scheduled callback for all of them. A
    connection that corks its first frame adds itself to ``dirty``, and the
    first of them schedules :meth:`flush` (:meth:`KartuWebSocketProtocol.send_corked`)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.dirty: list[KartuWebSocketProtocol] = []

    def flush(self) -> None:
        dirty, self.dirty = self.dirty, []
        for protocol in dirty:
            protocol.flush()


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Flusher] = (
    weakref.WeakKeyDictionary())


def loop_flusher(loop: asyncio.AbstractEventLoop) -> _Flusher:
    """The one flusher of ``loop`` (made the first time it is asked for)."""
    flusher = _flushers.get(loop)
    if flusher is None:
        flusher = _flushers[loop] = _Flusher(loop)
    return flusher


class _Inbox:
    """The receive queue, as uvicorn's protocol uses it: one reader, never full.

    It keeps its loop rather than asking for the running one each time it
    waits: on Python 3.11 that asks the kernel for the process id, a system
    call for every message read."""

    __slots__ = ("_items", "_loop", "_waiter")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._items: list[Any] = []  # a few at most (READ_AHEAD)
        self._loop = loop
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def get(self) -> Any:
        while not self._items:
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items


class _Flag:
    """An asyncio.Event that makes its list of waiters only when someone waits."""

    __slots__ = ("_value", "_waiters")

    def __init__(self, value: bool) -> None:
        self._value = value
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._value

    def set(self) -> None:
        self._value = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._value = False

    async def wait(self) -> None:
        if self._value:
            return
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        await waiter


class KartuWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = _Inbox(self.loop)  # type: ignore[assignment]
        self.writable = _Flag(True)  # type: ignore[assignment]
        self._corked: list[bytes | memoryview] = []
        self._corked_bytes = 0
        self._buffered = 0  # the transport's write buffer after our last write
        self._flusher = loop_flusher(self.loop)
        self._splitting = False  # set once the handshake is done (see the module's doc)
        self._partial = b""  # the start of a frame not yet whole

    # --- keep-alive -----------------------------------------------------------

    def start_keepalive(self) -> None:
        """The first keep-alive ping at a random point of the second half of
        the interval, not the interval after the connection opened: sockets
        opened together (a server's restart, a reconnect storm, a benchmark)
        would otherwise be pinged together every interval, each ping and pong
        costing a write and a parse, a stall for every room."""
        if self.ping_interval is not None and self.ping_interval > 0:
            self.ping_timer = self.loop.call_later(
                self.ping_interval * random.uniform(0.5, 1.0), self.send_keepalive_ping)

    # --- the direct frame path ------------------------------------------------

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        # Shared wire bytes are only right when no extension rewrites frames.
        if scope is not None and not self.close_sent and not self.conn.extensions:
            # The app task was created but has not run yet: it sees this.
            scope["extensions"][EXTENSION] = FramePath(self)

    def send_corked(self, data: bytes | memoryview, limit: int) -> bool:
        # Going away (a close sent): nothing to send, nothing to complain
        # about. (A transport that is closing gets nothing at the flush.)
        if self.close_sent:
            return True
        if self._corked_bytes + self._buffered > limit:
            # The transport's buffer as last seen is an upper bound (only our
            # flushes fill it): look again before calling the client slow.
            transport = self.transport
            if transport.is_closing():
                return True
            self._buffered = transport.get_write_buffer_size()
            if self._corked_bytes + self._buffered > limit:
                return False
        if not self._corked:
            # Written out rather than a method of the flusher: this runs for
            # every connection a change goes to.
            flusher = self._flusher
            if not flusher.dirty:
                flusher.loop.call_soon(flusher.flush)
            flusher.dirty.append(self)
        self._corked.append(data)
        self._corked_bytes += len(data)
        return True

    def flush(self) -> None:
        if not self._corked:
            return
        corked = self._corked
        # Mostly one envelope's frames: written as they are, not copied.
        data = corked[0] if len(corked) == 1 else b"".join(corked)
        corked.clear()
        self._corked_bytes = 0
        transport = self.transport
        if not transport.is_closing():
            transport.write(data)
            self._buffered = transport.get_write_buffer_size()

    async def send(self, message: ASGISendEvent) -> None:
        # Whatever goes the ASGI way (a close, a frame of another app) goes
        # after the frames already corked, in order.
        self.flush()
        await super().send(message)
        if message["type"] == "websocket.accept":
            # The handshake's request and response (with their headers) are
            # not needed again; an idle connection is mostly what it keeps.
            self.request = self.response = None  # type: ignore[assignment]
            # Split frames here from now on, if websockets' parser is waiting
            # for a first frame with nothing read ahead (a client sends
            # frames only once it has the handshake's answer).
            self._splitting = (self.conn.state is State.OPEN and not self.conn.extensions
                               and not self.conn.reader.buffer)

    # --- receiving: whole frames, the common ones without websockets' parser --

    def data_received(self, data: bytes) -> None:
        if not self._splitting:
            super().data_received(data)
            return
        if self._partial:
            data, self._partial = self._partial + data, b""
        limit = self.conn.max_message_size
        at, end = 0, len(data)
        while end - at >= 2:
            first, second = data[at], data[at + 1]
            length, start = second & 0x7F, at + 2
            if length == 126:
                if end - at < 4:
                    break
                length, start = int.from_bytes(data[at + 2:at + 4], "big"), at + 4
            elif length == 127:
                if end - at < 10:
                    break
                length, start = int.from_bytes(data[at + 2:at + 10], "big"), at + 10
            if limit is not None and length > limit:
                # Too big to wait for: websockets refuses it from its header.
                self._splitting = False
                super().data_received(data[at:])
                return
            if second & 0x80:
                start += 4  # the mask
            stop = start + length
            if stop > end:
                break
            if first == 0x81 and second & 0x80 and self.conn.current_size is None:
                # FIN, text, masked, not inside a fragmented message.
                self.curr_msg_data_type = "text"
                self.frames = [apply_mask(data[start:stop], data[start - 4:start])]
                self.send_receive_event_to_app()
            else:
                super().data_received(data[at:stop])
            if self.close_sent or self.conn.state is not State.OPEN:
                # Closing: whatever follows is websockets' to discard.
                self._splitting = False
                if stop < end:
                    super().data_received(data[stop:])
                return
            at = stop
        if at < end:
            self._partial = data[at:]

    # --- receiving: pause reading only when the app falls behind --------------

    def send_receive_event_to_app(self) -> None:
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return
        if self.curr_msg_data_type == "text":
            try:
                self.queue.put_nowait({"type": "websocket.receive", "text": data.decode()})
            except UnicodeDecodeError:
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
        else:
            self.queue.put_nowait({"type": "websocket.receive", "bytes": data})
        if not self.read_paused and self.queue.qsize() >= READ_AHEAD:
            self.read_paused = True
            self.transport.pause_reading()

    async def receive(self) -> ASGIReceiveEvent:
        message = await self.queue.get()
        if self.read_paused and self.queue.qsize() < READ_AHEAD // 2:
            self.read_paused = False
            self.transport.resume_reading()
        return message


def frame_path(scope: Mapping[str, Any]) -> FramePath | None:
    """The connection's direct frame path, when the server offers one."""
    extensions = scope.get("extensions") or {}
    path = extensions.get(EXTENSION)
    return path if isinstance(path, FramePath) else None
