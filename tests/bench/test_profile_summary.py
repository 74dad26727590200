"""bench.load's reading of a py-spy profile: what counts, and where it goes."""

from __future__ import annotations

from pathlib import Path

from bench.load import profile_summary

MAIN = ("_run_module_as_main (<frozen runpy>:198);run (uvicorn/main.py:632);"
        "Runner.run (asyncio/runners.py:118)")
SERVE = f"{MAIN};Connection.serve (app/gateway.py:167)"


def test_waiting_threads_are_left_out_and_the_rest_goes_to_its_area(tmp_path: Path) -> None:
    raw = tmp_path / "profile.txt"
    raw.write_text("\n".join([
        f"{SERVE};FramePath.flush_all (app/wsprotocol.py:120);"
        "KartuWebSocketProtocol.flush (app/wsprotocol.py:283) 30",
        f"{SERVE};RoomRegistry._commit (app/rooms.py:306);"
        "RoomFrames.frames (app/frames.py:123) 20",
        f"{SERVE};Connection._dispatch (app/gateway.py:220) 10",
        f"{MAIN} 40",
        # Threads waiting for work, whatever py-spy made of them:
        "Thread._bootstrap (threading.py:995);Condition.wait (threading.py:320) 500",
        "Thread._bootstrap (threading.py:995);"
        "_connection_worker_thread (aiosqlite/core.py:59) 200",
        "Thread._bootstrap (threading.py:995);_worker (concurrent/futures/thread.py:81) 100",
    ]) + "\n")

    lines = profile_summary(raw)

    assert lines[0].startswith("profile of the kartu process: 100 samples")
    areas = lines[lines.index("  by area:") + 1: lines.index("  own time:")]
    assert [line.split("%", 1)[0].strip() for line in areas] == ["40.0", "30.0", "20.0", "10.0"]
    assert "event loop and other" in areas[0]
    assert "WebSocket I/O" in areas[1]  # kartu's own socket writes are WebSocket I/O
    assert "frames and fan-out" in areas[2]
    assert "gateway" in areas[3]
    assert not any("Condition.wait" in line or "_worker" in line for line in lines)
