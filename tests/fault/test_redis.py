"""Redis SIGKILLed and started again under play, with two kartu processes on it.

A private Redis (AOF on, fsync on every write) carries the rooms of two
kartu processes; players connect to either. Redis is killed mid-play and
started again from its append-only file: commands meanwhile get
``unavailable`` (or ``busy`` when their room lives in the other process),
and no acked action may be missing once the games are over.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import time
from pathlib import Path

import pytest

from tests.fault.harness import (
    RedisServer,
    Server,
    Tally,
    check_games,
    setup_tables,
    soak,
    start_games,
    tracebacks,
)
from tests.services import require_or_skip

pytestmark = [pytest.mark.redis, pytest.mark.timeout(300 + 600 * soak())]


async def test_acked_actions_survive_redis_kill_9(tmp_path: Path) -> None:
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        require_or_skip("Redis", "no redis-server/redis-cli to start a private Redis")
    redis = RedisServer()
    env = {"REDIS_URL": redis.url, "KARTU_REDIS_PREFIX": f"f{secrets.token_hex(3)}"}
    servers = [Server(tmp_path, env, "kartu-a"), Server(tmp_path, env, "kartu-b")]
    try:
        await asyncio.to_thread(redis.start)
        for server in servers:
            await asyncio.to_thread(server.start)
        tally = Tally()
        urls = [s.ws_url for s in servers]
        tables, bots, owner = setup_tables(servers[0].url, urls, tally,
                                           bot_rooms=3 + 20 * soak(), duo_rooms=2 + 4 * soak(),
                                           solo_rooms=2 + 10 * soak())
        # Half the players start on the other process: their commands are routed.
        for i, player in enumerate(p for t in tables for p in t.players):
            player._tries = i
        await start_games(servers[0].url, tables, bots, owner)
        deadline = time.monotonic() + 200 + 200 * soak()
        plays = [asyncio.create_task(player.play(table.room, deadline))
                 for table in tables for player in table.players]
        started = time.monotonic()
        downs: list[float] = []
        for round_ in range(1 + soak()):
            await asyncio.sleep(2.0)
            redis.kill()
            # Short enough for the leases to outlive it; a soak also outlasts them.
            down = 2.0 if round_ % 2 == 0 else 6.0
            await asyncio.sleep(down)
            await asyncio.to_thread(redis.start)
            downs.append(down)
        await asyncio.gather(*plays)
        lost = await check_games(servers[0].url, tables, bots)
        logs = "".join(s.log_text() for s in servers)
        print(f"\nredis kill -9 x{len(downs)} (played {time.monotonic() - started:.0f} s): "
              f"{tally.line()} lost={lost} log_bytes={len(logs)} "
              f"tracebacks={tracebacks(logs)} store_down_lines={logs.count('store_down')}")
        assert tally.acked > 0
        assert lost == 0, f"{lost} acked actions lost"
        assert tally.not_conserved == 0
        assert tracebacks(logs) <= 2, logs[-20000:]
        assert all(s.alive() for s in servers)
    finally:
        for server in servers:
            server.stop()
        redis.destroy()
