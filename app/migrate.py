"""Brings a database's schema up to date with Alembic.

The app calls :func:`migrate` at start-up. Alembic's environment
(migrations/env.py) runs its own event loop with ``asyncio.run``, which
cannot happen inside a running loop, so :func:`migrate` runs the upgrade in
a worker thread.

``python -m app.migrate`` upgrades the database named by the
``DATABASE_URL`` environment variable (default: SQLite under ./data/).
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path

from alembic import command
from alembic.config import Config

from app.db import DEFAULT_DATABASE_URL, async_url, sqlite_file

ROOT = Path(__file__).resolve().parent.parent
ALEMBIC_INI = ROOT / "alembic.ini"
MIGRATIONS = ROOT / "migrations"


def alembic_config(database_url: str) -> Config:
    """An Alembic config for the repo's migrations, aimed at ``database_url``."""
    cfg = Config(str(ALEMBIC_INI)) if ALEMBIC_INI.is_file() else Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    # ConfigParser interpolates '%' (URL-escaped passwords), hence the doubling.
    cfg.set_main_option("sqlalchemy.url", async_url(database_url).replace("%", "%%"))
    return cfg


def upgrade_to_head(database_url: str) -> None:
    """Runs every pending migration. Blocking; must not run inside an event loop."""
    path = sqlite_file(database_url)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    command.upgrade(alembic_config(database_url), "head")


async def migrate(database_url: str) -> None:
    """:func:`upgrade_to_head` from async code, in a worker thread."""
    await asyncio.to_thread(upgrade_to_head, database_url)


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s [%(name)s] %(message)s")
    upgrade_to_head(os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL)


if __name__ == "__main__":
    main()
