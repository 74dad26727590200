"""Watching a finished game step by step: ``/api/rooms/{id}/replay/steps``,
the caller's recent games, and the ``/rules`` route of the client's pages."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import httpx

from app.store import Store
from tests.app.test_daily import (
    DAY,
    add_entry,
    bearer,
    guest,
    play_in_process,
    running_app,
    store,  # noqa: F401 (a fixture: the store on SQLite and PostgreSQL)
)
from tests.waiting import wait_for


async def all_steps(client: httpx.AsyncClient, room_id: str, page: int) -> dict[str, Any]:
    """Every step of the room's replay, read ``page`` at a time."""
    first = (await client.get(f"/api/rooms/{room_id}/replay/steps",
                              params={"limit": page})).json()
    steps = list(first["steps"])
    while len(steps) < first["total"]:
        more = await client.get(f"/api/rooms/{room_id}/replay/steps",
                                params={"start": len(steps), "limit": page})
        assert more.status_code == 200
        assert more.json()["start"] == len(steps)
        steps.extend(more.json()["steps"])
    return {**first, "steps": steps}


async def test_steps_replay_a_daily_game_to_its_scores_once_the_day_is_over(
        tmp_path: Path) -> None:
    async with running_app(tmp_path, daily_secret="test secret") as (app, client):
        day = {"today": DAY}
        app.state.daily_today = lambda: day["today"]
        ana = await guest(client, "Ana")
        room = (await client.post("/api/daily/basic_rummy", headers=bearer(ana["token"]))).json()
        steps_url = f"/api/rooms/{room['room_id']}/replay/steps"
        final = await play_in_process(app, room["room_id"], ana["player_id"])
        # Before the day is over the steps show the day's cards: refused, like the replay.
        hidden = await client.get(steps_url)
        assert hidden.status_code == 403 and hidden.json()["code"] == "daily_private"

        async def board() -> Any:
            lines = (await client.get("/api/leaderboard/basic_rummy",
                                      params={"date": DAY.isoformat()})).json()["entries"]
            return lines or None

        # Nor does the leaderboard lead to the day's games yet.
        assert "room_id" not in (await wait_for(board, timeout=10, interval=0.05))[0]

        day["today"] = DAY + dt.timedelta(days=1)

        async def shown() -> Any:
            response = await client.get(steps_url)
            return response if response.status_code == 200 else None

        await wait_for(shown, timeout=10, interval=0.05)
        record = (await client.get(f"/api/rooms/{room['room_id']}/replay")).json()
        replay = await all_steps(client, room["room_id"], page=40)
        assert replay["total"] == len(record["actions"]) + 1 == len(replay["steps"])
        assert [s["index"] for s in replay["steps"]] == list(range(replay["total"]))
        assert replay["seat_names"] == record["seat_names"]
        assert replay["steps"][0]["entry"] is None
        for step, entry in zip(replay["steps"][1:], record["actions"], strict=True):
            assert step["entry"]["seat"] == entry.get("seat")
            assert step["entry"]["action"] == entry.get("action")
        # Every step shows every hand, and the hands hold the whole deck with the
        # stock: nothing is hidden.
        players = replay["players"]
        for step in replay["steps"]:
            own = step["view"]["own"]
            assert len(own) == players
            table = step["view"]["table"]
            if table["phase"] == "playing":
                assert all(isinstance(o["hand"], list) for o in own)
                held = sum(len(o["hand"]) for o in own)
                assert held == sum(s["hand_count"] for s in table["seats"])
        last = replay["steps"][-1]["view"]["table"]
        assert last["phase"] == "game_over"
        scores = [s["score"] for s in sorted(last["seats"], key=lambda s: s["seat"])]
        assert scores == record["scores"] == replay["scores"]
        assert scores == [s["score"] for s in final["seats"]]

        # Once the day is over each leaderboard line links to its game's replay.
        assert (await board())[0]["room_id"] == room["room_id"]
        games = (await client.get("/api/me/games", headers=bearer(ana["token"]))).json()
        assert [g["room_id"] for g in games["games"]] == [room["room_id"]]
        assert games["games"][0]["seat"] == 0


async def test_steps_of_a_room_without_a_finished_game_are_not_found(tmp_path: Path) -> None:
    async with running_app(tmp_path) as (_, client):
        missing = await client.get("/api/rooms/nope/replay/steps")
        assert missing.status_code == 404 and missing.json()["code"] == "no_replay"
        too_many = await client.get("/api/rooms/nope/replay/steps", params={"limit": 10_000})
        assert too_many.status_code == 422
        assert (await client.get("/api/me/games")).status_code == 401


async def test_the_rules_route_opens_the_clients_rules_page(tmp_path: Path) -> None:
    async with running_app(tmp_path) as (_, client):
        plain = await client.get("/rules")
        assert plain.status_code == 307 and plain.headers["location"] == "/?rules"
        remi = await client.get("/rules/indonesian_remi")
        assert remi.headers["location"] == "/?rules=indonesian_remi"
        odd = await client.get("/rules/chess")
        assert odd.headers["location"] == "/?rules"


async def test_board_rooms_are_the_ranked_finished_games_of_that_day(store: Store) -> None:  # noqa: F811
    ann, ann_room = await add_entry(store, "basic_rummy", "ann", 30)
    await add_entry(store, "basic_rummy", "ann-practice", 99, ranked=False, player_id=ann)
    bob, _ = await add_entry(store, "basic_rummy", "bob", None)  # still playing
    cat, _ = await add_entry(store, "basic_rummy", "cat", 20, day=DAY - dt.timedelta(days=1))
    assert await store.board_rooms("basic_rummy", DAY, [ann, bob, cat]) == {ann: ann_room}
    assert await store.board_rooms("basic_rummy", DAY, []) == {}
