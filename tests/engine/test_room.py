"""The room core with a fake clock: seats, owner rights, versions, turn clock, bots."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.replay import replay
from engine.room import Act, AddBot, Join, Leave, RoomCore, RoomError, Snapshot, Start
from tests.engine import room_harness
from tests.engine.room_harness import Collect, run_until
from tests.games import known_game

GAME = known_game("basic_rummy")


def make_room(seats: int = 2, **options: Any) -> tuple[RoomCore, Collect]:
    return room_harness.make_room(GAME, seats, room_id="r1", seed=7,
                                  **{"bot_delay_ms": 100, **options})


def test_players_take_free_seats_and_get_them_back_on_reconnect() -> None:
    room, _ = make_room(3)
    assert room.handle(Join("ana", "Ana", "player"), 1) == 0
    assert room.handle(Join("bo", "Bo", "player"), 2) == 1
    room.handle(Leave("ana", 0, disconnect=True), 3)
    assert room.handle(Join("ana", "Ana", "player"), 4) == 0
    assert room.seats[0].connections == 1


def test_full_room_and_started_game_refuse_new_players() -> None:
    room, _ = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Join("bo", "Bo", "player"), 1)
    with pytest.raises(RoomError) as err:
        room.handle(Join("cy", "Cy", "player"), 1)
    assert err.value.code == "room_full"
    assert room.handle(Join(None, None, "spectator"), 1) is None
    assert room.spectators == 1


def test_only_the_owner_adds_bots_and_starts() -> None:
    room, _ = make_room(2)
    room.handle(Join("bo", "Bo", "player"), 1)
    for command in (AddBot("bo"), Start("bo")):
        with pytest.raises(RoomError) as err:
            room.handle(command, 2)
        assert err.value.code == "forbidden"
    assert room.handle(AddBot("ana"), 3) == 1
    room.handle(Start("ana"), 4)
    assert room.status == "playing"


def test_start_needs_every_seat_unless_fill_bots() -> None:
    room, _ = make_room(3)
    room.handle(Join("ana", "Ana", "player"), 1)
    with pytest.raises(RoomError):
        room.handle(Start("ana"), 2)
    room, _ = make_room(3, fill_bots=True)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Start("ana"), 2)
    assert [s.bot for s in room.seats] == [False, True, True]


def test_refused_commands_change_nothing_and_keep_the_version() -> None:
    room, sink = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(AddBot("ana"), 1)
    room.handle(Start("ana"), 1)
    version, changes = room.version, len(sink.changes)
    turn = room.state.turn
    other = 1 - turn
    player = "ana" if other == 0 else None
    with pytest.raises(RoomError):
        room.handle(Act(player, other, {"kind": "draw", "from": "stock"}), 2)
    with pytest.raises(RoomError):
        room.handle(Act("ana", 0, {"kind": "fly"}), 2)
    assert (room.version, len(sink.changes)) == (version, changes)


def test_every_change_bumps_the_version_and_sends_views_to_connected_seats() -> None:
    room, sink = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Join(None, None, "spectator"), 1)
    room.handle(AddBot("ana"), 1)
    room.handle(Start("ana"), 1)
    versions = [c.version for c in sink.changes]
    assert versions == sorted(set(versions))
    last = sink.changes[-1]
    assert last.audiences == [0, None]  # the bot gets no view; the spectator does
    assert "hand" not in last.view(None)
    assert last.view(0)["seats"][1]["bot"] is True


def test_bots_move_after_their_delay() -> None:
    room, _ = make_room(2, bot_delay_ms=500)
    room.handle(Join("ana", "Ana", "player"), 0)
    room.handle(AddBot("ana"), 0)
    room.handle(Start("ana"), 1000)
    if room.state.turn == 0:  # let Ana play her turn so that the bot is next
        hand = room.state.hands[0]
        room.handle(Act("ana", 0, {"kind": "draw", "from": "stock"}), 1000)
        room.handle(Act("ana", 0, {"kind": "discard", "card": room.state.hands[0][0]}), 1000)
        assert hand is not None
    assert room.state.turn == 1
    due = room.next_wakeup()
    assert due == 1500
    before = len(room.action_log)
    room.tick(1499)
    assert len(room.action_log) == before
    room.tick(1500)
    assert len(room.action_log) == before + 1
    assert room.action_log[before:][0]["bot"] is True


def test_turn_clock_hands_an_absent_players_turn_to_a_bot_until_they_act() -> None:
    room, _ = make_room(2, turn_clock_s=60, bot_delay_ms=0)
    room.handle(Join("ana", "Ana", "player"), 0)
    room.handle(AddBot("ana"), 0)
    room.handle(Start("ana"), 0)
    now = run_until(room, lambda: room.state.turn == 0, 0)  # the bot plays until Ana's turn
    started = now
    assert room.turn_deadline == started + 60_000
    view = room.view_for(0, now)
    assert view["turn_deadline"] == started + 60_000
    room.tick(started + 59_999)
    assert not room.seats[0].away
    room.tick(started + 60_000)
    assert room.seats[0].away
    now = run_until(room, lambda: room.state.turn != 0, started + 60_000)
    assert all(e.get("bot") for e in room.action_log
               if e.get("seat") == 0 and e["at"] >= now - 1)
    now = run_until(room, lambda: room.state.turn == 0 and room.state.step == "draw", now)
    room.handle(Act("ana", 0, {"kind": "draw", "from": "stock"}), now)
    assert not room.seats[0].away


def test_a_table_of_bots_plays_a_match_to_the_end_and_the_log_replays_it() -> None:
    room, sink = make_room(3, fill_bots=True, bot_delay_ms=0, deals=2, deal_pause_ms=0)
    room.handle(Start("ana"), 5)
    run_until(room, lambda: False, 5, limit=5000)
    assert room.status == "finished"
    assert len(sink.outcomes) == 1
    final = replay(room.replay_record())
    assert GAME.view(final, None) == GAME.view(room.state, None)
    assert sink.outcomes[0].scores == final.scores


def test_snapshot_gives_the_current_version_and_view() -> None:
    room, _ = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    version, view = room.handle(Snapshot(0), 2)
    assert version == room.version
    assert view["you"] == 0 and view["phase"] == "waiting"
    assert view["seats"][0]["name"] == "Ana"


def test_a_room_snapshot_restores_the_same_room_and_game() -> None:
    room, _ = make_room(2, turn_clock_s=60)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Join(None, None, "spectator"), 1)
    room.handle(AddBot("ana"), 1)
    room.handle(Start("ana"), 10)
    now = run_until(room, lambda: room.state.turn == 0, 10)
    data = json.loads(json.dumps(room.to_snapshot()))  # survives JSON
    copy = RoomCore.from_snapshot(data, GAME, list(room.action_log))
    assert copy.view_for(0, now) == room.view_for(0, now)
    assert copy.view_for(None, now) == room.view_for(None, now)
    assert (copy.version, copy.next_wakeup(), copy.turn_deadline) == (
        room.version, room.next_wakeup(), room.turn_deadline)
    copy.handle(Act("ana", 0, {"kind": "draw", "from": "stock"}), now)
    assert copy.version == room.version + 1


def test_connections_of_a_dead_process_are_dropped() -> None:
    room, sink = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Join("ana", "Ana", "player"), 1)  # a second tab
    room.handle(Join("bo", "Bo", "player"), 1)
    room.handle(Join(None, None, "spectator"), 1)
    room.drop_connections([0, None], 5)
    assert (room.seats[0].connections, room.seats[1].connections) == (1, 1)
    assert room.spectators == 0
    assert sink.changes[-1].events == [{"kind": "disconnected", "seat": 0}]
    version = room.version
    room.drop_connections([None, 7], 6)  # nothing more to drop: no change
    assert room.version == version and room.spectators == 0


def room_facts(room: RoomCore) -> tuple[Any, ...]:
    """Everything about a room that is not the game (what its log entries leave out)."""
    return (room.status, room.private, room.spectators, [
        (s.player_id, s.name, s.bot, s.away, s.connections) for s in room.seats])


def shows_the_room_as_it_is(room: RoomCore, now: int) -> bool:
    """Whether a view shows the room's seats and facts as they are now."""
    view = room.view_for(None, now)
    return view["room"]["status"] == room.status and \
        view["room"]["spectators"] == room.spectators and [
            (v["name"], v["bot"], v["connected"], v["away"]) for v in view["seats"]] == [
            (s.name, s.bot, s.bot or bool(s.connections), s.away) for s in room.seats]


