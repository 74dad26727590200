"""app.wsprotocol: its framing (against the websockets library's), its corked
sending, its lean queue and flag."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Frame, Opcode

from app.wsprotocol import (
    FramePath,
    KartuWebSocketProtocol,
    _Flag,
    _Inbox,
    cork_all,
    unwire,
    wire,
)


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1_400, 65_535, 65_536, 70_000])
def test_wire_bytes_are_the_frame_websockets_would_send(size: int) -> None:
    payload = b'"' + b"x" * max(0, size - 2) + b'"' if size >= 2 else b"1" * size
    assert wire(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


def test_unwire_gives_back_the_payloads_of_joined_frames() -> None:
    payloads = [b"", b"1", b"x" * 125, b"y" * 126, b"z" * 65_536, b'{"type":"ack"}']
    assert unwire(b"".join(wire(p) for p in payloads)) == payloads
    assert unwire(b"") == []


async def test_the_inbox_hands_messages_over_in_order_and_waits_when_empty() -> None:
    inbox = _Inbox(asyncio.get_running_loop())
    inbox.put_nowait(1)
    inbox.put_nowait(2)
    assert inbox.qsize() == 2
    assert [await inbox.get(), await inbox.get()] == [1, 2]
    assert inbox.empty()
    waiting = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put_nowait(3)
    assert await asyncio.wait_for(waiting, 1) == 3
    cancelled = asyncio.ensure_future(inbox.get())  # a reader gone does not lose the next
    await asyncio.sleep(0)
    cancelled.cancel()
    inbox.put_nowait(4)
    assert await inbox.get() == 4


async def test_the_writable_flag_holds_senders_until_it_is_set() -> None:
    flag = _Flag(True)
    await asyncio.wait_for(flag.wait(), 1)
    flag.clear()
    senders = [asyncio.ensure_future(flag.wait()) for _ in range(2)]
    await asyncio.sleep(0)
    assert not any(s.done() for s in senders) and not flag.is_set()
    flag.set()
    await asyncio.wait_for(asyncio.gather(*senders), 1)


class _Transport:
    """What the protocol's sending uses of a transport, recording the writes."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.buffered = 0
        self.closing = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return self.buffered


async def _open_path() -> tuple[KartuWebSocketProtocol, FramePath, _Transport]:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    protocol = KartuWebSocketProtocol(Config(app), ServerState(), {},
                                      asyncio.get_running_loop())
    transport = _Transport()
    protocol.transport = transport  # type: ignore[assignment]
    return protocol, FramePath(protocol), transport


async def test_frames_of_a_loop_turn_go_out_together_on_the_next() -> None:
    _, path, transport = await _open_path()
    assert path.send_wire(b"a", 100) and path.send_wire(b"b", 100)
    assert transport.writes == []
    await asyncio.sleep(0)
    assert transport.writes == [b"ab"]


async def test_flush_all_writes_the_callers_connection_first_then_the_others() -> None:
    _, mine, my_transport = await _open_path()
    _, other, other_transport = await _open_path()
    order: list[str] = []
    my_transport.write = lambda data: order.append("mine")  # type: ignore[method-assign]
    other_transport.write = lambda data: order.append("other")  # type: ignore[method-assign]
    other.send_wire(b"a", 100)
    mine.send_wire(b"b", 100)
    mine.flush_all()
    assert order == ["mine", "other"]
    await asyncio.sleep(0)  # nothing is left for the loop turn's flush
    assert order == ["mine", "other"]


async def test_a_connection_past_its_backlog_or_going_away_is_sent_nothing() -> None:
    protocol, path, transport = await _open_path()
    assert path.send_wire(b"x" * 60, 100)
    assert not path.send_wire(b"y", 50)  # 60 bytes corked already
    transport.buffered = 200  # the client reads no more: the write stays buffered
    path.flush_all()
    assert not path.send_wire(b"z", 100)  # 200 bytes in the transport's buffer
    assert transport.writes == [b"x" * 60]
    transport.buffered = 0  # it caught up
    assert path.send_wire(b"w", 100)
    path.flush_all()
    assert transport.writes == [b"x" * 60, b"w"]
    protocol.close_sent = True
    assert path.send_wire(b"late", 1000)  # no complaint, and nothing sent
    await asyncio.sleep(0)
    assert transport.writes == [b"x" * 60, b"w"]


