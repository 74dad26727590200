"""A day with 100k ranked games still answers from the leaderboard index (PostgreSQL).

The store's own statements (app.store: ``leaderboard_select``,
``better_count_select``, ``board_size_select``) are explained against a
database holding 100,000 finished ranked games of one game and day, plus
noise: other days, another game, practice games, games still being played.
Each plan must read ``ix_daily_entries_board`` (an Index Scan or Index Only
Scan) and never scan the table itself, both with the actual values (the
custom plan) and as a prepared statement's generic plan, which is what a
busy server ends up running. ``pytest -s`` prints the plans.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Select, text
from sqlalchemy.dialects.postgresql import asyncpg
from sqlalchemy.ext.asyncio import AsyncConnection

from app.daily import rank_key
from app.store import Store, better_count_select, board_size_select, leaderboard_select
from engine.games.basic_rummy import BasicRummy
from tests.services import fresh_postgres_database

# Seeding 400k rows takes a while on a busy machine.
pytestmark = [pytest.mark.postgres, pytest.mark.timeout(600)]

RULES = BasicRummy()
GAME = RULES.name
DAY = dt.date(2024, 5, 1)
DAY_ENTRIES = 100_000
NOISE = 300_000
INDEX = "ix_daily_entries_board"

SEED_SQL = [
    # Players, and a room for every entry (the entries' foreign keys).
    """INSERT INTO players (id, name, token_hash, created_at)
       SELECT md5('p' || i), 'p' || i, md5('t' || i) || md5('u' || i), now()
       FROM generate_series(1, CAST(:day AS integer)) AS i""",
    """INSERT INTO rooms (id, game, options, seats, owner_id, status, seed, created_at,
                          updated_at)
       SELECT 'r' || i, 'basic_rummy', '{}'::jsonb, 4, NULL, 'finished', i, now(), now()
       FROM generate_series(1, CAST(:day AS integer) + CAST(:noise AS integer)) AS i""",
    # The day: 100k finished ranked games, scores 0..299 (many ties), higher wins.
    """INSERT INTO daily_entries (game, date, player_id, room_id, status, ranked, score,
                                  rank_key, created_at, finished_at)
       SELECT 'basic_rummy', DATE '2024-05-01', md5('p' || i), 'r' || i, 'finished', true,
              (i * 7919) % 300, -((i * 7919) % 300),
              TIMESTAMPTZ '2024-05-01 00:00+00' + i * INTERVAL '1 second',
              TIMESTAMPTZ '2024-05-01 00:05+00' + i * INTERVAL '1 second'
       FROM generate_series(1, CAST(:day AS integer)) AS i""",
    # Noise, by the same players: ranked games of the 30 days before, of both games;
    # and on the day itself practice games and games still being played.
    """INSERT INTO daily_entries (game, date, player_id, room_id, status, ranked, score,
                                  rank_key, created_at, finished_at)
       SELECT CASE WHEN j % 5 = 0 THEN 'remmi_demmi' ELSE 'basic_rummy' END,
              CASE WHEN j % 7 = 0 THEN DATE '2024-05-01'
                   ELSE DATE '2024-05-01' - (1 + j % 30) END,
              md5('p' || (1 + j % CAST(:day AS integer))), 'r' || (CAST(:day AS integer) + j),
              CASE WHEN j % 7 = 0 AND j % 2 = 1 THEN 'playing' ELSE 'finished' END,
              j % 7 <> 0,
              CASE WHEN j % 7 = 0 AND j % 2 = 1 THEN NULL ELSE j % 300 END,
              CASE WHEN j % 7 = 0 THEN NULL ELSE -(j % 300) END,
              now(),
              CASE WHEN j % 7 = 0 AND j % 2 = 1 THEN NULL ELSE now() END
       FROM generate_series(1, CAST(:noise AS integer)) AS j""",
]


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _compiled(stmt: Select) -> tuple[str, list[Any]]:
    """The statement as asyncpg receives it: SQL with $n placeholders, and the values."""
    compiled = stmt.compile(dialect=asyncpg.dialect())
    assert compiled.positiontup is not None
    return compiled.string, [compiled.params[name] for name in compiled.positiontup]


def _literal(value: Any) -> str:
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, str):
        assert "'" not in value
        return f"'{value}'"
    assert isinstance(value, int)
    return str(value)


async def _plans(conn: AsyncConnection, name: str, stmt: Select
                 ) -> dict[str, dict[str, Any]]:
    """The custom and the generic plan of ``stmt`` (printed), as EXPLAIN's JSON."""
    sql, params = _compiled(stmt)
    custom = (await conn.exec_driver_sql(f"EXPLAIN (FORMAT JSON) {sql}", tuple(params))
              ).scalar_one()
    await conn.exec_driver_sql(f"PREPARE {name} AS {sql}")
    await conn.exec_driver_sql("SET plan_cache_mode = force_generic_plan")
    execute = f"EXECUTE {name}({', '.join(_literal(p) for p in params)})"
    generic = (await conn.exec_driver_sql(f"EXPLAIN (FORMAT JSON) {execute}")).scalar_one()
    analyzed = (await conn.exec_driver_sql(f"EXPLAIN (ANALYZE, BUFFERS) {execute}")).all()
    await conn.exec_driver_sql("RESET plan_cache_mode")
    await conn.exec_driver_sql(f"DEALLOCATE {name}")
    plans = {}
    for kind, raw in (("custom", custom), ("generic", generic)):
        plans[kind] = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
        print(f"\n--- {name}, {kind} plan ---\n{json.dumps(plans[kind], indent=1)}")
    print(f"--- {name}, generic plan, run ---")
    print("\n".join(row[0] for row in analyzed))
    return plans


