"""Database schema (SQLAlchemy 2 declarative models) and URL helpers.

Alembic (``migrations/``) owns the schema; these models describe it for
queries and must stay in step with the migrations. The tables:

``players``
    Guest accounts. ``id`` is a 32-char hex id, ``name`` at most 24 chars.
    ``token_hash`` is the sha256 hex digest of the guest token (unique); the
    token itself is never stored.

``rooms``
    One row per room: ``id`` (a short url-safe id), ``game`` (the game's
    registry name), ``options`` (JSON), ``seats``, ``owner_id`` (the player
    who opened it, if any), ``status`` (``waiting``, ``playing``,
    ``finished`` or ``abandoned``; indexed), ``seed`` (signed 64-bit),
    ``created_at`` and ``updated_at``.

``games``
    One row per finished game: ``room_id`` and ``number`` (the room's first
    game is 1, each rematch one more; unique together), ``game``, ``options``,
    ``seed`` and ``actions`` (the action log, a JSON list of dicts) are
    everything needed to replay it; ``scores`` (JSON list of ints, by seat),
    ``seat_names`` (JSON list of names or nulls, by seat), ``started_at`` and
    ``finished_at``.

``game_results``
    One row per seat of a finished game, keyed by ``(game_id, seat)``:
    ``player_id`` (None for bots; indexed), ``name``, ``bot``, ``score`` and
    ``won`` (ties share the win).

``daily_entries``
    One row per daily-deal room (app/daily.py): ``game``, ``date`` (the UTC
    day whose deal it is), ``player_id``, ``room_id`` (unique), ``status``
    (``playing``, ``finished`` or ``abandoned``), ``ranked`` (at most one
    ranked row per player, game and date: a partial unique index),
    ``score`` (the player's final score, once finished), ``rank_key`` and
    ``created_at`` / ``finished_at``. ``rank_key`` is set only on a finished
    ranked entry and sorts best first whatever the game's direction (the
    score, or minus the score where higher wins), so that one index,
    ``(game, date, rank_key, finished_at, id)`` restricted to rows that have a
    ``rank_key``, serves a day's leaderboard page, its size and any player's
    rank (a count of better keys).

``server_secrets``
    Named secrets the server generates once and keeps (the daily-deal
    secret when ``KARTU_DAILY_SECRET`` is not set): ``name``, ``value``,
    ``created_at``.

Timestamps are timezone-aware UTC datetimes, supplied by the caller: naive
datetimes are refused, and values read back are always aware, on SQLite as
on PostgreSQL. JSON columns are ``JSON`` (``JSONB`` on PostgreSQL).
"""

from __future__ import annotations

import datetime as dt
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Dialect,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    TypeDecorator,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import make_url
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///./data/kartu.db"

ROOM_STATUSES = ("waiting", "playing", "finished", "abandoned")

DAILY_STATUSES = ("playing", "finished", "abandoned")

PLAYER_NAME_MAX = 24


def status_check(statuses: tuple[str, ...]) -> CheckConstraint:
    """The table's ``status`` column holds one of ``statuses``, on every backend."""
    values = ", ".join(f"'{status}'" for status in statuses)
    return CheckConstraint(f"status IN ({values})", name="status")


# Constraint names are fixed so that migrations can refer to them on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

