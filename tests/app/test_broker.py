"""The broker: both backends share the behaviour tests; Redis gets its own too.

Redis tests use ``REDIS_URL`` (default ``redis://127.0.0.1:6379/0``) and a
unique channel prefix each, so parallel runs do not see each other's traffic.
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from redis.asyncio import Redis

from app.broker import (
    Broker,
    MemoryBroker,
    RedisBroker,
    Subscription,
    make_broker,
)
from tests.services import require_or_skip

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
TIMEOUT_S = 10.0


async def started_redis_broker(**options: Any) -> RedisBroker:
    broker = RedisBroker(REDIS_URL, **options)
    try:
        await broker.start()
    except Exception as error:  # unreachable, refused, timed out, auth...
        require_or_skip("Redis", error)
    return broker


@pytest.fixture
def prefix() -> str:
    return f"test:broker:{uuid.uuid4().hex}:"


@pytest.fixture(params=["memory", "redis"])
async def broker(request: pytest.FixtureRequest) -> AsyncIterator[Broker]:
    b: Broker
    if request.param == "memory":
        b = MemoryBroker()
        await b.start()
    else:
        b = await started_redis_broker()
    yield b
    await b.close()


@pytest.fixture
async def two_brokers() -> AsyncIterator[tuple[RedisBroker, RedisBroker]]:
    """Two Redis brokers, as two server processes hold them."""
    first = await started_redis_broker()
    try:
        second = await started_redis_broker()
    except BaseException:
        await first.close()
        raise
    yield first, second
    await first.close()
    await second.close()


@pytest.fixture
async def redis_client() -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=5)
    try:
        await client.ping()
    except Exception as error:
        await client.aclose()
        require_or_skip("Redis", error)
    yield client
    await client.aclose()


class Inbox:
    """A handler that records what it receives and can wait for a count."""

    def __init__(self) -> None:
        self.messages: list[bytes] = []
        self._changed = asyncio.Event()

    def __call__(self, message: bytes) -> None:
        self.messages.append(message)
        self._changed.set()

    async def wait_for(self, count: int, timeout: float = TIMEOUT_S) -> list[bytes]:
        async with asyncio.timeout(timeout):
            while len(self.messages) < count:
                self._changed.clear()
                await self._changed.wait()
        return self.messages


async def settle(broker: Broker) -> None:
    """Flushes, then waits until everything published so far has been delivered.

    Redis delivers what one connection published in order: once a probe
    published after them comes back, so has every earlier message."""
    await broker.flush()
    if isinstance(broker, RedisBroker):
        probe = Inbox()
        subscription = await broker.subscribe(f"settle:{uuid.uuid4().hex}", probe)
        broker.publish(subscription.channel, b"probe")
        await broker.flush()
        await probe.wait_for(1)
        await broker.unsubscribe(subscription)


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = TIMEOUT_S) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.02)


# -- both backends -------------------------------------------------------------


async def test_delivers_to_every_handler(broker: Broker, prefix: str) -> None:
    inboxes = [Inbox() for _ in range(3)]
    for inbox in inboxes:
        await broker.subscribe(prefix + "room", inbox)
    broker.publish(prefix + "room", b"one")
    broker.publish(prefix + "room", b"two")
    for inbox in inboxes:
        assert await inbox.wait_for(2) == [b"one", b"two"]
    await settle(broker)
    assert all(len(inbox.messages) == 2 for inbox in inboxes)


async def test_same_handler_twice_is_two_subscriptions(broker: Broker, prefix: str) -> None:
    inbox = Inbox()
    first = await broker.subscribe(prefix + "room", inbox)
    second = await broker.subscribe(prefix + "room", inbox)
    assert isinstance(first, Subscription) and first.id != second.id
    assert (first.channel, first.handler) == (prefix + "room", inbox)
    broker.publish(prefix + "room", b"a")
    assert await inbox.wait_for(2) == [b"a", b"a"]
    await broker.unsubscribe(first)
    broker.publish(prefix + "room", b"b")
    assert await inbox.wait_for(3) == [b"a", b"a", b"b"]


async def test_keeps_publish_order_per_channel(broker: Broker, prefix: str) -> None:
    inboxes = {name: Inbox() for name in ("seat:0", "seat:1", "watch")}
    for name, inbox in inboxes.items():
        await broker.subscribe(prefix + name, inbox)
    for i in range(1000):
        for name in inboxes:
            broker.publish(prefix + name, b"%s %d" % (name.encode(), i))
        if i % 100 == 0:
            await asyncio.sleep(0)  # spread over several flushes
    for name, inbox in inboxes.items():
        assert await inbox.wait_for(1000) == [b"%s %d" % (name.encode(), i) for i in range(1000)]


async def test_unsubscribe_stops_delivery(broker: Broker, prefix: str) -> None:
    kept, dropped = Inbox(), Inbox()
    await broker.subscribe(prefix + "room", kept)
    subscription = await broker.subscribe(prefix + "room", dropped)
    broker.publish(prefix + "room", b"before")
    await kept.wait_for(1)
    await dropped.wait_for(1)
    await broker.unsubscribe(subscription)
    await broker.unsubscribe(subscription)  # a second time is harmless
    broker.publish(prefix + "room", b"after")
    assert await kept.wait_for(2) == [b"before", b"after"]
    await settle(broker)
    assert dropped.messages == [b"before"]


async def test_unsubscribe_last_handler(broker: Broker, prefix: str) -> None:
    inbox = Inbox()
    subscription = await broker.subscribe(prefix + "room", inbox)
    await broker.unsubscribe(subscription)
    broker.publish(prefix + "room", b"nobody")
    await settle(broker)
    assert inbox.messages == []
    # ...and the channel can be subscribed again.
    await broker.subscribe(prefix + "room", inbox)
    broker.publish(prefix + "room", b"again")
    assert await inbox.wait_for(1) == [b"again"]


async def test_failing_handler_does_not_block_others(
    broker: Broker, prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    before, after = Inbox(), Inbox()

    def failing(message: bytes) -> None:
        raise RuntimeError("handler bug")

    await broker.subscribe(prefix + "room", before)
    await broker.subscribe(prefix + "room", failing)
    await broker.subscribe(prefix + "room", after)
    with caplog.at_level(logging.ERROR, logger="kartu.broker"):
        broker.publish(prefix + "room", b"1")
        broker.publish(prefix + "room", b"2")
        assert await before.wait_for(2) == [b"1", b"2"]
        assert await after.wait_for(2) == [b"1", b"2"]
    failures = [r for r in caplog.records if r.name == "kartu.broker" and r.exc_info]
    assert len(failures) == 2


async def test_handler_may_unsubscribe_itself(broker: Broker, prefix: str) -> None:
    other = Inbox()
    calls: list[bytes] = []
    subscription: Subscription | None = None
    unsubscribing: list[asyncio.Task[None]] = []

    def once(message: bytes) -> None:
        calls.append(message)
        assert subscription is not None
        unsubscribing.append(
            asyncio.get_running_loop().create_task(broker.unsubscribe(subscription)))

    subscription = await broker.subscribe(prefix + "room", once)
    await broker.subscribe(prefix + "room", other)
    broker.publish(prefix + "room", b"1")
    await other.wait_for(1)
    await asyncio.gather(*unsubscribing)
    assert len(unsubscribing) == 1
    broker.publish(prefix + "room", b"2")
    assert await other.wait_for(2) == [b"1", b"2"]
    await settle(broker)
    assert calls == [b"1"]


async def test_channels_are_isolated(broker: Broker, prefix: str) -> None:
    seat, watch = Inbox(), Inbox()
    await broker.subscribe(prefix + "room:1:seat:0", seat)
    await broker.subscribe(prefix + "room:1:watch", watch)
    broker.publish(prefix + "room:1:seat:0", b"private")
    broker.publish(prefix + "room:1:watch", b"public")
    broker.publish(prefix + "room:2:watch", b"elsewhere")
    assert await seat.wait_for(1) == [b"private"]
    assert await watch.wait_for(1) == [b"public"]
    await settle(broker)
    assert seat.messages == [b"private"]
    assert watch.messages == [b"public"]


async def test_publish_without_subscribers_is_fine(broker: Broker, prefix: str) -> None:
    broker.publish(prefix + "empty", b"into the void")
    await broker.flush()


async def test_a_hosted_channel_delivers_each_message_once(broker: Broker, prefix: str) -> None:
    channel = prefix + "room"
    inbox = Inbox()
    await broker.subscribe(channel, inbox)
    broker.host([channel])
    for i in range(20):
        broker.publish(channel, b"%d" % i)
    await settle(broker)
    assert inbox.messages == [b"%d" % i for i in range(20)]
    await broker.unhost([channel])
    broker.publish(channel, b"after")
    assert await inbox.wait_for(21) == [*(b"%d" % i for i in range(20)), b"after"]
    await settle(broker)
    assert len(inbox.messages) == 21


def test_make_broker() -> None:
    assert isinstance(make_broker(None), MemoryBroker)
    assert isinstance(make_broker(""), MemoryBroker)
    assert isinstance(make_broker(REDIS_URL), RedisBroker)


# -- Redis only ----------------------------------------------------------------


async def test_redis_two_processes(
        prefix: str, two_brokers: tuple[RedisBroker, RedisBroker]) -> None:
    publisher, subscriber = two_brokers
    inboxes = [Inbox(), Inbox()]
    for inbox in inboxes:
        await subscriber.subscribe(prefix + "room", inbox)
    for i in range(50):
        publisher.publish(prefix + "room", b"%d" % i)
    for inbox in inboxes:
        assert await inbox.wait_for(50) == [b"%d" % i for i in range(50)]


async def test_redis_hosted_channels_skip_the_round_trip_through_redis(
        prefix: str, redis_client: Redis, two_brokers: tuple[RedisBroker, RedisBroker]) -> None:
    owner, other = two_brokers
    channel = prefix + "room:seat:0"
    here, there = Inbox(), Inbox()
    owner.host([channel])
    await owner.subscribe(channel, here)
    await other.subscribe(channel, there)
    assert await numsub(redis_client, channel) == 1  # the other process's only
    owner.publish(channel, b"one")
    assert here.messages == [b"one"]  # delivered by publish itself
    assert await there.wait_for(1) == [b"one"]  # and through Redis elsewhere
    await settle(owner)
    assert here.messages == there.messages == [b"one"]  # once each


async def test_redis_hosting_a_subscribed_channel_unsubscribes_it_without_duplicates(
        prefix: str, redis_client: Redis) -> None:
    broker = await started_redis_broker()
    channel = prefix + "room:watch"
    try:
        inbox = Inbox()
        await broker.subscribe(channel, inbox)
        assert await numsub(redis_client, channel) == 1
        broker.host([channel])
        # Published while the UNSUBSCRIBE is on its way: Redis still echoes
        # them, and the echo must not deliver them a second time.
        for i in range(50):
            broker.publish(channel, b"%d" % i)

        async def unsubscribed() -> bool:
            return await numsub(redis_client, channel) == 0

        await eventually(unsubscribed)
        await settle(broker)
        assert inbox.messages == [b"%d" % i for i in range(50)]
    finally:
        await broker.close()


async def test_redis_a_channel_given_up_hears_the_new_owner(
        prefix: str, redis_client: Redis, two_brokers: tuple[RedisBroker, RedisBroker]) -> None:
    old_owner, new_owner = two_brokers
    channel = prefix + "room:seat:1"
    inbox = Inbox()
    old_owner.host([channel])
    await old_owner.subscribe(channel, inbox)
    assert await numsub(redis_client, channel) == 0
    await old_owner.unhost([channel])
    assert await numsub(redis_client, channel) == 1  # subscribed once unhost returns
    new_owner.host([channel])
    new_owner.publish(channel, b"from the new owner")
    assert await inbox.wait_for(1) == [b"from the new owner"]
    # A subscription made after giving up goes through Redis too.
    late = Inbox()
    await old_owner.subscribe(channel, late)
    new_owner.publish(channel, b"again")
    assert await late.wait_for(1) == [b"again"]
    assert await inbox.wait_for(2) == [b"from the new owner", b"again"]


async def test_redis_hosted_channels_stay_off_redis_after_a_reconnect(
        prefix: str, redis_client: Redis) -> None:
    name = "kartu-test-" + uuid.uuid4().hex[:12]
    broker = await started_redis_broker(client_name=name)
    hosted, plain = prefix + "room:watch", prefix + "other"
    try:
        here, there = Inbox(), Inbox()
        broker.host([hosted])
        await broker.subscribe(hosted, here)
        await broker.subscribe(plain, there)
        assert await _kill_clients(redis_client, f"{name}:sub") == 1

        async def resubscribed() -> bool:
            return await numsub(redis_client, plain) == 1

        await eventually(resubscribed)
        assert await numsub(redis_client, hosted) == 0
        broker.publish(hosted, b"still here")
        assert here.messages == [b"still here"]
    finally:
        await broker.close()


async def test_redis_publish_right_after_subscribe_is_delivered(
        prefix: str, two_brokers: tuple[RedisBroker, RedisBroker]) -> None:
    publisher, subscriber = two_brokers
    for round_ in range(20):
        inbox = Inbox()
        await subscriber.subscribe(f"{prefix}room:{round_}", inbox)
        publisher.publish(f"{prefix}room:{round_}", b"first")
        assert await inbox.wait_for(1) == [b"first"]


async def test_redis_concurrent_subscribes_to_one_channel(prefix: str) -> None:
    broker = await started_redis_broker()
    try:
        inboxes = [Inbox() for _ in range(10)]
        await asyncio.gather(*(broker.subscribe(prefix + "room", i) for i in inboxes))
        broker.publish(prefix + "room", b"x")
        for inbox in inboxes:
            assert await inbox.wait_for(1) == [b"x"]
    finally:
        await broker.close()


async def numsub(client: Redis, channel: str) -> int:
    [(_name, count)] = await client.pubsub_numsub(channel)
    return int(count)


async def test_redis_refcounts_local_subscribers(prefix: str, redis_client: Redis) -> None:
    broker = await started_redis_broker()
    channel = prefix + "room"
    try:
        first, second = Inbox(), Inbox()
        sub_first = await broker.subscribe(channel, first)
        sub_second = await broker.subscribe(channel, second)
        assert await numsub(redis_client, channel) == 1  # one Redis subscription
        assert channel.encode() in await redis_client.pubsub_channels(prefix + "*")

        await broker.unsubscribe(sub_first)
        assert await numsub(redis_client, channel) == 1
        broker.publish(channel, b"still there")
        assert await second.wait_for(1) == [b"still there"]

        await broker.unsubscribe(sub_second)
        assert await numsub(redis_client, channel) == 0
        assert await redis_client.pubsub_channels(prefix + "*") == []

        # Subscribing, unsubscribing and subscribing again in quick succession
        # ends subscribed, and confirmed.
        third = Inbox()
        sub = await broker.subscribe(channel, third)
        await asyncio.gather(broker.unsubscribe(sub), broker.subscribe(channel, third))
        assert await numsub(redis_client, channel) == 1
        broker.publish(channel, b"back")
        assert await third.wait_for(1) == [b"back"]
    finally:
        await broker.close()
    assert await numsub(redis_client, channel) == 0


async def test_redis_close_leaves_no_tasks(prefix: str) -> None:
    before = asyncio.all_tasks()
    broker = await started_redis_broker()
    inbox = Inbox()
    await broker.subscribe(prefix + "room", inbox)
    broker.publish(prefix + "room", b"x")
    await inbox.wait_for(1)
    broker.publish(prefix + "room", b"unflushed")  # close() sends it first
    await broker.close()
    await broker.close()  # idempotent
    await asyncio.sleep(0)
    leftover = {t for t in asyncio.all_tasks() - before if not t.done()}
    assert leftover == set()
    broker.publish(prefix + "room", b"after close")  # dropped, not raised


async def test_redis_bursts_arrive_whole_and_in_order(
        prefix: str, two_brokers: tuple[RedisBroker, RedisBroker]) -> None:
    subscriber, publisher = two_brokers
    # A burst comes in few socket reads, its messages interleaved with
    # (un)subscribe confirmations that the broker must still see in order.
    inbox, other = Inbox(), Inbox()
    await subscriber.subscribe(prefix + "room", inbox)
    payload = b"x" * 1200
    for i in range(2000):
        publisher.publish(prefix + "room", b"%d:" % i + payload)
        if i == 1000:
            subscription = await subscriber.subscribe(prefix + "other", other)
            publisher.publish(prefix + "other", b"hello")
    assert await inbox.wait_for(2000) == [b"%d:" % i + payload for i in range(2000)]
    assert await other.wait_for(1) == [b"hello"]
    await subscriber.unsubscribe(subscription)
    publisher.publish(prefix + "other", b"gone")
    publisher.publish(prefix + "room", b"last")
    assert (await inbox.wait_for(2001))[-1] == b"last"
    assert other.messages == [b"hello"]


async def test_redis_close_sends_pending_messages(prefix: str) -> None:
    subscriber = await started_redis_broker()
    publisher = await started_redis_broker()
    try:
        inbox = Inbox()
        await subscriber.subscribe(prefix + "room", inbox)
        for i in range(100):
            publisher.publish(prefix + "room", b"%d" % i)
        await publisher.close()
        assert await inbox.wait_for(100) == [b"%d" % i for i in range(100)]
    finally:
        await subscriber.close()


async def test_redis_flush_hands_everything_to_redis(prefix: str, redis_client: Redis) -> None:
    broker = await started_redis_broker()
    try:
        pubsub = redis_client.pubsub()
        await pubsub.subscribe(prefix + "room")
        assert (await pubsub.get_message(timeout=TIMEOUT_S))["type"] == "subscribe"
        for i in range(10):
            broker.publish(prefix + "room", b"%d" % i)
        await broker.flush()
        received = []
        for _ in range(10):
            message = await pubsub.get_message(timeout=TIMEOUT_S)
            received.append(message["data"])
        assert received == [b"%d" % i for i in range(10)]
        await pubsub.aclose()
    finally:
        await broker.close()


async def test_redis_reconnects_and_resubscribes(
    prefix: str, redis_client: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    name = "kartu-test-" + uuid.uuid4().hex[:12]
    broker = await started_redis_broker(client_name=name)
    channel = prefix + "room"
    try:
        inbox = Inbox()
        await broker.subscribe(channel, inbox)
        with caplog.at_level(logging.INFO, logger="kartu.broker"):
            assert await _kill_clients(redis_client, f"{name}:sub") == 1

            async def delivered() -> bool:
                broker.publish(channel, b"probe")  # messages in the gap may be lost
                await asyncio.sleep(0.05)
                return bool(inbox.messages)

            await eventually(delivered)
        assert any("lost its Redis pub/sub connection" in r.getMessage() for r in caplog.records)
        assert any("reconnected" in r.getMessage() for r in caplog.records)
        # New subscriptions work on the new connection too.
        other = Inbox()
        await broker.subscribe(prefix + "other", other)
        broker.publish(prefix + "other", b"fine")
        assert await other.wait_for(1) == [b"fine"]
        assert await numsub(redis_client, channel) == 1
    finally:
        await broker.close()


async def test_redis_publishing_survives_its_connection_being_killed(
    prefix: str, redis_client: Redis, caplog: pytest.LogCaptureFixture
) -> None:
    name = "kartu-test-" + uuid.uuid4().hex[:12]
    broker = await started_redis_broker(client_name=name)
    channel = prefix + "room"
    try:
        inbox = Inbox()
        await broker.subscribe(channel, inbox)
        broker.publish(channel, b"before")
        assert await inbox.wait_for(1) == [b"before"]
        assert await _kill_clients(redis_client, f"{name}:pub") >= 1

        async def delivered() -> bool:
            broker.publish(channel, b"after")  # a batch written into the dead socket is lost
            await asyncio.sleep(0.05)
            return b"after" in inbox.messages

        with caplog.at_level(logging.WARNING, logger="kartu.broker"):
            await eventually(delivered)
        assert any("publish failed" in r.getMessage() for r in caplog.records)
    finally:
        await broker.close()


async def _kill_clients(client: Redis, name: str) -> int:
    """Kills Redis' connections of clients named ``name``; how many there were."""
    killed = 0
    for entry in await client.client_list():
        if entry.get("name") == name:
            killed += await client.execute_command("CLIENT", "KILL", "ID", entry["id"])
    return killed


async def test_redis_start_fails_when_unreachable() -> None:
    broker = RedisBroker("redis://127.0.0.1:1/0", socket_timeout=1)
    with pytest.raises(Exception):  # noqa: B017 - whichever connection error redis-py raises
        await broker.start()
    await broker.close()