def test_every_change_to_the_room_itself_counts_in_room_changes() -> None:
    # The registry saves only new log entries while room_changes stands
    # still: a change to seats, watchers, away or status it missed would be
    # lost by a room resumed from its snapshot, and the views would show
    # the room as it was.
    room, _ = make_room(3, turn_clock_s=1, bot_delay_ms=0)
    steps: list[tuple[str, Any]] = [
        ("join ana", lambda now: room.handle(Join("ana", "Ana", "player"), now)),
        ("join bo", lambda now: room.handle(Join("bo", "Bo", "player"), now)),
        ("bo leaves", lambda now: room.handle(Leave("bo", 1), now)),
        ("watch", lambda now: room.handle(Join(None, None, "spectator"), now)),
        ("a bot", lambda now: room.handle(AddBot("ana"), now)),
        ("another", lambda now: room.handle(AddBot("ana"), now)),
        ("start", lambda now: room.handle(Start("ana"), now)),
    ]
    now = 1
    for _, step in steps:
        before, counted = room_facts(room), room.room_changes
        step(now)
        assert (room_facts(room) != before) <= (room.room_changes != counted)
        assert shows_the_room_as_it_is(room, now)
        now += 1
    # Then play on, with the turn clock making Ana away and her moves bringing
    # her back, a dropped connection, and a finished match at the end.
    moves = 0
    while room.status == "playing" and moves < 3000:
        before, counted = room_facts(room), room.room_changes
        if room.state.turn == 0 and moves % 7 != 3:
            action: dict[str, Any] = (
                {"kind": "draw", "from": "stock"} if room.state.step == "draw"
                else {"kind": "discard", "card": room.state.hands[0][-1]})
            room.handle(Act("ana", 0, action), now)
        else:
            now = max(now + 1, room.next_wakeup() or now)
            room.tick(now)
        if moves == 500:
            room.drop_connections([None], now)
        assert (room_facts(room) != before) <= (room.room_changes != counted), moves
        assert shows_the_room_as_it_is(room, now), moves
        moves += 1
    assert room.status == "finished"


