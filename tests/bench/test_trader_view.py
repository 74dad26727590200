"""bench.loadgen's lean reading of a Remmi Demmi trader's state frame."""

from __future__ import annotations

import random

import orjson

from app.frames import RoomFrames, seat_channel
from app.wsprotocol import unwire
from bench.loadgen import TRADE_OPTIONS, quick_offer, trader_view
from engine.room import Act, Join, Start
from tests.engine.room_harness import make_room
from tests.games import known_game

GAME = known_game("remmi_demmi")


def test_a_trader_reads_what_quick_offer_needs_as_the_whole_view_says_it() -> None:
    room, sink = make_room(GAME, 6, room_id="r", seed=3, **TRADE_OPTIONS)
    players = ["ana", *(f"p{seat}" for seat in range(1, 6))]  # ana owns the room
    for player in players:
        room.handle(Join(player, player, "player"), 0)
    room.handle(Start("ana"), 0)
    dealer = room.view_for(0, 0)["dealer"]
    room.handle(Act(players[dealer], dealer, {"kind": "start_timer", "speed": "snail"}), 1)
    stages, trades, now = set(), 0, 2
    for step in range(300):  # every seat offers in turn: trades, open offers, locks
        seat = step % 6
        offer = quick_offer(room.view_for(seat, now), random.Random(step))
        if offer is not None:
            room.handle(Act(players[seat], seat, offer), now)
        now += 10
    frames = dict(RoomFrames().frames(sink.changes[-1]))
    for seat in range(6):
        *_, state = unwire(frames[seat_channel("r", seat)])
        view = orjson.loads(state)["view"]
        lean = trader_view(state)
        assert lean is not None
        assert lean == {key: view[key] for key in lean}
        assert {"stage", "hand", "my_offer", "locked"} <= set(lean)
        stages.add(lean["stage"])
        trades += len(view["trades"])
    assert stages == {"trading"} and trades > 30


def test_a_frame_laid_out_otherwise_is_left_to_a_whole_parse() -> None:
    assert trader_view(b'{"type":"state","room":"r","version":1,"view":{"by":0}}') is None
    assert trader_view(orjson.dumps({"type": "state", "view": {
        "you": 0, "trades": [], "locked": [], "stage": "trading"}})) is None
