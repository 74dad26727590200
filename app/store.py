"""Persistence: the only place kartu talks SQL.

:class:`Store` wraps an async SQLAlchemy engine (SQLite via aiosqlite, or
PostgreSQL via asyncpg). ``start()`` first brings the schema to the latest
migration, so a fresh database works out of the box. Records going in and
out are small frozen dataclasses defined here; the ORM models (app/db.py)
never leave this module.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import Select, case, delete, event, func, select, text, true, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from app.db import (
    PLAYER_NAME_MAX,
    ROOM_STATUSES,
    DailyEntry,
    GameRecord,
    GameResult,
    Player,
    Room,
    RoomLogEntry,
    RoomSnapshot,
    ServerSecret,
    async_url,
    sqlite_file,
)
from app.migrate import migrate

SQLITE_BUSY_TIMEOUT_MS = 5000
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


@dataclass(frozen=True)
class PlayerRecord:
    """A guest player. ``token`` is set only when the player was just created."""

    id: str
    name: str
    token: str | None = None


@dataclass(frozen=True)
class RoomRecord:
    """A room as saved. Timestamps left None are filled with the current time."""

    id: str
    game: str
    options: dict[str, Any]
    seats: int
    owner_id: str | None
    status: str
    seed: int
    created_at: datetime | None = None
    updated_at: datetime | None = None


class SeatResult(NamedTuple):
    """One seat's line in a finished game; a plain 6-tuple in the same order works too."""

    seat: int
    player_id: str | None
    name: str
    bot: bool
    score: int
    won: bool


@dataclass(frozen=True)
class FinishedGame:
    """Everything kept about a finished game: enough to replay it, and the results."""

    room_id: str
    game: str
    options: dict[str, Any]
    seed: int
    actions: Sequence[dict[str, Any]]
    scores: Sequence[int]
    seat_names: Sequence[str | None]
    results: Sequence[tuple[int, str | None, str, bool, int, bool]]
    started_at: datetime
    finished_at: datetime
    number: int = 1  # the room's first game, or a rematch's number


@dataclass(frozen=True)
class PlayedGame:
    """A finished game from one player's point of view (see :meth:`Store.recent_results`)."""

    game_id: int
    room_id: str
    game: str
    seat: int
    score: int
    won: bool
    scores: list[int]
    seat_names: list[str | None]
    started_at: datetime
    finished_at: datetime
    options: dict[str, Any]


@dataclass(frozen=True)
class DailyEntryRecord:
    """One daily-deal room of one player (see :class:`app.db.DailyEntry`)."""

    id: int
    game: str
    date: dt.date
    player_id: str
    room_id: str
    status: str
    ranked: bool
    score: int | None
    rank_key: int | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class BoardLine:
    """A line of a day's leaderboard; ``rank`` is shared by equal scores (1, 2, 2, 4)."""

    rank: int
    player_id: str
    name: str
    score: int
    finished_at: datetime


@dataclass(frozen=True)
class DailyStats:
    """A player's ranked, finished daily games of one game."""

    game: str
    played: int
    high: int | None
    low: int | None
    average: float | None


def token_hash(token: str) -> str:
    """The sha256 hex digest under which a guest token is stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _check_seed(seed: int) -> int:
    if not _INT64_MIN <= seed <= _INT64_MAX:
        raise ValueError(f"seed {seed} does not fit a signed 64-bit integer")
    return seed


def _daily_record(row: DailyEntry) -> DailyEntryRecord:
    return DailyEntryRecord(
        id=row.id, game=row.game, date=row.date, player_id=row.player_id, room_id=row.room_id,
        status=row.status, ranked=row.ranked, score=row.score, rank_key=row.rank_key,
        created_at=row.created_at, finished_at=row.finished_at,
    )


# The leaderboard's statements. Each one is a range of ix_daily_entries_board:
# ``rank_key IS NOT NULL`` is the index's predicate, spelled the same way so
# that the planner can use it with bound parameters and generic plans too.


def _on_board(game: str, day: dt.date) -> Any:
    return (
        (DailyEntry.game == game)
        & (DailyEntry.date == day)
        & DailyEntry.rank_key.is_not(None)
    )


def leaderboard_select(game: str, day: dt.date, limit: int) -> Select:
    """A day's finished ranked games, best first (earlier finish first among equals)."""
    return (
        select(DailyEntry.player_id, Player.name, DailyEntry.score, DailyEntry.rank_key,
               DailyEntry.finished_at)
        .join(Player, Player.id == DailyEntry.player_id)
        .where(_on_board(game, day))
        .order_by(DailyEntry.rank_key, DailyEntry.finished_at, DailyEntry.id)
        .limit(limit)
    )