async def test_a_feed_corks_a_change_for_its_receivers_as_send_wire_would() -> None:
    # cork_all is send_corked written out for a feed's receivers: the same
    # bytes to each, corked until the loop turn's flush, and no frame for a
    # receiver behind its floor, going away, past its backlog or closed.
    slow: list[str] = []
    paths = [await _open_path() for _ in range(5)]
    receivers = [path.receiver(100, lambda n=n: slow.append(f"r{n}"))
                 for n, (_, path, _) in enumerate(paths)]
    receivers[1].floor = 7  # joined with the snapshot of version 7
    receivers[2].gone = True  # its connection is closing
    paths[3][1].send_wire(b"x", 100)
    paths[3][2].buffered = 200  # its client reads no more: that write stays buffered
    paths[3][1].flush_all()
    paths[4][0].close_sent = True
    data = memoryview(b"frames of version 7")
    cork_all(tuple(receivers), 7, data)

    def written() -> list[list[bytes]]:
        return [[bytes(w) for w in transport.writes] for _, _, transport in paths]

    assert written() == [[], [], [], [b"x"], []]
    await asyncio.sleep(0)
    assert written() == [[b"frames of version 7"], [], [], [b"x"], []]
    assert slow == ["r3"]
    cork_all(tuple(receivers), 8, memoryview(b"v8"))
    paths[0][1].flush_all()
    assert written()[:2] == [[b"frames of version 7", b"v8"], [b"v8"]]


# --- receiving: frames split here, the rest left to websockets -------------------

_UPGRADE = (b"GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


class _ReadingTransport(_Transport):
    def __init__(self) -> None:
        super().__init__()
        self.closed = False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        self.closing = self.closed = True


async def _accepted(**config: Any) -> tuple[KartuWebSocketProtocol, _ReadingTransport,
                                            list[dict[str, Any]]]:
    """A protocol past the handshake, and what its app has received since."""
    received: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message)
        received.append(message)

    protocol = KartuWebSocketProtocol(Config(app, proxy_headers=False, **config), ServerState(),
                                      {}, asyncio.get_running_loop())
    transport = _ReadingTransport()
    protocol.transport = transport  # type: ignore[assignment]
    protocol.server, protocol.client, protocol.scheme = ("127.0.0.1", 80), ("127.0.0.1", 9), "ws"
    protocol.data_received(_UPGRADE)
    for _ in range(5):
        await asyncio.sleep(0)
    assert transport.writes[0].startswith(b"HTTP/1.1 101")
    assert protocol._splitting  # frames are split here from now on
    return protocol, transport, received


def _client(opcode: Opcode, data: bytes, *, fin: bool = True, mask: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=mask)


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 130, 100_000])
async def test_text_frames_arrive_whole_and_in_order_however_the_bytes_are_cut(
        chunk: int) -> None:
    protocol, _, received = await _accepted()
    texts = ["a", "é" * 100, "x" * 70_000, '{"type":"ping"}']
    data = b"".join(_client(Opcode.TEXT, t.encode()) for t in texts)
    for at in range(0, len(data), chunk):
        protocol.data_received(data[at:at + chunk])
        await asyncio.sleep(0)
    await _settle()
    assert [m.get("text") for m in received] == texts


