"""kartu's WebSocket protocol for uvicorn: ASGI WebSockets, plus a direct frame path.

``python -m app`` serves WebSockets with :class:`KartuWebSocketProtocol`
(``uvicorn app.main:app --ws app.wsprotocol:KartuWebSocketProtocol
--ws-max-size 65536 --ws-per-message-deflate false`` does the same by
hand). It is an :class:`asyncio.Protocol` that uvicorn hands a socket once
the HTTP request asks for an upgrade. The handshake and the parsing of
incoming frames are the ``websockets`` library's sans-I/O
:class:`~websockets.server.ServerProtocol`, used only through its public
methods; this module implements the ASGI WebSocket interface on top of it, so
every ASGI application runs on it unchanged. What it adds is offered through
the ASGI scope as the extension ``kartu.frames`` (a :class:`FramePath`),
which the gateway uses when present and does without otherwise. For speed
(with the limits below, which uvicorn's own protocols lack): uvicorn's
``websockets-sansio`` protocol costs about 1.5x the CPU an action in
bench.load's turn shape.

Terms:

- *wire bytes*: a text message framed for sending (RFC 6455: FIN + text
  opcode, the payload length, the payload; a server never masks). This
  protocol never negotiates an extension such as per-message compression
  (uvicorn's ``ws_per_message_deflate`` is ignored), so they are the same for
  every connection, and a frame sent to many sockets is framed once
  (:func:`wire`) and the bytes are shared.
- *corking*: frames sent to a connection are held and written together, in
  one ``transport.write``: when the gateway is done with the message that
  caused them (:meth:`FramePath.flush_all`), or at the latest on the next
  turn of the event loop. A room change sends a connection its events and
  state, and the gateway its ack, in the same turn: one write instead of
  two. Frames the ASGI way (``websocket.send``, a close, a pong) join the
  same queue, so everything goes out in the order it was sent.
- *backlog*: bytes handed to this connection and not yet taken by the
  kernel (corked plus the transport's buffer, as of the last write). Past
  the caller's ``limit`` the client counts as too slow, and the gateway
  drops it rather than buffering. The kernel's own share is kept small by
  :meth:`FramePath.limit_writes` (``SO_SNDBUF``).
- *write stall*: the transport's buffer has held bytes, without once
  draining, for ``stall_s`` seconds: the client reads nothing, or far too
  little. The connection is then dropped (the app hears a disconnect with
  1013), whatever the backlog: a quiet room may never fill it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import struct
import weakref
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any, cast
from urllib.parse import unquote

from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol

EXTENSION = "kartu.frames"
READ_AHEAD = 16  # messages queued for the app before reading pauses
# After our close frame, how long the client has to answer before the socket
# is cut (it may be a client that reads nothing, with the close stuck behind).
CLOSE_TIMEOUT_S = 5.0
# A connection's write stall until the app sets its own (FramePath.limit_writes).
DEFAULT_STALL_S = 10.0
# An ASGI ``websocket.send`` waits while more than this waits for the socket
# (the direct path is bounded by its caller's limit instead).
ASGI_HIGH_WATER = 65_536

CLOSE_TOO_SLOW = 1013

log = logging.getLogger("kartu.wsprotocol")
# Where uvicorn's WebSocket protocols log an accepted handshake.
access_log = logging.getLogger("uvicorn.error")

ASGIMessage = MutableMapping[str, Any]

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


class ClientDisconnected(OSError):
    """Raised by ``send`` once the connection is gone (Starlette reads an
    ``OSError`` there as a disconnect, as with uvicorn's own protocols)."""


class FramePath:
    """The direct way out for one connection: synchronous, corked, bounded.

    ``send_wire`` queues wire bytes (one or more frames, from :func:`wire`)
    and returns False, sending nothing, when the backlog is past ``limit``
    (the caller decides what too slow means). For an accepted connection.
    """

    __slots__ = ("protocol", "receive", "send_wire")

    def __init__(self, protocol: KartuWebSocketProtocol) -> None:
        self.protocol = protocol
        # The protocol's own methods: a frame is handed over with one call,
        # not a chain of them.
        self.send_wire: Callable[[bytes | memoryview, int], bool] = protocol.send_corked
        # The next ASGI receive event, as the app's ``receive`` would give it.
        self.receive: Callable[[], Awaitable[ASGIMessage]] = protocol.receive

    def limit_writes(self, stall_s: float, socket_buffer: int) -> None:
        """Drops the connection after a write stall of ``stall_s`` seconds, and
        lets the kernel hold at most about ``socket_buffer`` bytes for it
        (``SO_SNDBUF``; 0 leaves the kernel's default, which grows to megabytes)."""
        self.protocol.limit_writes(stall_s, socket_buffer)

    def receiver(self, limit: int, too_slow: Callable[[], None]) -> Receiver:
        """A new attachment of this connection to a feed (:class:`Receiver`)."""
        return Receiver(self.protocol, limit, too_slow)

    def flush_all(self) -> None:
        """Writes now what this connection, then every other one of this loop, has corked.

        For a caller that knows a burst is over (the gateway, once a
        message's command has been applied and fanned out): its frames go
        out at once instead of after everything else ready on the loop, and
        the connection that sent the message hears first.
        """
        self.protocol.flush()
        self.protocol.flusher.flush()


class Receiver:
    """One connection's attachment to a feed on the direct frame path.

    A feed hands a change's wire bytes to all its receivers in one loop
    (:func:`cork_all`) rather than calling each connection: this runs for
    every connection a change goes to. ``floor``: frames at or below this
    version are older than the snapshot the connection was sent, and skipped.
    ``gone``: the connection is closing; nothing more for it. ``too_slow`` is
    called when its backlog is past ``limit`` (the frame is not corked).
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
    """Corks ``data`` (one change's frames, wire bytes) for every receiver that wants it."""
    for receiver in receivers:
        if version <= receiver.floor or receiver.gone:
            continue
        if not receiver.protocol.send_corked(data, receiver.limit):
            receiver.too_slow()


class Flusher:
    """Writes every corked connection of one event loop on the loop turn after
    the first frame was corked: one scheduled callback for all of them. A
    connection that corks its first frame adds itself to ``dirty``, and the
    first of them schedules :meth:`flush`."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.dirty: list[KartuWebSocketProtocol] = []

    def add(self, protocol: KartuWebSocketProtocol) -> None:
        if not self.dirty:
            self.loop.call_soon(self.flush)
        self.dirty.append(protocol)

    def flush(self) -> None:
        dirty, self.dirty = self.dirty, []
        for protocol in dirty:
            protocol.flush()


_flushers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Flusher] = (
    weakref.WeakKeyDictionary())


def loop_flusher(loop: asyncio.AbstractEventLoop) -> Flusher:
    """The one flusher of ``loop`` (made the first time it is asked for)."""
    flusher = _flushers.get(loop)
    if flusher is None:
        flusher = _flushers[loop] = Flusher(loop)
    return flusher


class KartuWebSocketProtocol(asyncio.Protocol):
    """One WebSocket connection, from the upgrade request to the socket's end.

    uvicorn constructs it with ``config``, ``server_state`` and ``app_state``
    (and may add keywords of its own, ignored), calls :meth:`connection_made`
    with the socket's transport and feeds it the request's bytes.
    """

    # One per open socket: slots keep an idle one about 1.3 KB smaller than
    # its attribute dict would (bench.load --shape idle).
    __slots__ = (
        "app", "app_state", "buffered", "client", "close_sent", "close_timer", "config",
        "conn", "connections", "corked", "corked_bytes", "default_headers",
        "disconnect_told", "disconnected", "drained", "flusher", "fragments",
        "fragments_text", "handshake_complete", "inbox", "loop", "ping_interval",
        "ping_payload", "ping_timeout", "ping_timer", "pong_timer", "read_paused",
        "response", "scheme", "scope", "server", "stall_s", "stall_timer", "tasks",
        "transport", "waiter",
    )

    def __init__(self, config: Config, server_state: ServerState,
                 app_state: dict[str, Any] | None = None, **_: Any) -> None:
        if not config.loaded:
            config.load()
        self.config = config
        self.app: Callable[[Any, Any, Any], Awaitable[None]] = config.loaded_app
        self.app_state = app_state or {}
        self.loop = asyncio.get_running_loop()
        self.connections = server_state.connections
        self.tasks = server_state.tasks
        self.default_headers = server_state.default_headers
        self.conn = ServerProtocol(max_size=config.ws_max_size,
                                   logger=logging.getLogger("kartu.websocket"))
        self.transport: asyncio.Transport | None = None
        self.server: tuple[str, int | None] | None = None
        self.client: tuple[str, int | None] | None = None
        self.scheme = "ws"
        self.scope: dict[str, Any] | None = None
        self.response: Response | None = None  # the handshake's answer, until the app accepts
        # Where the connection is: the app has accepted (or refused) it; has
        # been told it ended (one ``websocket.disconnect``, never two); the
        # socket is gone.
        self.handshake_complete = False
        self.disconnect_told = False
        self.disconnected = False
        # True while no frame may be sent: before the handshake's answer, and
        # once a close went out or the socket is gone. The sans-I/O state as
        # of the last call into it: every such call ends in write_out, which
        # reads it again (it is read for every frame corked).
        self.close_sent = True
        # Receiving: messages for the app, a reader waiting for one, a
        # message arriving in fragments (its parts, and whether it is text).
        self.inbox: deque[ASGIMessage] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.read_paused = False
        self.fragments: list[bytes] = []
        self.fragments_text = False
        # Sending (see the module's doc).
        self.corked: list[bytes | memoryview] = []
        self.corked_bytes = 0
        self.buffered = 0  # the transport's write buffer after our last write
        self.flusher = loop_flusher(self.loop)
        self.stall_s = DEFAULT_STALL_S
        self.stall_timer: asyncio.TimerHandle | None = None
        self.drained: asyncio.Event | None = None  # made when an ASGI sender waits
        self.close_timer: asyncio.TimerHandle | None = None
        # Keep-alive: a ping every interval, answered within the timeout.
        self.ping_interval = config.ws_ping_interval
        self.ping_timeout = config.ws_ping_timeout
        self.ping_timer: asyncio.TimerHandle | None = None
        self.pong_timer: asyncio.TimerHandle | None = None
        self.ping_payload: bytes | None = None

    # --- asyncio.Protocol -----------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but are one.
        transport = cast(asyncio.Transport, transport)
        self.transport = transport
        self.connections.add(self)  # type: ignore[arg-type]
        self.server = _address(transport.get_extra_info("sockname"))
        self.client = _address(transport.get_extra_info("peername"))
        self.scheme = "wss" if transport.get_extra_info("sslcontext") else "ws"
        # pause_writing as soon as anything waits in the transport's buffer,
        # resume_writing once it is empty again: the write stall's clock.
        transport.set_write_buffer_limits(high=0, low=0)

    def connection_lost(self, exc: Exception | None) -> None:
        self.disconnected = self.close_sent = True
        self.connections.discard(self)
        self.stop_keepalive()
        for timer in (self.stall_timer, self.close_timer):
            if timer is not None:
                timer.cancel()
        self.stall_timer = self.close_timer = None
        self.corked.clear()
        self.corked_bytes = 0
        self.tell_disconnect(*self.close_code())
        if self.drained is not None:
            self.drained.set()  # an ASGI sender waiting will find the socket gone

    def eof_received(self) -> bool | None:
        self.conn.receive_eof()
        self.write_out()
        return None  # the transport closes itself

    def pause_writing(self) -> None:
        if self.stall_timer is None and self.stall_s > 0:
            self.stall_timer = self.loop.call_later(self.stall_s, self.write_stalled)

    def resume_writing(self) -> None:
        self.buffered = 0
        if self.stall_timer is not None:
            self.stall_timer.cancel()
            self.stall_timer = None
        if self.drained is not None:
            self.drained.set()

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        conn.receive_data(data)
        for event in conn.events_received():
            if isinstance(event, Frame):
                self.handle_frame(event)
            elif isinstance(event, Request):
                self.handle_connect(event)
        if conn.handshake_exc is not None and self.scope is None and not self.handshake_complete:
            self.handle_bad_request()
            return
        if conn.state is not State.OPEN and self.handshake_complete:
            # A close received, or a frame websockets refused (it failed the
            # connection with the code that says why): the app hears it once.
            self.tell_disconnect(*self.close_code())
        self.write_out()

    # --- the opening handshake ---------------------------------------------------

    def handle_connect(self, request: Request) -> None:
        response = self.conn.accept(request)
        if response.status_code != 101:  # not a valid WebSocket request
            self.handshake_complete = True
            self.conn.send_response(response)
            return
        self.response = response
        headers = [(key.encode("ascii"), value.encode("latin-1"))
                   for key, value in request.headers.raw_items()]
        raw_path, _, query_string = request.path.partition("?")
        subprotocols = [token.strip()
                        for header in request.headers.get_all("Sec-WebSocket-Protocol")
                        for token in header.split(",")]
        root_path = self.config.root_path
        self.scope = {
            "type": "websocket",
            "asgi": {"version": self.config.asgi_version, "spec_version": "2.3"},
            "http_version": "1.1",
            "scheme": self.scheme,
            "server": self.server,
            "client": self.client,
            "root_path": root_path,
            "path": root_path + unquote(raw_path),
            "raw_path": root_path.encode("ascii") + raw_path.encode("ascii"),
            "query_string": query_string.encode("ascii"),
            "headers": headers,
            "subprotocols": subprotocols,
            "state": self.app_state.copy(),
            # The app's task was not started yet: it sees this from the start.
            "extensions": {EXTENSION: FramePath(self)},
        }
        self.put({"type": "websocket.connect"})
        task = self.loop.create_task(self.run_asgi())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def handle_bad_request(self) -> None:
        """Not an HTTP request websockets could read: answer what it queued, or 400."""
        self.handshake_complete = True
        output = b"".join(self.conn.data_to_send())
        if not output:
            output = self.conn.reject(400, "Failed to open a WebSocket connection: "
                                           "invalid request.\n").serialize()
        if self.transport is not None:
            self.transport.write(output)
            self.transport.close()

    async def run_asgi(self) -> None:
        assert self.scope is not None
        try:
            await self.app(self.scope, self.receive, self.send)
        except ClientDisconnected:
            pass
        except asyncio.CancelledError:  # the server is stopping
            self.end(1012)
            raise
        except Exception:
            log.exception("Exception in ASGI application")
            self.end(1011)
        else:
            if not self.handshake_complete:
                log.error("ASGI callable returned without completing the handshake")
            self.end(1000)

    def end(self, code: int) -> None:
        """The app is done: refuses the handshake (500) if it never answered
        it, closes the socket with ``code`` if it never closed it."""
        if not self.handshake_complete:
            self.handshake_complete = True
            if self.can_answer():
                self.conn.send_response(self.conn.reject(500, "Internal Server Error"))
                self.write_out()
        elif not self.close_sent:
            self.close(code, "")

    # --- ASGI ----------------------------------------------------------------

    def put(self, message: ASGIMessage) -> None:
        self.inbox.append(message)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def tell_disconnect(self, code: int, reason: str = "") -> None:
        if not self.disconnect_told:
            self.disconnect_told = True
            self.put({"type": "websocket.disconnect", "code": code, "reason": reason})

    async def receive(self) -> ASGIMessage:
        inbox = self.inbox
        while not inbox:
            self.waiter = self.loop.create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        message = inbox.popleft()
        if self.read_paused and len(inbox) < READ_AHEAD // 2:
            self.read_paused = False
            if self.transport is not None:
                self.transport.resume_reading()
        return message

    async def send(self, message: ASGIMessage) -> None:
        kind = message["type"]
        if not self.handshake_complete:
            if not self.can_answer():  # the client went away meanwhile
                self.handshake_complete = True
                raise ClientDisconnected()
            if kind == "websocket.accept":
                self.accept(message)
            elif kind == "websocket.close":
                # Refused before the handshake: HTTP 403, as ASGI asks.
                self.handshake_complete = True
                self.tell_disconnect(1006)
                self.conn.send_response(self.conn.reject(403, ""))
                self.write_out()
            else:
                raise RuntimeError(f"Expected ASGI message 'websocket.accept' or "
                                   f"'websocket.close', but got {kind!r}.")
            return
        if self.close_sent:
            raise ClientDisconnected()
        if kind == "websocket.send":
            text, data = message.get("text"), message.get("bytes")
            if text is not None:
                self.conn.send_text(text.encode())
            elif data is not None:
                self.conn.send_binary(data)
            self.write_out(flush=False)
            if self.corked_bytes + self.buffered > ASGI_HIGH_WATER:
                await self.wait_drained()
        elif kind == "websocket.close":
            self.close(message.get("code", 1000), message.get("reason") or "")
        else:
            raise RuntimeError(f"Expected ASGI message 'websocket.send' or 'websocket.close', "
                               f"but got {kind!r}.")

    def can_answer(self) -> bool:
        """Whether the handshake may still be answered: the client is there and waits."""
        return (not self.disconnected and self.conn.state is State.CONNECTING
                and not self.conn.eof_sent)

    def accept(self, message: ASGIMessage) -> None:
        response = self.response
        assert response is not None
        headers = [(name.decode("latin-1"), value.decode("latin-1"))
                   for name, value in [*self.default_headers, *message.get("headers", [])]]
        if any(name.lower() == "date" for name, _ in headers):
            del response.headers["Date"]  # uvicorn's default headers have their own
        for name, value in headers:
            response.headers[name] = value
        if message.get("subprotocol"):
            response.headers["Sec-WebSocket-Protocol"] = message["subprotocol"]
        self.handshake_complete = True
        self.response = None  # not needed again: an idle connection is mostly what it keeps
        self.conn.send_response(response)
        self.write_out()
        self.start_keepalive()
        if self.config.access_log and self.scope is not None:
            # As uvicorn's own WebSocket protocols log it.
            query = self.scope["query_string"].decode("ascii")
            client = self.client
            where = "-" if client is None else ":".join(str(part) for part in client
                                                        if part is not None)
            access_log.info('%s - "WebSocket %s" [accepted]', where,
                            self.scope["path"] + (f"?{query}" if query else ""))

    async def wait_drained(self) -> None:
        """Until the transport's buffer is empty again, or the socket is gone."""
        self.flush()
        if self.buffered == 0 or self.disconnected:
            return
        if self.drained is None:
            self.drained = asyncio.Event()
        self.drained.clear()
        await self.drained.wait()
        if self.disconnected:
            raise ClientDisconnected()

    def close(self, code: int, reason: str) -> None:
        """Sends a close frame after what is corked; the client has
        CLOSE_TIMEOUT_S to answer before the socket is cut."""
        self.tell_disconnect(code, reason)
        self.conn.send_close(code, reason)
        self.write_out()
        if self.read_paused and self.transport is not None:
            # Its close answer is to be read, whatever else waits unread.
            self.read_paused = False
            self.transport.resume_reading()
        if self.close_timer is None and self.transport is not None:
            self.close_timer = self.loop.call_later(CLOSE_TIMEOUT_S, self.transport.abort)

    def close_code(self) -> tuple[int, str]:
        """Why the connection ended, as the app is told: the client's close,
        else ours, else 1006 (the socket ended without one)."""
        close = self.conn.close_rcvd or self.conn.close_sent
        return (close.code, close.reason) if close is not None else (1006, "")

    # --- receiving --------------------------------------------------------------

    def handle_frame(self, frame: Frame) -> None:
        opcode, data = frame.opcode, bytes(frame.data)  # bytes already: no copy
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            if frame.fin:
                self.deliver(data, opcode is Opcode.TEXT)
            else:
                self.fragments, self.fragments_text = [data], opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            self.fragments.append(data)
            if frame.fin:
                whole, self.fragments = b"".join(self.fragments), []
                self.deliver(whole, self.fragments_text)
        elif opcode is Opcode.PONG:
            self.handle_pong(data)
        # PING: websockets queued the pong. CLOSE: it queued its answer and
        # the end of the stream; data_received tells the app.

    def deliver(self, data: bytes, is_text: bool) -> None:
        if self.disconnect_told:
            return  # the app is past the close: nothing more for it
        if is_text:
            try:
                self.put({"type": "websocket.receive", "text": data.decode()})
            except UnicodeDecodeError:
                self.conn.fail(1007, "invalid UTF-8 in a text message")
                self.tell_disconnect(*self.close_code())  # and nothing after it
                return
        else:
            self.put({"type": "websocket.receive", "bytes": data})
        # Reading pauses only when the app falls READ_AHEAD messages behind,
        # not after every message (each pause and resume is a system call pair).
        if not self.read_paused and len(self.inbox) >= READ_AHEAD and self.transport is not None:
            self.read_paused = True
            self.transport.pause_reading()

    # --- sending ----------------------------------------------------------------

    def limit_writes(self, stall_s: float, socket_buffer: int) -> None:
        self.stall_s = stall_s
        sock: socket.socket | None = (self.transport.get_extra_info("socket")
                                      if self.transport is not None else None)
        if socket_buffer > 0 and sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, socket_buffer)

    def send_corked(self, data: bytes | memoryview, limit: int) -> bool:
        # Going away (a close sent): nothing to send, nothing to complain about.
        if self.close_sent:
            return True
        if self.corked_bytes + self.buffered + len(data) > limit:
            # The transport's buffer as last seen is an upper bound (only our
            # flushes fill it): look again before calling the client slow.
            transport = self.transport
            if transport is None or transport.is_closing():
                return True
            self.buffered = transport.get_write_buffer_size()
            if self.corked_bytes + self.buffered + len(data) > limit:
                return False
        if not self.corked:
            self.flusher.add(self)
        self.corked.append(data)
        self.corked_bytes += len(data)
        return True

    def flush(self) -> None:
        corked = self.corked
        if not corked:
            return
        # Mostly one change's frames: written as they are, not copied.
        data = corked[0] if len(corked) == 1 else b"".join(corked)
        corked.clear()
        self.corked_bytes = 0
        transport = self.transport
        if transport is not None and not transport.is_closing():
            transport.write(data)
            self.buffered = transport.get_write_buffer_size()

    def write_out(self, *, flush: bool = True) -> None:
        """Corks what websockets has to send (a handshake answer, a pong, a
        close); with ``flush``, writes everything now. The end of the stream
        websockets asks for (after a close) closes the transport."""
        self.close_sent = self.disconnected or self.conn.state is not State.OPEN
        at_end = False
        for data in self.conn.data_to_send():
            if data:
                if not self.corked:
                    self.flusher.add(self)
                self.corked.append(data)
                self.corked_bytes += len(data)
            else:
                at_end = True
        if flush or at_end:
            self.flush()
        if at_end and self.transport is not None:
            self.transport.close()

    def write_stalled(self) -> None:
        self.stall_timer = None
        if self.transport is None or self.disconnected:
            return
        log.info("websocket_write_stalled", extra={"fields": {
            "client": self.client, "buffered": self.transport.get_write_buffer_size(),
            "stall_s": self.stall_s}})
        # Whatever waits is not going to be read: no close frame behind it.
        self.tell_disconnect(CLOSE_TOO_SLOW, "too slow: nothing written for "
                                             f"{self.stall_s:g} s")
        self.transport.abort()

    # --- keep-alive -----------------------------------------------------------

    def start_keepalive(self) -> None:
        """The first keep-alive ping at a random point of the second half of
        the interval, not the interval after the connection opened: sockets
        opened together (a server's restart, a reconnect storm) would
        otherwise be pinged together every interval, a stall for every room."""
        if self.ping_interval is not None and self.ping_interval > 0:
            self.ping_timer = self.loop.call_later(
                self.ping_interval * random.uniform(0.5, 1.0), self.send_ping)

    def stop_keepalive(self) -> None:
        for timer in (self.ping_timer, self.pong_timer):
            if timer is not None:
                timer.cancel()
        self.ping_timer = self.pong_timer = None
        self.ping_payload = None

    def send_ping(self) -> None:
        self.ping_timer = None
        if self.close_sent:
            return
        # A payload of its own, so that a stale or unsolicited pong is not taken for its answer.
        self.ping_payload = os.urandom(4)
        self.conn.send_ping(self.ping_payload)
        self.write_out()
        if self.ping_timeout is not None:
            self.pong_timer = self.loop.call_later(self.ping_timeout, self.pong_missed)
        else:
            self.ping_timer = self.loop.call_later(self.ping_interval or 0, self.send_ping)

    def handle_pong(self, data: bytes) -> None:
        if self.ping_payload is None or data != self.ping_payload:
            return
        self.ping_payload = None
        if self.pong_timer is not None:
            self.pong_timer.cancel()
            self.pong_timer = None
            self.ping_timer = self.loop.call_later(self.ping_interval or 0, self.send_ping)

    def pong_missed(self) -> None:
        self.pong_timer = None
        self.ping_payload = None
        if self.close_sent:
            return
        self.conn.fail(1011, "keepalive ping timeout")
        self.tell_disconnect(1011, "keepalive ping timeout")
        self.write_out()

    # --- uvicorn --------------------------------------------------------------

    def shutdown(self) -> None:
        """The server is stopping: 1012 (service restart) to an open
        connection, a 500 to one the app has not answered yet."""
        self.stop_keepalive()
        if not self.handshake_complete:
            self.end(1012)
        elif not self.close_sent:
            self.close(1012, "")
        if self.transport is not None:
            self.transport.close()


def _address(info: Any) -> tuple[str, int | None] | None:
    """A socket's address as ASGI gives it: (host, port), or (path, None) on a Unix socket."""
    if isinstance(info, list | tuple) and len(info) >= 2:
        return str(info[0]), int(info[1])
    if isinstance(info, str) and info:
        return info, None
    return None


def frame_path(scope: Mapping[str, Any]) -> FramePath | None:
    """The connection's direct frame path, when the server offers one."""
    extensions = scope.get("extensions") or {}
    path = extensions.get(EXTENSION)
    return path if isinstance(path, FramePath) else None
