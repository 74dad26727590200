"""The embedded default's journal of rooms in progress (app.snapshots.JournalSnapshots)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from app.rooms import RoomRegistry
from app.snapshots import JournalSnapshots, RoomSave, rooms_file


def save(room: str, version: int, base: int, entries: list[dict[str, Any]], *,
         snapshot: bool = True, active: bool = True) -> RoomSave:
    return RoomSave(room_id=room, snapshot={"version": version, "room": room} if snapshot
                    else None, log_base=base, log_entries=[orjson.dumps(e) for e in entries],
                    summary=None, active=active)


async def load(journal: JournalSnapshots, room: str) -> Any:
    """What ``journal.load`` gives, its log entries read back as dicts."""
    loaded = await journal.load(room)
    return None if loaded is None else (loaded[0], [orjson.loads(e) for e in loaded[1]])


async def test_rooms_in_progress_come_back_from_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "kartu.rooms.journal")
    journal = JournalSnapshots(path)
    await journal.save(save("a", 1, 0, [{"n": 0}, {"n": 1}]))
    await journal.save(save("b", 1, 0, [{"n": 0}]))
    await journal.save(save("a", 2, 2, [{"n": 2}], snapshot=False))
    await journal.save(save("a", 2, 1, [{"n": 1}, {"n": 2}], snapshot=False))  # repeated
    await journal.save(save("b", 2, 1, [{"n": 1}], active=False))  # b is over
    await journal.close()

    again = JournalSnapshots(path)  # as after a restart
    assert await again.active_rooms() == ["a"]
    assert await load(again, "a") == ({"version": 1, "room": "a"}, [{"n": 0}, {"n": 1}, {"n": 2}])
    assert await load(again, "b") is None
    await again.close()


@pytest.mark.parametrize("tail", [
    b'E a 1 {"n":',  # a power cut in the middle of a write
    b'E a 1 {"n":' + bytes(5000),  # a kill in the middle of a copy, in the window
], ids=["power_cut", "kill_before_the_zeros"])
async def test_a_torn_last_line_is_skipped(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "kartu.rooms.journal"
    journal = JournalSnapshots(str(path))
    await journal.save(save("a", 1, 0, [{"n": 0}]))
    await journal.close()
    with path.open("ab") as out:
        out.write(tail)
    again = JournalSnapshots(str(path))
    assert await load(again, "a") == ({"version": 1, "room": "a"}, [{"n": 0}])
    await again.save(save("a", 1, 1, [{"n": 1}], snapshot=False))
    await again.close()
    assert (await load(JournalSnapshots(str(path)), "a")) == (
        {"version": 1, "room": "a"}, [{"n": 0}, {"n": 1}])


async def test_compaction_keeps_the_live_rooms_and_drops_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "kartu.rooms.journal"
    journal = JournalSnapshots(str(path))
    journal.COMPACT_MIN_BYTES, journal.COMPACT_FACTOR = 4096, 2
    for room in range(40):
        entries = [{"pad": "x" * 40, "n": n} for n in range(5)]
        await journal.save(save(f"r{room}", 1, 0, entries))
        if room % 4:
            await journal.save(save(f"r{room}", 2, 5, [], active=False))
        else:  # a later snapshot, longer, and more of the log
            await journal.save(save(f"r{room}", 100, 5, [{"n": 5}]))
    # What is live is kept count of as it goes, not recounted on every save.
    assert journal._live == sum(map(journal._weight, journal.rooms.values()))
    # Snapshots and log lines are read back from where compaction moved them.
    assert (await load(journal, "r36"))[0] == {"version": 100, "room": "r36"}
    assert (await load(journal, "r8"))[1] == [{"pad": "x" * 40, "n": n} for n in range(5)] + [
        {"n": 5}]
    await journal.save(save("r36", 3, 5, [{"n": 5}]))
    assert (await load(journal, "r36"))[0] == {"version": 3, "room": "r36"}
    await journal.close()
    # Compacted along the way: the first rooms that ended left no line behind.
    rooms_named = {line.split(b" ")[1] for line in path.read_bytes().splitlines()}
    assert b"r1" not in rooms_named and b"r0" in rooms_named
    again = JournalSnapshots(str(path))
    assert await again.active_rooms() == sorted(f"r{room}" for room in range(0, 40, 4))
    assert await load(again, "r8") == ({"version": 100, "room": "r8"},
                                      [{"pad": "x" * 40, "n": n} for n in range(5)] + [{"n": 5}])
    assert (await load(again, "r36"))[0] == {"version": 3, "room": "r36"}
    await again.close()


async def test_what_a_killed_process_saved_comes_back(tmp_path: Path) -> None:
    # Saves are copies into the file's mapped pages: the kernel holds them
    # the moment they are made, with no write and no close.
    path = tmp_path / "kartu.rooms.journal"
    script = f"""