async def test_pings_fragments_and_binary_frames_go_through_websockets_between_texts() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(
        _client(Opcode.TEXT, b"one")
        + _client(Opcode.PING, b"hi")
        + _client(Opcode.TEXT, b"fra", fin=False) + _client(Opcode.CONT, b"gment")
        + _client(Opcode.BINARY, b"\x00\x01")
        + _client(Opcode.TEXT, b"two"))
    await _settle()
    assert [m.get("text", m.get("bytes")) for m in received] == [
        "one", "fragment", b"\x00\x01", "two"]
    assert Frame(Opcode.PONG, b"hi").serialize(mask=False) in transport.writes
    assert protocol._splitting


async def test_a_frame_websockets_refuses_fails_the_connection_and_nothing_after_it_arrives(
        ) -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"ok") + _client(Opcode.TEXT, b"bad", mask=False)
                           + _client(Opcode.TEXT, b"late"))
    await _settle()
    assert [m.get("text") for m in received] == ["ok", None]
    assert received[-1] == {"type": "websocket.disconnect", "code": 1002,
                            "reason": "incorrect masking"}
    assert transport.closed


async def test_a_text_inside_a_fragmented_message_is_refused_as_websockets_would() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"half", fin=False) + _client(Opcode.TEXT, b"x"))
    await _settle()
    assert received[-1]["type"] == "websocket.disconnect" and received[-1]["code"] == 1002
    assert transport.closed


async def test_a_frame_over_the_size_limit_is_refused_from_its_header() -> None:
    protocol, transport, received = await _accepted(ws_max_size=100)
    frame = _client(Opcode.TEXT, b"y" * 1000)
    protocol.data_received(frame[:20])  # the header says 1000 bytes: no waiting for them
    await _settle()
    assert received[-1]["type"] == "websocket.disconnect" and received[-1]["code"] == 1009
    assert transport.closed


async def test_a_close_frame_ends_the_connection_and_what_follows_is_dropped() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"bye") + _client(Opcode.CLOSE, b"\x03\xe8")
                           + _client(Opcode.TEXT, b"ghost"))
    await _settle()
    assert [m.get("text") for m in received] == ["bye", None]
    assert received[-1]["type"] == "websocket.disconnect" and received[-1]["code"] == 1000
    assert Frame(Opcode.CLOSE, b"\x03\xe8").serialize(mask=False) in transport.writes


async def test_invalid_utf8_in_a_text_frame_closes_with_1007() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"\xff\xfe") + _client(Opcode.TEXT, b"late"))
    await _settle()
    assert [m.get("text") for m in received] == [None]
    assert received[-1]["code"] == 1007
    assert transport.closed


async def test_first_keepalive_pings_of_sockets_opened_together_are_spread() -> None:
    # uvicorn pings a socket ws_ping_interval after it opened, then after each
    # pong: sockets opened together stay pinged together. Here the first
    # ping comes at a random point of the interval's second half.
    loop = asyncio.get_running_loop()
    delays = []
    for _ in range(40):
        protocol, _, _ = await _accepted(ws_ping_interval=20.0)
        assert protocol.ping_timer is not None
        delays.append(protocol.ping_timer.when() - loop.time())
        protocol.stop_keepalive()
    assert all(9.5 <= d <= 20.0 for d in delays)
    assert max(delays) - min(delays) > 4  # not all at one moment
    protocol, _, _ = await _accepted(ws_ping_interval=None)
    assert protocol.ping_timer is None


async def test_a_keepalive_ping_goes_out_and_its_pong_is_taken() -> None:
    protocol, transport, received = await _accepted(ws_ping_interval=0.2, ws_ping_timeout=5)
    await asyncio.sleep(0.21)  # the first ping is due within 0.1-0.2 s
    ping = transport.writes[-1]
    assert ping[0] == 0x89 and ping[1] == 4  # an unmasked PING frame of 4 bytes
    assert protocol.pending_ping_payload == ping[2:]
    protocol.data_received(_client(Opcode.PONG, ping[2:]))
    await _settle()
    assert protocol.pending_ping_payload is None and protocol.ping_timer is not None
    assert not transport.closed and received == []
    protocol.stop_keepalive()
