"""Store on SQLite and PostgreSQL: players, rooms, finished games, replays, results."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import exc as sa_exc
from sqlalchemy import text

from app.db import async_url
from app.store import (
    FinishedGame,
    PlayedGame,
    PlayerRecord,
    RoomRecord,
    SeatResult,
    Store,
    token_hash,
)
from tests.services import fresh_postgres_database, running_store

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "sqlite":
        async with running_store(f"sqlite:///{tmp_path / 'data' / 'kartu.db'}") as s:
            yield s
    else:
        async with fresh_postgres_database() as url, running_store(url) as s:
            yield s


def room(room_id: str = "r1", **changes: object) -> RoomRecord:
    fields: dict[str, object] = {
        "id": room_id,
        "game": "rummy",
        "options": {"target": 100, "jokers": True},
        "seats": 2,
        "owner_id": None,
        "status": "waiting",
        "seed": 42,
    }
    fields.update(changes)
    return RoomRecord(**fields)  # type: ignore[arg-type]


def finished(
    room_id: str,
    lines: list[tuple[int, str | None, str, bool, int, bool]],
    finished_at: datetime = T0,
) -> FinishedGame:
    return FinishedGame(
        room_id=room_id,
        game="rummy",
        options={"target": 100, "jokers": True},
        seed=42,
        actions=[{"kind": "draw", "seat": 0, "from": "stock"}, {"kind": "discard", "card": "7H"}],
        scores=[line[4] for line in lines],
        seat_names=[line[2] for line in lines],
        results=lines,
        started_at=finished_at - timedelta(minutes=5),
        finished_at=finished_at,
    )


# -- URLs and lifecycle ----------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@h:5432/db", "postgresql+asyncpg://u:p@h:5432/db"),
        ("postgres://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("postgresql+psycopg2://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("postgresql+asyncpg://u@h/db", "postgresql+asyncpg://u@h/db"),
        ("sqlite:///./data/kartu.db", "sqlite+aiosqlite:///./data/kartu.db"),
        ("sqlite:////abs/kartu.db", "sqlite+aiosqlite:////abs/kartu.db"),
        ("sqlite+aiosqlite:///./data/kartu.db", "sqlite+aiosqlite:///./data/kartu.db"),
    ],
)
def test_async_url(url: str, expected: str) -> None:
    assert async_url(url) == expected


async def test_unstarted_store_refuses_work() -> None:
    s = Store("sqlite:///unused.db")
    with pytest.raises(RuntimeError, match="not started"):
        await s.create_player("ann")
    await s.close()


async def test_memory_sqlite_is_refused() -> None:
    with pytest.raises(ValueError, match="memory"):
        await Store("sqlite+aiosqlite:///:memory:").start()


async def test_start_twice_and_close_twice(store: Store) -> None:
    await store.start()
    assert (await store.create_player("ann")).name == "ann"
    await store.close()
    await store.close()


async def test_data_survives_a_restart(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}"
    first = Store(url)
    await first.start()
    ann = await first.create_player("ann")
    await first.close()
    second = Store(url)
    await second.start()
    try:
        assert ann.token is not None
        assert await second.player_by_token(ann.token) == PlayerRecord(ann.id, "ann")
    finally:
        await second.close()


async def test_sqlite_pragmas(tmp_path: Path) -> None:
    async with running_store(f"sqlite:///{tmp_path / 'kartu.db'}") as s:
        assert s.dialect == "sqlite"
        async with s.engine.connect() as conn:
            assert (await conn.execute(text("PRAGMA journal_mode"))).scalar() == "wal"
            assert (await conn.execute(text("PRAGMA foreign_keys"))).scalar() == 1
            assert (await conn.execute(text("PRAGMA busy_timeout"))).scalar() == 5000


# -- players ---------------------------------------------------------------------


async def test_create_player_and_find_by_token(store: Store) -> None:
    ann = await store.create_player("Ann ♠ Zoë")
    assert len(ann.id) == 32 and int(ann.id, 16) >= 0
    assert ann.token is not None and len(ann.token) >= 40
    assert await store.player_by_token(ann.token) == PlayerRecord(ann.id, "Ann ♠ Zoë", None)
    assert await store.player_by_token(ann.token + "x") is None
    assert await store.player_by_token("") is None
    assert await store.player_by_token(None) is None

    bob = await store.create_player("bob")
    assert bob.id != ann.id and bob.token != ann.token


async def test_only_the_token_hash_is_stored(store: Store) -> None:
    ann = await store.create_player("ann")
    assert ann.token is not None
    async with store.engine.connect() as conn:
        rows = (await conn.execute(text("SELECT * FROM players"))).all()
    assert len(rows) == 1
    row = rows[0]._mapping
    assert row["token_hash"] == hashlib.sha256(ann.token.encode()).hexdigest()
    assert row["token_hash"] == token_hash(ann.token)
    assert all(ann.token not in str(value) for value in row.values())


@pytest.mark.parametrize("name", ["", "x" * 25])
async def test_player_name_length(store: Store, name: str) -> None:
    with pytest.raises(ValueError):
        await store.create_player(name)


async def test_player_name_of_24_characters(store: Store) -> None:
    name = "é" * 24
    player = await store.create_player(name)
    assert player.token is not None
    assert (await store.player_by_token(player.token)) == PlayerRecord(player.id, name)


async def test_player_names(store: Store) -> None:
    ann = await store.create_player("ann")
    bob = await store.create_player("bob")
    assert await store.player_names([]) == {}
    assert await store.player_names([ann.id, "0" * 32]) == {ann.id: "ann"}
    assert await store.player_names(p.id for p in (ann, bob, ann)) == {
        ann.id: "ann",
        bob.id: "bob",
    }


async def test_concurrent_writes(store: Store) -> None:
    players = await asyncio.gather(*(store.create_player(f"p{i}") for i in range(20)))
    names = await store.player_names(p.id for p in players)
    assert sorted(names.values()) == sorted(f"p{i}" for i in range(20))


# -- rooms -----------------------------------------------------------------------


async def test_save_room_inserts_then_updates(store: Store) -> None:
    owner = await store.create_player("ann")
    await store.save_room(room(owner_id=owner.id, created_at=T0, updated_at=T0))
    saved = await store.room("r1")
    assert saved == room(owner_id=owner.id, created_at=T0, updated_at=T0)

    later = T0 + timedelta(minutes=3)
    await store.save_room(
        room(
            game="other",
            seats=4,
            owner_id=None,
            status="playing",
            options={"target": 200, "nested": {"list": [1, 2, "三"]}},
            seed=(1 << 63) - 1,
            created_at=later,
            updated_at=later,
        )
    )
    updated = await store.room("r1")
    # Status, options, seed and updated_at change; the rest is kept from the insert.
    assert updated == RoomRecord(
        id="r1",
        game="rummy",
        options={"target": 200, "nested": {"list": [1, 2, "三"]}},
        seats=2,
        owner_id=owner.id,
        status="playing",
        seed=(1 << 63) - 1,
        created_at=T0,
        updated_at=later,
    )
    assert await store.room("nope") is None


async def test_save_room_fills_timestamps(store: Store) -> None:
    before = datetime.now(UTC)
    await store.save_room(room())
    saved = await store.room("r1")
    assert saved is not None and saved.created_at is not None and saved.updated_at is not None
    assert saved.created_at.tzinfo == UTC
    assert before - timedelta(seconds=1) <= saved.created_at <= datetime.now(UTC)


async def test_timestamps_come_back_as_utc(store: Store) -> None:
    tz = timezone(timedelta(hours=5, minutes=30))
    await store.save_room(room(created_at=T0.astimezone(tz), updated_at=T0.astimezone(tz)))
    saved = await store.room("r1")
    assert saved is not None and saved.created_at is not None
    assert saved.created_at == T0
    assert saved.created_at.utcoffset() == timedelta(0)


async def test_naive_timestamps_are_refused(store: Store) -> None:
    naive = datetime(2024, 5, 1, 12, 0, 0)
    with pytest.raises(sa_exc.StatementError, match="naive datetime"):
        await store.save_room(room(created_at=naive, updated_at=naive))


async def test_room_validation(store: Store) -> None:
    with pytest.raises(ValueError, match="status"):
        await store.save_room(room(status="lost"))
    with pytest.raises(ValueError, match="64-bit"):
        await store.save_room(room(seed=1 << 63))
    assert await store.room("r1") is None


async def test_set_room_status(store: Store) -> None:
    await store.save_room(room(created_at=T0, updated_at=T0))
    assert await store.set_room_status("r1", "abandoned") is True
    saved = await store.room("r1")
    assert saved is not None and saved.status == "abandoned"
    assert saved.updated_at is not None and saved.updated_at > T0
    assert await store.set_room_status("missing", "playing") is False
    with pytest.raises(ValueError):
        await store.set_room_status("r1", "paused")


# -- finished games --------------------------------------------------------------


async def test_save_finished_game_and_replay(store: Store) -> None:
    ann = await store.create_player("ann")
    await store.save_room(room(status="playing", created_at=T0, updated_at=T0))
    game = finished(
        "r1",
        [SeatResult(0, ann.id, "ann", False, 12, False), (1, None, "Bot Bea", True, 30, True)],
        finished_at=T0 + timedelta(hours=1),
    )
    game_id = await store.save_finished_game(game)
    assert isinstance(game_id, int)

    saved = await store.room("r1")
    assert saved is not None
    assert saved.status == "finished"
    assert saved.updated_at == T0 + timedelta(hours=1)

    record = await store.replay("r1")
    assert record is not None
    assert {k: record[k] for k in ("game", "options", "seed", "actions")} == {
        "game": "rummy",
        "options": {"target": 100, "jokers": True},
        "seed": 42,
        "actions": [
            {"kind": "draw", "seat": 0, "from": "stock"},
            {"kind": "discard", "card": "7H"},
        ],
    }
    assert record["players"] == len(game.seat_names) == len(record["seat_names"])
    assert record["scores"] == list(game.scores)
    assert record["started_at"] == round(game.started_at.timestamp() * 1000)
    assert await store.replay("missing") is None


async def test_replay_of_unfinished_room_is_none(store: Store) -> None:
    await store.save_room(room(status="playing"))
    assert await store.replay("r1") is None


async def test_a_room_has_one_finished_game_of_each_number(store: Store) -> None:
    await store.save_room(room(status="playing"))
    await store.save_finished_game(finished("r1", [(0, None, "bot", True, 1, True)]))
    with pytest.raises(sa_exc.IntegrityError):
        await store.save_finished_game(finished("r1", [(0, None, "bot", True, 1, True)]))
    # A rematch is the room's next game: both are kept, the latest is replayed.
    second = dataclasses.replace(finished("r1", [(0, None, "bot", True, 2, True)]), number=2,
                                 seed=99)
    await store.save_finished_game(second)
    latest = await store.replay("r1")
    first = await store.replay("r1", 1)
    assert latest is not None and first is not None
    assert (latest["number"], latest["seed"]) == (2, 99)
    assert first["number"] == 1 and first["seed"] != 99
    assert await store.replay("r1", 3) is None


async def test_finished_game_needs_its_room(store: Store) -> None:
    with pytest.raises(sa_exc.IntegrityError):
        await store.save_finished_game(finished("ghost", [(0, None, "bot", True, 1, True)]))
    assert await store.replay("ghost") is None


async def test_save_finished_game_is_one_transaction(store: Store) -> None:
    ann = await store.create_player("ann")
    await store.save_room(room(status="playing"))
    duplicate_seat = [(0, ann.id, "ann", False, 1, True), (0, None, "bot", True, 0, False)]
    with pytest.raises(sa_exc.IntegrityError):
        await store.save_finished_game(finished("r1", duplicate_seat))
    assert await store.replay("r1") is None
    assert await store.recent_results(ann.id, 10) == []
    saved = await store.room("r1")
    assert saved is not None and saved.status == "playing"


async def test_recent_results(store: Store) -> None:
    ann = await store.create_player("ann")
    bob = await store.create_player("bob")
    times = [T0 + timedelta(hours=h) for h in (2, 0, 1)]  # saved out of order
    for i, at in enumerate(times):
        room_id = f"r{i}"
        await store.save_room(room(room_id, status="playing"))
        await store.save_finished_game(
            finished(
                room_id,
                [
                    (0, bob.id, "bob", False, 10 * i, False),
                    (1, ann.id, "ann", False, 5 + i, True),
                    (2, None, "Bot Bea", True, 0, False),
                ],
                finished_at=at,
            )
        )
    await store.save_room(room("solo", status="playing"))
    await store.save_finished_game(
        finished("solo", [(0, bob.id, "bob", False, 99, True)], finished_at=T0 + timedelta(days=1))
    )

    results = await store.recent_results(ann.id, 10)
    assert [r.room_id for r in results] == ["r0", "r2", "r1"]
    first = results[0]
    assert first == PlayedGame(
        game_id=first.game_id,
        room_id="r0",
        game="rummy",
        seat=1,
        score=5,
        won=True,
        scores=[0, 5, 0],
        seat_names=["bob", "ann", "Bot Bea"],
        started_at=T0 + timedelta(hours=2) - timedelta(minutes=5),
        finished_at=T0 + timedelta(hours=2),
        options={"target": 100, "jokers": True},
    )
    assert [r.room_id for r in await store.recent_results(ann.id, 2)] == ["r0", "r2"]
    assert await store.recent_results(ann.id, 0) == []
    assert [r.room_id for r in await store.recent_results(bob.id, 2)] == ["solo", "r0"]
    assert await store.recent_results("0" * 32, 5) == []
