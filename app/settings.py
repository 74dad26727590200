"""Settings from the environment (pydantic-settings).

- ``DATABASE_URL``: SQLAlchemy URL; default a SQLite file under ``./data/``.
- ``REDIS_URL``: unset = the in-process broker; set = Redis pub/sub.
- ``KARTU_SCENARIOS``: ``1`` enables scenario rooms (fixed deals, for tests).
- ``KARTU_MAX_FRAME``: largest accepted WebSocket text frame, in bytes.
- ``KARTU_DAILY_SECRET``: the secret the daily deals' seeds derive from;
  unset = one the server generates once and keeps in the database.
- ``KARTU_DAILY_OPTIONS``: JSON ``{game: {option: value}}`` laid over the
  daily-deal options of app/daily.py (e.g. shorter matches on a test server).
- ``KARTU_SEND_BUFFER``: bytes that may wait for one client's socket (on the
  direct frame path of app/wsprotocol.py) before it is dropped as too slow.
- ``KARTU_SOCKET_BUFFER``: the kernel's send buffer (``SO_SNDBUF``) of each
  such socket; small, so that what the kernel holds stays within reach of
  the two bounds here. ``0``: the kernel's default (it grows to megabytes).
- ``KARTU_WRITE_STALL_S``: seconds a client's socket may go without taking
  all that waits for it (on the direct frame path) before it is dropped:
  a client that never reads goes, however little its rooms send.
- ``KARTU_MAX_JSON_DEPTH``: deepest nesting a WebSocket frame may have.
- ``KARTU_MAX_BODY``: largest HTTP request body, in bytes (413 above).
- ``KARTU_GUESTS_BURST`` / ``KARTU_GUESTS_PER_MIN``, ``KARTU_ROOMS_BURST`` /
  ``KARTU_ROOMS_PER_MIN``: per client address, how many guests (rooms) may
  be created at once and how fast that allowance refills (burst 0: no limit).
- ``KARTU_MAX_OPEN_ROOMS``: rooms one player may own that are waiting or
  being played (0: no cap).
- ``KARTU_MAX_WS_PER_ADDRESS``: open game sockets per client address (0: no cap).
- ``KARTU_JOIN_COST``: how many messages a ``join`` or ``leave`` counts as
  in a connection's flood level.
"""

from __future__ import annotations

from typing import Any

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
    # Keys of this deployment in Redis (several deployments may share one Redis).
    redis_prefix: str = Field(
        default="kartu", validation_alias=AliasChoices("KARTU_REDIS_PREFIX", "redis_prefix")
    )
    scenarios: bool = Field(
        default=False, validation_alias=AliasChoices("KARTU_SCENARIOS", "scenarios")
    )
    max_frame_bytes: int = Field(
        default=16_384, validation_alias=AliasChoices("KARTU_MAX_FRAME", "max_frame_bytes")
    )
    # Deepest nesting of arrays and objects a WebSocket frame may have (the
    # deepest a valid message needs is 4: close's list of melds in an act).
    max_json_depth: int = Field(
        default=8, validation_alias=AliasChoices("KARTU_MAX_JSON_DEPTH", "max_json_depth")
    )
    daily_secret: str | None = Field(
        default=None, validation_alias=AliasChoices("KARTU_DAILY_SECRET", "daily_secret")
    )
    daily_options: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        validation_alias=AliasChoices("KARTU_DAILY_OPTIONS", "daily_options"),
    )
    # Per connection: messages a client may send per second, sustained, and
    # how far above that a burst may go before messages are refused, then
    # before the socket is closed.
    flood_rate: float = 20.0
    flood_refuse_level: float = 40.0
    flood_close_level: float = 80.0
    # When one connection counts as too slow: bytes waiting for its socket on
    # the direct frame path (python -m app), or frames queued on other servers.
    send_buffer_bytes: int = Field(
        default=1_048_576,
        validation_alias=AliasChoices("KARTU_SEND_BUFFER", "send_buffer_bytes"),
    )
    send_queue_size: int = 512
    socket_send_buffer: int = Field(
        default=65_536,
        validation_alias=AliasChoices("KARTU_SOCKET_BUFFER", "socket_send_buffer"),
    )
    write_stall_s: float = Field(
        default=10.0, validation_alias=AliasChoices("KARTU_WRITE_STALL_S", "write_stall_s"),
    )
    # What one client may ask for (app/edge.py, app/api.py, app/gateway.py).
    max_body_bytes: int = Field(
        default=16_384, validation_alias=AliasChoices("KARTU_MAX_BODY", "max_body_bytes"))
    guests_burst: int = Field(
        default=20, validation_alias=AliasChoices("KARTU_GUESTS_BURST", "guests_burst"))
    guests_per_min: float = Field(
        default=30, validation_alias=AliasChoices("KARTU_GUESTS_PER_MIN", "guests_per_min"))
    rooms_burst: int = Field(
        default=20, validation_alias=AliasChoices("KARTU_ROOMS_BURST", "rooms_burst"))
    rooms_per_min: float = Field(
        default=30, validation_alias=AliasChoices("KARTU_ROOMS_PER_MIN", "rooms_per_min"))
    max_open_rooms: int = Field(
        default=5, validation_alias=AliasChoices("KARTU_MAX_OPEN_ROOMS", "max_open_rooms"))
    max_ws_per_address: int = Field(
        default=64,
        validation_alias=AliasChoices("KARTU_MAX_WS_PER_ADDRESS", "max_ws_per_address"))
    # A join or leave is several messages' worth: each one sends frames to
    # every member of the room, so cycling them is a flood of its own.
    join_cost: float = Field(
        default=5, validation_alias=AliasChoices("KARTU_JOIN_COST", "join_cost"))
    # How long a finished or empty room stays in memory, in seconds.
    room_idle_s: int = 1800
