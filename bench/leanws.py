"""A lean WebSocket client for the load generator: one asyncio.Protocol per socket.

The generator is one process on one core driving every client of a run;
what it spends per frame is added to every latency it measures. The
``websockets`` client costs a task switch and a few layers per message;
:class:`LeanSocket` parses frames straight out of ``data_received`` and
hands each message to a callback, and sends with one ``transport.write``.

It speaks RFC 6455 as a client must: the HTTP upgrade with a random key,
checked against ``Sec-WebSocket-Accept``; every frame it sends masked with
a random key; continuation frames reassembled; pings answered; the closing
handshake. It offers no extensions (no compression).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import os
from collections.abc import Callable
from typing import cast
from urllib.parse import urlsplit

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0, 1, 2, 8, 9, 10


def masked_frame(opcode: int, payload: bytes) -> bytes:
    """A final client frame: masked with a fresh random key, as RFC 6455 asks."""
    key = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    if n == 0:
        return head + key
    repeated = (key * (n // 4 + 1))[:n]
    body = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(n, "big")
    return head + key + body


class HandshakeError(ConnectionError):
    pass


class LeanSocket(asyncio.Protocol):
    """One client WebSocket. ``on_message(payload)`` gets each whole text or
    binary message; ``on_close()`` is called once when the connection ends,
    with :attr:`close_code` set (1006 if it ended without a close frame)."""

    def __init__(self, host: str, port: int, resource: str,
                 on_message: Callable[[bytes], None], on_close: Callable[[], None]) -> None:
        self.host, self.port, self.resource = host, port, resource
        self.on_message = on_message
        self.on_close = on_close
        self.transport: asyncio.Transport | None = None
        self.close_code: int | None = None
        self._key = base64.b64encode(os.urandom(16))
        self._opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._buffer = b""
        self._fragments: list[bytes] = []
        self._open = False
        self._close_sent = False

    @classmethod
    async def connect(cls, url: str, on_message: Callable[[bytes], None],
                      on_close: Callable[[], None], timeout: float = 30) -> LeanSocket:
        parts = urlsplit(url)
        if parts.scheme != "ws" or parts.hostname is None:
            raise ValueError(f"only ws:// URLs: {url}")
        resource = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        port = parts.port or 80
        loop = asyncio.get_running_loop()
        _, protocol = await asyncio.wait_for(loop.create_connection(
            lambda: cls(parts.hostname or "", port, resource, on_message, on_close),
            parts.hostname, port), timeout)
        try:
            await asyncio.wait_for(asyncio.shield(protocol._opened), timeout)
        except BaseException:
            if protocol.transport is not None:
                protocol.transport.abort()
            raise
        return protocol

    # --- asyncio.Protocol ---------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports are not asyncio.Transport subclasses, but quack alike.
        self.transport = cast(asyncio.Transport, transport)
        self.transport.write(
            b"GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
            % (self.resource.encode(), self.host.encode(), self.port, self._key))

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer + data if self._buffer else data
        if not self._open:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self._buffer = buffer
                return
            self._check_handshake(buffer[:end])
            buffer = buffer[end + 4:]
        self._buffer = self._frames(buffer)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.close_code is None:
            self.close_code = 1006
        if not self._opened.done():
            self._opened.set_exception(exc or HandshakeError("closed during the handshake"))
        if not self._closed.done():
            self._closed.set_result(None)
            self.on_close()

    # --- the wire -------------------------------------------------------------------------

    def _check_handshake(self, head: bytes) -> None:
        lines = head.split(b"\r\n")
        accept = base64.b64encode(hashlib.sha1(self._key + GUID).digest())
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if not lines[0].startswith(b"HTTP/1.1 101") or headers.get(b"sec-websocket-accept") \
                != accept:
            error = HandshakeError(f"upgrade refused: {lines[0].decode(errors='replace')}")
            if not self._opened.done():
                self._opened.set_exception(error)
            assert self.transport is not None
            self.transport.abort()
            return
        self._open = True
        if not self._opened.done():
            self._opened.set_result(None)

    def _frames(self, buffer: bytes) -> bytes:
        """Handles every whole frame in ``buffer``; returns what is left of it."""
        at, size = 0, len(buffer)
        while size - at >= 2:
            first, second = buffer[at], buffer[at + 1]
            length = second & 0x7F
            head = 2
            if length == 126:
                if size - at < 4:
                    break
                length = int.from_bytes(buffer[at + 2:at + 4], "big")
                head = 4
            elif length == 127:
                if size - at < 10:
                    break
                length = int.from_bytes(buffer[at + 2:at + 10], "big")
                head = 10
            if second & 0x80:  # a server never masks
                self._fail(1002)
                return b""
            if size - at < head + length:
                break
            payload = buffer[at + head:at + head + length]
            at += head + length
            self._frame(first & 0x80 != 0, first & 0x0F, payload)
        return buffer[at:]

    def _frame(self, fin: bool, opcode: int, payload: bytes) -> None:
        if opcode in (OP_TEXT, OP_BINARY, OP_CONT):
            if opcode != OP_CONT:
                self._fragments = []
            if not fin:
                self._fragments.append(payload)
                return
            if self._fragments:
                payload = b"".join((*self._fragments, payload))
                self._fragments = []
            self.on_message(payload)
        elif opcode == OP_PING:
            self._write(masked_frame(OP_PONG, payload))
        elif opcode == OP_CLOSE:
            self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            if not self._close_sent:  # echo it, then the server closes the TCP connection
                self._close_sent = True
                self._write(masked_frame(OP_CLOSE, payload[:2]))
            if self.transport is not None:
                self.transport.close()

    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _fail(self, code: int) -> None:
        self.close_code = code
        if self.transport is not None:
            self.transport.abort()

    # --- the API ----------------------------------------------------------------------------

    def send(self, payload: bytes) -> None:
        """Sends one text message (no-op once closing)."""
        if not self._close_sent:
            self._write(masked_frame(OP_TEXT, payload))

    async def close(self, code: int = 1000, timeout: float = 2) -> None:
        """The closing handshake: our close frame, the server's, then the TCP close."""
        if not self._close_sent:
            self._close_sent = True
            self._write(masked_frame(OP_CLOSE, code.to_bytes(2, "big")))
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._closed), timeout)
        if self.transport is not None and not self._closed.done():
            self.transport.abort()