def test_a_snapshot_and_the_log_entries_after_it_bring_the_room_back_exactly() -> None:
    room, _ = make_room(2, turn_clock_s=0, bot_delay_ms=0)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(AddBot("ana"), 1)
    room.handle(Start("ana"), 2)
    snapshot = json.loads(json.dumps(room.to_snapshot()))
    room_changes = room.room_changes
    now = 2
    # Only the game changes from here: Ana's moves and the bot's.
    for _ in range(12):
        if room.state.turn == 0:
            kind = "draw" if room.state.step == "draw" else "discard"
            action: dict[str, Any] = ({"kind": "draw", "from": "stock"} if kind == "draw"
                                      else {"kind": "discard", "card": room.state.hands[0][0]})
            room.handle(Act("ana", 0, action), now)
        else:
            now = max(now, room.next_wakeup() or now)
            room.tick(now)
    assert room.room_changes == room_changes  # so the registry saved no new snapshot
    assert room_facts(room) == room_facts(RoomCore.from_snapshot(snapshot, GAME, []))
    log = json.loads(json.dumps(room.action_log))  # as a store gives it back
    copy = RoomCore.from_snapshot(snapshot, GAME, log)
    copy.catch_up(log[snapshot["log_length"]:], now)
    assert copy.version == room.version
    assert copy.view_for(0, now) == room.view_for(0, now)
    assert copy.action_log == room.action_log
