"""app.wsprotocol against the pinned websockets and uvicorn: its framing (against
the websockets library's), the handshake and its refusals, receiving (frames,
fragments, control frames, limits), corked and bounded sending, closing, the
write stall and keep-alive.

Most tests drive the protocol as uvicorn does (constructed with ``config=``,
``server_state=``, ``app_state=``, then ``connection_made`` and the request's
bytes) over a transport that records what is written.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import os
from pathlib import Path
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState
from websockets.frames import Close, Frame, Opcode

from app import wsprotocol
from app.main import create_app
from app.settings import Settings
from app.wsprotocol import (
    EXTENSION,
    FramePath,
    KartuWebSocketProtocol,
    cork_all,
    frame_path,
    loop_flusher,
    unwire,
    wire,
)
from tests.waiting import wait_for


@pytest.mark.parametrize("size", [0, 1, 125, 126, 1_400, 65_535, 65_536, 70_000])
def test_wire_bytes_are_the_frame_websockets_would_send(size: int) -> None:
    payload = b'"' + b"x" * max(0, size - 2) + b'"' if size >= 2 else b"1" * size
    assert wire(payload) == Frame(Opcode.TEXT, payload).serialize(mask=False)


def test_unwire_gives_back_the_payloads_of_joined_frames() -> None:
    payloads = [b"", b"1", b"x" * 125, b"y" * 126, b"z" * 65_536, b'{"type":"ack"}']
    assert unwire(b"".join(wire(p) for p in payloads)) == payloads
    assert unwire(b"") == []


class _Transport:
    """What the protocol uses of a transport, recording the writes."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.buffered = 0
        self.closing = self.closed = self.aborted = False
        self.reading = True
        self.limits: tuple[int, int] | None = None

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing

    def get_write_buffer_size(self) -> int:
        return self.buffered

    def set_write_buffer_limits(self, high: int, low: int) -> None:
        self.limits = (high, low)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def close(self) -> None:
        self.closing = self.closed = True

    def abort(self) -> None:
        self.closing = self.aborted = True

    def frames(self) -> list[Frame]:
        """What was written after the handshake's answer, as frames."""
        data = b"".join(self.writes)
        data = data[data.index(b"\r\n\r\n") + 4:] if data.startswith(b"HTTP/") else data
        frames = []
        while data:
            length, at = data[1] & 0x7F, 2
            if length == 126:
                length, at = int.from_bytes(data[2:4], "big"), 4
            elif length == 127:
                length, at = int.from_bytes(data[2:10], "big"), 10
            frames.append(Frame(Opcode(data[0] & 0x0F), data[at:at + length],
                                bool(data[0] & 0x80)))
            data = data[at + length:]
        return frames


def _request(**headers: str) -> bytes:
    fields = {"Host": "test", "Upgrade": "websocket", "Connection": "Upgrade",
              "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode(),
              "Sec-WebSocket-Version": "13", **headers}
    lines = [f"{name}: {value}" for name, value in fields.items() if value]
    return ("GET /ws?token=t HTTP/1.1\r\n" + "\r\n".join(lines) + "\r\n\r\n").encode()


class _Server:
    """An app and the protocol serving it, as uvicorn would set them up."""

    def __init__(self, app: Any, **config: Any) -> None:
        self.state = ServerState()
        self.protocol = KartuWebSocketProtocol(
            config=Config(app, proxy_headers=False, **config), server_state=self.state,
            app_state={"kept": 1})
        self.transport = _Transport()
        self.protocol.connection_made(self.transport)  # type: ignore[arg-type]


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def _client(opcode: Opcode, data: bytes | bytearray | memoryview, *, fin: bool = True,
            mask: bool = True) -> bytes:
    return Frame(opcode, data, fin).serialize(mask=mask)


