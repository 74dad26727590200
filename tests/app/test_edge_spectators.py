"""A spectator coming or going is a small frame, not a state for every member.

Over real uvicorn servers: on the in-process broker, and across two
processes on one Redis (the room on one, members and spectators on both).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from typing import Any

import httpx

from tests.app.test_ws_integration import redis_url_or_skip
from tests.live import LiveServer
from tests.wsclient import Client, create_room, new_guest


def counts(client: Client, start: int = 0) -> list[int]:
    return [f["count"] for f in client.frames[start:] if f["type"] == "spectators"]


async def _watch_twenty(room_server: LiveServer, member_server: LiveServer,
                        spectator_server: LiveServer) -> None:
    ana = new_guest(room_server.url, "Ana")
    bo = new_guest(member_server.url, "Bo")
    room = create_room(room_server.url, ana["token"], "basic_rummy", 2)["room_id"]
    a = await Client.open(room_server.ws_url, ana["token"])
    b = await Client.open(member_server.ws_url, bo["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await b.request({"type": "join", "room": room}))["seat"] == 1
    await a.wait_for(lambda f: f["type"] == "state" and f["view"]["seats"][1]["name"] == "Bo")
    version = a.latest_state(room)["version"]
    seen_a, seen_b = len(a.frames), len(b.frames)

    watchers = [await Client.open(spectator_server.ws_url) for _ in range(20)]
    for n, watcher in enumerate(watchers, 1):
        assert (await watcher.request({"type": "join", "room": room, "role": "spectator"}))[
            "role"] == "spectator"
        # The newcomer still gets its own snapshot, with the count in it.
        own = watcher.latest_state(room)
        assert own["version"] == version and own["view"]["room"]["spectators"] == n
    for client in (a, b):
        await client.wait_for(lambda f: f["type"] == "spectators" and f["count"] == 20)
    # The members got a few counts (gathered, at most one per join), rising
    # to 20, and no state: the version did not move.
    for got in (counts(a, seen_a), counts(b, seen_b)):
        assert got[-1] == 20 and len(got) <= 20 and got == sorted(got)
    assert not [f for f in a.frames[seen_a:] if f["type"] in ("state", "event")]
    assert not [f for f in b.frames[seen_b:] if f["type"] in ("state", "event")]
    # Earlier spectators hear of later ones too.
    await watchers[0].wait_for(lambda f: f["type"] == "spectators" and f["count"] == 20)
    assert all(f["version"] == version for f in a.frames[seen_a:])

    await watchers[-1].request({"type": "leave", "room": room})
    await a.wait_for(lambda f: f["type"] == "spectators" and f["count"] == 19)
    summary = httpx.get(f"{room_server.url}/api/rooms/{room}").json()
    assert summary["spectators"] == 19
    # The next real change is the next version, and shows the count.
    assert (await a.request({"type": "add_bot", "room": room}))["type"] == "error"
    await b.request({"type": "leave", "room": room})
    state = await a.wait_for(lambda f: f["type"] == "state" and f["version"] > version)
    assert state["version"] == version + 1 and state["view"]["room"]["spectators"] == 19
    for client in (a, b, *watchers):
        await client.close()


async def test_spectators_joining_send_counts_not_states(live_server: LiveServer) -> None:
    await _watch_twenty(live_server, live_server, live_server)


async def test_spectator_counts_reach_other_processes(
        server_factory: Callable[..., LiveServer]) -> None:
    env: dict[str, Any] = {"REDIS_URL": redis_url_or_skip(),
                           "KARTU_REDIS_PREFIX": f"t{secrets.token_hex(4)}"}
    p1, p2 = server_factory(env), server_factory(env)
    await _watch_twenty(p1, p2, p2)
    await asyncio.sleep(0)


async def test_a_crowd_of_spectators_costs_each_member_a_few_frames(
        live_server: LiveServer) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2)["room_id"]
    a = await Client.open(live_server.ws_url, ana["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    seen = len(a.frames)
    crowd = [await Client.open(live_server.ws_url) for _ in range(40)]
    await asyncio.gather(*(w.request({"type": "join", "room": room, "role": "spectator"})
                           for w in crowd))
    await a.wait_for(lambda f: f["type"] == "spectators" and f["count"] == 40, start=seen)
    await asyncio.sleep(0.4)
    # Gathered: a handful of small frames for forty arrivals, and no state.
    assert len(a.frames) - seen == len(counts(a, seen)) <= 10
    for client in (a, *crowd):
        await client.close()
