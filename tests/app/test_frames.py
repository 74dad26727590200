"""The frames a room change goes out as: exactly its events and views."""

from __future__ import annotations

import orjson
import pytest

from app.frames import RoomFrames, seat_channel, watch_channel
from app.wsprotocol import unwire
from engine.game import Game
from engine.games import all_games
from engine.room import AddBot, Join, Start
from tests.engine.room_harness import make_room, run_until


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.name)
def test_every_audience_gets_the_events_and_its_whole_view(game: Game) -> None:
    seats = max(game.min_players, 4)
    room, sink = make_room(game, seats, room_id="r1", seed=11, turn_clock_s=1,
                           bot_delay_ms=0)
    room.handle(Join("ana", "Ana", "player"), 0)
    room.handle(Join(None, None, "spectator"), 0)
    for _ in range(seats - 1):
        room.handle(AddBot("ana"), 0)
    room.handle(Start("ana"), 1)
    # Ana never acts: her turn clock runs out and her bot stands in, so the
    # game moves on while she and the spectator get a view of every change.
    run_until(room, lambda: len(sink.changes) > 150, 1)
    assert len(sink.changes) > 20
    framing = RoomFrames()
    for change in sink.changes:
        assert set(change.audiences) <= {0, None}
        sent = dict(framing.frames(change))
        assert len(sent) == len(change.audiences)
        for audience in change.audiences:
            view = change.view(audience)
            if change.own.state is not None:  # the game's view, the room's facts added
                game_view = game.view(change.own.state, audience)
                assert {key: view[key] for key in game_view if key != "seats"} == {
                    key: value for key, value in game_view.items() if key != "seats"}
            channel = watch_channel("r1") if audience is None else seat_channel("r1", audience)
            *events, state = (orjson.loads(frame) for frame in unwire(sent[channel]))
            assert [e["event"] for e in events] == change.events
            assert state == {"type": "state", "room": "r1", "version": change.version,
                             "view": orjson.loads(orjson.dumps(view))}