async def _accepted(**config: Any) -> tuple[KartuWebSocketProtocol, _Transport,
                                            list[dict[str, Any]]]:
    """A protocol past the handshake, and what its app has received since."""
    received: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        while (message := await receive())["type"] != "websocket.disconnect":
            received.append(message)
        received.append(message)

    server = _Server(app, **config)
    server.protocol.data_received(_request())
    await _settle()
    assert server.transport.writes[0].startswith(b"HTTP/1.1 101")
    return server.protocol, server.transport, received


# --- the handshake ---------------------------------------------------------------

async def test_the_handshake_gives_the_app_an_asgi_scope_with_the_frame_path() -> None:
    scopes: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        scopes.append(scope)
        assert await receive() == {"type": "websocket.connect"}
        await send({"type": "websocket.accept", "subprotocol": "kartu",
                    "headers": [(b"x-room", b"7")]})
        await receive()

    server = _Server(app)
    server.protocol.data_received(_request(**{"Sec-WebSocket-Protocol": "kartu, other"}))
    await _settle()
    scope = scopes[0]
    assert scope["type"] == "websocket" and scope["path"] == "/ws"
    assert scope["query_string"] == b"token=t" and scope["subprotocols"] == ["kartu", "other"]
    assert (b"host", b"test") in [(k.lower(), v) for k, v in scope["headers"]]
    assert scope["state"] == {"kept": 1}
    path = frame_path(scope)
    assert isinstance(path, FramePath) and scope["extensions"][EXTENSION] is path
    answer = server.transport.writes[0].decode()
    assert answer.startswith("HTTP/1.1 101")
    assert "Sec-WebSocket-Protocol: kartu\r\n" in answer and "x-room: 7\r\n" in answer
    assert "Sec-WebSocket-Extensions" not in answer  # never compression: shared wire bytes
    assert server.protocol in server.state.connections and len(server.state.tasks) == 1


@pytest.mark.parametrize(("headers", "status"), [
    ({"Sec-WebSocket-Key": ""}, b"400"),
    ({"Sec-WebSocket-Version": "8"}, b"400"),
])
async def test_a_request_websockets_refuses_never_reaches_the_app(
        headers: dict[str, str], status: bytes) -> None:
    calls: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        calls.append(scope)

    server = _Server(app)
    server.protocol.data_received(_request(**headers))
    await _settle()
    assert server.transport.writes[0].startswith(b"HTTP/1.1 " + status)
    assert server.transport.closed and calls == []


async def test_an_app_closing_before_it_accepts_refuses_with_403() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.close", "code": 4401})
        assert (await receive())["type"] == "websocket.disconnect"

    server = _Server(app)
    server.protocol.data_received(_request())
    await _settle()
    assert server.transport.writes[0].startswith(b"HTTP/1.1 403")
    assert server.transport.closed


async def test_an_app_failing_before_it_accepts_gets_a_500() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("boom")

    server = _Server(app)
    server.protocol.data_received(_request())
    await _settle()
    assert server.transport.writes[0].startswith(b"HTTP/1.1 500")
    assert server.transport.closed


async def test_an_app_failing_after_it_accepted_closes_with_1011() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        raise RuntimeError("boom")

    server = _Server(app)
    server.protocol.data_received(_request())
    await _settle()
    assert server.transport.frames() == [Frame(Opcode.CLOSE, Close(1011, "").serialize())]


# --- receiving -------------------------------------------------------------------

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


async def test_fragments_pings_and_binary_frames_arrive_between_texts() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(
        _client(Opcode.TEXT, b"one")
        + _client(Opcode.TEXT, b"fra", fin=False) + _client(Opcode.PING, b"hi")
        + _client(Opcode.CONT, b"gm", fin=False) + _client(Opcode.CONT, b"ent")
        + _client(Opcode.BINARY, b"\x00", fin=False) + _client(Opcode.CONT, b"\x01")
        + _client(Opcode.TEXT, b"two"))
    await _settle()
    assert [m.get("text", m.get("bytes")) for m in received] == [
        "one", "fragment", b"\x00\x01", "two"]
    assert transport.frames() == [Frame(Opcode.PONG, b"hi")]


