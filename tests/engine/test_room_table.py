"""The table around a game, in the room core with a fake clock: removing a bot
before the start, the rematch, chat, and the table log a joiner is sent."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games import all_games
from engine.replay import replay
from engine.room import (
    AS_IS,
    CHAT_LIMIT,
    Act,
    AddBot,
    Chat,
    History,
    Join,
    Leave,
    LogPacking,
    Rematch,
    RemoveBot,
    RoomCore,
    RoomError,
    Start,
)
from tests.engine import room_harness
from tests.engine.room_harness import run_until
from tests.examples import examples
from tests.games import known_game

GAME = known_game("basic_rummy")


def make_room(seats: int = 2, **options: Any) -> RoomCore:
    room, _ = room_harness.make_room(GAME, seats, room_id="r1", seed=7,
                                     **{"bot_delay_ms": 0, **options})
    return room


def refusal(room: RoomCore, command: Any, now: int = 5) -> RoomError:
    version, log = room.version, list(room.action_log)
    with pytest.raises(RoomError) as caught:
        room.handle(command, now)
    assert room.version == version and room.action_log == log
    return caught.value


def finished_room(**options: Any) -> RoomCore:
    """Ana (seat 0, connected) against a bot, played to the end by bots."""
    room = make_room(2, deals=1, deal_pause_ms=0, turn_clock_s=1, **options)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(AddBot("ana"), 1)
    room.handle(Start("ana"), 2)
    room.handle(Leave("ana", 0), 2)  # her turn clock runs out: her bot plays
    run_until(room, lambda: False, 2)
    assert room.status == "finished"
    room.handle(Join("ana", "Ana", "player"), 9_000)  # and she is back
    return room


# --- remove_bot -------------------------------------------------------------------


def test_the_owner_removes_a_bot_before_the_start_and_the_seat_is_free_again() -> None:
    room = make_room(3)
    room.handle(Join("ana", "Ana", "player"), 1)
    assert room.handle(AddBot("ana"), 1) == 1
    assert room.handle(AddBot("ana"), 1) == 2
    room.handle(RemoveBot("ana", 1), 2)
    assert room.seats[1].is_free and room.seats[1].name is None
    assert room.outbox[-1].events == [{"kind": "bot_removed", "seat": 1}]
    room.handle(Join("bo", "Bo", "player"), 3)
    assert room.seat_of("bo") == 1


def test_remove_bot_is_refused_by_reason_and_changes_nothing() -> None:
    room = make_room(3)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Join("bo", "Bo", "player"), 1)
    room.handle(AddBot("ana"), 1)
    assert refusal(room, RemoveBot("bo", 2)).reason == "owner_only"
    assert refusal(room, RemoveBot("ana", 1)).reason == "not_a_bot_seat"  # Bo's seat
    assert refusal(room, RemoveBot("ana", 7)).reason == "no_such_seat"
    room.handle(Start("ana"), 2)
    err = refusal(room, RemoveBot("ana", 2))
    assert (err.code, err.reason) == ("illegal_action", "bots_before_start")


# --- rematch ----------------------------------------------------------------------


def test_a_rematch_deals_a_new_game_with_the_same_seats_and_a_new_seed() -> None:
    room = finished_room()
    first = replay(room.replay_record())
    first_record = room.replay_record()
    version = room.version
    room.handle(Rematch("ana", 99), 10_000)
    assert room.status == "playing" and room.game_number == 2 and room.seed == 99
    assert room.version == version + 1
    assert [(s.player_id, s.bot) for s in room.seats] == [("ana", False), (None, True)]
    kinds = [e["kind"] for e in room.outbox[-1].events]
    assert kinds == ["rematch_offered", "started"]
    assert room.outbox[-1].events[0] == {"kind": "rematch_offered", "by": 0, "name": "Ana",
                                         "game": 2}
    # The new game's record holds only its own actions, and replays.
    assert room.replay_record()["actions"] == [] and room.replay_record()["seed"] == 99
    room.handle(Leave("ana", 0), 10_000)
    run_until(room, lambda: False, 10_000)
    assert room.status == "finished"
    assert GAME.view(replay(room.replay_record()), None) == GAME.view(room.state, None)
    assert first_record["actions"] != room.replay_record()["actions"]
    assert first is not None


def test_a_rematch_needs_a_finished_game_a_seated_player_and_a_public_room() -> None:
    room = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(AddBot("ana"), 1)
    assert refusal(room, Rematch("ana", 1)).reason == "game_not_over"
    room.handle(Start("ana"), 2)
    assert refusal(room, Rematch("ana", 1)).reason == "game_not_over"
    done = finished_room()
    assert refusal(done, Rematch("zed", 1)).reason == "not_seated"
    daily = finished_room()
    daily.private = True
    assert refusal(daily, Rematch("ana", 1)).reason == "no_rematch_here"


def test_in_a_rematch_a_player_who_is_not_there_is_played_by_a_bot() -> None:
    room = finished_room()
    room.handle(Rematch("ana", 5), 9_001)
    assert not room.seats[0].away  # she is connected: she plays
    room.handle(Leave("ana", 0), 9_002)
    run_until(room, lambda: False, 9_002)
    room.update_seat(0, away=False)  # (say she had come back and played)
    room.handle(Rematch("ana", 6), 90_001)  # from another tab, say
    assert room.seats[0].away  # no connection: her bot plays until she is back
    assert room.next_wakeup() is not None


def test_leaving_a_game_keeps_the_seat_and_leaving_a_rematch_hands_it_to_its_bot() -> None:
    room = make_room(2, turn_clock_s=0)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(AddBot("ana"), 1)
    room.handle(Start("ana"), 2)
    room.handle(Leave("ana", 0), 3)  # a look at the lobby, say
    assert not room.seats[0].away and room.seats[0].player_id == "ana"
    room = finished_room()
    room.handle(Rematch("ana", 42), 10_000)
    room.handle(Leave("ana", 0), 10_001)  # she did not ask for this game
    assert room.seats[0].away and room.seats[0].player_id == "ana"
    assert {"kind": "away", "seat": 0} in room.outbox[-1].events


def test_a_rematch_survives_a_snapshot_and_the_log_after_it() -> None:
    room = finished_room()
    before = json.loads(json.dumps(room.to_snapshot()))
    room.handle(Rematch("ana", 42), 10_000)
    room.handle(Leave("ana", 0), 10_000)
    run_until(room, lambda: len(room.action_log) > room.game_start + 6, 10_000)
    log = json.loads(json.dumps(room.action_log))
    copy = RoomCore.from_snapshot(before, GAME, log)
    copy.catch_up(log[before["log_length"]:], 20_000)
    assert (copy.game_number, copy.game_start, copy.seed) == (2, room.game_start, 42)
    assert GAME.view(copy.state, None) == GAME.view(room.state, None)
    assert copy.replay_record()["actions"] == room.replay_record()["actions"]
    after = RoomCore.from_snapshot(json.loads(json.dumps(room.to_snapshot())), GAME, log)
    assert after.history(None)["entries"] == room.history(None)["entries"]


# --- chat -------------------------------------------------------------------------


def test_chat_lines_are_kept_but_are_no_change_and_not_in_the_action_log() -> None:
    room = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    version, changes = room.version, len(room.outbox)
    line = room.handle(Chat("ana", 0, "Ana", text="  hello <b>all</b>\n"), 2)
    assert line == {"id": 1, "channel": "players", "seat": 0, "name": "Ana", "at": 2,
                    "text": "hello <b>all</b>"}  # kept as written: shown as text
    assert room.version == version and len(room.outbox) == changes and not room.action_log
    assert room.take_chat() == [line] and room.take_chat() == []
    emote = room.handle(Chat("zed", None, "Zed", emote="gg"), 3)
    assert emote["channel"] == "spectators" and emote["emote"] == "gg"


def test_players_do_not_read_the_spectators_chat_spectators_read_both() -> None:
    room = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    room.handle(Chat("ana", 0, "Ana", text="hi"), 2)
    room.handle(Chat("zed", None, "Zed", text="she should meld"), 3)
    assert [line["text"] for line in room.handle(History(0), 4)["chat"]] == ["hi"]
    assert [line["text"] for line in room.handle(History(None), 4)["chat"]] == [
        "hi", "she should meld"]


def test_chat_is_refused_by_reason() -> None:
    room = make_room(2)
    room.handle(Join("ana", "Ana", "player"), 1)
    assert refusal(room, Chat("ana", 0, "Ana", text=" \t")).reason == "chat_empty"
    long = refusal(room, Chat("ana", 0, "Ana", text="x" * (CHAT_LIMIT + 1)))
    assert (long.reason, long.params) == ("chat_too_long", {"limit": CHAT_LIMIT})
    assert refusal(room, Chat("ana", 0, "Ana", emote="<script>")).reason == "unknown_emote"
    assert refusal(room, Chat(None, None, None, text="hi")).reason == "sign_in_to_chat"
    assert refusal(room, Chat("zed", 0, "Zed", text="hi")).reason == "not_your_seat"
    assert room.chat == []


def test_the_room_keeps_the_last_hundred_chat_lines() -> None:
    room = make_room(2)
    for n in range(130):
        room.handle(Chat("zed", None, "Zed", text=f"line {n}"), n)
    assert len(room.chat) == RoomCore.CHAT_KEEP
    assert room.chat[0]["text"] == "line 30" and room.chat[-1]["id"] == 130


# --- the table log ------------------------------------------------------------------


def test_the_table_log_has_a_line_per_action_marked_when_a_bot_played() -> None:
    room = finished_room()
    entries = room.handle(History(0), 99_999)["entries"]
    assert len(entries) == len(room.action_log) - room.game_start
    assert all(e["bot"] for e in entries if e["kind"] is not None)
    drew = next(e for e in entries if e["kind"] == "draw")
    assert drew["events"][0]["kind"] == "drew"
    # Made again from the action log, it is the same.
    room._table_log = None
    assert room.history(0)["entries"] == entries


JSON_PACKING = LogPacking(pack=lambda entry: json.dumps(entry).encode(), unpack=json.loads)


def test_a_room_that_keeps_its_logs_packed_is_the_same_room() -> None:
    """Kept as JSON, the logs read, replay, save, resume and roll back as kept as they are."""
    rooms = []
    for packing in (AS_IS, JSON_PACKING):
        room = make_room(2, deals=2, deal_pause_ms=0, turn_clock_s=1)
        room.packing = packing
        room.handle(Join("ana", "Ana", "player"), 1)
        room.handle(AddBot("ana"), 1)
        room.handle(Start("ana"), 2)
        room.handle(Leave("ana", 0), 2)
        now = run_until(room, lambda r=room: len(r.action_log) >= 30, 2)  # type: ignore[misc]
        snapshot = json.loads(json.dumps(room.to_snapshot()))
        now = run_until(room, lambda r=room: len(r.action_log) >= 60, now)  # type: ignore[misc]
        # A move undone: the log is as it was, the table log made again.
        before = room.checkpoint()
        room.tick(max(now, room.next_wakeup() or now))
        assert len(room.action_log) > before.log_length
        room.rollback(before)
        rooms.append((room, snapshot, now))
    (plain, snapshot, now), (packed, packed_snapshot, packed_now) = rooms
    assert (snapshot, now) == (packed_snapshot, packed_now)
    assert all(isinstance(entry, bytes) for entry in packed.action_log)
    assert packed.log_entries() == plain.log_entries() == plain.action_log
    assert packed.history(0) == plain.history(0)
    assert packed.replay_record() == plain.replay_record()
    assert packed.view_for(0, now) == plain.view_for(0, now)
    # Resumed from the snapshot and the entries saved after it.
    saved = packed.log_entries()
    copy = RoomCore.from_snapshot(snapshot, GAME, saved, JSON_PACKING)
    copy.catch_up(saved[snapshot["log_length"]:], now)
    assert all(isinstance(entry, bytes) for entry in copy.action_log)
    assert copy.action_log == packed.action_log
    assert copy.view_for(0, now) == packed.view_for(0, now)
    assert copy.history(None) == packed.history(None)


def _cards_in_hands(room: RoomCore) -> set[str]:
    return {card for seat in range(room.seat_count)
            for card in room.game.view(room.state, seat).get("hand") or []}


@settings(max_examples=examples(12), deadline=None)
@given(game_name=st.sampled_from([g.name for g in all_games()]),
       seed=st.integers(0, 2**31), steps=st.integers(5, 150))
def test_no_card_a_hand_hides_is_in_the_table_log(game_name: str, seed: int,
                                                  steps: int) -> None:
    """Bots play; at every step, no card in a hand that no spectator has seen yet
    (drawn from the stock, in an offer, in a claim before it shows) is in
    the table log."""
    game = known_game(game_name)
    room, _ = room_harness.make_room(game, game.default_seats, room_id="p", seed=seed,
                                     fill_bots=True, bot_delay_ms=0, **game.short_options)
    room.handle(Start("ana"), 0)
    now = 0
    seen = json.dumps(room.game.view(room.state, None))  # what spectators have been shown
    for _ in range(steps):
        if room.status != "playing":
            break
        wakeup = room.next_wakeup()
        assert wakeup is not None
        now = max(now, wakeup)
        room.tick(now)
        seen += json.dumps(room.game.view(room.state, None))
        hidden = {card for card in _cards_in_hands(room) if f'"{card}"' not in seen}
        text = json.dumps(room.history(None)["entries"])
        shown = {card for card in hidden if f'"{card}"' in text}
        assert not shown, f"{game_name}: hidden cards {shown} in the table log"
    # An action's own fields never go out, only its kind.
    assert all(set(e) <= {"seat", "kind", "at", "bot", "events"}
               for e in room.history(None)["entries"])


def test_a_remmi_demmi_offer_is_in_the_table_log_by_size_only() -> None:
    game = known_game("remmi_demmi")
    room, _ = room_harness.make_room(game, 4, room_id="rd", seed=3, bot_delay_ms=0)
    room.handle(Join("ana", "Ana", "player"), 0)
    for _ in range(3):
        room.handle(AddBot("ana"), 0)
    room.handle(Start("ana"), 0)
    now = 0
    if room.state.dealer == 0:
        room.handle(Act("ana", 0, {"kind": "start_timer", "speed": "snail"}), 1)
    else:
        now = run_until(room, lambda: room.state.stage == "trading", 0)
    hand = list(room.state.hands[0])
    room.handle(Act("ana", 0, {"kind": "offer", "cards": hand[:2], "to": None}), now + 1)
    entry = room.history(None)["entries"][-1]
    assert entry["kind"] == "offer" and entry["seat"] == 0 and "bot" not in entry
    text = json.dumps(entry)
    assert hand[0] not in text and hand[1] not in text
