"""Messages between server processes, by channel: room output, commands, replies.

A room's changes reach the connections of the process that runs it without
the broker (:mod:`app.feeds`); what the broker carries is what one process
sends another: the changes of a room run elsewhere (published by the save
that keeps them, :mod:`app.snapshots`), and the cluster's commands and
replies (:mod:`app.cluster`).

Terms:

- *channel*: a name for one audience of one room, e.g. ``room:<id>:seat:<n>``
  (what the player in that seat may see) or ``room:<id>:watch`` (spectators),
  or for one process's commands or replies.
- *message*: ``bytes`` published on a channel (a room change's envelope, see
  :mod:`app.frames`; a command). The broker never looks inside it.
- *handler*: a plain synchronous ``Callable[[bytes], None]`` that receives the
  messages of one channel. It must not block (typically ``queue.put_nowait``).
  A handler that raises is logged on ``kartu.broker``; the other handlers of
  the channel still get the message.
- *subscription*: one handler attached to one channel, returned by
  :meth:`Broker.subscribe` and given back to :meth:`Broker.unsubscribe`. The
  same handler may be subscribed several times; each subscription is separate.
- *hosted channel*: one that this process alone publishes on for now (the
  channels of a room it runs), declared with :meth:`Broker.host` and given up
  with :meth:`Broker.unhost`. Its messages reach this process's handlers
  directly, as the memory broker's do, and still go to the backend for the
  handlers of other processes.

Guarantees: messages on one channel reach each of its handlers in publish
order. Delivery is *at most once*: nothing is lost in normal operation, but a
message may be dropped when the backend is unreachable (the application
resyncs by version, so a gap costs a snapshot, not correctness). Nothing is
ever delivered twice.

Backends:

- :class:`MemoryBroker`, the default: in-process, ``publish`` calls the
  handlers directly. Suitable for a single server process.
- :class:`RedisBroker`: Redis pub/sub, for several server processes. Per
  process it holds one connection for publishing and one pub/sub connection
  that all its subscriptions share. ``publish`` only appends to a buffer; the
  buffer is written once per event-loop tick, in as few writes as its size
  allows. Local handlers of a channel
  share one Redis subscription (``SUBSCRIBE`` on the first, ``UNSUBSCRIBE``
  after the last), and :meth:`RedisBroker.subscribe` returns once Redis has
  confirmed it, so anything published after it returns is delivered. If the
  pub/sub connection drops, the broker logs it, reconnects with backoff and
  subscribes every channel again; messages published in the gap are lost.
  If publishing fails, the batch is logged and dropped (never retried, which
  could deliver it twice).

  A hosted channel's local handlers are called from ``publish`` itself, and
  the process does not subscribe to it in Redis: the process that runs a
  room hosts its channels, and its own connections get the room's changes
  without a round trip through Redis (its fan-out, the socket, the parse;
  the registry hands them to :mod:`app.feeds` directly). Messages
  published on it meanwhile by another process are not delivered here
  (none are while this process holds the room's lease; during a move of
  the room a connection may miss a change, and the next state, a whole
  view, makes up for it). Giving the channel up subscribes it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
from collections import defaultdict, deque
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from redis.asyncio import Redis
from redis.asyncio.client import PubSub
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

__all__ = [
    "Broker",
    "Handler",
    "MemoryBroker",
    "RedisBroker",
    "Subscription",
    "make_broker",
    "packed_command",
]

log = logging.getLogger("kartu.broker")

Handler = Callable[[bytes], None]

_ids = itertools.count(1)


@dataclass(frozen=True, eq=False)
class Subscription:
    """One handler attached to one channel; compared by identity."""

    channel: str
    handler: Handler = field(repr=False)
    id: int = field(default_factory=lambda: next(_ids))


class Broker(Protocol):
    async def start(self) -> None:
        """Connects the backend; call once before use."""

    async def close(self) -> None:
        """Flushes what was published (bounded in time), then releases everything."""

    def publish(self, channel: str, message: bytes) -> None:
        """Sends ``message`` to every handler of ``channel``. Synchronous, never blocks."""

    async def flush(self) -> None:
        """Returns once everything published so far has been handed to the backend."""

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        """Attaches ``handler`` to ``channel``; messages published after this returns reach it."""
        ...

    def host(self, channels: Iterable[str]) -> None:
        """This process alone publishes on ``channels`` from now on: their
        messages reach its own handlers directly (see *hosted channel*)."""

    async def unhost(self, channels: Iterable[str]) -> None:
        """It no longer does: once this returns, its handlers of ``channels``
        get what any process publishes on them."""

    async def unsubscribe(self, subscription: Subscription) -> None:
        """Detaches a subscription; no more calls to its handler once this returns."""


def _deliver(handlers: tuple[Subscription, ...], message: bytes) -> None:
    for subscription in handlers:
        try:
            subscription.handler(message)
        except Exception:
            log.exception("broker handler failed on channel %s", subscription.channel)


class MemoryBroker:
    """In-process broker: ``publish`` calls the channel's handlers directly.

    Each channel keeps an immutable tuple of subscriptions, replaced (never
    mutated) on subscribe and unsubscribe, so delivery iterates over a copy and
    a handler may unsubscribe, or subscribe others, while being called.
    """

    def __init__(self) -> None:
        self._channels: dict[str, tuple[Subscription, ...]] = {}

    async def start(self) -> None:
        return None

    async def close(self) -> None:
        self._channels.clear()

    def publish(self, channel: str, message: bytes) -> None:
        handlers = self._channels.get(channel)
        if handlers is None:
            return
        _deliver(handlers, message)

    async def flush(self) -> None:
        return None

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        subscription = Subscription(channel, handler)
        self._channels[channel] = (*self._channels.get(channel, ()), subscription)
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        handlers = self._channels.get(subscription.channel)
        if handlers is None or subscription not in handlers:
            return
        rest = tuple(s for s in handlers if s is not subscription)
        if rest:
            self._channels[subscription.channel] = rest
        else:
            del self._channels[subscription.channel]

    def host(self, channels: Iterable[str]) -> None:
        return None  # every channel is local here

    async def unhost(self, channels: Iterable[str]) -> None:
        return None


class _Channel:
    """Local state of one subscribed channel of a :class:`RedisBroker`."""

    __slots__ = ("confirmed", "handlers", "name")

    def __init__(self, name: str) -> None:
        self.name = name
        self.handlers: tuple[Subscription, ...] = ()
        # Set while Redis has confirmed the subscription on the live connection.
        self.confirmed = asyncio.Event()


_Reply = tuple[Literal["subscribe", "unsubscribe"], asyncio.Future[None] | None]

_SUBSCRIBE_CHUNK = 256
_PIPELINE_CHUNK = 1000


class RedisBroker:
    """Redis pub/sub broker: one publishing connection and one pub/sub connection.

    ``publish`` appends to a buffer and wakes a flusher task, which writes
    the whole buffer as ``PUBLISH`` commands (in chunks of 1,000) on its own
    connection, one chunk at a time, so per-channel order holds. That
    connection has ``CLIENT REPLY OFF``: the subscriber counts Redis would
    answer are never used, and reading and parsing one reply per message
    cost about as much as the rest of publishing it. If more than
    ``max_pending`` messages are waiting (Redis slow or down), new ones are
    dropped and logged; a batch whose write fails is dropped and logged too,
    and the next one opens a new connection.

    A reader task reads the pub/sub connection and calls the local handlers.
    Beside it, a watchdog sends a ``PING`` when the connection has been silent
    for ``ping_interval`` seconds and treats it as dropped if it stays silent
    for another interval (a dead peer need not close the socket). On a drop
    it reconnects with exponential backoff (``reconnect_min`` to
    ``reconnect_max`` seconds, with jitter) and subscribes every channel
    again. ``subscribe`` raises :class:`TimeoutError` if Redis has not
    confirmed within ``subscribe_timeout`` seconds (e.g. during an outage).

    ``start`` fails if Redis is unreachable at that moment.
    """

    def __init__(
        self,
        url: str,
        *,
        client_name: str = "kartu-broker",
        max_pending: int = 100_000,
        subscribe_timeout: float = 10.0,
        close_timeout: float = 5.0,
        ping_interval: float = 15.0,
        socket_timeout: float = 5.0,
        reconnect_min: float = 0.1,
        reconnect_max: float = 5.0,
    ) -> None:
        self.url = url
        self.client_name = client_name
        self.max_pending = max_pending
        self.subscribe_timeout = subscribe_timeout
        self.close_timeout = close_timeout
        self.ping_interval = ping_interval
        self.socket_timeout = socket_timeout
        self.reconnect_min = reconnect_min
        self.reconnect_max = reconnect_max

        self._publisher: Redis | None = None
        self._subscriber: Redis | None = None
        self._started = False
        self._closed = False

        # Publishing.
        self._buffer: list[tuple[str, bytes]] = []
        self._accepted = 0  # messages ever taken into the buffer
        self._handed = 0  # of those, sent to Redis (or dropped on error)
        self._dropping = False
        self._flush_waiters: list[tuple[int, asyncio.Future[None]]] = []
        self._wakeup = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._publishing: AbstractConnection | None = None  # replies off (see above)

        # Subscribing. Keys are channel names as bytes, as Redis sends them.
        self._channels: dict[bytes, _Channel] = {}
        # Hosted channels (see the module's doc): in Redis only when not hosted.
        self._hosted: set[str] = set()
        self._pubsub: PubSub | None = None
        self._connected = False
        self._command_lock = asyncio.Lock()
        # On the live connection: channels subscribed (or being subscribed),
        # those Redis confirmed, and the replies still expected, in order.
        self._server: set[bytes] = set()
        self._confirmed: set[bytes] = set()
        self._expected: defaultdict[bytes, deque[_Reply]] = defaultdict(deque)
        self._reader: asyncio.Task[None] | None = None
        self._received = 0  # replies read on the pub/sub connection, for the watchdog
        self._background: set[asyncio.Task[Any]] = set()

    # -- lifecycle ---------------------------------------------------------

    def _client(self, name: str, socket_timeout: float | None) -> Redis:
        # No retries inside redis-py: a failed pipeline is not sent again (it
        # could deliver twice), and the reader owns reconnecting the pub/sub
        # connection. RESP2: its pub/sub replies parse markedly faster than
        # RESP3 pushes with the pure-Python parser, and only (UN)SUBSCRIBE and
        # PING are sent on the subscribed connection.
        return Redis.from_url(
            self.url,
            client_name=name,
            socket_timeout=socket_timeout,
            socket_connect_timeout=self.socket_timeout,
            retry=Retry(NoBackoff(), 0, supported_errors=()),
            health_check_interval=0,
            protocol=2,
        )

    async def start(self) -> None:
        if self._started:
            raise RuntimeError("broker already started")
        self._started = True
        # The publisher's pipelines get one deadline each (see _send_batch)
        # rather than one per reply read.
        self._publisher = self._client(f"{self.client_name}:pub", None)
        self._subscriber = self._client(f"{self.client_name}:sub", self.socket_timeout)
        try:
            await self._publisher.ping()
            await self._connect()
        except BaseException:
            await self._publisher.aclose()
            await self._subscriber.aclose()
            self._publisher = self._subscriber = None
            self._closed = True
            raise
        self._flusher = asyncio.create_task(self._flush_loop(), name="kartu-broker-flusher")
        self._reader = asyncio.create_task(self._read_loop(), name="kartu-broker-reader")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._flusher is not None:
            try:
                await asyncio.wait_for(self._flush_until(self._accepted), self.close_timeout)
            except TimeoutError:
                log.warning("broker closed with %d messages not sent", len(self._buffer))
        tasks = [t for t in (self._flusher, self._reader, *self._background) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._flusher = self._reader = None
        self._background.clear()
        self._buffer.clear()
        self._resolve_flush_waiters(all_of_them=True)
        await self._disconnect()
        for state in self._channels.values():
            state.confirmed.set()  # wakes pending subscribe() calls, which then fail
        self._channels.clear()
        for client in (self._publisher, self._subscriber):
            if client is not None:
                with contextlib.suppress(Exception):
                    await client.aclose()
        self._publisher = self._subscriber = None

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- publishing --------------------------------------------------------

    def publish(self, channel: str, message: bytes) -> None:
        if self._closed:
            return
        if channel in self._hosted:
            state = self._channels.get(channel.encode())
            if state is not None:
                _deliver(state.handlers, message)
        if len(self._buffer) >= self.max_pending:
            if not self._dropping:
                self._dropping = True
                log.warning("broker buffer full (%d messages): dropping", self.max_pending)
            return
        self._dropping = False
        self._buffer.append((channel, message))
        self._accepted += 1
        self._wakeup.set()

    async def flush(self) -> None:
        if not self._started:
            raise RuntimeError("broker not started")
        if self._closed:
            return
        await self._flush_until(self._accepted)

    async def _flush_until(self, target: int) -> None:
        if self._handed >= target:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._flush_waiters.append((target, waiter))
        self._wakeup.set()
        await waiter

    def _resolve_flush_waiters(self, *, all_of_them: bool = False) -> None:
        waiting = []
        for target, waiter in self._flush_waiters:
            if all_of_them or self._handed >= target:
                if not waiter.done():
                    waiter.set_result(None)
            else:
                waiting.append((target, waiter))
        self._flush_waiters = waiting

    async def _flush_loop(self) -> None:
        while True:
            await self._wakeup.wait()
            self._wakeup.clear()
            while self._buffer:
                batch, self._buffer = self._buffer, []
                await self._send_batch(batch)
                self._handed += len(batch)
                self._resolve_flush_waiters()
            self._resolve_flush_waiters()

    async def _send_batch(self, batch: list[tuple[str, bytes]]) -> None:
        for start in range(0, len(batch), _PIPELINE_CHUNK):
            chunk = b"".join([_publish_command(channel, message)
                              for channel, message in batch[start:start + _PIPELINE_CHUNK]])
            try:
                async with asyncio.timeout(self.socket_timeout):
                    connection = await self._publishing_connection()
                    await connection.send_packed_command(chunk, check_health=False)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("broker publish failed, %d messages dropped: %s",
                            len(batch) - start, _describe(error))
                if self._publishing is not None:
                    await self._publishing.disconnect(nowait=True)
                    self._publishing = None
                return

    async def _publishing_connection(self) -> AbstractConnection:
        """The publishing connection, connected, with replies off."""
        connection = self._publishing
        if connection is None or not connection.is_connected:
            assert self._publisher is not None
            # Taken from the publisher's pool and never given back: nothing
            # else may send on a connection that Redis does not answer.
            connection = await self._publisher.connection_pool.get_connection()
            await connection.send_packed_command(_CLIENT_REPLY_OFF, check_health=False)
            self._publishing = connection
        return connection

    # -- subscribing -------------------------------------------------------

    async def subscribe(self, channel: str, handler: Handler) -> Subscription:
        if not self._started or self._closed:
            raise RuntimeError("broker not running")
        subscription = Subscription(channel, handler)
        key = channel.encode()
        state = self._channels.get(key)
        if state is None:
            state = self._channels[key] = _Channel(channel)
        state.handlers = (*state.handlers, subscription)
        if channel in self._hosted:
            state.confirmed.set()  # delivered here, not through Redis
        try:
            if not state.confirmed.is_set():
                await self._reconcile(key)
                await asyncio.wait_for(state.confirmed.wait(), self.subscribe_timeout)
        except BaseException as error:
            if self._remove(subscription):
                self._spawn(self._reconcile(key))
            if isinstance(error, TimeoutError):
                raise TimeoutError(f"Redis did not confirm SUBSCRIBE {channel}") from None
            raise
        if self._closed:
            raise RuntimeError("broker closed")
        return subscription

    async def unsubscribe(self, subscription: Subscription) -> None:
        if not self._remove(subscription):
            return
        key = subscription.channel.encode()
        done = await self._reconcile(key)
        if done is not None:
            # Only so that Redis reflects it when this returns; locally the
            # handler is already detached.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(done), self.subscribe_timeout)

    def host(self, channels: Iterable[str]) -> None:
        for channel in channels:
            self._hosted.add(channel)
            key = channel.encode()
            state = self._channels.get(key)
            if state is not None:
                state.confirmed.set()
            if key in self._server:
                self._spawn(self._reconcile(key))  # UNSUBSCRIBE: no longer wanted from Redis

    async def unhost(self, channels: Iterable[str]) -> None:
        waiting = []
        for channel in channels:
            if channel not in self._hosted:
                continue
            self._hosted.discard(channel)
            key = channel.encode()
            state = self._channels.get(key)
            if state is None:
                continue
            if key not in self._confirmed:
                state.confirmed.clear()
            await self._reconcile(key)
            waiting.append(state.confirmed.wait())
        if waiting:
            try:
                await asyncio.wait_for(asyncio.gather(*waiting), self.subscribe_timeout)
            except TimeoutError:
                # Redis is away: the reader subscribes them when it is back.
                log.warning("broker: Redis did not confirm %d channels given up here",
                            len(waiting))

    def _wanted(self, key: bytes) -> bool:
        """Whether this process should be subscribed to ``key`` in Redis."""
        return key in self._channels and key.decode() not in self._hosted

    def _remove(self, subscription: Subscription) -> bool:
        """Detaches ``subscription`` locally; True if it was the channel's last one."""
        key = subscription.channel.encode()
        state = self._channels.get(key)
        if state is None or subscription not in state.handlers:
            return False
        state.handlers = tuple(s for s in state.handlers if s is not subscription)
        if state.handlers:
            return False
        del self._channels[key]
        return True

    async def _reconcile(self, key: bytes) -> asyncio.Future[None] | None:
        """Brings Redis in line with whether ``key`` has local handlers.

        Returns a future resolved when Redis confirms an ``UNSUBSCRIBE`` sent
        here. Commands are sent under a lock, in the order their replies are
        expected in.
        """
        async with self._command_lock:
            pubsub = self._pubsub
            if not self._connected or pubsub is None or not _is_connected(pubsub):
                return None  # the reader subscribes everything on reconnect
            state = self._channels.get(key)
            wanted = self._wanted(key)
            active = key in self._server
            try:
                if wanted and not active:
                    self._server.add(key)
                    self._expected[key].append(("subscribe", None))
                    await pubsub.subscribe(key)
                elif not wanted and active:
                    self._server.discard(key)
                    self._confirmed.discard(key)
                    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
                    self._expected[key].append(("unsubscribe", done))
                    await pubsub.unsubscribe(key)
                    return done
                elif wanted and state is not None and key in self._confirmed:
                    state.confirmed.set()
            except Exception as error:
                # redis-py has closed the connection: the reader sees that and
                # reconnects, subscribing every channel again.
                log.debug("broker pub/sub command failed: %s", _describe(error))
        return None

    # -- the pub/sub connection ----------------------------------------------

    async def _connect(self) -> None:
        """Opens a pub/sub connection and subscribes every local channel on it."""
        assert self._subscriber is not None
        pubsub = self._subscriber.pubsub()
        try:
            await pubsub.connect()
            async with self._command_lock:
                self._pubsub = pubsub
                self._server.clear()
                self._confirmed.clear()
                self._expected.clear()
                keys = [key for key in self._channels if self._wanted(key)]
                for start in range(0, len(keys), _SUBSCRIBE_CHUNK):
                    chunk = keys[start:start + _SUBSCRIBE_CHUNK]
                    for key in chunk:
                        self._server.add(key)
                        self._expected[key].append(("subscribe", None))
                    await pubsub.subscribe(*chunk)
                self._connected = True
        except BaseException:
            self._pubsub = None
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise

    async def _disconnect(self) -> None:
        """Forgets the pub/sub connection; local channels wait for the next one."""
        self._connected = False
        for state in self._channels.values():
            if state.name not in self._hosted:
                state.confirmed.clear()
        for replies in self._expected.values():
            for _kind, done in replies:
                if done is not None and not done.done():
                    done.set_result(None)  # a closed connection has no subscriptions
        self._expected.clear()
        self._server.clear()
        self._confirmed.clear()
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            async with self._command_lock:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _read_loop(self) -> None:
        delay = self.reconnect_min
        while True:
            try:
                await self._read()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("broker lost its Redis pub/sub connection (%s); reconnecting, "
                            "messages published until it is back are lost", _describe(error))
            await self._disconnect()
            while True:
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, self.reconnect_max)
                try:
                    await self._connect()
                except asyncio.CancelledError:
                    raise
                except Exception as error:
                    log.warning("broker could not reconnect to Redis: %s", _describe(error))
                    continue
                log.info("broker reconnected to Redis, %d channels subscribed again",
                         len(self._channels))
                delay = self.reconnect_min
                break

    async def _read(self) -> None:
        pubsub = self._pubsub
        assert pubsub is not None
        watchdog = asyncio.create_task(self._watch(pubsub), name="kartu-broker-watchdog")
        try:
            while True:
                if not _is_connected(pubsub):
                    # Closed after a failed command, or by the watchdog. Checked
                    # here because redis-py would silently reconnect it,
                    # bypassing the bookkeeping of subscriptions above.
                    raise ConnectionError("pub/sub connection closed")
                # The raw reply (redis-py parses with hiredis when installed).
                # A message goes to its handlers straight from it: turning
                # each into PubSub's dict first (get_message) halves a burst's
                # throughput. Anything else is PubSub's to handle, for its
                # bookkeeping of (un)subscriptions.
                reply = await pubsub.parse_response(block=True)
                self._received += 1
                if type(reply) is list and len(reply) == 3 and reply[0] == b"message":
                    state = self._channels.get(reply[1])
                    # A hosted channel's messages were delivered when published.
                    if state is not None and state.name not in self._hosted:
                        _deliver(state.handlers, reply[2])
                    continue
                message = await pubsub.handle_message(reply)
                if message is not None:
                    self._on_message(message)
        finally:
            watchdog.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watchdog

    async def _watch(self, pubsub: PubSub) -> None:
        """Pings an idle connection; closes it if it stays silent another interval.

        Kept off the reader's path so that reading a message costs no timer.
        """
        seen = self._received
        pinged = False
        while True:
            await asyncio.sleep(self.ping_interval)
            if self._received != seen:
                seen, pinged = self._received, False
                continue
            if pinged:
                log.warning("broker got no reply to PING in %gs", self.ping_interval)
                if pubsub.connection is not None:
                    await pubsub.connection.disconnect(nowait=True)
                return
            pinged = True
            async with self._command_lock:
                if not _is_connected(pubsub):
                    return
                try:
                    await pubsub.ping()
                except Exception as error:
                    log.debug("broker PING failed: %s", _describe(error))
                    return  # redis-py closed the connection; the reader sees it

    def _on_message(self, message: dict[str, Any]) -> None:
        """One pub/sub reply as redis-py's PubSub gives it."""
        kind = message["type"]
        if kind == "message":
            state = self._channels.get(message["channel"])
            if state is not None and state.name not in self._hosted:
                _deliver(state.handlers, message["data"])
        elif kind == "subscribe" or kind == "unsubscribe":
            self._on_reply(kind, message["channel"])

    def _on_reply(self, kind: str, key: bytes) -> None:
        expected = self._expected.get(key)
        if not expected:
            log.debug("broker got an unexpected %s reply for %r", kind, key)
            return
        expected_kind, done = expected.popleft()
        if expected_kind != kind:
            log.warning("broker expected a %s reply for %r, got %s", expected_kind, key, kind)
        if done is not None and not done.done():
            done.set_result(None)
        if expected:
            return  # later commands on this channel are still in flight
        del self._expected[key]
        if kind == "subscribe" and key in self._server:
            self._confirmed.add(key)
            state = self._channels.get(key)
            if state is not None:
                state.confirmed.set()


_CLIENT_REPLY_OFF = b"*3\r\n$6\r\nCLIENT\r\n$5\r\nREPLY\r\n$3\r\nOFF\r\n"


def packed_command(*parts: bytes) -> bytes:
    """One Redis command in the Redis protocol (RESP), its parts as they are."""
    return b"".join([b"*%d\r\n" % len(parts),
                     *[b"$%d\r\n%s\r\n" % (len(part), part) for part in parts]])


def _publish_command(channel: str, message: bytes) -> bytes:
    """``PUBLISH channel message`` in the Redis protocol (RESP)."""
    return packed_command(b"PUBLISH", channel.encode(), message)


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _is_connected(pubsub: PubSub) -> bool:
    connection = pubsub.connection
    return connection is not None and bool(connection.is_connected)


def make_broker(redis_url: str | None) -> Broker:
    """A :class:`RedisBroker` when ``redis_url`` is given, else a :class:`MemoryBroker`."""
    if redis_url:
        return RedisBroker(redis_url)
    return MemoryBroker()
