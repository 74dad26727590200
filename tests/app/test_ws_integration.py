"""Two players and a spectator over real WebSockets against a real uvicorn.

The deal is fixed by a scenario so that every step is known:
Ana (seat 0) opens, melds a spade run, later lays off the ten and goes out.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import redis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode

from engine.replay import replay
from tests.live import LiveServer
from tests.services import require_or_skip
from tests.wsclient import Client, create_room, new_guest

ANA = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "KH"]
BO = ["AH", "2H", "3H", "5C", "7C", "9D", "JD", "QC", "KC", "4D"]
STOCK = ["QD", "2C", "TS", "8C", "8D"]
SCENARIO = {"dealer": 1, "hands": [ANA, BO], "stock": STOCK, "discard": ["5H"]}
BO_NEVER_SHOWN = {"AH", "2H", "3H", "5C", "7C", "9D", "JD", "QC", "KC", "2C"}


def mentions(frames: list[dict[str, Any]], cards: set[str]) -> set[str]:
    text = json.dumps(frames)
    return {card for card in cards if f'"{card}"' in text}


def before_deal_over(client: Client) -> list[dict[str, Any]]:
    out = []
    for frame in client.frames:
        if frame["type"] == "state" and frame["view"].get("result"):
            break
        out.append(frame)
    return out


def state_versions(client: Client, room: str) -> list[int]:
    return [f["version"] for f in client.frames if f["type"] == "state" and f["room"] == room]


def redis_url_or_skip() -> str:
    url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as err:
        require_or_skip("Redis", err)
    return url


@pytest.fixture(params=["memory", "redis", "asgi-queue"])
async def table(request: pytest.FixtureRequest, server_factory: Any) -> Any:
    """A two-seat table on the in-process broker, on Redis, and (``asgi-queue``)
    on uvicorn's own WebSocket protocol, where frames take the ASGI queue path
    instead of kartu's direct frame path."""
    env = {"REDIS_URL": redis_url_or_skip()} if request.param == "redis" else {}
    if request.param == "asgi-queue":
        env["KARTU_WS"] = "websockets-sansio"
    live_server = server_factory(env)
    broker = "redis" if request.param == "redis" else "memory"
    assert httpx.get(f"{live_server.url}/healthz").json()["broker"] == broker
    ana, bo = new_guest(live_server.url, "Ana"), new_guest(live_server.url, "Bo")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2, scenario=SCENARIO,
                       deals=1, bot_delay_ms=0, turn_clock_s=0)
    room_id = room["room_id"]
    a = await Client.open(live_server.ws_url, ana["token"])
    b = await Client.open(live_server.ws_url, bo["token"])
    watcher = await Client.open(live_server.ws_url)
    yield live_server, room_id, a, b, watcher, bo
    for client in (a, b, watcher):
        await client.close()


