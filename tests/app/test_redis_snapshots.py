"""RedisSnapshots on a real Redis: fenced saves, saves sent twice, a Redis that
forgot its script."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError

from app.snapshots import RedisKeys, RedisSnapshots, RoomSave
from tests.services import require_or_skip

REDIS_URL = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"


@pytest.fixture
def keys() -> RedisKeys:
    return RedisKeys(f"test:snapshots:{uuid.uuid4().hex}")


@pytest.fixture
async def redis(keys: RedisKeys) -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL, socket_connect_timeout=5)
    try:
        await client.ping()
    except Exception as error:
        require_or_skip("Redis", error)
    yield client
    leftovers = [key async for key in client.scan_iter(match=keys.prefix + "*")]
    if leftovers:
        await client.delete(*leftovers)
    await client.aclose()


def save(room_id: str, version: int, base: int, entries: list[bytes]) -> RoomSave:
    return RoomSave(room_id=room_id, snapshot={"version": version, "log_length": base},
                    log_base=base, log_entries=entries,
                    summary={"room_id": room_id, "status": "playing"}, active=True)


async def test_a_save_lands_only_while_the_process_holds_the_room(
        redis: Redis, keys: RedisKeys) -> None:
    store = RedisSnapshots(redis, keys, "p1")
    assert await store.save(save("r1", 1, 0, [b'{"n":0}'])) is False  # no lease: fenced
    assert await store.load("r1") is None
    await redis.set(keys.lease("r1"), "p1")
    assert await store.save(save("r1", 2, 0, [b'{"n":0}', b'{"n":1}'])) is True
    assert await store.load("r1") == ({"version": 2, "log_length": 0},
                                      [b'{"n":0}', b'{"n":1}'])
    assert await store.active_rooms() == ["r1"]
    await redis.set(keys.lease("r1"), "p2")  # the room moved to another process
    assert await store.save(save("r1", 3, 2, [b'{"n":2}'])) is False
    assert (await store.load("r1") or ({}, []))[0]["version"] == 2


async def test_a_save_sent_twice_appends_its_entries_once(redis: Redis, keys: RedisKeys) -> None:
    store = RedisSnapshots(redis, keys, "p1")
    await redis.set(keys.lease("r1"), "p1")
    again = save("r1", 1, 0, [b"a", b"b"])
    assert await store.save(again) and await store.save(again)
    assert await store.save(save("r1", 2, 1, [b"b", b"c"]))
    assert (await store.load("r1") or ({}, []))[1] == [b"a", b"b", b"c"]


async def test_saves_go_on_after_redis_forgets_the_script(redis: Redis, keys: RedisKeys) -> None:
    store = RedisSnapshots(redis, keys, "p1")
    await redis.set(keys.lease("r1"), "p1")
    await redis.set(keys.lease("r2"), "p1")
    await redis.script_flush()  # as after a restart of Redis
    # Two rooms in one batch, both answered NOSCRIPT: loaded, sent again, saved once.
    results = await store._flush([save("r1", 1, 0, [b"x"]), save("r2", 1, 0, [b"y"])])
    assert results == [True, True]
    assert (await store.load("r1") or ({}, []))[1] == [b"x"]
    assert (await store.load("r2") or ({}, []))[1] == [b"y"]


async def test_a_save_carries_its_messages_to_the_other_processes_only_when_it_lands(
        redis: Redis, keys: RedisKeys) -> None:
    store = RedisSnapshots(redis, keys, "p1")
    assert store.carries_messages
    channel = f"{keys.prefix}:room:r1:watch"
    pubsub = redis.pubsub()
    await pubsub.subscribe(channel)
    try:
        assert (await pubsub.get_message(timeout=5) or {})["type"] == "subscribe"
        fenced = save("r1", 1, 0, [b'{"n":0}'])
        fenced.messages = [(channel, b"never")]
        assert await store.save(fenced) is False
        await redis.set(keys.lease("r1"), "p1")
        landed = save("r1", 2, 0, [b'{"n":0}', b'{"n":1}'])
        landed.messages = [(channel, b"first"), (channel, b"second")]
        assert await store.save(landed) is True
        got: list[bytes] = []
        while len(got) < 2:
            message = await pubsub.get_message(timeout=5)
            assert message is not None, got
            if message["type"] == "message":
                got.append(message["data"])
        assert got == [b"first", b"second"]  # the fenced save published nothing
        assert await store.load("r1") == ({"version": 2, "log_length": 0},
                                          [b'{"n":0}', b'{"n":1}'])
    finally:
        await pubsub.aclose()


async def test_saves_go_on_after_their_connection_is_killed(
        redis: Redis, keys: RedisKeys) -> None:
    name = f"kartu-test-{uuid.uuid4().hex[:12]}"
    client = Redis.from_url(REDIS_URL, client_name=name)
    store = RedisSnapshots(client, keys, "p1")
    try:
        await redis.set(keys.lease("r1"), "p1")
        assert await store.save(save("r1", 1, 0, [b'{"n":0}'])) is True
        killed = 0
        for info in await redis.client_list():
            if info.get("name") == name:
                killed += await redis.client_kill_filter(_id=info["id"])
        assert killed == 1
        # The batch that finds the connection dead may fail; the next ones land.
        with contextlib.suppress(ConnectionError, RedisConnectionError):
            await store.save(save("r1", 2, 1, [b'{"n":1}']))
        assert await store.save(save("r1", 3, 1, [b'{"n":1}', b'{"n":2}'])) is True
        assert await store.load("r1") == ({"version": 3, "log_length": 1},
                                          [b'{"n":0}', b'{"n":1}', b'{"n":2}'])
    finally:
        await store.close()
        await client.aclose()
