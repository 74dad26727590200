"""The collector's watch: each pass counted under its generation, with its pause."""

from __future__ import annotations

import gc

from app.collector import CollectorWatch, watch


def test_a_pass_is_counted_with_its_pause() -> None:
    seen = CollectorWatch()
    gc.callbacks.append(seen)
    try:
        gc.collect(1)
        gc.collect(2)
    finally:
        gc.callbacks.remove(seen)
    assert seen.passes[1] >= 1 and seen.passes[2] == 1
    assert 0 < seen.longest_s <= seen.paused_s
    summary = seen.summary()
    assert summary["passes"] == seen.passes
    assert summary["paused_ms"] == round(seen.paused_s * 1000, 3)


def test_a_pass_seen_only_from_its_end_is_not_counted() -> None:
    seen = CollectorWatch()
    seen("stop", {"generation": 0, "collected": 0, "uncollectable": 0})
    assert seen.passes == [0, 0, 0] and seen.paused_s == 0


def test_the_process_has_one_watch() -> None:
    first = watch()
    assert watch() is first and gc.callbacks.count(first) == 1