async def test_two_players_and_a_spectator_play_a_deal_to_the_end(table: Any) -> None:
    server, room, a, b, watcher, bo_guest = table
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await b.request({"type": "join", "room": room}))["seat"] == 1
    assert (await watcher.request({"type": "join", "room": room, "role": "spectator"}))["type"] \
        == "ack"
    refused = await b.request({"type": "start", "room": room})
    assert refused["code"] == "forbidden"
    assert (await a.request({"type": "start", "room": room}))["type"] == "ack"
    view = (await a.state_where(room, lambda v: v["phase"] == "playing"))["view"]
    assert view["hand"] == ANA and view["turn"] == 0 and view["discard"] == ["5H"]

    # Bo may not act out of turn; nothing changes.
    version = a.latest_state(room)["version"]
    error = await b.act(room, kind="draw", **{"from": "stock"})
    assert error["code"] == "not_your_turn"
    error = await a.act(room, kind="discard", card="KH")
    assert error["code"] == "illegal_action"
    # A change would have reached Ana before her error: frames keep their order.
    assert (await a.request({"type": "ping"}))["type"] == "pong"
    assert a.latest_state(room)["version"] == version

    # Turn 1: Ana draws QD, melds the spade run A-9, discards QD.
    assert (await a.act(room, kind="draw", **{"from": "stock"}))["type"] == "ack"
    assert (await a.act(room, kind="meld", cards=ANA[:9]))["type"] == "ack"
    meld_view = (await watcher.state_where(room, lambda v: len(v["melds"]) == 1))["view"]
    meld_id = meld_view["melds"][0]["id"]
    assert meld_view["stock_count"] == 4 and "hand" not in meld_view
    assert mentions(before_deal_over(watcher), {"QD"}) == set()
    assert mentions(before_deal_over(b), {"QD"}) == set()
    assert (await a.act(room, kind="discard", card="QD"))["type"] == "ack"

    # Turn 2: Bo draws 2C and discards 4D.
    await b.state_where(room, lambda v: v["turn"] == 1)
    assert (await b.act(room, kind="draw", **{"from": "stock"}))["type"] == "ack"
    assert (await b.act(room, kind="discard", card="4D"))["type"] == "ack"

    # Bo drops and comes back: same seat, same hand.
    await b.close()
    await watcher.state_where(room, lambda v: not v["seats"][1]["connected"])
    b = await Client.open(server.ws_url, bo_guest["token"])
    assert (await b.request({"type": "join", "room": room}))["seat"] == 1
    hand = (await b.state_where(room, lambda v: True))["view"]["hand"]
    assert sorted(hand) == sorted(BO_NEVER_SHOWN)

    # Turn 3: Ana draws TS, lays it off on her run and goes out with KH.
    await a.state_where(room, lambda v: v["turn"] == 0 and v["step"] == "draw")
    assert (await a.act(room, kind="draw", **{"from": "stock"}))["type"] == "ack"
    assert (await a.act(room, kind="lay_off", card="TS", meld=meld_id))["type"] == "ack"
    assert (await a.act(room, kind="discard", card="KH"))["type"] == "ack"
    final = (await watcher.state_where(room, lambda v: v["phase"] == "game_over"))["view"]
    assert final["result"]["winner"] == 0
    assert final["result"]["points"] == 59  # Bo's hand: 1+2+3+5+7+9+10+10+10+2
    assert final["seats"][0]["score"] == 59 and final["winners"] == [0]
    await watcher.wait_for(lambda f: f["type"] == "event" and f["event"]["kind"] == "game_over")

    # Nobody but Bo ever saw Bo's cards while the deal was played.
    assert mentions(before_deal_over(watcher), BO_NEVER_SHOWN) == set()
    assert mentions(before_deal_over(a), BO_NEVER_SHOWN) == set()

    # Every change reached each connection once, in order, whatever carried it.
    for client in (a, watcher):
        versions = state_versions(client, room)
        assert versions == sorted(set(versions)) and len(versions) > 10

    # The replay reproduces the game exactly.
    record: dict[str, Any] = {}
    for _ in range(50):
        response = httpx.get(f"{server.url}/api/rooms/{room}/replay")
        if response.status_code == 200:
            record = response.json()
            break
        await asyncio.sleep(0.1)
    assert record["game"] == "basic_rummy" and record["seed"] is not None
    assert [e["action"]["kind"] for e in record["actions"]] == [
        "draw", "meld", "discard", "draw", "discard", "draw", "lay_off", "discard"]
    state = replay(record)
    assert state.phase == "game_over" and state.scores == [59, 0]
    await b.close()


async def test_bad_frames_get_bad_message_and_change_nothing(live_server: LiveServer) -> None:
    guest = new_guest(live_server.url, "Cy")
    client = await Client.open(live_server.ws_url, guest["token"])
    for bad in ("not json", "[1,2]", '{"type":"warp"}', '{"type":"join"}',
                '{"type":"act","room":"x","action":"draw"}',
                # A ref is a JSON integer or string, echoed as it came.
                '{"type":"ping","ref":true}', '{"type":"ping","ref":1.0}'):
        await client.ws.send(bad)
        reply = await client.wait_for(lambda f: f["type"] == "error",
                                      start=len(client.frames))
        assert reply["code"] == "bad_message", bad
    unknown = await client.request({"type": "join", "room": "nope"})
    assert unknown["code"] == "unknown_room"
    pong = await client.request({"type": "ping"})
    assert pong["type"] == "pong" and pong["server_time"] > 0
    await client.close()