import asyncio, os, signal, sys
sys.path.insert(0, {str(Path(__file__).parents[2])!r})
from tests.app.test_journal import save
from app.snapshots import JournalSnapshots

async def main():
    journal = JournalSnapshots({str(path)!r})
    await journal.save(save("a", 1, 0, [{{"n": 0}}, {{"n": 1}}]))
    await journal.save(save("a", 2, 2, [{{"n": 2}}], snapshot=False))
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""
    done = subprocess.run([sys.executable, "-c", script], timeout=60)
    assert done.returncode == -signal.SIGKILL
    assert path.stat().st_size == JournalSnapshots.WINDOW_BYTES  # the window's zeros too
    again = JournalSnapshots(str(path))
    assert await load(again, "a") == ({"version": 1, "room": "a"},
                                      [{"n": 0}, {"n": 1}, {"n": 2}])
    await again.save(save("a", 2, 3, [{"n": 3}], snapshot=False))  # goes on from the end
    await again.close()
    assert not path.read_bytes().endswith(b"\0")
    assert (await load(JournalSnapshots(str(path)), "a"))[1][-2:] == [{"n": 2}, {"n": 3}]


async def test_saves_go_on_across_windows_and_past_a_windows_size(tmp_path: Path) -> None:
    path = tmp_path / "kartu.rooms.journal"
    journal = JournalSnapshots(str(path))
    journal.WINDOW_BYTES = 4096
    entries = [{"n": n, "pad": "y" * 100} for n in range(200)]  # ~25 KB: six windows
    for n, entry in enumerate(entries):
        await journal.save(save("a", 1, n, [entry], snapshot=n == 0))
    big = {"version": 2, "room": "b", "pad": "z" * 10_000}  # more than a window at once
    await journal.save(RoomSave(room_id="b", snapshot=big, log_base=0, log_entries=[],
                                summary=None, active=True))
    assert journal._window is not None and len(journal._window) <= 16_384
    assert await load(journal, "a") == ({"version": 1, "room": "a"}, entries)
    assert (await journal.load("b")) == (big, [])
    await journal.close()
    again = JournalSnapshots(str(path))
    assert await load(again, "a") == ({"version": 1, "room": "a"}, entries)
    assert (await again.load("b")) == (big, [])
    await again.close()


def test_the_journal_lives_beside_the_database() -> None:
    assert rooms_file("./data/kartu.db") == "data/kartu.rooms.journal"
    assert rooms_file("/var/lib/kartu/main.sqlite3") == "/var/lib/kartu/main.rooms.journal"


def test_rooms_take_full_snapshots_each_at_its_own_pace() -> None:
    # Rooms started together and played at one pace must not all write their
    # full snapshot in the same instant: each has its own bound on the log
    # entries saved between two, around RoomRegistry.SNAPSHOT_EVERY_ENTRIES.
    bounds = [RoomRegistry._snapshot_entries(f"r{n:04d}") for n in range(400)]
    assert min(bounds) >= 150 and max(bounds) <= 249
    assert len(set(bounds)) > 80
    assert RoomRegistry._snapshot_entries("r0001") == RoomRegistry._snapshot_entries("r0001")
