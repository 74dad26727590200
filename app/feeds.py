"""Feeds: this process's fan-out of room changes to its connections, one per channel.

Every connection watching a room in this process listens to its audience's
channel. Rather than each connection listening on its own, a :class:`Feed`
holds every attachment of one channel and hands the same wire bytes,
already framed, to all of them. A change reaches a feed one of two ways:

- from this process's own rooms, straight from the registry's commit
  (:meth:`Feeds.send`): the frames as they were made, no envelope;
- from rooms run by another process (with Redis), through the broker: a
  feed subscribes once per channel and opens each envelope
  (:mod:`app.frames`) once.

A room with many spectators costs one subscription, not one per spectator.
A connection attaches as a *sink* (a function called with each change) or,
on the direct frame path, as a :class:`app.wsprotocol.Receiver`, whose
socket the feed corks the frames on itself, all receivers in one loop.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable

from app.broker import Broker, Subscription
from app.frames import open_envelope
from app.wsprotocol import Receiver, cork_all

log = logging.getLogger("kartu.feeds")

# (version, wire bytes of the frames); must not block. The same buffer goes to
# every connection attached: read it, keep it, never change it.
Sink = Callable[[int, bytes | memoryview], None]


class Feed:
    __slots__ = ("fan_out", "receivers", "sinks", "subscribing", "subscription")

    def __init__(self) -> None:
        self.sinks: dict[int, Sink | Receiver] = {}
        # The sinks and receivers as delivery goes over them: tuples made when
        # they change, not for every message (and one may detach meanwhile).
        self.fan_out: tuple[Sink, ...] = ()
        self.receivers: tuple[Receiver, ...] = ()
        self.subscription: Subscription | None = None
        # While the first attachment subscribes: set when it is done. Only then
        # (an Event and its waiters' deque cost memory, and a room has a feed
        # per seat and one for its spectators).
        self.subscribing: asyncio.Event | None = None

    def add(self, handle: int, sink: Sink | Receiver) -> None:
        self.sinks[handle] = sink
        self._arrange()

    def remove(self, handle: int) -> Sink | Receiver | None:
        sink = self.sinks.pop(handle, None)
        self._arrange()
        return sink

    def _arrange(self) -> None:
        attached = self.sinks.values()
        self.receivers = tuple(s for s in attached if isinstance(s, Receiver))
        self.fan_out = tuple(s for s in attached if not isinstance(s, Receiver))

    def deliver(self, message: bytes) -> None:
        """The broker's handler: an envelope from another process's room."""
        version, data = open_envelope(message)
        self.send(version, data)

    def send(self, version: int, data: bytes | memoryview) -> None:
        """Hands one change's frames (wire bytes) to every attachment."""
        if self.receivers:
            try:
                cork_all(self.receivers, version, data)
            except Exception:
                log.exception("a feed's receivers failed")
        for sink in self.fan_out:
            try:
                sink(version, data)
            except Exception:
                log.exception("a feed sink failed")


class Feeds:
    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self._feeds: dict[str, Feed] = {}
        self._ids = itertools.count(1)

    def send(self, version: int, frames: list[tuple[str, bytes]]) -> None:
        """Hands a change of a room run here (:meth:`app.frames.RoomFrames.frames`:
        each audience's channel and frames) to this process's connections.

        Not through the broker: these connections are this process's own,
        and the envelope, its opening and a publish per audience cost more
        than the rest of the fan-out (the other processes get the change
        from the room's save, :mod:`app.snapshots`).
        """
        feeds = self._feeds
        for channel, data in frames:
            feed = feeds.get(channel)
            if feed is not None:
                feed.send(version, data)

    def channel_names(self) -> list[str]:
        """The channels this process's connections listen on now."""
        return list(self._feeds)

    async def attach(self, channel: str, sink: Sink | Receiver) -> int:
        """Starts sending the channel's frames to ``sink``; returns a handle for detach."""
        handle = next(self._ids)
        feed = self._feeds.get(channel)
        if feed is None:
            feed = self._feeds[channel] = Feed()
            subscribing = feed.subscribing = asyncio.Event()
            feed.add(handle, sink)
            try:
                feed.subscription = await self.broker.subscribe(channel, feed.deliver)
            except BaseException:
                del self._feeds[channel]
                raise
            finally:
                feed.subscribing = None
                subscribing.set()
            return handle
        feed.add(handle, sink)
        if feed.subscribing is not None:  # someone else is subscribing it right now
            await feed.subscribing.wait()
        if feed.subscription is None:  # ... and failed: try on our own
            feed.remove(handle)
            return await self.attach(channel, sink)
        return handle

    async def detach(self, channel: str, handle: int) -> None:
        feed = self._feeds.get(channel)
        if feed is None or feed.remove(handle) is None:
            return
        if not feed.sinks and feed.subscription is not None:
            del self._feeds[channel]
            await self.broker.unsubscribe(feed.subscription)