async def test_an_unmasked_frame_fails_the_connection_and_nothing_after_it_arrives() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"ok") + _client(Opcode.TEXT, b"bad", mask=False)
                           + _client(Opcode.TEXT, b"late"))
    await _settle()
    assert [m.get("text") for m in received] == ["ok", None]
    assert received[-1] == {"type": "websocket.disconnect", "code": 1002,
                            "reason": "incorrect masking"}
    assert transport.frames()[-1].opcode is Opcode.CLOSE and transport.closed


async def test_a_text_inside_a_fragmented_message_is_refused() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"half", fin=False) + _client(Opcode.TEXT, b"x"))
    await _settle()
    assert received[-1]["type"] == "websocket.disconnect" and received[-1]["code"] == 1002
    assert transport.closed


async def test_a_frame_over_the_size_limit_is_refused_from_its_header_with_1009() -> None:
    protocol, transport, received = await _accepted(ws_max_size=100)
    frame = _client(Opcode.TEXT, b"y" * 1000)
    protocol.data_received(frame[:20])  # the header says 1000 bytes: no waiting for them
    await _settle()
    assert received[-1]["type"] == "websocket.disconnect" and received[-1]["code"] == 1009
    assert Close.parse(transport.frames()[-1].data).code == 1009 and transport.closed


async def test_a_message_over_the_size_limit_in_fragments_is_refused_with_1009() -> None:
    protocol, transport, received = await _accepted(ws_max_size=100)
    protocol.data_received(_client(Opcode.TEXT, b"y" * 60, fin=False)
                           + _client(Opcode.CONT, b"y" * 60))
    await _settle()
    assert received == [{"type": "websocket.disconnect", "code": 1009,
                         "reason": received[-1]["reason"]}]
    assert transport.closed


async def test_a_close_frame_ends_the_connection_and_what_follows_is_dropped() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"bye") + _client(Opcode.CLOSE, b"\x03\xe8")
                           + _client(Opcode.TEXT, b"ghost"))
    await _settle()
    assert [m.get("text") for m in received] == ["bye", None]
    assert received[-1] == {"type": "websocket.disconnect", "code": 1000, "reason": ""}
    assert transport.frames() == [Frame(Opcode.CLOSE, b"\x03\xe8")]  # the answer
    assert transport.closed


async def test_invalid_utf8_in_a_text_frame_closes_with_1007() -> None:
    protocol, transport, received = await _accepted()
    protocol.data_received(_client(Opcode.TEXT, b"\xff\xfe") + _client(Opcode.TEXT, b"late"))
    await _settle()
    assert [m.get("text") for m in received] == [None]
    assert received[-1]["code"] == 1007
    assert transport.closed


