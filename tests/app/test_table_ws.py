"""The table over real WebSockets against a real uvicorn: refusals by reason,
removing a bot, the table log and chat a joiner gets, chat channels, rematch.

Ana's first deal is fixed so that she goes out on her first turn: she draws
QD, lays the spade run A-10 down and discards QD.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from tests.app.test_ws_integration import redis_url_or_skip
from tests.live import LiveServer
from tests.wsclient import Client, create_room, new_guest

ANA = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
BOT = ["AH", "2H", "3H", "5C", "7C", "9D", "JD", "QC", "KC", "4D"]
SCENARIO = {"dealer": 1, "hands": [ANA, BOT], "stock": ["QD", "2C", "8C"],
            "discard": ["5H"]}


def kinds(client: Client, frame_type: str) -> list[dict[str, Any]]:
    return [f for f in client.frames if f["type"] == frame_type]


async def ana_goes_out(ana: Client, room: str) -> None:
    await ana.state_where(room, lambda v: v["phase"] == "playing" and v["turn"] == 0)
    assert (await ana.act(room, kind="draw", **{"from": "stock"}))["type"] == "ack"
    assert (await ana.act(room, kind="meld", cards=ANA))["type"] == "ack"
    assert (await ana.act(room, kind="discard", card="QD"))["type"] == "ack"
    await ana.state_where(room, lambda v: v["phase"] == "game_over")


def scenario_room(live_server: LiveServer, owner: dict[str, Any]) -> str:
    """A two-seat Basic Rummy room on SCENARIO's deal, one deal, no clocks."""
    return str(create_room(live_server.url, owner["token"], "basic_rummy", 2, scenario=SCENARIO,
                           deals=1, bot_delay_ms=0, turn_clock_s=0)["room_id"])


async def ana_and_bo_seated(live_server: LiveServer
                            ) -> tuple[str, Client, Client, dict[str, Any]]:
    """A scenario room with Ana (its owner) in seat 0 and Bo in seat 1, both
    joined: the room, their clients, and Bo's guest (to come back as him)."""
    ana_guest, bo_guest = new_guest(live_server.url, "Ana"), new_guest(live_server.url, "Bo")
    room = scenario_room(live_server, ana_guest)
    ana = await Client.open(live_server.ws_url, ana_guest["token"])
    bo = await Client.open(live_server.ws_url, bo_guest["token"])
    await ana.request({"type": "join", "room": room})
    await bo.request({"type": "join", "room": room})
    return room, ana, bo, bo_guest


async def test_refusals_carry_rule_reason_and_params(live_server: LiveServer) -> None:
    ana_guest = new_guest(live_server.url, "Ana")
    room = scenario_room(live_server, ana_guest)
    ana = await Client.open(live_server.ws_url, ana_guest["token"])
    await ana.request({"type": "join", "room": room})
    await ana.request({"type": "add_bot", "room": room})
    await ana.request({"type": "start", "room": room})
    await ana.state_where(room, lambda v: v["phase"] == "playing")
    error = await ana.act(room, kind="discard", card="AS")
    assert error == {"type": "error", "code": "illegal_action", "message": "Draw a card first.",
                     "rule": "BR-10", "reason": "draw_first", "params": {}, "ref": error["ref"]}
    await ana.act(room, kind="draw", **{"from": "stock"})
    error = await ana.act(room, kind="meld", cards=["AS", "QD", "9S"])
    assert (error["reason"], error["rule"]) == ("not_a_meld", "BR-6, BR-7")
    assert error["params"] == {"cards": ["AS", "QD", "9S"]} and "(BR" not in error["message"]
    error = await ana.act(room, kind="discard", card="KH")
    assert (error["reason"], error["params"]) == ("not_held", {"cards": ["KH"]})
    # Gateway refusals have reasons too.
    error = await ana.request({"type": "act", "room": "elsewhere", "action": {"kind": "draw"}})
    assert (error["code"], error["reason"]) == ("forbidden", "join_first")
    error = await ana.request({"type": "join"})
    assert (error["code"], error["reason"], error["params"]["field"]) == (
        "bad_message", "bad_field", "room")
    await ana.close()
    # And HTTP ones.
    long = httpx.post(f"{live_server.url}/api/guests", json={"name": "x" * 25})
    assert long.status_code == 422
    assert long.json()["reason"] == "name_too_long" and long.json()["params"] == {"limit": 24}
    assert httpx.post(f"{live_server.url}/api/guests",
                      json={"name": "a\nb"}).json()["reason"] == "name_not_printable"
    missing = httpx.get(f"{live_server.url}/api/rooms/nope")
    assert missing.status_code == 404 and missing.json()["reason"] == "unknown_room"