async def test_a_socket_without_token_may_only_watch(live_server: LiveServer) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2)["room_id"]
    anon = await Client.open(live_server.ws_url)
    assert (await anon.request({"type": "join", "room": room}))["code"] == "forbidden"
    assert (await anon.request({"type": "join", "room": room, "role": "spectator"}))["type"] \
        == "ack"
    await anon.close()


async def test_a_chosen_seed_is_shown_to_nobody(live_server: LiveServer) -> None:
    # A seed deals every hand: whoever reads it can deal the game for themselves.
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2, seed=12345,
                       deals=2)["room_id"]
    summary = httpx.get(f"{live_server.url}/api/rooms/{room}").json()
    lobby = httpx.get(f"{live_server.url}/api/rooms").json()["rooms"]
    anon = await Client.open(live_server.ws_url)
    await anon.request({"type": "join", "room": room, "role": "spectator"})
    view = (await anon.wait_for(lambda f: f["type"] == "state"))["view"]
    for options in (summary["options"], *(r["options"] for r in lobby if r["room_id"] == room),
                    view["room"]["options"]):
        assert options["deals"] == 2 and "seed" not in options
    await anon.close()


@pytest.fixture(params=["kartu", "websockets-sansio"])
def any_ws_server(request: pytest.FixtureRequest, server_factory: Any) -> LiveServer:
    """A server on kartu's WebSocket protocol, and one on uvicorn's (the ASGI queue path)."""
    server: LiveServer = server_factory({"KARTU_WS": request.param})
    return server


async def test_oversized_frames_close_the_socket(any_ws_server: LiveServer) -> None:
    live_server = any_ws_server
    client = await Client.open(live_server.ws_url, max_size=None)
    await client.ws.send(json.dumps({"type": "ping", "pad": "x" * 40_000}))
    with pytest.raises(ConnectionError):
        await client.wait_for(lambda f: False, timeout=5)
    assert client.ws.close_code in (1009, 1008)


async def test_a_text_frame_that_is_not_utf8_closes_the_socket(
        any_ws_server: LiveServer) -> None:
    client = await Client.open(any_ws_server.ws_url)
    await client.ws.send(b'{"type":"ping","pad":"\xff"}', text=True)
    with pytest.raises(ConnectionError):
        await client.wait_for(lambda f: False, timeout=5)
    assert client.ws.close_code == 1007


async def test_the_frame_limit_counts_bytes_not_characters(any_ws_server: LiveServer) -> None:
    # 4,000 four-byte characters: 16,000 bytes of UTF-8 are served...
    client = await Client.open(any_ws_server.ws_url)
    await client.ws.send(json.dumps({"type": "ping", "ref": 1, "pad": "\U0001F0CF" * 4_000},
                                    ensure_ascii=False))
    await client.wait_for(lambda f: f["type"] == "pong" and f["ref"] == 1)
    # ... 16,000 of them (64,000 bytes, far past the 16 KiB limit) close the socket.
    await client.ws.send(json.dumps({"type": "ping", "pad": "\U0001F0CF" * 16_000},
                                    ensure_ascii=False))
    with pytest.raises(ConnectionError):
        await client.wait_for(lambda f: False, timeout=5)
    assert client.ws.close_code == 1009