async def test_reading_pauses_only_when_the_app_falls_behind() -> None:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "websocket.accept"})
        await asyncio.Event().wait()  # reads nothing more

    server = _Server(app)
    protocol, transport = server.protocol, server.transport
    protocol.data_received(_request())
    await _settle()
    for n in range(wsprotocol.READ_AHEAD):
        assert transport.reading, n
        protocol.data_received(_client(Opcode.TEXT, b"%d" % n))
    assert not transport.reading
    for _ in range(wsprotocol.READ_AHEAD // 2 + 1):
        await protocol.receive()
    assert transport.reading


async def test_the_connection_ending_tells_the_app_once() -> None:
    protocol, _, received = await _accepted()
    protocol.connection_lost(None)
    protocol.connection_lost(None)
    await _settle()
    assert received == [{"type": "websocket.disconnect", "code": 1006, "reason": ""}]
    with pytest.raises(OSError):
        await protocol.send({"type": "websocket.send", "text": "late"})


# --- sending: corked, bounded --------------------------------------------------------

async def test_frames_of_a_loop_turn_go_out_in_one_write_on_the_next() -> None:
    protocol, transport, _ = await _accepted()
    path = frame_path(protocol.scope or {})
    assert path is not None
    del transport.writes[:]
    assert path.send_wire(wire(b"a"), 100) and path.send_wire(wire(b"b"), 100)
    await protocol.send({"type": "websocket.send", "text": "c"})  # the ASGI way, in order
    assert transport.writes == []
    await asyncio.sleep(0)
    assert transport.writes == [wire(b"a") + wire(b"b") + wire(b"c")]


async def test_flush_all_writes_the_callers_connection_first_then_the_others() -> None:
    mine, my_transport, _ = await _accepted()
    other, other_transport, _ = await _accepted()
    order: list[str] = []
    my_transport.write = lambda data: order.append("mine")  # type: ignore[method-assign]
    other_transport.write = lambda data: order.append("other")  # type: ignore[method-assign]
    other.send_corked(b"a", 100)
    mine.send_corked(b"b", 100)
    FramePath(mine).flush_all()
    assert order == ["mine", "other"]
    await asyncio.sleep(0)  # nothing is left for the loop turn's flush
    assert order == ["mine", "other"]
    assert not loop_flusher(asyncio.get_running_loop()).dirty


async def test_a_connection_past_its_backlog_or_going_away_is_sent_nothing() -> None:
    protocol, transport, _ = await _accepted()
    path = FramePath(protocol)
    del transport.writes[:]
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
    await protocol.send({"type": "websocket.close"})
    assert path.send_wire(b"late", 1000)  # no complaint, and nothing sent
    await asyncio.sleep(0)
    assert transport.frames()[-1].opcode is Opcode.CLOSE


async def test_a_feed_corks_a_change_for_its_receivers_as_send_wire_would() -> None:
    # The same bytes to each, corked until the loop turn's flush, and no
    # frame for a receiver behind its floor, going away, past its backlog or closed.
    slow: list[str] = []
    accepted = [await _accepted() for _ in range(5)]
    for _, transport, _ in accepted:
        del transport.writes[:]
    paths = [FramePath(protocol) for protocol, _, _ in accepted]
    receivers = [path.receiver(100, functools.partial(slow.append, f"r{n}"))
                 for n, path in enumerate(paths)]
    receivers[1].floor = 7  # joined with the snapshot of version 7
    receivers[2].gone = True  # its connection is closing
    paths[3].send_wire(b"x", 100)
    accepted[3][1].buffered = 200  # its client reads no more: that write stays buffered
    paths[3].flush_all()
    await accepted[4][0].send({"type": "websocket.close"})
    del accepted[4][1].writes[:]
    data = memoryview(b"frames of version 7")
    cork_all(tuple(receivers), 7, data)

    def written() -> list[list[bytes]]:
        return [transport.writes for _, transport, _ in accepted]

    assert written() == [[], [], [], [b"x"], []]
    await asyncio.sleep(0)
    assert written() == [[b"frames of version 7"], [], [], [b"x"], []]
    assert slow == ["r3"]
    cork_all(tuple(receivers), 8, memoryview(b"v8"))
    paths[0].flush_all()
    assert written()[:2] == [[b"frames of version 7", b"v8"], [b"v8"]]


# --- closing and the write stall -------------------------------------------------------

async def test_the_apps_close_goes_after_its_frames_and_waits_for_the_clients(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wsprotocol, "CLOSE_TIMEOUT_S", 0.05)
    protocol, transport, received = await _accepted()
    del transport.writes[:]
    protocol.send_corked(wire(b"last"), 1000)
    await protocol.send({"type": "websocket.close", "code": 4000, "reason": "bye"})
    await _settle()
    assert transport.frames() == [Frame(Opcode.TEXT, b"last"),
                                  Frame(Opcode.CLOSE, Close(4000, "bye").serialize())]
    assert received[-1] == {"type": "websocket.disconnect", "code": 4000, "reason": "bye"}
    assert not transport.closing  # the client answers...
    protocol.data_received(_client(Opcode.CLOSE, Close(4000, "bye").serialize()))
    assert transport.closed and not transport.aborted  # ... and the socket closes

    protocol, transport, _ = await _accepted()
    await protocol.send({"type": "websocket.close"})
    # A client that never answers is cut off.
    await wait_for(lambda: transport.aborted, what="the socket cut")


async def test_a_write_stall_drops_the_connection_with_1013() -> None:
    protocol, transport, received = await _accepted()
    assert transport.limits == (0, 0)  # told as soon as anything waits, and once it drained
    FramePath(protocol).limit_writes(0.05, 0)
    protocol.pause_writing()
    await asyncio.sleep(0.03)
    protocol.resume_writing()  # it drained in time
    await asyncio.sleep(0.05)
    assert not transport.closing
    protocol.pause_writing()
    await asyncio.sleep(0.1)
    assert transport.aborted
    assert received[-1]["type"] == "websocket.disconnect" and received[-1]["code"] == 1013


async def test_shutdown_closes_an_open_connection_with_1012() -> None:
    protocol, transport, received = await _accepted()
    del transport.writes[:]
    protocol.shutdown()
    assert transport.frames() == [Frame(Opcode.CLOSE, Close(1012, "").serialize())]
    assert transport.closed
    await _settle()
    assert received[-1]["code"] == 1012


# --- keep-alive ---------------------------------------------------------------------

async def test_first_keepalive_pings_of_sockets_opened_together_are_spread() -> None:
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
    # The first ping is due within 0.1-0.2 s.
    await wait_for(lambda: transport.frames() and transport.frames()[-1].opcode is Opcode.PING,
                   what="a keepalive ping")
    ping = transport.frames()[-1]
    assert ping.opcode is Opcode.PING and len(ping.data) == 4
    protocol.data_received(_client(Opcode.PONG, b"????"))  # not its answer
    assert protocol.pong_timer is not None
    protocol.data_received(_client(Opcode.PONG, ping.data))
    await _settle()
    assert protocol.pong_timer is None and protocol.ping_timer is not None
    assert not transport.closing and received == []
    protocol.stop_keepalive()


async def test_a_ping_left_unanswered_closes_with_1011() -> None:
    _, transport, received = await _accepted(ws_ping_interval=0.1, ws_ping_timeout=0.05)
    await wait_for(lambda: transport.closed, what="the socket closed")
    assert Close.parse(transport.frames()[-1].data).code == 1011
    # The app hears of it in its own task, after the socket closed.
    await wait_for(lambda: bool(received), what="the app told of the disconnect")
    assert received[-1]["code"] == 1011


async def test_a_client_gone_before_the_app_answers_the_handshake_is_told_as_a_disconnect(
        ) -> None:
    events: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        events.append(await receive())
        await asyncio.sleep(0.01)  # the client leaves meanwhile
        events.append(await receive())
        try:
            await send({"type": "websocket.accept"})
        except OSError as error:
            events.append(type(error).__name__)

    server = _Server(app)
    server.protocol.data_received(_request())
    server.protocol.eof_received()
    server.protocol.connection_lost(None)
    await wait_for(lambda: len(events) == 3, what="the app's three steps")
    assert events == [{"type": "websocket.connect"},
                      {"type": "websocket.disconnect", "code": 1006, "reason": ""},
                      "ClientDisconnected"]
    assert server.transport.writes == [] and not server.state.tasks


# --- kartu's app on it ---------------------------------------------------------------

async def test_the_game_socket_goes_through_the_apps_middleware_and_router(
        tmp_path: Path) -> None:
    seen: list[tuple[str, str]] = []

    class Recorder:
        """A middleware as any other: it sees every scope the app is handed."""

        def __init__(self, app: Any) -> None:
            self.app = app

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            seen.append((scope["type"], scope.get("path", "")))
            await self.app(scope, receive, send)

    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}"))
    app.add_middleware(Recorder)
    async with app.router.lifespan_context(app):
        server = _Server(app)
        server.protocol.data_received(_request())
        await wait_for(lambda: server.transport.writes, what="the handshake's answer")
        assert server.transport.writes[0].startswith(b"HTTP/1.1 101")
        server.protocol.connection_lost(None)
        await wait_for(lambda: not server.state.tasks, what="the socket's end")
    assert ("websocket", "/ws") in seen
