"""Settings from the environment (pydantic-settings).

- ``DATABASE_URL``: SQLAlchemy URL; default a SQLite file under ``./data/``.
- ``REDIS_URL``: unset = the in-process broker; set = Redis pub/sub.
- ``KARTU_SCENARIOS``: ``1`` enables scenario rooms (fixed deals, for tests).
- ``KARTU_MAX_FRAME``: largest accepted WebSocket text frame, in bytes.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=None, extra="ignore")

    database_url: str = Field(
        default="sqlite+aiosqlite:///./data/kartu.db",
        validation_alias=AliasChoices("DATABASE_URL", "database_url"),
    )
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("REDIS_URL", "redis_url")
    )
    scenarios: bool = Field(
        default=False, validation_alias=AliasChoices("KARTU_SCENARIOS", "scenarios")
    )
    max_frame_bytes: int = Field(
        default=16_384, validation_alias=AliasChoices("KARTU_MAX_FRAME", "max_frame_bytes")
    )
    # Per connection: messages a client may send per second, sustained, and
    # how far above that a burst may go before messages are refused, then
    # before the socket is closed.
    flood_rate: float = 20.0
    flood_refuse_level: float = 40.0
    flood_close_level: float = 80.0
    # Outgoing frames queued for one connection before it counts as too slow.
    send_queue_size: int = 512
    # How long a finished or empty room stays in memory, in seconds.
    room_idle_s: int = 1800
