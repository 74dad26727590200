"""The daily deal and its leaderboards.

Pure rules first (days, seeds, options), then the store's ranking on SQLite
and PostgreSQL, then the app in process (with a day a test can move), then a
real uvicorn played over real WebSockets.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import exc as sa_exc

from app.daily import (
    DAILY_BOT_DELAY_MS,
    daily_setup,
    day_is_over,
    day_seed,
    rank_key,
    seed_hash,
)
from app.main import create_app
from app.settings import Settings
from app.store import RoomRecord, Store
from engine.bots.basic_rummy import choose
from engine.games import all_games
from engine.replay import replay
from engine.rng import Rng, derive_seed
from engine.room import Act, Snapshot
from tests.games import known_game
from tests.live import LiveServer
from tests.services import fresh_postgres_database, running_store
from tests.waiting import wait_for
from tests.wsclient import Client, new_guest

DAY = dt.date(2024, 5, 1)
T0 = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)
# One deal, bots without a pause: a daily game a test can play to the end in seconds.
SHORT = {"basic_rummy": {"deals": 1, "bot_delay_ms": 0}}
SHORT_ENV = {"KARTU_DAILY_OPTIONS": json.dumps(SHORT)}
GAME_EVENTS = {"deal_started", "drew", "stock_turned", "melded", "laid_off", "discarded",
               "deal_over", "game_over"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def sha(game: str, day: str, seed: int) -> str:
    return hashlib.sha256(f"kartu-daily:{game}:{day}:{seed}".encode()).hexdigest()


# --- rules ------------------------------------------------------------------------


def test_a_day_is_over_only_once_it_is_in_the_past() -> None:
    assert not day_is_over(DAY, DAY)
    assert not day_is_over(DAY + dt.timedelta(days=1), DAY)
    assert day_is_over(DAY, DAY + dt.timedelta(days=1))
    assert day_is_over(DAY - dt.timedelta(days=30), DAY)


def test_seeds_depend_on_secret_game_and_day() -> None:
    seed = day_seed("s1", "basic_rummy", DAY)
    assert seed == day_seed("s1", "basic_rummy", DAY)
    assert 0 <= seed < 2**63
    others = {day_seed("s2", "basic_rummy", DAY), day_seed("s1", "remmi_demmi", DAY),
              day_seed("s1", "basic_rummy", DAY + dt.timedelta(days=1))}
    assert seed not in others and len(others) == 3
    assert seed_hash("basic_rummy", DAY, seed) == sha("basic_rummy", "2024-05-01", seed)


_MASK = (1 << 64) - 1
_FNV_PRIME = 0x100000001B3


def _tomorrow_from_revealed(revealed: int, game: str, day: dt.date) -> set[int]:
    """Candidates for the next day's seed, assuming ``seed = derive_seed(secret, game, day)``.

    derive_seed is FNV-1a then one SplitMix64 step: both invertible. From a
    revealed seed the hash state after the secret comes back, and with it any
    other day's seed: the reason the daily seed goes through an HMAC first.
    """

    def unshift(z: int, s: int) -> int:
        x = z
        for _ in range(64 // s + 1):
            x = z ^ (x >> s)
        return x & _MASK

    def unmix(z: int) -> int:
        z = unshift(z, 31)
        z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _MASK
        z = unshift(z, 27)
        z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _MASK
        z = unshift(z, 30)
        return (z - 0x9E3779B97F4A7C15) & _MASK

    def fnv(h: int, data: bytes) -> int:
        for byte in data:
            h = ((h ^ byte) * _FNV_PRIME) & _MASK
        return h

    def unfnv(h: int, data: bytes) -> int:
        inverse = pow(_FNV_PRIME, -1, 1 << 64)
        for byte in reversed(data):
            h = ((h * inverse) & _MASK) ^ byte
        return h

    suffix = f"{game}\x1f{day.isoformat()}\x1f".encode()
    tomorrow = f"{game}\x1f{(day + dt.timedelta(days=1)).isoformat()}\x1f".encode()
    out = set()
    for top in (0, 1):
        prefix_state = unfnv(unmix((revealed << 1) | top), suffix)
        out.add(Rng(fnv(prefix_state, tomorrow)).next_u64() >> 1)
    return out


def test_a_revealed_seed_says_nothing_about_the_next_day() -> None:
    secret = "a long and very secret server secret"
    plain = derive_seed(secret, "basic_rummy", DAY.isoformat())
    plain_tomorrow = derive_seed(secret, "basic_rummy", (DAY + dt.timedelta(days=1)).isoformat())
    assert plain_tomorrow in _tomorrow_from_revealed(plain, "basic_rummy", DAY)

    revealed = day_seed(secret, "basic_rummy", DAY)
    tomorrow = day_seed(secret, "basic_rummy", DAY + dt.timedelta(days=1))
    assert tomorrow not in _tomorrow_from_revealed(revealed, "basic_rummy", DAY)


def test_every_game_has_a_solo_daily_setup() -> None:
    for game in all_games():
        seats, options = daily_setup(game)
        assert game.min_players <= seats <= game.max_players
        assert options["fill_bots"] is True
        assert options["bot_delay_ms"] == DAILY_BOT_DELAY_MS
        assert "seed" not in options and "scenario" not in options
        if game.turn_based:
            assert options["turn_clock_s"] == 0
    rummy = known_game("basic_rummy")
    assert daily_setup(rummy) == (4, daily_setup(rummy)[1])
    assert daily_setup(rummy)[1]["deals"] == 3
    short = daily_setup(rummy, {**SHORT, "basic_rummy": {**SHORT["basic_rummy"], "seed": 1}})[1]
    assert short["deals"] == 1 and short["bot_delay_ms"] == 0 and "seed" not in short


def test_rank_keys_sort_best_first() -> None:
    rummy, remi = known_game("basic_rummy"), known_game("traditional_remi")
    assert remi.lowest_wins and not rummy.lowest_wins
    assert rank_key(rummy, 120) < rank_key(rummy, 30)
    assert rank_key(remi, 30) < rank_key(remi, 120)


# --- the store's ranking -----------------------------------------------------------


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    @asynccontextmanager
    async def url() -> AsyncIterator[str]:
        if request.param == "sqlite":
            yield f"sqlite:///{tmp_path / 'kartu.db'}"
        else:
            async with fresh_postgres_database() as pg:
                yield pg

    async with url() as database_url, running_store(database_url) as s:
        yield s


async def add_entry(store: Store, game: str, name: str, score: int | None, *,
                    day: dt.date = DAY, ranked: bool = True, minute: int = 0,
                    player_id: str | None = None) -> tuple[str, str]:
    """A player (new unless given) with a daily room of ``game``; finished when ``score``."""
    if player_id is None:
        player_id = (await store.create_player(name)).id
    room_id = f"r{abs(hash((game, name, day, ranked, minute))) % 10**12}"
    await store.save_room(RoomRecord(id=room_id, game=game, options={}, seats=4,
                                     owner_id=player_id, status="playing", seed=1))
    await store.create_daily_entry(game, day, player_id, room_id, ranked=ranked)
    if score is not None:
        assert await store.finish_daily_entry(room_id, score, rank_key(known_game(game), score),
                                              T0 + dt.timedelta(minutes=minute))
    return player_id, room_id


async def test_competition_ranks_and_earlier_finish_first(store: Store) -> None:
    scores = [("ann", 50, 5), ("bob", 80, 9), ("cat", 50, 1), ("dan", 20, 0), ("eve", 80, 3)]
    ids = {name: (await add_entry(store, "basic_rummy", name, score, minute=m))[0]
           for name, score, m in scores}
    board = await store.leaderboard("basic_rummy", DAY, 10)
    assert [(b.rank, b.name, b.score) for b in board] == [
        (1, "eve", 80), (1, "bob", 80), (3, "cat", 50), (3, "ann", 50), (5, "dan", 20)]
    assert await store.board_size("basic_rummy", DAY) == 5
    assert await store.daily_rank("basic_rummy", DAY, rank_key(known_game("basic_rummy"), 50)) == 3
    assert board[0].player_id == ids["eve"]
    assert [b.name for b in await store.leaderboard("basic_rummy", DAY, 2)] == ["eve", "bob"]


async def test_lowest_wins_where_the_game_says_so(store: Store) -> None:
    for name, score in (("ann", 40), ("bob", 10), ("cat", 25)):
        await add_entry(store, "traditional_remi", name, score)
    board = await store.leaderboard("traditional_remi", DAY, 10)
    assert [(b.rank, b.name) for b in board] == [(1, "bob"), (2, "cat"), (3, "ann")]


async def test_only_finished_ranked_games_of_that_day_count(store: Store) -> None:
    ann, _ = await add_entry(store, "basic_rummy", "ann", 30)
    await add_entry(store, "basic_rummy", "ann-practice", 99, ranked=False, player_id=ann)
    await add_entry(store, "basic_rummy", "bob", None)  # still playing
    _, cat_room = await add_entry(store, "basic_rummy", "cat", None)
    assert await store.abandon_daily_entry(cat_room)
    assert not await store.finish_daily_entry(cat_room, 500, -500, T0)  # abandoned for good
    await add_entry(store, "basic_rummy", "old", 70, day=DAY - dt.timedelta(days=1))
    await add_entry(store, "remmi_demmi", "other", 70)
    board = await store.leaderboard("basic_rummy", DAY, 10)
    assert [(b.name, b.score) for b in board] == [("ann", 30)]
    assert await store.board_size("basic_rummy", DAY) == 1
    entry = await store.daily_entry_for_room(cat_room)
    assert entry is not None and entry.status == "abandoned" and entry.score is None


async def test_one_ranked_entry_per_player_game_and_day(store: Store) -> None:
    ann, _ = await add_entry(store, "basic_rummy", "ann", None)
    with pytest.raises(sa_exc.IntegrityError):
        await add_entry(store, "basic_rummy", "ann2", None, player_id=ann)
    # Practice rooms, other days and other games are not limited.
    await add_entry(store, "basic_rummy", "p1", None, ranked=False, player_id=ann)
    await add_entry(store, "basic_rummy", "p2", None, ranked=False, player_id=ann)
    await add_entry(store, "basic_rummy", "d2", None, day=DAY + dt.timedelta(days=1),
                    player_id=ann)
    await add_entry(store, "remmi_demmi", "g2", None, player_id=ann)
    entry = await store.ranked_daily_entry("basic_rummy", DAY, ann)
    assert entry is not None and entry.ranked and entry.status == "playing"
    assert await store.daily_date(entry.room_id) == DAY
    assert await store.daily_date("no-such-room") is None


async def test_player_stats(store: Store) -> None:
    ann, _ = await add_entry(store, "basic_rummy", "ann", 30)
    for days, score in ((1, 60), (2, 15)):
        await add_entry(store, "basic_rummy", f"ann{days}", score,
                        day=DAY - dt.timedelta(days=days), player_id=ann)
    await add_entry(store, "basic_rummy", "annp", 500, ranked=False, player_id=ann)
    await add_entry(store, "traditional_remi", "annt", 12, player_id=ann)
    stats = {s.game: s for s in await store.daily_stats(ann)}
    assert set(stats) == {"basic_rummy", "traditional_remi"}
    assert (stats["basic_rummy"].played, stats["basic_rummy"].high,
            stats["basic_rummy"].low) == (3, 60, 15)
    assert stats["basic_rummy"].average == pytest.approx(35.0)
    assert [s.game for s in await store.daily_stats(ann, "traditional_remi")] == [
        "traditional_remi"]


async def test_the_server_secret_is_made_once(store: Store) -> None:
    first = await store.server_secret("daily")
    assert len(first) == 64
    assert await store.server_secret("daily") == first
    assert await store.server_secret("other") != first
    again = await asyncio.gather(*(store.server_secret("raced") for _ in range(5)))
    assert len(set(again)) == 1


# --- the app in process, with a day that tests move --------------------------------


@asynccontextmanager
async def running_app(tmp_path: Path, **settings: Any
                      ) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}",
                              daily_options=SHORT, **settings))
    async with app.router.lifespan_context(app), httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://kartu"
    ) as client:
        yield app, client


async def guest(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    response = await client.post("/api/guests", json={"name": name})
    assert response.status_code == 201
    return response.json()


async def play_in_process(app: FastAPI, room_id: str, player_id: str) -> dict[str, Any]:
    """Plays seat 0 with the Basic Rummy bot until the game is over; the last view."""
    actor = app.state.registry.get(room_id)

    async def seat_0_may_act() -> tuple[dict[str, Any], dict[str, Any] | None] | None:
        """(the view, seat 0's move) once it has one, or (the last view, None) at the end."""
        _, view = await actor.call(Snapshot(0))
        if view["phase"] == "game_over":
            return view, None
        action = choose(view)
        if action is None and view["phase"] == "deal_over":
            action = {"kind": "next_deal"}
        return None if action is None else (view, action)

    async with asyncio.timeout(60):
        while True:
            view, action = await wait_for(seat_0_may_act, timeout=60, interval=0.005)
            if action is None:
                return view
            await actor.call(Act(player_id, 0, action))


async def test_replays_open_and_seeds_show_once_the_day_is_over(tmp_path: Path) -> None:
    async with running_app(tmp_path, daily_secret="test secret") as (app, client):
        day = {"today": DAY}
        app.state.daily_today = lambda: day["today"]
        ana = await guest(client, "Ana")
        opened = await client.post("/api/daily/basic_rummy", headers=bearer(ana["token"]))
        assert opened.status_code == 201
        room = opened.json()
        assert room["ranked"] is True and room["date"] == "2024-05-01" and room["seat"] == 0

        info = (await client.get("/api/daily/basic_rummy")).json()
        assert info["seed"] is None and info["date"] == "2024-05-01"
        assert info["seed_hash"] == room["seed_hash"]

        final = await play_in_process(app, room["room_id"], ana["player_id"])

        async def on_board() -> Any:
            board = (await client.get("/api/leaderboard/basic_rummy",
                                      headers=bearer(ana["token"]))).json()
            return board if board["total"] == 1 else None

        board = await wait_for(on_board, timeout=10, interval=0.05)
        assert board["entries"][0]["score"] == final["seats"][0]["score"]
        assert board["you"]["rank"] == 1

        replay_url = f"/api/rooms/{room['room_id']}/replay"
        hidden = await client.get(replay_url)
        assert hidden.status_code == 403 and hidden.json()["code"] == "daily_private"

        day["today"] = DAY + dt.timedelta(days=1)
        shown = await client.get(replay_url)
        assert shown.status_code == 200
        record = shown.json()
        past = (await client.get("/api/daily/basic_rummy", params={"date": "2024-05-01"})).json()
        assert past["seed"] == record["seed"] == day_seed("test secret", "basic_rummy", DAY)
        assert sha("basic_rummy", "2024-05-01", past["seed"]) == past["seed_hash"]
        assert "seed" not in record["options"]
        # Anyone can now replay the ranked game and check its score.
        replayed = replay(record)
        assert list(replayed.scores) == [seat["score"] for seat in final["seats"]]
        assert replayed.scores[0] == board["entries"][0]["score"]
        today = (await client.get("/api/daily/basic_rummy")).json()
        assert today["yesterday"] == {"date": "2024-05-01", "seed": past["seed"],
                                      "seed_text": str(past["seed"]),
                                      "seed_hash": past["seed_hash"]}


async def test_a_ranked_game_that_is_gone_stays_unranked(tmp_path: Path) -> None:
    async with running_app(tmp_path) as (app, client):
        app.state.daily_today = lambda: DAY
        ana = await guest(client, "Ana")
        room = (await client.post("/api/daily/basic_rummy", headers=bearer(ana["token"]))
                ).json()
        assert room["ranked"] is True
        # The room stops being served without finishing (as when it is evicted).
        registry = app.state.registry
        await registry.rooms.pop(room["room_id"]).stop()
        info = (await client.get("/api/daily/basic_rummy", headers=bearer(ana["token"]))).json()
        assert info["you"]["status"] == "abandoned"
        again = await client.post("/api/daily/basic_rummy", headers=bearer(ana["token"]))
        assert again.status_code == 201 and again.json()["ranked"] is False
        entry = await app.state.store.daily_entry_for_room(room["room_id"])
        assert entry.status == "abandoned"
        final = await play_in_process(app, again.json()["room_id"], ana["player_id"])
        assert final["phase"] == "game_over"

        # The practice game's result is recorded: had it been ranked, it would be
        # on the board by now.
        async def recorded() -> bool:
            practice = await app.state.store.daily_entry_for_room(again.json()["room_id"])
            return practice is not None and practice.status == "finished"

        await wait_for(recorded, what="the practice game's result")
        board = (await client.get("/api/leaderboard/basic_rummy")).json()
        assert board["total"] == 0 and board["entries"] == []


async def test_leaderboard_you_outside_the_top_and_stats(tmp_path: Path) -> None:
    async with running_app(tmp_path) as (app, client):
        app.state.daily_today = lambda: DAY
        store: Store = app.state.store
        ids = []
        for i, score in enumerate([90, 80, 80, 70, 60, 50, 40, 30]):
            player_id, _ = await add_entry(store, "basic_rummy", f"p{i}", score, minute=i)
            ids.append(player_id)
        me = await guest(client, "Me")
        await add_entry(store, "basic_rummy", "me", 55, player_id=me["player_id"], minute=20)

        board = (await client.get("/api/leaderboard/basic_rummy",
                                  params={"limit": 3}, headers=bearer(me["token"]))).json()
        assert board["date"] == "2024-05-01" and board["total"] == 9
        assert [(e["rank"], e["score"]) for e in board["entries"]] == [(1, 90), (2, 80), (2, 80)]
        assert board["you"]["rank"] == 6 and board["you"]["score"] == 55
        assert board["you"]["status"] == "finished"

        anonymous = (await client.get("/api/leaderboard/basic_rummy?date=2024-05-01")).json()
        assert anonymous["you"] is None and len(anonymous["entries"]) == 9
        other_day = (await client.get("/api/leaderboard/basic_rummy?date=2024-04-30")).json()
        assert other_day["entries"] == [] and other_day["total"] == 0

        for bad in ({"limit": 0}, {"limit": 501}, {"date": "yesterday"},
                    {"date": "0001-01-01"}, {"date": "1999-12-31"}):
            assert (await client.get("/api/leaderboard/basic_rummy", params=bad)
                    ).status_code == 422
        # The day before the calendar's first day is a date; the one before
        # the earliest date was none, and answered 500.
        for bad_date in ("0001-01-01", "1999-12-31"):
            assert (await client.get("/api/daily/basic_rummy", params={"date": bad_date})
                    ).status_code == 422
        first = (await client.get("/api/daily/basic_rummy", params={"date": "2000-01-01"})).json()
        assert first["yesterday"]["date"] == "1999-12-31"
        unknown = await client.get("/api/leaderboard/go_fish")
        assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_game"

        stats = (await client.get(f"/api/players/{ids[0]}/stats")).json()
        assert stats["games"] == [{"game": "basic_rummy", "played": 1, "best": 90,
                                   "average": 90.0}]
        none = (await client.get(f"/api/players/{ids[0]}/stats?game=remmi_demmi")).json()
        assert none["games"] == [{"game": "remmi_demmi", "played": 0, "best": None,
                                  "average": None}]
        assert (await client.get("/api/players/nobody/stats")).status_code == 404


async def test_the_secret_is_kept_by_the_store_when_not_set(tmp_path: Path) -> None:
    async with running_app(tmp_path) as (app, client):
        app.state.daily_today = lambda: DAY
        first = (await client.get("/api/daily/basic_rummy")).json()["seed_hash"]
        secret = await app.state.store.server_secret("daily")
        assert first == seed_hash("basic_rummy", DAY, day_seed(secret, "basic_rummy", DAY))
    async with running_app(tmp_path) as (app, client):
        app.state.daily_today = lambda: DAY
        assert (await client.get("/api/daily/basic_rummy")).json()["seed_hash"] == first
    async with running_app(tmp_path, daily_secret="set by the operator") as (app, client):
        app.state.daily_today = lambda: DAY
        assert (await client.get("/api/daily/basic_rummy")).json()["seed_hash"] != first


# --- a real server over real WebSockets --------------------------------------------


async def play_over_ws(client: Client, room: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """Joins seat 0 and plays the Basic Rummy bot's moves to the end: (first, last) views."""
    joined = await client.request({"type": "join", "room": room, "role": "player"})
    assert joined["type"] == "ack" and joined["seat"] == 0, joined
    first = client.latest_state(room)["view"]

    def newer(version: int) -> Callable[[dict[str, Any]], bool]:
        return lambda f: f["type"] == "state" and f["room"] == room and f["version"] > version

    while True:
        state = client.latest_state(room)
        view = state["view"]
        if view["phase"] == "game_over":
            return first, view
        action = choose(view)
        if action is None and view["phase"] == "deal_over":
            action = {"kind": "next_deal"}
        if action is not None:
            reply = await client.act(room, **action)
            while reply.get("code") == "rate_limited":
                # Faster than the 20 messages a second a socket may send:
                # back off and send it again, as a client should.
                await asyncio.sleep(0.5)
                reply = await client.act(room, **action)
            assert reply["type"] == "ack", reply
        await client.wait_for(newer(state["version"]), timeout=30)


def game_events(client: Client, room: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in f["event"].items() if not k.endswith("_at")}
            for f in client.frames
            if f["type"] == "event" and f["room"] == room and f["event"]["kind"] in GAME_EVENTS]


def daily_entry_status(tmp_path: Path, room_id: str) -> str | None:
    """The status of a daily entry, read from the database of a server that
    ``server_factory`` started in ``tmp_path`` (SQLite, WAL: reading is safe)."""
    with closing(sqlite3.connect(tmp_path / "kartu.db")) as db:
        row = db.execute("SELECT status FROM daily_entries WHERE room_id = ?",
                         (room_id,)).fetchone()
    return None if row is None else str(row[0])


def post_daily(server: LiveServer, token: str, game: str = "basic_rummy") -> httpx.Response:
    return httpx.post(f"{server.url}/api/daily/{game}", headers=bearer(token))


async def leaderboard_when(server: LiveServer, total: int, token: str | None = None
                           ) -> dict[str, Any]:
    async def check() -> dict[str, Any] | None:
        board: dict[str, Any] = httpx.get(f"{server.url}/api/leaderboard/basic_rummy",
                                          headers=bearer(token) if token else {}).json()
        return board if board["total"] == total else None

    return await wait_for(check, timeout=10, interval=0.05,
                          what=f"{total} entries on the leaderboard")


async def test_same_deal_for_everyone_ranked_once_then_practice(
    server_factory: Callable[..., LiveServer], tmp_path: Path,
) -> None:
    server = server_factory(SHORT_ENV)
    ana, bo = new_guest(server.url, "Ana"), new_guest(server.url, "Bo")

    first = post_daily(server, ana["token"])
    assert first.status_code == 201
    ana_room = first.json()
    assert ana_room["ranked"] is True and ana_room["resumed"] is False
    assert "seed" not in ana_room["options"]
    # Asking again while the game runs gives the same ranked room back.
    again = post_daily(server, ana["token"])
    assert again.status_code == 200
    assert again.json()["room_id"] == ana_room["room_id"] and again.json()["ranked"] is True
    assert again.json()["resumed"] is True
    bo_room = post_daily(server, bo["token"]).json()
    assert bo_room["ranked"] is True and bo_room["room_id"] != ana_room["room_id"]

    # Daily rooms are not in the lobby, cannot be watched, and show no seed.
    lobby = httpx.get(f"{server.url}/api/rooms").json()["rooms"]
    assert all(r["room_id"] not in (ana_room["room_id"], bo_room["room_id"]) for r in lobby)
    summary = httpx.get(f"{server.url}/api/rooms/{ana_room['room_id']}").json()
    assert summary["private"] is True and "seed" not in summary["options"]
    for token in (None, bo["token"]):
        watcher = await Client.open(server.ws_url, token)
        try:
            refused = await watcher.request({"type": "join", "room": ana_room["room_id"],
                                             "role": "spectator"})
            assert refused["type"] == "error" and refused["code"] == "forbidden"
        finally:
            await watcher.close()

    ana_ws = await Client.open(server.ws_url, ana["token"])
    bo_ws = await Client.open(server.ws_url, bo["token"])
    try:
        ana_first, ana_last = await play_over_ws(ana_ws, ana_room["room_id"])
        bo_first, bo_last = await play_over_ws(bo_ws, bo_room["room_id"])
    finally:
        await ana_ws.close()
        await bo_ws.close()

    # The same cards, and the same answers from the bots to the same moves.
    assert len(ana_first["hand"]) == 7 and ana_first["hand"] == bo_first["hand"]
    for key in ("dealer", "discard", "stock_count"):
        assert ana_first[key] == bo_first[key]
    events = game_events(ana_ws, ana_room["room_id"])
    assert any(e["kind"] == "drew" and e["seat"] != 0 for e in events)  # the bots played
    assert events == game_events(bo_ws, bo_room["room_id"])
    assert [s["score"] for s in ana_last["seats"]] == [s["score"] for s in bo_last["seats"]]

    # Both are on the board with the score the server computed, tied.
    board = await leaderboard_when(server, 2, ana["token"])
    score = ana_last["seats"][0]["score"]
    assert [(e["rank"], e["name"], e["score"]) for e in board["entries"]] == [
        (1, "Ana", score), (1, "Bo", score)]
    assert board["you"] == {"player_id": ana["player_id"], "name": "Ana",
                            "status": "finished", "score": score, "rank": 1}
    daily = httpx.get(f"{server.url}/api/daily/basic_rummy", headers=bearer(ana["token"])).json()
    assert daily["you"] == {"status": "finished", "room_id": ana_room["room_id"],
                            "score": score, "rank": 1}

    # The replay keeps the day's cards private until the day is over.
    hidden = httpx.get(f"{server.url}/api/rooms/{ana_room['room_id']}/replay")
    assert hidden.status_code == 403 and hidden.json()["code"] == "daily_private"

    # Later games that day are practice: the same deal, never on the board.
    practice = post_daily(server, ana["token"])
    assert practice.status_code == 201 and practice.json()["ranked"] is False
    practice_room = practice.json()["room_id"]
    assert practice_room != ana_room["room_id"]
    practice_ws = await Client.open(server.ws_url, ana["token"])
    try:
        practice_first, _ = await play_over_ws(practice_ws, practice_room)
    finally:
        await practice_ws.close()
    assert practice_first["hand"] == ana_first["hand"]
    # Once the server has recorded the practice game's result, the board is
    # still the one of the two ranked games.
    await wait_for(lambda: daily_entry_status(tmp_path, practice_room) == "finished",
                   what="the practice game's result")
    assert await leaderboard_when(server, 2, ana["token"]) == board
    assert httpx.get(f"{server.url}/api/rooms/{practice_room}/replay").status_code == 403
    stats = httpx.get(f"{server.url}/api/players/{ana['player_id']}/stats").json()
    assert stats["games"] == [{"game": "basic_rummy", "played": 1, "best": score,
                               "average": float(score)}]


async def test_leaving_gives_the_ranked_game_up_a_dropped_connection_does_not(
    server_factory: Callable[..., LiveServer],
) -> None:
    server = server_factory(SHORT_ENV)
    cleo, dan = new_guest(server.url, "Cleo"), new_guest(server.url, "Dan")

    cleo_room = post_daily(server, cleo["token"]).json()
    ws = await Client.open(server.ws_url, cleo["token"])
    try:
        joined = await ws.request({"type": "join", "room": cleo_room["room_id"],
                                   "role": "player"})
        assert joined["type"] == "ack"
        left = await ws.request({"type": "leave", "room": cleo_room["room_id"]})
        assert left["type"] == "ack"
    finally:
        await ws.close()
    after = post_daily(server, cleo["token"]).json()
    assert after["ranked"] is False and after["room_id"] != cleo_room["room_id"]
    daily = httpx.get(f"{server.url}/api/daily/basic_rummy", headers=bearer(cleo["token"])
                      ).json()
    assert daily["you"]["status"] == "abandoned" and daily["you"]["rank"] is None
    assert post_daily(server, cleo["token"]).json()["ranked"] is False

    dan_room = post_daily(server, dan["token"]).json()
    ws = await Client.open(server.ws_url, dan["token"])
    try:
        joined = await ws.request({"type": "join", "room": dan_room["room_id"],
                                   "role": "player"})
        assert joined["type"] == "ack"
        # A second socket of Dan's sees the room take note of the first one's
        # drop: the sign that the server has handled it.
        watch = await Client.open(server.ws_url, dan["token"])
        joined = await watch.request({"type": "join", "room": dan_room["room_id"],
                                      "role": "player"})
        assert joined["type"] == "ack" and joined["seat"] == 0
        seen = len(watch.frames)
    finally:
        await ws.close()  # the connection drops: no leave
    try:
        await watch.wait_for(lambda f: f["type"] == "event" and f["event"] == {
            "kind": "disconnected", "seat": 0}, start=seen)
    finally:
        await watch.close()
    resumed = post_daily(server, dan["token"]).json()
    assert resumed["room_id"] == dan_room["room_id"]
    assert resumed["ranked"] is True and resumed["resumed"] is True


async def test_a_restart_keeps_the_deal_and_never_deals_a_ranked_game_again(
    server_factory: Callable[..., LiveServer],
) -> None:
    server = server_factory(SHORT_ENV)
    eve = new_guest(server.url, "Eve")
    room = post_daily(server, eve["token"]).json()
    assert room["ranked"] is True
    before = httpx.get(f"{server.url}/api/daily/basic_rummy").json()
    server.stop()

    server = server_factory(SHORT_ENV)  # same database, no KARTU_DAILY_SECRET
    after = httpx.get(f"{server.url}/api/daily/basic_rummy", headers=bearer(eve["token"])
                      ).json()
    assert after["seed_hash"] == before["seed_hash"] == room["seed_hash"]
    again = post_daily(server, eve["token"]).json()
    if httpx.get(f"{server.url}/api/rooms/{room['room_id']}").status_code == 200:
        # The server brought the game back: the same game goes on.
        assert after["you"]["status"] == "playing"
        assert again["room_id"] == room["room_id"] and again["ranked"] is True
        assert again["resumed"] is True
    else:
        # The game is gone: it stays unranked, and the rest of the day is practice.
        assert after["you"]["status"] == "abandoned"
        assert again["ranked"] is False and again["room_id"] != room["room_id"]
        daily = httpx.get(f"{server.url}/api/daily/basic_rummy",
                          headers=bearer(eve["token"])).json()
        assert daily["you"]["status"] == "abandoned"


def test_daily_info_publishes_the_hash_now_and_the_seed_after_the_day(
    live_server: LiveServer,
) -> None:
    today = httpx.get(f"{live_server.url}/api/daily/basic_rummy").json()
    assert today["seed"] is None and len(today["seed_hash"]) == 64
    assert today["you"] is None and today["seats"] == 4 and today["options"]["deals"] == 3
    day = dt.date.fromisoformat(today["date"])
    yesterday = (day - dt.timedelta(days=1)).isoformat()
    past = httpx.get(f"{live_server.url}/api/daily/basic_rummy",
                     params={"date": yesterday}).json()
    assert isinstance(past["seed"], int)
    assert sha("basic_rummy", yesterday, past["seed"]) == past["seed_hash"]
    assert today["yesterday"] == {"date": yesterday, "seed": past["seed"],
                                  "seed_text": str(past["seed"]),
                                  "seed_hash": past["seed_hash"]}
    tomorrow = (day + dt.timedelta(days=1)).isoformat()
    future = httpx.get(f"{live_server.url}/api/daily/basic_rummy",
                       params={"date": tomorrow}).json()
    assert future["seed"] is None and future["seed_hash"] != today["seed_hash"]
    for game in ("basic_rummy", "remmi_demmi"):
        assert httpx.get(f"{live_server.url}/api/daily/{game}").status_code == 200
    assert httpx.get(f"{live_server.url}/api/daily/go_fish").status_code == 404
    assert httpx.post(f"{live_server.url}/api/daily/basic_rummy").status_code == 401
    page = httpx.get(f"{live_server.url}/leaderboard", params={"game": "basic_rummy"})
    assert page.status_code == 307 and page.headers["location"] == "/?daily&game=basic_rummy"
