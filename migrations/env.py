"""Alembic environment for kartu (async engines: aiosqlite, asyncpg).

The database URL is the config's ``sqlalchemy.url`` (set by app/migrate.py),
else the ``DATABASE_URL`` environment variable, else the app's default
SQLite file. Logging is configured from alembic.ini only when Alembic runs
from its own command line, so running migrations inside the app leaves the
app's logging alone.

``asyncio.run`` below needs a thread with no running event loop; the app
calls Alembic from a worker thread (see app/migrate.py).
"""

from __future__ import annotations

import asyncio
import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import async_engine_from_config

from app.db import DEFAULT_DATABASE_URL, Base, async_url

config = context.config

if (
    config.cmd_opts is not None
    and config.config_file_name is not None
    and config.file_config.has_section("loggers")
):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL")
    return async_url(url or DEFAULT_DATABASE_URL)


def run_migrations_offline() -> None:
    """Emits the SQL to stdout instead of running it (``alembic upgrade --sql``)."""
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def do_run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things: later migrations rebuild tables there.
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Several servers may start at once (replicas): one migrates, the
            # others wait here, then find the schema at head. The lock ends
            # with the transaction.
            connection.execute(text("SELECT pg_advisory_xact_lock(72461500)"))
        context.run_migrations()


async def run_async_migrations() -> None:
    section = config.get_section(config.config_ini_section, {})
    section["sqlalchemy.url"] = database_url()
    connectable = async_engine_from_config(section, prefix="sqlalchemy.", poolclass=pool.NullPool)
    try:
        async with connectable.connect() as connection:
            await connection.run_sync(do_run_migrations)
    finally:
        await connectable.dispose()


def run_migrations_online() -> None:
    asyncio.run(run_async_migrations())


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
