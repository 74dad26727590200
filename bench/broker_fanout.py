"""Broker fan-out: throughput and publish-to-deliver latency, memory vs Redis.

    python -m bench.broker_fanout [--messages N] [--subscribers K] [--size BYTES]
                                  [--rate PER_S] [--seconds S] [--redis-url URL]

Publishes N frames of about ``--size`` bytes on one channel that K handlers
subscribe to, through each backend:

- ``memory``: :class:`app.broker.MemoryBroker`;
- ``redis``: one :class:`app.broker.RedisBroker` publishing, another (as a
  second server process would have) subscribing;
- ``redis naive``: the same subscribing broker, but published with one
  awaited ``PUBLISH`` per message, for comparison.

Two runs per backend: *burst* publishes as fast as it can (100 messages per
event-loop tick), so its latency includes queueing; *paced* publishes at
``--rate`` messages a second for ``--seconds``. msgs/s counts messages
delivered to all K handlers, from the first publish to the last delivery.
Publisher and subscribers share one process and event loop here, so Redis
figures are lower than across processes. Each run is bounded in time; an
incomplete run reports how many deliveries it got. Redis runs are left out
when Redis (``--redis-url``, default ``REDIS_URL`` or
``redis://127.0.0.1:6379/0``) is unreachable.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from redis.asyncio import Redis

from app.broker import Broker, MemoryBroker, RedisBroker

RUN_TIMEOUT_S = 30.0
BURST_CHUNK = 100

Publish = Callable[[str, bytes], Awaitable[None] | None]


@dataclass
class Result:
    name: str
    expected: int
    delivered: int
    rate: float
    p50_ms: float
    p99_ms: float


class Recorder:
    """K handlers that timestamp each delivery against its publish time."""

    def __init__(self, count: int, subscribers: int) -> None:
        self.sent = [0.0] * count
        self.latencies: list[float] = []
        self.expected = count * subscribers
        self.last = 0.0
        self.done = asyncio.Event()

    def handler(self, message: bytes) -> None:
        now = time.perf_counter()
        self.latencies.append(now - self.sent[int.from_bytes(message[:8], "big")])
        if len(self.latencies) >= self.expected:
            self.last = now
            self.done.set()


def frame(index: int, size: int) -> bytes:
    return index.to_bytes(8, "big") + b"x" * max(0, size - 8)


async def run(name: str, subscriber: Broker, publish: Publish, *, count: int,
              subscribers: int, size: int, rate: float | None) -> Result:
    channel = f"bench:fanout:{uuid.uuid4().hex}"
    recorder = Recorder(count, subscribers)
    subscriptions = [await subscriber.subscribe(channel, recorder.handler)
                     for _ in range(subscribers)]
    frames = [frame(i, size) for i in range(count)]
    start = time.perf_counter()
    try:
        async with asyncio.timeout(RUN_TIMEOUT_S):
            if rate is None:
                for i, data in enumerate(frames):
                    recorder.sent[i] = time.perf_counter()
                    pending = publish(channel, data)
                    if pending is not None:
                        await pending
                    elif i % BURST_CHUNK == BURST_CHUNK - 1:
                        await asyncio.sleep(0)
            else:
                i = 0
                while i < count:
                    due = min(count, int((time.perf_counter() - start) * rate) + 1)
                    while i < due:
                        recorder.sent[i] = time.perf_counter()
                        pending = publish(channel, frames[i])
                        if pending is not None:
                            await pending
                        i += 1
                    await asyncio.sleep(0.0005)
            await recorder.done.wait()
    except TimeoutError:
        recorder.last = time.perf_counter()
    finally:
        for subscription in subscriptions:
            await subscriber.unsubscribe(subscription)
    delivered = len(recorder.latencies)
    elapsed = max(recorder.last - start, 1e-9)
    latencies = sorted(recorder.latencies) or [float("nan")]
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return Result(name, recorder.expected, delivered, delivered / subscribers / elapsed,
                  statistics.median(latencies) * 1000, p99 * 1000)


def sync_publish(broker: Broker) -> Publish:
    def publish(channel: str, message: bytes) -> None:
        broker.publish(channel, message)
    return publish


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.broker_fanout")
    parser.add_argument("--messages", type=int, default=20_000, help="frames per burst run")
    parser.add_argument("--subscribers", type=int, default=8, help="handlers on the channel")
    parser.add_argument("--size", type=int, default=1024, help="frame size in bytes")
    parser.add_argument("--rate", type=float, default=2000.0, help="paced runs: msgs/s")
    parser.add_argument("--seconds", type=float, default=1.0, help="paced runs: duration")
    parser.add_argument("--redis-url", default=os.environ.get("REDIS_URL")
                        or "redis://127.0.0.1:6379/0")
    args = parser.parse_args(argv)
    paced_count = max(1, int(args.rate * args.seconds))
    shape = {"subscribers": args.subscribers, "size": args.size}
    results: list[Result] = []

    memory = MemoryBroker()
    await memory.start()
    results.append(await run("memory burst", memory, sync_publish(memory),
                             count=args.messages, rate=None, **shape))
    results.append(await run(f"memory paced {args.rate:g}/s", memory, sync_publish(memory),
                             count=paced_count, rate=args.rate, **shape))
    await memory.close()

    publisher = RedisBroker(args.redis_url)
    subscriber = RedisBroker(args.redis_url)
    naive = Redis.from_url(args.redis_url)
    redis_error: Exception | None = None
    try:
        await publisher.start()
        await subscriber.start()
    except Exception as error:
        redis_error = error
    if redis_error is None:

        async def naive_publish(channel: str, message: bytes) -> None:
            await naive.publish(channel, message)

        for label, publish in (("redis", sync_publish(publisher)),
                               ("redis naive", naive_publish)):
            results.append(await run(f"{label} burst", subscriber, publish,
                                     count=args.messages, rate=None, **shape))
            results.append(await run(f"{label} paced {args.rate:g}/s", subscriber, publish,
                                     count=paced_count, rate=args.rate, **shape))
    await publisher.close()
    await subscriber.close()
    await naive.aclose()

    print(f"{args.messages} frames (paced: {paced_count}) of {args.size} B, "
          f"{args.subscribers} subscribers")
    print(f"{'run':<26}{'msgs/s':>10}{'p50 ms':>10}{'p99 ms':>10}  delivered")
    for r in results:
        share = "all" if r.delivered == r.expected else f"{r.delivered}/{r.expected}"
        print(f"{r.name:<26}{r.rate:>10.0f}{r.p50_ms:>10.3f}{r.p99_ms:>10.3f}  {share}")
    if redis_error is not None:
        print(f"redis: unreachable at {args.redis_url} ({type(redis_error).__name__})",
              file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
