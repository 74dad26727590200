"""Several server processes on one Redis: leases, takeover and command routing.

Terms:

- *process*: one running server, named by a random ``process_id``. It
  announces itself with a heartbeat (a score in the ``processes`` sorted
  set: the time until which it counts as alive).
- *lease*: the Redis key that says which process owns a room. Only the
  owner runs the room's actor; it renews the lease while it lives, and every
  save of the room is fenced by it (:mod:`app.snapshots`).
- *takeover*: when a lease runs out (its owner died), any process may claim
  it (``SET NX``); the winner loads the room's snapshot and runs it on.
  Deadlines are absolute times, so timers carry on where they were.
- *routing*: a command for a room owned elsewhere is published on the
  owner's command channel and answered on the sender's reply channel. A
  command that gets no answer is retried (with the same command id, so it is
  never applied twice) wherever the room lives by then.

Room output does not pass through here: an owner's save of a room carries
its changes to the broker's room channels (:mod:`app.snapshots`), which
every process with watchers subscribes to (:mod:`app.feeds`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
import time
from collections.abc import Mapping
from typing import Any, Protocol

import orjson
from redis.asyncio import Redis

from app.broker import Broker, Subscription
from app.health import StoreHealth, is_outage
from app.snapshots import RedisKeys, RedisSnapshots, text_of
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
    RoomActor,
    RoomError,
    Snapshot,
    Start,
)

log = logging.getLogger("kartu.cluster")


class LocalRooms(Protocol):
    """What the cluster asks of this process's rooms (:class:`app.rooms.RoomRegistry`,
    which builds on the cluster and so is not imported here)."""

    @property
    def rooms(self) -> Mapping[str, RoomActor]:
        """The rooms this process runs, by id."""
        ...

    @property
    def health(self) -> StoreHealth:
        """Which stores answer (an outage is said once, not per failure)."""
        ...

    async def take_over(self, room_id: str) -> bool:
        """Claims a room whose owner is gone and runs it here; False if not."""
        ...

    async def drop_local(self, room_id: str) -> None:
        """Stops running a room here: its lease was lost."""
        ...

    async def answer(self, room_id: str, command: Command, command_id: str | None,
                     conn: str | None = None) -> Any:
        """Runs a command routed here from another process (RoomError ``moved``
        if the room is not here); once per ``command_id``. ``conn``: the
        connection that sent a join or leave."""
        ...


COMMANDS: dict[str, type[Any]] = {
    cls.__name__: cls for cls in (Join, Leave, AddBot, Start, Act, Snapshot, RemoveBot, Rematch,
                                  Chat, History)
}

# KEYS: lease keys; ARGV[1]: process, ARGV[2]: lease ms. Returns the rooms lost.
# A lease that ran out while Redis could not be reached (or this process
# stalled) and that nobody claimed since is still this process's: it is set
# again (processes wait before adopting orphans after an outage, so that
# owners can do this first; see Cluster._scan_forever).
_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  local owner = redis.call('GET', key)
  if owner == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  elseif owner == false then
    redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def encode_command(command: Command) -> dict[str, Any]:
    return {"kind": type(command).__name__, **dataclasses.asdict(command)}


def decode_command(data: dict[str, Any]) -> Command:
    fields = dict(data)
    cls = COMMANDS[fields.pop("kind")]
    # Fields a command no longer has (from a process of an older release) are dropped.
    known = {field.name for field in dataclasses.fields(cls)}
    command: Command = cls(**{k: v for k, v in fields.items() if k in known})
    return command


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Cluster:
    LEASE_MS = 4000
    RENEW_EVERY_S = 1.0
    SCAN_EVERY_S = 1.0
    CALL_TIMEOUT_S = 2.5

    def __init__(self, redis_url: str, prefix: str, broker: Broker) -> None:
        self.process_id = secrets.token_hex(6)
        self.redis = Redis.from_url(redis_url)
        self.keys = RedisKeys(prefix)
        self.broker = broker
        self.snapshots = RedisSnapshots(self.redis, self.keys, self.process_id)
        self.registry: LocalRooms | None = None
        self._renew = self.redis.register_script(_RENEW)
        self._release = self.redis.register_script(_RELEASE)
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._subscriptions: list[Subscription] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._handlers: set[asyncio.Task[None]] = set()
        # No orphans are adopted before this (monotonic time): after Redis
        # was out of reach, every lease may have run out, and the live owners
        # must get to renew theirs (and their heartbeats) first.
        self._adopt_after = 0.0

    # --- life ----------------------------------------------------------------

    async def start(self, registry: LocalRooms) -> None:
        self.registry = registry
        await self.heartbeat()
        self._subscriptions = [
            await self.broker.subscribe(self.keys.commands(self.process_id), self._on_command),
            await self.broker.subscribe(self.keys.replies(self.process_id), self._on_reply),
        ]
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._renew_forever()),
                       loop.create_task(self._scan_forever())]
        log.info("process_started", extra={"fields": {"process": self.process_id}})

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for subscription in self._subscriptions:
            with contextlib.suppress(Exception):
                await self.broker.unsubscribe(subscription)
        with contextlib.suppress(Exception):
            await self.redis.zrem(self.keys.processes, self.process_id)
        await self.redis.aclose()

    async def heartbeat(self) -> None:
        now = now_ms()
        pipe = self.redis.pipeline(transaction=False)
        pipe.zadd(self.keys.processes, {self.process_id: now + self.LEASE_MS})
        pipe.zremrangebyscore(self.keys.processes, 0, now - 60_000)
        await pipe.execute()

    async def alive_processes(self) -> set[str]:
        members: list[Any] = await self.redis.zrangebyscore(
            self.keys.processes, now_ms(), "+inf")
        return {text_of(m) for m in members}

    # --- leases ----------------------------------------------------------------

    async def acquire(self, room_id: str) -> bool:
        return bool(await self.redis.set(self.keys.lease(room_id), self.process_id, nx=True,
                                         px=self.LEASE_MS))

    async def release(self, room_id: str) -> None:
        await self._release(keys=[self.keys.lease(room_id)], args=[self.process_id])

    async def owner(self, room_id: str) -> str | None:
        raw = await self.redis.get(self.keys.lease(room_id))
        return None if raw is None else text_of(raw)

    async def is_active(self, room_id: str) -> bool:
        return bool(await self.redis.sismember(self.keys.active, room_id))

    async def exists(self, room_id: str) -> bool:
        return bool(await self.redis.exists(self.keys.snapshot(room_id)))

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.RENEW_EVERY_S)
            try:
                await self.heartbeat()
                await self._renew_leases()
            except Exception as err:
                self._failed("lease renewal failed", err)
            else:
                if self.registry is not None:
                    self.registry.health.ok("redis")

    def _failed(self, what: str, error: Exception) -> None:
        """Redis out of reach is said once per outage (the registry's health);
        anything else with its traceback."""
        if is_outage(error):
            self.hold_adoptions()
        if is_outage(error) and self.registry is not None:
            self.registry.health.failed("redis", error)
        else:
            log.exception(what, exc_info=error)

    async def _renew_leases(self) -> None:
        assert self.registry is not None
        room_ids = list(self.registry.rooms)
        if not room_ids:
            return
        lost = await self._renew(keys=[self.keys.lease(r) for r in room_ids],
                                 args=[self.process_id, self.LEASE_MS])
        for index in lost:
            room_id = room_ids[int(index) - 1]
            log.warning("lease_lost", extra={"fields": {"room": room_id}})
            await self.registry.drop_local(room_id)

    def hold_adoptions(self) -> None:
        """No orphan is adopted for a lease's time and two renewals from now:
        Redis was out of reach, so leases may have run out under live owners."""
        self._adopt_after = max(self._adopt_after, time.monotonic() + self.LEASE_MS / 1000
                                + 2 * self.RENEW_EVERY_S)

    @property
    def may_adopt(self) -> bool:
        return time.monotonic() >= self._adopt_after

    async def _scan_forever(self) -> None:
        while True:
            await asyncio.sleep(self.SCAN_EVERY_S)
            if not self.may_adopt:
                continue
            try:
                await self.adopt_orphans()
            except Exception as err:
                self._failed("takeover scan failed", err)

    async def adopt_orphans(self) -> None:
        """Takes over every active room whose lease has run out."""
        assert self.registry is not None
        for room_id in await self.snapshots.active_rooms():
            if room_id not in self.registry.rooms and await self.owner(room_id) is None:
                await self.registry.take_over(room_id)

    # --- routing ---------------------------------------------------------------

    async def call(self, owner: str, room_id: str, command: Command,
                   command_id: str | None, conn: str | None = None) -> Any:
        """Sends ``command`` to the process that owns the room and waits for its
        answer; ``command_id`` lets the owner tell a retry (:mod:`app.retries`),
        ``conn`` names the connection that sent a join or leave."""
        request = secrets.token_hex(8)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[request] = future
        message = orjson.dumps({"id": request, "from": self.process_id, "room": room_id,
                                "command": encode_command(command), "cid": command_id,
                                "conn": conn})
        try:
            self.broker.publish(self.keys.commands(owner), message)
            async with asyncio.timeout(self.CALL_TIMEOUT_S):
                reply = await future
        finally:
            self._waiting.pop(request, None)
        if "error" in reply:
            code, text, *more = reply["error"]
            # The refusal's reason, rule and params (absent from older processes).
            refusal = more[0] if more else {}
            raise RoomError(code, text, reason=refusal.get("reason"), rule=refusal.get("rule"),
                            params=refusal.get("params"))
        result = reply["result"]
        return tuple(result) if isinstance(command, Snapshot) else result

    def _on_command(self, message: bytes) -> None:
        task = asyncio.get_running_loop().create_task(self._answer(orjson.loads(message)))
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    async def _answer(self, request: dict[str, Any]) -> None:
        assert self.registry is not None
        reply: dict[str, Any] = {"id": request["id"]}
        try:
            reply["result"] = await self.registry.answer(
                request["room"], decode_command(request["command"]), request.get("cid"),
                request.get("conn"))
        except RoomError as err:
            reply["error"] = [err.code, err.message, err.wire()]
        except Exception as err:
            log.exception("remote command failed")
            reply["error"] = ["bad_message", f"could not run the command: {err}",
                              {"reason": "server_error"}]
        self.broker.publish(self.keys.replies(request["from"]), orjson.dumps(reply))

    def _on_reply(self, message: bytes) -> None:
        reply = orjson.loads(message)
        future = self._waiting.get(reply["id"])
        if future is not None and not future.done():
            future.set_result(reply)
