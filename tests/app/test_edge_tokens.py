"""Guest tokens can be rotated and signed out (real uvicorn)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from app.store import Store
from tests.live import LiveServer
from tests.services import fresh_postgres_database, running_store
from tests.wsclient import Client, new_guest


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def can_create_room(url: str, token: str) -> int:
    return httpx.post(f"{url}/api/rooms", json={"game": "basic_rummy", "seats": 2},
                      headers=auth(token)).status_code


async def test_a_rotated_token_replaces_the_old_one(live_server: LiveServer) -> None:
    url = live_server.url
    guest = new_guest(url, "Ana")
    rotated = httpx.post(f"{url}/api/guests/me/token", headers=auth(guest["token"]))
    assert rotated.status_code == 200
    body = rotated.json()
    assert body["player_id"] == guest["player_id"] and body["name"] == "Ana"
    assert body["token"] != guest["token"]
    assert can_create_room(url, guest["token"]) == 401
    assert can_create_room(url, body["token"]) == 201
    # The old token no longer opens a player's socket; the new one does.
    async with connect(f"{live_server.ws_url}/ws?token={guest['token']}") as old:
        with pytest.raises(ConnectionClosed) as closed:
            await old.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    client = await Client.open(live_server.ws_url, body["token"])
    assert (await client.request({"type": "ping"}))["type"] == "pong"
    await client.close()
    # Rotating with the old token again is refused.
    again = httpx.post(f"{url}/api/guests/me/token", headers=auth(guest["token"]))
    assert again.status_code == 401 and again.json()["code"] == "unauthorized"


def test_signing_out_makes_the_token_useless(live_server: LiveServer) -> None:
    url = live_server.url
    guest = new_guest(url, "Bo")
    out = httpx.post(f"{url}/api/guests/me/signout", headers=auth(guest["token"]))
    assert out.status_code == 204
    assert can_create_room(url, guest["token"]) == 401
    assert httpx.post(f"{url}/api/guests/me/token",
                      headers=auth(guest["token"])).status_code == 401
    assert httpx.post(f"{url}/api/guests/me/signout").status_code == 401


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    if request.param == "sqlite":
        async with running_store(f"sqlite+aiosqlite:///{tmp_path / 'kartu.db'}") as s:
            yield s
    else:
        async with fresh_postgres_database() as url, running_store(url) as s:
            yield s


async def test_the_store_replaces_a_token_once(store: Store) -> None:
    player = await store.create_player("Ana")
    assert player.token is not None
    new = await store.replace_token(player.id, player.token)
    assert new and new != player.token
    assert await store.player_by_token(player.token) is None
    assert (await store.player_by_token(new)) is not None
    # The old token cannot rotate (or sign out) any more.
    assert await store.replace_token(player.id, player.token) is None
    assert await store.replace_token(player.id, new, keep=False) == ""
    assert await store.player_by_token(new) is None