def _assert_from_index(plan: dict[str, Any], *, only: bool = False) -> None:
    on_table = [n for n in _nodes(plan) if n.get("Relation Name") == "daily_entries"]
    assert on_table, plan
    assert all(n["Node Type"] in ("Index Scan", "Index Only Scan") for n in on_table), plan
    assert all(n.get("Index Name") == INDEX for n in on_table), plan
    if only:
        assert all(n["Node Type"] == "Index Only Scan" for n in on_table), plan
    assert not any(n["Node Type"] == "Seq Scan" for n in _nodes(plan)
                   if n.get("Relation Name") == "daily_entries"), plan


async def test_a_day_of_100k_games_answers_from_the_index() -> None:
    async with fresh_postgres_database() as url:
        store = Store(url)
        await store.start()
        try:
            started = time.perf_counter()
            async with store.engine.begin() as conn:
                for sql in SEED_SQL:
                    params = {"day": DAY_ENTRIES, "noise": NOISE}
                    await conn.execute(text(sql), {k: v for k, v in params.items()
                                                   if f":{k}" in sql})
            autocommit = await store.engine.connect()
            try:
                await autocommit.execution_options(isolation_level="AUTOCOMMIT")
                await autocommit.exec_driver_sql("VACUUM (ANALYZE) daily_entries")
                await autocommit.exec_driver_sql("ANALYZE players")
            finally:
                await autocommit.close()
            print(f"\nseeded {DAY_ENTRIES + NOISE} entries in "
                  f"{time.perf_counter() - started:.1f}s")

            middle = rank_key(RULES, 150)
            bottom = rank_key(RULES, 0)
            async with store.engine.connect() as conn:
                for name, stmt, only in (
                    ("top_50", leaderboard_select(GAME, DAY, 50), False),
                    ("top_500", leaderboard_select(GAME, DAY, 500), False),
                    ("rank_middle", better_count_select(GAME, DAY, middle), True),
                    ("rank_bottom", better_count_select(GAME, DAY, bottom), True),
                    ("board_size", board_size_select(GAME, DAY), True),
                ):
                    for plan in (await _plans(conn, name, stmt)).values():
                        _assert_from_index(plan, only=only)

            # And the answers are right.
            assert await store.board_size(GAME, DAY) == DAY_ENTRIES
            top = await store.leaderboard(GAME, DAY, 500)
            assert top[0].rank == 1 and top[0].score == 299
            assert [line.score for line in top] == sorted((line.score for line in top),
                                                          reverse=True)
            tied = [line for line in top if line.score == 299]
            assert len({line.rank for line in tied}) == 1
            assert [line.finished_at for line in tied] == sorted(line.finished_at
                                                                 for line in tied)
            better = sum((i * 7919) % 300 > 150 for i in range(1, DAY_ENTRIES + 1))
            started = time.perf_counter()
            assert await store.daily_rank(GAME, DAY, middle) == better + 1
            print(f"rank of a middle score: {1000 * (time.perf_counter() - started):.1f} ms")
        finally:
            await store.close()
