"""The gateway's own safeguards, on a socket double that we control."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any, cast

from app.broker import MemoryBroker
from app.feeds import Feeds, Sink
from app.frames import envelope_of
from app.gateway import CLOSE_TOO_SLOW, Connection
from app.rooms import RoomRegistry
from app.settings import Settings
from app.wsprotocol import EXTENSION, FramePath, wire
from tests.waiting import wait_for

# A stand-in for the registry: what these connections read of it is its process_id.
FakeRegistry = cast(RoomRegistry, SimpleNamespace(process_id="test"))


class StuckSocket:
    """A WebSocket whose peer never reads: every send blocks."""

    def __init__(self) -> None:
        self.closed: tuple[int, str] | None = None
        self._never = asyncio.Event()

    async def send_text(self, text: str) -> None:
        await self._never.wait()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


async def test_a_client_that_cannot_keep_up_is_dropped_not_buffered() -> None:
    socket = StuckSocket()
    settings = Settings(send_queue_size=8)
    connection = Connection(socket, None, settings,  # type: ignore[arg-type]
                            registry=FakeRegistry, feeds=Feeds(MemoryBroker()))
    writer = asyncio.get_running_loop().create_task(connection._write_forever())
    for i in range(100):
        connection.send(b'{"type":"event","n":%d}' % i)
    await wait_for(lambda: socket.closed is not None, what="the stuck client dropped")
    assert socket.closed is not None and socket.closed[0] == CLOSE_TOO_SLOW
    assert connection.outgoing is not None  # no frame path: the queue path
    assert connection.outgoing.qsize() <= settings.send_queue_size
    writer.cancel()


async def test_frames_queued_before_a_close_are_sent_first() -> None:
    sent: list[str] = []

    class Socket:
        closed: Any = None

        async def send_text(self, text: str) -> None:
            sent.append(text)

        async def close(self, code: int = 1000, reason: str = "") -> None:
            Socket.closed = (code, reason, len(sent))

    connection = Connection(Socket(), None, Settings(),  # type: ignore[arg-type]
                            registry=FakeRegistry, feeds=Feeds(MemoryBroker()))
    writer = asyncio.get_running_loop().create_task(connection._write_forever())
    connection.send(b'{"type":"error","code":"rate_limited"}')
    connection.close_soon(1008, "flooding")
    connection.send(b'{"type":"late"}')
    await asyncio.wait_for(writer, 1)
    assert sent == ['{"type":"error","code":"rate_limited"}']  # the late frame was dropped
    assert Socket.closed == (1008, "flooding", 1)


async def test_a_channel_is_subscribed_once_however_many_connections_watch_it() -> None:
    broker = MemoryBroker()
    feeds = Feeds(broker)
    got: list[tuple[str, int, bytes | memoryview]] = []

    def sink(name: str) -> Sink:
        def deliver(version: int, data: bytes | memoryview) -> None:
            got.append((name, version, data))
        return deliver

    handles = [await feeds.attach("room:r:watch", sink(n)) for n in ("a", "b", "c")]
    assert len(broker._channels["room:r:watch"]) == 1  # one broker subscription
    broker.publish("room:r:watch",
                   envelope_of(7, wire(b'{"type":"event"}') + wire(b'{"type":"state"}')))
    # Framed once for all three: the same bytes object, two text frames.
    assert [(name, version) for name, version, _ in got] == [("a", 7), ("b", 7), ("c", 7)]
    assert got[0][2] is got[1][2] is got[2][2]
    assert got[0][2] == b'\x81\x10{"type":"event"}\x81\x10{"type":"state"}'

    for handle in handles:
        await feeds.detach("room:r:watch", handle)
    assert not broker._channels.get("room:r:watch")


class GatedBroker(MemoryBroker):
    """The in-process broker, whose subscribes wait for the test to open a gate
    (and the first of them may fail): a Redis SUBSCRIBE under way."""

    def __init__(self, fail_first: bool) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.fail_first = fail_first
        self.subscribes = 0

    async def subscribe(self, channel: str, handler: Any) -> Any:
        self.subscribes += 1
        await self.gate.wait()
        if self.fail_first and self.subscribes == 1:
            raise ConnectionError("the broker went away")
        return await super().subscribe(channel, handler)


def attach_two(broker: GatedBroker, got: list[str]) -> tuple[asyncio.Future[int],
                                                            asyncio.Future[int]]:
    """Connections "a" and "b" attaching to one channel at once, each noting what it gets."""
    feeds = Feeds(broker)
    first = asyncio.ensure_future(feeds.attach("room:r:watch", lambda v, d: got.append("a")))
    second = asyncio.ensure_future(feeds.attach("room:r:watch", lambda v, d: got.append("b")))
    return first, second


async def test_a_connection_attaching_while_its_channel_subscribes_waits_for_it() -> None:
    broker = GatedBroker(fail_first=False)
    got: list[str] = []
    first, second = attach_two(broker, got)
    await asyncio.sleep(0)
    assert not first.done() and not second.done()  # neither is sent anything yet
    broker.gate.set()
    await asyncio.gather(first, second)
    assert broker.subscribes == 1
    broker.publish("room:r:watch", envelope_of(3, wire(b'{"type":"state"}')))
    assert got == ["a", "b"]


async def test_when_the_first_subscribe_fails_a_waiting_connection_subscribes_itself() -> None:
    broker = GatedBroker(fail_first=True)
    got: list[str] = []
    first, second = attach_two(broker, got)
    await asyncio.sleep(0)
    broker.gate.set()
    results = await asyncio.gather(first, second, return_exceptions=True)
    assert isinstance(results[0], ConnectionError) and isinstance(results[1], int)
    assert broker.subscribes == 2
    broker.publish("room:r:watch", envelope_of(3, wire(b'{"type":"state"}')))
    assert got == ["b"]


async def test_on_the_direct_frame_path_the_socket_gets_the_write_limits_of_the_settings(
        ) -> None:
    class Path(FramePath):
        __slots__ = ("limits",)

        def __init__(self) -> None:
            self.limits: tuple[float, int] | None = None

        def limit_writes(self, stall_s: float, socket_buffer: int) -> None:
            self.limits = (stall_s, socket_buffer)

    path = Path()
    socket = SimpleNamespace(scope={"extensions": {EXTENSION: path}})
    settings = Settings(write_stall_s=3.5, socket_send_buffer=4096)
    connection = Connection(socket, None, settings,  # type: ignore[arg-type]
                            registry=FakeRegistry, feeds=Feeds(MemoryBroker()))
    assert connection.path is path and path.limits == (3.5, 4096)
