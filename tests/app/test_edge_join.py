"""A join refused, or repeated, has no side effect (real uvicorn, real sockets).

- A spectator who asks for a seat once the game runs is refused and keeps
  watching: its feed, and its place in the room's spectator count.
- A seated player who sends ``join`` again on the same socket gets the state
  again (a resync), never a leave: a running ranked daily game stays ranked.
"""

from __future__ import annotations

import asyncio

import httpx

from tests.live import LiveServer
from tests.wsclient import Client, create_room, new_guest


async def test_a_spectator_refused_a_seat_keeps_watching(live_server: LiveServer) -> None:
    ana = new_guest(live_server.url, "Ana")
    carl = new_guest(live_server.url, "Carl")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2, fill_bots=True,
                       bot_delay_ms=0, turn_clock_s=0, seed=5)["room_id"]
    a = await Client.open(live_server.ws_url, ana["token"])
    watcher = await Client.open(live_server.ws_url, carl["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await watcher.request({"type": "join", "room": room, "role": "spectator"}))[
        "role"] == "spectator"
    assert (await a.request({"type": "start", "room": room}))["type"] == "ack"
    await watcher.state_where(room, lambda v: v["phase"] == "playing")

    refused = await watcher.request({"type": "join", "room": room, "role": "player"})
    assert refused["code"] == "room_full"
    summary = httpx.get(f"{live_server.url}/api/rooms/{room}").json()
    assert summary["spectators"] == 1
    # Still fed: the next change reaches the watcher.
    seen = len(watcher.frames)
    view = a.latest_state(room)["view"]
    if view["turn"] == 0:  # otherwise the bot moves at once
        await a.act(room, kind="draw", **{"from": "stock"})
    await watcher.wait_for(lambda f: f["type"] == "state", start=seen)
    assert not any(f["type"] == "event" and f["event"]["kind"] == "spectator_left"
                   for f in a.frames)
    for client in (a, watcher):
        await client.close()


async def test_a_second_join_of_a_seated_player_is_a_resync(live_server: LiveServer) -> None:
    ana, bo = new_guest(live_server.url, "Ana"), new_guest(live_server.url, "Bo")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2, bot_delay_ms=0,
                       turn_clock_s=0, seed=3)["room_id"]
    a = await Client.open(live_server.ws_url, ana["token"])
    b = await Client.open(live_server.ws_url, bo["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await b.request({"type": "join", "room": room}))["seat"] == 1
    assert (await a.request({"type": "start", "room": room}))["type"] == "ack"
    await b.state_where(room, lambda v: v["phase"] == "playing")
    version = b.latest_state(room)["version"]
    seen = len(a.frames)
    again = await a.request({"type": "join", "room": room})
    assert again["type"] == "ack" and again["seat"] == 0 and again["role"] == "player"
    resent = [f for f in a.frames[seen:] if f["type"] == "state"]
    assert resent and resent[-1]["version"] == version and resent[-1]["view"]["you"] == 0
    await b.sync(room)
    # Nothing happened in the room: no leave, no reconnect, no new version.
    assert b.latest_state(room)["version"] == version
    seats = b.latest_state(room)["view"]["seats"]
    assert seats[0]["connected"] and seats[0]["name"] == "Ana"
    for client in (a, b):
        await client.close()


async def test_a_second_join_in_a_ranked_daily_game_keeps_it_ranked(
        live_server: LiveServer) -> None:
    ana = new_guest(live_server.url, "Ana")
    headers = {"Authorization": f"Bearer {ana['token']}"}
    daily = httpx.post(f"{live_server.url}/api/daily/basic_rummy", headers=headers).json()
    assert daily["ranked"] is True
    room = daily["room_id"]
    a = await Client.open(live_server.ws_url, ana["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await a.request({"type": "join", "room": room, "role": "spectator"}))["seat"] == 0
    await asyncio.sleep(0.3)  # a change listener's write would have landed
    you = httpx.get(f"{live_server.url}/api/daily/basic_rummy", headers=headers).json()["you"]
    assert you["status"] == "playing", you
    await a.close()
