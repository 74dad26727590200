"""Alembic migrations on SQLite and PostgreSQL: up, down, up again, and in step with the models."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

from app.db import Base
from app.migrate import alembic_config, migrate, upgrade_to_head
from tests.services import fresh_postgres_database

HEAD = "0004"
ROOT = Path(__file__).resolve().parents[2]

EXPECTED: dict[str, dict[str, Any]] = {
    "players": {
        "columns": {"id", "name", "token_hash", "created_at"},
        "pk": ["id"],
        "indexes": {"ix_players_token_hash": (("token_hash",), True)},
        "uniques": set(),
        "fks": set(),
    },
    "rooms": {
        "columns": {
            "id",
            "game",
            "options",
            "seats",
            "owner_id",
            "status",
            "seed",
            "created_at",
            "updated_at",
        },
        "pk": ["id"],
        "indexes": {"ix_rooms_status": (("status",), False)},
        "uniques": set(),
        "fks": {(("owner_id",), "players", ("id",))},
    },
    "games": {
        "columns": {
            "id",
            "room_id",
            "game",
            "options",
            "seed",
            "actions",
            "scores",
            "seat_names",
            "started_at",
            "finished_at",
            "number",
        },
        "pk": ["id"],
        "indexes": {},
        "uniques": {("uq_games_room_id", ("room_id", "number"))},
        "fks": {(("room_id",), "rooms", ("id",))},
    },
    "daily_entries": {
        "columns": {"id", "game", "date", "player_id", "room_id", "status", "ranked", "score",
                    "rank_key", "created_at", "finished_at"},
        "pk": ["id"],
        "indexes": {
            "ix_daily_entries_board": (("game", "date", "rank_key", "finished_at", "id"), False),
            "ix_daily_entries_player_game": (("player_id", "game"), False),
            "uq_daily_entries_ranked": (("game", "date", "player_id"), True),
        },
        "uniques": {("uq_daily_entries_room_id", ("room_id",))},
        "fks": {(("player_id",), "players", ("id",)), (("room_id",), "rooms", ("id",))},
    },
    "server_secrets": {
        "columns": {"name", "value", "created_at"},
        "pk": ["name"],
        "indexes": {},
        "uniques": set(),
        "fks": set(),
    },
    "room_snapshots": {
        "columns": {"room_id", "version", "active", "data", "updated_at"},
        "pk": ["room_id"],
        "indexes": {"ix_room_snapshots_active": (("active",), False)},
        "uniques": set(),
        "fks": {(("room_id",), "rooms", ("id",))},
    },
    "room_log": {
        "columns": {"room_id", "seq", "entry"},
        "pk": ["room_id", "seq"],
        "indexes": {},
        "uniques": set(),
        "fks": {(("room_id",), "rooms", ("id",))},
    },
    "game_results": {
        "columns": {"game_id", "seat", "player_id", "name", "bot", "score", "won"},
        "pk": ["game_id", "seat"],
        "indexes": {"ix_game_results_player_id": (("player_id",), False)},
        "uniques": set(),
        "fks": {
            (("game_id",), "games", ("id",)),
            (("player_id",), "players", ("id",)),
        },
    },
}


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'db' / 'kartu.db'}"
    else:
        async with fresh_postgres_database() as url:
            yield url


def _snapshot(connection: Connection) -> dict[str, dict[str, Any]]:
    insp = inspect(connection)
    out: dict[str, dict[str, Any]] = {}
    for table in insp.get_table_names():
        if table == "alembic_version":
            continue
        out[table] = {
            "columns": {c["name"] for c in insp.get_columns(table)},
            "pk": insp.get_pk_constraint(table)["constrained_columns"],
            "indexes": {
                ix["name"]: (tuple(ix["column_names"]), bool(ix["unique"]))
                for ix in insp.get_indexes(table)
                # PostgreSQL also lists the index behind each unique constraint.
                if not ix.get("duplicates_constraint")
            },
            "uniques": {
                (uq["name"], tuple(uq["column_names"])) for uq in insp.get_unique_constraints(table)
            },
            "fks": {
                (
                    tuple(fk["constrained_columns"]),
                    fk["referred_table"],
                    tuple(fk["referred_columns"]),
                )
                for fk in insp.get_foreign_keys(table)
            },
        }
    return out


def _version(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def _inspect(url: str) -> tuple[dict[str, dict[str, Any]], str | None]:
    engine = create_async_engine(url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            snapshot = await conn.run_sync(_snapshot)
            version = await conn.run_sync(_version)
        return snapshot, version
    finally:
        await engine.dispose()


async def _downgrade(url: str, revision: str) -> None:
    await asyncio.to_thread(command.downgrade, alembic_config(url), revision)


async def test_upgrade_downgrade_upgrade(database_url: str) -> None:
    await migrate(database_url)
    schema, version = await _inspect(database_url)
    assert schema == EXPECTED
    assert version == HEAD

    await _downgrade(database_url, "base")
    schema, version = await _inspect(database_url)
    assert schema == {}
    assert version is None

    await migrate(database_url)
    schema, version = await _inspect(database_url)
    assert schema == EXPECTED
    assert version == HEAD


async def test_upgrade_is_idempotent(database_url: str) -> None:
    await migrate(database_url)
    await migrate(database_url)
    schema, version = await _inspect(database_url)
    assert set(schema) == set(EXPECTED)
    assert version == HEAD


async def test_models_match_migrations(database_url: str) -> None:
    await migrate(database_url)

    def diff(connection: Connection) -> list[Any]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))

    engine = create_async_engine(database_url, poolclass=NullPool)
    try:
        async with engine.connect() as conn:
            assert await conn.run_sync(diff) == []
    finally:
        await engine.dispose()


def test_upgrade_to_head_outside_a_loop(tmp_path: Path) -> None:
    """The blocking entry point (``python -m app.migrate``) creates the SQLite file's folder."""
    db = tmp_path / "nested" / "deeper" / "kartu.db"
    upgrade_to_head(f"sqlite:///{db}")
    assert db.is_file()


async def test_migrations_leave_logging_alone(tmp_path: Path) -> None:
    root = logging.getLogger()
    handlers = list(root.handlers)
    level = root.level
    existing = logging.getLogger("kartu.test.existing")
    await migrate(f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}")
    assert root.handlers == handlers
    assert root.level == level
    assert not existing.disabled


@pytest.mark.postgres
async def test_servers_starting_together_migrate_once_on_postgresql() -> None:
    # Replicas run migrations at the same moment; the advisory lock in env.py
    # lets one migrate while the others wait and then find the schema at head.
    async with fresh_postgres_database() as url:
        env = {**os.environ, "DATABASE_URL": url}
        runs = [await asyncio.create_subprocess_exec(
            sys.executable, "-m", "app.migrate", env=env, cwd=ROOT,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
            for _ in range(3)]
        outputs = [await run.communicate() for run in runs]
        assert [run.returncode for run in runs] == [0, 0, 0], outputs
        schema, version = await _inspect(url)
        assert version == HEAD and set(schema) == set(EXPECTED)
