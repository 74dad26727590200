"""How late the event loop runs: the wait that every room of a process shares.

Terms:

- a *probe* is a timer the watch sets for every ``PERIOD_S``; its
  *lateness* is how long after its time it ran. Whatever the loop had to
  do first (a turn that read hundreds of messages, a collector pass, the
  machine giving the core to another process) kept every room of the
  process waiting as long: one late probe is latency for all of them.
- a probe is *late* past ``LATE_MS[0]`` (10 ms: what a loaded server's p99
  is held to); the watch counts the late ones by how late
  (``LATE_MS``), so that two readings of ``GET /healthz`` tell what
  happened between them.

A loop that falls behind catches up over several turns, not at once: each
turn handles what came in during the one before, so a busy process's
lateness shrinks by about its load (the share of the core it needs) a
turn. At 85 % busy a 100 ms stall is followed by some fifteen late turns;
at 60 %, by four. Late probes in a row, rising and falling, are such a
queue; a single one is a pause (the collector: see :mod:`app.collector`).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

PERIOD_S = 0.01  # a probe every 10 ms: about 100 timer callbacks a second, next to nothing
LATE_MS = (10, 25, 50, 100, 250)  # a late probe is counted under every one of these it is past


class LoopWatch:
    """Probes the running loop and counts the late probes, from :meth:`start` on."""

    def __init__(self) -> None:
        self.probes = 0
        self.late = [0] * len(LATE_MS)  # late[i]: probes later than LATE_MS[i]
        self.late_s = 0.0  # how late the late probes were, added up
        self.longest_s = 0.0
        self._due = 0.0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._arm(time.perf_counter())

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop = None

    def _arm(self, now: float) -> None:
        assert self._loop is not None
        self._due = now + PERIOD_S
        self._timer = self._loop.call_later(PERIOD_S, self._probe)

    def _probe(self) -> None:
        now = time.perf_counter()
        lateness = now - self._due
        self.probes += 1
        late_ms = lateness * 1000
        if late_ms > LATE_MS[0]:
            self.late_s += lateness
            self.longest_s = max(self.longest_s, lateness)
            for at, limit in enumerate(LATE_MS):
                if late_ms > limit:
                    self.late[at] += 1
        self._arm(now)

    def summary(self) -> dict[str, Any]:
        """For ``GET /healthz``: the probes, the late ones by how late, how
        late in all and at most (each since the watch started)."""
        return {"probes": self.probes,
                "late": {f"over_{limit}_ms": n for limit, n in zip(LATE_MS, self.late,
                                                                    strict=True)},
                "late_ms": round(self.late_s * 1000, 3),
                "longest_ms": round(self.longest_s * 1000, 3)}
