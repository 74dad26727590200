"""Gating for tests that need a real service (PostgreSQL, Redis).

A missing service skips such tests, unless ``KARTU_REQUIRE_SERVICES=1``
(as in CI), where it fails them instead.

:func:`running_store` is a started :class:`app.store.Store` for a test's
database URL, closed afterwards. PostgreSQL tests get a database of their own from
:func:`fresh_postgres_database`: created on the server named by
``TEST_POSTGRES_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``)
under a random name, and dropped afterwards, so parallel runs never meet.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import NoReturn

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from app.db import async_url
from app.store import Store

DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"
CONNECT_TIMEOUT_S = 5.0


def services_required() -> bool:
    """True when missing services must fail tests rather than skip them."""
    return os.environ.get("KARTU_REQUIRE_SERVICES", "").strip().lower() in ("1", "true", "yes")


def require_or_skip(service_name: str, error: Exception | str) -> NoReturn:
    """Skips the current test because ``service_name`` is unavailable (fails it if required).

    ``service_name`` is a label such as ``"Redis"`` or ``"PostgreSQL at
    host:5432/db"``; the message reads ``"<name> not reachable[ at <where>]:
    <error>"``.
    """
    reason = error if isinstance(error, str) else f"{type(error).__name__}: {error}".strip()
    name, at, where = service_name.partition(" at ")
    message = f"{name} not reachable{at}{where}: {reason}"
    if services_required():
        pytest.fail(f"{message} (KARTU_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def postgres_base_url() -> str:
    """The server (and maintenance database) that test databases are created on."""
    return os.environ.get("TEST_POSTGRES_URL") or DEFAULT_POSTGRES_URL


def _display(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


# Servers found unreachable in this process: later tests skip without waiting again.
_unreachable: dict[str, str] = {}


async def _admin_engine(base_url: str) -> AsyncEngine:
    """An AUTOCOMMIT engine on the base database, or a skip/fail if it cannot connect."""
    where = f"PostgreSQL at {_display(base_url)}"
    if base_url in _unreachable:
        require_or_skip(where, _unreachable[base_url])
    engine = create_async_engine(
        async_url(base_url),
        isolation_level="AUTOCOMMIT",
        poolclass=NullPool,
        connect_args={"timeout": CONNECT_TIMEOUT_S},
    )
    try:
        async with asyncio.timeout(CONNECT_TIMEOUT_S * 2), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        return engine
    except (OSError, TimeoutError, sa_exc.DBAPIError, sa_exc.InterfaceError) as error:
        await engine.dispose()
        _unreachable[base_url] = f"{type(error).__name__}: {error}".strip()
    # Outside the except block, so the report is the message rather than a traceback chain.
    require_or_skip(where, _unreachable[base_url])


@asynccontextmanager
async def fresh_postgres_database() -> AsyncIterator[str]:
    """Yields the URL (``postgresql+asyncpg://``) of a new, empty database; drops it after."""
    base_url = postgres_base_url()
    admin = await _admin_engine(base_url)
    name = f"kartu_t_{secrets.token_hex(6)}"
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            url = make_url(async_url(base_url)).set(database=name)
            yield url.render_as_string(hide_password=False)
        finally:
            async with admin.connect() as conn:
                await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


@asynccontextmanager
async def running_store(url: str) -> AsyncIterator[Store]:
    """A started Store on ``url``, closed when the block ends."""
    store = Store(url)
    await store.start()
    try:
        yield store
    finally:
        await store.close()
