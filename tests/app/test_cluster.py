"""Games that survive: a restart of the embedded server, and a crash of the
process that owns a room among three processes on one Redis.

The deal is the scenario of test_ws_integration: Ana (seat 0) opens, melds a
spade run, later lays off the ten and goes out.
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx

from tests.app.test_ws_integration import ANA, BO_NEVER_SHOWN, SCENARIO, redis_url_or_skip
from tests.live import LiveServer
from tests.waiting import wait_for
from tests.wsclient import Client, create_room, new_guest

DRAW = {"kind": "draw", "from": "stock"}


async def replay_of(server: LiveServer, room: str) -> dict[str, Any]:
    def replay() -> dict[str, Any] | None:
        response = httpx.get(f"{server.url}/api/rooms/{room}/replay")
        return response.json() if response.status_code == 200 else None

    return await wait_for(replay, timeout=10, interval=0.1, what=f"the replay of {room}")


async def test_a_restarted_server_resumes_the_game_in_progress(server_factory: Any) -> None:
    first = server_factory()
    ana = new_guest(first.url, "Ana")
    room = create_room(first.url, ana["token"], "basic_rummy", 2, scenario=SCENARIO, deals=1,
                       bot_delay_ms=1500, turn_clock_s=0)["room_id"]
    a = await Client.open(first.ws_url, ana["token"])
    await a.request({"type": "join", "room": room})
    await a.request({"type": "add_bot", "room": room})
    await a.request({"type": "start", "room": room})
    assert (await a.act(room, **DRAW))["type"] == "ack"
    assert (await a.act(room, kind="meld", cards=ANA[:9]))["type"] == "ack"
    assert (await a.act(room, kind="discard", card="QD"))["type"] == "ack"
    assert (await a.request({"type": "chat", "room": room, "text": "brb"}))["type"] == "ack"
    before = a.latest_state(room)
    first.kill()  # no goodbye: the process just dies

    second = server_factory()
    lobby = httpx.get(f"{second.url}/api/rooms").json()["rooms"]
    assert [r["room_id"] for r in lobby] == [room] and lobby[0]["status"] == "playing"
    a = await Client.open(second.ws_url, ana["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    view = (await a.state_where(room, lambda v: True))["view"]
    assert view["hand"] == before["view"]["hand"] == ["KH"]
    assert view["discard"] == before["view"]["discard"] and view["melds"]
    assert a.latest_state(room)["version"] > before["version"]
    # And the chat line it acked.
    history = next(f for f in a.frames if f["type"] == "chat_history")
    assert [line["text"] for line in history["lines"]] == ["brb"]
    # The bot's move was due before the crash; it plays it now.
    view = (await a.state_where(room, lambda v: v["turn"] == 0, timeout=10))["view"]
    assert view["step"] == "draw" and view["hand"] == ["KH"]
    await a.close()


async def test_three_processes_play_on_through_the_owners_crash(server_factory: Any) -> None:
    env = {"REDIS_URL": redis_url_or_skip(), "KARTU_REDIS_PREFIX": f"t{secrets.token_hex(4)}"}
    p1, p2, p3 = server_factory(env), server_factory(env), server_factory(env)
    processes = {httpx.get(f"{p.url}/healthz").json()["process"] for p in (p1, p2, p3)}
    assert len(processes) == 3
    ana, bo = new_guest(p1.url, "Ana"), new_guest(p2.url, "Bo")
    room = create_room(p1.url, ana["token"], "basic_rummy", 2, scenario=SCENARIO, deals=1,
                       bot_delay_ms=0, turn_clock_s=0)["room_id"]
    # The lobby of every process lists the room, wherever it lives.
    for p in (p2, p3):
        assert [r["room_id"] for r in httpx.get(f"{p.url}/api/rooms").json()["rooms"]] == [room]

    a = await Client.open(p1.ws_url, ana["token"])
    b = await Client.open(p2.ws_url, bo["token"])
    watcher = await Client.open(p3.ws_url)
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await b.request({"type": "join", "room": room}))["seat"] == 1
    await watcher.request({"type": "join", "room": room, "role": "spectator"})
    assert (await a.request({"type": "start", "room": room}))["type"] == "ack"

    acked: list[str] = []

    async def play(client: Client, **action: Any) -> None:
        reply = await client.act(room, **action)
        assert reply["type"] == "ack", reply
        acked.append(action["kind"])

    await play(a, **DRAW)
    await play(a, kind="meld", cards=ANA[:9])
    await play(a, kind="discard", card="QD")
    await play(b, **DRAW)  # Bo's commands cross from process 2 to the owner
    # So do refusals, with their reason, and chat lines, to every process.
    refused = await b.act(room, kind="discard", card="KH")
    assert (refused["reason"], refused["params"]) == ("not_held", {"cards": ["KH"]})
    assert (await b.request({"type": "chat", "room": room, "text": "gl"}))["type"] == "ack"
    assert (await watcher.wait_for(lambda f: f["type"] == "chat"))["name"] == "Bo"
    meld = (await watcher.state_where(room, lambda v: v["melds"]))["view"]["melds"][0]["id"]
    before_crash = (await watcher.state_where(room, lambda v: v["step"] == "play"
                                              and v["turn"] == 1))["version"]

    p1.kill()  # the owner dies with Ana's connection
    await play(b, kind="discard", card="4D")  # waits for another process to take over
    a = await Client.open(p3.ws_url, ana["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    view = (await a.state_where(room, lambda v: v["turn"] == 0))["view"]
    assert view["hand"] == ["KH"] and view["discard"][-1] == "4D"
    # The process that took the room over made its table log again, and kept its chat.
    log = next(f for f in a.frames if f["type"] == "log")
    assert [e["kind"] for e in log["entries"]] == acked
    assert [line["text"] for line in next(
        f for f in a.frames if f["type"] == "chat_history")["lines"]] in (["gl"], [])
    await play(a, **DRAW)
    await play(a, kind="lay_off", card="TS", meld=meld)
    await play(a, kind="discard", card="KH")
    final = (await watcher.state_where(room, lambda v: v["phase"] == "game_over"))
    assert final["version"] > before_crash
    assert final["view"]["result"]["winner"] == 0 and final["view"]["result"]["points"] == 59
    # The spectator on process 3 saw the game through, and never Bo's cards before the end.
    seen = [f for f in watcher.frames if not (f["type"] == "state" and f["view"]["result"])]
    assert not any(f'"{card}"' in str(seen).replace("'", '"') for card in BO_NEVER_SHOWN)

    # Every acknowledged action is in the record, once, in order.
    record = await replay_of(p2, room)
    assert [e["action"]["kind"] for e in record["actions"]] == acked
    for client in (a, b, watcher):
        await client.close()
