"""Validation at the edge: frame nesting and each game's action schema.

Unit tests of app/actions.py, then the same over a real uvicorn: a refused
frame changes nothing, and fields an action's kind does not read never
reach the room's action log (nor any file the server writes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.actions import check_action, json_depth_over
from engine.errors import GameError
from engine.games import all_games
from engine.options import validate_room_options
from engine.room import RoomError
from tests.games import known_game
from tests.live import LiveServer
from tests.wsclient import Client, create_room, new_guest

ANA = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "KH"]
BO = ["AH", "2H", "3H", "5C", "7C", "9D", "JD", "QC", "KC", "4D"]
SCENARIO = {"dealer": 1, "hands": [ANA, BO], "stock": ["QD", "2C", "TS", "8C", "8D"],
            "discard": ["5H"]}


def nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


# --- json_depth_over ----------------------------------------------------------------------


def test_depth_counts_arrays_and_objects_not_brackets_in_strings() -> None:
    assert not json_depth_over('{"a": [1, {"b": 2}]}', 3)
    assert json_depth_over('{"a": [1, {"b": 2}]}', 2)
    assert not json_depth_over(json.dumps({"s": "[[[[[[[[[[[[{{{{{{{{"}), 2)
    assert not json_depth_over(json.dumps({"s": 'a\\"[[[[[[[[[[[['}), 2)
    assert json_depth_over(json.dumps({"a": nested(300)}), 8)
    assert not json_depth_over(json.dumps({"a": nested(7)}), 8)


def test_depth_of_a_very_deep_text_is_found_without_recursion() -> None:
    assert json_depth_over("[" * 100_000 + "]" * 100_000, 8)


# --- the schemas --------------------------------------------------------------------------


def test_every_game_declares_a_schema_for_exactly_its_action_kinds() -> None:
    for game in all_games():
        kinds = getattr(game, "action_kinds", None)
        assert kinds is not None, game.name
        assert set(game.action_fields) == set(kinds), game.name


def test_legal_actions_of_every_game_pass_the_schema_unchanged() -> None:
    # The actions the rules themselves offer, along a game played by its
    # first legal moves, must all fit their schema.
    for game in all_games():
        options = validate_room_options(game, {"seed": 1}, game.min_players)
        state = game.setup(options, game.min_players, 7, 0)
        now = 0
        for _ in range(150):
            movers = game.to_act(state)
            if not movers:
                break
            seat = movers[0]
            legal = game.legal_actions(state, seat)
            for action in legal:
                assert check_action(game, action) == action, (game.name, action)
            if not legal:
                break
            now += 10
            try:
                state, _ = game.apply(state, seat, legal[-1], now)
            except GameError:
                break  # a real-time game's clock moved on: enough seen


def test_unknown_fields_are_dropped_and_known_ones_kept() -> None:
    game = known_game("basic_rummy")
    action = {"kind": "draw", "from": "stock", "pad": "x" * 15_000, "deep": nested(3)}
    assert check_action(game, action) == {"kind": "draw", "from": "stock"}


@pytest.mark.parametrize(("game_name", "action", "code"), [
    ("basic_rummy", {"kind": "fly"}, "illegal_action"),
    ("basic_rummy", {}, "illegal_action"),
    ("basic_rummy", {"kind": ["draw"]}, "illegal_action"),
    ("basic_rummy", {"kind": "take", "card": "AS", "with": []}, "illegal_action"),
    ("basic_rummy", {"kind": "meld", "cards": "AS 2S 3S"}, "bad_message"),
    ("basic_rummy", {"kind": "meld", "cards": ["AS"] * 65}, "bad_message"),
    ("basic_rummy", {"kind": "meld", "cards": ["AS", 2, "3S"]}, "bad_message"),
    ("basic_rummy", {"kind": "discard", "card": "A" * 17}, "bad_message"),
    ("basic_rummy", {"kind": "discard", "card": None}, "bad_message"),
    ("basic_rummy", {"kind": "lay_off", "card": "AS", "meld": {"id": "m1"}}, "bad_message"),
    ("indonesian_remi", {"kind": "close", "melds": [["AS"], "2S"], "card": "3S"},
     "bad_message"),
    ("indonesian_remi", {"kind": "close", "melds": [["AS"]] * 17, "card": "3S"},
     "bad_message"),
    ("remmi_demmi", {"kind": "offer", "cards": ["OR1"], "to": True}, "bad_message"),
    ("remmi_demmi", {"kind": "offer", "cards": ["OR1"], "to": 10**12}, "bad_message"),
    ("remmi_demmi", {"kind": "return", "trade": 3}, "bad_message"),
    ("traditional_remi", {"kind": "draw", "from": 1}, "bad_message"),
])
def test_bad_actions_are_refused_with_their_code(game_name: str, action: dict[str, Any],
                                                 code: str) -> None:
    game = known_game(game_name)
    with pytest.raises(RoomError) as refused:
        check_action(game, action)
    assert refused.value.code == code


def test_nullable_fields_accept_null() -> None:
    game = known_game("remmi_demmi")
    assert check_action(game, {"kind": "offer", "cards": ["OR1"], "to": None})["to"] is None
    assert check_action(game, {"kind": "claim", "cards": None}) == {"kind": "claim",
                                                                     "cards": None}


# --- over a real server ---------------------------------------------------------------------


async def _two_seat_game(server: LiveServer) -> tuple[str, Client, Client]:
    ana, bo = new_guest(server.url, "Ana"), new_guest(server.url, "Bo")
    room = create_room(server.url, ana["token"], "basic_rummy", 2, scenario=SCENARIO,
                       deals=1, bot_delay_ms=0, turn_clock_s=0)["room_id"]
    a = await Client.open(server.ws_url, ana["token"])
    b = await Client.open(server.ws_url, bo["token"])
    assert (await a.request({"type": "join", "room": room}))["seat"] == 0
    assert (await b.request({"type": "join", "room": room}))["seat"] == 1
    assert (await a.request({"type": "start", "room": room}))["type"] == "ack"
    await a.state_where(room, lambda v: v["phase"] == "playing")
    return room, a, b


async def test_a_frame_nested_300_deep_is_refused_and_changes_nothing(
        live_server: LiveServer) -> None:
    room, a, b = await _two_seat_game(live_server)
    version = a.latest_state(room)["version"]
    ref = 77
    await a.ws.send(json.dumps({"type": "act", "room": room, "ref": ref,
                                "action": {"kind": "draw", "from": "stock",
                                           "extra": nested(300)}}))
    reply = await a.wait_for(lambda f: f["type"] == "error", start=0)
    assert reply["code"] == "bad_message" and "nested" in reply["message"]
    # The socket is still served and the room did not move.
    assert (await a.request({"type": "ping"}))["type"] == "pong"
    await a.sync(room)
    assert a.latest_state(room)["version"] == version
    assert (await a.act(room, kind="draw", **{"from": "stock"}))["type"] == "ack"
    for client in (a, b):
        await client.close()


async def test_unknown_action_fields_never_reach_the_log_or_the_disk(
        live_server: LiveServer) -> None:
    room, a, b = await _two_seat_game(live_server)
    padding = "PADDING-" * 1800  # about 14 KB, under the frame limit
    reply = await a.act(room, kind="draw", pad=padding, **{"from": "stock"})
    assert reply["type"] == "ack", reply
    # A known field of the wrong type or size is refused before the room.
    version = a.latest_state(room)["version"]
    assert (await a.act(room, kind="meld", cards="AS 2S 3S"))["code"] == "bad_message"
    assert (await a.act(room, kind="meld", cards=["AS"] * 100))["code"] == "bad_message"
    assert (await a.act(room, kind="warp"))["code"] == "illegal_action"
    await a.sync(room)  # every save of the commands before it has landed
    assert a.latest_state(room)["version"] == version
    for client in (a, b):
        await client.close()
    tmp = live_server.log.parent
    for path in Path(tmp).rglob("*"):
        if path.is_file() and path != live_server.log:
            assert b"PADDING-PADDING" not in path.read_bytes(), path