async def test_the_owner_removes_a_bot_before_the_start(live_server: LiveServer) -> None:
    ana_guest, bo_guest = new_guest(live_server.url, "Ana"), new_guest(live_server.url, "Bo")
    room = create_room(live_server.url, ana_guest["token"], "basic_rummy", 3)["room_id"]
    ana = await Client.open(live_server.ws_url, ana_guest["token"])
    bo = await Client.open(live_server.ws_url, bo_guest["token"])
    await ana.request({"type": "join", "room": room})
    assert (await ana.request({"type": "add_bot", "room": room}))["seat"] == 1
    await ana.request({"type": "add_bot", "room": room})
    await bo.request({"type": "join", "room": room, "role": "spectator"})
    refused = await bo.request({"type": "remove_bot", "room": room, "seat": 1})
    assert (refused["code"], refused["reason"]) == ("forbidden", "owner_only")
    refused = await ana.request({"type": "remove_bot", "room": room, "seat": 0})
    assert (refused["reason"], refused["params"]) == ("not_a_bot_seat", {"seat": 0})
    for seat in (True, "1", 1.0):  # a seat is a JSON integer: nothing else is read as one
        refused = await ana.request({"type": "remove_bot", "room": room, "seat": seat})
        assert refused["code"] == "bad_message", seat
    assert (await ana.request({"type": "remove_bot", "room": room, "seat": 1}))["type"] == "ack"
    view = (await bo.state_where(room, lambda v: v["seats"][1]["name"] is None))["view"]
    assert not view["seats"][1]["bot"] and view["seats"][2]["bot"]
    assert any(f["type"] == "event" and f["event"] == {"kind": "bot_removed", "seat": 1}
               for f in bo.frames)
    for client in (ana, bo):
        await client.close()


async def test_a_reload_gets_the_table_log_without_hidden_cards(live_server: LiveServer
                                                                ) -> None:
    room, ana, bo, bo_guest = await ana_and_bo_seated(live_server)
    log = kinds(ana, "log")
    assert log and log[-1]["entries"] == [] and log[-1]["game"] == 1
    await ana.request({"type": "start", "room": room})
    await ana.state_where(room, lambda v: v["phase"] == "playing")
    await ana.act(room, kind="draw", **{"from": "stock"})  # QD: Bo must not learn it
    await ana.act(room, kind="discard", card="9S")  # public
    await bo.close()  # Bo reloads the page
    bo = await Client.open(live_server.ws_url, bo_guest["token"])
    await bo.request({"type": "join", "room": room})
    entries = kinds(bo, "log")[-1]["entries"]
    assert [(e["seat"], e["kind"]) for e in entries] == [(0, "draw"), (0, "discard")]
    assert not any(e.get("bot") for e in entries)
    text = json.dumps(entries)
    assert '"QD"' not in text and '"9S"' in text
    # A spectator who comes in late gets the same public log.
    watcher = await Client.open(live_server.ws_url)
    await watcher.request({"type": "join", "room": room, "role": "spectator"})
    assert kinds(watcher, "log")[-1]["entries"] == entries
    for client in (ana, bo, watcher):
        await client.close()


@pytest.fixture(params=["memory", "redis"])
def chat_server(request: pytest.FixtureRequest, server_factory: Any) -> LiveServer:
    """A server on the in-process broker, and one on Redis (chat goes through
    the broker, not the room's save)."""
    env = {"REDIS_URL": redis_url_or_skip()} if request.param == "redis" else {}
    server: LiveServer = server_factory(env)
    return server


