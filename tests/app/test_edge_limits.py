"""Per-client limits over a real uvicorn, with small caps configured.

Guests and rooms created per address (429 ``rate_limited``; the address a
trusted proxy forwards), open rooms per owner (409 ``too_many_rooms``), game
sockets per address (closed with 1013), and join/leave cycling, costed by the
connection's flood level.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.live import LiveServer
from tests.waiting import wait_for
from tests.wsclient import Client, create_room, new_guest


def test_guests_per_address_are_rate_limited(
        server_factory: Callable[..., LiveServer]) -> None:
    server = server_factory({"KARTU_GUESTS_BURST": "3", "KARTU_GUESTS_PER_MIN": "1"})
    for i in range(3):
        new_guest(server.url, f"G{i}")
    refused = httpx.post(f"{server.url}/api/guests", json={"name": "G4"})
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limited" and "try again" in refused.json()["message"]
    assert int(refused.headers["retry-after"]) >= 1
    assert refused.json()["reason"] == "slow_down"
    assert refused.json()["params"] == {"seconds": int(refused.headers["retry-after"])}


@pytest.mark.parametrize("trusted", [True, False])
def test_behind_a_trusted_proxy_each_forwarded_client_is_counted(
        server_factory: Callable[..., LiveServer], trusted: bool) -> None:
    """The tests reach the server from loopback: the proxy uvicorn trusts by
    default, or, with ``FORWARDED_ALLOW_IPS`` naming another, an address
    whose ``X-Forwarded-For`` counts for nothing."""
    env = {"KARTU_GUESTS_BURST": "1", "KARTU_GUESTS_PER_MIN": "1"}
    if not trusted:
        env["FORWARDED_ALLOW_IPS"] = "192.0.2.1"
    server = server_factory(env)

    def guest(client: str) -> int:
        return httpx.post(f"{server.url}/api/guests", json={"name": "G"},
                          headers={"X-Forwarded-For": client}).status_code

    assert guest("203.0.113.1") == 201
    assert guest("203.0.113.1") == 429
    assert guest("203.0.113.2") == (201 if trusted else 429)


def test_rooms_per_address_are_rate_limited(server_factory: Callable[..., LiveServer]) -> None:
    server = server_factory({"KARTU_ROOMS_BURST": "2", "KARTU_ROOMS_PER_MIN": "1",
                             "KARTU_MAX_OPEN_ROOMS": "0"})
    token = new_guest(server.url, "Ana")["token"]
    for _ in range(2):
        create_room(server.url, token, "basic_rummy", 2)
    refused = httpx.post(f"{server.url}/api/rooms", json={"game": "basic_rummy", "seats": 2},
                         headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 429 and refused.json()["code"] == "rate_limited"
    assert len(httpx.get(f"{server.url}/api/rooms").json()["rooms"]) == 2


def test_open_rooms_per_owner_are_capped(server_factory: Callable[..., LiveServer]) -> None:
    server = server_factory({"KARTU_MAX_OPEN_ROOMS": "2"})
    ana = new_guest(server.url, "Ana")["token"]
    bo = new_guest(server.url, "Bo")["token"]
    for _ in range(2):
        create_room(server.url, ana, "basic_rummy", 2)
    refused = httpx.post(f"{server.url}/api/rooms", json={"game": "basic_rummy", "seats": 2},
                         headers={"Authorization": f"Bearer {ana}"})
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_rooms"
    assert refused.json()["params"] == {"limit": 2, "open": 2}
    # The cap is per owner: another player still creates rooms.
    create_room(server.url, bo, "basic_rummy", 2)
    assert len(httpx.get(f"{server.url}/api/rooms").json()["rooms"]) == 3


async def test_sockets_per_address_are_capped_with_close_code_1013(
        server_factory: Callable[..., LiveServer]) -> None:
    server = server_factory({"KARTU_MAX_WS_PER_ADDRESS": "3"})
    clients = [await Client.open(server.ws_url) for _ in range(3)]
    for client in clients:
        assert (await client.request({"type": "ping"}))["type"] == "pong"
    async with connect(f"{server.ws_url}/ws") as refused:
        with pytest.raises(ConnectionClosed) as closed:
            await refused.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1013
    assert "too many connections" in closed.value.rcvd.reason
    # A socket closed frees its place, once the server has seen it go.
    await clients.pop().close()

    async def accepted() -> Client | None:
        client = await Client.open(server.ws_url)
        try:
            await client.request({"type": "ping"})
            return client
        except ConnectionError:  # closed with 1013: not yet
            return None
    again = await wait_for(accepted, what="a socket in the freed place")
    for client in [*clients, again]:
        await client.close()


async def test_join_leave_cycling_is_refused_then_closed(live_server: LiveServer) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2)["room_id"]
    member = await Client.open(live_server.ws_url, ana["token"])
    assert (await member.request({"type": "join", "room": room}))["seat"] == 0
    seen = len(member.frames)
    cycler = await Client.open(live_server.ws_url)
    for i in range(100):
        try:
            await cycler.ws.send(json.dumps({"type": "join", "room": room, "role": "spectator",
                                             "ref": 2 * i}))
            await cycler.ws.send(json.dumps({"type": "leave", "room": room, "ref": 2 * i + 1}))
        except ConnectionClosed:
            break
    with pytest.raises(ConnectionError):
        await cycler.wait_for(lambda f: False, timeout=5)
    assert cycler.ws.close_code == 1008
    limited = [f for f in cycler.frames if f.get("code") == "rate_limited"]
    acks = [f for f in cycler.frames if f["type"] == "ack"]
    assert limited and len(acks) < 20
    # What the other member was sent is bounded by the joins let through.
    assert await member.sync(room) - seen <= 2 * len(acks) + 2
    await member.close()
