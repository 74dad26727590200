"""PostgreSQL stopped and started under play (a private instance, never the shared one).

kartu saves its rooms in PostgreSQL (no Redis). The database is stopped
(``-m immediate``, like a crash) for a few seconds during play: commands get
``unavailable``, HTTP routes 503, ``/healthz`` stays 200 and says the
database is down, ``/readyz`` 503; then it is started again and play goes on
by itself. Then it is stopped again, kartu is SIGKILLed while it is down,
both start again, and the games are played to the end: no acked action may
be missing, and the log says the outage in a few lines, not a traceback a
command.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import httpx
import pytest

from tests.fault.harness import (
    Postgres,
    Server,
    Tally,
    check_games,
    postgres_bin,
    setup_tables,
    soak,
    start_games,
    tracebacks,
)
from tests.services import require_or_skip

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(300 + 600 * soak())]


async def outage_answers(server: Server) -> dict[str, int]:
    """What the HTTP side says while the database is down."""
    async with httpx.AsyncClient(timeout=10) as http:
        health = await http.get(f"{server.url}/healthz")
        ready = await http.get(f"{server.url}/readyz")
        guest = await http.post(f"{server.url}/api/guests", json={"name": "Late"})
    assert health.status_code == 200
    assert health.json()["stores"]["database"]["up"] is False
    assert ready.status_code == 503
    assert guest.status_code == 503 and guest.json()["code"] == "unavailable"
    return {"healthz": health.status_code, "readyz": ready.status_code,
            "guests": guest.status_code}


async def test_acked_actions_survive_postgres_outages(tmp_path: Path) -> None:
    bindir = postgres_bin()
    if bindir is None:
        require_or_skip("PostgreSQL", "no initdb/pg_ctl (postgresql server package)")
    pg = Postgres(bindir)
    server = Server(tmp_path, {"DATABASE_URL": pg.url})
    try:
        await asyncio.to_thread(pg.init)
        await asyncio.to_thread(pg.start)
        await asyncio.to_thread(server.start)
        tally = Tally()
        tables, bots, owner = setup_tables(server.url, [server.ws_url], tally,
                                           bot_rooms=3 + 20 * soak(), duo_rooms=2 + 4 * soak(),
                                           solo_rooms=2 + 10 * soak())
        await start_games(server.url, tables, bots, owner)
        deadline = time.monotonic() + 200 + 200 * soak()
        plays = [asyncio.create_task(player.play(table.room, deadline))
                 for table in tables for player in table.players]
        started = time.monotonic()
        for _ in range(1 + soak()):
            # An outage the server lives through.
            await asyncio.sleep(1.5)
            await asyncio.to_thread(pg.stop)
            await asyncio.sleep(1.0)
            answers = await outage_answers(server)
            await asyncio.sleep(1.5)
            await asyncio.to_thread(pg.start)
            # One it does not: killed while the database is down.
            await asyncio.sleep(1.5)
            await asyncio.to_thread(pg.stop)
            await asyncio.sleep(1.0)
            server.kill()
            await asyncio.to_thread(pg.start)
            await asyncio.to_thread(server.start)
        await asyncio.gather(*plays)
        lost = await check_games(server.url, tables, bots)
        log = server.log_text()
        print(f"\npostgres outages x{1 + soak()} (played {time.monotonic() - started:.0f} s): "
              f"{tally.line()} lost={lost} outage_answers={answers} "
              f"log_bytes={len(log)} tracebacks={tracebacks(log)} "
              f"store_down_lines={log.count('store_down')}")
        assert tally.acked > 0
        assert lost == 0, f"{lost} acked actions lost"
        assert tally.not_conserved == 0
        assert tally.refused["unavailable"] > 0  # the outage was met, and said so
        assert tracebacks(log) <= 2, server.log_tail(120)
        assert server.alive()
    finally:
        server.stop()
        await asyncio.to_thread(pg.destroy)
