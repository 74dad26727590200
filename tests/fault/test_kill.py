"""kill -9 of the server mid-play (the embedded default: SQLite and the journal).

Rooms of bots, of a human and a bot, and of two humans play; the server is
SIGKILLed and started again on the same files; the players reconnect and
play on to the end. Every acked action must be in the finished games'
records, and every view they got must hold the whole deck.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.fault.harness import Server, Tally, check_games, setup_tables, soak, start_games

pytestmark = pytest.mark.timeout(300 + 600 * soak())


async def test_every_acked_action_survives_kill_9(tmp_path: Path) -> None:
    kills = 1 + 4 * soak()
    server = Server(tmp_path, {})
    await asyncio.to_thread(server.start)
    try:
        tally = Tally()
        tables, bots, owner = setup_tables(server.url, [server.ws_url], tally,
                                           bot_rooms=4 + 20 * soak(), duo_rooms=2 + 4 * soak(),
                                           solo_rooms=3 + 10 * soak())
        await start_games(server.url, tables, bots, owner)
        deadline = time.monotonic() + 150 + 120 * kills
        plays = [asyncio.create_task(player.play(table.room, deadline))
                 for table in tables for player in table.players]
        restarts: list[float] = []
        started = time.monotonic()
        for _ in range(kills):
            await asyncio.sleep(2.5)
            server.kill()
            killed = time.monotonic()
            await asyncio.sleep(0.3)
            await asyncio.to_thread(server.start)
            restarts.append(time.monotonic() - killed)
        await asyncio.gather(*plays)
        lost = await check_games(server.url, tables, bots)
        print(f"\nkill -9 x{kills} (played {time.monotonic() - started:.0f} s): "
              f"{tally.line()} lost={lost} "
              f"restart_s={max(restarts):.1f} rooms={len(tables)}+{len(bots)} bots")
        assert tally.acked > 0
        assert lost == 0, f"{lost} acked actions lost"
        assert tally.not_conserved == 0
        assert server.alive()
    finally:
        server.stop()