async def test_chat_channels_history_and_limits(chat_server: LiveServer) -> None:
    live_server = chat_server
    ana_guest, zed_guest = new_guest(live_server.url, "Ana"), new_guest(live_server.url, "Zed")
    room = create_room(live_server.url, ana_guest["token"], "basic_rummy", 2)["room_id"]
    ana = await Client.open(live_server.ws_url, ana_guest["token"])
    zed = await Client.open(live_server.ws_url, zed_guest["token"])
    await ana.request({"type": "join", "room": room})
    await zed.request({"type": "join", "room": room, "role": "spectator"})
    await ana.wait_for(lambda f: f["type"] == "spectators" and f["count"] == 1)
    version = ana.latest_state(room)["version"]
    ack = await ana.request({"type": "chat", "room": room, "text": "<i>hi</i> all"})
    assert ack["type"] == "ack" and ack["id"] == 1
    line = await zed.wait_for(lambda f: f["type"] == "chat")
    assert {k: line[k] for k in ("room", "channel", "seat", "name", "text")} == {
        "room": room, "channel": "players", "seat": 0, "name": "Ana", "text": "<i>hi</i> all"}
    await ana.wait_for(lambda f: f["type"] == "chat")
    await zed.request({"type": "chat", "room": room, "emote": "gg"})
    spectators = await zed.wait_for(lambda f: f["type"] == "chat" and f.get("emote") == "gg")
    assert spectators["channel"] == "spectators" and spectators["seat"] is None
    # Zed's line went out before the answer to his request, and would have
    # reached Ana before her ping's answer.
    await ana.request({"type": "ping"})
    assert [f.get("text") for f in kinds(ana, "chat")] == ["<i>hi</i> all"]  # not Zed's
    assert ana.latest_state(room)["version"] == version  # chat is no change
    refused = await ana.request({"type": "chat", "room": room, "text": "x" * 201})
    assert (refused["reason"], refused["params"]) == ("chat_too_long", {"limit": 200})
    refused = await ana.request({"type": "chat", "room": room, "emote": "nope"})
    assert refused["reason"] == "unknown_emote"
    refused = await ana.request({"type": "chat", "room": "elsewhere", "text": "hi"})
    assert (refused["code"], refused["reason"]) == ("forbidden", "join_first")
    # A latecomer gets the lines it may read.
    late = await Client.open(live_server.ws_url)
    await late.request({"type": "join", "room": room, "role": "spectator"})
    assert [line.get("text") or line.get("emote")
            for line in kinds(late, "chat_history")[-1]["lines"]] == ["<i>hi</i> all", "gg"]
    await ana.close()
    ana = await Client.open(live_server.ws_url, ana_guest["token"])
    await ana.request({"type": "join", "room": room})
    assert [line["text"] for line in kinds(ana, "chat_history")[-1]["lines"]] == [
        "<i>hi</i> all"]
    for client in (ana, zed, late):
        await client.close()


async def test_a_rematch_plays_again_in_the_same_room_and_keeps_both_games(
        live_server: LiveServer) -> None:
    room, ana, bo, _ = await ana_and_bo_seated(live_server)
    refused = await bo.request({"type": "rematch", "room": room})
    assert refused["reason"] == "game_not_over"
    await ana.request({"type": "start", "room": room})
    await ana_goes_out(ana, room)
    first_version = bo.latest_state(room)["version"]
    # Bo clicks "Play again": everybody is in the next game at once.
    assert (await bo.request({"type": "rematch", "room": room}))["type"] == "ack"
    offered = await ana.wait_for(lambda f: f["type"] == "event"
                                 and f["event"]["kind"] == "rematch_offered")
    assert offered["event"] == {"kind": "rematch_offered", "by": 1, "name": "Bo", "game": 2}
    view = (await ana.state_where(room, lambda v: v["phase"] == "playing"))["view"]
    assert ana.latest_state(room)["version"] > first_version
    assert [s["name"] for s in view["seats"]] == ["Ana", "Bo"]
    assert kinds(bo, "chat_history") and not view["seats"][1]["away"]
    await ana_goes_out(ana, room)
    # Both games are recorded; the replay serves the latest, or one by number.
    async def replays() -> tuple[dict[str, Any], dict[str, Any]]:
        for _ in range(50):
            latest = httpx.get(f"{live_server.url}/api/rooms/{room}/replay")
            if latest.status_code == 200 and latest.json()["number"] == 2:
                first = httpx.get(f"{live_server.url}/api/rooms/{room}/replay?game=1")
                return latest.json(), first.json()
            await asyncio.sleep(0.1)
        raise AssertionError("the rematch was not recorded")
    latest, first = await replays()
    assert first["number"] == 1 and latest["seed"] != first["seed"]
    missing = httpx.get(f"{live_server.url}/api/rooms/{room}/replay?game=3")
    assert missing.status_code == 404 and missing.json()["code"] == "no_replay"
    for bad in ("0", "-1", str(2**63)):  # past the stored numbers' range: was a 500
        assert httpx.get(f"{live_server.url}/api/rooms/{room}/replay?game={bad}"
                         ).status_code == 422
    assert [a["action"]["kind"] for a in latest["actions"]] == ["draw", "meld", "discard"]
    for client in (ana, bo):
        await client.close()
