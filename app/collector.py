"""Python's cyclic garbage collector in a busy server: tuned, and watched.

Terms:

- a *pass* is one run of the collector over a *generation*: 0 (the objects
  made since the last pass), 1, or 2 (everything not frozen);
- its *pause* is how long the pass held the process: every room of the
  process waits for it, so a pause is latency for everyone at once.

:func:`tune` sets the collector up for serving; :func:`watch` counts its
passes and their pauses for ``GET /healthz``, so that an operator (or
``bench.load``) can tell a pause from the collector from a slow room.
"""

from __future__ import annotations

import gc
import time
from typing import Any


def tune() -> None:
    """Keeps the collector from pausing every room for long.

    Everything alive after start-up (modules, the app) is frozen out of the
    collector's scans, and the youngest generation is collected once the
    objects it tracks have grown by 50,000 since the last pass. The games
    make no cyclic garbage (reference counting frees every old state), so a
    pass finds nothing to free: it only walks what survived, and holds every
    room while it does, for a time that grows with the threshold. A busy
    server still grows (rooms open, their logs lengthen), so passes come
    however high the threshold is: a smaller one makes each pass shorter
    and the passes more frequent, for about the same time in all. What a
    room keeps for the whole game grows with every action, so it keeps no
    container per action where it can: its logs are JSON bytes
    (``app.rooms.JSON_LOG``), which no pass walks, and a Remmi Demmi round
    keeps only the trades its views and return windows still read.
    For latency only: against 200,000, p99 58 -> 13 ms in bench.load's realtime shape.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 50, 100)


class CollectorWatch:
    """The collector's passes and pauses in this process since :func:`watch`."""

    def __init__(self) -> None:
        self.passes = [0, 0, 0]  # by generation
        self.paused_s = 0.0
        self.longest_s = 0.0
        self._started: float | None = None

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        # gc.callbacks' signature; called at the start and the stop of each pass.
        if phase == "start":
            self._started = time.perf_counter()
            return
        if self._started is None:  # watching began in the middle of a pass
            return
        pause = time.perf_counter() - self._started
        self._started = None
        self.passes[info["generation"]] += 1
        self.paused_s += pause
        self.longest_s = max(self.longest_s, pause)

    def summary(self) -> dict[str, Any]:
        """For ``GET /healthz``: passes by generation, their pauses in all, the longest."""
        return {"passes": list(self.passes), "paused_ms": round(self.paused_s * 1000, 3),
                "longest_ms": round(self.longest_s * 1000, 3)}


_watch: CollectorWatch | None = None


def watch() -> CollectorWatch:
    """The process's one watch, set on the collector the first time it is asked for."""
    global _watch
    if _watch is None:
        _watch = CollectorWatch()
        gc.callbacks.append(_watch)
    return _watch