async def test_flooding_is_refused_then_closed(any_ws_server: LiveServer) -> None:
    client = await Client.open(any_ws_server.ws_url)
    for i in range(300):
        try:
            await client.ws.send(json.dumps({"type": "ping", "ref": i}))
        except Exception:
            break
    with pytest.raises(ConnectionError):
        await client.wait_for(lambda f: False, timeout=5)
    limited = [f for f in client.frames if f.get("code") == "rate_limited"]
    # Each refusal answers the message it refused, so a client can tell which.
    assert limited and all(isinstance(f.get("ref"), int) for f in limited)
    assert len({f["ref"] for f in limited}) == len(limited)
    assert client.ws.close_code == 1008


async def test_a_short_burst_is_served(live_server: LiveServer) -> None:
    client = await Client.open(live_server.ws_url)
    for i in range(30):
        await client.ws.send(json.dumps({"type": "ping", "ref": i}))
    await client.wait_for(lambda f: f.get("ref") == 29)
    assert not any(f["type"] == "error" for f in client.frames)
    await client.close()


async def test_http_api_contract(live_server: LiveServer) -> None:
    url = live_server.url
    health = httpx.get(f"{url}/healthz").json()
    assert health["status"] == "ok"
    # The collector's full pass at start-up is the first one counted.
    assert health["collector"]["passes"][2] >= 1
    assert 0 < health["collector"]["longest_ms"] <= health["collector"]["paused_ms"]
    # The loop's watch probes it every 10 ms from start-up.
    assert health["loop"]["probes"] > 0 and "over_10_ms" in health["loop"]["late"]
    games = {g["game"]: g for g in httpx.get(f"{url}/api/games").json()}
    assert games["basic_rummy"]["min_players"] == 2 and games["basic_rummy"]["max_players"] == 6
    assert games["basic_rummy"]["options"]["target"] == 100
    # IR-2: the lobby's form starts from the catalog's defaults.
    assert games["indonesian_remi"]["options"]["fill_bots"] is True
    assert games["basic_rummy"]["options"]["fill_bots"] is False
    assert httpx.post(f"{url}/api/guests", json={"name": ""}).status_code == 422
    assert httpx.post(f"{url}/api/guests", json={"name": "x" * 25}).status_code == 422
    assert httpx.post(f"{url}/api/guests", json={"name": "a\nb"}).status_code == 422
    guest = new_guest(url, "Ana")
    auth = {"Authorization": f"Bearer {guest['token']}"}
    assert httpx.post(f"{url}/api/rooms", json={"game": "basic_rummy", "seats": 2}
                      ).status_code == 401
    bad = httpx.post(f"{url}/api/rooms", json={"game": "basic_rummy", "seats": 7}, headers=auth)
    assert bad.status_code == 422
    bad = httpx.post(f"{url}/api/rooms", json={"game": "basic_rummy", "seats": 2,
                                               "options": {"deals": "many"}}, headers=auth)
    assert bad.status_code == 422
    # A refused option says why in plain words; the rule it breaks travels apart.
    for game, rule in (("basic_rummy", "BR-5"), ("indonesian_remi", "IR-19")):
        bad = httpx.post(f"{url}/api/rooms", json={"game": game, "seats": 2, "options": {
            "deals": None, "target": None}}, headers=auth)
        assert bad.status_code == 422
        body = bad.json()
        assert body["code"] == "bad_options" and body["reason"] == "needs_deals_or_target"
        assert body["rule"] == rule
        assert body["message"] == "The game needs a number of deals or a target score."
        assert body["params"]["detail"] == body["message"]
    bad = httpx.post(f"{url}/api/rooms", json={"game": "basic_rummy", "seats": 2, "options": {
        "scenario": {"dealer": 0, "hands": [["AS"], ["AS"]], "stock": [], "discard": []}}},
        headers=auth)
    assert bad.status_code == 422
    made = httpx.post(f"{url}/api/rooms", json={"game": "basic_rummy", "seats": 3},
                      headers=auth).json()
    listed = httpx.get(f"{url}/api/rooms").json()["rooms"]
    assert [r["room_id"] for r in listed] == [made["room_id"]]
    assert listed[0]["seats"] == 3 and listed[0]["seats_taken"] == 0
    assert listed[0]["status"] == "waiting" and listed[0]["spectators"] == 0
    one = httpx.get(f"{url}/api/rooms/{made['room_id']}").json()
    assert one["game"] == "basic_rummy"
    assert httpx.get(f"{url}/api/rooms/nope").status_code == 404
    assert httpx.get(f"{url}/api/rooms/{made['room_id']}/replay").status_code == 404