def better_count_select(game: str, day: dt.date, rank_key: int) -> Select:
    """How many of the day's ranked games are strictly better than ``rank_key``."""
    return (
        select(func.count())
        .select_from(DailyEntry)
        .where(_on_board(game, day) & (DailyEntry.rank_key < rank_key))
    )


def board_size_select(game: str, day: dt.date) -> Select:
    """How many ranked games of that game and day are finished."""
    return select(func.count()).select_from(DailyEntry).where(_on_board(game, day))


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        # In WAL mode NORMAL keeps every commit safe from a crash of the
        # process (what room saves are for) without an fsync per commit;
        # only a power cut can take back the last commits.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


class Store:
    """Players, rooms and finished games in one database.

    ``Store(url)`` does nothing until ``await store.start()``; ``close()``
    releases the connections. Every method is a short transaction of its own.
    """

    def __init__(self, database_url: str) -> None:
        self.database_url = async_url(database_url)
        self._engine: AsyncEngine | None = None
        self._sessions: async_sessionmaker[AsyncSession] | None = None

    # -- lifecycle -------------------------------------------------------------

    async def start(self) -> None:
        """Migrates the schema to the latest revision, then opens the engine."""
        if self._engine is not None:
            return
        is_sqlite = self.database_url.startswith("sqlite")
        if is_sqlite and sqlite_file(self.database_url) is None:
            # Migrations run on their own connection, which a memory database
            # would not share.
            raise ValueError("Store needs a SQLite file (or PostgreSQL), not a memory database")
        await migrate(self.database_url)
        engine = create_async_engine(self.database_url, pool_pre_ping=not is_sqlite)
        if is_sqlite:
            event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        self._engine = engine
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)

    async def close(self) -> None:
        engine, self._engine, self._sessions = self._engine, None, None
        if engine is not None:
            await engine.dispose()

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql`` (the store must be started)."""
        return self.engine.dialect.name

    @property
    def engine(self) -> AsyncEngine:
        """The started store's engine."""
        if self._engine is None:
            raise RuntimeError("Store is not started (await store.start())")
        return self._engine

    def _session(self) -> AsyncSession:
        if self._sessions is None:
            raise RuntimeError("Store is not started (await store.start())")
        return self._sessions()

    # -- players ---------------------------------------------------------------

    async def create_player(self, name: str) -> PlayerRecord:
        """A new guest player; the returned record carries the token (shown once)."""
        if not 1 <= len(name) <= PLAYER_NAME_MAX:
            raise ValueError(f"player name must be 1..{PLAYER_NAME_MAX} characters")
        token = secrets.token_urlsafe(32)
        player = Player(
            id=secrets.token_hex(16), name=name, token_hash=token_hash(token), created_at=_now()
        )
        async with self._session() as session, session.begin():
            session.add(player)
        return PlayerRecord(id=player.id, name=player.name, token=token)

    async def player_by_token(self, token: str | None) -> PlayerRecord | None:
        """The player holding ``token``, or None (the record's ``token`` is None)."""
        if not token:
            return None
        async with self._session() as session:
            player = await session.scalar(
                select(Player).where(Player.token_hash == token_hash(token))
            )
        return None if player is None else PlayerRecord(id=player.id, name=player.name)

    async def replace_token(self, player_id: str, token: str, *, keep: bool = True
                            ) -> str | None:
        """Replaces the player's token ``token`` (which stops working at once).

        ``keep``: the new token is returned (a rotation); otherwise nobody is
        told it and the player can no longer be acted for (a sign-out: the
        row keeps a hash, as the column wants one, of a token nobody has).
        None if ``token`` is not the player's current one: two rotations at
        once cannot both win.
        """
        new = secrets.token_urlsafe(32)
        async with self._session() as session, session.begin():
            result = await session.execute(
                update(Player)
                .where(Player.id == player_id, Player.token_hash == token_hash(token))
                .values(token_hash=token_hash(new)))
        if getattr(result, "rowcount", 0) != 1:
            return None
        return new if keep else ""

    async def player_names(self, ids: Iterable[str]) -> dict[str, str]:
        """``{id: name}`` for the ids that exist (unknown ids are left out)."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        async with self._session() as session:
            rows = await session.execute(
                select(Player.id, Player.name).where(Player.id.in_(wanted))
            )
            return {pid: name for pid, name in rows}

    # -- rooms -----------------------------------------------------------------

    async def save_room(self, room: RoomRecord) -> None:
        """Inserts the room, or updates its status, options, seed and ``updated_at``."""
        if room.status not in ROOM_STATUSES:
            raise ValueError(f"unknown room status {room.status!r}")
        now = _now()
        values = {
            "id": room.id,
            "game": room.game,
            "options": room.options,
            "seats": room.seats,
            "owner_id": room.owner_id,
            "status": room.status,
            "seed": _check_seed(room.seed),
            "created_at": room.created_at or now,
            "updated_at": room.updated_at or now,
        }
        insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        stmt = insert(Room).values(**values)
        stmt = stmt.on_conflict_do_update(
            index_elements=[Room.id],
            set_={
                "status": stmt.excluded.status,
                "updated_at": stmt.excluded.updated_at,
                "options": stmt.excluded.options,
                "seed": stmt.excluded.seed,
            },
        )
        async with self._session() as session, session.begin():
            await session.execute(stmt)

    async def set_room_status(self, room_id: str, status: str) -> bool:
        """Sets a room's status (and ``updated_at``); False if there is no such room."""
        if status not in ROOM_STATUSES:
            raise ValueError(f"unknown room status {status!r}")
        async with self._session() as session, session.begin():
            result = await session.execute(
                update(Room)
                .where(Room.id == room_id)
                .values(status=status, updated_at=_now())
                .returning(Room.id)
            )
            return result.first() is not None

    async def room(self, room_id: str) -> RoomRecord | None:
        """The saved room, or None."""
        async with self._session() as session:
            row = await session.get(Room, room_id)
        if row is None:
            return None
        return RoomRecord(
            id=row.id,
            game=row.game,
            options=row.options,
            seats=row.seats,
            owner_id=row.owner_id,
            status=row.status,
            seed=row.seed,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    # -- finished games --------------------------------------------------------

    async def save_finished_game(self, finished: FinishedGame) -> int:
        """Records a finished game and marks its room finished, in one transaction.

        The room must have been saved first. Returns the game's id; a second
        game of the same room and number is refused
        (``sqlalchemy.exc.IntegrityError``).
        """
        results = [SeatResult(*line) for line in finished.results]
        record = GameRecord(
            room_id=finished.room_id,
            number=finished.number,
            game=finished.game,
            options=finished.options,
            seed=_check_seed(finished.seed),
            actions=list(finished.actions),
            scores=list(finished.scores),
            seat_names=list(finished.seat_names),
            started_at=finished.started_at,
            finished_at=finished.finished_at,
        )
        async with self._session() as session, session.begin():
            session.add(record)
            await session.flush()
            session.add_all(
                GameResult(
                    game_id=record.id,
                    seat=line.seat,
                    player_id=line.player_id,
                    name=line.name,
                    bot=line.bot,
                    score=line.score,
                    won=line.won,
                )
                for line in results
            )
            await session.execute(
                update(Room)
                .where(Room.id == finished.room_id)
                .values(status="finished", updated_at=finished.finished_at)
            )
        return record.id

    async def replay(self, room_id: str, number: int | None = None) -> dict[str, Any] | None:
        """The record of the room's finished game ``number`` (None: its latest), or None.

        ``{"game", "options", "seed", "actions"}`` replay it; ``players`` and
        ``started_at`` (epoch ms, the ``now`` of the first deal) complete it, and
        ``seat_names`` and ``scores`` say who played and how it ended.
        """
        async with self._session() as session:
            row = (
                await session.execute(
                    select(
                        GameRecord.game, GameRecord.options, GameRecord.seed, GameRecord.actions,
                        GameRecord.seat_names, GameRecord.scores, GameRecord.started_at,
                        GameRecord.number,
                    ).where(GameRecord.room_id == room_id)
                    .where(GameRecord.number == number if number is not None else true())
                    .order_by(GameRecord.number.desc()).limit(1)
                )
            ).first()
        if row is None:
            return None
        return {
            "game": row.game, "options": row.options, "seed": row.seed, "actions": row.actions,
            "players": len(row.seat_names), "seat_names": row.seat_names, "scores": row.scores,
            "started_at": round(row.started_at.timestamp() * 1000),
            "number": row.number,
        }

    async def recent_results(self, player_id: str, limit: int = 20) -> list[PlayedGame]:
        """The finished games ``player_id`` sat in, newest first, at most ``limit``."""
        if limit <= 0:
            return []
        async with self._session() as session:
            rows = await session.execute(
                select(GameRecord, GameResult.seat, GameResult.score, GameResult.won)
                .join(GameResult, GameResult.game_id == GameRecord.id)
                .where(GameResult.player_id == player_id)
                .order_by(GameRecord.finished_at.desc(), GameRecord.id.desc())
                .limit(limit)
            )
            return [
                PlayedGame(
                    game_id=game.id,
                    room_id=game.room_id,
                    game=game.game,
                    seat=seat,
                    score=score,
                    won=won,
                    scores=list(game.scores),
                    seat_names=list(game.seat_names),
                    started_at=game.started_at,
                    finished_at=game.finished_at,
                    options=game.options,
                )
                for game, seat, score, won in rows
            ]

    # -- server secrets --------------------------------------------------------

    async def server_secret(self, name: str) -> str:
        """The secret called ``name``, made (random, 256 bits) and kept on first use.

        Safe to race: every caller, in any process, gets the value that was
        stored first.
        """
        insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        stmt = insert(ServerSecret).values(
            name=name, value=secrets.token_hex(32), created_at=_now()
        ).on_conflict_do_nothing(index_elements=[ServerSecret.name])
        async with self._session() as session, session.begin():
            await session.execute(stmt)
            value = await session.scalar(
                select(ServerSecret.value).where(ServerSecret.name == name)
            )
        assert value is not None
        return value

    # -- daily deal ------------------------------------------------------------

    async def create_daily_entry(self, game: str, day: dt.date, player_id: str, room_id: str,
                                 *, ranked: bool) -> DailyEntryRecord:
        """A new ``playing`` entry for a daily room (the room must be saved first).

        A second ranked entry for the same player, game and day is refused
        (``sqlalchemy.exc.IntegrityError``).
        """
        row = DailyEntry(game=game, date=day, player_id=player_id, room_id=room_id,
                         status="playing", ranked=ranked, created_at=_now())
        async with self._session() as session, session.begin():
            session.add(row)
        return _daily_record(row)

    async def ranked_daily_entry(self, game: str, day: dt.date, player_id: str
                                 ) -> DailyEntryRecord | None:
        """The player's ranked entry of that game and day, or None."""
        async with self._session() as session:
            row = await session.scalar(
                select(DailyEntry).where(
                    (DailyEntry.game == game) & (DailyEntry.date == day)
                    & (DailyEntry.player_id == player_id) & DailyEntry.ranked
                )
            )
        return None if row is None else _daily_record(row)

    async def board_rooms(self, game: str, day: dt.date, player_ids: list[str]
                          ) -> dict[str, str]:
        """The rooms of those players' ranked games of that game and day, by player."""
        if not player_ids:
            return {}
        async with self._session() as session:
            rows = await session.execute(
                select(DailyEntry.player_id, DailyEntry.room_id).where(
                    _on_board(game, day) & DailyEntry.player_id.in_(player_ids)
                    & DailyEntry.ranked
                )
            )
            return {row.player_id: row.room_id for row in rows}

    async def daily_entry_for_room(self, room_id: str) -> DailyEntryRecord | None:
        """The daily entry played in that room, or None (not a daily room)."""
        async with self._session() as session:
            row = await session.scalar(select(DailyEntry).where(DailyEntry.room_id == room_id))
        return None if row is None else _daily_record(row)

    async def daily_date(self, room_id: str) -> dt.date | None:
        """The day whose deal the room plays, or None when it is not a daily room."""
        async with self._session() as session:
            day: dt.date | None = await session.scalar(
                select(DailyEntry.date).where(DailyEntry.room_id == room_id)
            )
        return day

    async def finish_daily_entry(self, room_id: str, score: int, rank_key: int,
                                 finished_at: datetime) -> bool:
        """Records the final score of a ``playing`` entry; False if there is none.

        ``rank_key`` (lower is better) is kept only for a ranked entry: that
        puts it on the leaderboard.
        """
        async with self._session() as session, session.begin():
            result = await session.execute(
                update(DailyEntry)
                .where((DailyEntry.room_id == room_id) & (DailyEntry.status == "playing"))
                .values(status="finished", score=score, finished_at=finished_at,
                        rank_key=case((DailyEntry.ranked, rank_key), else_=None))
                .returning(DailyEntry.id)
            )
            return result.first() is not None

    async def abandon_daily_entry(self, room_id: str) -> bool:
        """Marks a ``playing`` entry ``abandoned`` (for good); False if there is none."""
        async with self._session() as session, session.begin():
            result = await session.execute(
                update(DailyEntry)
                .where((DailyEntry.room_id == room_id) & (DailyEntry.status == "playing"))
                .values(status="abandoned")
                .returning(DailyEntry.id)
            )
            return result.first() is not None

    async def leaderboard(self, game: str, day: dt.date, limit: int) -> list[BoardLine]:
        """The day's best ``limit`` ranked games, with competition ranks (1, 2, 2, 4)."""
        if limit <= 0:
            return []
        async with self._session() as session:
            rows = (await session.execute(leaderboard_select(game, day, limit))).all()
        lines: list[BoardLine] = []
        previous: int | None = None
        rank = 0
        for position, row in enumerate(rows, start=1):
            if row.rank_key != previous:
                rank, previous = position, row.rank_key
            lines.append(BoardLine(rank=rank, player_id=row.player_id, name=row.name,
                                   score=row.score, finished_at=row.finished_at))
        return lines

    async def board_size(self, game: str, day: dt.date) -> int:
        """How many ranked games of that game and day are finished."""
        async with self._session() as session:
            return int(await session.scalar(board_size_select(game, day)) or 0)

    async def daily_rank(self, game: str, day: dt.date, rank_key: int) -> int:
        """The rank ``rank_key`` has on that day's leaderboard: 1 + the number of better ones."""
        async with self._session() as session:
            better = await session.scalar(better_count_select(game, day, rank_key))
        return 1 + int(better or 0)

    async def daily_stats(self, player_id: str, game: str | None = None) -> list[DailyStats]:
        """Per game, the player's finished ranked dailies: count, highest, lowest, mean."""
        query = (
            select(DailyEntry.game, func.count(), func.max(DailyEntry.score),
                   func.min(DailyEntry.score), func.avg(DailyEntry.score))
            .where((DailyEntry.player_id == player_id) & DailyEntry.rank_key.is_not(None))
            .group_by(DailyEntry.game)
            .order_by(DailyEntry.game)
        )
        if game is not None:
            query = query.where(DailyEntry.game == game)
        async with self._session() as session:
            rows = (await session.execute(query)).all()
        return [
            DailyStats(game=name, played=int(played), high=high, low=low,
                       average=None if mean is None else float(mean))
            for name, played, high, low, mean in rows
        ]

    async def ping(self) -> None:
        """One round trip to the database (a health probe); raises if it cannot be reached."""
        async with self.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    # -- running rooms ----------------------------------------------------------

    async def save_room_snapshots(
        self, saves: Sequence[tuple[str, int, bytes | None, int, Sequence[bytes], bool]],
        rewrites: Sequence[tuple[str, int]] = (),
    ) -> None:
        """Saves several rooms in one transaction (group commit).

        Each save is ``(room_id, version, snapshot, log_base, new_entries,
        active)``, the snapshot and entries already serialised (JSON bytes):
        the snapshot replaces the room's last one and the entries are its
        action log from position ``log_base`` on (already saved positions are
        left alone, so a save may be repeated). A save without a snapshot
        (None) only appends its entries. ``rewrites``: ``(room_id, seq)``,
        drop the room's entries from ``seq`` on first (the save after a failed
        one, which may have landed: see :class:`app.snapshots.RoomSave`).
        """
        if not saves:
            return
        now = _now()
        upsert, append = self._snapshot_statements()
        snapshot_rows = [
            {"room_id": room_id, "version": version, "active": active, "data": data,
             "updated_at": now}
            for room_id, version, data, _, _, active in saves
            if data is not None
        ]
        log_rows = [
            {"room_id": room_id, "seq": base + i, "entry": entry}
            for room_id, _, _, base, entries, _ in saves
            for i, entry in enumerate(entries)
        ]
        # Core executemany, no ORM session: this runs on every change of every room.
        async with self.engine.begin() as connection:
            for room_id, seq in rewrites:
                await connection.execute(delete(RoomLogEntry).where(
                    RoomLogEntry.room_id == room_id, RoomLogEntry.seq >= seq))
            if snapshot_rows:
                await connection.execute(upsert, snapshot_rows)
            if log_rows:
                await connection.execute(append, log_rows)

    @functools.cache  # noqa: B019 - one Store per app; the statements never change
    def _snapshot_statements(self) -> tuple[Any, Any]:
        """The snapshot upsert and the log append, built once (this runs on every change)."""
        insert = postgresql.insert if self.dialect == "postgresql" else sqlite.insert
        upsert = insert(RoomSnapshot)
        upsert = upsert.on_conflict_do_update(
            index_elements=[RoomSnapshot.room_id],
            set_={"version": upsert.excluded.version, "active": upsert.excluded.active,
                  "data": upsert.excluded.data, "updated_at": upsert.excluded.updated_at},
        )
        return upsert, insert(RoomLogEntry).on_conflict_do_nothing()

    async def load_room_snapshot(self, room_id: str) -> tuple[bytes, list[bytes]] | None:
        """A room's last snapshot and its whole action log (JSON bytes), or None."""
        async with self._session() as session:
            data = await session.scalar(
                select(RoomSnapshot.data).where(RoomSnapshot.room_id == room_id)
            )
            if data is None:
                return None
            entries = await session.scalars(
                select(RoomLogEntry.entry)
                .where(RoomLogEntry.room_id == room_id)
                .order_by(RoomLogEntry.seq)
            )
            return data, list(entries)

    async def active_room_snapshots(self) -> list[str]:
        """Rooms saved while waiting or playing: the ones to resume after a restart."""
        async with self._session() as session:
            rows = await session.scalars(
                select(RoomSnapshot.room_id).where(RoomSnapshot.active.is_(True))
                .order_by(RoomSnapshot.room_id)
            )
            return list(rows)


__all__ = [
    "BoardLine",
    "DailyEntryRecord",
    "DailyStats",
    "FinishedGame",
    "PlayedGame",
    "PlayerRecord",
    "RoomRecord",
    "SeatResult",
    "Store",
    "token_hash",
]
