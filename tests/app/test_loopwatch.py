"""The loop's watch: probes on time are not late; a blocked loop is, by how much."""

from __future__ import annotations

import time

from app.loopwatch import LATE_MS, LoopWatch
from tests.waiting import wait_for


async def test_an_idle_loop_runs_its_probes_on_time() -> None:
    watch = LoopWatch()
    watch.start()
    try:
        await wait_for(lambda: watch.probes >= 5, what="five probes")
    finally:
        watch.stop()
    summary = watch.summary()
    assert summary["probes"] == watch.probes
    assert set(summary["late"]) == {f"over_{limit}_ms" for limit in LATE_MS}


async def test_a_blocked_loop_makes_a_probe_late_by_as_long() -> None:
    watch = LoopWatch()
    watch.start()
    try:
        await wait_for(lambda: watch.probes >= 1, what="a first probe")
        before, probes = list(watch.late), watch.probes
        # The thing under test, so a real sleep: the loop is held, as every
        # room of the process would be, while the next probe falls due.
        time.sleep(0.06)
        await wait_for(lambda: watch.probes > probes, what="the probe that was held up")
    finally:
        watch.stop()
    late = [n - b for n, b in zip(watch.late, before, strict=True)]
    # 60 ms held, the probe due at most 10 ms in: later than 25 ms, at most 60.
    assert late[LATE_MS.index(25)] >= 1 and late[LATE_MS.index(100)] == 0
    assert 0.025 < watch.longest_s <= watch.late_s
    assert watch.summary()["late"]["over_10_ms"] == watch.late[0] >= 1


async def test_a_stopped_watch_sets_no_more_probes() -> None:
    watch = LoopWatch()
    watch.start()
    watch.stop()
    # A watch started alongside shows that probes would have run by now.
    running = LoopWatch()
    running.start()
    try:
        await wait_for(lambda: running.probes >= 3, what="a running watch's probes")
    finally:
        running.stop()
    assert watch.probes == 0