async def test_scenarios_are_refused_when_disabled(server_factory: Any) -> None:
    server = server_factory({"KARTU_SCENARIOS": "0"})
    guest = new_guest(server.url, "Ana")
    response = httpx.post(f"{server.url}/api/rooms", json={
        "game": "basic_rummy", "seats": 2,
        "options": {"scenario": SCENARIO}}, headers={"Authorization": f"Bearer {guest['token']}"})
    assert response.status_code == 403
    assert response.json()["code"] == "scenarios_disabled"


async def test_turn_clock_lets_a_bot_play_for_an_absent_player(live_server: LiveServer) -> None:
    ana = new_guest(live_server.url, "Ana")
    room = create_room(live_server.url, ana["token"], "basic_rummy", 2, scenario=SCENARIO,
                       turn_clock_s=1, bot_delay_ms=400)["room_id"]
    a = await Client.open(live_server.ws_url, ana["token"])
    await a.request({"type": "join", "room": room})
    await a.request({"type": "add_bot", "room": room})
    await a.request({"type": "start", "room": room})
    view = (await a.state_where(room, lambda v: v["phase"] == "playing"))["view"]
    assert view["turn"] == 0 and view["turn_deadline"] is not None
    assert 0 < view["turn_deadline"] - view["server_time"] <= 1000
    await a.wait_for(lambda f: f["type"] == "event" and f["event"] == {"kind": "away", "seat": 0},
                     timeout=5)
    # The bot plays Ana's turn, then its own; between the bot's moves (400 ms
    # apart) Ana comes back on her next turn.
    await a.wait_for(lambda f: f["type"] == "event"
                     and f["event"] == {"kind": "discarded", "seat": 1,
                                        "card": f["event"].get("card")}, timeout=5)
    mark = len(a.frames)
    await a.wait_for(lambda f: f["type"] == "state" and f["view"]["turn"] == 0
                     and f["view"]["step"] == "draw" and f["view"]["seats"][0]["away"],
                     start=mark - 1)
    reply = await a.act(room, kind="draw", **{"from": "stock"})
    assert reply["type"] == "ack", reply
    await a.wait_for(lambda f: f["type"] == "event" and f["event"] == {"kind": "back", "seat": 0})
    assert not a.latest_state(room)["view"]["seats"][0]["away"]
    await a.close()


async def test_a_spectator_that_stops_reading_is_dropped_not_buffered(
        server_factory: Any) -> None:
    """On the direct frame path the bound is bytes waiting for the socket
    (``KARTU_SEND_BUFFER``): a watcher whose socket is full is closed with 1013
    while the rooms play on."""
    server = server_factory({"KARTU_SEND_BUFFER": "20000"})
    ana = new_guest(server.url, "Ana")
    owner = await Client.open(server.ws_url, ana["token"])
    # A watcher with a small receive buffer that reads nothing: its client
    # library stops reading after one queued message, so the kernel's buffers
    # fill (a few MB on loopback), then the server's.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    address = urlsplit(server.url)
    sock.connect((address.hostname, address.port))
    sock.setblocking(False)
    stuck = await connect(f"{server.ws_url}/ws", sock=sock, max_queue=1)
    rooms = []
    for seed in range(3):  # three bot matches of 50 deals, ~6 MB of frames each
        room = create_room(server.url, ana["token"], "basic_rummy", 2, seed=seed, deals=50,
                           bot_delay_ms=0, turn_clock_s=0, deal_pause_ms=0)["room_id"]
        await stuck.send(json.dumps({"type": "join", "room": room, "role": "spectator"}))
        for _ in range(2):
            await owner.request({"type": "add_bot", "room": room})
        rooms.append(room)
    for room in rooms:
        assert (await owner.request({"type": "start", "room": room}))["type"] == "ack"
    async with asyncio.timeout(60):
        # The rooms did not wait for the watcher: they play to the end.
        while any(httpx.get(f"{server.url}/api/rooms/{room}").json()["status"] != "finished"
                  for room in rooms):
            await asyncio.sleep(0.2)
        with pytest.raises(ConnectionClosed):
            async for _ in stuck:
                pass
    # The close (1013) waits behind what the watcher did not read; unanswered
    # for a few seconds, the socket is cut (1006 as the client sees it).
    assert stuck.close_code in (1013, 1006)
    assert '"event":"connection_closed"' in server.log.read_text()
    assert '"code":1013' in server.log.read_text()
    await owner.close()