JsonType = JSON().with_variant(JSONB(), "postgresql")


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that only takes aware datetimes and returns UTC ones.

    SQLite keeps no offset, so values are normalised to UTC on the way in and
    marked UTC on the way out.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(f"naive datetime {value!r}: pass a timezone-aware UTC datetime")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    name: Mapped[str] = mapped_column(String(PLAYER_NAME_MAX))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class Room(Base):
    __tablename__ = "rooms"
    __table_args__ = (
        status_check(ROOM_STATUSES),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JsonType)
    seats: Mapped[int] = mapped_column(Integer)
    owner_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL"), nullable=True
    )
    status: Mapped[str] = mapped_column(String(16), index=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class GameRecord(Base):
    """A finished game (table ``games``)."""

    __tablename__ = "games"
    # A room's games, one per number (its first, then one per rematch).
    __table_args__ = (UniqueConstraint("room_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("rooms.id", ondelete="CASCADE")
    )
    number: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JsonType)
    seed: Mapped[int] = mapped_column(BigInteger)
    actions: Mapped[list[dict[str, Any]]] = mapped_column(JsonType)
    scores: Mapped[list[int]] = mapped_column(JsonType)
    seat_names: Mapped[list[str | None]] = mapped_column(JsonType)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime())


class GameResult(Base):
    """One seat's result in a finished game (table ``game_results``)."""

    __tablename__ = "game_results"

    game_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    player_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="SET NULL"), nullable=True, index=True
    )
    name: Mapped[str] = mapped_column(String(64))
    bot: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[int] = mapped_column(Integer)
    won: Mapped[bool] = mapped_column(Boolean)


class DailyEntry(Base):
    """A daily-deal room of one player (table ``daily_entries``)."""

    __tablename__ = "daily_entries"
    __table_args__ = (
        status_check(DAILY_STATUSES),
        # One ranked game per player, game and day; practice games are not limited.
        Index("uq_daily_entries_ranked", "game", "date", "player_id", unique=True,
              sqlite_where=text("ranked"), postgresql_where=text("ranked")),
        # The leaderboard: a day's finished ranked games, best first.
        Index("ix_daily_entries_board", "game", "date", "rank_key", "finished_at", "id",
              sqlite_where=text("rank_key IS NOT NULL"),
              postgresql_where=text("rank_key IS NOT NULL")),
        # A player's stats.
        Index("ix_daily_entries_player_game", "player_id", "game"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(32))
    date: Mapped[dt.date] = mapped_column(Date)
    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE")
    )
    room_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("rooms.id", ondelete="CASCADE"), unique=True
    )
    status: Mapped[str] = mapped_column(String(16))
    ranked: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[int | None] = mapped_column(Integer, nullable=True)
    rank_key: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class ServerSecret(Base):
    """A secret the server made for itself (table ``server_secrets``)."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


def async_url(url: str) -> str:
    """``url`` with an async driver: asyncpg for PostgreSQL, aiosqlite for SQLite.

    ``postgres://`` and ``postgresql://`` (or ``postgresql+psycopg2://`` ...)
    become ``postgresql+asyncpg://``; ``sqlite://`` becomes
    ``sqlite+aiosqlite://``. Already-async URLs, and other databases, come
    back unchanged.
    """
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    backend = scheme.partition("+")[0].lower()
    if backend in ("postgres", "postgresql"):
        return url if scheme == "postgresql+asyncpg" else f"postgresql+asyncpg://{rest}"
    if backend == "sqlite":
        return url if scheme == "sqlite+aiosqlite" else f"sqlite+aiosqlite://{rest}"
    return url


def sqlite_file(url: str) -> str | None:
    """The database file path of a SQLite URL; None for other databases and memory ones."""
    parsed = make_url(async_url(url))
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    if parsed.query.get("mode") == "memory":
        return None
    return database


class RoomSnapshot(Base):
    """The last saved state of a running room (see :mod:`app.snapshots`)."""

    __tablename__ = "room_snapshots"

    room_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer)
    active: Mapped[bool] = mapped_column(Boolean, index=True)
    # JSON, serialised once by the saver (orjson): a room is saved after every
    # change, so the database only stores the bytes.
    data: Mapped[bytes] = mapped_column(LargeBinary)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class RoomLogEntry(Base):
    """One entry of a running room's action log, in order (``seq`` from 0)."""

    __tablename__ = "room_log"

    room_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    entry: Mapped[bytes] = mapped_column(LargeBinary)  # JSON, as for RoomSnapshot.data