def _raw_websocket(url: str, rcvbuf: int) -> socket.socket:
    """A WebSocket opened by hand on a socket with a small receive buffer:
    the handshake's answer is read, nothing after it ever is."""
    address = urlsplit(url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(5)
    sock.connect((address.hostname, address.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws HTTP/1.1\r\nHost: {address.netloc}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                  "Sec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)  # byte by byte: not one byte past the handshake
    assert answer.startswith(b"HTTP/1.1 101")
    return sock


def _send_text(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(Frame(Opcode.TEXT, json.dumps(message).encode()).serialize(mask=True))


def _spectators(url: str, room: str) -> int:
    spectators: int = httpx.get(f"{url}/api/rooms/{room}").json()["spectators"]
    return spectators


async def test_a_client_that_never_reads_is_dropped_within_seconds_of_its_socket_filling(
        server_factory: Any) -> None:
    """Whatever the backlog (here far below ``KARTU_SEND_BUFFER``): once its
    socket has taken nothing for ``KARTU_WRITE_STALL_S``, the client is dropped,
    while a client that reads keeps getting the room's frames."""
    server = server_factory({"KARTU_WRITE_STALL_S": "1", "KARTU_SOCKET_BUFFER": "8192"})
    ana = new_guest(server.url, "Ana")
    owner = await Client.open(server.ws_url, ana["token"])
    room = create_room(server.url, ana["token"], "basic_rummy", 2, seed=3, deals=50,
                       bot_delay_ms=20, turn_clock_s=0, deal_pause_ms=0)["room_id"]
    watcher = await Client.open(server.ws_url)
    assert (await watcher.request({"type": "join", "room": room, "role": "spectator"}))[
        "type"] == "ack"
    stuck = _raw_websocket(server.url, 4096)
    _send_text(stuck, {"type": "join", "room": room, "role": "spectator", "ref": 1})
    async with asyncio.timeout(5):
        while _spectators(server.url, room) != 2:
            await asyncio.sleep(0.05)
    for _ in range(2):
        await owner.request({"type": "add_bot", "room": room})
    assert (await owner.request({"type": "start", "room": room}))["type"] == "ack"
    started = asyncio.get_running_loop().time()
    async with asyncio.timeout(15):
        while _spectators(server.url, room) != 1:
            await asyncio.sleep(0.1)
    dropped_after = asyncio.get_running_loop().time() - started
    assert dropped_after < 6, dropped_after
    # The server cut the socket: what the kernel still holds, then its end.
    stuck.settimeout(5)
    with pytest.raises(ConnectionError):
        while stuck.recv(65536):
            pass
        raise ConnectionAbortedError("the stream ended")
    stuck.close()
    # The reader was not held up: it still gets the room's frames.
    mark = len(watcher.frames)
    await watcher.wait_for(lambda f: f["type"] == "state", start=mark, timeout=5)
    assert httpx.get(f"{server.url}/api/rooms/{room}").json()["status"] == "playing"
    await watcher.close()
    await owner.close()
